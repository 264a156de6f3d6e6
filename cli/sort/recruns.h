/*
 * The sorted runs of records by a key field larger than memory: each kept in host memory while
 * the budget allows, else written to a nameless temporary file (the records, then their input
 * positions); then merged, stable, by kmerge.c into the output (rec_out), after merges of the
 * first runs into one while there are more than the fan-in.
 */
#ifndef CLSORT_RECRUNS_H
#define CLSORT_RECRUNS_H

#include "recout.h"
#include "reckey.h"
#include "tempfile.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rec_run {
    size_t n;
    unsigned char *recs;  /* a run in memory (owned), or NULL */
    uint64_t *pos;        /* its positions (owned), or NULL without an index */
    temp_file file;       /* a run in a file: fd >= 0 */
} rec_run;

typedef struct rec_runs {
    const rec_key *key;
    size_t rs;
    int with_pos;                  /* the runs carry input positions (--index-out) */
    uint64_t memory;               /* bytes for runs kept in memory, and for the merge's blocks */
    uint64_t kept;                 /* bytes of the runs kept in memory */
    const char *const *dirs;       /* where run files go, in turn */
    size_t n_dirs, next_dir;
    rec_run *run;
    size_t n, cap;
    unsigned spilled, levels;      /* runs written to files (merge levels included), levels */
    uint64_t temp_bytes;           /* bytes written to temporary files */
} rec_runs;

void rec_runs_init(rec_runs *s, const rec_key *key, size_t rs, int with_pos, uint64_t memory,
                   const char *const *dirs, size_t n_dirs);
/* A sorted run of n records (and positions, with_pos): kept in memory, taking the buffers (*recs
 * and *pos set to NULL), or written to a file (the buffers left to the caller). Returns an exit
 * status. */
int rec_runs_add(rec_runs *s, unsigned char **recs, uint64_t **pos, size_t n);
/* Every run merged into w (fan_in runs at most at once). Returns an exit status. */
int rec_runs_merge(rec_runs *s, size_t fan_in, rec_out *w);
void rec_runs_free(rec_runs *s);

#endif
