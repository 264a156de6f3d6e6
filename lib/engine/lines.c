/*
 * clsort_sort_lines(): text lines as one more layout of the engine. The lines are found, each
 * gets a 64-bit prefix of its first key on the host's threads (lines_keys.c), the prefixes are
 * sorted on the device with their positions (clsort_argsort(), stable), and the ranges of equal
 * prefixes are put in GNU sort's exact order on the host's threads; -u keeps the first of each
 * run of lines whose keys compare equal.
 * Calls api.c (clsort_argsort, as any caller), lines_keys.c, parallel.c, status.c.
 */
#include "internal.h"
#include "lines.h"

#include <stdlib.h>
#include <string.h>

void clsort_lines_spec_default(clsort_lines_spec *spec)
{
    if (!spec)
        return;
    memset(spec, 0, sizeof *spec);
    spec->delimiter = '\n';
    spec->separator = -1;
}

/* Bytes equal to d in p[0, n): eight a step, each byte of x ^ d's pattern tested for zero exactly
 * (no carry crosses a byte: (b & 0x7f) + 0x7f <= 0xfe). */
static size_t count_byte(const char *p, size_t n, char d)
{
    const uint64_t high = UINT64_C(0x8080808080808080), low7 = ~high;
    const uint64_t pat = UINT64_C(0x0101010101010101) * (unsigned char)d;
    size_t c = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, sizeof x);
        x ^= pat;
        const uint64_t z = ~(((x & low7) + low7) | x) & high; /* 0x80 in each byte that was d */
        /* the bytes' 0 or 1 summed into the top byte (no popcount instruction needed) */
        c += (size_t)(((z >> 7) * UINT64_C(0x0101010101010101)) >> 56);
    }
    for (; i < n; i++)
        c += p[i] == d;
    return c;
}

/* The split: the buffer cut into chunks of SPLIT_CHUNK bytes; the lines that start in each are
 * counted, then their starts written at the chunk's place, each chunk on any thread. A line starts
 * at byte 0 and after each delimiter but the buffer's last byte. */
enum { SPLIT_CHUNK = 1 << 20 };

typedef struct split_job {
    const char *buf;
    size_t len, chunks;
    char delim;
    unsigned threads; /* at most, 0: the default */
    uint64_t *first; /* the number of the first line of each chunk, then the count */
    uint64_t *starts;
} split_job;

static size_t split_at(const split_job *s, size_t c)
{
    return c < s->chunks ? c * (size_t)SPLIT_CHUNK : s->len;
}

/* The delimiters whose next byte is in chunk c: [lo, hi) */
static void split_range(const split_job *s, size_t c, size_t *lo, size_t *hi)
{
    const size_t b = split_at(s, c), e = split_at(s, c + 1);
    *lo = b ? b - 1 : 0;
    *hi = e ? e - 1 : 0;
}

static void split_count(void *arg, size_t begin, size_t end)
{
    split_job *s = arg;
    for (size_t c = begin; c < end; c++) {
        size_t lo, hi;
        split_range(s, c, &lo, &hi);
        s->first[c + 1] = (c == 0 && s->len) + count_byte(s->buf + lo, hi - lo, s->delim);
    }
}

static void split_fill(void *arg, size_t begin, size_t end)
{
    split_job *s = arg;
    for (size_t c = begin; c < end; c++) {
        uint64_t *o = s->starts + s->first[c];
        size_t lo, hi;
        split_range(s, c, &lo, &hi);
        if (c == 0 && s->len)
            *o++ = 0;
        const char *p = s->buf + lo, *e = s->buf + hi;
        while (p < e && (p = memchr(p, s->delim, (size_t)(e - p))) != NULL) {
            p++;
            *o++ = (uint64_t)(p - s->buf);
        }
    }
}

/* The lines of buf counted, on at most `threads` of the host's threads (0: the default) from 2
 * chunks on: s->first[s->chunks] after; -1 when there is no memory for the chunks' table.
 * split_done() writes the starts, then frees it. */
static int split_plan(split_job *s, const char *buf, size_t len, char delim, unsigned threads)
{
    *s = (split_job){ buf, len, len / SPLIT_CHUNK + (len % SPLIT_CHUNK != 0), delim, threads,
                      NULL, NULL };
    s->first = malloc((s->chunks + 1) * sizeof *s->first);
    if (!s->first)
        return -1;
    s->first[0] = 0;
    clsort_parallel_threads(s->threads, s->chunks, 1, split_count, s);
    for (size_t c = 0; c < s->chunks; c++)
        s->first[c + 1] += s->first[c];
    return 0;
}

