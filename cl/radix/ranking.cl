/*
 * The ranking of a tile by one digit (after base.cl, before binning.cl), in two forms chosen by
 * USE_PTX: warp match ranking (NVIDIA) or the portable counter ranking in sub-digits. Both leave
 * the tile's keys ordered by digit in local memory with each digit's count and first position.
 * The steps of the binning kernel that the ranking takes part in are listed first.
 */

/* ---- the binning kernel's steps ----
 *
 * radix8_bin runs these in order; the ranking has two forms, chosen once by USE_PTX:
 *   bin_tile          which tile the work-group bins, its first key and its key count
 *   rank the tile     warp form: load_striped, warp_rank, load_values_striped, warp_tile_counts,
 *                     ranks_add_bases, reorder_striped; portable form: load_blocked, rank_sub_digit
 *                     per sub-digit, tile_bounds. Both leave the tile's keys ordered by digit in
 *                     local memory (lkeys), each digit's count (lcount) and first position (lstart)
 *   tile_offsets      the global position of each digit's first key (look-back or the scanned table)
 *   scatter_keys      the reordered keys (and the values that go with them) to their positions
 *   scatter_values_after_keys   warp form with values apart: the values, through the same memory
 */

/* Values: the kernel arguments where the pass has them; null pointers otherwise, so that the steps
 * need no variants of their own (their value code is dead without values). */
#if HAS_VALUES
#define VALUE_PARAMS __global const VALUE_T *vals_in, __global VALUE_T *vals_out,
#define VALUES_ABSENT
#else
#define VALUE_PARAMS
#define VALUES_ABSENT                                                                              \
    __global const VALUE_T *const vals_in = 0;                                                     \
    __global VALUE_T *const vals_out = 0;
#endif
#define BIN_PARAMS                                                                                 \
    __global const key_t *keys_in, __global key_t *keys_out, VALUE_PARAMS ulong base,              \
        ulong portion_n, uint shift, __global uint *status_buf, ulong status_off,                  \
        __global ulong *offsets, ulong off_index, ulong off_next, ulong num_tiles,                 \
        ulong seg_len VSEG_PARAM

/* How the values travel: by the index each key carries (portable ranking), reordered with the keys
 * (warp ranking, KV_TOGETHER) or reordered after the keys have gone out (warp ranking). */
#define VALUES_BY_INDEX (HAS_VALUES && !USE_PTX)
#define VALUES_WITH_KEYS (HAS_VALUES && USE_PTX && KV_TOGETHER)
#define VALUES_AFTER_KEYS (HAS_VALUES && USE_PTX && !KV_TOGETHER)

/* When the look-back runs (LB_AT, warp ranking): publish as soon as the counts are known, and walk
 * then too; else the tile publishes in tile_offsets. */
#define LB_EARLY_PUBLISH (LOOKBACK && USE_PTX && (LB_AT == 1 || LB_AT == 2))
#define LB_EARLY_WALK (LOOKBACK && USE_PTX && LB_AT == 2)
#define LB_LATE_PUBLISH (!USE_PTX || LB_AT == 0)

/* Where the look-back chain of digit d starts: 0, or on the first tile of a variable segment the
 * segment's digit start, which ldelta holds until tile_offsets. */
inline uint chain_start(const tile_ref *ref, ulong tile, __local const gpos_t *ldelta, uint d)
{
    return VARSEG && tile == ref->first ? (uint)ldelta[d] : 0;
}

/* ---- ranking ---- */
#if USE_PTX
/* Lanes of the warp whose digit equals d. The match.any instruction is slow when its operands take
 * many values (random digits), so by default eight ballots, one per digit bit, intersect the lanes
 * that agree on each bit; MATCH_ANY=1 uses the instruction. */
#ifndef MATCH_ANY
#define MATCH_ANY 0
#endif
inline uint warp_match_any(uint d)
{
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(d));
    return m;
}
inline uint warp_match_digit(uint d)
{
    uint m;
#if MATCH_ANY
    m = warp_match_any(d);
#else
    m = warp_match_bits(d, DIGIT_BITS);
#endif
    return m;
}
inline void warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }

#ifndef MATCH_OR
#define MATCH_OR 0
#endif
#ifndef MATCH_TOP
#define MATCH_TOP 0
#endif
/* MATCH_OR=1 (onesweep): on passes whose digits are spread, the lanes of digit d are found through a
 * per-warp table of 256 lane masks in local memory (zero between uses): each lane ORs its bit into its
 * digit's entry and reads the entry back. Lanes that share a digit serialise on the entry, so passes
 * with a dominant digit do not use it (on an H100 at 2^28 keys the table took uniform keys from 35.5
 * to 39.6 GKey/s but keys with a dominant digit from about 37 down to 29-31). Passes where one digit
 * holds 3/4 of the keys or more take the match instruction, whose cost grows with the number of
 * distinct digits in the warp (at 2^28 keys: AND of 8 words 41.4 -> 45.1 GKey/s, of 16 words 41.9 ->
 * 46.1, constant keys 42.2 -> 46.3; with the threshold at 1/2 the AND of 4 words, whose digit 0
 * holds 60% of the keys, lost 2%); the rest keep the ballots, or with MATCH_TOP take warp_match_top. */
#ifndef MATCH_SPLIT
#define MATCH_SPLIT 0
#endif
#if MATCH_SPLIT && (DIGIT_BITS != 8 || MATCH_SPLIT > 6)
#error "MATCH_SPLIT: 1 to 6 ballots on the top bits of 8-bit digits"
#endif
/* MATCH_SPLIT=k (pairs on NVIDIA GPUs, k = 2; lib/radix/radix_shape.c has the measurements): k ballots
 * find the lanes that share the digit's top k bits, and the table has 2^(8-k) entries, one per
 * value of the low 8-k bits XORed with the top bits shifted left by 2 (one-to-one among lanes that
 * share the top bits, and keys in steps of 16 or 32 still spread over the banks); an entry's lanes
 * that agree on the top bits are the digit's. It trades k ballots for fewer lanes whose entries
 * share a bank. */
#define SPLIT_LOW (8 - MATCH_SPLIT)
inline uint warp_match_or(uint d, __local uint *wm)
{
    const uint agree = MATCH_SPLIT ? warp_match_bits(d >> SPLIT_LOW, MATCH_SPLIT) : 0xffffffffu;
    __local uint *const entry =
        wm + (MATCH_SPLIT ? (d ^ ((d >> SPLIT_LOW) << 2)) & ((1u << SPLIT_LOW) - 1) : DIGIT_SLOT(d));
    atomic_or(entry, 1u << (get_local_id(0) & 31));
    warp_sync();
    const uint m = *entry & agree;
    warp_sync();
    *entry = 0;
    warp_sync();
    return m;
}

/* MATCH_OR=1, passes neither spread nor dominated (one digit holds 1/16 to 3/4 of the keys: skewed
 * keys, ANDs of a few words): the lanes of the pass's most frequent digit `top` by one ballot, the
 * others through the lane-mask table, where they no longer serialise behind the frequent digit. */
inline uint warp_match_top(uint d, uint top, __local uint *wm)
{
    const uint on_top = warp_ballot(d == top);
    __local uint *const entry = wm + DIGIT_SLOT(d);
    if (d != top)
        atomic_or(entry, 1u << (get_local_id(0) & 31));
    warp_sync();
    const uint m = d == top ? on_top : *entry;
    warp_sync();
    if (d != top)
        *entry = 0;
    warp_sync();
    return m;
}

/* Exclusive scan over the 256 digit counts, one per work-item lid < 256 (others pass 0): the warp
 * form of common.cl. Ends with a barrier. */
inline uint bins_exclusive_scan(uint v, __local uint *wsum)
{
    uint total;
    return wg_exclusive_scan_uint(v, wsum, &total);
}
#endif

