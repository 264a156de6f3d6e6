/*
 * Odd-even transposition sort (cl/oddeven.cl), in place. Not stable.
 *
 * Segments of up to a tile are packed into work-groups and sorted in local memory. Longer arrays or
 * segments go through blocks of half a tile: a block sort, then one merge-split phase per block
 * (alternating even and odd neighbour pairs), which sorts since a short last block behaves like a
 * full one padded with keys larger than any other. The cost is O(S²) per segment of S keys, hence
 * CLSORT_ODDEVEN_MAX_KEYS.
 */
#include "internal.h"

#include <stdio.h>

clsort_status clsort_oddeven_check(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const size_t seg = clsort_segment_length(spec, n);
    if (seg > CLSORT_ODDEVEN_MAX_KEYS && !spec->allow_quadratic)
        return clsort_fail(ctx, CLSORT_ERROR_LIMIT,
                           "oddeven sorts at most %d keys per array or segment (its cost grows as n^2); "
                           "%s has %zu: use radix8 (or bitonic), or allow it explicitly "
                           "(allow_quadratic, clsort --force)",
                           CLSORT_ODDEVEN_MAX_KEYS, spec->segment ? "a segment" : "the input", seg);
    return CLSORT_OK;
}

clsort_status clsort_oddeven_enqueue(clsort_context *ctx, const clsort_job *job)
{
    const size_t vs = job->spec->value_size;
    const size_t seg = clsort_segment_length(job->spec, job->n);
    if (seg < 2)
        return CLSORT_OK;
    clsort_sort_shape_t s;
    if (clsort_sort_shape(ctx, job->spec, 0, &s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE, "oddeven: %s has too little local memory",
                           ctx->display_name);

    char opts[320];
    int olen = snprintf(opts, sizeof opts, "-DWG=%u -DITEMS=%u ", s.wg, s.items);
    clsort_sort_key_options(job->spec, opts + olen, sizeof opts - (size_t)olen);
    const char *src[] = { clsort_cl_common, clsort_cl_oddeven };
    const size_t len[] = { clsort_cl_common_len, clsort_cl_oddeven_len };
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "oddeven", src, len, 2, opts, &prog);
    if (st != CLSORT_OK)
        return st;

    const cl_ulong n = job->n, seg_len = seg, nseg = (job->n + seg - 1) / seg;
    const cl_mem keys = job->keys, vals = job->values;
    cl_kernel k = NULL;
#define SET_ARGS(name, extra, ...)                                                                   \
    (vs ? clsort_set_args(ctx, k, name, 4 + (extra), ARG(keys), ARG(vals), ARG(n), ARG(seg_len),     \
                          __VA_ARGS__)                                                               \
        : clsort_set_args(ctx, k, name, 3 + (extra), ARG(keys), ARG(n), ARG(seg_len), __VA_ARGS__))
    if (seg <= s.tile) {
        const cl_uint spg = (cl_uint)(s.tile / seg);
        const size_t groups = (size_t)((nseg + spg - 1) / spg);
        if ((st = clsort_create_kernel(ctx, prog, "oddeven_tile", &k)) == CLSORT_OK &&
            (st = SET_ARGS("oddeven_tile", 1, ARG(spg))) == CLSORT_OK)
            st = clsort_launch(ctx, k, groups * s.wg, s.wg);
    } else if ((st = clsort_create_kernel(ctx, prog, "oddeven_block", &k)) == CLSORT_OK) {
        const cl_ulong blk = s.tile / 2, blocks = (seg + blk - 1) / blk;
        cl_uint span = 1, parity = 0;
        cl_ulong gps = blocks;
        st = SET_ARGS("oddeven_block", 4, ARG(blk), ARG(span), ARG(parity), ARG(gps));
        if (st == CLSORT_OK)
            st = clsort_launch(ctx, k, (size_t)(nseg * gps) * s.wg, s.wg);
        span = 2;
        gps = (blocks + 1) / 2;
        for (cl_ulong phase = 0; phase < blocks && st == CLSORT_OK; phase++) {
            parity = (cl_uint)(phase & 1);
            if ((st = SET_ARGS("oddeven_block", 4, ARG(blk), ARG(span), ARG(parity), ARG(gps))) ==
                CLSORT_OK)
                st = clsort_launch(ctx, k, (size_t)(nseg * gps) * s.wg, s.wg);
        }
    }
#undef SET_ARGS
    if (k)
        clReleaseKernel(k);
    return st;
}