static void split_done(split_job *s, uint64_t *starts)
{
    s->starts = starts;
    if (starts)
        clsort_parallel_threads(s->threads, s->chunks, 1, split_fill, s);
    free(s->first);
    s->first = NULL;
}

/* Large tables: their pages made present on the host's threads, rather than one fault at a time
 * in whichever step first writes them (the read's copy into the input's block, above all). Huge
 * pages asked for with madvise() made the whole slower on a 2-core host: more system time, slower
 * writes of the output beside them. */
typedef struct touch_job {
    char *p;
    size_t n;
} touch_job;

static void touch_slice(void *arg, size_t begin, size_t end)
{
    touch_job *t = arg;
    for (size_t i = begin; i < end; i++)
        t->p[i * 4096] = 0;
}

void *lines_alloc(size_t bytes, unsigned threads)
{
    char *p = malloc(bytes ? bytes : 1);
    if (!p || bytes < (4u << 20))
        return p;
    touch_job t = { p, bytes };
    clsort_parallel_threads(threads, bytes / 4096, 256, touch_slice, &t);
    return p;
}

typedef struct count_job {
    const char *p;
    size_t n, chunks;
    char d;
    size_t got[256];
} count_job;

static void count_slice(void *arg, size_t begin, size_t end)
{
    count_job *c = arg;
    for (size_t k = begin; k < end; k++) {
        const size_t b = c->n * k / c->chunks, e = c->n * (k + 1) / c->chunks;
        c->got[k] = count_byte(c->p + b, e - b, c->d);
    }
}

size_t lines_count_byte(const char *p, size_t n, char d, unsigned threads)
{
    if (n < 2 * (size_t)SPLIT_CHUNK)
        return count_byte(p, n, d);
    count_job c = { p, n, n / SPLIT_CHUNK < 256 ? n / SPLIT_CHUNK : 256, d, { 0 } };
    clsort_parallel_threads(threads, c.chunks, 1, count_slice, &c);
    size_t sum = 0;
    for (size_t k = 0; k < c.chunks; k++)
        sum += c.got[k];
    return sum;
}

size_t clsort_lines_count(const clsort_lines_spec *spec, const char *buf, size_t len)
{
    const char delim = spec ? spec->delimiter : '\n';
    if (!buf || !len)
        return 0;
    split_job s;
    if (split_plan(&s, buf, len, delim, 0) != 0) /* no memory for the table: one thread */
        return 1 + count_byte(buf, len - 1, delim);
    const size_t n = (size_t)s.first[s.chunks];
    split_done(&s, NULL);
    return n;
}

int clsort_lines_compare(const clsort_lines_spec *spec, const char *a, size_t alen, const char *b,
                         size_t blen)
{
    lines_order o;
    if (lines_order_make(NULL, spec, &o) != CLSORT_OK)
        return 0;
    return lines_compare(&o, a, alen, b, blen);
}

/* A spec checked once, for the comparisons of a merge or a check: clsort_lines_order_new(). */
struct clsort_lines_order {
    lines_order o;
};

clsort_status clsort_lines_order_new(const clsort_lines_spec *spec, clsort_lines_order **order)
{
    if (!order)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "clsort_lines_order_new: order is NULL");
    *order = NULL;
    clsort_lines_order *o = malloc(sizeof *o);
    if (!o)
        return clsort_fail(NULL, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "clsort_lines_order_new: no memory");
    const clsort_status st = lines_order_make(NULL, spec, &o->o);
    if (st != CLSORT_OK) {
        free(o);
        return st;
    }
    *order = o;
    return CLSORT_OK;
}

void clsort_lines_order_free(clsort_lines_order *order)
{
    free(order);
}

int clsort_lines_order_compare(const clsort_lines_order *order, const char *a, size_t alen,
                               const char *b, size_t blen)
{
    return lines_compare(&order->o, a, alen, b, blen);
}

typedef struct lines_job {
    const lines_order *o;
    const char *buf;
    const uint64_t *starts;
    uint64_t *keys;
    uint64_t *order;
} lines_job;

#define LINE_AT(j, i) ((j)->buf + (j)->starts[i])
#define LINE_LEN(j, i) ((size_t)((j)->starts[(i) + 1] - (j)->starts[i] - 1))

static void prefix_slice(void *arg, size_t begin, size_t end)
{
    lines_job *j = arg;
    for (size_t i = begin; i < end; i++)
        j->keys[i] = lines_prefix(j->o, LINE_AT(j, i), LINE_LEN(j, i));
}

