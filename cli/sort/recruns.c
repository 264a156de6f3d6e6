/*
 * Runs of records by a key field (see recruns.h). Owns where a run lives and how the runs are read
 * back for the merge; calls kmerge.c for the merge, tempfile.c for the files, reckey.c for the
 * orders and recout.c for the output.
 */
#include "recruns.h"
#include "cli.h"
#include "kmerge.h"

#include <stdlib.h>
#include <string.h>

/* Records of a memory run given to the merge at a time (only their orders are copied), and the
 * bytes a file run's block takes at most. */
#define MEMORY_BLOCK 4096
#define FILE_BLOCK_MAX (4u << 20)

void rec_runs_init(rec_runs *s, const rec_key *key, size_t rs, int with_pos, uint64_t memory,
                   const char *const *dirs, size_t n_dirs)
{
    *s = (rec_runs){ .key = key, .rs = rs, .with_pos = with_pos, .memory = memory, .dirs = dirs,
                     .n_dirs = n_dirs };
}

static uint64_t run_bytes(const rec_runs *s, size_t n)
{
    return (uint64_t)n * (s->rs + (s->with_pos ? 8 : 0));
}

static rec_run *new_run(rec_runs *s)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 16;
        rec_run *r = realloc(s->run, cap * sizeof *r);
        if (!r) {
            msg_error("out of memory for the list of sorted runs");
            return NULL;
        }
        s->run = r;
        s->cap = cap;
    }
    rec_run *run = &s->run[s->n++];
    *run = (rec_run){ .file = { -1, NULL } };
    return run;
}

/* An empty file for a run of n records, in the next directory. */
static int open_file(rec_runs *s, rec_run *run, size_t n)
{
    run->n = n;
    s->spilled++;
    return temp_open(&run->file, s->dirs[s->next_dir++ % s->n_dirs]);
}

/* Records [at, at + m) of a file run: the records at the start, the positions after them. */
static int write_part(rec_runs *s, rec_run *run, const unsigned char *recs, const uint64_t *pos,
                      size_t at, size_t m)
{
    int rc = temp_write(&run->file, recs, m * s->rs, (uint64_t)at * s->rs);
    if (rc == EXIT_OK && s->with_pos)
        rc = temp_write(&run->file, pos, m * 8, (uint64_t)run->n * s->rs + (uint64_t)at * 8);
    s->temp_bytes += run_bytes(s, m);
    return rc;
}

int rec_runs_add(rec_runs *s, unsigned char **recs, uint64_t **pos, size_t n)
{
    rec_run *run = new_run(s);
    if (!run)
        return EXIT_DEVICE;
    const uint64_t bytes = run_bytes(s, n);
    if (s->kept + bytes > s->memory) {
        int rc = open_file(s, run, n);
        return rc == EXIT_OK ? write_part(s, run, *recs, *pos, 0, n) : rc;
    }
    run->n = n;
    run->recs = *recs;
    run->pos = *pos;
    *recs = NULL;
    *pos = NULL;
    s->kept += bytes;
    return EXIT_OK;
}

static void free_run(rec_runs *s, rec_run *run)
{
    if (run->recs)
        s->kept -= run_bytes(s, run->n);
    free(run->recs);
    free(run->pos);
    temp_close(&run->file);
    *run = (rec_run){ .file = { -1, NULL } };
}

/* ---- the merge ---- */

/* A run as the merge reads it: its next record, and the block given last. */
typedef struct source {
    const rec_run *run;
    size_t next, block;     /* the run's next record to give; records per block */
    unsigned char *buf;     /* a file run's block */
    uint64_t *pos_buf;      /* and its positions */
    const uint64_t *pos;    /* the positions of the block given last */
    uint64_t *order;        /* the orders of the block given last */
} source;

typedef struct merger {
    rec_runs *s;
    source *src;
    size_t k;
    kmerge heap;
    /* where the merged records go */
    int (*emit)(void *user, const unsigned char *rec, const uint64_t *pos);
    void *user;
} merger;

static int fill(void *user, size_t i, kmerge_block *b)
{
    merger *m = user;
    source *x = &m->src[i];
    const rec_run *run = x->run;
    const size_t rs = m->s->rs, len = run->n - x->next < x->block ? run->n - x->next : x->block;
    const unsigned char *recs = x->buf;
    int rc = EXIT_OK;
    if (run->recs) {
        recs = run->recs + x->next * rs;
        x->pos = run->pos ? run->pos + x->next : NULL;
    } else if (len) {
        rc = temp_read(&run->file, x->buf, len * rs, (uint64_t)x->next * rs);
        if (rc == EXIT_OK && m->s->with_pos)
            rc = temp_read(&run->file, x->pos_buf, len * 8,
                           (uint64_t)run->n * rs + (uint64_t)x->next * 8);
        x->pos = x->pos_buf;
    }
    if (rc == EXIT_OK && len)
        rec_key_orders(m->s->key, recs, rs, len, x->order);
    x->next += len;
    *b = (kmerge_block){ recs, x->order, len };
    return rc;
}

