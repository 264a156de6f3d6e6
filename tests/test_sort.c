/*
 * Sorts against the host reference, bit for bit, over sizes that hit tile edges and primes and over
 * key distributions. Values are checked bit for bit too for stable algorithms (which checks stability);
 * for unstable ones (bitonic, oddeven) the keys must match and the multiset of (key, value) records
 * must be unchanged.
 * Usage: test_sort ALGORITHM [MAX_N | quick]   (quick: a few sizes, for runs under oclgrind)
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
static size_t max_n = 1u << 20;
static int max_n_given; /* MAX_N on the command line */
static int unstable;

/* Host order of records by (key, value), to compare multisets of records. */
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

/* Sort each run of `seg` keys with its values by (key, value): the canonical form of an unstable
 * result. seg 0: the whole array. */
static void canonical_pairs(uint32_t *keys, uint32_t *vals, size_t n, size_t seg)
{
    if (!seg || seg > n)
        seg = n;
    record *r = malloc((seg ? seg : 1) * sizeof *r);
    for (size_t lo = 0; lo < n; lo += seg) {
        size_t m = n - lo < seg ? n - lo : seg;
        for (size_t i = 0; i < m; i++)
            r[i] = (record){ keys[lo + i], vals[lo + i] };
        qsort(r, m, sizeof *r, record_cmp);
        for (size_t i = 0; i < m; i++) {
            keys[lo + i] = r[i].key;
            vals[lo + i] = r[i].value;
        }
    }
    free(r);
}

static const size_t sizes[] = {
    0, 1, 2, 3, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
    7919, 8191, 8192, 8193, 65521, 65536 + 1, 104729, 1u << 20, (1u << 24) + 3, (1u << 26) - 5,
};

static int open_ctx(void **state)
{
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open: %s: %s\n", clsort_status_string(st), clsort_last_error_detail());
        return -1;
    }
    fprintf(stderr, "# device: %s, algorithm %s\n", clsort_device_name(ctx), algo_name);
    *state = ctx;
    return 0;
}

static int close_ctx(void **state)
{
    clsort_context *ctx = *state;
    clsort_close(&ctx);
    assert_null(ctx);
    return 0;
}

static void check_one(clsort_context *ctx, size_t n, test_dist d, int pairs)
{
    uint32_t *keys = malloc((n + 1) * 4), *ref = malloc((n + 1) * 4);
    uint32_t *vals = pairs ? malloc((n + 1) * 4) : NULL, *rvals = pairs ? malloc((n + 1) * 4) : NULL;
    assert_non_null(keys);
    assert_non_null(ref);
    test_fill_keys(keys, n, d, n);
    memcpy(ref, keys, n * 4);
    if (pairs) {
        for (size_t i = 0; i < n; i++)
            vals[i] = rvals[i] = (uint32_t)i;
    }
    test_reference_sort(ref, rvals, n);

    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.value_size = pairs ? 4 : 0;
    clsort_stats stats;
    clsort_status st = clsort_sort(ctx, &spec, keys, vals, n, &stats);
    if (st != CLSORT_OK)
        fail_msg("n=%zu %s %s: %s: %s", n, test_dist_name(d), pairs ? "pairs" : "keys",
                 clsort_status_string(st), clsort_error_detail(ctx));
    assert_int_equal(stats.n, n);
    for (size_t i = 0; i < n; i++)
        if (keys[i] != ref[i])
            fail_msg("n=%zu %s %s: first key mismatch at %zu: %08x, expected %08x", n, test_dist_name(d),
                     pairs ? "pairs" : "keys", i, keys[i], ref[i]);
    if (pairs && unstable) {
        canonical_pairs(keys, vals, n, 0);
        canonical_pairs(ref, rvals, n, 0);
    }
    for (size_t i = 0; i < n; i++) {
        if (keys[i] != ref[i] || (pairs && vals[i] != rvals[i]))
            fail_msg("n=%zu %s %s: first mismatch at %zu: key %08x value %u, expected %08x value %u",
                     n, test_dist_name(d), pairs ? "pairs" : "keys", i, keys[i], pairs ? vals[i] : 0,
                     ref[i], pairs ? rvals[i] : 0);
    }
    free(keys);
    free(ref);
    free(vals);
    free(rvals);
}

/* Under a simulator (oclgrind) every work-item is interpreted: a few tiles and tails suffice.
 * Odd-even's merge-split phases grow as the square of the tiles: its largest size has 5 tiles of
 * the simulator's shape (an odd count, the last one partial) where the others' has 16. */
static int quick;
static const size_t quick_sizes[] = { 2, 3, 100, 1000 };
static const size_t quick_sizes_oddeven[] = { 2, 3, 100, 300 };
static const test_dist quick_dists[] = { DIST_UNIFORM, DIST_FEW };

static void sweep(void **state, int pairs)
{
    clsort_context *ctx = *state;
    if (quick) {
        const size_t *qs = algo == CLSORT_ALGO_ODDEVEN ? quick_sizes_oddeven : quick_sizes;
        for (size_t s = 0; s < sizeof quick_sizes / sizeof quick_sizes[0]; s++)
            for (size_t d = 0; d < sizeof quick_dists / sizeof quick_dists[0]; d++)
                check_one(ctx, qs[s], quick_dists[d], pairs);
        return;
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (sizes[s] > max_n)
            continue;
        /* Onesweep's work-groups spin in look-back on CPU devices, slowly where other processes
         * share the cores: its default run (no MAX_N) sorts 2^20 keys in three distributions, all
         * of them up to 104729 keys and, given MAX_N, at every size (the long suite). */
        const int few_dists = (algo == CLSORT_ALGO_ONESWEEP || algo == CLSORT_ALGO_RADIX_HYBRID) &&
                              !max_n_given && sizes[s] > 104729;
        for (test_dist d = 0; d < DIST_COUNT; d++)
            if (!few_dists || d == DIST_UNIFORM || d == DIST_CONSTANT || d == DIST_FEW)
                check_one(ctx, sizes[s], d, pairs);
    }
}

static void test_keys(void **state) { sweep(state, 0); }
static void test_pairs(void **state) { sweep(state, 1); }

/* Sorting again what is already sorted, and sorting twice in one context, must not disturb it. */
static void test_repeat(void **state)
{
    clsort_context *ctx = *state;
    const size_t n = quick ? (algo == CLSORT_ALGO_ODDEVEN ? 600 : 1500)
                           : max_n < 100003 ? max_n : 100003;
    uint32_t *keys = malloc(n * 4), *ref = malloc(n * 4);
    test_fill_keys(keys, n, DIST_UNIFORM, 7);
    memcpy(ref, keys, n * 4);
    test_reference_sort(ref, NULL, n);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    for (int r = 0; r < 3; r++) {
        assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, n, NULL), CLSORT_OK);
        assert_memory_equal(keys, ref, n * 4);
    }
    free(keys);
    free(ref);
}

int main(int argc, char **argv)
{
    if (argc < 2 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK) {
        fprintf(stderr, "usage: %s ALGORITHM [MAX_N | quick]\n", argv[0]);
        return 2;
    }
    algo_name = argv[1];
    unstable = algo == CLSORT_ALGO_BITONIC || algo == CLSORT_ALGO_ODDEVEN;
    if (argc > 2 && !strcmp(argv[2], "quick"))
        quick = 1;
    else if (argc > 2) {
        max_n = strtoull(argv[2], NULL, 0);
        max_n_given = 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests_name(algo_name, tests, open_ctx, close_ctx);
}
