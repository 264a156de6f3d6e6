/*
 * Sorted runs (in memory or in temporary files) and their merge by several threads.
 *
 * The merged output is cut into blocks of at most `block` records. A cut is a key order v and, among
 * the records equal to v, a count taken in run order (so the merge stays stable): cut() finds the
 * smallest v whose records up to v reach the block from the runs' sparse indexes alone, then reads
 * one short stretch per run to place the cut exactly. Each block's pieces (one contiguous range per
 * run) go to a worker thread, which reads them and cuts them again, in memory, into sub-blocks small
 * enough for a core's cache: the pairwise merge levels of a sub-block then cost no memory traffic,
 * and each record crosses memory once in and once out. The calling thread cuts the next block and
 * writes the finished ones in order, so the writes overlap the merging.
 * A key's order is one 64-bit word for numbers (the key recipe's) and for byte strings of up to 8
 * bytes, more words for longer strings: a cut then searches its order a word at a time. Keys alone
 * and key/value records keep merges specialised for their sizes; records by a key field (a key at
 * an offset, or of bytes) take a generic one.
 * Calls: runfile.c, keys.c (the key recipe), status.c.
 */
#include "runmerge.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- runs ---- */

/* The order of a key as the layout's words (runmerge.h): a number's recipe order, or a string's
 * bytes 8 at a time, big-endian. */
typedef struct key_view {
    clsort_key_recipe recipe;
    size_t rs, vs, off, bytes, words;
    uint64_t flip; /* a string's words inverted when descending */
} key_view;

static void key_view_init(key_view *kv, const clsort_spec *spec, const clsort_merge_layout *lay)
{
    const clsort_merge_layout keys = clsort_merge_layout_keys(spec);
    if (!lay)
        lay = &keys;
    clsort_key_recipe_init(spec, &kv->recipe);
    kv->rs = lay->rs;
    kv->vs = lay->vs;
    kv->off = lay->offset;
    kv->bytes = lay->bytes;
    kv->words = clsort_merge_layout_words(lay);
    kv->flip = lay->bytes && spec->descending ? UINT64_MAX : 0;
}

static inline uint64_t key_word(const key_view *kv, const unsigned char *rec, size_t w)
{
    const unsigned char *key = rec + kv->off;
    if (!kv->bytes)
        return clsort_key_recipe_order(&kv->recipe, key);
    uint64_t v = 0;
    for (size_t b = 0; b < 8; b++) {
        const size_t at = w * 8 + b;
        v = v << 8 | (at < kv->bytes ? key[at] : 0);
    }
    return v ^ kv->flip;
}

/* <0, 0, >0: the key of rec sorts before, with, after the order v (kv->words words). */
static inline int view_cmp(const key_view *kv, const unsigned char *rec, const uint64_t *v)
{
    for (size_t w = 0; w < kv->words; w++) {
        const uint64_t o = key_word(kv, rec, w);
        if (o != v[w])
            return o < v[w] ? -1 : 1;
    }
    return 0;
}

/* The same for two orders. */
static inline int words_cmp(const uint64_t *a, const uint64_t *v, size_t words)
{
    for (size_t w = 0; w < words; w++)
        if (a[w] != v[w])
            return a[w] < v[w] ? -1 : 1;
    return 0;
}

clsort_status clsort_run_create(clsort_context *ctx, const clsort_spec *spec,
                                const clsort_merge_layout *lay, const char *dir, size_t n,
                                size_t step, clsort_run *run)
{
    const clsort_merge_layout keys = clsort_merge_layout_keys(spec);
    if (!lay)
        lay = &keys;
    const size_t ks = lay->rs, words = clsort_merge_layout_words(lay);
    *run = (clsort_run){ .n = n, .step = step ? step : 1, .values_at = (uint64_t)n * ks };
    run->file.fd = -1;
    run->index = malloc(((n + run->step - 1) / run->step + 1) * words * sizeof *run->index);
    if (!run->index)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    return clsort_runfile_open(ctx, dir, &run->file);
}

