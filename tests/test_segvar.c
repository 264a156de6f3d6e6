/*
 * Variable segments (clsort_sort_segments, clsort_enqueue_segments) against a host reference: a
 * stable merge sort of each segment written here from the definitions of the orders, compared bit for
 * bit, values included (each value is its key's input index, so stability shows). Every key type with
 * special values and duplicates, both orders, values of 0, 4 and 8 bytes, bit ranges; empty and
 * 1-key segments, lengths around the tile sizes, long segments over many radix tiles, no segments
 * at all, and all of them mixed in one call. Also the refusals of offsets that are not CSR (the
 * first bad entry named, nothing sorted), device offsets equal to host ones, and bad device offsets
 * (the keys sorted as one segment). The short segments' groups on both sides of the bitonic
 * network's limit (test_radix_groups).
 * Usage: test_segvar [quick] [ALGO] [CASE...]   (quick: smaller inputs, for runs under oclgrind;
 * ALGO: what the cases that do not name one ask for, default auto; CASE: the cases to run, by name,
 * default all: one process builds every program of what it runs, so the default run splits them)
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

static int quick;
static clsort_algorithm algo = CLSORT_ALGO_AUTO;

/* The default spec with the run's algorithm. */
static void spec_default(clsort_spec *s)
{
    clsort_spec_default(s);
    s->algorithm = algo;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int wide(clsort_key_type t) { return t >= CLSORT_KEY_U64; }

static uint64_t key_at(const void *keys, clsort_key_type t, size_t i)
{
    return wide(t) ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
}

/* IEEE total order by value: NaNs outside the infinities by sign, ordered by payload. */
static int cmp_float(double a, double b, int a_neg, int b_neg, uint64_t pa, uint64_t pb)
{
    const int an = isnan(a), bn = isnan(b);
    if (an || bn) {
        const int ra = an ? (a_neg ? -2 : 2) : 0, rb = bn ? (b_neg ? -2 : 2) : 0;
        if (ra != rb)
            return ra < rb ? -1 : 1;
        const int c = pa < pb ? -1 : pa > pb;
        return a_neg ? -c : c;
    }
    if (a != b)
        return a < b ? -1 : 1;
    if (a == 0 && signbit(a) != signbit(b))
        return signbit(a) ? -1 : 1;
    return 0;
}

static int cmp_full(clsort_key_type t, uint64_t x, uint64_t y)
{
    switch (t) {
    case CLSORT_KEY_I32:
        return (int32_t)x < (int32_t)y ? -1 : (int32_t)x > (int32_t)y;
    case CLSORT_KEY_I64:
        return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
    case CLSORT_KEY_F32: {
        float a, b;
        const uint32_t xa = (uint32_t)x, ya = (uint32_t)y;
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

/* The unsigned bits a bit range is defined on (clsort_key_type). */
static uint64_t mapped(clsort_key_type t, uint64_t k)
{
    const uint64_t sign = wide(t) ? 1ull << 63 : 1ull << 31, ones = wide(t) ? ~0ull : 0xffffffffull;
    if (t == CLSORT_KEY_I32 || t == CLSORT_KEY_I64)
        return k ^ sign;
    if (t == CLSORT_KEY_F32 || t == CLSORT_KEY_F64)
        return (k & sign) ? (~k & ones) : (k | sign);
    return k;
}

static int cmp_keys(const clsort_spec *s, uint64_t x, uint64_t y)
{
    int c;
    if (s->end_bit) {
        const unsigned w = s->end_bit - s->begin_bit;
        const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
        const uint64_t a = (mapped(s->key_type, x) >> s->begin_bit) & mask;
        const uint64_t b = (mapped(s->key_type, y) >> s->begin_bit) & mask;
        c = a < b ? -1 : a > b;
    } else {
        c = cmp_full(s->key_type, x, y);
    }
    return s->descending ? -c : c;
}

/* Stable merge sort of idx[0, n) by key. */
static void merge_sort(const clsort_spec *s, const void *keys, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    const size_t h = n / 2;
    merge_sort(s, keys, idx, tmp, h);
    merge_sort(s, keys, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_keys(s, key_at(keys, s->key_type, idx[j]), key_at(keys, s->key_type, idx[i])) < 0
                       ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

/* Special values, few distinct ones (duplicates) and random ones. */
static void fill(clsort_key_type t, void *keys, size_t n, uint64_t seed)
{
    static const uint64_t sp32[] = { 0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0xffc00000u, 0x7f800001u, 0xff812345u, 1, 0x807fffffu,
                                     0x7f7fffffu, 0xffffffffu };
    static const uint64_t sp64[] = { 0, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                     0xfff0000000000000ull, 0x7ff8000000000000ull,
                                     0xfff8000000000000ull, 0x7ff0000000000001ull, 1,
                                     0x800fffffffffffffull, 0xffffffffffffffffull, 2, 3 };
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng(&s);
        uint64_t v = r % 4 == 0 ? (wide(t) ? sp64 : sp32)[(r >> 8) % 12]
                   : r % 4 == 1 ? (r >> 8) % 5 * 0x01010101u
                                : rng(&s);
        if (wide(t))
            ((uint64_t *)keys)[i] = v;
        else
            ((uint32_t *)keys)[i] = (uint32_t)v;
    }
}

/* Offsets of segments of the given lengths, in turn, until n keys (the last one cut). */
static size_t make_offsets(uint64_t *off, const size_t *lens, size_t n_lens, size_t n)
{
    size_t k = 0, at = 0;
    off[0] = 0;
    while (at < n) {
        const size_t len = lens[k % n_lens];
        at = at + len < n ? at + len : n;
        off[++k] = at;
    }
    return k;
}

/* The reference: keys and values (the index of each key in the input) sorted per segment. */
static void reference(const clsort_spec *s, const void *keys, size_t n, const uint64_t *off,
                      size_t n_seg, void *out_keys, void *out_vals)
{
    size_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
    assert_non_null(idx);
    assert_non_null(tmp);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t g = 0; g < n_seg; g++)
        merge_sort(s, keys, idx + off[g], tmp, (size_t)(off[g + 1] - off[g]));
    const size_t ks = wide(s->key_type) ? 8 : 4;
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)out_keys + i * ks, (const char *)keys + idx[i] * ks, ks);
        if (s->value_size == 8)
            ((uint64_t *)out_vals)[i] = idx[i] | (uint64_t)idx[i] << 40;
        else if (s->value_size == 4)
            ((uint32_t *)out_vals)[i] = (uint32_t)idx[i];
    }
    free(idx);
    free(tmp);
}

static void *values_for(size_t vs, size_t n)
{
    void *v = malloc(n * (vs ? vs : 1) + 1);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        if (vs == 8)
            ((uint64_t *)v)[i] = i | (uint64_t)i << 40;
        else if (vs == 4)
            ((uint32_t *)v)[i] = (uint32_t)i;
    }
    return v;
}

