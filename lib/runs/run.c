/*
 * One device sort of host arrays that fit on the device: upload into the context's kept buffers,
 * the dispatched chain, read back from whichever buffers hold the result (the family may leave it
 * in its ping-pong partners rather than copy), and the run's statistics.
 * Calls: dispatch.c, transfer.c (large arrays through pinned staging), buffers.c, chain.c, keys.c,
 * status.c; host_family.c (small arrays that host-radix sorts: in the calling thread, no buffers).
 */
#include "internal.h"

#include <string.h>

typedef struct host_run {
    cl_mem kbuf, vbuf;
    clsort_varseg *varseg; /* variable segments: their offsets go up too */
    cl_event up[3], down[2]; /* up: each upload's end; down: the first and the last transfer back */
    cl_event up_first;       /* the first upload's start */
    cl_uint n_up;
    double kernel_ms;
    int in_caller; /* sorted in the calling thread: nothing transferred */
} host_run;

/* The device copies of the keys and values, from the kept scratch. */
static clsort_status data_buffers(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                  host_run *h)
{
    const size_t vs = spec->value_size, ks = clsort_key_size(spec->key_type);
    clsort_status st = clsort_scratch(ctx, CLSORT_SLOT_KEYS, n * ks, &h->kbuf, "keys");
    if (st == CLSORT_OK && vs)
        st = clsort_scratch(ctx, CLSORT_SLOT_VALUES, n * vs, &h->vbuf, "values");
    return st;
}

static clsort_status upload(clsort_context *ctx, const clsort_spec *spec, const void *keys,
                            const void *values, size_t n, host_run *h)
{
    const size_t vs = spec->value_size, ks = clsort_key_size(spec->key_type);
    clsort_status st = data_buffers(ctx, spec, n, h);
    if (st != CLSORT_OK)
        return st;
    clsort_varseg *v = h->varseg;
    const size_t off_bytes = v ? (v->n_seg + 1) * sizeof(cl_ulong) : 0;
    if (v && (st = clsort_scratch(ctx, CLSORT_SLOT_SEG_OFFSETS, off_bytes, &v->offsets,
                                  "segment offsets")) != CLSORT_OK)
        return st;
    /* the offsets, keys and values (large arrays through pinned staging slots: transfer.c) */
    const cl_mem bufs[3] = { v ? v->offsets : NULL, h->kbuf, h->vbuf };
    const void *const from[3] = { v ? v->host_offsets : NULL, keys, values };
    const size_t bytes[3] = { off_bytes, n * ks, n * vs };
    for (int i = 0; i < 3; i++) {
        if (!bytes[i])
            continue;
        cl_event first = NULL;
        if ((st = clsort_upload(ctx, bufs[i], from[i], bytes[i], &first, &h->up[h->n_up])) !=
            CLSORT_OK)
            return st;
        if (h->up[h->n_up])
            h->n_up++;
        if (!h->up_first)
            h->up_first = first;
        else if (first)
            clReleaseEvent(first);
    }
    return CLSORT_OK;
}

/* Read the result back after the chain and wait for it; the chain's events are dropped. */
static clsort_status download(clsort_context *ctx, const clsort_job *job, void *keys, void *values,
                              host_run *h)
{
    const size_t n = job->n, vs = job->spec->value_size, ks = clsort_key_size(job->spec->key_type);
    const cl_mem kres = job->result_keys ? job->result_keys : h->kbuf;
    const cl_mem vres = job->result_values ? job->result_values : h->vbuf;
    cl_event kfirst = NULL, klast = NULL, vfirst = NULL, vlast = NULL;
    clsort_status st = clsort_download(ctx, kres, keys, n * ks, ctx->last_event, &kfirst, &klast);
    if (st == CLSORT_OK && vs)
        st = clsort_download(ctx, vres, values, n * vs, ctx->last_event, &vfirst, &vlast);
    const cl_int err = clFinish(ctx->queue);
    h->down[0] = kfirst;
    h->down[1] = vs ? vlast : klast;
    cl_event drop[2] = { vs ? klast : vlast, vfirst };
    for (int i = 0; i < 2; i++)
        if (drop[i])
            clReleaseEvent(drop[i]);
    if (st == CLSORT_OK && err != CL_SUCCESS)
        st = clsort_fail_cl(ctx, err, "reading the sorted data back");
    if (st != CLSORT_OK) {
        clsort_chain_drop(ctx);
        return st;
    }
    if (ctx->profiling)
        h->kernel_ms = clsort_event_span_ms(ctx->first_event, ctx->last_event);
    clsort_chain_drop(ctx);
    return CLSORT_OK;
}

