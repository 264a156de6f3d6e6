/*
 * Deterministic key generators (see gen.h).
 */
#include "gen.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A bijection on 32-bit words (murmur3's finaliser): distinct inputs give distinct keys. */
static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

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
        const char *name;
        dist_kind kind;
        int param; /* 0 none, 1 optional, 2 required */
        uint64_t lo, hi;
    } table[] = {
        {"uniform", DIST_UNIFORM, 0, 0, 0},
        {"constant", DIST_CONSTANT, 1, 0, UINT32_MAX},
        {"sorted", DIST_SORTED, 0, 0, 0},
        {"reverse", DIST_REVERSE, 0, 0, 0},
        {"few", DIST_FEW, 2, 1, 1ull << 32},
        {"entropy", DIST_ENTROPY, 2, 1, 32},
    };
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strlen(table[i].name) != len || strncmp(table[i].name, text, len) != 0)
            continue;
        memset(out, 0, sizeof *out);
        out->kind = table[i].kind;
        if (colon && table[i].param == 0) {
            msg_error("--dist %s takes no parameter", table[i].name);
            return -1;
        }
        if (!colon && table[i].param == 2) {
            msg_error("--dist %s needs a parameter: %s:%s", table[i].name, table[i].name,
                      table[i].kind == DIST_FEW ? "K (number of distinct keys)" : "Q (words ANDed, 1-32)");
            return -1;
        }
        if (colon) {
            if (parse_param(colon + 1, table[i].name, table[i].lo, table[i].hi, &out->param) != 0)
                return -1;
            out->has_param = 1;
        }
        return 0;
    }
    msg_error("unknown distribution '%s' (uniform, constant[:V], sorted, reverse, few:K, entropy:Q)", text);
    return -1;
}

void dist_format(const dist_spec *d, char *buf, size_t cap)
{
    static const char *names[] = {"uniform", "constant", "sorted", "reverse", "few", "entropy"};
    if (d->has_param)
        snprintf(buf, cap, "%s:%llu", names[d->kind], (unsigned long long)d->param);
    else
        snprintf(buf, cap, "%s", names[d->kind]);
}

void gen_init(gen_state *g, const dist_spec *d, uint64_t seed, uint64_t n)
{
    memset(g, 0, sizeof *g);
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&x);
    g->dist = *d;
    g->n = n;
    /* values derived from the seed come from a separate stream, so the keys' stream is the same for
     * every distribution */
    uint64_t y = seed ^ 0x6a09e667f3bcc909ull;
    uint64_t extra = splitmix64(&y);
    g->constant = d->kind == DIST_CONSTANT && d->has_param ? (uint32_t)d->param : (uint32_t)(extra >> 32);
}

/* Key i of n sorted keys: floor((i + u) * 2^32 / n) for a random u in [0, 1), so the keys are
 * non-decreasing, cover the whole range and are random within each step. */
static inline uint32_t sorted_key(uint64_t i, uint32_t u, double scale)
{
    double x = ((double)i + (double)u * (1.0 / 4294967296.0)) * scale;
    return x >= 4294967295.0 ? UINT32_MAX : (uint32_t)x;
}

void gen_keys(gen_state *g, uint32_t *keys, size_t count)
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
    }
    g->index += count;
}
