/*
 * clsort_sort_records(): records sorted by a key field against a host reference (a stable merge sort
 * of positions comparing the field with memcmp, or as numbers of the key type, written here from
 * the definitions), bit for bit, the whole records and the positions: keys of bytes of 1 to 33
 * bytes at offsets, few distinct keys (ties check stability), both orders; numeric keys at odd
 * offsets; sizes 0, 1, 2 and across tiles; the refusals; the device's way falling back to the host's
 * when device memory is refused. CLSORT_DEVICE_GATHER=1 takes every case through the device's way
 * (the records gathered on the device) where the default would take the host's.
 * Usage: test_fields ALGORITHM
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

static clsort_algorithm algo;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct field {
    size_t rs, off, key_size; /* key_size 0: a number of type */
    clsort_key_type type;
    int desc;
} field;

/* IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN) as unsigned order */
static uint64_t total_order(uint64_t bits, unsigned width)
{
    const uint64_t sign = (uint64_t)1 << (width - 1);
    const uint64_t all = width == 64 ? ~(uint64_t)0 : (sign << 1) - 1;
    return bits & sign ? ~bits & all : bits | sign;
}

/* a < b, by the field: memcmp for bytes; numbers by value (u32, i32, i64, f32, f64) */
static int cmp_field(const field *f, const unsigned char *a, const unsigned char *b)
{
    int c;
    if (f->key_size) {
        c = memcmp(a + f->off, b + f->off, f->key_size);
        c = c < 0 ? -1 : c > 0;
    } else if (f->type == CLSORT_KEY_I64) {
        int64_t x, y;
        memcpy(&x, a + f->off, 8);
        memcpy(&y, b + f->off, 8);
        c = x < y ? -1 : x > y;
    } else if (f->type == CLSORT_KEY_I32) {
        int32_t x, y;
        memcpy(&x, a + f->off, 4);
        memcpy(&y, b + f->off, 4);
        c = x < y ? -1 : x > y;
    } else if (f->type == CLSORT_KEY_F32 || f->type == CLSORT_KEY_F64) {
        const unsigned w = f->type == CLSORT_KEY_F32 ? 32 : 64;
        uint64_t x = 0, y = 0; /* little-endian hosts, as the library assumes */
        memcpy(&x, a + f->off, w / 8);
        memcpy(&y, b + f->off, w / 8);
        x = total_order(x, w);
        y = total_order(y, w);
        c = x < y ? -1 : x > y;
    } else {
        uint32_t x, y;
        memcpy(&x, a + f->off, 4);
        memcpy(&y, b + f->off, 4);
        c = x < y ? -1 : x > y;
    }
    return f->desc ? -c : c;
}

