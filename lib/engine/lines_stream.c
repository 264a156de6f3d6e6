/*
 * clsort_sort_lines_stream(): text lines of any size within a memory budget. The source's bytes
 * are read into a block until the block and its line tables fill the budget (its delimiters
 * counted as they come); each block is sorted by clsort_sort_lines() (with the source's late
 * context, where it has one) and gathered a piece at a time on a thread while the piece before is
 * written. One block goes straight to the sink; more are written as runs to nameless run files (runfile.c; one file per directory and
 * merge level, the runs one after the other in it, so that any number of runs takes a few
 * descriptors), merged in groups when there are more than the fan-in, and the last runs merged into the sink: a heap over the runs, each read
 * back a buffered block at a time, GNU sort's comparison deciding, the earlier run first among
 * equal lines (stable), -u keeping the first of lines whose keys compare equal. Every step on the
 * host's threads takes at most clsort_stream_settings.threads of them (0: the default).
 * Calls lines.c, lines_keys.c (the comparison), runfile.c, status.c, timing.
 */
#include "internal.h"
#include "lines.h"
#include "runfile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Memory a line takes beside its bytes while its block sorts (the block and its sorted copy are
 * counted as twice its bytes): its start, prefix and place in the order (8 bytes each), the device
 * sort's host copy of prefix and place (16) and, on a CPU device, its buffers and scratch (32) */
#define LS_LINE_COST 96
#define LS_OUT_BYTES (1u << 20)
#define LS_FAN_IN 64

/* A run file and where its next run starts. */
typedef struct ls_file {
    clsort_runfile f;
    uint64_t end;
} ls_file;

typedef struct ls_run {
    size_t file; /* in lstream.files */
    uint64_t off, size;
} ls_run;

typedef struct lstream {
    clsort_context *ctx;
    const clsort_lines_spec *spec;
    lines_order o;
    const clsort_lines_source *src;
    const clsort_lines_sink *sink;
    clsort_stream_settings set;
    const char *dir0[1];
    uint64_t budget;
    ls_run *runs;
    size_t n_runs, cap_runs;
    ls_file *files;
    size_t n_files, cap_files;
    size_t *level_file; /* per directory, the file of this level's runs there, or SIZE_MAX */
    size_t next_dir;
    int context_taken; /* src->context() called */
    clsort_stats *stats;
} lstream;

/* Buffered output of whole lines: to the sink, or to a run file at off. */
typedef struct ls_writer {
    lstream *s;
    ls_run *run; /* NULL: the sink */
    char *buf;
    size_t n;
} ls_writer;

static clsort_status ls_put(ls_writer *w, const char *p, size_t len)
{
    if (len == 0)
        return CLSORT_OK;
    lstream *s = w->s;
    if (!w->run) {
        const double t = clsort_now_ms();
        const int rc = s->sink->write(s->sink->user, p, len);
        if (s->stats)
            s->stats->write_ms += clsort_now_ms() - t;
        return rc == 0 ? CLSORT_OK
                       : clsort_fail(s->ctx, CLSORT_ERROR_IO, "the sink reported an error");
    }
    const double t = clsort_now_ms();
    ls_file *f = &s->files[w->run->file];
    const clsort_status st = clsort_runfile_write(s->ctx, &f->f, p, len, f->end, f->end + len, len);
    w->run->size += len;
    f->end += len;
    if (s->stats) {
        s->stats->spill_ms += clsort_now_ms() - t;
        s->stats->temp_bytes += len;
    }
    return st;
}

static clsort_status ls_flush(ls_writer *w)
{
    const clsort_status st = ls_put(w, w->buf, w->n);
    w->n = 0;
    return st;
}

/* One line and its delimiter; a line longer than the buffer goes straight through. */
static clsort_status ls_line(ls_writer *w, const char *p, size_t len)
{
    clsort_status st;
    if (w->n + len + 1 > LS_OUT_BYTES) {
        if ((st = ls_flush(w)) != CLSORT_OK)
            return st;
        if (len + 1 > LS_OUT_BYTES) {
            if ((st = ls_put(w, p, len)) != CLSORT_OK)
                return st;
            w->buf[w->n++] = w->s->spec->delimiter;
            return CLSORT_OK;
        }
    }
    memcpy(w->buf + w->n, p, len);
    w->n += len;
    w->buf[w->n++] = w->s->spec->delimiter;
    return CLSORT_OK;
}

