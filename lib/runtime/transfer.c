/*
 * Large transfers between the caller's host memory and a device buffer through pinned staging
 * slots: the host's threads copy a chunk into one slot while the device transfers the chunk before
 * from the other. NVIDIA moves pageable memory through staging of its own on one thread (on an
 * H100 machine 1.6 GB went up in 208 ms and came back in 154 ms, where pinned memory moves at the
 * link's speed, about 50 GB/s); the caller's memory cannot be pinned cheaply (pinning those 1.6 GB
 * took about 0.8 s). The context keeps the two slots once made (XFER_FIRST says when) until
 * clsort_release_scratch() or clsort_close(). Elsewhere (a device whose memory is the host's, small
 * transfers, no pinned memory to be had) a plain transfer. CLSORT_TRANSFER_SLOT=N stages every
 * transfer, in slots of N bytes, on any device (for tests: chunks and their boundaries on the CPU
 * device).
 * Calls: stage.c, parallel.c, status.c.
 */
#include "internal.h"

#include <string.h>

enum {
    XFER_SLOT = 32 << 20,      /* bytes of each staging slot */
    XFER_MIN = 64 << 20,       /* smaller transfers go plain */
    XFER_COPY_SLICE = 1 << 20, /* the least a copying thread takes */
};
/* The first staged transfer makes the slots, which the context keeps: pinning host memory is slow
 * (2 x 32 MiB took about 50 ms on the H100 machine, where a plain 64 MiB upload took 7-9 ms), so
 * only a transfer that gains more than that makes them: 512 MiB or more (1 GiB went up in 31-34 ms
 * staged against 119-120 ms plainly), or the second upload of 64 MiB or more in the context's life
 * (a caller that sorts such arrays again and again: 2^24 f32 from Python, host array in and out,
 * 40 ms with plain transfers). */
#define XFER_FIRST ((size_t)512 << 20)

typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
} copy_job;

static void xfer_copy_slice(void *arg, size_t begin, size_t end)
{
    const copy_job *c = arg;
    memcpy(c->dst + begin, c->src + begin, end - begin);
}

static void xfer_copy(void *dst, const void *src, size_t bytes)
{
    copy_job c = { dst, src };
    clsort_parallel(bytes, XFER_COPY_SLICE, xfer_copy_slice, &c);
}

void clsort_transfer_release(clsort_context *ctx)
{
    clsort_stage_free(ctx, &ctx->xfer[0]);
    clsort_stage_free(ctx, &ctx->xfer[1]);
}

/* Whether a transfer of this size takes the staging slots, their size, and whether the context
 * holds them already. */
static int xfer_wanted(const clsort_context *ctx, size_t bytes, size_t *slot_bytes, int *have)
{
    const size_t forced = ctx->settings.transfer_slot;
    *slot_bytes = forced ? forced : XFER_SLOT;
    *have = ctx->xfer[0].host && ctx->xfer[0].bytes == *slot_bytes;
    if (!bytes || ctx->settings.staging != CLSORT_STAGING_PINNED)
        return 0;
    const int again = *have || ctx->xfer_large >= 2;
    return forced || !(ctx->host_unified || bytes < (again ? XFER_MIN : XFER_FIRST));
}

size_t clsort_staging_bytes(const clsort_context *ctx, size_t bytes)
{
    size_t slot_bytes;
    int have;
    return ctx && xfer_wanted(ctx, bytes, &slot_bytes, &have) && !have ? 2 * slot_bytes : 0;
}

/* Whether a transfer of this size goes through the context's staging slots (made now if need be),
 * and their size. */
static int xfer_staged(clsort_context *ctx, size_t bytes, size_t *slot_bytes)
{
    int have;
    if (!xfer_wanted(ctx, bytes, slot_bytes, &have))
        return 0;
    if (have)
        return 1;
    const size_t want = *slot_bytes;
    clsort_transfer_release(ctx);
    for (int i = 0; i < 2; i++)
        if (clsort_stage_alloc(ctx, &ctx->xfer[i], want) != CLSORT_OK ||
            ctx->xfer[i].kind != CLSORT_STAGING_PINNED) {
            clsort_clear_detail(ctx);
            clsort_transfer_release(ctx);
            return 0;
        }
    return 1;
}

/* Bytes of the chunk at `at` of a transfer of `bytes` in slots of sb. */
static size_t xfer_len(size_t bytes, size_t at, size_t sb)
{
    return bytes - at < sb ? bytes - at : sb;
}

/* Wait for *ev (if any) and drop it; the first error is kept in *err. */
static void xfer_settle(cl_event *ev, cl_int *err)
{
    if (!*ev)
        return;
    const cl_int e = clWaitForEvents(1, ev);
    if (*err == CL_SUCCESS)
        *err = e;
    clReleaseEvent(*ev);
    *ev = NULL;
}

