/*
 * Helpers shared by every kernel family. The host prepends this file to each program and passes the
 * tuning parameters as -D options:
 *   WG      work-group size (a power of two)
 *   ITEMS   keys per work-item (radix and sort families)
 *   KEY_T   key type as stored; HAS_VALUES, VALUE_T for key/value sorts
 */

#ifndef WG
#error "WG (work-group size) must be defined by the host"
#endif

#if (WG & (WG - 1)) != 0 && !defined(WG_ANY)
#error "WG must be a power of two"
#endif
#if defined(LIB_WG) && WG != LIB_WG
#error "WG is the library's (launched as LIB_WG): CLSORT_BUILD_OPTIONS cannot change it"
#endif

/*
 * Key transforms: map a key's stored bits to an unsigned integer whose unsigned order is the wanted
 * order, and back. Options: KEY_BITS (32 or 64; keys move as uint or ulong whatever their type),
 * KEY_KIND (0 unsigned, 1 signed, 2 IEEE float) and DESCENDING. Signed integers flip the sign bit;
 * floats flip the sign bit of positive values and every bit of negative ones, which gives IEEE total
 * order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN); descending order complements the
 * result, so stable sorts stay stable. key_t is the stored word, also used for the mapped bits.
 */
#ifndef KEY_BITS
#define KEY_BITS 32
#endif
#ifndef KEY_KIND
#define KEY_KIND 0
#endif
#ifndef DESCENDING
#define DESCENDING 0
#endif
#if KEY_BITS == 64
typedef ulong key_t;
#define KEY_SIGN 0x8000000000000000ul
#define KEY_ONES 0xfffffffffffffffful
#else
typedef uint key_t;
#define KEY_SIGN 0x80000000u
#define KEY_ONES 0xffffffffu
#endif

inline key_t key_to_bits(key_t k)
{
#if KEY_KIND == 1
    k ^= KEY_SIGN;
#elif KEY_KIND == 2
    k = (k & KEY_SIGN) ? ~k : (k | KEY_SIGN);
#endif
#if DESCENDING
    k = ~k;
#endif
    return k;
}

inline key_t bits_to_key(key_t b)
{
#if DESCENDING
    b = ~b;
#endif
#if KEY_KIND == 1
    b ^= KEY_SIGN;
#elif KEY_KIND == 2
    b = (b & KEY_SIGN) ? (b ^ KEY_SIGN) : ~b;
#endif
    return b;
}

/* Bits of the mapped key that decide the order (KEY_RANGE_MASK: the bit range [begin, end)); the
 * others are carried along but read as zeros. */
#ifndef KEY_RANGE_MASK
#define KEY_RANGE_MASK KEY_ONES
#endif

/* The digit of the mapped key at bit `shift`, `mask` wide, within the bit range. */
inline uint digit_of(key_t bits, uint shift, uint mask)
{
    return (uint)((bits & KEY_RANGE_MASK) >> shift) & mask;
}

/* Where a table of 256 per-digit words in local memory keeps digit d: the digit with its low 3 bits
 * flipped by its top 3. Digits that differ only in their top bits (keys in steps of 16 or 32, as
 * sorted or aligned data have) then fall in different banks, not all in one or two. Its own
 * inverse, and a permutation of each run of 32 digits. */
#define DIGIT_SLOT(d) ((d) ^ (((d) >> 5) & 7))

/*
 * Work-group exclusive scans through local memory (Kogge-Stone: log2(WG) steps). Every work-item of the
 * group must call them; `scratch` holds WG elements. *total receives the sum over the group. They end
 * with a barrier, so the caller may reuse `scratch` at once.
 */
#define DEFINE_WG_SCAN(T)                                                                          \
    inline T wg_exclusive_scan_##T(T v, __local T *scratch, T *total)                              \
    {                                                                                              \
        const uint lid = get_local_id(0);                                                          \
        scratch[lid] = v;                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint off = 1; off < WG; off <<= 1) {                                                  \
            T t = lid >= off ? scratch[lid - off] : (T)0;                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            scratch[lid] += t;                                                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        T incl = scratch[lid];                                                                     \
        *total = scratch[WG - 1];                                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        return incl - v;                                                                           \
    }

DEFINE_WG_SCAN(ulong)

#if defined(USE_PTX) && USE_PTX
/* NVIDIA's warp primitives through inline PTX (USE_PTX: the host found the vendor's compiler). */
inline uint warp_shfl_up(uint v, uint delta)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
    return r;
}
inline uint warp_shfl(uint v, uint src)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src));
    return r;
}
inline uint lanemask_lt(void)
{
    uint m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}
