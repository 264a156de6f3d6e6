/*
 * The received pieces merged on the rank's threads (--merge pieces), where they are sorted and lie
 * in memory this rank can read: its own, the senders' (process_vm_readv()), their memory files or
 * their sorted files mapped (shared.c), or the messages it received. No device sort and no
 * temporary file: the pieces are read once and each record is written once, into the output's map
 * or, where the output is not mapped, into a buffer that is written a round at a time. Steps:
 *   hm_sources   the pieces with records, in (sending rank, run) order: a rank's runs where it
 *                sorted its slice beyond the budget in runs (runs.c), else one piece a rank
 *   seg_cut      the output cut into segments of equal size; for each segment's start, where it
 *                starts in each piece: the smallest order v at which the pieces hold enough
 *                records, those below v taken from every piece and those equal to v from the
 *                earlier pieces first (found by binary searches, on the threads)
 *   merge_segment each segment merged on a thread by (order, piece): a balanced tree of two-way
 *                branch-free merges over the pieces in order, each inner node's output a buffer of
 *                a block (build, node_refill), the root's the output (merge_tree); each piece read
 *                a block at a time with its blocks' orders (clsort_key_orders())
 * Records compare as (clsort_key_order(), piece): the pieces' order is that of their records' input
 * positions, so this is clsort's order (dsort.h).
 */
#include "dsort.h"
#include "cli.h"
#include "prefault.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { HM_MAX_THREADS = 64, HM_REC_MAX = 64 };

typedef struct hmerge {
    job *j;
    size_t rs;
    int k;                        /* pieces with records */
    int *src;                     /* each one's index in job.src (read by shm_read_piece()) */
    const unsigned char **base;   /* each one's records in this address space; NULL: read by
                                     shm_read_piece() */
    uint64_t *len;
    uint64_t total, segs;
    uint64_t *cut;                /* (segs + 1) x k: where segment s starts in each piece */
    unsigned char *dst;           /* segment s goes to dst + (start of s - dst_first) * rs */
    uint64_t dst_first;
    uint64_t hi;                  /* the end of the segments (or the cuts) this round hands out */
    uint64_t next;                /* the next one to take (atomic) */
    size_t block;                 /* records a piece gives at a time */
    int cutting;                  /* the round finds cuts, else it merges */
    int err;                      /* the first errno of a read (atomic) */
} hmerge;

static uint64_t seg_start(const hmerge *h, uint64_t s)
{
    return h->total * s / h->segs;
}

/* ---------------------------------------------------------------------------------------------------
 * seg_cut: where each segment starts in each piece
 */