clsort_status clsort_run_append(clsort_context *ctx, const clsort_spec *spec,
                                const clsort_merge_layout *lay, clsort_run *run, const void *keys,
                                const void *values, size_t m, uint64_t more)
{
    key_view kv;
    key_view_init(&kv, spec, lay);
    const size_t ks = kv.rs, vs = kv.vs;
    const uint64_t size = run->values_at + (uint64_t)run->n * vs;
    const unsigned char *k = keys;
    for (size_t p = (run->written + run->step - 1) / run->step * run->step; p < run->written + m;
         p += run->step)
        for (size_t w = 0; w < kv.words; w++)
            run->index[p / run->step * kv.words + w] =
                key_word(&kv, k + (p - run->written) * ks, w);
    clsort_status st = clsort_runfile_write(ctx, &run->file, keys, m * ks,
                                            (uint64_t)run->written * ks, size,
                                            more + (uint64_t)m * vs);
    if (st == CLSORT_OK && vs)
        st = clsort_runfile_write(ctx, &run->file, values, m * vs,
                                  run->values_at + (uint64_t)run->written * vs, size, more);
    run->written += m;
    return st;
}

void clsort_run_free(clsort_run *run)
{
    free(run->keys);
    free(run->values);
    free(run->index);
    clsort_runfile_close(&run->file);
    memset(run, 0, sizeof *run);
    run->file.fd = -1;
}

/* ---- cuts ---- */

/* Two sorted pieces into one (merge2_body). */
typedef void merge2_fn(const clsort_key_recipe *, size_t, const clsort_merge_run *,
                       const clsort_merge_run *, unsigned char *, size_t, unsigned char *, size_t);

/* What cut() needs: the runs (memory runs, or files with their index) and a block size. */
typedef struct cutter {
    const key_view *key;
    const clsort_run *runs;
    size_t k, ks, block;
    unsigned char *probe; /* one index stretch of keys, for exact cuts in files */
    size_t *up;           /* per run: the exact count up to the cut's order */
    uint64_t *v;          /* the cut's order: key->words words */
} cutter;

enum { CUT_OUT_OF_ORDER = -1 }; /* cut()'s result besides 0 and an errno value from a read */

typedef struct merge_job {
    clsort_context *ctx;
    clsort_run *runs;
    size_t k, ks, vs, block, sub;
    key_view key;
    int generic;          /* a key at an offset or of bytes: merge2_generic() */
    cutter blocks;        /* the output's blocks, cut by the calling thread */
    merge2_fn *merge2;    /* the instance for the spec's key and value sizes */
    const clsort_block_sorter *device; /* NULL: the host merges */
    pthread_mutex_t device_lock;       /* one block on the device at a time */
} merge_job;

