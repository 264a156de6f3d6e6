/*
 * clsort merge: merge files that are sorted already into one sorted output, on the host.
 *
 * Owns the command's steps: open the inputs (each a sorted_reader, checked to be in order as it is
 * read), open the output, merge, commit. The merge is a binary heap of the inputs by (the order of
 * their next key, input index), so that equal keys come out in input order: stable. Memory is one
 * block per input and one output block, whatever the sizes. The library's run merge (runmerge.c)
 * is not used: its runs are the external sort's own files (keys and values apart, with an index of
 * known length), not arbitrary sorted streams. Calls args.c, sorted.c, io.c and the library's key
 * order (through sorted.c).
 */
#include "args.h"
#include "cli.h"
#include "io.h"
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
    size_t *heap;           /* indexes of the inputs that have records left */
    size_t heap_n;
    output_file out;
    int have_out;
    unsigned char *buf;     /* the output block */
    size_t buf_n, buf_cap;  /* records in it, and at most */
    size_t rs;
    int have_last;          /* -u: a record was written */
    uint64_t last;          /* its order */
    uint64_t n_in, n_out;
} merge_job;

static void job_cleanup(merge_job *j)
{
    for (size_t i = 0; i < j->n_open; i++)
        sorted_close(&j->in[i]);
    if (j->have_out)
        output_abort(&j->out);
    free(j->in);
    free(j->heap);
    free(j->buf);
    free(j->a.inputs);
}

/* Whether input x's next record goes before input y's: the smaller order, or on equal orders the
 * earlier input. */
static int before(const merge_job *j, size_t x, size_t y)
{
    const uint64_t a = j->in[x].order[j->in[x].pos], b = j->in[y].order[j->in[y].pos];
    return a < b || (a == b && x < y);
}

static void sift_down(merge_job *j, size_t i)
{
    size_t *h = j->heap;
    const size_t n = j->heap_n, x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(j, h[c + 1], h[c]))
            c++;
        if (!before(j, h[c], x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
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
    j->heap = malloc(k * sizeof *j->heap);
    j->buf_cap = MERGE_OUT_BYTES / j->rs;
    j->buf = malloc(j->buf_cap * j->rs);
    if (!j->in || !j->heap || !j->buf) {
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
        int rc = sorted_open(&j->in[i], a->inputs[i], &j->spec, &a->s.layout, block, 0);
        if (rc != EXIT_OK)
            return rc;
        j->in[i].hint = "merge takes sorted inputs (sort it first, with the same options)";
    }
    j->have_out = 1;
    return output_open(&j->out, output, a->s.common.force);
}

static int flush_out(merge_job *j)
{
    int rc = j->buf_n ? output_write(&j->out, j->buf, j->buf_n * j->rs) : EXIT_OK;
    j->buf_n = 0;
    return rc;
}

/* Step 2: the heap filled with each input's first block, then the smallest record taken until every
 * input is at its end; an input's next block is read (and checked) when its block is used up. */
static int merge(merge_job *j)
{
    uint64_t total = 0;
    int sized = 1;
    for (size_t i = 0; i < j->a.n_inputs; i++) {
        total += j->in[i].in.size;
        sized &= j->in[i].in.is_regular;
    }
    progress_phase("merge", sized ? total : 0);
    for (size_t i = 0; i < j->a.n_inputs; i++) {
        int rc = sorted_fill(&j->in[i]);
        if (rc != EXIT_OK)
            return rc;
        if (j->in[i].n)
            j->heap[j->heap_n++] = i;
    }
    for (size_t i = j->heap_n; i-- > 0;)
        sift_down(j, i);
    const int unique = j->a.s.unique;
    while (j->heap_n) {
        sorted_reader *r = &j->in[j->heap[0]];
        const uint64_t d = r->order[r->pos];
        j->n_in++;
        if (!unique || !j->have_last || d != j->last) {
            int rc = j->buf_n == j->buf_cap ? flush_out(j) : EXIT_OK;
            if (rc != EXIT_OK)
                return rc;
            memcpy(j->buf + j->buf_n++ * j->rs, r->buf + r->pos * j->rs, j->rs);
            j->n_out++;
            j->have_last = 1;
            j->last = d;
        }
        if (++r->pos == r->n) {
            int rc = sorted_fill(r);
            if (rc != EXIT_OK)
                return rc;
            if (!r->n)
                j->heap[0] = j->heap[--j->heap_n];
        }
        if (j->heap_n)
            sift_down(j, 0);
    }
    return flush_out(j);
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
    j.rs = layout_record_size(&s->layout);
    io_install_signal_handlers();
    g_output_sync = s->common.sync;
    progress_start(!s->common.no_progress);
    rc = open_files(&j);
    if (rc == EXIT_OK)
        rc = merge(&j);
    if (rc == EXIT_OK)
        rc = commit(&j);
    progress_end();
    job_cleanup(&j);
    return rc;
}
