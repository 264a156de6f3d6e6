/*
 * The serial form of the radix passes (after base.cl, in place of the work-group kernels).
 */
#if !SERIAL
#error "cl/radix/serial.cl is the form for SERIAL=1"
#endif

/* ---- reduce-then-scan in one work-item per tile (CPU devices) ----
 * A CPU runs a work-group as a loop over its work-items with the barriers in between, so ranking in
 * local memory costs far more than it saves there. Here one work-item walks its tile of tile_len keys
 * in order: it counts the tile's digits, and after the scan of the counts table writes each key to
 * the next free position of its digit: a stable counting pass, each tile on a core of its own. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix8_serial_count(__global const key_t *keys, ulong n, uint shift, __global ulong *table,
                         ulong tps, ulong seg_len, ulong tile_len VSEG_PARAM)
{
    ulong count;
    tile_ref ref;
    const ulong start =
        rts_tile_len(get_group_id(0), n, seg_len, tps, tile_len, &count, &ref VSEG_ARG);
    if (VARSEG && count == 0)
        return; /* a spare tile of variable segments */
    __global const key_t *in = keys + start;
    gpos_t c[BINS];
    for (uint d = 0; d < BINS; d++)
        c[d] = 0;
    for (ulong p = 0; p < count; p++)
        c[digit_of(key_to_bits(in[p]), shift, DIGIT_MASK)]++;
    for (uint d = 0; d < BINS; d++)
        table[ref.row + d * ref.stride] = c[d];
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix8_serial_scatter(__global const key_t *keys_in, __global key_t *keys_out,
#if HAS_VALUES
                           __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#endif
                           ulong n, uint shift, __global const ulong *table, ulong tps, ulong seg_len,
                           ulong tile_len VSEG_PARAM)
{
    ulong count;
    tile_ref ref;
    const ulong start =
        rts_tile_len(get_group_id(0), n, seg_len, tps, tile_len, &count, &ref VSEG_ARG);
    if (VARSEG && count == 0)
        return; /* a spare tile of variable segments */
    gpos_t next[BINS];
    for (uint d = 0; d < BINS; d++)
        next[d] = (gpos_t)(table[ref.row + d * ref.stride] + ref.delta);
    for (ulong p = start; p < start + count; p++) {
        const key_t k = keys_in[p];
        const gpos_t dst = next[digit_of(key_to_bits(k), shift, DIGIT_MASK)]++;
        keys_out[dst] = k; /* the mapping is one-to-one: the key itself goes, not its bits */
#if HAS_VALUES
        vals_out[dst] = vals_in[p];
#endif
    }
}
