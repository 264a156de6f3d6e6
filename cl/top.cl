/*
 * Top-k by radix select (lib/api/top.c drives it). Records are ordered by (mapped key within the bit
 * range, input index): that order is unique, and its first K records are the first K of the stable
 * sort. Its digits are taken from the most significant down, 8 bits at a time, first those of the
 * key's bit range (places 0..nk-1), then those of the index (places nk...).
 *   top_hist   reads the input once: the counts of place 0, of later places for the keys that share
 *              the first key's higher digits, and the smallest key (the reference below).
 *   top_pick   (one work-group, per place) finds the bucket that holds the K-th record among the
 *              candidates and decides what the pass after it does.
 *   top_pass   reads the candidates: a digit below the bucket puts the record in the result, the
 *              bucket's own records stay candidates (copied to a candidate buffer once few
 *              enough), the others are dropped. It counts the next place of the candidates, and
 *              each later key place (and the first index place) for the candidates that share the
 *              reference's digits in between.
 * A pass is skipped when its counts are known already and it would write nothing: while every input
 * record is still a candidate ("whole": each bucket so far held them all, as with constant keys),
 * and while the buckets taken are the reference's with nothing below them (the K-th key shares the
 * smallest key's digits, as in low-entropy inputs). Once the key is decided in the whole input, the
 * result is its first records; passes over the index read only the index range still open.
 * The state (counts, counters, prefix) lives in one device buffer, so nothing is read back. The
 * result records come out in no particular order; the host sorts them.
 *
 * Options (besides common.cl's key transform): WG, ITEMS (records per work-item and tile step),
 * VALUE_T for top_values.
 */

#define BINS 256
#define KEY_PLACES (KEY_BITS / 8) /* key digit places at most */
#define MAX_PLACES 12             /* TOP_MAX_PLACES in lib/api/top.c */
#define MAX_GROUPS 2048           /* TOP_MAX_GROUPS in lib/api/top.c: top_hist's work-groups */

/* The state words (uint). */
#define S_GATHER 0   /* records in the result so far */
#define S_NEXT 1     /* records copied to the next candidate buffer by this round's pass */
#define S_COUNT 2    /* records in the candidate buffer being read */
#define S_SRC 3      /* what the pass reads: 0 the input, 1 buffer A, 2 buffer B */
#define S_COMPACT 4  /* this round's pass copies its bucket to the other buffer */
#define S_TAKE 5     /* this round's bucket (or range) goes to the result whole */
#define S_DONE 6     /* the result is complete */
#define S_BUCKET 7   /* this round's bucket */
#define S_REMAIN 8   /* records still needed from the candidates */
#define S_KPRE 9     /* 2 words: the key bits decided so far */
#define S_KMASK 11   /* 2 words: which key bits are decided */
#define S_IPRE 13    /* the index bits decided so far */
#define S_IMASK 14   /* which index bits are decided */
#define S_WHOLE 15   /* every input record is still a candidate */
#define S_RUN 16     /* this round's pass has work (else it reads nothing) */
#define S_EMIT 17    /* this round's pass may write records */
#define S_LO 18      /* the input range this round's pass reads, when it reads the input */
#define S_HI 19
#define S_CAND 20    /* candidates left, while whole */
#define S_ALL 21     /* this round's pass puts its whole range in the result */
#define S_REF 22     /* 2 words: the smallest mapped key within the range */
#define S_GROUPS 24  /* top_hist's work-groups */
#define S_HIST 32    /* MAX_PLACES x BINS: counts per place */
#define S_GMIN (S_HIST + MAX_PLACES * BINS) /* 2 words per top_hist work-group: its smallest key */
#define S_WORDS (S_GMIN + 2 * MAX_GROUPS)

#define TILE (WG * ITEMS)

inline ulong load2(__global const uint *s, uint at)
{
    return (ulong)s[at] | ((ulong)s[at + 1] << 32);
}

inline void store2(__global uint *s, uint at, ulong v)
{
    s[at] = (uint)v;
    s[at + 1] = (uint)(v >> 32);
}

/* A digit place: `width` bits (1..8) at `shift` of the mapped key, or of the index. */
typedef struct place {
    uint shift, width, is_index;
} place;

/* Place q: nk = ceil((end - begin) / 8) key places from `end` down to `begin`, the last what is
 * left, then the index's from index_bits down to 0 likewise (as lib/api/top.c plans them). */
inline place place_of(uint q, uint begin, uint end, uint index_bits)
{
    const uint nk = (end - begin + 7) / 8, is_index = q >= nk;
    const uint hi = is_index ? index_bits - 8 * (q - nk) : end - 8 * q, lo = is_index ? 0 : begin;
    const uint width = hi - lo < 8 ? hi - lo : 8;
    return (place){ hi - width, width, is_index };
}

