/*
 * A stable k-way merge of sorted sources on the host: a binary heap of the sources by (their next
 * record's key, source index), so that of equal keys the earlier source's records come first. Each
 * source gives its records a block at a time, with their rec_key_orders(); the merge asks for the
 * next block when one is used up. Serves merge (sorted files); the runs of a sort are merged by
 * the library.
 */
#ifndef CLSORT_KMERGE_H
#define CLSORT_KMERGE_H

#include "reckey.h"

#include <stddef.h>
#include <stdint.h>

/* A source's block: n records of rs bytes and their orders. */
typedef struct kmerge_block {
    const unsigned char *rec;
    const uint64_t *order;
    size_t n;
} kmerge_block;

/* The next block of source i into *b (n 0: the source is at its end); valid until the next call
 * for the same source. Returns an exit status. */
typedef int kmerge_fill(void *user, size_t i, kmerge_block *b);

typedef struct kmerge {
    const rec_key *key;
    size_t rs, k;
    kmerge_fill *fill;
    void *user;
    kmerge_block *blk;   /* each source's block */
    size_t *pos;         /* and the index of its next record there */
    size_t *heap, heap_n; /* the sources with records left */
    int handed;          /* the heap's top was handed out and is still to be passed */
} kmerge;

/* The record kmerge_next() gives: from source src, record at of its current block. */
typedef struct kmerge_item {
    size_t src, at;
    const unsigned char *rec;
    uint64_t order;
} kmerge_item;

/* Start merging k sources (each block filled). Returns an exit status; kmerge_free() is needed
 * whatever it returns. */
int kmerge_start(kmerge *m, const rec_key *key, size_t rs, size_t k, kmerge_fill *fill,
                 void *user);
/* The next record in order into *it: 1, or 0 when every source is at its end (*rc: an exit status
 * of a fill that failed; merging stops then). The record stays valid until the next call. */
int kmerge_next(kmerge *m, kmerge_item *it, int *rc);
void kmerge_free(kmerge *m);

#endif
