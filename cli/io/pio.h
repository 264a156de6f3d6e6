/*
 * Bytes moved on several threads: copies between memory and reads of a regular file, split into
 * parts that a small pool of threads (made at the first use, kept for the process) and the caller
 * take in turn. One thread reads or copies the page cache at a quarter of what eight do on the
 * H100 machine's host, and a file mapped for writing is filled at three times write()'s pace
 * (bench/hostio, docs/performance.md).
 */
#ifndef CLSORT_PIO_H
#define CLSORT_PIO_H

#include <stddef.h>
#include <stdint.h>

/* The threads to use (the caller among them), at most 16; 0: one per processor, at most 8. Call
 * before the first use; later calls are ignored. */
void pio_set_threads(unsigned threads);
/* The threads pio_copy() and pio_pread() use. */
unsigned pio_threads(void);
/* memcpy(dst, src, len), on the threads where len is large enough to gain. */
void pio_copy(void *dst, const void *src, size_t len);
/* len bytes of fd from offset off into buf, on the threads, by pread(). Returns 0 with *got = len,
 * or -1 with errno set (a read error) or 0 with *got < len (the file ended at off + *got). */
int pio_pread(int fd, void *buf, size_t len, uint64_t off, size_t *got);

#endif
