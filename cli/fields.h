/*
 * Records sorted by a key field (sort --record-size, --key-offset, --type bytes --key-size): the
 * whole input read into memory, sorted by the library's clsort_sort_records(), written out.
 */
#ifndef CLSORT_FIELDS_H
#define CLSORT_FIELDS_H

#include "io.h"

#include "clsort.h"

typedef struct fields_args {
    size_t record_size, key_offset;
    size_t key_size;       /* of a key of bytes; 0: a number of the spec's key type */
} fields_args;

/* Read in, sort, write out (and each output record's input position to index, when not NULL).
 * Returns an exit status; errors are said. */
int fields_sort(clsort_context *ctx, const clsort_spec *spec, const fields_args *f, input_file *in,
                output_file *out, output_file *index, clsort_stats *stats);

#endif
