/*
 * clsort-mpi's sorts on the library's stream engine (see dsort.h): every sort but the in-memory
 * local one (the default) is one clsort_sort_stream() call, from a source callback to a
 * sink callback, under the rank's budget (-S), its -T directories and threads:
 *   - with CLSORT_MPI_LOCAL=stream, a slice within the budget: streamed from the input through
 *     the device into memory (read and sorted in one, as clsort sorts a file);
 *   - a slice larger than the budget in more runs than runs.c sorts itself: read from the input,
 *     sorted in runs (spilled to nameless files in -T), merged into one sorted nameless file,
 *     which the sample and the exchange read;
 *   - the merge of the received pieces, sorted pieces in (sending rank, run) order, given to the
 *     engine in that order: a stable sort of them is their merge by (key, sending rank, run), which
 *     is the order of (key, input position) the splitters use. From memory or, beyond the budget,
 *     from a nameless file, straight into the output at the rank's offset, in the write phase.
 *     The engine sorts the pieces in one device sort where they fit its budget, else in runs that
 *     it merges on the device (the default) or, with --merge host (its setting device_merge=0), on
 *     the host's threads.
 * Temporary files have no name (nameless.c, as clsort's runs): nothing is left behind.
 */
#include "dsort.h"
#include "cli.h"
#include "msettings.h"
#include "nameless.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------------
 * Temporary files: the sorted slice and the received pieces beyond the budget
 */

/* The directory of a temporary file: -T in turn, else $TMPDIR, else /tmp (as the library). */
static const char *next_dir(job *j)
{
    if (j->a->n_temp_dirs)
        return j->a->temp_dirs[j->next_dir++ % j->a->n_temp_dirs];
    const char *tmp = msettings()->tmpdir;
    return tmp ? tmp : "/tmp";
}

static const char *dir_of(const job *j, int fd)
{
    return fd == j->sorted_fd ? j->sorted_dir : j->recv_dir;
}

int ext_temp(job *j, const char *what, uint64_t bytes, const char **dir_out)
{
    const char *dir = next_dir(j);
    *dir_out = dir;
    struct statvfs v;
    const uint64_t avail = statvfs(dir, &v) == 0 ? (uint64_t)v.f_bavail * v.f_frsize : UINT64_MAX;
    if (bytes > avail) {
        dsort_fail(j, EXIT_IO, "not enough space in %s for %s: %.1f MiB needed, %.1f MiB free (%s)",
                   dir, what, (double)bytes / 1048576, (double)avail / 1048576, strerror(ENOSPC));
        return -1;
    }
    const int fd = clsort_nameless_file(dir);
    if (fd < 0)
        dsort_fail(j, EXIT_IO, "cannot create a temporary file in %s for %s: %s", dir, what,
                   strerror(errno));
    return fd;
}

