/* Memory about to be filled by one thread (a file read, a message) faulted in first by several:
 * the kernel's page faults, not the copy, are what bound a single thread filling fresh memory. */
#ifndef CLSORT_PREFAULT_H
#define CLSORT_PREFAULT_H

#include <pthread.h>
#include <stddef.h>

/* Touches every page of buf on up to `threads` threads (at most 16), asking for huge pages first
 * where the system has them. */
void prefault(void *buf, size_t bytes, unsigned threads);

/* A map faulted in for writing in the background (prefault_start). */
typedef struct prefault_bg {
    unsigned char *buf;
    size_t bytes;
    unsigned threads;
    pthread_t th;
    int started;
} prefault_bg;

/* Starts making the writable map buf (page-aligned) present on up to `threads` threads in the
 * background, by MADV_POPULATE_WRITE, which writes nothing: copies into the map may run meanwhile.
 * Returns 1 where it started, 0 where the system does not populate maps (or no thread started):
 * the copies then fault the pages in themselves. prefault_wait() before the map is unmapped. */
int prefault_start(prefault_bg *b, void *buf, size_t bytes, unsigned threads);
/* The pages of the writable map [base, base + base_bytes) that [p, p + len) touches made present
 * on this thread, by MADV_POPULATE_WRITE (for a thread about to fill its stretch of a map: one
 * call, not a fault a page). Returns 0 where the system does not populate maps. */
int prefault_range(void *base, size_t base_bytes, void *p, size_t len);
/* Waits for prefault_start()'s threads; safe on a job that never started. */
void prefault_wait(prefault_bg *b);

#endif
