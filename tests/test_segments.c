/*
 * Batched segments: each run of `segment` keys sorted on its own, against the host reference per
 * segment, for keys and for pairs (keys exactly, records as a multiset: these sorts are not stable),
 * including a short last segment. Also the odd-even size limit and radix4's refusal of segments.
 * Usage: test_segments ALGORITHM [quick]   (quick: a few small cases, for oclgrind)
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
#include "testdata.h"

static clsort_algorithm algo;
static const char *algo_name;
static int quick;

/* Segment sizes: the list, tile edges of CPU and small-device shapes, beyond a tile. */
static const size_t segments[] = { 1, 2, 3, 64, 1000, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025,
                                   4096, 5000 };

static int open_ctx(void **state)
{
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open: %s: %s\n", clsort_status_string(st), clsort_last_error_detail());
        return -1;
    }
    *state = ctx;
    return 0;
}

static int close_ctx(void **state)
{
    clsort_context *ctx = *state;
    clsort_close(&ctx);
    return 0;
}

typedef struct record {
    uint32_t key, value;
} record;

static int record_cmp(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Each segment sorted by (key, value): the reference, and the canonical form of an unstable result. */
static void sort_records(uint32_t *keys, uint32_t *vals, size_t n, size_t seg)
{
    if (seg > n)
        seg = n ? n : 1;
    record *r = malloc(seg * sizeof *r);
    for (size_t lo = 0; lo < n; lo += seg) {
        size_t m = n - lo < seg ? n - lo : seg;
        for (size_t i = 0; i < m; i++)
            r[i] = (record){ keys[lo + i], vals ? vals[lo + i] : 0 };
        qsort(r, m, sizeof *r, record_cmp);
        for (size_t i = 0; i < m; i++) {
            keys[lo + i] = r[i].key;
            if (vals)
                vals[lo + i] = r[i].value;
        }
    }
    free(r);
}

static void check(clsort_context *ctx, clsort_algorithm a, size_t n, size_t seg, test_dist d, int pairs)
{
    uint32_t *keys = malloc(n * 4 + 4), *ref = malloc(n * 4 + 4);
    uint32_t *vals = malloc(n * 4 + 4), *rvals = malloc(n * 4 + 4);
    test_fill_keys(keys, n, d, n ^ seg);
    for (size_t i = 0; i < n; i++)
        vals[i] = (uint32_t)i;
    memcpy(ref, keys, n * 4);
    memcpy(rvals, vals, n * 4);
    sort_records(ref, rvals, n, seg);

    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = a;
    spec.segment = seg;
    spec.value_size = pairs ? 4 : 0;
    clsort_stats stats;
    clsort_status st = clsort_sort(ctx, &spec, keys, pairs ? vals : NULL, n, &stats);
    if (st != CLSORT_OK)
        fail_msg("n=%zu segment=%zu %s %s: %s: %s", n, seg, test_dist_name(d), pairs ? "pairs" : "keys",
                 clsort_status_string(st), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++)
        if (keys[i] != ref[i])
            fail_msg("n=%zu segment=%zu %s %s: key mismatch at %zu: %08x, expected %08x", n, seg,
                     test_dist_name(d), pairs ? "pairs" : "keys", i, keys[i], ref[i]);
    if (pairs) {
        sort_records(keys, vals, n, seg);
        for (size_t i = 0; i < n; i++)
            if (vals[i] != rvals[i])
                fail_msg("n=%zu segment=%zu %s pairs: records differ at %zu: (%08x, %u), expected "
                         "(%08x, %u)", n, seg, test_dist_name(d), i, keys[i], vals[i], ref[i], rvals[i]);
    }
    free(keys);
    free(ref);
    free(vals);
    free(rvals);
}

static void sweep(void **state, int pairs)
{
    clsort_context *ctx = *state;
    if (quick) {
        /* Every kernel on small inputs: whole arrays below and above a small tile, segments within
         * a tile with a tail, and segments longer than a tile. */
        static const size_t cases[][2] = { { 0, 0 }, { 1, 0 }, { 3, 0 }, { 200, 0 }, { 600, 0 },
                                           { 100, 3 }, { 700, 64 }, { 1100, 1000 }, { 700, 300 } };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            check(ctx, algo, cases[c][0], cases[c][1] ? cases[c][1] : 1u << 30, DIST_UNIFORM, pairs);
        return;
    }
    static const test_dist dists[] = { DIST_UNIFORM, DIST_REVERSE, DIST_FEW, DIST_ENTROPY4 };
    for (size_t s = 0; s < sizeof segments / sizeof segments[0]; s++) {
        const size_t seg = segments[s];
        /* A few whole segments, then the same with a short last segment (the tail). */
        const size_t count = seg < 64 ? 300 : seg < 2000 ? 9 : 3;
        const size_t ns[] = { seg * count, seg * count + seg / 2 + 1, seg * count - 1 };
        for (size_t k = 0; k < 3; k++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
                check(ctx, algo, ns[k], seg, dists[d], pairs);
    }
    /* A segment longer than the array is the whole array; a segment of the array's length too. */
    check(ctx, algo, 3000, 100000, DIST_UNIFORM, pairs);
    check(ctx, algo, 3000, 3000, DIST_UNIFORM, pairs);
}

static void test_keys(void **state) { sweep(state, 0); }
static void test_pairs(void **state) { sweep(state, 1); }

/* auto with segments runs bitonic; radix4 refuses segments with a message that says so. */
static void test_dispatch(void **state)
{
    clsort_context *ctx = *state;
    check(ctx, CLSORT_ALGO_AUTO, 1000, 64, DIST_UNIFORM, 1);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.segment = 64;
    uint32_t keys[128] = { 0 };
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, &stats), CLSORT_OK);
    assert_string_equal(stats.algorithm, "bitonic");
    spec.algorithm = CLSORT_ALGO_RADIX4;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, NULL), CLSORT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(clsort_error_detail(ctx), "segment"));
}

