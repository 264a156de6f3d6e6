/*
 * The radix passes' up-front histogram (after base.cl): every digit place counted in one read of
 * the keys, and onesweep's digit offsets per place and portion. count_run also serves the chains'
 * counts of each long segment (chains.cl).
 */

/* ---- up-front histogram of all digit places (onesweep) ---- */

/* hist[(byte place * portions + portion) * 256 + byte], counts within a portion (< 2^30). Work-group g
 * counts keys [g * chunk, (g + 1) * chunk); chunk divides the portion size. */
inline uint place_byte(key_t b, uint p) { return digit_of(b, RANGE_BEGIN + 8 * p, 0xff); }
/* Count every byte place of one key. */
inline void count_bytes(__local uint *h, key_t b)
{
    for (uint p = 0; p < HIST_PLACES; p++)
        atomic_inc(&h[p * HBINS + DIGIT_SLOT(place_byte(b, p))]);
}

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
