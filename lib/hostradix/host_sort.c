/*
 * The host radix sort on the host's threads. Small inputs: every digit pass in the calling thread,
 * in cache (clsort_host_sort_local). Larger ones: the threads count the top digit place of the
 * input's chunks (and the next place down while a place has one digit for all records: such places
 * are skipped); the highest place whose digit varies splits the records into up to 256 buckets
 * (each chunk scattered, stably, after the chunks before it, into the scratch); where that place
 * takes few values (normal floats), by the 16 bits of it and the place below, runs of their values
 * made up to 256 buckets (wide_split);
 * then the threads take the buckets, largest first, and sort each by the lower places from the
 * scratch back to the data. A bucket holds 1/256 of the input (2^24 u32 keys: 256 KiB), so its
 * passes run in the core's cache where a pass over the whole array runs from memory: 2^24 u32 keys
 * on a 2-core EPYC, ~41 ms against ~85 ms for four whole-array passes on both threads. Past
 * STREAM_MIN_BYTES the split writes whole lines around the cache and so do the buckets' results
 * (through a buffer per thread): 2^24 u32 keys, CPU time of the whole sort on 2 threads, 103 ms
 * before, 70 ms with the streaming and the 12-bit digits of host_local.c (/tmp harness on
 * clsort_host_sort_run, medians of 7).
 * Calls: host_local.c, host_radix.c.
 */
#include "host_sort.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The split's counts and scatter go by chunks that the threads take as they come, so that a thread
 * the system lets wait (the cores are shared) holds the others up by one chunk at most. */
#define CHUNKS_PER_THREAD 8
#define CHUNK_MIN ((size_t)1 << 15)
/* A bucket buffer is kept for buckets of up to this: past it a bucket's passes leave the L2 cache
 * anyway and the copy back costs little beside them, so it is not worth the memory. */
#define BUFFER_MAX_BYTES ((size_t)8 << 20)
/* The split streams whole lines to the scratch (around the cache) for inputs past this; smaller
 * ones (with the scratch, up to 32 MiB) stay in a 32 MiB L3 for the buckets' passes. CPU time of
 * the whole sort, 2 threads, u32 keys, medians (/tmp harness on clsort_host_sort_run): 2^20
 * streamed 5.4 ms, plain 4.8; 2^22 21.8, 21.0; 2^23 37.8, 43.5. */
#define STREAM_MIN_BYTES ((size_t)16 << 20)
/* Buckets of more than this are split again by the place below before their passes
 * (sort_bucket()): 2^24 normal f32 keys in numpy's order (the top place takes about 8 values),
 * CPU time of the whole sort on 2 threads (a harness around the public sort of host arrays,
 * medians of 9): 160 ms
 * without, 133-135 ms past 1 or 2 MiB, 138 ms past 4 MiB; u32 keys unchanged (67 ms). */
#define RESPLIT_BYTES ((size_t)1 << 20)
/* The wide split (wide_split) where the top place takes up to this many values: each takes a
 * bucket of its own at least, and the rest of the 256 are shared out by size. */
#define WIDE_MAX_PRESENT 128
/* ... and of more than 4 times the mean of 256 buckets, where that is more: 2^26 u32 keys leave
 * buckets of 1 MiB that the split again would only slow down. */
static size_t resplit_bytes(const clsort_host_sort *s)
{
    const size_t quarter = s->n * (s->ks + s->vs) / 64;
    return quarter > RESPLIT_BYTES ? quarter : RESPLIT_BYTES;
}

