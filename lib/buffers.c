/*
 * Device buffers: plain allocations, the scratch buffers a context keeps between sorts (up to the
 * scratch_keep setting), and fault injection for tests (the fault_alloc setting: the N-th device
 * buffer allocation of the process fails, 1 being the first; 0 none), so every error path after an
 * allocation can be exercised on any device.
 * Calls: status.c.
 */
#include "internal.h"

#include <stdatomic.h>

/* Non-zero when this allocation is to fail. The count is process-wide: the variable names the N-th
 * allocation of the process, whichever context makes it. */
static int fault_alloc(const clsort_context *ctx)
{
    static atomic_ulong count;
    const unsigned long target = ctx->settings.fault_alloc;
    return target && atomic_fetch_add(&count, 1) + 1 == target;
}

static clsort_status alloc_failed(clsort_context *ctx, cl_int err, size_t bytes, const char *what)
{
    return clsort_fail(ctx, (clsort_status)err, "allocating %zu bytes of device memory (%s) failed: %s",
                       bytes, what, clsort_status_string((clsort_status)err));
}

/* A device buffer of at least 4 bytes, or a failure named after `what` (counted for fault injection
 * by the callers). */
static clsort_status create_buffer(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return alloc_failed(ctx, err, bytes, what);
    }
    return CLSORT_OK;
}

clsort_status clsort_alloc(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    if (fault_alloc(ctx)) {
        *out = NULL;
        return alloc_failed(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, bytes, what);
    }
    return create_buffer(ctx, bytes, out, what);
}

void clsort_scratch_release(clsort_context *ctx)
{
    for (int i = 0; i < CLSORT_SLOTS; i++) {
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
        ctx->scratch[i] = NULL;
        ctx->scratch_bytes[i] = 0;
    }
}

clsort_status clsort_scratch(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out,
                             const char *what)
{
    if (ctx->out_of_order)
        return clsort_alloc(ctx, bytes, out, what);
    /* A request counts as an allocation for fault injection whether or not it is served from the
     * kept buffers, so that the N-th allocation is the same one with and without them. */
    if (fault_alloc(ctx)) {
        *out = NULL;
        return alloc_failed(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, bytes, what);
    }
    if (ctx->scratch[slot] && ctx->scratch_bytes[slot] >= bytes) {
        clRetainMemObject(ctx->scratch[slot]);
        *out = ctx->scratch[slot];
        return CLSORT_OK;
    }
    /* A kept buffer that is too small goes (the commands still using it keep it alive until they
     * finish); a larger one takes its place if it fits in the limit with the others. */
    size_t kept = 0;
    for (int i = 0; i < CLSORT_SLOTS; i++)
        kept += i == (int)slot ? 0 : ctx->scratch_bytes[i];
    if (ctx->scratch[slot])
        clReleaseMemObject(ctx->scratch[slot]);
    ctx->scratch[slot] = NULL;
    ctx->scratch_bytes[slot] = 0;
    const size_t limit = ctx->settings.scratch_keep;
    const int keep = kept <= limit && bytes <= limit - kept;
    if (!keep)
        clsort_scratch_release(ctx); /* a large sort gets all of the device's memory */
    cl_mem m;
    clsort_status st = create_buffer(ctx, bytes, &m, what);
    if (st != CLSORT_OK)
        return st;
    if (keep) {
        clRetainMemObject(m);
        ctx->scratch[slot] = m;
        ctx->scratch_bytes[slot] = bytes;
    }
    *out = m;
    return CLSORT_OK;
}

void clsort_release_mems(cl_mem *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (list[i])
            clReleaseMemObject(list[i]);
}