/* A new run, at the end of this level's file in the next directory (made at its first run). */
static clsort_status ls_new_run(lstream *s, ls_run **out)
{
    if (s->n_runs == s->cap_runs) {
        const size_t cap = s->cap_runs ? 2 * s->cap_runs : 16;
        ls_run *r = realloc(s->runs, cap * sizeof *r);
        if (!r)
            return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "out of host memory for %zu runs", cap);
        s->runs = r;
        s->cap_runs = cap;
    }
    const size_t d = s->next_dir++ % s->set.n_temp_dirs;
    if (s->level_file[d] == SIZE_MAX) {
        if (s->n_files == s->cap_files) {
            const size_t cap = s->cap_files ? 2 * s->cap_files : 8;
            ls_file *f = realloc(s->files, cap * sizeof *f);
            if (!f)
                return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
            s->files = f;
            s->cap_files = cap;
        }
        ls_file *f = &s->files[s->n_files];
        f->end = 0;
        const clsort_status st = clsort_runfile_open(s->ctx, s->set.temp_dirs[d], &f->f);
        if (st != CLSORT_OK)
            return st;
        s->level_file[d] = s->n_files++;
    }
    ls_run *r = &s->runs[s->n_runs++];
    r->file = s->level_file[d];
    r->off = s->files[r->file].end;
    r->size = 0;
    if (s->stats)
        s->stats->runs_spilled++;
    *out = r;
    return CLSORT_OK;
}

/* The sorted lines go out in pieces of an eighth of the block, 64 KiB to 16 MiB: a thread gathers
 * the next piece (on the host's threads) while the calling thread writes this one, so that neither
 * a copy of the whole block nor the gather's time adds to the write's. Under a bound of N threads
 * (clsort_stream_settings.threads) that gather takes N - 1 of them beside the writer, and with one
 * thread the pieces are gathered and written in turn on the calling thread. */
#define LS_PIECE_MIN (64u << 10)
#define LS_PIECE_MAX (16u << 20)

typedef struct ls_piece {
    const char *buf;
    size_t len; /* buf's bytes */
    const uint64_t *starts, *order;
    size_t n;
    char delim;
    char *out;
    size_t cap, bytes;
    unsigned threads; /* the gather's, 0: the default */
    int failed;
} ls_piece;

static void ls_piece_gather(ls_piece *p)
{
    p->bytes = lines_gather(p->buf, p->len, p->starts, p->order, p->n, p->delim, p->out, p->cap,
                            p->threads);
    if (p->bytes <= p->cap)
        return;
    free(p->out); /* longer lines than the pieces before: a larger buffer */
    p->cap = p->bytes + p->bytes / 4;
    p->out = malloc(p->cap);
    if (!p->out) {
        p->cap = 0;
        p->failed = 1;
        return;
    }
    p->bytes = lines_gather(p->buf, p->len, p->starts, p->order, p->n, p->delim, p->out, p->cap,
                            p->threads);
}

static void *ls_piece_thread(void *arg)
{
    ls_piece_gather(arg);
    return NULL;
}

