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
 * Options: WG, ITEMS, F (log2 ITEMS), HAS_VALUES, VALUE_T, KEY_BITS, KEY_RANGE_MASK. Tile = WG * ITEMS
 * positions.
 */

#define TILE (WG * ITEMS)
#define PAD KEY_ONES
/* One spare word per 32 in local memory breaks the bank conflicts of power-of-two strides. */
#define LIDX(p) ((p) + ((p) >> 5))
#define LTILE LIDX(TILE)

#if (1 << F) != ITEMS
#error "ITEMS must be 2^F"
#endif

/* Level i of stage k = 2^lk: the mirror mask for i = 0, then strides k/4, k/8, .., 1. */
#define LEVEL_MASK(T, lk, i) ((i) == 0 ? ((T)1 << (lk)) - 1 : (T)1 << ((lk) - 1 - (i)))

/*
 * Round helpers for a position type T (uint inside a tile, ulong in global memory). All loops over
 * the F levels and the ITEMS elements unroll, so every array index is a constant and k[], v[], g[]
 * stay in registers.
 *
 * round_masks: g[] receives levels [first, first + count) of stage 2^lk, then unused bits below `bits`
 * (highest first, so that consecutive work-items keep consecutive low addresses); returns the set of
 * leading bits. deposit: spreads q over the positions not in `used`. POS: element m of the coset of x.
 */