/* All of len bytes at off: 0, or an errno value (EIO for a file shorter than expected). */
static int pio_all(int fd, int write, unsigned char *buf, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t r = write ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : write ? ENOSPC : EIO;
        buf += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int ext_pread(job *j, int fd, void *buf, size_t len, uint64_t off)
{
    const int e = pio_all(fd, 0, buf, len, off);
    if (e)
        dsort_fail(j, EXIT_IO, "cannot read back a temporary file in %s: %s", dir_of(j, fd),
                   strerror(e));
    return e ? -1 : 0;
}

int ext_pwrite(job *j, int fd, const void *buf, size_t len, uint64_t off)
{
    const int e = pio_all(fd, 1, (unsigned char *)buf, len, off);
    if (e)
        dsort_fail(j, EXIT_IO, "cannot write a temporary file in %s: %s", dir_of(j, fd),
                   strerror(e));
    return e ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------------
 * The engine's source and sink
 */

/* Where a sort's records come from, [at, end) of memory or a file, and where they go. */
typedef struct ext_io {
    job *j;
    const unsigned char *mem; /* the records in memory, else in the file `in` */
    int in;
    const char *name;   /* the file's name for messages (the input), NULL for a temporary file */
    uint64_t at, end;   /* records */
    unsigned char *out_mem; /* the sorted records go to memory; else to the output out, else to
                               sorted_fd */
    MPI_File out;
    const char *out_name;
    uint64_t written, first;
} ext_io;

static long long source_read(void *user, void *keys, void *values, size_t max)
{
    ext_io *s = user;
    job *j = s->j;
    (void)values; /* records come joined (source.records) */
    const uint64_t left = s->end - s->at;
    const size_t n = left < max ? (size_t)left : max;
    if (n == 0)
        return 0;
    if (s->mem) {
        memcpy(keys, s->mem + s->at * j->rs, n * j->rs);
    } else if (!s->name && j->src) {
        if (shm_copy_received(j, keys, s->at, n) != 0)
            return -1;
    } else if (!s->name) {
        if (ext_pread(j, s->in, keys, n * j->rs, s->at * j->rs) != 0)
            return -1;
    } else {
        const int e = pio_all(s->in, 0, keys, n * j->rs, s->at * j->rs);
        if (e) {
            dsort_fail(j, EXIT_IO, "%s: cannot read %zu bytes at offset %llu: %s", s->name,
                       n * j->rs, (unsigned long long)(s->at * j->rs),
                       e == EIO ? "end of file (the file changed while it was read?)"
                                : strerror(e));
            return -1;
        }
    }
    s->at += n;
    return (long long)n;
}

static int sink_write(void *user, const void *keys, const void *values, size_t n)
{
    ext_io *s = user;
    job *j = s->j;
    (void)values; /* joined records (sink.records) */
    int rc = 0;
    if (s->out_mem) /* the slice streamed through the device (CLSORT_MPI_LOCAL=stream) */
        memcpy(s->out_mem + s->written * j->rs, keys, n * j->rs);
    else if (s->out_name)
        rc = shm_put_output(j, s->out, s->out_name, s->first, s->written, keys, n);
    else
        rc = ext_pwrite(j, j->sorted_fd, keys, n * j->rs, s->written * j->rs);
    s->written += n;
    return rc != 0;
}

/* clsort_sort_stream() of the io's records within memory bytes, -T and the rank's threads;
 * `merge`: the received pieces (their device times and how they were merged are recorded). */
static void stream_sort(job *j, ext_io *io, const char *what, uint64_t memory, int merge)
{
    const uint64_t n = io->end - io->at;
    clsort_spec spec = j->spec;
    spec.value_size = j->a->value_size;
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = memory;
    set.temp_dirs = j->a->n_temp_dirs ? j->a->temp_dirs : NULL;
    set.n_temp_dirs = j->a->n_temp_dirs;
    set.threads = j->threads;
    const int joined = j->a->value_size > 0;
    const clsort_source src = {source_read, io, n, joined};
    const clsort_sink sink = {sink_write, io, joined};
    clsort_stats stats;
    memset(&stats, 0, sizeof stats);
    clsort_status st = clsort_sort_stream(j->ctx, &spec, &src, &sink, &set, &stats);
    j->runs_spilled += stats.runs_spilled;
    dsort_device_times(j, merge ? 1 : 0, &stats);
    if (merge) {
        /* one device sort of the pieces, or runs merged on the device: the device merged them */
        j->merge_threads = stats.runs <= 1 || stats.merged_on_device ? MERGED_ON_DEVICE
                                                                      : stats.merge_threads;
    }
    if (st != CLSORT_OK) /* after a callback's failure its own message stands (the first) */
        dsort_fail(j, st == CLSORT_ERROR_IO ? EXIT_IO : dsort_status_exit(st),
                   "%s of %llu records on %s: %s (%d) %s", what, (unsigned long long)n, j->device,
                   clsort_status_string(st), st, clsort_error_detail(j->ctx));
    else if (io->written != n)
        dsort_fail(j, EXIT_DEVICE, "%s: %llu records in, %llu out", what, (unsigned long long)n,
                   (unsigned long long)io->written);
}

/* ---------------------------------------------------------------------------------------------------
 * The sorts
 */

void ext_sort_slice(job *j)
{
    const int in = open(j->a->input, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", j->a->input, strerror(errno));
        return;
    }
    j->sorted_fd = ext_temp(j, "this rank's sorted slice", j->m * j->rs, &j->sorted_dir);
    if (j->sorted_fd >= 0) {
        ext_io io = {.j = j, .in = in, .name = j->a->input, .at = j->lo, .end = j->lo + j->m};
        stream_sort(j, &io, "sort in runs", j->budget, 0);
    }
    close(in);
}

void ext_sort_read(job *j)
{
    const int in = open(j->a->input, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (in < 0) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", j->a->input, strerror(errno));
        return;
    }
    /* the engine's budget: the rank's less the slice it holds (dsort_read made it one device
     * sort's worth at least) */
    ext_io io = {.j = j, .in = in, .name = j->a->input, .at = j->lo, .end = j->lo + j->m,
                 .out_mem = j->data};
    stream_sort(j, &io, "sort", j->budget - j->m * j->rs, 0);
    close(in);
}

/* The engine's budget for the merge of received pieces held in memory: the rank's less the pieces. */
static uint64_t ext_merge_memory(const job *j)
{
    const uint64_t held = j->recv_total * j->rs;
    return j->budget > held ? j->budget - held : 0;
}

/* One sorted piece is already the merge: copied into the output through a buffer. */
static void copy_into(job *j, MPI_File f, const char *name, uint64_t first)
{
    const uint64_t total = j->recv_total * j->rs;
    uint64_t L = j->budget / 2 < j->piece_bytes ? j->budget / 2 : j->piece_bytes;
    L = L / j->rs * j->rs; /* whole records: the output may be a map of records */
    L = L ? L : j->rs;
    unsigned char *buf = malloc(L);
    if (!buf) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate a copy buffer of %llu bytes",
                   (unsigned long long)L);
        return;
    }
    for (uint64_t off = 0; off < total && !j->code; off += L) {
        const size_t len = (size_t)(total - off < L ? total - off : L);
        if (ext_pread(j, j->recv_fd, buf, len, off) == 0)
            shm_put_output(j, f, name, first, off / j->rs, buf, len / j->rs);
    }
    free(buf);
}

