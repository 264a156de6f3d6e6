/*
 * Input files for clsort, and the process-wide set-up of the I/O layer (see io.h); outputs are in
 * output.c, signals in signals.c. The commands touch no file themselves. Owns: input_open/read_some/
 * read_exact/check_end/close, io_init. Calls: msg, pio, progress, settings, signals.
 */
#include "io.h"
#include "cli.h"
#include "pio.h"
#include "prefault.h"
#include "progress.h"
#include "settings.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t process_umask = 022;

void io_init(void)
{
    /* read once, before any other thread exists: umask() can only be read by setting it */
    process_umask = umask(022);
    umask(process_umask);
    /* a file that reaches the file-size limit (ulimit -f) fails with EFBIG, which is reported with
     * the file's name, instead of ending the process */
    signal(SIGXFSZ, SIG_IGN);
}

uint64_t io_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long long size = 0, resident = 0;
    int ok = f && fscanf(f, "%llu %llu", &size, &resident) == 2;
    if (f)
        fclose(f);
    if (ok)
        return resident * (uint64_t)sysconf(_SC_PAGESIZE);
    struct rusage ru; /* elsewhere: the peak so far, never less than the current */
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

void io_prefault(void *buf, size_t bytes, int all)
{
    enum { MIN_BYTES = 64 << 20 };
    if (!buf || !bytes || (bytes < MIN_BYTES && !all))
        return;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    prefault(buf, bytes, cpus < 1 ? 1 : (unsigned)cpus);
}

uint64_t io_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

mode_t io_umask(void)
{
    return process_umask;
}

