/*
 * Segments sorted by the host radix sort, each on its own: given by offsets (variable) or by a
 * length (fixed, the last one shorter). A segment of up to CLSORT_HOST_LOCAL_MAX_BYTES of records
 * is sorted by one thread in cache (clsort_host_sort_local, as a bucket of a whole-array sort
 * is); the threads take such segments in groups as they come, so that many small segments and a
 * few larger ones spread over every core. A longer segment is a whole sort of its own on every
 * thread (clsort_host_sort_run), one after another. Nothing is launched per segment.
 * Calls: host_sort.c, host_local.c.
 */
#include "host_sort.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Segments a thread takes at once: the shared counter is touched once per group. */
#define GROUP 64
#define MAX_THREADS 64

typedef struct seg_plan {
    const clsort_host_sort *s;
    const uint64_t *off; /* n_seg + 1 offsets, or NULL: segments of seg_len */
    size_t n_seg, seg_len, local_max;
    atomic_size_t next;
} seg_plan;

static void bounds(const seg_plan *p, size_t i, size_t *lo, size_t *hi)
{
    if (p->off) {
        *lo = (size_t)p->off[i];
        *hi = (size_t)p->off[i + 1];
    } else {
        *lo = i * p->seg_len;
        *hi = p->s->n - *lo < p->seg_len ? p->s->n : *lo + p->seg_len;
    }
}

/* A thread: groups of segments, each short one sorted in place through a buffer of the longest. */
static void *take_short(void *arg)
{
    seg_plan *p = arg;
    const clsort_host_sort *s = p->s;
    const unsigned all = (1u << s->passes) - 1;
    clsort_host_buffer buf = { .records = p->local_max };
    const size_t kb = (p->local_max * s->ks + CLSORT_HOST_LINE - 1) / CLSORT_HOST_LINE *
                      CLSORT_HOST_LINE;
    void *mem = malloc(kb + p->local_max * s->vs + 1);
    buf.records = mem ? p->local_max : 0;
    buf.span.keys = mem;
    buf.span.values = mem && s->vs ? (char *)mem + kb : NULL;
    for (;;) {
        const size_t g = atomic_fetch_add(&p->next, GROUP);
        if (g >= p->n_seg)
            break;
        for (size_t i = g; i < g + GROUP && i < p->n_seg; i++) {
            size_t lo, hi;
            bounds(p, i, &lo, &hi);
            if (hi - lo >= 2 && hi - lo <= p->local_max)
                clsort_host_sort_local(s, &s->data, &s->tmp, 0, lo, hi, all, &buf);
        }
    }
    free(mem);
    return NULL;
}

/* The records of [lo, hi) as a sort of their own. */
static void sort_long(const clsort_host_sort *s, size_t lo, size_t hi)
{
    clsort_host_sort one = *s;
    one.n = hi - lo;
    one.data.keys = (char *)s->data.keys + lo * s->ks;
    one.tmp.keys = (char *)s->tmp.keys + lo * s->ks;
    one.data.values = s->vs ? (char *)s->data.values + lo * s->vs : NULL;
    one.tmp.values = s->vs ? (char *)s->tmp.values + lo * s->vs : NULL;
    clsort_host_sort_run(&one);
}

void clsort_host_sort_segments(const clsort_host_sort *s, const uint64_t *off, size_t n_seg,
                               size_t seg_len)
{
    seg_plan p = { .s = s, .off = off, .n_seg = n_seg, .seg_len = seg_len };
    if (!off)
        p.n_seg = seg_len ? (s->n + seg_len - 1) / seg_len : 0;
    p.local_max = CLSORT_HOST_LOCAL_MAX_BYTES / (s->ks + s->vs);
    atomic_init(&p.next, 0);
    size_t short_records = 0;
    for (size_t i = 0; i < p.n_seg; i++) {
        size_t lo, hi;
        bounds(&p, i, &lo, &hi);
        if (hi - lo > p.local_max)
            sort_long(s, lo, hi);
        else
            short_records += hi - lo;
    }
    /* the short segments: on the calling thread alone while they fit its cache together */
    unsigned want = s->threads < MAX_THREADS ? s->threads : MAX_THREADS;
    if (short_records <= p.local_max)
        want = 1;
    pthread_t th[MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 1; t < want; t++) {
        if (pthread_create(&th[started], NULL, take_short, &p))
            break;
        started++;
    }
    take_short(&p);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}
