/*
 * sort --verify: checks of the sorted data on the host.
 */
#ifndef CLSORT_VERIFY_H
#define CLSORT_VERIFY_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* The raw bits of a key or value of size 4 or 8 (0: none), zero-extended; little-endian host. */
uint64_t verify_load_word(const unsigned char *p, size_t size);
/* A key's bits as text, for messages: the number, and a float's bits in hex. */
void verify_key_text(char *buf, size_t cap, clsort_key_type t, uint64_t k);

/* An order-independent fingerprint of the (key, value) multiset: ks-byte keys, vs-byte values
 * (values NULL: keys only). Taken before the sort and checked after it. */
uint64_t verify_fingerprint(const unsigned char *keys, size_t ks, const unsigned char *values,
                            size_t vs, size_t n);
/* The same of n interleaved records (a key, then its value). */
uint64_t verify_fingerprint_records(const unsigned char *rec, size_t ks, size_t vs, size_t n);
/* The same of n records of rs bytes, every byte counted (records by a key field). */
uint64_t verify_fingerprint_bytes(const unsigned char *rec, size_t rs, size_t n);
/* The output checked as it streams out, a block at a time: the keys are in spec's order (type,
 * direction, bit range; in each segment, across blocks too), and at the end the records are the
 * multiset whose fingerprint was taken before (records: a key, then its value, at keys). verify_block() and verify_end() print what fails and
 * return an exit status; verify_end() prints the result. */
typedef struct verify_state {
    uint64_t i;     /* records seen */
    uint64_t prev;  /* clsort_key_order() of the last one */
    uint64_t prev_key; /* its bits, for the message */
    uint64_t sum;   /* fingerprint so far */
    const uint64_t *starts; /* variable segments: ascending offsets where the order restarts */
    size_t n_starts, next;  /* how many, and the first not below the records seen */
} verify_state;
void verify_start(verify_state *v);
/* Variable segments (--segments): n ascending offsets where a segment starts (call after
 * verify_start()). */
void verify_segments(verify_state *v, const uint64_t *starts, size_t n);
int verify_block(verify_state *v, const clsort_spec *spec, const void *keys, const void *values,
                 size_t m, int records); /* records: interleaved at keys */
int verify_end(const verify_state *v, const clsort_spec *spec, int has_values, uint64_t before);

#endif
