/*
 * Key types, orders and bit ranges against a host reference: every type (u32 i32 f32 u64 i64 f64)
 * with special values (min, max, ±0.0, ±inf, NaNs with payloads and signs, denormals), ascending and
 * descending, values of 0, 4 and 8 bytes, and bit windows, for every algorithm; argsort (positions
 * written on the host and on the device) against the same reference.
 * Usage: test_keys ALGORITHM [quick|full]   (quick: small sizes over a few tiles, for runs under
 * oclgrind; full: every bit window with every value size)
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
static int quick, full;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int wide(clsort_key_type t) { return t >= CLSORT_KEY_U64; }

/* Raw key i of an array of 4- or 8-byte keys, as 64 bits. */
static uint64_t key_at(const void *keys, clsort_key_type t, size_t i)
{
    if (wide(t))
        return ((const uint64_t *)keys)[i];
    return ((const uint32_t *)keys)[i];
}

/* IEEE total order by value, written from the definition rather than from bit tricks. */
static int cmp_float(double a, double b, int na_neg, int nb_neg, uint64_t pa, uint64_t pb)
{
    int an = isnan(a), bn = isnan(b);
    if (an || bn) {
        int ra = an ? (na_neg ? -2 : 2) : 0, rb = bn ? (nb_neg ? -2 : 2) : 0;
        if (ra != rb)
            return ra < rb ? -1 : 1;
        /* both NaN with the same sign: a larger payload is further from zero */
        int c = pa < pb ? -1 : pa > pb;
        return na_neg ? -c : c;
    }
    if (a != b)
        return a < b ? -1 : 1;
    if (a == 0 && signbit(a) != signbit(b))
        return signbit(a) ? -1 : 1;
    return 0;
}

/* Order of two raw keys of a type, ascending, using all their bits. */
static int cmp_full(clsort_key_type t, uint64_t x, uint64_t y)
{
    switch (t) {
    case CLSORT_KEY_I32:
        return (int32_t)x < (int32_t)y ? -1 : (int32_t)x > (int32_t)y;
    case CLSORT_KEY_I64:
        return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
    case CLSORT_KEY_F32: {
        float a, b;
        uint32_t xa = (uint32_t)x, ya = (uint32_t)y;
        memcpy(&a, &xa, 4);
        memcpy(&b, &ya, 4);
        return cmp_float(a, b, xa >> 31, ya >> 31, xa & 0x7fffffu, ya & 0x7fffffu);
    }
    case CLSORT_KEY_F64: {
        double a, b;
        memcpy(&a, &x, 8);
        memcpy(&b, &y, 8);
        return cmp_float(a, b, (int)(x >> 63), (int)(y >> 63), x & 0xfffffffffffffull,
                         y & 0xfffffffffffffull);
    }
    default:
        return x < y ? -1 : x > y;
    }
}

/* The mapped bits the bit range is defined on (see clsort_key_type). */
static uint64_t mapped(clsort_key_type t, uint64_t k)
{
    const int w = wide(t) ? 64 : 32;
    const uint64_t sign = 1ull << (w - 1), ones = w == 64 ? ~0ull : 0xffffffffull;
    if (t == CLSORT_KEY_I32 || t == CLSORT_KEY_I64)
        return k ^ sign;
    if (t == CLSORT_KEY_F32 || t == CLSORT_KEY_F64)
        return (k & sign) ? (~k & ones) : (k | sign);
    return k;
}

typedef struct order {
    clsort_key_type type;
    int descending;
    unsigned begin, end; /* end 0: full */
} order;

static int cmp_keys(const order *o, uint64_t x, uint64_t y)
{
    int c;
    if (o->end) {
        uint64_t mask = o->end - o->begin == 64 ? ~0ull : ((1ull << (o->end - o->begin)) - 1);
        uint64_t a = (mapped(o->type, x) >> o->begin) & mask, b = (mapped(o->type, y) >> o->begin) & mask;
        c = a < b ? -1 : a > b;
    } else {
        c = cmp_full(o->type, x, y);
    }
    return o->descending ? -c : c;
}

