/*
 * Dispatch: the table of algorithm families (names and ids, what each takes, scratch size, limits,
 * enqueue, the variant it runs as), `auto`'s choice from it, the checks made before any work, and
 * running a job as one chain of commands.
 * Calls: the families (host_family.c, radix.c, bitonic.c, oddeven.c; segments.c, also for radix8's
 * small sorts), index.c, keys.c, chain.c, status.c.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ALL_KEY_TYPES ((1u << (CLSORT_KEY_F64 + 1)) - 1)
#define ALL_VALUE_SIZES ((1u << 0) | (1u << 4) | (1u << 8)) /* bit per size in bytes */
#define ID(a) (1u << (a))

/* Segments longer than this go to radix8 under auto. */
#define AUTO_RADIX_SEGMENT 32768

typedef struct clsort_family {
    const char *name;
    unsigned ids;         /* ID() of each algorithm it runs */
    unsigned segment_ids; /* ... of those that sort segments */
    unsigned key_types;   /* bit per clsort_key_type it sorts */
    unsigned value_sizes; /* bit per value size in bytes */
    size_t (*scratch)(const clsort_context *, const clsort_spec *, size_t n); /* NULL: in place */
    /* NULL: no limit; else the limit on n (more: the input holds more than n) and the largest n it
     * lets pass */
    clsort_status (*check)(clsort_context *, const clsort_spec *, size_t n, int more);
    size_t (*max_n)(const clsort_spec *);
    /* keys a warm-up sort takes to launch every kernel of larger sorts; NULL: 2^16 */
    size_t (*warm_n)(clsort_context *, const clsort_spec *);
    clsort_status (*enqueue)(clsort_context *, clsort_job *);
    clsort_algorithm (*variant)(const clsort_context *, const clsort_spec *, size_t n); /* NULL: as asked */
    /* What `auto` runs when it picks the family (0: never), for whole arrays and for segments of
     * more than auto_segment_above keys and up to auto_segment_upto. */
    clsort_algorithm auto_id;
    int auto_whole;
    size_t auto_segment_above, auto_segment_upto;
    int unstable; /* auto takes it only where the order among equal keys cannot be seen */
    int (*auto_device)(const clsort_context *); /* NULL: auto takes it on any device */
} clsort_family;

/* The host's threads sort faster than the device's kernels where the device is the host's own
 * cores: shared 2-core EPYC with PoCL, bench_radix run wall time, medians of 7 alternated runs:
 * 2^24 u32 keys host-radix 37.1 ms, radix8 88.4 ms (load ~1.3); 68.6, 198.7 (load ~4). Not at
 * every size: at 2^20, 2.69 ms against radix8's 1.78 (load ~1.3), 2.72 against 3.41 (load ~4).
 * Segments too (host_segments.c), same machine under load ~3, two rounds: fixed segments of 2^24
 * u32 keys (`clsort --segment N --stats`, kernel time), host-radix against what auto took before:
 * N = 256 keys 264-304 ms against bitonic's 567-588, pairs 382-392 against radix8-rts's
 * 1122-1232; 4096 keys 173 / 916, pairs 291-336 / 519-531; 65536 keys 155-196 / 254-258, pairs
 * 261-387 / 389-441; 2^20 keys 251-263 / 224-257, pairs 307-540 / 371-576. Variable segments
 * (bench_segments --reps 5 22, 2^22 keys, wall ms, host-radix / radix8): mixed 63.7 / 102.7,
 * 2^16 short ones 56.7 / 942.8, medium (~2K keys) 37.5 / 193.5, 7 long 37.9 / 36.4. */
static int cpu_device(const clsort_context *ctx)
{
    return clsort_device_is_host_cores(ctx->type) && ctx->host_unified;
}

/*
 * The first family auto accepts for a spec wins. Batched segments: bitonic sorts a whole batch of
 * short segments in one tile pass; long ones take radix8 (where it runs look-back, as variable
 * segments: segments.c; else reduce-then-scan, tiles within segments).
 * Bitonic is not stable, so auto takes it only for keys without values compared on every bit, where
 * equal keys are bit-identical; with values or a bit range, segments take radix8 too.
 * On an H100, 2^24 keys in all, GKey/s bitonic / radix8: segments of 4096 57.3 / 14.0, 16384 29.7 /
 * 23.1, 65536 20.0 / 22.9.
 */
