/*
 * Block bitonic sort. Not stable.
 *
 * The network is the "flip" form of bitonic sort: stage k (k = 2, 4, ..) first compares position p of
 * each k-block with its mirror p ^ (k - 1), then runs half-cleaners of strides k/4, .., 1. Every
 * compare-exchange puts the smaller key at the lower position, so there are no descending blocks and
 * a short input behaves as if padded with keys larger than any real key: such pads never move, and
 * positions past the end are neither read nor written.
 *
 * Segments: the virtual position space holds one block of P = 2^LP positions per segment of S keys
 * (S = n for a whole array); position v is key (v >> LP) * S + (v & (P - 1)) when its offset is below
 * S and the key index below n, else a pad.
 *
 * A work-item holds ITEMS = 2^F elements in registers and runs up to F network levels on them between
 * two trips to memory: a "round". The levels of a round are XOR masks with distinct leading bits; the
 * work-item's elements are the coset x ^ span(masks), so the round's pairs never leave the work-item.
 * Rounds with fewer than F levels fill the span with unused bits.
 *
 * Keys are key_t (32 or 64 bits, KEY_BITS) already mapped to their unsigned order bits. With a bit
 * range only the bits of KEY_RANGE_MASK are compared; whole keys move. A pad is all ones, so no real
 * key compares greater than it and, as every exchange needs a strictly greater key at the lower
 * position, pads never move.
 *
 * Options: WG, ITEMS, F (log2 ITEMS), GF (levels per round of bitonic_merge_global, which holds 2^GF
 * elements per work-item), HAS_VALUES, VALUE_T, KEY_BITS, KEY_RANGE_MASK, POS64 (positions need 64
 * bits), WHOLE (one segment: position = key index), CARRY (tile kernels keep their registers across
 * barriers). Tile = WG * ITEMS positions.
 */

#define TILE (WG * ITEMS)
#define LT (31 - clz((uint)TILE)) /* log2 TILE */
#define PAD KEY_ONES
/* One spare word per 32 in local memory breaks the bank conflicts of power-of-two strides. */
#define LIDX(p) ((p) + ((p) >> 5))
#define LTILE LIDX(TILE)

#ifndef GF
#define GF F
#endif
#if (1 << F) != ITEMS
#error "ITEMS must be 2^F"
#endif
#if F < 1 || F > 6 || GF < 1 || GF > 6
#error "F and GF must be 1..6"
#endif

/* Positions are 32-bit where every virtual position fits: the address arithmetic is a good part of a
 * pass's instructions. */
#if POS64
#define POS_T ulong
#else
#define POS_T uint
#endif
typedef POS_T pos_t;

/* Level i of stage k = 2^lk: the mirror mask for i = 0, then strides k/4, k/8, .., 1. */
#define LEVEL_MASK(T, lk, i) ((i) == 0 ? ((T)1 << (lk)) - 1 : (T)1 << ((lk) - 1 - (i)))

/*
 * Round helpers for a position type T (uint inside a tile, pos_t in global memory) and a round of ff
 * levels (F in local memory, GF in global memory). All loops unroll, so every array index is a
 * constant and k[], v[], g[] stay in registers; arrays of generators have room for 6.
 *
 * round_masks: g[] receives levels [first, first + count) of stage 2^lk, then unused bits below `bits`
 * (highest first, so that consecutive work-items keep consecutive low addresses); returns the set of
 * leading bits. deposit: spreads q over the positions not in `used` (no-op steps once `used` is
 * empty). coset_pos: element m of the coset of x, x with the generators of m's set bits applied.
 */
