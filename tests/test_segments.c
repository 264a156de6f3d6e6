/*
 * Batched segments: each run of `segment` keys sorted on its own, against the host reference per
 * segment, for keys and for pairs (keys exactly, records as a multiset for the unstable sorts, values
 * exactly for the stable radix sorts), including a short last segment. Also 64-bit keys, 8-byte values
 * and a bit range (each segment ordered and holding its own records), the odd-even size limit and the
 * refusals of segments.
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
    /* The radix sorts are stable: values are the indices, so (key, value) order is the stable one. */
    const int stable = a == CLSORT_ALGO_RADIX8 || a == CLSORT_ALGO_RADIX8_RTS;
    if (pairs && stable)
        for (size_t i = 0; i < n; i++)
            if (vals[i] != rvals[i])
                fail_msg("n=%zu segment=%zu %s pairs: value %u at %zu, expected %u (stable order)", n,
                         seg, test_dist_name(d), vals[i], i, rvals[i]);
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
         * a tile with a tail (each its own tile in radix8-rts), and segments longer than a tile. */
        static const size_t cases[][2] = { { 0, 0 }, { 1, 0 }, { 3, 0 }, { 200, 0 }, { 600, 0 },
                                           { 67, 3 }, { 700, 64 }, { 700, 300 } };
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

/* Key types and value sizes besides u32: 64-bit keys, 8-byte values, descending, a bit range. */
typedef struct wide_case {
    clsort_key_type type;
    size_t vs;
    int descending;
    unsigned begin, end;
} wide_case;

static const wide_case wide_cases[] = {
    { CLSORT_KEY_U64, 8, 0, 0, 0 },
    { CLSORT_KEY_F64, 0, 1, 0, 0 },
    { CLSORT_KEY_F32, 8, 0, 0, 0 },
    { CLSORT_KEY_I64, 4, 1, 8, 40 },
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The unsigned order bits of a key (as libclsort maps them, checked against IEEE order in
 * test_keys), restricted to the case's bit range. */
static uint64_t order_bits(const wide_case *c, uint64_t k)
{
    const unsigned w = c->type >= CLSORT_KEY_U64 ? 64 : 32;
    const uint64_t sign = 1ull << (w - 1), ones = w == 64 ? ~0ull : 0xffffffffull;
    if (c->type == CLSORT_KEY_I32 || c->type == CLSORT_KEY_I64)
        k ^= sign;
    else if (c->type == CLSORT_KEY_F32 || c->type == CLSORT_KEY_F64)
        k = (k & sign) ? ~k & ones : k | sign;
    const unsigned end = c->end ? c->end : w;
    const uint64_t mask = (end == 64 ? ~0ull : (1ull << end) - 1) & ~((1ull << c->begin) - 1);
    return k & mask;
}

typedef struct wide_record {
    uint64_t key, value;
} wide_record;

static int wide_record_cmp(const void *a, const void *b)
{
    const wide_record *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static uint64_t load(const void *p, size_t size, size_t i)
{
    return size == 8 ? ((const uint64_t *)p)[i] : ((const uint32_t *)p)[i];
}

static void check_wide(clsort_context *ctx, const wide_case *c, size_t n, size_t seg)
{
    const size_t ks = c->type >= CLSORT_KEY_U64 ? 8 : 4, vs = c->vs;
    unsigned char *keys = malloc(n * ks + 8), *orig = malloc(n * ks + 8), *vals = malloc(n * 8 + 8);
    uint64_t s = n * 7 + seg + c->type;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = splitmix(&s);
        /* A third few distinct values (ties), the rest any bits: NaNs, infinities, -0.0 included. */
        const uint64_t k = r % 3 == 0 ? (r >> 8) % 5 * 0x0101010101010101ull : splitmix(&s);
        if (ks == 8)
            ((uint64_t *)keys)[i] = k;
        else
            ((uint32_t *)keys)[i] = (uint32_t)k;
        if (vs == 8)
            ((uint64_t *)vals)[i] = (uint64_t)i << 32 | i;
        else
            ((uint32_t *)vals)[i] = (uint32_t)i;
    }
    memcpy(orig, keys, n * ks);

    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = c->type;
    spec.value_size = vs;
    spec.descending = c->descending;
    spec.begin_bit = c->begin;
    spec.end_bit = c->end;
    spec.segment = seg;
    clsort_status st = clsort_sort(ctx, &spec, keys, vs ? vals : NULL, n, NULL);
    if (st != CLSORT_OK)
        fail_msg("type %d vs %zu n=%zu segment=%zu: %s: %s", c->type, vs, n, seg, clsort_status_string(st),
                 clsort_error_detail(ctx));

    const size_t run = seg && seg < n ? seg : (n ? n : 1);
    wide_record *got = malloc(run * sizeof *got), *want = malloc(run * sizeof *want);
    for (size_t lo = 0; lo < n; lo += run) {
        const size_t m = n - lo < run ? n - lo : run;
        for (size_t i = 0; i < m; i++) {
            const uint64_t v = vs ? load(vals, vs, lo + i) : 0;
            if (vs == 8 && v >> 32 != (v & 0xffffffffu))
                fail_msg("type %d n=%zu segment=%zu: 8-byte value %zu torn", c->type, n, seg, lo + i);
            got[i] = (wide_record){ load(keys, ks, lo + i), vs ? v : 0 };
            const uint64_t id = lo + i;
            want[i] = (wide_record){ load(orig, ks, lo + i), vs == 8 ? id << 32 | id : vs ? id : 0 };
            if (i && (c->descending ? order_bits(c, got[i - 1].key) < order_bits(c, got[i].key)
                                    : order_bits(c, got[i - 1].key) > order_bits(c, got[i].key)))
                fail_msg("type %d desc %d bits %u:%u vs %zu n=%zu segment=%zu: keys %zu and %zu out of "
                         "order", c->type, c->descending, c->begin, c->end, vs, n, seg, lo + i - 1, lo + i);
        }
        /* Unstable: the same records in each segment, in any order among equal keys. */
        qsort(got, m, sizeof *got, wide_record_cmp);
        qsort(want, m, sizeof *want, wide_record_cmp);
        if (memcmp(got, want, m * sizeof *got))
            fail_msg("type %d vs %zu n=%zu segment=%zu: segment at %zu does not hold its own records",
                     c->type, vs, n, seg, lo);
    }
    free(got);
    free(want);
    free(keys);
    free(orig);
    free(vals);
}

static void test_wide(void **state)
{
    clsort_context *ctx = *state;
    const size_t n_cases = sizeof wide_cases / sizeof wide_cases[0];
    if (quick) {
        /* A whole array over several tiles (bitonic's padded to 1024 keys, so that its global
         * merges span two work-groups), segments within a tile and longer than one. */
        const size_t whole = algo == CLSORT_ALGO_BITONIC ? 513 : 300;
        const size_t cases[][2] = { { whole, 0 }, { 20, 3 }, { 300, 64 }, { 700, 300 } };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            for (size_t c = 0; c < n_cases; c++)
                check_wide(ctx, &wide_cases[c], cases[k][0], cases[k][1]);
        return;
    }
    static const size_t segs[] = { 1, 2, 3, 64, 255, 257, 1000, 1025, 5000 };
    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++) {
        const size_t seg = segs[i], count = seg < 64 ? 300 : seg < 2000 ? 7 : 3;
        for (size_t c = 0; c < n_cases; c++) {
            check_wide(ctx, &wide_cases[c], seg * count, seg);
            check_wide(ctx, &wide_cases[c], seg * count + seg / 2 + 1, seg); /* short last segment */
        }
    }
    for (size_t c = 0; c < n_cases; c++)
        check_wide(ctx, &wide_cases[c], 3001, 0); /* the whole array */
}

