/*
 * 4-bit LSD radix sort (cl/radix4.cl): one pass per 4-bit digit of the key's bit range (8 for a whole
 * 32-bit key, 16 for a 64-bit one), each a tile histogram, a scan of the digit-major count table and a
 * stable scatter, ping-ponging between the caller's buffers and scratch buffers of the same size. An
 * odd number of passes ends with a copy back into the caller's buffers.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#define RADIX4_BITS 4
#define RADIX4_RADIX (1u << RADIX4_BITS)

typedef struct radix4_shape {
    unsigned wg, items;
    size_t tile;
} radix4_shape;

/* Local memory of the scatter kernel, the larger of the two. */
static size_t local_bytes(unsigned wg, unsigned items, size_t key_size, size_t value_size)
{
    size_t tile = (size_t)wg * items;
    /* The counter table has a spare word per 32 (RANK_AT in cl/common.cl). */
    return (RADIX4_RADIX * wg * 33 / 32 + 1 + wg) * 4 + tile * (key_size + value_size) +
           RADIX4_RADIX * 12;
}

/* The table's shape, shrunk where the device has less local memory or smaller work-groups. */
static radix4_shape shape_for(const clsort_context *ctx, const clsort_spec *spec)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    radix4_shape s = { ctx->tuning.radix4_wg, ctx->tuning.radix4_items, 0 };
    /* For tuning runs (powers of two). */
    const char *e;
    if ((e = getenv("CLSORT_RADIX4_WG")) && atoi(e) >= (int)RADIX4_RADIX &&
        !(atoi(e) & (atoi(e) - 1)))
        s.wg = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX4_ITEMS")) && atoi(e) > 0 && !(atoi(e) & (atoi(e) - 1)))
        s.items = (unsigned)atoi(e);
    while (s.wg > RADIX4_RADIX && s.wg > ctx->max_wg)
        s.wg /= 2;
    while (local_bytes(s.wg, s.items, ks, vs) > ctx->local_mem && s.items > 1)
        s.items /= 2;
    while (local_bytes(s.wg, s.items, ks, vs) > ctx->local_mem && s.wg > RADIX4_RADIX)
        s.wg /= 2;
    s.tile = (size_t)s.wg * s.items;
    return s;
}

size_t clsort_radix4_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    radix4_shape s = shape_for(ctx, spec);
    size_t tiles = (n + s.tile - 1) / s.tile;
    return n * (clsort_key_size(spec->key_type) + spec->value_size) +
           RADIX4_RADIX * tiles * sizeof(cl_ulong) + clsort_scan_scratch(ctx, RADIX4_RADIX * tiles);
}