static int pieces(const job *j)
{
    if (j->src)
        return j->n_src;
    int n = 0;
    for (int r = 0; r < j->size; r++)
        n += j->recv_n[r] > 0;
    return n;
}

int ext_merge_on_threads(const job *j)
{
    /* auto: where the threads' merge measured faster than the device's sort of the pieces (two
     * ranks; beyond the budget, the senders' sorted files), not where it measured slower (four
     * ranks in memory; docs/mpi.md) */
    const int wanted = j->a->merge == MERGE_PIECES ||
                       (j->a->merge == MERGE_AUTO && (j->size <= 2 || j->ext_local));
    return wanted && (j->ext_recv || j->merge_at_write) && pieces(j) > 1 && hmerge_possible(j);
}

void ext_merge_into(job *j, MPI_File f, const char *name, uint64_t first)
{
    if (pieces(j) <= 1 && !j->partitioned && !j->pieces_unsorted) { /* else not sorted */
        j->merge_threads = 0;
        if (j->src) /* where the senders hold them */
            shm_write_received(j, f, name, first);
        else
            copy_into(j, f, name, first);
        return;
    }
    if (ext_merge_on_threads(j)) {
        hmerge_into(j, f, name, first);
        return;
    }
    ext_io io = {.j = j, .in = j->recv_fd, .mem = j->ext_recv ? NULL : j->recv,
                 .end = j->recv_total, .out = f, .out_name = name, .first = first};
    stream_sort(j, &io, "merge", j->ext_recv ? j->budget : ext_merge_memory(j), 1);
}

void dsort_merge(job *j)
{
    if (dsort_injected(j, PH_MERGE))
        return;
    j->out_n = j->recv_total;
    if (j->ext_recv) /* the merge streams into the output at the write (ext_merge_into) */
        return;
    j->out = j->recv;
    j->merge_threads = 0;
    /* one sorted piece is already the merge; several are merged at the write, each merged chunk
     * written while the next downloads (ext_merge_into) */
    j->merge_at_write =
        pieces(j) > 1 || ((j->partitioned || j->pieces_unsorted) && j->recv_total > 1);
}
