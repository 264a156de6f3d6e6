/*
 * Large host arrays that host-radix sorts on a CPU device are sorted where they are, by the calling
 * thread and helpers, through the context's kept scratch (lib/hostradix/host_family.c); buckets of
 * more than 1 MiB after the split are split again (host_sort.c). Checked against an independent
 * reference, not the library's other path (which shares the loops): clsort_argsort() must give a
 * permutation under which the keys follow the order (the key mapping written out here: integers,
 * floats in IEEE total order and in numpy's, both directions) with equal keys in input order, and
 * clsort_sort() with values must give the same keys and values. Sizes around the one-thread limit
 * (4 MiB), past the streamed split (16 MiB), primes; keys random with ties and special floats, and
 * keys of a narrow range (few top digits: the split again). The same sorts on a context with the
 * test hook CLSORT_HOST_INLINE_BYTES=0 (the threaded path on mapped buffers) give the same bytes,
 * and so does clsort_sort_stream(), which on a CPU device reads an input of one run whole and
 * sorts it there (lib/engine/stream.c), with a size hint right, short or past the input; and
 * clsort_sort_copy(), whose first pass reads the input where it is, gives clsort_sort()'s bytes.
 * Usage: test_host_direct
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
#include "refkeys.h"

static clsort_context *direct_ctx, *thread_ctx;

/* narrow 0 (wide): random bits, a quarter of them from 5 values, floats with zeros and NaNs of
 * both signs; 1: floats in [1, 1.001) and integers below 2^20, so the top digit place takes a
 * value or two and the buckets are large (no NaN, no -0.0: numpy's float order runs as total
 * order); 2: those floats with 1 in 64 zeros of both signs; 3: with 1 in 64 NaNs of both signs. */
static void fill(unsigned char *keys, clsort_key_type t, size_t n, int narrow, uint64_t seed)
{
    const size_t ks = key_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed), k = rng(&seed);
        if (narrow >= 2 && is_float(t) && r % 64 == 0) {
            const uint64_t sign = ks == 8 ? 0x8000000000000000ull : 0x80000000u;
            const uint64_t nan = ks == 8 ? 0x7ff8000000000001ull : 0x7fc00001u;
            k = (narrow == 2 ? 0 : nan) | (r & 64 ? sign : 0);
        } else if (narrow && is_float(t)) {
            const double d = 1.0 + (double)(k >> 11) / 9007199254740992.0 * 1e-3;
            const float f = (float)d;
            if (ks == 8)
                memcpy(&k, &d, 8);
            else {
                k = 0;
                memcpy(&k, &f, 4);
            }
        } else if (narrow) {
            k &= 0xfffff;
        } else if (r % 4 == 0) {
            k = (r >> 8) % 5 * 0x0101010101010101ull;
        } else if (is_float(t) && r % 16 == 1) {
            static const uint64_t f64s[] = { 0, 0x8000000000000000ull, 0x7ff8000000000000ull,
                                             0xfff8000000000001ull };
            static const uint32_t f32s[] = { 0, 0x80000000u, 0x7fc00000u, 0xffc00001u };
            k = ks == 8 ? f64s[(r >> 8) % 4] : f32s[(r >> 8) % 4];
        }
        memcpy(keys + i * ks, &k, ks);
    }
}

/* idx (8-byte positions) sorts keys stably in the spec's order: a permutation, ranks never
 * decreasing, equal ranks in input order. */
static void check_argsort(const clsort_spec *spec, const unsigned char *keys, const uint64_t *idx,
                          size_t n, const char *what)
{
    const size_t ks = key_size(spec->key_type);
    unsigned char *seen = calloc(n ? n : 1, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= n || seen[idx[i]])
            fail_msg("%s: position %zu holds %llu: not a permutation of 0..%zu", what, i,
                     (unsigned long long)idx[i], n - 1);
        seen[idx[i]] = 1;
        if (!i)
            continue;
        if (!ref_in_order(spec, keys, ks, idx[i - 1], idx[i]))
            fail_msg("%s: positions %zu and %zu (input %llu and %llu) are out of order", what,
                     i - 1, i, (unsigned long long)idx[i - 1], (unsigned long long)idx[i]);
    }
    free(seen);
}

