/*
 * Records sorted by a key field (sort --record-size, --key-offset, --type bytes --key-size): the
 * library's stream of records (clsort_sort_stream_records()) reads them in runs that fit the
 * memory budget, sorts each on the device, keeps them in memory or in temporary files and merges
 * them with --parallel threads. -u, --verify and --index-out apply on the way out (recout.c).
 * --top K reads blocks behind the first K records of those before, sorted with them, and writes
 * the K (a whole sort, of which the first K are written, where no block fits beside them).
 */
#ifndef CLSORT_FIELDS_H
#define CLSORT_FIELDS_H

#include "io.h"
#include "reckey.h"

#include "clsort.h"

typedef struct fields_args {
    const rec_key *key;           /* the key field (its spec the sort's) */
    size_t record_size;
    int unique, verify;           /* -u, --verify */
    uint64_t memory;              /* bytes for the data (-S); 0: half of physical memory */
    const char *const *temp_dirs; /* -T; none: $TMPDIR, else /tmp */
    size_t n_temp_dirs;
    size_t fan_in;                /* --batch-size; 0: 64 */
    uint64_t top;                 /* --top K: only the first K records; 0: all */
    unsigned threads;             /* --parallel: merge threads; 0: one per processor */
    /* where the input's bytes come from, as input_read_some() gives them: NULL, the input itself;
     * else this reader (the tool's: what was read while the device opened, then the input) */
    int (*read)(void *user, input_file *in, unsigned char *buf, size_t len, size_t *got);
    void *read_user;
} fields_args;

/* Read in, sort, write out (and each output record's input position to index, when not NULL);
 * *n_out: the records written. Returns an exit status; errors are said. */
int fields_sort(clsort_context *ctx, const clsort_spec *spec, const fields_args *f, input_file *in,
                output_file *out, output_file *index, clsort_stats *stats, uint64_t *n_out);

#endif