static void fill_stats(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                       const host_run *h, clsort_stats *stats)
{
    stats->n = n;
    const clsort_algorithm ran = h->in_caller ? CLSORT_ALGO_HOST_RADIX
                                              : clsort_dispatch_ran(ctx, spec, n);
    /* segments.c's segments: the radix passes' form */
    stats->algorithm = h->varseg && ran != CLSORT_ALGO_HOST_RADIX ? "radix8-rts"
                                                                   : clsort_algorithm_name(ran);
    stats->kernel_ms = h->kernel_ms;
    if (ctx->profiling && n > 1 && !h->in_caller) {
        stats->upload_ms = clsort_event_span_ms(h->up_first, h->up[h->n_up - 1]);
        stats->download_ms = clsort_event_span_ms(h->down[0], h->down[1]);
    }
}

/* Host-radix on host arrays, small ones on any device (asked for, or auto's choice for the
 * smallest: clsort_dispatch_ran_host()) and all of them on a CPU device: sorted
 * where they are, by the calling thread (and helpers, past CLSORT_HOST_INLINE_MAX_BYTES); no
 * copies in and out of device buffers, no thread handoff or events, which cost far more than the
 * sort of small arrays and ~40-60 ms at 2^24 keys (host_sort.h). The statistics say so: no
 * transfers, and the host's sort time where the threaded path gives the span of its events. */
static int in_caller(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const size_t per = clsort_key_size(spec->key_type) + spec->value_size;
    return clsort_dispatch_ran_host(ctx, spec, n) == CLSORT_ALGO_HOST_RADIX &&
           n <= clsort_host_radix_inline_bytes(ctx) / per;
}

static clsort_status run(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                         size_t n, clsort_varseg *varseg, const clsort_host_from *from,
                         clsort_stats *stats)
{
    const unsigned built0 = ctx->programs_built, cached0 = ctx->programs_cached;
    const unsigned skipped0 = ctx->passes_skipped;
    host_run h = { .varseg = varseg };
    clsort_job job = { .spec = spec, .n = n, .may_block = 1, .may_swap = 1, .varseg = varseg };
    clsort_status st = CLSORT_OK;
    const void *up_keys = keys, *up_values = values;
    if (from && from->keys != keys && n > 1 && !in_caller(ctx, spec, n)) {
        /* the device's path uploads the input from where it is and downloads into the outputs:
         * no copy of it into them first (1 GiB into a new array took longer on one thread than
         * the transfers both ways) */
        up_keys = from->keys;
        up_values = from->values;
        from = NULL;
    } else if (from && from->keys != keys && n < 2) {
        memcpy(keys, from->keys, n * clsort_key_size(spec->key_type));
        if (spec->value_size)
            memcpy(values, from->values, n * spec->value_size);
        from = NULL;
    }
    if (n > 1 && in_caller(ctx, spec, n)) {
        double host_ms = 0;
        /* commands the caller queued before (on a borrowed queue) may still write these arrays:
         * the threaded path's transfers would have waited for them */
        const cl_int err = clFinish(ctx->queue);
        if (err != CL_SUCCESS) {
            st = clsort_fail_cl(ctx, err, "clFinish");
            goto done;
        }
        if ((st = clsort_host_radix_sort_host(ctx, spec, keys, values, n,
                                              varseg ? varseg->host_offsets : NULL,
                                              varseg ? varseg->n_seg : 0, from, NULL, NULL,
                                              &host_ms)) != CLSORT_OK)
            goto done;
        h.kernel_ms = ctx->profiling ? host_ms : 0;
        h.in_caller = 1;
    } else if (n > 1) {
        if ((st = upload(ctx, spec, up_keys, up_values, n, &h)) != CLSORT_OK)
            goto done;
        job.keys = h.kbuf;
        job.values = h.vbuf;
        if ((st = clsort_dispatch(ctx, &job, h.n_up, h.up)) != CLSORT_OK ||
            (st = download(ctx, &job, keys, values, &h)) != CLSORT_OK)
            goto done;
    }
    if (stats) {
        fill_stats(ctx, spec, n, &h, stats);
        stats->programs_built = ctx->programs_built - built0;
        stats->programs_cached = ctx->programs_cached - cached0;
        stats->passes_skipped = ctx->passes_skipped - skipped0;
    }
done:
    for (int i = 0; i < 3; i++)
        if (h.up[i])
            clReleaseEvent(h.up[i]);
    if (h.up_first)
        clReleaseEvent(h.up_first);
    for (int i = 0; i < 2; i++)
        if (h.down[i])
            clReleaseEvent(h.down[i]);
    cl_mem ms[] = { h.kbuf, h.vbuf, job.result_keys, job.result_values,
                    varseg ? varseg->offsets : NULL };
    clsort_release_mems(ms, sizeof ms / sizeof ms[0]);
    return st;
}