static void run_one(const clsort_spec *spec, const unsigned char *keys, size_t n, size_t vs)
{
    const size_t ks = key_size(spec->key_type);
    char what[160];
    snprintf(what, sizeof what, "key type %d, %s, float order %d, n %zu, value size %zu",
             (int)spec->key_type, spec->descending ? "descending" : "ascending",
             (int)spec->float_order, n, vs);
    unsigned char *k[2];
    uint64_t *idx[2];
    unsigned char *v[2];
    for (int p = 0; p < 2; p++) {
        clsort_context *ctx = p ? thread_ctx : direct_ctx;
        k[p] = malloc(n * ks + 1);
        idx[p] = malloc(n * 8 + 8);
        v[p] = malloc(n * 8 + 8);
        assert_true(k[p] && idx[p] && v[p]);
        memcpy(k[p], keys, n * ks);
        clsort_spec s = *spec;
        clsort_status r = clsort_argsort(ctx, &s, k[p], idx[p], 8, n, NULL);
        if (r != CLSORT_OK)
            fail_msg("%s: %s", clsort_status_string(r), clsort_error_detail(ctx));
        if (!p) {
            check_argsort(spec, keys, idx[p], n, what);
            for (size_t i = 0; i < n; i++)
                if (memcmp(k[p] + i * ks, keys + idx[p][i] * ks, ks))
                    fail_msg("%s: key %zu is not the input's key at its position", what, i);
        }
        /* keys with values (the position's low bytes): the same order */
        memcpy(k[p], keys, n * ks);
        for (size_t i = 0; i < n; i++)
            memcpy(v[p] + i * vs, &i, vs);
        s.value_size = vs;
        if ((r = clsort_sort(ctx, &s, k[p], v[p], n, NULL)) != CLSORT_OK)
            fail_msg("%s: %s", clsort_status_string(r), clsort_error_detail(ctx));
        for (size_t i = 0; i < n && !p; i++) {
            uint64_t want = idx[p][i], got = 0;
            memcpy(&got, v[p] + i * vs, vs);
            if (vs == 4)
                want &= 0xffffffffu;
            if (got != want || memcmp(k[p] + i * ks, keys + idx[p][i] * ks, ks))
                fail_msg("%s: sort with values differs from the argsort at %zu", what, i);
        }
    }
    if (memcmp(k[0], k[1], n * ks) || memcmp(idx[0], idx[1], n * 8) ||
        memcmp(v[0], v[1], n * vs))
        fail_msg("%s: the calling thread's result differs from the threaded path's", what);
    for (int p = 0; p < 2; p++) {
        free(k[p]);
        free(idx[p]);
        free(v[p]);
    }
}

static void test_large(void **state)
{
    (void)state;
    /* 4 MiB of u32 keys and pairs +-1 (one thread up to there), a prime, past 16 MiB of keys */
    static const size_t sizes32[] = { (1u << 20) - 1, (1u << 20) + 1, (1u << 19) + 1,
                                      2750159, (1u << 22) + 3 };
    static const struct {
        clsort_key_type t;
        clsort_float_order fo;
        size_t vs;
    } cases[] = {
        { CLSORT_KEY_U32, CLSORT_FLOAT_TOTAL, 4 },   { CLSORT_KEY_I32, CLSORT_FLOAT_TOTAL, 8 },
        { CLSORT_KEY_F32, CLSORT_FLOAT_NUMPY, 4 },   { CLSORT_KEY_F32, CLSORT_FLOAT_TOTAL, 8 },
        { CLSORT_KEY_I64, CLSORT_FLOAT_TOTAL, 8 },   { CLSORT_KEY_F64, CLSORT_FLOAT_NUMPY, 4 },
        { CLSORT_KEY_U64, CLSORT_FLOAT_TOTAL, 4 },
    };
    const size_t most = (1u << 22) + 3;
    unsigned char *keys = malloc(most * 8);
    assert_non_null(keys);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t ks = key_size(cases[c].t);
        for (int narrow = 0; narrow < (is_float(cases[c].t) ? 4 : 2); narrow++) {
            fill(keys, cases[c].t, most, narrow, 5 + c * 2 + (size_t)narrow);
            for (size_t i = 0; i < sizeof sizes32 / sizeof sizes32[0]; i++) {
                /* the largest size for 4-byte keys only: the test stays quick */
                const size_t n = ks == 8 && sizes32[i] > (1u << 21) ? sizes32[i] / 4 : sizes32[i];
                clsort_spec spec;
                clsort_spec_default(&spec);
                spec.key_type = cases[c].t;
                spec.float_order = cases[c].fo;
                spec.descending = (int)((i + c + (size_t)narrow) % 2);
                spec.algorithm = CLSORT_ALGO_HOST_RADIX;
                run_one(&spec, keys, n, cases[c].vs);
            }
        }
    }
    free(keys);
}

