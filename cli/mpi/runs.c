/*
 * A slice beyond the budget sorted by its rank in a few runs, each a sorted piece of its own:
 *   runs_plan   how many runs: the most records one device sort of them takes within the budget
 *               (dsort_sort_need(), the library's figure now that the device is open: on a GPU
 *               one run may hold a slice that the read took to be beyond the budget); more than
 *               RUNS_MAX (CLSORT_MPI_RUNS), none: the engine sorts the slice in runs and merges
 *               them into one sorted slice (engine.c)
 *   runs_sort   each run read from the input into its place in the slice's nameless file (mapped:
 *               the file takes its room at once; where the file system cannot, the engine's way),
 *               the next run read meanwhile, sorted there on the device (stable)
 *   runs_cut    each run cut at the splitters: where each destination's piece starts in it
 * The ranks' merges then take every rank's runs as pieces where they lie (hmerge.c), so that the
 * records go through the file system twice, as clsort's runs do, and not a third time into one
 * sorted slice. Records of a run are in input order where their orders are equal, and a run's
 * records come before the next run's in the input: the index in the slice file still orders equal
 * records as their input positions, which is what the splitters' triples carry (dsort.h).
 */
#include "dsort.h"
#include "cli.h"
#include "msettings.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Runs a rank sorts itself at most: every rank merges every rank's runs at once (a tree over up to
 * RUNS_MAX x ranks pieces, each segment's cut a binary search in each). */
enum { RUNS_MAX = 32 };

static unsigned runs_max(void)
{
    const char *v = msettings()->runs;
    return v ? (unsigned)strtoul(v, NULL, 10) : RUNS_MAX; /* checked by read_environment() */
}

unsigned runs_plan(job *j)
{
    /* the most records a run may take: dsort_sort_need() grows with them */
    uint64_t lo = 0, hi = j->m;
    while (lo < hi) {
        const uint64_t mid = hi - (hi - lo) / 2;
        if (mid <= SIZE_MAX / j->rs && dsort_sort_need(j, mid) <= j->budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (!lo)
        return 0;
    const uint64_t runs = (j->m + lo - 1) / lo;
    return runs <= runs_max() ? (unsigned)runs : 0;
}

/* The run [a, b) of the slice, read into dst: started on the rank's threads (dsort_pread_end()). */
static struct io_async *read_run(job *j, unsigned char *dst, uint64_t a, uint64_t b)
{
    return dsort_pread_begin(j, j->a->input, (j->lo + a) * j->rs, dst, (b - a) * j->rs);
}

/* The run [a, b) of the slice at dst sorted there (stable). */
static void sort_run(job *j, unsigned char *dst, uint64_t a, uint64_t b)
{
    if (j->code)
        return;
    clsort_stats stats = {0};
    const clsort_status st = clsort_sort_records(j->ctx, &j->spec, dst, b - a, j->rs, 0, 0, NULL,
                                                 &stats);
    dsort_device_times(j, 0, &stats); /* every run's device times together */
    if (st != CLSORT_OK)
        dsort_fail(j, dsort_status_exit(st), "sort of a run of %llu records on %s: %s (%d) %s",
                   (unsigned long long)(b - a), j->device, clsort_status_string(st), st,
                   clsort_error_detail(j->ctx));
}

/* A run's stretch of the slice file mapped for writing (whole pages around it). */
typedef struct run_map {
    unsigned char *base, *at;
    size_t len;
} run_map;

static int map_run(job *j, run_map *m, uint64_t a, uint64_t b)
{
    const long pg = sysconf(_SC_PAGESIZE);
    const uint64_t page = pg > 0 ? (uint64_t)pg : 4096, off = a * j->rs, base = off / page * page;
    m->len = (size_t)(b * j->rs - base);
    void *p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, j->sorted_fd, (off_t)base);
    if (p == MAP_FAILED) {
        m->base = m->at = NULL;
        dsort_fail(j, EXIT_IO, "cannot map this rank's sorted slice in %s: %s", j->sorted_dir,
                   strerror(errno));
        return -1;
    }
    m->base = p;
    m->at = m->base + (off - base);
    return 0;
}

static void unmap_run(run_map *m)
{
    if (m->base)
        munmap(m->base, m->len);
    m->base = m->at = NULL;
}

/* Each run read straight into its map of the slice file and sorted there, the next one read on
 * the rank's threads while the device sorts this one: no copy is written, and the read is hidden
 * (the file took its room at once: a page of a map that finds no room would end the process). */
static void runs_in_maps(job *j, const uint64_t *bound, size_t row)
{
    run_map cur = {0}, next = {0};
    struct io_async *io = NULL;
    if (map_run(j, &cur, bound[0], bound[row - 1]) == 0)
        io = read_run(j, cur.at, bound[0], bound[row - 1]);
    for (unsigned t = 0; t < j->n_runs && !j->code; t++) {
        const uint64_t a = bound[t * row], b = bound[t * row + row - 1];
        if (dsort_pread_end(j, io) != 0) {
            io = NULL;
            break;
        }
        io = NULL;
        if (t + 1 < j->n_runs) {
            const uint64_t na = bound[(t + 1) * row], nb = bound[(t + 1) * row + row - 1];
            if (map_run(j, &next, na, nb) == 0)
                io = read_run(j, next.at, na, nb);
        }
        sort_run(j, cur.at, a, b);
        unmap_run(&cur);
        cur = next;
        next = (run_map){0};
    }
    dsort_pread_end(j, io); /* a read still going (after a failure) ends before its map goes */
    unmap_run(&cur);
}

int runs_sort(job *j, unsigned runs)
{
    const uint64_t each = (j->m + runs - 1) / runs, bytes = j->m * j->rs;
    runs = (unsigned)((j->m + each - 1) / each); /* none of them empty */
    const size_t row = (size_t)j->size + 1;
    j->sorted_fd = ext_temp(j, "this rank's sorted slice", bytes, &j->sorted_dir);
    if (j->sorted_fd < 0)
        return 1;
    /* the file's room at once (maps of it are written); a file system without it: the engine */
    const int e = fallocate(j->sorted_fd, 0, 0, (off_t)bytes) == 0 ? 0 : errno;
    if (e && e != ENOSPC && e != EDQUOT && e != EFBIG) {
        close(j->sorted_fd);
        j->sorted_fd = -1;
        return 0;
    }
    if (e) {
        dsort_fail(j, EXIT_IO, "not enough room in %s for this rank's sorted slice of %llu "
                   "bytes: %s", j->sorted_dir, (unsigned long long)bytes, strerror(e));
        return 1;
    }
    j->run_cut = calloc((size_t)runs * row, sizeof *j->run_cut);
    if (!j->run_cut) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the table of %u runs", runs);
        return 1;
    }
    j->n_runs = runs;
    j->own_runs = 1;
    for (unsigned t = 0; t < runs; t++) {
        j->run_cut[t * row] = t * each;
        j->run_cut[t * row + row - 1] = (t + 1) * each < j->m ? (t + 1) * each : j->m;
    }
    j->in_fd = open(j->a->input, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (j->in_fd < 0) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", j->a->input, strerror(errno));
        return 1;
    }
    runs_in_maps(j, j->run_cut, row);
    dsort_posix_close(j, j->a->input, 0);
    j->runs_spilled = runs;
    return 1;
}

