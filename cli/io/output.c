/*
 * Output files for clsort (see io.h): the replacement of a regular file by a finished temporary one,
 * with its owner, group, mode, ACLs and extended attributes kept; outputs that name an open descriptor
 * or a device written directly; several outputs put in place at one commit point.
 *
 * Owns: output_open/write/finish/commit/abort/same, output_names_input. Calls: replace.c (the
 * file-system steps, shared with clsort-mpi), signals (the table of temporary names, holding signals
 * off around a commit), pio (a mapped output filled on threads), prefault (its pages made present
 * meanwhile), msg, progress, settings.
 */
#include "io.h"
#include "follow.h"
#include "cli.h"
#include "pio.h"
#include "progress.h"
#include "replace.h"
#include "settings.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int g_output_sync;

static int refuse_terminal(const output_file *out)
{
    msg_error("%s: refusing to write binary data to a terminal (redirect the output, or use -f to force)",
              out->name);
    return EXIT_USAGE;
}

static int out_error(const output_file *out, const char *what)
{
    msg_error("%s: %s: %s", out->name, what, strerror(errno));
    return EXIT_IO;
}

/* ---------------------------------------------------------------------------------------------------
 * Outputs that are open descriptors: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, /proc/<our PID>/fd/N, given or reached through symbolic links
 */

/* The descriptor a path names, or -1 when it names none of these forms. */
static int named_descriptor(const char *path)
{
    if (!strcmp(path, "/dev/stdin"))
        return STDIN_FILENO;
    if (!strcmp(path, "/dev/stdout"))
        return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr"))
        return STDERR_FILENO;
    char own[64];
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    const char *prefixes[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t len = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], len) || !path[len])
            continue;
        char *end;
        long fd = strtol(path + len, &end, 10);
        if (*end || fd < 0 || fd > 1 << 20 || path[len] == '+' || path[len] == '-')
            return -1;
        return (int)fd;
    }
    return -1;
}

/* Write straight into descriptor fd, as the shell's redirection would. */
static int open_descriptor(output_file *out, int fd, int force)
{
    out->direct = 1;
    int flags = fcntl(fd, F_GETFL);
    if ((fd == STDOUT_FILENO && g_stdout_closed) || flags < 0) {
        msg_error("%s: descriptor %d is not open", out->name, fd);
        return EXIT_IO;
    }
    if ((flags & O_ACCMODE) == O_RDONLY) { /* found now, not by the first write after the sort */
        msg_error("%s: descriptor %d is open for reading only", out->name, fd);
        return EXIT_IO;
    }
    if (!force && isatty(fd))
        return refuse_terminal(out);
    out->fd = fd == STDOUT_FILENO ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (out->fd < 0)
        return out_error(out, "cannot open");
    return EXIT_OK;
}

/* ---------------------------------------------------------------------------------------------------
 * Finding the file to replace
 */

/* Split path into its directory (opened into out->dirfd) and its last name (out->base). */
static int open_parent(output_file *out, const char *path)
{
    char dir[PATH_MAX];
    const int split = replace_split(path, dir, sizeof dir, out->base, sizeof out->base);
    if (split < 0)
        return out_error(out, "cannot open");
    if (split > 0) {
        msg_error("%s: is a directory", out->name);
        return EXIT_IO;
    }
    out->dirfd = replace_open_dir(dir);
    if (out->dirfd < 0) {
        msg_error("%s: cannot open: directory '%s': %s", out->name, dir, strerror(errno));
        return EXIT_IO;
    }
    char *real = realpath(dir, NULL);
    int w = snprintf(out->target, sizeof out->target, "%s/%s",
                     real ? (strcmp(real, "/") ? real : "") : dir, out->base);
    free(real);
    if (w < 0 || (size_t)w >= sizeof out->target)
        snprintf(out->target, sizeof out->target, "%s", out->base);
    return EXIT_OK;
}

/* Follow symbolic links at the end of the path, as `>` would, under the rule above. On return
 * out->dirfd/out->base name the file to replace (or to create) and *st holds what is there; or, where
 * the path or a link on the way is one of the names of an open descriptor (/dev/stdout, a link to it,
 * ../dev/fd/1), *fd is that descriptor, to be written directly as if that name had been given. */