/* clsort_sort_copy(): the input left as it was, the result that of clsort_sort() on a copy, on
 * the direct path (its first pass reading the input), the staged one and radix8's on the device
 * (uploaded from the input, downloaded into the outputs), at every size class, with
 * keys all equal (nothing moves them: copied whole), values, fixed segments (copied first). */
static void test_copy(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0, 1, 2, 1000, (1u << 17) + 1, (1u << 20) + 1, (1u << 22) + 3 };
    const size_t most = (1u << 22) + 3;
    unsigned char *in = malloc(most * 8), *vin = malloc(most * 8), *keep = malloc(most * 8);
    unsigned char *a = malloc(most * 8), *va = malloc(most * 8), *b = malloc(most * 8),
                  *vb = malloc(most * 8);
    assert_true(in && vin && keep && a && va && b && vb);
    for (int c = 0; c < 4; c++) {
        clsort_spec spec;
        clsort_spec_default(&spec);
        spec.key_type = c == 1 ? CLSORT_KEY_F32 : c == 2 ? CLSORT_KEY_I64 : CLSORT_KEY_U32;
        spec.float_order = CLSORT_FLOAT_NUMPY;
        spec.value_size = c == 2 ? 8 : c == 3 ? 4 : 0;
        spec.descending = c == 1;
        const size_t ks = key_size(spec.key_type), vs = spec.value_size;
        fill(in, spec.key_type, most, 0, 91 + (uint64_t)c);
        for (size_t i = 0; i < most * 8; i++)
            vin[i] = (unsigned char)(i * 7);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            for (int variant = 0; variant < 3; variant++) {
                const size_t n = sizes[i];
                clsort_spec sp = spec;
                if (variant == 1) /* keys all equal */
                    memset(in, 0x5a, n * ks);
                if (variant == 2)
                    sp.segment = 1000;
                memcpy(keep, in, n * ks);
                for (int p = 0; p < 3; p++) {
                    /* p 2: radix8's device path, which uploads the input from where it is and
                     * downloads into the outputs (sizes up to 2^17 + 1, for the time it takes) */
                    if (p == 2 && n > (1u << 17) + 1)
                        break;
                    if (p == 2)
                        sp.algorithm = CLSORT_ALGO_RADIX8;
                    clsort_context *ctx = p == 1 ? thread_ctx : direct_ctx;
                    memcpy(b, in, n * ks);
                    memcpy(vb, vin, n * vs);
                    clsort_status r = clsort_sort(ctx, &sp, b, vs ? vb : NULL, n, NULL);
                    if (r == CLSORT_OK)
                        r = clsort_sort_copy(ctx, &sp, in, vs ? vin : NULL, a, vs ? va : NULL, n,
                                             NULL);
                    if (r != CLSORT_OK)
                        fail_msg("copy: %s: %s", clsort_status_string(r), clsort_error_detail(ctx));
                    if (memcmp(a, b, n * ks) || memcmp(va, vb, n * vs) || memcmp(in, keep, n * ks))
                        fail_msg("copy, case %d, n %zu, variant %d, context %d: differs from "
                                 "clsort_sort() or the input changed", c, n, variant, p);
                }
                if (variant == 1)
                    fill(in, spec.key_type, most, 0, 91 + (uint64_t)c);
            }
        }
    }
    free(in);
    free(vin);
    free(keep);
    free(a);
    free(va);
    free(b);
    free(vb);
}