/* The sources of runs [0, k): blocks that share the budget among the file runs. */
static int open_sources(merger *m, size_t k)
{
    rec_runs *s = m->s;
    size_t files = 0;
    for (size_t i = 0; i < k; i++)
        files += s->run[i].recs == NULL;
    uint64_t bytes = files ? s->memory / files : 0;
    bytes = bytes > FILE_BLOCK_MAX ? FILE_BLOCK_MAX : bytes;
    size_t file_block = (size_t)(bytes / (s->rs + 16));
    file_block = file_block ? file_block : 1;
    m->k = k;
    m->src = calloc(k, sizeof *m->src);
    if (!m->src)
        goto oom;
    for (size_t i = 0; i < k; i++) {
        source *x = &m->src[i];
        x->run = &s->run[i];
        x->block = x->run->recs ? MEMORY_BLOCK : file_block;
        x->order = malloc(x->block * sizeof *x->order);
        if (!x->run->recs) {
            x->buf = malloc(x->block * s->rs);
            x->pos_buf = s->with_pos ? malloc(x->block * 8) : NULL;
        }
        if (!x->order || (!x->run->recs && (!x->buf || (s->with_pos && !x->pos_buf))))
            goto oom;
    }
    return EXIT_OK;
oom:
    msg_error("out of memory for the merge of %zu sorted runs", k);
    return EXIT_DEVICE;
}

static void close_sources(merger *m)
{
    for (size_t i = 0; m->src && i < m->k; i++) {
        free(m->src[i].buf);
        free(m->src[i].pos_buf);
        free(m->src[i].order);
    }
    free(m->src);
    m->src = NULL;
    kmerge_free(&m->heap);
}

/* Runs [0, k) merged, each record to m->emit. */
static int merge_first(merger *m, size_t k)
{
    int rc = open_sources(m, k);
    if (rc == EXIT_OK)
        rc = kmerge_start(&m->heap, m->s->key, m->s->rs, k, fill, m);
    kmerge_item it;
    while (rc == EXIT_OK && kmerge_next(&m->heap, &it, &rc)) {
        const source *x = &m->src[it.src];
        rc = m->emit(m->user, it.rec, x->pos ? x->pos + it.at : NULL);
    }
    close_sources(m);
    return rc;
}

/* A merge level's output: a new file run written a block at a time. */
typedef struct level_out {
    rec_runs *s;
    rec_run run;
    unsigned char *buf;
    uint64_t *pos;
    size_t n, cap, done;
} level_out;

static int level_flush(level_out *o)
{
    int rc = o->n ? write_part(o->s, &o->run, o->buf, o->pos, o->done, o->n) : EXIT_OK;
    o->done += o->n;
    o->n = 0;
    return rc;
}

static int level_emit(void *user, const unsigned char *rec, const uint64_t *pos)
{
    level_out *o = user;
    int rc = o->n == o->cap ? level_flush(o) : EXIT_OK;
    memcpy(o->buf + o->n * o->s->rs, rec, o->s->rs);
    if (pos)
        o->pos[o->n] = *pos;
    o->n++;
    return rc;
}

/* Runs [0, k) merged into one file run that takes their place (first: they are the earliest input,
 * so that ties keep their order in the merges after). */
static int merge_level(rec_runs *s, size_t k)
{
    level_out o = { .s = s, .run = { .file = { -1, NULL } } };
    size_t n = 0;
    for (size_t i = 0; i < k; i++)
        n += s->run[i].n;
    o.cap = FILE_BLOCK_MAX / s->rs ? FILE_BLOCK_MAX / s->rs : 1;
    o.buf = malloc(o.cap * s->rs);
    o.pos = s->with_pos ? malloc(o.cap * 8) : NULL;
    int rc = o.buf && (o.pos || !s->with_pos) ? open_file(s, &o.run, n) : EXIT_DEVICE;
    if (rc == EXIT_DEVICE)
        msg_error("out of memory for a merge of sorted runs");
    merger m = { .s = s, .emit = level_emit, .user = &o };
    if (rc == EXIT_OK)
        rc = merge_first(&m, k);
    if (rc == EXIT_OK)
        rc = level_flush(&o);
    free(o.buf);
    free(o.pos);
    if (rc != EXIT_OK) {
        temp_close(&o.run.file);
        return rc;
    }
    for (size_t i = 0; i < k; i++)
        free_run(s, &s->run[i]);
    s->run[0] = o.run;
    memmove(&s->run[1], &s->run[k], (s->n - k) * sizeof *s->run);
    s->n -= k - 1;
    s->levels++;
    return EXIT_OK;
}

static int out_emit(void *user, const unsigned char *rec, const uint64_t *pos)
{
    return rec_out_put(user, rec, pos, 1);
}

int rec_runs_merge(rec_runs *s, size_t fan_in, rec_out *w)
{
    int rc = EXIT_OK;
    while (rc == EXIT_OK && s->n > fan_in)
        rc = merge_level(s, fan_in);
    merger m = { .s = s, .emit = out_emit, .user = w };
    return rc == EXIT_OK ? merge_first(&m, s->n) : rc;
}

void rec_runs_free(rec_runs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free_run(s, &s->run[i]);
    free(s->run);
    s->run = NULL;
    s->n = s->cap = 0;
}
