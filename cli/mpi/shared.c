/*
 * Where every rank is on one host, memory the ranks share in place of messages and writes:
 *   - the exchange sends nothing: each rank's merge reads its pieces straight from the senders'
 *     sorted slices (Open MPI's shared-memory transport copies every byte twice where its
 *     single-copy mechanism is off, about 3 GB/s on the H200 machines). It reads them with
 *     process_vm_readv() where the system lets the ranks read each other's memory (checked once
 *     at the start), so that slices stay in ordinary memory; else the slices are held in memory
 *     files (memfd) that the other ranks map through /proc/PID/fd/N. Memory files cost more: on
 *     four H200s, 16 GiB of slices in them took 0.8 s more to read and about 3 s more to free
 *     at the end (docs/mpi.md). Slices larger than the budget are sorted into temporary files:
 *     each rank maps the stretch of every rank's file that holds its piece;
 *   - the output's temporary file is given its full size (fallocate, so that no page of the map can
 *     lack room later) and each rank maps its part of it, faults it in on its threads and copies its
 *     records there on its threads: writers of one file by pwrite() wait for each other on its lock.
 * Each is agreed by every rank and falls back to the messages or to pwrite() where any rank cannot
 * (another PID namespace, a file system without fallocate, CLSORT_MPI_SHARED=0).
 */
#include "dsort.h"
#include "cli.h"
#include "pio.h"
#include "prefault.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static int shared_allowed(const job *j)
{
    return j->shared != SHARED_NONE && j->posix_io && j->local_size == j->size;
}

/* len bytes at addr of process pid into dst: 0 or an errno value. */
static int vm_read(pid_t pid, void *dst, uint64_t addr, size_t len)
{
    while (len > 0) {
        struct iovec here = {dst, len}, there = {(void *)(uintptr_t)addr, len};
        const ssize_t got = process_vm_readv(pid, &here, 1, &there, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EIO;
        dst = (unsigned char *)dst + got;
        addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

/* A part of a transfer on the threads: len bytes at dst (and at addr of process pid). */
typedef struct vm_part {
    pid_t pid;
    unsigned char *dst;
    uint64_t addr;
    size_t len;
    int err;
} vm_part;

enum { MAX_PARTS = 16 };

/* len bytes at dst (and addr) cut into n parts of whole pages (at most MAX_PARTS), fn run on each:
 * the caller takes the first, a thread each of the others (the caller those whose thread cannot
 * start). Returns the first part's error that is not 0. */
static int on_parts(void *(*fn)(void *), size_t n, pid_t pid, unsigned char *dst, uint64_t addr,
                    size_t len)
{
    const long pg = sysconf(_SC_PAGESIZE);
    const size_t page = pg > 0 ? (size_t)pg : 4096;
    n = n < 1 ? 1 : n > MAX_PARTS ? MAX_PARTS : n;
    const size_t each = (len / n + page - 1) / page * page;
    vm_part part[MAX_PARTS];
    pthread_t th[MAX_PARTS];
    int started[MAX_PARTS] = {0}, err = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t from = i * each < len ? i * each : len;
        const size_t to = from + each < len ? from + each : len;
        part[i] = (vm_part){pid, dst + from, addr + from, to - from, 0};
        started[i] = i && pthread_create(&th[i], NULL, fn, &part[i]) == 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(&part[i]);
        err = err ? err : part[i].err;
    }
    return err;
}

static void *vm_part_run(void *arg)
{
    vm_part *v = arg;
    v->err = vm_read(v->pid, v->dst, v->addr, v->len);
    return NULL;
}

/* vm_read() split between up to `threads` threads (one thread reads about 5 GB/s). */
static int vm_read_threads(pid_t pid, unsigned char *dst, uint64_t addr, size_t len,
                           unsigned threads)
{
    const size_t n = len / (16 << 20); /* 16 MiB a thread at least */
    return on_parts(vm_part_run, n < threads ? n : threads, pid, dst, addr, len);
}

/* What each rank reads of the others' memory at the start: a word that names its process. */
static volatile uint64_t probe_word;
#define PROBE_MARK 0x636c736f72742d31ULL

void shm_probe(job *j)
{
    int ok = shared_allowed(j) && j->shared != SHARED_MAP && j->size > 1, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        return;
    probe_word = (uint64_t)getpid() ^ PROBE_MARK;
    const uint64_t mine[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)&probe_word};
    uint64_t *info = malloc(2 * (size_t)j->size * sizeof *info);
    ok = info != NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        MPI_Allgather(mine, 2, MPI_UINT64_T, info, 2, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int r = 0; r < j->size && ok; r++) {
            uint64_t word = 0;
            ok = r == j->rank || (vm_read((pid_t)info[2 * r], &word, info[2 * r + 1], sizeof word) == 0 &&
                                  word == (info[2 * r] ^ PROBE_MARK));
        }
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        j->read_peers = all;
    }
    free(info);
}