typedef struct plan {
    const clsort_host_sort *s;
    unsigned threads;
    pthread_mutex_t lock; /* the start: threads wait until it is known how many started */
    pthread_cond_t cond;
    int go;
    pthread_barrier_t barrier;
    size_t chunks, chunk; /* chunks of the input, records per chunk (the last may be shorter) */
    size_t (*hist)[256]; /* each chunk's counts of the top place, then where its records go */
    atomic_size_t next_chunk;
    unsigned top;        /* the place that splits (s->passes: none varies) */
    unsigned below;      /* places not found constant, bit per place */
    unsigned low;        /* the places below the top one the buckets are sorted by */
    int planned;         /* top is the place that splits (or s->passes) */
    int stream;          /* the split and the buckets' results go around the cache */
    unsigned skipped;    /* places where every record has the same digit */
    size_t start[257];   /* where each bucket starts */
    unsigned order[256]; /* the buckets, largest first */
    unsigned buckets;
    atomic_uint next;    /* the next entry of order to take */
    atomic_size_t odd;   /* keys counted that numpy's float order sets apart (NaNs, -0.0) */
    int writer;          /* the calling thread hands sorted buckets to s->ready, in order */
    unsigned char done[256]; /* ... the buckets sorted (under lock) */
    clsort_host_sort sort; /* the sort as the threads run it (its loops may change: plan_place) */
    const clsort_host_span *in; /* what the counts and the split read: s->src or s->data */
    /* The split by the wide digit of the top place and the one below (plan_wide) */
    int wide;
    int wide_first;      /* the first count is of the wide digit (sample_top) */
    unsigned wsh, wdm;   /* its shift and mask */
    uint32_t *whist;     /* each chunk's counts of it, wdm + 1 a chunk */
    size_t total[256];   /* the top place's counts */
    uint8_t map[1 << 16]; /* the bucket of each of its values */
} plan;

typedef struct worker {
    plan *p;
    unsigned t;
} worker;

/* The split's `buckets` buckets: their starts, and their order, largest first. */
static void make_buckets(plan *p, const size_t *total, unsigned buckets)
{
    p->low = ((1u << p->top) - 1) & p->below;
    p->buckets = buckets;
    size_t run = 0;
    for (unsigned d = 0; d < p->buckets; d++) {
        p->start[d] = run;
        run += total[d];
        if (p->writer) { /* in order, for the writer */
            p->order[d] = d;
            continue;
        }
        /* insertion by size: the last buckets taken are small ones */
        unsigned i = d;
        for (; i > 0 && total[p->order[i - 1]] < total[d]; i--)
            p->order[i] = p->order[i - 1];
        p->order[i] = d;
    }
    p->start[p->buckets] = run;
}

/* Each chunk's counts become where its records of each digit go: after the chunks before it. */
static void chunk_offsets(plan *p)
{
    for (unsigned d = 0; d < p->buckets; d++) {
        size_t run = p->start[d];
        for (size_t c = 0; c < p->chunks; c++) {
            const size_t k = p->hist[c][d];
            p->hist[c][d] = run;
            run += k;
        }
    }
}

static void plan_wide(plan *p);

/* Where the top place leaves a bucket past resplit_bytes() (its digit takes few values: normal
 * floats, whose top byte is the sign and the exponent's high bits, small integers of a wide type),
 * the split goes by the 16 bits of the top place and the one below instead: the threads count
 * them, and runs of their values (within one value of the top place) are made buckets of about
 * 1/256 of the input (plan_wide). One pass over the input then leaves buckets that fit in cache,
 * where the split by the top place needs a second one for its large buckets (sort_bucket). Takes
 * the top place's counts; returns whether the split goes so. */
static int wide_split(plan *p, const size_t *total)
{
    const clsort_host_sort *s = p->s;
    size_t most = 0;
    unsigned present = 0;
    for (unsigned d = 0; d <= s->dmask[p->top]; d++) {
        most = total[d] > most ? total[d] : most;
        present += total[d] > 0;
    }
    if (p->top == 0 || most * (s->ks + s->vs) <= resplit_bytes(s) || present > WIDE_MAX_PRESENT ||
        p->chunk > UINT32_MAX)
        return 0;
    if (p->wide_first) { /* counted already */
        memcpy(p->total, total, sizeof p->total);
        p->wide = 1;
        plan_wide(p);
        return 1;
    }
    p->wsh = s->shift[p->top - 1];
    p->wdm = (s->dmask[p->top] + 1) * 256 - 1;
    p->whist = malloc(p->chunks * (p->wdm + 1) * sizeof *p->whist);
    if (!p->whist)
        return 0;
    memcpy(p->total, total, sizeof p->total);
    p->wide = 1;
    return 1;
}

/* After the threads counted the wide digit: its values, in order, to buckets of at least
 * n / (256 - present) records each, a bucket never spanning two values of the top place (so that
 * the places below it are all a bucket is sorted by); at most 256 buckets, as each holds that
 * much but the last of each top value. Then each chunk's counts of the buckets, as the split by
 * the top place has them. */
