/* ---- radix-hybrid: one most-significant pass, then the other places bucket by bucket ----
 * (HYBRID=1; after binning.cl, whose steps it runs)
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
#if !HYBRID
#error "cl/radix/hybrid.cl is the form for HYBRID=1"
#endif
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