void io_install_signal_handlers(void)
{
    signals_install();
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
        /* O_NONBLOCK: opening a FIFO for reading would wait for its writer here, before the outputs
         * are checked; its writer is waited for at the first read instead (wait_writer) */
        in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
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
    in->is_fifo = S_ISFIFO(st.st_mode);
    if (in->fd != STDIN_FILENO && in->is_fifo) {
        in->wait_writer = 1;
    } else if (in->fd != STDIN_FILENO) {
        int fl = fcntl(in->fd, F_GETFL);
        if (fl < 0 || fcntl(in->fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
            msg_error("%s: cannot open: %s", in->name, strerror(errno));
            input_close(in);
            return EXIT_IO;
        }
    }
    if (S_ISREG(st.st_mode)) {
        off_t pos = in->fd == STDIN_FILENO ? lseek(in->fd, 0, SEEK_CUR) : 0;
        if (pos < 0)
            pos = 0;
        in->is_regular = 1;
        in->start = (uint64_t)pos;
        in->size = st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
    }
    return EXIT_OK;
}

static int read_error(const input_file *in)
{
    msg_error("%s: read error: %s", in->name, strerror(errno));
    return EXIT_IO;
}

int input_still_named(const input_file *in)
{
    struct stat st;
    return strcmp(in->path, "-") == 0 ||
           (stat(in->path, &st) == 0 && st.st_dev == in->dev && st.st_ino == in->ino);
}

int input_same(const input_file *a, const input_file *b)
{
    return a->fd >= 0 && b->fd >= 0 && a->dev == b->dev && a->ino == b->ino;
}

/* A FIFO opened with O_NONBLOCK reads as ended until a writer has opened it; poll() waits for the
 * first writer's data or for its end (a FIFO whose writer came and went reads as ended), as the open
 * would have. After that the descriptor blocks as any other. */
static int wait_writer(input_file *in)
{
    struct pollfd p = { in->fd, POLLIN, 0 };
    while (poll(&p, 1, -1) < 0)
        if (errno != EINTR)
            return read_error(in);
    int fl = fcntl(in->fd, F_GETFL);
    if (fl < 0 || fcntl(in->fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
        return read_error(in);
    in->wait_writer = 0;
    return EXIT_OK;
}

/* Test hook CLSORT_TEST_STOP_AFTER_READ=N (settings.h): the process stops itself (SIGSTOP) once, as
 * soon as it has read N bytes or more of input (all inputs together, in the order they are read),
 * so that a test can change the file half-way through the read and then continue it. Unset: nothing
 * happens. */
static int stop_state = -1; /* -1 not looked at yet, 0 off (or done), 1 armed */
static uint64_t total_read;

static int stop_armed(void)
{
    const cli_settings *s = settings();
    if (stop_state < 0) {
        stop_state = s->stop_after_read_set;
        if (s->stop_after_read_bad) /* said when reading starts, once -q is known */
            msg_warn("CLSORT_TEST_STOP_AFTER_READ='%s' is not a byte count: ignored",
                     s->stop_after_read_bad);
    }
    return stop_state == 1;
}

/* The bytes to read before the hook stops the process (SIZE_MAX: none), so that a read on threads
 * stops where a test asked, not a piece later. */
static size_t until_stop(void)
{
    const uint64_t at = settings()->stop_after_read;
    if (!stop_armed() || total_read >= at)
        return SIZE_MAX;
    return at - total_read < SIZE_MAX ? (size_t)(at - total_read) : SIZE_MAX;
}

static void count_read(size_t n)
{
    const cli_settings *s = settings();
    progress_add((uint64_t)n);
    total_read += n;
    if (stop_armed() && total_read >= s->stop_after_read) {
        stop_state = 0;
        raise(SIGSTOP);
    }
}

/* Regular files are read in blocks of this size: the progress line moves, and a file that ends early
 * is noticed at the block where it does. Larger reads go on several threads (pio.c) in pieces of
 * PIECE, by offset, the descriptor's position moved past them after. */
enum { READ_BLOCK = 1u << 20, PIECE = 32u << 20 };

static int ended_early(const input_file *in, uint64_t at)
{
    /* The size came from fstat() when the file was opened; the file is shorter now. Sorting what
     * is there would silently drop records, so this is an error. */
    msg_error("%s: input ended after %llu bytes, expected %llu (was the file truncated while being "
              "read?)",
              in->name, (unsigned long long)at, (unsigned long long)in->size);
    return EXIT_IO;
}

/* len bytes of a regular file on the threads, in pieces (the progress line moves, and a stop after
 * N bytes for tests comes near N). */
static int read_threads(input_file *in, unsigned char *p, size_t len)
{
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < PIECE ? len - done : PIECE;
        const size_t stop = until_stop();
        if (stop < want)
            want = stop;
        size_t got = 0;
        const int r = pio_pread(in->fd, p + done, want, in->start + in->got + done, &got);
        if (r < 0)
            return read_error(in);
        if (got > 0)
            count_read(got);
        done += got;
        if (got < want)
            return ended_early(in, in->got + done);
    }
    in->got += done;
    /* the position where input_check_end() reads on, and where a parent's stdin is left */
    if (lseek(in->fd, (off_t)(in->start + in->got), SEEK_SET) < 0)
        return read_error(in);
    return EXIT_OK;
}

int input_read_exact(input_file *in, void *buf, size_t len)
{
    unsigned char *p = buf;
    size_t done = 0;
    if (in->wait_writer && wait_writer(in) != EXIT_OK)
        return EXIT_IO;
    /* not on fewer than 4 threads: on 2 cores the read's second thread took the core that a CPU
     * device's sort was faulting its memory in on, and some reads took 4 times as long */
    if (in->is_regular && len >= 4 * (size_t)READ_BLOCK && pio_threads() >= 4)
        return read_threads(in, p, len);
    while (done < len) {
        size_t want = len - done < READ_BLOCK ? len - done : READ_BLOCK;
        ssize_t r = read(in->fd, p + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return read_error(in);
        if (r == 0)
            return ended_early(in, in->got + done);
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
    if (in->wait_writer && wait_writer(in) != EXIT_OK)
        return EXIT_IO;
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

/* Up to len bytes of a stream, until len or its end. */
static int read_upto(input_file *in, unsigned char *buf, size_t len, size_t *got)
{
    if (in->wait_writer && wait_writer(in) != EXIT_OK)
        return EXIT_IO;
#ifdef F_SETPIPE_SZ
    /* best effort, once reading starts (not before: a failed check must leave the writer blocked
     * where it was): a pipe of 1 MiB (the unprivileged limit) lets the writer run ahead in larger
     * steps than the default 64 KiB */
    if (in->is_fifo && in->got == 0)
        (void)fcntl(in->fd, F_SETPIPE_SZ, 1 << 20);
#endif
    *got = 0;
    while (*got < len) {
        ssize_t r = read(in->fd, buf + *got, len - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return read_error(in);
        if (r == 0)
            break;
        *got += (size_t)r;
        count_read((size_t)r);
    }
    in->got += *got;
    return EXIT_OK;
}

/* Regular files are read, not mapped: a mapping stays tied to the file, so a file truncated by someone
 * else while clsort sorts its data would kill clsort with SIGBUS, with no message and the temporary
 * output left behind, and one rewritten in the meantime would change the data under the sort. What
 * was read is the input as it was, whatever happens to the file afterwards. */
int input_read_some(input_file *in, void *buf, size_t len, size_t *got)
{
    /* an empty regular file may be one whose size is not known in advance (/proc): a stream */
    if (!in->is_regular || in->size == 0)
        return read_upto(in, buf, len, got);
    const uint64_t left = in->size - in->got;
    *got = left < len ? (size_t)left : len;
    if (*got == 0)
        return input_check_end(in);
    return input_read_exact(in, buf, *got);
}

void input_close(input_file *in)
{
    if (in->fd > STDIN_FILENO)
        close(in->fd);
    in->fd = -1;
}
