/* Memory about to be filled by one thread (a file read, a message) faulted in first by several:
 * the kernel's page faults, not the copy, are what bound a single thread filling fresh memory. */
#ifndef CLSORT_PREFAULT_H
#define CLSORT_PREFAULT_H

#include <stddef.h>

/* Touches every page of buf on up to `threads` threads (at most 16), asking for huge pages first
 * where the system has them. */
void prefault(void *buf, size_t bytes, unsigned threads);

#endif
