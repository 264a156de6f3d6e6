/*
 * Bytes moved on several threads (pio.h). A job is cut into parts of at least PART bytes; the
 * pool's threads and the caller take parts by an atomic counter until none is left, and the
 * caller returns once every thread has left the job. The pool's threads block every signal, so
 * that signals.c's thread gets them.
 */
#include "pio.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREADS = 16, DEFAULT_MAX = 8, PART = 1u << 20 };

typedef struct job {
    void (*run)(struct job *, size_t at, size_t len);
    unsigned char *dst;
    const unsigned char *src;
    int fd;
    uint64_t off;
    size_t len, part;
    atomic_size_t next;   /* the next part to take */
    atomic_size_t short_at; /* the lowest offset where a read fell short (SIZE_MAX: none) */
    atomic_int err;       /* the first read error's errno */
} job;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, left = PTHREAD_COND_INITIALIZER;
static unsigned wanted, started; /* threads asked for; pool threads running (the caller apart) */
static int fixed;                /* the count is settled */
static job *current;
static unsigned long generation;
static unsigned busy; /* pool threads inside the current job */

static void take_parts(job *j)
{
    const size_t parts = (j->len + j->part - 1) / j->part;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < parts;) {
        const size_t at = i * j->part;
        j->run(j, at, j->len - at < j->part ? j->len - at : j->part);
    }
}

static void *pool_main(void *arg)
{
    (void)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (generation == seen)
            pthread_cond_wait(&wake, &lock);
        seen = generation;
        job *j = current;
        if (!j) /* woken after its job was over */
            continue;
        busy++;
        pthread_mutex_unlock(&lock);
        take_parts(j);
        pthread_mutex_lock(&lock);
        if (--busy == 0)
            pthread_cond_signal(&left);
    }
    return NULL;
}

void pio_set_threads(unsigned threads)
{
    pthread_mutex_lock(&lock);
    if (!fixed)
        wanted = threads > MAX_THREADS ? MAX_THREADS : threads;
    pthread_mutex_unlock(&lock);
}

/* The count, settled at the first use; the pool's threads made then (fewer where some cannot be:
 * the work is the same, on fewer threads). */
static unsigned settle(void)
{
    pthread_mutex_lock(&lock);
    if (!fixed) {
        fixed = 1;
        if (!wanted) {
            const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            wanted = cpus < 1 ? 1 : cpus > DEFAULT_MAX ? DEFAULT_MAX : (unsigned)cpus;
        }
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        for (unsigned i = 1; i < wanted; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, pool_main, NULL) != 0)
                break;
            pthread_detach(t);
            started++;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    const unsigned n = started + 1;
    pthread_mutex_unlock(&lock);
    return n;
}

unsigned pio_threads(void)
{
    return settle();
}

/* The job on every thread; returns once none of the pool's threads is in it. */
static void run_job(job *j)
{
    const unsigned n = settle();
    size_t part = j->len / n;
    part = part < PART ? PART : (part + 4095) / 4096 * 4096;
    j->part = part;
    atomic_init(&j->next, 0);
    if (n == 1 || j->len <= part) {
        take_parts(j);
        return;
    }
    pthread_mutex_lock(&lock);
    current = j;
    generation++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    take_parts(j);
    pthread_mutex_lock(&lock);
    /* every thread has seen this generation once busy was raised for it, or will find no part */
    while (busy)
        pthread_cond_wait(&left, &lock);
    current = NULL;
    pthread_mutex_unlock(&lock);
}

static void copy_part(job *j, size_t at, size_t len)
{
    memcpy(j->dst + at, j->src + at, len);
}

void pio_copy(void *dst, const void *src, size_t len)
{
    if (len < 2 * (size_t)PART) {
        memcpy(dst, src, len);
        return;
    }
    job j = { .run = copy_part, .dst = dst, .src = src, .len = len };
    run_job(&j);
}

static void read_part(job *j, size_t at, size_t len)
{
    size_t done = 0;
    while (done < len) {
        const ssize_t r = pread(j->fd, j->dst + at + done, len - done, (off_t)(j->off + at + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int none = 0;
            if (r < 0)
                atomic_compare_exchange_strong(&j->err, &none, errno ? errno : EIO);
            size_t was = atomic_load(&j->short_at);
            while (at + done < was && !atomic_compare_exchange_weak(&j->short_at, &was, at + done))
                ;
            return;
        }
        done += (size_t)r;
    }
}

int pio_pread(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
    job j = { .run = read_part, .dst = buf, .fd = fd, .off = off, .len = len };
    atomic_init(&j.short_at, SIZE_MAX);
    atomic_init(&j.err, 0);
    run_job(&j);
    const int err = atomic_load(&j.err);
    const size_t at = atomic_load(&j.short_at);
    *got = at < len ? at : len;
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
