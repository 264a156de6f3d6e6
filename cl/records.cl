/*
 * Interleaved records (a key, then its value) split into separate key and value arrays on their way
 * to the sort, and joined again on the way back, so that the host never touches a record. One
 * work-item per word of a record: reads (split) or writes (join) of the records are contiguous.
 * Options: WORD (the element type: uint when key and value sizes are multiples of 4, else uchar),
 * KW, VW (words per key and per value), WG.
 */

#define RW (KW + VW)

/* rec holds n records; they go to keys and values from record `at` on. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void records_split(__global const WORD *rec, __global WORD *keys, __global WORD *values, ulong n,
                   ulong at)
{
    const ulong g = get_global_id(0);
    if (g >= n * RW)
        return;
    const ulong i = g / RW, j = g % RW;
    if (j < KW)
        keys[(at + i) * KW + j] = rec[g];
    else
        values[(at + i) * VW + (j - KW)] = rec[g];
}

/* n records from record `at` of keys and values, into rec. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void records_join(__global const WORD *keys, __global const WORD *values, __global WORD *rec,
                  ulong n, ulong at)
{
    const ulong g = get_global_id(0);
    if (g >= n * RW)
        return;
    const ulong i = g / RW, j = g % RW;
    rec[g] = j < KW ? keys[(at + i) * KW + j] : values[(at + i) * VW + (j - KW)];
}