/* Stable merge sort of an index permutation by key. */
static void merge_sort(const order *o, const void *keys, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(o, keys, idx, tmp, h);
    merge_sort(o, keys, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_keys(o, key_at(keys, o->type, idx[j]), key_at(keys, o->type, idx[i])) < 0
                       ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static void fill(clsort_key_type t, void *keys, size_t n, uint64_t seed)
{
    static const uint32_t sp32[] = { 0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0xffc00000u, 0x7f800001u, 0xff812345u, 0x00000001u, 0x807fffffu,
                                     0x7f7fffffu, 0xff7fffffu, 0x7fffffffu, 0xffffffffu, 1, 2 };
    static const uint64_t sp64[] = { 0, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                     0xfff0000000000000ull, 0x7ff8000000000000ull,
                                     0xfff8000000000000ull, 0x7ff0000000000001ull,
                                     0xfff0000000abcdefull, 1, 0x800fffffffffffffull,
                                     0x7fefffffffffffffull, 0xffefffffffffffffull,
                                     0x7fffffffffffffffull, 0xffffffffffffffffull, 2, 3 };
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&s), v;
        switch (r % 4) {
        case 0: /* special values, repeated: ties check stability */
            v = wide(t) ? sp64[(r >> 8) % 16] : sp32[(r >> 8) % 16];
            break;
        case 1: /* few distinct values */
            v = (r >> 8) % 5 * 0x01010101u;
            break;
        default:
            v = rng(&s);
        }
        if (wide(t))
            ((uint64_t *)keys)[i] = v;
        else
            ((uint32_t *)keys)[i] = (uint32_t)v;
    }
}

static void check(clsort_context *ctx, const order *o, size_t vs, size_t n)
{
    const size_t ks = wide(o->type) ? 8 : 4;
    unsigned char *keys = malloc(n * ks + 8), *orig = malloc(n * ks + 8);
    unsigned char *vals = vs ? malloc(n * vs + 8) : NULL;
    size_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
    fill(o->type, keys, n, n * 31 + o->type);
    memcpy(orig, keys, n * ks);
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        if (vs == 4)
            ((uint32_t *)vals)[i] = (uint32_t)i;
        else if (vs == 8)
            ((uint64_t *)vals)[i] = (uint64_t)i << 32 | (uint64_t)i;
    }
    merge_sort(o, orig, idx, tmp, n);

    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = o->type;
    spec.value_size = vs;
    spec.descending = o->descending;
    spec.begin_bit = o->begin;
    spec.end_bit = o->end;
    clsort_status st = clsort_sort(ctx, &spec, keys, vals, n, NULL);
    if (st != CLSORT_OK)
        fail_msg("type %d desc %d bits %u:%u vs %zu n %zu: %s: %s", o->type, o->descending, o->begin,
                 o->end, vs, n, clsort_status_string(st), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        uint64_t got = key_at(keys, o->type, i), want = key_at(orig, o->type, idx[i]);
        /* Unstable sorts may order keys that compare equal (in a bit window) differently. */
        int same = unstable ? cmp_keys(o, got, want) == 0 && (o->end || got == want) : got == want;
        if (!same)
            fail_msg("type %d desc %d bits %u:%u vs %zu n %zu: key %zu is %016llx, expected %016llx",
                     o->type, o->descending, o->begin, o->end, vs, n, i, (unsigned long long)got,
                     (unsigned long long)want);
        if (vs) {
            uint64_t v = vs == 4 ? ((uint32_t *)vals)[i] : ((uint64_t *)vals)[i] & 0xffffffffu;
            if (vs == 8 && ((uint64_t *)vals)[i] >> 32 != v)
                fail_msg("8-byte value %zu torn", i);
            if (v >= n || key_at(orig, o->type, v) != got)
                fail_msg("type %d n %zu: value %zu (%llu) does not belong to its key", o->type, n, i,
                         (unsigned long long)v);
            if (!unstable && v != idx[i])
                fail_msg("type %d desc %d bits %u:%u vs %zu n %zu: value %zu is %llu, expected %zu "
                         "(not stable)", o->type, o->descending, o->begin, o->end, vs, n, i,
                         (unsigned long long)v, idx[i]);
        }
    }
    if (unstable && vs) { /* each record exactly once */
        unsigned char *seen = calloc(n + 1, 1);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = vs == 4 ? ((uint32_t *)vals)[i] : ((uint64_t *)vals)[i] & 0xffffffffu;
            assert_false(seen[v]);
            seen[v] = 1;
        }
        free(seen);
    }
    free(keys);
    free(orig);
    free(vals);
    free(idx);
    free(tmp);
}