static const clsort_family families[] = {
    {
        .name = "host-radix",
        .ids = ID(CLSORT_ALGO_HOST_RADIX),
        .segment_ids = ID(CLSORT_ALGO_HOST_RADIX),
        .key_types = ALL_KEY_TYPES,
        .value_sizes = ALL_VALUE_SIZES,
        .scratch = clsort_host_radix_scratch,
        .enqueue = clsort_host_radix_enqueue,
        .auto_id = CLSORT_ALGO_HOST_RADIX,
        .auto_whole = 1,
        .auto_segment_upto = SIZE_MAX,
        .auto_device = cpu_device,
    },
    {
        .name = "radix8",
        .ids = ID(CLSORT_ALGO_RADIX8) | ID(CLSORT_ALGO_ONESWEEP) | ID(CLSORT_ALGO_RADIX8_RTS) |
               ID(CLSORT_ALGO_RADIX_HYBRID),
        .segment_ids = ID(CLSORT_ALGO_RADIX8) | ID(CLSORT_ALGO_RADIX8_RTS),
        .key_types = ALL_KEY_TYPES,
        .value_sizes = ALL_VALUE_SIZES,
        .scratch = clsort_radix8_scratch,
        .enqueue = clsort_radix8_enqueue,
        .variant = clsort_radix8_variant,
        .auto_id = CLSORT_ALGO_RADIX8,
        .auto_whole = 1,
        .auto_segment_above = AUTO_RADIX_SEGMENT,
        .auto_segment_upto = SIZE_MAX,
    },
    {
        .name = "radix4",
        .ids = ID(CLSORT_ALGO_RADIX4),
        .key_types = ALL_KEY_TYPES,
        .value_sizes = ALL_VALUE_SIZES,
        .scratch = clsort_radix4_scratch,
        .enqueue = clsort_radix4_enqueue,
    },
    {
        .name = "bitonic",
        .ids = ID(CLSORT_ALGO_BITONIC),
        .segment_ids = ID(CLSORT_ALGO_BITONIC),
        .key_types = ALL_KEY_TYPES,
        .value_sizes = ALL_VALUE_SIZES,
        .enqueue = clsort_bitonic_enqueue,
        .auto_id = CLSORT_ALGO_BITONIC,
        .auto_segment_upto = AUTO_RADIX_SEGMENT,
        .unstable = 1,
    },
    {
        .name = "oddeven",
        .ids = ID(CLSORT_ALGO_ODDEVEN),
        .segment_ids = ID(CLSORT_ALGO_ODDEVEN),
        .key_types = ALL_KEY_TYPES,
        .value_sizes = ALL_VALUE_SIZES,
        .check = clsort_oddeven_check,
        .max_n = clsort_oddeven_max_n,
        .warm_n = clsort_oddeven_warm_n, /* its sorts grow as n^2: 2^16 keys took seconds on PoCL */
        .enqueue = clsort_oddeven_enqueue,
        .unstable = 1,
    },
};
#define N_FAMILIES (sizeof families / sizeof families[0])

static const char *const algo_names[] = {
    [CLSORT_ALGO_AUTO] = "auto",
    [CLSORT_ALGO_RADIX4] = "radix4",
    [CLSORT_ALGO_RADIX8] = "radix8",
    [CLSORT_ALGO_ONESWEEP] = "onesweep",
    [CLSORT_ALGO_RADIX8_RTS] = "radix8-rts",
    [CLSORT_ALGO_BITONIC] = "bitonic",
    [CLSORT_ALGO_ODDEVEN] = "oddeven",
    [CLSORT_ALGO_HOST_RADIX] = "host-radix",
    [CLSORT_ALGO_RADIX_HYBRID] = "radix-hybrid",
};
#define N_ALGOS (sizeof algo_names / sizeof algo_names[0])

const char *clsort_algorithm_name(clsort_algorithm a)
{
    return (unsigned)a < N_ALGOS && algo_names[a] ? algo_names[a] : NULL;
}

