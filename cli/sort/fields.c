/*
 * sort --record-size / --type bytes: see fields.h. The records stay on the host (the library sends
 * their keys and a permutation to the device), so a run is read whole into memory: as many records
 * as the budget allows for the sort of one run (about 2r + 8w + 56 bytes a record of r bytes and w
 * key words: the records, their gathered copy, the key words, the permutation, the device's
 * buffers), half of it, so that the other half holds the runs kept in memory.
 * Calls io.c for the files, the library for the sorts, recruns.c and recout.c.
 */
#include "fields.h"
#include "cli.h"
#include "progress.h"
#include "recout.h"
#include "recruns.h"
#include "settings.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fields_job {
    clsort_context *ctx;
    const clsort_spec *spec;
    const fields_args *f;
    input_file *in;
    size_t rs, cap;          /* record bytes; records per run */
    size_t front;            /* --top: room for the records kept, before the run read */
    int with_pos;            /* --index-out */
    unsigned char *buf;      /* the run being read: buf_cap records allocated */
    uint64_t *pos;           /* and its positions (front + buf_cap of them, for --top's sorts) */
    uint64_t *kept_pos, *next_pos; /* --top --index-out: the input positions of the records kept */
    size_t buf_cap;
    uint64_t fingerprint;    /* of the input, for --verify */
    clsort_stats *stats;
    double read_ms, write_ms;
    rec_out w;
    rec_runs runs;
} fields_job;

/* The memory for the data (-S, else half of physical memory, less the library's pinned staging
 * slots where a run's transfer would take them) and what sorting a record costs. */
static uint64_t plan_budget(const fields_job *j, uint64_t *cost)
{
    const fields_args *f = j->f;
    const uint64_t phys = io_physical_memory();
    const uint64_t words = f->key->bytes ? (f->key->size + 7) / 8 : 1;
    *cost = 2 * (uint64_t)j->rs + 8 * words + 56 + (j->with_pos ? 8 : 0);
    const uint64_t budget = f->memory ? f->memory : phys ? phys / 2 : (uint64_t)1 << 30;
    const uint64_t run = budget / *cost * j->rs;
    const size_t pinned = clsort_staging_bytes(j->ctx, run == (size_t)run ? (size_t)run : SIZE_MAX);
    return budget > 2 * (uint64_t)pinned ? budget - pinned : budget;
}

/* The budget, and the records of a run: at least one, a whole number of segments (--segment). */
static int plan_runs(fields_job *j, uint64_t *memory)
{
    uint64_t cost;
    const uint64_t budget = plan_budget(j, &cost);
    uint64_t cap = budget / 2 / cost;
    if (settings()->record_run && settings()->record_run < cap)
        cap = settings()->record_run;
    const uint64_t seg = j->spec->segment;
    if (seg)
        cap = cap / seg * seg; /* whole segments, sorted on their own: no merge */
    if (cap == 0) {
        char what[64];
        snprintf(what, sizeof what, seg ? "a segment of %llu records" : "a record",
                 (unsigned long long)seg);
        msg_error("%s of %zu bytes takes about %llu bytes to sort, more than half of the %.1f MiB "
                  "left for the data (-S less what clsort holds): give a larger -S", what, j->rs,
                  (unsigned long long)(cost * (seg ? seg : 1)), (double)budget / 1048576);
        return EXIT_USAGE;
    }
    j->cap = cap < SIZE_MAX / j->rs ? (size_t)cap : SIZE_MAX / j->rs;
    *memory = budget / 2;
    return EXIT_OK;
}

/* --top K: the K records kept at the front of the buffer, and blocks of records read behind them
 * (the records of a block: what the budget sorts at once less K, at most 2^24; at least K, so
 * that each sort takes in as many new records as it keeps). A K over half of what the budget
 * sorts at once (or over the input, where its size is known) is a whole sort instead, of which
 * the first K records are written: *whole set. */
static int plan_top(fields_job *j, uint64_t *memory, int *whole)
{
    const uint64_t k = j->f->top;
    uint64_t cost;
    const uint64_t budget = plan_budget(j, &cost), fit = budget / cost;
    uint64_t block = fit > k ? fit - k : 0;
    const input_file *in = j->in;
    if (block < k || k > SIZE_MAX / j->rs / 2 || (in->is_regular && k >= in->size / j->rs)) {
        *whole = 1;
        return plan_runs(j, memory);
    }
    block = block < ((uint64_t)1 << 24) ? block : (uint64_t)1 << 24;
    if (settings()->record_run && settings()->record_run < block)
        block = settings()->record_run;
    block = block < SIZE_MAX / j->rs - k ? block : SIZE_MAX / j->rs - k;
    j->front = (size_t)k;
    j->cap = (size_t)block;
    *memory = budget;
    return EXIT_OK;
}