/* First position in keys[lo, hi) whose key is > v (upper) or >= v (lower); hi when none. */
static size_t search(const cutter *c, const unsigned char *keys, size_t lo, size_t hi,
                     const uint64_t *v, int upper)
{
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int r = view_cmp(c->key, keys + mid * c->ks, v);
        if (upper ? r <= 0 : r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index entries of a file run before the first with order > v (upper) or >= v (lower). */
static size_t index_search(const cutter *c, const clsort_run *r, const uint64_t *v, int upper)
{
    const size_t words = c->key->words;
    size_t lo = 0, hi = (r->n + r->step - 1) / r->step;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int x = words_cmp(r->index + mid * words, v, words);
        if (upper ? x <= 0 : x < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Records of run r with order <= v (upper) or < v (lower), counted from the index alone: never
 * fewer than the exact count, and fewer than step more. Positions before `from` (what earlier
 * blocks took) are not looked at: the cut clamps its counts to them anyway. */
static size_t estimate(const cutter *c, const clsort_run *r, const uint64_t *v, int upper,
                       size_t from)
{
    if (r->keys)
        return search(c, r->keys, from, r->n, v, upper);
    const size_t a = index_search(c, r, v, upper);
    return a * r->step < r->n ? a * r->step : r->n;
}

/* The exact count, or `from` when it is smaller: the index narrows it to one stretch of fewer than
 * step records, read here from `from` on. Returns 0 or the read's errno value. */
static int exact(const cutter *c, const clsort_run *r, const uint64_t *v, int upper, size_t from,
                 size_t *out)
{
    if (r->keys) {
        *out = search(c, r->keys, from < r->n ? from : r->n, r->n, v, upper);
        return 0;
    }
    const size_t a = index_search(c, r, v, upper);
    if (a == 0) { /* the first key already lies past v */
        *out = from;
        return 0;
    }
    size_t lo = (a - 1) * r->step + 1;
    const size_t hi = a * r->step < r->n ? a * r->step : r->n;
    lo = lo > from ? lo : from;
    if (lo >= hi) {
        *out = hi > from ? hi : from;
        return 0;
    }
    const int e = clsort_runfile_read(&r->file, c->probe, (hi - lo) * c->ks, (uint64_t)lo * c->ks);
    if (!e)
        *out = lo + search(c, c->probe, 0, hi - lo, v, upper);
    return e;
}

/* The estimated records from cur up to the order c->v (upper). */
static uint64_t estimate_all(const cutter *c, const size_t *cur)
{
    uint64_t est = 0;
    for (size_t r = 0; r < c->k; r++) {
        const size_t e = estimate(c, &c->runs[r], c->v, 1, cur[r]);
        est += e > cur[r] ? e - cur[r] : 0;
    }
    return est;
}

/* The next block: from cur[] to hi[], at most c->block records, at least one. Returns 0, an errno
 * value from reading run *bad, or CUT_OUT_OF_ORDER. */
static int cut(const cutter *c, const size_t *cur, size_t *hi, size_t *bad)
{
    uint64_t left = 0;
    for (size_t r = 0; r < c->k; r++)
        left += c->runs[r].n - cur[r];
    if (left <= c->block) {
        for (size_t r = 0; r < c->k; r++)
            hi[r] = c->runs[r].n;
        return 0;
    }
    /* the smallest order v whose estimated records from cur up to v reach the block, a word at a
     * time (the later words at their largest while one is searched): the records below v are then
     * fewer than a block, as the estimates never undercount (orders of numbers never exceed the
     * mask) */
    const size_t words = c->key->words;
    for (size_t w = 0; w < words; w++) {
        for (size_t x = w; x < words; x++)
            c->v[x] = UINT64_MAX;
        uint64_t lo_v = 0, hi_v = c->key->bytes ? UINT64_MAX : c->key->recipe.mask;
        while (lo_v < hi_v) {
            const uint64_t mid = lo_v + (hi_v - lo_v) / 2;
            c->v[w] = mid;
            if (estimate_all(c, cur) >= c->block)
                hi_v = mid;
            else
                lo_v = mid + 1;
        }
        c->v[w] = lo_v;
    }
    /* everything below v, then the records equal to v in run order until the block is full */
    size_t room = c->block;
    for (size_t r = 0; r < c->k; r++) {
        int e = exact(c, &c->runs[r], c->v, 0, cur[r], &hi[r]);
        if (!e)
            e = exact(c, &c->runs[r], c->v, 1, cur[r], &c->up[r]);
        if (e) {
            *bad = r;
            return e;
        }
        hi[r] = hi[r] > cur[r] ? hi[r] : cur[r];
        room -= hi[r] - cur[r];
    }
    for (size_t r = 0; r < c->k && room; r++) {
        const size_t equal = c->up[r] > hi[r] ? c->up[r] - hi[r] : 0;
        const size_t take = equal < room ? equal : room;
        hi[r] += take;
        room -= take;
    }
    /* only when a run is out of order: its file changed under the merge */
    return room == c->block ? CUT_OUT_OF_ORDER : 0;
}

/* A failed cut() as the context's error. */
static clsort_status cut_failed(clsort_context *ctx, const clsort_run *runs, size_t bad, int e)
{
    if (e == CUT_OUT_OF_ORDER)
        return clsort_fail(ctx, CLSORT_ERROR_IO, "a sorted run read back out of order");
    return clsort_runfile_read_failed(ctx, &runs[bad].file, e);
}

/* ---- merging pieces ---- */

/* One key or value: the common sizes as fixed-size copies the compiler inlines. */
static inline __attribute__((always_inline)) void copy_bytes(unsigned char *dst, const unsigned char *src,
                                                       size_t size)
{
    switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, size); break;
    }
}

/* Two sorted pieces into one, a's record first on equal keys (stable). The choice is a select,
 * not a branch, so that random keys cost no mispredictions; ks, vs and is_float are constants
 * where inlined. The recipe is copied to a local with those constants in it: the output's stores
 * may alias anything, so fields read through kr would be loaded anew for every record, while a
 * local's stay in registers and its constant fields fold away. */
static inline __attribute__((always_inline)) void
merge2_body(const clsort_key_recipe *kr, const size_t ks, const size_t vs, const int is_float,
            const clsort_merge_run *a, const clsort_merge_run *b, unsigned char *ok,
            const size_t kst, unsigned char *ov, const size_t vst)
{
    clsort_key_recipe r = *kr;
    r.wide = ks == 8;
    r.is_float = is_float;
    const unsigned char *ak = a->keys, *bk = b->keys, *av = a->values, *bv = b->values;
    const size_t an = a->n, bn = b->n;
    size_t i = 0, j = 0;
    while (i < an && j < bn) {
        const uint64_t oa = clsort_key_recipe_order(&r, ak + i * ks);
        const uint64_t ob = clsort_key_recipe_order(&r, bk + j * ks);
        const size_t tb = ob < oa;
        copy_bytes(ok, tb ? bk + j * ks : ak + i * ks, ks);
        if (vs)
            copy_bytes(ov, tb ? bv + j * vs : av + i * vs, vs);
        ok += kst;
        ov += vst;
        i += 1 - tb;
        j += tb;
    }
    for (; i < an; i++, ok += kst, ov += vst) {
        copy_bytes(ok, ak + i * ks, ks);
        if (vs)
            copy_bytes(ov, av + i * vs, vs);
    }
    for (; j < bn; j++, ok += kst, ov += vst) {
        copy_bytes(ok, bk + j * ks, ks);
        if (vs)
            copy_bytes(ov, bv + j * vs, vs);
    }
}

/* One instance per key width, value size (none, 4, 8, any: VS 0 takes vs as given) and float or
 * integer keys. */
#define MERGE2(NAME, KS, VS, FL)                                                                   \
    static void merge2_##KS##_##NAME##_##FL(const clsort_key_recipe *r, size_t vs,                 \
                                            const clsort_merge_run *a, const clsort_merge_run *b,  \
                                            unsigned char *ok, size_t kst, unsigned char *ov,      \
                                            size_t vst)                                            \
    {                                                                                              \
        (void)vs;                                                                                  \
        merge2_body(r, KS, VS, FL, a, b, ok, kst, ov, vst);                                        \
    }
#define MERGE2_VS(KS, FL)                                                                          \
    MERGE2(k, KS, 0, FL) MERGE2(v4, KS, 4, FL) MERGE2(v8, KS, 8, FL) MERGE2(vn, KS, vs, FL)
MERGE2_VS(4, 0)
MERGE2_VS(4, 1)
MERGE2_VS(8, 0)
MERGE2_VS(8, 1)

static merge2_fn *merge2_pick(size_t ks, size_t vs, int is_float)
{
    static merge2_fn *const fns[2][2][4] = {
        { { merge2_4_k_0, merge2_4_v4_0, merge2_4_v8_0, merge2_4_vn_0 },
          { merge2_4_k_1, merge2_4_v4_1, merge2_4_v8_1, merge2_4_vn_1 } },
        { { merge2_8_k_0, merge2_8_v4_0, merge2_8_v8_0, merge2_8_vn_0 },
          { merge2_8_k_1, merge2_8_v4_1, merge2_8_v8_1, merge2_8_vn_1 } },
    };
    return fns[ks == 8][is_float != 0][vs == 0 ? 0 : vs == 4 ? 1 : vs == 8 ? 2 : 3];
}

/* Whether b's key sorts before a's, for a key at an offset or of bytes. */
static inline int key_before(const key_view *kv, const unsigned char *b, const unsigned char *a)
{
    if (!kv->bytes)
        return clsort_key_recipe_order(&kv->recipe, b + kv->off) <
               clsort_key_recipe_order(&kv->recipe, a + kv->off);
    const int c = memcmp(b + kv->off, a + kv->off, kv->bytes);
    return kv->flip ? c > 0 : c < 0;
}

/* merge2_body() for records by a key field: the key where the layout says, whole records moved. */
static void merge2_generic(const merge_job *j, const clsort_merge_run *a, const clsort_merge_run *b,
                           unsigned char *ok, size_t kst, unsigned char *ov, size_t vst)
{
    const size_t ks = j->ks, vs = j->vs;
    const unsigned char *ak = a->keys, *bk = b->keys, *av = a->values, *bv = b->values;
    size_t i = 0, k = 0;
    while (i < a->n || k < b->n) {
        const int tb = i == a->n || (k < b->n && key_before(&j->key, bk + k * ks, ak + i * ks));
        memcpy(ok, tb ? bk + k * ks : ak + i * ks, ks);
        if (vs)
            memcpy(ov, tb ? bv + k * vs : av + i * vs, vs);
        ok += kst;
        ov += vst;
        i += !tb;
        k += tb;
    }
}

static void merge2(const merge_job *j, const clsort_merge_run *a, const clsort_merge_run *b,
                   unsigned char *ok, size_t kst, unsigned char *ov, size_t vst)
{
    if (j->generic)
        merge2_generic(j, a, b, ok, kst, ov, vst);
    else
        j->merge2(&j->key.recipe, j->vs, a, b, ok, kst, ov, vst);
}

/* ---- workers ---- */

enum { IDLE, TASK, DONE };

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    int quit;
} pool;

