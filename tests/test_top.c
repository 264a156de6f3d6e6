/*
 * Top-k (clsort_top, clsort_top_enqueue) against a host reference of its own: the records' indices
 * sorted by (key order, index) with qsort, the key order computed here from the key's bits, the
 * first k records compared bit for bit, keys and values (which checks stability). Every key type,
 * both orders, bit ranges, value sizes; duplicates, equal keys, keys spread over buckets of the
 * first digit with k at and beside their edges, float specials (signed zeros, NaNs with payloads,
 * infinities); inputs one bucket dominates (constant, two keys, the AND of 4 words, ties at the k-th
 * key); k = 1, n, and beside the tile, index-digit and candidate-buffer sizes, the latter made small
 * through CLSORT_TOP_CAP; the argument checks.
 * Usage: test_top [quick | long] [TYPE]   (quick: small sizes, for runs under oclgrind; TYPE: only
 * the checks of keys of that type, whose programs no other type shares, so that the default run
 * can split the programs to build among processes)
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

static int quick, full;
static int one_type; /* only the checks of keys of only_type */
static clsort_key_type only_type;
static uint64_t seed_override; /* the inputs' seed, else n + k */

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- the reference ---- */

typedef struct ref_ctx {
    clsort_key_type type;
    int desc;
    unsigned begin, end;
} ref_ctx;

static uint64_t load_key(const unsigned char *keys, size_t i, int wide)
{
    if (wide) {
        uint64_t k;
        memcpy(&k, keys + i * 8, 8);
        return k;
    }
    uint32_t k;
    memcpy(&k, keys + i * 4, 4);
    return k;
}

/* Unsigned integer in the wanted order: IEEE total order for floats, two's complement for signed
 * integers, complemented for descending order, the bits outside [begin, end) cleared. */
static uint64_t ref_order(const ref_ctx *r, uint64_t k)
{
    const int wide = r->type >= CLSORT_KEY_U64;
    const uint64_t sign = wide ? 1ull << 63 : 1ull << 31, ones = wide ? ~0ull : 0xffffffffull;
    switch (r->type) {
    case CLSORT_KEY_I32:
    case CLSORT_KEY_I64:
        k ^= sign;
        break;
    case CLSORT_KEY_F32:
    case CLSORT_KEY_F64:
        k = (k & sign) ? (~k & ones) : (k | sign);
        break;
    default:
        break;
    }
    if (r->desc)
        k = ~k & ones;
    const uint64_t hi = r->end == 64 ? ~0ull : (1ull << r->end) - 1;
    return k & hi & ~((1ull << r->begin) - 1);
}

typedef struct ref_rec {
    uint64_t order;
    size_t index;
} ref_rec;

