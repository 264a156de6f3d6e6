/*
 * radix-hybrid: after onesweep's histogram and its pass over the top digit place (radix_onesweep.c),
 * the lower places of every bucket of equal top digits in one launch, in waves of buckets sized to
 * stay in the device's cache between passes (cl/radix/, radix8_hybrid, has the ticket order and
 * why it cannot deadlock where look-back cannot). Three commands: the plan (bucket and wave layout,
 * computed on the device from the histogram's offsets, so nothing waits for the host) with the
 * clearing of the control words, the tickets' work decoded, and the sort of the buckets.
 * Calls: buffers.c, program.c, chain.c (radix_shape.c calls it).
 */
#include "radix.h"

/* The layout of cl/radix/hybrid.cl's plan (ulong) and control (uint) words. */
#define BINS 256u
#define SEGS ((BINS + 32) * 8 + 1)
#define STEPS (BINS + 4 * 8 + 1)
#define PLAN_W (3 * (BINS + 1) + 2 * SEGS + 1) /* waves, tickets, segments, steps; then steps */
#define PLAN_HEAD (PLAN_W + 4 + STEPS + 1)
#define CTL_HEAD(ip) (1 + 2 * BINS + BINS * (ip) + BINS * (ip) * BINS + STEPS)
#define ALL_STEPS 0xffffffffu

/* Tiles a look-back region of one pass must cover: every non-empty bucket's last tile may be
 * partial. */
static size_t region_tiles(size_t n, size_t tile)
{
    return n / tile + (n < BINS ? n : BINS) + 1;
}

static size_t ctl_words(size_t n, size_t tile, unsigned places)
{
    const size_t ip = places - 1;
    return CTL_HEAD(ip) + ip * region_tiles(n, tile) * BINS;
}

/* The plan's head, the digit offsets and a word per ticket (a tile of each pass and of the
 * histogram). */
static size_t plan_bytes(size_t n, size_t tile, unsigned places)
{
    return (PLAN_HEAD + (size_t)BINS * (places - 1) * BINS + places * region_tiles(n, tile)) * 8;
}

size_t clsort_radix_hybrid_scratch(size_t n, size_t tile, unsigned places)
{
    return plan_bytes(n, tile, places) + ctl_words(n, tile, places) * 4;
}

/* Keys per wave: the tuning's bytes per wave over the bytes of a record; a setting overrides. */
static cl_ulong wave_keys(const clsort_context *ctx, const radix_run *r)
{
    if (ctx->settings.hybrid_wave_keys > 0)
        return ctx->settings.hybrid_wave_keys;
    const size_t bytes = ctx->tuning.radix.hybrid.wave_bytes ? ctx->tuning.radix.hybrid.wave_bytes
                                                              : HYBRID_WAVE_BYTES;
    const size_t keys = bytes / (r->ks + r->vs);
    return keys ? keys : 1;
}

/* Work-groups of the plan and ticket kernels: a few per compute unit, looping over their work. */
static size_t groups(const clsort_context *ctx)
{
    return (size_t)(ctx->compute_units ? ctx->compute_units : 1) * 4;
}

/* The buckets' sort: one launch of a group per ticket (an upper bound of them; the spare ones find
 * none left), or, where the tuning asks, one launch per step of the ticket order, sized from the
 * plan read back (every hand-over between groups then crosses a launch). `at`: the index of the
 * step argument. */
