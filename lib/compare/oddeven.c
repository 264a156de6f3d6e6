/*
 * Odd-even transposition sort (cl/oddeven.cl), in place. Not stable.
 *
 * Segments of up to a tile are packed into work-groups and sorted in local memory. Longer arrays or
 * segments go through blocks of half a tile: a block sort, then one merge-split phase per block
 * (alternating even and odd neighbour pairs), which sorts since a short last block behaves like a
 * full one padded with keys larger than any other. The cost is O(S²) per segment of S keys, hence
 * CLSORT_ODDEVEN_MAX_KEYS. Keys arrive mapped to unsigned order bits (compare.c).
 * Calls: compare.c (shape, key options, mapping), keys.c, options.c, program.c, chain.c.
 */
#include "internal.h"

size_t clsort_oddeven_max_n(const clsort_spec *spec)
{
    return spec->allow_quadratic || (spec->segment && spec->segment <= CLSORT_ODDEVEN_MAX_KEYS)
               ? SIZE_MAX
               : CLSORT_ODDEVEN_MAX_KEYS;
}

clsort_status clsort_oddeven_check(clsort_context *ctx, const clsort_spec *spec, size_t n, int more)
{
    const size_t seg = clsort_segment_length(spec, n);
    if ((seg > CLSORT_ODDEVEN_MAX_KEYS || more) && !spec->allow_quadratic)
        return clsort_fail(ctx, CLSORT_ERROR_LIMIT,
                           "oddeven sorts at most %d keys per array or segment (its cost grows as n^2); "
                           "%s has %s%zu: use radix8 (or bitonic), or allow it explicitly "
                           "(allow_quadratic, clsort --force)",
                           CLSORT_ODDEVEN_MAX_KEYS, spec->segment ? "a segment" : "the input",
                           more ? "more than " : "", seg);
    return CLSORT_OK;
}

size_t clsort_oddeven_warm_n(clsort_context *ctx, const clsort_spec *spec)
{
    clsort_tile_shape s;
    return clsort_tile_shape_for(ctx, spec, CLSORT_SHAPE_ODDEVEN, &s) == CLSORT_OK ? s.tile + 1
                                                                                   : 2;
}

/* oddeven_block's own arguments, after the common ones (keys, values, n, seg_len) up to at. */
static clsort_status block_args(clsort_context *ctx, cl_kernel k, const char *name, int at,
                                cl_ulong blk, cl_uint span, cl_uint parity, cl_ulong gps)
{
    return clsort_set_args_at(ctx, k, name, at, 4, ARG(blk), ARG(span), ARG(parity), ARG(gps));
}

static clsort_status oddeven_sort(clsort_context *ctx, const clsort_job *job)
{
    const size_t seg = clsort_segment_length(job->spec, job->n);
    if (seg < 2)
        return CLSORT_OK;
    clsort_tile_shape s;
    if (clsort_tile_shape_for(ctx, job->spec, CLSORT_SHAPE_ODDEVEN, &s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE, "oddeven: %s has too little local memory",
                           ctx->display_name);

    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, s.wg);
    clsort_opts_add(&opts, ITEMS, s.items);
    clsort_compare_key_options(job->spec, &opts);
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "oddeven", clsort_cl_oddeven, clsort_cl_oddeven_len,
                                          &opts, &prog);
    if (st != CLSORT_OK)
        return st;

    const cl_ulong n = job->n, seg_len = seg, nseg = (job->n + seg - 1) / seg;
    const cl_mem keys = job->keys, vals = job->values;
    const char *name = seg <= s.tile ? "oddeven_tile" : "oddeven_block";
    cl_kernel k = NULL;
    int at;
    if ((st = clsort_create_kernel(ctx, prog, name, &k)) != CLSORT_OK ||
        (st = clsort_set_data_args(ctx, k, name, 1, &keys, job->spec->value_size ? &vals : NULL,
                                   &at)) != CLSORT_OK ||
        (st = clsort_set_args_at(ctx, k, name, at, 2, ARG(n), ARG(seg_len))) != CLSORT_OK)
        goto done;
    at += 2;
    if (seg <= s.tile) {
        const cl_uint spg = (cl_uint)(s.tile / seg);
        const size_t groups = (size_t)((nseg + spg - 1) / spg);
        if ((st = clsort_set_args_at(ctx, k, name, at, 1, ARG(spg))) == CLSORT_OK)
            st = clsort_launch(ctx, k, groups * s.wg, s.wg);
    } else {
        /* A block sort, then one merge-split phase per block. */
        const cl_ulong blk = s.tile / 2, blocks = (seg + blk - 1) / blk, pairs = (blocks + 1) / 2;
        if ((st = block_args(ctx, k, name, at, blk, 1, 0, blocks)) == CLSORT_OK)
            st = clsort_launch(ctx, k, (size_t)(nseg * blocks) * s.wg, s.wg);
        for (cl_ulong phase = 0; phase < blocks && st == CLSORT_OK; phase++)
            if ((st = block_args(ctx, k, name, at, blk, 2, (cl_uint)(phase & 1), pairs)) ==
                CLSORT_OK)
                st = clsort_launch(ctx, k, (size_t)(nseg * pairs) * s.wg, s.wg);
    }
done:
    if (k)
        clReleaseKernel(k);
    return st;
}

clsort_status clsort_oddeven_enqueue(clsort_context *ctx, clsort_job *job)
{
    return clsort_compare_run(ctx, job, oddeven_sort);
}