/* Sort keys of spec in the segments off (host entry), compare with the reference. Keys are filled
 * from seed, then where narrow is set all but their bits 4..7 replaced by seed's (keys of one
 * segment then differ in one 4-bit digit only). */
static void check_keys(clsort_context *ctx, const clsort_spec *s, size_t n, const uint64_t *off,
                       size_t n_seg, uint64_t seed, int narrow)
{
    const size_t ks = wide(s->key_type) ? 8 : 4, vs = s->value_size;
    void *keys = malloc(n * ks + 1), *want_k = malloc(n * ks + 1);
    void *vals = values_for(vs, n), *want_v = malloc(n * (vs ? vs : 1) + 1);
    assert_non_null(keys);
    fill(s->key_type, keys, n, seed);
    for (size_t i = 0; narrow && i < n; i++) {
        const uint64_t k = (key_at(keys, s->key_type, i) & 0xf0) |
                           (seed * 0x9e3779b97f4a7c15ull & ~0xf0ull);
        if (wide(s->key_type))
            ((uint64_t *)keys)[i] = k;
        else
            ((uint32_t *)keys)[i] = (uint32_t)k;
    }
    reference(s, keys, n, off, n_seg, want_k, want_v);
    clsort_status st = clsort_sort_segments(ctx, s, keys, vs ? vals : NULL, n, off, n_seg, NULL);
    if (st != CLSORT_OK)
        fail_msg("%s: %s", clsort_status_string(st), clsort_error_detail(ctx));
    for (size_t i = 0; i < n; i++) {
        if (memcmp((char *)keys + i * ks, (char *)want_k + i * ks, ks) ||
            (vs && memcmp((char *)vals + i * vs, (char *)want_v + i * vs, vs)))
            fail_msg("%s%s bits %u:%u values %zu, n %zu, %zu segments: key or value %zu differs",
                     clsort_key_type_name(s->key_type), s->descending ? " desc" : "",
                     s->begin_bit, s->end_bit, vs, n, n_seg, i);
    }
    free(keys);
    free(want_k);
    free(vals);
    free(want_v);
}