static int resolve_target(output_file *out, struct stat *st, int *exists, int *fd)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", out->path);
    for (int hops = 0;; hops++) {
        /* by the name as written, or with its directory resolved (/proc/self/fd: /proc/PID/fd) */
        if ((*fd = named_descriptor(path)) >= 0)
            return EXIT_OK;
        int rc = open_parent(out, path);
        if (rc != EXIT_OK)
            return rc;
        if ((*fd = named_descriptor(out->target)) >= 0)
            return EXIT_OK;
        if (fstatat(out->dirfd, out->base, st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT)
                return out_error(out, "cannot open");
            *exists = 0;
            return EXIT_OK;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            return EXIT_OK;
        }
        if (hops == 40) {
            errno = ELOOP;
            return out_error(out, "cannot open");
        }
        if (!path_may_follow(out->dirfd, st)) {
            msg_error("%s: refusing to follow a symbolic link owned by user %u in the sticky, "
                      "world-writable directory of '%s' (it could point anywhere): remove it or name "
                      "the file itself", out->name, (unsigned)st->st_uid, out->target);
            return EXIT_IO;
        }
        char link[PATH_MAX];
        ssize_t len = readlinkat(out->dirfd, out->base, link, sizeof link - 1);
        if (len < 0)
            return out_error(out, "cannot resolve symbolic link");
        link[len] = '\0';
        if (replace_follow(path, sizeof path, link) != 0)
            return out_error(out, "cannot open");
        close(out->dirfd);
        out->dirfd = -1;
    }
}

/* ---------------------------------------------------------------------------------------------------
 * Temporary files
 */

/* A fresh name ".BASE.clsort-XXXXXXXX" for the directory of out (base cut to keep it a valid name). */
static void temp_name(const output_file *out, char *buf, size_t cap)
{
    replace_temp_name(out->base, "clsort", buf, cap);
}

static int temp_failed(const output_file *out)
{
    int e = errno;
    char dir[PATH_MAX];
    const char *slash = strrchr(out->target, '/');
    snprintf(dir, sizeof dir, "%.*s", slash && slash != out->target ? (int)(slash - out->target) : 1,
             slash ? out->target : ".");
    msg_error("%s: cannot create a temporary file in '%s': %s", out->name, dir, strerror(e));
    return EXIT_IO;
}

/* The file the data goes to until commit: unnamed (O_TMPFILE) where the file system allows, so that
 * nothing is left behind whatever ends the process. */
static int open_unnamed(output_file *out)
{
    const int fd = replace_open_unnamed(out->dirfd);
    if (fd >= 0) {
        out->fd = fd;
        out->unnamed = 1;
        return EXIT_OK;
    }
    if (fd == -2)
        return EXIT_OK; /* no unnamed files here: a named one, made when the data is ready */
    return temp_failed(out);
}

/* Elsewhere a named temporary file, created only once the data is ready to be written, and in the
 * table of names that a signal removes. */