#define DEFINE_ROUND(T, W)                                                                         \
    inline T round_masks_##T(uint ff, uint lk, uint first, uint count, uint bits, T *g)            \
    {                                                                                              \
        T used = 0;                                                                                \
        _Pragma("unroll") for (uint b = 0; b < 6; b++)                                             \
        {                                                                                          \
            if (b < count && b < ff) {                                                             \
                g[b] = LEVEL_MASK(T, lk, first + b);                                               \
                used |= (T)1 << (W - 1 - clz(g[b]));                                               \
            }                                                                                      \
        }                                                                                          \
        int bit = (int)bits - 1;                                                                   \
        _Pragma("unroll") for (uint b = 0; b < 6; b++)                                             \
        {                                                                                          \
            if (b >= count && b < ff) {                                                            \
                while (used & ((T)1 << bit))                                                       \
                    bit--;                                                                         \
                g[b] = (T)1 << bit;                                                                \
                used |= g[b];                                                                      \
            }                                                                                      \
        }                                                                                          \
        return used;                                                                               \
    }                                                                                              \
    inline T deposit_##T(T q, T used)                                                              \
    {                                                                                              \
        _Pragma("unroll") for (uint b = 0; b < 6; b++)                                             \
        {                                                                                          \
            const T low = used & (~used + 1);                                                      \
            q = ((q & ~(low - 1)) << 1) | (q & (low - 1));                                         \
            used &= used - 1;                                                                      \
        }                                                                                          \
        return q;                                                                                  \
    }                                                                                              \
    inline T coset_pos_##T(T x, const T *g, uint m)                                                \
    {                                                                                              \
        _Pragma("unroll") for (uint b = 0; b < 6; b++)                                             \
        {                                                                                          \
            if ((m >> b) & 1)                                                                      \
                x ^= g[b];                                                                         \
        }                                                                                          \
        return x;                                                                                  \
    }

DEFINE_ROUND(uint, 32)
#if POS64
DEFINE_ROUND(ulong, 64)
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define round_masks_pos CAT(round_masks_, POS_T)
#define deposit_pos CAT(deposit_, POS_T)
#define coset_pos_pos CAT(coset_pos_, POS_T)

/*
 * The first `count` levels of a round of ff levels on the registers: level b pairs elements m and
 * m ^ 2^b; the smaller key goes to the lower position. Every position bit a stride level looks at is
 * set only by its own generator or by the mirror mask (level 0 of a stage, which covers all lower
 * bits), so element m is the lower one unless the round holds the mirror (`flip`), b > 0 and m is odd.
 * A value moves only when its key is strictly greater, so pads stay where they are.
 */
#define ROUND_NETWORK(ff, flip, count)                                                             \
    _Pragma("unroll") for (uint b = 0; b < (ff); b++)                                              \
    {                                                                                              \
        _Pragma("unroll") for (uint m = 0; m < (1u << (ff)); m++)                                  \
        {                                                                                          \
            if (b >= (count) || (m & (1u << b)))                                                   \
                continue;                                                                          \
            const uint m2 = m | (1u << b);                                                         \
            const int reversed = (flip) && b > 0 && (m & 1);                                       \
            ORDER_PAIR(m, m2, reversed);                                                           \
        }                                                                                          \
    }

/* Put the smaller of k[m], k[m2] at m (at m2 when reversed), the values following their keys. */
#if KEY_RANGE_MASK == KEY_ONES
#define ORDER_PAIR(m, m2, reversed)                                                                \
    do {                                                                                           \
        const key_t a = k[m], c = k[m2];                                                           \
        k[m] = (reversed) ? max(a, c) : min(a, c);                                                 \
        k[m2] = (reversed) ? min(a, c) : max(a, c);                                                \
        SWAP_VALUES(m, m2, (reversed) ? c > a : a > c);                                            \
    } while (0)
#else
/* Keys equal in the range may differ elsewhere: exchange whole keys on a strict masked compare. */
#define ORDER_PAIR(m, m2, reversed)                                                                \
    do {                                                                                           \
        const key_t a = k[m], c = k[m2];                                                           \
        const key_t ra = a & KEY_RANGE_MASK, rc = c & KEY_RANGE_MASK;                              \
        const int swap = (reversed) ? rc > ra : ra > rc;                                           \
        k[m] = swap ? c : a;                                                                       \
        k[m2] = swap ? a : c;                                                                      \
        SWAP_VALUES(m, m2, swap);                                                                  \
    } while (0)
#endif

