/*
 * --segments FILE for inputs of any size (see segsort.h). A batch is as many whole segments as the
 * budget holds at a few bytes per record beyond the records themselves (the split of key/value
 * records, and the device's copy and scratch where the device is the host's CPU), read, sorted by
 * clsort_sort_segments() (which cuts it again where one device sort takes less) and written before
 * the next batch is read, so memory stays within the budget whatever the input's size. A segment
 * larger than a batch is a sort of its own: clsort_sort_stream() of a source that ends where the
 * segment does, in runs merged, spilled to temporary files beyond the budget.
 * Calls: the library, segments.c (the offsets' refusals), io.c (physical memory), msg.c.
 */
#include "segsort.h"

#include "cli.h"
#include "io.h"

#include <stdlib.h>
#include <string.h>

/* Segments per batch at most, whatever their records: their rebased offsets are 8 bytes each. */
#define SEGS_PER_BATCH ((size_t)1 << 16)
/* Records written per call of the sink. */
#define WRITE_BLOCK ((size_t)1 << 20)

typedef struct seg_batch {
    const clsort_source *src;
    size_t ks, vs, rs;  /* key, value and source record sizes (rs: ks + vs for joined records) */
    int split;          /* joined records with values: split for the library, joined to write */
    unsigned char *in;  /* the records as the source gives them (keys alone, or joined) */
    unsigned char *vin; /* their values, where the source gives them apart */
    unsigned char *keys, *vals; /* the split */
    size_t have;        /* records the buffers hold */
    uint64_t *off;      /* a batch's offsets, rebased to its first record */
    size_t off_have;
    uint64_t pos;       /* records read so far */
} seg_batch;

static void batch_free(seg_batch *b)
{
    free(b->in);
    free(b->vin);
    free(b->keys);
    free(b->vals);
    free(b->off);
}

static int grow_one(unsigned char **p, size_t m, size_t size)
{
    unsigned char *q = realloc(*p, m * size + 1);
    if (!q)
        return 0;
    *p = q;
    return 1;
}

/* Buffers for m records (grown at least twofold, up to most). */
static int batch_room(seg_batch *b, size_t m, size_t most)
{
    if (m <= b->have)
        return EXIT_OK;
    size_t want = b->have * 2 > m ? b->have * 2 : m;
    if (want > most)
        want = most > m ? most : m;
    if (!grow_one(&b->in, want, b->rs) || (b->vs && !b->split && !grow_one(&b->vin, want, b->vs)) ||
        (b->split && (!grow_one(&b->keys, want, b->ks) || !grow_one(&b->vals, want, b->vs)))) {
        msg_error("out of memory for a batch of %zu records of the input (lower -S)", want);
        return EXIT_DEVICE;
    }
    b->have = want;
    return EXIT_OK;
}

/* Up to m records from the source into the buffers: *got of them (fewer at the input's end). */
static int read_records(seg_batch *b, size_t m, size_t *got, const int *io_rc)
{
    size_t at = 0;
    while (at < m) {
        const long long r = b->src->read(b->src->user, b->in + at * b->rs,
                                         b->vin ? b->vin + at * b->vs : NULL, m - at);
        if (r < 0)
            return *io_rc != EXIT_OK ? *io_rc : EXIT_IO;
        if (r == 0)
            break;
        at += (size_t)r;
    }
    b->pos += at;
    *got = at;
    return EXIT_OK;
}

/* The input ended after b->pos records, or has more than the last offset: counted to its end,
 * then refused in the offsets' words (the first entry past the end, or the last one). */
static int refuse_count(seg_batch *b, const seg_offsets *segs, const int *io_rc)
{
    size_t got = 1;
    int rc = b->have ? EXIT_OK : batch_room(b, 4096, 4096);
    while (rc == EXIT_OK && got)
        rc = read_records(b, b->have, &got, io_rc);
    if (rc == EXIT_OK)
        rc = segments_check(segs, b->pos, 1);
    return rc != EXIT_OK ? rc : EXIT_USAGE;
}

