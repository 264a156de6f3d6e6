/*
 * Small host arrays that host-radix sorts are sorted in the calling thread (lib/runs/run.c,
 * clsort_host_radix_sort_host()); larger ones, and every one under CLSORT_HOST_INLINE_BYTES=0, on
 * mapped buffers by a thread of the library. Both paths on the same inputs must give the same bytes:
 * clsort_sort() with no values and values of 4 and 8 bytes, clsort_argsort() with positions of 4
 * and 8, every key type, both orders, a bit window, numpy's float order, fixed and variable
 * segments, at sizes 0, 1, 2, 17, 1000 and around the limit (CLSORT_HOST_INLINE_MAX_BYTES of keys
 * and values). The statistics of the calling thread's path name host-radix and no transfers.
 * Usage: test_host_inline
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

/* lib/hostradix/host_sort.h's CLSORT_HOST_INLINE_MAX_BYTES */
#define INLINE_MAX_BYTES ((size_t)512 << 10)

static clsort_context *inline_ctx, *thread_ctx;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t key_size(clsort_key_type t)
{
    return t == CLSORT_KEY_U64 || t == CLSORT_KEY_I64 || t == CLSORT_KEY_F64 ? 8 : 4;
}

/* Random bits; a quarter of the keys from 5 values (ties); floats get zeros of both signs and NaNs
 * of both signs too. */
static void fill(unsigned char *keys, clsort_key_type t, size_t n, uint64_t seed)
{
    const size_t ks = key_size(t);
    const int is_float = t == CLSORT_KEY_F32 || t == CLSORT_KEY_F64;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed), k = rng(&seed);
        if (r % 4 == 0)
            k = (r >> 8) % 5 * 0x0101010101010101ull;
        if (is_float && r % 16 == 1) {
            static const uint64_t f64s[] = { 0, 0x8000000000000000ull, 0x7ff8000000000000ull,
                                             0xfff8000000000001ull };
            static const uint32_t f32s[] = { 0, 0x80000000u, 0x7fc00000u, 0xffc00001u };
            k = ks == 8 ? f64s[(r >> 8) % 4] : f32s[(r >> 8) % 4];
        }
        memcpy(keys + i * ks, &k, ks); /* (little-endian: the low bytes) */
    }
}

typedef enum { SORT, ARGSORT, SEGMENTS } call_kind;

/* One call on a copy of keys (and values 0, 1, ... where vs): in the calling thread and through
 * the thread, the same bytes out. */
static void compare(const clsort_spec *spec, call_kind kind, size_t vs, const unsigned char *keys,
                    size_t n)
{
    const size_t ks = key_size(spec->key_type);
    unsigned char *k[2], *v[2];
    clsort_stats stats[2];
    uint64_t off[5] = { 0, n / 3, n / 3, n / 2 + 1 < n ? n / 2 + 1 : n, n };
    for (int p = 0; p < 2; p++) {
        k[p] = malloc(n * ks + 1);
        v[p] = malloc(n * vs + 1);
        assert_non_null(k[p]);
        assert_non_null(v[p]);
        memcpy(k[p], keys, n * ks);
        for (size_t i = 0; i < n && vs; i++) {
            const uint64_t x = i * 0x10001ull + 3;
            memcpy(v[p] + i * vs, &x, vs);
        }
        clsort_context *ctx = p ? thread_ctx : inline_ctx;
        clsort_status st;
        clsort_spec s = *spec;
        if (kind == ARGSORT) {
            st = clsort_argsort(ctx, &s, k[p], v[p], vs, n, &stats[p]);
        } else {
            s.value_size = vs;
            st = kind == SEGMENTS
                     ? clsort_sort_segments(ctx, &s, k[p], vs ? v[p] : NULL, n, off, 4, &stats[p])
                     : clsort_sort(ctx, &s, k[p], vs ? v[p] : NULL, n, &stats[p]);
        }
        if (st != CLSORT_OK)
            fail_msg("%s: %s", clsort_status_string(st), clsort_error_detail(ctx));
    }
    if (memcmp(k[0], k[1], n * ks) || memcmp(v[0], v[1], n * vs))
        fail_msg("key type %d, %s, bits %u:%u, float order %d, segment %zu, %s, value size %zu, n "
                 "%zu: the calling thread's result differs from the threaded path's",
                 (int)spec->key_type, spec->descending ? "descending" : "ascending",
                 spec->begin_bit, spec->end_bit, (int)spec->float_order, spec->segment,
                 kind == ARGSORT ? "argsort" : kind == SEGMENTS ? "segments" : "sort", vs, n);
    if (n > 1 && n * (ks + vs) <= INLINE_MAX_BYTES && !strcmp(stats[1].algorithm, "host-radix")) {
        assert_string_equal(stats[0].algorithm, "host-radix");
        assert_true(stats[0].upload_ms == 0 && stats[0].download_ms == 0);
        assert_int_equal(stats[0].n, n);
    }
    for (int p = 0; p < 2; p++) {
        free(k[p]);
        free(v[p]);
    }
}