unsigned char *shm_slice(job *j, size_t bytes)
{
    if (!shared_allowed(j) || j->size < 2 || bytes == 0 || j->read_peers)
        return NULL;
    const int fd = memfd_create("clsort-mpi-slice", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    j->slice_fd = fd;
    j->slice_bytes = bytes;
    return p;
}

void shm_release_slice(job *j)
{
    if (j->slice_fd < 0) {
        free(j->data);
    } else {
        if (j->data)
            munmap(j->data, j->slice_bytes);
        close(j->slice_fd);
        j->slice_fd = -1;
    }
    j->data = NULL;
}

/* What a rank tells the others of its slice: its process, descriptor (or address), file and
 * bytes. */
enum { INFO_PID, INFO_FD, INFO_DEV, INFO_INO, INFO_BYTES, N_INFO };

/* Every rank's run table (job.run_cut), gathered: runs[r] runs each, rank r's at cut + at[r]. */
typedef struct run_tables {
    unsigned *runs;
    uint64_t *at;
    uint64_t *cut;
} run_tables;

static void free_tables(run_tables *t)
{
    free(t->runs);
    free(t->at);
    free(t->cut);
}

/* Collective: 1, or 0 on every rank where any could not allocate them. */
static int gather_tables(job *j, run_tables *t)
{
    const int p = j->size;
    const size_t row = (size_t)p + 1;
    t->runs = malloc((size_t)p * sizeof *t->runs);
    t->at = malloc((size_t)p * sizeof *t->at);
    int *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs);
    int ok = t->runs && t->at && counts && displs, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    t->cut = NULL;
    if (all) {
        MPI_Allgather(&j->n_runs, 1, MPI_UNSIGNED, t->runs, 1, MPI_UNSIGNED, MPI_COMM_WORLD);
        uint64_t total = 0;
        for (int r = 0; r < p; r++) {
            t->at[r] = total;
            counts[r] = (int)(t->runs[r] * row);
            displs[r] = (int)total;
            total += t->runs[r] * row;
        }
        /* a few runs a rank (RUNS_MAX) on the ranks of one host: far from an int's count */
        ok = total <= INT_MAX && (t->cut = malloc(total * sizeof *t->cut)) != NULL;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all)
            MPI_Allgatherv(j->run_cut, (int)(j->n_runs * row), MPI_UINT64_T, t->cut, counts,
                           displs, MPI_UINT64_T, MPI_COMM_WORLD);
    }
    free(counts);
    free(displs);
    if (!all)
        free_tables(t);
    return all;
}

/* Where this rank's piece of run k of rank r starts in that rank's slice, and its records. */
static uint64_t piece_of(const job *j, const run_tables *t, int r, unsigned k, uint64_t *n)
{
    const uint64_t *c = t->cut + t->at[r] + (uint64_t)k * ((uint64_t)j->size + 1);
    *n = c[j->rank + 1] - c[j->rank];
    return c[j->rank];
}

/* The records of rank r's slice that this rank merges lie in [lo, hi): its pieces of every run. */
static void span_of(const job *j, const run_tables *t, int r, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (unsigned k = 0; k < t->runs[r]; k++) {
        uint64_t n;
        const uint64_t at = piece_of(j, t, r, k, &n);
        if (n) {
            *lo = at < *lo ? at : *lo;
            *hi = at + n > *hi ? at + n : *hi;
        }
    }
}