clsort_status clsort_radix4_enqueue(clsort_context *ctx, const clsort_job *job)
{
    const clsort_spec *spec = job->spec;
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    radix4_shape s = shape_for(ctx, spec);
    if (local_bytes(s.wg, s.items, ks, vs) > ctx->local_mem)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "radix4 needs %zu bytes of local memory; %s has %llu",
                           local_bytes(s.wg, s.items, ks, vs), ctx->display_name,
                           (unsigned long long)ctx->local_mem);

    char opts[256];
    int len = snprintf(opts, sizeof opts, "-DWG=%u -DITEMS=%u -DRADIX=%u -DHAS_VALUES=%d -DVALUE_T=%s ",
                       s.wg, s.items, RADIX4_RADIX, vs ? 1 : 0, vs == 8 ? "ulong" : "uint");
    clsort_key_options(spec, opts + len, sizeof opts - (size_t)len);
    const char *src[] = { clsort_cl_common, clsort_cl_radix4 };
    const size_t lens[] = { clsort_cl_common_len, clsort_cl_radix4_len };
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "radix4", src, lens, 2, opts, &prog);
    if (st != CLSORT_OK)
        return st;

    unsigned begin, end;
    clsort_key_range(spec, &begin, &end);
    const unsigned passes = (end - begin + RADIX4_BITS - 1) / RADIX4_BITS;
    const cl_ulong n = job->n;
    const cl_ulong tiles = (job->n + s.tile - 1) / s.tile;
    cl_kernel hist_k = NULL, scatter_k = NULL;
    cl_mem tmp_keys = NULL, tmp_vals = NULL, hist = NULL;
    clsort_scan scan = { 0 };

    if ((st = clsort_create_kernel(ctx, prog, "radix4_histogram", &hist_k)) != CLSORT_OK ||
        (st = clsort_create_kernel(ctx, prog, "radix4_scatter", &scatter_k)) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_TMP_KEYS, job->n * ks, &tmp_keys,
                             "radix4 key scratch")) != CLSORT_OK ||
        (vs && (st = clsort_scratch(ctx, CLSORT_SLOT_TMP_VALUES, job->n * vs, &tmp_vals,
                                    "radix4 value scratch")) != CLSORT_OK) ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_WORK, RADIX4_RADIX * tiles * sizeof(cl_ulong), &hist,
                             "radix4 histogram")) != CLSORT_OK ||
        (st = clsort_scan_init(ctx, &scan, RADIX4_RADIX * tiles)) != CLSORT_OK)
        goto done;

    cl_mem keys[2] = { job->keys, tmp_keys }, vals[2] = { job->values, tmp_vals };
    for (unsigned pass = 0; pass < passes; pass++) {
        const cl_uint shift = begin + pass * RADIX4_BITS;
        const cl_uint width = end - shift < RADIX4_BITS ? end - shift : RADIX4_BITS;
        const cl_uint mask = (1u << width) - 1;
        cl_mem kin = keys[pass & 1], kout = keys[(pass + 1) & 1];
        cl_mem vin = vals[pass & 1], vout = vals[(pass + 1) & 1];
        if ((st = clsort_set_args(ctx, hist_k, "radix4_histogram", 6, ARG(kin), ARG(n), ARG(shift),
                                  ARG(mask), ARG(hist), ARG(tiles))) != CLSORT_OK ||
            (st = clsort_launch(ctx, hist_k, tiles * s.wg, s.wg)) != CLSORT_OK)
            goto done;
        clsort_profile_last(ctx, "radix4", "histogram", pass);
        if ((st = clsort_scan_enqueue(ctx, &scan, hist, RADIX4_RADIX * tiles)) != CLSORT_OK)
            goto done;
        if (vs)
            st = clsort_set_args(ctx, scatter_k, "radix4_scatter", 9, ARG(kin), ARG(kout), ARG(vin),
                                 ARG(vout), ARG(n), ARG(shift), ARG(mask), ARG(hist), ARG(tiles));
        else
            st = clsort_set_args(ctx, scatter_k, "radix4_scatter", 7, ARG(kin), ARG(kout), ARG(n),
                                 ARG(shift), ARG(mask), ARG(hist), ARG(tiles));
        if (st != CLSORT_OK || (st = clsort_launch(ctx, scatter_k, tiles * s.wg, s.wg)) != CLSORT_OK)
            goto done;
        clsort_profile_last(ctx, "radix4", "scatter", pass);
    }
    /* An odd number of passes left the result in the scratch buffers. */
    if (passes & 1) {
        if ((st = clsort_copy(ctx, tmp_keys, job->keys, job->n * ks)) != CLSORT_OK ||
            (vs && (st = clsort_copy(ctx, tmp_vals, job->values, job->n * vs)) != CLSORT_OK))
            goto done;
    }

done:
    /* Releasing now is safe: OpenCL keeps objects alive until the commands using them finish. */
    clsort_scan_release(&scan);
    if (hist_k)
        clReleaseKernel(hist_k);
    if (scatter_k)
        clReleaseKernel(scatter_k);
    if (tmp_keys)
        clReleaseMemObject(tmp_keys);
    if (tmp_vals)
        clReleaseMemObject(tmp_vals);
    if (hist)
        clReleaseMemObject(hist);
    return st;
}
