/*
 * numpy's float order (clsort_spec::float_order = CLSORT_FLOAT_NUMPY) against a host reference
 * written from its definition: numbers by value with -0.0 == +0.0, every NaN last, equal keys in
 * input order; descending reverses the numbers and keeps NaNs last. f32 and f64 keys mixed with
 * ±0.0, ±inf and NaNs of both signs and many payloads, sizes 0, 1 and around tile edges, keys alone
 * and with values (the input positions, so stability is checked bit for bit), for one algorithm;
 * fixed and CSR segments, chunks merged on the host, device buffers through clsort_enqueue(),
 * clsort_key_order(), and the refusals.
 * Usage: test_float_order ALGORITHM [quick]   (quick: sizes up to 600 and device buffers only, for
 * runs under oclgrind)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clsort.h"

static clsort_algorithm algo;
static int unstable;
static int quick;
static clsort_context *ctx;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A key of the float type as a double (f32 widened), from its raw bits. */
static double value_of(int wide, uint64_t bits)
{
    if (wide) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    float f;
    uint32_t b = (uint32_t)bits;
    memcpy(&f, &b, 4);
    return f;
}

/* numpy's order from its definition: -1, 0, 1. */
static int cmp_numpy(int wide, int descending, uint64_t x, uint64_t y)
{
    const double a = value_of(wide, x), b = value_of(wide, y);
    const int an = isnan(a) != 0, bn = isnan(b) != 0;
    if (an || bn)
        return an - bn; /* NaNs last, in either direction, equal among themselves */
    if (a == b)
        return 0; /* -0.0 == +0.0 */
    return (a < b) != descending ? -1 : 1;
}

/* Mixed keys: about a quarter special values (zeros of both signs, infinities, NaNs with random
 * sign and payload), the rest few distinct numbers so that equal keys are common. */