/* src[] from the tables: every rank's pieces with records, in (rank, run) order, at base[r] +
 * their start (less lo[r]) in rank r's slice. */
static int list_pieces(job *j, const run_tables *t, unsigned char *const *base, const uint64_t *lo,
                       const int *pid)
{
    uint64_t k = 0;
    for (int r = 0; r < j->size; r++)
        k += t->runs[r];
    j->src = calloc(k ? k : 1, sizeof *j->src);
    if (!j->src)
        return 0;
    j->n_src = 0;
    for (int r = 0; r < j->size; r++)
        for (unsigned q = 0; q < t->runs[r]; q++) {
            uint64_t n;
            const uint64_t at = piece_of(j, t, r, q, &n);
            if (n)
                j->src[j->n_src++] = (src_piece){r, pid ? pid[r] : 0,
                                                 base[r] + (at - lo[r]) * j->rs, n};
        }
    return 1;
}

/* The stretch [off, off + len) of rank r's slice file mapped for reading (whole pages around it),
 * the file checked to be the one it named (a rank in another PID namespace would find another
 * process's descriptor there); returns its start, or NULL. This rank's slice where it holds it (a
 * memory file: data), else its own file too. A memory file's pages are faulted in at once; a
 * sorted file (beyond the budget) is read as the merge goes. */
static unsigned char *map_stretch(job *j, int r, const uint64_t *info, uint64_t off, uint64_t len)
{
    if (r == j->rank && j->data)
        return j->data + off;
    char path[64];
    snprintf(path, sizeof path, "/proc/%llu/fd/%llu", (unsigned long long)info[INFO_PID],
             (unsigned long long)info[INFO_FD]);
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    const long pg = sysconf(_SC_PAGESIZE);
    const uint64_t page = pg > 0 ? (uint64_t)pg : 4096, base = off / page * page;
    const int memory = !j->ext_local;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == info[INFO_DEV] &&
        (uint64_t)st.st_ino == info[INFO_INO] && (uint64_t)st.st_size == info[INFO_BYTES] &&
        off + len <= info[INFO_BYTES] && off + len - base <= SIZE_MAX)
        p = mmap(NULL, (size_t)(off + len - base), PROT_READ,
                 MAP_SHARED | (memory ? MAP_POPULATE : 0), fd, (off_t)base);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    j->peer_map[r] = p;
    j->peer_bytes[r] = off + len - base;
    return (unsigned char *)p + (off - base);
}

static void unmap_peers(job *j)
{
    for (int r = 0; j->peer_map && r < j->size; r++)
        if (j->peer_map[r])
            munmap(j->peer_map[r], j->peer_bytes[r]);
    free(j->peer_map);
    free(j->peer_bytes);
    free(j->src);
    j->peer_map = NULL;
    j->peer_bytes = NULL;
    j->src = NULL;
    j->n_src = 0;
}

/* The pieces where the senders hold them in ordinary memory, read by process_vm_readv(). */
static int exchange_by_reads(job *j, const run_tables *t)
{
    const int p = j->size;
    const uint64_t mine[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)j->data};
    uint64_t *info = malloc(2 * (size_t)p * sizeof *info), *lo = calloc((size_t)p, sizeof *lo);
    unsigned char **base = malloc((size_t)p * sizeof *base);
    int *pid = malloc((size_t)p * sizeof *pid);
    int ok = info && lo && base && pid, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        MPI_Allgather(mine, 2, MPI_UINT64_T, info, 2, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int r = 0; r < p; r++) {
            pid[r] = r == j->rank ? 0 : (int)info[2 * r];
            /* another rank's address, read only through process_vm_readv() */
            base[r] = (unsigned char *)(uintptr_t)info[2 * r + 1];
        }
        ok = list_pieces(j, t, base, lo, pid);
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (!all)
        unmap_peers(j);
    free(info);
    free(lo);
    free(base);
    free(pid);
    return all;
}

