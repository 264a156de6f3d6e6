/*
 * K-way merge of sorted runs on the host (merge.c), for the chunked sort; clsort_merge_run also
 * names the pieces runmerge.c merges. Records are fixed-size: a key of the spec's key type and spec->value_size bytes of
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

#endif
