/*
 * The distributed sample sort of clsort-mpi, one step per function, each run by every rank:
 *   dsort_read      each rank's contiguous slice of the input, by MPI-IO
 *   dsort_local     the slice sorted on the rank's device (stable), with each record's position
 *   dsort_sample    splitters from a regular sample of every rank's sorted slice
 *   dsort_exchange  the slices cut at the splitters and sent to their ranks (exchange.c)
 *   dsort_merge     the received pieces merged, on several threads (merge.c)
 *   dsort_write     each rank's part written at its offset into a temporary file, renamed into place
 * Records compare as (clsort_key_order(), global position): the position breaks ties, so the result
 * is the single-process stable sort's, and equal keys spread over ranks like any others.
 * A step that fails on a rank records its message (dsort_fail); dsort_agree() after each step tells
 * every rank whether any failed, so that all stop together.
 */
#ifndef CLSORT_DSORT_H
#define CLSORT_DSORT_H

#include "mpi_args.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

enum { PH_READ, PH_SORT, PH_SAMPLE, PH_EXCHANGE, PH_MERGE, PH_WRITE, N_PHASES };

typedef struct job {
    const mpi_args *a;
    int rank, size, local_rank, local_size; /* local: the ranks of this host */
    size_t rs;                 /* bytes of a record */
    clsort_spec spec;
    uint64_t n;                /* records in the input */
    uint64_t lo, m;            /* this rank's slice: records lo .. lo + m - 1 */
    unsigned char *data;       /* the slice, sorted in place by dsort_local */
    uint64_t *ord;             /* each sorted record's clsort_key_order() */
    uint64_t *pos;             /* each sorted record's position in the input */
    uint64_t *splitters;       /* size - 1 pairs (order, position) */
    uint64_t *send_n, *recv_n; /* records to and from each rank */
    unsigned char *recv;       /* the received pieces, in rank order */
    uint64_t recv_total;
    unsigned char *out;        /* this rank's part of the output (may be recv itself) */
    uint64_t out_n;
    uint64_t piece_bytes;      /* largest message of the exchange and the file I/O */
    unsigned threads;          /* --parallel, else the host's online cores over its ranks */
    unsigned merge_threads;    /* the threads the merge used */
    clsort_context *ctx;
    char device[128];
    char tmp[PATH_MAX];        /* the temporary output (rank 0 made it), "" when none */
    double ms[N_PHASES];
    int fail_rank;             /* testing: this rank fails at fail_phase (-1: none) */
    int fail_phase;
    int code;                  /* this rank's first error (an exit status), 0 for none */
    char err[1024];
    int stopped;               /* the ranks agreed that one failed */
} job;

/* Record this rank's first error: its exit status and message. */
void dsort_fail(job *j, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Collective: 0 when no rank failed; else the first failing rank's status, its message printed by
 * rank 0 and the temporary output removed. */
int dsort_agree(job *j);
/* Testing: whether this rank is to fail at this phase (CLSORT_MPI_FAIL_RANK); records the error. */
int dsort_injected(job *j, int phase);

void dsort_read(job *j);
void dsort_local(job *j);
void dsort_sample(job *j);
void dsort_exchange(job *j);
void dsort_merge(job *j);
/* Returns once the output is renamed into place, or with the error recorded; collective inside. */
int dsort_write(job *j);

#endif
