/*
 * clsort-mpi's exchange (see dsort.h): each rank's sorted slice cut at the splitters and the
 * pieces sent to their ranks (merged by engine.c), from memory or a file, into memory or a file.
 */
#include "dsort.h"
#include "cli.h"
#include "prefault.h"

#include <mpi.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The slice as one run [0, m) (job.run_cut): sorted in memory or by the engine into one file, or
 * partitioned. 0, or -1 with the error recorded. */
static int one_run(job *j)
{
    const int p = j->size;
    j->n_runs = 1;
    j->run_cut = calloc((size_t)p + 1, sizeof *j->run_cut);
    if (!j->run_cut) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the exchange's tables for %d ranks", p);
        return -1;
    }
    j->run_cut[p] = j->m;
    return 0;
}

/* One message of sc bytes to `to` and one of rc bytes from `from`, each only when not empty: the
 * partners' loops differ in length, and an empty message one did not expect would be taken for
 * the next one. */
static void swap(const unsigned char *sbuf, int sc, int to, unsigned char *rbuf, int rc, int from)
{
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (rc)
        MPI_Irecv(rbuf, rc, MPI_BYTE, from, 2, MPI_COMM_WORLD, &req[0]);
    if (sc)
        MPI_Isend(sbuf, sc, MPI_BYTE, to, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

/* Bytes [off, off + len) of what goes to rank `to` (its pieces of every run, one after the other),
 * from memory or the slice's file, and of the received part (memory or its file); failures are
 * recorded, and the exchange goes on so that no rank waits for another. */
static void get_bytes(job *j, int to, const uint64_t *sdisp, uint64_t off, unsigned char *buf,
                      size_t len)
{
    if (!j->ext_local)
        memcpy(buf, j->data + sdisp[to] * j->rs + off, len);
    else if (!j->code)
        runs_read_piece(j, to, off, buf, len);
}

static void put_bytes(job *j, const unsigned char *buf, uint64_t off, size_t len)
{
    if (!j->ext_recv)
        memcpy(j->recv + off, buf, len);
    else if (!j->code)
        ext_pwrite(j, j->recv_fd, buf, len, off);
}

/* Where any rank's slice or received part is in a file: each pair of ranks in turn, every piece
 * streamed through two buffers of L bytes (the least any rank allows: a quarter of its budget,
 * at most piece_bytes), so memory stays bounded whatever the shares. */
static void exchange_streamed(job *j, const uint64_t *sdisp, const uint64_t *rdisp)
{
    uint64_t mine = j->budget / 4 < j->piece_bytes ? j->budget / 4 : j->piece_bytes, L;
    mine = mine ? mine : 1;
    MPI_Allreduce(&mine, &L, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    unsigned char *sbuf = malloc(L), *rbuf = malloc(L);
    int ok = sbuf && rbuf, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the exchange's buffers (2 x %llu bytes)",
                   (unsigned long long)L);
    for (int k = 0; all_ok && k < j->size; k++) {
        const int to = (j->rank + k) % j->size, from = (j->rank - k + j->size) % j->size;
        const uint64_t sb = j->send_n[to] * j->rs, rb = j->recv_n[from] * j->rs;
        const uint64_t ns = (sb + L - 1) / L, nr = (rb + L - 1) / L;
        for (uint64_t i = 0; i < (ns > nr ? ns : nr); i++) {
            const int sc = (int)(i < ns ? (sb - i * L < L ? sb - i * L : L) : 0);
            const int rc = (int)(i < nr ? (rb - i * L < L ? rb - i * L : L) : 0);
            get_bytes(j, to, sdisp, i * L, sbuf, (size_t)sc);
            if (k == 0) { /* this rank's own piece */
                put_bytes(j, sbuf, rdisp[from] * j->rs + i * L, (size_t)sc);
                continue;
            }
            swap(sbuf, sc, to, rbuf, rc, from);
            put_bytes(j, rbuf, rdisp[from] * j->rs + i * L, (size_t)rc);
        }
    }
    free(sbuf);
    free(rbuf);
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
                swap(src + i * L, sc, to, dst + i * L, rc, from);
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

/* Where the received records go: memory when they fit the budget with the slice still held during
 * the exchange, and then with their merge, whose engine gets the rest of the budget, at least as
 * much as the pieces take (else it would sort them in runs in files anyway); else a temporary
 * file, merged into the output later under the whole budget. */
static int beyond_budget(const job *j)
{
    const unsigned __int128 r = j->recv_total, rs = j->rs;
    const unsigned __int128 held = r * rs + (j->ext_local ? 0 : (unsigned __int128)j->m * rs);
    const unsigned __int128 merge = 2 * r * rs;
    return (held > merge ? held : merge) > j->budget;
}

static void receive_into(job *j)
{
    j->ext_recv = beyond_budget(j);
    if (j->ext_recv) {
        j->recv_fd = ext_temp(j, "the records this rank receives", j->recv_total * j->rs,
                             &j->recv_dir);
        return;
    }
    j->recv = malloc(j->recv_total ? j->recv_total * j->rs : 1);
    if (!j->recv)
        dsort_fail(j, EXIT_DEVICE, "cannot allocate %llu bytes for the %llu records this rank "
                   "receives", (unsigned long long)(j->recv_total * j->rs),
                   (unsigned long long)j->recv_total);
    else /* MPI's copies would fault its pages in one at a time */
        prefault(j->recv, j->recv_total * j->rs, j->threads);
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
    } else if (j->partitioned) {
        dsort_partition(j, sdisp);
        if (one_run(j) == 0)
            memcpy(j->run_cut, sdisp, (size_t)p * sizeof *sdisp);
    } else if (j->run_cut || one_run(j) == 0) { /* the slice's runs (runs.c), or one sorted run */
        runs_cut(j);
        for (unsigned t = 0; t < j->n_runs; t++)
            for (int d = 0; d < p; d++)
                j->send_n[d] += j->run_cut[t * (p + 1) + d + 1] - j->run_cut[t * (p + 1) + d];
        for (int d = 0; d < p; d++)
            sdisp[d] = j->run_cut[d]; /* one run: where each piece starts (messages in memory) */
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
    if (p == 1 && !j->ext_local) { /* one rank receives its own sorted slice: no copy */
        j->recv = j->data;
        j->data = NULL;
        goto done;
    }
    /* on one host each rank reads its pieces where the senders hold them: nothing is sent (the
     * slices stay until the process ends, read by the merges) */
    if (shm_exchange(j, !beyond_budget(j))) {
        /* the senders' sorted files mapped: merged under the whole budget at the write, from there */
        j->ext_recv = j->ext_local && beyond_budget(j);
        goto done;
    }
    /* by messages a rank's runs come one after the other: no longer one sorted piece a rank */
    int runs = j->n_runs > 1, some = 0;
    MPI_Allreduce(&runs, &some, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    j->pieces_unsorted = some;
    receive_into(j);
    if (dsort_agree(j))
        goto done;
    /* MPI_Alltoallv counts and displacements are ints: bytes beyond piece_bytes anywhere, and
     * every rank takes the pairwise path of messages in pieces */
    int flags[2] = {(j->m + j->recv_total) * j->rs > j->piece_bytes, j->ext_local || j->ext_recv};
    int any[2] = {0, 0};
    MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any[1]) {
        exchange_streamed(j, sdisp, rdisp);
    } else if (any[0]) {
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
    shm_release_slice(j);
    if (j->sorted_fd >= 0)
        close(j->sorted_fd);
    j->sorted_fd = -1;
done:
    free(sdisp);
    free(rdisp);
    free(c);
}