static void add_stats(clsort_stats *t, const clsort_stats *s)
{
    t->n += s->n;
    t->algorithm = s->algorithm ? s->algorithm : t->algorithm;
    t->kernel_ms += s->kernel_ms;
    t->upload_ms += s->upload_ms;
    t->download_ms += s->download_ms;
    t->programs_built += s->programs_built;
    t->programs_cached += s->programs_cached;
    t->passes_skipped += s->passes_skipped;
    t->merge_ms += s->merge_ms;
    t->runs += s->runs ? s->runs : 1;
    t->runs_spilled += s->runs_spilled;
    t->spill_ms += s->spill_ms;
    t->temp_bytes += s->temp_bytes;
    t->merge_threads = s->merge_threads > t->merge_threads ? s->merge_threads : t->merge_threads;
    t->merged_on_device |= s->merged_on_device;
}

static int lib_failed(clsort_context *ctx, clsort_status st, const int *io_rc)
{
    if (st == CLSORT_ERROR_IO && *io_rc != EXIT_OK)
        return *io_rc; /* said already */
    msg_lib_error("sort failed", st, clsort_error_detail(ctx));
    return exit_for_status(st);
}

/* Segments [i, j): m records read, sorted and written. */
/* With a top K: the first K records of each of segments [i, j) moved to the front of the batch,
 * in order; how many there are. */
static size_t keep_first(seg_batch *b, const uint64_t *off, size_t i, size_t j, uint64_t top)
{
    size_t at = 0;
    for (size_t k = i; k < j; k++) {
        const size_t lo = (size_t)(off[k] - off[i]), len = (size_t)(off[k + 1] - off[k]);
        const size_t t = len < top ? len : (size_t)top;
        if (at != lo) {
            memmove(b->in + at * b->rs, b->in + lo * b->rs, t * b->rs);
            if (b->vin)
                memmove(b->vin + at * b->vs, b->vin + lo * b->vs, t * b->vs);
        }
        at += t;
    }
    return at;
}

static int sort_batch(clsort_context *ctx, const clsort_spec *spec, seg_batch *b,
                      const seg_offsets *segs, size_t i, size_t j, const clsort_sink *dst,
                      const segsort_args *args, clsort_stats *stats, uint64_t *written)
{
    const int *io_rc = args->io_rc;
    const uint64_t *off = segs->off;
    const size_t m = (size_t)(off[j] - off[i]);
    size_t got;
    int rc = read_records(b, m, &got, io_rc);
    if (rc != EXIT_OK)
        return rc;
    if (got < m)
        return refuse_count(b, segs, io_rc);
    for (size_t k = i; k <= j; k++)
        b->off[k - i] = off[k] - off[i];
    unsigned char *keys = b->in, *vals = b->vin;
    if (b->split) {
        for (size_t r = 0; r < m; r++) {
            memcpy(b->keys + r * b->ks, b->in + r * b->rs, b->ks);
            memcpy(b->vals + r * b->vs, b->in + r * b->rs + b->ks, b->vs);
        }
        keys = b->keys;
        vals = b->vals;
    }
    clsort_stats s = { 0 };
    clsort_status st = clsort_sort_segments(ctx, spec, keys, vals, m, b->off, j - i, &s);
    if (st != CLSORT_OK)
        return lib_failed(ctx, st, io_rc);
    add_stats(stats, &s);
    for (size_t r = 0; b->split && r < m; r++) {
        memcpy(b->in + r * b->rs, b->keys + r * b->ks, b->ks);
        memcpy(b->in + r * b->rs + b->ks, b->vals + r * b->vs, b->vs);
    }
    const size_t out = args->top ? keep_first(b, off, i, j, args->top) : m;
    for (size_t at = 0; at < out; at += WRITE_BLOCK) {
        const size_t w = out - at < WRITE_BLOCK ? out - at : WRITE_BLOCK;
        if (dst->write(dst->user, b->in + at * b->rs, b->vin ? b->vin + at * b->vs : NULL, w))
            return *io_rc != EXIT_OK ? *io_rc : EXIT_IO;
    }
    *written += out;
    return EXIT_OK;
}

/* A segment's records, and no more: the source of a long segment's stream sort. */
typedef struct limited {
    const clsort_source *src;
    uint64_t left;
} limited;

static long long limited_read(void *user, void *keys, void *values, size_t max)
{
    limited *l = user;
    if (!l->left)
        return 0;
    const long long r = l->src->read(l->src->user, keys, values,
                                     max < l->left ? max : (size_t)l->left);
    if (r > 0)
        l->left -= (uint64_t)r;
    return r;
}

/* The sink of a long segment's sort: its first `left` records (all of them without a top K). */
typedef struct first_records {
    const clsort_sink *dst;
    uint64_t left, written;
} first_records;

