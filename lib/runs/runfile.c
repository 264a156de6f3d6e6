/*
 * Temporary files for sorted runs: nameless (O_TMPFILE, else unlinked the moment they exist), so
 * that no signal, crash or kill leaves one behind; written and read at offsets. Errors name the
 * directory, what the runs need and what the system allows (space, `ulimit -f`).
 * Calls: nameless.c, status.c (errors), the C library.
 */
#include "internal.h"
#include "runfile.h"
#include "nameless.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* "1.5 GiB" */
static const char *bytes_text(uint64_t b, char *buf, size_t cap)
{
    static const char *units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

/* Free bytes for an unprivileged writer in dir; UINT64_MAX when the system does not say. */
static uint64_t free_bytes(const char *dir)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0)
        return UINT64_MAX;
    return (uint64_t)v.f_bavail * (v.f_frsize ? v.f_frsize : v.f_bsize);
}

/* The file-size limit (RLIMIT_FSIZE) in bytes; UINT64_MAX for none. */
static uint64_t size_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)r.rlim_cur;
}

clsort_status clsort_runfile_open(clsort_context *ctx, const char *dir, clsort_runfile *f)
{
    f->dir = dir;
    f->fd = clsort_nameless_file(dir);
    if (f->fd < 0)
        return clsort_fail(ctx, CLSORT_ERROR_IO, "cannot create a temporary file in %s: %s", dir,
                           strerror(errno));
    return CLSORT_OK;
}

void clsort_runfile_close(clsort_runfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

clsort_status clsort_runfile_write(clsort_context *ctx, clsort_runfile *f, const void *buf,
                                   size_t len, uint64_t off, uint64_t file_size, uint64_t more)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(f->fd, p, len, (off_t)off);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            off += (uint64_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        const int e = w < 0 ? errno : ENOSPC;
        char a[32], b[32], c[32];
        if (e == EFBIG)
            return clsort_fail(ctx, CLSORT_ERROR_IO,
                               "the file-size limit (ulimit -f: %s) stops a temporary file in %s "
                               "at %s; a sorted run needs %s (raise the limit, or use a smaller "
                               "memory budget)", bytes_text(size_limit(), a, sizeof a), f->dir,
                               bytes_text(off, b, sizeof b), bytes_text(file_size, c, sizeof c));
        if (e == ENOSPC || e == EDQUOT)
            return clsort_fail(ctx, CLSORT_ERROR_IO,
                               "no space left in %s for the sorted runs: %s more needed, %s free "
                               "(%s)", f->dir, bytes_text(more + len, a, sizeof a),
                               bytes_text(free_bytes(f->dir), b, sizeof b), strerror(e));
        return clsort_fail(ctx, CLSORT_ERROR_IO, "cannot write a temporary file in %s: %s", f->dir,
                           strerror(e));
    }
    return CLSORT_OK;
}

int clsort_runfile_read(const clsort_runfile *f, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = pread(f->fd, p, len, (off_t)off);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
            off += (uint64_t)r;
        } else if (r == 0) {
            return EIO; /* shorter than written: someone truncated it */
        } else if (errno != EINTR) {
            return errno;
        }
    }
    return 0;
}

clsort_status clsort_runfile_read_failed(clsort_context *ctx, const clsort_runfile *f, int err)
{
    return clsort_fail(ctx, CLSORT_ERROR_IO, "cannot read back a temporary file in %s: %s", f->dir,
                       strerror(err));
}

clsort_status clsort_tempdirs_check(clsort_context *ctx, const char *const *dirs, size_t n,
                                    uint64_t bytes, uint64_t largest)
{
    char a[32], b[32];
    const uint64_t limit = size_limit();
    if (largest > limit)
        return clsort_fail(ctx, CLSORT_ERROR_IO,
                           "the file-size limit (ulimit -f: %s) is below the %s a sorted run "
                           "takes in a temporary file in %s%s (raise the limit, or use a smaller "
                           "memory budget)", bytes_text(limit, a, sizeof a),
                           bytes_text(largest, b, sizeof b), n ? dirs[0] : "the temporary directory",
                           n > 1 ? " and the other temporary directories" : "");
    for (size_t i = 0; i < n; i++) {
        clsort_runfile f;
        clsort_status st = clsort_runfile_open(ctx, dirs[i], &f);
        if (st != CLSORT_OK)
            return st;
        clsort_runfile_close(&f);
        /* the runs go to the directories in turn */
        const uint64_t share = (bytes + n - 1) / n, avail = free_bytes(dirs[i]);
        if (share > avail)
            return clsort_fail(ctx, CLSORT_ERROR_IO,
                               "not enough space in %s for the sorted runs: %s needed, %s free",
                               dirs[i], bytes_text(share, a, sizeof a),
                               bytes_text(avail, b, sizeof b));
    }
    return CLSORT_OK;
}
