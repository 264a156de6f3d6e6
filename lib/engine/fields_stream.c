/*
 * clsort_sort_stream_records: records by a key field from a source callback to a sink callback, at
 * any size: one more layout of the stream's engine, not an engine of its own.
 *
 * The records of a run are read into host memory and sorted there by clsort_sort_records() (the
 * device sorts the keys, or the whole records where they fit it); one run goes straight to the
 * sink, more are kept in memory or written to nameless run files by spill.c under the stream's
 * budget, and merged by spill.c and runmerge.c as the stream's runs are: the layout
 * (clsort_merge_layout) tells the merge where a record's key is, and each merge block is sorted
 * here by clsort_sort_records() (a stable sort of the runs' pieces, laid one after the other in run
 * order, is their merge). With an index, a run's "values" are its records' input positions, and a
 * block's positions follow the permutation of its sort.
 * Calls: fields.c (clsort_sort_records), spill.c (runs kept, spilled, merged), drain.c (the sink,
 * progress), stream.c (the settings), transfer.c (clsort_staging_bytes), parallel.c (pages faulted in
 * ahead of a read), status.c.
 */
#include "stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct fields_stream {
    stream *s;
    const clsort_layout *lay;
    size_t rs, chunk;           /* record bytes; records a source call is asked for at most */
    unsigned char *buf;         /* the run being read: cap records */
    uint64_t *pos;              /* and their positions (an index) */
    size_t cap;
    unsigned char *ahead;       /* what a full run read ahead of the next one */
    size_t ahead_n;
    uint64_t *perm, *tmp;       /* a merge block's permutation and its positions, block records */
    size_t perm_cap;
} fields_stream;

/* A run's records cost while sorted: the records, the sorted copy, the key's words, positions and
 * the device's buffers of a key word and a position (twice), as clsort_sort_records() takes them;
 * and the run's positions with an index. */
static uint64_t record_cost(const clsort_layout *lay)
{
    const uint64_t words = lay->key_size ? (lay->key_size + 7) / 8 : 1;
    return 2 * (uint64_t)lay->record_size + 8 * words + 56 + (lay->index ? 16 : 0);
}

/* The budget: half for the run being sorted, half for the runs kept and the merge's blocks (less
 * what the context pins to transfer a run). */
static clsort_status plan(fields_stream *f)
{
    stream *s = f->s;
    const uint64_t cost = record_cost(f->lay);
    /* the staging slots a large run's transfer pins (kept by the context) come off the budget */
    const uint64_t run_bytes = s->set.memory_bytes / 2 / cost * f->rs;
    const uint64_t pinned =
        clsort_staging_bytes(s->ctx, run_bytes < SIZE_MAX ? (size_t)run_bytes : SIZE_MAX);
    const uint64_t budget =
        s->set.memory_bytes > 2 * pinned ? s->set.memory_bytes - pinned : s->set.memory_bytes;
    const uint64_t half = budget / 2;
    const size_t seg = s->spec->segment, rsv = s->ks + s->vs;
    const uint64_t fit = half / cost;
    uint64_t limit = fit;
    if (s->set.run_records >= 1 && s->set.run_records < limit)
        limit = s->set.run_records;
    if (seg && limit < seg && seg <= fit) /* a whole segment at least, where the budget holds it */
        limit = seg;
    if (seg)
        limit -= limit % seg;
    if (limit < 1)
        return clsort_fail(s->ctx, CLSORT_ERROR_TOO_LARGE,
                           "a memory budget of %llu bytes is too small: %s of %zu-byte records "
                           "takes about %llu bytes to sort, and a run may take half the budget",
                           (unsigned long long)s->set.memory_bytes,
                           seg ? "a segment" : "one", f->rs,
                           (unsigned long long)(cost * (seg ? seg : 1)));
    if (limit > SIZE_MAX / cost)
        limit = SIZE_MAX / cost;
    s->run_limit = (size_t)limit;
    const uint64_t n = s->n_hint;
    if (n != CLSORT_SIZE_UNKNOWN && n > limit && !seg) { /* runs of equal length */
        const uint64_t runs = (n + limit - 1) / limit;
        s->run_limit = (size_t)((n + runs - 1) / runs);
    }
    /* a source or sink call takes up to 32 MiB (within an eighth of the run's half of the
     * budget): a caller's thread pool reads and copies pieces that large in parallel (the tool
     * from 4 MiB; 1.6 GB of records in 1 MiB pieces, one thread each way: read 378 ms, written
     * into a map 315 ms on the H100 machine) */
    uint64_t piece = (uint64_t)32 << 20;
    if (piece > half / 8)
        piece = half / 8;
    f->chunk = piece / f->rs ? (size_t)(piece / f->rs) : 1;
    if (f->chunk > s->run_limit)
        f->chunk = s->run_limit;
    /* merge blocks, as the stream's, and one block at a time sorted */
    const uint64_t merge_bytes =
        clsort_stream_plan_blocks(s, half, rsv) + (uint64_t)s->block * cost;
    s->keep_bytes = half > merge_bytes ? half - merge_bytes : 0;
    return CLSORT_OK;
}

