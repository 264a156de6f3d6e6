/*
 * LSD radix sort of 32- or 64-bit keys (key_t, common.cl) in digits of DIGIT_BITS bits: 8 for radix8,
 * 4 for radix4. One stable binning pass per digit place of the bit range (PLACES of them, at most 8
 * bytes' worth). This file holds what every form of it shares (the options, the look-back's
 * status words, the tiles of reduce-then-scan, the digit places); lib/radix/radix.c builds each
 * program from it and the parts its form needs, in this order:
 *   onesweep          histogram.cl, ranking.cl, binning.cl (and hybrid.cl for radix-hybrid)
 *   reduce-then-scan  rts.cl, ranking.cl, binning.cl
 *   variable segments by look-back: histogram.cl, ranking.cl, chains.cl, binning.cl
 *   the serial form   serial.cl alone
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
 * VARSEG=1: variable segments (cl/segments/). The tiles of the segments too long for the tile sort
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

/* ---- digit places ---- */

/* Digit places: PLACES digits of DIGIT_BITS bits from bit RANGE_BEGIN of the mapped key (the bit
 * range); the histogram counts the HIST_PLACES bytes they cover. */
#ifndef RANGE_BEGIN
#define RANGE_BEGIN 0
#endif
#ifndef PLACES
#define PLACES 4
#endif

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
