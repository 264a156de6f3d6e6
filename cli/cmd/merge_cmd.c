/*
 * clsort merge: merge files that are sorted already into one sorted output, on the host.
 *
 * Owns the command's steps: open the inputs (each a sorted_reader, checked to be in order as it is
 * read), open the output, merge, commit. The merge is kmerge.c's heap of the inputs by (their next
 * key, input index), so that equal keys come out in input order: stable. Memory is one block per
 * input and one output block, whatever the sizes. Any layout: keys, key/value records, records by
 * a key field. The library's run merge (runmerge.c) is not used: its runs are the external sort's
 * own files (keys and values apart, with an index of known length), not arbitrary sorted streams.
 * Calls args.c, sorted.c, kmerge.c, reckey.c (the order, -u) and io.c.
 */
#include "args.h"
#include "cli.h"
#include "io.h"
#include "kmerge.h"
#include "progress.h"
#include "sorted.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of input buffered in all (split among the inputs, within the bounds below), and of output. */
#define MERGE_INPUT_BYTES (64u << 20)
#define MERGE_BLOCK_MIN (64u << 10)
#define MERGE_BLOCK_MAX (4u << 20)
#define MERGE_OUT_BYTES (1u << 20)

typedef struct merge_job {
    merge_args a;
    clsort_spec spec;
    sorted_reader *in;      /* one per input */
    size_t n_open;          /* readers opened (to close) */
    rec_key key;            /* the order */
    kmerge merge;
    output_file out;
    int have_out;
    unsigned char *buf;     /* the output block */
    size_t buf_n, buf_cap;  /* records in it, and at most */
    size_t rs;
    int have_last;          /* -u: a record was written */
    uint64_t last;          /* its order */
    unsigned char *last_rec; /* and a copy of it */
    uint64_t n_in, n_out;
} merge_job;

static void merge_job_cleanup(merge_job *j)
{
    for (size_t i = 0; i < j->n_open; i++)
        sorted_close(&j->in[i]);
    if (j->have_out)
        output_abort(&j->out);
    kmerge_free(&j->merge);
    free(j->in);
    free(j->buf);
    free(j->last_rec);
    free(j->a.inputs);
}

/* Step 1: every input opened (a regular file's size checked), then the output, all before any read:
 * a missing input or a bad output path fails with nothing read and nothing written. */
static int open_files(merge_job *j)
{
    const merge_args *a = &j->a;
    const size_t k = a->n_inputs;
    size_t block = MERGE_INPUT_BYTES / k;
    block = block < MERGE_BLOCK_MIN ? MERGE_BLOCK_MIN : block > MERGE_BLOCK_MAX ? MERGE_BLOCK_MAX
                                                                                : block;
    j->in = calloc(k, sizeof *j->in);
    j->buf_cap = MERGE_OUT_BYTES / j->rs ? MERGE_OUT_BYTES / j->rs : 1;
    j->buf = malloc(j->buf_cap * j->rs);
    j->last_rec = malloc(j->rs);
    if (!j->in || !j->buf || !j->last_rec) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    const char *output = a->s.common.output ? a->s.common.output : "-";
    if (strcmp(output, "-") == 0 && !a->s.common.force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary data to a terminal "
                  "(use -o FILE, redirect stdout, or -f to force)");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < k; i++) {
        if (strcmp(a->inputs[i], "-") == 0 && isatty(STDIN_FILENO)) {
            msg_error("(stdin): is a terminal: pipe the sorted data in, or name a file");
            return EXIT_USAGE;
        }
        j->n_open++;
        int rc = sorted_open(&j->in[i], a->inputs[i], &a->s, &j->spec, block, 0);
        if (rc != EXIT_OK)
            return rc;
        j->in[i].hint = "merge takes sorted inputs (sort it first, with the same options)";
    }
    j->have_out = 1;
    int rc = output_open(&j->out, output, a->s.common.force);
    /* -o may name an input: a new file replaces it once the merge is done. Not a descriptor open
     * on one (/dev/stdout appending to it): that would write into the input. */
    for (size_t i = 0; rc == EXIT_OK && j->out.direct && i < k; i++)
        if (output_names_input(&j->out, &j->in[i].in)) {
            msg_error("-o %s names the input %s: refusing to write into an input", j->out.name,
                      j->in[i].in.name);
            rc = EXIT_USAGE;
        }
    return rc;
}

