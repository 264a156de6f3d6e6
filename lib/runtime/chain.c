/*
 * The command chain of one sort: each command waits for the one before (so out-of-order queues work
 * too), the first for the caller's events; ctx->first_event / last_event hold its ends. Also kernel
 * arguments and the profile printout, which every family's launches go through. While a context
 * reserves (clsort_reserve()) the chain enqueues nothing: the families only allocate.
 * Calls: status.c.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double clsort_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double clsort_event_span_ms(cl_event a, cl_event b)
{
    cl_ulong start = 0, end = 0;
    if (!a || !b || clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ||
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) || end < start)
        return 0.0;
    return (double)(end - start) / 1e6;
}

void clsort_chain_begin(clsort_context *ctx, cl_uint n_wait, const cl_event *wait)
{
    ctx->chain_wait = wait;
    ctx->chain_n_wait = n_wait;
    ctx->first_event = ctx->last_event = NULL;
    ctx->chain_pending = ctx->chain_flushed = ctx->chain_no_start = 0;
}

void clsort_chain_push(clsort_context *ctx, cl_event ev)
{
    if (!ctx->first_event) {
        ctx->first_event = ev;
        clRetainEvent(ev);
    }
    if (ctx->last_event)
        clReleaseEvent(ctx->last_event);
    ctx->last_event = ev;
    ctx->chain_pending = 0;
}

/* The wait list of the chain's next command: the caller's events first, then the newest command
 * (none on an in-order queue, which orders the chain by itself and runs it without waits). Once a
 * command is enqueued, with an event or without (chain_pending), the caller's list is not given
 * again: a marker with a list waits only for it (on NVIDIA it completes before the kernels). */
static void chain_waits(const clsort_context *ctx, cl_uint *n, const cl_event **list)
{
    if (ctx->last_event || ctx->chain_pending) {
        *n = ctx->out_of_order ? 1 : 0;
        *list = ctx->out_of_order ? &ctx->last_event : NULL;
    } else {
        *n = ctx->chain_n_wait;
        *list = ctx->chain_n_wait ? ctx->chain_wait : NULL;
    }
}

/* The wait list of the chain's next command, or 0 while the context reserves: then nothing is
 * enqueued (clsort_reserve() only allocates and builds). *ev is where the command's event goes, or
 * NULL where it needs none: the first command has one (the sort's start, for the kernel time) unless
 * nobody reads it (chain_no_start), and so has every command on an out-of-order queue (the next
 * waits for it) or while profiling; on an in-order queue the rest go without, as each event costs
 * the driver, and clsort_chain_settle() marks the end. */
static int next_command(const clsort_context *ctx, cl_uint *n, const cl_event **list,
                        cl_event **ev, cl_event *slot)
{
    if (ctx->reserving)
        return 0;
    chain_waits(ctx, n, list);
    *slot = NULL;
    *ev = (!ctx->first_event && !ctx->chain_no_start) || ctx->out_of_order || ctx->settings.profile
              ? slot
              : NULL;
    return 1;
}

void clsort_chain_drop(clsort_context *ctx)
{
    if (ctx->first_event)
        clReleaseEvent(ctx->first_event);
    if (ctx->last_event)
        clReleaseEvent(ctx->last_event);
    ctx->first_event = ctx->last_event = NULL;
    ctx->chain_pending = 0;
}

/* Make a command enqueued after the chain's waits (err, and its event if it has one) its newest. */
static clsort_status chain_add(clsort_context *ctx, cl_int err, const cl_event *ev, const char *call)
{
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, call);
    if (ev)
        clsort_chain_push(ctx, *ev);
    else
        ctx->chain_pending = 1;
    return CLSORT_OK;
}

static clsort_status marker(clsort_context *ctx)
{
    cl_uint n;
    const cl_event *w;
    cl_event ev = NULL;
    chain_waits(ctx, &n, &w);
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, n, w, &ev);
    return chain_add(ctx, err, &ev, "clEnqueueMarkerWithWaitList");
}

clsort_status clsort_chain_marker(clsort_context *ctx)
{
    return ctx->reserving ? CLSORT_OK : marker(ctx);
}

clsort_status clsort_chain_settle(clsort_context *ctx)
{
    return ctx->reserving || !ctx->chain_pending ? CLSORT_OK : marker(ctx);
}

clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, size_t global, size_t local)
{
    cl_uint n;
    const cl_event *w;
    cl_event slot, *ev;
    if (!next_command(ctx, &n, &w, &ev, &slot))
        return CLSORT_OK;
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, n, w, ev);
    if (err != CL_SUCCESS) {
        char name[128] = "?";
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        name[sizeof name - 1] = '\0';
        return clsort_fail(ctx, (clsort_status)err,
                           "clEnqueueNDRangeKernel(%s, global %zu, local %zu) failed: %s (%d)", name,
                           global, local, clsort_status_string((clsort_status)err), (int)err);
    }
    /* the first kernel starts while the rest are enqueued, rather than when the caller waits */
    if (!ctx->chain_flushed) {
        ctx->chain_flushed = 1;
        clFlush(ctx->queue);
    }
    return chain_add(ctx, CL_SUCCESS, ev, "clEnqueueNDRangeKernel");
}

