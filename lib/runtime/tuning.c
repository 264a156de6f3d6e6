/*
 * Per-device tuning parameters, in one table of named fields grouped by family. A device takes the
 * first row whose type, vendor and device substrings all match (case-insensitive; NULL or 0 matches
 * anything), so rows go from specific to general and the last row is the default for any device.
 * The families turn the values into -D options (options.c).
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const clsort_tuning table[] = {
    /* Oclgrind simulates every work-item: the smallest shapes keep checked runs short while still
     * spanning several tiles. It runs work-groups one after another, so look-back is safe there.
     * Its race check flags data handed between work-groups of one launch however they order it:
     * radix-hybrid launches each step of its ticket order apart there. */
    {
        .match_vendor = "Oclgrind",
        .scan = { .wg = 16, .items = 4 },
        .radix = { .wg = 256, .items = 1, .lookback = 2, .hist_copies = 1,
                   .hybrid = { .stepped = 1 } },
        .oddeven = { .wg = 16, .items = 4 },
    },
    /* NVIDIA GPUs: 48 KiB local memory per work-group, warps of 32. Odd-even tiles: 256 x 16
     * measured best on an H100 among 128..1024 x 8..32. Bitonic: tiles of 256 x 32 and register
     * passes of 64 elements per work-item measured best at 2^24 keys among 64..512 x 8..64 and
     * 16..64 (H100: 1.66 ms against 2.61 ms with the odd-even shape and 16 per pass). radix8 from
     * 2^23 keys: 448 x 24 keys and 320 x 28 with values, with the counts published before the
     * reorder; radix4 there 256 x 24 keys and 384 x 15 with values reordered with the keys;
     * 64-bit keys 384 x 14, keys and pairs. From 2^21 to 2^23 keys 512 x 16 keys, 448 x 24 with
     * values, 512 x 10 for 64-bit keys (lib/radix/radix_shape.c has the numbers). No radix-hybrid under
     * auto: on an H100 it took 6.89 ms for 2^28 u32 keys against onesweep's 5.33 (pairs 10.66
     * against 9.35, u64 keys at 2^27 11.04 against 8.64): a onesweep pass there moves 1.8 TB/s
     * where a copy moves 2.98, so it is not bound by memory traffic and passes over cache-resident
     * buckets gain nothing (docs/performance.md). Variable segments: one launch for short and medium ones
     * (lib/radix/segments.c has the numbers). Host arrays of up to 32 KiB on the calling thread:
     * clsort_sort()'s warm wall time on an H100 machine (bench/small-h100.sh), host-radix against
     * radix8, u32 keys 2^13 (32 KiB) 0.100 / 0.129 ms, 2^14 0.205 / 0.155; u64 pairs 2^12
     * (64 KiB) 0.176 / 0.242, 2^13 0.337 / 0.277; a context's first radix8 sort loads its
     * programs besides (5 ms from the cache, seconds to build). */
    {
        .match_vendor = "NVIDIA",
        .match_type = CL_DEVICE_TYPE_GPU,
        .scan = { .wg = 256, .items = 8 },
        .radix = { .wg = 256, .items = 16, .lookback = 1, .ptx = 1, .hist_copies = 1, .lb_at = 1,
                   .large = { .wg = 448, .items = 24, .pair_wg = 320, .pair_items = 28,
                              .pair_lb_win = 1, .pair_match_split = 2 },
                   .large64 = { .wg = 384, .items = 14, .pair_lb_at = 2 },
                   .mid = { .wg = 512, .items = 16, .pair_wg = 448, .pair_items = 24, .wg64 = 512,
                            .items64 = 10 },
                   .large4 = { .wg = 256, .items = 24, .pair_wg = 384, .pair_items = 15,
                               .pair_kv = 1 } },
        .oddeven = { .wg = 256, .items = 16 },
        .bitonic = { .wg = 256, .items = 32, .global_items = 64 },
        .host_small_bytes = (size_t)32 << 10,
    },
    /* AMD GPUs: wavefronts of 32 or 64, 64 KiB LDS. */
    {
        .match_vendor = "Advanced Micro Devices",
        .match_type = CL_DEVICE_TYPE_GPU,
        .scan = { .wg = 256, .items = 8 },
        .radix = { .wg = 256, .items = 8, .hist_copies = 1 },
        .oddeven = { .wg = 256, .items = 16 },
    },
    {
        .match_vendor = "AMD",
        .match_type = CL_DEVICE_TYPE_GPU,
        .scan = { .wg = 256, .items = 8 },
        .radix = { .wg = 256, .items = 8, .hist_copies = 1 },
        .oddeven = { .wg = 256, .items = 16 },
    },
    /* Intel's CPU runtime (intel-opencl-rt): work-groups go to a thread pool and their work-items
     * run as SIMD lanes, yet the serial radix form is still its fastest (2^24 u32 keys on 2 cores,
     * radix8 0.026 GKey/s serial against 0.005 with the work-group kernels), and the host's threads
     * beat both (host-radix 0.06-0.16 GKey/s): auto takes host-radix, as on PoCL. Forward progress
     * between work-groups holds there (stall-onesweep passes under `meson test --setup intel`),
     * but look-back spins: 2^22 u32 pairs took 14 s with onesweep against 0.2 s with radix8 and
     * 0.04 s with host-radix, so radix8 keeps reduce-then-scan. The measurements: bench/README.md. */
    {
        .match_vendor = "Intel",
        .match_type = CL_DEVICE_TYPE_CPU,
        .scan = { .wg = 64, .items = 16 },
        .radix = { .wg = 16, .items = 64, .hist_copies = 1, .serial = 4 },
        .oddeven = { .wg = 64, .items = 16 },
        .bitonic = { .wg = 256, .items = 16 },
    },
    /* CPU devices (PoCL and others): one work-group runs as a loop on one core, so small groups
     * with many keys each keep the per-barrier overhead low. Look-back is safe on PoCL but costs
     * more than it saves with a core or two spinning (at 2^24 on 2 cores onesweep took 7.2 s,
     * reduce-then-scan 3.6 s), so radix8 uses reduce-then-scan here, and in its serial form: a
     * work-group of one work-item per tile of n / (4 x compute units) keys counts and scatters them
     * in plain loops, as a threaded C radix sort would (no barriers, no ranking in local memory).
     * Bitonic tiles of 256 x 16: 2^20 keys in 90-96 ms against 114-116 ms with 64 x 16 (PoCL, 2
     * cores). */
    {
        .match_type = CL_DEVICE_TYPE_CPU,
        .scan = { .wg = 64, .items = 16 },
        .radix = { .wg = 16, .items = 64, .hist_copies = 1, .serial = 4 },
        .oddeven = { .wg = 64, .items = 16 },
        .bitonic = { .wg = 256, .items = 16 },
    },
    /* Anything else: sizes every OpenCL 1.2 GPU can run (16 KiB local memory is enough). */
    {
        .scan = { .wg = 128, .items = 4 },
        .radix = { .wg = 128, .items = 4, .lookback = 2, .hist_copies = 1 },
        .oddeven = { .wg = 128, .items = 4 },
    },
};

