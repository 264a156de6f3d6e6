#include "prefault.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MAX_THREADS = 16 };

typedef struct part {
    volatile unsigned char *p;
    size_t bytes, page;
} part;

static size_t page_size(void)
{
    const long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

/* buf cut into up to `threads` parts of whole pages, fn run on each: the caller takes the first,
 * a thread each of the others (the caller those whose thread cannot start). */
static void on_threads(void *(*fn)(void *), unsigned char *buf, size_t bytes, unsigned threads)
{
    const size_t page = page_size();
    const size_t n = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    pthread_t th[MAX_THREADS];
    part parts[MAX_THREADS];
    int started[MAX_THREADS] = { 0 };
    const size_t share = (bytes / n + page - 1) / page * page;
    for (size_t i = 0; i < n; i++) {
        const size_t from = i * share < bytes ? i * share : bytes;
        const size_t to = from + share < bytes ? from + share : bytes;
        parts[i] = (part){ buf + from, to - from, page };
        if (i)
            started[i] = pthread_create(&th[i], NULL, fn, &parts[i]) == 0;
    }
    fn(&parts[0]);
    for (size_t i = 1; i < n; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(&parts[i]);
    }
}

static void *touch(void *arg)
{
    const part *t = arg;
    for (size_t at = 0; at < t->bytes; at += t->page)
        t->p[at] = 0;
    return NULL;
}

void prefault(void *buf, size_t bytes, unsigned threads)
{
    if (!buf || !bytes)
        return;
#ifdef MADV_HUGEPAGE
    /* the whole pages inside buf; a system without transparent huge pages says no, harmlessly */
    const size_t page = page_size();
    const uintptr_t lo = ((uintptr_t)buf + page - 1) / page * page;
    const uintptr_t hi = ((uintptr_t)buf + bytes) / page * page;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    on_threads(touch, buf, bytes, threads);
}

#ifdef MADV_POPULATE_WRITE
static void *populate(void *arg)
{
    const part *t = arg;
    if (t->bytes)
        madvise((void *)t->p, t->bytes, MADV_POPULATE_WRITE);
    return NULL;
}

static void *populate_all(void *arg)
{
    const prefault_bg *b = arg;
    on_threads(populate, b->buf, b->bytes, b->threads);
    return NULL;
}
#endif

int prefault_range(void *base, size_t base_bytes, void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    const size_t page = page_size();
    const uintptr_t b = (uintptr_t)base, e = b + base_bytes;
    uintptr_t lo = (uintptr_t)p / page * page, hi = ((uintptr_t)p + len + page - 1) / page * page;
    lo = lo < b ? b : lo;
    hi = hi > e ? e : hi;
    return hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0;
#else
    (void)base, (void)base_bytes, (void)p, (void)len;
    return 0;
#endif
}

int prefault_start(prefault_bg *b, void *buf, size_t bytes, unsigned threads)
{
    memset(b, 0, sizeof *b);
#ifdef MADV_POPULATE_WRITE
    /* the first page tried here: a kernel older than 5.14 says EINVAL */
    if (!buf || !bytes || madvise(buf, bytes < page_size() ? bytes : page_size(),
                                  MADV_POPULATE_WRITE) != 0)
        return 0;
    b->buf = buf;
    b->bytes = bytes;
    b->threads = threads;
    b->started = pthread_create(&b->th, NULL, populate_all, b) == 0;
#else
    (void)buf;
    (void)bytes;
    (void)threads;
#endif
    return b->started;
}

void prefault_wait(prefault_bg *b)
{
    if (b->started)
        pthread_join(b->th, NULL);
    b->started = 0;
}
