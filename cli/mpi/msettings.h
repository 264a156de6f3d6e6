/*
 * The environment variables clsort-mpi itself reads, read once at start-up (msettings_load() in
 * main, before MPI or the device start threads) so that no other file of cli/mpi calls getenv().
 * The values are kept as given: the files that use them check them and say what is wrong. The
 * library reads its own (CLSORT_DEVICE among them, which is only looked at here).
 */
#ifndef CLSORT_MPI_SETTINGS_H
#define CLSORT_MPI_SETTINGS_H

typedef struct mpi_settings {
    const char *fail_rank;   /* CLSORT_MPI_FAIL_RANK=R[:PHASE]: testing, a rank that fails */
    const char *piece_bytes; /* CLSORT_MPI_PIECE_BYTES=N: the largest message and file access */
    const char *test_stop;   /* CLSORT_MPI_TEST_STOP=R:POINT: testing, a rank that stops itself */
    const char *test_named;  /* CLSORT_MPI_TEST_NAMED=0|1: testing, a named temporary output */
    const char *local;       /* CLSORT_MPI_LOCAL=stream|read: how a slice within the budget is
                                read and sorted (measuring, testing) */
    const char *shared;      /* CLSORT_MPI_SHARED=0: on one host, the exchange by messages and the
                                output by pwrite(); map: the slices in memory files even where
                                the ranks can read each other's memory (measuring, testing) */
    const char *merge_segment; /* CLSORT_MPI_MERGE_SEGMENT=N: testing, the least records of a
                                  segment of --merge pieces (4096), so that small inputs are cut */
    const char *runs;        /* CLSORT_MPI_RUNS=N: testing, the most runs a rank beyond the budget
                                sorts itself (runs.c; 0: the engine's sort in runs, always) */
    int device_set;          /* CLSORT_DEVICE is set (not empty): the library picks the device */
    const char *tmpdir;      /* TMPDIR, NULL when unset or empty: where temporary files go
                                without -T (else /tmp) */
} mpi_settings;

/* Read the environment; call once, before any thread is created. */
void msettings_load(void);
/* What msettings_load() read (all unset before it). Empty values count as unset. */
const mpi_settings *msettings(void);

#endif
