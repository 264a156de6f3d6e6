/*
 * The slices partitioned, not sorted, before the exchange (CLSORT_MPI_LOCAL=partition, where every
 * slice, a copy of it and a destination a record fit the budget): splitters from a sample of the unsorted slices, each record sent to
 * its rank in input order, and each rank's one stable sort of what it receives (the merge step,
 * engine.c) is then the whole sort. Records compare as (order, input position): the pieces, taken
 * in sending rank order and each in input order, are in input order, so a stable sort of them by
 * key leaves equal keys in input order, as clsort does. One device sort a record, where sorting
 * the slices first and merging the pieces takes two; but the partition is a pass of the host's
 * threads, each record's key order found through the library, and on the 2-core machine (PoCL) it
 * cost more than the sort it saves (docs/mpi.md): not the default.
 */
#include "dsort.h"
#include "cli.h"

#include <mpi.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREADS = 64 };

void dsort_choose_partition(job *j)
{
    const unsigned __int128 bytes = (unsigned __int128)j->m * j->rs;
    int want = j->partition_wanted && j->size > 1 && !j->ext_local && !j->local_stream &&
               2 * bytes + 4 * (unsigned __int128)j->m + ((unsigned __int128)64 << 20) <= j->budget,
        all = 0;
    MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    j->partitioned = all;
}

/* A record's place among the splitters: the number of splitters below (order, position). */
static int dest_of(const job *j, uint64_t order, uint64_t pos)
{
    int lo = 0, hi = j->size - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        const uint64_t *sp = j->splitters + 3 * mid;
        if (sp[0] < order || (sp[0] == order && sp[2] < pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t dsort_partition_sample(job *j, uint64_t s, uint64_t *out)
{
    /* random positions (the same on every run): a regular stride could meet a period of the data */
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(j->rank + 1);
    for (uint64_t i = 0; i < s; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const uint64_t at = x % j->m;
        out[3 * i] = clsort_key_order(&j->spec, j->data + at * j->rs);
        out[3 * i + 1] = 0; /* (order, position) alone: no rank part */
        out[3 * i + 2] = j->lo + at;
    }
    return s;
}

/* One thread's stretch of the slice: its records counted by destination, then moved there. */
typedef struct part_share {
    job *j;
    uint64_t from, to;
    uint64_t *count; /* size entries: counts, then (after the prefix) where each goes next */
    uint32_t *dest;  /* each record's destination, found in the first pass */
    unsigned char *dst;
    int pass;
} part_share;

static void *part_run(void *arg)
{
    part_share *s = arg;
    job *j = s->j;
    const size_t rs = j->rs;
    if (s->pass == 0) {
        for (uint64_t i = s->from; i < s->to; i++) {
            const unsigned d =
                (unsigned)dest_of(j, clsort_key_order(&j->spec, j->data + i * rs), j->lo + i);
            s->dest[i] = d;
            s->count[d]++;
        }
        return NULL;
    }
    for (uint64_t i = s->from; i < s->to; i++)
        memcpy(s->dst + (s->count[s->dest[i]]++) * rs, j->data + i * rs, rs);
    return NULL;
}

static void run_shares(part_share *sh, unsigned n)
{
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (unsigned t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, part_run, &sh[t]) == 0;
    part_run(&sh[0]);
    for (unsigned t = 1; t < n; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            part_run(&sh[t]);
    }
}

void dsort_partition(job *j, uint64_t *sdisp)
{
    const int p = j->size;
    uint64_t n = j->m / ((uint64_t)1 << 20) + 1; /* threads: a MiB of records each at least */
    n = n > j->threads ? j->threads : n;
    n = n > MAX_THREADS ? MAX_THREADS : n < 1 ? 1 : n;
    part_share sh[MAX_THREADS];
    uint64_t *counts = calloc((size_t)n * (size_t)p, sizeof *counts);
    uint32_t *dest = malloc(j->m ? j->m * sizeof *dest : 1);
    /* the copy is made as the slice was (a memory file where the ranks map slices) */
    const int old_fd = j->slice_fd;
    const uint64_t old_bytes = j->slice_bytes;
    unsigned char *dst = NULL;
    j->slice_fd = -1;
    if (counts && dest && !(dst = j->m ? shm_slice(j, j->m * j->rs) : NULL))
        dst = malloc(j->m ? j->m * j->rs : 1);
    if (!dst) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate %llu bytes to partition this rank's %llu "
                   "records", (unsigned long long)(j->m * j->rs), (unsigned long long)j->m);
        free(counts);
        free(dest);
        j->slice_fd = old_fd;
        j->slice_bytes = old_bytes;
        return;
    }
    for (uint64_t t = 0; t < n; t++)
        sh[t] = (part_share){j, j->m * t / n, j->m * (t + 1) / n, counts + t * (uint64_t)p, dest, dst, 0};
    run_shares(sh, (unsigned)n);
    /* destination by destination, each thread's records after the earlier threads': input order */
    uint64_t at = 0;
    for (int d = 0; d < p; d++) {
        sdisp[d] = at;
        for (uint64_t t = 0; t < n; t++) {
            const uint64_t c = sh[t].count[d];
            sh[t].count[d] = at;
            at += c;
        }
        j->send_n[d] = at - sdisp[d];
    }
    for (uint64_t t = 0; t < n; t++)
        sh[t].pass = 1;
    run_shares(sh, (unsigned)n);
    free(counts);
    free(dest);
    const int new_fd = j->slice_fd;
    const uint64_t new_bytes = j->slice_bytes;
    j->slice_fd = old_fd;
    j->slice_bytes = old_bytes;
    shm_release_slice(j); /* the unpartitioned slice */
    j->data = dst;
    j->slice_fd = new_fd;
    j->slice_bytes = new_bytes;
}
