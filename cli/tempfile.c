/*
 * Nameless temporary files (see tempfile.h). Owns temp_open/write/read/close; calls msg.c.
 */
#include "tempfile.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A file in dir with no name: O_TMPFILE where the file system has it, else a unique name removed at
 * once, with signals held off in between so that none can leave the name behind. */
static int nameless(const char *dir)
{
    int fd;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    char path[4200];
    if (snprintf(path, sizeof path, "%s/.clsort-run-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    fd = mkostemp(path, O_CLOEXEC);
    int saved = errno;
    if (fd >= 0 && unlink(path) != 0) {
        saved = errno;
        close(fd);
        fd = -1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return fd;
}

int temp_open(temp_file *t, const char *dir)
{
    t->dir = dir;
    t->fd = nameless(dir);
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
