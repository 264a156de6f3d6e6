/*
 * clsort-mpi's output file and its commit (see outfile.h); the rules are clsort's (cli/io/output.c).
 */
#include "outfile.h"
#include "dsort.h"
#include "msignals.h"
#include "cli.h"
#include "follow.h"
#include "replace.h"
#include "tempnames.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* An I/O error on the output: its name, what failed, errno's text. */
static void out_fail(job *j, const char *what)
{
    dsort_fail(j, EXIT_IO, "%s: %s: %s", j->a->output, what, strerror(errno));
}

static void temp_fail(job *j)
{
    dsort_fail(j, EXIT_IO, "%s: cannot create a temporary file in '%s': %s", j->a->output,
               j->dest.dir, strerror(errno));
}

/* ---------------------------------------------------------------------------------------------------
 * Finding the file to replace (as cli/io/output.c finds it)
 */

/* path split into its directory (opened into dirfd, its path into dir) and its last name. */
static int open_parent(job *j, const char *path)
{
    mpi_output *o = &j->dest;
    const int split = replace_split(path, o->dir, sizeof o->dir, o->base, sizeof o->base);
    if (split < 0) {
        out_fail(j, "cannot open");
        return -1;
    }
    if (split > 0) {
        dsort_fail(j, EXIT_IO, "%s: is a directory", j->a->output);
        return -1;
    }
    o->dirfd = replace_open_dir(o->dir);
    if (o->dirfd < 0) {
        dsort_fail(j, EXIT_IO, "%s: cannot open: directory '%s': %s", j->a->output, o->dir,
                   strerror(errno));
        return -1;
    }
    return 0;
}

/* Symbolic links at the end of the path followed, as `>` would. On return dirfd/base name the file
 * to replace or create, *st what is there, *exists whether anything is. */
static int resolve(job *j, struct stat *st, int *exists)
{
    mpi_output *o = &j->dest;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", j->a->output) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        out_fail(j, "cannot open");
        return -1;
    }
    for (int hops = 0;; hops++) {
        if (open_parent(j, path) != 0)
            return -1;
        if (fstatat(o->dirfd, o->base, st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) {
                out_fail(j, "cannot open");
                return -1;
            }
            *exists = 0;
            return 0;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            return 0;
        }
        if (hops == 40) {
            errno = ELOOP;
            out_fail(j, "cannot open");
            return -1;
        }
        if (!path_may_follow(o->dirfd, st)) {
            dsort_fail(j, EXIT_IO, "%s: refusing to follow a symbolic link owned by user %u in the "
                       "sticky, world-writable directory '%s' (it could point anywhere): remove it "
                       "or name the file itself", j->a->output, (unsigned)st->st_uid, o->dir);
            return -1;
        }
        char link[PATH_MAX];
        ssize_t len = readlinkat(o->dirfd, o->base, link, sizeof link - 1);
        if (len < 0) {
            out_fail(j, "cannot resolve symbolic link");
            return -1;
        }
        link[len] = '\0';
        if (replace_follow(path, sizeof path, link) != 0) {
            out_fail(j, "cannot open");
            return -1;
        }
        close(o->dirfd);
        o->dirfd = -1;
    }
}

void mout_check_room(job *j, uint64_t bytes)
{
    const mpi_output *o = &j->dest;
    struct statvfs v;
    if (o->dirfd < 0 || fstatvfs(o->dirfd, &v) != 0)
        return; /* unknown: the write's own checks stand */
    const uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize;
    if (bytes > avail)
        dsort_fail(j, EXIT_IO, "%s: no room for the output's %llu bytes: %.1f MiB free in %s (%s)",
                   j->a->output, (unsigned long long)bytes, (double)avail / 1048576, o->dir,
                   strerror(ENOSPC));
}

