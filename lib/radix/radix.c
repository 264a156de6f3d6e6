/*
 * LSD radix sorts (cl/radix/), the family entries: radix8 with 8-bit digits (as onesweep or
 * radix8-rts, per device or as asked) and radix4 with 4-bit ones, on the same kernels. One stable
 * binning pass per digit place of the bit range (radix8: four for 32-bit keys, eight for 64-bit
 * ones; radix4 twice as many), ping-ponging between the job's buffers and scratch buffers. After an
 * odd number of passes the result is in the scratch buffers: clsort_sort() reads it from there, a
 * caller's buffers get it copied back.
 *
 * Two ways to find each tile's global digit offsets, sharing the ranking and scatter kernel:
 * onesweep (radix_onesweep.c) and reduce-then-scan (radix_rts.c). Look-back needs running
 * work-groups to make progress while others spin; the tuning table enables it only on devices known
 * to give that (see cl/radix/base.cl for why it cannot deadlock there).
 * Calls: radix_shape.c, radix_onesweep.c, radix_rts.c, keys.c, options.c, program.c, buffers.c,
 * chain.c.
 */
#include "radix.h"

/* The parts of cl/radix/ that the run's form needs, in the order each builds on the one before
 * (cl/radix/base.cl has the list): the serial form alone, or the ranking and binning with the
 * histogram (onesweep, the chains) or the upsweep (reduce-then-scan), and the chains' and hybrid's
 * own kernels where the run takes them. The same fields choose the -D options (radix_shape.c). */
static unsigned radix_parts(const radix_run *r, clsort_cl_part *parts)
{
    unsigned n = 0;
    parts[n++] = CLSORT_CL_PART(radix_base);
    if (r->s.serial) {
        parts[n++] = CLSORT_CL_PART(radix_serial);
        return n;
    }
    parts[n++] = r->lookback ? CLSORT_CL_PART(radix_histogram) : CLSORT_CL_PART(radix_rts);
    parts[n++] = CLSORT_CL_PART(radix_ranking);
    if (r->job->varseg && r->lookback)
        parts[n++] = CLSORT_CL_PART(radix_chains);
    parts[n++] = CLSORT_CL_PART(radix_binning);
    if (r->hybrid)
        parts[n++] = CLSORT_CL_PART(radix_hybrid);
    return n;
}

/* The program, the binning kernel and the ping-pong partners. */
static clsort_status prepare(clsort_context *ctx, radix_run *r)
{
    const clsort_job *job = r->job;
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_radix_options(r, &opts);
    r->bin_name = r->s.serial ? "radix8_serial_scatter" : "radix8_bin";
    r->keys[0] = job->keys;
    r->vals[0] = job->values;
    clsort_cl_part parts[CLSORT_MAX_PARTS];
    const unsigned n_parts = radix_parts(r, parts);
    clsort_status st;
    if ((st = clsort_get_program_parts(ctx, r->fam, parts, n_parts, &opts, &r->prog)) !=
            CLSORT_OK ||
        (st = clsort_create_kernel(ctx, r->prog, r->bin_name, &r->bin_k)) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_TMP_KEYS, job->n * r->ks, &r->keys[1],
                             "radix8 key scratch")) != CLSORT_OK)
        return st;
    if (r->vs)
        st = clsort_scratch(ctx, CLSORT_SLOT_TMP_VALUES, job->n * r->vs, &r->vals[1],
                            "radix8 value scratch");
    return st;
}

/* After an odd number of passes the result is in the partners: name them (clsort_sort's own
 * buffers) or copy it back (the caller's). */
static clsort_status finish(clsort_context *ctx, radix_run *r)
{
    clsort_job *job = r->job;
    if (!(r->done_passes & 1))
        return CLSORT_OK;
    if (job->may_swap) {
        clRetainMemObject(r->keys[1]);
        job->result_keys = r->keys[1];
        if (r->vs) {
            clRetainMemObject(r->vals[1]);
            job->result_values = r->vals[1];
        }
        return CLSORT_OK;
    }
    clsort_status st = clsort_copy(ctx, r->keys[1], job->keys, job->n * r->ks);
    if (st == CLSORT_OK && r->vs)
        st = clsort_copy(ctx, r->vals[1], job->values, job->n * r->vs);
    return st;
}