static int ref_cmp(const void *a, const void *b)
{
    const ref_rec *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The input indices of the first k records of the stable sort. */
static size_t *ref_top(const ref_ctx *r, const unsigned char *keys, size_t n, size_t k)
{
    ref_rec *recs = malloc(n * sizeof *recs);
    size_t *idx = malloc(k * sizeof *idx);
    assert_non_null(recs);
    assert_non_null(idx);
    for (size_t i = 0; i < n; i++)
        recs[i] = (ref_rec){ ref_order(r, load_key(keys, i, r->type >= CLSORT_KEY_U64)), i };
    qsort(recs, n, sizeof *recs, ref_cmp);
    for (size_t i = 0; i < k; i++)
        idx[i] = recs[i].index;
    free(recs);
    return idx;
}

/* ---- inputs ---- */

enum { D_UNIFORM, D_FEW, D_EQUAL, D_BUCKETS, D_SPECIAL, D_SORTED, D_TWO, D_AND4, D_TIES, D_COUNT };
static const char *const dist_names[] = { "uniform", "few",  "equal", "buckets", "special",
                                          "sorted",  "two",  "and4",  "ties" };

static void fill(unsigned char *keys, size_t n, clsort_key_type t, int d, uint64_t seed)
{
    const int wide = t >= CLSORT_KEY_U64;
    uint64_t s = seed * 7919 + (uint64_t)d * 31 + t;
    static const uint32_t special32[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fc00001u,
        0xffc00000u, 0xffc00123u, 0x7f800001u, 0x3f800000u, 0xbf800000u, 0x00000001u,
    };
    static const uint64_t special64[] = {
        0, 1ull << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
        0x7ff8000000000001ull, 0xfff8000000000000ull, 0xfff8000000000123ull,
        0x7ff0000000000001ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 1,
    };
    for (size_t i = 0; i < n; i++) {
        uint64_t k = rng(&s);
        switch (d) {
        case D_FEW:
            k = (k % 7) * 0x0123456789abcdefull;
            break;
        case D_EQUAL:
            k = 0x4242424242424242ull;
            break;
        case D_BUCKETS: /* 5 values of the top byte, the rest random: 5 buckets of the first digit */
            k = ((k % 5) << (wide ? 56 : 24)) | (k >> (wide ? 8 : 40));
            break;
        case D_SPECIAL:
            k = (k & 3) ? (wide ? special64[k % 12] : special32[k % 12]) : k;
            break;
        case D_SORTED:
            k = i / 3;
            break;
        case D_TWO: /* equal but for byte 1: the first places hold every key */
            k = (k & 1) ? 0x0123456789ab00cdull : 0x0123456789abcdcdull;
            break;
        case D_AND4: /* low entropy: each byte is 0 for most keys */
            k &= rng(&s) & rng(&s) & rng(&s);
            break;
        case D_TIES: /* two thirds equal, the rest around them */
            k = (k % 3) ? 0x5555555555555555ull : k;
            break;
        default:
            break;
        }
        if (wide)
            memcpy(keys + i * 8, &k, 8);
        else {
            uint32_t k32 = (uint32_t)k;
            memcpy(keys + i * 4, &k32, 4);
        }
    }
}

/* ---- one case ---- */

typedef struct top_case {
    clsort_key_type type;
    int desc;
    unsigned begin, end; /* end 0: the whole key */
    size_t vs, n, k;
    int dist;
    int enqueue; /* through clsort_top_enqueue on buffers */
} top_case;

static void describe(const top_case *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s bits %u:%u values %zu n %zu k %zu %s%s",
             clsort_key_type_name(c->type), c->desc ? " desc" : "", c->begin, c->end, c->vs, c->n,
             c->k, dist_names[c->dist], c->enqueue ? " (enqueue)" : "");
}

static clsort_status run_enqueue(clsort_context *ctx, const clsort_spec *spec,
                                 unsigned char *keys, unsigned char *vals, size_t n, size_t k,
                                 unsigned char *ok, unsigned char *ov)
{
    cl_context cx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &cx, &q), CLSORT_OK);
    const size_t ks = clsort_key_type_size(spec->key_type), vs = spec->value_size;
    cl_int err;
    cl_mem b[4] = { NULL };
    b[0] = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * ks, keys, &err);
    if (vs)
        b[1] = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * vs, vals, &err);
    b[2] = clCreateBuffer(cx, CL_MEM_READ_WRITE, k * ks, NULL, &err);
    if (vs)
        b[3] = clCreateBuffer(cx, CL_MEM_READ_WRITE, k * vs, NULL, &err);
    cl_event done = NULL;
    clsort_status st = clsort_top_enqueue(ctx, spec, b[0], b[1], n, k, b[2], b[3], 0, NULL, &done);
    if (st == CLSORT_OK) {
        assert_non_null(done);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        assert_int_equal(clEnqueueReadBuffer(q, b[2], CL_TRUE, 0, k * ks, ok, 0, NULL, NULL), 0);
        if (vs)
            assert_int_equal(clEnqueueReadBuffer(q, b[3], CL_TRUE, 0, k * vs, ov, 0, NULL, NULL), 0);
        /* the inputs are left as they were */
        unsigned char *back = malloc(n * ks);
        assert_int_equal(clEnqueueReadBuffer(q, b[0], CL_TRUE, 0, n * ks, back, 0, NULL, NULL), 0);
        assert_memory_equal(back, keys, n * ks);
        free(back);
    }
    for (int i = 0; i < 4; i++)
        if (b[i])
            clReleaseMemObject(b[i]);
    return st;
}