static const size_t sizes[] = { 0, 1, 2, 3, 1000, 4097, 70001 };
/* host-radix sorts up to 4 MiB of records in one thread and more on all of them: a size past that
 * for every type, order, value size and bit window (0 for the others). */
static size_t threaded_n;
/* Under oclgrind: a tail below a tile, and more than a tile of every family's simulator shapes
 * (257: a radix tile of 256 and one key, four comparison tiles of 64 and one key). Bitonic takes
 * 513 instead (set in main): padded to 1024 keys, its global merges span two work-groups. */
static size_t quick_sizes[] = { 3, 77, 257 };

static void test_types(void **state)
{
    clsort_context *ctx = *state;
    if (quick) {
        for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
            for (size_t vs = 0; vs <= 8; vs += 4)
                for (size_t s = 0; s < sizeof quick_sizes / sizeof quick_sizes[0]; s++) {
                    order o = { t, (int)((s + vs / 4) & 1), 0, 0 }; /* both orders on every type */
                    check(ctx, &o, vs, quick_sizes[s]);
                }
        return;
    }
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++) {
        for (int desc = 0; desc < 2; desc++)
            for (size_t vs = 0; vs <= 8; vs += 4)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                    if (algo == CLSORT_ALGO_ODDEVEN && sizes[s] > CLSORT_ODDEVEN_MAX_KEYS)
                        continue;
                    order o = { t, desc, 0, 0 };
                    check(ctx, &o, vs, sizes[s]);
                }
        for (int desc = 0; desc < 2 && threaded_n; desc++)
            for (size_t vs = 0; vs <= 8; vs += 4) {
                order o = { t, desc, 0, 0 };
                check(ctx, &o, vs, threaded_n);
            }
    }
}

static void test_bit_ranges(void **state)
{
    clsort_context *ctx = *state;
    static const unsigned w32[][2] = { { 0, 8 }, { 3, 13 }, { 8, 16 }, { 13, 31 }, { 16, 32 }, { 0, 32 } };
    static const unsigned w64[][2] = { { 0, 8 }, { 13, 31 }, { 16, 32 }, { 29, 47 }, { 40, 64 }, { 0, 64 } };
    if (quick) {
        /* A window inside the key and one that ends at its top bit, across 32-bit halves for u64. */
        static const unsigned q32[][2] = { { 3, 13 }, { 16, 32 } };
        static const unsigned q64[][2] = { { 29, 47 }, { 40, 64 } };
        for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
            for (int w = 0; w < 2; w++) {
                order o = { t, w, wide(t) ? q64[w][0] : q32[w][0], wide(t) ? q64[w][1] : q32[w][1] };
                check(ctx, &o, 4, algo == CLSORT_ALGO_BITONIC ? 513 : 300);
                check(ctx, &o, 8, 257);
            }
        return;
    }
    /* Each (type, window, order) builds its own programs: the default run takes one value size per
     * case, in turn, and full every value size. */
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
        for (int w = 0; w < 6; w++)
            for (int desc = 0; desc < 2; desc++) {
                order o = { t, desc, wide(t) ? w64[w][0] : w32[w][0], wide(t) ? w64[w][1] : w32[w][1] };
                const int turn = (int)(t + w + desc) % 3;
                if (full || turn == 0)
                    check(ctx, &o, 4, 4097);
                if (full || turn == 1)
                    check(ctx, &o, 8, 1000);
                if ((full || turn == 2) && algo != CLSORT_ALGO_ODDEVEN) /* past its size limit */
                    check(ctx, &o, 0, 70001);
                if (threaded_n)
                    check(ctx, &o, (size_t)turn * 4, threaded_n);
            }
}

