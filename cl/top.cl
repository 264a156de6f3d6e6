/*
 * Top-k by radix select (lib/top.c drives it). Records are ordered by (mapped key within the bit
 * range, input index): that order is unique, and its first K records are the first K of the stable
 * sort. Its digits are taken from the most significant down, 8 bits at a time, first those of the
 * key's bit range, then those of the index.
 *   top_hist   reads the input once and counts every key digit place at once.
 *   top_pick   (one work-group, per place) finds the bucket that holds the K-th record among the
 *              candidates and decides what the pass after it does.
 *   top_pass   reads the candidates: a digit below the bucket puts the record in the result, the
 *              bucket's own records stay candidates (their next digit counted, and copied to a
 *              candidate buffer once few enough), the others are dropped.
 * While every record of the input is still a candidate ("whole": each bucket so far held them all,
 * as with constant keys), the counts of top_hist are exact for the next place and the pass is
 * skipped; once the key is decided that way, the result is the first records of the input. Passes
 * over the index read only the index range still open. So constant keys cost one read of the input,
 * uniform ones two (the second copies the few candidates), and each place that splits a skewed
 * input one more.
 * The state (histograms, counters, prefix) lives in one device buffer, so nothing is read back. The
 * result records come out in no particular order; the host sorts them.
 *
 * Options (besides common.cl's key transform): WG, ITEMS (records per work-item and tile step),
 * VALUE_T for top_values.
 */

#define BINS 256
#define KEY_PLACES (KEY_BITS / 8) /* key digit places at most */

/* The state words (uint). */
#define S_HIST 0             /* BINS counts of the next place's digit among the candidates */
#define S_GATHER (BINS + 0)  /* records in the result so far */
#define S_NEXT (BINS + 1)    /* records copied to the next candidate buffer by this round's pass */
#define S_COUNT (BINS + 2)   /* records in the candidate buffer being read */
#define S_SRC (BINS + 3)     /* what the pass reads: 0 the input, 1 buffer A, 2 buffer B */
#define S_COMPACT (BINS + 4) /* this round's pass copies its bucket to the other buffer */
#define S_TAKE (BINS + 5)    /* this round's bucket (or range) goes to the result whole */
#define S_DONE (BINS + 6)    /* the result is complete */
#define S_BUCKET (BINS + 7)  /* this round's bucket */
#define S_REMAIN (BINS + 8)  /* records still needed from the candidates */
#define S_KPRE (BINS + 9)    /* 2 words: the key bits decided so far */
#define S_KMASK (BINS + 11)  /* 2 words: which key bits are decided */
#define S_IPRE (BINS + 13)   /* the index bits decided so far */
#define S_IMASK (BINS + 14)  /* which index bits are decided */
#define S_WHOLE (BINS + 15)  /* every input record is still a candidate */
#define S_RUN (BINS + 16)    /* this round's pass has work (else it reads nothing) */
#define S_EMIT (BINS + 17)   /* this round's pass may write records */
#define S_LO (BINS + 18)     /* the input range this round's pass reads, when it reads the input */
#define S_HI (BINS + 19)
#define S_CAND (BINS + 20)   /* candidates left: records holding the prefix */
#define S_ALL (BINS + 21)    /* this round's pass puts its whole range in the result */
#define S_GHIST (BINS + 24)  /* 8 places x BINS: top_hist's counts over the whole input */
#define S_WORDS (S_GHIST + 8 * BINS)

#define TILE (WG * ITEMS)

inline ulong load2(__global const uint *s, uint at)
{
    return (ulong)s[at] | ((ulong)s[at + 1] << 32);
}

/* A digit place: `width` bits (1..8) at `shift` of the mapped key, or of the index. */
inline uint digit_at(key_t bits, uint idx, uint shift, uint width, uint is_index)
{
    const uint mask = (1u << width) - 1;
    return is_index ? (idx >> shift) & mask : (uint)(bits >> shift) & mask;
}

/* Counts of a work-item's run of equal digits go to the local histogram at once: skewed and equal
 * keys would otherwise all hit one counter. */