/* Each rank's slice in a file the others may open: a memory file (slice_fd), or, beyond the
 * budget, its sorted file (sorted_fd). Each rank maps the stretch of every rank's file that holds
 * its pieces, where it lies, and its merge reads the pieces from there: nothing is sent, and beyond
 * the budget no received file is written (two H200s, 16 GiB beyond the budget: the exchange
 * through files took 7.6-9.3 s, docs/mpi.md). */
static int exchange_by_maps(job *j, const run_tables *t, int fd, uint64_t bytes)
{
    const int p = j->size;
    uint64_t mine[N_INFO] = {(uint64_t)getpid(), (uint64_t)fd, 0, 0, bytes};
    struct stat st;
    if (fstat(fd, &st) == 0)
        mine[INFO_DEV] = (uint64_t)st.st_dev, mine[INFO_INO] = (uint64_t)st.st_ino;
    uint64_t *info = malloc((size_t)p * N_INFO * sizeof *info), *lo = calloc((size_t)p, sizeof *lo);
    unsigned char **base = calloc((size_t)p, sizeof *base);
    j->peer_map = calloc((size_t)p, sizeof *j->peer_map);
    j->peer_bytes = calloc((size_t)p, sizeof *j->peer_bytes);
    int ok = info && lo && base && j->peer_map && j->peer_bytes, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        MPI_Allgather(mine, N_INFO, MPI_UINT64_T, info, N_INFO, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int r = 0; r < p && ok; r++) {
            uint64_t hi;
            span_of(j, t, r, &lo[r], &hi);
            if (hi > lo[r])
                ok = (base[r] = map_stretch(j, r, info + (size_t)r * N_INFO, lo[r] * j->rs,
                                            (hi - lo[r]) * j->rs)) != NULL;
        }
        ok = ok && list_pieces(j, t, base, lo, NULL);
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (!all)
        unmap_peers(j);
    free(info);
    free(lo);
    free(base);
    return all;
}

int shm_exchange(job *j, int within_budget)
{
    int files = shared_allowed(j) && j->ext_local && j->sorted_fd >= 0, all = 0;
    MPI_Allreduce(&files, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const int by_files = all;
    if (!by_files) {
        int ok = (j->slice_fd >= 0 || j->read_peers) && within_budget && !j->ext_local;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all)
            return 0;
    }
    run_tables t;
    if (!gather_tables(j, &t))
        return 0;
    if (by_files)
        all = exchange_by_maps(j, &t, j->sorted_fd, j->m * j->rs);
    else if (j->read_peers)
        all = exchange_by_reads(j, &t);
    else
        all = exchange_by_maps(j, &t, j->slice_fd, j->slice_bytes);
    free_tables(&t);
    return all;
}

/* n records of piece s from its record at, to dst: 0 or an errno value. */
static int read_src(const job *j, int s, unsigned char *dst, uint64_t at, size_t n, unsigned threads)
{
    const src_piece *q = &j->src[s];
    const unsigned char *from = q->at + at * j->rs;
    if (q->pid)
        return threads > 1 ? vm_read_threads(q->pid, dst, (uint64_t)(uintptr_t)from, n * j->rs,
                                             threads)
                           : vm_read(q->pid, dst, (uint64_t)(uintptr_t)from, n * j->rs);
    if (threads > 1)
        pio_copy(dst, from, n * j->rs);
    else
        memcpy(dst, from, n * j->rs);
    return 0;
}

int shm_copy_received(job *j, unsigned char *dst, uint64_t at, size_t n)
{
    uint64_t start = 0;
    for (int s = 0; s < j->n_src && n > 0; s++) {
        const uint64_t end = start + j->src[s].n;
        if (at < end) {
            const uint64_t take = end - at < n ? end - at : n;
            const int e = read_src(j, s, dst, at - start, (size_t)take, j->threads);
            if (e) {
                dsort_fail(j, EXIT_DEVICE, "cannot read the records rank %d holds for this "
                           "rank: %s", j->src[s].rank, strerror(e));
                return -1;
            }
            dst += take * j->rs;
            at += take;
            n -= (size_t)take;
        }
        start = end;
    }
    return 0;
}