#if USE_PTX
/* ---- the warp form of the ranking (NVIDIA) ----
 * Warp-striped: warp w holds keys w*32*ITEMS + i*32 + lane, so (warp, i, lane) is input order. Each
 * key's rank among the warp's keys of its digit comes from the lanes that share the digit (warp
 * match) and a per-warp counter per digit (wc); the counters' prefixes over warps and digits then
 * make the ranks tile ranks. */
#define WARPS (WG / 32)
/* The per-warp digit counters are dead once every key has its tile rank, before the keys are
 * reordered: they share local memory with the reordered tile. In 64-bit words: the reordered keys,
 * the reordered values or the counters, whichever is largest. */
#define LMEM_K (TILE * sizeof(key_t) / 8)
#define LMEM_V (HAS_VALUES ? TILE * sizeof(VALUE_T) / 8 : 0)
#define LMEM_C (WARPS * BINS / 2 * (1 + MATCH_OR))
#if KV_TOGETHER
#define LMEM_KV (LMEM_K + LMEM_V)
#else
#define LMEM_KV (LMEM_K > LMEM_V ? LMEM_K : LMEM_V)
#endif
#define LMEM_WORDS (LMEM_KV > LMEM_C ? LMEM_KV : LMEM_C)

/* The warps' digit counters, the lane-mask table and the histogram's counts sit at DIGIT_SLOT
 * (common.cl). H100, 2^28 u32 keys, kernel ms against the plain order, same run: nearly sorted keys
 * (steps of 16) 4.83 / 5.79, AND of 4 words 5.43 / 5.73, pairs of both 8.73 / 9.64 and 7.67 / 7.82;
 * the extra ALU work cost uniform keys 5.39 / 5.34, skewed 5.41 / 5.28, AND of 16 words 4.44 / 4.24.
 * Keeping the plain order where one digit dominates made the pairs' kernel 10-40% slower. */

/* Tile ranks (< TILE <= 2^16) two to a register where PACK_RANKS: registers decide how many
 * work-groups share a compute unit, and so how well one waiting in the look-back is covered by the
 * others. */
#if PACK_RANKS
#define RANK_WORDS ((ITEMS + 1) / 2)
inline void ranks_clear(uint *ranks)
{
    for (uint j = 0; j < RANK_WORDS; j++)
        ranks[j] = 0;
}
inline void rank_set(uint *ranks, uint i, uint r) { ranks[i >> 1] |= r << (16 * (i & 1)); }
inline uint rank_get(const uint *ranks, uint i) { return (ranks[i >> 1] >> (16 * (i & 1))) & 0xffffu; }
/* Add to each rank the tile rank of the warp's first key of its digit. */
inline void ranks_add_bases(uint *ranks, const key_t *bits, uint shift, __local const uint *mywc)
{
    for (uint i = 0; i < ITEMS; i += 2) {
        uint add = mywc[DIGIT_SLOT(digit_of(bits[i], shift, DIGIT_MASK))];
        if (i + 1 < ITEMS)
            add |= mywc[DIGIT_SLOT(digit_of(bits[i + 1], shift, DIGIT_MASK))] << 16;
        ranks[i >> 1] += add; /* no carry: each half stays below 2^16 */
    }
}
#else
#define RANK_WORDS ITEMS
inline void ranks_clear(uint *ranks) {}
inline void rank_set(uint *ranks, uint i, uint r) { ranks[i] = r; }
inline uint rank_get(const uint *ranks, uint i) { return ranks[i]; }
inline void ranks_add_bases(uint *ranks, const key_t *bits, uint shift, __local const uint *mywc)
{
    for (uint i = 0; i < ITEMS; i++)
        ranks[i] += mywc[DIGIT_SLOT(digit_of(bits[i], shift, DIGIT_MASK))];
}
#endif