static int open_named(output_file *out)
{
    for (int tries = 0; tries < 100; tries++) {
        temp_name(out, out->temp, sizeof out->temp);
        signals_hold();
        out->fd = openat(out->dirfd, out->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (out->fd >= 0)
            out->slot = signals_add_name(out->dirfd, out->temp);
        int e = errno;
        signals_release();
        if (out->fd >= 0 && out->slot < 0) {
            unlinkat(out->dirfd, out->temp, 0);
            close(out->fd);
            out->fd = -1;
            errno = EMFILE;
            return temp_failed(out);
        }
        if (out->fd >= 0)
            return EXIT_OK;
        errno = e;
        if (errno != EEXIST)
            return temp_failed(out);
    }
    return temp_failed(out);
}

/* A FIFO that has no reader yet (see open_direct) is opened when the data is ready, as before the
 * outputs were opened ahead of the read: a script that feeds clsort's input FIFO before reading its
 * output FIFO keeps working. This open waits for the reader. */
static int open_waiting_fifo(output_file *out)
{
    out->fd = openat(out->dirfd, out->base, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (out->fd < 0)
        return out_error(out, "cannot open");
    out->wait_reader = 0;
    return EXIT_OK;
}

static int ensure_file(output_file *out)
{
    if (out->fd >= 0)
        return EXIT_OK;
    return out->wait_reader ? open_waiting_fifo(out) : open_named(out);
}

/* An existing file that is not regular (/dev/null, a FIFO, a terminal, a device): written as it is,
 * never renamed over. A FIFO without a reader is only checked here, not waited for. */
static int open_direct(output_file *out, const struct stat *st, int force)
{
    out->direct = 1;
    if (S_ISFIFO(st->st_mode)) {
        if (faccessat(out->dirfd, out->base, W_OK, AT_EACCESS) != 0)
            return out_error(out, "cannot open");
        out->fd = openat(out->dirfd, out->base, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (out->fd < 0 && errno == ENXIO) {
            out->wait_reader = 1;
            return EXIT_OK;
        }
        if (out->fd >= 0 && fcntl(out->fd, F_SETFL, fcntl(out->fd, F_GETFL) & ~O_NONBLOCK) != 0)
            return out_error(out, "cannot open");
    } else {
        out->fd = openat(out->dirfd, out->base, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    }
    if (out->fd < 0)
        return out_error(out, "cannot open");
    if (!force && isatty(out->fd))
        return refuse_terminal(out);
    return EXIT_OK;
}

int output_open(output_file *out, const char *path, int force)
{
    memset(out, 0, sizeof *out);
    out->fd = out->dirfd = out->old_fd = -1;
    out->slot = -1;
    out->path = path;
    out->name = output_display_name(path);
    if (!*path) {
        msg_error("(empty name): an output file name is empty");
        return EXIT_USAGE;
    }
    if (!strcmp(path, "-")) {
        if (g_stdout_closed) {
            msg_error("%s: stdout is closed", out->name);
            out->direct = 1;
            return EXIT_IO;
        }
        return open_descriptor(out, STDOUT_FILENO, force);
    }
    struct stat st;
    int exists = 0, fd = -1, rc = resolve_target(out, &st, &exists, &fd);
    if (rc != EXIT_OK)
        return rc;
    if (fd >= 0) {
        if (out->dirfd >= 0)
            close(out->dirfd);
        out->dirfd = -1;
        return open_descriptor(out, fd, force);
    }
    if (exists && S_ISDIR(st.st_mode)) {
        msg_error("%s: is a directory", out->name);
        return EXIT_IO;
    }
    if (exists && !S_ISREG(st.st_mode))
        return open_direct(out, &st, force);
    if (exists) {
        if (faccessat(out->dirfd, out->base, W_OK, AT_EACCESS) != 0)
            return out_error(out, "cannot write");
        out->exists = 1;
        out->old = st;
        out->mode = st.st_mode & 07777;
        out->old_fd = openat(out->dirfd, out->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (out->old_fd < 0)
            return out_error(out, "cannot open");
    } else {
        out->mode = 0666 & ~io_umask();
    }
    return open_unnamed(out);
}

int output_expect(output_file *out, uint64_t bytes)
{
    const int asked = settings()->map_output;
    if (out->direct || !out->unnamed || out->map || out->written || !bytes || asked == 0 ||
        bytes > SIZE_MAX)
        return EXIT_OK;
    if (asked < 0 && (bytes < (64u << 20) || pio_threads() < 4))
        return EXIT_OK;
    /* only an unnamed file: a fault in the map (SIGBUS) can then leave nothing behind, and no
     * other process can shorten the file under it */
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    if (fallocate(out->fd, 0, 0, (off_t)bytes) != 0) {
        if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) {
            char what[96];
            snprintf(what, sizeof what, "no room for the output's %llu bytes",
                     (unsigned long long)bytes);
            return out_error(out, what);
        }
        return EXIT_OK; /* a file system that does not reserve: written as usual */
    }
    void *m = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
    if (m == MAP_FAILED) {
        if (ftruncate(out->fd, 0) != 0)
            return out_error(out, "write error");
        return EXIT_OK;
    }
    out->map = m;
    out->map_len = bytes;
    /* its pages made present on the threads while the sort runs, so that the copies into it only
     * copy (a write fault a page is what bound a copy into a fresh map) */
    prefault_start(&out->populate, m, (size_t)bytes, pio_threads());
#endif
    return EXIT_OK;
}

/* The map given back: the file cut to what was written, the descriptor's position after it, for
 * write() to go on from there. */
static int unmap_output(output_file *out)
{
    if (!out->map)
        return EXIT_OK;
    prefault_wait(&out->populate);
    munmap(out->map, (size_t)out->map_len);
    out->map = NULL;
    if (out->written < out->map_len && ftruncate(out->fd, (off_t)out->written) != 0)
        return out_error(out, "write error");
    if (lseek(out->fd, (off_t)out->written, SEEK_SET) < 0)
        return out_error(out, "write error");
    return EXIT_OK;
}

int output_write(output_file *out, const void *buf, size_t len)
{
    int rc = ensure_file(out);
    if (rc != EXIT_OK)
        return rc;
    if (out->map && len <= out->map_len - out->written) {
        /* one copy: each thread's part a stretch of the file of its own */
        pio_copy(out->map + out->written, buf, len);
        out->written += len;
        progress_add(len);
        return EXIT_OK;
    }
    if ((rc = unmap_output(out)) != EXIT_OK) /* more than expected: written on after the map */
        return rc;
    const unsigned char *p = buf;
    while (len > 0) {
        size_t chunk = len > (16u << 20) ? (16u << 20) : len; /* small enough for the progress line */
        ssize_t w = write(out->fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EPIPE)
            signals_broken_pipe(); /* returns only where SIGPIPE is ignored */
        if (w < 0)
            return out_error(out, "write error");
        p += w;
        len -= (size_t)w;
        out->written += (uint64_t)w;
        progress_add((uint64_t)w);
    }
    return EXIT_OK;
}

/* ---------------------------------------------------------------------------------------------------
 * What the replaced file keeps
 */

/* Copy the old file's extended attributes (ACLs among them) to the new one. An ACL that cannot be
 * kept is an error: without it the group bits of the mode would grant what its mask limited. */
static int keep_xattrs(output_file *out)
{
    char acl[256];
    const int rc = replace_keep_xattrs(out->old_fd, out->fd, out->name, acl, sizeof acl);
    if (rc < 0)
        return out_error(out, "cannot read extended attributes");
    if (rc > 0) {
        msg_error("%s: cannot keep the access control list (%s): %s", out->name, acl,
                  strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* Owner, group and mode of the file being replaced. When the owner cannot be kept (not root), the
 * set-user-ID and set-group-ID bits go; when the group cannot, its bits shrink to what others had, so
 * the new group gains nothing that it did not have as others. */
static int keep_owner_and_mode(output_file *out)
{
    mode_t mode = out->mode;
    if (out->exists) {
        if (replace_keep_owner(out->fd, &out->old, &mode) != 0)
            return out_error(out, "cannot set the owner");
        if (out->old.st_nlink > 1)
            msg_info("%s: has %lu other hard links; they keep the unsorted data", out->name,
                     (unsigned long)out->old.st_nlink - 1);
    }
    if (fchmod(out->fd, mode) != 0)
        return out_error(out, "cannot set permissions");
    return out->exists ? keep_xattrs(out) : EXIT_OK;
}

int output_finish(output_file *out)
{
    /* nothing written: the FIFO is still opened and closed, so that its reader sees the end */
    if (out->wait_reader && open_waiting_fifo(out) != EXIT_OK)
        return EXIT_IO;
    if (out->direct) {
        if (out->fd > STDERR_FILENO) {
            int rc = close(out->fd);
            out->fd = -1;
            if (rc != 0)
                return out_error(out, "write error");
        }
        return EXIT_OK;
    }
    int rc = ensure_file(out);
    if (rc == EXIT_OK)
        rc = unmap_output(out);
    if (rc == EXIT_OK)
        rc = keep_owner_and_mode(out);
    /* Durability: a file that replaces another is on disk before the rename, so a crash can never
     * leave the old name with neither version; a new file is flushed only when asked (--sync), as
     * GNU sort and zstd do: a crash loses at most a file that was never there before. */
    if (rc == EXIT_OK && (out->exists || g_output_sync) && fsync(out->fd) != 0)
        rc = out_error(out, "cannot sync");
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * Commit
 *
 * The commit point is the call of output_commit(): every output is complete and, where it replaces a
 * file (or with --sync), on disk. Signals are held off from there until every output is in place, and
 * then end clsort (128 + N) with all of them new; a signal before it leaves all of them as they were.
 * Two renames cannot be one atomic step, so each output goes in place with as few system calls as
 * possible, one after the other, and nothing is named before its turn: a process killed outright
 * (SIGKILL) or a crash in the middle leaves some outputs new and the others old, and no temporary
 * name except for the instant between the two calls that replace one file.
 *  - A new file: its unnamed file is linked under the name (which fails if a file appeared there).
 *  - A file replaced: its unnamed file is linked under a temporary name and renamed over the file at
 *    once. The rename frees the old data, so a replacement cannot be taken back.
 * New files go first: if one cannot be put in place, those linked before it are removed again and
 * nothing else has changed. Replacements go last; if the second of two cannot be made, the first
 * stays, and the message says so.
 */

enum { UNDO_NONE, UNDO_UNLINK, UNDO_NEVER };

/* Link out's unnamed file under name in its directory: through /proc, else by the descriptor itself
 * (which needs CAP_DAC_READ_SEARCH). */
static int link_fd(const output_file *out, const char *name)
{
    return replace_link_fd(out->fd, out->dirfd, name);
}

/* Give an unnamed file a temporary name in its directory. */
static int link_unnamed(output_file *out)
{
    for (int tries = 0; tries < 100; tries++) {
        temp_name(out, out->temp, sizeof out->temp);
        if (link_fd(out, out->temp) == 0) {
            out->unnamed = 0;
            out->slot = signals_add_name(out->dirfd, out->temp);
            return EXIT_OK;
        }
        if (errno != EEXIST)
            break;
    }
    return out_error(out, "cannot name the temporary file");
}

/* Whether the file to replace is still the one that was opened: never replace what took its place. */
static int target_unchanged(const output_file *out)
{
    struct stat now;
    if (fstatat(out->dirfd, out->base, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
        now.st_dev == out->old.st_dev && now.st_ino == out->old.st_ino)
        return 1;
    msg_error("%s: was replaced or removed while clsort ran: not written", out->name);
    return 0;
}

/* A new file: the data under its name, unless a file appeared there since the output was opened. */
static int place_new(output_file *out)
{
    int r;
    if (out->unnamed) {
        r = link_fd(out, out->base);
        if (r == 0)
            out->unnamed = 0;
    } else {
        r = replace_rename_new(out->dirfd, out->temp, out->base);
        if (r == 0) {
            signals_drop_name(out->slot, 0);
            out->slot = -1;
        }
    }
    if (r != 0 && errno == EEXIST) {
        msg_error("%s: a file was created there while clsort ran: not replaced", out->name);
        return EXIT_IO;
    }
    if (r != 0)
        return out_error(out, "cannot put the file in place");
    out->undo = UNDO_UNLINK;
    return EXIT_OK;
}

/* A file replaced: a temporary name for the data, renamed over the file at once. */
static int place_replacement(output_file *out)
{
    if (!target_unchanged(out))
        return EXIT_IO;
    if (out->unnamed && link_unnamed(out) != EXIT_OK)
        return EXIT_IO;
    if (renameat(out->dirfd, out->temp, out->dirfd, out->base) != 0)
        return out_error(out, "cannot rename the temporary file over the output");
    signals_drop_name(out->slot, 0);
    out->slot = -1;
    out->undo = UNDO_NEVER;
    return EXIT_OK;
}

/* Remove a new file put in place, if the name is still the one linked. */
static void undo_new(output_file *out)
{
    struct stat now, mine;
    if (fstatat(out->dirfd, out->base, &now, AT_SYMLINK_NOFOLLOW) == 0 && fstat(out->fd, &mine) == 0 &&
        now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
        unlinkat(out->dirfd, out->base, 0);
    out->undo = UNDO_NONE;
}

static void close_output(output_file *out)
{
    if (out->fd > STDERR_FILENO)
        close(out->fd);
    if (out->old_fd >= 0)
        close(out->old_fd);
    out->fd = out->old_fd = -1;
}

/* Test hook CLSORT_TEST_STOP_IN_COMMIT=1 (settings.h): the process stops itself (SIGSTOP) between
 * the first and the second output it puts in place, so that a test can send a signal there. */
static void test_stop_in_commit(void)
{
    if (settings()->stop_in_commit)
        raise(SIGSTOP);
}

/* Another value is said once, at the first commit (when -q is known), as a malformed
 * CLSORT_TEST_STOP_AFTER_READ is at the first read: a test that sets it wrong must not pass
 * silently without the stop it meant. */
static void test_stop_in_commit_checked(void)
{
    static int said;
    const char *bad = settings()->stop_in_commit_bad;
    if (bad && !said) {
        said = 1;
        msg_warn("CLSORT_TEST_STOP_IN_COMMIT='%s' is not 1 (or 0): ignored", bad);
    }
}

int output_commit(output_file **outs, int n)
{
    test_stop_in_commit_checked();
    signals_hold();
    int rc = EXIT_OK, placed = 0, replaced = 0;
    /* every file to replace checked first, while nothing has changed */
    for (int i = 0; i < n && rc == EXIT_OK; i++)
        if (!outs[i]->direct && outs[i]->exists && !target_unchanged(outs[i]))
            rc = EXIT_IO;
    /* new files, then replacements */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n && rc == EXIT_OK; i++) {
            output_file *out = outs[i];
            if (out->direct || out->exists != pass)
                continue;
            if (placed++ == 1)
                test_stop_in_commit();
            rc = pass ? place_replacement(out) : place_new(out);
            replaced += out->undo == UNDO_NEVER;
        }
    for (int i = 0; i < n && rc != EXIT_OK; i++) {
        output_file *out = outs[i];
        if (out->undo == UNDO_UNLINK && !replaced)
            undo_new(out);
        else if (out->undo != UNDO_NONE)
            msg_error("%s: holds the new data already (a file replaced cannot be put back); the "
                      "outputs not put in place hold the old", out->name);
    }
    for (int i = 0; i < n; i++) {
        output_file *out = outs[i];
        if (out->direct)
            continue;
        if (out->slot >= 0) /* a temporary file that did not go in */
            signals_drop_name(out->slot, 1);
        out->slot = -1;
        if (rc == EXIT_OK && (out->exists || g_output_sync))
            fsync(out->dirfd); /* best effort: an O_PATH directory or a file system may refuse */
        close_output(out);
    }
    signals_release();
    return rc;
}

void output_abort(output_file *out)
{
    prefault_wait(&out->populate);
    if (out->map)
        munmap(out->map, (size_t)out->map_len);
    out->map = NULL;
    if (out->slot >= 0)
        signals_drop_name(out->slot, 1);
    out->slot = -1;
    close_output(out);
    if (out->dirfd >= 0)
        close(out->dirfd);
    out->dirfd = -1;
}

/* ---------------------------------------------------------------------------------------------------
 * Identity
 */

/* Device and inode of what an output writes to, where that exists already: the file it replaces, or
 * what a direct output writes to (stdout, a descriptor, a device, a FIFO). */
static int output_id(const output_file *o, struct stat *st)
{
    if (o->direct && o->fd >= 0)
        return fstat(o->fd, st) == 0;
    if (o->direct) /* a FIFO opened only once the data is ready */
        return o->dirfd >= 0 && fstatat(o->dirfd, o->base, st, 0) == 0;
    return o->exists ? (*st = o->old, 1) : 0;
}

int output_same(const output_file *a, const output_file *b)
{
    struct stat sa, sb;
    if (!strcmp(a->path, "-") && !strcmp(b->path, "-"))
        return 1;
    /* two new files of the same name */
    if (!a->direct && !b->direct && !strcmp(a->base, b->base) && fstat(a->dirfd, &sa) == 0 &&
        fstat(b->dirfd, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
        return 1;
    /* the same file, pipe or FIFO by any name (stdout as -, /dev/stdout, /proc/self/fd/1, a link);
     * a character device that is not a terminal (/dev/null) may take both */
    if (!output_id(a, &sa) || !output_id(b, &sb) || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
        return 0;
    return !S_ISCHR(sa.st_mode) || (a->fd >= 0 && isatty(a->fd)) || (b->fd >= 0 && isatty(b->fd));
}

int output_names_input(const output_file *out, const input_file *in)
{
    struct stat st;
    return in->is_regular && output_id(out, &st) && S_ISREG(st.st_mode) && st.st_dev == in->dev &&
           st.st_ino == in->ino;
}
