/*
 * A slice beyond the budget sorted by its rank in a few runs, each a sorted piece of its own:
 *   runs_plan   how many runs: the most records one device sort of them takes within the budget
 *               (dsort_sort_need); more than RUNS_MAX (CLSORT_MPI_RUNS), none: the engine sorts
 *               the slice in runs and merges them into one sorted slice (engine.c)
 *   runs_sort   each run read from the input into its place in the slice's nameless file (mapped
 *               where the file takes its room at once, else through a buffer), sorted there on
 *               the device (stable)
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

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Runs a rank sorts itself at most: every rank merges every rank's runs at once (a heap of
 * RUNS_MAX x ranks pieces). */
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

/* The run [a, b) of the slice, read into dst and sorted there. */
static void sort_run(job *j, unsigned char *dst, uint64_t a, uint64_t b)
{
    if (dsort_file_io(j, MPI_FILE_NULL, j->a->input, 0, (j->lo + a) * j->rs, dst,
                      (b - a) * j->rs) != 0)
        return;
    clsort_stats stats = {0};
    const clsort_status st = clsort_sort_records(j->ctx, &j->spec, dst, b - a, j->rs, 0, 0, NULL,
                                                 &stats);
    for (int k = 0; k < 3; k++) /* every run's device times together */
        j->device_ms[0][k] += k == 0 ? stats.kernel_ms : k == 1 ? stats.upload_ms
                                                                : stats.download_ms;
    if (st != CLSORT_OK)
        dsort_fail(j, dsort_status_exit(st), "sort of a run of %llu records on %s: %s (%d) %s",
                   (unsigned long long)(b - a), j->device, clsort_status_string(st), st,
                   clsort_error_detail(j->ctx));
}

/* Run [a, b) sorted where it goes in the slice file: in a map of its stretch (the file's room
 * taken first: a page of a map that finds no room ends the process), else through buf; 0, or -1
 * with the error recorded. */
static int run_into_file(job *j, int mapped, unsigned char *buf, uint64_t a, uint64_t b)
{
    if (!mapped) {
        sort_run(j, buf, a, b);
        return j->code ? -1 : ext_pwrite(j, j->sorted_fd, buf, (b - a) * j->rs, a * j->rs);
    }
    const long pg = sysconf(_SC_PAGESIZE);
    const uint64_t page = pg > 0 ? (uint64_t)pg : 4096, off = a * j->rs, base = off / page * page;
    const size_t len = (size_t)(b * j->rs - base);
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, j->sorted_fd,
                            (off_t)base);
    if (p == MAP_FAILED) {
        dsort_fail(j, EXIT_IO, "cannot map this rank's sorted slice in %s: %s", j->sorted_dir,
                   strerror(errno));
        return -1;
    }
    sort_run(j, p + (off - base), a, b);
    munmap(p, len);
    return j->code ? -1 : 0;
}

void runs_sort(job *j, unsigned runs)
{
    const uint64_t each = (j->m + runs - 1) / runs, bytes = j->m * j->rs;
    runs = (unsigned)((j->m + each - 1) / each); /* none of them empty */
    const size_t row = (size_t)j->size + 1;
    j->run_cut = calloc((size_t)runs * row, sizeof *j->run_cut);
    if (!j->run_cut) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the table of %u runs", runs);
        return;
    }
    j->n_runs = runs;
    for (unsigned t = 0; t < runs; t++) {
        j->run_cut[t * row] = t * each;
        j->run_cut[t * row + row - 1] = (t + 1) * each < j->m ? (t + 1) * each : j->m;
    }
    j->sorted_fd = ext_temp(j, "this rank's sorted slice", bytes, &j->sorted_dir);
    if (j->sorted_fd < 0)
        return;
    j->in_fd = open(j->a->input, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (j->in_fd < 0) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", j->a->input, strerror(errno));
        return;
    }
    /* the file's room at once: then each run is read straight into its map and sorted there, no
     * copy written; else (no fallocate here) through a buffer of one run */
    int e = fallocate(j->sorted_fd, 0, 0, (off_t)bytes) == 0 ? 0 : errno;
    if (e == ENOSPC || e == EDQUOT || e == EFBIG)
        dsort_fail(j, EXIT_IO, "not enough room in %s for this rank's sorted slice of %llu "
                   "bytes: %s", j->sorted_dir, (unsigned long long)bytes, strerror(e));
    unsigned char *buf = NULL;
    if (!j->code && e && !(buf = malloc((size_t)(each * j->rs))))
        dsort_fail(j, EXIT_DEVICE, "cannot allocate a run's %llu bytes",
                   (unsigned long long)(each * j->rs));
    for (unsigned t = 0; t < runs && !j->code; t++)
        run_into_file(j, !e, buf, j->run_cut[t * row], j->run_cut[t * row + row - 1]);
    free(buf);
    dsort_posix_close(j, j->a->input, 0);
    j->runs_spilled = runs;
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