/* The tile's keys as mapped bits, warp-striped; keys past the end read as all-ones keys. */
inline void load_striped(key_t *bits, __global const key_t *keys_in, ulong tstart, uint count,
                         uint wbase)
{
    for (uint i = 0; i < ITEMS; i++) {
        uint pos = wbase + i * 32;
        bits[i] = pos < count ? key_to_bits(LOAD_KEY(keys_in + tstart + pos)) : KEY_ONES;
    }
}
inline void load_values_striped(VALUE_T *vals, __global const VALUE_T *vals_in, ulong tstart,
                                uint count, uint wbase)
{
    for (uint i = 0; i < ITEMS; i++) {
        uint pos = wbase + i * 32;
        vals[i] = pos < count ? LOAD_VALUE(vals_in + tstart + pos) : 0;
    }
}

/* Zero the warps' digit counters. */
inline void warp_counters_clear(__local uint *wc)
{
    for (uint j = get_local_id(0); j < WARPS * BINS; j += WG)
        wc[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* MATCH_OR: how this pass's digits fall (radix8_offsets: 1 spread, 2 dominated), with this warp's
 * lane-mask table zeroed; else 0. */
inline ulong match_mode(__global const ulong *offsets, uint shift, __local uint *mywm)
{
#if MATCH_OR && LOOKBACK
    const ulong mode = offsets[SPREAD_SLOT + (shift - RANGE_BEGIN) / DIGIT_BITS];
    for (uint j = get_local_id(0) & 31; j < BINS; j += 32)
        mywm[j] = 0;
    warp_sync();
    return mode;
#else
    return 0;
#endif
}

/* Rank a key of digit d among the warp's keys of its digit, given the lanes that share it: the
 * highest lane of each digit adds the digit's count for the warp. */
inline void rank_in_warp(uint *ranks, uint i, uint d, uint peers, uint lt_mask, __local uint *mywc)
{
    const uint lt = popcount(peers & lt_mask), c = popcount(peers);
    uint old = 0;
    if (lt == c - 1)
        old = atomic_add(&mywc[DIGIT_SLOT(d)], c);
    rank_set(ranks, i, warp_shfl(old, 31 - clz(peers)) + lt);
}

/* Rank every key of the work-item, finding the lanes of each digit one way (a constant after
 * inlining): 1 the lane-mask table, 2 the match instruction, 3 a ballot for the digit top and the
 * table for the rest, 0 warp_match_digit. */
inline void warp_rank_by(uint way, const key_t *bits, uint *ranks, uint shift, uint lt_mask,
                         uint top, __local uint *mywc, __local uint *mywm)
{
    for (uint i = 0; i < ITEMS; i++) {
        const uint d = digit_of(bits[i], shift, DIGIT_MASK);
        const uint peers = way == 1 ? warp_match_or(d, mywm)
                           : way == 2 ? warp_match_any(d)
                           : way == 3 ? warp_match_top(d, top, mywm)
                                      : warp_match_digit(d);
        rank_in_warp(ranks, i, d, peers, lt_mask, mywc);
    }
}

/* Whether most of the warp's lanes share their first key's digit with the lane before: keys that
 * repeat, which the earlier passes have brought together (skewed keys from the second pass on). The
 * lane-mask table would serialise those lanes, so such a warp takes the match instruction, fast on
 * so few distinct digits: 2^28 skewed keys (37% one key) took 5.88 ms of wall time with the table
 * in every warp against 5.43 with the ballots. One look per warp and tile: per key it cost more
 * than it saved. */
inline int warp_clustered(key_t first, uint shift)
{
    const uint d = digit_of(first, shift, DIGIT_MASK);
    return popcount(warp_ballot(warp_shfl_up(d, 1) == d)) > 16;
}

/* One loop per way, so that each unrolls with its arrays in registers. Where one digit dominates the
 * pass (mode 2), a warp's digits take few values, which is where the match instruction is fast. */
inline void warp_rank(ulong mode, const key_t *bits, uint *ranks, uint shift, __local uint *mywc,
                      __local uint *mywm)
{
    const uint lt_mask = lanemask_lt(), how = (uint)mode & 0xff, top = (uint)(mode >> 8) & 0xff;
    if (MATCH_OR && LOOKBACK && how == 1)
        warp_rank_by(1, bits, ranks, shift, lt_mask, top, mywc, mywm);
    else if (MATCH_OR && LOOKBACK && how == 2)
        warp_rank_by(2, bits, ranks, shift, lt_mask, top, mywc, mywm);
    else if (MATCH_OR && LOOKBACK && MATCH_TOP && !warp_clustered(bits[0], shift))
        warp_rank_by(3, bits, ranks, shift, lt_mask, top, mywc, mywm);
    else if (MATCH_OR && LOOKBACK && MATCH_TOP)
        warp_rank_by(2, bits, ranks, shift, lt_mask, top, mywc, mywm);
    else
        warp_rank_by(0, bits, ranks, shift, lt_mask, top, mywc, mywm);
}

/* After the ranking: per digit (work-item lid < BINS) the warps' counters become exclusive prefixes
 * over the warps, the tile's count goes to lcount (and, LB_EARLY_PUBLISH, to the status words), the
 * digit's start in the tile to lstart, and the counters become the tile rank of each warp's first
 * key of the digit. Returns the look-back's exclusive prefix where LB_EARLY_WALK. */
inline uint warp_tile_counts(__local uint *wc, __local uint *lcount, __local uint *lstart,
                             __local uint *wsum, uint count, uint shift, __global uint *status,
                             ulong tile, const tile_ref *ref, __local const gpos_t *ldelta)
{
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint my_count = 0, lb_excl = 0;
    if (lid < BINS) {
        uint run = 0;
        for (uint w = 0; w < WARPS; w++) {
            uint c = wc[w * BINS + DIGIT_SLOT(lid)];
            wc[w * BINS + DIGIT_SLOT(lid)] = run;
            run += c;
        }
        /* Keys past the end were ranked as all-ones keys, after every real key: do not count them.
         * Their digit is the largest one the bit range allows at this place. */
        if (lid == digit_of(KEY_ONES, shift, DIGIT_MASK))
            run -= TILE - count;
        my_count = run;
        lcount[lid] = run;
        const uint start = LB_EARLY_PUBLISH ? chain_start(ref, tile, ldelta, lid) : 0;
        if (LB_EARLY_PUBLISH)
            lb_publish(status, tile, lid, run, ref->first, start);
        if (LB_EARLY_WALK)
            lb_excl = lb_walk(status, tile, lid, run, ref->first, start);
    }
    uint my_start = bins_exclusive_scan(my_count, wsum);
    if (lid < BINS) {
        lstart[lid] = my_start;
        for (uint w = 0; w < WARPS; w++)
            wc[w * BINS + DIGIT_SLOT(lid)] += my_start;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return lb_excl;
}

/* Each key (and, VALUES_WITH_KEYS, its value) to its tile rank in local memory. */
inline void reorder_striped(const key_t *bits, const VALUE_T *vals, const uint *ranks,
                            __local key_t *lkeys, __local VALUE_T *lvals)
{
    for (uint i = 0; i < ITEMS; i++) {
        lkeys[rank_get(ranks, i)] = bits[i];
        if (VALUES_WITH_KEYS)
            lvals[rank_get(ranks, i)] = vals[i];
    }
}

/* The values, once the keys have gone out: reordered through the keys' local memory, then written
 * where their keys went (the digits from dig4). */
inline void scatter_values_after_keys(const VALUE_T *vals, const uint *ranks, const uint *dig4,
                                      __local VALUE_T *lvals, __local const gpos_t *ldelta,
                                      uint count, __global VALUE_T *vals_out)
{
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < ITEMS; i++)
        lvals[rank_get(ranks, i)] = vals[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < ITEMS; i++) {
        uint p = i * WG + lid;
        if (p < count)
            vals_out[ldelta[(dig4[i >> 2] >> (8 * (i & 3))) & 0xffu] + p] = lvals[p];
    }
}

#else /* !USE_PTX */
/* ---- the portable form of the ranking ----
 * Blocked: work-item lid holds keys lid*ITEMS + i. Sub-digit passes of log2(RADIX) bits, each a
 * stable counter ranking (common.cl) and a reorder in local memory. With values, each key carries
 * its index in the tile (idx, lidx), which finds its value when it goes out. */

/* The tile's keys as mapped bits, blocked; keys past the end read as all-ones keys. */
inline void load_blocked(key_t *bits, uint *idx, __global const key_t *keys_in, ulong tstart,
                         uint count)
{
    const uint lid = get_local_id(0);
    for (uint i = 0; i < ITEMS; i++) {
        uint pos = lid * ITEMS + i;
        bits[i] = pos < count ? key_to_bits(LOAD_KEY(keys_in + tstart + pos)) : KEY_ONES;
        if (HAS_VALUES)
            idx[i] = pos;
    }
}

/* One stable pass over the sub-digit at shift + sub: the keys go to their ranks in lkeys (indices to
 * lidx) and, unless it is the last sub-digit, come back blocked for the next pass. */
inline void rank_sub_digit(key_t *bits, uint *idx, uint shift, uint sub, __local uint *counters,
                           __local uint *scan_scratch, __local key_t *lkeys, __local uint *lidx)
{
    const uint lid = get_local_id(0);
    uint before[ITEMS];
    rank_clear(counters);
    for (uint i = 0; i < ITEMS; i++)
        before[i] = rank_count(counters, digit_of(bits[i], shift + sub, RADIX - 1));
    barrier(CLK_LOCAL_MEM_FENCE);
    rank_scan(counters, scan_scratch);
    for (uint i = 0; i < ITEMS; i++) {
        uint r = rank_base(counters, digit_of(bits[i], shift + sub, RADIX - 1), lid) + before[i];
        lkeys[r] = bits[i];
        if (HAS_VALUES)
            lidx[r] = idx[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sub + RADIX_BITS < DIGIT_BITS) {
        for (uint i = 0; i < ITEMS; i++) {
            bits[i] = lkeys[lid * ITEMS + i];
            if (HAS_VALUES)
                idx[i] = lidx[lid * ITEMS + i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Digit boundaries of the reordered tile give its counts and starts. */
inline void tile_bounds(__local const key_t *lkeys, uint count, uint shift, __local uint *lcount,
                        __local uint *lstart, __local uint *lend)
{
    const uint lid = get_local_id(0);
    for (uint d = lid; d < BINS; d += WG)
        lstart[d] = lend[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < count; p += WG) {
        uint d = digit_of(lkeys[p], shift, DIGIT_MASK);
        if (p == 0 || digit_of(lkeys[p - 1], shift, DIGIT_MASK) != d)
            lstart[d] = p;
        if (p == count - 1 || digit_of(lkeys[p + 1], shift, DIGIT_MASK) != d)
            lend[d] = p + 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < BINS; d += WG)
        lcount[d] = lend[d] - lstart[d];
}
#endif /* USE_PTX */

/* The exclusive scan of BINS counts at hist (read atomically: other work-groups added them) for
 * this work-item's digits, DIGITS_PER_ITEM of them from the one returned (none at or past BINS
 * count), into ex. */
#define DIGITS_PER_ITEM ((BINS + WG - 1) / WG)
inline uint bins_scan_counts(__global uint *hist, __local uint *scratch, uint *ex)
{
    const uint lid = get_local_id(0);
#if USE_PTX /* WG >= BINS: a digit a work-item */
    const uint c = lid < BINS ? atomic_or(&hist[lid], 0u) : 0;
    ex[0] = bins_exclusive_scan(c, scratch);
    return lid;
#else
    const uint first = lid * DIGITS_PER_ITEM;
    uint cnt[DIGITS_PER_ITEM], sum = 0, total;
    for (uint j = 0; j < DIGITS_PER_ITEM; j++) {
        cnt[j] = first + j < BINS ? atomic_or(&hist[first + j], 0u) : 0;
        sum += cnt[j];
    }
    uint run = wg_exclusive_scan_uint(sum, scratch, &total);
    for (uint j = 0; j < DIGITS_PER_ITEM; j++) {
        ex[j] = run;
        run += cnt[j];
    }
    return first;
#endif
}