/* clsort_key_order() against the reference comparison: every type, both orders, full keys and bit
 * windows, on pairs drawn from the special values, few distinct values and random bits. Host only. */
static void test_key_order(void **state)
{
    (void)state;
    static const unsigned win[][2] = { { 0, 0 }, { 3, 13 }, { 16, 32 }, { 0, 8 } };
    static const unsigned win64[][2] = { { 0, 0 }, { 29, 47 }, { 40, 64 }, { 0, 8 } };
    uint64_t keys[512];
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++) {
        assert_int_equal(clsort_key_type_size(t), wide(t) ? 8 : 4);
        clsort_key_type back;
        assert_int_equal(clsort_key_type_from_name(clsort_key_type_name(t), &back), CLSORT_OK);
        assert_int_equal(back, t);
        fill(t, keys, 512, 77 + t);
        for (int w = 0; w < 4; w++)
            for (int desc = 0; desc < 2; desc++) {
                order o = { t, desc, wide(t) ? win64[w][0] : win[w][0], wide(t) ? win64[w][1] : win[w][1] };
                clsort_spec spec;
                clsort_spec_default(&spec);
                spec.key_type = t;
                spec.descending = desc;
                spec.begin_bit = o.begin;
                spec.end_bit = o.end;
                /* the batch form gives the same orders, packed and with a record stride */
                uint64_t batch[512], strided[256];
                const size_t ks = clsort_key_type_size(t);
                clsort_key_orders(&spec, keys, ks, 512, batch);
                clsort_key_orders(&spec, keys, 2 * ks, 256, strided);
                for (size_t i = 0; i < 512; i++) {
                    const unsigned char *p = (const unsigned char *)keys + i * ks;
                    assert_int_equal(batch[i], clsort_key_order(&spec, p));
                    if (i % 2 == 0)
                        assert_int_equal(strided[i / 2], batch[i]);
                }
                for (size_t i = 0; i + 1 < 512; i++) {
                    const unsigned char *a = (const unsigned char *)keys + i * clsort_key_type_size(t);
                    const unsigned char *b = a + clsort_key_type_size(t);
                    uint64_t x = clsort_key_order(&spec, a), y = clsort_key_order(&spec, b);
                    int c = x < y ? -1 : x > y;
                    int want = cmp_keys(&o, key_at(keys, t, i), key_at(keys, t, i + 1));
                    if (c != want)
                        fail_msg("%s desc %d bits %u:%u, keys %zu and %zu: order %d, expected %d",
                                 clsort_key_type_name(t), desc, o.begin, o.end, i, i + 1, c, want);
                }
            }
    }
    clsort_key_type none;
    assert_int_equal(clsort_key_type_from_name("u16", &none), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_null(clsort_key_type_name((clsort_key_type)6));
    assert_int_equal(clsort_key_type_size((clsort_key_type)6), 0);
}

/* An argsort's keys and positions against the reference permutation idx of orig. */
static void expect_argsort(const order *o, const void *orig, const size_t *idx, const void *keys,
                           const void *index, size_t isz, size_t n, const char *path)
{
    unsigned char *seen = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        const uint64_t got = key_at(keys, o->type, i), want = key_at(orig, o->type, idx[i]);
        const uint64_t pos = isz == 4 ? ((const uint32_t *)index)[i] : ((const uint64_t *)index)[i];
        if (unstable ? cmp_keys(o, got, want) != 0 : got != want)
            fail_msg("%s type %d desc %d isz %zu n %zu: key %zu is %016llx, expected %016llx", path,
                     o->type, o->descending, isz, n, i, (unsigned long long)got,
                     (unsigned long long)want);
        if (pos >= n || seen[pos] || key_at(orig, o->type, pos) != got)
            fail_msg("%s type %d n %zu: position %zu (%llu) is not its key's, or repeated", path,
                     o->type, n, i, (unsigned long long)pos);
        seen[pos] = 1;
        if (!unstable && pos != idx[i])
            fail_msg("%s type %d desc %d isz %zu n %zu: position %zu is %llu, expected %zu", path,
                     o->type, o->descending, isz, n, i, (unsigned long long)pos, idx[i]);
    }
    free(seen);
}