/* The lines order[0, kept) written through w a piece at a time, the next piece gathered meanwhile. */
static clsort_status ls_write_sorted(lstream *s, ls_writer *w, const char *buf,
                                     const uint64_t *starts, const uint64_t *order, size_t kept,
                                     size_t len)
{
    if (!kept)
        return CLSORT_OK;
    const size_t piece = len / 8 < LS_PIECE_MIN ? LS_PIECE_MIN : len / 8 > LS_PIECE_MAX ? LS_PIECE_MAX
                                                                                : len / 8;
    const uint64_t est = (uint64_t)kept * piece / (len ? len : 1);
    const size_t per = est < 1 ? 1 : est > kept ? kept : (size_t)est;
    ls_piece pc[2];
    for (int i = 0; i < 2; i++)
        pc[i] = (ls_piece){ buf, len, starts, order, 0, s->spec->delimiter, NULL, 0, 0,
                            s->set.threads, 0 };
    /* with a bound, the pieces gathered beside the writer take one thread less */
    const unsigned beside = s->set.threads > 1 ? s->set.threads - 1 : s->set.threads;
    clsort_status st = CLSORT_OK;
    double t = clsort_now_ms();
    pc[0].n = per;
    ls_piece_gather(&pc[0]);
    size_t at = per;
    double gather = clsort_now_ms() - t;
    for (int cur = 0;; cur ^= 1) {
        ls_piece *p = &pc[cur], *q = &pc[cur ^ 1];
        if (p->failed) {
            st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                             "out of host memory for %zu bytes of sorted lines", p->bytes);
            break;
        }
        const int more = at < kept;
        int threaded = 0;
        pthread_t th;
        if (more) {
            q->order = order + at;
            q->n = kept - at < per ? kept - at : per;
            at += q->n;
            q->threads = beside;
            threaded = s->set.threads != 1 && pthread_create(&th, NULL, ls_piece_thread, q) == 0;
            if (!threaded)
                q->threads = s->set.threads;
        }
        st = ls_put(w, p->out, p->bytes);
        t = clsort_now_ms();
        if (threaded)
            pthread_join(th, NULL);
        else if (more && st == CLSORT_OK)
            ls_piece_gather(q);
        gather += clsort_now_ms() - t;
        if (st != CLSORT_OK || !more)
            break;
    }
    free(pc[0].out);
    free(pc[1].out);
    if (s->stats)
        s->stats->gather_ms += gather;
    return st;
}

/* Sort a block of n whole lines (each ended by the delimiter: n delimiters, counted as the block
 * was read) into the sink (run NULL) or a new run. */
static clsort_status ls_sort_block(lstream *s, const char *buf, size_t len, size_t n, int to_run)
{
    if (s->src->context && !s->context_taken) { /* the source's device, opened beside the read */
        s->context_taken = 1;
        s->ctx = s->src->context(s->src->user);
    }
    const double t0 = clsort_now_ms();
    uint64_t *starts = lines_alloc((n + 1) * sizeof *starts, s->set.threads);
    uint64_t *order = lines_alloc((n ? n : 1) * sizeof *order, s->set.threads);
    size_t kept = 0;
    clsort_status st;
    if (!starts || !order) {
        st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for a block of %zu lines (%zu bytes): give a smaller "
                         "memory budget", n, len);
        goto done;
    }
    clsort_stats one = { 0 };
    const double t1 = clsort_now_ms();
    st = lines_sort(s->ctx, s->spec, buf, len, starts, order, n, &kept, &one, s->set.threads);
    one.split_ms += t1 - t0; /* the count and the tables' allocation are the split's */
    if (st != CLSORT_OK)
        goto done;
    if (s->stats) {
        s->stats->n += n;
        s->stats->runs++;
        s->stats->kernel_ms += one.kernel_ms;
        s->stats->upload_ms += one.upload_ms;
        s->stats->download_ms += one.download_ms;
        s->stats->split_ms += one.split_ms;
        s->stats->keys_ms += one.keys_ms;
        s->stats->sort_ms += one.sort_ms;
        s->stats->ties_ms += one.ties_ms;
        if (one.algorithm)
            s->stats->algorithm = one.algorithm;
    }
    ls_writer w = { s, NULL, NULL, 0 };
    if (to_run && (st = ls_new_run(s, &w.run)) != CLSORT_OK)
        goto done;
    st = ls_write_sorted(s, &w, buf, starts, order, kept, len);
done:
    free(starts);
    free(order);
    return st;
}

/* A run read back a block at a time; the current line at line, len. */
typedef struct ls_reader {
    const clsort_runfile *f;
    uint64_t base, size, off; /* the run: where it starts in f, its bytes; the bytes read */
    char *buf;
    size_t cap, beg, end;
    const char *line;
    size_t len;
} ls_reader;

/* The next line: 1, 0 at the run's end, or -(errno) when the file could not be read. Runs hold
 * whole lines only. */