/* Odd-even refuses more than CLSORT_ODDEVEN_MAX_KEYS keys per array or segment, naming the limit and
 * an alternative, before any work; allow_quadratic lifts it. */
static void test_oddeven_limit(void **state)
{
    clsort_context *ctx = *state;
    if (algo != CLSORT_ALGO_ODDEVEN || quick)
        skip();
    const size_t n = CLSORT_ODDEVEN_MAX_KEYS + 1;
    uint32_t *keys = malloc(n * 4), *ref = malloc(n * 4);
    test_fill_keys(keys, n, DIST_UNIFORM, 5);
    memcpy(ref, keys, n * 4);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_ODDEVEN;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, n, NULL), CLSORT_ERROR_LIMIT);
    const char *msg = clsort_error_detail(ctx);
    assert_non_null(strstr(msg, "65536"));
    assert_non_null(strstr(msg, "radix8"));
    assert_memory_equal(keys, ref, n * 4); /* untouched */
    /* Segments under the limit are fine, whatever n. */
    spec.segment = 1000;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, n, NULL), CLSORT_OK);
    spec.segment = 0;
    memcpy(keys, ref, n * 4);
    spec.allow_quadratic = 1;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, n, NULL), CLSORT_OK);
    test_reference_sort(ref, NULL, n);
    assert_memory_equal(keys, ref, n * 4);
    free(keys);
    free(ref);
}

int main(int argc, char **argv)
{
    if (argc < 2 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK) {
        fprintf(stderr, "usage: %s ALGORITHM\n", argv[0]);
        return 2;
    }
    algo_name = argv[1];
    quick = argc > 2 && !strcmp(argv[2], "quick");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_oddeven_limit),
    };
    return cmocka_run_group_tests_name(algo_name, tests, open_ctx, close_ctx);
}