#if HAS_VALUES
#define SWAP_VALUES(m, m2, swap)                                                                   \
    do {                                                                                           \
        const VALUE_T va_ = v[m], vc_ = v[m2];                                                     \
        v[m] = (swap) ? vc_ : va_;                                                                 \
        v[m2] = (swap) ? va_ : vc_;                                                                \
    } while (0)
#else
#define SWAP_VALUES(m, m2, swap)
#endif

/* Virtual position -> key index; non-zero when the position holds a real key. */
inline int locate(pos_t v, ulong n, ulong seg_len, uint lp, pos_t *idx)
{
#if WHOLE
    *idx = v;
    return v < n;
#else
    const pos_t seg = v >> lp, t = v & (((pos_t)1 << lp) - 1);
    *idx = seg * (pos_t)seg_len + t;
    return t < seg_len && *idx < n;
#endif
}

#if HAS_VALUES
#define TILE_ARGS __global key_t *keys, __global VALUE_T *vals
#define LOCAL_DECL                                                                                 \
    __local key_t lkeys[LTILE];                                                                    \
    __local VALUE_T lvals[LTILE]
#define REG_DECL(n_)                                                                               \
    key_t k[n_];                                                                                   \
    VALUE_T v[n_]
#define LOAD_VALUE(p, ok, idx) lvals[LIDX(p)] = (ok) ? vals[idx] : (VALUE_T)0
#define STORE_VALUE(p, idx) vals[idx] = lvals[LIDX(p)]
#define REG_VALUE(m, ok, idx) v[m] = (ok) ? vals[idx] : (VALUE_T)0
#define REG_STORE_VALUE(m, idx) vals[idx] = v[m]
#define SPILL_VALUE(m, at) lvals[at] = v[m]
#define FILL_VALUE(m, at) v[m] = lvals[at]
#else
#define TILE_ARGS __global key_t *keys
#define LOCAL_DECL __local key_t lkeys[LTILE]
#define REG_DECL(n_) key_t k[n_]
#define LOAD_VALUE(p, ok, idx)
#define STORE_VALUE(p, idx)
#define REG_VALUE(m, ok, idx)
#define REG_STORE_VALUE(m, idx)
#define SPILL_VALUE(m, at)
#define FILL_VALUE(m, at)
#endif

/* Tile in and out of local memory, striped so that consecutive work-items touch consecutive keys.
 * POSITION(p) is the virtual position of tile position p. */
