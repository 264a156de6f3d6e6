#include "prefault.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct touch_part {
    volatile unsigned char *p;
    size_t bytes, page;
} touch_part;

static void *touch(void *arg)
{
    const touch_part *t = arg;
    for (size_t at = 0; at < t->bytes; at += t->page)
        t->p[at] = 0;
    return NULL;
}

void prefault(void *buf, size_t bytes, unsigned threads)
{
    enum { MAX_THREADS = 16 };
    if (!buf || !bytes)
        return;
    const long pg = sysconf(_SC_PAGESIZE);
    const size_t page = pg > 0 ? (size_t)pg : 4096;
#ifdef MADV_HUGEPAGE
    /* the whole pages inside buf; a system without transparent huge pages says no, harmlessly */
    const uintptr_t lo = ((uintptr_t)buf + page - 1) / page * page;
    const uintptr_t hi = ((uintptr_t)buf + bytes) / page * page;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    const size_t n = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    pthread_t th[MAX_THREADS];
    touch_part parts[MAX_THREADS];
    int started[MAX_THREADS] = { 0 };
    const size_t share = (bytes / n + page - 1) / page * page;
    for (size_t i = 0; i < n; i++) {
        const size_t from = i * share < bytes ? i * share : bytes;
        const size_t to = from + share < bytes ? from + share : bytes;
        parts[i] = (touch_part){ (unsigned char *)buf + from, to - from, page };
        if (i)
            started[i] = pthread_create(&th[i], NULL, touch, &parts[i]) == 0;
    }
    touch(&parts[0]);
    for (size_t i = 1; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            touch(&parts[i]);
    }
}
