/*
 * File input and output for clsort (see io.h). Owns every open, read, write, sync and rename of a
 * data file, the temporary files and the signal handlers that remove them: the commands call it and
 * touch no file themselves. Calls msg.c and progress.c.
 */
#include "io.h"
#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------------
 * Temporary files and signals
 */

#define MAX_TEMPS 4

static char temp_paths[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];

static void on_signal(int sig)
{
    progress_signal_clear();
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i])
            unlink(temp_paths[i]);
    _exit(128 + sig);
}

static mode_t process_umask = 022;

void io_init(void)
{
    /* read once, before any other thread exists: umask() can only be read by setting it */
    process_umask = umask(022);
    umask(process_umask);
}

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define N_HANDLED ((int)(sizeof handled_signals / sizeof handled_signals[0]))

void io_install_signal_handlers(void)
{
    for (int i = 0; i < N_HANDLED; i++) {
        struct sigaction old, sa;
        if (sigaction(handled_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* e.g. nohup: keep it ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);
        sigaction(handled_signals[i], &sa, NULL);
    }
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < N_HANDLED; i++)
        sigaddset(&set, handled_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---------------------------------------------------------------------------------------------------
 * Input
 */

int input_open(input_file *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->name = input_display_name(path);
    if (strcmp(path, "-") == 0) {
        if (g_stdin_closed) {
            msg_error("%s: stdin is closed", in->name);
            return EXIT_USAGE;
        }
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (in->fd < 0) {
            msg_error("%s: cannot open: %s", in->name, strerror(errno));
            return EXIT_USAGE;
        }
    }
    struct stat st;
    if (fstat(in->fd, &st) != 0) {
        msg_error("%s: %s", in->name, strerror(errno));
        input_close(in);
        return EXIT_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        msg_error("%s: is a directory", in->name);
        input_close(in);
        return EXIT_USAGE;
    }
    in->dev = st.st_dev;
    in->ino = st.st_ino;
    if (S_ISREG(st.st_mode)) {
        off_t pos = in->fd == STDIN_FILENO ? lseek(in->fd, 0, SEEK_CUR) : 0;
        if (pos < 0)
            pos = 0;
        in->is_regular = 1;
        in->size = st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
    }
    return EXIT_OK;
}

static int read_error(const input_file *in)
{
    msg_error("%s: read error: %s", in->name, strerror(errno));
    return EXIT_IO;
}

static int no_memory(const char *name, uint64_t bytes)
{
    msg_error("%s: out of memory (%llu bytes needed)", name, (unsigned long long)bytes);
    return EXIT_DEVICE;
}

/* Test hook CLSORT_TEST_STOP_AFTER_READ=N: the process stops itself (SIGSTOP) once, as soon as it has
 * read N bytes or more of input (all inputs together, in the order they are read), so that a test can
 * change the file half-way through the read and then continue it. Unset: nothing happens. */
static int stop_state = -1; /* -1 not looked up yet, 0 off (or done), 1 armed */
static uint64_t stop_after, total_read;

static void count_read(size_t n)
{
    progress_add((uint64_t)n);
    total_read += n;
    if (stop_state < 0) {
        const char *env = getenv("CLSORT_TEST_STOP_AFTER_READ");
        char *end;
        stop_state = 0;
        if (env && *env) {
            errno = 0;
            unsigned long long v = strtoull(env, &end, 10);
            if (*env >= '0' && *env <= '9' && *end == '\0' && errno == 0) {
                stop_after = v;
                stop_state = 1;
            } else
                msg_warn("CLSORT_TEST_STOP_AFTER_READ='%s' is not a byte count: ignored", env);
        }
    }
    if (stop_state == 1 && total_read >= stop_after) {
        stop_state = 0;
        raise(SIGSTOP);
    }
}

/* Regular files are read in blocks of this size: the progress line moves, and a file that ends early
 * is noticed at the block where it does. */
enum { READ_BLOCK = 1u << 20 };

int input_read_exact(input_file *in, void *buf, size_t len)
{
    unsigned char *p = buf;
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < READ_BLOCK ? len - done : READ_BLOCK;
        ssize_t r = read(in->fd, p + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return read_error(in);
        if (r == 0) {
            /* The size came from fstat() when the file was opened; the file is shorter now. Sorting
             * what is there would silently drop records, so this is an error. */
            msg_error("%s: input ended after %llu bytes, expected %llu (was the file truncated while being "
                      "read?)",
                      in->name, (unsigned long long)(in->got + done), (unsigned long long)in->size);
            return EXIT_IO;
        }
        done += (size_t)r;
        count_read((size_t)r);
    }
    in->got += done;
    return EXIT_OK;
}

int input_check_end(input_file *in)
{
    /* A file that grew while it was read is being written by someone else: what was read may be a
     * mixture of old and new contents, and the extra bytes would be dropped. Refuse it, like a file
     * that shrank, rather than sort a snapshot of a moving file. */
    unsigned char extra;
    ssize_t r;
    do
        r = read(in->fd, &extra, 1);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return read_error(in);
    if (r > 0) {
        msg_error("%s: input grew while being read: it held %llu bytes when opened and has more now (is "
                  "another program writing it?)",
                  in->name, (unsigned long long)in->size);
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* Read exactly in->size bytes of a regular file into a heap buffer, then make sure that was all. */
static int read_known_size(input_file *in)
{
    in->data = malloc(in->size);
    if (!in->data)
        return no_memory(in->name, in->size);
#ifdef MADV_HUGEPAGE
    /* best effort: with huge pages, filling the buffer costs about what mapping the file did */
    if (in->size >= (4u << 20)) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t b = ((uintptr_t)in->data + page - 1) & ~(page - 1), e = (uintptr_t)in->data + in->size;
        if (page && b < e)
            madvise((void *)b, (size_t)(e - b), MADV_HUGEPAGE);
    }
#endif
    int rc = input_read_exact(in, in->data, (size_t)in->size);
    if (rc == EXIT_OK)
        rc = input_check_end(in);
    if (rc != EXIT_OK) {
        free(in->data);
        in->data = NULL;
        return rc;
    }
    in->len = (size_t)in->size;
    return EXIT_OK;
}

/* Read a stream of unknown length to its end. */
static int read_stream(input_file *in)
{
    size_t cap = 1 << 20, len = 0;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return no_memory(in->name, cap);
    for (;;) {
        if (len == cap) {
            size_t ncap = cap * 2;
            unsigned char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                free(buf);
                return no_memory(in->name, (uint64_t)cap * 2);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(in->fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return read_error(in);
        }
        if (r == 0)
            break;
        len += (size_t)r;
        count_read((size_t)r);
    }
    if (len == 0) {
        free(buf);
        buf = NULL;
    }
    in->data = buf;
    in->len = len;
    in->got = len;
    return EXIT_OK;
}

/* Regular files are read, not mapped: a mapping stays tied to the file, so a file truncated by someone
 * else while clsort sorts its data (long after the "read") would kill clsort with SIGBUS, with no
 * message and the temporary output left behind, and one rewritten in the meantime would change the data
 * under the sort. A heap copy is the input as it was read, whatever happens to the file afterwards. */
int input_read(input_file *in)
{
    /* an empty regular file may be one whose size is not known in advance (/proc): read it to its end */
    if (!in->is_regular || in->size == 0)
        return read_stream(in);
    if (in->size > SIZE_MAX)
        return no_memory(in->name, in->size);
    return read_known_size(in);
}

void input_close(input_file *in)
{
    free(in->data);
    in->data = NULL;
    in->len = 0;
    if (in->fd > STDIN_FILENO)
        close(in->fd);
    in->fd = -1;
}

/* ---------------------------------------------------------------------------------------------------
 * Output
 */

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

/* The absolute path the output will have: links followed, its directory resolved, so two spellings of
 * one file compare equal and the temporary file lands next to the real file. */
static int resolve_target(output_file *out)
{
    struct stat st;
    if (lstat(out->path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* a symbolic link is followed: the file it points to is replaced, the link stays */
        char *real = realpath(out->path, NULL);
        if (!real)
            return out_error(out, "cannot resolve symbolic link");
        int w = snprintf(out->target, sizeof out->target, "%s", real);
        free(real);
        if (w < 0 || (size_t)w >= sizeof out->target) {
            errno = ENAMETOOLONG;
            return out_error(out, "cannot open");
        }
        return EXIT_OK;
    }
    const char *slash = strrchr(out->path, '/');
    const char *base = slash ? slash + 1 : out->path;
    char dir[PATH_MAX];
    if (!slash)
        strcpy(dir, ".");
    else if (slash == out->path)
        strcpy(dir, "/");
    else if ((size_t)(slash - out->path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - out->path), out->path);
    else {
        errno = ENAMETOOLONG;
        return out_error(out, "cannot open");
    }
    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        msg_error("%s: is a directory", out->name);
        return EXIT_IO;
    }
    char *real = realpath(dir, NULL);
    if (!real) {
        msg_error("%s: cannot open: directory '%s': %s", out->name, dir, strerror(errno));
        return EXIT_IO;
    }
    int w = snprintf(out->target, sizeof out->target, "%s/%s", strcmp(real, "/") ? real : "", base);
    free(real);
    if (w < 0 || (size_t)w >= sizeof out->target) {
        errno = ENAMETOOLONG;
        return out_error(out, "cannot open");
    }
    return EXIT_OK;
}

/* Create the temporary file next to out->target. */
static int open_temp(output_file *out)
{
    const char *slash = strrchr(out->target, '/');
    size_t dir_len = slash ? (size_t)(slash - out->target) + 1 : 0;
    const char *base = out->target + dir_len;
    int base_len = (int)strlen(base);
    if (base_len > 200)
        base_len = 200; /* keep the temporary name within NAME_MAX */
    int w = snprintf(out->temp, sizeof out->temp, "%.*s.%.*s.clsort-XXXXXX", (int)dir_len, out->target,
                     base_len, base);
    if (w < 0 || (size_t)w >= sizeof out->temp) {
        errno = ENAMETOOLONG;
        return out_error(out, "cannot create a temporary file");
    }
    int slot = -1;
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_used[i]) {
            slot = i;
            break;
        }
    if (slot < 0) {
        errno = EMFILE;
        return out_error(out, "cannot create a temporary file");
    }
    sigset_t old;
    block_signals(&old);
    out->fd = mkostemp(out->temp, O_CLOEXEC);
    if (out->fd >= 0) {
        memcpy(temp_paths[slot], out->temp, strlen(out->temp) + 1);
        temp_used[slot] = 1;
        out->slot = slot;
    }
    restore_signals(&old);
    if (out->fd < 0) {
        int e = errno;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", dir_len > 1 ? (int)dir_len - 1 : 1, out->target);
        errno = e;
        msg_error("%s: cannot create a temporary file in '%s': %s", out->name, dir, strerror(errno));
        return EXIT_IO;
    }
    if (fchmod(out->fd, out->mode) != 0) {
        int rc = out_error(out, "cannot set permissions");
        output_abort(out);
        return rc;
    }
    return EXIT_OK;
}

int output_open(output_file *out, const char *path, int force)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->slot = -1;
    out->path = path;
    out->name = output_display_name(path);
    if (strcmp(path, "-") == 0) {
        out->direct = 1;
        if (g_stdout_closed) {
            msg_error("%s: stdout is closed", out->name);
            return EXIT_IO;
        }
        out->fd = STDOUT_FILENO;
        if (!force && isatty(STDOUT_FILENO))
            return refuse_terminal(out);
        return EXIT_OK;
    }
    int rc = resolve_target(out);
    if (rc != EXIT_OK)
        return rc;
    struct stat st;
    if (stat(out->target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            msg_error("%s: is a directory", out->name);
            return EXIT_IO;
        }
        if (!S_ISREG(st.st_mode)) {
            /* /dev/null, a FIFO, a terminal, a device: write to it as it is, never rename over it */
            out->direct = 1;
            out->fd = open(out->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (out->fd < 0)
                return out_error(out, "cannot open");
            if (!force && isatty(out->fd)) {
                close(out->fd);
                out->fd = -1;
                return refuse_terminal(out);
            }
            return EXIT_OK;
        }
        out->mode = st.st_mode & 07777;
        if (access(out->target, W_OK) != 0)
            return out_error(out, "cannot write");
    } else if (errno == ENOENT) {
        out->mode = 0666 & ~process_umask;
    } else {
        return out_error(out, "cannot open");
    }
    return open_temp(out);
}

int output_write(output_file *out, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 0) {
        size_t chunk = len > (16u << 20) ? (16u << 20) : len; /* small enough for the progress line */
        ssize_t w = write(out->fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return out_error(out, "write error");
        p += w;
        len -= (size_t)w;
        out->written += (uint64_t)w;
        progress_add((uint64_t)w);
    }
    return EXIT_OK;
}

int output_finish(output_file *out)
{
    if (out->direct) {
        if (out->fd > STDOUT_FILENO) {
            int rc = close(out->fd);
            out->fd = -1;
            if (rc != 0)
                return out_error(out, "write error");
        }
        return EXIT_OK;
    }
    if (fsync(out->fd) != 0)
        return out_error(out, "cannot sync");
    int rc = close(out->fd);
    out->fd = -1;
    if (rc != 0)
        return out_error(out, "write error");
    return EXIT_OK;
}

static void sync_dir(const char *target)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(target, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == target)
        strcpy(dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* best effort: some file systems refuse to sync directories */
        close(fd);
    }
}

int output_commit(output_file **outs, int n)
{
    sigset_t old;
    block_signals(&old);
    int rc = EXIT_OK;
    for (int i = 0; i < n; i++) {
        output_file *out = outs[i];
        if (out->direct || out->slot < 0)
            continue;
        if (rc == EXIT_OK && rename(out->temp, out->target) != 0)
            rc = out_error(out, "cannot rename the temporary file over the output");
        if (rc != EXIT_OK) {
            unlink(out->temp);
        } else {
            sync_dir(out->target);
        }
        temp_used[out->slot] = 0;
        out->slot = -1;
    }
    restore_signals(&old);
    return rc;
}

void output_abort(output_file *out)
{
    sigset_t old;
    block_signals(&old);
    if (out->fd > STDOUT_FILENO)
        close(out->fd);
    out->fd = -1;
    if (out->slot >= 0) {
        unlink(out->temp);
        temp_used[out->slot] = 0;
        out->slot = -1;
    }
    restore_signals(&old);
}

int output_same(const output_file *a, const output_file *b)
{
    if (a->direct || b->direct) {
        if (strcmp(a->path, "-") == 0 || strcmp(b->path, "-") == 0)
            return strcmp(a->path, b->path) == 0;
        return 0; /* two devices or pipes: writing both is the user's choice (/dev/null twice is fine) */
    }
    if (strcmp(a->target, b->target) == 0)
        return 1;
    struct stat sa, sb;
    return stat(a->target, &sa) == 0 && stat(b->target, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}