static int line_cmp(const lines_job *j, uint64_t a, uint64_t b)
{
    return lines_compare(j->o, LINE_AT(j, a), LINE_LEN(j, a), LINE_AT(j, b), LINE_LEN(j, b));
}

/* Stable merge sort of positions by the comparison (equal lines keep their order). */
static void merge_sort(const lines_job *j, uint64_t *v, uint64_t *tmp, size_t n)
{
    if (n < 12) {
        for (size_t i = 1; i < n; i++) {
            const uint64_t x = v[i];
            size_t k = i;
            while (k > 0 && line_cmp(j, v[k - 1], x) > 0) {
                v[k] = v[k - 1];
                k--;
            }
            v[k] = x;
        }
        return;
    }
    const size_t h = n / 2;
    merge_sort(j, v, tmp, h);
    merge_sort(j, v + h, tmp, n - h);
    if (line_cmp(j, v[h - 1], v[h]) <= 0)
        return;
    memcpy(tmp, v, h * sizeof *v);
    size_t a = 0, b = h, o = 0;
    while (a < h && b < n)
        v[o++] = line_cmp(j, v[b], tmp[a]) < 0 ? v[b++] : tmp[a++];
    while (a < h)
        v[o++] = tmp[a++];
}

/* Ranges of equal prefixes that start in [begin, end), each sorted by the comparison (a range may
 * run past end; one that started before begin is its slice's). */
typedef struct ties_job {
    lines_job *j;
    size_t n;
    int failed;
} ties_job;

static void ties_slice(void *arg, size_t begin, size_t end)
{
    ties_job *t = arg;
    lines_job *j = t->j;
    size_t i = begin;
    if (i > 0)
        while (i < end && j->keys[i] == j->keys[i - 1])
            i++;
    uint64_t *tmp = NULL;
    size_t tmp_cap = 0;
    while (i < end) {
        size_t k = i + 1;
        while (k < t->n && j->keys[k] == j->keys[i])
            k++;
        const size_t m = k - i;
        if (m > 1) {
            if (m / 2 + 1 > tmp_cap) {
                free(tmp);
                tmp_cap = m / 2 + 1;
                tmp = malloc(tmp_cap * sizeof *tmp);
                if (!tmp) {
                    tmp_cap = 0;
                    t->failed = 1;
                    return;
                }
            }
            merge_sort(j, j->order + i, tmp, m);
        }
        i = k;
    }
    free(tmp);
}

/* 4-byte positions in the first half of order made 8-byte ones, in place: the upper half of the
 * entries first (their 8 bytes lie past every 4-byte entry still to read), then the upper half of
 * the rest, and so on, each range on the host's threads. */
typedef struct widen_job {
    uint64_t *order;
    size_t lo;
} widen_job;

static void widen_slice(void *arg, size_t begin, size_t end)
{
    widen_job *w = arg;
    const unsigned char *src = (const unsigned char *)w->order;
    for (size_t i = w->lo + begin; i < w->lo + end; i++) {
        uint32_t v;
        memcpy(&v, src + 4 * i, sizeof v);
        w->order[i] = v;
    }
}

static void widen_positions(uint64_t *order, size_t n, unsigned threads)
{
    size_t hi = n;
    while (hi > 1) {
        const size_t lo = (hi + 1) / 2; /* 8 * lo >= 4 * hi: entries [lo, hi) land past their sources */
        widen_job w = { order, lo };
        clsort_parallel_threads(threads, hi - lo, 1u << 16, widen_slice, &w);
        hi = lo;
    }
    if (n) {
        uint32_t v;
        memcpy(&v, order, sizeof v);
        order[0] = v;
    }
}

/* -u: whether each line of the sorted order differs from the one before it. */
typedef struct unique_job {
    const lines_job *j;
    unsigned char *keep;
} unique_job;

static void unique_slice(void *arg, size_t begin, size_t end)
{
    unique_job *u = arg;
    const uint64_t *order = u->j->order;
    const uint64_t *keys = u->j->keys; /* sorted with order: lines of unequal prefixes differ */
    for (size_t k = begin ? begin : 1; k < end; k++)
        u->keep[k] = keys[k - 1] != keys[k] || line_cmp(u->j, order[k - 1], order[k]) != 0;
}

/* Without a device: the prefixes with their positions, sorted stably on the host. */
typedef struct keyed {
    uint64_t key, pos;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static clsort_status host_argsort(clsort_context *ctx, uint64_t *keys, uint64_t *order, size_t n)
{
    keyed *v = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "clsort_sort_lines: no memory to sort %zu lines on the host", n);
    for (size_t i = 0; i < n; i++)
        v[i] = (keyed){ keys[i], i };
    if (n > 1)
        qsort(v, n, sizeof *v, keyed_cmp);
    for (size_t i = 0; i < n; i++) {
        keys[i] = v[i].key;
        order[i] = v[i].pos;
    }
    free(v);
    return CLSORT_OK;
}