clsort_status clsort_algorithm_from_name(const char *name, clsort_algorithm *out)
{
    if (!name || !out)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < N_ALGOS; i++)
        if (algo_names[i] && !strcmp(name, algo_names[i])) {
            *out = (clsort_algorithm)i;
            return CLSORT_OK;
        }
    return CLSORT_ERROR_INVALID_ARGUMENT;
}

static clsort_algorithm resolve(const clsort_context *ctx, const clsort_spec *spec);
static const clsort_family *family_of(clsort_algorithm a);

/* Whether the algorithm that a spec runs keeps equal keys in their input order. */
int clsort_dispatch_stable(const clsort_context *ctx, const clsort_spec *spec)
{
    return !family_of(resolve(ctx, spec))->unstable;
}

static int auto_takes(const clsort_context *ctx, const clsort_family *f, const clsort_spec *spec)
{
    if (!f->auto_id || (f->auto_device && !f->auto_device(ctx)))
        return 0;
    if (f->unstable && (spec->value_size || !clsort_key_full_range(spec)))
        return 0;
    if (!spec->segment)
        return f->auto_whole;
    return spec->segment > f->auto_segment_above && spec->segment <= f->auto_segment_upto;
}

/* The algorithm asked for, or auto's choice for the context's device. */
static clsort_algorithm resolve(const clsort_context *ctx, const clsort_spec *spec)
{
    if (spec->algorithm != CLSORT_ALGO_AUTO)
        return spec->algorithm;
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (auto_takes(ctx, &families[i], spec))
            return families[i].auto_id;
    return CLSORT_ALGO_RADIX8; /* stable, sorts everything */
}

/* The family of a known algorithm (checked by clsort_dispatch_check_spec). */
static const clsort_family *family_of(clsort_algorithm a)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].ids & ID(a))
            return &families[i];
    return &families[0];
}

clsort_algorithm clsort_dispatch_ran(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const clsort_algorithm a = resolve(ctx, spec);
    /* fixed segments that radix8 sorts as variable ones: its long segments by look-back */
    if (a == CLSORT_ALGO_RADIX8 && clsort_segments_fixed_wanted(ctx, spec, n))
        return CLSORT_ALGO_ONESWEEP;
    const clsort_family *f = family_of(a);
    return f->variant ? f->variant(ctx, spec, n) : a;
}

clsort_algorithm clsort_dispatch_ran_host(const clsort_context *ctx, const clsort_spec *spec,
                                          size_t n)
{
    const size_t per = clsort_key_size(spec->key_type) + spec->value_size;
    if (spec->algorithm == CLSORT_ALGO_AUTO && n <= clsort_host_radix_small_bytes(ctx) / per)
        return CLSORT_ALGO_HOST_RADIX;
    return clsort_dispatch_ran(ctx, spec, n);
}

static clsort_status check_family(clsort_context *ctx, const clsort_spec *spec, const char *type)
{
    const clsort_algorithm a = resolve(ctx, spec);
    const clsort_family *f = family_of(a);
    if (spec->segment && !(f->segment_ids & ID(a)))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s does not sort segments (segment = %zu): use radix8, radix8-rts, "
                           "host-radix, bitonic, oddeven or auto",
                           clsort_algorithm_name(spec->algorithm), spec->segment);
    if (!(f->key_types & (1u << spec->key_type)) || !(f->value_sizes & (1u << spec->value_size)))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s cannot sort %s keys with %zu-byte values; radix4 (or auto) sorts "
                           "every key type and value size",
                           clsort_algorithm_name(a), type, spec->value_size);
    if (f->unstable && spec->value_size && clsort_float_numpy(spec))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s is not stable: in numpy's float order (float_order %d) it sorts keys "
                           "without values only; radix8, radix4, host-radix or auto sort values",
                           clsort_algorithm_name(a), (int)spec->float_order);
    return CLSORT_OK;
}

