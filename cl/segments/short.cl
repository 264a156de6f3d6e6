/*
 * Variable segments, the short and medium ones: sorted in local memory by seg_short, several to a
 * work-group (after tiles.cl, whose options, seg_off and first_start_at this file uses).
 */

/*
 * The short segments: work-group g takes those that start in [g * HALF, (g + 1) * HALF). Each holds
 * at most HALF keys, so together they lie within TILE positions; a longer segment can only be the
 * last one to start there (any segment after it starts past its end): the group sorts it alone
 * after the short ones if it fits TILE positions (medium), else leaves it to the radix passes.
 * The group sorts its keys in local memory by (segment, key, position), the segment tag being the
 * segment's index from the group's first (its start within the group where the group holds so
 * many empty segments that an index would not fit the tag's bits):
 *  - up to BITONIC_MAX keys by a bitonic network over the next power of two of their count,
 *    positions past them padded with a tag above every real one; the position makes every element
 *    distinct, so the unstable network gives the stable order;
 *  - more keys by a stable LSD radix sort (SEG_RADIX below): O(L) per pass against the network's
 *    O(L log^2 L), which pays once the group holds more than a few hundred keys.
 *
 * Keys are read from keys_in and written to keys_out (the radix passes' result buffer, or the same
 * buffer), lone keys too; values follow by their positions, each work-item reading all of its own
 * before the group writes any, so that the same buffer works.
 */
#define TAG_SHIFT 16
#define POS_MASK 0xffffu
#define PAD_TAG 0xffffu

/* Position p of the tile lives at lk[SLOT(p)] and lt[SLOT(p)]: one spare element after every 32,
 * so that the radix passes' blocked reads (work-item lid reads lid * per + i) fall in distinct
 * local-memory banks; packed, 8 keys a work-item put 8 lanes on each bank. SEG_PAD=0 packs them. */
#ifndef SEG_PAD
#define SEG_PAD 1
#endif
#define SLOT(p) ((p) + SEG_PAD * ((p) >> 5))
#define SLOTS SLOT(TILE)

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

