/*
 * Odd-even transposition sort. Not stable.
 *
 * oddeven_tile sorts tiles holding whole segments (of up to TILE keys) in local memory: as many phases
 * as a segment has keys, alternating between the pairs that start at even and at odd offsets, with a
 * barrier between phases. Longer arrays or segments are cut into blocks of TILE / 2 keys: oddeven_block
 * sorts each block, then merge-splits neighbouring blocks (alternately the even and the odd pairs, as
 * many phases as there are blocks), each merge-split being again a transposition sort in local memory.
 *
 * Keys are key_t (KEY_BITS 32 or 64) already mapped to their unsigned order bits; only the bits of
 * KEY_RANGE_MASK are compared, whole keys move.
 *
 * Options: WG, ITEMS (TILE = WG * ITEMS keys), HAS_VALUES, VALUE_T, KEY_BITS, KEY_RANGE_MASK.
 */

#define TILE (WG * ITEMS)

#if KEY_RANGE_MASK == KEY_ONES
#define KEY_GREATER(a, b) ((a) > (b))
#else
#define KEY_GREATER(a, b) (((a) & KEY_RANGE_MASK) > ((b) & KEY_RANGE_MASK))
#endif

#if HAS_VALUES
#define OE_ARGS __global key_t *keys, __global VALUE_T *vals
#define OE_LOCAL                                                                                   \
    __local key_t lk[TILE];                                                                        \
    __local VALUE_T lv[TILE]
#define OE_LV , lv
#else
#define OE_ARGS __global key_t *keys
#define OE_LOCAL __local key_t lk[TILE]
#define OE_LV
#endif

/* Transposition sort of lk[0, cnt) with runs of `run` keys sorted independently. */
inline void oe_sort(__local key_t *lk,
#if HAS_VALUES
                    __local VALUE_T *lv,
#endif
                    uint cnt, uint run)
{
    const uint phases = min(run, cnt);
    for (uint ph = 0; ph < phases; ph++) {
        for (uint i = 2 * get_local_id(0) + (ph & 1); i + 1 < cnt; i += 2 * WG) {
            if (i % run == run - 1)
                continue; /* the pair straddles two segments */
            const key_t a = lk[i], b = lk[i + 1];
            if (KEY_GREATER(a, b)) {
                lk[i] = b;
                lk[i + 1] = a;
#if HAS_VALUES
                const VALUE_T t = lv[i];
                lv[i] = lv[i + 1];
                lv[i + 1] = t;
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

inline void oe_load(__global const key_t *keys,
#if HAS_VALUES
                    __global const VALUE_T *vals, __local VALUE_T *lv,
#endif
                    __local key_t *lk, ulong lo, uint cnt)
{
    for (uint p = get_local_id(0); p < cnt; p += WG) {
        lk[p] = key_to_bits(keys[lo + p]);
#if HAS_VALUES
        lv[p] = vals[lo + p];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void oe_store(__global key_t *keys,
#if HAS_VALUES
                     __global VALUE_T *vals, __local const VALUE_T *lv,
#endif
                     __local const key_t *lk, ulong lo, uint cnt)
{
    for (uint p = get_local_id(0); p < cnt; p += WG) {
        keys[lo + p] = bits_to_key(lk[p]);
#if HAS_VALUES
        vals[lo + p] = lv[p];
#endif
    }
}

#if HAS_VALUES
#define OE_IO(f, ...) f(keys, vals, lv, __VA_ARGS__)
#else
#define OE_IO(f, ...) f(keys, __VA_ARGS__)
#endif

/* Each work-group sorts `spg` consecutive segments of seg_len <= TILE keys (the last may be short). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void oddeven_tile(OE_ARGS, ulong n, ulong seg_len, uint spg)
{
    OE_LOCAL;
    const ulong lo = (ulong)get_group_id(0) * spg * seg_len;
    const uint cnt = (uint)min((ulong)spg * seg_len, n - lo);
    OE_IO(oe_load, lk, lo, cnt);
    oe_sort(lk OE_LV, cnt, (uint)seg_len);
    OE_IO(oe_store, lk, lo, cnt);
}

/*
 * Blocks of `blk` keys inside segments of seg_len keys. span 1: each work-group sorts one block.
 * span 2: work-group r of a segment merge-splits blocks j and j + 1, j = 2r + parity. gps: work-groups
 * per segment.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void oddeven_block(OE_ARGS, ulong n, ulong seg_len, ulong blk, uint span, uint parity, ulong gps)
{
    OE_LOCAL;
    /* One division (no %): oclgrind cannot check the `freeze` LLVM makes of a div/rem pair. */
    const ulong g = get_group_id(0), seg = g / gps, j = (g - seg * gps) * span + parity;
    const ulong end = min(seg * seg_len + seg_len, n);
    const ulong lo = seg * seg_len + j * blk;
    if (lo >= end)
        return;
    const ulong hi = min(lo + span * blk, end);
    if (span == 2 && lo + blk >= hi)
        return; /* block j has no right neighbour */
    const uint cnt = (uint)(hi - lo);
    OE_IO(oe_load, lk, lo, cnt);
    oe_sort(lk OE_LV, cnt, cnt);
    OE_IO(oe_store, lk, lo, cnt);
}
