/*
 * host-radix at and around its size thresholds, against a host reference (records ordered by key,
 * then by input position), keys and values bit for bit: the input one thread sorts alone (4 MiB of
 * records), the widths of the digits of a range sorted in one thread (by its length: 2^10 and
 * 2^15 records), the split that streams lines to the scratch (inputs past 16 MiB), and the buffer
 * a bucket is sorted through (buckets of up to 8 MiB), with and without streaming.
 * Usage: test_host_edges
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clsort.h"

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct record {
    uint64_t key;
    size_t at;
} record;

static int record_cmp(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static uint64_t key_at(const void *keys, size_t ks, size_t i)
{
    return ks == 8 ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
}

static void set_key(void *keys, size_t ks, size_t i, uint64_t k)
{
    if (ks == 8)
        ((uint64_t *)keys)[i] = k;
    else
        ((uint32_t *)keys)[i] = (uint32_t)k;
}

/* Keys of a quarter drawn from 7 values (ties: stability shows), the rest at random; the first
 * `bucket` records have a top byte of 0 and the others a top byte of 1 to 255 (bucket 0: any). */
static void fill(void *keys, size_t ks, size_t n, size_t bucket, uint64_t seed)
{
    const unsigned top = (unsigned)ks * 8 - 8;
    const uint64_t low = (1ull << top) - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed), k = r % 4 == 0 ? (r >> 8) % 7 * 0x0101010101010101ull : rng(&seed);
        if (ks == 4)
            k &= 0xffffffffu;
        if (bucket)
            k = i < bucket ? k & low : (k & low) | (uint64_t)(1 + (r >> 16) % 255) << top;
        set_key(keys, ks, i, k);
    }
}

/* Sort n records (ks-byte keys, vs-byte values holding their input positions) by host-radix. */
static void check(clsort_context *ctx, size_t ks, size_t vs, size_t n, size_t bucket)
{
    unsigned char *keys = malloc(n * ks + 8), *vals = vs ? malloc(n * vs + 8) : NULL;
    record *ref = malloc((n + 1) * sizeof *ref);
    assert_non_null(keys);
    assert_non_null(ref);
    fill(keys, ks, n, bucket, n * 7 + ks + vs);
    for (size_t i = 0; i < n; i++) {
        ref[i] = (record){ key_at(keys, ks, i), i };
        if (vs == 4)
            ((uint32_t *)vals)[i] = (uint32_t)i;
        else if (vs == 8)
            ((uint64_t *)vals)[i] = (uint64_t)i << 32 | (uint32_t)~i;
    }
    qsort(ref, n, sizeof *ref, record_cmp);

    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_HOST_RADIX;
    spec.key_type = ks == 8 ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
    spec.value_size = vs;
    clsort_status st = clsort_sort(ctx, &spec, keys, vals, n, NULL);
    if (st != CLSORT_OK)
        fail_msg("ks %zu vs %zu n %zu: %s: %s", ks, vs, n, clsort_status_string(st),
                 clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        const uint64_t got = key_at(keys, ks, i);
        if (got != ref[i].key)
            fail_msg("ks %zu vs %zu n %zu bucket %zu: key %zu is %llx, expected %llx", ks, vs, n,
                     bucket, i, (unsigned long long)got, (unsigned long long)ref[i].key);
        const size_t at = ref[i].at;
        const uint64_t want = vs == 4 ? (uint32_t)at : (uint64_t)at << 32 | (uint32_t)~at;
        const uint64_t v = vs == 4 ? ((uint32_t *)vals)[i] : vs == 8 ? ((uint64_t *)vals)[i] : 0;
        if (vs && v != want)
            fail_msg("ks %zu vs %zu n %zu bucket %zu: value %zu is %llx, expected %llx", ks, vs, n,
                     bucket, i, (unsigned long long)v, (unsigned long long)want);
    }
    free(keys);
    free(vals);
    free(ref);
}

/* n - 1, n and n + 1 records. */
static void around(clsort_context *ctx, size_t ks, size_t vs, size_t n)
{
    for (size_t m = n - 1; m <= n + 1; m++)
        check(ctx, ks, vs, m, 0);
}

static void test_one_thread(void **state)
{
    around(*state, 4, 0, (size_t)1 << 20); /* 4 MiB of keys */
    around(*state, 4, 4, (size_t)1 << 19);
    around(*state, 8, 8, (size_t)1 << 18);
}

static void test_digit_widths(void **state)
{
    around(*state, 4, 4, 1024);
    around(*state, 4, 4, 32768);
    around(*state, 8, 4, 32768);
}

static void test_streamed_split(void **state)
{
    around(*state, 4, 0, (size_t)1 << 22); /* 16 MiB of keys */
    around(*state, 4, 4, (size_t)1 << 21);
    around(*state, 8, 8, (size_t)1 << 20);
    check(*state, 8, 0, ((size_t)1 << 21) + 3, 0);
    check(*state, 4, 8, ((size_t)1 << 20) + 5, 0);
}

/* A bucket of 8 MiB of records and one more or less, with 1000 records in other buckets, and one
 * of 8 MiB in an input past 16 MiB (streamed). */
static void test_bucket_buffer(void **state)
{
    const size_t b = (size_t)1 << 20; /* 8 MiB of u32 keys with u32 values */
    for (size_t m = b - 1; m <= b + 1; m++)
        check(*state, 4, 4, m + 1000, m);
    const size_t k = (size_t)1 << 21; /* 8 MiB of u32 keys */
    for (size_t m = k - 1; m <= k + 1; m++)
        check(*state, 4, 0, ((size_t)1 << 22) + 1000, m);
}

static int setup(void **state)
{
    clsort_context *ctx = NULL;
    if (clsort_open(&ctx, NULL) != CLSORT_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    clsort_context *ctx = *state;
    clsort_close(&ctx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_digit_widths),
        cmocka_unit_test(test_streamed_split),
        cmocka_unit_test(test_bucket_buffer),
    };
    return cmocka_run_group_tests_name("host-edges", all, setup, teardown);
}