/* The gather: the order cut into chunks; their sizes first, then each chunk copied at its offset.
 * The lines are read in random order: the starts and bytes of lines a few places ahead are asked
 * for early, and a short line is copied as 32 bytes (one or two vector moves, not a call) where
 * the input has them and its chunk's room in out goes on past it (the next line overwrites them). */
enum { GATHER_CHUNKS = 256, GATHER_AHEAD = 16, GATHER_SHORT = 32 };

#if defined(__GNUC__)
#define GATHER_PREFETCH(p) __builtin_prefetch(p)
#else
#define GATHER_PREFETCH(p) ((void)0)
#endif

typedef struct gather_job {
    const char *buf;
    size_t buf_len; /* 0: not known (no copies past a line) */
    const uint64_t *starts, *order;
    size_t n;
    char delim;
    char *out;
    uint64_t at[GATHER_CHUNKS + 1]; /* where each chunk's lines go */
} gather_job;

static void gather_sizes(void *arg, size_t begin, size_t end)
{
    gather_job *g = arg;
    const uint64_t *starts = g->starts, *order = g->order;
    for (size_t c = begin; c < end; c++) {
        uint64_t bytes = 0;
        const size_t e = g->n * (c + 1) / GATHER_CHUNKS;
        for (size_t i = g->n * c / GATHER_CHUNKS; i < e; i++) {
            if (i + GATHER_AHEAD < e)
                GATHER_PREFETCH(&starts[order[i + GATHER_AHEAD]]);
            bytes += starts[order[i] + 1] - starts[order[i]];
        }
        g->at[c + 1] = bytes;
    }
}

static void gather_copy(void *arg, size_t begin, size_t end)
{
    gather_job *g = arg;
    const uint64_t *starts = g->starts, *order = g->order;
    const char *buf = g->buf;
    for (size_t c = begin; c < end; c++) {
        char *o = g->out + g->at[c];
        /* the bytes past a line must be this chunk's: another thread writes the next chunk */
        const char *room_end = g->out + g->at[c + 1];
        const size_t e = g->n * (c + 1) / GATHER_CHUNKS;
        for (size_t i = g->n * c / GATHER_CHUNKS; i < e; i++) {
            if (i + GATHER_AHEAD < e)
                GATHER_PREFETCH(&starts[order[i + GATHER_AHEAD]]);
            if (i + GATHER_AHEAD / 2 < e)
                GATHER_PREFETCH(buf + starts[order[i + GATHER_AHEAD / 2]]);
            const uint64_t k = order[i], at = starts[k];
            const size_t len = (size_t)(starts[k + 1] - at - 1);
            if (len < GATHER_SHORT && at + GATHER_SHORT <= g->buf_len &&
                (size_t)(room_end - o) >= GATHER_SHORT)
                memcpy(o, buf + at, GATHER_SHORT);
            else
                memcpy(o, buf + at, len);
            o[len] = g->delim;
            o += len + 1;
        }
    }
}

size_t lines_gather(const char *buf, size_t buf_len, const uint64_t *starts, const uint64_t *order,
                    size_t n, char delim, char *out, size_t cap, unsigned threads)
{
    if (!n)
        return 0;
    gather_job *g = malloc(sizeof *g);
    if (!g) { /* one thread, then */
        size_t o = 0;
        for (size_t i = 0; i < n; i++)
            o += (size_t)(starts[order[i] + 1] - starts[order[i]]);
        if (o > cap)
            return o;
        o = 0;
        for (size_t i = 0; i < n; i++) {
            const size_t len = (size_t)(starts[order[i] + 1] - starts[order[i]] - 1);
            memcpy(out + o, buf + starts[order[i]], len);
            out[o + len] = delim;
            o += len + 1;
        }
        return o;
    }
    *g = (gather_job){ .buf = buf, .buf_len = buf_len, .starts = starts, .order = order, .n = n,
                       .delim = delim, .out = out };
    clsort_parallel_threads(threads, GATHER_CHUNKS, 1, gather_sizes, g);
    for (size_t c = 0; c < GATHER_CHUNKS; c++)
        g->at[c + 1] += g->at[c];
    const size_t total = (size_t)g->at[GATHER_CHUNKS];
    if (total <= cap)
        clsort_parallel_threads(threads, GATHER_CHUNKS, 1, gather_copy, g);
    free(g);
    return total;
}

