/*
 * The onesweep chain of the radix sorts: one up-front histogram of all digit places (of whole
 * bytes; a 4-bit place is read off the low or high half of a byte's counts) and the digit offsets
 * from it in the same launch, then
 * one binning kernel per digit place with decoupled look-back over per-(tile, digit) status words
 * (about 2n traffic per pass). A status word packs a 2-bit flag and a 30-bit count, so it bins at most
 * 2^30 - 1 keys per launch: larger inputs are split into portions of whole tiles, each with its own
 * offsets from the histogram.
 * Calls: radix_shape.c, radix_hybrid.c, buffers.c, program.c, chain.c.
 */
#include "radix.h"

/* The onesweep sort's geometry and buffers. */
typedef struct onesweep {
    size_t tiles, pt, per_portion, regions, region_words, hist_words;
    cl_uint portions;
    cl_ulong portion_size;
    cl_mem counters, work, offsets, status;
    int status_clear; /* the single status region is clear for the first pass (the histogram did it) */
} onesweep;

/*
 * Keys per histogram work-group. One portion: HIST_GROUPS_PER_CU per compute unit over equal runs
 * of keys, so that every compute unit gets the same work (H100, 2^28 keys: 0.563 ms, 0.571 with 16 per
 * compute unit; 0.628 with runs of whole tiles, which left some compute units one run more than
 * others). Several portions: a few per compute unit, each over whole tiles dividing a portion.
 */
static cl_ulong hist_chunk(const clsort_context *ctx, const radix_run *r, const onesweep *o)
{
    const int setting = ctx->settings.radix_hist_per_cu;
    const unsigned per_cu = setting >= 0 ? (unsigned)setting : HIST_GROUPS_PER_CU;
    const cl_ulong n = r->job->n;
    if (o->portions == 1 && per_cu) {
        const cl_ulong groups = (cl_ulong)(ctx->compute_units ? ctx->compute_units : 1) * per_cu;
        const cl_ulong step = (cl_ulong)r->s.wg * 4 * HIST_LOADS; /* keys per round of its loop */
        return ((n + groups - 1) / groups + step - 1) / step * step;
    }
    size_t hk = o->tiles / ((size_t)ctx->compute_units * 4 + 1);
    size_t p2 = 1;
    while (p2 * 2 <= hk && p2 * 2 <= MAX_HIST_TILES)
        p2 *= 2;
    while (o->pt % p2)
        p2 /= 2;
    return (cl_ulong)p2 * r->s.tile;
}

static clsort_status alloc_buffers(clsort_context *ctx, const radix_run *r, onesweep *o)
{
    clsort_status st;
    if ((st = clsort_scratch(ctx, CLSORT_SLOT_COUNTERS, (1 + o->hist_words) * 4, &o->counters,
                             "radix8 histogram")) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_OFFSETS, ((r->places + 2) * r->bins + r->places) * 8,
                             &o->offsets, "radix8 offsets")) != CLSORT_OK)
        return st;
    if (o->regions > 1)
        return clsort_scratch(ctx, CLSORT_SLOT_WORK, o->regions * o->region_words * 4, &o->work,
                              "radix8 status words");
    return clsort_scratch(ctx, CLSORT_SLOT_STATUS, o->region_words * 4, &o->status,
                          "radix8 status words");
}

/* The histogram of every digit place and the digit offsets from it, in one launch that also clears
 * the status words of the passes (all regions, or the single region's first use). Its counters need
 * a fill only when new: each sort leaves them zero. */
static clsort_status count(clsort_context *ctx, const radix_run *r, onesweep *o)
{
    const cl_ulong n = r->job->n, chunk = hist_chunk(ctx, r, o);
    const size_t groups = (r->job->n + chunk - 1) / chunk, wg = r->s.wg;
    const cl_ulong status_words = (cl_ulong)o->regions * o->region_words;
    cl_kernel hist_k = NULL;
    clsort_status st;
    if ((st = clsort_create_kernel(ctx, r->prog, "radix8_histogram", &hist_k)) != CLSORT_OK ||
        (st = alloc_buffers(ctx, r, o)) != CLSORT_OK)
        goto done;
    /* A new kept buffer is filled whole, slack included: a larger sort later uses more of it. */
    const size_t need = (1 + o->hist_words) * 4;
    const size_t kept = clsort_scratch_kept_bytes(ctx, CLSORT_SLOT_COUNTERS, o->counters);
    if (!clsort_scratch_zeroed(ctx, CLSORT_SLOT_COUNTERS, o->counters) &&
        (st = clsort_fill(ctx, o->counters, 0, kept > need ? kept / 4 * 4 : need)) != CLSORT_OK)
        goto done;
    const cl_mem status = o->regions > 1 ? o->work : o->status;
    if ((st = clsort_set_args(ctx, hist_k, "radix8_histogram", 9, ARG(r->job->keys), ARG(n),
                              ARG(chunk), ARG(o->portion_size), ARG(o->portions),
                              ARG(o->counters), ARG(o->offsets), ARG(status),
                              ARG(status_words))) != CLSORT_OK ||
        (st = clsort_launch(ctx, hist_k, groups * wg, wg)) != CLSORT_OK)
        goto done;
    clsort_scratch_set_zeroed(ctx, CLSORT_SLOT_COUNTERS, o->counters);
    o->status_clear = o->regions == 1;
    clsort_profile_last(ctx, r->fam, "histogram", 0);
done:
    if (hist_k)
        clReleaseKernel(hist_k);
    return st;
}

