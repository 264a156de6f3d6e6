/*
 * The host's threads: how many to use (one per online processor, at most 16), and a loop over
 * [0, n) cut into slices, one per thread (at least min_slice items each): the calling thread runs
 * the first slice, and a thread that cannot start leaves its slice to the caller; the loop may be
 * given its number of threads (the caller's bound, as `clsort text --parallel N`). For the host's
 * passes over whole arrays (fields.c), the copies through staging memory (transfer.c), the
 * merge's default (runmerge.c) and the text lines' steps (lines.c).
 * Calls nothing of the library's.
 */
#include "internal.h"

#include <pthread.h>
#include <unistd.h>

unsigned clsort_threads_default(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > 16 ? 16 : (unsigned)cpus;
}

typedef struct slice {
    void (*fn)(void *arg, size_t begin, size_t end);
    void *arg;
    size_t begin, end;
} slice;

static void *parallel_slice(void *p)
{
    const slice *s = p;
    s->fn(s->arg, s->begin, s->end);
    return NULL;
}

void clsort_parallel_threads(unsigned threads, size_t n, size_t min_slice,
                             void (*fn)(void *arg, size_t begin, size_t end), void *arg)
{
    enum { MAX_THREADS = 16 };
    unsigned t = threads ? threads : clsort_threads_default();
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
            started[i] = pthread_create(&th[i], NULL, parallel_slice, &sl[i]) == 0;
    }
    parallel_slice(&sl[0]);
    for (unsigned i = 1; i < t; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            parallel_slice(&sl[i]);
    }
}

void clsort_parallel(size_t n, size_t min_slice, void (*fn)(void *arg, size_t begin, size_t end),
                     void *arg)
{
    clsort_parallel_threads(0, n, min_slice, fn, arg);
}
