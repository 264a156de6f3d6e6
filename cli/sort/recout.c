/*
 * The output of records by a key field (see recout.h). Owns -u's and --verify's view of records;
 * calls reckey.c for the order, verify.c for the fingerprint and io.c to write.
 */
#include "recout.h"
#include "cli.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the output block, and records taken at a time (their orders on the stack). */
#define BLOCK_BYTES (1u << 20)
#define STRETCH 1024

int rec_out_start(rec_out *w, const rec_key *key, size_t rs, output_file *out, output_file *index,
                  int unique, int verify)
{
    *w = (rec_out){ .key = key, .rs = rs, .out = out, .index = index, .unique = unique,
                    .verify = verify };
    w->cap = BLOCK_BYTES / rs ? BLOCK_BYTES / rs : 1;
    w->buf = malloc(w->cap * rs);
    w->pos = index ? malloc(w->cap * sizeof *w->pos) : NULL;
    w->last_rec = malloc(rs);
    if (!w->buf || (index && !w->pos) || !w->last_rec) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    return EXIT_OK;
}

static int flush(rec_out *w)
{
    int rc = w->n ? output_write(w->out, w->buf, w->n * w->rs) : EXIT_OK;
    if (rc == EXIT_OK && w->n && w->index)
        rc = output_write(w->index, w->pos, w->n * sizeof *w->pos);
    w->n = 0;
    return rc;
}

/* One record kept: into the block. */
static int keep(rec_out *w, const unsigned char *rec, const uint64_t *pos)
{
    int rc = w->n == w->cap ? flush(w) : EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    memcpy(w->buf + w->n * w->rs, rec, w->rs);
    if (w->index)
        w->pos[w->n] = *pos;
    w->n++;
    w->written++;
    return EXIT_OK;
}

/* Records `at` and `at - 1` of the output (keys a, b) are out of order. */
static int recout_disorder(const rec_out *w, const unsigned char *a, const unsigned char *b, uint64_t at)
{
    char x[64], y[64];
    rec_key_text(w->key, a, x, sizeof x);
    rec_key_text(w->key, b, y, sizeof y);
    msg_error("verification failed: records %llu and %llu are out of %s order (keys %s, %s)",
              (unsigned long long)(at - 1), (unsigned long long)at,
              w->key->spec->descending ? "descending" : "ascending", x, y);
    return EXIT_DEVICE;
}

/* A stretch of at most STRETCH records, each compared with the one before. */
static int put_stretch(rec_out *w, const unsigned char *recs, const uint64_t *pos, size_t m)
{
    uint64_t order[STRETCH];
    rec_key_orders(w->key, recs, w->rs, m, order);
    const uint64_t seg = w->key->spec->segment;
    for (size_t i = 0; i < m; i++, w->seen++) {
        const unsigned char *rec = recs + i * w->rs, *prev = i ? rec - w->rs : w->last_rec;
        const int first = !(i || w->have_last) || (seg && w->seen % seg == 0);
        const int c = first ? -1 : rec_key_cmp(w->key, prev, i ? order[i - 1] : w->last, rec,
                                               order[i]);
        if (w->verify && c > 0)
            return recout_disorder(w, prev, rec, w->seen);
        if (w->unique && c == 0)
            continue;
        int rc = keep(w, rec, pos ? pos + i : NULL);
        if (rc != EXIT_OK)
            return rc;
    }
    w->have_last = 1;
    w->last = order[m - 1];
    memcpy(w->last_rec, recs + (m - 1) * w->rs, w->rs);
    if (w->verify)
        w->sum += verify_fingerprint_bytes(recs, w->rs, m);
    return EXIT_OK;
}

int rec_out_put(rec_out *w, const unsigned char *recs, const uint64_t *pos, size_t m)
{
    if (w->limit && m > w->limit - w->written) /* --top: the records written are those given */
        m = (size_t)(w->limit - w->written);
    if (!m)
        return EXIT_OK;
    if (!w->unique && !w->verify && m >= w->cap) { /* a large block as it is */
        w->seen += m;
        w->written += m;
        int rc = flush(w);
        if (rc == EXIT_OK)
            rc = output_write(w->out, recs, m * w->rs);
        if (rc == EXIT_OK && w->index)
            rc = output_write(w->index, pos, m * sizeof *pos);
        return rc;
    }
    if (!w->unique && !w->verify) {
        for (size_t i = 0; i < m; i++) {
            int rc = keep(w, recs + i * w->rs, pos ? pos + i : NULL);
            if (rc != EXIT_OK)
                return rc;
        }
        w->seen += m;
        return EXIT_OK;
    }
    for (size_t at = 0; at < m; at += STRETCH) {
        const size_t len = m - at < STRETCH ? m - at : STRETCH;
        int rc = put_stretch(w, recs + at * w->rs, pos ? pos + at : NULL, len);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

int rec_out_end(rec_out *w, uint64_t fingerprint)
{
    int rc = flush(w);
    if (rc != EXIT_OK || !w->verify)
        return rc;
    if (w->sum != fingerprint) {
        msg_error("verification failed: the output is not a permutation of the input records");
        return EXIT_DEVICE;
    }
    msg_info("verified: %llu records in order%s, same records as the input",
             (unsigned long long)w->seen, w->key->spec->segment ? " in each segment" : "");
    return EXIT_OK;
}

void rec_out_free(rec_out *w)
{
    free(w->buf);
    free(w->pos);
    free(w->last_rec);
    w->buf = w->last_rec = NULL;
    w->pos = NULL;
}