/* One case on the given keys (n of them, of the case's type). */
static void check_keys(clsort_context *ctx, const top_case *c, unsigned char *keys)
{
    if (one_type && c->type != only_type)
        return;
    char what[200];
    describe(c, what, sizeof what);
    const size_t ks = clsort_key_type_size(c->type), n = c->n, k = c->k, vs = c->vs;
    unsigned char *vals = vs ? malloc(n * vs) : NULL;
    unsigned char *ok = malloc(k * ks), *ov = vs ? malloc(k * vs) : NULL;
    assert_non_null(ok);
    for (size_t i = 0; i < n && vs; i++) { /* the index, so that the order among ties is seen */
        const uint64_t v = i * 0x100000001ull + 7;
        memcpy(vals + i * vs, &v, vs);
    }
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.key_type = c->type;
    spec.descending = c->desc;
    spec.begin_bit = c->begin;
    spec.end_bit = c->end;
    spec.value_size = vs;
    clsort_status st = c->enqueue ? run_enqueue(ctx, &spec, keys, vals, n, k, ok, ov)
                                  : clsort_top(ctx, &spec, keys, vals, n, k, ok, ov, NULL);
    if (st != CLSORT_OK)
        fail_msg("%s: %s: %s", what, clsort_status_string(st), clsort_error_detail(ctx));
    ref_ctx r = { c->type, c->desc, c->begin, c->end ? c->end : (unsigned)ks * 8 };
    size_t *idx = ref_top(&r, keys, n, k);
    for (size_t i = 0; i < k; i++) {
        const uint64_t got = load_key(ok, i, ks == 8), want = load_key(keys, idx[i], ks == 8);
        if (got != want || (vs && memcmp(ov + i * vs, vals + idx[i] * vs, vs)))
            fail_msg("%s: record %zu: key %llx, expected %llx (input record %zu)%s", what, i,
                     (unsigned long long)got, (unsigned long long)want, idx[i],
                     got == want ? ": the value differs" : "");
    }
    free(idx);
    free(vals);
    free(ok);
    free(ov);
}

static void check_case(clsort_context *ctx, const top_case *c)
{
    const size_t ks = clsort_key_type_size(c->type);
    unsigned char *keys = malloc(c->n * ks);
    assert_non_null(keys);
    fill(keys, c->n, c->type, c->dist, seed_override ? seed_override : c->n + c->k);
    check_keys(ctx, c, keys);
    free(keys);
}

/* k values worth trying for n: the ends, the middle, beside 256 and the 1024-key tiles. */
static size_t ks_for(size_t n, size_t *out)
{
    const size_t cand[] = { 1, 2, n / 2, n - 1, n, 255, 256, 257, 1023, 1024, 1025 };
    size_t m = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        if (cand[i] < 1 || cand[i] > n)
            continue;
        int seen = 0;
        for (size_t j = 0; j < m; j++)
            seen |= out[j] == cand[i];
        if (!seen)
            out[m++] = cand[i];
    }
    return m;
}

static int open_ctx(void **state)
{
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open: %s: %s\n", clsort_status_string(st), clsort_last_error_detail());
        return -1;
    }
    fprintf(stderr, "# device: %s\n", clsort_device_name(ctx));
    *state = ctx;
    return 0;
}

static int close_ctx(void **state)
{
    clsort_context *ctx = *state;
    clsort_close(&ctx);
    return 0;
}

