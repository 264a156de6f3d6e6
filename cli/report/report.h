/*
 * Measurements of a run and how they are reported: a text block (--stats), one line (-v) and a JSON
 * object (--stats-json).
 */
#ifndef CLSORT_REPORT_H
#define CLSORT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct run_report {
    uint64_t n;               /* keys sorted */
    uint64_t n_out;           /* records written: n, or fewer with -u */
    int unique;               /* -u: the first record of each run of equal keys only */
    const char *algorithm;    /* algorithm that ran */
    const char *device;       /* "platform / device" */
    const char *key_type;     /* "u32", "i32", "f32", "u64", "i64", "f64" */
    size_t value_size;        /* bytes per value, 0 for keys only */
    const char *layout;       /* "keys", "kv" (interleaved records) or "separate" (two files) */
    int descending;
    unsigned begin_bit, end_bit; /* the bit range that orders the keys (end: the key's width) */
    uint64_t segment;         /* keys per independently sorted segment; 0: the whole input */
    const char *input, *output, *values_input, *values_output; /* paths as given; NULL if none */
    double open_ms;           /* opening the device context, on its thread where overlapped */
    double open_wait_ms;      /* what the main thread waited for the open: all of it, or where it
                                 overlapped the read (within total_ms), what the read left */
    int open_overlapped;      /* the device opened while the input was read */
    double read_ms;           /* reading the input (and splitting records) */
    double upload_ms, kernel_ms, download_ms; /* device time, from the library: the transfers
                                                 overlap the reads and writes */
    double prepare_ms;        /* device buffers, programs, warm-up: before the data comes */
    double merge_ms;          /* host merge of sorted runs (0 for one run) */
    double sort_ms;           /* the rest of total_ms: neither reading, writing nor commit
                                 (report_finish() sets it) */
    double write_ms;          /* writing the output (and joining records) */
    unsigned write_mapped;    /* the output filled through a map on this many threads, or 0 */
    int write_held;           /* ... at once from memory, the device closed meanwhile */
    double commit_ms;         /* syncing (where needed) and putting the outputs in place */
    double total_ms;          /* file to file: read, sort, write, commit */
    double wall_ms;           /* the process, from the start of main() to the report (as time(1)
                                 shows it, less the program's loading) */
    double start_ms;          /* from the start of main() to the device's open: the options, the
                                 inputs and the outputs checked */
    double other_ms;          /* the rest of wall_ms: checks of the device before the read, the
                                 report (report_finish() sets it) */
    unsigned runs;            /* device sorts */
    unsigned runs_spilled;    /* runs written to temporary files */
    unsigned merge_levels;    /* merges into run files before the final one */
    unsigned merge_threads;
    int merged_on_device;     /* the merge's blocks sorted on the device, read by the threads */
    uint64_t temp_bytes;      /* written to temporary files, all levels */
    double spill_ms;          /* writing temporary files */
    uint64_t memory_bytes;    /* the library's budget for the data */
    int budget_given;         /* memory_bytes is -S's (else half of physical memory) */
    uint64_t resident_bytes;  /* the process before the data (not counted in -S) */
    uint64_t peak_bytes;      /* the process's peak resident memory (report_finish() sets it) */
    int warm_up;              /* prepare launched the kernels once (a device that compiles at
                                 launch); not host-radix, whose warm-up runs on the host's threads */
    int trial_sort;           /* prepare ran one small sort first (the library's warm-up) */
    const char *staging;      /* the host memory of the transfers */
    int top_select;           /* --top by selects over blocks (each select's transfers and
                                 buffers are within the sort) */
    double gkeys_per_s;       /* n / kernel time */
    double total_gkeys_per_s; /* n / total time */
    unsigned programs_built, programs_cached;
} run_report;

/* Fill the derived fields: the rates, sort_ms (the rest of the total), other_ms (the rest of the
 * wall time) and the peak memory. */
void report_finish(run_report *r);
/* Several lines for --stats. */
void report_text(FILE *f, const run_report *r);
/* One line for -v. */
void report_line(FILE *f, const run_report *r);
/* The report as one JSON object (with a trailing newline); returns a malloc'd string or NULL. */
char *report_json(const run_report *r);

/* A small JSON object builder, also used by other subcommands. */
typedef struct json_buf {
    char *s;
    size_t len, cap;
    int fields; /* fields written at the current level */
    int failed; /* out of memory */
} json_buf;

void json_open(json_buf *j);                          /* "{" */
void json_close(json_buf *j);                         /* "}" */
void json_key(json_buf *j, const char *key);          /* "key": (used before a nested value) */
void json_str(json_buf *j, const char *key, const char *value); /* NULL writes null */
void json_num(json_buf *j, const char *key, double value);      /* non-finite writes null */
void json_u64(json_buf *j, const char *key, uint64_t value);
void json_bool(json_buf *j, const char *key, int value);
void json_raw(json_buf *j, const char *text);         /* append text as it is */
/* Append a JSON string literal for s (quoted and escaped: control characters as \u00XX, each byte
 * that is not UTF-8 as U+FFFD, so that the JSON is valid whatever bytes a file name holds). */
void json_quote(json_buf *j, const char *s);

/* Write a text to a file given on the command line ("-" is stdout) through the safe output path. Returns
 * an exit status. */
int write_text_file(const char *path, const char *text);

#endif
