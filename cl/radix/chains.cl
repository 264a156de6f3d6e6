/*
 * The long segments of variable segments by look-back chains (VARSEG=1 and LOOKBACK=1; after
 * ranking.cl, before binning.cl, whose radix8_bin calls seg_tile_start).
 */
#if !(VARSEG && LOOKBACK)
#error "cl/radix/chains.cl is the form for VARSEG=1 and LOOKBACK=1"
#endif

/*
 * Variable segments with look-back: one work-group per described tile (seg_tiles in
 * cl/segments/tiles.cl), the spare ones past the tiles in use doing nothing but the first group's
 * chores. Each clears its
 * tile's status words in both regions (status_buf: two of region_words words, the passes taking
 * them in turn) and counts every digit place of its keys into its segment's rows of seg_hist,
 * which are zero: the last pass of the sort before cleared them after use. Group 0 clears the
 * regions' tile counters and the modes (no place is taken as spread, dominated or of one digit:
 * those are facts of a whole array).
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_seg_hist(__global const key_t *keys, __global const ulong *vseg,
                     __global uint *seg_hist, __global uint *status_buf, ulong region_words,
                     __global ulong *modes)
{
    __local uint h[HIST_COPIES * HIST_PLACES * HBINS];
    const uint lid = get_local_id(0);
    const ulong tile = get_group_id(0);
    __global const ulong *const d = vseg + tile * VSEG_WORDS;
    const ulong start = d[0], count = d[1], row = d[4];
    if (tile == 0 && lid < 2)
        status_buf[lid * region_words] = 0;
    if (tile == 0 && lid < PLACES)
        modes[SPREAD_SLOT + lid] = 0;
    if (count == 0)
        return;
    for (uint i = lid; i < 2 * BINS; i += WG)
        status_buf[(i / BINS) * region_words + BINS + tile * BINS + i % BINS] = 0;
    for (uint i = lid; i < HIST_COPIES * HIST_PLACES * HBINS; i += WG)
        h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    count_run(h + (lid % HIST_COPIES) * HIST_PLACES * HBINS, keys, start, start + count);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < HIST_PLACES * HBINS; j += WG) {
        uint c = 0;
        for (uint k = 0; k < HIST_COPIES; k++)
            c += h[k * HIST_PLACES * HBINS + j];
        if (c)
            atomic_add(&seg_hist[(row * PLACES + j / HBINS) * BINS + DIGIT_SLOT(j % HBINS)], c);
    }
}

/* Before a tile of variable segments bins (radix8_bin): its words in the other status region
 * cleared for the pass after this one (status_buf + other), and on a segment's first tile the
 * segment's digit starts of this place into ldelta (chain_start); the last place's clears the
 * segment's counts for the next sort. */
inline void seg_tile_start(__global uint *other, __global uint *seg_hist, ulong tile,
                           const tile_ref *ref, uint shift, __local gpos_t *ldelta,
                           __local uint *scratch)
{
    const uint lid = get_local_id(0);
    for (uint d = lid; d < BINS; d += WG)
        other[BINS + tile * BINS + d] = 0;
    if (tile == ref->first) { /* the same over the group */
        const uint place = (shift - RANGE_BEGIN) / DIGIT_BITS;
        __global uint *const h = seg_hist + ref->row * PLACES * BINS;
        uint ex[DIGITS_PER_ITEM];
        const uint first = bins_scan_counts(h + place * BINS, scratch, ex);
        for (uint j = 0; j < DIGITS_PER_ITEM && first + j < BINS; j++)
            ldelta[first + j] = ex[j];
        if (place == PLACES - 1) {
            barrier(CLK_GLOBAL_MEM_FENCE); /* every count read */
            for (uint i = lid; i < PLACES * BINS; i += WG)
                h[i] = 0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