/* clsort_sort_stream() from memory: reads of at most `step` records, a size hint that may be
 * wrong; to memory. */
typedef struct mem_io {
    const unsigned char *keys, *values;
    size_t n, at, ks, vs, step;
    unsigned char *out_keys, *out_values;
    size_t out_n;
} mem_io;

static long long mem_read(void *user, void *keys, void *values, size_t max)
{
    mem_io *m = user;
    size_t k = m->n - m->at < max ? m->n - m->at : max;
    k = k < m->step ? k : m->step;
    memcpy(keys, m->keys + m->at * m->ks, k * m->ks);
    if (values)
        memcpy(values, m->values + m->at * m->vs, k * m->vs);
    m->at += k;
    return (long long)k;
}

static int mem_write(void *user, const void *keys, const void *values, size_t n)
{
    mem_io *m = user;
    if (m->out_n + n > m->n)
        return 1;
    memcpy(m->out_keys + m->out_n * m->ks, keys, n * m->ks);
    if (m->vs)
        memcpy(m->out_values + m->out_n * m->vs, values, n * m->vs);
    m->out_n += n;
    return 0;
}

/* The stream of a CPU device's direct path (the input read whole, sorted where it is) gives the
 * bytes of the staged pipeline (CLSORT_HOST_INLINE_BYTES=0), also where the size hint is short of
 * the input (the rest goes on through the pipeline, the records read first), or past it. */
static void test_stream(void **state)
{
    (void)state;
    const size_t n = (1u << 20) + 37;
    static const struct {
        clsort_key_type t;
        size_t vs;
        int descending;
    } cases[] = { { CLSORT_KEY_U32, 0, 0 }, { CLSORT_KEY_F32, 4, 1 }, { CLSORT_KEY_I64, 8, 0 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t ks = key_size(cases[c].t), vs = cases[c].vs;
        unsigned char *keys = malloc(n * ks), *values = malloc(n * 8 + 1);
        assert_true(keys && values);
        fill(keys, cases[c].t, n, 0, 77 + c);
        for (size_t i = 0; i < n; i++)
            memcpy(values + i * vs, &i, vs);
        clsort_spec spec;
        clsort_spec_default(&spec);
        spec.key_type = cases[c].t;
        spec.value_size = vs;
        spec.descending = cases[c].descending;
        const uint64_t hints[] = { n, n / 2, n + 1000, CLSORT_SIZE_UNKNOWN };
        for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
            unsigned char *out[2][2];
            for (int p = 0; p < 2; p++) {
                out[p][0] = malloc(n * ks);
                out[p][1] = malloc(n * 8 + 1);
                assert_true(out[p][0] && out[p][1]);
                mem_io m = { keys, values, n, 0, ks, vs, 300007, out[p][0], out[p][1], 0 };
                clsort_source src = { mem_read, &m, hints[h], 0 };
                clsort_sink dst = { mem_write, &m, 0 };
                clsort_context *ctx = p ? thread_ctx : direct_ctx;
                clsort_stats st;
                const clsort_status r = clsort_sort_stream(ctx, &spec, &src, &dst, NULL, &st);
                if (r != CLSORT_OK)
                    fail_msg("stream, case %zu, hint %zu: %s: %s", c, h, clsort_status_string(r),
                             clsort_error_detail(ctx));
                assert_int_equal(m.out_n, n);
                assert_int_equal(st.n, n);
            }
            if (memcmp(out[0][0], out[1][0], n * ks) || memcmp(out[0][1], out[1][1], n * vs))
                fail_msg("stream, case %zu, hint %zu: the direct path's output differs from the "
                         "staged pipeline's", c, h);
            for (int p = 0; p < 2; p++) {
                free(out[p][0]);
                free(out[p][1]);
            }
        }
        free(keys);
        free(values);
    }
}

int main(void)
{
    if (setenv("CLSORT_HOST_INLINE_BYTES", "0", 1) || clsort_open(&thread_ctx, NULL) != CLSORT_OK ||
        unsetenv("CLSORT_HOST_INLINE_BYTES") || clsort_open(&direct_ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "test_host_direct: %s\n", clsort_last_error_detail());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_copy),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&direct_ctx);
    clsort_close(&thread_ctx);
    return failed;
}
