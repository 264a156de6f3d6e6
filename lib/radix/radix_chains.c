/*
 * The long segments of variable segments by look-back (cl/radix/chains.cl, VARSEG and LOOKBACK):
 * each long segment's tiles form a look-back chain of their own in every pass. One launch counts
 * every digit place of every long segment (radix8_seg_hist), then one binning launch per place
 * whose first tile of each segment starts its chain from the segment's digit starts: 1 + places
 * launches where reduce-then-scan takes five a place (the tile counts, three scan kernels and the
 * binning), and each key is read once a pass rather than twice.
 *
 * The host does not know the offsets when they are on the device, so the launches cover the upper
 * bound of tiles segments.c describes and the counts the upper bound of long segments; the spare
 * tiles' work-groups return at once. The status words come in two regions that the passes take in
 * turn, each tile clearing its words of the other region for the pass after its own; the last pass
 * leaves each segment's counts zero for the next sort, as the up-front histogram of onesweep does.
 * Calls: radix_shape.c, buffers.c, program.c, chain.c.
 */
#include "radix.h"

/* Each long segment's counts of every place, zero when the launch starts (a new kept buffer is
 * filled whole, slack included: a larger sort later uses more of it). */
static clsort_status counts(clsort_context *ctx, radix_run *r, size_t words)
{
    clsort_status st = clsort_scratch(ctx, CLSORT_SLOT_COUNTERS, words * 4, &r->seg_hist,
                                      "radix8 segment counts");
    if (st != CLSORT_OK || clsort_scratch_zeroed(ctx, CLSORT_SLOT_COUNTERS, r->seg_hist))
        return st;
    const size_t kept = clsort_scratch_kept_bytes(ctx, CLSORT_SLOT_COUNTERS, r->seg_hist);
    return clsort_fill(ctx, r->seg_hist, 0, kept > words * 4 ? kept / 4 * 4 : words * 4);
}

clsort_status clsort_radix_chains(clsort_context *ctx, radix_run *r)
{
    const clsort_varseg *v = r->job->varseg;
    const size_t wg = r->s.wg, tiles = v->tiles;
    const cl_ulong region = ((cl_ulong)tiles + 1) * r->bins;
    cl_mem status = NULL, modes = NULL;
    cl_kernel k = NULL;
    clsort_status st;
    if ((st = counts(ctx, r, v->longs * r->places * r->bins)) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_STATUS, 2 * region * 4, &status,
                             "radix8 status words")) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_OFFSETS, ((r->places + 2) * r->bins + r->places) * 8,
                             &modes, "radix8 modes")) != CLSORT_OK ||
        (st = clsort_create_kernel(ctx, r->prog, "radix8_seg_hist", &k)) != CLSORT_OK ||
        (st = clsort_set_args(ctx, k, "radix8_seg_hist", 6, ARG(r->job->keys), ARG(v->desc),
                              ARG(r->seg_hist), ARG(status), ARG(region), ARG(modes))) !=
            CLSORT_OK)
        goto done;
    /* The counts are not zero from here until the last pass has run. */
    clsort_scratch_set_dirty(ctx, CLSORT_SLOT_COUNTERS, r->seg_hist);
    if ((st = clsort_launch(ctx, k, tiles * wg, wg)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, r->fam, "seg counts", 0);
    for (cl_uint place = 0; place < r->places && st == CLSORT_OK; place++) {
        const unsigned io = r->done_passes++;
        /* off_index: the other region, which this pass clears for the next */
        const radix_bin_args a = { .n = r->job->n, .shift = r->begin + place * r->digit_bits,
                                   .status = status, .status_off = (place & 1) * region,
                                   .offsets = modes, .off_index = ((place + 1) & 1) * region };
        if ((st = clsort_radix_bin_args(ctx, r, io, &a)) == CLSORT_OK &&
            (st = clsort_launch(ctx, r->bin_k, tiles * wg, wg)) == CLSORT_OK)
            clsort_profile_last(ctx, r->fam, "seg chain", place);
    }
    if (st == CLSORT_OK)
        clsort_scratch_set_zeroed(ctx, CLSORT_SLOT_COUNTERS, r->seg_hist);
done:
    if (k)
        clReleaseKernel(k);
    cl_mem ms[] = { r->seg_hist, status, modes };
    clsort_release_mems(ms, 3);
    r->seg_hist = NULL;
    return st;
}