static void merge_sort(const field *f, const unsigned char *rec, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    const size_t h = n / 2;
    merge_sort(f, rec, idx, tmp, h);
    merge_sort(f, rec, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_field(f, rec + idx[j] * f->rs, rec + idx[i] * f->rs) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static void check(clsort_context *ctx, const field *f, size_t n, uint64_t seed)
{
    unsigned char *rec = malloc(n * f->rs + 1), *orig = malloc(n * f->rs + 1);
    uint64_t *index = malloc((n + 1) * sizeof *index);
    size_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
    uint64_t s = seed;
    for (size_t i = 0; i < n * f->rs; i++)
        orig[i] = (unsigned char)rng(&s);
    /* few distinct keys: a key copied from one of 5 records, or sharing a long prefix with one */
    const size_t ks = f->key_size ? f->key_size : clsort_key_type_size(f->type);
    for (size_t i = 5; i < n; i++) {
        const uint64_t r = rng(&s);
        if (r % 3 == 0)
            memcpy(orig + i * f->rs + f->off, orig + (r >> 8) % 5 * f->rs + f->off, ks);
        else if (r % 3 == 1 && ks > 1)
            memcpy(orig + i * f->rs + f->off, orig + (r >> 8) % 5 * f->rs + f->off, ks - 1);
    }
    memcpy(rec, orig, n * f->rs);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    merge_sort(f, orig, idx, tmp, n);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = f->type;
    spec.descending = f->desc;
    clsort_status st =
        clsort_sort_records(ctx, &spec, rec, n, f->rs, f->off, f->key_size, index, NULL);
    if (st != CLSORT_OK)
        fail_msg("rs %zu off %zu key %zu n %zu: %s: %s", f->rs, f->off, f->key_size, n,
                 clsort_status_string(st), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        if (index[i] != idx[i])
            fail_msg("rs %zu off %zu key %zu desc %d n %zu: position %zu is %llu, expected %zu",
                     f->rs, f->off, f->key_size, f->desc, n, i, (unsigned long long)index[i], idx[i]);
        if (memcmp(rec + i * f->rs, orig + idx[i] * f->rs, f->rs))
            fail_msg("rs %zu off %zu key %zu n %zu: record %zu is not input record %zu", f->rs,
                     f->off, f->key_size, n, i, idx[i]);
    }
    /* without positions asked for (records that are their keys take a sort of keys alone) */
    memcpy(rec, orig, n * f->rs);
    st = clsort_sort_records(ctx, &spec, rec, n, f->rs, f->off, f->key_size, NULL, NULL);
    if (st != CLSORT_OK)
        fail_msg("rs %zu n %zu, no index: %s", f->rs, n, clsort_status_string(st));
    for (size_t i = 0; i < n; i++)
        if (memcmp(rec + i * f->rs, orig + idx[i] * f->rs, f->rs))
            fail_msg("rs %zu off %zu key %zu n %zu, no index: record %zu is not input record %zu",
                     f->rs, f->off, f->key_size, n, i, idx[i]);
    free(rec);
    free(orig);
    free(index);
    free(idx);
    free(tmp);
}

static void test_bytes(void **state)
{
    clsort_context *ctx = *state;
    static const size_t key_sizes[] = { 1, 7, 8, 9, 10, 16, 17, 32, 33 };
    static const size_t sizes[] = { 0, 1, 2, 1000, 4097 };
    for (size_t k = 0; k < sizeof key_sizes / sizeof key_sizes[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            const size_t ks = key_sizes[k];
            field f = { ks + 3 + k, k % 3, ks, CLSORT_KEY_U32, (int)((k + z) & 1) };
            check(ctx, &f, sizes[z], k * 100 + z);
        }
    field gensort = { 100, 0, 10, CLSORT_KEY_U32, 0 }; /* the Sort Benchmark's records */
    check(ctx, &gensort, 140001, 7); /* past one slice of the host's threads */
}

static void test_numbers(void **state)
{
    clsort_context *ctx = *state;
    for (int desc = 0; desc < 2; desc++) {
        field u = { 13, 5, 0, CLSORT_KEY_U32, desc }, i = { 24, 9, 0, CLSORT_KEY_I64, desc };
        check(ctx, &u, 5003, 11 + desc);
        check(ctx, &i, 2001, 21 + desc);
        /* records that are their keys (sorted in place, no gather), and the record sizes whose
         * gather copies a fixed size: 4, 8, 12, 16 bytes */
        field bare32 = { 4, 0, 0, CLSORT_KEY_F32, desc }, bare64 = { 8, 0, 0, CLSORT_KEY_I64, desc };
        field kv8 = { 8, 4, 0, CLSORT_KEY_I32, desc }, kv12 = { 12, 0, 0, CLSORT_KEY_U32, desc };
        field kv16 = { 16, 8, 0, CLSORT_KEY_F64, desc };
        check(ctx, &bare32, 70001, 31 + desc);
        check(ctx, &bare64, 3001, 41 + desc);
        check(ctx, &kv8, 3001, 51 + desc);
        check(ctx, &kv12, 1, 61 + desc);
        check(ctx, &kv12, 3001, 61 + desc);
        check(ctx, &kv16, 3001, 71 + desc);
    }
}

static void test_refusals(void **state)
{
    clsort_context *ctx = *state;
    unsigned char rec[64] = { 3, 2, 1 };
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    assert_int_equal(clsort_sort_records(ctx, &spec, rec, 4, 16, 10, 8, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "does not fit in records of 16 bytes"));
    spec.end_bit = 8;
    assert_int_equal(clsort_sort_records(ctx, &spec, rec, 4, 16, 0, 8, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "no bit range"));
    spec.end_bit = 0;
    spec.value_size = 4;
    assert_int_equal(clsort_sort_records(ctx, &spec, rec, 4, 16, 0, 8, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.value_size = 0;
    spec.algorithm = CLSORT_ALGO_BITONIC;
    assert_int_equal(clsort_sort_records(ctx, &spec, rec, 4, 16, 0, 8, NULL, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    assert_int_equal(rec[0], 3);
}

/* The records on the device (CLSORT_DEVICE_GATHER=1) with its second buffer refused
 * (CLSORT_FAULT_ALLOC): the host's way takes over, the result the same. */
static void test_device_fallback(void **state)
{
    (void)state;
    clsort_context *ctx = NULL;
    setenv("CLSORT_DEVICE_GATHER", "1", 1);
    setenv("CLSORT_FAULT_ALLOC", "2", 1);
    const clsort_status st = clsort_open(&ctx, NULL);
    unsetenv("CLSORT_FAULT_ALLOC");
    if (st != CLSORT_OK)
        fail_msg("clsort_open: %s", clsort_last_error_detail());
    field gensort = { 100, 0, 10, CLSORT_KEY_U32, 1 };
    check(ctx, &gensort, 3001, 8);
    clsort_close(&ctx);
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

int main(int argc, char **argv)
{
    if (argc < 2 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK) {
        fprintf(stderr, "usage: %s ALGORITHM\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_device_fallback),
    };
    return cmocka_run_group_tests_name(argv[1], all, setup, teardown);
}