static void plan_wide(plan *p)
{
    const clsort_host_sort *s = p->s;
    const size_t nw = (size_t)p->wdm + 1;
    unsigned present = 0;
    for (unsigned t = 0; t <= s->dmask[p->top]; t++)
        present += p->total[t] > 0;
    const size_t least = (s->n + (256 - present) - 1) / (256 - present);
    unsigned b = 0;
    for (unsigned t = 0; t <= s->dmask[p->top]; t++) {
        if (!p->total[t])
            continue;
        size_t run = 0;
        int open = 0;
        for (unsigned v = t * 256; v < t * 256 + 256; v++) {
            for (size_t c = 0; c < p->chunks; c++)
                run += p->whist[c * nw + v];
            p->map[v] = (uint8_t)b;
            open = 1;
            if (run >= least) {
                b++;
                run = 0;
                open = 0;
            }
        }
        b += open;
    }
    size_t total[256] = { 0 };
    for (size_t c = 0; c < p->chunks; c++) {
        memset(p->hist[c], 0, sizeof p->hist[c]);
        for (unsigned t = 0; t <= s->dmask[p->top]; t++)
            if (p->total[t])
                for (unsigned v = t * 256; v < t * 256 + 256; v++)
                    p->hist[c][p->map[v]] += p->whist[c * nw + v];
        for (unsigned d = 0; d < b; d++)
            total[d] += p->hist[c][d];
    }
    free(p->whist);
    p->whist = NULL;
    atomic_store(&p->next_chunk, 0);
    make_buckets(p, total, b);
    chunk_offsets(p);
}

/* After the threads counted place p->top: the totals, and whether the place varies (else the
 * next place down is counted, until one varies or none is left). */
static int plan_place(plan *p)
{
    const clsort_host_sort *s = p->s;
    if (p->wide_first) /* the top place's counts from the wide digit's */
        for (size_t c = 0; c < p->chunks; c++) {
            const uint32_t *w = p->whist + c * ((size_t)p->wdm + 1);
            for (unsigned d = 0; d <= s->dmask[p->top]; d++) {
                size_t k = 0;
                for (unsigned v = 0; v < 256; v++)
                    k += w[d * 256 + v];
                p->hist[c][d] = k;
            }
        }
    /* numpy's float order with no NaN and no -0.0: total order's loops, which cost less (2^24
     * normal f32 keys, 2 threads: 116-119 ms CPU time against 133-137) */
    if (s->recipe.is_float && s->recipe.inf && !atomic_load(&p->odd))
        p->sort.ops = clsort_host_ops_total(s);
    size_t total[256] = { 0 };
    int constant = 0;
    for (unsigned d = 0; d <= s->dmask[p->top]; d++) {
        for (size_t c = 0; c < p->chunks; c++)
            total[d] += p->hist[c][d];
        constant |= total[d] == s->n;
    }
    atomic_store(&p->next_chunk, 0);
    const int planned = !constant && wide_split(p, total);
    if (!p->wide && p->wide_first) { /* the wide digit not used: counted by places from here */
        free(p->whist);
        p->whist = NULL;
        p->wide_first = 0;
    }
    if (planned)
        return 1;
    if (!constant) {
        make_buckets(p, total, s->dmask[p->top] + 1);
        chunk_offsets(p);
        return 1;
    }
    p->skipped++;
    p->below &= ~(1u << p->top);
    if (p->top == 0) {
        p->top = s->passes; /* every place is constant: nothing to do */
        return 1;
    }
    p->top--;
    return 0;
}

/* A buffer for the largest bucket, where it is at most BUFFER_MAX_BYTES: a bucket sorted by an
 * even count of passes goes through it rather than being copied back at the end. */
