/*
 * Records sorted by a key field on the device (lib/engine/fields_device.c): the records go up once, their
 * keys are read out of them here, the stable sorts carry a permutation, and the records are
 * gathered by it here, so the host only uploads and downloads them.
 * Options: WG; RS, OFF (record size and key offset in bytes); KS (a number's bytes, 0 for a key of
 * bytes) or KEY_SIZE (a key of bytes' length) with WORDS (its 8-byte words); INDEX_T (uint or
 * ulong); REC_T (uint where RS is a multiple of 4, else uchar) and RW (REC_Ts per record).
 */
#ifndef KS
#define KS 0
#endif
#ifndef KEY_SIZE
#define KEY_SIZE 0
#endif

/*
 * Record i's key to kcur (a number: its KS bytes as they are; a key of bytes: its last word), and
 * the other words of a key of bytes to words (word w of record i at w * n + i). A word is read
 * big-endian, zero past the key's end, so that its order as a number is the bytes' order. (The
 * first sort is an argsort: it writes the positions itself.)
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fields_extract(__global const uchar *rec, __global uchar *kcur, __global ulong *words,
                    ulong n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        __global const uchar *key = rec + i * RS + OFF;
#if KEY_SIZE == 0
        for (uint b = 0; b < KS; b++)
            kcur[i * KS + b] = key[b];
#else
        for (uint w = 0; w < WORDS; w++) {
            ulong v = 0;
            for (uint b = 0; b < 8; b++) {
                const uint at = w * 8 + b;
                v = v << 8 | (at < KEY_SIZE ? key[at] : 0);
            }
            if (w + 1 == WORDS)
                ((__global ulong *)kcur)[i] = v;
            else
                words[w * n + i] = v;
        }
#endif
    }
}

/* The next word to sort on, in the order the sorts so far have left: kcur[i] = word w of the
 * record now at position i. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fields_gather_word(__global const ulong *words, __global ulong *kcur,
                        __global const INDEX_T *perm, ulong n, ulong w)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        kcur[i] = words[w * n + perm[i]];
}

/* The records in sorted order: one work-item per REC_T of the output, so writes are contiguous. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fields_gather(__global const REC_T *rec, __global REC_T *out, __global const INDEX_T *perm,
                   ulong n)
{
    const ulong total = n * RW;
    for (ulong g = get_global_id(0); g < total; g += get_global_size(0)) {
        /* one division, no %: Oclgrind cannot run the `freeze` LLVM makes of a div/rem pair */
        const ulong i = g / RW, j = g - i * RW;
        out[g] = rec[(ulong)perm[i] * RW + j];
    }
}
