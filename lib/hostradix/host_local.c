/*
 * The sort of a range of records in the calling thread: a bucket of the host radix sort, or a
 * whole input small enough for one thread. Short ranges take an insertion sort. The others are
 * sorted by the bits of the places asked, cut into digits as wide as the range makes worth their
 * counters (up to 12 bits): after the split, the 24 low bits of a bucket of u32 keys take two
 * passes where 8-bit digits take three. Every digit is counted in one read of the keys; digits
 * that are the same for every record are skipped.
 * Calls: host_radix.c.
 */
#include "host_sort.h"

#include <string.h>

#define INSERTION_MAX 24

static void copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}

/* Records [from, from + n) of src to dst from index `to`; streamed around the cache or copied. */
static void span_move(const clsort_host_sort *s, const clsort_host_span *src, size_t from,
                      const clsort_host_span *dst, size_t to, size_t n, int stream)
{
    void (*move)(void *, const void *, size_t) = stream ? clsort_host_stream : copy;
    move((char *)dst->keys + to * s->ks, (const char *)src->keys + from * s->ks, n * s->ks);
    if (s->vs)
        move((char *)dst->values + to * s->vs, (const char *)src->values + from * s->vs,
             n * s->vs);
}

static void span_copy(const clsort_host_sort *s, const clsort_host_span *src,
                      const clsort_host_span *dst, size_t lo, size_t hi)
{
    span_move(s, src, lo, dst, lo, hi - lo, 0);
}

static unsigned log2_floor(size_t n)
{
    unsigned l = 0;
    while (n >>= 1)
        l++;
    return l;
}

/* The digits of the bits from the lowest place in `places` to the top of the highest, for n
 * records: as few as digits of up to `most` bits allow, of even widths. A digit of b bits costs
 * 2^b counters to clear and sum per pass, so it gets no wider than a quarter of n's range. 12 bits
 * rather than 11 or 8 for the 2^16 records of a bucket of 2^24 u32 keys (two passes, not three):
 * CPU time of the whole sort on 2 threads 71 ms, 88 ms with 11 or 8 (/tmp harness on
 * clsort_host_sort_run, medians of 7). */
static void plan_digits(const clsort_host_sort *s, unsigned places, size_t n, clsort_host_digits *g)
{
    unsigned lo = 0, hi = 0;
    for (unsigned p = 0; p < s->passes; p++)
        if (places >> p & 1) {
            hi = p;
            lo = places & ((1u << p) - 1) ? lo : p;
        }
    const unsigned b0 = s->shift[lo], b1 = s->shift[hi] + log2_floor(s->dmask[hi] + 1);
    const unsigned l = log2_floor(n);
    const unsigned most = l < 10 ? 8 : l > 14 ? 12 : l - 2;
    const unsigned width = b1 - b0, nd = (width + most - 1) / most;
    g->n = nd;
    for (unsigned j = 0, at = b0; j < nd; j++) {
        const unsigned bits = width / nd + (j < width % nd);
        g->shift[j] = at;
        g->mask[j] = (1u << bits) - 1;
        at += bits;
    }
}

/* Digit counts to where each digit's records start; returns 0 where one digit has them all. */
static int starts(uint32_t *c, unsigned mask, size_t n)
{
    uint32_t run = 0;
    int varies = 1;
    for (unsigned d = 0; d <= mask; d++) {
        const uint32_t k = c[d];
        varies &= k != n;
        c[d] = run;
        run += k;
    }
    return varies;
}

/* The sort by the digits of g; returns the digits skipped. The passes go back and forth between
 * src and alt, the last into out; where their count would end in the other one, the first goes
 * into buf (it is indexed from 0) and the second from buf, which saves copying the range back.
 * Where buf->stream, they go back and forth between src and buf, in cache, and the result is
 * streamed to out: 2^24 u32 keys, CPU time of the whole sort on 2 threads (medians, /tmp harness
 * on clsort_host_sort_run), 75 ms with the last pass into out, 69 ms streamed. */