inline void run_count(__local uint *h, uint *run_digit, uint *run, uint d)
{
    if (*run && d != *run_digit) {
        atomic_add(&h[*run_digit], *run);
        *run = 0;
    }
    *run_digit = d;
    (*run)++;
}

/* One work-group: the state cleared, K of n records wanted, all of them candidates. */
__kernel void top_init(__global uint *st, uint k, uint n)
{
    for (uint i = get_local_id(0); i < S_WORDS; i += WG)
        st[i] = i == S_REMAIN ? k : i == S_CAND ? n : i == S_WHOLE ? 1u : 0u;
}

/*
 * The first read: the histogram of every key place (places of 8 bits from `end` down to `begin`,
 * the last what is left, as lib/top.c plans them), in local memory per work-group, added to the
 * state once per bin. Place p + 1 counts only the keys that share places 0..p with the first key:
 * its counts are read only while every key holds one bucket per place (then all of them share the
 * first key's digits), and spread keys then cost about one count each.
 */
__kernel void top_hist(__global const key_t *keys, ulong n, __global uint *st, uint begin, uint end)
{
    __local uint h[KEY_PLACES * BINS];
    const uint lid = get_local_id(0), places = (end - begin + 7) / 8;
    for (uint i = lid; i < KEY_PLACES * BINS; i += WG)
        h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint run_digit[KEY_PLACES], run[KEY_PLACES];
    for (uint p = 0; p < KEY_PLACES; p++)
        run[p] = run_digit[p] = 0;
    const key_t first = n ? key_to_bits(keys[0]) : 0;
    const ulong stride = (ulong)get_num_groups(0) * TILE;
    for (ulong base = (ulong)get_group_id(0) * TILE; base < n; base += stride)
        for (uint j = 0; j < ITEMS; j++) {
            const ulong i = base + (ulong)j * WG + lid;
            if (i >= n)
                break;
            const key_t bits = key_to_bits(keys[i]);
            for (uint p = 0; p < KEY_PLACES; p++) {
                if (p >= places)
                    break;
                const uint hi = end - 8 * p, w = hi - begin < 8 ? hi - begin : 8;
                run_count(h + p * BINS, &run_digit[p], &run[p], digit_at(bits, 0, hi - w, w, 0));
                if (digit_at(bits ^ first, 0, hi - w, w, 0))
                    break;
            }
        }
    for (uint p = 0; p < KEY_PLACES; p++)
        if (run[p])
            atomic_add(&h[p * BINS + run_digit[p]], run[p]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < places * BINS; i += WG)
        if (h[i])
            atomic_add(&st[S_GHIST + i], h[i]);
}

/* Whether the pass puts the record in the result (1), keeps it as a candidate (2) or drops it (0). */
inline uint classify(key_t bits, uint idx, key_t kpre, key_t kmask, uint ipre, uint imask,
                     uint cur_shift, uint cur_width, uint cur_index, uint b, uint take)
{
    if (((bits ^ kpre) & kmask) != 0 || ((idx ^ ipre) & imask) != 0)
        return 0;
    const uint d = digit_at(bits, idx, cur_shift, cur_width, cur_index);
    return d > b ? 0u : d < b || take ? 1u : 2u;
}

/*
 * One round's pass over the candidates: the input's range [S_LO, S_HI) (index = position) or a
 * candidate buffer (mapped keys and indices, A at 0, B at cap). The records it writes are placed by
 * a work-group scan, with one global atomic per work-group and tile step for each destination.
 */