/* The lanes whose predicate is non-zero. */
inline uint warp_ballot(uint pred)
{
    uint m;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t"
                 "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                 : "=r"(m)
                 : "r"(pred));
    return m;
}
/* The lanes of the warp whose d agrees with this lane's in its low `bits` bits: one ballot per
 * bit, the lanes that agree on each intersected. */
inline uint warp_match_bits(uint d, uint bits)
{
    uint m = 0xffffffffu;
    for (uint b = 0; b < bits; b++) {
        uint agree;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t"
                     "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t@!p not.b32 %0, %0;\n\t}"
                     : "=r"(agree)
                     : "r"(d & (1u << b)));
        m &= agree;
    }
    return m;
}

/* The uint scan by warps: each warp scans its 32 values by shuffles, then every work-item adds the
 * totals of the warps before its own. Two barriers, where the Kogge-Stone form takes 2 log2(WG) + 2
 * (a work-group of 256 sorting in local memory runs one per radix pass). `scratch` holds WG / 32
 * uints here. */
inline uint wg_exclusive_scan_uint(uint v, __local uint *scratch, uint *total)
{
    const uint lid = get_local_id(0), lane = lid & 31, warp = lid >> 5;
    uint x = v;
    for (uint off = 1; off < 32; off <<= 1) {
        const uint y = warp_shfl_up(x, off);
        if (lane >= off)
            x += y;
    }
    if (lane == 31)
        scratch[warp] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0, all = 0;
    for (uint w = 0; w < WG / 32; w++) {
        const uint sum = scratch[w];
        before += w < warp ? sum : 0;
        all += sum;
    }
    *total = all;
    barrier(CLK_LOCAL_MEM_FENCE);
    return before + x - v;
}
#if WG % 32
#error "USE_PTX takes work-groups of whole warps"
#endif
#else
DEFINE_WG_SCAN(uint)
#endif

/*
 * Counter-based ranking of a tile, shared by the radix families.
 *
 * `counters` is a digit-major table of RADIX rows × WG columns in local memory: column lid belongs to
 * work-item lid alone, so counting needs no atomics. After an exclusive scan of the flattened table,
 * entry (d, lid) is the number of keys of the tile that have a smaller digit, or digit d and belong to
 * an earlier work-item — the rank of work-item lid's first key of digit d. Keys must be held in blocked
 * order (work-item lid holds consecutive keys), which makes the ranking stable.
 */
#ifdef RADIX

/* Entry i of the table lives at RANK_AT(i): one spare word after every 32, so that the scan's rakes
 * (work-item lid reads entries lid * RADIX ...) fall in distinct local-memory banks, as the counting
 * (entries d * WG + lid) does anyway. RANK_PAD=0 packs the table. */
#ifndef RANK_PAD
#define RANK_PAD 1
#endif
#define RANK_AT(i) ((i) + RANK_PAD * ((i) >> 5))
#define RANK_COUNTERS (RANK_AT(RADIX * WG - 1) + 1)

/* Zero the counter table: RANK_COUNTERS words. */
inline void rank_clear(__local uint *counters)
{
    const uint lid = get_local_id(0);
    for (uint i = lid; i < RANK_COUNTERS; i += WG)
        counters[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Count one key of digit d for this work-item; returns how many earlier keys of this work-item had d. */
inline uint rank_count(__local uint *counters, uint d)
{
    const uint idx = RANK_AT(d * WG + get_local_id(0));
    uint before = counters[idx];
    counters[idx] = before + 1;
    return before;
}

/* Entry (d, lid) after rank_scan: the rank of work-item lid's first key of digit d. */
inline uint rank_base(__local const uint *counters, uint d, uint lid)
{
    return counters[RANK_AT(d * WG + lid)];
}

/*
 * Exclusive scan of the counter table in place. Each work-item rakes RADIX consecutive entries, the
 * work-group scans the rake sums, and the prefixes are written back. `scan_scratch` holds WG uints.
 * Returns the tile's key count (the table's total).
 */
inline uint rank_scan(__local uint *counters, __local uint *scan_scratch)
{
    const uint lid = get_local_id(0), first = lid * RADIX;
    uint sum = 0;
    for (uint i = 0; i < RADIX; i++)
        sum += counters[RANK_AT(first + i)];
    uint total;
    uint run = wg_exclusive_scan_uint(sum, scan_scratch, &total);
    for (uint i = 0; i < RADIX; i++) {
        uint c = counters[RANK_AT(first + i)];
        counters[RANK_AT(first + i)] = run;
        run += c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}
#endif /* RADIX */