void mout_open(job *j)
{
    mpi_output *o = &j->dest;
    struct stat st;
    int exists = 0;
    if (resolve(j, &st, &exists) != 0)
        return;
    if (exists && S_ISDIR(st.st_mode)) {
        dsort_fail(j, EXIT_IO, "%s: is a directory", j->a->output);
        return;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        dsort_fail(j, EXIT_USAGE, "%s: not a regular file (the output is renamed into place)",
                   j->a->output);
        return;
    }
    if (exists) {
        if (faccessat(o->dirfd, o->base, W_OK, AT_EACCESS) != 0) {
            out_fail(j, "cannot write");
            return;
        }
        o->exists = 1;
        o->old = st;
        o->mode = st.st_mode & 07777;
        o->old_fd = openat(o->dirfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (o->old_fd < 0) {
            out_fail(j, "cannot open");
            return;
        }
    } else {
        const mode_t mask = umask(0);
        umask(mask);
        o->mode = 0666 & ~mask;
    }
    /* the temporary file now, with no name: the directory is known to take it before any work */
    const int fd = replace_open_unnamed(o->dirfd);
    if (fd >= 0) {
        o->fd = fd;
        o->nameless = 1;
        return;
    }
    if (fd == -1) {
        temp_fail(j);
        return;
    }
    /* no unnamed files here: a named one at the write; whether one can be made is checked now */
    if (faccessat(o->dirfd, ".", W_OK | X_OK, AT_EACCESS) != 0)
        temp_fail(j);
}

/* ---------------------------------------------------------------------------------------------------
 * The temporary file
 */

/* A fresh name ".BASE.clsort-mpi-XXXXXXXX" (the base cut to keep it a valid name). */
static void temp_name(const mpi_output *o, char *buf, size_t cap)
{
    replace_temp_name(o->base, "clsort-mpi", buf, cap);
}

static void set_path(mpi_output *o)
{
    snprintf(o->path, sizeof o->path, "%s/%s", o->dir, o->temp);
}

/* A named temporary file, created and put in the signal table with signals held off. */
static void create_named(job *j)
{
    mpi_output *o = &j->dest;
    for (int tries = 0; tries < 100; tries++) {
        temp_name(o, o->temp, sizeof o->temp);
        msig_hold();
        o->fd = openat(o->dirfd, o->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        const int e = errno;
        if (o->fd >= 0 && (o->slot = tempnames_add(o->dirfd, o->temp)) < 0) {
            unlinkat(o->dirfd, o->temp, 0);
            close(o->fd);
            o->fd = -1;
            msig_release();
            o->temp[0] = '\0';
            errno = EMFILE;
            temp_fail(j);
            return;
        }
        msig_release();
        if (o->fd >= 0) {
            set_path(o);
            return;
        }
        errno = e;
        if (e != EEXIST)
            break;
    }
    o->temp[0] = '\0';
    temp_fail(j);
}

/* The nameless file linked to a temporary name, in the signal table (signals held off by the
 * caller, or here). Returns 0 or -1 with the error recorded. */
static int link_nameless(job *j)
{
    mpi_output *o = &j->dest;
    msig_hold();
    for (int tries = 0; tries < 100; tries++) {
        temp_name(o, o->temp, sizeof o->temp);
        if (replace_link_fd(o->fd, o->dirfd, o->temp) == 0) {
            o->nameless = 0;
            o->slot = tempnames_add(o->dirfd, o->temp);
            msig_release();
            if (o->slot < 0) { /* cannot happen: the table has room for it */
                unlinkat(o->dirfd, o->temp, 0);
                o->temp[0] = '\0';
                errno = EMFILE;
                out_fail(j, "cannot name the temporary file");
                return -1;
            }
            set_path(o);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    const int e = errno;
    msig_release();
    o->temp[0] = '\0';
    errno = e;
    out_fail(j, "cannot name the temporary file");
    return -1;
}

void mout_prepare(job *j, int shared)
{
    mpi_output *o = &j->dest;
    if (o->nameless && shared) {
        snprintf(o->path, sizeof o->path, "/proc/%ld/fd/%d", (long)getpid(), o->fd);
        return;
    }
    if (o->nameless) {
        link_nameless(j);
        return;
    }
    create_named(j);
}

void mout_name(job *j)
{
    if (j->dest.nameless)
        link_nameless(j);
}

/* ---------------------------------------------------------------------------------------------------
 * What the replaced file keeps (as cli/io/output.c keeps it)
 */

/* The old file's extended attributes (ACLs among them) copied to the new one (replace.c). */
static int keep_xattrs(job *j)
{
    mpi_output *o = &j->dest;
    char acl[256];
    const int rc = replace_keep_xattrs(o->old_fd, o->fd, j->a->output, acl, sizeof acl);
    if (rc < 0)
        out_fail(j, "cannot read extended attributes");
    else if (rc > 0)
        dsort_fail(j, EXIT_IO, "%s: cannot keep the access control list (%s): %s", j->a->output,
                   acl, strerror(errno));
    return rc ? -1 : 0;
}

void mout_finish(job *j)
{
    mpi_output *o = &j->dest;
    mode_t mode = o->mode;
    if (o->exists) {
        /* When the owner cannot be kept (not root), the set-user-ID and set-group-ID bits go; when
         * the group cannot, its bits shrink to what others had. */
        if (replace_keep_owner(o->fd, &o->old, &mode) != 0) {
            out_fail(j, "cannot set the owner");
            return;
        }
    }
    if (fchmod(o->fd, mode) != 0) {
        out_fail(j, "cannot set permissions");
        return;
    }
    if (o->exists && keep_xattrs(j) != 0)
        return;
    /* a file that replaces another is on disk before the rename, so that a crash never leaves the
     * name with neither version (the ranks synced their parts, MPI_File_sync) */
    if (o->exists && fsync(o->fd) != 0)
        out_fail(j, "cannot sync");
}

/* ---------------------------------------------------------------------------------------------------
 * The commit
 */

/* Signals held: the rename and the end of the name's slot happen together, or not at all. */
static void replace(job *j)
{
    mpi_output *o = &j->dest;
    if (o->nameless && link_nameless(j) != 0)
        return;
    dsort_test_stop(j, STOP_COMMIT);
    if (!o->exists) {
        /* NOREPLACE: a file that appeared since the run started is not silently replaced */
        if (replace_rename_new(o->dirfd, o->temp, o->base) != 0) {
            if (errno == EEXIST)
                dsort_fail(j, EXIT_IO, "%s: was created while clsort-mpi ran: not replaced",
                           j->a->output);
            else
                out_fail(j, "cannot rename the temporary file into place");
            return;
        }
    } else {
        /* what is there must still be the file that was there: never replace what took its place */
        struct stat now;
        if (fstatat(o->dirfd, o->base, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
            now.st_dev != o->old.st_dev || now.st_ino != o->old.st_ino) {
            dsort_fail(j, EXIT_IO, "%s: was replaced or removed while clsort-mpi ran: not written",
                       j->a->output);
            return;
        }
        if (renameat(o->dirfd, o->temp, o->dirfd, o->base) != 0) {
            out_fail(j, "cannot rename the temporary file over the output");
            return;
        }
    }
    tempnames_drop(o->slot, 0);
    o->slot = -1;
    o->temp[0] = '\0';
}

void mout_commit(job *j)
{
    mpi_output *o = &j->dest;
    /* not within 3 s of a SIGCONT from mpirun, which is how it starts to end a job (msignals.h):
     * checked again with signals held, so that none comes between the check and the rename */
    for (;;) {
        msig_wait_launcher_quiet();
        msig_hold();
        msig_sync();
        if (!msig_launcher_recent())
            break;
        msig_release();
    }
    const int sig = msig_taken();
    if (sig) /* a signal came since the vote: it ends the rank once released, with no rename */
        dsort_fail(j, 128 + sig, "ended by signal %d (%s)", sig, strsignal(sig));
    else if (msig_launcher_gone())
        dsort_launcher_gone(j);
    else
        replace(j);
    msig_release();
    if (!j->code && o->exists)
        fsync(o->dirfd); /* best effort: an O_PATH directory or a file system may refuse */
}

void mout_close(job *j)
{
    mpi_output *o = &j->dest;
    if (o->slot >= 0)
        tempnames_drop(o->slot, 1);
    o->slot = -1;
    o->temp[0] = '\0';
    if (o->fd >= 0)
        close(o->fd);
    if (o->old_fd >= 0)
        close(o->old_fd);
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->fd = o->old_fd = o->dirfd = -1;
}
