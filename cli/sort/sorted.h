/*
 * Inputs that must already be sorted (sort -c, and each input of merge): a reader that gives an
 * input's records a block at a time with the orders of their keys (rec_key_orders()), and checks,
 * as they come, that they are in the spec's order (across blocks too: the last record of a block is
 * carried). Any layout: keys, key/value records, records by a key field. Streaming, constant
 * memory, no device.
 */
#ifndef CLSORT_SORTED_H
#define CLSORT_SORTED_H

#include "args.h"
#include "io.h"
#include "reckey.h"

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* The exit statuses of -c and -C, as sort(1) has them: 0 in order, 1 not, 2 the input could not be
 * checked (missing, unreadable, not whole records, offsets that do not fit it). */
enum { CHECK_UNSORTED = 1, CHECK_TROUBLE = 2 };

typedef struct sorted_reader {
    input_file in;
    const sort_args *args;   /* the layout, for the messages about sizes */
    rec_key key;
    size_t rs;               /* record bytes */
    int strict;              /* equal neighbours are out of order too (-c -u) */
    const char *hint;        /* appended to the message of a record out of order, or NULL */
    int quiet;               /* a record out of order is not said (-C) */
    int unsorted;            /* a record out of order was found (the status 1 of -c) */
    unsigned char *buf;      /* the block: n records */
    uint64_t *order;         /* rec_key_orders() of them */
    size_t cap, n, pos;      /* records the block holds at most, holds, and the next one's index */
    uint64_t base;           /* the input's index of buf's first record */
    int have_last;           /* a record was read before this block */
    uint64_t last;           /* its order */
    unsigned char *last_rec; /* and a copy of it, to compare and name */
    const uint64_t *starts;  /* variable segments (-c --segments): offsets where order restarts, */
    size_t n_starts, next;   /* how many, and the first not below the records read so far */
} sorted_reader;

/* Open path ("-" is stdin) to read records of the options' layout, ordered by spec (kept valid by
 * the caller), in blocks of about block_bytes; a regular file that is not a whole number of records
 * is refused here, before anything is read. Returns an exit status; sorted_close() is needed
 * whatever it returns. */
int sorted_open(sorted_reader *r, const char *path, const sort_args *a, const clsort_spec *spec,
                size_t block_bytes, int strict);
/* The next block: r->n records from r->pos = 0 (n 0 at the end). A record out of order (r->unsorted
 * set; said unless r->quiet), a stream that ends inside a record or a read error prints a message
 * naming the input and returns an exit status (1 for the first two). */
int sorted_fill(sorted_reader *r);
/* Records at these n ascending offsets start a segment: no order between them and the one before
 * (call before the first sorted_fill()). */
void sorted_segments(sorted_reader *r, const uint64_t *starts, size_t n);
void sorted_close(sorted_reader *r);

#endif