inline uint digit_at(key_t bits, uint idx, place p)
{
    const uint mask = (1u << p.width) - 1;
    return p.is_index ? (idx >> p.shift) & mask : (uint)(bits >> p.shift) & mask;
}

/*
 * Chained counts: a record counted at slots 0..m (places in a row) shares the reference's digits at
 * slots 0..m-1, so it is kept as (m, its digit at m): the counts at the reference's digits are
 * added once per work-group from reach[m] (records m deep). A work-item's run of equal (m, digit)
 * goes to local memory at once: skewed and equal keys would otherwise all hit one counter.
 */
inline void run_flush(__local uint *h, __local uint *reach, uint at, uint count)
{
    atomic_add(&h[at], count);
    if (at >= BINS)
        atomic_add(&reach[at / BINS], count);
}

inline void run_count(__local uint *h, __local uint *reach, uint *run_at, uint *run, uint at)
{
    if (*run && at != *run_at) {
        run_flush(h, reach, *run_at, *run);
        *run = 0;
    }
    *run_at = at;
    (*run)++;
}

/* After the runs are flushed and a barrier: slot t's count at the reference's digit ref_digit
 * gains the records counted deeper (one work-item per slot). */
inline void add_reach(__local uint *h, __local const uint *reach, uint slots, uint t,
                      uint ref_digit)
{
    uint deeper = 0;
    for (uint m = t + 1; m < slots; m++)
        deeper += reach[m];
    h[t * BINS + ref_digit] += deeper;
}

/* One work-group: the state cleared, K of n records wanted, all of them candidates. */
__kernel void top_init(__global uint *st, uint k, uint n)
{
    for (uint i = get_local_id(0); i < S_WORDS; i += WG)
        st[i] = i == S_REMAIN ? k : i == S_CAND ? n : i == S_WHOLE ? 1u : 0u;
}

/* The smallest of the work-group's values; every work-item gets it. */
inline key_t wg_min(key_t v, __local key_t *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w)
            scratch[lid] = min(scratch[lid], scratch[lid + w]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    v = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return v;
}

/*
 * The first read, counted in local memory per work-group and added to the state once per bin. Key
 * place p + 1 counts only the keys that share places 0..p with the first key: its counts are read
 * only while every key holds one bucket per place (then all of them share the first key's digits),
 * and spread keys then cost about one count each. Each work-group also leaves its smallest key.
 */
__kernel void top_hist(__global const key_t *keys, ulong n, __global uint *st, uint begin, uint end)
{
    __local uint h[KEY_PLACES * BINS], reach[KEY_PLACES];
    __local key_t scratch[WG];
    const uint lid = get_local_id(0), places = (end - begin + 7) / 8;
    for (uint i = lid; i < KEY_PLACES * BINS; i += WG)
        h[i] = 0;
    for (uint i = lid; i < KEY_PLACES; i += WG)
        reach[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const key_t first = n ? key_to_bits(keys[0]) : 0;
    key_t least = KEY_ONES;
    uint run_at = 0, run = 0;
    const ulong stride = (ulong)get_num_groups(0) * TILE;
    for (ulong base = (ulong)get_group_id(0) * TILE; base < n; base += stride) {
        /* every load of the step issued before the counting: the counts' local atomics would
         * otherwise keep one load in flight per work-item */
        key_t step[ITEMS];
        for (uint j = 0; j < ITEMS; j++) {
            const ulong i = base + (ulong)j * WG + lid;
            step[j] = i < n ? key_to_bits(keys[i]) : 0;
        }
        for (uint j = 0; j < ITEMS; j++) {
            if (base + (ulong)j * WG + lid >= n)
                break;
            const key_t bits = step[j];
            least = min(least, bits & (key_t)KEY_RANGE_MASK);
            uint m = 0;
            while (m + 1 < places && !digit_at(bits ^ first, 0, place_of(m, begin, end, 0)))
                m++;
            run_count(h, reach, &run_at, &run, m * BINS + digit_at(bits, 0, place_of(m, begin, end, 0)));
        }
    }
    if (run)
        run_flush(h, reach, run_at, run);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint t = lid; t < places; t += WG)
        add_reach(h, reach, places, t, digit_at(first, 0, place_of(t, begin, end, 0)));
    least = wg_min(least, scratch); /* its barriers order the counts above too */
    for (uint i = lid; i < places * BINS; i += WG)
        if (h[i])
            atomic_add(&st[S_HIST + i], h[i]);
    if (lid == 0)
        store2(st, S_GMIN + 2 * get_group_id(0), least);
    if (lid == 0 && get_group_id(0) == 0)
        st[S_GROUPS] = get_num_groups(0);
}