typedef struct worker {
    merge_job *job;
    pool *pool;
    pthread_t thread;
    int started, state, err;    /* err: cut()'s failure, about run err_run */
    size_t err_run;
    clsort_status device_st;    /* the device's failure (its detail is in the context) */
    size_t *lo, *hi;            /* the block: records [lo, hi) of each run */
    clsort_run *pieces;         /* the block's pieces, as memory runs for the sub-block cuts */
    size_t *sub_lo, *sub_hi;    /* a sub-block: records [sub_lo, sub_hi) of each piece */
    cutter subs;
    clsort_merge_run *level;    /* a sub-block's pieces, then a merge level's */
    unsigned char *in_keys, *in_values;       /* file runs' pieces, read here */
    unsigned char *sub_keys[2], *sub_values[2]; /* the merge levels of a sub-block */
    unsigned char *out_keys, *out_values;
    size_t key_stride, value_stride, count;
    const unsigned char *done_keys, *done_values; /* the merged block: out_*, or in_* sorted */
} worker;

/* A sub-block's pieces merged in pairs, level by level (neighbours, so that the earlier run's
 * records stay first), between the two sub-block buffers, which stay in the core's cache; the last
 * level writes the block's output at record o. */
static void merge_levels(worker *w, size_t np, size_t o)
{
    const merge_job *j = w->job;
    const size_t ks = j->ks, vs = j->vs;
    clsort_merge_run *p = w->level;
    for (int level = 0; np > 2; level++) {
        unsigned char *dk = w->sub_keys[level & 1], *dv = w->sub_values[level & 1];
        size_t off = 0, q = 0;
        for (size_t i = 0; i < np; i += 2) {
            clsort_merge_run out = { dk + off * ks, vs ? dv + off * vs : NULL, p[i].n };
            if (i + 1 < np) {
                merge2(j, &p[i], &p[i + 1], dk + off * ks, ks, vs ? dv + off * vs : NULL, vs);
                out.n += p[i + 1].n;
            } else { /* the odd one out moves on as it is */
                memcpy(dk + off * ks, p[i].keys, p[i].n * ks);
                if (vs)
                    memcpy(dv + off * vs, p[i].values, p[i].n * vs);
            }
            off += out.n;
            p[q++] = out;
        }
        np = q;
    }
    if (np) { /* the last level, into the output: one piece is merged with none */
        const clsort_merge_run none = { NULL, NULL, 0 };
        merge2(j, &p[0], np == 2 ? &p[1] : &none, w->out_keys + o * w->key_stride,
               w->key_stride, vs ? w->out_values + o * w->value_stride : NULL, w->value_stride);
    }
}