/* Pages of a buffer touched by the host's threads, so that a large read into it does not fault them
 * in one at a time on the reading thread (H200 machine, 1.6 GB of records: the read took 1.0 s
 * into new memory against 0.3 s into memory faulted in beforehand). */
static void touch_pages(void *arg, size_t begin, size_t end)
{
    volatile unsigned char *p = arg;
    for (size_t page = begin; page < end; page++)
        p[page * 4096] = 0;
}

/* A large new part of the run's buffer: huge pages asked for (fewer faults, and fewer TLB misses
 * in the gather's random reads; a system without them says no, harmlessly), then faulted in. */
static void prefault(unsigned char *at, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const size_t page = 4096;
    const uintptr_t lo = ((uintptr_t)at + page - 1) / page * page;
    const uintptr_t hi = ((uintptr_t)at + bytes) / page * page;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    clsort_parallel(bytes / 4096, 1024, touch_pages, at);
}

/* Room for want records in the run's buffers. */
static clsort_status grow_run_buffer(fields_stream *f, size_t want)
{
    enum { PREFAULT_MIN = 64 << 20 };
    const size_t had = f->cap * f->rs;
    unsigned char *b = realloc(f->buf, want * f->rs);
    if (b) {
        f->buf = b;
        if (want * f->rs - had >= PREFAULT_MIN)
            prefault(b + had, want * f->rs - had);
    }
    uint64_t *p = f->lay->index && b ? realloc(f->pos, want * sizeof *p) : f->pos;
    if (!b || (f->lay->index && !p))
        return clsort_fail(f->s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory for a run of %zu records of %zu bytes", want, f->rs);
    f->pos = p;
    f->cap = want;
    return CLSORT_OK;
}

/* Up to want records from the source at `at`; *got of them (0: the end of the input). */
static clsort_status read_some(fields_stream *f, unsigned char *at, size_t want, size_t *got)
{
    stream *s = f->s;
    const double t = clsort_now_ms();
    const long long r = s->in->read(s->in->user, at, NULL, want);
    s->st->read_ms += clsort_now_ms() - t;
    if (r < 0)
        return clsort_fail(s->ctx, CLSORT_ERROR_IO, "the source reported an error after %zu records",
                           s->total);
    if ((unsigned long long)r > want)
        return clsort_fail(s->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "the source returned %lld records where at most %zu were asked for", r,
                           want);
    *got = (size_t)r;
    s->total += *got;
    clsort_stream_progress(s, "sort", s->total, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0,
                           0);
    return CLSORT_OK;
}

/* The next run into f->buf: *m records. A full run reads a chunk ahead, so that a run that ends
 * with the input is known to be the last. */
static clsort_status fill_records_run(fields_stream *f, size_t *m)
{
    stream *s = f->s;
    clsort_status st = CLSORT_OK;
    *m = 0;
    if (f->ahead_n) {
        if (f->cap < f->ahead_n && (st = grow_run_buffer(f, f->chunk)) != CLSORT_OK)
            return st;
        memcpy(f->buf, f->ahead, f->ahead_n * f->rs);
        *m = f->ahead_n;
        f->ahead_n = 0;
    }
    while (!s->eof && *m < s->run_limit) {
        /* as many records as the source said it has: the read ahead below finds the end, with no
         * growth for it */
        if (*m == f->cap && s->n_hint != CLSORT_SIZE_UNKNOWN && s->total >= s->n_hint)
            break;
        if (*m == f->cap) { /* a known size's run at once, a stream's in doubling steps */
            uint64_t want = 2 * f->cap > f->chunk ? 2 * f->cap : f->chunk;
            if (s->n_hint != CLSORT_SIZE_UNKNOWN && s->n_hint > s->total &&
                s->n_hint - s->total + *m > want)
                want = s->n_hint - s->total + *m;
            if ((st = grow_run_buffer(f, want < s->run_limit ? (size_t)want : s->run_limit)) != CLSORT_OK)
                return st;
        }
        const size_t room = f->cap - *m;
        size_t got;
        if ((st = read_some(f, f->buf + *m * f->rs, room < f->chunk ? room : f->chunk, &got)) !=
            CLSORT_OK)
            return st;
        s->eof = got == 0;
        *m += got;
    }
    if (!s->eof) {
        if (!f->ahead && !(f->ahead = malloc(f->chunk * f->rs)))
            return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
        if ((st = read_some(f, f->ahead, f->chunk, &f->ahead_n)) != CLSORT_OK)
            return st;
        s->eof = f->ahead_n == 0;
    }
    return st;
}

/* n records sorted by the layout's key, stably; their positions to index (NULL: none). */
static clsort_status sort_records(stream *s, void *recs, size_t n, uint64_t *index,
                                  clsort_stats *st)
{
    const clsort_layout *lay = s->fields;
    return clsort_sort_records(s->ctx, s->spec, recs, n, lay->record_size, lay->key_offset,
                               lay->key_size, index, st);
}

/* A merge block (clsort_block_sorter): the runs' pieces sorted stably are their merge; their
 * positions (values) follow the permutation. Called by one merge thread at a time. */
static clsort_status sort_records_block(void *user, void *keys, void *values, size_t n)
{
    fields_stream *f = user;
    stream *s = f->s;
    if (values && n > f->perm_cap) {
        free(f->perm);
        free(f->tmp);
        f->perm = malloc(n * sizeof *f->perm);
        f->tmp = malloc(n * sizeof *f->tmp);
        f->perm_cap = f->perm && f->tmp ? n : 0;
        if (!f->perm_cap)
            return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "out of host memory for the positions of a merge block");
    }
    clsort_status st = sort_records(s, keys, n, values ? f->perm : NULL, NULL);
    if (st != CLSORT_OK || !values)
        return st;
    const unsigned char *v = values; /* positions at any alignment: after records of any size */
    for (size_t i = 0; i < n; i++)
        memcpy(&f->tmp[i], v + f->perm[i] * 8, 8);
    memcpy(values, f->tmp, n * 8);
    return CLSORT_OK;
}

