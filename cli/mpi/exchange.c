/*
 * clsort-mpi's exchange and merge (see dsort.h): each rank's sorted slice cut at the splitters,
 * the pieces sent to their ranks, and each rank's received pieces merged by (order, position).
 */
#include "dsort.h"
#include "../cli.h"

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

/* The first record of the sorted slice not before (o, p). */
static uint64_t lower_bound(const job *j, uint64_t o, uint64_t p)
{
    uint64_t lo = 0, hi = j->m;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (j->ord[mid] < o || (j->ord[mid] == o && j->pos[mid] < p))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Pieces larger than piece_bytes (an int count of bytes, or a smaller limit set for testing): each
 * pair of ranks in turn, every piece sent in messages of at most piece_bytes. */
static void exchange_in_pieces(job *j, const uint64_t *sdisp, const uint64_t *rdisp)
{
    const uint64_t L = j->piece_bytes;
    for (int k = 0; k < j->size; k++) {
        const int to = (j->rank + k) % j->size, from = (j->rank - k + j->size) % j->size;
        const uint64_t sb = j->send_n[to] * j->rs, rb = j->recv_n[from] * j->rs;
        const unsigned char *src = j->data + sdisp[to] * j->rs;
        unsigned char *dst = j->recv + rdisp[from] * j->rs;
        if (k == 0) {
            memcpy(dst, src, sb);
            continue;
        }
        const uint64_t nr = (rb + L - 1) / L, ns = (sb + L - 1) / L;
        MPI_Request *req = malloc((nr + ns ? nr + ns : 1) * sizeof *req);
        if (!req) {
            /* one message at a time rather than none: slower, and still right */
            for (uint64_t i = 0; i < (nr > ns ? nr : ns); i++) {
                int sc = i < ns ? (int)(sb - i * L < L ? sb - i * L : L) : 0;
                int rc = i < nr ? (int)(rb - i * L < L ? rb - i * L : L) : 0;
                MPI_Sendrecv(src + i * L, sc, MPI_BYTE, to, 1, dst + i * L, rc, MPI_BYTE, from, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            continue;
        }
        for (uint64_t i = 0; i < nr; i++)
            MPI_Irecv(dst + i * L, (int)(rb - i * L < L ? rb - i * L : L), MPI_BYTE, from, 0,
                      MPI_COMM_WORLD, &req[i]);
        for (uint64_t i = 0; i < ns; i++)
            MPI_Isend(src + i * L, (int)(sb - i * L < L ? sb - i * L : L), MPI_BYTE, to, 0,
                      MPI_COMM_WORLD, &req[nr + i]);
        MPI_Waitall((int)(nr + ns), req, MPI_STATUSES_IGNORE);
        free(req);
    }
}

void dsort_exchange(job *j)
{
    const int p = j->size;
    j->send_n = calloc((size_t)p, sizeof *j->send_n);
    j->recv_n = calloc((size_t)p, sizeof *j->recv_n);
    uint64_t *sdisp = calloc((size_t)p, sizeof *sdisp), *rdisp = calloc((size_t)p, sizeof *rdisp);
    int *c = calloc(4 * (size_t)p, sizeof *c);
    if (!j->send_n || !j->recv_n || !sdisp || !rdisp || !c) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the exchange's tables for %d ranks", p);
    } else {
        uint64_t prev = 0;
        for (int d = 0; d < p; d++) {
            uint64_t cut = d == p - 1 ? j->m
                                      : lower_bound(j, j->splitters[2 * d], j->splitters[2 * d + 1]);
            sdisp[d] = prev;
            j->send_n[d] = cut - prev;
            prev = cut;
        }
    }
    dsort_injected(j, PH_EXCHANGE);
    if (dsort_agree(j))
        goto done;
    MPI_Alltoall(j->send_n, 1, MPI_UINT64_T, j->recv_n, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    j->recv_total = 0;
    for (int r = 0; r < p; r++) {
        rdisp[r] = j->recv_total;
        j->recv_total += j->recv_n[r];
    }
    j->recv = malloc(j->recv_total ? j->recv_total * j->rs : 1);
    if (!j->recv)
        dsort_fail(j, EXIT_DEVICE, "cannot allocate %llu bytes for the %llu records this rank "
                   "receives (a share larger than memory: run more ranks)",
                   (unsigned long long)(j->recv_total * j->rs),
                   (unsigned long long)j->recv_total);
    if (dsort_agree(j))
        goto done;
    /* MPI_Alltoallv counts and displacements are ints: bytes beyond piece_bytes anywhere, and
     * every rank takes the pairwise path of messages in pieces */
    int big = (j->m + j->recv_total) * j->rs > j->piece_bytes;
    int any_big = 0;
    MPI_Allreduce(&big, &any_big, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_big) {
        exchange_in_pieces(j, sdisp, rdisp);
    } else {
        int *sc = c, *sd = c + p, *rc = c + 2 * p, *rd = c + 3 * p;
        for (int r = 0; r < p; r++) {
            sc[r] = (int)(j->send_n[r] * j->rs);
            sd[r] = (int)(sdisp[r] * j->rs);
            rc[r] = (int)(j->recv_n[r] * j->rs);
            rd[r] = (int)(rdisp[r] * j->rs);
        }
        MPI_Alltoallv(j->data, sc, sd, MPI_BYTE, j->recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    }
    /* the slice has gone out: its memory is the merge's */
    free(j->data);
    free(j->ord);
    free(j->pos);
    j->data = NULL;
    j->ord = j->pos = NULL;
done:
    free(sdisp);
    free(rdisp);
    free(c);
}

/* Heap of sources ordered by (order of the source's next record, source rank): pieces from lower
 * ranks hold earlier input positions, so the rank breaks ties as the position does. */
typedef struct merge_heap {
    int *src;
    int n;
    const uint64_t *ord, *cur;
} merge_heap;

static int before(const merge_heap *h, int a, int b)
{
    uint64_t oa = h->ord[h->cur[a]], ob = h->ord[h->cur[b]];
    return oa < ob || (oa == ob && a < b);
}

static void sift_down(merge_heap *h, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, best = i;
        if (l < h->n && before(h, h->src[l], h->src[best]))
            best = l;
        if (r < h->n && before(h, h->src[r], h->src[best]))
            best = r;
        if (best == i)
            return;
        int t = h->src[i];
        h->src[i] = h->src[best];
        h->src[best] = t;
        i = best;
    }
}

void dsort_merge(job *j)
{
    const int p = j->size;
    int pieces = 0;
    for (int r = 0; r < p; r++)
        pieces += j->recv_n[r] > 0;
    if (dsort_injected(j, PH_MERGE))
        return;
    if (pieces <= 1) { /* one sorted piece is already the merge */
        j->out = j->recv;
        j->out_n = j->recv_total;
        return;
    }
    const size_t rs = j->rs;
    uint64_t *ord = malloc(j->recv_total * sizeof *ord);
    uint64_t *cur = malloc(2 * (size_t)p * sizeof *cur), *end = cur ? cur + p : NULL;
    int *src = malloc((size_t)p * sizeof *src);
    j->out = malloc(j->recv_total * rs);
    if (!ord || !cur || !src || !j->out) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the merge's %llu bytes for %llu records",
                   (unsigned long long)(j->recv_total * (rs + 8)),
                   (unsigned long long)j->recv_total);
        goto done;
    }
    clsort_key_orders(&j->spec, j->recv, rs, j->recv_total, ord);
    merge_heap h = {src, 0, ord, cur};
    uint64_t at = 0;
    for (int r = 0; r < p; r++) {
        cur[r] = at;
        end[r] = at += j->recv_n[r];
        if (j->recv_n[r])
            src[h.n++] = r;
    }
    for (int i = h.n / 2 - 1; i >= 0; i--)
        sift_down(&h, i);
    unsigned char *o = j->out;
    while (h.n > 0) {
        int s = src[0];
        memcpy(o, j->recv + cur[s] * rs, rs);
        o += rs;
        if (++cur[s] == end[s])
            src[0] = src[--h.n];
        sift_down(&h, 0);
    }
    j->out_n = j->recv_total;
    free(j->recv);
    j->recv = NULL;
done:
    free(ord);
    free(cur);
    free(src);
}