/* The device's way: the pieces, one after the other in run order, sorted stably (a radix sort
 * keeps run order among equal keys). */
static void sort_block(worker *w, size_t n)
{
    merge_job *j = w->job;
    pthread_mutex_lock(&j->device_lock);
    w->device_st = j->device->sort(j->device->user, w->in_keys, j->vs ? w->in_values : NULL, n);
    pthread_mutex_unlock(&j->device_lock);
    w->done_keys = w->in_keys;
    w->done_values = w->in_values;
    if (w->device_st != CLSORT_OK || !j->vs || w->key_stride == j->ks)
        return;
    const size_t ks = j->ks, vs = j->vs, rs = ks + vs; /* joined records for the sink */
    for (size_t i = 0; i < n; i++) {
        copy_bytes(w->out_keys + i * rs, w->in_keys + i * ks, ks);
        copy_bytes(w->out_keys + i * rs + ks, w->in_values + i * vs, vs);
    }
    w->done_keys = w->out_keys;
    w->done_values = NULL;
}

/* The block's pieces: those in files read into the input buffer, one after the other in run order,
 * as are those in memory on the device's way (else they stay where they are). The records read,
 * or 0 with w->err set. */
static size_t read_pieces(worker *w)
{
    merge_job *j = w->job;
    size_t off = 0;
    for (size_t r = 0; r < j->k; r++) {
        const clsort_run *run = &j->runs[r];
        const size_t m = w->hi[r] - w->lo[r];
        clsort_run *piece = &w->pieces[r];
        piece->n = m;
        w->sub_lo[r] = 0;
        if (run->keys && !j->device) {
            piece->keys = run->keys + w->lo[r] * j->ks;
            piece->values = j->vs ? run->values + w->lo[r] * j->vs : NULL;
            continue;
        }
        piece->keys = w->in_keys + off * j->ks;
        piece->values = j->vs ? w->in_values + off * j->vs : NULL;
        off += m;
        if (run->keys) {
            memcpy(piece->keys, run->keys + w->lo[r] * j->ks, m * j->ks);
            if (j->vs)
                memcpy(piece->values, run->values + w->lo[r] * j->vs, m * j->vs);
            continue;
        }
        int e = m ? clsort_runfile_read(&run->file, piece->keys, m * j->ks,
                                        (uint64_t)w->lo[r] * j->ks)
                  : 0;
        if (!e && m && j->vs)
            e = clsort_runfile_read(&run->file, piece->values, m * j->vs,
                                    run->values_at + (uint64_t)w->lo[r] * j->vs);
        if (e) {
            w->err = e;
            w->err_run = r;
            return 0;
        }
    }
    return off;
}

