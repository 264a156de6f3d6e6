/*
 * Exclusive prefix sum of a ulong array in place, by reduce-then-scan: scan_reduce sums each tile,
 * scan_spine scans the tile sums in one work-group, scan_downsweep scans each tile from its offset.
 * Options: WG, ITEMS (tile = WG * ITEMS elements).
 *
 * Every kernel takes a bound it may read on the device: with scale non-zero only the first
 * min(n, limit[at] * scale) elements are scanned (the rest left as they are), so that a table sized
 * for the most it may hold costs only what it does hold (the tiles of variable segments).
 */

#define TILE (WG * ITEMS)

inline ulong scan_n(ulong n, __global const ulong *limit, ulong at, ulong scale)
{
    return scale ? min(n, limit[at] * scale) : n;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_reduce(__global const ulong *data, ulong n, __global ulong *partials,
                 __global const ulong *limit, ulong at, ulong scale)
{
    __local ulong scratch[WG];
    n = scan_n(n, limit, at, scale);
    const ulong start = (ulong)get_group_id(0) * TILE;
    const uint lid = get_local_id(0);
    ulong sum = 0;
    for (uint i = 0; i < ITEMS; i++) {
        ulong idx = start + (ulong)i * WG + lid;
        if (idx < n)
            sum += data[idx];
    }
    ulong total;
    wg_exclusive_scan_ulong(sum, scratch, &total);
    if (lid == 0)
        partials[get_group_id(0)] = total;
}

/* One work-group walks the tile sums in chunks of WG, carrying the running total. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_spine(__global ulong *partials, ulong m, __global const ulong *limit, ulong at,
                ulong scale)
{
    __local ulong scratch[WG];
    m = min(m, (scan_n(m * TILE, limit, at, scale) + TILE - 1) / TILE);
    const uint lid = get_local_id(0);
    ulong carry = 0;
    for (ulong base = 0; base < m; base += WG) {
        ulong idx = base + lid;
        ulong v = idx < m ? partials[idx] : 0;
        ulong total;
        ulong ex = wg_exclusive_scan_ulong(v, scratch, &total);
        if (idx < m)
            partials[idx] = carry + ex;
        carry += total;
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_downsweep(__global ulong *data, ulong n, __global const ulong *partials,
                    __global const ulong *limit, ulong at, ulong scale)
{
    __local ulong scratch[WG];
    n = scan_n(n, limit, at, scale);
    const ulong start = (ulong)get_group_id(0) * TILE;
    const uint lid = get_local_id(0);
    /* Blocked: work-item lid scans its ITEMS consecutive elements. */
    ulong v[ITEMS];
    ulong sum = 0;
    for (uint i = 0; i < ITEMS; i++) {
        ulong idx = start + (ulong)lid * ITEMS + i;
        v[i] = idx < n ? data[idx] : 0;
        sum += v[i];
    }
    ulong total;
    ulong run = partials[get_group_id(0)] + wg_exclusive_scan_ulong(sum, scratch, &total);
    for (uint i = 0; i < ITEMS; i++) {
        ulong idx = start + (ulong)lid * ITEMS + i;
        if (idx < n)
            data[idx] = run;
        run += v[i];
    }
}
