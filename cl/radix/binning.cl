/*
 * The binning pass (after ranking.cl): which tile a work-group bins, the global position of each
 * of its digits (look-back or the scanned table), the scatter of its reordered keys and values,
 * and the kernel radix8_bin that runs them.
 */


#ifdef STALL_TILE
/* Test hook (-DSTALL_TILE=t): the work-group of tile t dawdles before it publishes anything, as one
 * the device has set aside would; the tiles after it must wait for it, not deadlock. Adding 0 to the
 * tile counter is a side effect the compiler cannot drop. */
inline void stall_tile(__global uint *counter, ulong tile)
{
    if (tile == STALL_TILE && get_local_id(0) == 0)
        for (uint i = 0; i < 100000; i++)
            atomic_add(counter, 0u);
    barrier(CLK_GLOBAL_MEM_FENCE);
}
#else
inline void stall_tile(__global uint *counter, ulong tile) {}
#endif


#if LOOKBACK
/* Onesweep: tile ids come from the counter in the order work-groups start (see the top of
 * base.cl); the tile's digit counts go through the look-back, so *ref is not used. */
inline ulong bin_tile(__global uint *counter, __local uint *ltile, ulong base, ulong portion_n,
                      ulong seg_len, ulong num_tiles, ulong *tstart, uint *count, tile_ref *ref,
                      __global const ulong *vseg)
{
    const uint lid = get_local_id(0);
    if (lid == 0)
        *ltile = atomic_inc(counter);
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong tile = *ltile;
    stall_tile(counter, tile);
    ref->row = ref->stride = ref->delta = ref->first = 0;
#if VARSEG
    __global const ulong *const d = vseg + tile * VSEG_WORDS;
    *tstart = d[0];
    *count = (uint)d[1];
    ref->first = d[2];
    ref->delta = d[3];
    ref->row = d[4];
#else
    *tstart = base + tile * TILE;
    *count = (uint)min((ulong)TILE, portion_n - tile * TILE);
#endif
    return tile;
}

/* Where the tile's first key of digit d goes: the portion's offset of d plus the keys of d in
 * earlier tiles, by look-back (walked already where LB_EARLY_WALK: early_excl). The portion's last
 * tile leaves the next portion's offset of d. Variable segments: the segment's offset plus the
 * chain's prefix, which counts from the segment's digit start. */
inline ulong digit_base(uint d, __local const uint *lcount, uint early_excl, __global uint *status,
                        ulong tile, __global ulong *offsets, ulong off_index, ulong off_next,
                        ulong num_tiles, const tile_ref *ref, __local const gpos_t *ldelta)
{
    const uint own = lcount[d];
    uint excl;
    if (LB_EARLY_WALK) {
        excl = early_excl; /* d == lid: the warp ranking has WG >= BINS */
    } else {
        const uint start = chain_start(ref, tile, ldelta, d);
        if (LB_LATE_PUBLISH)
            lb_publish(status, tile, d, own, ref->first, start);
        excl = lb_walk(status, tile, d, own, ref->first, start);
    }
    if (VARSEG)
        return ref->delta + excl;
    const ulong gbase = LOAD_WORD(offsets + off_index + d) + excl;
    if (tile == num_tiles - 1)
        offsets[off_next + d] = gbase + own;
    return gbase;
}
#else
/* Reduce-then-scan: tiles of rts_tile(), in launch order. */
inline ulong bin_tile(__global uint *counter, __local uint *ltile, ulong base, ulong portion_n,
                      ulong seg_len, ulong num_tiles, ulong *tstart, uint *count, tile_ref *ref,
                      __global const ulong *vseg)
{
    const ulong tile = get_group_id(0);
    *tstart = rts_tile(tile, portion_n, seg_len, num_tiles, count, ref, vseg);
    return tile;
}

/* Where the tile's first key of digit d goes: the scanned table's entry. */
inline ulong digit_base(uint d, __local const uint *lcount, uint early_excl, __global uint *status,
                        ulong tile, __global ulong *offsets, ulong off_index, ulong off_next,
                        ulong num_tiles, const tile_ref *ref, __local const gpos_t *ldelta)
{
    return offsets[ref->row + d * ref->stride] + ref->delta;
}
#endif

/* Each digit's global offset minus its tile start, in ldelta: key p of the reordered tile goes to
 * ldelta[its digit] + p. */