static int flush_out(merge_job *j)
{
    int rc = j->buf_n ? output_write(&j->out, j->buf, j->buf_n * j->rs) : EXIT_OK;
    j->buf_n = 0;
    return rc;
}

/* An input's next block (read and checked), for the heap. */
static int fill_input(void *user, size_t i, kmerge_block *b)
{
    sorted_reader *r = &((merge_job *)user)->in[i];
    int rc = sorted_fill(r);
    *b = (kmerge_block){ r->buf, r->order, r->n };
    return rc;
}

/* The next merged record to the output block; with -u, only when its key differs from the last
 * one written. */
static int merge_put(merge_job *j, const kmerge_item *it)
{
    j->n_in++;
    if (j->a.s.unique && j->have_last &&
        rec_key_cmp(&j->key, j->last_rec, j->last, it->rec, it->order) == 0)
        return EXIT_OK;
    int rc = j->buf_n == j->buf_cap ? flush_out(j) : EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    memcpy(j->buf + j->buf_n++ * j->rs, it->rec, j->rs);
    j->n_out++;
    if (j->a.s.unique) {
        j->have_last = 1;
        j->last = it->order;
        memcpy(j->last_rec, it->rec, j->rs);
    }
    return EXIT_OK;
}

/* Step 2: each input's first block read, then the smallest record taken until every input is at its
 * end; an input's next block is read (and checked) when its block is used up. */
static int merge_inputs(merge_job *j)
{
    uint64_t total = 0;
    int sized = 1;
    for (size_t i = 0; i < j->a.n_inputs; i++) {
        total += j->in[i].in.size;
        sized &= j->in[i].in.is_regular;
    }
    progress_phase("merge", sized ? total : 0);
    int rc = kmerge_start(&j->merge, &j->key, j->rs, j->a.n_inputs, fill_input, j);
    kmerge_item it;
    while (rc == EXIT_OK && kmerge_next(&j->merge, &it, &rc))
        rc = merge_put(j, &it);
    return rc == EXIT_OK ? flush_out(j) : rc;
}

/* Step 3: the output put in place (a file it replaces, one of the inputs included, only now). */
static int commit(merge_job *j)
{
    int rc = output_finish(&j->out);
    if (rc == EXIT_OK) {
        output_file *outs[1] = {&j->out};
        rc = output_commit(outs, 1);
    }
    if (rc == EXIT_OK) {
        progress_end();
        msg_info("merged %llu records from %zu input%s into %s: %llu written",
                 (unsigned long long)j->n_in, j->a.n_inputs, j->a.n_inputs == 1 ? "" : "s",
                 j->out.name, (unsigned long long)j->n_out);
    }
    return rc;
}

int cmd_merge(int argc, char **argv, int first)
{
    merge_job j;
    memset(&j, 0, sizeof j);
    int rc = parse_merge_args(argc, argv, first, &j.a);
    if (rc >= 0) {
        free(j.a.inputs);
        return rc;
    }
    const sort_args *s = &j.a.s;
    clsort_spec_default(&j.spec);
    j.spec.key_type = s->layout.type;
    j.spec.value_size = s->layout.value_size;
    j.spec.descending = s->descending;
    j.spec.begin_bit = s->bits.given ? s->bits.begin : 0;
    j.spec.end_bit = s->bits.given ? s->bits.end : 0;
    j.rs = rec_key_from_args(&j.key, s, &j.spec);
    io_install_signal_handlers();
    g_output_sync = s->common.sync;
    progress_start(!s->common.no_progress);
    rc = open_files(&j);
    if (rc == EXIT_OK)
        rc = merge_inputs(&j);
    if (rc == EXIT_OK)
        rc = commit(&j);
    progress_end();
    merge_job_cleanup(&j);
    return rc;
}