static int ls_next(ls_reader *r, char delim)
{
    for (;;) {
        const char *q = r->end > r->beg ? memchr(r->buf + r->beg, delim, r->end - r->beg) : NULL;
        if (q) {
            r->line = r->buf + r->beg;
            r->len = (size_t)(q - r->line);
            r->beg = (size_t)(q - r->buf) + 1;
            return 1;
        }
        if (r->off == r->size)
            return 0;
        if (r->beg > 0) {
            memmove(r->buf, r->buf + r->beg, r->end - r->beg);
            r->end -= r->beg;
            r->beg = 0;
        }
        if (r->end == r->cap) { /* a line longer than the block */
            char *b = realloc(r->buf, r->cap * 2);
            if (!b)
                return -12; /* ENOMEM */
            r->buf = b;
            r->cap *= 2;
        }
        const uint64_t left = r->size - r->off;
        const size_t want = r->cap - r->end < left ? r->cap - r->end : (size_t)left;
        const int e = clsort_runfile_read(r->f, r->buf + r->end, want, r->base + r->off);
        if (e)
            return -e;
        r->off += want;
        r->end += want;
    }
}

/* Whether reader x's line goes before reader y's: the smaller, of equal ones the earlier run's. */
static int ls_before(const lstream *s, const ls_reader *r, size_t x, size_t y)
{
    const int c = lines_compare(&s->o, r[x].line, r[x].len, r[y].line, r[y].len);
    return c < 0 || (c == 0 && x < y);
}

static void ls_down(const lstream *s, const ls_reader *r, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, c = 2 * i + 1;
        if (c < n && ls_before(s, r, h[c], h[m]))
            m = c;
        if (c + 1 < n && ls_before(s, r, h[c + 1], h[m]))
            m = c + 1;
        if (m == i)
            return;
        const size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static clsort_status ls_read_failed(lstream *s, const ls_reader *r, int got)
{
    if (got == -12)
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory for a line of %zu bytes or more", r->cap);
    return clsort_runfile_read_failed(s->ctx, r->f, -got);
}

/* The heap's loop: runs[first, first + k) merged into w; -u keeps the first of equal lines. */
static clsort_status ls_merge_loop(lstream *s, ls_reader *r, size_t k, size_t *heap, ls_writer *w)
{
    const char delim = s->spec->delimiter;
    char *last = NULL;
    size_t last_len = 0, last_cap = 0, n = 0;
    int have_last = 0;
    clsort_status st = CLSORT_OK;
    for (size_t i = 0; i < k; i++) {
        const int g = ls_next(&r[i], delim);
        if (g < 0)
            return ls_read_failed(s, &r[i], g);
        if (g)
            heap[n++] = i;
    }
    for (size_t i = n / 2; i-- > 0;)
        ls_down(s, r, heap, n, i);
    while (n > 0) {
        ls_reader *b = &r[heap[0]];
        int keep = 1;
        if (s->spec->unique) {
            keep = !have_last || lines_compare(&s->o, last, last_len, b->line, b->len) != 0;
            if (keep && b->len > last_cap) {
                char *nl = realloc(last, b->len);
                if (!nl) {
                    st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
                    break;
                }
                last = nl;
                last_cap = b->len;
            }
            if (keep) {
                if (b->len)
                    memcpy(last, b->line, b->len);
                last_len = b->len;
                have_last = 1;
            }
        }
        if (keep && (st = ls_line(w, b->line, b->len)) != CLSORT_OK)
            break;
        const int g = ls_next(b, delim);
        if (g < 0) {
            st = ls_read_failed(s, b, g);
            break;
        }
        if (!g)
            heap[0] = heap[--n];
        ls_down(s, r, heap, n, 0);
    }
    free(last);
    return st != CLSORT_OK ? st : ls_flush(w);
}

/* Runs [first, first + k) merged into the sink (to_run 0) or one new run. */
static clsort_status ls_merge(lstream *s, size_t first, size_t k, int to_run)
{
    ls_reader *r = calloc(k, sizeof *r);
    size_t *heap = calloc(k, sizeof *heap);
    ls_writer w = { s, NULL, malloc(LS_OUT_BYTES), 0 };
    clsort_status st = CLSORT_OK;
    /* half the budget for the runs' blocks */
    const uint64_t per = s->budget / 2 / k;
    const size_t block = per < (64u << 10) ? 64u << 10 : per > (8u << 20) ? 8u << 20 : (size_t)per;
    size_t ready = 0;
    if (!r || !heap || !w.buf)
        st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (; st == CLSORT_OK && ready < k; ready++) {
        r[ready].cap = block;
        r[ready].buf = malloc(block);
        if (!r[ready].buf)
            st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                             "out of host memory for the merge's blocks of %zu runs", k);
    }
    if (st == CLSORT_OK && to_run)
        st = ls_new_run(s, &w.run); /* may move s->runs and s->files: the readers point into them */
    if (st == CLSORT_OK) {
        for (size_t i = 0; i < k; i++) {
            const ls_run *run = &s->runs[first + i];
            r[i].f = &s->files[run->file].f;
            r[i].base = run->off;
            r[i].size = run->size;
        }
        st = ls_merge_loop(s, r, k, heap, &w);
    }
    for (size_t i = 0; r && i < k; i++)
        free(r[i].buf);
    free(r);
    free(heap);
    free(w.buf);
    return st;
}

