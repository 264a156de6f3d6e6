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
    int kv;                  /* --kv: interleaved 8-byte records */
    int algorithm;           /* clsort_algorithm */
    const char *device;      /* --device; NULL: $CLSORT_DEVICE or the default */
    int descending;          /* -r */
    int verify;              /* --verify */
    int stats;               /* --stats */
    const char *stats_json;  /* --stats-json FILE */
    int force;               /* -f */
} sort_args;

typedef struct gen_args {
    uint64_t n;
    dist_spec dist;
    uint64_t seed;
    int kv;
    const char *output;
    const char *values_out;
    int force;
} gen_args;

typedef struct devices_args {
    int json;
} devices_args;

typedef struct bench_args {
    uint64_t n;
    dist_spec dist;
    uint64_t seed;
    int algorithm;
    const char *device;
    int value_size;
    unsigned repeat;
    unsigned warmup;
    const char *json;
    int no_reference;
} bench_args;

/* Each returns -1 to go on, or an exit status to end with (after --help, --version or an error). argv[0]
 * is the subcommand's name; first is the index of its first option. */
int parse_sort_args(int argc, char **argv, int first, sort_args *a);
int parse_gen_args(int argc, char **argv, int first, gen_args *a);
int parse_devices_args(int argc, char **argv, int first, devices_args *a);
int parse_bench_args(int argc, char **argv, int first, bench_args *a);

#endif