clsort_status clsort_run_host(clsort_context *ctx, const clsort_spec *spec, void *keys,
                              void *values, size_t n, clsort_stats *stats)
{
    return run(ctx, spec, keys, values, n, NULL, NULL, stats);
}

clsort_status clsort_run_host_from(clsort_context *ctx, const clsort_spec *spec,
                                   const void *from_keys, const void *from_values, void *keys,
                                   void *values, size_t n, clsort_stats *stats)
{
    const clsort_host_from from = { from_keys, from_values };
    return run(ctx, spec, keys, values, n, NULL, &from, stats);
}

clsort_status clsort_run_host_segments(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                       void *values, size_t n, const uint64_t *offsets,
                                       size_t n_seg, clsort_stats *stats)
{
    clsort_varseg v = { .n_seg = n_seg, .host_offsets = offsets };
    return run(ctx, spec, keys, values, n, &v, NULL, stats);
}

/* The scratch and programs of a sort of n keys in these buffers, enqueuing nothing; may_swap: the
 * sort may leave its result in buffers of its own (returned in *job for the caller to release). */
static clsort_status reserve_job(clsort_context *ctx, clsort_job *job)
{
    ctx->reserving = 1;
    clsort_status st = clsort_dispatch(ctx, job, 0, NULL);
    ctx->reserving = 0;
    clsort_chain_drop(ctx);
    return st;
}

clsort_status clsort_run_reserve(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    if (n < 2 || ctx->out_of_order) /* nothing to sort; nothing is kept on out-of-order queues */
        return CLSORT_OK;
    if (in_caller(ctx, spec, n)) /* no device copy of the data: the scratch alone, if any */
        return clsort_host_radix_reserve_host(ctx, spec, n);
    host_run h = { 0 };
    clsort_job job = { .spec = spec, .n = n, .may_swap = 1 };
    clsort_status st = data_buffers(ctx, spec, n, &h);
    if (st == CLSORT_OK) {
        job.keys = h.kbuf;
        job.values = h.vbuf;
        st = reserve_job(ctx, &job);
    }
    cl_mem ms[] = { h.kbuf, h.vbuf, job.result_keys, job.result_values };
    clsort_release_mems(ms, sizeof ms / sizeof ms[0]);
    return st;
}

clsort_status clsort_reserve_buffers(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                     cl_mem values, size_t n, int index_values)
{
    if (n < 2 || ctx->out_of_order)
        return CLSORT_OK;
    clsort_job job = { .spec = spec, .keys = keys, .values = values, .n = n,
                       .index_values = index_values };
    return reserve_job(ctx, &job);
}