/* Oclgrind (21.10) does not see what a fill wrote: its uninitialised-value check replaces a buffer's
 * record of initialised bytes with one the size of each host store, and a fill stores one pattern at
 * a time, so every zero count or status word the radix kernels then add to is reported as an
 * uninitialised value. There the whole range is written from the host instead, in one store. */
static cl_int fill_by_write(clsort_context *ctx, cl_mem buf, cl_uint pattern, size_t bytes,
                            cl_uint n, const cl_event *w, cl_event *ev)
{
    if (bytes % sizeof pattern)
        return CL_INVALID_VALUE; /* as clEnqueueFillBuffer says */
    cl_uint *data = malloc(bytes ? bytes : 1);
    if (!data)
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < bytes / sizeof pattern; i++)
        data[i] = pattern;
    cl_int err = clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, 0, bytes, data, n, w, ev);
    free(data);
    return err;
}

clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, cl_uint pattern, size_t bytes)
{
    cl_uint n;
    const cl_event *w;
    cl_event slot, *ev;
    if (!next_command(ctx, &n, &w, &ev, &slot))
        return CLSORT_OK;
    if (strstr(ctx->platform_name, "Oclgrind"))
        return chain_add(ctx, fill_by_write(ctx, buf, pattern, bytes, n, w, ev), ev,
                         "clEnqueueWriteBuffer(fill)");
    cl_int err = clEnqueueFillBuffer(ctx->queue, buf, &pattern, sizeof pattern, 0, bytes, n, w, ev);
    return chain_add(ctx, err, ev, "clEnqueueFillBuffer");
}

clsort_status clsort_copy(clsort_context *ctx, cl_mem src, cl_mem dst, size_t bytes)
{
    cl_uint n;
    const cl_event *w;
    cl_event slot, *ev;
    if (!next_command(ctx, &n, &w, &ev, &slot))
        return CLSORT_OK;
    cl_int err = clEnqueueCopyBuffer(ctx->queue, src, dst, 0, 0, bytes, n, w, ev);
    return chain_add(ctx, err, ev, "clEnqueueCopyBuffer");
}

clsort_status clsort_chain_fence(clsort_context *ctx, cl_event *start)
{
    *start = NULL;
    if (ctx->reserving)
        return CLSORT_OK;
    cl_uint n;
    const cl_event *w;
    chain_waits(ctx, &n, &w);
    /* A marker with a list waits only for it: the caller's list goes to a barrier before it. */
    cl_int err = n ? clEnqueueBarrierWithWaitList(ctx->queue, n, w, NULL) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clEnqueueBarrierWithWaitList");
    cl_event ev = NULL;
    err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &ev);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clEnqueueMarkerWithWaitList");
    clRetainEvent(ev); /* one reference for the chain, one for the caller */
    *start = ev;
    return chain_add(ctx, CL_SUCCESS, &ev, "clEnqueueMarkerWithWaitList");
}

clsort_status clsort_chain_gate(clsort_context *ctx, cl_event gate)
{
    if (ctx->reserving)
        return CLSORT_OK;
    cl_event ev = NULL;
    cl_int err = clEnqueueBarrierWithWaitList(ctx->queue, 1, &gate, &ev);
    return chain_add(ctx, err, &ev, "clEnqueueBarrierWithWaitList");
}

void clsort_profile_last(clsort_context *ctx, const char *family, const char *what, unsigned pass)
{
    if (!ctx->settings.profile || !ctx->profiling || !ctx->last_event)
        return;
    cl_ulong a = 0, b = 0;
    clWaitForEvents(1, &ctx->last_event);
    clGetEventProfilingInfo(ctx->last_event, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    clGetEventProfilingInfo(ctx->last_event, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    fprintf(stderr, "%s: %-10s pass %u %9.3f ms\n", family, what, pass, (double)(b - a) / 1e6);
}

static clsort_status set_args_v(clsort_context *ctx, cl_kernel k, const char *kname, int first,
                                int count, va_list ap)
{
    for (int i = first; i < first + count; i++) {
        size_t size = va_arg(ap, size_t);
        const void *ptr = va_arg(ap, const void *);
        cl_int err = clSetKernelArg(k, (cl_uint)i, size, ptr);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, (clsort_status)err, "clSetKernelArg(%s, %d) failed: %s", kname, i,
                               clsort_status_string((clsort_status)err));
    }
    return CLSORT_OK;
}

clsort_status clsort_set_args_at(clsort_context *ctx, cl_kernel k, const char *kname, int first,
                                 int count, ...)
{
    va_list ap;
    va_start(ap, count);
    clsort_status st = set_args_v(ctx, k, kname, first, count, ap);
    va_end(ap);
    return st;
}

clsort_status clsort_set_data_args(clsort_context *ctx, cl_kernel k, const char *kname, int per,
                                   const cl_mem *keys, const cl_mem *values, int *count)
{
    *count = 0;
    for (int set = 0; set < (values ? 2 : 1); set++)
        for (int i = 0; i < per; i++) {
            const cl_mem *m = set ? &values[i] : &keys[i];
            clsort_status st = clsort_set_args_at(ctx, k, kname, (*count)++, 1, ARG(*m));
            if (st != CLSORT_OK)
                return st;
        }
    return CLSORT_OK;
}
