/*
 * Temporary files for sorted runs (runfile.c). Not installed.
 */
#ifndef CLSORT_RUNFILE_H
#define CLSORT_RUNFILE_H

#include "internal.h"

#include <stdint.h>

typedef struct clsort_runfile {
    int fd;          /* -1 when closed */
    const char *dir; /* for messages: the caller keeps it valid */
} clsort_runfile;

/* A new nameless file in dir (read and write). */
clsort_status clsort_runfile_open(clsort_context *ctx, const char *dir, clsort_runfile *f);
/* NULL-safe on a closed file. */
void clsort_runfile_close(clsort_runfile *f);
/* All of buf at off. On an error, the detail names the directory; file_size (what the whole file
 * will take) and more (bytes still to write after this call, every run file together) go into it. */
clsort_status clsort_runfile_write(clsort_context *ctx, clsort_runfile *f, const void *buf,
                                   size_t len, uint64_t off, uint64_t file_size, uint64_t more);
/* All of len bytes at off: 0, or an errno value. Thread-safe (pread); no context is touched. */
int clsort_runfile_read(const clsort_runfile *f, void *buf, size_t len, uint64_t off);
/* The error for a failed clsort_runfile_read() (err its result). */
clsort_status clsort_runfile_read_failed(clsort_context *ctx, const clsort_runfile *f, int err);
/* Before any work: a file can be made in each directory, each has its share of bytes free, and the
 * file-size limit allows a file of largest bytes. */
clsort_status clsort_tempdirs_check(clsort_context *ctx, const char *const *dirs, size_t n,
                                    uint64_t bytes, uint64_t largest);

#endif