/* Room for records up to `want` in the run's buffers (and positions). */
static int grow(fields_job *j, size_t want)
{
    unsigned char *b = realloc(j->buf, (j->front + want) * j->rs);
    if (b) {
        j->buf = b;
        if (want > j->buf_cap && settings()->prefault != 0) /* the new part, before the read */
            io_prefault(b + (j->front + j->buf_cap) * j->rs, (want - j->buf_cap) * j->rs,
                        settings()->prefault == 1);
    }
    uint64_t *p = j->with_pos && b ? realloc(j->pos, (j->front + want) * sizeof *p) : j->pos;
    if (!b || (j->with_pos && !p)) {
        msg_error("out of memory reading %s: a run of %zu records of %zu bytes", j->in->name, want,
                  j->rs);
        return EXIT_DEVICE;
    }
    j->pos = p;
    j->buf_cap = want;
    return EXIT_OK;
}

/* The next run: up to j->cap records into j->buf after the front, *m of them; *ended when the input
 * is at its end. */
static int read_run(fields_job *j, size_t *m, int *ended)
{
    input_file *in = j->in;
    const int sized = in->is_regular && in->size;
    const double t = now_ms();
    int rc = EXIT_OK;
    *m = 0;
    *ended = 0;
    while (rc == EXIT_OK && *m < j->cap && !(sized && in->got == in->size)) {
        if (*m == j->buf_cap) { /* a file's run at once, a stream's in doubling steps */
            size_t want = sized ? *m + (size_t)((in->size - in->got) / j->rs) : 2 * j->buf_cap;
            want = want < ((1u << 20) / j->rs) ? (1u << 20) / j->rs : want;
            want = want > j->cap ? j->cap : want ? want : 1;
            if ((rc = grow(j, want)) != EXIT_OK)
                break;
        }
        size_t got;
        rc = input_read_some(in, j->buf + (j->front + *m) * j->rs, (j->buf_cap - *m) * j->rs,
                             &got);
        if (rc == EXIT_OK && got % j->rs) /* a stream that ended inside a record */
            rc = layout_check_records(in->name, in->got, j->rs);
        if (rc != EXIT_OK || !got) {
            *ended = 1;
            break;
        }
        *m += got / j->rs;
        progress_set(in->got);
    }
    if (rc == EXIT_OK && !*ended && sized && in->got == in->size) {
        size_t got; /* at its size: checked not to have grown */
        rc = input_read_some(in, j->buf, 0, &got);
        *ended = 1;
    }
    if (rc == EXIT_OK && j->f->verify)
        j->fingerprint += verify_fingerprint_bytes(j->buf + j->front * j->rs, j->rs, *m);
    j->read_ms += now_ms() - t;
    return rc;
}

/* The m records at recs sorted; their positions made the input's (base: the first record's). */
static int sort_run(fields_job *j, unsigned char *recs, size_t m, uint64_t base)
{
    const rec_key *k = j->f->key;
    clsort_stats st;
    clsort_status s = clsort_sort_records(j->ctx, j->spec, recs, m, j->rs, k->offset,
                                          k->bytes ? k->size : 0, j->with_pos ? j->pos : NULL,
                                          &st);
    if (s != CLSORT_OK) {
        msg_lib_error("sort failed", s, clsort_error_detail(j->ctx));
        return exit_for_status(s);
    }
    for (size_t i = 0; j->with_pos && i < m; i++)
        j->pos[i] += base;
    clsort_stats *t = j->stats;
    t->algorithm = st.algorithm;
    t->kernel_ms += st.kernel_ms;
    t->upload_ms += st.upload_ms;
    t->download_ms += st.download_ms;
    t->programs_built += st.programs_built;
    t->programs_cached += st.programs_cached;
    t->runs++;
    return EXIT_OK;
}

/* A sorted run to the output (the only run, or whole segments), or kept for the merge. */
static int place_run(fields_job *j, size_t m, int direct)
{
    if (!direct) {
        int rc = rec_runs_add(&j->runs, &j->buf, &j->pos, m);
        if (!j->buf)
            j->buf_cap = 0; /* taken by a run kept in memory */
        return rc;
    }
    const double t = now_ms();
    int rc = rec_out_put(&j->w, j->buf, j->pos, m);
    j->write_ms += now_ms() - t;
    return rc;
}

/* Runs read, sorted and placed until the input ends; the runs kept merged into the output. */
static int sort_runs(fields_job *j)
{
    const int segments = j->spec->segment != 0; /* whole segments need no merge */
    uint64_t base = 0;
    int rc = EXIT_OK, ended = 0;
    while (rc == EXIT_OK && !ended) {
        size_t m;
        rc = read_run(j, &m, &ended);
        if (rc != EXIT_OK || !m)
            break;
        progress_phase("sort", 0);
        rc = sort_run(j, j->buf, m, base);
        base += m;
        if (rc == EXIT_OK)
            rc = place_run(j, m, segments || (ended && !j->runs.n));
        if (!ended)
            progress_phase("read", j->in->is_regular ? j->in->size : 0);
    }
    j->stats->n = base;
    if (rc != EXIT_OK || !j->runs.n)
        return rc;
    progress_phase("merge", base * j->rs);
    const double t = now_ms();
    free(j->buf); /* the merge's blocks take the run's place */
    free(j->pos);
    j->buf = NULL;
    j->pos = NULL;
    rc = rec_runs_merge(&j->runs, j->f->fan_in ? j->f->fan_in : 64, &j->w);
    j->stats->merge_ms = now_ms() - t;
    j->stats->merge_threads = 1;
    return rc;
}