/* u32 keys: sizes across tiles, every distribution, every k of ks_for(). */
static void test_sizes(void **state)
{
    static const size_t sizes[] = { 1, 2, 3, 255, 257, 1000, 1025, 4097, 70001 };
    static const size_t quick_sizes[] = { 1, 3, 300 };
    const size_t *sz = quick ? quick_sizes : sizes;
    const size_t count = quick ? 3 : sizeof sizes / sizeof sizes[0];
    for (size_t s = 0; s < count; s++)
        for (int d = 0; d < (quick ? D_TWO : D_COUNT); d++) { /* quick: test_skewed has the rest */
            size_t kv[16];
            const size_t m = ks_for(sz[s], kv);
            for (size_t i = 0; i < m; i++) {
                if (quick && i % 2)
                    continue;
                top_case c = { CLSORT_KEY_U32, 0, 0, 0, 0, sz[s], kv[i], d, 0 };
                check_case(*state, &c);
            }
        }
}

/* Every key type, both orders, each value size; a bit range; specials and equal keys. */
static void test_types(void **state)
{
    const size_t n = quick ? 200 : full ? 300007 : 20011;
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t++)
        for (int desc = 0; desc < 2; desc++) {
            /* quick (the simulator's run): one order a type, both orders still met by the 32-bit
             * and the 64-bit keys */
            if (quick && desc != (int)t % 2)
                continue;
            const unsigned w = (unsigned)clsort_key_type_size(t) * 8;
            const int dists[] = { D_SPECIAL, D_BUCKETS, D_FEW };
            for (size_t di = 0; di < 3; di++) { /* each with a value size of its own */
                top_case c = { t, desc, 0, 0, di * 4, n, 1 + (n / 7) * (di + 1) % n, dists[di], 0 };
                check_case(*state, &c);
            }
            /* a range that leaves bits out above and below: ties among unequal keys */
            top_case r = { t, desc, 3, w - 5, 4, n, quick ? 37 : 1000, D_FEW, 1 };
            check_case(*state, &r);
            top_case one = { t, desc, w / 2, w / 2 + 1, 8, n, n / 3 + 1, D_UNIFORM, 0 };
            check_case(*state, &one);
        }
}

/* Bucket edges of the first digit: D_BUCKETS puts about n/5 keys in each of 5 buckets; k at the
 * exact edges (counted here) and beside them, in both orders (descending counts from the top).
 * quick: the edges of the second bucket only (the kernels are the same for every edge). */
static void test_bucket_edges(void **state)
{
    const size_t n = quick ? 500 : 50000;
    unsigned char *keys = malloc(n * 4);
    seed_override = 12345;
    fill(keys, n, CLSORT_KEY_U32, D_BUCKETS, seed_override);
    size_t count[256] = { 0 };
    for (size_t i = 0; i < n; i++) {
        uint32_t k;
        memcpy(&k, keys + i * 4, 4);
        count[k >> 24]++;
    }
    free(keys);
    size_t edge = 0;
    for (int b = 0; b < 5; b++) {
        edge += count[b];
        if (quick && b != 1)
            continue;
        for (int desc = 0; desc < 2; desc++)
            for (long d = -1; d <= 1; d++) {
                const size_t k = (desc ? n - edge : edge) + (size_t)d;
                if (k < 1 || k > n)
                    continue;
                top_case c = { CLSORT_KEY_U32, desc, 0, 0, 4, n, k, D_BUCKETS, d == 0 };
                check_case(*state, &c);
            }
    }
    seed_override = 0;
}

/* Inputs one bucket dominates, on prime sizes: constant keys (the select stays whole and takes the
 * first k), keys equal but for one byte, low entropy (the AND of 4 words), two thirds ties; k at the
 * ends, in the ties and beside the index digits' bucket edges (256, 65536); every key type, both
 * orders. Then a bit range where the keys agree though they differ outside it, and one where they
 * differ. */
