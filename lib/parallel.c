/*
 * A loop over [0, n) cut into slices, one per thread of the host (at most 16, at least min_slice
 * items each): the calling thread runs the first slice, and a thread that cannot start leaves its
 * slice to the caller. For the host's passes over whole arrays (fields.c) and the copies through
 * staging memory (transfer.c).
 * Calls: runmerge.c (the thread count).
 */
#include "internal.h"
#include "runmerge.h"

#include <pthread.h>

typedef struct slice {
    void (*fn)(void *arg, size_t begin, size_t end);
    void *arg;
    size_t begin, end;
} slice;

static void *run_slice(void *p)
{
    const slice *s = p;
    s->fn(s->arg, s->begin, s->end);
    return NULL;
}

void clsort_parallel(size_t n, size_t min_slice, void (*fn)(void *arg, size_t begin, size_t end),
                     void *arg)
{
    enum { MAX_THREADS = 16 };
    unsigned t = clsort_merge_threads_default();
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    if (min_slice && (size_t)t > n / min_slice + 1)
        t = (unsigned)(n / min_slice + 1);
    pthread_t th[MAX_THREADS];
    slice sl[MAX_THREADS];
    int started[MAX_THREADS] = { 0 };
    for (unsigned i = 0; i < t; i++) {
        sl[i] = (slice){ fn, arg, n * i / t, n * (i + 1) / t };
        if (i)
            started[i] = pthread_create(&th[i], NULL, run_slice, &sl[i]) == 0;
    }
    run_slice(&sl[0]);
    for (unsigned i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            run_slice(&sl[i]);
    }
}