__kernel void top_pass(__global const key_t *keys, __global uint *st,
                       __global key_t *cand_keys, __global uint *cand_idx, uint cap,
                       __global key_t *out_keys, __global uint *out_idx,
                       uint cur_shift, uint cur_width, uint cur_index,
                       uint nxt_shift, uint nxt_width, uint nxt_index)
{
    __local uint hist[BINS];
    __local ulong scratch[WG];
    __local uint bases[2];
    const uint lid = get_local_id(0);
    /* no early return: barriers are reached by every work-item on every path (PoCL needs it) */
    const uint run_pass = st[S_RUN], src = st[S_SRC], take = st[S_TAKE], all = st[S_ALL];
    const uint emit = st[S_EMIT], compact = st[S_COMPACT], b = st[S_BUCKET];
    const ulong lo = !run_pass || src ? 0 : st[S_LO];
    const ulong hi = !run_pass ? 0 : src ? st[S_COUNT] : st[S_HI];
    const ulong src_off = src == 2 ? cap : 0, next_off = src == 1 ? cap : 0;
    /* the prefix without this round's digit, which the pick has added */
    key_t kmask = (key_t)load2(st, S_KMASK), kpre = (key_t)load2(st, S_KPRE);
    uint imask = st[S_IMASK], ipre = st[S_IPRE];
    if (cur_index)
        imask &= ~(((1u << cur_width) - 1) << cur_shift);
    else
        kmask &= ~((key_t)((1u << cur_width) - 1) << cur_shift);
    for (uint i = lid; i < BINS; i += WG)
        hist[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    const ulong stride = (ulong)get_num_groups(0) * TILE;
    uint run_digit = 0, run = 0;
    for (ulong base = lo + (ulong)get_group_id(0) * TILE; base < hi; base += stride) {
        key_t bits[ITEMS];
        uint idx[ITEMS], kind[ITEMS];
        uint n_out = 0, n_next = 0;
        for (uint j = 0; j < ITEMS; j++) {
            const ulong i = base + (ulong)j * WG + lid;
            kind[j] = 0;
            bits[j] = 0;
            idx[j] = 0;
            if (i >= hi)
                continue;
            if (src) {
                bits[j] = cand_keys[src_off + i];
                idx[j] = cand_idx[src_off + i];
            } else {
                bits[j] = key_to_bits(keys[i]); /* places and prefix stay within the range */
                idx[j] = (uint)i;
            }
            kind[j] = all ? 1u : classify(bits[j], idx[j], kpre, kmask, ipre, imask, cur_shift,
                                          cur_width, cur_index, b, take);
            if (kind[j] == 2 && nxt_width)
                run_count(hist, &run_digit, &run,
                          digit_at(bits[j], idx[j], nxt_shift, nxt_width, nxt_index));
            if (kind[j] == 2 && !compact)
                kind[j] = 0;
            n_out += kind[j] == 1;
            n_next += kind[j] == 2;
        }
        if (!emit) /* nothing below the bucket, no copy: the pass only counts */
            continue;
        ulong total;
        const ulong at = wg_exclusive_scan_ulong((ulong)n_out | (ulong)n_next << 32, scratch, &total);
        if (lid == 0) {
            const uint t_out = (uint)total, t_next = (uint)(total >> 32);
            bases[0] = t_out ? atomic_add(&st[S_GATHER], t_out) : 0;
            bases[1] = t_next ? atomic_add(&st[S_NEXT], t_next) : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint o = bases[0] + (uint)at, c = bases[1] + (uint)(at >> 32);
        for (uint j = 0; j < ITEMS; j++) {
            if (kind[j] == 1) {
                out_keys[o] = bits_to_key(bits[j]);
                out_idx[o++] = idx[j];
            } else if (kind[j] == 2) {
                cand_keys[next_off + c] = bits[j];
                cand_idx[next_off + c++] = idx[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* bases read before the next step sets them */
    }
    if (run)
        atomic_add(&hist[run_digit], run);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < BINS; i += WG)
        if (hist[i])
            atomic_add(&st[S_HIST + i], hist[i]);
}

/* The prefix extended by digit b of a place. */
inline void extend_prefix(__global uint *st, uint b, uint shift, uint width, uint is_index)
{
    if (is_index) {
        st[S_IPRE] |= b << shift;
        st[S_IMASK] |= ((1u << width) - 1) << shift;
        return;
    }
    const ulong pre = load2(st, S_KPRE) | ((ulong)b << shift);
    const ulong mask = load2(st, S_KMASK) | ((ulong)((1u << width) - 1) << shift);
    st[S_KPRE] = (uint)pre;
    st[S_KPRE + 1] = (uint)(pre >> 32);
    st[S_KMASK] = (uint)mask;
    st[S_KMASK + 1] = (uint)(mask >> 32);
}

/*
 * The round's decisions (work-item 0, the bucket b found, `below` candidates under it). The pass
 * reads the input's range of the prefix (for an index place only up to b's end: later records have
 * a larger digit), or the candidate buffer; it copies the bucket when that at least halves what the
 * next pass reads; it is skipped while the bucket still holds every input record.
 */
inline void decide(__global uint *st, uint cap, uint n, uint b, uint below, uint cnt,
                   uint shift, uint width, uint is_index)
{
    if (st[S_COMPACT]) { /* the last pass copied its bucket: that buffer is the source now */
        st[S_SRC] = st[S_SRC] == 1 ? 2 : 1;
        st[S_COUNT] = st[S_NEXT];
    }
    st[S_NEXT] = 0;
    const uint left = st[S_REMAIN] - below, take = left == cnt, src = st[S_SRC];
    ulong lo = 0, hi = n;
    if (is_index) {
        lo = st[S_IPRE];
        hi = min((ulong)n, lo + ((ulong)(b + 1) << shift));
    }
    const ulong reads = src ? st[S_COUNT] : hi - lo;
    const uint compact = !take && cnt <= cap && 2 * (ulong)cnt <= reads;
    const uint whole = st[S_WHOLE] && !take && cnt == st[S_CAND];
    st[S_WHOLE] = whole;
    st[S_RUN] = !whole;
    st[S_EMIT] = take || below || compact;
    st[S_TAKE] = take;
    st[S_COMPACT] = compact;
    st[S_ALL] = 0;
    st[S_LO] = (uint)lo;
    st[S_HI] = (uint)hi;
    st[S_CAND] = cnt;
    st[S_REMAIN] = left;
    st[S_BUCKET] = b;
    extend_prefix(st, b, shift, width, is_index);
}

/* Every input record holds the decided key: the result is the first `remain` of them. */
inline void take_first(__global uint *st)
{
    st[S_WHOLE] = 0;
    st[S_RUN] = st[S_EMIT] = st[S_TAKE] = st[S_ALL] = 1;
    st[S_COMPACT] = 0;
    st[S_LO] = 0;
    st[S_HI] = st[S_REMAIN];
}

/*
 * One work-group, after each pass: the bucket of place `r` (shift, width, is_index) where the count
 * reaches the records still needed, by a work-group scan of the counts (top_hist's while the input
 * is whole, else those of the pass before, which are cleared for the next pass).
 */
__kernel void top_pick(__global uint *st, uint cap, uint n, uint r, uint shift, uint width,
                       uint is_index)
{
    __local uint h[BINS];
    __local uint scratch[WG];
    __local uint found[2];
    const uint lid = get_local_id(0);
    /* no early return: barriers are reached by every work-item on every path (PoCL needs it) */
    const uint done = st[S_DONE], take = st[S_TAKE], remain = st[S_REMAIN], whole = st[S_WHOLE];
    const int active = !done && !take, counted = active && !(whole && is_index);
    for (uint i = lid; i < BINS; i += WG) {
        h[i] = !counted ? 0u : whole ? st[S_GHIST + r * BINS + i] : st[S_HIST + i];
        if (counted && !whole)
            st[S_HIST + i] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    /* work-item lid owns `per` consecutive bins */
    const uint per = WG >= BINS ? 1 : BINS / WG, first = lid * per;
    uint sum = 0;
    for (uint i = 0; i < per && first + i < BINS; i++)
        sum += h[first + i];
    uint total;
    uint below = wg_exclusive_scan_uint(sum, scratch, &total);
    if (counted && below < remain && remain <= below + sum) {
        uint i = first;
        while (below + h[i] < remain)
            below += h[i++];
        found[0] = i;
        found[1] = below;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid != 0)
        return;
    if (!active) {
        st[S_DONE] = 1; /* the last pass completed the result (or one before it did) */
        st[S_RUN] = 0;
    } else if (!counted) {
        take_first(st);
    } else {
        decide(st, cap, n, found[0], found[1], h[found[0]], shift, width, is_index);
    }
}

#ifdef VALUE_T
/* The values of the sorted result, by the input index each record carries. */
__kernel void top_values(__global const VALUE_T *values, __global const uint *idx,
                         __global VALUE_T *out, ulong k)
{
    const ulong i = get_global_id(0);
    if (i < k)
        out[i] = values[idx[i]];
}
#endif