static uint64_t make_key(int wide, uint64_t *s)
{
    const uint64_t r = rng(s);
    const unsigned pick = (unsigned)(r % 16);
    const uint64_t sign = wide ? 1ull << 63 : 1ull << 31;
    const uint64_t inf = wide ? 0x7ff0000000000000ull : 0x7f800000ull;
    const uint64_t frac = wide ? (1ull << 52) - 1 : (1ull << 23) - 1;
    const uint64_t neg = (r >> 20) & 1 ? sign : 0;
    switch (pick) {
    case 0:
        return neg; /* ±0.0 */
    case 1:
        return neg | inf;
    case 2:
    case 3: {
        uint64_t payload = (r >> 24) & frac;
        return neg | inf | (payload ? payload : 1); /* a NaN, quiet or signalling */
    }
    default: {
        const double v = (double)((int)((r >> 8) % 33) - 16) / 4.0;
        if (wide) {
            uint64_t b;
            memcpy(&b, &v, 8);
            return b;
        }
        const float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    }
}

static void put(void *a, int wide, size_t i, uint64_t v)
{
    if (wide)
        ((uint64_t *)a)[i] = v;
    else
        ((uint32_t *)a)[i] = (uint32_t)v;
}

static uint64_t get(const void *a, int wide, size_t i)
{
    return wide ? ((const uint64_t *)a)[i] : ((const uint32_t *)a)[i];
}

/* Positions [lo, hi) in the reference order: a stable bottom-up merge sort. */
static void reference(int wide, int descending, const void *keys, size_t *pos, size_t lo, size_t hi)
{
    size_t *tmp = malloc((hi - lo + 1) * sizeof *tmp);
    for (size_t w = 1; w < hi - lo; w *= 2) {
        for (size_t a = lo; a < hi; a += 2 * w) {
            size_t m = a + w < hi ? a + w : hi, b = a + 2 * w < hi ? a + 2 * w : hi;
            size_t i = a, j = m, o = 0;
            while (i < m && j < b)
                tmp[o++] = cmp_numpy(wide, descending, get(keys, wide, pos[j]),
                                     get(keys, wide, pos[i])) < 0
                               ? pos[j++]
                               : pos[i++];
            while (i < m)
                tmp[o++] = pos[i++];
            while (j < b)
                tmp[o++] = pos[j++];
            memcpy(pos + a, tmp, o * sizeof *tmp);
        }
    }
    free(tmp);
}

/* Sort n keys (with their positions as values when vs) in segments given by offsets (NULL: the
 * whole array, or fixed segments of `segment`), and check keys and values bit for bit. */
static void check_one(clsort_context *c, clsort_key_type type, int descending, size_t vs, size_t n,
                      size_t segment, const uint64_t *offsets, size_t n_seg, uint64_t seed)
{
    const int wide = type == CLSORT_KEY_F64;
    const size_t ks = wide ? 8 : 4;
    void *keys = malloc(n * ks + 8), *orig = malloc(n * ks + 8), *vals = malloc(n * 8 + 8);
    size_t *pos = malloc((n + 1) * sizeof *pos);
    assert_non_null(keys);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        put(orig, wide, i, make_key(wide, &s));
        pos[i] = i;
        if (vs == 4)
            ((uint32_t *)vals)[i] = (uint32_t)i;
        else if (vs == 8)
            ((uint64_t *)vals)[i] = i;
    }
    memcpy(keys, orig, n * ks);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.key_type = type;
    spec.value_size = vs;
    spec.algorithm = algo;
    spec.descending = descending;
    spec.float_order = CLSORT_FLOAT_NUMPY;
    spec.segment = segment;
    clsort_status st = offsets ? clsort_sort_segments(c, &spec, keys, vs ? vals : NULL, n, offsets,
                                                      n_seg, NULL)
                               : clsort_sort(c, &spec, keys, vs ? vals : NULL, n, NULL);
    if (st != CLSORT_OK)
        fail_msg("%s %s %s vs %zu n %zu: %s (%s)", clsort_algorithm_name(algo),
                 clsort_key_type_name(type), descending ? "desc" : "asc", vs, n,
                 clsort_status_string(st), clsort_error_detail(c));
    if (offsets) {
        for (size_t g = 0; g < n_seg; g++)
            reference(wide, descending, orig, pos, offsets[g], offsets[g + 1]);
    } else {
        const size_t len = segment ? segment : n ? n : 1;
        for (size_t lo = 0; lo < n; lo += len)
            reference(wide, descending, orig, pos, lo, lo + len < n ? lo + len : n);
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t want = get(orig, wide, pos[i]), got = get(keys, wide, i);
        if (got != want)
            fail_msg("%s %s %s vs %zu n %zu seg %zu: key %zu is 0x%llx, expected 0x%llx (from "
                     "position %zu)", clsort_algorithm_name(algo), clsort_key_type_name(type),
                     descending ? "desc" : "asc", vs, n, segment, i, (unsigned long long)got,
                     (unsigned long long)want, pos[i]);
        const uint64_t v = vs == 4 ? ((uint32_t *)vals)[i] : vs == 8 ? ((uint64_t *)vals)[i] : pos[i];
        if (v != pos[i])
            fail_msg("%s %s %s vs %zu n %zu: value %zu is %llu, expected %zu (not stable)",
                     clsort_algorithm_name(algo), clsort_key_type_name(type),
                     descending ? "desc" : "asc", vs, n, i, (unsigned long long)v, pos[i]);
    }
    free(keys);
    free(orig);
    free(vals);
    free(pos);
}

static const size_t sizes[] = { 0, 1, 2, 3, 255, 256, 257, 600, 4095, 4096, 4097, 70001 };

static void test_whole(void **state)
{
    (void)state;
    const clsort_key_type types[] = { CLSORT_KEY_F32, CLSORT_KEY_F64 };
    for (int t = 0; t < 2; t++)
        for (int d = 0; d < 2; d++)
            for (size_t vi = 0; vi < 3; vi++) {
                const size_t vs = vi * 4;
                if (unstable && vs)
                    continue;
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                    if ((algo != CLSORT_ALGO_ODDEVEN || sizes[i] <= CLSORT_ODDEVEN_MAX_KEYS) &&
                        (!quick || sizes[i] <= 600))
                        check_one(ctx, types[t], d, vs, sizes[i], 0, NULL, 0, 1000 * i + 10 * t + d);
            }
}