static void *bucket_buffer(const plan *p, clsort_host_buffer *buf)
{
    const clsort_host_sort *s = p->s;
    const unsigned b = p->order[0];
    const size_t most = p->start[b + 1] - p->start[b], rs = s->ks + s->vs;
    /* past BUFFER_MAX_BYTES the buckets are split again (sort_bucket), into parts of at most
     * resplit_bytes() where a place below varies */
    const size_t part = resplit_bytes(s) < BUFFER_MAX_BYTES ? resplit_bytes(s) : BUFFER_MAX_BYTES;
    buf->records = most <= BUFFER_MAX_BYTES / rs ? most : part / rs;
    /* the values after the keys, on a line of their own (8-byte values stay aligned) */
    const size_t line = CLSORT_HOST_LINE;
    const size_t kb = (buf->records * s->ks + line - 1) / line * line;
    void *mem = buf->records ? malloc(kb + buf->records * s->vs) : NULL;
    buf->records = mem ? buf->records : 0;
    buf->span.keys = mem;
    buf->span.values = mem ? (char *)mem + kb : NULL;
    buf->stream = p->stream;
    return mem;
}

/* The sort of records [lo, hi) of src by `places`, the result in alt where to_alt, else in src.
 * A range past resplit_bytes() is split again by its highest place that varies (src to alt, as the
 * split does) and each part sorted in turn, so that the parts' passes run in cache: keys whose top
 * place takes few values (floats of a narrow range, small integers of a wide type) leave buckets
 * of many MiB after the split. lines: the thread's buffer for the scatter by whole lines, NULL
 * for plain stores. */
static void sort_bucket(const clsort_host_sort *s, const clsort_host_span *src,
                        const clsort_host_span *alt, int to_alt, size_t lo, size_t hi,
                        unsigned places, const clsort_host_buffer *buf, clsort_host_lines *lines)
{
    while (places && (hi - lo) * (s->ks + s->vs) > resplit_bytes(s)) {
        unsigned top = s->passes - 1;
        while (!(places >> top & 1))
            top--;
        size_t c[CLSORT_HOST_MAX_PASSES][256], run = lo;
        s->ops->hist(s, src->keys, lo, hi, 1u << top, c, NULL);
        int constant = 0;
        for (unsigned d = 0; d <= s->dmask[top]; d++) {
            const size_t k = c[top][d];
            constant |= k == hi - lo;
            c[top][d] = run;
            run += k;
        }
        places &= ~(1u << top);
        if (constant)
            continue;
        size_t start[257];
        memcpy(start, c[top], sizeof start[0] * (s->dmask[top] + 1));
        start[s->dmask[top] + 1] = hi;
        if (lines)
            s->ops->split(s, src, alt, lo, hi, top, c[top], lines);
        else
            s->ops->scatter(s, src, alt, lo, hi, top, c[top]);
        for (unsigned d = 0; d <= s->dmask[top]; d++)
            if (start[d] < start[d + 1])
                sort_bucket(s, alt, src, !to_alt, start[d], start[d + 1], places, buf, lines);
        return;
    }
    clsort_host_sort_local(s, src, alt, to_alt, lo, hi, places, buf);
}

static void take_buckets(plan *p)
{
    const clsort_host_sort *s = p->s;
    clsort_host_buffer buf;
    void *mem = bucket_buffer(p, &buf);
    clsort_host_lines *lines = NULL;
    for (;;) {
        const unsigned i = atomic_fetch_add(&p->next, 1);
        if (i >= p->buckets)
            break;
        const unsigned b = p->order[i];
        const size_t lo = p->start[b], hi = p->start[b + 1];
        if (p->stream && !lines && (hi - lo) * (s->ks + s->vs) > resplit_bytes(s))
            lines = aligned_alloc(CLSORT_HOST_LINE, sizeof *lines);
        if (lo < hi)
            sort_bucket(s, &s->tmp, &s->data, 1, lo, hi, p->low, &buf, lines);
        if (p->writer) {
            pthread_mutex_lock(&p->lock);
            p->done[b] = 1;
            pthread_cond_broadcast(&p->cond);
            pthread_mutex_unlock(&p->lock);
        }
    }
    free(lines);
    free(mem);
}

/* The writer: each run of buckets sorted from the start on, to s->ready. */
static void write_buckets(plan *p)
{
    for (unsigned b = 0; b < p->buckets;) {
        pthread_mutex_lock(&p->lock);
        while (!p->done[b])
            pthread_cond_wait(&p->cond, &p->lock);
        unsigned e = b;
        while (e < p->buckets && p->done[e])
            e++;
        pthread_mutex_unlock(&p->lock);
        p->s->ready(p->s->ready_user, p->start[e]);
        b = e;
    }
}