size_t clsort_gather_lines(const clsort_lines_spec *spec, const char *buf, const uint64_t *starts,
                           const uint64_t *order, size_t n, char *out)
{
    if (!spec || !starts || !order || !out || !n)
        return 0;
    /* out's room past the lines is not known: cap is what they take */
    return lines_gather(buf, 0, starts, order, n, spec->delimiter, out, SIZE_MAX, 0);
}

clsort_status clsort_sort_lines(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                                size_t len, uint64_t *starts, uint64_t *order, size_t *n_out,
                                clsort_stats *stats)
{
    return lines_sort(ctx, spec, buf, len, starts, order, SIZE_MAX, n_out, stats, 0);
}

clsort_status lines_sort(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                         size_t len, uint64_t *starts, uint64_t *order, size_t room, size_t *n_out,
                         clsort_stats *stats, unsigned threads)
{
    const double t0 = clsort_now_ms();
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (n_out)
        *n_out = 0;
    lines_order o;
    clsort_status st = lines_order_make(ctx, spec, &o);
    if (st != CLSORT_OK)
        return st;
    if ((!buf && len) || !order || !n_out)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_lines: buf (with len > 0), order and n_out must not be NULL");
    split_job sp;
    if (split_plan(&sp, buf ? buf : "", len, spec->delimiter, threads) != 0)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "clsort_sort_lines: no memory to find the lines of %zu bytes", len);
    const size_t n = (size_t)sp.first[sp.chunks];
    if (n > room) {
        split_done(&sp, NULL);
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_lines: %zu lines where %zu were counted", n, room);
    }
    uint64_t *own_starts = NULL;
    uint64_t *keys = n ? lines_alloc(n * sizeof *keys, threads) : NULL;
    if (!starts)
        starts = own_starts = lines_alloc((n + 1) * sizeof *starts, threads);
    if (!starts || (n && !keys)) {
        split_done(&sp, NULL);
        free(own_starts);
        free(keys);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "clsort_sort_lines: no memory for the starts and keys of %zu lines", n);
    }
    /* line i is [starts[i], starts[i + 1] - 1); a last line without its delimiter ends at len */
    split_done(&sp, starts);
    starts[n] = len + (len && buf[len - 1] != spec->delimiter);
    const double t1 = clsort_now_ms();
    lines_job j = { &o, buf, starts, keys, order };
    clsort_parallel_threads(threads, n, 4096, prefix_slice, &j);
    const double t2 = clsort_now_ms();
    if (n > 1 && ctx) {
        clsort_spec s;
        clsort_spec_default(&s);
        s.key_type = CLSORT_KEY_U64;
        /* positions of 4 bytes where they fit (a quarter less to move on the device), in the
         * first half of order, widened in place after */
        const size_t isz = n <= UINT32_MAX ? 4 : 8;
        st = clsort_argsort(ctx, &s, keys, order, isz, n, stats);
        if (st == CLSORT_OK && isz == 4)
            widen_positions(order, n, threads);
    } else {
        st = host_argsort(ctx, keys, order, n);
    }
    const double t3 = clsort_now_ms();
    if (st == CLSORT_OK) {
        ties_job tj = { &j, n, 0 };
        clsort_parallel_threads(threads, n, 4096, ties_slice, &tj);
        if (tj.failed)
            st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                             "clsort_sort_lines: no memory to order lines with equal prefixes");
    }
    if (st == CLSORT_OK) {
        size_t kept = n;
        if (o.unique && n) {
            /* a line is kept when it differs from the one before it (equal lines are equal to the
             * first of their run): by the prefixes where they differ, else by the comparison, on
             * the host's threads, then one pass */
            unsigned char *keep = malloc(n);
            if (keep) {
                unique_job u = { &j, keep };
                clsort_parallel_threads(threads, n, 4096, unique_slice, &u);
            }
            kept = 1;
            for (size_t k = 1; k < n; k++)
                if (keep ? keep[k] : line_cmp(&j, order[kept - 1], order[k]) != 0)
                    order[kept++] = order[k];
            free(keep);
        }
        *n_out = kept;
    }
    free(keys);
    free(own_starts);
    if (stats && st == CLSORT_OK) {
        stats->n = n;
        stats->split_ms = t1 - t0;
        stats->keys_ms = t2 - t1;
        stats->sort_ms = t3 - t2;
        stats->ties_ms = clsort_now_ms() - t3;
        stats->total_ms = clsort_now_ms() - t0;
    }
    return st;
}
