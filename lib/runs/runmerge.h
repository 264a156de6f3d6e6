/*
 * Sorted runs in host memory or in temporary files, and their parallel merge (runmerge.c), for
 * clsort_sort_stream() and the chunked sort of host arrays. Not installed.
 */
#ifndef CLSORT_RUNMERGE_H
#define CLSORT_RUNMERGE_H

#include "internal.h"
#include "runfile.h"

#include <stdint.h>

/* One piece of a merge: n keys in order and their values (NULL without values). */
typedef struct clsort_merge_run {
    const void *keys;
    const void *values;
    size_t n;
} clsort_merge_run;

/* Where a run's records hold their keys. A run's "keys" array has elements of rs bytes: the key
 * itself (keys and key/value records: offset 0, rs the key type's size), or a whole record of a
 * fixed size with its key at an offset (records by a key field). The key is a number of the spec's
 * key type (bytes 0), ordered by the key recipe, or a string of `bytes` bytes compared as memcmp()
 * does (descending: reversed). Its order is `words` 64-bit words compared one after the other: the
 * number's order, or the string's bytes 8 at a time, big-endian, zero past its end (inverted when
 * descending). A layout of records of varying length would be one more kind here. */
typedef struct clsort_merge_layout {
    size_t rs;     /* bytes of one element of a run's keys array */
    size_t offset; /* of the key in it */
    size_t bytes;  /* 0: a number of the spec's key type; else a string of that many bytes */
    size_t vs;     /* bytes of each record's value (spec->value_size; records: their positions) */
} clsort_merge_layout;

/* The layout of keys alone (and key/value records) of a spec. */
static inline clsort_merge_layout clsort_merge_layout_keys(const clsort_spec *spec)
{
    return (clsort_merge_layout){ clsort_key_type_size(spec->key_type), 0, 0, spec->value_size };
}

/* 64-bit words of a key's order under a layout. */
static inline size_t clsort_merge_layout_words(const clsort_merge_layout *lay)
{
    return lay->bytes ? (lay->bytes + 7) / 8 : 1;
}

/* A sorted run: keys then values, in memory (keys non-NULL) or in a file (keys at offset 0, values
 * at values_at), with a sparse index of the file's keys (the order of every step-th key: the
 * layout's words of it), so that a cut between blocks costs one short read per run. */
typedef struct clsort_run {
    size_t n;
    unsigned char *keys, *values; /* a memory run owns them */
    clsort_runfile file;          /* fd -1 for a memory run */
    uint64_t values_at;
    uint64_t *index;
    size_t step, written;         /* written: records appended so far (clsort_run_append) */
} clsort_run;

/* An empty file run of n records in dir, indexed every step records; lay: where the keys are
 * (NULL: keys of the spec's type). */
clsort_status clsort_run_create(clsort_context *ctx, const clsort_spec *spec,
                                const clsort_merge_layout *lay, const char *dir, size_t n,
                                size_t step, clsort_run *run);
/* The next m records of a file run, in order; more: bytes still to write (for an error's detail). */
clsort_status clsort_run_append(clsort_context *ctx, const clsort_spec *spec,
                                const clsort_merge_layout *lay, clsort_run *run, const void *keys,
                                const void *values, size_t m, uint64_t more);
/* A run's memory and file; the run is left empty. */
void clsort_run_free(clsort_run *run);

/* The records a merge thread takes through its merge levels at once (a sub-block), for blocks of
 * `block` records of rs bytes: 256 KiB, so that a few fit a core's private cache (1 to 2 MiB on
 * current server cores), and at most a quarter of a block under a small budget. */
static inline size_t clsort_merge_sub(size_t block, size_t rs)
{
    size_t sub = (256u << 10) / rs;
    if (sub > block / 4)
        sub = block / 4;
    return sub ? sub : 1;
}

/* Where a block is merged on the device instead: sort() sorts the block's n records (keys, and
 * values or NULL, the runs' pieces one after the other in run order) in place, stably, by the spec,
 * which is their merge. clsort_runs_merge()'s threads call it one at a time. */
typedef struct clsort_block_sorter {
    clsort_status (*sort)(void *user, void *keys, void *values, size_t n);
    void *user;
} clsort_block_sorter;

/* Merge threads when the caller names none: one per online processor, at most 16. */
unsigned clsort_merge_threads_default(void);

/* Merge runs[0..k), their keys where lay says (NULL: keys of the spec's type), into out->write (joined records when out->records and the spec has values), in
 * blocks of at most block records merged by `threads` threads while the calling thread writes the
 * blocks before, in order; with a device (not NULL) the threads read the blocks and the device sorts
 * them. Memory: threads x (2 x block + 2 x clsort_merge_sub()) records (input, output, the merge
 * levels). A write that fails returns CLSORT_ERROR_IO and leaves the detail to the writer. */
clsort_status clsort_runs_merge_layout(clsort_context *ctx, const clsort_spec *spec,
                                       const clsort_merge_layout *lay, clsort_run *runs, size_t k,
                                       unsigned threads, size_t block,
                                       const clsort_block_sorter *device, const clsort_sink *out);
/* The same for keys of the spec's type (and their values). */
clsort_status clsort_runs_merge(clsort_context *ctx, const clsort_spec *spec, clsort_run *runs,
                                size_t k, unsigned threads, size_t block,
                                const clsort_block_sorter *device, const clsort_sink *out);

#endif
