/*
 * The key of a record, wherever it sits: a number of the spec's type (order, bit range) or a string
 * of bytes (memcmp order) at an offset. Every layout is one: keys alone (offset 0, the record is the
 * key), key/value records (offset 0), records by a key field (--record-size, --key-offset, --type
 * bytes --key-size). The host's checks and merges (-c, -u, merge, --verify)
 * compare records through it, so that they all share the sort's order.
 */
#ifndef CLSORT_RECKEY_H
#define CLSORT_RECKEY_H

#include "args.h"

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rec_key {
    const clsort_spec *spec; /* key type, direction, bit range */
    size_t offset, size;     /* where the key is in a record, and its bytes */
    int bytes;               /* a string of bytes; else a number of spec->key_type */
} rec_key;

/* The key and the record size of a command's options (spec is the job's, kept valid by it). */
size_t rec_key_from_args(rec_key *k, const sort_args *a, const clsort_spec *spec);

/* A number per record, stride bytes apart, ascending in the sort's order: a number's
 * clsort_key_order(); the first 8 bytes of a key of bytes (big-endian, inverted when descending),
 * which decide unless they are equal. */
void rec_key_orders(const rec_key *k, const void *recs, size_t stride, size_t n, uint64_t *out);
/* <0, 0, >0: record a (its order oa) sorts before, with, after record b (ob). */
int rec_key_cmp(const rec_key *k, const void *a, uint64_t oa, const void *b, uint64_t ob);
/* The key of a record as text, for messages: the number, or the bytes in hex (the first 16). */
void rec_key_text(const rec_key *k, const void *rec, char *buf, size_t cap);

#endif
