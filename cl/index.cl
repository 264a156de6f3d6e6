/*
 * Positions: out[i] = i, the values an argsort carries through the sort (INDEX_T: uint or ulong),
 * written on the device so that the caller uploads no index array.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void index_fill(__global INDEX_T *out, ulong n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        out[i] = (INDEX_T)i;
}
