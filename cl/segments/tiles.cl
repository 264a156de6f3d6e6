/*
 * Variable segments (CSR offsets: segment s is keys [off[s], off[s + 1]), off[0] = 0, off[n_seg] =
 * n), each sorted on its own, stable. Two kinds of segment:
 *  - short ones (at most HALF = TILE / 2 keys) are sorted by seg_short in local memory, several to
 *    a work-group, and medium ones (at most TILE keys) one to a work-group, in the same launch;
 *  - long ones by the radix passes of cl/radix/ (VARSEG=1), whose tiles lie within a segment;
 *    seg_count and seg_tiles (this file) describe those tiles for them.
 * The program is this file, then short.cl (the local sort of short and medium segments).
 *
 * Offsets that are not CSR are caught on the device (seg_count raises a flag); every kernel then
 * reads them as one segment of all n keys (seg_off), so that nothing is read or written outside
 * [0, n) and the keys and values stay a permutation of the input.
 *
 * Options: WG, ITEMS (TILE = WG * ITEMS positions, a power of two of at most 32768), the key
 * options of common.cl, HAS_VALUES and with it VALUE_T.
 */

#define TILE (WG * ITEMS)
#define HALF (TILE / 2)
#ifndef HAS_VALUES
#define HAS_VALUES 0
#endif
#if TILE > 32768
#error "TILE must fit 15 bits: positions and tags share a word"
#endif

/* Words of a long segment's radix tile description (VSEG_WORDS in cl/radix/base.cl). */
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
 * One work-item per entry i of off[0 .. n_seg] and per window w < n_wins: checks entry i (first 0,
 * none decreasing, none past n, last n; a bad one sets *bad, zeroed by the host before), writes
 * table[wins + w], the first segment that starts at or after w * HALF (seg_short's searches, done
 * here at full occupancy rather than in its work-groups, a chain of dependent loads each; not read
 * with bad offsets), and, for segment i, writes the radix tiles of a long segment to table[i], its
 * length to table[n_seg + i] and 1 to table[2 n_seg + i] (0 for short ones). The host scans the 3 n_seg + 1 entries: table[i] becomes the segment's first tile,
 * table[n_seg] the number of tiles, table[n_seg + i] - table[n_seg] the keys of long segments
 * before segment i, and table[2 n_seg + i] - table[2 n_seg] the long segments before it.
 */
__kernel void seg_count(__global const ulong *off, ulong n_seg, ulong n, __global uint *bad,
                        __global ulong *table, ulong tile_len, ulong wins, ulong n_wins)
{
    const ulong i = get_global_id(0);
    if (i < n_wins)
        table[wins + i] = first_start_at(off, 0, n_seg, i * HALF, n, 0);
    if (i > n_seg)
        return;
    const ulong o = off[i];
    if (o > n || (i == 0 && o != 0) || (i == n_seg && o != n) || (i > 0 && o < off[i - 1]))
        atomic_or(bad, 1u);
    if (i == n_seg) {
        table[3 * n_seg] = 0;
        return;
    }
    /* Unchecked here: with bad offsets seg_tiles ignores what this writes. */
    /* (The builtin sub_sat, not a conditional that LLVM folds into an intrinsic Oclgrind cannot
     * run.) */
    const ulong len = sub_sat(off[i + 1], o);
    const int long_seg = len > TILE;
    table[i] = long_seg ? (len + tile_len - 1) / tile_len : 0;
    table[n_seg + i] = long_seg ? len : 0;
    table[2 * n_seg + i] = long_seg;
}

/* Offsets of fixed segments of seg_len keys each (the last one shorter), for the sort of variable
 * segments (lib/radix/segments.c). */
__kernel void seg_fixed_offsets(__global ulong *off, ulong n_seg, ulong seg_len, ulong n)
{
    const ulong i = get_global_id(0);
    if (i <= n_seg)
        off[i] = min(i * seg_len, n);
}

/*
 * One work-item per radix tile t < max_tiles (an upper bound of the tiles the long segments need):
 * its description for the radix passes (cl/radix/), and after the last one the number of real
 * tiles. For the reduce-then-scan passes (chains 0): start, count, row, stride, delta; tiles past the last real one
 * count no keys and get rows of their own past the real ones, which they leave unwritten and the
 * scans pass over. For the look-back passes (chains 1): start, count, the segment's first tile, its
 * offset, its index among the long segments.
 * With bad offsets the tiles cut all n keys as one segment.
 */
__kernel void seg_tiles(__global const ulong *off, ulong n_seg, ulong n, __global const uint *bad,
                        __global const ulong *table, __global ulong *desc, ulong max_tiles,
                        ulong tile_len, uint bins, uint chains)
{
    const ulong t = get_global_id(0);
    if (t >= max_tiles)
        return;
    ulong start = 0, count = 0, row = 0, stride = 1, delta = 0;
    ulong tiles, seg_start = 0, seg_end = 0, part = 0, index = 0;
    if (*bad) {
        /* seg_short takes the one segment when it fits a tile */
        tiles = n > TILE ? (n + tile_len - 1) / tile_len : 0;
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
            index = table[2 * n_seg + lo] - table[2 * n_seg];
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
    d[2] = chains ? t - part : row;
    d[3] = chains ? seg_start : stride;
    d[4] = chains ? index : delta;
}
