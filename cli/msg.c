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
#include <unistd.h>

int g_verbosity = 1;
int g_stdin_closed, g_stdout_closed;

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

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
    /* one fprintf per line keeps concurrent writers from interleaving mid-line */
    char line[4096];
    vsnprintf(line, sizeof line, fmt, ap);
    progress_hide();
    fprintf(stderr, "clsort: %s%s\n", prefix, line);
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
    const char *s = clsort_status_string((clsort_status)status);
    msg_error("%s: %s (%d)", what, s ? s : "unknown error", status);
    if (detail && *detail) {
        progress_hide();
        /* the detail may span lines (a build log): indent each one */
        const char *p = detail;
        while (*p) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            fprintf(stderr, "  %.*s\n", len, p);
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
        return EXIT_USAGE;
    default:
        return EXIT_DEVICE;
    }
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