static void *work(void *arg)
{
    const worker *w = arg;
    plan *p = w->p;
    pthread_mutex_lock(&p->lock);
    while (!p->go)
        pthread_cond_wait(&p->cond, &p->lock);
    pthread_mutex_unlock(&p->lock);
    if (w->t >= p->threads)
        return NULL;
    const clsort_host_sort *s = p->s;
    /* the top place that varies: counted from the highest down (rarely more than one) */
    while (!p->planned) {
        for (size_t c; (c = atomic_fetch_add(&p->next_chunk, 1)) < p->chunks;) {
            size_t h[CLSORT_HOST_MAX_PASSES][256];
            const size_t lo = c * p->chunk, hi = lo + p->chunk < s->n ? lo + p->chunk : s->n;
            size_t odd = 0;
            if (p->wide_first) {
                s->ops->wide_hist(s, p->in->keys, lo, hi, p->wsh, p->wdm,
                                  p->whist + c * ((size_t)p->wdm + 1), &odd);
            } else {
                s->ops->hist(s, p->in->keys, lo, hi, 1u << p->top, h, &odd);
                memcpy(p->hist[c], h[p->top], sizeof h[0]);
            }
            if (odd)
                atomic_fetch_add(&p->odd, odd);
        }
        if (pthread_barrier_wait(&p->barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
            p->planned = plan_place(p);
        pthread_barrier_wait(&p->barrier);
    }
    if (p->top == s->passes)
        return NULL;
    if (p->wide && p->whist) { /* the wide digit not counted yet */
        for (size_t c; (c = atomic_fetch_add(&p->next_chunk, 1)) < p->chunks;) {
            const size_t lo = c * p->chunk, hi = lo + p->chunk < s->n ? lo + p->chunk : s->n;
            s->ops->wide_hist(s, p->in->keys, lo, hi, p->wsh, p->wdm,
                              p->whist + c * ((size_t)p->wdm + 1), NULL);
        }
        if (pthread_barrier_wait(&p->barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
            plan_wide(p);
        pthread_barrier_wait(&p->barrier);
    }
    clsort_host_lines *lines =
        p->stream ? aligned_alloc(CLSORT_HOST_LINE, sizeof *lines) : NULL;
    for (size_t c; (c = atomic_fetch_add(&p->next_chunk, 1)) < p->chunks;) {
        const size_t lo = c * p->chunk, hi = lo + p->chunk < s->n ? lo + p->chunk : s->n;
        if (p->wide)
            s->ops->split_map(s, p->in, &s->tmp, lo, hi, p->wsh, p->wdm, p->map, p->hist[c],
                              lines);
        else if (lines)
            s->ops->split(s, p->in, &s->tmp, lo, hi, p->top, p->hist[c], lines);
        else
            s->ops->scatter(s, p->in, &s->tmp, lo, hi, p->top, p->hist[c]);
    }
    free(lines);
    pthread_barrier_wait(&p->barrier);
    if (p->writer && w->t == 0)
        write_buckets(p);
    else
        take_buckets(p);
    return NULL;
}

/* s->src's records into s->data, where they are apart. */
static void take_src(const clsort_host_sort *s)
{
    if (!s->src.keys || s->src.keys == s->data.keys)
        return;
    memcpy(s->data.keys, s->src.keys, s->n * s->ks);
    if (s->vs)
        memcpy(s->data.values, s->src.values, s->n * s->vs);
}

/* Start up to want - 1 helpers; the plan's thread count becomes what started, with the caller. */
static unsigned start_helpers(plan *p, worker *w, pthread_t *th, unsigned want)
{
    unsigned started = 0;
    for (unsigned t = 1; t < want; t++) {
        w[t] = (worker){ p, t };
        if (pthread_create(&th[started], NULL, work, &w[t]))
            break;
        started++;
    }
    return started;
}

/* Whether a sample of the keys (runs of 64 over the input) finds the top place of few values
 * but not one: then the first count is of the wide digit (wide_split), which the plan takes
 * where the counts agree, and the one count of the keys is all the split needs. */
static void sample_top(plan *p)
{
    const clsort_host_sort *s = p->s;
    const size_t runs = 32, len = 64, top = s->passes - 1;
    if (s->passes < 2 || s->n < runs * len * 4 || p->chunk > UINT32_MAX)
        return;
    size_t c[CLSORT_HOST_MAX_PASSES][256], sum[256] = { 0 }, most = 0;
    for (size_t r = 0; r < runs; r++) {
        const size_t lo = s->n / runs * r;
        s->ops->hist(s, p->in->keys, lo, lo + len, 1u << top, c, NULL);
        for (unsigned d = 0; d <= s->dmask[top]; d++)
            sum[d] += c[top][d];
    }
    unsigned present = 0;
    for (unsigned d = 0; d <= s->dmask[top]; d++) {
        most = sum[d] > most ? sum[d] : most;
        present += sum[d] > 0;
    }
    /* a value in 32 or more of the sample: a bucket of four times the mean would be split again */
    if (most == runs * len || most * 32 < runs * len || present > WIDE_MAX_PRESENT)
        return;
    p->wsh = s->shift[top - 1];
    p->wdm = (s->dmask[top] + 1) * 256 - 1;
    p->whist = malloc(p->chunks * (p->wdm + 1) * sizeof *p->whist);
    p->wide_first = p->whist != NULL;
}

static unsigned run_threads(plan *p, unsigned want)
{
    worker *w = malloc(want * sizeof *w);
    pthread_t *th = malloc(want * sizeof *th);
    p->chunk = p->s->n / ((size_t)want * CHUNKS_PER_THREAD) + 1;
    p->chunk = p->chunk > CHUNK_MIN ? p->chunk : CHUNK_MIN;
    p->chunks = (p->s->n + p->chunk - 1) / p->chunk;
    p->hist = malloc(p->chunks * sizeof *p->hist);
    if (!w || !th || !p->hist) {
        free(w);
        free(th);
        free(p->hist);
        take_src(p->s);
        return clsort_host_sort_local(p->s, &p->s->data, &p->s->tmp, 0, 0, p->s->n,
                                      (1u << p->s->passes) - 1, NULL);
    }
    sample_top(p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    const unsigned started = start_helpers(p, w, th, want);
    p->threads = started + 1;
    /* the calling thread writes while the helpers sort the buckets (there must be one) */
    p->writer = p->s->ready && started > 0;
    pthread_barrier_init(&p->barrier, NULL, p->threads);
    pthread_mutex_lock(&p->lock);
    p->go = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    w[0] = (worker){ p, 0 };
    work(&w[0]);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&p->barrier);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(w);
    free(th);
    free(p->hist);
    free(p->whist);
    return p->skipped;
}

static unsigned run_whole(const clsort_host_sort *s);

unsigned clsort_host_sort_run(const clsort_host_sort *s)
{
    const unsigned skipped = run_whole(s);
    if (s->ready)
        s->ready(s->ready_user, s->n);
    return skipped;
}

static unsigned run_whole(const clsort_host_sort *s)
{
    const unsigned all = (1u << s->passes) - 1;
    plan *p = s->n < 2 || s->threads <= 1 || s->n * (s->ks + s->vs) <= CLSORT_HOST_LOCAL_MAX_BYTES
                  ? NULL
                  : calloc(1, sizeof *p);
    if (!p) {
        take_src(s);
        return s->n < 2 ? 0 : clsort_host_sort_local(s, &s->data, &s->tmp, 0, 0, s->n, all, NULL);
    }
    p->sort = *s;
    p->s = &p->sort;
    p->in = s->src.keys ? &p->sort.src : &p->sort.data;
    p->stream = s->n * (s->ks + s->vs) > STREAM_MIN_BYTES;
    p->top = s->passes - 1;
    p->below = (1u << s->passes) - 1;
    atomic_init(&p->next, 0);
    atomic_init(&p->next_chunk, 0);
    atomic_init(&p->odd, 0);
    /* a thread more where the calling thread writes: it sorts no bucket */
    const unsigned skipped = run_threads(p, s->threads + (s->ready != NULL));
    if (p->top == s->passes) /* every place constant: nothing moved the records */
        take_src(s);
    free(p);
    return skipped;
}