static int first_write(void *user, const void *keys, const void *values, size_t n)
{
    first_records *f = user;
    const size_t m = n < f->left ? n : (size_t)f->left;
    f->left -= m;
    f->written += m;
    return m ? f->dst->write(f->dst->user, keys, values, m) : 0;
}

static int sort_long(clsort_context *ctx, const clsort_spec *spec, seg_batch *b,
                     const seg_offsets *segs, uint64_t len, const clsort_sink *dst,
                     const segsort_args *args, clsort_stats *stats, uint64_t *written)
{
    limited l = { b->src, len };
    const clsort_source src = { limited_read, &l, len, b->src->records };
    first_records f = { dst, args->top && args->top < len ? args->top : len, 0 };
    const clsort_sink first = { first_write, &f, dst->records };
    clsort_stats s = { 0 };
    clsort_status st = clsort_sort_stream(ctx, spec, &src, &first, args->set, &s);
    b->pos += len - l.left;
    *written += f.written;
    if (st != CLSORT_OK)
        return lib_failed(ctx, st, args->io_rc);
    add_stats(stats, &s);
    return l.left ? refuse_count(b, segs, args->io_rc) : EXIT_OK;
}

int segsort_run(clsort_context *ctx, const clsort_spec *spec, const seg_offsets *segs,
                const clsort_source *src, const clsort_sink *dst, const segsort_args *args,
                clsort_stats *stats, uint64_t *written)
{
    const int *io_rc = args->io_rc;
    seg_batch b = { .src = src };
    b.ks = clsort_key_type_size(spec->key_type);
    b.vs = spec->value_size;
    b.rs = src->records ? b.ks + b.vs : b.ks;
    b.split = src->records && b.vs;
    /* per record: as read, the split, and the device's copy and scratch where it is host memory */
    const uint64_t per = b.rs + (b.split ? b.rs : 0) + 2 * (b.ks + b.vs);
    uint64_t budget = args->set->memory_bytes;
    if (!budget)
        budget = io_physical_memory() ? io_physical_memory() / 2 : (uint64_t)1 << 30;
    const uint64_t given = budget;
    /* the library's pinned staging slots, where a batch's transfers would take them */
    const uint64_t widest = (budget / per) * (b.ks > b.vs ? b.ks : b.vs);
    const size_t pinned =
        clsort_staging_bytes(ctx, widest == (size_t)widest ? (size_t)widest : SIZE_MAX);
    if (budget > 2 * (uint64_t)pinned)
        budget -= pinned;
    uint64_t fit = budget / per;
    if (args->batch_max && args->batch_max < fit)
        fit = args->batch_max;
    const size_t most = fit < 1 ? 1 : fit > SIZE_MAX / 2 / per ? SIZE_MAX / 2 / per : (size_t)fit;
    memset(stats, 0, sizeof *stats);
    stats->memory_bytes = given;
    *written = 0;
    const uint64_t *off = segs->off;
    int rc = EXIT_OK;
    for (size_t i = 0; rc == EXIT_OK && i < segs->n_seg;) {
        if (off[i + 1] - off[i] > most) {
            rc = sort_long(ctx, spec, &b, segs, off[i + 1] - off[i], dst, args, stats, written);
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < segs->n_seg && j - i < SEGS_PER_BATCH && off[j + 1] - off[i] <= most)
            j++;
        if (j - i + 1 > b.off_have) {
            uint64_t *o = realloc(b.off, (j - i + 1) * sizeof *o);
            if (!o) {
                msg_error("out of memory for the offsets of %zu segments", j - i);
                rc = EXIT_DEVICE;
                break;
            }
            b.off = o;
            b.off_have = j - i + 1;
        }
        if ((rc = batch_room(&b, (size_t)(off[j] - off[i]), most)) == EXIT_OK)
            rc = sort_batch(ctx, spec, &b, segs, i, j, dst, args, stats, written);
        i = j;
    }
    if (rc == EXIT_OK) { /* nothing past the last offset */
        size_t got = 0;
        if ((rc = batch_room(&b, 1, most)) == EXIT_OK)
            rc = read_records(&b, 1, &got, io_rc);
        if (rc == EXIT_OK && got)
            rc = refuse_count(&b, segs, io_rc);
    }
    batch_free(&b);
    return rc;
}