int shm_read_piece(const job *j, int s, void *dst, uint64_t at, size_t n)
{
    return read_src(j, s, dst, at, n, 1);
}

void shm_write_received(job *j, MPI_File f, const char *name, uint64_t first)
{
    if (j->out_map) {
        shm_copy_received(j, j->out_map, 0, j->recv_total);
        return;
    }
    const uint64_t chunk = ((uint64_t)64 << 20) / j->rs ? ((uint64_t)64 << 20) / j->rs : 1;
    const uint64_t c0 = j->recv_total < chunk ? j->recv_total : chunk;
    unsigned char *buf = malloc(c0 ? c0 * j->rs : 1);
    if (!buf) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate a copy buffer of %llu bytes",
                   (unsigned long long)(c0 * j->rs));
        return;
    }
    for (uint64_t at = 0; at < j->recv_total && !j->code; at += chunk) {
        const uint64_t c = j->recv_total - at < chunk ? j->recv_total - at : chunk;
        if (shm_copy_received(j, buf, at, (size_t)c) == 0)
            shm_put_output(j, f, name, first, at, buf, c);
    }
    free(buf);
}

static prefault_bg populating;

/* The map faulted in: in the background where the system populates maps (prefault.c), else now,
 * before any copy, by writing each page. */
static void fault_in(job *j)
{
    if (j->merge_faults_in)
        return;
    if (!prefault_start(&populating, j->out_base, j->out_base_bytes, j->threads))
        prefault(j->out_map, j->out_n * j->rs, j->threads);
}

int shm_map_output(job *j, uint64_t first)
{
    const uint64_t total = j->n * j->rs;
    int ok = shared_allowed(j) && total > 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        return 0;
    int fd = -1, room = 1;
    if (j->rank == 0) {
        /* the whole file's room first: a page of a map that finds no room ends the process */
        fd = open(j->dest.path, O_RDWR | O_CLOEXEC | O_NOCTTY);
        int e = fd < 0 ? errno : fallocate(fd, 0, 0, (off_t)total) != 0 ? errno : 0;
        if (e == ENOSPC || e == EDQUOT || e == EFBIG)
            dsort_fail(j, EXIT_IO, "%s: no room for the output's %llu bytes: %s", j->a->output,
                       (unsigned long long)total, strerror(e));
        room = e == 0;
    }
    MPI_Bcast(&room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!room) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    const long pg = sysconf(_SC_PAGESIZE);
    const uint64_t page = pg > 0 ? (uint64_t)pg : 4096, off = first * j->rs;
    const uint64_t bytes = j->out_n * j->rs, base = off / page * page;
    ok = 1;
    if (bytes) {
        if (fd < 0)
            fd = open(j->dest.path, O_RDWR | O_CLOEXEC | O_NOCTTY);
        void *p = fd < 0 ? MAP_FAILED
                         : mmap(NULL, off + bytes - base, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                                (off_t)base);
        ok = p != MAP_FAILED;
        if (ok) {
            j->out_base = p;
            j->out_base_bytes = off + bytes - base;
            j->out_map = (unsigned char *)p + (off - base);
            /* faulted in on the rank's threads; the copies then only copy */
            fault_in(j);
        }
    }
    if (fd >= 0)
        close(fd);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        shm_unmap_output(j);
    return all;
}

int shm_put_output(job *j, MPI_File f, const char *name, uint64_t first, uint64_t at,
                   const void *src, uint64_t n)
{
    if (j->out_map) {
        pio_copy(j->out_map + at * j->rs, src, n * j->rs);
        return 0;
    }
    return dsort_file_io(j, f, name, 1, (first + at) * j->rs, (unsigned char *)src, n * j->rs);
}

void shm_unmap_output(job *j)
{
    prefault_wait(&populating);
    if (j->out_base)
        munmap(j->out_base, j->out_base_bytes);
    j->out_base = NULL;
    j->out_map = NULL;
}