#define LOAD_TILE(POSITION)                                                                        \
    for (uint p = get_local_id(0); p < TILE; p += WG) {                                            \
        pos_t idx;                                                                                 \
        const int ok = locate(POSITION(p), n, seg_len, lp, &idx);                                  \
        lkeys[LIDX(p)] = ok ? key_to_bits(keys[idx]) : PAD;                                        \
        LOAD_VALUE(p, ok, idx);                                                                    \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#define STORE_TILE(POSITION)                                                                       \
    for (uint p = get_local_id(0); p < TILE; p += WG) {                                            \
        pos_t idx;                                                                                 \
        if (locate(POSITION(p), n, seg_len, lp, &idx)) {                                           \
            keys[idx] = bits_to_key(lkeys[LIDX(p)]);                                               \
            STORE_VALUE(p, idx);                                                                   \
        }                                                                                          \
    }

/* A tile of consecutive positions. */
#define CONTIGUOUS(p) (base + (p))

/*
 * The tile kernels keep ITEMS elements per work-item in registers, k[] (and v[]), and run up to F
 * levels on them per round. A round's layout, x and g[], says which tile positions a work-item holds:
 * element m sits at tile position coset_pos_uint(x, g, m) (FOR_COSET walks them). Between rounds the
 * work-group trades elements through local memory (SPILL, barrier, FILL, barrier: every position is
 * written by one work-item and read by another, so the second barrier keeps the next SPILL from
 * overwriting a position not yet read). `state` says where the tile is: in registers, in local
 * memory, or still in global memory, where the first round reads its own layout straight from (its
 * elements are consecutive across work-items, so the reads stay coalesced).
 */
#define IN_REGS 0
#define IN_LOCAL 1
#define IN_GLOBAL 2

/*
 * FOR_COSET(body) runs body for every element m of the layout (x, g), with p its tile position and at
 * = LIDX(p), in an order where each step moves one generator: both then change by one add. g[0] may
 * be the mirror mask; every other generator is a single bit, set in x ^ g[0] or not, so moving it adds
 * or subtracts that bit without a carry, and LIDX, linear where no carry crosses bit 5, follows. The
 * even elements come first (x), then the odd ones (x ^ g[0]), each half in Gray-code order of m's
 * other bits; every index is a constant after unrolling. This replaces a few operations of address
 * arithmetic per element, which are a good share of a round's instructions.
 */
#define COSET_HALF(j, ...)                                                                        \
    {                                                                                              \
        uint p = (j) ? x ^ g[0] : x;                                                               \
        int dp[6], da[6];                                                                          \
        _Pragma("unroll") for (uint b = 1; b < F; b++)                                             \
        {                                                                                          \
            dp[b] = (p & g[b]) ? -(int)g[b] : (int)g[b];                                           \
            da[b] = (p & g[b]) ? -(int)LIDX(g[b]) : (int)LIDX(g[b]);                               \
        }                                                                                          \
        uint at = LIDX(p);                                                                         \
        _Pragma("unroll") for (uint i = 0; i < ITEMS / 2; i++)                                     \
        {                                                                                          \
            if (i > 0) {                                                                           \
                const uint hb = 31 - clz(i & (~i + 1)); /* the bit Gray order flips at step i */   \
                if (((i ^ (i >> 1)) >> hb) & 1) {                                                  \
                    p += dp[hb + 1];                                                               \
                    at += da[hb + 1];                                                              \
                } else {                                                                           \
                    p -= dp[hb + 1];                                                               \
                    at -= da[hb + 1];                                                              \
                }                                                                                  \
            }                                                                                      \
            const uint m = ((i ^ (i >> 1)) << 1) | (j);                                            \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }
#define FOR_COSET(...)                                                                             \
    {                                                                                              \
        COSET_HALF(0, __VA_ARGS__) COSET_HALF(1, __VA_ARGS__)                                      \
    }

#define SPILL()                                                                                    \
    FOR_COSET({                                                                                    \
        lkeys[at] = k[m];                                                                          \
        SPILL_VALUE(m, at);                                                                        \
    })

#define FILL()                                                                                     \
    FOR_COSET({                                                                                    \
        k[m] = lkeys[at];                                                                          \
        FILL_VALUE(m, at);                                                                         \
    })

#define FILL_GLOBAL(POSITION)                                                                      \
    FOR_COSET({                                                                                    \
        pos_t idx;                                                                                 \
        const int ok = locate(POSITION(p), n, seg_len, lp, &idx);                                  \
        k[m] = ok ? key_to_bits(keys[idx]) : PAD;                                                  \
        REG_VALUE(m, ok, idx);                                                                     \
    })

/* Levels [first, last) of stage 2^lk, in rounds of at most F levels; the first round takes the
 * remainder, so that the last rounds (small strides) are full. With CARRY the registers stay live
 * across the trades (GPUs); without, every round reads local memory, writes it back and ends with a
 * barrier, so that no private array lives across a barrier (CPU devices keep such arrays in memory
 * per work-item). */
#if CARRY
#define RUN_LEVELS(POSITION, lk_, first_, last_)                                                   \
    for (uint i_ = (first_), r_ = ((last_) - (first_)) % F ? ((last_) - (first_)) % F : F;         \
         i_ < (last_); i_ += r_, r_ = F) {                                                         \
        if (state == IN_REGS)                                                                      \
            SPILL();                                                                               \
        if (state != IN_GLOBAL)                                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        x = deposit_uint(get_local_id(0), round_masks_uint(F, (lk_), i_, r_, LT, g));              \
        if (state == IN_GLOBAL) {                                                                  \
            FILL_GLOBAL(POSITION);                                                                 \
        } else {                                                                                   \
            FILL();                                                                                \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        ROUND(i_, r_);                                                                             \
        state = IN_REGS;                                                                           \
    }
#else
#define RUN_LEVELS(POSITION, lk_, first_, last_)                                                   \
    for (uint i_ = (first_), r_ = ((last_) - (first_)) % F ? ((last_) - (first_)) % F : F;         \
         i_ < (last_); i_ += r_, r_ = F) {                                                         \
        x = deposit_uint(get_local_id(0), round_masks_uint(F, (lk_), i_, r_, LT, g));              \
        if (state == IN_GLOBAL) {                                                                  \
            FILL_GLOBAL(POSITION);                                                                 \
        } else {                                                                                   \
            FILL();                                                                                \
        }                                                                                          \
        ROUND(i_, r_);                                                                             \
        SPILL();                                                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        state = IN_LOCAL;                                                                          \
    }
#endif

/* Two unrolled copies, so that each has its compare directions fixed at compile time. */
#define ROUND(first_, count_)                                                                      \
    if ((first_) == 0) {                                                                           \
        ROUND_NETWORK(F, 1, count_);                                                               \
    } else {                                                                                       \
        ROUND_NETWORK(F, 0, count_);                                                               \
    }

/* The tile back to global memory, through local memory so that the writes are coalesced. A first
 * round that read global memory read positions that other work-items now write: the barrier orders
 * those reads first. */
#define FINISH(POSITION)                                                                           \
    if (state != IN_GLOBAL) {                                                                      \
        if (state == IN_REGS)                                                                      \
            SPILL();                                                                               \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                       \
        STORE_TILE(POSITION);                                                                      \
    }

#define TILE_STATE                                                                                 \
    LOCAL_DECL;                                                                                    \
    REG_DECL(ITEMS);                                                                               \
    uint x, g[6];                                                                                  \
    int state = IN_GLOBAL

/*
 * Sort every block of min(P, TILE) positions of a tile: stages 2 .. 2^lb. Where a tile is all real
 * keys of one segment (always so for a whole array but its tail), the order in which they enter is
 * free: work-item w reads keys w, w + WG, .. (coalesced) as its own ITEMS consecutive positions, and
 * sorts them in registers (stages 2 .. 2^F) before the first trade through local memory.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_tile(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lb)
{
    TILE_STATE;
    const pos_t base = (pos_t)get_group_id(0) * TILE;
    uint lk = 1, last = lb;
    pos_t end;
    if ((WHOLE || lp >= LT) && locate(base + TILE - 1, n, seg_len, lp, &end)) {
        const uint lid = get_local_id(0);
#pragma unroll
        for (uint m = 0; m < ITEMS; m++) {
            pos_t idx;
            const int ok = locate(base + m * WG + lid, n, seg_len, lp, &idx);
            k[m] = ok ? key_to_bits(keys[idx]) : PAD;
            REG_VALUE(m, ok, idx);
        }
        /* Stages 2 .. 2^F on positions lid * ITEMS + m: pair m with m ^ mask, smaller key first. */
#pragma unroll
        for (uint s = 1; s <= F; s++) {
#pragma unroll
            for (uint i = 0; i < s; i++) {
                const uint mask = LEVEL_MASK(uint, s, i);
#pragma unroll
                for (uint m = 0; m < ITEMS; m++) {
                    if (m < (m ^ mask))
                        ORDER_PAIR(m, m ^ mask, 0);
                }
            }
        }
        x = lid << F;
#pragma unroll
        for (uint b = 0; b < 6; b++)
            g[b] = 1u << b;
#if CARRY
        state = IN_REGS;
#else
        SPILL();
        barrier(CLK_LOCAL_MEM_FENCE);
        state = IN_LOCAL;
#endif
        lk = F + 1;
        /* The keys no longer sit where they came from, so sort the whole tile (all real keys: a pad
         * could trade places with a real key that compares equal to it). */
        last = LT;
    } else {
        LOAD_TILE(CONTIGUOUS);
        state = IN_LOCAL;
    }
    for (; lk <= last; lk++)
        RUN_LEVELS(CONTIGUOUS, lk, 0, lk);
    FINISH(CONTIGUOUS);
}

/* The levels of stage 2^lk whose strides lie inside a tile (TILE/2 .. 1). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_merge_local(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lk)
{
    TILE_STATE;
    const pos_t base = (pos_t)get_group_id(0) * TILE;
    RUN_LEVELS(CONTIGUOUS, lk, lk - LT, lk);
    FINISH(CONTIGUOUS);
}

/*
 * Levels [first, first + count) of stage 2^lk, all with strides of a tile or more (count <= LT), in
 * one pass through local memory: more levels per trip to memory than a work-item's registers hold.
 *
 * The levels pair positions on the global bits lo .. lo + count - 1 (lo = lk - first - count), and,
 * for the stage's mirror (first == 0), on every bit below lk. A work-group takes the positions whose
 * bits lo .. lo + count - 1 and 0 .. low - 1 (low = LT - count) vary, the rest fixed by its group id,
 * except that the mirror pairs the middle bits low .. lo - 1 with their complement: where bit lk - 1
 * is set, the middle bits are flipped. Tile position p = (bits lo .., bits 0 ..) is then exactly the
 * tile's own stage 2^LT (levels 0 .. count - 1) when first == 0, or levels 1 .. count of stage 2^(LT+1)
 * otherwise, so the rounds of the other kernels run it unchanged. The low bits keep runs of 2^low
 * consecutive keys together, which is what keeps the memory accesses coalesced.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_merge_wide(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lk, uint first, uint count)
{
    TILE_STATE;
    const uint low = LT - count, lo = lk - first - count, mid_bits = lo - low;
    const pos_t grp = get_group_id(0);
    const pos_t base =
        ((grp & (((pos_t)1 << mid_bits) - 1)) << low) | ((grp >> mid_bits) << (lo + count));
    const pos_t mirror = first == 0 ? ((pos_t)1 << lo) - ((pos_t)1 << low) : 0;
#define WIDE(p)                                                                                    \
    ((base | ((pos_t)((p) >> low) << lo) | ((p) & ((1u << low) - 1))) ^                           \
     (((p) >> (LT - 1)) & 1 ? mirror : 0))
    if (first == 0) {
        RUN_LEVELS(WIDE, LT, 0, count);
    } else {
        RUN_LEVELS(WIDE, LT + 1, 1, count + 1);
    }
    FINISH(WIDE);
#undef WIDE
}

/* Levels [first, first + count) of stage 2^lk, all with strides of a tile or more, straight in global
 * memory: one round of count <= GF levels per work-item, fused into one read and one write. */
#define GITEMS (1 << GF)
__kernel void bitonic_merge_global(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lk, uint first,
                                   uint count, ulong groups)
{
    const pos_t q = get_global_id(0);
    if (q >= groups)
        return;
    pos_t g[6];
    REG_DECL(GITEMS);
    /* Masks stay below P, so a coset never leaves its segment's block. */
    const pos_t used = round_masks_pos(GF, lk, first, count, lp, g);
    const pos_t x = ((q >> (lp - GF)) << lp) | deposit_pos(q & (((pos_t)1 << (lp - GF)) - 1), used);
#pragma unroll
    for (uint m = 0; m < GITEMS; m++) {
        pos_t idx;
        const int ok = locate(coset_pos_pos(x, g, m), n, seg_len, lp, &idx);
        k[m] = ok ? key_to_bits(keys[idx]) : PAD;
#if HAS_VALUES
        v[m] = ok ? vals[idx] : (VALUE_T)0;
#endif
    }
    if (first == 0) {
        ROUND_NETWORK(GF, 1, count);
    } else {
        ROUND_NETWORK(GF, 0, count);
    }
#pragma unroll
    for (uint m = 0; m < GITEMS; m++) {
        pos_t idx;
        if (locate(coset_pos_pos(x, g, m), n, seg_len, lp, &idx)) {
            keys[idx] = bits_to_key(k[m]);
#if HAS_VALUES
            vals[idx] = v[m];
#endif
        }
    }
}