inline void tile_offsets(__local const uint *lcount, __local const uint *lstart, __local gpos_t *ldelta,
                         uint early_excl, __global uint *status, ulong tile, __global ulong *offsets,
                         ulong off_index, ulong off_next, ulong num_tiles, const tile_ref *ref)
{
    const uint lid = get_local_id(0);
    for (uint d = lid; d < BINS; d += WG) {
        const ulong gbase = digit_base(d, lcount, early_excl, status, tile, offsets, off_index,
                                       off_next, num_tiles, ref, ldelta);
        ldelta[d] = (gpos_t)(gbase - lstart[d]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Keys of one digit are contiguous in lkeys and go to contiguous global positions, consecutive
 * work-items writing consecutive positions. Values go along by index (lidx) or from lvals; where they
 * follow later, dig4 keeps the digits of the keys written, four to a word. */
inline void scatter_keys(__local const key_t *lkeys, __local const gpos_t *ldelta, uint count,
                         uint shift, __global key_t *keys_out, __global const VALUE_T *vals_in,
                         __global VALUE_T *vals_out, ulong tstart, __local const uint *lidx,
                         __local const VALUE_T *lvals, uint *dig4)
{
    const uint lid = get_local_id(0);
    if (VALUES_AFTER_KEYS)
        for (uint j = 0; j < (ITEMS + 3) / 4; j++)
            dig4[j] = 0;
    for (uint i = 0; i < ITEMS; i++) {
        uint p = i * WG + lid;
        key_t b = lkeys[p];
        uint d = digit_of(b, shift, DIGIT_MASK);
        if (VALUES_AFTER_KEYS)
            dig4[i >> 2] |= d << (8 * (i & 3));
        if (p < count) {
            gpos_t dst = ldelta[d] + p;
            keys_out[dst] = bits_to_key(b); /* the mapping is one-to-one */
            if (VALUES_BY_INDEX)
                vals_out[dst] = LOAD_VALUE(vals_in + tstart + lidx[p]);
            else if (VALUES_WITH_KEYS)
                vals_out[dst] = lvals[p];
        }
    }
}

/*
 * One binning pass over a tile: rank the tile's keys by the digit at `shift` (stable), find the
 * tile's global offset of each digit (look-back or the scanned table), reorder the keys in local
 * memory so keys of one digit are contiguous, and write them out with consecutive work-items writing
 * consecutive positions.
 *
 * Keys [base, base + portion_n) form this launch's portion. Onesweep: status_buf + status_off holds the
 * next tile id and then 256 words per tile of the portion (all zeroed), offsets + off_index the portion's digit
 * offsets; the portion's last tile writes those of the next portion to offsets + off_next (portions
 * of one pass run one launch after another, so the next portion's offsets depend on this one's).
 * Reduce-then-scan: base is 0, portion_n is n, offsets is the scanned table of rts_tile(), num_tiles
 * the tiles per segment of seg_len keys.
 */
/* The tile's steps after bin_tile, shared by radix8_bin and radix8_hybrid: the tile of `count` keys
 * from tstart, number `tile` of its look-back chain (status), the digit at `shift`; digit bases
 * from offsets + off_index (onesweep) or ref (reduce-then-scan); modes: where the histogram left
 * how each place's digits fall. The local memory is the kernel's (BIN_LOCALS). */
#define BIN_STEP_PARAMS                                                                            \
    __global const key_t *keys_in, __global key_t *keys_out, __global const VALUE_T *vals_in,      \
        __global VALUE_T *vals_out, ulong tstart, uint count, ulong tile, uint shift,              \
        __global uint *status, __global const ulong *modes, __global ulong *offsets,               \
        ulong off_index, ulong off_next, ulong num_tiles, const tile_ref *ref
#if USE_PTX
#define BIN_LOCALS                                                                                 \
    __local ulong lmem[LMEM_WORDS];                                                                \
    __local uint lcount[BINS];                                                                     \
    __local uint lstart[BINS];                                                                     \
    __local gpos_t ldelta[BINS];                                                                   \
    __local uint wsum[WARPS];
#define BIN_LOCAL_ARGS lmem, lcount, lstart, ldelta, wsum
#define BIN_SCAN_SCRATCH wsum
inline void bin_steps(BIN_STEP_PARAMS, __local ulong *lmem, __local uint *lcount,
                      __local uint *lstart, __local gpos_t *ldelta, __local uint *wsum)
{
    __local key_t *const lkeys = (__local key_t *)lmem;
    __local VALUE_T *const lvals = (__local VALUE_T *)(lmem + (VALUES_WITH_KEYS ? LMEM_K : 0));
    __local uint *const wc = (__local uint *)lmem;
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const uint wbase = warp * 32 * ITEMS + lane;
    key_t bits[ITEMS];
    VALUE_T vals[HAS_VALUES ? ITEMS : 1];
    uint ranks[RANK_WORDS], dig4[(ITEMS + 3) / 4];
    ranks_clear(ranks);
    load_striped(bits, keys_in, tstart, count, wbase);
    if (ONE_DIGIT_PASS(modes, shift)) {
        for (uint i = 0; i < ITEMS; i++)
            if (wbase + i * 32 < count)
                keys_out[tstart + wbase + i * 32] = bits_to_key(bits[i]);
        if (HAS_VALUES) {
            load_values_striped(vals, vals_in, tstart, count, wbase);
            for (uint i = 0; i < ITEMS; i++)
                if (wbase + i * 32 < count)
                    vals_out[tstart + wbase + i * 32] = vals[i];
        }
        return;
    }
    warp_counters_clear(wc);
    __local uint *const mywc = wc + warp * BINS, *const mywm = wc + (WARPS + warp) * BINS;
    const ulong mode = match_mode(modes, shift, mywm);
    warp_rank(mode, bits, ranks, shift, mywc, mywm);
    if (HAS_VALUES)
        load_values_striped(vals, vals_in, tstart, count, wbase);
    const uint lb_excl =
        warp_tile_counts(wc, lcount, lstart, wsum, count, shift, status, tile, ref, ldelta);
    ranks_add_bases(ranks, bits, shift, mywc);
    barrier(CLK_LOCAL_MEM_FENCE);
    reorder_striped(bits, vals, ranks, lkeys, lvals);
    tile_offsets(lcount, lstart, ldelta, lb_excl, status, tile, offsets, off_index, off_next,
                 num_tiles, ref);
    scatter_keys(lkeys, ldelta, count, shift, keys_out, vals_in, vals_out, tstart, 0, lvals, dig4);
    if (VALUES_AFTER_KEYS)
        scatter_values_after_keys(vals, ranks, dig4, lvals, ldelta, count, vals_out);
}
#else
#if HAS_VALUES
#define LIDX_LOCAL __local uint lidx[TILE];
#else
#define LIDX_LOCAL __local uint *const lidx = 0;
#endif
#define BIN_LOCALS                                                                                 \
    __local key_t lkeys[TILE];                                                                     \
    __local uint lcount[BINS];                                                                     \
    __local uint lstart[BINS];                                                                     \
    __local gpos_t ldelta[BINS];                                                                   \
    __local uint counters[RANK_COUNTERS];                                                          \
    __local uint scan_scratch[WG];                                                                 \
    __local uint lend[BINS];                                                                       \
    LIDX_LOCAL
#define BIN_LOCAL_ARGS lkeys, lcount, lstart, ldelta, counters, scan_scratch, lend, lidx
#define BIN_SCAN_SCRATCH scan_scratch
inline void bin_steps(BIN_STEP_PARAMS, __local key_t *lkeys, __local uint *lcount,
                      __local uint *lstart, __local gpos_t *ldelta, __local uint *counters,
                      __local uint *scan_scratch, __local uint *lend, __local uint *lidx)
{
    key_t bits[ITEMS];
    uint idx[HAS_VALUES ? ITEMS : 1];
    load_blocked(bits, idx, keys_in, tstart, count);
    if (ONE_DIGIT_PASS(modes, shift)) {
        for (uint i = 0; i < ITEMS; i++) {
            const uint pos = get_local_id(0) * ITEMS + i;
            if (pos < count) {
                keys_out[tstart + pos] = bits_to_key(bits[i]);
                if (HAS_VALUES)
                    vals_out[tstart + pos] = LOAD_VALUE(vals_in + tstart + pos);
            }
        }
        return;
    }
    for (uint sub = 0; sub < DIGIT_BITS; sub += RADIX_BITS)
        rank_sub_digit(bits, idx, shift, sub, counters, scan_scratch, lkeys, lidx);
    tile_bounds(lkeys, count, shift, lcount, lstart, lend);
    tile_offsets(lcount, lstart, ldelta, 0, status, tile, offsets, off_index, off_next, num_tiles,
                 ref);
    scatter_keys(lkeys, ldelta, count, shift, keys_out, vals_in, vals_out, tstart, lidx, 0, 0);
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_bin(BIN_PARAMS)
{
    VALUES_ABSENT
    BIN_LOCALS
    __local uint ltile;
    __global uint *const status = status_buf + status_off + BINS;
    ulong tstart;
    tile_ref ref;
    uint count;
    const ulong tile = bin_tile(status_buf + status_off, &ltile, base, portion_n, seg_len, num_tiles,
                                &tstart, &count, &ref VSEG_ARG);
#if VARSEG && LOOKBACK
    /* off_index: the other status region, whose tile counter the pass after this one starts from */
    if (tile == 0 && get_local_id(0) == 0)
        status_buf[off_index] = 0;
#endif
    if (VARSEG && count == 0)
        return; /* a spare tile of variable segments (uniform over the group) */
#if VARSEG && LOOKBACK
    seg_tile_start(status_buf + off_index, seg_hist, tile, &ref, shift, ldelta, BIN_SCAN_SCRATCH);
#endif
    bin_steps(keys_in, keys_out, vals_in, vals_out, tstart, count, tile, shift, status, offsets,
              offsets, off_index, off_next, num_tiles, &ref, BIN_LOCAL_ARGS);
}
