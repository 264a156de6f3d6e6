/*
 * libFuzzer harness for clsort's argument parsing and input reading. The first byte picks the
 * subcommand; the rest, split at NUL and newline bytes, are its arguments. Each input is also written
 * to an in-memory file and read back through the tool's input path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "io.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_verbosity = 0; /* keep the log readable: errors are expected here */
    if (!freopen("/dev/null", "w", stdout)) /* --help and --version texts */
        return 1;
    return 0;
}

static void fuzz_args(const uint8_t *data, size_t size)
{
    static char buf[8192];
    if (size == 0)
        return;
    size_t len = size - 1 < sizeof buf - 1 ? size - 1 : sizeof buf - 1;
    memcpy(buf, data + 1, len);
    buf[len] = '\0';
    char *argv[MAX_ARGS + 3];
    int argc = 0;
    static const char *const cmds[] = { "sort", "gen", "devices", "bench", "merge" };
    const int which = data[0] % 5;
    argv[argc++] = (char *)cmds[which];
    char *p = buf;
    while (argc < MAX_ARGS && p < buf + len) {
        argv[argc++] = p;
        p += strcspn(p, "\n");
        if (p < buf + len)
            *p++ = '\0';
    }
    argv[argc] = NULL;
    switch (which) {
    case 0: {
        sort_args a;
        memset(&a, 0, sizeof a);
        parse_sort_args(argc, argv, 1, &a);
        break;
    }
    case 1: {
        gen_args a;
        memset(&a, 0, sizeof a);
        parse_gen_args(argc, argv, 1, &a);
        break;
    }
    case 2: {
        devices_args a;
        memset(&a, 0, sizeof a);
        parse_devices_args(argc, argv, 1, &a);
        break;
    }
    case 4: {
        merge_args a;
        memset(&a, 0, sizeof a);
        parse_merge_args(argc, argv, 1, &a);
        free(a.inputs);
        break;
    }
    default: {
        bench_args a;
        memset(&a, 0, sizeof a);
        parse_bench_args(argc, argv, 1, &a);
        break;
    }
    }
}

static void fuzz_input(const uint8_t *data, size_t size)
{
    int fd = memfd_create("clsort-fuzz", 0);
    if (fd < 0)
        return;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        input_file in;
        if (input_open(&in, path) == 0) {
            if (size & 1) {
                /* piecewise, as the tool reads large regular files */
                unsigned char *buf = malloc(size ? size : 1);
                size_t done = 0, step = 1 + data[0] % 7;
                int rc = 0;
                while (buf && rc == 0 && done < size) {
                    size_t len = size - done < step ? size - done : step;
                    rc = input_read_exact(&in, buf + done, len);
                    done += len;
                }
                if (buf && rc == 0 && (input_check_end(&in) != 0 || memcmp(buf, data, size) != 0))
                    abort(); /* everything written must be read back, and nothing more */
                free(buf);
            } else {
                /* in the pieces the sort asks for: all of it, then the end */
                unsigned char *buf = malloc(size + 8);
                size_t done = 0, got = 1, step = 1 + (size ? data[0] % 13 : 0);
                int rc = 0;
                while (buf && rc == 0 && got) {
                    rc = input_read_some(&in, buf + done, step < size + 8 - done ? step : size + 8 - done,
                                         &got);
                    done += got;
                }
                if (buf && rc == 0 && (done != size || (size && memcmp(buf, data, size))))
                    abort(); /* everything written must be read back, and nothing more */
                free(buf);
            }
            input_close(&in);
        }
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_args(data, size);
    fuzz_input(data, size);
    return 0;
}
