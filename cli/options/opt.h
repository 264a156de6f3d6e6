/*
 * A small command-line option parser: long options (--name, --name=value, --name value), short options
 * (-x, -x value, -xvalue, grouped flags -vf), "--" to end the options, and "-" as an operand.
 */
#ifndef CLSORT_OPT_H
#define CLSORT_OPT_H

#include <stddef.h>
#include <stdint.h>

typedef struct opt_def {
    const char *name; /* long name without "--", or NULL */
    char short_name;  /* short letter, or 0 */
    int has_arg;      /* 1 if the option takes a value; 2 if it may, only as --name=value */
    int id;           /* returned by opt_next(); must be > 0 */
} opt_def;

enum {
    OPT_END = 0,       /* no more arguments */
    OPT_OPERAND = -1,  /* a non-option argument: *arg is it */
    OPT_ERROR = -2,    /* an error was printed */
};

typedef struct opt_state {
    int argc;
    char **argv;
    int index;          /* next argv element */
    const char *group;  /* rest of a group of short flags, or NULL */
    int only_operands;  /* after "--" */
    const char *current; /* the option just parsed, as the user spelled it (for messages) */
    char current_buf[64];
    const char *help;   /* where to look for help, for messages: "clsort gen --help" */
} opt_state;

/* Start parsing argv[first..argc-1]; help names the help command for error messages. */
void opt_init(opt_state *st, int argc, char **argv, int first, const char *help);
/* Next option: its id (with *arg set to its value, or NULL), OPT_OPERAND, OPT_END or OPT_ERROR. */
int opt_next(opt_state *st, const opt_def *defs, const char **arg);

/* Value parsers; each prints an error naming the option and returns -1 on a bad value. */
/* A count: decimal or 0x hex, with an optional suffix k/M/G/T (10^3...) or Ki/Mi/Gi/Ti (2^10...). */
int opt_parse_count(const opt_state *st, const char *text, uint64_t *out);
/* An unsigned 64-bit integer, decimal or 0x hex. */
int opt_parse_u64(const opt_state *st, const char *text, uint64_t *out);
/* A memory size as sort(1) -S takes it, into *bytes: a number with a suffix b (bytes), K (KiB, also
 * for a bare number), M, G, T, P or E (powers of 1024; k, m, g, t and Ki..Ei the same), 1 byte or
 * more; or N% (1 to 100) of physical memory into *percent. The other is set to 0. */
int opt_parse_memory(const opt_state *st, const char *text, uint64_t *bytes, unsigned *percent);

#endif