clsort_status clsort_upload(clsort_context *ctx, cl_mem mem, const void *host, size_t bytes,
                            cl_event *ev_first, cl_event *done)
{
    clsort_stage *const slot = ctx->xfer;
    size_t sb;
    *ev_first = *done = NULL;
    if (bytes >= XFER_MIN && ctx->xfer_large < 2)
        ctx->xfer_large++;
    if (!xfer_staged(ctx, bytes, &sb)) {
        const cl_int err = clEnqueueWriteBuffer(ctx->queue, mem, CL_FALSE, 0, bytes, host, 0, NULL,
                                                done);
        if (err == CL_SUCCESS && *done) {
            *ev_first = *done;
            clRetainEvent(*ev_first);
        }
        return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(ctx, err, "uploading");
    }
    cl_event ev[2] = { NULL, NULL };
    cl_int err = CL_SUCCESS;
    for (size_t at = 0, k = 0; at < bytes && err == CL_SUCCESS; at += sb, k++) {
        const size_t len = xfer_len(bytes, at, sb);
        clsort_stage *s = &slot[k & 1];
        xfer_settle(&ev[k & 1], &err); /* the slot's chunk before has gone */
        if (err != CL_SUCCESS)
            break;
        xfer_copy(s->host, (const unsigned char *)host + at, len);
        err = clEnqueueWriteBuffer(ctx->queue, mem, CL_FALSE, at, len, s->host, 0, NULL,
                                   &ev[k & 1]);
        if (err == CL_SUCCESS && k == 0) {
            *ev_first = ev[0];
            clRetainEvent(*ev_first);
        }
        if (err == CL_SUCCESS)
            err = clFlush(ctx->queue);
    }
    /* done: the last chunk's transfer; every chunk has gone before the slots do */
    const size_t chunks = (bytes + sb - 1) / sb;
    if (err == CL_SUCCESS && ev[(chunks - 1) & 1]) {
        *done = ev[(chunks - 1) & 1];
        clRetainEvent(*done);
    }
    xfer_settle(&ev[0], &err);
    xfer_settle(&ev[1], &err);
    if (err != CL_SUCCESS) {
        cl_event *evs[2] = { ev_first, done };
        for (int i = 0; i < 2; i++)
            if (*evs[i]) {
                clReleaseEvent(*evs[i]);
                *evs[i] = NULL;
            }
    }
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(ctx, err, "uploading");
}

clsort_status clsort_download(clsort_context *ctx, cl_mem mem, void *host, size_t bytes,
                              cl_event after, cl_event *ev_first, cl_event *ev_last)
{
    clsort_stage *const slot = ctx->xfer;
    size_t sb;
    *ev_first = *ev_last = NULL;
    cl_int err;
    if (!xfer_staged(ctx, bytes, &sb)) {
        err = clEnqueueReadBuffer(ctx->queue, mem, CL_FALSE, 0, bytes, host, after ? 1 : 0,
                                  after ? &after : NULL, ev_first);
        if (err == CL_SUCCESS && *ev_first) {
            *ev_last = *ev_first;
            clRetainEvent(*ev_last);
        }
        return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(ctx, err, "reading back");
    }
    /* chunk k goes to slot k & 1; the next chunk's read is queued before this one is copied out */
    const size_t chunks = (bytes + sb - 1) / sb;
    cl_event ev[2] = { NULL, NULL };
    err = CL_SUCCESS;
    for (size_t k = 0; k < chunks + 1 && err == CL_SUCCESS; k++) {
        if (k < chunks) {
            const size_t at = k * sb, len = xfer_len(bytes, at, sb);
            err = clEnqueueReadBuffer(ctx->queue, mem, CL_FALSE, at, len, slot[k & 1].host,
                                      after ? 1 : 0, after ? &after : NULL, &ev[k & 1]);
            if (err == CL_SUCCESS && k == 0) {
                *ev_first = ev[0];
                clRetainEvent(*ev_first);
            }
            if (err == CL_SUCCESS)
                err = clFlush(ctx->queue);
        }
        if (k > 0 && err == CL_SUCCESS) { /* chunk k - 1 is in its slot once its read is done */
            const size_t j = k - 1, at = j * sb, len = xfer_len(bytes, at, sb);
            if (j + 1 == chunks) {
                *ev_last = ev[j & 1];
                clRetainEvent(*ev_last);
            }
            xfer_settle(&ev[j & 1], &err);
            if (err == CL_SUCCESS)
                xfer_copy((unsigned char *)host + at, slot[j & 1].host, len);
        }
    }
    if (err != CL_SUCCESS)
        clFinish(ctx->queue); /* no read still writing a slot when it goes */
    xfer_settle(&ev[0], &err);
    xfer_settle(&ev[1], &err);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(ctx, err, "reading back");
}
