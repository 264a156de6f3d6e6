/*
 * --segments FILE for inputs of any size: whole segments read in batches that fit the memory budget,
 * each batch sorted by clsort_sort_segments() and written before the next is read; a segment larger
 * than a batch sorted alone by clsort_sort_stream() (runs, spilled to -T beyond the budget).
 */
#ifndef CLSORT_CLI_SEGSORT_H
#define CLSORT_CLI_SEGSORT_H

#include "segments.h"

#include "clsort.h"

/* Sort the records src gives, segment by segment as segs cuts them, into dst. set: the budget
 * (memory_bytes 0: half of physical memory), -T and threads for long segments. The offsets are
 * checked against the records read as they come (a regular file's were checked before): a source
 * that ends before the last offset, or goes past it, is refused with segments_check()'s words.
 * Returns EXIT_OK or an exit status; *io_rc (set by the callbacks) is returned where they failed.
 * batch_max: for tests, batches of at most that many records (0: as the budget allows). stats: the
 * device's times and the runs of long segments, added up. */
int segsort_run(clsort_context *ctx, const clsort_spec *spec, const seg_offsets *segs,
                const clsort_source *src, const clsort_sink *dst,
                const clsort_stream_settings *set, uint64_t batch_max, const int *io_rc,
                clsort_stats *stats);

#endif
