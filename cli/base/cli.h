/*
 * clsort command-line tool: declarations shared by its files.
 *
 * The layers, with what each file does and calls: cli/README.md, "Layers".
 * The library (clsort.h) is called from the subcommands and the helpers; no file here calls OpenCL.
 */
#ifndef CLSORT_CLI_H
#define CLSORT_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Exit statuses (documented in --help and clsort(1)). */
enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,   /* invalid usage or invalid input */
    EXIT_DEVICE = 2,  /* device, OpenCL or library error; out of memory */
    EXIT_IO = 3,      /* I/O error reading or writing */
    /* 128 + N when ended by signal N (130 SIGINT, 143 SIGTERM) */
};

/* Messages (msg.c). Every message goes to stderr, prefixed with "clsort: ". */
extern int g_verbosity; /* 0 quiet (-q), 1 normal, 2 verbose (-v) */

void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Copy text into out (cap bytes, at least 6), with control characters and bytes that are not UTF-8
 * written as \xNN. Every message goes through it. */
void msg_sanitize(char *out, size_t cap, const char *text);
/* Length of the valid UTF-8 sequence of two to four bytes at p that is not a C1 control
 * (U+0080..U+009F), or 0 (an ASCII byte, a C1 control, or a byte that is not UTF-8 there). */
size_t utf8_printable(const unsigned char *p);
/* Message for a failed library call: status string and, when there is one, the detail text. */
void msg_lib_error(const char *what, int status, const char *detail);
/* Exit status for a library status code. */
int exit_for_status(int status);
/* clsort_open() failed: say why (a bad CLSORT_* setting is the user's input, exit 1; no device with
 * too few file descriptors to load a driver says so) and return the exit status. */
int open_failed(int status, const char *detail);

/* Standard streams that were closed when clsort started (they are then held open on /dev/null, so that
 * no file clsort opens takes their place). */
extern int g_stdin_closed, g_stdout_closed;
void guard_std_fds(void);

/* Display name of a path: "(stdin)" / "(stdout)" for "-". */
const char *input_display_name(const char *path);
const char *output_display_name(const char *path);

/* Subcommands; each returns an exit status. Their options start at argv[first]. */
int cmd_sort(int argc, char **argv, int first);
int cmd_merge(int argc, char **argv, int first);
int cmd_gen(int argc, char **argv, int first);
int cmd_devices(int argc, char **argv, int first);
int cmd_bench(int argc, char **argv, int first);

/* Help texts (help.c). */
void help_main(void);
void help_sort(void);
void help_merge(void);
void help_gen(void);
void help_devices(void);
void help_bench(void);
/* The names of the algorithms the library knows, joined by sep, into buf (always NUL-terminated). */
void algorithm_names(char *buf, size_t cap, const char *sep);

#endif
