/* Deterministic key generator shared by the clsort and CUB benchmark programs (C and C++). */
#ifndef CLSORT_BENCHGEN_H
#define CLSORT_BENCHGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t benchgen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Key i of a distribution: the AND of q uniform words (Thearling-Smith entropy bands; q = 1 is
 * uniform); q = 0 gives constant keys. Key i depends only on i, so slices can be made in parallel. */
#define BENCHGEN_LOW16 100  /* "low16": uniform keys below 2^16 */
#define BENCHGEN_NEARLY 101 /* "nearly": ascending keys spread over the range, 1% replaced at random */
#define BENCHGEN_SKEW 102   /* "skew": 2^20 distinct keys, the r-th most frequent about r^-0.7 */

/* Key i of n. */
static inline uint32_t benchgen_key(uint64_t i, uint64_t n, unsigned q)
{
    if (q == 0)
        return 0x12345678u;
    if (q == BENCHGEN_NEARLY) {
        const uint64_t r = benchgen_mix(7 * 0x9e3779b97f4a7c15ull + i);
        return r % 100 == 0 ? (uint32_t)(r >> 32) : (uint32_t)((i << 32) / (n ? n : 1));
    }
    if (q == BENCHGEN_SKEW) {
        /* rank = 2^(20 u^3) for u uniform in [0, 1): most keys take a few small ranks, the rest
         * a long tail; a rank's key is a hash of it, so the heavy keys are spread over the range */
        const double u = (double)(benchgen_mix(9 * 0x9e3779b97f4a7c15ull + i) >> 11) / 9007199254740992.0;
        double rank = 1.0, e = 20.0 * u * u * u;
        while (e >= 1.0) {
            rank *= 2.0;
            e -= 1.0;
        }
        rank *= 1.0 + e * (0.6931471805599453 + e * (0.2402265069591007 + e * 0.0555041086648216));
        return (uint32_t)benchgen_mix((uint64_t)rank);
    }
    if (q == BENCHGEN_LOW16)
        return (uint32_t)benchgen_mix(42 * 0x9e3779b97f4a7c15ull + i * 32 + 1) & 0xffffu;
    uint64_t s = 42 * 0x9e3779b97f4a7c15ull + i * 32;
    uint32_t k = 0xffffffffu;
    for (unsigned j = 0; j < q; j++)
        k &= (uint32_t)benchgen_mix(s + j + 1);
    return k;
}

/* Distribution names: "uniform" (q = 1), "q2".."q16", "constant", "low16", "nearly", "skew". Returns
 * -1 when unknown. */
static inline int benchgen_q(const char *name)
{
    if (!strcmp(name, "uniform"))
        return 1;
    if (!strcmp(name, "constant"))
        return 0;
    if (!strcmp(name, "low16"))
        return BENCHGEN_LOW16;
    if (!strcmp(name, "nearly"))
        return BENCHGEN_NEARLY;
    if (!strcmp(name, "skew"))
        return BENCHGEN_SKEW;
    if (name[0] == 'q' && name[1] >= '1' && name[1] <= '9') {
        int q = 0;
        for (const char *p = name + 1; *p; p++) {
            if (*p < '0' || *p > '9')
                return -1;
            q = q * 10 + (*p - '0');
        }
        return q >= 1 && q <= 32 ? q : -1;
    }
    return -1;
}

/*
 * Segment offsets (CSR: n_seg + 1 of them, the first 0, the last n) of a mix of lengths, for the
 * segmented-sort benchmarks; off needs room for 2 n + 2 entries (an empty segment only follows one
 * with keys). Mixes:
 *   "mixed":  in one call empty segments, single keys, tens, hundreds, thousands, tens of thousands
 *             and up to two million keys (by keys, mostly the long ones)
 *   "small":  1 to 128 keys; "medium": 129 to 4096; "large": n/16 to n/4
 *   "fixed:L": L keys each, the last one shorter
 * Returns the number of segments, or -1 for an unknown mix.
 */
static inline long long benchgen_segments(const char *mix, uint64_t n, uint64_t *off)
{
    int kind = !strcmp(mix, "mixed") ? 0 : !strcmp(mix, "small") ? 1 : !strcmp(mix, "medium") ? 2
             : !strcmp(mix, "large") ? 3 : !strncmp(mix, "fixed:", 6) ? 4 : -1;
    const uint64_t fixed = kind == 4 ? strtoull(mix + 6, NULL, 0) : 0;
    if (kind < 0 || (kind == 4 && fixed == 0))
        return -1;
    uint64_t at = 0, k = 0;
    int last_empty = 1;
    off[0] = 0;
    while (at < n) {
        const uint64_t r = benchgen_mix(7 * 0x9e3779b97f4a7c15ull + k * 2 + 1), u = r % 1000;
        uint64_t len;
        if (kind == 4)
            len = fixed;
        else if (kind == 1)
            len = 1 + r % 128;
        else if (kind == 2)
            len = 129 + r % 3968;
        else if (kind == 3)
            len = 1 + n / 16 + r % (n / 16 * 3 + 1);
        else if (u < 50)
            len = last_empty ? 1 : 0;
        else if (u < 150)
            len = 1;
        else if (u < 550)
            len = 2 + r % 127;
        else if (u < 900)
            len = 129 + r % 3968;
        else if (u < 990)
            len = 4097 + r % 61440;
        else
            len = 65537 + r % (2u << 20);
        if (len > n - at)
            len = n - at;
        last_empty = len == 0;
        at += len;
        off[++k] = at;
    }
    return (long long)k;
}

#endif
