/* --segments FILE: the CSR offsets of variable segments, read and checked. */
#ifndef CLSORT_CLI_SEGMENTS_H
#define CLSORT_CLI_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct seg_offsets {
    const char *path;
    uint64_t *off; /* n_seg + 1 offsets */
    size_t n_seg;
} seg_offsets;

/* Read the file (u64 little-endian): a whole number of offsets, at least one. EXIT_OK or an exit
 * status (said). */
int segments_load(seg_offsets *s, const char *path);
/* The offsets in order, the first bad entry named: the first 0, none decreasing and, when the
 * input's n records are known (n_known), none past n and the last n. */
int segments_check(const seg_offsets *s, uint64_t n, int n_known);
void segments_free(seg_offsets *s);

#endif