clsort_status clsort_dispatch_check_spec(clsort_context *ctx, const clsort_spec *spec)
{
    const char *type = clsort_key_type_name(spec->key_type);
    if (!type)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "unknown key type %d",
                           (int)spec->key_type);
    if (spec->value_size != 0 && spec->value_size != 4 && spec->value_size != 8)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "value size %zu is not supported: use 0 (keys only), 4 or 8", spec->value_size);
    if (!clsort_algorithm_name(spec->algorithm))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "unknown algorithm %d",
                           (int)spec->algorithm);
    if (spec->float_order != CLSORT_FLOAT_TOTAL && spec->float_order != CLSORT_FLOAT_NUMPY)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "unknown float order %d: expected %d (IEEE total order) or %d (numpy's)",
                           (int)spec->float_order, (int)CLSORT_FLOAT_TOTAL, (int)CLSORT_FLOAT_NUMPY);
    unsigned begin, end, width = clsort_key_width(spec->key_type);
    clsort_key_range(spec, &begin, &end);
    if (begin >= end || end > width)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "bit range %u:%u is not valid for %s keys: expected 0 <= begin < end <= %u",
                           spec->begin_bit, spec->end_bit, type, width);
    return check_family(ctx, spec, type);
}

clsort_status clsort_dispatch_check_limits(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const clsort_family *f = family_of(resolve(ctx, spec));
    return f->check ? f->check(ctx, spec, n, 0) : CLSORT_OK;
}

size_t clsort_dispatch_max_n(const clsort_context *ctx, const clsort_spec *spec)
{
    const clsort_family *f = family_of(resolve(ctx, spec));
    return f->max_n ? f->max_n(spec) : SIZE_MAX;
}

size_t clsort_dispatch_warm_n(clsort_context *ctx, const clsort_spec *spec)
{
    const clsort_family *f = family_of(resolve(ctx, spec));
    return f->warm_n ? f->warm_n(ctx, spec) : 65536;
}

clsort_status clsort_dispatch_refuse_past_limit(clsort_context *ctx, const clsort_spec *spec)
{
    const clsort_family *f = family_of(resolve(ctx, spec));
    return f->check && f->max_n ? f->check(ctx, spec, f->max_n(spec), 1) : CLSORT_OK;
}

double clsort_dispatch_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const clsort_algorithm a = resolve(ctx, spec);
    const clsort_family *f = family_of(a);
    const double fix = a == CLSORT_ALGO_HOST_RADIX ? 0.0 : (double)clsort_float_fix_scratch(spec, n);
    return (f->scratch ? (double)f->scratch(ctx, spec, n) : 0.0) + fix;
}

clsort_status clsort_dispatch_check_fits(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                         int with_data)
{
    const size_t ks = clsort_key_size(spec->key_type), per_key = ks + spec->value_size;
    const size_t widest = spec->value_size > ks ? spec->value_size : ks;
    if (n > ctx->max_alloc / widest)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu keys need a buffer of %.3g GB; the largest buffer %s allows is %.3g GB "
                           "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           n, (double)n * widest / 1e9, ctx->display_name, (double)ctx->max_alloc / 1e9);
    double need = clsort_dispatch_scratch(ctx, spec, n) + (with_data ? (double)n * per_key : 0.0);
    if (need > (double)ctx->global_mem)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "sorting %zu keys needs %.3g GB of device memory; %s has %.3g GB", n,
                           need / 1e9, ctx->display_name, (double)ctx->global_mem / 1e9);
    return CLSORT_OK;
}

clsort_status clsort_dispatch_check_segments(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                             size_t n_seg, int with_data)
{
    const clsort_algorithm a = spec->algorithm;
    if (spec->segment)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "segment offsets and a fixed segment length (segment = %zu) exclude "
                           "each other: set segment to 0", spec->segment);
    if (a != CLSORT_ALGO_AUTO && a != CLSORT_ALGO_RADIX8 && a != CLSORT_ALGO_RADIX8_RTS &&
        a != CLSORT_ALGO_ONESWEEP && a != CLSORT_ALGO_HOST_RADIX)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s does not sort segments given by offsets: use auto, radix8, "
                           "radix8-rts, onesweep or host-radix (stable)",
                           clsort_algorithm_name(a));
    const size_t ks = clsort_key_size(spec->key_type);
    const size_t widest = spec->value_size > ks ? spec->value_size : ks;
    if (n > ctx->max_alloc / widest || n_seg >= ctx->max_alloc / 16)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu keys in %zu segments need buffers larger than the largest %s "
                           "allows (%.3g GB, CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           n, n_seg, ctx->display_name, (double)ctx->max_alloc / 1e9);
    const double fix = resolve(ctx, spec) == CLSORT_ALGO_HOST_RADIX
                           ? 0.0 : (double)clsort_float_fix_scratch(spec, n);
    const double need = clsort_segments_scratch(ctx, spec, n, n_seg) + fix +
                        (with_data ? (double)n * (ks + spec->value_size) + 8.0 * (n_seg + 1) : 0);
    if (need > (double)ctx->global_mem)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "sorting %zu keys in %zu segments needs %.3g GB of device memory; %s "
                           "has %.3g GB", n, n_seg, need / 1e9, ctx->display_name,
                           (double)ctx->global_mem / 1e9);
    return CLSORT_OK;
}

