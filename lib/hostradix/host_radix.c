/*
 * The loops of the host radix sort (host_sort.c runs them on the host's threads, host_local.c
 * sorts a bucket with them): digit histograms of a range of keys, the stable scatter of a range by
 * one digit (by 8-bit places, or by the wider digits of a bucket), the split's scatter by whole
 * lines, and an insertion sort for short ranges.
 * Keys are moved as they are stored; their order bits (the key mapping of cl/common.cl, the order
 * and the bit range, as clsort_key_recipe_order() has them) are computed where a digit is read, so
 * nothing is mapped back. The loops are compiled once per key size, value size and key kind (float
 * or not), so that the common cases (u32 ascending) cost a load, a shift and a mask per digit.
 * Calls: keys.c.
 */
#include "host_sort.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define INLINE static inline __attribute__((always_inline))

INLINE uint64_t load(const void *p, size_t i, unsigned size)
{
    return size == 4 ? ((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
}

INLINE void store(void *p, size_t i, uint64_t v, unsigned size)
{
    if (size == 4)
        ((uint32_t *)p)[i] = (uint32_t)v;
    else
        ((uint64_t *)p)[i] = v;
}

/* What the order bits of a key take, in locals: stores through the data's pointers could alias
 * the fields of the sort, which the loops would otherwise load again for every key. */
typedef struct order {
    uint64_t flip, sign, ones, inf;
} order;

INLINE order order_of(const clsort_host_sort *s)
{
    return (order){ s->recipe.flip, s->recipe.sign, s->recipe.ones, s->recipe.inf };
}

/* The key's order bits before the range mask: a float's sign decides between flipping all bits
 * (negative) and the sign bit (positive); then the order's and the signed types' flip. fl 2 is
 * numpy's float order: every NaN all ones (last in either direction), -0.0 read as +0.0. */
INLINE uint64_t order_bits(order o, uint64_t k, unsigned ks, int fl)
{
    if (fl == 2) {
        const uint64_t mag = k & (o.sign - 1);
        if (mag > o.inf)
            return o.ones;
        k = mag ? k : 0;
    }
    uint64_t x = o.flip;
    if (fl)
        x ^= o.sign | (o.ones & (0 - (k >> (ks * 8 - 1))));
    return k ^ x;
}

/* The digit of order bits m: bits sh.. under dm, through map where that is not NULL (the split
 * by a wide digit: buckets of runs of its values). */
INLINE unsigned digit_of(uint64_t m, unsigned sh, unsigned dm, const uint8_t *map)
{
    const unsigned d = (unsigned)(m >> sh) & dm;
    return map ? map[d] : d;
}

/* Counts of the wide digit (bits sh.. under dm, up to 16 bits) over keys [lo, hi) into c[dm + 1]
 * (hi - lo < 2^32); in numpy's float order, where odd is not NULL, *odd += the NaNs and -0.0s. */
INLINE void wide_hist_body(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                           unsigned sh, unsigned dm, uint32_t *c, size_t *odd, unsigned ks, int fl)
{
    const order o = order_of(s);
    memset(c, 0, (dm + 1) * sizeof *c);
    size_t n_odd = 0;
    for (size_t i = lo; i < hi; i++) {
        const uint64_t k = load(keys, i, ks);
        if (fl == 2 && odd)
            n_odd += ((k & (o.sign - 1)) > o.inf) | (k == o.sign);
        c[(unsigned)(order_bits(o, k, ks, fl) >> sh) & dm]++;
    }
    if (odd)
        *odd += n_odd;
}

/* Counts of every digit place in `places` (bit per place) over keys [lo, hi). The places are
 * listed first, so that the loop over a key's places runs over the ones wanted only. */
INLINE void hist_body(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                      unsigned places, size_t (*c)[256], size_t *odd, unsigned ks, int fl)
{
    const order o = order_of(s);
    unsigned list[CLSORT_HOST_MAX_PASSES], sh[CLSORT_HOST_MAX_PASSES], dm[CLSORT_HOST_MAX_PASSES];
    unsigned np = 0;
    for (unsigned p = 0; p < s->passes; p++)
        if (places >> p & 1) {
            memset(c[p], 0, sizeof c[p]);
            list[np] = p;
            sh[np] = s->shift[p];
            dm[np++] = s->dmask[p];
        }
    if (np == 1 && hi - lo <= UINT32_MAX) { /* the split by the top digit */
        /* four sets of counters: runs of one digit (a top place of few values, as normal floats
         * have) wait on one counter's increments otherwise; 2^24 normal f32 keys in numpy's order,
         * 2 threads, perf samples of these counts -30%, of the whole sort -8% */
        uint32_t four[4][256] = { { 0 } };
        const unsigned sh0 = sh[0], dm0 = dm[0];
        size_t i = lo, odd4 = 0;
        for (; i + 4 <= hi; i += 4) {
            unsigned d[4];
            for (unsigned u = 0; u < 4; u++) {
                const uint64_t k = load(keys, i + u, ks);
                d[u] = (unsigned)(order_bits(o, k, ks, fl) >> sh0) & dm0;
                if (fl == 2 && odd) /* a NaN or -0.0 */
                    odd4 += ((k & (o.sign - 1)) > o.inf) | (k == o.sign);
            }
            for (unsigned u = 0; u < 4; u++)
                four[u][d[u]]++;
        }
        for (size_t j = i; fl == 2 && odd && j < hi; j++) {
            const uint64_t k = load(keys, j, ks);
            odd4 += ((k & (o.sign - 1)) > o.inf) | (k == o.sign);
        }
        if (odd)
            *odd += odd4;
        size_t *cp = c[list[0]];
        for (unsigned d = 0; d <= dm0; d++)
            cp[d] = (size_t)four[0][d] + four[1][d] + four[2][d] + four[3][d];
        for (; i < hi; i++)
            cp[(unsigned)(order_bits(o, load(keys, i, ks), ks, fl) >> sh0) & dm0]++;
        return;
    }
    if (fl == 2 && odd) /* not a split's count: no caller asks */
        *odd += hi - lo;
    if (np == 1) {
        size_t *cp = c[list[0]];
        for (size_t i = lo; i < hi; i++)
            cp[(unsigned)(order_bits(o, load(keys, i, ks), ks, fl) >> sh[0]) & dm[0]]++;
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        const uint64_t m = order_bits(o, load(keys, i, ks), ks, fl);
        for (unsigned j = 0; j < np; j++)
            c[list[j]][(unsigned)(m >> sh[j]) & dm[j]]++;
    }
}

/* Records [lo, hi) of src to dst by the digit (sh, dm, map: digit_of), off[d] the next slot of
 * digit d. */
INLINE void scatter_body(const clsort_host_sort *s, const clsort_host_span *src,
                         const clsort_host_span *dst, size_t lo, size_t hi, unsigned sh,
                         unsigned dm, const uint8_t *map, size_t *off, unsigned ks, unsigned vs,
                         int fl)
{
    const order o = order_of(s);
    const void *sk = src->keys, *sv = src->values;
    void *dk = dst->keys, *dv = dst->values;
    for (size_t i = lo; i < hi; i++) {
        const uint64_t k = load(sk, i, ks);
        const size_t at = off[digit_of(order_bits(o, k, ks, fl), sh, dm, map)]++;
        store(dk, at, k, ks);
        if (vs)
            store(dv, at, load(sv, i, vs), vs);
    }
}

/* Counts of every digit of g over keys [lo, hi), in 32-bit counters (hi - lo < 2^32). ND is the
 * digit count where the caller knows it (the loop unrolled), else 0 and g->n is read. */
INLINE void digit_hist_body(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                            const clsort_host_digits *g, uint32_t (*c)[CLSORT_HOST_DIGIT_MAX],
                            unsigned ks, int fl, unsigned nd)
{
    const order o = order_of(s);
    const unsigned n = nd ? nd : g->n;
    unsigned sh[CLSORT_HOST_MAX_DIGITS], dm[CLSORT_HOST_MAX_DIGITS];
    for (unsigned j = 0; j < n; j++) {
        sh[j] = g->shift[j];
        dm[j] = g->mask[j];
        memset(c[j], 0, (dm[j] + 1) * sizeof c[j][0]);
    }
    for (size_t i = lo; i < hi; i++) {
        const uint64_t m = order_bits(o, load(keys, i, ks), ks, fl);
        for (unsigned j = 0; j < n; j++)
            c[j][(unsigned)(m >> sh[j]) & dm[j]]++;
    }
}

INLINE void digit_hist_any(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                           const clsort_host_digits *g, uint32_t (*c)[CLSORT_HOST_DIGIT_MAX],
                           unsigned ks, int fl)
{
    if (g->n == 2) /* a bucket of u32 keys after the split */
        digit_hist_body(s, keys, lo, hi, g, c, ks, fl, 2);
    else if (g->n == 3)
        digit_hist_body(s, keys, lo, hi, g, c, ks, fl, 3);
    else
        digit_hist_body(s, keys, lo, hi, g, c, ks, fl, 0);
}

/* n records of src from index from to dst from index to, by digit j of g; off[d]: where digit d
 * goes next, counted from `to`. */
INLINE void digit_scatter_body(const clsort_host_sort *s, const clsort_host_span *src, size_t from,
                               const clsort_host_span *dst, size_t to, size_t n,
                               const clsort_host_digits *g, unsigned j, uint32_t *off, unsigned ks,
                               unsigned vs, int fl)
{
    const order o = order_of(s);
    const unsigned sh = g->shift[j], dm = g->mask[j];
    const unsigned char *sk = (const unsigned char *)src->keys + from * ks;
    const unsigned char *sv = vs ? (const unsigned char *)src->values + from * vs : NULL;
    unsigned char *dk = (unsigned char *)dst->keys + to * ks;
    unsigned char *dv = vs ? (unsigned char *)dst->values + to * vs : NULL;
    size_t i = 0;
    /* four keys' digits ahead of their stores: 2^24 u32 keys, CPU time of the whole sort on 2
     * threads 65 ms one key at a time, 64 ms four; u64 keys 135-141 ms, 121 ms (/tmp harness on
     * clsort_host_sort_run, medians of 5-7) */
    for (; i + 4 <= n; i += 4) {
        uint64_t k[4];
        unsigned d[4];
        for (unsigned u = 0; u < 4; u++) {
            k[u] = load(sk, i + u, ks);
            d[u] = (unsigned)(order_bits(o, k[u], ks, fl) >> sh) & dm;
        }
        for (unsigned u = 0; u < 4; u++) {
            const uint32_t at = off[d[u]]++;
            store(dk, at, k[u], ks);
            if (vs)
                store(dv, at, load(sv, i + u, vs), vs);
        }
    }
    for (; i < n; i++) {
        const uint64_t k = load(sk, i, ks);
        const uint32_t at = off[(unsigned)(order_bits(o, k, ks, fl) >> sh) & dm]++;
        store(dk, at, k, ks);
        if (vs)
            store(dv, at, load(sv, i, vs), vs);
    }
}

#if defined(__SSE2__)
/* Whole lines around the cache: the scratch is not read again before the split ends, and a line
 * written whole needs no read of it first. 2^24 u32 keys by the top 8 bits, one thread of a 2-core
 * EPYC (CPU time, /tmp harness): 39 ms by plain stores, 21 ms gathered and streamed. */
static void stream_lines(void *dst, const void *src, size_t bytes)
{
    __m128i *d = dst;
    const __m128i *from = src;
    for (size_t i = 0; i < bytes / 16; i++)
        _mm_stream_si128(d + i, _mm_load_si128(from + i));
}

/* Records [from, to) of a digit's group (all in the group) from its gathered line to dst. */
INLINE void put_part(unsigned char *dst, const unsigned char *line, size_t from, size_t to,
                     unsigned group, unsigned size)
{
    memcpy(dst + from * size, line + (from & (group - 1)) * size, (to - from) * size);
}

/* The scatter of scatter_body, each digit's records gathered in lines->keys and ->values until a
 * group of `group` records (aligned in dst) is complete, then streamed; a group that begins before
 * this chunk's first record of the digit (other chunks write there) and the last, incomplete ones
 * are stored plainly. dst's keys and values are aligned to lines. */
INLINE void split_lines(const clsort_host_sort *s, const clsort_host_span *src,
                        const clsort_host_span *dst, size_t lo, size_t hi, unsigned sh,
                        unsigned dm, const uint8_t *map, size_t *off, clsort_host_lines *lines,
                        unsigned ks, unsigned vs, int fl)
{
    const order o = order_of(s);
    const unsigned nd = map ? 256 : dm + 1; /* digits that can occur */
    const unsigned group = CLSORT_HOST_LINE / (ks == 4 || vs == 4 ? 4 : 8);
    const unsigned char *sk = src->keys, *sv = src->values;
    unsigned char *dk = dst->keys, *dv = dst->values;
    size_t *begin = lines->begin;
    memcpy(begin, off, nd * sizeof *off);
    for (size_t i = lo; i < hi; i++) {
        const uint64_t k = load(sk, i, ks);
        const unsigned d = digit_of(order_bits(o, k, ks, fl), sh, dm, map);
        const size_t at = off[d]++;
        const unsigned slot = at & (group - 1);
        store(lines->keys[d], slot, k, ks);
        if (vs)
            store(lines->values[d], slot, load(sv, i, vs), vs);
        if (slot != group - 1)
            continue;
        const size_t first = at + 1 - group;
        if (first >= begin[d]) {
            stream_lines(dk + first * ks, lines->keys[d], group * ks);
            if (vs)
                stream_lines(dv + first * vs, lines->values[d], group * vs);
        } else {
            put_part(dk, lines->keys[d], begin[d], at + 1, group, ks);
            if (vs)
                put_part(dv, lines->values[d], begin[d], at + 1, group, vs);
        }
    }
    for (unsigned d = 0; d < nd; d++) {
        const size_t end = off[d], first = end & ~(size_t)(group - 1);
        const size_t from = first > begin[d] ? first : begin[d];
        put_part(dk, lines->keys[d], from, end, group, ks);
        if (vs)
            put_part(dv, lines->values[d], from, end, group, vs);
    }
    _mm_sfence(); /* the streamed lines are seen before the threads' barrier */
}
#endif

INLINE int line_aligned(const void *p)
{
    return ((uintptr_t)p & (CLSORT_HOST_LINE - 1)) == 0;
}

void clsort_host_stream(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    unsigned char *d = dst;
    const unsigned char *from = src;
    const size_t head = (CLSORT_HOST_LINE - ((uintptr_t)d & (CLSORT_HOST_LINE - 1))) &
                        (CLSORT_HOST_LINE - 1);
    if (bytes >= head + CLSORT_HOST_LINE) {
        memcpy(d, from, head);
        const size_t body = (bytes - head) & ~(size_t)(CLSORT_HOST_LINE - 1);
        for (size_t i = head; i < head + body; i += 16)
            _mm_stream_si128((__m128i *)(d + i), _mm_loadu_si128((const __m128i *)(from + i)));
        memcpy(d + head + body, from + head + body, bytes - head - body);
        _mm_sfence();
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

INLINE void split_body(const clsort_host_sort *s, const clsort_host_span *src,
                       const clsort_host_span *dst, size_t lo, size_t hi, unsigned sh,
                       unsigned dm, const uint8_t *map, size_t *off, clsort_host_lines *lines,
                       unsigned ks, unsigned vs, int fl)
{
#if defined(__SSE2__)
    if (lines && line_aligned(dst->keys) && (!vs || line_aligned(dst->values))) {
        split_lines(s, src, dst, lo, hi, sh, dm, map, off, lines, ks, vs, fl);
        return;
    }
#endif
    (void)lines;
    scatter_body(s, src, dst, lo, hi, sh, dm, map, off, ks, vs, fl);
}

/* Stable insertion sort of [lo, hi) in place, by the masked order bits. */
INLINE void insertion_body(const clsort_host_sort *s, const clsort_host_span *a, size_t lo,
                           size_t hi, unsigned ks, unsigned vs, int fl)
{
    const order o = order_of(s);
    const uint64_t mask = s->recipe.mask;
    void *ak = a->keys, *av = a->values;
    for (size_t i = lo + 1; i < hi; i++) {
        const uint64_t k = load(ak, i, ks), v = vs ? load(av, i, vs) : 0;
        const uint64_t key_order = order_bits(o, k, ks, fl) & mask;
        size_t j = i;
        for (; j > lo && (order_bits(o, load(ak, j - 1, ks), ks, fl) & mask) > key_order; j--) {
            store(ak, j, load(ak, j - 1, ks), ks);
            if (vs)
                store(av, j, load(av, j - 1, vs), vs);
        }
        store(ak, j, k, ks);
        if (vs)
            store(av, j, v, vs);
    }
}

#define VARIANT(KS, VS, FL)                                                                        \
    static void hist_##KS##_##VS##_##FL(const clsort_host_sort *s, const void *keys, size_t lo,    \
                                        size_t hi, unsigned places, size_t (*c)[256], size_t *odd) \
    {                                                                                              \
        hist_body(s, keys, lo, hi, places, c, odd, KS, FL);                                        \
    }                                                                                              \
    static void scatter_##KS##_##VS##_##FL(const clsort_host_sort *s, const clsort_host_span *src, \
                                           const clsort_host_span *dst, size_t lo, size_t hi,      \
                                           unsigned pass, size_t *off)                             \
    {                                                                                              \
        scatter_body(s, src, dst, lo, hi, s->shift[pass], s->dmask[pass], NULL, off, KS, VS, FL);  \
    }                                                                                              \
    static void split_##KS##_##VS##_##FL(const clsort_host_sort *s, const clsort_host_span *src,   \
                                         const clsort_host_span *dst, size_t lo, size_t hi,        \
                                         unsigned pass, size_t *off, clsort_host_lines *lines)     \
    {                                                                                              \
        split_body(s, src, dst, lo, hi, s->shift[pass], s->dmask[pass], NULL, off, lines, KS, VS,  \
                   FL);                                                                            \
    }                                                                                              \
    static void wide_hist_##KS##_##VS##_##FL(const clsort_host_sort *s, const void *keys,        \
                                             size_t lo, size_t hi, unsigned sh, unsigned dm,       \
                                             uint32_t *c, size_t *odd)                             \
    {                                                                                              \
        wide_hist_body(s, keys, lo, hi, sh, dm, c, odd, KS, FL);                                   \
    }                                                                                              \
    static void split_map_##KS##_##VS##_##FL(                                                      \
        const clsort_host_sort *s, const clsort_host_span *src, const clsort_host_span *dst,       \
        size_t lo, size_t hi, unsigned sh, unsigned dm, const uint8_t *map, size_t *off,           \
        clsort_host_lines *lines)                                                                  \
    {                                                                                              \
        split_body(s, src, dst, lo, hi, sh, dm, map, off, lines, KS, VS, FL);                      \
    }                                                                                              \
    static void digit_hist_##KS##_##VS##_##FL(const clsort_host_sort *s, const void *keys,       \
                                              size_t lo, size_t hi, const clsort_host_digits *g,   \
                                              uint32_t (*c)[CLSORT_HOST_DIGIT_MAX])                \
    {                                                                                              \
        digit_hist_any(s, keys, lo, hi, g, c, KS, FL);                                             \
    }                                                                                              \
    static void digit_scatter_##KS##_##VS##_##FL(                                                  \
        const clsort_host_sort *s, const clsort_host_span *src, size_t from,                       \
        const clsort_host_span *dst, size_t to, size_t n, const clsort_host_digits *g, unsigned j, \
        uint32_t *off)                                                                             \
    {                                                                                              \
        digit_scatter_body(s, src, from, dst, to, n, g, j, off, KS, VS, FL);                       \
    }                                                                                              \
    static void insertion_##KS##_##VS##_##FL(const clsort_host_sort *s,                            \
                                             const clsort_host_span *a, size_t lo, size_t hi)      \
    {                                                                                              \
        insertion_body(s, a, lo, hi, KS, VS, FL);                                                  \
    }

