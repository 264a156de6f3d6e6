/*
 * Per-device tuning parameters, in one table. A device takes the first row whose vendor and device
 * substrings both match (case-insensitive; NULL matches anything), so rows go from specific to
 * general and the last row is the default for any device. The values reach kernels as -D options.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct tuning_row {
    clsort_tuning t;
    cl_device_type type; /* 0 matches any type */
} tuning_row;

static const tuning_row table[] = {
    /* Oclgrind simulates every work-item: the smallest shapes keep checked runs short while still
     * spanning several tiles. It runs work-groups one after another, so look-back is safe there. */
    { { "Oclgrind", NULL, 16, 4, 256, 1, 2, 0, 1, 0, 16, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0 },
    /* NVIDIA GPUs: 48 KiB local memory per work-group, warps of 32. Odd-even tiles: 256 x 16
     * measured best on an H100 among 128..1024 x 8..32. Bitonic: tiles of 256 x 32 and register
     * passes of 64 elements per work-item measured best at 2^24 keys among 64..512 x 8..64 and
     * 16..64 (H100: 1.66 ms against 2.61 ms with the odd-even shape and 16 per pass). radix8 from
     * 2^23 keys: 448 x 24 keys and 320 x 28 with values, with the counts published before the
     * reorder; radix4 there 256 x 24 keys and 384 x 15 with values reordered with the keys
     * (lib/radix8.c has the numbers). */
    { { "NVIDIA", NULL, 256, 8, 256, 16, 1, 1, 1, 1, 256, 16, 0, 256, 32, 64, 448, 24, 320,
        28, 256, 24, 384, 15, 1 },
      CL_DEVICE_TYPE_GPU },
    /* AMD GPUs: wavefronts of 32 or 64, 64 KiB LDS. */
    { { "Advanced Micro Devices", NULL, 256, 8, 256, 8, 0, 0, 1, 0, 256, 16, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0 },
      CL_DEVICE_TYPE_GPU },
    { { "AMD", NULL, 256, 8, 256, 8, 0, 0, 1, 0, 256, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
      CL_DEVICE_TYPE_GPU },
    /* CPU devices (PoCL and others): one work-group runs as a loop on one core, so small groups
     * with many keys each keep the per-barrier overhead low. Look-back is safe on PoCL but costs
     * more than it saves with a core or two spinning (at 2^24 on 2 cores onesweep took 7.2 s,
     * reduce-then-scan 3.6 s), so radix8 uses reduce-then-scan here, and in its serial form: a
     * work-group of one work-item per tile of n / (4 x compute units) keys counts and scatters them
     * in plain loops, as a threaded C radix sort would (no barriers, no ranking in local memory).
     * Bitonic tiles of 256 x 16: 2^20 keys in 90-96 ms against 114-116 ms with 64 x 16 (PoCL, 2
     * cores). */
    { { NULL, NULL, 64, 16, 16, 64, 0, 0, 1, 0, 64, 16, 4, 256, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
      CL_DEVICE_TYPE_CPU },
    /* Anything else: sizes every OpenCL 1.2 GPU can run (16 KiB local memory is enough). */
    { { NULL, NULL, 128, 4, 128, 4, 2, 0, 1, 0, 128, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0 },
};

static int matches(const char *want, const char *have)
{
    return !want || (have && strcasestr(have, want));
}

void clsort_tuning_lookup(const char *vendor, const char *device, cl_device_type type,
                          clsort_tuning *out)
{
    size_t n = sizeof table / sizeof table[0], i = 0;
    while (i < n - 1 && !((!table[i].type || (type & table[i].type)) &&
                          matches(table[i].t.match_vendor, vendor) &&
                          matches(table[i].t.match_device, device)))
        i++;
    *out = table[i].t;
    /* Bitonic's shape falls back to the odd-even one where a row leaves it at 0. */
    if (!out->bitonic_wg)
        out->bitonic_wg = out->sort_wg;
    if (!out->bitonic_items)
        out->bitonic_items = out->sort_items;
    if (!out->bitonic_global_items)
        out->bitonic_global_items = out->bitonic_items;
}

void clsort_tuning_describe(const clsort_tuning *t, char *buf, size_t size)
{
    const char *scan = t->radix8_lookback == 1 ? "onesweep"
                       : t->radix8_lookback == 2 ? "onesweep on PoCL, else radix8-rts"
                                                 : "radix8-rts";
    char r8[96];
    if (t->radix8_serial)
        snprintf(r8, sizeof r8, "radix8-rts, one work-item per tile, %u tiles per compute unit",
                 t->radix8_serial);
    else
        snprintf(r8, sizeof r8, "%s, wg %u x %u keys%s", scan, t->radix8_wg, t->radix8_items,
                 t->radix8_ptx ? ", PTX" : "");
    char large[96] = "", large4[112] = "";
    if (t->radix8_ptx && t->radix8_large_wg)
        snprintf(large, sizeof large, "; from 2^23 keys %u x %u, pairs %u x %u", t->radix8_large_wg,
                 t->radix8_large_items, t->radix8_large_pair_wg, t->radix8_large_pair_items);
    if (t->radix8_ptx && t->radix8_large_wg && t->radix4_large_wg)
        snprintf(large4, sizeof large4, "; 2^23+: %u x %u, pairs %u x %u%s",
                 t->radix4_large_wg, t->radix4_large_items, t->radix4_large_pair_wg,
                 t->radix4_large_pair_items,
                 t->radix4_large_pair_kv ? " (kv together)" : "");
    snprintf(buf, size,
             "radix8 (%s%s), radix4 (radix8's kernels, 4-bit digits%s), bitonic (wg %u x %u "
             "keys, %u per register pass), "
             "oddeven (wg %u x %u keys)",
             r8, large, large4, t->bitonic_wg, t->bitonic_items,
             t->bitonic_global_items, t->sort_wg, t->sort_items);
}