/* More runs than the fan-in: groups merged into longer runs (their files closed) until the last
 * merge takes them all. */
static clsort_status ls_merge_all(lstream *s)
{
    const size_t fan = s->set.fan_in >= 2 ? s->set.fan_in : LS_FAN_IN;
    size_t first = 0, files_first = 0;
    while (s->n_runs - first > fan) {
        const size_t end = s->n_runs, files_end = s->n_files;
        for (size_t d = 0; d < s->set.n_temp_dirs; d++) /* this level's runs into new files */
            s->level_file[d] = SIZE_MAX;
        for (; first < end; first += fan) {
            const size_t k = end - first < fan ? end - first : fan;
            const clsort_status st = ls_merge(s, first, k, 1);
            if (st != CLSORT_OK)
                return st;
        }
        for (size_t i = files_first; i < files_end; i++) /* the level before, merged */
            clsort_runfile_close(&s->files[i].f);
        files_first = files_end;
        first = end;
        if (s->stats)
            s->stats->merge_levels++;
    }
    const double t = clsort_now_ms();
    const double w0 = s->stats ? s->stats->write_ms : 0;
    const clsort_status st = ls_merge(s, first, s->n_runs - first, 0);
    if (s->stats)
        s->stats->merge_ms += clsort_now_ms() - t - (s->stats->write_ms - w0);
    return st;
}

