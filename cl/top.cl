/*
 * Top-k by radix select (lib/top.c drives it). Records are ordered by (mapped key within the bit
 * range, input index): that order is unique, and its first K records are the first K of the stable
 * sort. Its digits are taken from the most significant down, 8 bits at a time, first those of the
 * key's bit range, then those of the index. Each round:
 *   top_pick   (one work-group) finds the bucket of the round's digit that holds the K-th record
 *              among the candidates, from the histogram the pass before counted;
 *   top_pass   reads the candidates again: a digit below the bucket puts the record in the result
 *              (there are fewer than K of those), the bucket's own records stay candidates and their
 *              next digit is counted; they are copied to a candidate buffer once they are few
 *              enough, else the next round reads the input again, filtered by the prefix.
 * The state (histogram, counters, prefix) lives in one device buffer, so nothing is read back: once
 * a round takes its whole bucket (the records still needed are exactly the bucket's) the remaining
 * launches return at once. The result records come out in no particular order; the host sorts them.
 *
 * Options (besides common.cl's key transform): WG, ITEMS (records per work-item and tile step),
 * VALUE_T for top_values.
 */

#define BINS 256

/* The state words (uint). */
#define S_HIST 0             /* BINS counts of the next round's digit */
#define S_GATHER (BINS + 0)  /* records in the result so far */
#define S_NEXT (BINS + 1)    /* records copied to the next candidate buffer by this round's pass */
#define S_COUNT (BINS + 2)   /* records in the candidate buffer being read */
#define S_SRC (BINS + 3)     /* what the pass reads: 0 the input, 1 buffer A, 2 buffer B */
#define S_COMPACT (BINS + 4) /* this round's pass copies its bucket to the other buffer */
#define S_TAKE (BINS + 5)    /* this round's bucket goes to the result whole */
#define S_DONE (BINS + 6)    /* the result is complete */
#define S_BUCKET (BINS + 7)  /* this round's bucket */
#define S_REMAIN (BINS + 8)  /* records still needed from the candidates */
#define S_KPRE (BINS + 9)    /* 2 words: the key bits decided so far */
#define S_KMASK (BINS + 11)  /* 2 words: which key bits are decided */
#define S_IPRE (BINS + 13)   /* the index bits decided so far */
#define S_IMASK (BINS + 14)  /* which index bits are decided */
#define S_WORDS (BINS + 15)

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

/* One work-group: the state cleared, K records wanted. */
__kernel void top_init(__global uint *st, uint k)
{
    for (uint i = get_local_id(0); i < S_WORDS; i += WG)
        st[i] = i == S_REMAIN ? k : 0u;
}

/*
 * One round's pass (with cur_width 0: the first histogram, every input record counted). The source
 * is the input (index = position) or a candidate buffer (mapped keys and indices, A at 0, B at cap).
 * Appends go through a local counter per tile step and one global atomic per work-group and step.
 */
