/*
 * Options of each subcommand, parsed from the command line.
 */
#ifndef CLSORT_ARGS_H
#define CLSORT_ARGS_H

#include "gen.h"

#include <stdint.h>

typedef struct sort_args {
    const char *input;       /* -i; NULL: the operand, else stdin */
    const char *output;      /* -o; NULL: stdout */
    const char *values;      /* --values */
    const char *values_out;  /* --values-out */
    int kv;                  /* --kv: interleaved records of key and value */
    key_type type;           /* --type */
    size_t value_size;       /* --value-size, or 4 with --kv / --values; 0: keys only */
    unsigned begin_bit, end_bit; /* --bits B:E; both 0: every bit */
    int have_bits;
    uint64_t segment;        /* --segment N; 0: the whole array */
    int algorithm;           /* clsort_algorithm */
    const char *device;      /* --device; NULL: $CLSORT_DEVICE or the default */
    int descending;          /* -r, --desc */
    int verify;              /* --verify */
    int stats;               /* --stats */
    const char *stats_json;  /* --stats-json FILE */
    int force;               /* -f */
    int no_progress;         /* --no-progress */
} sort_args;

typedef struct gen_args {
    uint64_t n;
    dist_spec dist;
    key_type type;           /* --type */
    size_t value_size;       /* --value-size, or 4 with --kv / --values-out; 0: keys only */
    uint64_t seed;
    int kv;                  /* values interleaved with the keys in records */
    const char *output;
    const char *values_out;
    int force;
    int no_progress;
} gen_args;

typedef struct devices_args {
    int json;
} devices_args;

#define BENCH_MAX_LIST 32

typedef struct bench_args {
    uint64_t n[BENCH_MAX_LIST];        /* --n, repeatable */
    unsigned n_count;
    dist_spec dist[BENCH_MAX_LIST];    /* --dist, repeatable */
    unsigned dist_count;
    int algorithm[BENCH_MAX_LIST];     /* --algo, repeatable */
    unsigned algo_count;
    int keys, pairs;                   /* --keys, --pairs: the layouts to run (neither: both) */
    uint64_t seed;
    const char *device;
    unsigned repeat;
    unsigned warmup;
    const char *json;                  /* --json FILE */
    const char *plot;                  /* --plot FILE.svg */
    int no_reference;
    int no_progress;
} bench_args;

/* Each returns -1 to go on, or an exit status to end with (after --help, --version or an error). argv[0]
 * is the subcommand's name; first is the index of its first option. */
int parse_sort_args(int argc, char **argv, int first, sort_args *a);
int parse_gen_args(int argc, char **argv, int first, gen_args *a);
int parse_devices_args(int argc, char **argv, int first, devices_args *a);
int parse_bench_args(int argc, char **argv, int first, bench_args *a);

#endif
