/*
 * Nameless temporary files (see tempfile.h). Owns temp_open/write/read/close; calls msg.c and
 * lib/runs/nameless.c (compiled in, as clsort-mpi does).
 */
#include "tempfile.h"
#include "cli.h"
#include "nameless.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int temp_open(temp_file *t, const char *dir)
{
    t->dir = dir;
    t->fd = clsort_nameless_file(dir);
    if (t->fd < 0) {
        msg_error("cannot create a temporary file in %s: %s", dir, strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

int temp_write(temp_file *t, const void *buf, size_t len, uint64_t off)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(t->fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            msg_error("cannot write a temporary file in %s (at byte %llu): %s", t->dir,
                      (unsigned long long)off, w < 0 ? strerror(errno) : "nothing written");
            return EXIT_IO;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return EXIT_OK;
}

int temp_read(const temp_file *t, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = pread(t->fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            msg_error("cannot read back a temporary file in %s (at byte %llu): %s", t->dir,
                      (unsigned long long)off, r < 0 ? strerror(errno) : "it ended early");
            return EXIT_IO;
        }
        p += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return EXIT_OK;
}

void temp_close(temp_file *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}
