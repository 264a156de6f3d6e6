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

size_t clsort_lines_count(const clsort_lines_spec *spec, const char *buf, size_t len)
{
    const char delim = spec ? spec->delimiter : '\n';
    size_t n = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *q = memchr(p, delim, (size_t)(end - p));
        n++;
        if (!q)
            break;
        p = q + 1;
    }
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

/* The gather: the order cut into chunks; their sizes first, then each chunk copied at its offset. */
enum { GATHER_CHUNKS = 256 };

typedef struct gather_job {
    const char *buf;
    const uint64_t *starts, *order;
    size_t n;
    char delim;
    char *out;
    uint64_t at[GATHER_CHUNKS + 1]; /* where each chunk's lines go */
} gather_job;

static void gather_sizes(void *arg, size_t begin, size_t end)
{
    gather_job *g = arg;
    for (size_t c = begin; c < end; c++) {
        uint64_t bytes = 0;
        for (size_t i = g->n * c / GATHER_CHUNKS; i < g->n * (c + 1) / GATHER_CHUNKS; i++)
            bytes += g->starts[g->order[i] + 1] - g->starts[g->order[i]];
        g->at[c + 1] = bytes;
    }
}

static void gather_copy(void *arg, size_t begin, size_t end)
{
    gather_job *g = arg;
    for (size_t c = begin; c < end; c++) {
        char *o = g->out + g->at[c];
        for (size_t i = g->n * c / GATHER_CHUNKS; i < g->n * (c + 1) / GATHER_CHUNKS; i++) {
            const uint64_t k = g->order[i];
            const size_t len = (size_t)(g->starts[k + 1] - g->starts[k] - 1);
            memcpy(o, g->buf + g->starts[k], len);
            o[len] = g->delim;
            o += len + 1;
        }
    }
}

size_t clsort_gather_lines(const clsort_lines_spec *spec, const char *buf, const uint64_t *starts,
                           const uint64_t *order, size_t n, char *out)
{
    if (!spec || !starts || !order || !out || !n)
        return 0;
    gather_job *g = malloc(sizeof *g);
    if (!g) { /* one thread, then */
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            const size_t len = (size_t)(starts[order[i] + 1] - starts[order[i]] - 1);
            memcpy(out + o, buf + starts[order[i]], len);
            out[o + len] = spec->delimiter;
            o += len + 1;
        }
        return o;
    }
    *g = (gather_job){ .buf = buf, .starts = starts, .order = order, .n = n,
                       .delim = spec->delimiter, .out = out };
    clsort_parallel(GATHER_CHUNKS, 1, gather_sizes, g);
    for (size_t c = 0; c < GATHER_CHUNKS; c++)
        g->at[c + 1] += g->at[c];
    clsort_parallel(GATHER_CHUNKS, 1, gather_copy, g);
    const size_t total = (size_t)g->at[GATHER_CHUNKS];
    free(g);
    return total;
}

clsort_status clsort_sort_lines(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                                size_t len, uint64_t *starts, uint64_t *order, size_t *n_out,
                                clsort_stats *stats)
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
    const size_t n = clsort_lines_count(spec, buf, len);
    uint64_t *own_starts = NULL;
    if (!starts) {
        own_starts = malloc((n + 1) * sizeof *starts);
        if (!own_starts)
            return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "clsort_sort_lines: no memory for the starts of %zu lines", n);
        starts = own_starts;
    }
    /* line i is [starts[i], starts[i + 1] - 1); a last line without its delimiter ends at len */
    size_t i = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        starts[i++] = (uint64_t)(p - buf);
        const char *q = memchr(p, spec->delimiter, (size_t)(end - p));
        p = q ? q + 1 : end;
    }
    starts[n] = len + (len && buf[len - 1] != spec->delimiter);
    uint64_t *keys = n ? malloc(n * sizeof *keys) : NULL;
    if (n && !keys) {
        free(own_starts);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "clsort_sort_lines: no memory for the keys of %zu lines", n);
    }
    lines_job j = { &o, buf, starts, keys, order };
    clsort_parallel(n, 4096, prefix_slice, &j);
    if (n > 1 && ctx) {
        clsort_spec s;
        clsort_spec_default(&s);
        s.key_type = CLSORT_KEY_U64;
        st = clsort_argsort(ctx, &s, keys, order, sizeof *order, n, stats);
    } else {
        st = host_argsort(ctx, keys, order, n);
    }
    if (st == CLSORT_OK) {
        ties_job t = { &j, n, 0 };
        clsort_parallel(n, 4096, ties_slice, &t);
        if (t.failed)
            st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                             "clsort_sort_lines: no memory to order lines with equal prefixes");
    }
    if (st == CLSORT_OK) {
        size_t kept = n;
        if (o.unique && n) {
            kept = 1;
            for (size_t k = 1; k < n; k++)
                if (line_cmp(&j, order[kept - 1], order[k]) != 0)
                    order[kept++] = order[k];
        }
        *n_out = kept;
    }
    free(keys);
    free(own_starts);
    if (stats && st == CLSORT_OK) {
        stats->n = n;
        stats->total_ms = clsort_now_ms() - t0;
    }
    return st;
}
