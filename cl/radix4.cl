/*
 * 4-bit LSD radix sort: for each digit place, radix4_histogram counts the digits of every tile,
 * the host scans the digit-major table of counts (scan.cl), and radix4_scatter ranks each tile's keys
 * stably in local memory and writes them, grouped by digit, to their global positions.
 *
 * Options: WG, ITEMS (tile = WG * ITEMS keys), RADIX = 16, HAS_VALUES, VALUE_T, and the key options
 * of common.cl. Each pass takes the digit at `shift`, `mask` wide (narrower than 4 bits for the last
 * digit of a bit range).
 */

#define TILE (WG * ITEMS)

/* Digit-major table of per-tile digit counts: hist[d * num_tiles + tile]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix4_histogram(__global const key_t *keys, ulong n, uint shift, uint mask,
                      __global ulong *hist, ulong num_tiles)
{
    __local uint counters[RANK_COUNTERS];
    __local uint partial[WG];
    const uint lid = get_local_id(0);
    const ulong tile = get_group_id(0);
    const ulong start = tile * TILE;

    rank_clear(counters);
    /* Striped reads: consecutive work-items read consecutive keys. */
    for (uint i = 0; i < ITEMS; i++) {
        ulong idx = start + (ulong)i * WG + lid;
        if (idx < n)
            rank_count(counters, digit_of(key_to_bits(keys[idx]), shift, mask));
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Row sums in two steps so every work-item helps: WG/RADIX segments of RADIX columns per row. */
    const uint segs = WG / RADIX;
    const uint d = lid / segs, s = lid % segs;
    uint sum = 0;
    for (uint c = 0; c < RADIX; c++)
        sum += counters[RANK_AT(d * WG + s * RADIX + c)];
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX) {
        uint total = 0;
        for (uint j = 0; j < segs; j++)
            total += partial[lid * segs + j];
        hist[lid * num_tiles + tile] = total;
    }
}

/* Stable scatter of one tile. offsets[d * num_tiles + tile] is where the tile's first key of digit d
 * goes (the exclusive scan of the histogram table). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix4_scatter(__global const key_t *keys_in, __global key_t *keys_out,
#if HAS_VALUES
                    __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#endif
                    ulong n, uint shift, uint mask, __global const ulong *offsets, ulong num_tiles)
{
    __local uint counters[RANK_COUNTERS];
    __local uint scan_scratch[WG];
    __local key_t lkeys[TILE];
#if HAS_VALUES
    __local VALUE_T lvals[TILE];
#endif
    __local ulong gbase[RADIX];
    __local uint tstart[RADIX];

    const uint lid = get_local_id(0);
    const ulong tile = get_group_id(0);
    const ulong start = tile * TILE;
    const uint count = (uint)min((ulong)TILE, n - start);

    /* Blocked order (work-item lid holds keys lid*ITEMS ...) keeps the ranking stable. Keys past the end
     * get all-ones bits: the largest digit, ranked after every real key, so they never reach memory. */
    key_t bits[ITEMS];
    uint before[ITEMS];
    rank_clear(counters);
    for (uint i = 0; i < ITEMS; i++) {
        uint pos = lid * ITEMS + i;
        bits[i] = pos < count ? key_to_bits(keys_in[start + pos]) : KEY_ONES;
        before[i] = rank_count(counters, digit_of(bits[i], shift, mask));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    rank_scan(counters, scan_scratch);

    if (lid < RADIX) {
        tstart[lid] = rank_base(counters, lid, 0);
        gbase[lid] = offsets[lid * num_tiles + tile];
    }
    for (uint i = 0; i < ITEMS; i++) {
        uint pos = lid * ITEMS + i;
        uint d = digit_of(bits[i], shift, mask);
        uint r = rank_base(counters, d, lid) + before[i];
        lkeys[r] = bits[i];
#if HAS_VALUES
        if (pos < count)
            lvals[r] = vals_in[start + pos];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Ranked keys of one digit are contiguous in local memory and go to contiguous global positions,
     * so striped writes coalesce. */
    for (uint i = 0; i < ITEMS; i++) {
        uint p = i * WG + lid;
        if (p < count) {
            key_t b = lkeys[p];
            uint d = digit_of(b, shift, mask);
            ulong dst = gbase[d] + (p - tstart[d]);
            keys_out[dst] = bits_to_key(b);
#if HAS_VALUES
            vals_out[dst] = lvals[p];
#endif
        }
    }
}
