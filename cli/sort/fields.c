/*
 * sort --record-size / --type bytes: see fields.h. The whole sort is the library's stream of records
 * (clsort_sort_stream_records()): runs that fit the budget, sorted on the device, kept in memory or
 * in nameless run files (-T), merged by --parallel threads; the input is read and the output
 * written through the callbacks here. --top K with room for blocks reads a block at a time behind
 * the K records kept, sorted with them by clsort_sort_records() (a run's records cost about
 * 2r + 8w + 56 bytes each for records of r bytes and w key words: the records, their sorted copy,
 * the key words, the permutation, the device's buffers).
 * Calls io.c for the files, the library for the sorts, recout.c for the output.
 */
#include "fields.h"
#include "cli.h"
#include "progress.h"
#include "recout.h"
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
    int io_rc;               /* a callback's failure, said already */
    rec_out w;
} fields_job;

/* The memory for the data (-S, else half of physical memory, less the library's pinned staging
 * slots where a run's transfer would take them) and what sorting a record costs. */
static uint64_t plan_fields_budget(const fields_job *j, uint64_t *cost)
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

/* --top K: the K records kept at the front of the buffer, and blocks of records read behind them
 * (the records of a block: what the budget sorts at once less K, at most 2^24; at least K, so
 * that each sort takes in as many new records as it keeps). A K over half of what the budget
 * sorts at once (or over the input, where its size is known) is a whole sort instead, of which
 * the first K records are written: *whole set. */
static int plan_top(fields_job *j, uint64_t *memory, int *whole)
{
    const uint64_t k = j->f->top;
    uint64_t cost;
    const uint64_t budget = plan_fields_budget(j, &cost), fit = budget / cost;
    uint64_t block = fit > k ? fit - k : 0;
    const input_file *in = j->in;
    if (block < k || k > SIZE_MAX / j->rs / 2 || (in->is_regular && k >= in->size / j->rs)) {
        *whole = 1;
        return EXIT_OK;
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

/* Up to len bytes of the input, from where fields_args says. */
static int read_in(fields_job *j, unsigned char *buf, size_t len, size_t *got)
{
    const fields_args *f = j->f;
    return f->read ? f->read(f->read_user, j->in, buf, len, got)
                   : input_read_some(j->in, buf, len, got);
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
        rc = read_in(j, j->buf + (j->front + *m) * j->rs, (j->buf_cap - *m) * j->rs, &got);
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
        rc = read_in(j, j->buf, 0, &got);
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

/* The library's stream asks for records here: whole records of the input (a stream that ends
 * inside one is an error), fingerprinted for --verify. */
static long long fields_source_read(void *user, void *keys, void *values, size_t max)
{
    fields_job *j = user;
    (void)values;
    size_t got = 0;
    int rc = read_in(j, keys, max * j->rs, &got);
    if (rc == EXIT_OK && got % j->rs) /* a stream that ended inside a record */
        rc = layout_check_records(j->in->name, j->in->got, j->rs);
    if (rc != EXIT_OK) {
        j->io_rc = rc;
        return -1;
    }
    if (j->f->verify)
        j->fingerprint += verify_fingerprint_bytes(keys, j->rs, got / j->rs);
    progress_set(j->in->got);
    return (long long)(got / j->rs);
}

/* ... and gives the sorted records, with their input positions for --index-out. */
static int fields_sink_write(void *user, const void *keys, const void *values, size_t n)
{
    fields_job *j = user;
    const double t = now_ms();
    const int rc = rec_out_put(&j->w, keys, values, n);
    j->write_ms += now_ms() - t;
    if (rc != EXIT_OK)
        j->io_rc = rc;
    return rc != EXIT_OK;
}

static void fields_progress(void *user, const char *phase, uint64_t done, uint64_t total)
{
    const fields_job *j = user;
    if (strcmp(phase, "merge") == 0 || strcmp(phase, "output") == 0) {
        if (!done)
            progress_phase(phase, total * j->rs);
        progress_set(done * j->rs);
    }
}

/* The whole input through the library's stream of records. */
static int sort_all(fields_job *j)
{
    const fields_args *f = j->f;
    const rec_key *k = f->key;
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = f->memory;
    set.temp_dirs = f->n_temp_dirs ? f->temp_dirs : NULL;
    set.n_temp_dirs = f->n_temp_dirs;
    set.fan_in = (unsigned)f->fan_in;
    set.threads = f->threads;
    set.run_records = settings()->record_run;
    set.progress = fields_progress;
    set.progress_user = j;
    const clsort_layout lay = { j->rs, k->offset, k->bytes ? k->size : 0, j->with_pos };
    clsort_source src = { fields_source_read, j, CLSORT_SIZE_UNKNOWN, 0 };
    if (j->in->is_regular && j->in->size)
        src.n = j->in->size / j->rs;
    const clsort_sink dst = { fields_sink_write, j, 0 };
    const double w0 = j->write_ms;
    clsort_status st = clsort_sort_stream_records(j->ctx, j->spec, &lay, &src, &dst, &set,
                                                  j->stats);
    j->read_ms = j->stats->read_ms;
    j->write_ms = w0 + j->stats->write_ms;
    /* the report's runs in files count each merge level's file too, as they always did here */
    j->stats->runs_spilled += j->stats->merge_levels;
    if (st == CLSORT_ERROR_IO && j->io_rc != EXIT_OK)
        return j->io_rc; /* said already */
    if (st == CLSORT_ERROR_TOO_LARGE && f->memory) { /* -S below what one run needs */
        msg_error("%s: give a larger -S", clsort_error_detail(j->ctx));
        return EXIT_USAGE;
    }
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    return EXIT_OK;
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
    memset(stats, 0, sizeof *stats);
    uint64_t memory = 0;
    int whole = !f->top;
    int rc = whole ? EXIT_OK : plan_top(&j, &memory, &whole);
    if (rc == EXIT_OK)
        rc = rec_out_start(&j.w, f->key, j.rs, out, index, f->unique, f->verify);
    j.w.limit = f->top;
    if (rc == EXIT_OK) {
        progress_phase("read", in->is_regular ? in->size : 0);
        rc = whole ? sort_all(&j) : top_runs(&j);
    }
    const double t = now_ms();
    if (rc == EXIT_OK)
        rc = rec_out_end(&j.w, j.fingerprint);
    *n_out = j.w.written;
    /* the library's stats are its sorts' and its stream's; --top's reading and writing are here */
    stats->read_ms = j.read_ms;
    stats->write_ms = j.write_ms + now_ms() - t;
    if (!whole)
        stats->memory_bytes = memory;
    stats->total_ms = now_ms() - t0;
    stats->gkeys_per_s = stats->kernel_ms > 0 ? (double)stats->n / stats->kernel_ms / 1e6 : 0;
    rec_out_free(&j.w);
    free(j.buf);
    free(j.pos);
    free(j.kept_pos);
    free(j.next_pos);
    return rc;
}
