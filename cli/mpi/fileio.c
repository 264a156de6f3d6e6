/*
 * A rank's part of the input or the output, moved between memory and the file: by MPI-IO, or,
 * where every rank is on one host (or --io posix), by pread() on the rank's own threads and
 * pwrite() on one.
 * The second is what clsort does: MPI-IO (OMPIO) moves a part on one thread, in pieces of at most
 * an int's bytes, and took 2.5 s to read and 3.4 s to write one rank's 4 GiB where a copy of the
 * file took 2.6 s (docs/performance.md, "clsort-mpi on several GPUs").
 */
#include "dsort.h"
#include "cli.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* In pieces of at most piece_bytes: MPI counts are ints. */
static int mpi_io(job *j, MPI_File f, const char *name, int write, uint64_t off, unsigned char *buf,
                  uint64_t len)
{
    char text[MPI_MAX_ERROR_STRING];
    while (len > 0) {
        int piece = (int)(len < j->piece_bytes ? len : j->piece_bytes), got = 0;
        MPI_Status status;
        errno = 0;
        int rc = write ? MPI_File_write_at(f, (MPI_Offset)off, buf, piece, MPI_BYTE, &status)
                       : MPI_File_read_at(f, (MPI_Offset)off, buf, piece, MPI_BYTE, &status);
        const int e = errno; /* MPI-IO (OMPIO) returns a short write of a full disk as success */
        if (rc != MPI_SUCCESS) {
            dsort_fail(j, EXIT_IO, "%s: cannot %s %d bytes at offset %llu: %s", name,
                       write ? "write" : "read", piece, (unsigned long long)off,
                       dsort_mpi_error_text(rc, text));
            return -1;
        }
        MPI_Get_count(&status, MPI_BYTE, &got);
        if (got <= 0 && write) {
            dsort_fail(j, EXIT_IO, "%s: cannot write %d bytes at offset %llu: %s", name, piece,
                       (unsigned long long)off,
                       e ? strerror(e) : "nothing written (a full disk, or a file size limit?)");
            return -1;
        }
        if (got <= 0) {
            dsort_fail(j, EXIT_IO, "%s: end of file at offset %llu (the file changed while it was "
                       "read?)", name, (unsigned long long)off);
            return -1;
        }
        off += (uint64_t)got;
        buf += got;
        len -= (uint64_t)got;
    }
    return 0;
}

/* One thread's share of a POSIX transfer; err and at: its first failure (errno, 0 for the end of
 * the file) and where, or err -1 for none. */
typedef struct io_share {
    int fd, write;
    size_t piece;
    uint64_t off;
    unsigned char *buf;
    uint64_t len;
    int err;
    uint64_t at;
    int short_write; /* a write that wrote nothing and said nothing */
} io_share;

enum { IO_MAX_THREADS = 16 };
#define IO_PIECE ((size_t)8 << 20) /* bytes a call: the kernel's own limit is near 2 GiB */

static void *move_share(void *arg)
{
    io_share *s = arg;
    s->err = -1;
    uint64_t done = 0;
    while (done < s->len) {
        const size_t want = s->len - done < s->piece ? (size_t)(s->len - done) : s->piece;
        const ssize_t got = s->write ? pwrite(s->fd, s->buf + done, want, (off_t)(s->off + done))
                                     : pread(s->fd, s->buf + done, want, (off_t)(s->off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            s->err = got < 0 ? errno : 0;
            s->short_write = got == 0 && s->write;
            s->at = s->off + done;
            return NULL;
        }
        done += (uint64_t)got;
    }
    return NULL;
}

/* A POSIX transfer on threads: its shares, and which of them run on a thread of their own. */
struct io_async {
    const char *name;
    int write;
    uint64_t n;
    io_share sh[IO_MAX_THREADS];
    pthread_t th[IO_MAX_THREADS];
    int started[IO_MAX_THREADS];
};

/* The transfer cut into shares of at least 64 MiB (smaller ones cost more to start than they
 * save), calls of at most 8 MiB, both at most piece_bytes (which the tests make small); a write
 * on one thread: writers of one file wait for each other on its lock (4 GiB of a new file took
 * 1.27-1.70 s on 16 threads, 1.17 s on one; H200 host, docs/mpi.md). Each share starts on a
 * thread of its own where `all`, else share 0 is left to the caller; a share whose thread cannot
 * start is left to io_finish(). */
static void io_start(job *j, struct io_async *io, int fd, const char *name, int write,
                     uint64_t off, unsigned char *buf, uint64_t len, int all)
{
    const uint64_t least = j->piece_bytes < ((uint64_t)1 << 26) ? j->piece_bytes : (uint64_t)1 << 26;
    const size_t piece = j->piece_bytes < IO_PIECE ? (size_t)j->piece_bytes : IO_PIECE;
    uint64_t n = len / (least ? least : 1);
    n = n < 1 ? 1 : n > j->threads ? j->threads : n;
    n = n > IO_MAX_THREADS ? IO_MAX_THREADS : n;
    if (write)
        n = 1;
    io->name = name;
    io->write = write;
    io->n = n;
    const uint64_t each = (len / n + 4095) / 4096 * 4096; /* pages of the file apart */
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t from = i * each < len ? i * each : len;
        const uint64_t to = from + each < len ? from + each : len;
        io->sh[i] = (io_share){fd, write, piece, off + from, buf + from, to - from, -1, 0, 0};
        io->started[i] = (all || i) && pthread_create(&io->th[i], NULL, move_share, &io->sh[i]) == 0;
    }
}

