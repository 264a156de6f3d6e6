/*
 * The environment variables clsort itself reads, read once at start-up (settings_load() in main) so
 * that no other file calls getenv(). The library reads its own (CLSORT_DEVICE, CLSORT_CACHE_DIR).
 */
#ifndef CLSORT_SETTINGS_H
#define CLSORT_SETTINGS_H

#include <stdint.h>

typedef struct cli_settings {
    /* CLSORT_TEST_STOP_AFTER_READ=N: stop (SIGSTOP) once N bytes or more of input are read */
    int stop_after_read_set;
    uint64_t stop_after_read;
    const char *stop_after_read_bad; /* its value when it is not a byte count (then ignored) */
    /* CLSORT_TEST_STOP_IN_COMMIT=1: stop between the first and second replacement of a commit */
    int stop_in_commit;
    const char *stop_in_commit_bad; /* its value when it is neither 1 nor 0 (then ignored) */
    /* CLSORT_TEST_RECORD_RUN=N: records by a key field are sorted in runs of at most N records */
    uint64_t record_run;
    /* CLSORT_TEST_SEGMENT_BATCH=N: --segments reads batches of at most N records, and sorts
     * longer segments alone (as past the -S budget) */
    uint64_t segment_batch;
    /* CLSORT_PREFAULT: whether a run of records is read into memory touched by several threads
     * first: 0 never (for measurements), 1 always, small runs too (for tests); -1 unset: runs of
     * 64 MiB or more */
    int prefault;
    /* CLSORT_READ_AHEAD: whether clsort sort reads the start of its input while the device opens:
     * 0 never (for measurements), 1 always (for tests); -1 unset: on a host of 4 cores or more */
    int read_ahead;
    /* CLSORT_MAP_OUTPUT: whether an output file of known size is reserved, mapped and filled on
     * the host's threads rather than written: 0 never (for measurements), 1 always, small ones too
     * (for tests); -1 unset: outputs of 64 MiB or more on a host of 4 cores or more */
    int map_output;
    /* TMPDIR: where runs of records go without -T (NULL: /tmp) */
    const char *tmpdir;
} cli_settings;

/* Read the environment; call once, before any thread is created. */
void settings_load(void);
/* What settings_load() read (all off before it). */
const cli_settings *settings(void);

#endif
