/*
 * host-radix's split by a wide digit (lib/hostradix/host_sort.c, wide_split): where the top digit
 * place takes few values (normal floats: the sign and the exponent's high bits; integers of a
 * narrow range in a wide type), the split goes by the 16 bits of that place and the one below,
 * runs of their values made buckets. Checked against an independent reference: clsort_argsort()
 * must give a permutation under which the keys follow the order (the key mapping written out
 * here: integers, floats in IEEE total order and in numpy's, both directions) with equal keys in
 * input order; clsort_sort() with values must give those keys and values, on the direct path (a
 * CPU device sorts the host array where it is) and the threaded one on mapped buffers (the test
 * hook CLSORT_HOST_INLINE_BYTES=0). Keys: floats of a few
 * exponents and both signs, of one exponent (both signs, one sign), with 1 in 64 NaNs (payloads,
 * both signs) or zeros of both signs, one 16-bit prefix holding half the keys (a bucket split
 * again), integers of a narrow range; sizes past the one-thread limit, below and past the streamed
 * split (16 MiB).
 * Usage: test_host_wide
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

static clsort_context *ctxs[2]; /* the direct path; the threaded one on mapped buffers */
static clsort_context *ctx;

enum { FEW_EXPONENTS, ONE_EXPONENT, ONE_EXPONENT_POSITIVE, WITH_NANS, WITH_ZEROS, ONE_PREFIX,
       NARROW_INT, KINDS };

/* A float of exponent e (biased) and random mantissa, sign s, as the key's bits. */
static uint64_t make_float(size_t ks, unsigned e, uint64_t mant, int s)
{
    if (ks == 4)
        return (uint64_t)s << 31 | (uint64_t)e << 23 | (mant & 0x7fffff);
    return (uint64_t)s << 63 | (uint64_t)e << 52 | (mant & 0xfffffffffffffull);
}

static void fill(unsigned char *keys, clsort_key_type t, size_t n, int kind, uint64_t seed)
{
    const size_t ks = key_size(t);
    const unsigned bias = ks == 4 ? 127 : 1023;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng(&seed), m = rng(&seed);
        uint64_t k;
        if (!is_float(t)) {
            /* below 2^20 in magnitude; signed types both signs */
            k = m & 0xfffff;
            if ((t == CLSORT_KEY_I32 || t == CLSORT_KEY_I64) && r & 1)
                k = 0 - k;
        } else if (kind == ONE_EXPONENT || kind == ONE_EXPONENT_POSITIVE) {
            k = make_float(ks, bias, m, kind == ONE_EXPONENT && (r & 1));
        } else if (kind == ONE_PREFIX && r % 2) {
            /* the same top 16 bits: 1.0 to 1.0078 (f32) */
            k = make_float(ks, bias, m & (ks == 4 ? 0xffff : 0xffffffffffffull), 0);
        } else {
            k = make_float(ks, bias - 4 + (unsigned)(r >> 8) % 8, m, r & 1);
        }
        if (is_float(t) && kind == WITH_NANS && r % 64 == 3) {
            const uint64_t nan = ks == 4 ? 0x7f800000u | (m & 0x7fffff) | 1
                                         : 0x7ff0000000000000ull | (m & 0xfffffffffffffull) | 1;
            k = nan | (r & 64 ? make_float(ks, 0, 0, 1) : 0);
        }
        if (is_float(t) && kind == WITH_ZEROS && r % 64 == 3)
            k = r & 64 ? make_float(ks, 0, 0, 1) : 0;
        memcpy(keys + i * ks, &k, ks);
    }
}


