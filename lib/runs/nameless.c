/*
 * Nameless temporary files (see nameless.h): O_TMPFILE where the file system has it, else a file
 * unlinked the moment it exists. Calls only the C library.
 */
#include "nameless.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Without O_TMPFILE the file is named for the moment between mkstemp() and unlink(), with every
 * signal blocked so none lands in between. */
int clsort_nameless_file(const char *dir)
{
#ifdef O_TMPFILE
    int tfd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tfd >= 0 || (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL))
        return tfd;
#endif
    char path[4200];
    if (snprintf(path, sizeof path, "%s/.clsort-run-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = mkostemp(path, O_CLOEXEC);
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

