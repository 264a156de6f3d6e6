/*
 * Variable segments (CSR offsets: segment s is keys [off[s], off[s + 1]), off[0] = 0, off[n_seg] =
 * n), each sorted on its own, stable. Two kinds of segment:
 *  - short ones (at most HALF = TILE / 2 keys) are sorted by seg_short in local memory, several to
 *    a work-group;
 *  - long ones by the reduce-then-scan radix passes of cl/radix8.cl (VARSEG=1), whose tiles lie
 *    within a segment; seg_count and seg_tiles describe those tiles for it.
 *
 * Offsets that are not CSR are caught on the device (seg_count raises a flag); every kernel then
 * reads them as one segment of all n keys (seg_off), so that nothing is read or written outside
 * [0, n) and the keys and values stay a permutation of the input.
 *
 * Options: WG, ITEMS (TILE = WG * ITEMS positions, a power of two of at most 32768), the key
 * options of common.cl, HAS_VALUES, VALUE_T.
 */

#define TILE (WG * ITEMS)
#define HALF (TILE / 2)
#ifndef HAS_VALUES
#define HAS_VALUES 0
#endif
#ifndef VALUE_T
#define VALUE_T uint
#endif
#if TILE > 32768
#error "TILE must fit 15 bits: positions and tags share a word"
#endif

/* Words of a long segment's radix tile description (VSEG_WORDS in cl/radix8.cl). */
#define VSEG_WORDS 5

/* Offset i as the kernels read it: the caller's, or with bad offsets one segment of everything. */
inline ulong seg_off(__global const ulong *off, ulong i, ulong n, uint bad)
{
    return bad ? (i ? n : 0) : off[i];
}

