/*
 * LSD radix sort of 32- or 64-bit keys (key_t, common.cl) in digits of DIGIT_BITS bits: 8 for radix8,
 * 4 for radix4. One stable binning pass per digit place of the bit range (PLACES of them, at most 8
 * bytes' worth).
 *
 * Onesweep (LOOKBACK=1): radix8_histogram counts the digits of all digit places in one read, and its
 * last work-group turns the counts into global digit offsets per place and portion; radix8_bin runs
 * once per digit place (and portion): each work-group takes the next tile id from an atomic counter,
 * ranks its keys, publishes its digit counts in per-(tile, digit) status words and finds its global
 * offsets by decoupled look-back over the status words of earlier tiles.
 *
 * Reduce-then-scan (LOOKBACK=0): radix8_upsweep writes each tile's digit counts into a digit-major
 * table, the generic scan (scan.cl) turns it into offsets, and the same radix8_bin reads them.
 * SERIAL=1 (CPU devices) builds instead the reduce-then-scan pair radix8_serial_count and
 * radix8_serial_scatter, one work-item per tile.
 *
 * Why the look-back cannot deadlock where the host enables it: a tile waits only for tiles with a
 * smaller id, and ids come from an atomic counter taken when a work-group has started running, so
 * every awaited tile belongs to a work-group that is already running and waits, in turn, only on
 * earlier ones. This needs running work-groups to keep making progress while others spin: true on
 * NVIDIA GPUs (resident blocks are scheduled fairly), on PoCL's CPU device (each work-group runs on an
 * OS thread) and on Oclgrind (work-groups run one after another in order). Elsewhere the host uses
 * reduce-then-scan, which never waits on another work-group.
 *
 * Options: DIGIT_BITS (8 or 4), WG, ITEMS (tile = WG * ITEMS keys), HAS_VALUES, VALUE_T, LOOKBACK,
 * USE_PTX (NVIDIA inline PTX warp match ranking; otherwise portable counter ranking in RADIX_SUB-wide
 * sub-digits), RADIX (the sub-digit radix of the portable ranking, 16 or 256, at most BINS),
 * HIST_COPIES (copies of the histogram counters).
 */

#define TILE (WG * ITEMS)
#ifndef DIGIT_BITS
#define DIGIT_BITS 8
#endif
#define BINS (1u << DIGIT_BITS)
#define DIGIT_MASK (BINS - 1)
/* The up-front histogram counts whole bytes, 4-bit digit places are read off them (radix8_offsets). */
#define HBINS 256u
#define HIST_PLACES ((PLACES * DIGIT_BITS + 7) / 8)
#define FLAG_AGG 0x40000000u
#define FLAG_INC 0x80000000u
#define FLAG_MASK 0xc0000000u
#define COUNT_MASK 0x3fffffffu

#ifndef WIDE
#define WIDE 0
#endif
#ifndef SERIAL
#define SERIAL 0
#endif
#ifndef HIST_COPIES
#define HIST_COPIES 1
#endif
#ifndef HAS_VALUES
#define HAS_VALUES 0
#endif
#ifndef VALUE_T
#define VALUE_T uint
#endif
#ifndef USE_PTX
#define USE_PTX 0
#endif
/* KV_TOGETHER (warp ranking with values): the reordered keys and values share local memory, so
 * both go out in one loop after one reorder, at the price of tiles half the size. */
#ifndef KV_TOGETHER
#define KV_TOGETHER 0
#endif
#ifndef PACK_RANKS
#define PACK_RANKS (WG * ITEMS <= 65536)
#endif
#if RADIX == 256
#define RADIX_BITS 8
#elif RADIX == 16
#define RADIX_BITS 4
#else
#error "RADIX must be 16 or 256"
#endif
#if USE_PTX && (WG < 256 || WG % 32)
#error "the warp ranking needs WG >= 256, a multiple of 32"
#endif

