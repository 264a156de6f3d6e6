/*
 * The tests' reference for keys of every type: a random stream, the key's size and bits, and an
 * unsigned rank per key that compares as a spec orders keys (both float orders, both directions),
 * against which the library's sorts are checked. Shared by the host-radix tests.
 */
#ifndef CLSORT_TESTS_REFKEYS_H
#define CLSORT_TESTS_REFKEYS_H

#include <stdint.h>
#include <string.h>

#include "clsort.h"

static inline uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline size_t key_size(clsort_key_type t)
{
    return t == CLSORT_KEY_U64 || t == CLSORT_KEY_I64 || t == CLSORT_KEY_F64 ? 8 : 4;
}

static inline int is_float(clsort_key_type t)
{
    return t == CLSORT_KEY_F32 || t == CLSORT_KEY_F64;
}

static inline uint64_t get(const unsigned char *keys, size_t i, size_t ks)
{
    uint64_t k = 0;
    memcpy(&k, keys + i * ks, ks);
    return k;
}

/* The reference order: an unsigned number per key that compares as the spec orders; in numpy's
 * order *nan is set for NaNs, which rank after every number in both directions. */
static inline uint64_t rank(const clsort_spec *spec, uint64_t k, int *nan)
{
    *nan = 0;
    const size_t ks = key_size(spec->key_type);
    const unsigned bits = (unsigned)ks * 8;
    const uint64_t sign = (uint64_t)1 << (bits - 1);
    const uint64_t ones = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    uint64_t m;
    if (is_float(spec->key_type)) {
        const uint64_t mag = k & (sign - 1);
        const uint64_t inf = ks == 8 ? 0x7ff0000000000000ull : 0x7f800000u;
        if (spec->float_order == CLSORT_FLOAT_NUMPY) {
            if (mag > inf) {
                *nan = 1;
                return 0;
            }
            if (!mag)
                k = 0;
        }
        m = k & sign ? ~k & ones : k | sign;
    } else if (spec->key_type == CLSORT_KEY_I32 || spec->key_type == CLSORT_KEY_I64) {
        m = k ^ sign;
    } else {
        m = k;
    }
    if (spec->descending)
        m = ones - m;
    return m;
}


/* Whether input position b may follow input position a in a stable sort of keys by the spec:
 * ranks never decreasing (numpy's NaNs last), equal ranks in input order. */
static inline int ref_in_order(const clsort_spec *spec, const unsigned char *keys, size_t ks,
                               uint64_t a, uint64_t b)
{
    int na, nb;
    const uint64_t ra = rank(spec, get(keys, a, ks), &na);
    const uint64_t rb = rank(spec, get(keys, b, ks), &nb);
    return !(na > nb || (na == nb && (ra > rb || (ra == rb && a > b))));
}

#endif
