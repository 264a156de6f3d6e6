/*
 * clsort-mpi's exchange (see dsort.h): each rank's sorted slice cut at the splitters and the
 * pieces sent to their ranks (merged by merge.c).
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