static void test_fixed_segments(void **state)
{
    (void)state;
    if (quick || algo == CLSORT_ALGO_RADIX4 || algo == CLSORT_ALGO_ONESWEEP ||
        algo == CLSORT_ALGO_RADIX_HYBRID) /* whole arrays only */
        skip();
    for (int d = 0; d < 2; d++) {
        check_one(ctx, CLSORT_KEY_F32, d, unstable ? 0 : 4, 5000, 300, NULL, 0, 77 + d);
        check_one(ctx, CLSORT_KEY_F64, d, unstable ? 0 : 8, 9000, 4096, NULL, 0, 99 + d);
    }
}

static void test_csr_segments(void **state)
{
    (void)state;
    if (quick || unstable || algo == CLSORT_ALGO_RADIX4 || algo == CLSORT_ALGO_RADIX_HYBRID)
        skip();
    const uint64_t off[] = { 0, 0, 1, 700, 700, 5000, 5003, 20000 };
    const size_t n_seg = sizeof off / sizeof off[0] - 1;
    for (int d = 0; d < 2; d++) {
        check_one(ctx, CLSORT_KEY_F32, d, 4, 20000, 0, off, n_seg, 5 + d);
        check_one(ctx, CLSORT_KEY_F64, d, 0, 20000, 0, off, n_seg, 15 + d);
    }
}

/* Chunks of 1000 keys merged on the host (the merge reads the order through the key recipe). */
static void test_chunks(void **state)
{
    (void)state;
    if (quick || unstable)
        skip();
    setenv("CLSORT_CHUNK_KEYS", "1000", 1);
    clsort_context *c = NULL;
    clsort_status st = clsort_open(&c, NULL);
    unsetenv("CLSORT_CHUNK_KEYS");
    assert_int_equal(st, CLSORT_OK);
    for (int d = 0; d < 2; d++) {
        check_one(c, CLSORT_KEY_F32, d, 4, 7777, 0, NULL, 0, 300 + d);
        check_one(c, CLSORT_KEY_F64, d, 8, 5001, 0, NULL, 0, 400 + d);
    }
    clsort_close(&c);
}

/* Device buffers through clsort_enqueue(), no host copy by the library. */
static void test_enqueue(void **state)
{
    (void)state;
    cl_context cl;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &cl, &q), CLSORT_OK);
    const size_t n = quick ? 600 : 10000;
    float *k = malloc(n * 4), *orig = malloc(n * 4);
    size_t *pos = malloc(n * sizeof *pos);
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = (uint32_t)make_key(0, &s);
        memcpy(&orig[i], &b, 4);
        pos[i] = i;
    }
    cl_int err;
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, orig, &err);
    assert_int_equal(err, CL_SUCCESS);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.key_type = CLSORT_KEY_F32;
    spec.algorithm = algo;
    spec.float_order = CLSORT_FLOAT_NUMPY;
    assert_int_equal(clsort_enqueue(ctx, &spec, buf, NULL, n, 0, NULL, NULL), CLSORT_OK);
    assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * 4, k, 0, NULL, NULL), CL_SUCCESS);
    clReleaseMemObject(buf);
    reference(0, 0, orig, pos, 0, n);
    for (size_t i = 0; i < n; i++)
        assert_memory_equal(&k[i], &orig[pos[i]], 4);
    free(k);
    free(orig);
    free(pos);
}

/* clsort_key_order() in numpy's order: -0.0 and +0.0 one place, every NaN the largest, the rest
 * as the reference orders them. */
