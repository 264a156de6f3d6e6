/*
 * Messages to stderr, exit statuses for library errors, and small shared helpers (standard streams
 * held open, display names, the algorithms' names). Calls progress.c to clear the progress line
 * before a message, and the library for status strings and names.
 */
#include "cli.h"
#include "progress.h"

#include "clsort.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int g_verbosity = 1;
int g_stdin_closed, g_stdout_closed;
/* The program that speaks, and whether it stays silent: clsort-mpi (which compiles this file) sets
 * "clsort-mpi", and silences every rank but rank 0, so that a message is printed once per job. */
const char *g_msg_program = "clsort";
int g_msg_silent;

void guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (nfd != fd) {
            if (nfd >= 0)
                close(nfd);
            _exit(EXIT_IO);
        }
        if (fd == 0)
            g_stdin_closed = 1;
        else if (fd == 1)
            g_stdout_closed = 1;
    }
}

size_t utf8_printable(const unsigned char *p)
{
    size_t len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (len == 2 && *p == 0xc2 && p[1] < 0xa0)
        return 0; /* C1 controls: some terminals take 0x9b as the start of a command */
    if ((len == 3 && *p == 0xe0 && p[1] < 0xa0) || (len == 4 && *p == 0xf0 && p[1] < 0x90) ||
        (len == 4 && *p == 0xf4 && p[1] > 0x8f) || (len == 3 && *p == 0xed && p[1] > 0x9f))
        return 0; /* overlong, past U+10FFFF, or a surrogate */
    return len;
}

void msg_sanitize(char *out, size_t cap, const char *text)
{
    /* File names are the user's (or someone else's) bytes: control characters and bytes that are not
     * UTF-8 are shown as \xNN, so that a crafted name cannot retitle or rewrite the terminal. */
    const unsigned char *p = (const unsigned char *)text;
    size_t used = 0;
    while (*p && used + 5 < cap) {
        size_t len = *p >= 0x80 ? utf8_printable(p) : (*p >= 0x20 && *p != 0x7f) || *p == '\n' ||
                                                           *p == '\t';
        if (len) {
            memcpy(out + used, p, len);
            used += len;
            p += len;
        } else {
            used += (size_t)snprintf(out + used, cap - used, "\\x%02x", *p++);
        }
    }
    out[used] = '\0';
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
    /* one fprintf per line keeps concurrent writers from interleaving mid-line */
    char line[4096], safe[4096 * 2];
    if (g_msg_silent)
        return;
    vsnprintf(line, sizeof line, fmt, ap);
    msg_sanitize(safe, sizeof safe, line);
    progress_hide();
    fprintf(stderr, "%s: %s%s\n", g_msg_program, prefix, safe);
}

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
    if (g_verbosity < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void msg_info(const char *fmt, ...)
{
    if (g_verbosity < 2)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void msg_lib_error(const char *what, int status, const char *detail)
{
    if (status == CLSORT_ERROR_IO && detail && *detail && !strchr(detail, '\n')) {
        /* the library's own file I/O (its temporary files): the detail names the directory or file
         * and the system's error, which is the whole story */
        msg_error("%s: %s", what, detail);
        return;
    }
    const char *s = clsort_status_string((clsort_status)status);
    msg_error("%s: %s (%d)", what, s ? s : "unknown error", status);
    if (detail && *detail && !g_msg_silent) {
        progress_hide();
        /* the detail may span lines (a build log): indent each one */
        const char *p = detail;
        while (*p) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            char raw[1024], safe[2048];
            snprintf(raw, sizeof raw, "%.*s", len, p);
            msg_sanitize(safe, sizeof safe, raw);
            fprintf(stderr, "  %s\n", safe);
            p += len;
            if (*p == '\n')
                p++;
        }
    }
}

int exit_for_status(int status)
{
    switch (status) {
    case CLSORT_OK:
        return EXIT_OK;
    case CLSORT_ERROR_BAD_DEVICE_STRING:
    case CLSORT_ERROR_UNSUPPORTED: /* a combination of options the library does not sort */
    case CLSORT_ERROR_LIMIT:       /* an input too long for the algorithm chosen (oddeven) */
        return EXIT_USAGE;
    case CLSORT_ERROR_IO: /* a temporary file (-T) that cannot be made, written or read back */
        return EXIT_IO;
    default:
        return EXIT_DEVICE;
    }
}

int open_failed(int status, const char *detail)
{
    /* The tool passes clsort_open() valid arguments: an invalid one can only be a setting read
     * from the environment (CLSORT_BUILD_OPTIONS, CLSORT_*_TUNING, ...). */
    if (status == CLSORT_ERROR_INVALID_ARGUMENT) {
        msg_lib_error("a CLSORT_* setting in the environment is invalid", status, detail);
        return EXIT_USAGE;
    }
    msg_lib_error("cannot open an OpenCL device", status, detail);
    struct rlimit rl;
    if (status == CLSORT_ERROR_NO_DEVICE && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
        rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 64)
        msg_error("the process may open only %llu files (ulimit -n): too few for an OpenCL driver "
                  "to load, which can look like no platform installed",
                  (unsigned long long)rl.rlim_cur);
    return exit_for_status(status);
}

const char *input_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "(stdin)" : path;
}

const char *output_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "(stdout)" : path;
}

void algorithm_names(char *buf, size_t cap, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    /* Algorithms are numbered from 0 without gaps: walk them until a value has no name that maps back. */
    for (int i = 0; i < 256; i++) {
        const char *name = clsort_algorithm_name((clsort_algorithm)i);
        clsort_algorithm back;
        if (!name || !*name || clsort_algorithm_from_name(name, &back) != CLSORT_OK || (int)back != i)
            break;
        int w = snprintf(buf + used, cap - used, "%s%s", used ? sep : "", name);
        if (w < 0 || (size_t)w >= cap - used) {
            buf[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
}