static void check(clsort_context *ctx, const clsort_spec *s, size_t n, const uint64_t *off,
                  size_t n_seg, uint64_t seed)
{
    check_keys(ctx, s, n, off, n_seg, seed, 0);
}

/* Lengths mixed in one call: empty, 1 key, the edges of tiles of several devices' shapes, long. */
static const size_t mix[] = { 0, 1, 2, 3, 0, 0, 255, 256, 257, 1, 511, 512, 513, 7, 1023, 1024,
                              1025, 0, 2047, 2048, 2049, 5, 4095, 4096, 4097, 1, 9000, 40000 };

static void test_mix(void **state)
{
    clsort_context *ctx = *state;
    const size_t n = quick ? 900 : 150000;
    uint64_t *off = malloc((n + 2) * sizeof *off);
    const size_t *lens = quick ? mix + 4 : mix;
    const size_t n_lens = quick ? 17 : sizeof mix / sizeof mix[0];
    const size_t n_seg = make_offsets(off, lens, n_lens, n);
    unsigned i = 0;
    /* quick (the simulator's run): one order a type, both orders and every value size still met by
     * the 32-bit and the 64-bit keys; the full run takes every combination */
    for (int t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
        for (int desc = 0; desc < 2; desc++, i++) {
            if (quick && desc != t % 2)
                continue;
            clsort_spec s;
            spec_default(&s);
            s.key_type = (clsort_key_type)t;
            s.descending = desc;
            s.value_size = (size_t[]){ 4, 0, 8 }[(quick ? (unsigned)t : i) % 3];
            check(ctx, &s, n, off, n_seg, 100 + i);
        }
    free(off);
}

/* Mostly tiny segments (0 to 3 keys), a longer one after every few dozen: the segments average
 * under 16 keys, so that a device whose short segments take a launch of their own (lib/radix/segments.c:
 * where they average at most half its tile) takes it, and the longer ones cross the edges of the
 * short and medium tiles of several shapes, starting at every offset within them. */
static void test_mostly_short(void **state)
{
    clsort_context *ctx = *state;
    static const size_t longer[] = { 17, 31, 32, 33, 63, 64, 65, 129, 255, 256, 257,
                                     1000, 1025, 2047, 2048, 2049, 4096, 4097 };
    const size_t n_longer = quick ? 9 : sizeof longer / sizeof longer[0], rounds = quick ? 2 : 5;
    size_t room = 0, n_lens = 0, n = 0;
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < n_longer; i++)
            room += longer[i] / 8 + 9 + r;
    size_t *lens = malloc(room * sizeof *lens);
    assert_non_null(lens);
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < n_longer; i++) {
            for (size_t k = 0; k < longer[i] / 8 + 8 + r; k++, n_lens++)
                n += lens[n_lens] = (k + r) % 4;
            n += lens[n_lens++] = longer[i];
        }
    assert_true(n_lens == room && n / n_lens <= 16);
    uint64_t *off = malloc((n + 2) * sizeof *off);
    const size_t n_seg = make_offsets(off, lens, n_lens, n);
    for (int i = 0; i < 3; i++) {
        clsort_spec s;
        spec_default(&s);
        s.key_type = (clsort_key_type[]){ CLSORT_KEY_U32, CLSORT_KEY_U64, CLSORT_KEY_F32 }[i];
        s.value_size = (size_t[]){ 4, 8, 0 }[i];
        s.descending = i == 2;
        check(ctx, &s, n, off, n_seg, 300 + (uint64_t)i);
    }
    free(off);
    free(lens);
}