static void test_key_order(void **state)
{
    (void)state;
    if (algo != CLSORT_ALGO_AUTO)
        skip();
    for (int wide = 0; wide < 2; wide++)
        for (int d = 0; d < 2; d++) {
            clsort_spec spec;
            clsort_spec_default(&spec);
            spec.key_type = wide ? CLSORT_KEY_F64 : CLSORT_KEY_F32;
            spec.descending = d;
            spec.float_order = CLSORT_FLOAT_NUMPY;
            uint64_t s = 9 + d;
            enum { N = 4000 };
            uint64_t keys[N], ord[N];
            uint32_t k32[N];
            for (size_t i = 0; i < N; i++) {
                keys[i] = make_key(wide, &s);
                k32[i] = (uint32_t)keys[i];
            }
            clsort_key_orders(&spec, wide ? (const void *)keys : (const void *)k32, wide ? 8 : 4, N,
                              ord);
            for (size_t i = 1; i < N; i++) {
                const int c = cmp_numpy(wide, d, keys[i - 1], keys[i]);
                const int o = ord[i - 1] < ord[i] ? -1 : ord[i - 1] > ord[i];
                if (c != o)
                    fail_msg("key order of 0x%llx and 0x%llx: %d, expected %d",
                             (unsigned long long)keys[i - 1], (unsigned long long)keys[i], o, c);
                assert_int_equal(clsort_key_order(&spec, wide ? (const void *)&keys[i]
                                                              : (const void *)&k32[i]),
                                 ord[i]);
            }
            /* total order tells the zeros apart */
            spec.float_order = CLSORT_FLOAT_TOTAL;
            const uint64_t pz = 0, nz = wide ? 1ull << 63 : 1ull << 31;
            const uint32_t pz32 = 0, nz32 = (uint32_t)nz;
            assert_true(clsort_key_order(&spec, wide ? (const void *)&pz : (const void *)&pz32) !=
                        clsort_key_order(&spec, wide ? (const void *)&nz : (const void *)&nz32));
        }
}

/* Integer keys ignore the float order; unknown orders, unstable sorts with values and top-k are
 * refused with details. */
static void test_refusals(void **state)
{
    (void)state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = CLSORT_KEY_I32;
    spec.float_order = CLSORT_FLOAT_NUMPY;
    int32_t ik[5] = { 3, -1, 0, -7, 2 };
    assert_int_equal(clsort_sort(ctx, &spec, ik, NULL, 5, NULL), CLSORT_OK);
    assert_int_equal(ik[0], -7);
    assert_int_equal(ik[4], 3);

    float fk[4] = { 1, 0, -1, 2 };
    uint32_t fv[4] = { 0, 1, 2, 3 };
    spec.key_type = CLSORT_KEY_F32;
    spec.float_order = (clsort_float_order)7;
    assert_int_equal(clsort_sort(ctx, &spec, fk, NULL, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "float order 7"));

    spec.float_order = CLSORT_FLOAT_NUMPY;
    spec.value_size = 4;
    if (unstable) {
        assert_int_equal(clsort_sort(ctx, &spec, fk, fv, 4, NULL), CLSORT_ERROR_UNSUPPORTED);
        assert_non_null(strstr(clsort_error_detail(ctx), "not stable"));
        assert_true(fk[0] == 1 && fv[0] == 0);
    }
    spec.value_size = 0;
    spec.algorithm = CLSORT_ALGO_AUTO;
    float top[2];
    assert_int_equal(clsort_top(ctx, &spec, fk, NULL, 4, 2, top, NULL, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(clsort_error_detail(ctx), "numpy"));
}

static int setup(void **state)
{
    (void)state;
    return clsort_open(&ctx, NULL) == CLSORT_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    clsort_close(&ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK) {
        fprintf(stderr, "usage: test_float_order ALGORITHM\n");
        return 2;
    }
    unstable = algo == CLSORT_ALGO_BITONIC || algo == CLSORT_ALGO_ODDEVEN;
    quick = argc > 2 && !strcmp(argv[2], "quick");
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_whole),     cmocka_unit_test(test_fixed_segments),
        cmocka_unit_test(test_csr_segments), cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_enqueue),   cmocka_unit_test(test_key_order),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests_name(argv[1], all, setup, teardown);
}
