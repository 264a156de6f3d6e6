/*
 * The tool's --verify checks (cli/sort/verify.c) on their own: sorted blocks pass, a key out of order
 * fails wherever it falls (inside a stretch of orders, at a stretch's start, at a block's start),
 * segments (fixed, or from offsets) restart the order, and a changed record fails the fingerprint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cli.h"
#include "verify.h"

enum { N = 5000 };

static const uint64_t *starts; /* variable segments for check(), or NULL */
static size_t n_starts;

static int check(const clsort_spec *spec, const uint32_t *k, const uint32_t *v, size_t n,
                 size_t block)
{
    verify_state st;
    verify_start(&st);
    if (starts)
        verify_segments(&st, starts, n_starts);
    for (size_t at = 0; at < n; at += block) {
        const size_t m = n - at < block ? n - at : block;
        int rc = verify_block(&st, spec, k + at, v ? v + at : NULL, m, 0);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

static void test_order(void **state)
{
    (void)state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    uint32_t *k = malloc(N * sizeof *k);
    for (size_t i = 0; i < N; i++)
        k[i] = (uint32_t)(i / 3);
    static const size_t blocks[] = { 1, 7, 1024, 1500, N };
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        assert_int_equal(check(&spec, k, NULL, N, blocks[b]), EXIT_OK);
        /* one key too small: in a stretch, at a stretch's first key, at a block's first key */
        static const size_t bad[] = { 5, 1024, 1500, 2049, N - 1 };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const uint32_t keep = k[bad[i]];
            k[bad[i]] = 0;
            assert_int_equal(check(&spec, k, NULL, N, blocks[b]), EXIT_DEVICE);
            k[bad[i]] = keep;
        }
    }
    /* descending: the same keys fail, reversed they pass */
    spec.descending = 1;
    assert_int_equal(check(&spec, k, NULL, N, 1000), EXIT_DEVICE);
    for (size_t i = 0; i < N / 2; i++) {
        const uint32_t t = k[i];
        k[i] = k[N - 1 - i];
        k[N - 1 - i] = t;
    }
    assert_int_equal(check(&spec, k, NULL, N, 1000), EXIT_OK);
    /* segments: each sorted on its own may start lower than the one before ended */
    spec.descending = 0;
    spec.segment = 100;
    for (size_t i = 0; i < N; i++)
        k[i] = (uint32_t)(i % 100);
    assert_int_equal(check(&spec, k, NULL, N, 1024), EXIT_OK);
    k[250] = 0;
    assert_int_equal(check(&spec, k, NULL, N, 1024), EXIT_DEVICE);
    /* variable segments: the order restarts where one starts (empty ones between), nowhere else */
    spec.segment = 0;
    static const uint64_t off[] = { 0, 10, 10, 10, 1024, 1025, 3000, N };
    for (size_t i = 0; i < N; i++) {
        size_t g = 0;
        while (off[g + 1] <= i)
            g++;
        k[i] = (uint32_t)(i - off[g]) * 3 + 7;
    }
    starts = off;
    n_starts = sizeof off / sizeof off[0];
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        assert_int_equal(check(&spec, k, NULL, N, blocks[b]), EXIT_OK);
    static const size_t inside[] = { 5, 1023, 1026, 2999, N - 1 };
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        const uint32_t keep = k[inside[i]];
        k[inside[i]] = 0;
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
            assert_int_equal(check(&spec, k, NULL, N, blocks[b]), EXIT_DEVICE);
        k[inside[i]] = keep;
    }
    starts = NULL;
    free(k);
}

static void test_fingerprint(void **state)
{
    (void)state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = 4;
    uint32_t *k = malloc(N * sizeof *k), *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++) {
        k[i] = (uint32_t)(i / 2);
        v[i] = (uint32_t)(i * 7);
    }
    const uint64_t before = verify_fingerprint((const unsigned char *)k, 4,
                                               (const unsigned char *)v, 4, N);
    verify_state st;
    verify_start(&st);
    assert_int_equal(verify_block(&st, &spec, k, v, N, 0), EXIT_OK);
    assert_int_equal(verify_end(&st, &spec, 1, before), EXIT_OK);
    v[77]++;
    verify_start(&st);
    assert_int_equal(verify_block(&st, &spec, k, v, N, 0), EXIT_OK);
    assert_int_equal(verify_end(&st, &spec, 1, before), EXIT_DEVICE);
    free(k);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_fingerprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