/* Values of every size with the same keys, and the algorithms that may be asked for. */
static void test_values(void **state)
{
    clsort_context *ctx = *state;
    const size_t n = quick ? 700 : 60000;
    uint64_t *off = malloc((n + 2) * sizeof *off);
    const size_t n_seg = make_offsets(off, mix + 3, 20, n);
    const clsort_algorithm algos[] = { algo, CLSORT_ALGO_RADIX8, CLSORT_ALGO_RADIX8_RTS };
    for (size_t vs = 0; vs <= 8; vs += 4)
        for (int t = 0; t < 2; t++) {
            clsort_spec s;
            spec_default(&s);
            s.key_type = t ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
            s.value_size = vs;
            s.algorithm = algos[(vs / 4 + t) % 3];
            check(ctx, &s, n, off, n_seg, 7 + vs + t);
        }
    free(off);
}

static void test_bit_ranges(void **state)
{
    clsort_context *ctx = *state;
    const size_t n = quick ? 700 : 50000;
    uint64_t *off = malloc((n + 2) * sizeof *off);
    const size_t n_seg = make_offsets(off, mix + 6, 20, n);
    const struct { clsort_key_type t; unsigned b, e; int desc; size_t vs; } r[] = {
        { CLSORT_KEY_U32, 4, 12, 0, 4 },  { CLSORT_KEY_F32, 16, 32, 1, 0 },
        { CLSORT_KEY_I32, 0, 1, 0, 8 },   { CLSORT_KEY_U64, 20, 50, 1, 4 },
        { CLSORT_KEY_I64, 0, 8, 0, 0 },   { CLSORT_KEY_F64, 40, 64, 0, 8 },
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        clsort_spec s;
        spec_default(&s);
        s.key_type = r[i].t;
        s.begin_bit = r[i].b;
        s.end_bit = r[i].e;
        s.descending = r[i].desc;
        s.value_size = r[i].vs;
        check(ctx, &s, n, off, n_seg, 31 + i);
    }
    free(off);
}

/* Edge cases: no keys (with and without segments), one segment of everything, only 1-key
 * segments, empty segments around one key, one long segment among empty ones. */
static void test_edges(void **state)
{
    clsort_context *ctx = *state;
    clsort_spec s;
    spec_default(&s);
    s.value_size = 4;
    const uint64_t none[] = { 0 }, empties[] = { 0, 0, 0, 0 };
    assert_int_equal(clsort_sort_segments(ctx, &s, NULL, NULL, 0, none, 0, NULL), CLSORT_OK);
    assert_int_equal(clsort_sort_segments(ctx, &s, NULL, NULL, 0, empties, 3, NULL), CLSORT_OK);
    const size_t big = quick ? 900 : 70000;
    uint64_t *off = malloc((4 * big + 3002) * sizeof *off); /* the 1-key and empty segments */
    const size_t ones[] = { 1 }, lens_a[] = { 0, 0, 1, 0 }, whole[] = { big };
    size_t n_seg = make_offsets(off, whole, 1, big);
    check(ctx, &s, big, off, n_seg, 1);
    const size_t n_ones = quick ? 1000 : 3000;
    n_seg = make_offsets(off, ones, 1, n_ones);
    check(ctx, &s, n_ones, off, n_seg, 2);
    n_seg = make_offsets(off, lens_a, 4, 500);
    check(ctx, &s, 500, off, n_seg, 3);
    /* one pass (an odd number: the result in the radix's other buffer) with lone keys between
     * long segments: every short segment must reach it (quick: lengths for the simulator's tiles) */
    const size_t lone[] = { 1, 2000, 1, 1, 3000 }, lone_quick[] = { 1, 300, 1, 1, 400 };
    n_seg = make_offsets(off, quick ? lone_quick : lone, 5, big);
    s.begin_bit = 8;
    s.end_bit = 16;
    check(ctx, &s, big, off, n_seg, 5);
    s.begin_bit = s.end_bit = 0;
    /* empty segments before, between and after a long one and a 2-key one */
    const uint64_t o2[] = { 0, 0, 0, big - 2, big - 2, big, big, big };
    s.key_type = CLSORT_KEY_F64;
    s.descending = 1;
    check(ctx, &s, big, o2, 7, 4);
    free(off);
}