/* The first segment in [lo, hi) that starts at or after x (hi if none). */
inline ulong first_start_at(__global const ulong *off, ulong lo, ulong hi, ulong x, ulong n,
                            uint bad)
{
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (seg_off(off, mid, n, bad) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * One work-item per entry i of off[0 .. n_seg]: checks it (first 0, none decreasing, none past n,
 * last n; a bad one sets *bad, zeroed by the host before) and, for segment i, writes the radix tiles
 * of a long segment to table[i] and its length to table[n_seg + i] (0 for short ones). The host
 * scans the 2 n_seg + 1 entries: table[i] becomes the segment's first tile, table[n_seg] the number
 * of tiles, and table[n_seg + i] - table[n_seg] the keys of long segments before segment i.
 */
__kernel void seg_count(__global const ulong *off, ulong n_seg, ulong n, __global uint *bad,
                        __global ulong *table, ulong tile_len)
{
    const ulong i = get_global_id(0);
    if (i > n_seg)
        return;
    const ulong o = off[i];
    if (o > n || (i == 0 && o != 0) || (i == n_seg && o != n) || (i > 0 && o < off[i - 1]))
        atomic_or(bad, 1u);
    if (i == n_seg) {
        table[2 * n_seg] = 0;
        return;
    }
    /* Unchecked here: with bad offsets seg_tiles ignores what this writes. */
    /* (The builtin sub_sat, not a conditional that LLVM folds into an intrinsic Oclgrind cannot
     * run.) */
    const ulong len = sub_sat(off[i + 1], o);
    const int long_seg = len > HALF;
    table[i] = long_seg ? (len + tile_len - 1) / tile_len : 0;
    table[n_seg + i] = long_seg ? len : 0;
}

/*
 * One work-item per radix tile t < max_tiles (an upper bound of the tiles the long segments need):
 * its description for cl/radix8.cl (start, count, row, stride, delta), and after the last one the
 * number of real tiles. Tiles past the last real one count no keys and get rows of their own past
 * the real ones, which they leave unwritten and the scans pass over.
 * With bad offsets the tiles cut all n keys as one segment.
 */
__kernel void seg_tiles(__global const ulong *off, ulong n_seg, ulong n, __global const uint *bad,
                        __global const ulong *table, __global ulong *desc, ulong max_tiles,
                        ulong tile_len, uint bins)
{
    const ulong t = get_global_id(0);
    if (t >= max_tiles)
        return;
    ulong start = 0, count = 0, row = 0, stride = 1, delta = 0;
    ulong tiles, seg_start = 0, seg_end = 0, part = 0;
    if (*bad) {
        /* seg_short takes the one segment when it is short */
        tiles = n > HALF ? (n + tile_len - 1) / tile_len : 0;
        seg_end = n;
        part = t;
        stride = tiles;
        row = t;
    } else {
        tiles = table[n_seg];
        if (t < tiles) {
            /* The last segment whose first tile is t or before: its tiles include t. */
            ulong lo = 0, hi = n_seg;
            while (hi - lo > 1) {
                const ulong mid = lo + (hi - lo) / 2;
                if (table[mid] <= t)
                    lo = mid;
                else
                    hi = mid;
            }
            seg_start = off[lo];
            seg_end = off[lo + 1];
            part = t - table[lo];
            stride = table[lo + 1] - table[lo];
            row = table[lo] * bins + part;
            delta = seg_start - (table[n_seg + lo] - tiles);
        }
    }
    if (t < tiles) {
        start = seg_start + part * tile_len;
        count = min(tile_len, seg_end - start);
    } else {
        row = t * bins;
        stride = 1;
    }
    if (t == 0) /* the tiles in use: the radix passes' scans stop there */
        desc[max_tiles * VSEG_WORDS] = tiles;
    __global ulong *d = desc + t * VSEG_WORDS;
    d[0] = start;
    d[1] = count;
    d[2] = row;
    d[3] = stride;
    d[4] = delta;
}

/*
 * The short segments: work-group g takes those that start in [g * HALF, (g + 1) * HALF). Each holds
 * at most HALF keys, so together they lie within TILE positions; a long segment can only be the last
 * one to start there (any segment after it starts past its end), and is left to the radix passes.
 * The group sorts its keys in local memory by (segment, key, position): a bitonic network over the
 * next power of two of its keys, positions past them padded with a segment tag above every real one.
 * The position makes every element distinct, so the unstable network gives the stable order. The
 * segment tag is the segment's start within the group's range (empty segments need none).
 *
 * Keys are read from keys_in and written to keys_out (the radix passes' result buffer, or the same
 * buffer), lone keys too; values follow by their positions, each work-item reading all of its own
 * before the group writes any, so that the same buffer works.
 */
#define TAG_SHIFT 16
#define POS_MASK 0xffffu
#define PAD_TAG 0xffffu

/* Whether element a sorts after element b: (tag, masked key, position). */
inline int after(key_t ka, uint ta, key_t kb, uint tb)
{
    const uint ga = ta >> TAG_SHIFT, gb = tb >> TAG_SHIFT;
    if (ga != gb)
        return ga > gb;
    const key_t ma = ka & KEY_RANGE_MASK, mb = kb & KEY_RANGE_MASK;
    if (ma != mb)
        return ma > mb;
    return (ta & POS_MASK) > (tb & POS_MASK);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_short(__global const key_t *keys_in, __global key_t *keys_out,
#if HAS_VALUES
               __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#endif
               __global const ulong *off, ulong n_seg, ulong n, __global const uint *bad_flag)
{
    __local key_t lk[TILE];
    __local uint lt[TILE];
    const uint lid = get_local_id(0), bad = *bad_flag;
    const ulong w = (ulong)get_group_id(0) * HALF;
    const ulong a = first_start_at(off, 0, n_seg, w, n, bad);
    ulong b = first_start_at(off, a, n_seg, w + HALF, n, bad);
    if (b > a && seg_off(off, b, n, bad) - seg_off(off, b - 1, n, bad) > HALF)
        b--; /* a long segment: the radix passes' */
    const ulong lo = seg_off(off, a, n, bad);
    const uint len = b > a ? (uint)(seg_off(off, b, n, bad) - lo) : 0;
    if (len < 2) {
        /* A lone key still goes to keys_out (the radix passes' result may be another buffer). */
        if (len == 1 && lid == 0) {
            keys_out[lo] = keys_in[lo];
#if HAS_VALUES
            vals_out[lo] = vals_in[lo];
#endif
        }
        return;
    }
    uint p2 = 2;
    while (p2 < len)
        p2 <<= 1;
    for (uint p = lid; p < p2; p += WG) {
        if (p < len) {
            /* The segment of position p: the last in [a, b) that starts at or before it. */
            const ulong s = first_start_at(off, a, b, lo + p + 1, n, bad) - 1;
            const uint tag = (uint)(seg_off(off, s, n, bad) - lo);
            lk[p] = key_to_bits(keys_in[lo + p]);
            lt[p] = tag << TAG_SHIFT | p;
        } else {
            lk[p] = 0;
            lt[p] = PAD_TAG << TAG_SHIFT | p;
        }
    }
    /* Every read of keys_in before any write of keys_out, which may be the same buffer. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (uint k = 2; k <= p2; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            for (uint i = lid; i < p2 / 2; i += WG) {
                const uint l = 2 * i - (i & (j - 1)), r = l + j;
                const key_t kl = lk[l], kr = lk[r];
                const uint tl = lt[l], tr = lt[r];
                if (after(kl, tl, kr, tr) == ((l & k) == 0)) {
                    lk[l] = kr;
                    lk[r] = kl;
                    lt[l] = tr;
                    lt[r] = tl;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#if HAS_VALUES
    VALUE_T v[ITEMS];
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        const uint p = m * WG + lid;
        if (p < len)
            v[m] = vals_in[lo + (lt[p] & POS_MASK)];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        const uint p = m * WG + lid;
        if (p < len)
            vals_out[lo + p] = v[m];
    }
#endif
    for (uint p = lid; p < len; p += WG)
        keys_out[lo + p] = bits_to_key(lk[p]);
}