/* Digit places where every key has the same digit would move every key to where it is: when the
 * caller waits anyway, read the offsets back and mark those passes to be left out. */
static clsort_status find_skips(clsort_context *ctx, const radix_run *r, const onesweep *o,
                                int skip[16])
{
    const cl_ulong n = r->job->n;
    const unsigned bins = r->bins;
    cl_ulong off[8 * HIST_BINS]; /* places x bins: 8 x 256 or 16 x 16 at most */
    clsort_status st = clsort_chain_settle(ctx);
    if (st != CLSORT_OK)
        return st;
    cl_int err = clEnqueueReadBuffer(ctx->queue, o->offsets, CL_TRUE, 0,
                                     r->places * bins * sizeof off[0], off, 1, &ctx->last_event,
                                     NULL);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clEnqueueReadBuffer(radix8 offsets)");
    for (unsigned place = 0; place < r->places; place++)
        for (unsigned d = 0; d < bins; d++) {
            cl_ulong next = d + 1 < bins ? off[place * bins + d + 1] : n;
            if (next - off[place * bins + d] == n)
                skip[place] = 1;
        }
    return CLSORT_OK;
}

/* One digit place: a binning launch per portion. */
static clsort_status onesweep_pass(clsort_context *ctx, radix_run *r, onesweep *o,
                                   cl_uint place)
{
    const cl_ulong n = r->job->n;
    const unsigned bins = r->bins, io = r->done_passes++;
    radix_bin_args a = { .shift = r->begin + place * r->digit_bits, .offsets = o->offsets };
    for (cl_uint p = 0; p < o->portions; p++) {
        a.base = (cl_ulong)p * o->portion_size;
        a.n = n - a.base < o->portion_size ? n - a.base : o->portion_size;
        const size_t ptiles = (size_t)((a.n + r->s.tile - 1) / r->s.tile);
        /* Portion 0 starts at the pass's offsets; later ones at what the one before left in one of
         * two running slots after the passes' offsets. */
        a.off_index = p == 0 ? (cl_ulong)place * bins : (r->places + ((p + 1) & 1)) * bins;
        a.off_next = (r->places + (p & 1)) * bins;
        a.ntiles = ptiles;
        /* The region's first word is the tile counter, the status words follow; both start at
         * zero: the histogram launch cleared every region, or the single region for its first
         * use; a reused one is cleared again. */
        a.status_off = o->regions > 1 ? place * o->region_words : 0;
        a.status = o->regions > 1 ? o->work : o->status;
        clsort_status st = CLSORT_OK;
        if (o->regions == 1 && !o->status_clear)
            st = clsort_fill(ctx, o->status, 0, (ptiles + 1) * bins * 4);
        o->status_clear = 0;
        if (st == CLSORT_OK)
            st = clsort_radix_bin_args(ctx, r, io, &a);
        if (st == CLSORT_OK)
            st = clsort_launch(ctx, r->bin_k, ptiles * r->s.wg, r->s.wg);
        if (st != CLSORT_OK)
            return st;
        clsort_profile_last(ctx, r->fam, "onesweep", place);
    }
    return CLSORT_OK;
}

clsort_status clsort_radix_onesweep(clsort_context *ctx, radix_run *r)
{
    onesweep o = { .tiles = clsort_radix_tiles(&r->s, r->job->spec, r->job->n, NULL) };
    o.pt = clsort_radix_portion_tiles(ctx, &r->s);
    o.portions = (cl_uint)((o.tiles + o.pt - 1) / o.pt);
    o.per_portion = o.tiles < o.pt ? o.tiles : o.pt;
    o.portion_size = (cl_ulong)o.pt * r->s.tile;
    o.hist_words = (size_t)o.portions * clsort_radix_hist_places(r->places, r->digit_bits) *
                   HIST_BINS;
    o.region_words = (o.per_portion + 1) * r->bins;
    o.regions = clsort_radix_status_regions(r->places, o.portions, o.per_portion);

    int skip[16] = { 0 };
    clsort_status st = count(ctx, r, &o);
    if (st == CLSORT_OK && r->job->may_block)
        st = find_skips(ctx, r, &o, skip);
    /* radix-hybrid: the top place first, then the buckets (one portion only: the buckets' offsets
     * come from the histogram's single set); where every key has the same top digit there is one
     * bucket, and the places' own passes do better. */
    const cl_uint top = r->places - 1;
    const int hybrid = st == CLSORT_OK && r->hybrid && o.portions == 1 && !skip[top];
    if (hybrid && (st = onesweep_pass(ctx, r, &o, top)) == CLSORT_OK)
        st = clsort_radix_hybrid(ctx, r, o.offsets);
    for (cl_uint place = 0; !hybrid && place < r->places && st == CLSORT_OK; place++) {
        if (skip[place])
            ctx->passes_skipped++;
        else
            st = onesweep_pass(ctx, r, &o, place);
    }
    cl_mem ms[] = { o.counters, o.work, o.offsets, o.status };
    clsort_release_mems(ms, sizeof ms / sizeof ms[0]);
    return st;
}
