/*
 * Reduce-then-scan's upsweep (after base.cl): each tile's digit counts into the digit-major table
 * of rts_tile(), which the generic scan (scan.cl) turns into the offsets radix8_bin reads.
 */

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_upsweep(__global const key_t *keys, ulong n, uint shift, __global ulong *table,
                    ulong tps, ulong seg_len VSEG_PARAM)
{
    __local uint h[BINS];
    const uint lid = get_local_id(0);
    uint count;
    tile_ref ref;
    const ulong start = rts_tile(get_group_id(0), n, seg_len, tps, &count, &ref VSEG_ARG);
    if (VARSEG && count == 0)
        return; /* a spare tile of variable segments: its rows are past those scanned */
    for (uint d = lid; d < BINS; d += WG)
        h[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < count; p += WG)
        atomic_inc(&h[digit_of(key_to_bits(keys[start + p]), shift, DIGIT_MASK)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < BINS; d += WG)
        table[ref.row + d * ref.stride] = h[d];
}
