/*
 * Interleaved records on the device (cl/records.cl): split a chunk of records into the key and value
 * buffers of a sort, and join them back for the download, so a stream of key/value records costs the
 * host no pass of its own. For the host layer (stream.c).
 * Calls: options.c, program.c, status.c.
 */
#include "internal.h"

#include <string.h>

enum { RECORDS_WG = 256 };

clsort_status clsort_records_init(clsort_context *ctx, size_t ks, size_t vs, clsort_records *r)
{
    memset(r, 0, sizeof *r);
    const size_t w = ks % 4 == 0 && vs % 4 == 0 ? 4 : 1;
    r->kw = ks / w;
    r->vw = vs / w;
    r->word = w;
    r->wg = ctx->max_wg < RECORDS_WG ? ctx->max_wg : RECORDS_WG;
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, r->wg);
    clsort_opts_add_text(&opts, WORD, w == 4 ? "uint" : "uchar");
    clsort_opts_add(&opts, KW, r->kw);
    clsort_opts_add(&opts, VW, r->vw);
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "records", clsort_cl_records, clsort_cl_records_len,
                                          &opts, &prog);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "records_split", &r->split);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "records_join", &r->join);
    if (st != CLSORT_OK)
        clsort_records_release(r);
    return st;
}

void clsort_records_release(clsort_records *r)
{
    if (r->split)
        clReleaseKernel(r->split);
    if (r->join)
        clReleaseKernel(r->join);
    memset(r, 0, sizeof *r);
}

clsort_status clsort_records_enqueue(clsort_context *ctx, const clsort_records *r, int join,
                                     cl_mem rec, cl_mem keys, cl_mem values, size_t n, size_t at,
                                     cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    cl_kernel k = join ? r->join : r->split;
    const char *name = join ? "records_join" : "records_split";
    cl_ulong n64 = n, at64 = at;
    clsort_status st = join ? clsort_set_args(ctx, k, name, 5, ARG(keys), ARG(values), ARG(rec),
                                              ARG(n64), ARG(at64))
                            : clsort_set_args(ctx, k, name, 5, ARG(rec), ARG(keys), ARG(values),
                                              ARG(n64), ARG(at64));
    if (st != CLSORT_OK)
        return st;
    const size_t items = n * (r->kw + r->vw), wg = r->wg;
    const size_t global = (items + wg - 1) / wg * wg;
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &wg, n_wait, wait, done);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(ctx, err, name);
}