/* Read the source into blocks; a block that fills the budget is sorted into a run. */
static clsort_status ls_read_blocks(lstream *s)
{
    const char delim = s->spec->delimiter;
    const uint64_t budget = s->budget;
    /* a read's piece: small budgets make small blocks */
    const size_t piece = budget / 4 < (64u << 10) ? 64u << 10
                         : budget / 4 > (16u << 20) ? 16u << 20 : (size_t)(budget / 4);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    uint64_t lines = 0; /* delimiters in buf */
    clsort_status st = CLSORT_OK;
    /* an input of known size that fits: its room at once, not by doubling */
    const uint64_t size = s->src->size;
    if (size != CLSORT_SIZE_UNKNOWN && size < SIZE_MAX - 1 &&
        2 * (size + 1) + LS_LINE_COST * (size / 8) <= budget) {
        const double t = clsort_now_ms();
        buf = lines_alloc((size_t)size + 1, s->set.threads);
        if (s->stats) /* its pages made present: the read's */
            s->stats->read_ms += clsort_now_ms() - t;
        cap = buf ? (size_t)size + 1 : 0;
    }
    for (;;) {
        if (lines && (2 * len + LS_LINE_COST * lines >= budget ||
                      (s->set.run_records && lines >= s->set.run_records))) {
            size_t whole = len;
            while (whole > 0 && buf[whole - 1] != delim)
                whole--;
            if ((st = ls_sort_block(s, buf, whole, (size_t)lines, 1)) != CLSORT_OK)
                goto done;
            memmove(buf, buf + whole, len - whole);
            len -= whole;
            lines = 0;
        }
        if (cap - len < piece / 2) {
            const size_t ncap = cap + (cap > piece ? cap : piece);
            char *nb = realloc(buf, ncap);
            if (!nb) {
                st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                                 "out of host memory for %zu bytes of input: give a smaller "
                                 "memory budget", ncap);
                goto done;
            }
            buf = nb;
            cap = ncap;
        }
        const size_t want = cap - len < piece ? cap - len : piece;
        const double t = clsort_now_ms();
        const long long got = s->src->read(s->src->user, buf + len, want);
        if (got <= 0 && s->stats)
            s->stats->read_ms += clsort_now_ms() - t;
        if (got < 0) {
            st = clsort_fail(s->ctx, CLSORT_ERROR_IO, "the source reported an error");
            goto done;
        }
        if ((unsigned long long)got > want) {
            st = clsort_fail(s->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                             "the source placed %lld bytes where %zu were asked for", got, want);
            goto done;
        }
        if (got == 0)
            break;
        lines += lines_count_byte(buf + len, (size_t)got, delim, s->set.threads);
        len += (size_t)got;
        if (s->stats) /* the count is the read's */
            s->stats->read_ms += clsort_now_ms() - t;
    }
    if (len && buf[len - 1] != delim) { /* the last line ends at the input's end */
        if (len == cap) {
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                st = clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
                goto done;
            }
            buf = nb;
            cap++;
        }
        buf[len++] = delim;
        lines++;
    }
    if (s->n_runs == 0) {
        st = ls_sort_block(s, buf ? buf : "", len, (size_t)lines, 0);
        goto done;
    }
    if (len && (st = ls_sort_block(s, buf, len, (size_t)lines, 1)) != CLSORT_OK)
        goto done;
    free(buf);
    buf = NULL;
    st = ls_merge_all(s);
done:
    free(buf);
    return st;
}

clsort_status clsort_sort_lines_stream(clsort_context *ctx, const clsort_lines_spec *spec,
                                       const clsort_lines_source *source,
                                       const clsort_lines_sink *sink,
                                       const clsort_stream_settings *settings, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    if (!spec || !source || !source->read || !sink || !sink->write)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_lines_stream: spec, source, sink and their callbacks "
                           "must not be NULL");
    lstream s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.spec = spec;
    s.src = source;
    s.sink = sink;
    s.stats = stats;
    clsort_status st = lines_order_make(ctx, spec, &s.o);
    if (st != CLSORT_OK)
        return st;
    if (settings)
        s.set = *settings;
    if (!s.set.temp_dirs || !s.set.n_temp_dirs) { /* $TMPDIR when the context opened, or /tmp */
        s.dir0[0] = ctx ? ctx->settings.temp_dir : "/tmp";
        s.set.temp_dirs = s.dir0;
        s.set.n_temp_dirs = 1;
    }
    s.budget = s.set.memory_bytes;
    if (!s.budget) {
        /* half of physical memory, as clsort_sort_stream() takes it */
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        s.budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)1 << 32;
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->memory_bytes = s.budget;
    }
    /* an input known to need run files: the directories checked before anything is read */
    const uint64_t size = source->size;
    if (size != CLSORT_SIZE_UNKNOWN && 2 * size + LS_LINE_COST * (size / 8) > s.budget &&
        (st = clsort_tempdirs_check(ctx, s.set.temp_dirs, s.set.n_temp_dirs, size,
                                    size < s.budget / 2 ? size : s.budget / 2)) != CLSORT_OK)
        return st;
    s.level_file = malloc(s.set.n_temp_dirs * sizeof *s.level_file);
    if (!s.level_file)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t d = 0; d < s.set.n_temp_dirs; d++)
        s.level_file[d] = SIZE_MAX;
    st = ls_read_blocks(&s);
    for (size_t i = 0; i < s.n_files; i++)
        clsort_runfile_close(&s.files[i].f);
    free(s.files);
    free(s.level_file);
    free(s.runs);
    if (stats) {
        stats->total_ms = clsort_now_ms() - t0;
        if (!stats->runs)
            stats->runs = 1;
    }
    return st;
}
