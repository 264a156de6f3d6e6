/*
 * auto on a device that is not the host's cores sorts the smallest host arrays by host-radix in the
 * calling thread (clsort_dispatch_ran_host(): the device's tuning, here the test hook
 * CLSORT_HOST_SMALL_BYTES): run under Oclgrind (tests/meson.build), whose simulator is such a
 * device. Arrays of up to the threshold's bytes (keys and values) say host-radix and load no
 * programs; one record more, or an algorithm named, runs the device's kernels; every result equal
 * to a stable reference sort, values included. The hook's value: argv[1] bytes.
 * Usage: test_host_small BYTES
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

static clsort_context *ctx;
static size_t small_bytes;

typedef struct rec {
    uint64_t key, value;
} rec;

static int by_key_then_value(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value; /* values: input positions (stable) */
}

/* n u32 keys (pairs: u64 keys with 8-byte values, the input positions), many ties; sorted with
 * algo; the statistics' algorithm and programs loaded compared with what is expected. */
static void one(size_t n, int pairs, clsort_algorithm algo, int want_host)
{
    const size_t ks = pairs ? 8 : 4;
    unsigned char *keys = malloc(n * ks + 1);
    uint64_t *values = pairs ? malloc(n * 8 + 1) : NULL;
    rec *ref = malloc(n * sizeof *ref + 1);
    assert_non_null(keys);
    assert_non_null(ref);
    uint64_t s = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t k = (s >> 33) % 97 * 0x01000193u;
        if (pairs) {
            memcpy(keys + i * 8, &k, 8);
            values[i] = i;
        } else {
            const uint32_t k32 = (uint32_t)k;
            memcpy(keys + i * 4, &k32, 4);
        }
        ref[i] = (rec){ pairs ? k : (uint32_t)k, i };
    }
    qsort(ref, n, sizeof *ref, by_key_then_value);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = pairs ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
    spec.value_size = pairs ? 8 : 0;
    clsort_stats st;
    assert_int_equal(clsort_sort(ctx, &spec, keys, values, n, &st), CLSORT_OK);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 0;
        memcpy(&k, keys + i * ks, ks);
        assert_true(k == ref[i].key);
        if (pairs)
            assert_true(values[i] == ref[i].value);
    }
    if (n > 1) {
        const int host = st.algorithm && strcmp(st.algorithm, "host-radix") == 0;
        if (host != want_host)
            fail_msg("%zu %s: %s ran, expected %s", n, pairs ? "pairs" : "keys", st.algorithm,
                     want_host ? "host-radix" : "the device's kernels");
        if (want_host)
            assert_int_equal(st.programs_built + st.programs_cached, 0);
    }
    free(keys);
    free(values);
    free(ref);
}

static void test_keys(void **state)
{
    (void)state;
    const size_t most = small_bytes / 4;
    const size_t sizes[] = { 0, 1, 2, 17, most / 2 + 1, most - 1, most };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        one(sizes[i], 0, CLSORT_ALGO_AUTO, 1);
    one(most + 1, 0, CLSORT_ALGO_AUTO, 0);
    one(17, 0, CLSORT_ALGO_RADIX8, 0); /* named: the device's */
}

static void test_pairs(void **state)
{
    (void)state;
    const size_t most = small_bytes / 16;
    one(3, 1, CLSORT_ALGO_AUTO, 1);
    one(most, 1, CLSORT_ALGO_AUTO, 1);
    one(most + 1, 1, CLSORT_ALGO_AUTO, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) < 64) {
        fprintf(stderr, "usage: test_host_small BYTES (64 or more; CLSORT_HOST_SMALL_BYTES the same)\n");
        return 2;
    }
    small_bytes = (size_t)atoi(argv[1]);
    char value[32];
    snprintf(value, sizeof value, "%zu", small_bytes);
    setenv("CLSORT_HOST_SMALL_BYTES", value, 1);
    if (clsort_open(&ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "test_host_small: %s\n", clsort_last_error_detail());
        return 1;
    }
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_keys), cmocka_unit_test(test_pairs) };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&ctx);
    return failed;
}
