/*
 * The file-system steps of replacing an output (see replace.h), for clsort and clsort-mpi alike.
 * Calls msg.c (a warning) only.
 */
#include "replace.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE 0
#endif

int replace_split(const char *path, char *dir, size_t dir_cap, char *base, size_t base_cap)
{
    const char *slash = strrchr(path, '/');
    const char *last = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, dir_cap, ".");
    else if (slash == path)
        snprintf(dir, dir_cap, "/");
    else if ((size_t)(slash - path) < dir_cap)
        snprintf(dir, dir_cap, "%.*s", (int)(slash - path), path);
    else {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (*last == '\0' || !strcmp(last, ".") || !strcmp(last, ".."))
        return 1;
    if (strlen(last) >= base_cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(base, last);
    return 0;
}

int replace_open_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) /* a directory we may write but not list */
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd;
}

int replace_follow(char *path, size_t cap, const char *link)
{
    /* relative to the link's directory: keep the directory part of the current path */
    const char *slash = strrchr(path, '/');
    const int keep = link[0] == '/' || !slash ? 0 : (int)(slash - path) + 1;
    char next[4096 + 256];
    const int w = snprintf(next, sizeof next, "%.*s%s", keep, path, link);
    if (w < 0 || (size_t)w >= cap || (size_t)w >= sizeof next) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, next, (size_t)w + 1);
    return 0;
}

void replace_temp_name(const char *base, const char *tag, char *buf, size_t cap)
{
    unsigned char r[6] = {0};
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        const unsigned long long x =
            ((unsigned long long)t.tv_nsec * 2654435761u) ^ (unsigned long long)getpid() << 20;
        memcpy(r, &x, sizeof r);
    }
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char suffix[9];
    for (int i = 0; i < 8; i++)
        suffix[i] = digits[(r[i % 6] + 7 * i + (r[(i + 1) % 6] >> 3)) % 62];
    suffix[8] = '\0';
    snprintf(buf, cap, ".%.200s.%s-%s", base, tag, suffix);
}

int replace_open_unnamed(int dirfd)
{
    if (!O_TMPFILE)
        return -2;
    const int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT)
        return -2; /* no unnamed files here */
    return -1;
}

int replace_link_fd(int fd, int dirfd, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int r = linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
    if (r != 0 && errno == ENOENT) { /* no /proc */
        const int e = errno;
        r = linkat(fd, "", dirfd, name, AT_EMPTY_PATH);
        if (r != 0 && errno != EEXIST)
            errno = e;
    }
    return r;
}

int replace_rename_new(int dirfd, const char *from, const char *to)
{
    int r = (int)syscall(SYS_renameat2, dirfd, from, dirfd, to, RENAME_NOREPLACE);
    if (r != 0 && (errno == EINVAL || errno == ENOSYS))
        r = renameat(dirfd, from, dirfd, to);
    return r;
}

int replace_keep_owner(int fd, const struct stat *old, mode_t *mode)
{
    if (fchown(fd, old->st_uid, old->st_gid) != 0)
        (void)!fchown(fd, (uid_t)-1, old->st_gid);
    struct stat now;
    if (fstat(fd, &now) != 0)
        return -1;
    if (now.st_uid != old->st_uid)
        *mode &= ~(mode_t)(S_ISUID | S_ISGID);
    if (now.st_gid != old->st_gid)
        *mode = (*mode & ~(mode_t)(S_ISGID | 070)) | (*mode & (*mode << 3) & 070);
    return 0;
}

int replace_keep_xattrs(int old_fd, int fd, const char *name, char *acl, size_t acl_cap)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", old_fd);
    ssize_t len = listxattr(proc, NULL, 0);
    if (len <= 0)
        return 0; /* none, or a file system without them */
    char *list = malloc((size_t)len), *value = NULL;
    int rc = 0;
    if (!list || (len = listxattr(proc, list, (size_t)len)) < 0) {
        free(list);
        return -1;
    }
    for (char *attr = list; attr < list + len && rc == 0; attr += strlen(attr) + 1) {
        ssize_t vlen = getxattr(proc, attr, NULL, 0);
        char *v = vlen > 0 ? realloc(value, (size_t)vlen) : value;
        if (vlen < 0 || !v || (value = v, vlen = getxattr(proc, attr, value, (size_t)vlen)) < 0 ||
            fsetxattr(fd, attr, value, (size_t)vlen, 0) != 0) {
            const int e = errno;
            if (!strncmp(attr, "system.posix_acl", 16)) {
                snprintf(acl, acl_cap, "%s", attr);
                rc = 1;
            } else {
                msg_warn("%s: extended attribute %s not kept: %s", name, attr, strerror(e));
            }
            errno = e;
        }
    }
    const int e = errno;
    free(value);
    free(list);
    errno = e;
    return rc;
}