static clsort_status sort_buckets(clsort_context *ctx, const radix_run *r, cl_kernel k, cl_mem plan,
                                  cl_ulong tiles, int at)
{
    const size_t wg = r->s.wg;
    cl_uint step = ALL_STEPS;
    if (!ctx->tuning.radix.hybrid.stepped) {
        clsort_status st = clsort_set_args_at(ctx, k, "radix8_hybrid", at, 1, ARG(step));
        return st == CLSORT_OK ? clsort_launch(ctx, k, r->places * tiles * wg, wg) : st;
    }
    cl_ulong head[4 + STEPS + 1]; /* waves, tickets, segments, steps; each step's first ticket */
    clsort_status st = clsort_chain_settle(ctx);
    if (st != CLSORT_OK || ctx->reserving) /* sizing scratch only: nothing was enqueued */
        return st;
    cl_int err = clEnqueueReadBuffer(ctx->queue, plan, CL_TRUE, PLAN_W * 8, sizeof head, head,
                                     ctx->last_event ? 1 : 0,
                                     ctx->last_event ? &ctx->last_event : NULL, NULL);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clEnqueueReadBuffer(hybrid plan)");
    for (step = 0; step < head[3] && st == CLSORT_OK; step++) {
        const size_t groups = (size_t)(head[4 + step + 1] - head[4 + step]);
        if (groups && (st = clsort_set_args_at(ctx, k, "radix8_hybrid", at, 1, ARG(step))) ==
                          CLSORT_OK)
            st = clsort_launch(ctx, k, groups * wg, wg);
    }
    return st;
}

clsort_status clsort_radix_hybrid(clsort_context *ctx, radix_run *r, cl_mem offsets)
{
    const cl_ulong n = r->job->n, waves = wave_keys(ctx, r);
    const cl_ulong words = ctl_words(n, r->s.tile, r->places), tiles = region_tiles(n, r->s.tile);
    const size_t wg = r->s.wg;
    cl_kernel plan_k = NULL, tickets_k = NULL, sort_k = NULL;
    cl_mem plan = NULL, ctl = NULL;
    int at = 0;
    clsort_status st;
    if ((st = clsort_create_kernel(ctx, r->prog, "radix8_hybrid_plan", &plan_k)) != CLSORT_OK ||
        (st = clsort_create_kernel(ctx, r->prog, "radix8_hybrid_tickets", &tickets_k)) !=
            CLSORT_OK ||
        (st = clsort_create_kernel(ctx, r->prog, "radix8_hybrid", &sort_k)) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_HYBRID_PLAN, plan_bytes(n, r->s.tile, r->places),
                             &plan, "hybrid plan")) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_HYBRID_CONTROL, words * 4, &ctl,
                             "hybrid control words")) != CLSORT_OK)
        goto done;
    /* The plan's work-groups clear the control words (a few per compute unit suffice). */
    const cl_uint lag = ctx->settings.hybrid_lag > 0 ? (cl_uint)ctx->settings.hybrid_lag : HYBRID_LAG;
    if ((st = clsort_set_args(ctx, plan_k, "radix8_hybrid_plan", 7, ARG(offsets), ARG(n),
                              ARG(waves), ARG(lag), ARG(plan), ARG(ctl), ARG(words))) != CLSORT_OK ||
        (st = clsort_launch(ctx, plan_k, groups(ctx) * wg, wg)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, r->fam, "hybrid plan", 0);
    if ((st = clsort_set_args(ctx, tickets_k, "radix8_hybrid_tickets", 1, ARG(plan))) != CLSORT_OK ||
        (st = clsort_launch(ctx, tickets_k, groups(ctx) * wg, wg)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, r->fam, "hybrid tickets", 0);
    /* The job's buffers, then the partners the top pass filled. */
    if ((st = clsort_set_data_args(ctx, sort_k, "radix8_hybrid", 2, r->keys, r->vs ? r->vals : NULL,
                                   &at)) != CLSORT_OK ||
        (st = clsort_set_args_at(ctx, sort_k, "radix8_hybrid", at, 4, ARG(offsets), ARG(plan),
                                 ARG(ctl), ARG(tiles))) != CLSORT_OK ||
        (st = sort_buckets(ctx, r, sort_k, plan, tiles, at + 4)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, r->fam, "hybrid buckets", 0);
    r->done_passes += r->places - 1;
done:
    if (plan_k)
        clReleaseKernel(plan_k);
    if (tickets_k)
        clReleaseKernel(tickets_k);
    if (sort_k)
        clReleaseKernel(sort_k);
    cl_mem ms[] = { plan, ctl };
    clsort_release_mems(ms, 2);
    return st;
}