/* Bisection: the scratch grows with n. */
int clsort_dispatch_max_fit(clsort_context *ctx, const clsort_spec *spec, size_t *chunk)
{
    size_t lo = 0, hi = (size_t)(ctx->max_alloc / clsort_key_size(spec->key_type)) + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (clsort_dispatch_check_fits(ctx, spec, mid, 1) == CLSORT_OK)
            lo = mid;
        else
            hi = mid;
    }
    if (!*chunk || lo < *chunk)
        *chunk = lo;
    return *chunk >= 2;
}

clsort_status clsort_dispatch(clsort_context *ctx, clsort_job *job, cl_uint n_wait,
                              const cl_event *wait)
{
    clsort_chain_begin(ctx, n_wait, wait);
    ctx->chain_no_start = job->no_start;
    clsort_status st = CLSORT_OK;
    if (job->index_values && job->n)
        st = clsort_index_fill(ctx, job->values, job->spec->value_size, job->n);
    if (st == CLSORT_OK && job->n > 1) {
        const clsort_algorithm a = resolve(ctx, job->spec);
        /* radix8's small whole arrays: one work-group, one launch (not onesweep or radix8-rts by
         * name: those run their own passes at every size) */
        const int one_tile = !job->varseg && a == CLSORT_ALGO_RADIX8 &&
                             clsort_segment_length(job->spec, job->n) == job->n &&
                             clsort_single_tile_fits(ctx, job->spec, job->n);
        /* fixed segments that radix8 sorts as variable ones (segments.c) */
        const int as_var = !job->varseg && a == CLSORT_ALGO_RADIX8 &&
                           clsort_segments_fixed_wanted(ctx, job->spec, job->n);
        /* numpy's float order: host-radix reads it where it reads a digit; the device families
         * sort a canonical form, the zeros and NaNs saved and put back (keys.c) */
        clsort_float_fix fix = { 0 };
        const int fixed = a != CLSORT_ALGO_HOST_RADIX && clsort_float_numpy(job->spec);
        if (fixed)
            st = clsort_float_fix_save(ctx, job->spec, job->keys, job->n, &fix);
        if (st == CLSORT_OK)
            st = job->varseg && a != CLSORT_ALGO_HOST_RADIX ? clsort_segments_enqueue(ctx, job)
                 : as_var                                    ? clsort_segments_fixed_enqueue(ctx, job)
                 : one_tile                                  ? clsort_single_tile_enqueue(ctx, job)
                                                             : family_of(a)->enqueue(ctx, job);
        if (fixed && st == CLSORT_OK)
            st = clsort_float_fix_restore(ctx, job->spec,
                                          job->result_keys ? job->result_keys : job->keys, job->n,
                                          &fix);
        clsort_float_fix_release(&fix);
    }
    /* An end marker costs a command (H100: ~8 us of host time and the wait for one more command):
     * only where an event is wanted or the queue does not order the chain. Nothing to do: a marker
     * still gives the caller an event that follows its wait list. */
    const int want_end = !job->no_event || ctx->out_of_order;
    if (st == CLSORT_OK && want_end)
        st = clsort_chain_settle(ctx);
    if (st == CLSORT_OK && want_end && !ctx->last_event)
        st = clsort_chain_marker(ctx);
    if (st != CLSORT_OK) {
        /* Let what was enqueued drain before the caller reuses its buffers. */
        clFinish(ctx->queue);
        clsort_chain_drop(ctx);
    }
    return st;
}