/* The bitonic network over lk and lt[0, p2). */
inline void seg_bitonic(__local key_t *lk, __local uint *lt, uint p2)
{
    const uint lid = get_local_id(0);
    for (uint k = 2; k <= p2; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            for (uint i = lid; i < p2 / 2; i += WG) {
                const uint l = 2 * i - (i & (j - 1)), r = l + j;
                const uint sl = SLOT(l), sr = SLOT(r);
                const key_t kl = lk[sl], kr = lk[sr];
                const uint tl = lt[sl], tr = lt[sr];
                if (after(kl, tl, kr, tr) == ((l & k) == 0)) {
                    lk[sl] = kr;
                    lk[sr] = kl;
                    lt[sl] = tr;
                    lt[sr] = tl;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}

/*
 * The radix sort of a group (BITONIC_MAX < TILE, RADIX = 16 given by the host): passes over
 * 4-bit digits, ranked by the counter ranking of common.cl (the radix passes' portable ranking
 * uses it too): first the key's digits, low to high, skipping those that every key of the group shares,
 * then the segment tag's digits that differ within the group. Each work-item holds `per`
 * consecutive positions (blocked, as the ranking needs for stability). The counter table and the
 * scan's words share local memory with lk and lt: a pass reads its elements before clearing the
 * counters and ranks them all before writing any. On NVIDIA (USE_PTX, work-groups of 256 or more)
 * the passes take 8-bit digits ranked by warps instead (seg_warp_pass): on an H100, 2^24 u32 keys
 * in segments of about 2,000 keys took 0.93 ms against 1.18 with the counter ranking, and 1.15-1.21
 * with the lanes of a digit found by match.any instead of eight ballots; BITONIC_MAX 256 and 512
 * measured alike there, 128 and 1024 slower.
 */
#ifndef BITONIC_MAX
#define BITONIC_MAX TILE
#endif
#if defined(RADIX) && BITONIC_MAX < TILE
#define SEG_RADIX 1
#if RADIX != 16
#error "the segments' radix sort takes 4-bit digits (RADIX 16)"
#endif
#define SEG_DIGIT 4
#else
#define SEG_RADIX 0
#endif

/* Bytes of lk and lt, and of the local memory they share with the counter table and the scan's
 * words after it (so that the group takes no more local memory than the network's). */
#define SORT_BYTES (SLOTS * (KEY_BITS / 8 + 4))
#if SEG_RADIX && (RANK_COUNTERS + WG) * 4 > SORT_BYTES
#define SHARED_BYTES ((RANK_COUNTERS + WG) * 4)
#else
#define SHARED_BYTES SORT_BYTES
#endif

#if SEG_RADIX
/* The end of a pass: this work-item's elements i < count of k and t to their ranks r in lk and lt
 * (t only where `carry`), then a barrier. */
inline void seg_place(__local key_t *lk, __local uint *lt, const key_t *k, const uint *t,
                      const uint *r, uint count, int carry)
{
    for (uint i = 0; i < ITEMS; i++) {
        if (i < count) {
            lk[SLOT(r[i])] = k[i];
            if (carry)
                lt[SLOT(r[i])] = t[i];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* One stable pass over the digit at `shift` of the keys (tags 0) or of the segment tags (1);
 * lt moves with the keys where `carry` (not for a lone segment's keys alone). */
inline void seg_radix_pass(__local key_t *lk, __local uint *lt, __local uint *counters,
                           __local uint *scratch, uint len, uint per, uint shift, int tags,
                           int carry)
{
    const uint lid = get_local_id(0), first = lid * per;
    const uint mine = first < len ? min(per, len - first) : 0;
    key_t k[ITEMS];
    uint t[ITEMS], d[ITEMS], r[ITEMS];
    for (uint i = 0; i < ITEMS; i++) {
        if (i < mine) {
            k[i] = lk[SLOT(first + i)];
            t[i] = carry ? lt[SLOT(first + i)] : 0;
            d[i] = tags ? (t[i] >> (TAG_SHIFT + shift)) & (RADIX - 1)
                        : digit_of(k[i], shift, RADIX - 1);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every element read before the counters overwrite them */
    rank_clear(counters);
    for (uint i = 0; i < ITEMS; i++)
        if (i < mine)
            r[i] = rank_count(counters, d[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    rank_scan(counters, scratch);
    for (uint i = 0; i < ITEMS; i++)
        if (i < mine)
            r[i] += rank_base(counters, d[i], lid);
    barrier(CLK_LOCAL_MEM_FENCE); /* every rank read before the elements overwrite the counters */
    seg_place(lk, lt, k, t, r, mine, carry);
}

/* SEG_WARP=0 in the library's own options keeps the counter ranking on NVIDIA too (comparisons). */
#ifndef SEG_WARP
#define SEG_WARP 1
#endif
/* The warps' digit counters live where the keys do: a tile too small for them keeps the counter
 * ranking. */
#if defined(USE_PTX) && USE_PTX && WG >= 256 && SEG_WARP && WG / 32 * 256 * 4 <= TILE * KEY_BITS / 8
#define SEG_WARP_RANK 1
#define SEG_WARPS (WG / 32)
/*
 * One stable pass over the 8-bit digit at `shift` of the keys (tags 0) or of the segment tags (1)
 * of len elements, ranked by warps (NVIDIA): 4 passes for 32-bit keys where the counter ranking
 * takes 8. Warp w holds positions w * 32 * per + i * 32 + lane (i < per, per = ceil(len / WG)), so
 * that (warp, i, lane) is position order; positions from len up hold all-ones keys and the padding
 * tag, which stay last. A key's rank among its warp's keys of its digit comes from the lanes that
 * share the digit and the warp's counter of that digit (in lk's memory while the elements are in
 * registers); prefixes over the warps and a scan over the digits (in lt's memory) make them
 * positions in the group. The elements come from lk and lt where `load`, else they are in k and t
 * already (the group's first pass: seg_group read them from global memory in this order).
 */
inline void seg_warp_pass(__local key_t *lk, __local uint *lt, key_t *k, uint *t, uint len,
                          uint per, uint shift, int tags, int carry, int load)
{
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    const uint first = warp * 32 * per + lane;
    __local uint *const wc = (__local uint *)lk, *const mine = wc + warp * 256;
    uint r[ITEMS];
    if (load) {
        for (uint i = 0; i < ITEMS; i++) {
            const uint p = first + i * 32;
            if (i < per) {
                k[i] = p < len ? lk[SLOT(p)] : KEY_ONES;
                t[i] = !carry ? 0 : p < len ? lt[SLOT(p)] : PAD_TAG << TAG_SHIFT;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every element read before the counters take lk's memory */
    for (uint j = lid; j < SEG_WARPS * 256; j += WG)
        wc[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint below = lanemask_lt();
    for (uint i = 0; i < ITEMS; i++) {
        if (i < per) { /* the same for the whole group: the shuffles see every lane */
            const uint d = tags ? (t[i] >> (TAG_SHIFT + shift)) & 255 : digit_of(k[i], shift, 255);
            const uint peers = warp_match_bits(d, 8);
            const uint before = popcount(peers & below), c = popcount(peers);
            uint old = 0;
            if (before == c - 1) /* the digit's highest lane counts the warp's keys of it */
                old = atomic_add(&mine[d], c);
            r[i] = warp_shfl(old, 31 - clz(peers)) + before;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint total = 0, all;
    if (lid < 256)
        for (uint w = 0; w < SEG_WARPS; w++) {
            const uint c = wc[w * 256 + lid];
            wc[w * 256 + lid] = total;
            total += c;
        }
    const uint start = wg_exclusive_scan_uint(lid < 256 ? total : 0, lt, &all);
    if (lid < 256)
        for (uint w = 0; w < SEG_WARPS; w++)
            wc[w * 256 + lid] += start;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < ITEMS; i++)
        if (i < per)
            r[i] += mine[tags ? (t[i] >> (TAG_SHIFT + shift)) & 255 : digit_of(k[i], shift, 255)];
    barrier(CLK_LOCAL_MEM_FENCE); /* every counter read before the elements overwrite them */
    seg_place(lk, lt, k, t, r, per, carry);
}

/* The elements of k and t back to lk and lt unsorted (no pass ran on them). */
inline void seg_warp_store(__local key_t *lk, __local uint *lt, const key_t *k, const uint *t,
                           uint len, uint per, int carry)
{
    const uint lid = get_local_id(0), first = (lid >> 5) * 32 * per + (lid & 31);
    for (uint i = 0; i < ITEMS; i++) {
        const uint p = first + i * 32;
        if (i < per && p < len) {
            lk[SLOT(p)] = k[i];
            if (carry)
                lt[SLOT(p)] = t[i];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#else
#define SEG_WARP_RANK 0
#endif

/* The group's len elements in lk and lt sorted into lk and lt; `vary` holds this work-item's key bits
 * that differ from the group's first key, lvary (zeroed before the last barrier) gathers the group's.
 * The tags never decrease with the position, so all share the bits above the highest of
 * tag_span = first tag ^ last tag. Without `carry` lt is neither read nor written (a lone segment's
 * keys: tag_span 0). With the warp ranking the elements are in k and t (seg_warp_pass's order), not
 * yet in lk and lt. */
inline void seg_radix(__local key_t *lk, __local uint *lt, __local uint *counters,
                      __local uint *scratch, __local uint *lvary, key_t vary, uint len,
                      uint tag_span, int carry, key_t *k, uint *t)
{
    atomic_or(lvary, (uint)vary);
#if KEY_BITS == 64
    atomic_or(lvary + 1, (uint)(vary >> 32));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    key_t varies = lvary[0];
#if KEY_BITS == 64
    varies |= (key_t)lvary[1] << 32;
#endif
    const uint per = (len + WG - 1) / WG;
#if SEG_WARP_RANK /* 8-bit digits ranked by warps */
    int load = 0; /* the first pass takes k and t as they are */
    for (uint shift = 0; shift < KEY_BITS; shift += 8)
        if (digit_of(varies, shift, 255)) {
            seg_warp_pass(lk, lt, k, t, len, per, shift, 0, carry, load);
            load = 1;
        }
    for (uint shift = 0; tag_span >> shift; shift += 8) {
        seg_warp_pass(lk, lt, k, t, len, per, shift, 1, 1, load);
        load = 1;
    }
    if (!load)
        seg_warp_store(lk, lt, k, t, len, per, carry);
    return;
#endif
    for (uint shift = 0; shift < KEY_BITS; shift += SEG_DIGIT)
        if (digit_of(varies, shift, RADIX - 1))
            seg_radix_pass(lk, lt, counters, scratch, len, per, shift, 0, carry);
    for (uint shift = 0; tag_span >> shift; shift += SEG_DIGIT)
        seg_radix_pass(lk, lt, counters, scratch, len, per, shift, 1, 1);
}
#endif

/* The tag of position p of a group of segments [a, b) that starts at lo. */
inline uint seg_tag(__global const ulong *off, ulong a, ulong b, ulong lo, uint p, ulong n,
                    uint bad)
{
    /* The segment of position p: the last in [a, b) that starts at or before it. */
    const ulong s = first_start_at(off, a, b, lo + p + 1, n, bad) - 1;
    return b - a < PAD_TAG ? (uint)(s - a) : (uint)(seg_off(off, s, n, bad) - lo);
}

/*
 * Segments [a, b) of len keys from lo, sorted in local memory from keys_in (and vals_in) into
 * keys_out (and vals_out). Takes every work-item of the group; ends with local memory free again.
 */
inline void seg_group(__global const key_t *keys_in, __global key_t *keys_out,
#if HAS_VALUES
                      __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#endif
                      __global const ulong *off, ulong a, ulong b, ulong lo, uint len, ulong n,
                      uint bad, __local ulong *lmem
#if SEG_RADIX
                      , __local uint *lvary
#endif
                      )
{
    __local key_t *const lk = (__local key_t *)lmem;
    __local uint *const lt = (__local uint *)(lk + SLOTS);
    const uint lid = get_local_id(0);
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
    const int radix = SEG_RADIX && len > BITONIC_MAX; /* the same over the group */
    uint p2 = 2;
    while (p2 < len)
        p2 <<= 1;
    if (radix)
        p2 = len; /* no padding */
    /* A lone segment's keys sorted by radix need no tags or positions: half the local traffic. */
    const int carry = !radix || HAS_VALUES || b - a > 1;
    const key_t first = key_to_bits(keys_in[lo]);
    key_t vary = 0;
#if SEG_WARP_RANK
    /* The radix sort's elements straight into registers in the order of its first pass: one trip
     * through local memory fewer. */
    key_t k[ITEMS];
    uint t[ITEMS];
    if (radix) {
        const uint per = (len + WG - 1) / WG, at = (lid >> 5) * 32 * per + (lid & 31);
        for (uint i = 0; i < ITEMS; i++) {
            const uint p = at + i * 32;
            if (i < per) {
                if (p < len) {
                    const key_t bits = key_to_bits(keys_in[lo + p]);
                    k[i] = bits;
                    t[i] = carry ? seg_tag(off, a, b, lo, p, n, bad) << TAG_SHIFT | p : 0;
                    vary |= (bits ^ first) & KEY_RANGE_MASK;
                } else {
                    k[i] = KEY_ONES;
                    t[i] = carry ? PAD_TAG << TAG_SHIFT : 0;
                }
            }
        }
    } else
#else
    key_t k[1];
    uint t[1];
#endif
    for (uint p = lid; p < p2; p += WG) {
        if (p < len) {
            const key_t bits = key_to_bits(keys_in[lo + p]);
            lk[SLOT(p)] = bits;
            if (carry)
                lt[SLOT(p)] = seg_tag(off, a, b, lo, p, n, bad) << TAG_SHIFT | p;
            vary |= (bits ^ first) & KEY_RANGE_MASK;
        } else {
            lk[SLOT(p)] = 0;
            lt[SLOT(p)] = PAD_TAG << TAG_SHIFT | p;
        }
    }
#if SEG_RADIX
    if (lid < KEY_BITS / 32)
        lvary[lid] = 0;
#endif
    /* Every read of keys_in before any write of keys_out, which may be the same buffer. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#if SEG_RADIX
    if (radix)
        seg_radix(lk, lt, (__local uint *)lmem, (__local uint *)lmem + RANK_COUNTERS, lvary,
                  vary, len,
                  seg_tag(off, a, b, lo, 0, n, bad) ^ seg_tag(off, a, b, lo, len - 1, n, bad),
                  carry, k, t);
    else
#endif
        seg_bitonic(lk, lt, p2);
#if HAS_VALUES
    VALUE_T v[ITEMS];
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        const uint p = m * WG + lid;
        if (p < len)
            v[m] = vals_in[lo + (lt[SLOT(p)] & POS_MASK)];
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
        keys_out[lo + p] = bits_to_key(lk[SLOT(p)]);
    barrier(CLK_LOCAL_MEM_FENCE); /* lk and lt read before the next sort loads them */
}

#if HAS_VALUES
#define SEG_VALUES vals_in, vals_out,
#else
#define SEG_VALUES
#endif
#if SEG_RADIX
#define SEG_LVARY , lvary
#else
#define SEG_LVARY
#endif

/*
 * Work-group g covers the segments that start in [g * HALF, (g + 1) * HALF):
 *  - part & 1: the short ones (at most HALF keys), sorted together;
 *  - part & 2: the medium ones (more than `window` keys, at most TILE), each alone. In each stretch
 *    of `window` keys (HALF / window of them, at most MEDIUM_WAYS) only the last segment to start
 *    there can be longer than `window`; work-item j finds stretch j's.
 * With part 3 and window HALF one launch sorts every segment of at most TILE keys. Where the short
 * segments take a smaller tile (lib/radix/segments.c), their own program's launch (part 1) sorts them and
 * this one (part 2, window: that program's HALF) the medium ones. Each segment starts in one
 * window, so each is sorted once; only longer ones are left to the radix passes (seg_count and
 * seg_tiles count the same way).
 */
#define MEDIUM_WAYS 8
#define NO_SEG ((ulong)-1)
#define NO_WINS ((ulong)-1)

/* Whether the short segments [a, b) of keys without values are sorted one at a time rather than
 * together: where each takes the radix sort anyway, a lone one needs no tag pass, and its keys alone
 * move through local memory (seg_group). At most LONE_WAYS of them (with the default BITONIC_MAX a
 * window holds at most 4). H100, 2^24 u32 keys in segments of 129 to 4,096 keys: 0.92 -> 0.82 ms.
 * With values the positions move anyway, and the lone sorts' extra passes made the call 2% slower
 * (1.01 -> 1.03 ms). */
#define LONE_WAYS 8
inline int seg_split(__global const ulong *off, ulong a, ulong b, ulong n, uint bad)
{
    if (!SEG_RADIX || HAS_VALUES || b - a < 2 || b - a > LONE_WAYS)
        return 0;
    for (ulong s = a; s < b; s++)
        if (seg_off(off, s + 1, n, bad) - seg_off(off, s, n, bad) <= BITONIC_MAX)
            return 0;
    return 1;
}
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_short(__global const key_t *keys_in, __global key_t *keys_out,
#if HAS_VALUES
               __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#endif
               __global const ulong *off, ulong n_seg, ulong n, __global const uint *bad_flag,
               ulong window, uint part, __global const ulong *table, ulong wins)
{
    __local ulong lmem[(SHARED_BYTES + 7) / 8];
    __local ulong lmed[MEDIUM_WAYS];
#if SEG_RADIX
    __local uint lvary[KEY_BITS / 32];
#endif
    /* n_seg 0 with keys: a whole array of up to TILE keys, one work-group (lib/radix/segments.c's
     * single tile, part 1; off and bad_flag are not read) */
    const uint whole = n_seg == 0, bad = whole ? 1u : *bad_flag, lid = get_local_id(0);
    const ulong g = get_group_id(0), w = g * HALF, segs = whole ? 1 : n_seg;
    const uint ways = !whole && (part & 2) ? (uint)min((ulong)MEDIUM_WAYS, HALF / window) : 0;
    /* seg_count's searches of the windows' first segments (table + wins), where this launch's
     * windows are its (wins NO_WINS: none) */
    const int found = wins != NO_WINS && !bad && window == HALF;
    if (lid < ways) {
        const ulong from = w + lid * window;
        const ulong e = found ? table[wins + g + 1]
                              : first_start_at(off, 0, segs, from + window, n, bad);
        ulong found = NO_SEG;
        if (e > 0) {
            const ulong start = seg_off(off, e - 1, n, bad), len = seg_off(off, e, n, bad) - start;
            if (start >= from && len > window && len <= TILE)
                found = e - 1;
        }
        lmed[lid] = found;
    }
    ulong a = 0, b = 0;
    if (part & 1) {
        a = found ? table[wins + g] : first_start_at(off, 0, segs, w, n, bad);
        b = found ? table[wins + g + 1] : first_start_at(off, a, segs, w + HALF, n, bad);
        /* The last one, if longer than HALF, is medium or long: not sorted with these. */
        if (!whole && b > a && seg_off(off, b, n, bad) - seg_off(off, b - 1, n, bad) > HALF)
            b--;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* lmed */
    /* First the short segments (together, or one a step where seg_split says so), then step
     * shorts + j the medium one of stretch j: one call in a loop, not several calls, so the
     * kernel's code is there once (PoCL's compile time grows with the inlined copies). */
    const uint shorts = (part & 1) && seg_split(off, a, b, n, bad) ? (uint)(b - a) : 1;
    for (uint j = 0; j < shorts + ways; j++) {
        const uint m = j < shorts ? 0 : j - shorts + 1; /* 1 + the stretch of a medium step */
        const ulong found = m ? lmed[m - 1] : 0;
        if (m && found == NO_SEG)
            continue; /* the same for the whole group */
        const ulong sa = m ? found : shorts > 1 ? a + j : a;
        const ulong sb = m ? found + 1 : shorts > 1 ? a + j + 1 : b;
        const ulong lo = seg_off(off, sa, n, bad);
        const uint len = sb > sa ? (uint)(seg_off(off, sb, n, bad) - lo) : 0;
        seg_group(keys_in, keys_out, SEG_VALUES off, sa, sb, lo, len, n, bad, lmem SEG_LVARY);
    }
}