/* One run straight to the sink, a chunk at a time. */
static clsort_status write_run(fields_stream *f, size_t m)
{
    stream *s = f->s;
    clsort_status st = CLSORT_OK;
    for (size_t at = 0; at < m && st == CLSORT_OK; at += f->chunk) {
        const size_t len = m - at < f->chunk ? m - at : f->chunk;
        st = clsort_stream_sink(s, f->buf + at * f->rs, f->pos ? (const void *)(f->pos + at) : NULL,
                                len);
        s->st->n += len;
        clsort_stream_progress(s, "output", s->st->n, s->total, 0);
    }
    return st;
}

/* Every run: read, sorted, then written (the only run, or segments) or kept for the merge. */
static clsort_status records_pipeline(fields_stream *f)
{
    stream *s = f->s;
    clsort_status st = CLSORT_OK;
    uint64_t base = 0;
    clsort_stream_progress(s, "sort", 0, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0, 1);
    for (;;) {
        size_t m;
        if ((st = fill_records_run(f, &m)) != CLSORT_OK || m == 0)
            break;
        const int last = s->eof && !f->ahead_n, direct = s->spec->segment || (last && !s->n_runs);
        clsort_stats one;
        if ((st = sort_records(s, f->buf, m, f->pos, &one)) != CLSORT_OK)
            break;
        clsort_stats_add(s->st, &one);
        for (size_t i = 0; f->pos && i < m; i++)
            f->pos[i] += base;
        base += m;
        s->st->runs++;
        if (direct) {
            st = write_run(f, m);
        } else {
            unsigned char *pos = (unsigned char *)f->pos;
            st = clsort_stream_keep_host_run(s, &f->buf, f->lay->index ? &pos : NULL, m);
            f->pos = (uint64_t *)pos;
            if (!f->buf) { /* the run kept them: the next run reads into new buffers */
                free(f->pos);
                f->pos = NULL;
                f->cap = 0;
            }
        }
        if (st != CLSORT_OK || last)
            break;
    }
    if (st != CLSORT_OK || !s->n_runs)
        return st;
    free(f->buf); /* the merge's blocks take the run's place */
    free(f->pos);
    free(f->ahead);
    f->buf = f->ahead = NULL;
    f->pos = NULL;
    f->cap = 0;
    return clsort_stream_merge_runs(s);
}