/* clsort_argsort() on host arrays and clsort_argsort_enqueue() on device buffers (positions written
 * on the device) against the reference's stable permutation. */
static void check_argsort(clsort_context *ctx, const order *o, size_t isz, size_t n)
{
    const size_t ks = wide(o->type) ? 8 : 4;
    unsigned char *keys = malloc(n * ks + 8), *orig = malloc(n * ks + 8);
    unsigned char *index = malloc(n * isz + 8);
    size_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
    fill(o->type, orig, n, n * 17 + o->type);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    merge_sort(o, orig, idx, tmp, n);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.key_type = o->type;
    spec.descending = o->descending;
    spec.begin_bit = o->begin;
    spec.end_bit = o->end;

    /* Under the simulator only the device path: the host one runs the sorts test_types runs. */
    clsort_status st;
    if (!quick) {
        memcpy(keys, orig, n * ks);
        memset(index, 0xa5, n * isz);
        st = clsort_argsort(ctx, &spec, keys, index, isz, n, NULL);
        if (st != CLSORT_OK)
            fail_msg("clsort_argsort n %zu: %s: %s", n, clsort_status_string(st),
                     clsort_error_detail(ctx));
        expect_argsort(o, orig, idx, keys, index, isz, n, "host");
    }

    cl_context cl;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &cl, &q), CLSORT_OK);
    cl_int err;
    /* written, not copied at creation: Oclgrind counts only written bytes as initialised */
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * ks + 8, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    if (n)
        assert_int_equal(clEnqueueWriteBuffer(q, kb, CL_TRUE, 0, n * ks, orig, 0, NULL, NULL),
                         CL_SUCCESS);
    cl_mem ib = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * isz + 8, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* Under the simulator the positions buffer starts filled: its uninitialised-value check reports
     * bitonic's reads of positions that index_fill wrote before them (the results are right, and
     * right with the fill too: a position index_fill missed would stay 0 and fail the check). */
    if (quick) {
        const cl_uint zero = 0;
        assert_int_equal(clEnqueueFillBuffer(q, ib, &zero, sizeof zero, 0, n * isz + 8, 0, NULL,
                                             NULL),
                         CL_SUCCESS);
    }
    cl_event done = NULL;
    st = clsort_argsort_enqueue(ctx, &spec, kb, ib, isz, n, 0, NULL, &done);
    if (st != CLSORT_OK)
        fail_msg("clsort_argsort_enqueue n %zu: %s: %s", n, clsort_status_string(st),
                 clsort_error_detail(ctx));
    assert_non_null(done);
    if (n) {
        assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * ks, keys, 1, &done, NULL),
                         CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(q, ib, CL_TRUE, 0, n * isz, index, 0, NULL, NULL),
                         CL_SUCCESS);
    }
    clReleaseEvent(done);
    expect_argsort(o, orig, idx, keys, index, isz, n, "device");
    clReleaseMemObject(kb);
    clReleaseMemObject(ib);
    free(keys);
    free(orig);
    free(index);
    free(idx);
    free(tmp);
}

/* An unstable algorithm gives equal keys' positions in any order (bitonic returned them decreasing,
 * with CLSORT_OK, against the header's "stable"): both argsorts refuse it before any work, naming
 * the stable algorithms; auto, on every device, takes a stable one. */
