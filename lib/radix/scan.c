/*
 * Exclusive prefix sums of cl_ulong device arrays (cl/scan.cl), used by the radix passes.
 * Calls: options.c, program.c, buffers.c, chain.c.
 */
#include "internal.h"

#include <stdio.h>

static size_t scan_tile(const clsort_context *ctx)
{
    return (size_t)ctx->tuning.scan.wg * ctx->tuning.scan.items;
}

size_t clsort_scan_scratch(const clsort_context *ctx, size_t max_n)
{
    size_t tile = scan_tile(ctx);
    return ((max_n + tile - 1) / tile + 1) * sizeof(cl_ulong);
}

clsort_status clsort_scan_init(clsort_context *ctx, clsort_scan *scan, size_t max_n)
{
    *scan = (clsort_scan){ 0 };
    scan->wg = ctx->tuning.scan.wg;
    scan->tile = scan_tile(ctx);
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, ctx->tuning.scan.wg);
    clsort_opts_add(&opts, ITEMS, ctx->tuning.scan.items);
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "scan", clsort_cl_scan, clsort_cl_scan_len, &opts,
                                          &prog);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "scan_reduce", &scan->reduce);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "scan_spine", &scan->spine);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "scan_downsweep", &scan->downsweep);
    if (st == CLSORT_OK)
        st = clsort_scratch(ctx, CLSORT_SLOT_SCAN, clsort_scan_scratch(ctx, max_n), &scan->partials,
                            "scan partials");
    if (st != CLSORT_OK)
        clsort_scan_release(scan);
    return st;
}

void clsort_scan_release(clsort_scan *scan)
{
    if (scan->reduce)
        clReleaseKernel(scan->reduce);
    if (scan->spine)
        clReleaseKernel(scan->spine);
    if (scan->downsweep)
        clReleaseKernel(scan->downsweep);
    if (scan->partials)
        clReleaseMemObject(scan->partials);
    *scan = (clsort_scan){ 0 };
}

clsort_status clsort_scan_enqueue(clsort_context *ctx, clsort_scan *scan, cl_mem data, size_t n)
{
    return clsort_scan_enqueue_limit(ctx, scan, data, n, data, 0, 0);
}

clsort_status clsort_scan_enqueue_limit(clsort_context *ctx, clsort_scan *scan, cl_mem data,
                                        size_t n, cl_mem limit, cl_ulong at, cl_ulong scale)
{
    if (n == 0)
        return CLSORT_OK;
    cl_ulong n64 = n;
    cl_ulong tiles = (n + scan->tile - 1) / scan->tile;
    clsort_status st;
    /* the bound, after each kernel's own arguments */
    if ((st = clsort_set_args_at(ctx, scan->reduce, "scan_reduce", 3, 3, ARG(limit), ARG(at),
                                 ARG(scale))) != CLSORT_OK ||
        (st = clsort_set_args_at(ctx, scan->spine, "scan_spine", 2, 3, ARG(limit), ARG(at),
                                 ARG(scale))) != CLSORT_OK ||
        (st = clsort_set_args_at(ctx, scan->downsweep, "scan_downsweep", 3, 3, ARG(limit), ARG(at),
                                 ARG(scale))) != CLSORT_OK)
        return st;
    if ((st = clsort_set_args(ctx, scan->reduce, "scan_reduce", 3, ARG(data), ARG(n64),
                              ARG(scan->partials))) != CLSORT_OK ||
        (st = clsort_launch(ctx, scan->reduce, tiles * scan->wg, scan->wg)) != CLSORT_OK)
        return st;
    clsort_profile_last(ctx, "scan", "reduce", 0);
    if ((st = clsort_set_args(ctx, scan->spine, "scan_spine", 2, ARG(scan->partials),
                              ARG(tiles))) != CLSORT_OK ||
        (st = clsort_launch(ctx, scan->spine, scan->wg, scan->wg)) != CLSORT_OK)
        return st;
    clsort_profile_last(ctx, "scan", "spine", 0);
    if ((st = clsort_set_args(ctx, scan->downsweep, "scan_downsweep", 3, ARG(data), ARG(n64),
                              ARG(scan->partials))) != CLSORT_OK ||
        (st = clsort_launch(ctx, scan->downsweep, tiles * scan->wg, scan->wg)) != CLSORT_OK)
        return st;
    clsort_profile_last(ctx, "scan", "downsweep", 0);
    return CLSORT_OK;
}