static unsigned sort_digits(const clsort_host_sort *s, const clsort_host_span *src,
                            const clsort_host_span *alt, const clsort_host_span *out, size_t lo,
                            size_t hi, const clsort_host_digits *g, const clsort_host_buffer *buf)
{
    uint32_t c[CLSORT_HOST_MAX_DIGITS][CLSORT_HOST_DIGIT_MAX];
    s->ops->digit_hist(s, src->keys, lo, hi, g, c);
    unsigned pass[CLSORT_HOST_MAX_DIGITS], m = 0;
    for (unsigned j = 0; j < g->n; j++)
        if (starts(c[j], g->mask[j], hi - lo))
            pass[m++] = j;
    const int fits = buf && buf->records >= hi - lo;
    const int stream = fits && buf->stream && out == alt;
    const int wrong_end = (m % 2 == 1) != (out != src);
    const int via_buf = !stream && fits && wrong_end && m >= 2;
    /* an even count of passes ending where they start: back and forth through buf, in cache,
     * rather than through alt (a part of a bucket split again: sort_bucket() in host_sort.c) */
    const int pingpong = !stream && fits && !wrong_end && out == src && m >= 2;
    const clsort_host_span *other = out == src ? alt : src; /* the one that is not out */
    const clsort_host_span *scratch = fits ? &buf->span : NULL;
    const clsort_host_span *from = src;
    size_t at = lo; /* where the range starts in `from` */
    for (unsigned t = 0; t < m; t++) {
        const clsort_host_span *to = from == src ? alt : src;
        if (stream || pingpong)
            to = from == src ? scratch : src;
        else if (via_buf && t == 0)
            to = scratch;
        else if (via_buf && t == 1)
            to = (m - t) % 2 == 1 ? out : other;
        const size_t to_at = to == scratch ? 0 : lo;
        s->ops->digit_scatter(s, from, at, to, to_at, hi - lo, g, pass[t], c[pass[t]]);
        from = to;
        at = to_at;
    }
    if (from != out)
        span_move(s, from, at, out, lo, hi - lo, stream);
    return g->n - m;
}

/* The sort by 8-bit places, for ranges too long for 32-bit counters. */
static unsigned sort_places(const clsort_host_sort *s, const clsort_host_span *src,
                            const clsort_host_span *alt, const clsort_host_span *out, size_t lo,
                            size_t hi, unsigned places)
{
    size_t c[CLSORT_HOST_MAX_PASSES][256];
    s->ops->hist(s, src->keys, lo, hi, places, c, NULL);
    const clsort_host_span *from = src, *to = alt;
    unsigned skipped = 0;
    for (unsigned p = 0; p < s->passes; p++) {
        if (!(places >> p & 1))
            continue;
        size_t run = lo;
        int constant = 0;
        for (unsigned d = 0; d <= s->dmask[p]; d++) {
            const size_t k = c[p][d];
            constant |= k == hi - lo;
            c[p][d] = run;
            run += k;
        }
        if (constant) {
            skipped++;
            continue;
        }
        s->ops->scatter(s, from, to, lo, hi, p, c[p]);
        const clsort_host_span *t = from;
        from = to;
        to = t;
    }
    if (from != out)
        span_copy(s, from, out, lo, hi);
    return skipped;
}

unsigned clsort_host_sort_local(const clsort_host_sort *s, const clsort_host_span *src,
                                const clsort_host_span *alt, int to_alt, size_t lo, size_t hi,
                                unsigned places, const clsort_host_buffer *buf)
{
    const clsort_host_span *out = to_alt ? alt : src;
    if (hi - lo <= INSERTION_MAX) {
        if (to_alt)
            span_copy(s, src, alt, lo, hi);
        s->ops->insertion(s, out, lo, hi);
        return 0;
    }
    if (!places) {
        if (to_alt)
            span_copy(s, src, alt, lo, hi);
        return 0;
    }
    if (hi - lo > UINT32_MAX)
        return sort_places(s, src, alt, out, lo, hi, places);
    clsort_host_digits g;
    plan_digits(s, places, hi - lo, &g);
    return sort_digits(s, src, alt, out, lo, hi, &g, buf);
}