static void argsort_refused(clsort_context *ctx)
{
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    uint32_t k[4] = { 5, 5, 5, 1 }, ix[4] = { 7, 7, 7, 7 };
    char want[96];
    snprintf(want, sizeof want, "argsort: %s is not stable", clsort_algorithm_name(algo));
    assert_int_equal(clsort_argsort(ctx, &spec, k, ix, 4, 4, NULL), CLSORT_ERROR_UNSUPPORTED);
    if (!strstr(clsort_error_detail(ctx), want) || !strstr(clsort_error_detail(ctx), "radix8") ||
        !strstr(clsort_error_detail(ctx), "host-radix"))
        fail_msg("clsort_argsort with %s: unclear detail: %s", clsort_algorithm_name(algo),
                 clsort_error_detail(ctx));
    assert_true(k[0] == 5 && k[3] == 1 && ix[0] == 7 && ix[3] == 7);
    cl_context cl;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &cl, &q), CLSORT_OK);
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof k, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem ib = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof ix, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (size_t seg = 0; seg <= 2; seg += 2) { /* whole, and segments */
        spec.segment = seg;
        assert_int_equal(clsort_argsort_enqueue(ctx, &spec, kb, ib, 4, 4, 0, NULL, NULL),
                         CLSORT_ERROR_UNSUPPORTED);
        assert_non_null(strstr(clsort_error_detail(ctx), want));
    }
    clReleaseMemObject(kb);
    clReleaseMemObject(ib);
}

static void test_argsort(void **state)
{
    clsort_context *ctx = *state;
    if (unstable) {
        argsort_refused(ctx);
        return;
    }
    static const size_t argsort_sizes[] = { 0, 1, 2, 1000, 4097, 70001 };
    /* under the simulator: both index sizes, a 32- and a 64-bit key, one size each */
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t += quick ? 3 : 1)
        for (size_t s = 0; s < (quick ? 1 : sizeof argsort_sizes / sizeof argsort_sizes[0]); s++) {
            const size_t n = quick ? quick_sizes[1 + t % 2] : argsort_sizes[s];
            if (algo == CLSORT_ALGO_ODDEVEN && n > CLSORT_ODDEVEN_MAX_KEYS)
                continue;
            order o = { t, (int)((s + t) & 1), 0, 0 };
            check_argsort(ctx, &o, (s + t) % 2 ? 4 : 8, n);
        }
    /* a bit window: positions of keys that are equal in it keep their input order */
    order w = { CLSORT_KEY_U32, 0, 4, 12 };
    check_argsort(ctx, &w, 4, quick ? (algo == CLSORT_ALGO_BITONIC ? 513 : 300) : 4097);

    /* what an argsort refuses, with the reason in the detail */
    clsort_spec spec;
    clsort_spec_default(&spec);
    uint32_t k[3] = { 3, 2, 1 };
    uint64_t ix[3];
    spec.value_size = 4;
    assert_int_equal(clsort_argsort(ctx, &spec, k, ix, 8, 3, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "value_size must be 0"));
    spec.value_size = 0;
    assert_int_equal(clsort_argsort(ctx, &spec, k, ix, 2, 3, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "index_size must be 4 or 8"));
    assert_int_equal(k[0], 3);
}

/* What an algorithm does not take is refused with a message that says so, nothing touched. */
static void test_refusals(void **state)
{
    clsort_context *ctx = *state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    uint32_t k[3] = { 3, 2, 1 };
    spec.algorithm = algo;
    spec.end_bit = 33;
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, 3, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "bit range"));
    spec.begin_bit = 8;
    spec.end_bit = 8;
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, 3, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    spec.begin_bit = spec.end_bit = 0;
    spec.key_type = (clsort_key_type)17;
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, 3, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(k[0], 3);
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
    if (argc < 2 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK ||
        (argc > 2 && strcmp(argv[2], "quick") && strcmp(argv[2], "full"))) {
        fprintf(stderr, "usage: %s ALGORITHM [quick|full]\n", argv[0]);
        return 2;
    }
    quick = argc > 2 && !strcmp(argv[2], "quick");
    full = argc > 2 && !strcmp(argv[2], "full");
    /* Every algorithm takes every key type, order, bit range and value size. */
    unstable = algo == CLSORT_ALGO_BITONIC || algo == CLSORT_ALGO_ODDEVEN;
    threaded_n = algo == CLSORT_ALGO_HOST_RADIX && !quick ? 1048583 : 0;
    if (algo == CLSORT_ALGO_BITONIC)
        quick_sizes[2] = 513;
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_key_order),
        cmocka_unit_test(test_argsort),
    };
    return cmocka_run_group_tests_name(argv[1], all, setup, teardown);
}