/* The host's way: the pieces merged a sub-block at a time into the output; the records merged. */
static size_t merge_subblocks(worker *w)
{
    merge_job *j = w->job;
    size_t o = 0;
    for (;;) {
        size_t np = 0, bad = 0;
        for (size_t r = 0; r < j->k; r++)
            np += w->sub_lo[r] < w->pieces[r].n;
        if (!np)
            return o;
        const int e = cut(&w->subs, w->sub_lo, w->sub_hi, &bad);
        if (e) {
            w->err = e;
            w->err_run = bad;
            return o;
        }
        size_t count = 0;
        np = 0;
        for (size_t r = 0; r < j->k; r++) {
            const clsort_run *piece = &w->pieces[r];
            const size_t a = w->sub_lo[r], m = w->sub_hi[r] - a;
            if (m)
                w->level[np++] = (clsort_merge_run){ piece->keys + a * j->ks,
                                                     j->vs ? piece->values + a * j->vs : NULL, m };
            count += m;
            w->sub_lo[r] = w->sub_hi[r];
        }
        merge_levels(w, np, o);
        o += count;
    }
}

/* Merge one block: read its pieces, then sort them on the device or merge them on the host. */
static void merge_block(worker *w)
{
    const size_t n = read_pieces(w);
    if (w->err)
        return;
    if (w->job->device) {
        sort_block(w, n);
        w->count = n;
    } else {
        w->count = merge_subblocks(w);
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *p = w->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && w->state != TASK)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->quit)
            break;
        pthread_mutex_unlock(&p->lock);
        w->err = 0;
        w->device_st = CLSORT_OK;
        w->count = 0;
        w->done_keys = w->out_keys;
        w->done_values = w->out_values;
        merge_block(w);
        pthread_mutex_lock(&p->lock);
        w->state = DONE;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* A worker's buffers: the block's bounds and pieces, its input and output, two sub-blocks. */