static void run_one(const clsort_spec *spec, const unsigned char *keys, size_t n, size_t vs,
                    const char *what)
{
    const size_t ks = key_size(spec->key_type);
    unsigned char *k = malloc(n * ks + 1), *v = malloc(n * vs + 1), *seen = calloc(n, 1);
    uint64_t *idx = malloc(n * 8);
    assert_true(k && v && idx && seen);
    memcpy(k, keys, n * ks);
    clsort_spec s = *spec;
    clsort_status r = clsort_argsort(ctx, &s, k, idx, 8, n, NULL);
    if (r != CLSORT_OK)
        fail_msg("%s: %s: %s", what, clsort_status_string(r), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= n || seen[idx[i]])
            fail_msg("%s: position %zu holds %llu: not a permutation", what, i,
                     (unsigned long long)idx[i]);
        seen[idx[i]] = 1;
        if (memcmp(k + i * ks, keys + idx[i] * ks, ks))
            fail_msg("%s: key %zu is not the input's key at its position", what, i);
        if (!i)
            continue;
        if (!ref_in_order(spec, keys, ks, idx[i - 1], idx[i]))
            fail_msg("%s: positions %zu and %zu (input %llu and %llu) are out of order", what,
                     i - 1, i, (unsigned long long)idx[i - 1], (unsigned long long)idx[i]);
    }
    memcpy(k, keys, n * ks);
    for (size_t i = 0; i < n; i++)
        memcpy(v + i * vs, &i, vs);
    s.value_size = vs;
    if ((r = clsort_sort(ctx, &s, k, v, n, NULL)) != CLSORT_OK)
        fail_msg("%s: %s: %s", what, clsort_status_string(r), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        uint64_t want = idx[i], got = 0;
        memcpy(&got, v + i * vs, vs);
        if (vs == 4)
            want &= 0xffffffffu;
        if (got != want || memcmp(k + i * ks, keys + idx[i] * ks, ks))
            fail_msg("%s: sort with values differs from the argsort at %zu", what, i);
    }
    free(k);
    free(v);
    free(seen);
    free(idx);
}

static void test_wide(void **state)
{
    (void)state;
    static const struct {
        clsort_key_type t;
        size_t vs;
    } types[] = { { CLSORT_KEY_F32, 4 }, { CLSORT_KEY_F64, 8 }, { CLSORT_KEY_F32, 8 } };
    /* past 16 MiB with the values (the streamed split), and below (4-byte keys: 8 MiB) */
    static const size_t sizes[] = { (1u << 21) + 3, (1u << 20) + 7 };
    const size_t most = (1u << 21) + 3;
    unsigned char *keys = malloc(most * 8);
    assert_non_null(keys);
    unsigned step = 0;
    for (int kind = 0; kind < KINDS; kind++) {
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            const clsort_key_type kt = kind == NARROW_INT ? (t == 0   ? CLSORT_KEY_I64
                                                             : t == 1 ? CLSORT_KEY_U32
                                                                      : CLSORT_KEY_I32)
                                                          : types[t].t;
            fill(keys, kt, most, kind, 11 + (uint64_t)(kind * 3 + (int)t));
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++, step++) {
                clsort_spec spec;
                clsort_spec_default(&spec);
                spec.key_type = kt;
                spec.algorithm = CLSORT_ALGO_HOST_RADIX;
                spec.float_order = step % 3 ? CLSORT_FLOAT_NUMPY : CLSORT_FLOAT_TOTAL;
                spec.descending = (int)(step / 2 % 2);
                const size_t n = key_size(kt) == 8 && z == 0 ? sizes[z] / 2 : sizes[z];
                char what[160];
                snprintf(what, sizeof what, "kind %d, key type %d, %s, float order %d, n %zu, "
                         "value size %zu", kind, (int)kt, spec.descending ? "descending"
                         : "ascending", (int)spec.float_order, n, types[t].vs);
                for (int c = 0; c < 2; c++) {
                    ctx = ctxs[c];
                    run_one(&spec, keys, n, types[t].vs, what);
                }
            }
        }
    }
    free(keys);
}

int main(void)
{
    if (setenv("CLSORT_HOST_INLINE_BYTES", "0", 1) || clsort_open(&ctxs[1], NULL) != CLSORT_OK ||
        unsetenv("CLSORT_HOST_INLINE_BYTES") || clsort_open(&ctxs[0], NULL) != CLSORT_OK) {
        fprintf(stderr, "test_host_wide: %s\n", clsort_last_error_detail());
        return 1;
    }
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_wide) };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&ctxs[0]);
    clsort_close(&ctxs[1]);
    return failed;
}