__kernel void top_pass(__global const key_t *keys, ulong n, __global uint *st,
                       __global key_t *cand_keys, __global uint *cand_idx, uint cap,
                       __global key_t *out_keys, __global uint *out_idx,
                       uint cur_shift, uint cur_width, uint cur_index,
                       uint nxt_shift, uint nxt_width, uint nxt_index)
{
    __local uint hist[BINS];
    __local uint n_out, n_next, out_base, next_base;
    const uint lid = get_local_id(0);
    const uint done = st[S_DONE]; /* then nothing is read: the loop below runs no step */
    const uint src = st[S_SRC], take = st[S_TAKE], compact = st[S_COMPACT], b = st[S_BUCKET];
    const ulong count = done ? 0 : src ? (ulong)st[S_COUNT] : n;
    const ulong src_off = src == 2 ? cap : 0, next_off = src == 1 ? cap : 0;
    /* the prefix without this round's digit, which the pick has added */
    key_t kmask = (key_t)load2(st, S_KMASK), kpre = (key_t)load2(st, S_KPRE);
    uint imask = st[S_IMASK], ipre = st[S_IPRE];
    if (cur_width && cur_index)
        imask &= ~(((1u << cur_width) - 1) << cur_shift);
    else if (cur_width)
        kmask &= ~((key_t)((1u << cur_width) - 1) << cur_shift);
    for (uint i = lid; i < BINS; i += WG)
        hist[i] = 0;
    if (lid == 0)
        n_out = n_next = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    const ulong stride = (ulong)get_num_groups(0) * TILE;
    /* Counts of a work-item's run of equal next digits go to the local histogram at once: skewed
     * and equal keys would otherwise all hit one counter. */
    uint run_digit = 0, run = 0;
    for (ulong base = (ulong)get_group_id(0) * TILE; base < count; base += stride) {
        key_t bits[ITEMS];
        uint idx[ITEMS], slot[ITEMS], kind[ITEMS]; /* kind: 0 none, 1 result, 2 next buffer */
        for (uint j = 0; j < ITEMS; j++) {
            const ulong i = base + (ulong)j * WG + lid;
            kind[j] = 0;
            slot[j] = 0;
            bits[j] = 0;
            idx[j] = 0;
            if (i >= count)
                continue;
            if (src) {
                bits[j] = cand_keys[src_off + i];
                idx[j] = cand_idx[src_off + i];
            } else {
                bits[j] = key_to_bits(keys[i]); /* places and prefix stay within the range */
                idx[j] = (uint)i;
            }
            if (((bits[j] ^ kpre) & kmask) != 0 || ((idx[j] ^ ipre) & imask) != 0)
                continue;
            int stays = 1;
            if (cur_width) {
                const uint d = digit_at(bits[j], idx[j], cur_shift, cur_width, cur_index);
                if (d > b)
                    continue;
                if (d < b || take) {
                    kind[j] = 1;
                    slot[j] = atomic_inc(&n_out);
                    stays = 0;
                }
            }
            if (stays) {
                if (nxt_width) {
                    const uint d = digit_at(bits[j], idx[j], nxt_shift, nxt_width, nxt_index);
                    if (run && d != run_digit) {
                        atomic_add(&hist[run_digit], run);
                        run = 0;
                    }
                    run_digit = d;
                    run++;
                }
                if (compact) {
                    kind[j] = 2;
                    slot[j] = atomic_inc(&n_next);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            out_base = n_out ? atomic_add(&st[S_GATHER], n_out) : 0;
            next_base = n_next ? atomic_add(&st[S_NEXT], n_next) : 0;
            n_out = n_next = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < ITEMS; j++) {
            if (kind[j] == 1) {
                out_keys[out_base + slot[j]] = bits_to_key(bits[j]);
                out_idx[out_base + slot[j]] = idx[j];
            } else if (kind[j] == 2) {
                cand_keys[next_off + next_base + slot[j]] = bits[j];
                cand_idx[next_off + next_base + slot[j]] = idx[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* out_base and next_base read before the next step sets them */
    }
    if (run)
        atomic_add(&hist[run_digit], run);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < BINS; i += WG)
        if (hist[i])
            atomic_add(&st[S_HIST + i], hist[i]);
}

/*
 * One work-group, after each pass: the pass's candidate buffer becomes the source, and the bucket
 * of this round's digit where the count reaches the records still needed is found (a work-group
 * scan of the histogram, which is cleared for the next pass), the prefix extended by it.
 */
__kernel void top_pick(__global uint *st, uint cap, uint shift, uint width, uint is_index)
{
    __local uint h[BINS];
    __local uint scratch[WG];
    __local uint found[2];
    const uint lid = get_local_id(0);
    /* no early return: barriers are reached by every work-item on every path (PoCL needs it) */
    const uint done = st[S_DONE], take = st[S_TAKE], remain = st[S_REMAIN];
    const int active = !done && !take;
    for (uint i = lid; active && i < BINS; i += WG) {
        h[i] = st[S_HIST + i];
        st[S_HIST + i] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    /* work-item lid owns `per` consecutive bins */
    const uint per = WG >= BINS ? 1 : BINS / WG, first = lid * per;
    uint sum = 0;
    for (uint i = 0; active && i < per && first + i < BINS; i++)
        sum += h[first + i];
    uint total;
    uint below = wg_exclusive_scan_uint(sum, scratch, &total);
    if (active && below < remain && remain <= below + sum) {
        uint i = first;
        while (below + h[i] < remain)
            below += h[i++];
        found[0] = i;
        found[1] = below;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0 && !done && take) /* the last pass completed the result */
        st[S_DONE] = 1;
    if (lid != 0 || !active)
        return;
    const uint b = found[0], cnt = h[b], left = remain - found[1];
    if (st[S_COMPACT]) {
        st[S_SRC] = st[S_SRC] == 1 ? 2 : 1;
        st[S_COUNT] = st[S_NEXT];
    }
    st[S_NEXT] = 0;
    st[S_REMAIN] = left;
    st[S_BUCKET] = b;
    st[S_TAKE] = left == cnt;
    st[S_COMPACT] = left != cnt && cnt <= cap;
    if (is_index) {
        st[S_IPRE] |= b << shift;
        st[S_IMASK] |= ((1u << width) - 1) << shift;
    } else {
        const ulong pre = load2(st, S_KPRE) | ((ulong)b << shift);
        const ulong mask = load2(st, S_KMASK) | ((ulong)((1u << width) - 1) << shift);
        st[S_KPRE] = (uint)pre;
        st[S_KPRE + 1] = (uint)(pre >> 32);
        st[S_KMASK] = (uint)mask;
        st[S_KMASK + 1] = (uint)(mask >> 32);
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