static void each_call(const clsort_spec *spec, const unsigned char *keys, size_t n, int all)
{
    const size_t ks = key_size(spec->key_type);
    static const size_t sizes[] = { 0, 4, 8 };
    for (int i = 0; i < 3; i++) {
        const size_t vs = sizes[i], lim = INLINE_MAX_BYTES / (ks + vs);
        if (all || (n + 1 >= lim && n <= lim + 1))
            compare(spec, SORT, vs, keys, n);
        if (i && (all || (n + 1 >= lim && n <= lim + 1)))
            compare(spec, ARGSORT, vs, keys, n);
    }
}

static void test_types_orders_sizes(void **state)
{
    (void)state;
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++) {
        const size_t ks = key_size(t);
        /* the limit in records with no values, 4-byte and 8-byte ones, each -1, 0, +1 */
        size_t sizes[16] = { 0, 1, 2, 17, 1000 }, m = 5;
        for (size_t vs = 0; vs <= 8; vs += 4)
            for (int d = -1; d <= 1; d++)
                sizes[m++] = INLINE_MAX_BYTES / (ks + vs) + d;
        const size_t most = INLINE_MAX_BYTES / ks + 1;
        unsigned char *keys = malloc(most * ks);
        assert_non_null(keys);
        fill(keys, t, most, 11 + t);
        for (int desc = 0; desc < 2; desc++) {
            clsort_spec spec;
            clsort_spec_default(&spec);
            spec.key_type = t;
            spec.descending = desc;
            spec.algorithm = CLSORT_ALGO_AUTO; /* host-radix on a CPU device */
            for (size_t i = 0; i < m; i++)
                each_call(&spec, keys, sizes[i], i < 5);
            /* a bit window, numpy's float order, fixed and variable segments */
            clsort_spec w = spec;
            w.begin_bit = 3;
            w.end_bit = (unsigned)ks * 8 - 5;
            each_call(&w, keys, 1000, 1);
            if (t == CLSORT_KEY_F32 || t == CLSORT_KEY_F64) {
                clsort_spec f = spec;
                f.float_order = CLSORT_FLOAT_NUMPY;
                for (size_t i = 0; i < m; i++)
                    each_call(&f, keys, sizes[i], i < 5);
            }
            clsort_spec g = spec;
            g.segment = 100;
            compare(&g, SORT, 4, keys, 1000);
            compare(&spec, SEGMENTS, 8, keys, 1000);
            compare(&spec, SEGMENTS, 0, keys, 17);
        }
        free(keys);
    }
}

int main(void)
{
    /* the test hook is read when a context opens */
    if (setenv("CLSORT_HOST_INLINE_BYTES", "0", 1) || clsort_open(&thread_ctx, NULL) != CLSORT_OK ||
        unsetenv("CLSORT_HOST_INLINE_BYTES") || clsort_open(&inline_ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "test_host_inline: %s\n", clsort_last_error_detail());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_orders_sizes),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&inline_ctx);
    clsort_close(&thread_ctx);
    return failed;
}
