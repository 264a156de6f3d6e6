/*
 * The state of one clsort_sort_stream() call, shared by stream.c (the pipeline: fill, sort), drain.c
 * (sorted runs out through the staging slots) and spill.c (runs kept in memory or in files, and
 * their merge); calls go stream.c -> spill.c -> drain.c. A clsort_sort_stream_records() call is
 * the same state with records by a key field as its layout (fields_stream.c: its own pipeline, then
 * spill.c and drain.c). Not installed.
 */
#ifndef CLSORT_STREAM_H
#define CLSORT_STREAM_H

#include "internal.h"
#include "runmerge.h"

#include <pthread.h>

enum { SLOTS = 4, SPILLERS = 2 };

typedef struct slot {
    clsort_stage mem;      /* chunk keys, then chunk values (or chunk records) */
    unsigned char *keys, *values;
    cl_mem drec;           /* records mode: the chunk's records on the device */
    cl_event busy[2];      /* transfers into or out of the slot still pending */
} slot;

/* A run written to its file by a thread of its own while the next runs are read (devices with
 * memory of their own: the run is downloaded whole into `mem` first). SPILLERS of them take runs in
 * turn: one thread writes a run file at about 3.4 GB/s on the H100 machine, slower than the input
 * reads, and files apart take writes side by side. */
typedef struct spiller {
    clsort_stage mem;      /* one run: keys, then values */
    pthread_t thread;
    int active;
    size_t index;          /* of the run in stream.runs */
    clsort_run run;        /* the thread's copy, put back when it is joined */
    size_t n;
    cl_event ready;        /* the download */
    clsort_context *ctx;
    const clsort_spec *spec;
    uint64_t more;
    double ms;
    clsort_status st;
} spiller;

typedef struct stream {
    clsort_context *ctx;
    const clsort_spec *spec;
    const clsort_source *in;
    const clsort_sink *out;
    clsort_stats *st;
    size_t ks, vs;         /* bytes of a record's key part and value part in the runs */
    clsort_merge_layout lay; /* where the runs' keys are: keys (the spec's), or records by a key
                              * field (ks the record size, vs their positions' 8 or 0) */
    const clsort_layout *fields; /* records by a key field (fields_stream.c); NULL for keys */
    clsort_block_sorter fields_sorter; /* ... and the sort of their merge blocks */
    int rec_in, rec_out;   /* the source / sink deal in joined records */
    clsort_records rec;    /* ... split and joined by these kernels */
    size_t chunk;          /* records per slot */
    size_t run_limit;      /* records per run */
    size_t max_n;          /* records the algorithm takes in all (odd-even's limit; else SIZE_MAX) */
    slot slots[SLOTS];
    unsigned next_slot;
    size_t ahead;          /* records read into slots[next_slot] but not yet uploaded */
    int eof;
    cl_mem dk, dv;         /* device buffers of cap records */
    size_t cap;
    cl_event fence;        /* what uploads into dk / dv must wait for (the last run's download) */
    clsort_run *runs;      /* sorted runs waiting for the merge, in memory or in files */
    size_t n_runs, runs_cap;
    size_t total;
    uint64_t n_hint;       /* source->n */
    /* the budget (clsort_stream_settings) and what plan() made of it */
    clsort_stream_settings set;
    uint64_t keep_bytes;   /* of which runs kept in memory may take (with the device's, if shared) */
    uint64_t kept;         /* bytes of runs kept in memory now */
    size_t block;          /* records per merge block */
    size_t step;           /* index step of run files */
    unsigned next_dir;
    int dirs_checked;
    double progress_at;    /* when the progress callback was last called */
    const char *dir0[1];   /* the default temporary directory */
    int spilling;          /* a run went to a file: the later ones do too */
    int async_spill;       /* runs are written by the spiller (a device with its own memory) */
    int device_merge;      /* the merge blocks are sorted on the device (else merged on the host) */
    spiller sp[SPILLERS];
    unsigned spillers;     /* of them in use (an input known to need runs: all) */
    unsigned next_spiller;
} stream;

static inline void release_event(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

/* drain.c */
/* Wait for the slot's transfers; their device time goes to *ms. */
clsort_status clsort_stream_slot_wait(stream *s, slot *sl, double *ms);
/* The progress callback, at a phase's start (force) and at most five times a second. */
void clsort_stream_progress(stream *s, const char *phase, uint64_t done, uint64_t total, int force);
/* Records to the sink (its time in write_ms; a failure as CLSORT_ERROR_IO). */
clsort_status clsort_stream_sink(stream *s, const void *keys, const void *values, size_t m);
/* Bytes still to write to run files, for an error's detail. */
uint64_t clsort_stream_spill_left(const stream *s, size_t written);
/* The sorted run in the device buffers, chunk by chunk through the slots, to the sink or to a run
 * file (spill). */
clsort_status clsort_stream_drain(stream *s, size_t n, cl_event done, clsort_run *spill);

/* spill.c */
/* Several runs: this one kept in memory while the budget allows, else written to a run file. */
clsort_status clsort_stream_keep_run(stream *s, size_t n, cl_event done);
/* Wait for the run files being written by the spiller threads; the first failure. */
clsort_status clsort_stream_spill_join(stream *s);
/* The spillers' run buffers. */
void clsort_stream_spill_free(stream *s);
/* Merge the kept runs into the sink, after any levels the fan-in asks for. */
clsort_status clsort_stream_merge_runs(stream *s);
/* A known input that will need run files: the directories checked before anything is read. */
clsort_status clsort_stream_plan_spill(stream *s);
/* Several runs of records by a key field: this sorted run (n records at *keys, their positions at
 * *values or NULL) kept in memory while the budget allows, taking the buffers (set to NULL), else
 * written to a run file (the buffers left to the caller). */
clsort_status clsort_stream_keep_host_run(stream *s, unsigned char **keys, unsigned char **values,
                                          size_t n);

/* stream.c */
/* The merge's blocks and index step for data_bytes of budget and records of rs bytes; returns the
 * bytes the merge threads hold. */
uint64_t clsort_stream_plan_blocks(stream *s, uint64_t data_bytes, size_t rs);
/* The settings with their defaults filled in. */
void clsort_stream_resolve_settings(stream *s, const clsort_stream_settings *given);

#endif