static int worker_alloc(worker *w, merge_job *j, int joined)
{
    const size_t rs = j->ks + j->vs, k = j->k ? j->k : 1;
    w->lo = calloc(k, sizeof *w->lo);
    w->hi = calloc(k, sizeof *w->hi);
    w->pieces = calloc(k, sizeof *w->pieces);
    w->sub_lo = calloc(k, sizeof *w->sub_lo);
    w->sub_hi = calloc(k, sizeof *w->sub_hi);
    w->level = calloc(k, sizeof *w->level);
    w->subs = (cutter){ .key = &j->key, .runs = w->pieces, .k = j->k, .ks = j->ks,
                        .block = j->sub, .up = calloc(k, sizeof *w->subs.up),
                        .v = calloc(j->key.words, sizeof *w->subs.v) };
    for (size_t r = 0; w->pieces && r < k; r++)
        w->pieces[r].file.fd = -1;
    /* the values start 8-byte aligned after keys of any size (records of an odd size), so that
     * positions reach the sink as an array of uint64_t */
    const size_t bk = (j->block * j->ks + 7) & ~(size_t)7, sk = (j->sub * j->ks + 7) & ~(size_t)7;
    w->in_keys = malloc(bk + j->block * j->vs);
    w->in_values = w->in_keys ? w->in_keys + bk : NULL;
    for (int i = 0; i < 2; i++) {
        w->sub_keys[i] = malloc(sk + j->sub * j->vs);
        w->sub_values[i] = w->sub_keys[i] ? w->sub_keys[i] + sk : NULL;
    }
    w->out_keys = malloc(bk + j->block * j->vs);
    w->out_values = w->out_keys ? w->out_keys + (joined ? j->ks : bk) : NULL;
    w->key_stride = joined ? rs : j->ks;
    w->value_stride = joined ? rs : j->vs;
    return w->lo && w->hi && w->pieces && w->sub_lo && w->sub_hi && w->level && w->subs.up &&
           w->subs.v &&
           w->in_keys && w->sub_keys[0] && w->sub_keys[1] && w->out_keys;
}

static void worker_free(worker *w)
{
    free(w->lo);
    free(w->hi);
    free(w->pieces);
    free(w->sub_lo);
    free(w->sub_hi);
    free(w->level);
    free(w->subs.up);
    free(w->subs.v);
    free(w->in_keys);
    free(w->sub_keys[0]);
    free(w->sub_keys[1]);
    free(w->out_keys);
}

/* Wait for worker w's block and write it. */
static clsort_status write_block(merge_job *j, pool *p, worker *w, const clsort_sink *out,
                                 int joined)
{
    pthread_mutex_lock(&p->lock);
    while (w->state != DONE)
        pthread_cond_wait(&p->done, &p->lock);
    w->state = IDLE;
    pthread_mutex_unlock(&p->lock);
    if (w->err)
        return cut_failed(j->ctx, j->runs, w->err_run, w->err);
    if (w->device_st != CLSORT_OK)
        return w->device_st;
    if (w->count && out->write(out->user, w->done_keys, joined ? NULL : w->done_values, w->count))
        return CLSORT_ERROR_IO;
    return CLSORT_OK;
}

unsigned clsort_merge_threads_default(void)
{
    return clsort_threads_default();
}

/* The workers' buffers and threads. */
static clsort_status start_workers(merge_job *j, pool *p, worker *ws, unsigned nw, int joined)
{
    for (unsigned i = 0; i < nw; i++) {
        ws[i] = (worker){ .job = j, .pool = p, .state = IDLE };
        if (!worker_alloc(&ws[i], j, joined))
            return clsort_fail(j->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "out of host memory for the merge buffers (%u x %zu records)", nw,
                               j->block);
        if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]) != 0)
            return clsort_fail(j->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "cannot start a merge thread");
        ws[i].started = 1;
    }
    return CLSORT_OK;
}

static void stop_workers(pool *p, worker *ws, unsigned nw)
{
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; ws && i < nw; i++) {
        if (ws[i].started)
            pthread_join(ws[i].thread, NULL);
        worker_free(&ws[i]);
    }
}

