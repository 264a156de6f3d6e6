/*
 * Options of each subcommand, parsed from the command line (args.c).
 */
#ifndef CLSORT_ARGS_H
#define CLSORT_ARGS_H

#include "gen.h"
#include "layout.h"

#include <stdint.h>

/* Options that more than one subcommand takes, one field each wherever they are used. */
typedef struct common_args {
    const char *output;      /* -o (sort, gen); NULL: stdout */
    const char *device;      /* -d (sort, bench); NULL: $CLSORT_DEVICE or the default */
    uint64_t seed;           /* --seed (gen, bench) */
    int force;               /* -f (sort, gen) */
    int no_progress;         /* --no-progress (sort, gen, bench) */
    int sync;                /* --sync (sort, gen) */
} common_args;

/* --bits B:E */
typedef struct key_bits {
    unsigned begin, end;
    int given;               /* 0: every bit */
} key_bits;

#define SORT_MAX_TEMP_DIRS 16
/* The least -S: a few MiB for the data (what the process holds besides is not counted). */
#define SORT_MIN_BUFFER ((uint64_t)4 << 20)

typedef struct sort_args {
    common_args common;
    layout_args layout;      /* --type, --kv, --value-size, --values, --values-out */
    const char *input;       /* -i; NULL: the operand, else stdin */
    key_bits bits;           /* --bits B:E */
    uint64_t segment;        /* --segment N; 0: the whole array */
    const char *segments;    /* --segments FILE: CSR offsets of variable segments; NULL: none */
    int algorithm;           /* clsort_algorithm */
    int descending;          /* -r, --desc */
    int check;               /* -c: check the order of the input, write nothing (2: -C, quietly) */
    int unique;              /* -u: the first record of each run of equal keys only */
    const char *index_out;   /* --index-out FILE: each output key's input position (u64) */
    /* records sorted by a key field */
    uint64_t record_size;    /* --record-size R; 0: keys, or records of key and value */
    uint64_t key_offset;     /* --key-offset O */
    uint64_t key_size;       /* --key-size K, of a --type bytes key */
    int bytes_key;           /* --type bytes: the key is K bytes compared as memcmp does */
    uint64_t top;            /* --top K: the first K records of the sorted order only; 0: all */
    int verify;              /* --verify */
    int stats;               /* --stats */
    const char *stats_json;  /* --stats-json FILE */
    /* the external sort */
    uint64_t buffer_size;    /* -S SIZE in bytes, for the data (at least SORT_MIN_BUFFER); 0: the
                                library's default */
    unsigned buffer_percent; /* -S N%: of physical memory (then buffer_size is 0) */
    const char *temp_dirs[SORT_MAX_TEMP_DIRS]; /* -T DIR, repeatable */
    unsigned n_temp_dirs;
    uint64_t parallel;       /* --parallel N: merge threads; 0: one per processor */
    uint64_t batch_size;     /* --batch-size N: runs merged at once; 0: the library's */
} sort_args;

/* merge: the sort's options of order and layout (-t, -r, --bits, --kv, --value-size, -u, -o) and
 * the sorted inputs. */
typedef struct merge_args {
    sort_args s;             /* first: the sort's rows fill it */
    const char **inputs;     /* the operands, in order ("-" is stdin); malloc'd */
    size_t n_inputs;
} merge_args;

typedef struct gen_args {
    common_args common;
    layout_args layout;      /* --type, --kv, --value-size, --values-out */
    uint64_t n;
    dist_spec dist;
} gen_args;

typedef struct devices_args {
    int json;
} devices_args;

#define BENCH_MAX_LIST 32

typedef struct bench_args {
    common_args common;
    uint64_t n[BENCH_MAX_LIST];        /* --n, repeatable */
    unsigned n_count;
    dist_spec dist[BENCH_MAX_LIST];    /* --dist, repeatable */
    unsigned dist_count;
    int algorithm[BENCH_MAX_LIST];     /* --algo, repeatable */
    unsigned algo_count;
    int keys, pairs;                   /* --keys, --pairs: the layouts to run (neither: both) */
    unsigned repeat;
    unsigned warmup;
    const char *json;                  /* --json FILE */
    const char *plot;                  /* --plot FILE.svg */
    int no_reference;
} bench_args;

/* Whether the options need a stable algorithm: the option that does (and *why), else NULL. */
const char *sort_args_need_stable(const sort_args *a, const char **why);
/* The comparison sorts (bitonic, oddeven); every other algorithm is stable. */
int algorithm_unstable(int algorithm);

/* Each returns -1 to go on, or an exit status to end with (after --help, --version or an error).
 * argv[0] is the subcommand's name; first is the index of its first option. */
int parse_sort_args(int argc, char **argv, int first, sort_args *a);
int parse_merge_args(int argc, char **argv, int first, merge_args *a);
int parse_gen_args(int argc, char **argv, int first, gen_args *a);
int parse_devices_args(int argc, char **argv, int first, devices_args *a);
int parse_bench_args(int argc, char **argv, int first, bench_args *a);

#endif