#define DEFINE_ROUND(T, W)                                                                         \
    inline T round_masks_##T(uint lk, uint first, uint count, uint bits, T *g)                     \
    {                                                                                              \
        T used = 0;                                                                                \
        _Pragma("unroll") for (uint b = 0; b < F; b++)                                             \
        {                                                                                          \
            if (b < count) {                                                                       \
                g[b] = LEVEL_MASK(T, lk, first + b);                                               \
                used |= (T)1 << (W - 1 - clz(g[b]));                                               \
            }                                                                                      \
        }                                                                                          \
        int bit = (int)bits - 1;                                                                   \
        _Pragma("unroll") for (uint b = 0; b < F; b++)                                             \
        {                                                                                          \
            if (b >= count) {                                                                      \
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
        _Pragma("unroll") for (uint b = 0; b < F; b++)                                             \
        {                                                                                          \
            const T low = used & (~used + 1);                                                      \
            q = ((q & ~(low - 1)) << 1) | (q & (low - 1));                                         \
            used &= used - 1;                                                                      \
        }                                                                                          \
        return q;                                                                                  \
    }

DEFINE_ROUND(uint, 32)
DEFINE_ROUND(ulong, 64)

/* Element m of the coset: x with the generators of m's set bits applied (constant m: a few XORs). */
#define POS(x, g, m)                                                                               \
    ((x) ^ ((m) & 1 ? g[0] : 0) ^ ((m) & 2 ? g[1] : 0) ^ (F > 2 && ((m) & 4) ? g[F > 2 ? 2 : 0] : 0) \
     ^ (F > 3 && ((m) & 8) ? g[F > 3 ? 3 : 0] : 0) ^ (F > 4 && ((m) & 16) ? g[F > 4 ? 4 : 0] : 0))

#if F < 2 || F > 5
#error "F must be 2..5"
#endif

/*
 * The first `count` levels on the registers: level b pairs elements m and m ^ 2^b; the smaller key
 * goes to the lower position. Every position bit a stride level looks at is set only by its own
 * generator or by the mirror mask (level 0 of a stage, which covers all lower bits), so element m is
 * the lower one unless the round holds the mirror (`flip`), b > 0 and m is odd. A value moves only
 * when its key is strictly greater, so pads stay where they are.
 */
#define ROUND_NETWORK(flip, count)                                                                 \
    _Pragma("unroll") for (uint b = 0; b < F; b++)                                                 \
    {                                                                                              \
        _Pragma("unroll") for (uint m = 0; m < ITEMS; m++)                                         \
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
inline int locate(ulong v, ulong n, ulong seg_len, uint lp, ulong *idx)
{
    const ulong seg = v >> lp, t = v & ((1ul << lp) - 1);
    *idx = seg * seg_len + t;
    return t < seg_len && *idx < n;
}

/* One round on the tile in local memory; ends with a barrier. */
inline void local_round(__local key_t *lk,
#if HAS_VALUES
                        __local VALUE_T *lv,
#endif
                        uint stage, uint first, uint count)
{
    uint g[F];
    key_t k[ITEMS];
#if HAS_VALUES
    VALUE_T v[ITEMS];
#endif
    const uint used = round_masks_uint(stage, first, count, 31 - clz((uint)TILE), g);
    const uint x = deposit_uint(get_local_id(0), used);
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        k[m] = lk[LIDX(POS(x, g, m))];
#if HAS_VALUES
        v[m] = lv[LIDX(POS(x, g, m))];
#endif
    }
    /* Two unrolled copies, so that each has its compare directions fixed at compile time. */
    if (first == 0) {
        ROUND_NETWORK(1, count);
    } else {
        ROUND_NETWORK(0, count);
    }
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        lk[LIDX(POS(x, g, m))] = k[m];
#if HAS_VALUES
        lv[LIDX(POS(x, g, m))] = v[m];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Levels [first, last) of stage 2^lk in rounds of at most F; the first round takes the remainder so
 * the last rounds (small strides) are full. */
#if HAS_VALUES
#define LOCAL_LEVELS(lk_, first_, last_)                                                           \
    for (uint i_ = (first_), r_ = ((last_) - (first_)) % F ? ((last_) - (first_)) % F : F;         \
         i_ < (last_); i_ += r_, r_ = F)                                                           \
        local_round(lkeys, lvals, (lk_), i_, r_)
#else
#define LOCAL_LEVELS(lk_, first_, last_)                                                           \
    for (uint i_ = (first_), r_ = ((last_) - (first_)) % F ? ((last_) - (first_)) % F : F;         \
         i_ < (last_); i_ += r_, r_ = F)                                                           \
        local_round(lkeys, (lk_), i_, r_)
#endif

#if HAS_VALUES
#define TILE_ARGS __global key_t *keys, __global VALUE_T *vals
#else
#define TILE_ARGS __global key_t *keys
#endif

/* Tile in and out of local memory, striped so that consecutive work-items touch consecutive keys. */
#define LOAD_TILE()                                                                                \
    const ulong base = (ulong)get_group_id(0) * TILE;                                              \
    for (uint p = get_local_id(0); p < TILE; p += WG) {                                            \
        ulong idx;                                                                                 \
        const int ok = locate(base + p, n, seg_len, lp, &idx);                                     \
        lkeys[LIDX(p)] = ok ? key_to_bits(keys[idx]) : PAD;                                        \
        LOAD_VALUE(p, ok, idx);                                                                    \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE)

#define STORE_TILE()                                                                               \
    for (uint p = get_local_id(0); p < TILE; p += WG) {                                            \
        ulong idx;                                                                                 \
        if (locate(base + p, n, seg_len, lp, &idx)) {                                              \
            keys[idx] = bits_to_key(lkeys[LIDX(p)]);                                               \
            STORE_VALUE(p, idx);                                                                   \
        }                                                                                          \
    }

#if HAS_VALUES
#define LOCAL_DECL                                                                                 \
    __local key_t lkeys[LTILE];                                                                    \
    __local VALUE_T lvals[LTILE]
#define LOAD_VALUE(p, ok, idx) lvals[LIDX(p)] = (ok) ? vals[idx] : (VALUE_T)0
#define STORE_VALUE(p, idx) vals[idx] = lvals[LIDX(p)]
#else
#define LOCAL_DECL __local key_t lkeys[LTILE]
#define LOAD_VALUE(p, ok, idx)
#define STORE_VALUE(p, idx)
#endif

/* Sort every block of min(P, TILE) positions of a tile: stages 2 .. 2^lb. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_tile(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lb)
{
    LOCAL_DECL;
    LOAD_TILE();
    for (uint lk = 1; lk <= lb; lk++)
        LOCAL_LEVELS(lk, 0, lk);
    STORE_TILE();
}

/* The levels of stage 2^lk whose strides lie inside a tile (TILE/2 .. 1). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_merge_local(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lk)
{
    LOCAL_DECL;
    LOAD_TILE();
    const uint lt = 31 - clz((uint)TILE);
    LOCAL_LEVELS(lk, lk - lt, lk);
    STORE_TILE();
}

/* Levels [first, first + count) of stage 2^lk, all with strides of a tile or more, straight in global
 * memory: one round per work-item, `count` <= F levels fused into one read and one write. */
__kernel void bitonic_merge_global(TILE_ARGS, ulong n, ulong seg_len, uint lp, uint lk, uint first,
                                   uint count, ulong groups)
{
    const ulong q = get_global_id(0);
    if (q >= groups)
        return;
    ulong g[F];
    key_t k[ITEMS];
#if HAS_VALUES
    VALUE_T v[ITEMS];
#endif
    /* Masks stay below P, so a coset never leaves its segment's block. */
    const ulong used = round_masks_ulong(lk, first, count, lp, g);
    const ulong x = ((q >> (lp - F)) << lp) | deposit_ulong(q & ((1ul << (lp - F)) - 1), used);
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        ulong idx;
        const int ok = locate(POS(x, g, m), n, seg_len, lp, &idx);
        k[m] = ok ? key_to_bits(keys[idx]) : PAD;
#if HAS_VALUES
        v[m] = ok ? vals[idx] : (VALUE_T)0;
#endif
    }
    if (first == 0) {
        ROUND_NETWORK(1, count);
    } else {
        ROUND_NETWORK(0, count);
    }
#pragma unroll
    for (uint m = 0; m < ITEMS; m++) {
        ulong idx;
        if (locate(POS(x, g, m), n, seg_len, lp, &idx)) {
            keys[idx] = bits_to_key(k[m]);
#if HAS_VALUES
            vals[idx] = v[m];
#endif
        }
    }
}