/* The first error of a read kept (the threads stop at their next segment). */
static void fail(hmerge *h, int e)
{
    __atomic_compare_exchange_n(&h->err, &(int){0}, e, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The order of record i of piece s. */
static uint64_t order_at(hmerge *h, int s, uint64_t i)
{
    unsigned char rec[HM_REC_MAX];
    const unsigned char *p = h->base[s] ? h->base[s] + i * h->rs : rec;
    if (!h->base[s]) {
        const int e = shm_read_piece(h->j, h->src[s], rec, i, 1);
        if (e) {
            fail(h, e);
            return 0;
        }
    }
    return clsort_key_order(&h->j->spec, p);
}

/* Records of piece s whose order is below v (or, with `equal`, at most v). */
static uint64_t count_below(hmerge *h, int s, uint64_t v, int equal)
{
    uint64_t lo = 0, hi = h->len[s];
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2, o = order_at(h, s, mid);
        if (o < v || (equal && o == v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* cut[0..k): the first t records of the merge, by piece. */
static void seg_cut(hmerge *h, uint64_t t, uint64_t *cut)
{
    if (t == 0 || t == h->total) {
        for (int s = 0; s < h->k; s++)
            cut[s] = t ? h->len[s] : 0;
        return;
    }
    /* the smallest v at which the pieces hold t records of order at most v */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int s = 0; s < h->k; s++) {
        const uint64_t a = order_at(h, s, 0), b = order_at(h, s, h->len[s] - 1);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        uint64_t c = 0;
        for (int s = 0; s < h->k && c < t; s++)
            c += count_below(h, s, mid, 1);
        if (c >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    /* every record below lo, then of those equal to lo the lower ranks' first */
    uint64_t need = t;
    for (int s = 0; s < h->k; s++) {
        cut[s] = count_below(h, s, lo, 0);
        need -= cut[s];
    }
    for (int s = 0; s < h->k && need; s++) {
        const uint64_t eq = count_below(h, s, lo, 1) - cut[s], take = eq < need ? eq : need;
        cut[s] += take;
        need -= take;
    }
}

/* ---------------------------------------------------------------------------------------------------
 * merge_segment: one segment on one thread
 */

/* A piece's current block within a segment. */
typedef struct hm_cursor {
    const unsigned char *rec;
    uint64_t *ord;
    unsigned char *buf; /* a block's copy, for a piece read by shm_read_piece() */
    size_t n, at;
    uint64_t next, end; /* the piece's records still to come in this segment */
} hm_cursor;

/* The cursor's next block (n 0: the piece's part of the segment is used up); 0 or an errno. */
static int refill(hmerge *h, int s, hm_cursor *c)
{
    const uint64_t left = c->end - c->next;
    c->n = left < h->block ? (size_t)left : h->block;
    c->at = 0;
    if (!c->n)
        return 0;
    if (h->base[s]) {
        c->rec = h->base[s] + c->next * h->rs;
    } else {
        const int e = shm_read_piece(h->j, h->src[s], c->buf, c->next, c->n);
        if (e)
            return e;
        c->rec = c->buf;
    }
    clsort_key_orders(&h->j->spec, c->rec, h->rs, c->n, c->ord);
    c->next += c->n;
    return 0;
}

/* Two blocks merged until one is used up; the new end of the output. Inlined with rs a constant,
 * so that each record is one move. */
static inline __attribute__((always_inline)) unsigned char *
merge2(unsigned char *o, size_t rs, const unsigned char *xr, const uint64_t *ox, size_t *pi, size_t xn,
       const unsigned char *yr, const uint64_t *oy, size_t *pj, size_t yn)
{
    size_t i = *pi, j = *pj;
    while (i < xn && j < yn) {
        const int t = oy[j] < ox[i]; /* equal orders: the earlier piece's (x) first */
        memcpy(o, t ? yr + j * rs : xr + i * rs, rs);
        o += rs;
        i += (size_t)!t;
        j += (size_t)t;
    }
    *pi = i;
    *pj = j;
    return o;
}

/* The rest of piece s's part of the segment copied to *o at once (the last piece left). */
static int drain(hmerge *h, int s, hm_cursor *x, unsigned char **o)
{
    for (;;) {
        memcpy(*o, x->rec + x->at * h->rs, (x->n - x->at) * h->rs);
        *o += (x->n - x->at) * h->rs;
        const int e = refill(h, s, x);
        if (e || !x->n)
            return e;
    }
}

/* As merge2(), with the orders carried along and at most lim records out: a node's buffer. */
static inline __attribute__((always_inline)) size_t
merge2o(unsigned char *o, uint64_t *oo, size_t lim, size_t rs, hm_cursor *x, hm_cursor *y)
{
    size_t i = x->at, j = y->at, k = 0;
    const size_t xn = x->n, yn = y->n;
    const unsigned char *xr = x->rec, *yr = y->rec;
    const uint64_t *ox = x->ord, *oy = y->ord;
    while (i < xn && j < yn && k < lim) {
        const int t = oy[j] < ox[i]; /* equal orders: the earlier pieces' (x) first */
        memcpy(o + k * rs, t ? yr + j * rs : xr + i * rs, rs);
        oo[k] = t ? oy[j] : ox[i];
        k++;
        i += (size_t)!t;
        j += (size_t)t;
    }
    x->at = i;
    y->at = j;
    return k;
}

/* A node of a segment's merge tree: a piece (a leaf), or the merge of two subtrees, the earlier
 * pieces on the left, whose cursor is a buffer it fills a block at a time. */
typedef struct hm_node {
    int piece;                 /* a leaf's piece, else -1 */
    hm_cursor *c;
    struct hm_node *l, *r;
} hm_node;

static int node_refill(hmerge *h, hm_node *nd);

/* The node's cursor's block, used up, refilled (n 0: nothing left below it); 0 or an errno. */
static int next_block(hmerge *h, hm_node *nd)
{
    return nd->c->at < nd->c->n ? 0 : node_refill(h, nd);
}

/* A buffer of a node filled by the merge of its children (a block of h->block records). */
static int node_refill(hmerge *h, hm_node *nd)
{
    if (nd->piece >= 0)
        return refill(h, nd->piece, nd->c);
    hm_cursor *c = nd->c, *x = nd->l->c, *y = nd->r->c;
    const size_t rs = h->rs, cap = h->block;
    size_t k = 0;
    int e = 0;
    while (k < cap && !(e = next_block(h, nd->l)) && !(e = next_block(h, nd->r))) {
        if (x->at == x->n || y->at == y->n) { /* one side used up: the other's block as it is */
            hm_cursor *z = x->at == x->n ? y : x;
            const size_t take = z->n - z->at < cap - k ? z->n - z->at : cap - k;
            if (!take)
                break;
            memcpy(c->buf + k * rs, z->rec + z->at * rs, take * rs);
            memcpy(c->ord + k, z->ord + z->at, take * sizeof *c->ord);
            z->at += take;
            k += take;
            continue;
        }
        unsigned char *o = c->buf + k * rs;
        uint64_t *oo = c->ord + k;
        switch (rs) { /* a constant record size: a move a record */
        case 4: k += merge2o(o, oo, cap - k, 4, x, y); break;
        case 8: k += merge2o(o, oo, cap - k, 8, x, y); break;
        case 12: k += merge2o(o, oo, cap - k, 12, x, y); break;
        case 16: k += merge2o(o, oo, cap - k, 16, x, y); break;
        default: k += merge2o(o, oo, cap - k, rs, x, y);
        }
    }
    c->rec = c->buf;
    c->n = k;
    c->at = 0;
    return e;
}

/* A balanced tree over pieces act[lo, hi) in order, its nodes from *nn on, its inner nodes'
 * cursors from inner[*ni] on. */
static hm_node *build(hm_cursor *c, const int *act, int lo, int hi, hm_node *nodes, int *nn,
                      hm_cursor *inner, int *ni)
{
    hm_node *nd = &nodes[(*nn)++];
    if (hi - lo == 1) {
        *nd = (hm_node){act[lo], &c[act[lo]], NULL, NULL};
        return nd;
    }
    hm_cursor *ic = &inner[(*ni)++];
    ic->n = ic->at = 0;
    const int mid = lo + (hi - lo) / 2;
    hm_node *l = build(c, act, lo, mid, nodes, nn, inner, ni);
    hm_node *r = build(c, act, mid, hi, nodes, nn, inner, ni);
    *nd = (hm_node){-1, ic, l, r};
    return nd;
}

/* The segment's pieces merged by a tree of two-way merges, each branch-free (which piece wins is a
 * coin toss for random keys: a branch on it was mispredicted half the time, about 10 ns a record,
 * and a scan of the pieces' next orders was a chain of dependent loads a record): the root's two
 * children merged straight into o, every other inner node into a buffer of a block. Equal orders:
 * the left, earlier pieces first. */
static int merge_tree(hmerge *h, hm_node *root, unsigned char *o)
{
    hm_cursor *x = root->l->c, *y = root->r->c;
    const size_t rs = h->rs;
    for (;;) {
        int e = next_block(h, root->l);
        if (e || (e = next_block(h, root->r)))
            return e;
        if (x->at == x->n && y->at == y->n)
            return 0;
        if (x->at == x->n || y->at == y->n) { /* one side used up: the other's block as it is */
            hm_cursor *z = x->at == x->n ? y : x;
            memcpy(o, z->rec + z->at * rs, (z->n - z->at) * rs);
            o += (z->n - z->at) * rs;
            z->at = z->n;
            continue;
        }
#define MERGE2(RS) merge2(o, RS, x->rec, x->ord, &x->at, x->n, y->rec, y->ord, &y->at, y->n)
        switch (rs) {
        case 4: o = MERGE2(4); break;
        case 8: o = MERGE2(8); break;
        case 12: o = MERGE2(12); break;
        case 16: o = MERGE2(16); break;
        default: o = MERGE2(rs);
        }
#undef MERGE2
    }
}

/* Segment seg into the round's destination; 0 or an errno. c: a cursor a piece, then k - 2 for
 * the tree's inner nodes; nodes: 2k. */
static int merge_segment(hmerge *h, uint64_t seg, hm_cursor *c, int *act, hm_node *nodes)
{
    const uint64_t *from = h->cut + seg * (uint64_t)h->k, *to = from + h->k;
    unsigned char *o = h->dst + (seg_start(h, seg) - h->dst_first) * h->rs;
    int n = 0;
    for (int s = 0; s < h->k; s++) {
        c[s].next = from[s];
        c[s].end = to[s];
        const int e = refill(h, s, &c[s]);
        if (e)
            return e;
        if (c[s].n)
            act[n++] = s;
    }
    if (n <= 1)
        return n ? drain(h, act[0], &c[act[0]], &o) : 0;
    int nn = 0, ni = 0;
    hm_node *root = build(c, act, 0, n, nodes, &nn, c + h->k, &ni);
    /* the root merges into o: its cursor (taken from the inner ones) is not used */
    return merge_tree(h, root, o);
}

/* ---------------------------------------------------------------------------------------------------
 * The threads: each takes cuts or segments in turn
 */

static void *worker(void *arg)
{
    hmerge *h = arg;
    hm_cursor *c = NULL;
    hm_node *nodes = NULL;
    int *act = NULL;
    unsigned char *mem = NULL;
    if (!h->cutting) {
        /* a cursor and a block a piece, and as many for the merge tree's inner nodes */
        const size_t cursors = 2 * (size_t)h->k;
        c = calloc(cursors, sizeof *c);
        nodes = malloc(cursors * sizeof *nodes);
        act = malloc((size_t)h->k * sizeof *act);
        mem = malloc(cursors * h->block * (sizeof(uint64_t) + h->rs));
        if (!c || !nodes || !act || !mem) {
            fail(h, ENOMEM);
            goto out;
        }
        for (size_t s = 0; s < cursors; s++) {
            c[s].ord = (uint64_t *)(void *)mem + s * h->block;
            c[s].buf = mem + cursors * h->block * sizeof(uint64_t) + s * h->block * h->rs;
        }
    }
    for (;;) {
        const uint64_t i = __atomic_fetch_add(&h->next, 1, __ATOMIC_RELAXED);
        if (i >= h->hi || __atomic_load_n(&h->err, __ATOMIC_RELAXED))
            break;
        if (h->cutting) {
            seg_cut(h, seg_start(h, i), h->cut + i * (uint64_t)h->k);
        } else {
            job *j = h->j;
            if (j->merge_faults_in && h->dst == j->out_map) /* its stretch of the map, at once */
                prefault_range(j->out_base, j->out_base_bytes,
                               j->out_map + seg_start(h, i) * h->rs,
                               (seg_start(h, i + 1) - seg_start(h, i)) * h->rs);
            const int e = merge_segment(h, i, c, act, nodes);
            if (e)
                fail(h, e);
        }
    }
out:
    free(c);
    free(nodes);
    free(act);
    free(mem);
    return NULL;
}

/* [lo, hi) of the cuts or the segments on the rank's threads, the caller one of them. */
static void run_round(hmerge *h, int cutting, uint64_t lo, uint64_t hi)
{
    h->cutting = cutting;
    h->next = lo;
    h->hi = hi;
    uint64_t n = hi - lo;
    n = n > h->j->threads ? h->j->threads : n;
    n = n > HM_MAX_THREADS ? HM_MAX_THREADS : n < 1 ? 1 : n;
    pthread_t th[HM_MAX_THREADS];
    int started[HM_MAX_THREADS] = {0};
    for (uint64_t t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, worker, h) == 0;
    worker(h); /* the caller; a thread that could not start leaves its share to the others */
    for (uint64_t t = 1; t < n; t++)
        if (started[t])
            pthread_join(th[t], NULL);
}

/* ---------------------------------------------------------------------------------------------------
 * The merge into the output
 */

int hmerge_possible(const job *j)
{
    return (j->src != NULL || (!j->ext_recv && j->recv)) && j->rs <= HM_REC_MAX &&
           !j->partitioned && !j->pieces_unsorted;
}

/* The pieces with records, in order, where each lies: job.src, else the messages received. */
static int hm_sources(hmerge *h)
{
    job *j = h->j;
    const size_t most = j->src ? (size_t)j->n_src : (size_t)j->size;
    h->src = malloc((most ? most : 1) * sizeof *h->src);
    h->base = malloc((most ? most : 1) * sizeof *h->base);
    h->len = malloc((most ? most : 1) * sizeof *h->len);
    if (!h->src || !h->base || !h->len)
        return -1;
    for (int s = 0; j->src && s < j->n_src; s++) {
        h->src[h->k] = s;
        h->len[h->k] = j->src[s].n;
        h->base[h->k] = j->src[s].pid ? NULL : j->src[s].at;
        h->k += j->src[s].n > 0;
    }
    uint64_t at = 0;
    for (int r = 0; !j->src && r < j->size; r++) {
        if (j->recv_n[r]) {
            h->src[h->k] = r;
            h->len[h->k] = j->recv_n[r];
            h->base[h->k] = j->recv + at * j->rs;
            h->k++;
        }
        at += j->recv_n[r];
    }
    return 0;
}

void hmerge_into(job *j, MPI_File f, const char *name, uint64_t first)
{
    hmerge h = {.j = j, .rs = j->rs, .total = j->recv_total};
    const uint64_t least = j->merge_segment;
    const unsigned threads = j->threads ? j->threads : 1;
    /* where the output is not mapped, rounds of one segment a thread, each at most 32 MiB */
    const uint64_t bytes = h.total * h.rs, seg_max = (uint64_t)32 << 20;
    h.segs = (uint64_t)threads * 4;
    if (!j->out_map && bytes / seg_max + 1 > h.segs)
        h.segs = bytes / seg_max + 1;
    h.segs = h.segs > h.total / least ? h.total / least : h.segs;
    h.segs = h.segs ? h.segs : 1;
    unsigned char *buf = NULL;
    if (hm_sources(&h) != 0 ||
        !(h.cut = malloc((size_t)(h.segs + 1) * (size_t)(h.k ? h.k : 1) * sizeof *h.cut))) {
        dsort_fail(j, EXIT_DEVICE, "out of memory for the merge of %llu records",
                   (unsigned long long)h.total);
        goto out;
    }
    /* the blocks of all pieces and their orders: about 1 MiB a thread (a read of another rank's
     * memory costs a system call a block) */
    h.block = ((size_t)1 << 20) / ((size_t)h.k * (sizeof(uint64_t) + h.rs));
    h.block = h.block < 256 ? 256 : h.block > 65536 ? 65536 : h.block;
    run_round(&h, 1, 0, h.segs + 1);
    if (!h.err && j->out_map) {
        h.dst = j->out_map;
        run_round(&h, 0, 0, h.segs);
    }
    const uint64_t per = threads; /* segments a round where the output is written */
    for (uint64_t lo = 0; !h.err && !j->out_map && lo < h.segs && !j->code; lo += per) {
        const uint64_t hi = lo + per < h.segs ? lo + per : h.segs;
        const uint64_t a = seg_start(&h, lo), b = seg_start(&h, hi);
        if (!buf && !(buf = malloc((size_t)(seg_start(&h, per < h.segs ? per : h.segs) + per) *
                                   h.rs))) {
            dsort_fail(j, EXIT_DEVICE, "out of memory for the merge's buffer");
            break;
        }
        h.dst = buf;
        h.dst_first = a;
        run_round(&h, 0, lo, hi);
        if (!h.err)
            shm_put_output(j, f, name, first, a, buf, b - a);
    }
    if (h.err)
        dsort_fail(j, EXIT_DEVICE, "cannot read the pieces this rank merges: %s",
                   strerror(h.err));
    j->merge_threads = threads;
out:
    free(buf);
    free(h.cut);
    free(h.src);
    free(h.base);
    free(h.len);
}
