/*
 * --segments FILE for inputs of any size: whole segments read in batches that fit the memory budget,
 * each batch sorted by clsort_sort_segments() and written before the next is read; a segment larger
 * than a batch sorted alone by clsort_sort_stream() (runs, spilled to -T beyond the budget).
 */
#ifndef CLSORT_CLI_SEGSORT_H
#define CLSORT_CLI_SEGSORT_H

#include "segments.h"

#include "clsort.h"

typedef struct segsort_args {
    const clsort_stream_settings *set; /* the budget, -T and threads */
    uint64_t top;                      /* --top K: the first K records of each segment; 0: all */
    uint64_t batch_max;                /* for tests: batches of at most this many records */
    const int *io_rc;                  /* the callbacks' exit status, where they failed */
} segsort_args;

/* Sort the records src gives, segment by segment as segs cuts them, into dst (with a top K, only
 * the first K records of each segment, fewer where it is shorter). The budget's memory_bytes 0 is
 * half of physical memory. The offsets are checked against the records read as they come (a
 * regular file's were checked before): a source that ends before the last offset, or goes past
 * it, is refused with segments_check()'s words.
 * Returns EXIT_OK or an exit status; *io_rc (set by the callbacks) is returned where they failed.
 * stats: the device's times and the runs of long segments, added up; *written: the records given
 * to dst. */
int segsort_run(clsort_context *ctx, const clsort_spec *spec, const seg_offsets *segs,
                const clsort_source *src, const clsort_sink *dst, const segsort_args *args,
                clsort_stats *stats, uint64_t *written);

#endif
