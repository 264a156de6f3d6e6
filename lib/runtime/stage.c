/*
 * Staging memory for the host layer: the host side of every transfer of a stream sort. Where the
 * device can copy straight from host memory it owns (NVIDIA pins CL_MEM_ALLOC_HOST_PTR buffers, so
 * a transfer from their mapping runs at the link's speed, about 7x what pageable memory gets), the
 * staging slots are such buffers, mapped once; elsewhere, or when the device refuses, plain host
 * memory, which every device takes. CLSORT_STAGING picks one for measurements.
 * Calls: status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

const char *clsort_staging_name(int kind)
{
    switch (kind) {
    case CLSORT_STAGING_PINNED: return "pinned";
    case CLSORT_STAGING_USE: return "use-host-ptr";
    default: return "host";
    }
}

static void *page_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, bytes ? bytes : 1) == 0 ? p : NULL;
}

/* The buffer of kind with bytes of host memory, mapped; 0 on success. */
static int map_buffer(clsort_context *ctx, clsort_stage *s, int kind, size_t bytes)
{
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE;
    if (kind == CLSORT_STAGING_USE) {
        if (!(s->own = page_alloc(bytes)))
            return -1;
        flags |= CL_MEM_USE_HOST_PTR;
    } else {
        flags |= CL_MEM_ALLOC_HOST_PTR;
    }
    s->mem = clCreateBuffer(ctx->context, flags, bytes, s->own, &err);
    if (err != CL_SUCCESS)
        return -1;
    s->host = clEnqueueMapBuffer(ctx->queue, s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                 0, NULL, NULL, &err);
    return err == CL_SUCCESS ? 0 : -1;
}

clsort_status clsort_stage_alloc(clsort_context *ctx, clsort_stage *s, size_t bytes)
{
    memset(s, 0, sizeof *s);
    s->bytes = bytes;
    int kind = ctx->settings.staging;
    if (kind != CLSORT_STAGING_HOST && map_buffer(ctx, s, kind, bytes) == 0) {
        s->kind = kind;
        return CLSORT_OK;
    }
    /* the portable way: memory of our own, which every device reads and writes */
    clsort_stage_free(ctx, s);
    s->bytes = bytes;
    s->kind = CLSORT_STAGING_HOST;
    if (!(s->host = s->own = page_alloc(bytes)))
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "cannot allocate %zu bytes of staging memory", bytes);
    return CLSORT_OK;
}

void clsort_stage_free(clsort_context *ctx, clsort_stage *s)
{
    if (s->mem) {
        if (s->host) {
            cl_event ev = NULL;
            if (clEnqueueUnmapMemObject(ctx->queue, s->mem, s->host, 0, NULL, &ev) == CL_SUCCESS &&
                ev) {
                clWaitForEvents(1, &ev);
                clReleaseEvent(ev);
            }
        }
        clReleaseMemObject(s->mem);
    }
    free(s->own);
    memset(s, 0, sizeof *s);
}