/* --top K: each run sorted behind the records kept, which end at the front (the first K of the
 * stable sort of the input before it, fewer at first), so that on ties they, the earlier input,
 * stay first; the first K of the sort are kept, with their input positions for --index-out. The
 * K (or all there are, from a shorter input) written once the input ends. */
static int top_runs(fields_job *j)
{
    const size_t k = j->front;
    size_t kept = 0, m;
    uint64_t n = 0;
    int rc = EXIT_OK, ended = 0;
    if (j->with_pos) {
        j->kept_pos = malloc(k * sizeof *j->kept_pos);
        j->next_pos = malloc(k * sizeof *j->next_pos);
        if (!j->kept_pos || !j->next_pos) {
            msg_error("out of memory for the positions of --top %zu records", k);
            return EXIT_DEVICE;
        }
    }
    while (rc == EXIT_OK && !ended && (rc = read_run(j, &m, &ended)) == EXIT_OK && m) {
        progress_phase("sort", 0);
        unsigned char *recs = j->buf + (k - kept) * j->rs;
        if ((rc = sort_run(j, recs, kept + m, 0)) != EXIT_OK)
            break;
        const size_t keep = kept + m < k ? kept + m : k;
        memmove(j->buf + (k - keep) * j->rs, recs, keep * j->rs);
        for (size_t i = 0; j->with_pos && i < keep; i++) { /* a kept record's, or the run's */
            const uint64_t p = j->pos[i];
            j->next_pos[i] = p < kept ? j->kept_pos[p] : n + (p - kept);
        }
        if (j->with_pos) {
            uint64_t *t = j->kept_pos;
            j->kept_pos = j->next_pos;
            j->next_pos = t;
        }
        kept = keep;
        n += m;
        if (!ended)
            progress_phase("read", j->in->is_regular ? j->in->size : 0);
    }
    j->stats->n = n;
    const double t = now_ms();
    if (rc == EXIT_OK)
        rc = rec_out_put(&j->w, j->buf + (k - kept) * j->rs, j->kept_pos, kept);
    j->write_ms += now_ms() - t;
    return rc;
}

int fields_sort(clsort_context *ctx, const clsort_spec *spec, const fields_args *f, input_file *in,
                output_file *out, output_file *index, clsort_stats *stats, uint64_t *n_out)
{
    const double t0 = now_ms();
    fields_job j = { .ctx = ctx, .spec = spec, .f = f, .in = in, .rs = f->record_size,
                     .with_pos = index != NULL, .stats = stats };
    static const char *const tmp[1] = { "/tmp" };
    const char *const env_tmp[1] = { settings()->tmpdir };
    const char *const *dirs = f->n_temp_dirs ? f->temp_dirs : env_tmp[0] ? env_tmp : tmp;
    memset(stats, 0, sizeof *stats);
    uint64_t memory = 0;
    int whole = !f->top;
    int rc = whole ? plan_runs(&j, &memory) : plan_top(&j, &memory, &whole);
    rec_runs_init(&j.runs, f->key, j.rs, j.with_pos, memory, dirs,
                  f->n_temp_dirs ? f->n_temp_dirs : 1);
    for (size_t i = 0; rc == EXIT_OK && i < f->n_temp_dirs; i++) {
        temp_file t; /* -T given: each can take a file, before anything is read */
        rc = temp_open(&t, f->temp_dirs[i]);
        temp_close(&t);
    }
    if (rc == EXIT_OK)
        rc = rec_out_start(&j.w, f->key, j.rs, out, index, f->unique, f->verify);
    j.w.limit = f->top;
    if (rc == EXIT_OK) {
        progress_phase("read", in->is_regular ? in->size : 0);
        rc = whole ? sort_runs(&j) : top_runs(&j);
    }
    const double t = now_ms();
    if (rc == EXIT_OK)
        rc = rec_out_end(&j.w, j.fingerprint);
    *n_out = j.w.written;
    /* the library's stats are its sorts'; the reading, merging and writing are here */
    stats->read_ms = j.read_ms;
    stats->write_ms = j.write_ms + now_ms() - t;
    stats->runs_spilled = j.runs.spilled;
    stats->merge_levels = j.runs.levels;
    stats->temp_bytes = j.runs.temp_bytes;
    stats->memory_bytes = whole ? 2 * memory : memory;
    stats->total_ms = now_ms() - t0;
    stats->gkeys_per_s = stats->kernel_ms > 0 ? (double)stats->n / stats->kernel_ms / 1e6 : 0;
    rec_runs_free(&j.runs);
    rec_out_free(&j.w);
    free(j.buf);
    free(j.pos);
    free(j.kept_pos);
    free(j.next_pos);
    return rc;
}