uint64_t dsort_order_at(job *j, uint64_t i)
{
    unsigned char rec[16];
    if (!j->ext_local)
        return clsort_key_order(&j->spec, j->data + i * j->rs);
    if (ext_pread(j, j->sorted_fd, rec, j->rs, i * j->rs) != 0)
        return 0;
    return clsort_key_order(&j->spec, rec);
}

/* Records of [a, b) (sorted) before splitter sp, (order, rank, index) triples compared: of the
 * splitter's order, this rank's records go before it when this rank is the lower (earlier input
 * positions), after it when the higher, and on its own rank by their index. */
static uint64_t cut_in(job *j, const uint64_t *sp, uint64_t a, uint64_t b)
{
    const uint64_t me = (uint64_t)j->rank;
    while (a < b && !j->code) {
        const uint64_t mid = a + (b - a) / 2, o = dsort_order_at(j, mid);
        if (o < sp[0] || (o == sp[0] && (me < sp[1] || (me == sp[1] && mid < sp[2]))))
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

void runs_cut(job *j)
{
    const int p = j->size;
    const size_t row = (size_t)p + 1;
    for (unsigned t = 0; t < j->n_runs; t++) {
        uint64_t *c = j->run_cut + t * row;
        for (int d = 1; d < p; d++)
            c[d] = cut_in(j, j->splitters + 3 * (d - 1), c[d - 1], c[p]);
    }
}

int runs_read_piece(job *j, int to, uint64_t off, unsigned char *buf, size_t len)
{
    const size_t row = (size_t)j->size + 1;
    uint64_t start = 0; /* of the run's piece, in the stream of the pieces for `to` */
    for (unsigned t = 0; t < j->n_runs && len > 0; t++) {
        const uint64_t *c = j->run_cut + t * row;
        const uint64_t n = (c[to + 1] - c[to]) * j->rs;
        if (off < start + n) {
            const uint64_t take = start + n - off < len ? start + n - off : len;
            if (ext_pread(j, j->sorted_fd, buf, (size_t)take, c[to] * j->rs + (off - start)) != 0)
                return -1;
            buf += take;
            off += take;
            len -= (size_t)take;
        }
        start += n;
    }
    return 0;
}