/* Every share done (those without a thread here), the first failure recorded. */
static int io_finish(job *j, struct io_async *io)
{
    for (uint64_t i = 0; i < io->n; i++) {
        if (io->started[i])
            pthread_join(io->th[i], NULL);
        else
            move_share(&io->sh[i]);
    }
    for (uint64_t i = 0; i < io->n; i++) {
        const io_share *s = &io->sh[i];
        const char *name = io->name;
        if (s->err < 0)
            continue;
        if (s->err > 0)
            dsort_fail(j, EXIT_IO, "%s: cannot %s at offset %llu: %s", name,
                       io->write ? "write" : "read", (unsigned long long)s->at, strerror(s->err));
        else if (s->short_write)
            dsort_fail(j, EXIT_IO, "%s: cannot write at offset %llu: nothing written (a full "
                       "disk, or a file size limit?)", name, (unsigned long long)s->at);
        else
            dsort_fail(j, EXIT_IO, "%s: end of file at offset %llu (the file changed while it was "
                       "read?)", name, (unsigned long long)s->at);
        return -1;
    }
    return 0;
}

struct io_async *dsort_pread_begin(job *j, const char *name, uint64_t off, unsigned char *buf,
                                   uint64_t len)
{
    struct io_async *io = malloc(sizeof *io);
    if (!io) { /* read here and now */
        dsort_file_io(j, MPI_FILE_NULL, name, 0, off, buf, len);
        return NULL;
    }
    io_start(j, io, j->in_fd, name, 0, off, buf, len, 1);
    return io;
}

int dsort_pread_end(job *j, struct io_async *io)
{
    if (!io)
        return j->code ? -1 : 0;
    const int rc = io_finish(j, io);
    free(io);
    return rc;
}

int dsort_read_begin(job *j, const char *name, uint64_t off, unsigned char *buf, uint64_t len)
{
    j->reading = dsort_pread_begin(j, name, off, buf, len);
    if (!j->reading)
        dsort_posix_close(j, name, 0);
    return j->code ? -1 : 0;
}

void dsort_read_end(job *j)
{
    if (!j->reading)
        return;
    dsort_pread_end(j, j->reading);
    dsort_posix_close(j, j->a->input, 0);
    j->reading = NULL;
}

int dsort_file_io(job *j, MPI_File f, const char *name, int write, uint64_t off,
                  unsigned char *buf, uint64_t len)
{
    const int fd = write ? j->out_fd : j->in_fd;
    if (fd < 0)
        return mpi_io(j, f, name, write, off, buf, len);
    struct io_async io;
    io_start(j, &io, fd, name, write, off, buf, len, 0);
    return io_finish(j, &io);
}

int dsort_posix_open(job *j, const char *path, int write)
{
    if (!j->posix_io)
        return 0;
    const int fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        dsort_fail(j, write ? EXIT_IO : EXIT_USAGE, "%s: cannot open for %s: %s", path,
                   write ? "writing" : "reading", strerror(errno));
        return -1;
    }
    *(write ? &j->out_fd : &j->in_fd) = fd;
    return 0;
}

void dsort_posix_close(job *j, const char *name, int write)
{
    int *fd = write ? &j->out_fd : &j->in_fd;
    if (*fd < 0)
        return;
    if (close(*fd) != 0 && write)
        dsort_fail(j, EXIT_IO, "%s: cannot close its temporary file: %s", name, strerror(errno));
    *fd = -1;
}
