/*
 * clsort text: GNU sort's options parsed (text_args.c) for the command that sorts text lines
 * (text_cmd.c) with clsort_sort_lines().
 */
#ifndef CLSORT_TEXT_H
#define CLSORT_TEXT_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* GNU sort's exit status for errors (bad options, files that cannot be read) */
enum { TEXT_EXIT_DISORDER = 1, TEXT_EXIT_ERROR = 2 };

typedef struct text_args {
    clsort_lines_spec spec;
    clsort_lines_key keys[CLSORT_LINES_MAX_KEYS];
    int check;              /* 0, 'c' (diagnose the first disorder) or 'C' (quiet) */
    int merge;              /* -m */
    const char *output;     /* -o, or NULL: stdout */
    uint64_t memory;        /* -S in bytes, 0: not given */
    const char *tmpdir;     /* -T, or NULL */
    unsigned parallel;      /* --parallel, 0: not given */
    const char *device;     /* --device: the device's sort for any size */
    int stats;              /* --stats: where the time went, on stderr */
    const char **files;     /* the inputs ('-' is stdin); at least one */
    size_t n_files;
    char **files0;          /* --files0-from's names (owned), or NULL */
    int help, version;
} text_args;

/* Parse argv[first..argc) as GNU sort's options. Returns -1 to go on, else an exit status (the
 * message said). */
int text_parse_args(int argc, char **argv, int first, text_args *a);
void text_args_free(text_args *a);
/* Parse a -k spec into key (0), or say why not into why (GNU sort's words) and return -1;
 * 1 for a modifier clsort does not support (M R V), named in why. */
int text_parse_key(const char *spec, clsort_lines_key *key, char *why, size_t cap);

int cmd_text(int argc, char **argv, int first);
/* clsort sort's hint, on stderr, that `clsort text` sorts text lines: for a terminal (fd -1 or a
 * terminal's), or a file whose first bytes look like text lines. */
void text_hint(int fd);
void help_text(void);

#endif