/*
 * The short segments' two sorts in local memory, in a context of known shape: tiles of 256 keys
 * (CLSORT_SORT_TUNING 64x8, for keys with their 4-byte tags), so groups take the segments starting
 * in each 128 keys, and groups of more than 100 keys take the radix sort (CLSORT_SEG_BITONIC_MAX).
 * Groups of exactly 100 and 101 keys (one segment each, long ones between), one segment of 128 per
 * group, many small segments summing past 100, hundreds of empty segments in one group (several tag
 * digits), medium segments (129 to 256 keys, each sorted alone by its group, one of them after
 * short ones), groups of two or more segments of 101 to 128 keys (sorted one at a time), keys that
 * differ in one digit only (the others skipped); every key type, both orders,
 * values of 0, 4 and 8 bytes, bit ranges.
 */
#define GROUP_MAX 100

static void test_radix_groups(void **state)
{
    (void)state;
    if (algo == CLSORT_ALGO_HOST_RADIX) /* the kernels' groups */
        skip();
    clsort_context *ctx = NULL;
    setenv("CLSORT_SORT_TUNING", "64x8", 1);
    setenv("CLSORT_SEG_BITONIC_MAX", "100", 1);
    clsort_status st = clsort_open(&ctx, NULL);
    unsetenv("CLSORT_SORT_TUNING");
    unsetenv("CLSORT_SEG_BITONIC_MAX");
    if (st != CLSORT_OK)
        fail_msg("clsort_open: %s", clsort_last_error_detail());
    const size_t n = quick ? 800 : 9000;
    uint64_t *off = malloc((n + 700) * sizeof *off);
    static const size_t at_max[] = { GROUP_MAX, 384 - GROUP_MAX },
                        past_max[] = { GROUP_MAX + 1, 384 - GROUP_MAX - 1 }, whole[] = { 128 },
                        small[] = { 7, 3, 0, 12, 1, 0, 0, 30, 2, 5, 9, 40, 11, 1, 6 },
                        /* medium: more than half a tile, at most a tile (sorted alone by the
                         * group they start in), one after short ones in the same group, long */
                        medium[] = { 129, 256, 3, 200, 0, 255, 60, 50, 250, 257, 1, 128 },
                        /* two radix-sized ones starting in one group's 128 keys (each sorted
                         * alone, without tags), and next to a short one */
                        lone[] = { 101, 110, 101, 128, 105, 3, 102, 120, 127, 101 };
    size_t empties[330] = { 0 }; /* 300 empty segments, then 30 of 1 to 30 keys */
    for (size_t i = 300; i < 330; i++)
        empties[i] = i - 299;
    const struct { const size_t *lens; size_t n_lens; } shapes[] = {
        { at_max, 2 }, { past_max, 2 }, { whole, 1 }, { small, 15 }, { empties, 330 },
        { medium, 12 }, { lone, 10 },
    };
    const size_t n_shapes = sizeof shapes / sizeof shapes[0];
    unsigned i = 0;
    for (int t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
        for (int desc = 0; desc < 2; desc++, i++) {
            /* quick: half of them, still every type, order, value size and shape */
            if (quick && i % 4 != 0 && i % 4 != 3)
                continue;
            clsort_spec s;
            spec_default(&s);
            s.key_type = (clsort_key_type)t;
            s.descending = desc;
            s.value_size = (size_t[]){ 4, 0, 8 }[i % 3];
            if (i % 4 == 3) { /* a bit range through the middle of the key */
                s.begin_bit = 3;
                s.end_bit = wide(s.key_type) ? 45 : 21;
            }
            const size_t k = i % n_shapes,
                         n_seg = make_offsets(off, shapes[k].lens, shapes[k].n_lens, n);
            check_keys(ctx, &s, n, off, n_seg, 300 + i, 0);
            if (!quick || i % 3 == 0)
                check_keys(ctx, &s, n, off, n_seg, 400 + i, 1);
            if (quick && i == 0) { /* the shape quick would not reach otherwise */
                const size_t m = make_offsets(off, lone, 10, n);
                clsort_spec bare = s; /* keys alone: no positions move with them */
                bare.value_size = 0;
                check_keys(ctx, &s, n, off, m, 390, 0);
                check_keys(ctx, &bare, n, off, m, 391, 1);
            }
            if (!quick) /* every shape for every type */
                for (size_t j = 1; j < n_shapes; j++) {
                    const size_t m = make_offsets(off, shapes[(k + j) % n_shapes].lens,
                                                  shapes[(k + j) % n_shapes].n_lens, n);
                    check_keys(ctx, &s, n, off, m, 500 + i * 5 + j, (int)(j & 1));
                }
        }
    free(off);
    clsort_close(&ctx);
}

/*
 * More keys or segments than one device run takes, in a context whose runs hold at most 1000 keys
 * and 1000 segments (CLSORT_CHUNK_KEYS): batches of whole segments, a segment of exactly 1000 keys
 * in a batch of its own, ones of 1001 and 5000 keys sorted alone in runs merged (stable: values
 * carry the input positions), more than 1000 empty and 1-key segments in a row (batches cut by
 * their count), and a failed device allocation in a later batch leaving the arrays as they were.
 */
static void test_batches(void **state)
{
    (void)state;
    if (quick) /* host code: the batches' kernels are the ones the other cases run */
        skip();
    clsort_context *ctx = NULL;
    setenv("CLSORT_CHUNK_KEYS", "1000", 1);
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        unsetenv("CLSORT_CHUNK_KEYS");
        fail_msg("clsort_open: %s", clsort_last_error_detail());
    }
    const size_t n = 14000;
    uint64_t *off = malloc((n + 3000) * sizeof *off);
    static const size_t past[] = { 999, 1, 1000, 1001, 3, 0, 5000, 400, 400, 400 }, tiny[] = { 0, 1 },
                        edge[] = { 1000, 1000, 2, 998, 999, 1002 };
    const struct { const size_t *lens; size_t n_lens; } shapes[] = {
        { past, 10 }, { tiny, 2 }, { edge, 6 },
    };
    for (unsigned i = 0; i < 6; i++) {
        clsort_spec sp;
        spec_default(&sp);
        sp.key_type = (clsort_key_type)(CLSORT_KEY_U32 + i % 6);
        sp.descending = i & 1;
        sp.value_size = (size_t[]){ 4, 8, 0 }[i % 3];
        const size_t m = i % 3 == 1 ? 2500 : n; /* tiny: 1250 empty and 1250 1-key segments */
        const size_t n_seg = make_offsets(off, shapes[i % 3].lens, shapes[i % 3].n_lens, m);
        check_keys(ctx, &sp, m, off, n_seg, 900 + i, (int)(i & 1));
    }
    clsort_close(&ctx);

    /* the N-th allocation request refused (N of a Fibonacci series, up to one past the sort's
     * last: every batch asks for its buffers) leaves the arrays unchanged */
    clsort_spec sp;
    spec_default(&sp);
    sp.value_size = 4;
    const size_t n_seg = make_offsets(off, past, 10, n);
    uint32_t *keys = malloc(n * sizeof *keys), *vals = malloc(n * sizeof *vals);
    uint32_t *k0 = malloc(n * sizeof *k0), *v0 = malloc(n * sizeof *v0);
    assert_true(keys && vals && k0 && v0);
    fill(sp.key_type, k0, n, 77);
    for (size_t i = 0; i < n; i++)
        v0[i] = (uint32_t)i;
    int refused = 0;
    for (int fault = 1, next = 2; fault < 5000; next += fault, fault = next - fault) {
        char text[16];
        snprintf(text, sizeof text, "%d", fault);
        setenv("CLSORT_FAULT_ALLOC", text, 1);
        /* host-radix's batches through its buffers (small ones: in the calling thread, none) */
        setenv("CLSORT_HOST_INLINE_BYTES", "0", 1);
        st = clsort_open(&ctx, NULL);
        unsetenv("CLSORT_FAULT_ALLOC");
        unsetenv("CLSORT_HOST_INLINE_BYTES");
        if (st != CLSORT_OK)
            fail_msg("clsort_open: %s", clsort_last_error_detail());
        memcpy(keys, k0, n * sizeof *keys);
        memcpy(vals, v0, n * sizeof *vals);
        st = clsort_sort_segments(ctx, &sp, keys, vals, n, off, n_seg, NULL);
        clsort_close(&ctx);
        if (st == CLSORT_OK)
            break;
        if (memcmp(keys, k0, n * sizeof *keys) || memcmp(vals, v0, n * sizeof *vals))
            fail_msg("allocation %d refused (%s): the arrays were written", fault,
                     clsort_status_string(st));
        refused++;
    }
    assert_int_equal(st, CLSORT_OK);
    assert_true(refused >= 8); /* requests past the first batches' were refused */
    unsetenv("CLSORT_CHUNK_KEYS");
    free(keys);
    free(vals);
    free(k0);
    free(v0);
    free(off);
}