/* auto with short segments runs bitonic, with long ones radix8 (on a CPU device that shares host
 * memory, host-radix for both, as for whole arrays); radix4 and onesweep (whose look-back spans the
 * whole array) refuse segments with a message that says so. */
static void test_dispatch(void **state)
{
    clsort_context *ctx = *state;
    check(ctx, CLSORT_ALGO_AUTO, quick ? 300 : 1000, 64, DIST_UNIFORM, 1);
    clsort_spec spec;
    clsort_spec_default(&spec);
    uint32_t keys[128] = { 0 };
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, &stats), CLSORT_OK);
    const int host = !strcmp(stats.algorithm, "host-radix");
    spec.segment = 64;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, &stats), CLSORT_OK);
    assert_string_equal(stats.algorithm, host ? "host-radix" : "bitonic");
    /* long segments: radix8 (stable); too long for runs under the simulator */
    if (!quick) {
        uint32_t *big = calloc(70000, 4);
        /* what radix8 runs here for a whole array: onesweep where the device runs look-back */
        clsort_spec whole = spec;
        whole.segment = 0;
        whole.algorithm = CLSORT_ALGO_RADIX8;
        assert_int_equal(clsort_sort(ctx, &whole, big, NULL, 70000, &stats), CLSORT_OK);
        const int chains = !strcmp(stats.algorithm, "onesweep");
        spec.segment = 40000;
        assert_int_equal(clsort_sort(ctx, &spec, big, NULL, 70000, &stats), CLSORT_OK);
        /* segments take reduce-then-scan, or look-back chains (as variable segments) where the
         * device runs look-back */
        assert_string_equal(stats.algorithm,
                            host ? "host-radix" : chains ? "onesweep" : "radix8-rts");
        free(big);
        check(ctx, CLSORT_ALGO_AUTO, 90001, 40000, DIST_FEW, 1);
    }
    spec.segment = 64;
    spec.algorithm = CLSORT_ALGO_RADIX4;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, NULL), CLSORT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(clsort_error_detail(ctx), "segment"));
    spec.algorithm = CLSORT_ALGO_ONESWEEP;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 128, NULL), CLSORT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(clsort_error_detail(ctx), "radix8-rts"));
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
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_oddeven_limit),
    };
    return cmocka_run_group_tests_name(algo_name, tests, open_ctx, close_ctx);
}
