/*
 * The positions of an argsort (cl/index.cl): out[i] = i, enqueued as the chain's first command, so
 * that the sort that follows carries each key's input position as its value.
 * Calls: options.c, program.c, chain.c.
 */
#include "internal.h"

/* Work-groups per compute unit of the fill: enough to keep the memory busy, few enough that each
 * work-item writes several positions. */
enum { INDEX_GROUPS_PER_CU = 8, INDEX_WG = 256 };

clsort_status clsort_index_fill(clsort_context *ctx, cl_mem out, size_t index_size, size_t n)
{
    clsort_opts opts;
    clsort_opts_init(&opts);
    const size_t wg = ctx->max_wg < INDEX_WG ? ctx->max_wg : INDEX_WG;
    clsort_opts_add(&opts, WG, wg);
    clsort_opts_add_text(&opts, INDEX_T, index_size == 4 ? "uint" : "ulong");
    cl_program prog;
    cl_kernel k = NULL;
    const cl_ulong n64 = n;
    const size_t cus = ctx->compute_units ? ctx->compute_units : 1;
    size_t groups = (n + wg - 1) / wg;
    if (groups > cus * INDEX_GROUPS_PER_CU)
        groups = cus * INDEX_GROUPS_PER_CU;
    clsort_status st;
    if ((st = clsort_get_program(ctx, "index", clsort_cl_index, clsort_cl_index_len, &opts,
                                 &prog)) == CLSORT_OK &&
        (st = clsort_create_kernel(ctx, prog, "index_fill", &k)) == CLSORT_OK &&
        (st = clsort_set_args(ctx, k, "index_fill", 2, ARG(out), ARG(n64))) == CLSORT_OK)
        st = clsort_launch(ctx, k, (groups ? groups : 1) * wg, wg);
    if (k)
        clReleaseKernel(k);
    return st;
}
