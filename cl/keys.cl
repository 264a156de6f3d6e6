/*
 * In-place key mapping (common.cl's key_to_bits / bits_to_key) as passes of their own, for the
 * families that compare whole unsigned keys: map before the sort, map back after it.
 */

__kernel void keys_to_bits(__global key_t *keys, ulong n)
{
    ulong i = get_global_id(0);
    if (i < n)
        keys[i] = key_to_bits(keys[i]);
}

__kernel void keys_from_bits(__global key_t *keys, ulong n)
{
    ulong i = get_global_id(0);
    if (i < n)
        keys[i] = bits_to_key(keys[i]);
}

#if KEY_KIND == 2
/*
 * numpy's float order (CLSORT_FLOAT_NUMPY) on the device: the sorts see a canonical form, every zero
 * +0.0 and every NaN one NaN that total order puts last (ascending: the largest; descending: the
 * smallest, which the descending mapping puts last), and the zeros and NaNs as they were are saved
 * in input order and put back after the sort in the order the sort left the canonical ones. Each
 * work-group takes a block of FIX_ITEMS keys per work-item, each work-item consecutive keys, so
 * that ranks within the block follow the positions.
 */
#define FIX_ITEMS 16
#define FIX_BLOCK ((ulong)WG * FIX_ITEMS)
#if KEY_BITS == 64
#define FIX_INF 0x7ff0000000000000ul
#else
#define FIX_INF 0x7f800000u
#endif
#if DESCENDING
#define FIX_NAN KEY_ONES
#else
#define FIX_NAN (KEY_ONES >> 1)
#endif

/* 1: a zero of either sign, 2: a NaN, 0: anything else. */
inline uint fix_class(key_t k)
{
    const key_t mag = k & ~KEY_SIGN;
    return mag > FIX_INF ? 2u : mag == 0 ? 1u : 0u;
}

/* This work-item's zeros and NaNs before its own among the block's (exclusive), and the block's. */
inline void fix_ranks(__global const key_t *keys, ulong n, __local ulong *scratch, ulong *z,
                      ulong *q, ulong *tz, ulong *tq)
{
    const ulong first = get_group_id(0) * FIX_BLOCK + get_local_id(0) * FIX_ITEMS;
    ulong cz = 0, cq = 0;
    for (uint i = 0; i < FIX_ITEMS; i++) {
        const ulong p = first + i;
        const uint c = p < n ? fix_class(keys[p]) : 0u;
        cz += c == 1;
        cq += c == 2;
    }
    *z = wg_exclusive_scan_ulong(cz, scratch, tz);
    *q = wg_exclusive_scan_ulong(cq, scratch, tq);
}

/* counts[2 g], counts[2 g + 1]: the zeros and the NaNs of block g. */
__kernel void fix_count(__global const key_t *keys, ulong n, __global ulong *counts)
{
    __local ulong scratch[WG];
    ulong z, q, tz, tq;
    fix_ranks(keys, n, scratch, &z, &q, &tz, &tq);
    if (get_local_id(0) == 0) {
        counts[2 * get_group_id(0)] = tz;
        counts[2 * get_group_id(0) + 1] = tq;
    }
}

/* One work-group: the counts of `groups` blocks to where each block's first zero and first NaN go
 * (zeros from 0, NaNs after every zero). */
__kernel void fix_scan(__global ulong *counts, ulong groups)
{
    __local ulong scratch[WG];
    const ulong per = (groups + WG - 1) / WG;
    const ulong lo = min(groups, get_local_id(0) * per), hi = min(groups, lo + per);
    ulong sz = 0, sq = 0;
    for (ulong g = lo; g < hi; g++) {
        sz += counts[2 * g];
        sq += counts[2 * g + 1];
    }
    ulong tz, tq;
    ulong bz = wg_exclusive_scan_ulong(sz, scratch, &tz);
    ulong bq = wg_exclusive_scan_ulong(sq, scratch, &tq) + tz;
    for (ulong g = lo; g < hi; g++) {
        const ulong cz = counts[2 * g], cq = counts[2 * g + 1];
        counts[2 * g] = bz;
        counts[2 * g + 1] = bq;
        bz += cz;
        bq += cq;
    }
}

/* A work-item's first key, and where its first zero (z) and first NaN (q) go in the saved keys:
 * the block's offsets (counts) plus the ranks of the work-item's ones within the block. */
inline ulong fix_start(__global const key_t *keys, ulong n, __global const ulong *counts,
                       __local ulong *scratch, ulong *z, ulong *q)
{
    ulong tz, tq;
    fix_ranks(keys, n, scratch, z, q, &tz, &tq);
    *z += counts[2 * get_group_id(0)];
    *q += counts[2 * get_group_id(0) + 1];
    return get_group_id(0) * FIX_BLOCK + get_local_id(0) * FIX_ITEMS;
}

/* Save the zeros and NaNs in input order and write the canonical keys in their place. */
__kernel void fix_save(__global key_t *keys, ulong n, __global const ulong *counts,
                       __global key_t *saved)
{
    __local ulong scratch[WG];
    ulong z, q;
    const ulong first = fix_start(keys, n, counts, scratch, &z, &q);
    for (uint i = 0; i < FIX_ITEMS; i++) {
        const ulong p = first + i;
        if (p >= n)
            break;
        const key_t k = keys[p];
        const uint c = fix_class(k);
        if (c == 1) {
            saved[z++] = k;
            keys[p] = 0;
        } else if (c == 2) {
            saved[q++] = k;
            keys[p] = FIX_NAN;
        }
    }
}

/* The saved keys back, in order, where the canonical zeros and NaNs are now. */
__kernel void fix_restore(__global key_t *keys, ulong n, __global const ulong *counts,
                          __global const key_t *saved)
{
    __local ulong scratch[WG];
    ulong z, q;
    const ulong first = fix_start(keys, n, counts, scratch, &z, &q);
    for (uint i = 0; i < FIX_ITEMS; i++) {
        const ulong p = first + i;
        if (p >= n)
            break;
        const uint c = fix_class(keys[p]);
        if (c == 1)
            keys[p] = saved[z++];
        else if (c == 2)
            keys[p] = saved[q++];
    }
}
#endif