/* ---- status words of the look-back ---- */
#if USE_PTX
inline uint status_load(__global uint *p)
{
    uint v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
inline void status_store(__global uint *p, uint v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#else
inline uint status_load(__global uint *p) { return atomic_or(p, 0u); }
inline void status_store(__global uint *p, uint v) { atomic_xchg(p, v); }
#endif

/* Loads of keys and values. The hybrid sort (HYBRID) reads in one launch what other work-groups of
 * it wrote, so on NVIDIA its loads skip the compute unit's own cache (ld.global.cg), which is not
 * kept coherent with the other compute units' writes. */
#ifndef HYBRID
#define HYBRID 0
#endif
#if HYBRID && USE_PTX
inline uint load_cg32(__global const uint *p)
{
    uint v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
inline ulong load_cg64(__global const ulong *p)
{
    ulong v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}
#define LOAD_WORD(p)                                                                               \
    (sizeof(*(p)) == 8 ? load_cg64((__global const ulong *)(p))                                    \
                       : (ulong)load_cg32((__global const uint *)(p)))
#define LOAD_KEY(p) ((key_t)LOAD_WORD(p))
#define LOAD_VALUE(p) ((VALUE_T)LOAD_WORD(p))
#else
#define LOAD_WORD(p) (*(p))
#define LOAD_KEY(p) (*(p))
#define LOAD_VALUE(p) (*(p))
#endif

/* When a tile publishes its counts and walks back (warp ranking): 0 both after the reorder in local
 * memory, 1 publish as soon as the counts are known and walk after the reorder, 2 both as soon as
 * the counts are known. Publishing early spares later tiles waiting for this one: on an H100 at
 * 2^28 keys (448 x 24) 0 took 5.82 ms, 1 5.42 and 2 5.81; counting the digits by local atomics
 * before the ranking, to publish before it as CUB does, took 6.01. */
#ifndef LB_AT
#define LB_AT 0
#endif
#ifndef LB_WIN
#define LB_WIN 4
#endif
/* Global positions: 64-bit only when the input may exceed 2^32 - 1 keys. */
#if WIDE
typedef ulong gpos_t;
#else
typedef uint gpos_t;
#endif

/* Decoupled look-back for digit d of a tile whose own count is `own`, in two steps: lb_publish
 * makes the count visible to later tiles (as the inclusive prefix on the chain's first tile, `first`,
 * whose exclusive prefix is `start`), lb_walk adds up predecessors' counts until one with an
 * inclusive prefix, publishes this tile's inclusive prefix and returns the exclusive one. A whole
 * array is one chain from tile 0 with start 0; variable segments are a chain each. */
inline void lb_publish(__global uint *status, ulong tile, uint d, uint own, ulong first, uint start)
{
    status_store(status + tile * BINS + d, tile == first ? FLAG_INC | (start + own) : FLAG_AGG | own);
}
inline uint lb_walk(__global uint *status, ulong tile, uint d, uint own, ulong first, uint start)
{
    if (tile == first)
        return start;
    /* Predecessors are read LB_WIN at a time (independent loads); the walk stops at the first one
     * with an inclusive prefix and restarts the window at the first one not yet published. */
    uint excl = 0;
    long t = (long)tile - 1;
    for (;;) {
        uint s[LB_WIN];
        for (uint j = 0; j < LB_WIN; j++)
            s[j] = t - (long)j >= (long)first ? status_load(status + (ulong)(t - (long)j) * BINS + d)
                                              : FLAG_INC;
        uint j = 0;
        int done = 0;
        for (; j < LB_WIN; j++) {
            if ((s[j] & FLAG_MASK) == 0)
                break;
            excl += s[j] & COUNT_MASK;
            if (s[j] & FLAG_INC) {
                done = 1;
                break;
            }
        }
        if (done)
            break;
        t -= (long)j;
    }
    status_store(status + tile * BINS + d, FLAG_INC | (excl + own));
    return excl;
}

/* ---- reduce-then-scan: tiles ---- */

/*
 * Tiles of reduce-then-scan: the keys form segments of seg_len keys (one segment of all n keys for a
 * whole-array sort; a short last one), each cut into tps tiles, so that no tile straddles two segments.
 * The digit counts table is ordered (segment, digit, tile of the segment): its exclusive scan gives
 * each tile the destination of its first key of each digit, since earlier segments come first and
 * keys never leave their segment. Returns the tile's first key; *count its keys (0 for the tiles past
 * a short last segment), ref->row the table index of its digit 0 (digit d: + d * ref->stride, the
 * tiles of its segment) and ref->delta what to add to a scanned entry to get a position. rts_tile is
 * the same for tiles of TILE keys.
 *
 * VARSEG=1: variable segments (cl/segments.cl). The tiles of the segments too long for the tile sort
 * are described one by one in vseg (VSEG_WORDS words each: start, count, row, stride, delta): the
 * table holds only their keys, so a scanned entry is a position among those keys, and delta (the
 * segment's offset less the keys of such segments before it) makes it an index of the array.
 * With look-back (LOOKBACK=1) the words are instead: start, count, the segment's first tile, the
 * segment's offset, its index among the long segments. radix8_seg_hist counts every digit place of
 * each long segment into seg_hist[(index * PLACES + place) * BINS + d]; in each pass a segment's
 * tiles form a look-back chain of their own, whose first tile starts from the segment's digit starts
 * (the exclusive scan of its counts). So a pass is one launch, as onesweep's, not five.
 */
typedef struct tile_ref {
    ulong row, stride, delta;
    ulong first; /* the look-back chain's first tile (variable segments with look-back; else 0) */
} tile_ref;
#ifndef VARSEG
#define VARSEG 0
#endif
#define VSEG_WORDS 5
#if VARSEG && LOOKBACK
#define VSEG_PARAM , __global const ulong *vseg, __global uint *seg_hist
#define VSEG_ARG , vseg
#elif VARSEG
#define VSEG_PARAM , __global const ulong *vseg
#define VSEG_ARG , vseg
#else
#define VSEG_PARAM
#define VSEG_ARG , 0
#endif
inline ulong rts_tile_len(ulong tile, ulong n, ulong seg_len, ulong tps, ulong tile_len, ulong *count,
                         tile_ref *ref, __global const ulong *vseg)
{
#if VARSEG
    __global const ulong *d = vseg + tile * VSEG_WORDS;
    *count = d[1];
    ref->row = d[2];
    ref->stride = d[3];
    ref->delta = d[4];
    ref->first = 0;
    return d[0];
#else
    const ulong seg = tile / tps, part = tile - seg * tps;
    const ulong start = seg * seg_len + part * tile_len;
    /* part * tile_len < seg_len always; a tile of a short last segment may start past n. (The builtin
     * sub_sat, not a conditional that LLVM folds into an intrinsic Oclgrind cannot run.) */
    const ulong in_seg = seg_len - part * tile_len, left = sub_sat(n, start);
    *count = min(tile_len, min(in_seg, left));
    ref->row = seg * BINS * tps + part;
    ref->stride = tps;
    ref->delta = 0;
    ref->first = 0;
    return start;
#endif
}
inline ulong rts_tile(ulong tile, ulong n, ulong seg_len, ulong tps, uint *count, tile_ref *ref,
                      __global const ulong *vseg)
{
    ulong c;
    const ulong start = rts_tile_len(tile, n, seg_len, tps, TILE, &c, ref, vseg);
    *count = (uint)c;
    return start;
}

#if SERIAL
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
#else /* the work-group kernels */

/* ---- up-front histogram of all digit places (onesweep) ---- */

/* hist[(byte place * portions + portion) * 256 + byte], counts within a portion (< 2^30). Work-group g
 * counts keys [g * chunk, (g + 1) * chunk); chunk divides the portion size. */
/* Digit places: PLACES digits of DIGIT_BITS bits from bit RANGE_BEGIN of the mapped key (the bit
 * range); the histogram counts the HIST_PLACES bytes they cover. */
#ifndef RANGE_BEGIN
#define RANGE_BEGIN 0
#endif
#ifndef PLACES
#define PLACES 4
#endif
inline uint place_byte(key_t b, uint p) { return digit_of(b, RANGE_BEGIN + 8 * p, 0xff); }
/* Count every byte place of one key. */
inline void count_bytes(__local uint *h, key_t b)
{
    for (uint p = 0; p < HIST_PLACES; p++)
        atomic_inc(&h[p * HBINS + DIGIT_SLOT(place_byte(b, p))]);
}

/* Where the histogram kernel leaves, per digit place, how its digits fall: 1 spread (no digit holds
 * more than 1/16 of the keys), 2 dominated (one digit holds at least 3/4 of them), else 0; in bits
 * 8-15, its most frequent digit; and ONE_DIGIT where that digit holds every key. */
#define SPREAD_SLOT ((PLACES + 2) * BINS)
#define ONE_DIGIT (1ul << 16)
/* Every key has the same digit in a place (constant keys, keys narrower than their type): its pass
 * moves every key to where it is, so each tile writes back what it read, with no ranking and no
 * look-back; every portion of the pass does, so none needs the running offsets or status words. A
 * caller that waits has the host leave such passes out instead. ONE_DIGIT_COPY=0 ranks them like
 * any other (comparisons). */
#ifndef ONE_DIGIT_COPY
#define ONE_DIGIT_COPY 1
#endif
#define ONE_DIGIT_PASS(modes, shift)                                                               \
    (ONE_DIGIT_COPY && LOOKBACK && (modes[SPREAD_SLOT + ((shift)-RANGE_BEGIN) / DIGIT_BITS] & ONE_DIGIT))

#ifndef HIST_LOADS
#error "HIST_LOADS (loads of 4 keys in flight per work-item) must be defined by the host"
#endif
/* Count keys [start, end) into this work-item's copy of the counters, consecutive work-items on
 * consecutive keys, 4 * HIST_LOADS keys a work-item in flight before their counts: one load at a time
 * leaves the memory system idle between a load and the atomics that need it (H100, 2^28 keys: 0.629
 * ms against 0.651). The host sizes runs in steps of WG * 4 * HIST_LOADS keys. Runs of 4 keys a
 * work-item through vload4() came first: NVIDIA's compiler issued four scalar loads, each lane's
 * 16 or 32 bytes from the next, and Nsight Compute counted 71% of the sectors loaded unused with
 * 8-byte keys (2^24 u64 keys: 0.121 ms against CUB's 0.078); a pointer to the vector type was level
 * with these loads on 4-byte keys and slower on 8-byte keys (lib/radix/radix.h). */
inline void count_run(__local uint *mine, __global const key_t *keys, ulong start, ulong end)
{
    const uint lid = get_local_id(0);
    const ulong round = (ulong)WG * 4 * HIST_LOADS;
    ulong r = start;
    for (; r + round <= end; r += round) {
        key_t k[4 * HIST_LOADS];
        for (uint j = 0; j < 4 * HIST_LOADS; j++)
            k[j] = keys[r + (ulong)j * WG + lid];
        for (uint j = 0; j < 4 * HIST_LOADS; j++)
            count_bytes(mine, key_to_bits(k[j]));
    }
    for (ulong i = r + lid; i < end; i += WG)
        count_bytes(mine, key_to_bits(keys[i]));
}

/* offsets[place * BINS + d]: where the first key of digit d goes in the pass over `place`, from the
 * counts of all portions; offsets[SPREAD_SLOT + place]: how that place's digits fall (above). Every
 * place at once, so that the counts' reads (atomic: other work-groups added them) are in flight
 * together and one segmented scan serves all places: TAIL_IPP work-items a place, each over a run
 * of TAIL_DPI digits, TAIL_PPR places a round. Place by place, with a serial pick of the most
 * frequent digit, this last work-group's part took about 20 us on an H100, a third of a 2^24-key
 * histogram. */
#define TAIL_POW2(q)                                                                               \
    ((q) >= 256 ? 256 : (q) >= 128 ? 128 : (q) >= 64 ? 64 : (q) >= 32 ? 32 : (q) >= 16 ? 16     \
     : (q) >= 8 ? 8 : (q) >= 4 ? 4 : (q) >= 2 ? 2 : 1)
#define TAIL_IPP (TAIL_POW2(WG / PLACES) < BINS ? TAIL_POW2(WG / PLACES) : BINS)
#define TAIL_DPI (BINS / TAIL_IPP)
#define TAIL_PPR (WG / TAIL_IPP)

/* The count of digit d in `place`, over all portions. */
inline ulong place_count(__global uint *hist, uint portions, uint place, uint d)
{
    ulong c = 0;
    for (uint p = 0; p < portions; p++) {
#if DIGIT_BITS == 8
        c += atomic_or(&hist[(place * portions + p) * HBINS + d], 0);
#else
        /* A 4-bit place is one half of a byte place: add the bytes whose half is the digit. */
        const uint low = (place & 1) == 0;
        __global uint *row = hist + ((place / 2) * portions + p) * HBINS;
        for (uint o = 0; o < 16; o++)
            c += atomic_or(&row[low ? (o << 4) | d : (d << 4) | o], 0);
#endif
    }
    return c;
}

inline void all_place_offsets(__global uint *hist, uint portions, __global ulong *offsets,
                              __local ulong *sums, __local ulong *mosts)
{
    const uint lid = get_local_id(0), sub = lid % TAIL_IPP, first = sub * TAIL_DPI;
    for (uint p0 = 0; p0 < PLACES; p0 += TAIL_PPR) {
        const uint place = p0 + lid / TAIL_IPP;
        const int live = lid / TAIL_IPP < TAIL_PPR && place < PLACES;
        ulong cnt[TAIL_DPI], sum = 0, most = 0; /* most: count << 8 | its digit */
        for (uint j = 0; j < TAIL_DPI; j++)
            cnt[j] = live ? place_count(hist, portions, place, first + j) : 0;
        for (uint j = 0; j < TAIL_DPI; j++) {
            sum += cnt[j];
            most = max(most, cnt[j] << 8 | ((first + j) & 0xff));
        }
        /* Inclusive scans within each place's TAIL_IPP work-items: the sums, and the maximum. */
        sums[lid] = sum;
        mosts[lid] = most;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint off = 1; off < TAIL_IPP; off <<= 1) {
            const ulong t = sub >= off ? sums[lid - off] : 0, m = sub >= off ? mosts[lid - off] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            sums[lid] += t;
            mosts[lid] = max(mosts[lid], m);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (live) {
            ulong run = sums[lid] - sum;
            for (uint j = 0; j < TAIL_DPI; j++) {
                offsets[place * BINS + first + j] = run;
                run += cnt[j];
            }
            if (sub == TAIL_IPP - 1) {
                const ulong total = sums[lid], top = mosts[lid] >> 8;
                offsets[SPREAD_SLOT + place] =
                    (top * 16 <= total ? 1 : top * 4 >= total * 3 ? 2 : 0) |
                    (mosts[lid] & 0xff) << 8 | (top == total ? ONE_DIGIT : 0);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* sums and mosts are the next round's */
    }
}

/*
 * One launch for the counts and the offsets (a command less per sort: on an H100 each costs ~7 us of
 * host time). counters[0] is a ticket, the counts follow; all of them are zero when the kernel starts
 * and it leaves them zero, so a kept buffer needs no fill before the next sort. The work-group that
 * finishes last (ticket) turns the counts into the offsets of every place, then clears the counts.
 * Every work-item also clears its share of status[0, status_words): the look-back words of the passes
 * to come, which the last sort left set.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_histogram(__global const key_t *keys, ulong n, ulong chunk, ulong portion_size,
                      uint portions, __global uint *counters, __global ulong *offsets,
                      __global uint *status, ulong status_words)
{
    __local uint h[HIST_COPIES * HIST_PLACES * HBINS];
    __local ulong sums[WG], mosts[WG];
    __local int last;
    __global uint *const hist = counters + 1;
    const uint lid = get_local_id(0);
    for (ulong w = get_global_id(0); w < status_words; w += get_global_size(0))
        status[w] = 0;
    for (uint i = lid; i < HIST_COPIES * HIST_PLACES * HBINS; i += WG)
        h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *mine = h + (lid % HIST_COPIES) * HIST_PLACES * HBINS;

    const ulong start = (ulong)get_group_id(0) * chunk;
    const ulong end = min(start + chunk, n);
    count_run(mine, keys, start, end);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint portion = (uint)(start / portion_size);
    for (uint j = lid; j < HIST_PLACES * HBINS; j += WG) {
        uint c = 0;
        for (uint k = 0; k < HIST_COPIES; k++)
            c += h[k * HIST_PLACES * HBINS + j];
        if (c) {
            uint place = j / HBINS, d = DIGIT_SLOT(j % HBINS);
            atomic_add(&hist[(place * portions + portion) * HBINS + d], c);
        }
    }
    /* Each work-item's additions are performed before its group takes a ticket (the fence), so the
     * group with the last ticket reads complete counts. */
#if USE_PTX
    asm volatile("membar.gl;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        last = atomic_inc(&counters[0]) == get_num_groups(0) - 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last)
        return;
    all_place_offsets(hist, portions, offsets, sums, mosts);
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint i = lid; i < portions * HIST_PLACES * HBINS; i += WG)
        atomic_xchg(&hist[i], 0);
    if (lid == 0)
        atomic_xchg(&counters[0], 0);
}

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

/* Where the look-back chain of digit d starts: 0, or on the first tile of a variable segment the
 * segment's digit start, which ldelta holds until tile_offsets. */
inline uint chain_start(const tile_ref *ref, ulong tile, __local const gpos_t *ldelta, uint d)
{
    return VARSEG && tile == ref->first ? (uint)ldelta[d] : 0;
}

#if LOOKBACK
/* Onesweep: tile ids come from the counter in the order work-groups start (see the top of the
 * file); the tile's digit counts go through the look-back, so *ref is not used. */
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

#if VARSEG && LOOKBACK
/*
 * Variable segments with look-back: one work-group per described tile (cl/segments.cl's seg_tiles),
 * the spare ones past the tiles in use doing nothing but the first group's chores. Each clears its
 * tile's status words in both regions (status_buf: two of region_words words, the passes taking
 * them in turn) and counts every digit place of its keys into its segment's rows of seg_hist,
 * which are zero: the last pass of the sort before cleared them after use. Group 0 clears the
 * regions' tile counters and the modes (no place is taken as spread, dominated or of one digit:
 * those are facts of a whole array).
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_seg_hist(__global const key_t *keys, __global const ulong *vseg,
                     __global uint *seg_hist, __global uint *status_buf, ulong region_words,
                     __global ulong *modes)
{
    __local uint h[HIST_COPIES * HIST_PLACES * HBINS];
    const uint lid = get_local_id(0);
    const ulong tile = get_group_id(0);
    __global const ulong *const d = vseg + tile * VSEG_WORDS;
    const ulong start = d[0], count = d[1], row = d[4];
    if (tile == 0 && lid < 2)
        status_buf[lid * region_words] = 0;
    if (tile == 0 && lid < PLACES)
        modes[SPREAD_SLOT + lid] = 0;
    if (count == 0)
        return;
    for (uint i = lid; i < 2 * BINS; i += WG)
        status_buf[(i / BINS) * region_words + BINS + tile * BINS + i % BINS] = 0;
    for (uint i = lid; i < HIST_COPIES * HIST_PLACES * HBINS; i += WG)
        h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    count_run(h + (lid % HIST_COPIES) * HIST_PLACES * HBINS, keys, start, start + count);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = lid; j < HIST_PLACES * HBINS; j += WG) {
        uint c = 0;
        for (uint k = 0; k < HIST_COPIES; k++)
            c += h[k * HIST_PLACES * HBINS + j];
        if (c)
            atomic_add(&seg_hist[(row * PLACES + j / HBINS) * BINS + DIGIT_SLOT(j % HBINS)], c);
    }
}

/* Before a tile of variable segments bins (radix8_bin): its words in the other status region
 * cleared for the pass after this one (status_buf + other), and on a segment's first tile the
 * segment's digit starts of this place into ldelta (chain_start); the last place's clears the
 * segment's counts for the next sort. */
inline void seg_tile_start(__global uint *other, __global uint *seg_hist, ulong tile,
                           const tile_ref *ref, uint shift, __local gpos_t *ldelta,
                           __local uint *scratch)
{
    const uint lid = get_local_id(0);
    for (uint d = lid; d < BINS; d += WG)
        other[BINS + tile * BINS + d] = 0;
    if (tile == ref->first) { /* the same over the group */
        const uint place = (shift - RANGE_BEGIN) / DIGIT_BITS;
        __global uint *const h = seg_hist + ref->row * PLACES * BINS;
        uint ex[DIGITS_PER_ITEM];
        const uint first = bins_scan_counts(h + place * BINS, scratch, ex);
        for (uint j = 0; j < DIGITS_PER_ITEM && first + j < BINS; j++)
            ldelta[first + j] = ex[j];
        if (place == PLACES - 1) {
            barrier(CLK_GLOBAL_MEM_FENCE); /* every count read */
            for (uint i = lid; i < PLACES * BINS; i += WG)
                h[i] = 0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
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
#if HYBRID
/* ---- radix-hybrid: one most-significant pass, then the other places bucket by bucket ----
 *
 * After the histogram (radix8_histogram) and one onesweep pass over the top digit place
 * (radix8_bin), the keys lie in up to 256 buckets of equal top digits, each already in its final
 * range. radix8_hybrid then sorts every bucket by the IP lower places with the same binning steps,
 * each bucket a look-back chain of its own, in waves of buckets small enough to stay in the
 * device's last-level cache between passes (about WAVE keys): the lower passes read and write the
 * cache instead of memory, so a 32-bit key costs about 24 bytes of memory traffic against
 * onesweep's 36 (Stehle and Jacobsen's hybrid radix sort).
 *
 * One launch does all the buckets: each work-group takes a ticket from a counter when it starts
 * (the launch has one per ticket, and a few spare), in an order where each ticket waits only on
 * work of smaller tickets (so, as with the look-back, only on work-groups that are running). The
 * tickets go step by step: step s holds pass i of wave s - i for each pass in flight, the oldest
 * first, then the histogram of wave s + 1, so that IP waves are in flight and each piece of work
 * depends only on the step before it:
 *   H(0) | P0(0) H(1) | P1(0) P0(1) H(2) | P2(0) P1(1) P0(2) H(3) | ...
 * H(w): one ticket per tile of the wave, counting that tile's lower digits into its bucket's
 * histogram; the last to finish turns the wave's histograms into digit offsets and marks the wave
 * ready. Pi(w): one ticket per tile; the tiles of pass i > 0 of a bucket wait for pass i - 1 of that
 * bucket, those of pass 0 for the wave's offsets.
 *
 * The groups of one launch hand keys and offsets to each other through memory. On NVIDIA GPUs the
 * look-back's fences make that safe; a checker of races between work-groups (Oclgrind) cannot see
 * it, so there the host launches each step on its own (step < ALL_STEPS): every hand-over then
 * crosses a launch.
 *
 * radix8_hybrid_plan (one work-group plans, all clear the control words) lays out, in `plan`
 * (ulong): bucket starts, each bucket's first tile, each wave's first bucket and first ticket, the
 * number of waves and tickets; then each bucket's digit offsets per lower place.
 */
#define IP (PLACES - 1)
#if IP < 1
#error "the hybrid sort needs two digit places or more"
#endif
#define PL_BS 0                  /* [BINS + 1] bucket starts, n last */
#define PL_FT (PL_BS + BINS + 1) /* [BINS + 1] first tile of each bucket (all buckets' tiles in order) */
#define PL_WB (PL_FT + BINS + 1) /* [BINS + 1] first bucket of each wave, BINS after the last */
#define SEGS ((BINS + 32) * 8 + 1) /* ticket segments at most: (waves + (IP + 1) x lag) steps x
                                    * (IP + 1), lag <= 4 */
#define PL_ST (PL_WB + BINS + 1)   /* [SEGS + 1] first ticket of each segment */
#define PL_SD (PL_ST + SEGS + 1)   /* [SEGS] each segment's kind, pass and wave (TK_* fields) */
#define PL_W (PL_SD + SEGS)        /* waves, tickets in all, segments, steps */
#define STEPS (BINS + 4 * 8 + 1)   /* steps at most: waves + IP x lag + lag */
#define PL_STEP (PL_W + 4)         /* [STEPS + 1] first ticket of each step */
#define PL_OFF (PL_STEP + STEPS + 1) /* [BINS x IP x BINS] digit offsets of bucket b, place p */
#define PL_TICKETS (PL_OFF + BINS * IP * BINS) /* each ticket's work, TK_* fields */
#define TK_KIND(e) ((uint)(e)&3u)             /* 1 histogram tile, 2 binning tile */
#define TK_PASS(e) ((uint)((e) >> 2) & 7u)
#define TK_BUCKET(e) ((uint)((e) >> 5) & 0xffu)
#define TK_WAVE(e) ((uint)((e) >> 13) & 0xffu)
#define TK_TILE(e) ((e) >> 21) /* of its bucket */
/* Control words (uint), all zero at the launch. */
#define HY_TICKET 0
#define HY_HDONE 1                          /* [BINS] per wave: H tiles done */
#define HY_READY (HY_HDONE + BINS)          /* [BINS] per wave: offsets ready */
#define HY_DONE (HY_READY + BINS)           /* [BINS x IP] per bucket and pass: tiles done */
#define HY_HIST (HY_DONE + BINS * IP)       /* [BINS x IP x BINS] digit counts per bucket, place */
#define HY_STEPC (HY_HIST + BINS * IP * BINS) /* [STEPS] tickets taken per step (steps apart) */
#define HY_STATUS (HY_STEPC + STEPS) /* per pass: region_tiles x BINS look-back words */

inline void hybrid_release(void)
{
#if USE_PTX
    asm volatile("membar.gl;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}
inline void hybrid_acquire(void)
{
#if USE_PTX
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_hybrid_plan(__global const ulong *offsets, ulong n, ulong wave_keys, uint lag,
                        __global ulong *plan, __global uint *ctl, ulong ctl_words)
{
    __local ulong bs[BINS + 1], ft[BINS + 1], wb[BINS + 1];
    for (ulong i = get_global_id(0); i < ctl_words; i += get_global_size(0))
        ctl[i] = 0;
    if (get_group_id(0) != 0)
        return;
    const uint lid = get_local_id(0);
    for (uint b = lid; b < BINS; b += WG)
        bs[b] = offsets[(PLACES - 1) * BINS + b];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid != 0)
        return;
    /* Buckets go to a wave until the next one would take it past wave_keys (a larger bucket
     * makes a wave of its own): no wave is empty when n > 0. */
    bs[BINS] = n;
    ulong tiles = 0, acc = 0;
    uint w = 0;
    wb[0] = 0;
    for (uint b = 0; b < BINS; b++) {
        const ulong cnt = bs[b + 1] - bs[b];
        ft[b] = tiles;
        if (acc > 0 && acc + cnt > wave_keys) {
            wb[++w] = b;
            acc = 0;
        }
        acc += cnt;
        tiles += (cnt + TILE - 1) / TILE;
    }
    ft[BINS] = tiles;
    wb[++w] = BINS;
    const uint waves = w;
    for (uint b = 0; b <= BINS; b++) {
        plan[PL_BS + b] = bs[b];
        plan[PL_FT + b] = ft[b];
        plan[PL_WB + b] = b <= waves ? wb[b] : BINS;
    }
    /* The segments of tickets, each the tiles of one wave for one step: H(0), then per step s the
     * passes of the waves in flight, the oldest first (pass i of wave s - i), and H(s + 1). */
    ulong t = 0;
    uint k = 0, steps = 0;
    const long L = lag;
    for (long st = -L; st < (long)waves + (IP - 1) * L; st++) {
        plan[PL_STEP + steps++] = t;
        for (long i = IP - 1; i >= 0; i--) {
            const long wv = st - i * L;
            if (wv < 0 || wv >= (long)waves)
                continue;
            plan[PL_ST + k] = t;
            plan[PL_SD + k++] = 2 | (ulong)i << 2 | (ulong)wv << 13;
            t += ft[wb[wv + 1]] - ft[wb[wv]];
        }
        const long hw = st + L;
        if (hw >= 0 && hw < (long)waves) {
            plan[PL_ST + k] = t;
            plan[PL_SD + k++] = 1 | (ulong)hw << 13;
            t += ft[wb[hw + 1]] - ft[wb[hw]];
        }
    }
    plan[PL_ST + k] = t;
    plan[PL_STEP + steps] = t;
    plan[PL_W] = waves;
    plan[PL_W + 1] = t;
    plan[PL_W + 2] = k;
    plan[PL_W + 3] = steps;
}

/* The last b in [lo, hi] with v[b] <= x (v non-decreasing, v[lo] <= x). */
inline ulong last_at_most(__global const ulong *v, ulong lo, ulong hi, ulong x)
{
    while (lo < hi) {
        const ulong mid = (lo + hi + 1) / 2;
        if (v[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Each ticket's work, decoded once for all (a work-item per ticket) so that the sort's work-groups
 * spend one load on it. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_hybrid_tickets(__global ulong *plan)
{
    const ulong total = plan[PL_W + 1], segs = plan[PL_W + 2];
    __global const ulong *const ft = plan + PL_FT, *const wb = plan + PL_WB;
    for (ulong t = get_global_id(0); t < total; t += get_global_size(0)) {
        const ulong k = last_at_most(plan + PL_ST, 0, segs - 1, t), d = plan[PL_SD + k];
        const ulong w = TK_WAVE(d), g = ft[wb[w]] + (t - plan[PL_ST + k]);
        const ulong b = last_at_most(ft, wb[w], wb[w + 1] - 1, g);
        plan[PL_TICKETS + t] = d | b << 5 | (g - ft[b]) << 21;
    }
}

/* Work-item 0: the next ticket's work into lt = {ticket entry (0: none left), bucket start, bucket
 * end, bucket's first tile, tiles of the wave}, once what it depends on is done. step: all tickets
 * (ALL_STEPS), or only those of one step. */
#define ALL_STEPS 0xffffffffu
inline void hybrid_next(__global const ulong *plan, __global uint *ctl, uint step,
                        __local ulong *lt)
{
    const ulong t = step == ALL_STEPS ? atomic_inc(&ctl[HY_TICKET])
                                      : plan[PL_STEP + step] + atomic_inc(&ctl[HY_STEPC + step]);
    if (t >= plan[step == ALL_STEPS ? PL_W + 1 : PL_STEP + step + 1]) {
        lt[0] = 0;
        return;
    }
    const ulong e = plan[PL_TICKETS + t];
    const uint b = TK_BUCKET(e), w = TK_WAVE(e), pass = TK_PASS(e);
    __global const ulong *const ft = plan + PL_FT, *const wb = plan + PL_WB;
    const ulong bs = plan[PL_BS + b], be = plan[PL_BS + b + 1], f0 = ft[b], f1 = ft[b + 1];
    const ulong tw = ft[wb[w + 1]] - ft[wb[w]];
    if (TK_KIND(e) == 2 && pass == 0) {
        while (status_load(&ctl[HY_READY + w]) == 0)
            ;
        hybrid_acquire();
    } else if (TK_KIND(e) == 2) {
        while (status_load(&ctl[HY_DONE + b * IP + pass - 1]) < (uint)(f1 - f0))
            ;
        hybrid_acquire();
    }
    lt[0] = e;
    lt[1] = bs;
    lt[2] = be;
    lt[3] = f0;
    lt[4] = tw;
}

/* H: count the lower digits of `count` keys from tstart into the bucket's histograms (lh: IP x
 * BINS local words). */
inline void hybrid_count(__global const key_t *keys, ulong tstart, uint count,
                         __global uint *hist, __local uint *lh)
{
    const uint lid = get_local_id(0);
    for (uint i = lid; i < IP * BINS; i += WG)
        lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < count; p += WG) {
        const key_t bits = key_to_bits(LOAD_KEY(keys + tstart + p));
        for (uint q = 0; q < IP; q++)
            atomic_inc(&lh[q * BINS + digit_of(bits, RANGE_BEGIN + q * DIGIT_BITS, DIGIT_MASK)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < IP * BINS; i += WG)
        if (lh[i])
            atomic_add(&hist[i], lh[i]);
}

/* The digit offsets of one bucket's place from its counts: the bucket's start plus the exclusive
 * scan. */
inline void bucket_offsets(__global uint *hist, __global ulong *off, ulong start,
                           __local uint *scratch)
{
    uint ex[DIGITS_PER_ITEM];
    const uint first = bins_scan_counts(hist, scratch, ex);
    for (uint j = 0; j < DIGITS_PER_ITEM && first + j < BINS; j++)
        off[first + j] = start + ex[j];
}

/* The wave's histogram tile done: the last one computes the offsets of the wave's buckets and
 * marks the wave ready. */
inline void hybrid_count_done(__global ulong *plan, __global uint *ctl, ulong w, ulong tiles,
                              __local ulong *lt, __local uint *scratch)
{
    const uint lid = get_local_id(0);
    /* The group's writes before the count (the fence of one work-item after the barrier covers
     * the group's, as in a grid-wide barrier). */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        hybrid_release();
        lt[5] = atomic_inc(&ctl[HY_HDONE + w]) == tiles - 1;
        if (lt[5])
            hybrid_acquire();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!lt[5])
        return;
    for (ulong b = plan[PL_WB + w]; b < plan[PL_WB + w + 1]; b++)
        for (uint q = 0; q < IP; q++)
            bucket_offsets(ctl + HY_HIST + (b * IP + q) * BINS, plan + PL_OFF + (b * IP + q) * BINS,
                           plan[PL_BS + b], scratch);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        hybrid_release();
        status_store(&ctl[HY_READY + w], 1);
    }
}

#if HAS_VALUES
#define HY_VALUE_PARAMS __global VALUE_T *va, __global VALUE_T *vb,
#else
#define HY_VALUE_PARAMS
#endif
/* The histogram's local words: in the tile's local memory where it is large enough. */
#if USE_PTX
#define HY_TILE_LOCAL lmem
#define HY_TILE_BYTES (TILE * (KEY_BITS / 8)) /* at least: the tile's keys */
#elif RANK_COUNTERS >= IP * BINS
#define HY_TILE_LOCAL counters
#define HY_TILE_BYTES (RANK_COUNTERS * 4)
#else
#define HY_TILE_LOCAL lkeys
#define HY_TILE_BYTES (TILE * (KEY_BITS / 8))
#endif

/* ka/va: the job's buffers, where the sorted keys end after an odd number of lower places; kb/vb:
 * their partners, which the top pass filled. status regions hold region_tiles x BINS words per
 * pass; modes: the histogram's offsets (how each place's digits fall). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix8_hybrid(__global key_t *ka, __global key_t *kb, HY_VALUE_PARAMS
                   __global const ulong *modes, __global ulong *plan, __global uint *ctl,
                   ulong region_tiles, uint step)
{
#if !HAS_VALUES
    __global VALUE_T *const va = 0, *const vb = 0;
#endif
    BIN_LOCALS
    __local ulong lt[6]; /* hybrid_next's five words, then hybrid_count_done's flag */
#if HY_TILE_BYTES >= IP * BINS * 4
    __local uint *const lh = (__local uint *)HY_TILE_LOCAL;
#else
    __local uint lh[IP * BINS];
#endif
    const uint lid = get_local_id(0);
    const tile_ref ref = { 0, 0, 0, 0 };
    if (lid == 0)
        hybrid_next(plan, ctl, step, lt);
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong e = lt[0];
    if (e == 0)
        return; /* past the last ticket (the launch has a few spare groups) */
    const uint b = TK_BUCKET(e), pass = TK_PASS(e);
    const ulong tile = TK_TILE(e), tstart = lt[1] + tile * TILE;
    const uint count = (uint)min((ulong)TILE, lt[2] - tstart);
    if (TK_KIND(e) == 1) {
        hybrid_count(kb, tstart, count, ctl + HY_HIST + b * IP * BINS, lh);
        hybrid_count_done(plan, ctl, TK_WAVE(e), lt[4], lt, BIN_SCAN_SCRATCH);
        return;
    }
    const int odd = pass & 1;
    __global uint *const status = ctl + HY_STATUS + (pass * region_tiles + lt[3]) * BINS;
    bin_steps(odd ? ka : kb, odd ? kb : ka, odd ? va : vb, odd ? vb : va, tstart, count, tile,
              RANGE_BEGIN + pass * DIGIT_BITS, status, modes, plan + PL_OFF, (b * IP + pass) * BINS,
              0, 0, &ref, BIN_LOCAL_ARGS);
    if (pass + 1 < IP) {
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            hybrid_release();
            atomic_inc(&ctl[HY_DONE + b * IP + pass]);
        }
    }
}
#endif
#endif /* SERIAL */
