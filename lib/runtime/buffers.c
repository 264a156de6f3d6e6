/*
 * Device buffers: plain allocations, the scratch buffers a context keeps between sorts (grow-only, up
 * to the scratch_keep setting; by default without a limit), and fault injection for tests (the fault_alloc setting: the N-th device
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
 * by the callers). When the device refuses, the scratch the context keeps is let go and the
 * allocation tried once more: memory held for earlier sorts must not make a later one fail. */
static cl_int try_buffer(clsort_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    if (err != CL_SUCCESS && err != CL_INVALID_BUFFER_SIZE) {
        clsort_scratch_release(ctx);
        *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    }
    if (err != CL_SUCCESS)
        *out = NULL;
    else
        ctx->allocations++;
    return err;
}

static clsort_status create_buffer(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    const cl_int err = try_buffer(ctx, bytes, out);
    return err == CL_SUCCESS ? CLSORT_OK : alloc_failed(ctx, err, bytes, what);
}

/* The size a kept buffer grows to: an eighth more than asked (at least 64 KiB more), so that a run of
 * slowly growing sorts reallocates a few times rather than every time. */
static size_t grown(size_t bytes)
{
    const size_t extra = bytes / 8 > ((size_t)64 << 10) ? bytes / 8 : (size_t)64 << 10;
    return bytes > SIZE_MAX - extra ? bytes : bytes + extra;
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
        ctx->scratch_zero[i] = 0;
    }
}

int clsort_scratch_zeroed(const clsort_context *ctx, clsort_slot slot, cl_mem m)
{
    return m && ctx->scratch[slot] == m && ctx->scratch_zero[slot];
}

size_t clsort_scratch_kept_bytes(const clsort_context *ctx, clsort_slot slot, cl_mem m)
{
    return m && ctx->scratch[slot] == m ? ctx->scratch_bytes[slot] : 0;
}

void clsort_scratch_set_zeroed(clsort_context *ctx, clsort_slot slot, cl_mem m)
{
    if (m && ctx->scratch[slot] == m && !ctx->reserving)
        ctx->scratch_zero[slot] = 1;
}

void clsort_scratch_set_dirty(clsort_context *ctx, clsort_slot slot, cl_mem m)
{
    if (m && ctx->scratch[slot] == m)
        ctx->scratch_zero[slot] = 0;
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
    ctx->scratch_zero[slot] = 0;
    const size_t limit = ctx->settings.scratch_keep;
    size_t want = grown(bytes);
    const int keep = kept <= limit && want <= limit - kept;
    if (!keep)
        clsort_scratch_release(ctx); /* a sort past the limit gets all of the device's memory */
    cl_mem m;
    /* The slack first, without a detail: where it does not fit, exactly what is needed, kept all
     * the same (a refused slack is no error of the call's). */
    clsort_status st = keep && want > bytes && try_buffer(ctx, want, &m) == CL_SUCCESS
                           ? CLSORT_OK
                           : create_buffer(ctx, want = bytes, &m, what);
    if (st != CLSORT_OK)
        return st;
    if (keep) {
        clRetainMemObject(m);
        ctx->scratch[slot] = m;
        ctx->scratch_bytes[slot] = want;
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