static void test_skewed(void **state)
{
    static const size_t sizes[] = { 1, 2, 3, 251, 4099, 70001 };
    static const int dists[] = { D_EQUAL, D_TWO, D_AND4, D_TIES };
    const size_t count = sizeof sizes / sizeof sizes[0];
    unsigned m = 0;
    for (size_t s = quick ? 3 : 0; s < (quick ? 4 : count); s++)
        for (size_t di = 0; di < 4; di++) {
            const size_t n = sizes[s];
            const size_t kv[] = { 1, n, n / 3, n - 1, 256, 257, 255, 65536, 65535, 65537, n / 2 + 1 };
            for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
                if (kv[i] < 1 || kv[i] > n || (i && kv[i] == kv[0]) || (quick && i > 2))
                    continue;
                m++;
                top_case c = { quick ? CLSORT_KEY_U32 : (clsort_key_type)(m % 6), (int)(m / 6 % 2),
                               0, 0, m % 3 * 4, n, kv[i], dists[di], m % 5 == 0 };
                check_case(*state, &c);
            }
        }
    const size_t n = quick ? 300 : 20011;
    for (clsort_key_type t = CLSORT_KEY_U32; t <= CLSORT_KEY_F64; t += quick ? 3 : 1) {
        const unsigned w = (unsigned)clsort_key_type_size(t) * 8;
        /* the ranges (and value sizes) of test_types, so that no new programs are built */
        top_case agree = { t, t % 2, w / 2, w / 2 + 1, 8, n, n / 3, D_TWO, 0 };
        check_case(*state, &agree);
        top_case split = { t, t % 2 == 0, 3, w - 5, 4, n, n / 2 + 1, D_TWO, 1 };
        check_case(*state, &split);
    }
}

/* n u32 keys whose first byte is 1, 2, 3 for cap - 1, cap and cap + 1 of them and 4 for the rest,
 * shuffled; the other bytes random with repeats. */
static void fill_steps(unsigned char *keys, size_t n, size_t cap, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t top = i < cap - 1 ? 1 : i < 2 * cap - 1 ? 2 : i < 3 * cap ? 3 : 4;
        const uint32_t k = top << 24 | ((uint32_t)rng(&seed) & 0x00ff0f0fu);
        memcpy(keys + i * 4, &k, 4);
    }
    for (size_t i = n; i > 1; i--) {
        const size_t j = (size_t)(rng(&seed) % i);
        unsigned char t[4];
        memcpy(t, keys + (i - 1) * 4, 4);
        memcpy(keys + (i - 1) * 4, keys + j * 4, 4);
        memcpy(keys + j * 4, t, 4);
    }
}

/* Small candidate buffers (CLSORT_TOP_CAP, read when a context opens): copies made or refused for
 * buckets just under, at and over the capacity, from the input and from a candidate buffer; then
 * every distribution on prime sizes with k beside the capacity. */
