/*
 * clsort-mpi's merge (see dsort.h): the pieces a rank received, one sorted piece per sending rank,
 * merged by (key order, sending rank): by default a stable sort of them on the device
 * (device_merge), with --merge host on several threads, as follows. Pieces from lower ranks hold earlier
 * input positions, so that order is the one of (key order, input position) the splitters use.
 * The output is cut into equal parts by co-ranking: for each part's first output record, the
 * number of records each piece contributes before it, found by binary search in that same order.
 * Each thread then merges its part alone, with a heap over the pieces, into its place in the
 * output: the result does not depend on the number of threads.
 */
#include "dsort.h"
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct merge_run {
    const job *j;
    const uint64_t *ord;   /* every received record's clsort_key_order() */
    const uint64_t *first; /* per piece: its first record in j->recv */
    unsigned parts;
} merge_run;

/* One thread's share: orders of records [a, b) of the received ones, then output part t. */
typedef struct merge_part {
    merge_run *m;
    unsigned t;
    uint64_t *lo, *hi;     /* per piece: records [lo, hi) (offsets within the piece) */
    int failed;            /* out of memory for its cursor */
    uint64_t *ord_out;     /* the orders' destination (the first phase) */
    pthread_t thread;
} merge_part;

/* Records of piece r with order < v (upper 0) or <= v (upper 1). */
static uint64_t count_up_to(const merge_run *m, int r, uint64_t v, int upper)
{
    const uint64_t *o = m->ord + m->first[r];
    uint64_t lo = 0, hi = m->j->recv_n[r];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (upper ? o[mid] <= v : o[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first k records of the merge: how many come from each piece (cut[r]). The smallest order v
 * that k records reach, every record below v, then the records equal to v piece by piece (lower
 * ranks first, as the heap takes them) until there are k. */
static void co_rank(const merge_run *m, uint64_t k, uint64_t *cut)
{
    const int p = m->j->size;
    uint64_t lo_v = 0, hi_v = 0;
    for (int r = 0; r < p; r++) {
        const uint64_t n = m->j->recv_n[r];
        if (n && m->ord[m->first[r] + n - 1] > hi_v)
            hi_v = m->ord[m->first[r] + n - 1];
    }
    while (lo_v < hi_v) {
        const uint64_t mid = lo_v + (hi_v - lo_v) / 2;
        uint64_t below = 0;
        for (int r = 0; r < p; r++)
            below += count_up_to(m, r, mid, 1);
        if (below >= k)
            hi_v = mid;
        else
            lo_v = mid + 1;
    }
    uint64_t room = k;
    for (int r = 0; r < p; r++) {
        cut[r] = count_up_to(m, r, lo_v, 0);
        room -= cut[r];
    }
    for (int r = 0; r < p && room; r++) {
        const uint64_t equal = count_up_to(m, r, lo_v, 1) - cut[r];
        const uint64_t take = equal < room ? equal : room;
        cut[r] += take;
        room -= take;
    }
}

/* A thread's merge state, on its own (malloc'd) lines: the pieces' next positions and orders and
 * the heap are written once per record, and shared cache lines between threads cost the merge
 * more than the merge itself (H100 machine, 4 ranks x 4 threads, 2^28 records a rank: 20 s). */
typedef struct cursor {
    uint64_t *at, *end, *head; /* per piece: next record, end, the next record's order */
    int *heap;
} cursor;

/* Piece a's next record before piece b's: by order, then by rank. */
static int before(const cursor *c, int a, int b)
{
    return c->head[a] < c->head[b] || (c->head[a] == c->head[b] && a < b);
}

static void sift_down(const cursor *c, int n, int i)
{
    int *h = c->heap;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, best = i;
        if (l < n && before(c, h[l], h[best]))
            best = l;
        if (r < n && before(c, h[r], h[best]))
            best = r;
        if (best == i)
            return;
        int t = h[i];
        h[i] = h[best];
        h[best] = t;
        i = best;
    }
}

/* The record copy, of a size the compiler knows for the common record sizes. */
#define TAKE_LOOP(bytes)                                                                           \
    while (n > 0) {                                                                                \
        const int s = c.heap[0];                                                                   \
        memcpy(out, j->recv + (first[s] + c.at[s]) * (bytes), (bytes));                           \
        out += (bytes);                                                                            \
        if (++c.at[s] == c.end[s])                                                                 \
            c.heap[0] = c.heap[--n];                                                               \
        else                                                                                       \
            c.head[s] = ord[first[s] + c.at[s]];                                                   \
        sift_down(&c, n, 0);                                                                       \
    }

/* Records [lo, hi) of every piece merged into out. Returns 0, or -1 out of memory. */
static int heap_merge(merge_part *w, unsigned char *out)
{
    const job *j = w->m->j;
    const uint64_t *ord = w->m->ord, *first = w->m->first;
    const int p = j->size;
    cursor c = { malloc(3 * (size_t)p * sizeof *c.at), NULL, NULL, malloc((size_t)p * sizeof *c.heap) };
    if (!c.at || !c.heap) {
        free(c.at);
        free(c.heap);
        return -1;
    }
    c.end = c.at + p;
    c.head = c.end + p;
    int n = 0;
    for (int r = 0; r < p; r++) {
        c.at[r] = w->lo[r];
        c.end[r] = w->hi[r];
        if (c.at[r] < c.end[r]) {
            c.head[r] = ord[first[r] + c.at[r]];
            c.heap[n++] = r;
        }
    }
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(&c, n, i);
    switch (j->rs) {
    case 4: TAKE_LOOP(4); break;
    case 8: TAKE_LOOP(8); break;
    case 12: TAKE_LOOP(12); break;
    case 16: TAKE_LOOP(16); break;
    default: TAKE_LOOP(j->rs);
    }
    free(c.at);
    free(c.heap);
    return 0;
}
#undef TAKE_LOOP

/* The first phase: the orders of this thread's share of the received records. */
static void *orders_main(void *arg)
{
    merge_part *w = arg;
    const job *j = w->m->j;
    const uint64_t a = j->recv_total * w->t / w->m->parts;
    const uint64_t b = j->recv_total * (w->t + 1) / w->m->parts;
    clsort_key_orders(&j->spec, j->recv + a * j->rs, j->rs, b - a, w->ord_out + a);
    return NULL;
}

/* The second phase: output records [a, b), cut from the pieces, then merged. */
static void *part_main(void *arg)
{
    merge_part *w = arg;
    const job *j = w->m->j;
    const uint64_t a = j->recv_total * w->t / w->m->parts;
    const uint64_t b = j->recv_total * (w->t + 1) / w->m->parts;
    co_rank(w->m, a, w->lo);
    co_rank(w->m, b, w->hi);
    w->failed = heap_merge(w, j->out + a * j->rs) != 0;
    return NULL;
}

/* fn on every part, the calling thread taking part 0; a thread that cannot start has its part run
 * here instead (slower, still right). */
static void run_parts(merge_part *parts, unsigned n, void *(*fn)(void *))
{
    int *started = calloc(n, sizeof *started);
    for (unsigned t = 1; t < n; t++)
        if (!started || pthread_create(&parts[t].thread, NULL, fn, &parts[t]) != 0)
            fn(&parts[t]);
        else
            started[t] = 1;
    fn(&parts[0]);
    for (unsigned t = 1; t < n; t++)
        if (started && started[t])
            pthread_join(parts[t].thread, NULL);
    free(started);
}

/* The pieces, in rank order, sorted stably in place: equal keys keep (sending rank, index in its
 * piece) order, which is their merge. The device does it many times faster than the host's threads
 * (2^27 u32 keys on 2 ranks of a 2-core PoCL device: 0.52 s against 2.28 s). */
static void device_merge(job *j)
{
    j->merge_threads = MERGED_ON_DEVICE;
    clsort_stats stats = {0};
    clsort_status st = clsort_sort_records(j->ctx, &j->spec, j->recv, j->recv_total, j->rs, 0, 0,
                                           NULL, &stats);
    dsort_device_times(j, 1, &stats);
    if (st != CLSORT_OK) {
        dsort_fail(j, dsort_status_exit(st), "merge of %llu records on %s: %s (%d) %s",
                   (unsigned long long)j->recv_total, j->device, clsort_status_string(st), st,
                   clsort_error_detail(j->ctx));
        return;
    }
    j->out = j->recv;
    j->out_n = j->recv_total;
}

void dsort_merge(job *j)
{
    const int p = j->size;
    int pieces = 0;
    for (int r = 0; r < p; r++)
        pieces += j->recv_n[r] > 0;
    if (dsort_injected(j, PH_MERGE))
        return;
    j->merge_threads = 1;
    if (j->ext_recv) { /* the merge streams into the output (ext_merge_into) */
        j->merge_threads = j->threads;
        j->out_n = j->recv_total;
        return;
    }
    if (pieces <= 1) { /* one sorted piece is already the merge */
        j->merge_threads = 0;
        j->out = j->recv;
        j->out_n = j->recv_total;
        return;
    }
    if (!j->a->merge_host) {
        device_merge(j);
        return;
    }
    /* a thread per record at most: any count gives the same bytes */
    const unsigned parts = j->threads < j->recv_total ? j->threads : (unsigned)j->recv_total;
    uint64_t *ord = malloc(j->recv_total * sizeof *ord);
    uint64_t *first = malloc((size_t)p * sizeof *first);
    uint64_t *cuts = malloc(2 * (size_t)p * parts * sizeof *cuts);
    merge_part *w = calloc(parts, sizeof *w);
    j->out = malloc(j->recv_total * j->rs);
    if (!ord || !first || !cuts || !w || !j->out) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the merge's %llu bytes for %llu records",
                   (unsigned long long)(j->recv_total * (j->rs + 8)),
                   (unsigned long long)j->recv_total);
        goto done;
    }
    uint64_t at = 0;
    for (int r = 0; r < p; r++) {
        first[r] = at;
        at += j->recv_n[r];
    }
    merge_run m = {j, ord, first, parts};
    for (unsigned t = 0; t < parts; t++)
        w[t] = (merge_part){.m = &m, .t = t, .lo = cuts + 2 * (size_t)p * t,
                            .hi = cuts + 2 * (size_t)p * t + p, .ord_out = ord};
    run_parts(w, parts, orders_main);
    run_parts(w, parts, part_main); /* the cuts read every part's orders: after the first */
    for (unsigned t = 0; t < parts; t++)
        if (w[t].failed) {
            dsort_fail(j, EXIT_DEVICE, "cannot allocate a merge thread's state for %d pieces", p);
            goto done;
        }
    j->merge_threads = parts;
    j->out_n = j->recv_total;
    free(j->recv);
    j->recv = NULL;
done:
    free(ord);
    free(first);
    free(cuts);
    free(w);
}