/* Whether the pass puts the record in the result (1), keeps it as a candidate (2) or drops it (0). */
inline uint classify(key_t bits, uint idx, key_t kpre, key_t kmask, uint ipre, uint imask,
                     place cur, uint b, uint take)
{
    if (((bits ^ kpre) & kmask) != 0 || ((idx ^ ipre) & imask) != 0)
        return 0;
    const uint d = digit_at(bits, idx, cur);
    return d > b ? 0u : d < b || take ? 1u : 2u;
}

/*
 * One round's pass over the candidates of place r: the input's range [S_LO, S_HI) (index =
 * position) or a candidate buffer (mapped keys and indices, A at 0, B at cap). The records it
 * writes are placed by a work-group scan, with one global atomic per work-group and tile step for
 * each destination. Histogram slot s counts place r + 1 + s.
 */
__kernel void top_pass(__global const key_t *keys, __global uint *st,
                       __global key_t *cand_keys, __global uint *cand_idx, uint cap,
                       __global key_t *out_keys, __global uint *out_idx,
                       uint r, uint begin, uint end, uint index_bits)
{
    __local uint hist[KEY_PLACES * BINS], reach[KEY_PLACES];
    __local ulong scratch[WG];
    __local uint bases[2];
    const uint lid = get_local_id(0);
    const uint nk = (end - begin + 7) / 8, n_places = nk + (index_bits + 7) / 8;
    /* slots: the next place, and the key places after it up to the first index place */
    const uint slots = r + 1 >= n_places ? 0 : r + 1 < nk ? nk - r : 1;
    const place cur = place_of(r, begin, end, index_bits);
    /* no early return: barriers are reached by every work-item on every path (PoCL needs it) */
    const uint run_pass = st[S_RUN], src = st[S_SRC], take = st[S_TAKE], all = st[S_ALL];
    const uint emit = st[S_EMIT], compact = st[S_COMPACT], b = st[S_BUCKET];
    const ulong lo = !run_pass || src ? 0 : st[S_LO];
    const ulong hi = !run_pass ? 0 : src ? st[S_COUNT] : st[S_HI];
    const ulong src_off = src == 2 ? cap : 0, next_off = src == 1 ? cap : 0;
    const key_t ref = (key_t)load2(st, S_REF);
    /* the prefix without this round's digit, which the pick has added */
    key_t kmask = (key_t)load2(st, S_KMASK), kpre = (key_t)load2(st, S_KPRE);
    uint imask = st[S_IMASK], ipre = st[S_IPRE];
    if (cur.is_index)
        imask &= ~(((1u << cur.width) - 1) << cur.shift);
    else
        kmask &= ~((key_t)((1u << cur.width) - 1) << cur.shift);
    for (uint i = lid; i < slots * BINS; i += WG)
        hist[i] = 0;
    for (uint i = lid; i < KEY_PLACES; i += WG)
        reach[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    const ulong stride = (ulong)get_num_groups(0) * TILE;
    uint run_at = 0, run = 0;
    for (ulong base = lo + (ulong)get_group_id(0) * TILE; base < hi; base += stride) {
        key_t bits[ITEMS];
        uint idx[ITEMS], kind[ITEMS];
        uint n_out = 0, n_next = 0;
        for (uint j = 0; j < ITEMS; j++) { /* the loads first, as in top_hist */
            const ulong i = base + (ulong)j * WG + lid;
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
        }
        for (uint j = 0; j < ITEMS; j++) {
            kind[j] = 0;
            if (base + (ulong)j * WG + lid >= hi)
                continue;
            kind[j] = all ? 1u : classify(bits[j], idx[j], kpre, kmask, ipre, imask, cur, b, take);
            if (kind[j] == 2 && slots) { /* m: how deep the record follows the reference */
                uint m = 0;
                place p = place_of(r + 1, begin, end, index_bits);
                while (m + 1 < slots && digit_at(bits[j], 0, p) == digit_at(ref, 0, p))
                    p = place_of(r + 2 + m++, begin, end, index_bits);
                run_count(hist, reach, &run_at, &run, m * BINS + digit_at(bits[j], idx[j], p));
            }
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
        run_flush(hist, reach, run_at, run);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint t = lid; t + 1 < slots; t += WG) /* the last slot has no deeper records */
        add_reach(hist, reach, slots, t,
                  digit_at(ref, 0, place_of(r + 1 + t, begin, end, index_bits)));
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < slots * BINS; i += WG)
        if (hist[i])
            atomic_add(&st[S_HIST + (r + 1) * BINS + i], hist[i]);
}

/* The prefix extended by digit b of a place. */
inline void extend_prefix(__global uint *st, uint b, place p)
{
    if (p.is_index) {
        st[S_IPRE] |= b << p.shift;
        st[S_IMASK] |= ((1u << p.width) - 1) << p.shift;
        return;
    }
    store2(st, S_KPRE, load2(st, S_KPRE) | ((ulong)b << p.shift));
    store2(st, S_KMASK, load2(st, S_KMASK) | ((ulong)((1u << p.width) - 1) << p.shift));
}

/*
 * The round's decisions (work-item 0, the bucket b found, `below` candidates under it); whether the
 * pass runs. The pass reads the input's range of the prefix (for an index place only up to b's end:
 * later records have a larger digit), or the candidate buffer; it copies the bucket when that at
 * least halves what the next pass reads. It is skipped when it would write nothing and the next
 * place's counts are known: while the bucket holds every input record, or when b is the reference
 * key's digit at a key place (the pass before counted the next place for those records).
 */
inline uint decide(__global uint *st, uint cap, uint n, uint b, uint below, uint cnt, place p)
{
    if (st[S_COMPACT]) { /* the last pass copied its bucket: that buffer is the source now */
        st[S_SRC] = st[S_SRC] == 1 ? 2 : 1;
        st[S_COUNT] = st[S_NEXT];
    }
    st[S_NEXT] = 0;
    const uint left = st[S_REMAIN] - below, take = left == cnt, src = st[S_SRC];
    ulong lo = 0, hi = n;
    if (p.is_index) {
        lo = st[S_IPRE];
        hi = min((ulong)n, lo + ((ulong)(b + 1) << p.shift));
    }
    const ulong reads = src ? st[S_COUNT] : hi - lo;
    const uint was_whole = st[S_WHOLE], whole = was_whole && !take && cnt == st[S_CAND];
    const uint follows = !was_whole && !take && !below && !p.is_index &&
                         b == digit_at((key_t)load2(st, S_REF), 0, p);
    const uint run = !whole && !follows;
    const uint compact = run && !take && cnt <= cap && 2 * (ulong)cnt <= reads;
    st[S_WHOLE] = whole;
    st[S_RUN] = run;
    st[S_EMIT] = take || below || compact;
    st[S_TAKE] = take;
    st[S_COMPACT] = compact;
    st[S_ALL] = 0;
    st[S_LO] = (uint)lo;
    st[S_HI] = (uint)hi;
    st[S_CAND] = cnt;
    st[S_REMAIN] = left;
    st[S_BUCKET] = b;
    extend_prefix(st, b, p);
    return run;
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
 * One work-group, after each pass: the bucket of place r where the count reaches the records still
 * needed, by a work-group scan of the place's counts. When the pass will run, the counts of the
 * places after r are cleared for it. The first pick also finds the reference key, the smallest of
 * top_hist's work-groups'.
 */
__kernel void top_pick(__global uint *st, uint cap, uint n, uint r, uint begin, uint end,
                       uint index_bits)
{
    __local uint h[BINS];
    __local uint scratch[WG];
    __local key_t least[WG];
    __local uint found[3];
    const uint lid = get_local_id(0), n_places = (end - begin + 7) / 8 + (index_bits + 7) / 8;
    const place p = place_of(r, begin, end, index_bits);
    /* no early return: barriers are reached by every work-item on every path (PoCL needs it) */
    key_t m = KEY_ONES;
    for (uint g = lid; r == 0 && g < st[S_GROUPS]; g += WG)
        m = min(m, (key_t)load2(st, S_GMIN + 2 * g));
    m = wg_min(m, least); /* on every path: barriers in a branch upset PoCL */
    if (lid == 0 && r == 0)
        store2(st, S_REF, m);
    const uint done = st[S_DONE], take = st[S_TAKE], remain = st[S_REMAIN], whole = st[S_WHOLE];
    const int active = !done && !take, counted = active && !(whole && p.is_index);
    for (uint i = lid; i < BINS; i += WG)
        h[i] = counted ? st[S_HIST + r * BINS + i] : 0u;
    if (lid == 0) {
        found[0] = 0;
        found[1] = 0;
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
    if (lid == 0) {
        found[2] = 0;
        if (!active) {
            st[S_DONE] = 1; /* the last pass completed the result (or one before it did) */
            st[S_RUN] = 0;
        } else if (!counted) {
            take_first(st);
        } else {
            found[2] = decide(st, cap, n, found[0], found[1], h[found[0]], p);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (found[2])
        for (uint i = (r + 1) * BINS + lid; i < n_places * BINS; i += WG)
            st[S_HIST + i] = 0;
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