static void test_cap(void **state)
{
    (void)state;
    static const size_t caps[] = { 1, 37, 600 };
    for (size_t ci = quick ? 1 : 0; ci < 3; ci++) {
        const size_t cap = caps[ci];
        char v[32];
        snprintf(v, sizeof v, "%zu", cap);
        setenv("CLSORT_TOP_CAP", v, 1);
        clsort_context *ctx = NULL;
        assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
        unsetenv("CLSORT_TOP_CAP");
        const size_t n = 3 * cap + (quick ? 40 : 5003);
        unsigned char *keys = malloc(n * 4);
        fill_steps(keys, n, cap, cap);
        const size_t edges[] = { 1, cap - 1, cap, 2 * cap - 1, 2 * cap, 3 * cap, 3 * cap + 1, n };
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
            for (int desc = 0; desc < 2; desc++) {
                if (quick && (e < 1 || e > 4 || desc != (int)e % 2))
                    continue;
                const size_t k = desc ? n + 1 - edges[e] : edges[e];
                if (k < 1 || k > n)
                    continue;
                top_case c = { CLSORT_KEY_U32, desc, 0, 0, 4, n, k, D_UNIFORM, (int)e % 2 };
                check_keys(ctx, &c, keys);
            }
        free(keys);
        static const size_t sizes[] = { 97, 1009, 10007 };
        for (size_t s = 0; s < (quick ? 0u : 3u); s++) /* quick: the steps alone */
            for (int d = 0; d < D_COUNT; d++) {
                const size_t sz = sizes[s], kv[] = { 1, cap - 1, cap, cap + 1, sz / 2, sz };
                for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
                    if (kv[i] < 1 || kv[i] > sz || (quick && i % 2))
                        continue;
                    top_case c = { (clsort_key_type)((i + s) % 6), (d + (int)i) % 2, 0, 0, 4, sz,
                                   kv[i], d, (int)i % 3 == 0 };
                    check_case(ctx, &c);
                }
            }
        clsort_close(&ctx);
    }
}

/* Repeated calls in one context keep working (kept scratch, state reset each time). */
static void test_repeat(void **state)
{
    for (int r = 0; r < 3; r++) {
        top_case c = { CLSORT_KEY_F32, r & 1, 0, 0, 8, quick ? 100 : 30000, 17 + r, D_SPECIAL, r == 2 };
        check_case(*state, &c);
    }
}

/* Refusals: k out of 1..n with a detail naming both, segments, missing buffers. */
static void test_errors(void **state)
{
    clsort_context *ctx = *state;
    uint32_t keys[4] = { 4, 3, 2, 1 }, out[4], vals[4] = { 0 };
    clsort_spec spec;
    clsort_spec_default(&spec);
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 4, 0, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "k is 0, expected 1 <= k <= 4"));
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 4, 5, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "k is 5"));
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 0, 1, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clsort_top(NULL, &spec, keys, NULL, 4, 1, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clsort_top(ctx, &spec, NULL, NULL, 4, 1, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.value_size = 4;
    assert_int_equal(clsort_top(ctx, &spec, keys, vals, 4, 1, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.value_size = 3;
    assert_int_equal(clsort_top(ctx, &spec, keys, vals, 4, 1, out, vals, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    spec.value_size = 0;
    spec.segment = 2;
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 4, 1, out, NULL, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    spec.segment = 0;
    spec.begin_bit = 8;
    spec.end_bit = 8;
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 4, 1, out, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.begin_bit = spec.end_bit = 0;
    /* the same buffer for input and output */
    cl_context cx;
    assert_int_equal(clsort_context_info(ctx, &cx, NULL), CLSORT_OK);
    cl_int err;
    cl_mem b = clCreateBuffer(cx, CL_MEM_READ_WRITE, 16, NULL, &err);
    cl_event ev = (cl_event)1;
    assert_int_equal(clsort_top_enqueue(ctx, &spec, b, NULL, 4, 2, b, NULL, 0, NULL, &ev),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_null(ev);
    clReleaseMemObject(b);
    /* and a call that works afterwards */
    clsort_stats stats;
    assert_int_equal(clsort_top(ctx, &spec, keys, NULL, 4, 2, out, NULL, &stats), CLSORT_OK);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 2);
    assert_int_equal(stats.n, 4);
    assert_string_equal(stats.algorithm, "radix-select");
}

int main(int argc, char **argv)
{
    int a = 1;
    quick = argc > a && !strcmp(argv[a], "quick");
    full = argc > a && !strcmp(argv[a], "long");
    a += quick || full;
    if (argc > a && clsort_key_type_from_name(argv[a], &only_type) == CLSORT_OK)
        one_type = 1, a++;
    if (argc > a) {
        fprintf(stderr, "usage: test_top [quick | long] [TYPE]\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_skewed),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests_name("top", tests, open_ctx, close_ctx);
}
