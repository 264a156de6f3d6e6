/*
 * K-way merge of sorted runs on the host (merge.c): for the chunked sort, and reusable by an
 * external sort. Records are fixed-size: a key of the spec's key type and spec->value_size bytes of
 * value, in separate key and value arrays. Keys compare by clsort_key_order(spec, key) (type, order and bit
 * range); the merge is stable: on equal keys the earlier run's record goes first. Not installed.
 */
#ifndef CLSORT_MERGE_H
#define CLSORT_MERGE_H

#include "clsort.h"

#include <stddef.h>

typedef struct clsort_merge_run {
    const void *keys;   /* n keys, sorted by clsort_key_order() */
    const void *values; /* n values (NULL when spec->value_size is 0) */
    size_t n;
} clsort_merge_run;

/* Merge runs[0..k) into out_keys / out_values (which must not overlap the runs), O(n log k).
 * Returns 0, or -1 when the heap of k entries cannot be allocated (nothing is written then). */
int clsort_merge_runs(const clsort_spec *spec, const clsort_merge_run *runs, size_t k,
                      void *out_keys, void *out_values);

/* The same merge a block at a time, for output that streams: open (NULL when out of memory), then
 * next() writes up to max records and returns how many (0 once every run is used up). The runs must
 * stay valid until close(), which is NULL-safe and nulls the pointer. */
typedef struct clsort_merger clsort_merger;
clsort_merger *clsort_merger_open(const clsort_spec *spec, const clsort_merge_run *runs, size_t k);
size_t clsort_merger_next(clsort_merger *m, void *out_keys, void *out_values, size_t max);
/* The same, record i's key at out_keys + i * key_stride and its value at out_values + i *
 * value_stride (records joined: both strides the record size, out_values = out_keys + key size). */
size_t clsort_merger_next_strided(clsort_merger *m, void *out_keys, size_t key_stride,
                                  void *out_values, size_t value_stride, size_t max);
void clsort_merger_close(clsort_merger **m);

#endif