clsort_status clsort_sort_stream_records(clsort_context *ctx, const clsort_spec *spec,
                                         const clsort_layout *layout, const clsort_source *in,
                                         const clsort_sink *out,
                                         const clsort_stream_settings *settings,
                                         clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    clsort_stats local;
    spec = clsort_spec_or_default(spec, &def);
    stats = clsort_stats_cleared(stats, &local);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, layout && in && in->read && out && out->write);
    /* the layout and the spec checked as the sort of each run will check them, before any read */
    clsort_status st = clsort_sort_records(ctx, spec, NULL, 0, layout->record_size,
                                           layout->key_offset, layout->key_size, NULL, NULL);
    if (st != CLSORT_OK)
        return st;
    const size_t vs = layout->index ? 8 : 0;
    stream s = { .ctx = ctx, .spec = spec, .in = in, .out = out, .st = stats,
                 .ks = layout->record_size, .vs = vs, .fields = layout, .n_hint = in->n,
                 .lay = { layout->record_size, layout->key_offset, layout->key_size, vs } };
    fields_stream f = { .s = &s, .lay = layout, .rs = layout->record_size };
    s.fields_sorter = (clsort_block_sorter){ sort_records_block, &f };
    clsort_stream_resolve_settings(&s, settings);
    s.device_merge = ctx->settings.device_merge != 0;
    VALIDATE(ctx, s.set.fan_in >= 2);
    stats->memory_bytes = s.set.memory_bytes;
    if ((st = plan(&f)) == CLSORT_OK && (st = clsort_stream_plan_spill(&s)) == CLSORT_OK)
        st = records_pipeline(&f);
    for (size_t i = 0; i < s.n_runs; i++)
        clsort_run_free(&s.runs[i]);
    free(s.runs);
    free(f.buf);
    free(f.pos);
    free(f.ahead);
    free(f.perm);
    free(f.tmp);
    stats->total_ms = clsort_now_ms() - t0;
    stats->gkeys_per_s =
        stats->n && stats->kernel_ms > 0 ? (double)stats->n / (stats->kernel_ms * 1e6) : 0.0;
    return st;
}
