/*
 * Fixed-size records sorted by a key field: a number of the spec's key type at an offset, or a
 * string of bytes compared as unsigned bytes (memcmp order). The records themselves do not go to
 * the device: their keys do, with a permutation as the values, and the records are gathered by it.
 * A byte string longer than 8 bytes takes one stable sort per 8-byte word, from the least
 * significant to the most (LSD over words), each carrying the permutation of the one before; the
 * last, partial word sorts on its bytes only (a 10-byte key: 2 digit passes, then 8). Each word is
 * read big-endian, so that the order of the 64-bit numbers is the order of the bytes.
 * Calls: api.c (clsort_sort() for each word: any size, chunks included), status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Word w of a byte key (bytes 8w.. of key_size), big-endian, zero past the key's end. */
static uint64_t key_word(const unsigned char *key, size_t key_size, size_t w)
{
    uint64_t v = 0;
    for (size_t b = 0; b < 8; b++) {
        const size_t at = w * 8 + b;
        v = v << 8 | (at < key_size ? key[at] : 0);
    }
    return v;
}

static clsort_status check_records(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                   size_t record_size, size_t key_offset, size_t key_size)
{
    const size_t ks = key_size ? key_size : clsort_key_size(spec->key_type);
    if (spec->value_size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "records carry their own values: spec->value_size must be 0, not %zu",
                           spec->value_size);
    if (!record_size || key_offset > record_size || ks > record_size - key_offset)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "a key of %zu bytes at offset %zu does not fit in records of %zu bytes",
                           ks, key_offset, record_size);
    if (key_size && (spec->begin_bit || spec->end_bit))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "a key of bytes is compared whole: no bit range (%u:%u)", spec->begin_bit,
                           spec->end_bit);
    if (spec->algorithm == CLSORT_ALGO_BITONIC || spec->algorithm == CLSORT_ALGO_ODDEVEN)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "records are sorted by stable passes over their keys; %s is not stable: "
                           "use radix8, radix4 or auto",
                           clsort_algorithm_name(spec->algorithm));
    if (n && record_size > SIZE_MAX / n)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%zu records of %zu bytes", n, record_size);
    return CLSORT_OK;
}

/* The permutation's words: 4 bytes while positions fit, else 8. */
static uint64_t perm_at(const void *perm, size_t ps, size_t i)
{
    return ps == 4 ? ((const uint32_t *)perm)[i] : ((const uint64_t *)perm)[i];
}

/* Stable sorts of the key's words carrying the permutation (keys: n words of 8 bytes, or of the
 * key type's size). */
static clsort_status sort_keys(clsort_context *ctx, const clsort_spec *spec, const unsigned char *rec,
                               size_t n, size_t rs, size_t off, size_t key_size, void *keys,
                               void *perm, size_t ps, clsort_stats *stats)
{
    clsort_spec s = *spec;
    s.value_size = ps;
    if (!key_size) { /* one sort of the numbers at the offset */
        const size_t ks = clsort_key_size(spec->key_type);
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)keys + i * ks, rec + i * rs + off, ks);
        return clsort_sort(ctx, &s, keys, perm, n, stats);
    }
    s.key_type = CLSORT_KEY_U64;
    const size_t words = (key_size + 7) / 8;
    uint64_t *k = keys;
    clsort_status st = CLSORT_OK;
    double kernel_ms = 0;
    for (size_t w = words; w-- > 0 && st == CLSORT_OK;) {
        const size_t bytes = w + 1 == words ? key_size - w * 8 : 8;
        for (size_t i = 0; i < n; i++)
            k[i] = key_word(rec + perm_at(perm, ps, i) * rs + off, key_size, w);
        s.begin_bit = (unsigned)(64 - 8 * bytes); /* the bytes past the key are zero: not sorted on */
        s.end_bit = bytes == 8 ? 0 : 64;
        st = clsort_sort(ctx, &s, k, perm, n, stats);
        if (stats)
            kernel_ms += stats->kernel_ms;
    }
    if (stats && st == CLSORT_OK)
        stats->kernel_ms = kernel_ms;
    return st;
}

clsort_status clsort_sort_records(clsort_context *ctx, const clsort_spec *spec, void *records,
                                  size_t n, size_t record_size, size_t key_offset, size_t key_size,
                                  uint64_t *index, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    if (!spec) {
        clsort_spec_default(&def);
        spec = &def;
    }
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, records || n == 0);
    clsort_status st = check_records(ctx, spec, n, record_size, key_offset, key_size);
    if (st != CLSORT_OK || n == 0)
        return st;
    const size_t ps = (uint64_t)n <= ((uint64_t)1 << 32) ? 4 : 8;
    const size_t ks = key_size ? 8 : clsort_key_size(spec->key_type);
    void *perm = malloc(n * ps), *keys = malloc(n * ks);
    unsigned char *out = NULL;
    if (!perm || !keys) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for the keys and positions of %zu records", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (ps == 4)
            ((uint32_t *)perm)[i] = (uint32_t)i;
        else
            ((uint64_t *)perm)[i] = i;
    }
    st = sort_keys(ctx, spec, records, n, record_size, key_offset, key_size, keys, perm, ps, stats);
    free(keys);
    keys = NULL;
    if (st != CLSORT_OK)
        goto done;
    /* the gather: a copy of the records in the permutation's order, then back in place */
    if (!(out = malloc(n * record_size))) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for a copy of %zu records of %zu bytes", n,
                         record_size);
        goto done;
    }
    const unsigned char *rec = records;
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * record_size, rec + perm_at(perm, ps, i) * record_size, record_size);
    memcpy(records, out, n * record_size);
    if (index)
        for (size_t i = 0; i < n; i++)
            index[i] = perm_at(perm, ps, i);
    if (stats) {
        stats->total_ms = clsort_now_ms() - t0;
        const double ms = stats->kernel_ms > 0 ? stats->kernel_ms : stats->total_ms;
        stats->gkeys_per_s = ms > 0 ? (double)n / (ms * 1e6) : 0.0;
    }
done:
    free(perm);
    free(keys);
    free(out);
    return st;
}
