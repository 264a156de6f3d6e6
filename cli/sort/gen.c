/*
 * Deterministic key generators (see gen.h). Calls msg.c for errors in --dist and the library for
 * the key types' names and sizes.
 *
 * Every distribution first makes an "ordinal": an unsigned word whose order is the order the keys should
 * have. The key type then maps it to the key's bits, keeping that order: u32/u64 as it is, i32/i64 with
 * the sign bit flipped, f32/f64 through the inverse of the float-to-sortable-integer transform (with NaN
 * and infinity clamped to the largest finite value). entropy:Q is a statement about bits, so its words
 * are the keys' bits for every type; constant:V is the value V itself.
 */
#include "gen.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** by Blackman and Vigna */
static inline uint64_t next64(uint64_t *s)
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static inline uint32_t next32(uint64_t *s)
{
    return (uint32_t)(next64(s) >> 32);
}

/* uniform in [0, 1) with 53 random bits */
static inline double next_double(uint64_t *s)
{
    return (double)(next64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Bijections on 32- and 64-bit words (murmur3's and splitmix64's finalisers): distinct inputs give
 * distinct keys. */
static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static inline uint64_t fmix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Ordinal to key bits (see the top of the file). */
static inline uint32_t clamp_f32(uint32_t b)
{
    return (b & 0x7fffffffu) > 0x7f7fffffu ? (b & 0x80000000u) | 0x7f7fffffu : b;
}

static inline uint64_t clamp_f64(uint64_t b)
{
    const uint64_t max = 0x7fefffffffffffffull, sign = 1ull << 63;
    return (b & ~sign) > max ? (b & sign) | max : b;
}

static inline uint32_t ord_i32(uint32_t u)
{
    return u ^ 0x80000000u;
}

static inline uint32_t ord_f32(uint32_t u)
{
    return clamp_f32(u & 0x80000000u ? u ^ 0x80000000u : ~u);
}

static inline uint64_t ord_i64(uint64_t u)
{
    return u ^ (1ull << 63);
}

static inline uint64_t ord_f64(uint64_t u)
{
    return clamp_f64(u >> 63 ? u ^ (1ull << 63) : ~u);
}

/* ---------------------------------------------------------------------------------------------------
 * Distributions
 */

static const char *const dist_names[] = {
    [DIST_UNIFORM] = "uniform", [DIST_CONSTANT] = "constant", [DIST_SORTED] = "sorted",
    [DIST_REVERSE] = "reverse", [DIST_FEW] = "few", [DIST_ENTROPY] = "entropy", [DIST_ZIPF] = "zipf",
};

#define DIST_LIST "uniform, constant[:V], sorted, reverse, few:K, entropy:Q, zipf:S"

static int parse_param(const char *text, const char *dist, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi) {
        msg_error("--dist %s:%s: the parameter must be an integer from %llu to %llu", dist, text,
                  (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *out = v;
    return 0;
}

int dist_parse(const char *text, dist_spec *out)
{
    static const struct {
        dist_kind kind;
        int param; /* 0 none, 1 optional, 2 required */
        uint64_t lo, hi;
        const char *what; /* the required parameter */
    } table[] = {
        {DIST_UNIFORM, 0, 0, 0, NULL},
        {DIST_CONSTANT, 1, 0, 0, NULL},
        {DIST_SORTED, 0, 0, 0, NULL},
        {DIST_REVERSE, 0, 0, 0, NULL},
        {DIST_FEW, 2, 1, 1ull << 32, "K (number of distinct keys)"},
        {DIST_ENTROPY, 2, 1, 32, "Q (words ANDed, 1-32)"},
        {DIST_ZIPF, 2, 0, 0, "S (the exponent, e.g. 1 or 0.8)"},
    };
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *name = dist_names[table[i].kind];
        if (strlen(name) != len || strncmp(name, text, len) != 0)
            continue;
        memset(out, 0, sizeof *out);
        out->kind = table[i].kind;
        if (colon && table[i].param == 0) {
            msg_error("--dist %s takes no parameter", name);
            return -1;
        }
        if (!colon && table[i].param == 2) {
            msg_error("--dist %s needs a parameter: %s:%s", name, name, table[i].what);
            return -1;
        }
        if (!colon)
            return 0;
        out->has_param = 1;
        out->text = colon + 1;
        if (out->kind == DIST_CONSTANT)
            return 0; /* read by dist_check_type(), once the key type is known */
        if (out->kind == DIST_ZIPF) {
            char *end;
            errno = 0;
            double s = strtod(colon + 1, &end);
            if (errno || end == colon + 1 || *end || !(s > 0 && s <= 100)) {
                msg_error("--dist zipf:%s: the exponent must be a number above 0 and at most 100",
                          colon + 1);
                return -1;
            }
            out->s = s;
            return 0;
        }
        return parse_param(colon + 1, name, table[i].lo, table[i].hi, &out->param);
    }
    msg_error("unknown distribution '%s' (" DIST_LIST ")", text);
    return -1;
}

int dist_check_type(dist_spec *d, clsort_key_type t)
{
    if (d->kind != DIST_CONSTANT || !d->has_param)
        return 0;
    const char *v = d->text;
    char *end;
    errno = 0;
    int ok = 0;
    switch (t) {
    case CLSORT_KEY_U32:
    case CLSORT_KEY_U64: {
        int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
        unsigned long long x = strtoull(v, &end, hex ? 16 : 10);
        ok = !errno && end != v && !*end && v[0] != '-' &&
             (t == CLSORT_KEY_U64 || x <= UINT32_MAX);
        d->param = x;
        break;
    }
    case CLSORT_KEY_I32:
    case CLSORT_KEY_I64: {
        long long x = strtoll(v, &end, 10);
        ok = !errno && end != v && !*end &&
             (t == CLSORT_KEY_I64 || (x >= INT32_MIN && x <= INT32_MAX));
        d->param = t == CLSORT_KEY_I64 ? (uint64_t)x : (uint32_t)(int32_t)x;
        break;
    }
    case CLSORT_KEY_F32: {
        float x = strtof(v, &end);
        ok = end != v && !*end && isfinite(x);
        uint32_t b;
        memcpy(&b, &x, 4);
        d->param = b;
        break;
    }
    case CLSORT_KEY_F64: {
        double x = strtod(v, &end);
        ok = end != v && !*end && isfinite(x);
        memcpy(&d->param, &x, 8);
        break;
    }
    }
    if (!ok) {
        static const char *ranges[] = {
            [CLSORT_KEY_U32] = "an integer from 0 to 4294967295",
            [CLSORT_KEY_I32] = "an integer from -2147483648 to 2147483647",
            [CLSORT_KEY_F32] = "a finite number",
            [CLSORT_KEY_U64] = "an integer from 0 to 18446744073709551615",
            [CLSORT_KEY_I64] = "an integer from -9223372036854775808 to 9223372036854775807",
            [CLSORT_KEY_F64] = "a finite number",
        };
        msg_error("--dist constant:%s: the value must be %s (a %s key)", v, ranges[t],
                  clsort_key_type_name(t));
        return -1;
    }
    return 0;
}

void dist_format(const dist_spec *d, char *buf, size_t cap)
{
    const char *name = dist_names[d->kind];
    if (!d->has_param)
        snprintf(buf, cap, "%s", name);
    else if (d->kind == DIST_ZIPF)
        snprintf(buf, cap, "%s:%g", name, d->s);
    else if (d->kind == DIST_CONSTANT)
        snprintf(buf, cap, "%s:%s", name, d->text);
    else
        snprintf(buf, cap, "%s:%llu", name, (unsigned long long)d->param);
}

/* ---------------------------------------------------------------------------------------------------
 * Zipf: rejection-inversion (W. Hörmann, G. Derflinger, "Rejection-inversion to generate variates from
 * monotone discrete distributions", 1996). Ranks 1..2^32, P(k) proportional to k^-s; O(1) per key.
 */

#define ZIPF_RANKS 4294967296.0

static double helper1(double x)
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

static double zipf_h_integral(double x, double s)
{
    double lx = log(x);
    return helper2((1 - s) * lx) * lx;
}

static double zipf_h(double x, double s)
{
    return exp(-s * log(x));
}

static double zipf_h_integral_inverse(double x, double s)
{
    double t = x * (1 - s);
    if (t < -1)
        t = -1;
    return exp(helper1(t) * x);
}

static void zipf_init(gen_state *g)
{
    double s = g->dist.s;
    g->z_hx1 = zipf_h_integral(1.5, s) - 1;
    g->z_hn = zipf_h_integral(ZIPF_RANKS + 0.5, s);
    g->z_sv = 2 - zipf_h_integral_inverse(zipf_h_integral(2.5, s) - zipf_h(2, s), s);
}

#define ZIPF_REJECTED UINT64_MAX

/* One attempt on one draw in [0, 1): a rank in [0, 2^32) (rank 0 is the most frequent), or
 * ZIPF_REJECTED. */
static inline uint64_t zipf_try(const gen_state *g, double draw)
{
    const double s = g->dist.s;
    double u = g->z_hn + draw * (g->z_hx1 - g->z_hn);
    double x = zipf_h_integral_inverse(u, s);
    double k = floor(x + 0.5);
    if (k < 1)
        k = 1;
    else if (k > ZIPF_RANKS)
        k = ZIPF_RANKS;
    if (k - x <= g->z_sv || u >= zipf_h_integral(k + 0.5, s) - zipf_h(k, s))
        return (uint64_t)(k - 1);
    return ZIPF_REJECTED;
}

typedef struct zipf_part {
    const gen_state *g;
    const double *draw;
    uint64_t *rank;
    size_t n;
    pthread_t thread;
} zipf_part;

static void *zipf_part_main(void *arg)
{
    const zipf_part *p = arg;
    for (size_t i = 0; i < p->n; i++)
        p->rank[i] = zipf_try(p->g, p->draw[i]);
    return NULL;
}

/* One round: n draws taken in order, tried on the threads, results in g->z_rank. */
static void zipf_round(gen_state *g, size_t n, size_t threads)
{
    enum { MAX_THREADS = 32 };
    for (size_t i = 0; i < n; i++)
        g->z_draw[i] = next_double(g->s);
    threads = threads > MAX_THREADS ? MAX_THREADS : threads;
    const size_t share = (n + threads - 1) / threads;
    zipf_part parts[MAX_THREADS];
    int started[MAX_THREADS] = { 0 };
    for (size_t t = 0; t < threads; t++) {
        const size_t from = t * share < n ? t * share : n;
        const size_t to = from + share < n ? from + share : n;
        parts[t] = (zipf_part){ .g = g, .draw = g->z_draw + from, .rank = g->z_rank + from,
                                .n = to - from };
        if (t)
            started[t] = pthread_create(&parts[t].thread, NULL, zipf_part_main, &parts[t]) == 0;
    }
    zipf_part_main(&parts[0]);
    for (size_t t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(parts[t].thread, NULL);
        else
            zipf_part_main(&parts[t]);
    }
}

/* Key `at` from its rank: offset and mixed, 4 or 8 bytes. */
static inline void zipf_put(void *keys, int wide, size_t at, uint64_t rank, uint64_t off)
{
    if (wide)
        ((uint64_t *)keys)[at] = fmix64(rank + off);
    else
        ((uint32_t *)keys)[at] = fmix32((uint32_t)rank + (uint32_t)off);
}

/* The next count Zipf keys (ranks offset and mixed), 4 or 8 bytes each. Each attempt takes one draw
 * and is accepted or not on that draw alone, so the draws are taken in order on this thread, tried
 * on several (the logarithms and exponentials are what cost: 16 GiB of u32 keys took 3 minutes on
 * one thread), and the accepted ones, in draw order, are the ranks one attempt after another gives.
 * A round takes at most as many draws as keys are missing, so it never takes one too many. */
static void zipf_keys(gen_state *g, void *keys, size_t count, int wide, uint64_t off)
{
    enum { MIN_ROUND = 1 << 14, MAX_ROUND = 1 << 20 };
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t filled = 0;
    if (cpus > 1 && count >= MIN_ROUND && !g->z_draw) { /* kept for the next calls */
        g->z_cap = count < MAX_ROUND ? count : MAX_ROUND;
        g->z_draw = malloc(g->z_cap * sizeof *g->z_draw);
        g->z_rank = malloc(g->z_cap * sizeof *g->z_rank);
        if (!g->z_draw || !g->z_rank)
            gen_done(g); /* one thread, then */
    }
    while (g->z_rank && count - filled >= MIN_ROUND) {
        const size_t n = count - filled < g->z_cap ? count - filled : g->z_cap;
        zipf_round(g, n, (size_t)cpus);
        for (size_t i = 0; i < n; i++)
            if (g->z_rank[i] != ZIPF_REJECTED)
                zipf_put(keys, wide, filled++, g->z_rank[i], off);
    }
    while (filled < count) {
        const uint64_t r = zipf_try(g, next_double(g->s));
        if (r != ZIPF_REJECTED)
            zipf_put(keys, wide, filled++, r, off);
    }
}

void gen_done(gen_state *g)
{
    free(g->z_draw);
    free(g->z_rank);
    g->z_draw = NULL;
    g->z_rank = NULL;
    g->z_cap = 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Generation
 */

void gen_init(gen_state *g, const dist_spec *d, clsort_key_type t, uint64_t seed, uint64_t n)
{
    memset(g, 0, sizeof *g);
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&x);
    g->dist = *d;
    g->type = t;
    g->n = n;
    /* values derived from the seed come from a separate stream, so the keys' stream is the same for
     * every distribution */
    uint64_t y = seed ^ 0x6a09e667f3bcc909ull;
    uint64_t extra = splitmix64(&y);
    g->constant = d->kind == DIST_CONSTANT && d->has_param ? (uint32_t)d->param : (uint32_t)(extra >> 32);
    g->constant64 = d->kind == DIST_CONSTANT && d->has_param ? d->param : extra;
    if (d->kind == DIST_ZIPF)
        zipf_init(g);
}

/* Key i of n sorted keys: floor((i + u) * 2^32 / n) for a random u in [0, 1), so the keys are
 * non-decreasing, cover the whole range and are random within each step. */
static inline uint32_t sorted_key(uint64_t i, uint32_t u, double scale)
{
    double x = ((double)i + (double)u * (1.0 / 4294967296.0)) * scale;
    return x >= 4294967295.0 ? UINT32_MAX : (uint32_t)x;
}

/* 32-bit keys: ordinals (or bits, for entropy and constant:V) */
static void gen32(gen_state *g, uint32_t *keys, size_t count)
{
    uint64_t *s = g->s;
    switch (g->dist.kind) {
    case DIST_UNIFORM:
        for (size_t i = 0; i < count; i++)
            keys[i] = next32(s);
        break;
    case DIST_CONSTANT:
        for (size_t i = 0; i < count; i++)
            keys[i] = g->constant;
        break;
    case DIST_SORTED:
    case DIST_REVERSE: {
        double scale = g->n ? 4294967296.0 / (double)g->n : 0.0;
        uint32_t flip = g->dist.kind == DIST_REVERSE ? UINT32_MAX : 0;
        for (size_t i = 0; i < count; i++)
            keys[i] = sorted_key(g->index + i, next32(s), scale) ^ flip;
        break;
    }
    case DIST_FEW: {
        uint64_t k = g->dist.param;
        uint32_t off = g->constant;
        for (size_t i = 0; i < count; i++) {
            uint64_t pick = ((uint64_t)next32(s) * k) >> 32; /* uniform in [0, k) */
            keys[i] = fmix32((uint32_t)pick + off);
        }
        break;
    }
    case DIST_ENTROPY: {
        unsigned q = (unsigned)g->dist.param;
        for (size_t i = 0; i < count; i++) {
            uint32_t v = next32(s);
            for (unsigned j = 1; j < q; j++)
                v &= next32(s);
            keys[i] = v;
        }
        break;
    }
    case DIST_ZIPF:
        zipf_keys(g, keys, count, 0, g->constant);
        break;
    }
}

/* 64-bit keys */
static void gen64(gen_state *g, uint64_t *keys, size_t count)
{
    uint64_t *s = g->s;
    switch (g->dist.kind) {
    case DIST_UNIFORM:
        for (size_t i = 0; i < count; i++)
            keys[i] = next64(s);
        break;
    case DIST_CONSTANT:
        for (size_t i = 0; i < count; i++)
            keys[i] = g->constant64;
        break;
    case DIST_SORTED:
    case DIST_REVERSE: {
        /* key i = i * step + (a random offset below step), step = floor(2^64 / n) */
        uint64_t step = g->n > 1 ? (uint64_t)(((unsigned __int128)1 << 64) / g->n) : UINT64_MAX;
        uint64_t flip = g->dist.kind == DIST_REVERSE ? UINT64_MAX : 0;
        for (size_t i = 0; i < count; i++) {
            uint64_t off = (uint64_t)(((unsigned __int128)next64(s) * step) >> 64);
            keys[i] = ((g->index + i) * step + off) ^ flip;
        }
        break;
    }
    case DIST_FEW: {
        uint64_t k = g->dist.param, off = g->constant64;
        for (size_t i = 0; i < count; i++) {
            uint64_t pick = ((uint64_t)next32(s) * k) >> 32;
            keys[i] = fmix64(pick + off);
        }
        break;
    }
    case DIST_ENTROPY: {
        unsigned q = (unsigned)g->dist.param;
        for (size_t i = 0; i < count; i++) {
            uint64_t v = next64(s);
            for (unsigned j = 1; j < q; j++)
                v &= next64(s);
            keys[i] = v;
        }
        break;
    }
    case DIST_ZIPF:
        zipf_keys(g, keys, count, 1, g->constant64);
        break;
    }
}

void gen_keys(gen_state *g, void *keys, size_t count)
{
    /* words that are the keys' bits already: constant:V and entropy (bits, clamped to finite floats) */
    int bits = g->dist.kind == DIST_ENTROPY || (g->dist.kind == DIST_CONSTANT && g->dist.has_param);
    if (clsort_key_type_size(g->type) == 4) {
        uint32_t *k = keys;
        gen32(g, k, count);
        if (g->type == CLSORT_KEY_I32 && !bits)
            for (size_t i = 0; i < count; i++)
                k[i] = ord_i32(k[i]);
        else if (g->type == CLSORT_KEY_F32)
            for (size_t i = 0; i < count; i++)
                k[i] = bits ? clamp_f32(k[i]) : ord_f32(k[i]);
    } else {
        uint64_t *k = keys;
        gen64(g, k, count);
        if (g->type == CLSORT_KEY_I64 && !bits)
            for (size_t i = 0; i < count; i++)
                k[i] = ord_i64(k[i]);
        else if (g->type == CLSORT_KEY_F64)
            for (size_t i = 0; i < count; i++)
                k[i] = bits ? clamp_f64(k[i]) : ord_f64(k[i]);
    }
    g->index += count;
}