/* Cut blocks ahead while a worker is free, else write the oldest block, to the end. */
static clsort_status cut_and_write(merge_job *j, pool *p, worker *ws, unsigned nw, size_t *cur,
                                   const clsort_sink *out, int joined)
{
    size_t assigned = 0, written = 0;
    for (;;) {
        int more = 0;
        for (size_t r = 0; r < j->k && !more; r++)
            more = cur[r] < j->runs[r].n;
        if (more && assigned - written < nw) {
            worker *w = &ws[assigned % nw];
            size_t bad = 0;
            memcpy(w->lo, cur, j->k * sizeof *cur);
            const int e = cut(&j->blocks, cur, w->hi, &bad);
            if (e)
                return cut_failed(j->ctx, j->runs, bad, e);
            memcpy(cur, w->hi, j->k * sizeof *cur);
            pthread_mutex_lock(&p->lock);
            w->state = TASK;
            pthread_cond_broadcast(&p->work);
            pthread_mutex_unlock(&p->lock);
            assigned++;
        } else if (written < assigned) {
            clsort_status st = write_block(j, p, &ws[written++ % nw], out, joined);
            if (st != CLSORT_OK)
                return st;
        } else {
            return CLSORT_OK;
        }
    }
}

clsort_status clsort_runs_merge(clsort_context *ctx, const clsort_spec *spec, clsort_run *runs,
                                size_t k, unsigned threads, size_t block,
                                const clsort_block_sorter *device, const clsort_sink *out)
{
    return clsort_runs_merge_layout(ctx, spec, NULL, runs, k, threads, block, device, out);
}

clsort_status clsort_runs_merge_layout(clsort_context *ctx, const clsort_spec *spec,
                                       const clsort_merge_layout *lay, clsort_run *runs, size_t k,
                                       unsigned threads, size_t block,
                                       const clsort_block_sorter *device, const clsort_sink *out)
{
    merge_job j = { .ctx = ctx, .runs = runs, .k = k, .block = block ? block : 1,
                    .device = device };
    key_view_init(&j.key, spec, lay);
    j.ks = j.key.rs;
    j.vs = j.key.vs;
    const int joined = out->records && j.vs;
    /* keys alone or with values keep their specialised merges */
    j.generic = j.key.bytes || j.key.off || j.ks != clsort_key_type_size(spec->key_type);
    j.merge2 = merge2_pick(j.ks, j.vs, j.key.recipe.is_float);
    j.sub = clsort_merge_sub(j.block, j.ks + j.vs);
    size_t step = 1; /* the longest index stretch a cut reads */
    for (size_t r = 0; r < k; r++)
        if (!runs[r].keys && runs[r].step > step)
            step = runs[r].step;
    j.blocks = (cutter){ .key = &j.key, .runs = runs, .k = k, .ks = j.ks, .block = j.block,
                         .probe = malloc(step * j.ks), .up = calloc(k ? k : 1, sizeof(size_t)),
                         .v = calloc(j.key.words, sizeof(uint64_t)) };
    const unsigned nw = threads ? threads : 1;
    pool p = { .quit = 0 };
    pthread_mutex_init(&j.device_lock, NULL);
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.work, NULL);
    pthread_cond_init(&p.done, NULL);
    worker *ws = calloc(nw, sizeof *ws);
    size_t *cur = calloc(k ? k : 1, sizeof *cur);
    clsort_status st = CLSORT_OK;
    if (!ws || !cur || !j.blocks.probe || !j.blocks.up || !j.blocks.v)
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (st == CLSORT_OK && (st = start_workers(&j, &p, ws, nw, joined)) == CLSORT_OK)
        st = cut_and_write(&j, &p, ws, nw, cur, out, joined);
    /* the first error's detail stands, whatever a block on the device reports meanwhile */
    char detail[CLSORT_DETAIL_MAX] = "";
    if (st != CLSORT_OK && device)
        snprintf(detail, sizeof detail, "%s", clsort_error_detail(ctx));
    stop_workers(&p, ws, nw);
    if (st != CLSORT_OK && device)
        clsort_fail(ctx, st, "%s", detail);
    pthread_cond_destroy(&p.work);
    pthread_cond_destroy(&p.done);
    pthread_mutex_destroy(&p.lock);
    pthread_mutex_destroy(&j.device_lock);
    free(ws);
    free(cur);
    free(j.blocks.probe);
    free(j.blocks.up);
    free(j.blocks.v);
    return st;
}
