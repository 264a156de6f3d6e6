/*
 * sort -u: of each run of records whose keys are equal in the sort's order (type, direction, bit
 * range), only the first is written, the earliest input record, since the sort is stable. The
 * filter sits where the sorted records are written and carries the last key across the calls.
 */
#ifndef CLSORT_UNIQUE_H
#define CLSORT_UNIQUE_H

#include "io.h"

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

typedef struct unique_filter {
    int have_last;        /* a record went before */
    uint64_t last;        /* clsort_key_order() of it */
    uint64_t in, out;     /* records seen, records written */
    unsigned char *keys, *values; /* the kept records of a stretch, gathered for one write */
} unique_filter;

void unique_start(unique_filter *u);
/* m sorted records (records: a key and its value interleaved at keys; else keys, and values or
 * NULL): the first of each run of equal keys to kout, its value to vout (NULL: none apart).
 * Returns an exit status. */
int unique_write(unique_filter *u, const clsort_spec *spec, const void *keys, const void *values,
                 size_t m, int records, output_file *kout, output_file *vout);
void unique_free(unique_filter *u);

#endif