/* Segments past one thread's share of the host radix sort (4 MiB of records: 262,144 of 16 bytes)
 * sorted on every thread as sorts of their own, between short ones that the threads share out (more
 * than 4 MiB of them in all); the same sizes for the kernels. */
static void test_threads(void **state)
{
    clsort_context *ctx = *state;
    if (quick)
        skip();
    const size_t n = 1200000;
    uint64_t *off = malloc((n + 2) * sizeof *off);
    static const size_t lens[] = { 300000, 5, 100, 0, 1, 70000, 2000, 262144, 262145, 3, 4097 };
    const size_t n_seg = make_offsets(off, lens, sizeof lens / sizeof lens[0], n);
    for (int desc = 0; desc < 2; desc++) {
        clsort_spec sp;
        spec_default(&sp);
        sp.key_type = desc ? CLSORT_KEY_F64 : CLSORT_KEY_U64;
        sp.descending = desc;
        sp.value_size = 8;
        check_keys(ctx, &sp, n, off, n_seg, 40 + desc, desc);
    }
    free(off);
}

/* Offsets that are not CSR: refused before any work, the first bad entry named. */
static void test_bad_offsets(void **state)
{
    clsort_context *ctx = *state;
    uint32_t keys[10] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, copy[10];
    memcpy(copy, keys, sizeof keys);
    const struct { uint64_t off[5]; size_t n_seg; const char *detail; } bad[] = {
        { { 1, 4, 10 }, 2, "entry 0 is 1, expected 0" },
        { { 0, 6, 4, 10 }, 3, "entry 2 is 4, below entry 1 (6): expected at least 6" },
        { { 0, 11, 10 }, 2, "entry 1 is 11, past n (10)" },
        { { 0, 4, 9 }, 2, "entry 2 (the last of n_seg + 1 = 3) is 9, expected n (10)" },
        { { 0, 4, 5, 6, 7 }, 3, "entry 3 (the last of n_seg + 1 = 4) is 6, expected n (10)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(clsort_sort_segments(ctx, NULL, keys, NULL, 10, bad[i].off, bad[i].n_seg,
                                              NULL),
                         CLSORT_ERROR_INVALID_ARGUMENT);
        if (!strstr(clsort_error_detail(ctx), bad[i].detail))
            fail_msg("detail '%s' lacks '%s'", clsort_error_detail(ctx), bad[i].detail);
        assert_memory_equal(keys, copy, sizeof keys);
    }
    const uint64_t ok[] = { 0, 10 };
    assert_int_equal(clsort_sort_segments(ctx, NULL, keys, NULL, 10, NULL, 1, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    clsort_spec s;
    spec_default(&s);
    s.algorithm = CLSORT_ALGO_BITONIC;
    assert_int_equal(clsort_sort_segments(ctx, &s, keys, NULL, 10, ok, 1, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    s.algorithm = CLSORT_ALGO_AUTO;
    s.segment = 4;
    assert_int_equal(clsort_sort_segments(ctx, &s, keys, NULL, 10, ok, 1, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(keys, copy, sizeof keys);
}

/* Device offsets: the result equals the host entry's; a buffer too small is refused; offsets that
 * are not CSR sort everything as one segment. */
static void test_device(void **state)
{
    clsort_context *ctx = *state;
    cl_context cl;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &cl, &q), CLSORT_OK);
    const size_t n = quick ? 800 : 80000;
    uint64_t *off = malloc((n + 2) * sizeof *off);
    const size_t n_seg = make_offsets(off, mix + 1, 26, n);
    clsort_spec s;
    spec_default(&s);
    s.key_type = CLSORT_KEY_I64;
    s.value_size = 4;
    uint64_t *keys = malloc(n * 8), *want_k = malloc(n * 8);
    uint32_t *vals = values_for(4, n), *want_v = malloc(n * 4);
    for (int round = 0; round < 2; round++) {
        fill(s.key_type, keys, n, 77);
        for (size_t i = 0; i < n; i++)
            vals[i] = (uint32_t)i;
        const uint64_t one[] = { 0, n };
        if (round == 0) {
            reference(&s, keys, n, off, n_seg, want_k, want_v);
        } else {
            off[1] = off[2] + 1; /* decreasing at entry 2 */
            reference(&s, keys, n, one, 1, want_k, want_v);
        }
        cl_int err;
        cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, keys, &err);
        cl_mem vb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, vals, &err);
        cl_mem ob = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   (n_seg + 1) * 8, off, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clsort_enqueue_segments(ctx, &s, kb, vb, n, ob, n_seg + 1, 0, NULL, NULL),
                         CLSORT_ERROR_INVALID_ARGUMENT);
        cl_event done;
        clsort_status st = clsort_enqueue_segments(ctx, &s, kb, vb, n, ob, n_seg, 0, NULL, &done);
        if (st != CLSORT_OK)
            fail_msg("%s: %s", clsort_status_string(st), clsort_error_detail(ctx));
        assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * 8, keys, 1, &done, NULL),
                         CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(q, vb, CL_TRUE, 0, n * 4, vals, 0, NULL, NULL),
                         CL_SUCCESS);
        clReleaseEvent(done);
        assert_memory_equal(keys, want_k, n * 8);
        assert_memory_equal(vals, want_v, n * 4);
        clReleaseMemObject(kb);
        clReleaseMemObject(vb);
        clReleaseMemObject(ob);
    }
    free(off);
    free(keys);
    free(want_k);
    free(vals);
    free(want_v);
}

