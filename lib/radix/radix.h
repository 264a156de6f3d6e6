/*
 * Shared by the radix files only: radix_shape.c (shape, scratch sizing, options, the binning
 * kernel's arguments), radix_onesweep.c and radix_rts.c (the two chains), radix.c (the entries).
 */
#ifndef CLSORT_RADIX_H
#define CLSORT_RADIX_H

#include "internal.h"

#define HIST_BINS 256 /* the up-front histogram counts whole bytes */
#define MAX_HIST_TILES 64 /* tiles counted by one histogram work-group, at most */
/* Histogram work-groups per compute unit (one portion). H100, the histogram's kernel ms
 * (CLSORT_PROFILE=1, medians of 5, one run) with 2 / 4 / 8 / 16: u32 keys 2^24 0.045 / 0.050 /
 * 0.048 / 0.052, 2^26 0.132 / 0.134 / 0.134 / 0.137, 2^28 0.478 / 0.476 / 0.480 / 0.477; u64 keys
 * 2^24 0.085 / 0.094 / 0.094 / 0.090, 2^27 0.472 / 0.478 / 0.471 / 0.488. Runs of 4 keys through a
 * vector pointer (the form before, cl/radix/) took 0.045-0.055 / 0.132-0.136 / 0.473-0.486 and
 * u64 0.089-0.098 / 0.501-0.521 with 2-16. */
#define HIST_GROUPS_PER_CU 2
#define HIST_LOADS 4 /* loads of 4 keys in flight per histogram work-item (cl/radix/histogram.cl) */
/* radix-hybrid where the tuning table names none: bytes of records per wave of buckets. */
#define HYBRID_WAVE_BYTES ((size_t)8 << 20)
/* Steps between a wave's passes in the ticket order (cl/radix/hybrid.cl), 1 to 4. */
#define HYBRID_LAG 1

typedef struct radix_shape {
    unsigned digit_bits; /* 8 for radix8, 4 for radix4 */
    unsigned wg, items, ptx, radix_bits, hist_copies;
    unsigned match; /* warp ranking: 0 ballots per digit bit, 1 match.any, 2 lane-mask table,
                    * 3 the table with a ballot for the frequent digit */
    unsigned serial; /* reduce-then-scan with one work-item per tile (CPU devices) */
    unsigned lb_at;  /* warp ranking: when tiles publish their counts (LB_AT, cl/radix/base.cl) */
    unsigned lb_win; /* look-back: predecessors read at a time (LB_WIN, cl/radix/; 0 default) */
    unsigned kv;     /* warp ranking with values: keys and values reordered together (KV_TOGETHER) */
    unsigned split;  /* lane-mask table: ballots on the digits' top bits beside it (MATCH_SPLIT) */
    size_t tile;
} radix_shape;

/* One radix sort being enqueued: what both chains need. */
typedef struct radix_run {
    clsort_job *job;
    radix_shape s;
    const char *fam;   /* "radix8" or "radix4" */
    unsigned digit_bits, bins, places, begin;
    int lookback;      /* onesweep (else reduce-then-scan) */
    int hybrid;        /* onesweep's top place, then radix_hybrid.c's buckets */
    size_t ks, vs;
    cl_program prog;
    cl_kernel bin_k;   /* radix8_bin, or radix8_serial_scatter in the serial form */
    const char *bin_name;
    cl_mem keys[2], vals[2]; /* the job's buffers and their ping-pong partners */
    unsigned done_passes;    /* binning passes enqueued: the result is in keys[done_passes & 1] */
    cl_mem seg_hist;         /* variable segments by look-back: each long segment's counts */
} radix_run;

/* The arguments of radix8_bin after its data buffers (see cl/radix/binning.cl). */
typedef struct radix_bin_args {
    cl_ulong base, n;
    cl_uint shift;
    cl_mem status;
    cl_ulong status_off;
    cl_mem offsets;
    cl_ulong off_index, off_next, ntiles, seg_len;
} radix_bin_args;

/* ---- radix_shape.c ---- */
radix_shape clsort_radix_shape(const clsort_context *ctx, unsigned digit_bits, size_t key_size,
                               size_t value_size, size_t n, int lookback);
size_t clsort_radix_local_bytes(const radix_shape *s, size_t key_size, size_t value_size);
int clsort_radix_lookback(const clsort_context *ctx, const clsort_spec *spec);
/* Digit places of the bit range. */
unsigned clsort_radix_places(const clsort_spec *spec, unsigned digit_bits);
/* Byte places the up-front histogram counts for `places` digit places. */
size_t clsort_radix_hist_places(size_t places, unsigned digit_bits);
/* Tiles per onesweep portion. */
size_t clsort_radix_portion_tiles(const clsort_context *ctx, const radix_shape *s);
/* Onesweep status regions: one per pass, or one reused. */
size_t clsort_radix_status_regions(size_t places, size_t portions, size_t per_portion);
/* Tiles of a sort (*tps: per segment, or of the whole array). */
size_t clsort_radix_tiles(const radix_shape *s, const clsort_spec *spec, size_t n, size_t *tps);
size_t clsort_radix_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                            unsigned digit_bits);
void clsort_radix_options(const radix_run *r, clsort_opts *b);
/* Whether the sort of this spec and size takes radix-hybrid (asked for, or auto's choice). */
int clsort_radix_hybrid_wanted(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                               unsigned digit_bits);
/* Set radix8_bin's arguments for the binning pass with index io (ping or pong). */
clsort_status clsort_radix_bin_args(clsort_context *ctx, const radix_run *r, unsigned io,
                                    const radix_bin_args *a);

/* ---- radix_onesweep.c, radix_rts.c: every binning pass of a sort ---- */
clsort_status clsort_radix_onesweep(clsort_context *ctx, radix_run *r);
clsort_status clsort_radix_rts(clsort_context *ctx, radix_run *r);
clsort_status clsort_radix_chains(clsort_context *ctx, radix_run *r);

/* ---- radix_hybrid.c: the buckets after onesweep's top pass (offsets: the histogram's) ---- */
clsort_status clsort_radix_hybrid(clsort_context *ctx, radix_run *r, cl_mem offsets);
size_t clsort_radix_hybrid_scratch(size_t n, size_t tile, unsigned places);

#endif
