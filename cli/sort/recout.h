/*
 * Where sorted records by a key field go: -u's filter (the first record of each run of equal keys),
 * --verify's checks (the order, across calls and runs, and the fingerprint of the records before
 * any is dropped), then the output and each kept record's input position to --index-out, through
 * one output block. Takes the library's sorted output (one run or the merge of many) and --top's.
 */
#ifndef CLSORT_RECOUT_H
#define CLSORT_RECOUT_H

#include "io.h"
#include "reckey.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rec_out {
    const rec_key *key;
    size_t rs;
    output_file *out, *index; /* index NULL: no positions */
    int unique, verify;
    unsigned char *buf;       /* the output block: n records and their positions */
    uint64_t *pos;
    size_t n, cap;
    int have_last;            /* a record went before */
    uint64_t last;            /* its order */
    unsigned char *last_rec;  /* and a copy of it */
    uint64_t seen, written;   /* records given, records written */
    uint64_t limit;           /* --top: records written at most, the rest dropped (not with -u or
                                 --verify); 0: all */
    uint64_t sum;             /* fingerprint of the records given (--verify) */
} rec_out;

/* Returns an exit status; rec_out_free() is needed whatever it returns. */
int rec_out_start(rec_out *w, const rec_key *key, size_t rs, output_file *out, output_file *index,
                  int unique, int verify);
/* The next m records in sorted order, and their input positions (NULL without an index); past the
 * limit, dropped. Returns an exit status: a write that failed, or --verify finding two records out
 * of order. */
int rec_out_put(rec_out *w, const unsigned char *recs, const uint64_t *pos, size_t m);
/* The block written; with --verify, the records given checked against the input's fingerprint (and
 * the result said). Returns an exit status. */
int rec_out_end(rec_out *w, uint64_t fingerprint);
void rec_out_free(rec_out *w);

#endif
