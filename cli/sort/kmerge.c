/*
 * The stable k-way merge (see kmerge.h). Owns the heap; calls reckey.c to compare records and the
 * sources' fill callbacks for their blocks.
 */
#include "kmerge.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Whether source x's next record goes before source y's: the smaller key, or on equal keys the
 * earlier source. */
static int before(const kmerge *m, size_t x, size_t y)
{
    const kmerge_block *a = &m->blk[x], *b = &m->blk[y];
    const size_t i = m->pos[x], j = m->pos[y];
    const int c = rec_key_cmp(m->key, a->rec + i * m->rs, a->order[i], b->rec + j * m->rs,
                              b->order[j]);
    return c < 0 || (c == 0 && x < y);
}

static void sift_down(kmerge *m, size_t i)
{
    size_t *h = m->heap;
    const size_t n = m->heap_n, x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(m, h[c + 1], h[c]))
            c++;
        if (!before(m, h[c], x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

int kmerge_start(kmerge *m, const rec_key *key, size_t rs, size_t k, kmerge_fill *fill,
                 void *user)
{
    *m = (kmerge){ .key = key, .rs = rs, .k = k, .fill = fill, .user = user };
    m->blk = calloc(k ? k : 1, sizeof *m->blk);
    m->pos = calloc(k ? k : 1, sizeof *m->pos);
    m->heap = malloc((k ? k : 1) * sizeof *m->heap);
    if (!m->blk || !m->pos || !m->heap) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    for (size_t i = 0; i < k; i++) {
        int rc = fill(user, i, &m->blk[i]);
        if (rc != EXIT_OK)
            return rc;
        if (m->blk[i].n)
            m->heap[m->heap_n++] = i;
    }
    for (size_t i = m->heap_n; i-- > 0;)
        sift_down(m, i);
    return EXIT_OK;
}

/* The record handed out last is passed: its source's next one (a new block when this one is used
 * up) takes its place in the heap. */
static int pass(kmerge *m)
{
    const size_t s = m->heap[0];
    m->handed = 0;
    if (++m->pos[s] == m->blk[s].n) {
        m->pos[s] = 0;
        int rc = m->fill(m->user, s, &m->blk[s]);
        if (rc != EXIT_OK)
            return rc;
        if (!m->blk[s].n)
            m->heap[0] = m->heap[--m->heap_n];
    }
    if (m->heap_n)
        sift_down(m, 0);
    return EXIT_OK;
}

int kmerge_next(kmerge *m, kmerge_item *it, int *rc)
{
    *rc = m->handed ? pass(m) : EXIT_OK;
    if (*rc != EXIT_OK || !m->heap_n)
        return 0;
    const size_t s = m->heap[0], at = m->pos[s];
    *it = (kmerge_item){ s, at, m->blk[s].rec + at * m->rs, m->blk[s].order[at] };
    m->handed = 1;
    return 1;
}

void kmerge_free(kmerge *m)
{
    free(m->blk);
    free(m->pos);
    free(m->heap);
    memset(m, 0, sizeof *m);
}