#define VARIANTS(KS, FL) VARIANT(KS, 0, FL) VARIANT(KS, 4, FL) VARIANT(KS, 8, FL)
VARIANTS(4, 0)
VARIANTS(4, 1)
VARIANTS(4, 2)
VARIANTS(8, 0)
VARIANTS(8, 1)
VARIANTS(8, 2)

#define OPS(KS, VS, FL)                                                                            \
    {                                                                                              \
        hist_##KS##_##VS##_##FL, scatter_##KS##_##VS##_##FL, split_##KS##_##VS##_##FL,             \
            digit_hist_##KS##_##VS##_##FL, digit_scatter_##KS##_##VS##_##FL,                       \
            insertion_##KS##_##VS##_##FL, wide_hist_##KS##_##VS##_##FL,                            \
            split_map_##KS##_##VS##_##FL                                                           \
    }
/* [key size 8][value size / 4][0 integer, 1 float in total order, 2 in numpy's] */
static const clsort_host_ops ops_table[2][3][3] = {
    { { OPS(4, 0, 0), OPS(4, 0, 1), OPS(4, 0, 2) },
      { OPS(4, 4, 0), OPS(4, 4, 1), OPS(4, 4, 2) },
      { OPS(4, 8, 0), OPS(4, 8, 1), OPS(4, 8, 2) } },
    { { OPS(8, 0, 0), OPS(8, 0, 1), OPS(8, 0, 2) },
      { OPS(8, 4, 0), OPS(8, 4, 1), OPS(8, 4, 2) },
      { OPS(8, 8, 0), OPS(8, 8, 1), OPS(8, 8, 2) } },
};

const clsort_host_ops *clsort_host_ops_total(const clsort_host_sort *s)
{
    return &ops_table[s->ks == 8][s->vs / 4][1];
}

void clsort_host_sort_init(clsort_host_sort *s, const clsort_spec *spec, size_t n)
{
    memset(s, 0, sizeof *s);
    clsort_key_recipe_init(spec, &s->recipe);
    s->n = n;
    s->ks = (unsigned)clsort_key_size(spec->key_type);
    s->vs = (unsigned)spec->value_size;
    unsigned begin, end;
    clsort_key_range(spec, &begin, &end);
    s->passes = (end - begin + 7) / 8;
    for (unsigned p = 0; p < s->passes; p++) {
        s->shift[p] = begin + 8 * p;
        const unsigned bits = end - s->shift[p] < 8 ? end - s->shift[p] : 8;
        s->dmask[p] = (1u << bits) - 1;
    }
    s->ops = &ops_table[s->ks == 8][s->vs / 4][!s->recipe.is_float ? 0 : s->recipe.inf ? 2 : 1];
}