static clsort_status lsd_enqueue(clsort_context *ctx, clsort_job *job, unsigned digit_bits)
{
    radix_run r = { .job = job, .digit_bits = digit_bits, .bins = 1u << digit_bits,
                    .fam = digit_bits == 8 ? "radix8" : "radix4",
                    .vs = job->spec->value_size, .ks = clsort_key_size(job->spec->key_type) };
    unsigned end;
    clsort_key_range(job->spec, &r.begin, &end);
    r.places = clsort_radix_places(job->spec, digit_bits);
    /* Variable segments: tiles within segments, a look-back chain each or offsets from the
     * scanned table. */
    r.lookback = job->varseg ? job->varseg->chains : clsort_radix_lookback(ctx, job->spec);
    r.s = clsort_radix_shape(ctx, digit_bits, r.ks, r.vs, job->n, r.lookback);
    r.hybrid = !job->varseg && clsort_radix_hybrid_wanted(ctx, job->spec, job->n, digit_bits);
    const size_t local = clsort_radix_local_bytes(&r.s, r.ks, r.vs);
    if (local > ctx->local_mem)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "%s needs %zu bytes of local memory; %s has %llu", r.fam, local,
                           ctx->display_name, (unsigned long long)ctx->local_mem);
    clsort_status st = prepare(ctx, &r);
    /* The short segments, which the passes do not touch, go from the job's buffers to those that
     * will hold the result (the reduce-then-scan passes run every place), before a copy back takes
     * the whole result buffer. First: the device sorts them while the host enqueues the passes
     * (about 7 us a command on NVIDIA, 20 commands for 4 places); after the passes, a call whose
     * segments were all short had the device wait on those enqueues (H100, 2^22 u32 keys in
     * segments of 129 to 4,096 keys: 0.39 -> 0.28-0.30 ms). */
    if (st == CLSORT_OK && job->varseg) {
        const unsigned io = r.places & 1;
        st = job->varseg->short_sort(ctx, job, r.keys[io], r.vs ? r.vals[io] : NULL);
    }
    if (st == CLSORT_OK)
        st = !r.lookback ? clsort_radix_rts(ctx, &r)
             : job->varseg ? clsort_radix_chains(ctx, &r)
                           : clsort_radix_onesweep(ctx, &r);
    if (st == CLSORT_OK)
        st = finish(ctx, &r);
    /* Releasing now is safe: OpenCL keeps objects alive until the commands using them finish. */
    if (r.bin_k)
        clReleaseKernel(r.bin_k);
    clsort_release_mems(&r.keys[1], 1);
    clsort_release_mems(&r.vals[1], 1);
    return st;
}

clsort_status clsort_radix8_enqueue(clsort_context *ctx, clsort_job *job)
{
    return lsd_enqueue(ctx, job, 8);
}

clsort_status clsort_radix4_enqueue(clsort_context *ctx, clsort_job *job)
{
    return lsd_enqueue(ctx, job, 4);
}

size_t clsort_radix8_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    return clsort_radix_scratch(ctx, spec, n, 8);
}

size_t clsort_radix4_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    return clsort_radix_scratch(ctx, spec, n, 4);
}

/* Look-back chains for variable segments where the device runs look-back, in whole bytes (the
 * segments' counts are of bytes), and for fewer than 2^30 keys (a status word's count: a segment's
 * keys). */
int clsort_radix8_varseg_chains(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    if (n >= ((size_t)1 << 30) || !clsort_radix_lookback(ctx, spec))
        return 0;
    const radix_shape s =
        clsort_radix_shape(ctx, 8, clsort_key_size(spec->key_type), spec->value_size, n, 1);
    return !s.serial;
}

size_t clsort_radix8_varseg_tile(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    return clsort_radix_shape(ctx, 8, clsort_key_size(spec->key_type), spec->value_size, n,
                              clsort_radix8_varseg_chains(ctx, spec, n))
        .tile;
}

clsort_algorithm clsort_radix8_variant(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    if (clsort_radix_hybrid_wanted(ctx, spec, n, 8))
        return CLSORT_ALGO_RADIX_HYBRID;
    return clsort_radix_lookback(ctx, spec) ? CLSORT_ALGO_ONESWEEP : CLSORT_ALGO_RADIX8_RTS;
}