static int matches(const char *want, const char *have)
{
    return !want || (have && strcasestr(have, want));
}

static int row_matches(const clsort_tuning *t, const char *vendor, const char *device,
                       cl_device_type type)
{
    return (!t->match_type || (type & t->match_type)) && matches(t->match_vendor, vendor) &&
           matches(t->match_device, device);
}

void clsort_tuning_lookup(const char *vendor, const char *device, cl_device_type type,
                          clsort_tuning *out)
{
    size_t n = sizeof table / sizeof table[0], i = 0;
    while (i < n - 1 && !row_matches(&table[i], vendor, device, type))
        i++;
    *out = table[i];
    /* Bitonic's shape falls back to the odd-even one where a row leaves it at 0. */
    if (!out->bitonic.wg)
        out->bitonic.wg = out->oddeven.wg;
    if (!out->bitonic.items)
        out->bitonic.items = out->oddeven.items;
    if (!out->bitonic.global_items)
        out->bitonic.global_items = out->bitonic.items;
}

void clsort_tuning_describe(const clsort_tuning *t, char *buf, size_t size)
{
    const char *scan = t->radix.lookback == 1 ? "onesweep"
                       : t->radix.lookback == 2 ? "onesweep on PoCL, else radix8-rts"
                                                : "radix8-rts";
    char r8[96];
    if (t->radix.serial)
        snprintf(r8, sizeof r8, "radix8-rts, one work-item per tile, %u tiles per compute unit",
                 t->radix.serial);
    else
        snprintf(r8, sizeof r8, "%s, wg %u x %u keys%s", scan, t->radix.wg, t->radix.items,
                 t->radix.ptx ? ", PTX" : "");
    char large[96] = "", large4[112] = "";
    if (t->radix.ptx && t->radix.large.wg)
        snprintf(large, sizeof large, "; from 2^23 keys %u x %u, pairs %u x %u", t->radix.large.wg,
                 t->radix.large.items, t->radix.large.pair_wg, t->radix.large.pair_items);
    if (t->radix.ptx && t->radix.large.wg && t->radix.large4.wg)
        snprintf(large4, sizeof large4, "; 2^23+: %u x %u, pairs %u x %u%s", t->radix.large4.wg,
                 t->radix.large4.items, t->radix.large4.pair_wg, t->radix.large4.pair_items,
                 t->radix.large4.pair_kv ? " (kv together)" : "");
    snprintf(buf, size,
             "radix8 (%s%s), radix4 (radix8's kernels, 4-bit digits%s), bitonic (wg %u x %u "
             "keys, %u per register pass), "
             "oddeven (wg %u x %u keys)",
             r8, large, large4, t->bitonic.wg, t->bitonic.items, t->bitonic.global_items,
             t->oddeven.wg, t->oddeven.items);
}