static int open_ctx(void **state)
{
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open: %s: %s\n", clsort_status_string(st),
                clsort_last_error_detail());
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

int main(int argc, char **argv)
{
    int named = 0; /* cases named on the command line */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "quick"))
            quick = 1;
        else if (!strncmp(argv[i], "test_", 5))
            named++;
        else if (clsort_algorithm_from_name(argv[i], &algo) != CLSORT_OK) {
            fprintf(stderr, "usage: test_segvar [quick] [ALGO] [CASE...]\n");
            return 2;
        }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_offsets), cmocka_unit_test(test_edges),
        cmocka_unit_test(test_mix),         cmocka_unit_test(test_mostly_short),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_bit_ranges),  cmocka_unit_test(test_device),
        cmocka_unit_test(test_radix_groups),
        cmocka_unit_test(test_batches),     cmocka_unit_test(test_threads),
    };
    const size_t count = sizeof tests / sizeof tests[0];
    struct CMUnitTest picked[sizeof tests / sizeof tests[0]];
    size_t n = 0;
    for (int i = 1; i < argc; i++) { /* a misspelt case runs nothing: refuse it */
        if (strncmp(argv[i], "test_", 5))
            continue;
        size_t c = 0;
        while (c < count && strcmp(argv[i], tests[c].name))
            c++;
        if (c == count) {
            fprintf(stderr, "usage: test_segvar [quick] [ALGO] [CASE...]: no case '%s'\n", argv[i]);
            return 2;
        }
    }
    for (size_t c = 0; c < count; c++) {
        int want = !named;
        for (int i = 1; i < argc; i++)
            want |= !strcmp(argv[i], tests[c].name);
        if (want)
            picked[n++] = tests[c];
    }
    return _cmocka_run_group_tests("tests", picked, n, open_ctx, close_ctx);
}
