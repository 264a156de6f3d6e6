/*
 * LSD radix sorts (cl/radix8.cl): radix8 with 8-bit digits, radix4 with 4-bit ones, on the same
 * kernels. One stable binning pass per digit place of the bit range (radix8: four for 32-bit keys,
 * eight for 64-bit ones; radix4 twice as many), ping-ponging between the caller's buffers and scratch
 * buffers; after an odd number of passes the result is copied back.
 *
 * Two ways to find each tile's global digit offsets, sharing the ranking and scatter kernel:
 * - onesweep: one up-front histogram of all digit places (of whole bytes; a 4-bit place is read off
 *   the low or high half of a byte's counts), then one binning kernel per digit
 *   place with decoupled look-back over per-(tile, digit) status words (about 2n traffic per pass);
 * - reduce-then-scan: per pass a tile histogram, a scan of the digit-major table, the binning kernel.
 *
 * Look-back needs running work-groups to make progress while others spin; the tuning table enables it
 * only on devices known to give that (see cl/radix8.cl for why it cannot deadlock there). A status
 * word packs a 2-bit flag and a 30-bit count, so onesweep bins at most 2^30 - 1 keys per launch:
 * larger inputs are split into portions of whole tiles, each with its own offsets from the histogram.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BINS 256 /* the up-front histogram counts whole bytes */
#define MAX_HIST_TILES 64 /* tiles counted by one histogram work-group, at most */
#define HIST_GROUPS_PER_CU 4
#define HIST_LOADS 4 /* vector loads of 4 keys in flight per histogram work-item (cl/radix8.cl) */

typedef struct radix8_shape {
    unsigned digit_bits; /* 8 for radix8, 4 for radix4 */
    unsigned wg, items, ptx, radix_bits, hist_copies;
    unsigned match; /* warp ranking: 0 ballots per digit bit, 1 match.any, 2 lane-mask table */
    unsigned serial; /* reduce-then-scan with one work-item per tile (CPU devices) */
    unsigned lb_at;  /* warp ranking: when tiles publish their counts (LB_AT in cl/radix8.cl) */
    unsigned kv;     /* warp ranking with values: keys and values reordered together (KV_TOGETHER) */
    size_t tile;
} radix8_shape;

static size_t local_bytes(const radix8_shape *s, size_t key_size, size_t value_size)
{
    if (s->serial) /* counts and offsets live in private arrays */
        return 0;
    size_t tile = (size_t)s->wg * s->items;
    const size_t bins = (size_t)1 << s->digit_bits;
    size_t b = bins * (4 + 4 + 8) + 16;
    if (s->ptx) { /* the per-warp counters, reordered keys and reordered values share memory */
        size_t wc = (size_t)(s->wg / 32) * bins * 4 * (s->match == 2 ? 2 : 1);
        size_t kv = tile * (s->kv ? key_size + value_size
                                  : key_size > value_size ? key_size : value_size);
        return b + (kv > wc ? kv : wc) + (s->wg / 32) * 4;
    }
    /* The counter table has a spare word per 32 (RANK_AT in cl/common.cl). */
    const size_t counters = ((size_t)1 << s->radix_bits) * s->wg * 33 / 32 + 1;
    return b + tile * key_size + counters * 4 + s->wg * 4 + bins * 4 + (value_size ? tile * 4 : 0);
}

/* With the warp ranking, inputs of at least LARGE_N keys take larger tiles, inputs below SMALL_N
 * smaller ones (below). */
#define LARGE_N ((size_t)1 << 23)
#define SMALL_N ((size_t)1 << 19)

/* Keys per tile of the serial form: a few tiles per compute unit, so that the device's threads
 * share the work evenly, and not so few keys that counting a tile's 256 digits dominates. */
#define SERIAL_MIN_TILE 4096

static radix8_shape shape_for(const clsort_context *ctx, unsigned digit_bits, size_t key_size,
                              size_t value_size, size_t n, int lookback)
{
    const clsort_tuning *t = &ctx->tuning;
    radix8_shape s = { digit_bits, t->radix8_wg, t->radix8_items, t->radix8_ptx, 8,
                       t->radix8_hist_copies, 0, 0, 0, 0, 0 };
    const char *e;
    unsigned per_cu = t->radix8_serial;
    size_t min_tile = SERIAL_MIN_TILE;
    /* For tests and tuning: any device, and tiles as small as it makes them. */
    if ((e = getenv("CLSORT_RADIX8_SERIAL")) && *e && atoi(e) >= 0) {
        per_cu = (unsigned)atoi(e);
        min_tile = 1;
    }
    if (per_cu && !lookback) {
        const size_t parts = (size_t)(ctx->compute_units ? ctx->compute_units : 1) * per_cu;
        s.serial = 1;
        s.wg = s.items = 1;
        s.ptx = 0;
        s.tile = (n + parts - 1) / parts;
        if (s.tile < min_tile)
            s.tile = min_tile;
        return s;
    }
    /* Warp ranking on large inputs: the tuning table's larger work-groups and tiles (as far as local
     * memory allows, below) mean fewer tiles to look back over and longer runs of a digit per tile to
     * write; small inputs keep smaller tiles, so that every compute unit gets some. The shapes are
     * chosen for registers too: a compute unit holds as many work-groups as its registers allow, and
     * the ones not waiting in the look-back keep it busy. On an H100 at 2^28 u32 keys, with the
     * counts published before the reorder (LB_AT=1): 448 x 24 (80 registers, two work-groups per
     * compute unit) 5.42 ms, 480 x 22 5.47, 416 x 26 5.50, 512 x 20 5.51, 384 x 28 5.52; with the
     * publication after the reorder 256 x 40 (113 registers) 6.20, 448 x 24 5.82, 256 x 32 6.58.
     * With u32 values 320 x 28 took 9.41 ms (AND of 2 words 8.76, of 4 words 7.94, constant keys
     * 7.30), 384 x 28 9.34 (but 10.51, 10.04 and 8.02), 256 x 32 9.40 (9.47, 8.91, 7.49), 448 x 20
     * 9.75, 512 x 16 10.93 (84 registers: one work-group per compute unit). */
    if (s.ptx && n >= LARGE_N && t->radix8_large_wg) {
        s.wg = value_size ? t->radix8_large_pair_wg : t->radix8_large_wg;
        s.items = value_size ? t->radix8_large_pair_items : t->radix8_large_items;
        s.lb_at = t->radix8_lb_at;
        /* 4-bit digits: 16 counters per warp and 16 look-back chains per tile leave the tile's
         * ranking cheaper, so the best shapes differ. Twice the passes make the values' second
         * reorder in local memory cost more than halving the tile does, so with values the keys
         * and values share it (KV_TOGETHER). H100, radix4 at 2^28 keys (GKey/s; uniform, AND of 4
         * words, of 8, constant): keys 256 x 24 32.4, 33.1, -, 34.6 (448 x 24 30.6, 31.3, 32.4,
         * 32.9); pairs 384 x 15 together 19.8, 20.4, 21.0, 21.4, 448 x 13 19.0, 19.5, 20.1, 20.4,
         * 256 x 22 18.2, 18.3, 19.2, 19.6, apart 384 x 31 17.0, 17.6, 18.9, 19.7, 384 x 28 16.7,
         * 17.0, 18.3, 19.2. radix8 pairs lose by it: 384 x 14 together 25.2 against 28.5. */
        if (digit_bits == 4 && t->radix4_large_wg) {
            s.wg = value_size ? t->radix4_large_pair_wg : t->radix4_large_wg;
            s.items = value_size ? t->radix4_large_pair_items : t->radix4_large_items;
            s.kv = t->radix4_large_pair_kv;
        }
    }
    /* Below 2^19 keys, halve them: more tiles to spread over the compute units. On an H100 at 2^18
     * keys 256 x 8 took 0.099 ms against 0.110 for 256 x 16 (pairs 0.100 against 0.114); at 2^20
     * 256 x 16 was faster (0.116 against 0.122). */
    if (s.ptx && n < SMALL_N && s.items > 4)
        s.items /= 2;
    /* Lane masks from a table in local memory instead of eight ballots per key: on an H100 at 2^28
     * keys a binning pass took 1.43 ms against 1.64; at 2^24 and below it was slower. With 4-bit
     * digits (four ballots otherwise), radix4 at 2^28 keys: uniform 30.6 -> 31.0 GKey/s, AND of 4
     * words 31.3 -> 31.7, constant 32.9 -> 35.0; pairs 15.0 -> 15.4, 15.5 -> 15.7, 16.6 -> 17.6. */
    if (s.ptx && n >= LARGE_N)
        s.match = 2;
    if ((e = getenv("CLSORT_RADIX8_WG")) && atoi(e) > 0)
        s.wg = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX8_ITEMS")) && atoi(e) > 0)
        s.items = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX8_PTX")))
        s.ptx = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX8_MATCH")) && *e && atoi(e) >= 0 && atoi(e) <= 2)
        s.match = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX8_LB_AT")) && *e && atoi(e) >= 0 && atoi(e) <= 2)
        s.lb_at = (unsigned)atoi(e);
    if ((e = getenv("CLSORT_RADIX8_KV")) && *e)
        s.kv = atoi(e) > 0;
    if (!s.hist_copies)
        s.hist_copies = 1;
    while (s.wg > 1 && s.wg > ctx->max_wg)
        s.wg /= 2;
    if (s.wg < 256 || s.wg % 32)
        s.ptx = 0; /* the warp ranking has one work-item per digit */
    if (!s.ptx || !value_size)
        s.kv = 0; /* only the warp ranking reorders values with the keys */
    /* Portable ranking: one 8-bit counter pass if its table is small, else two 4-bit passes. */
    s.radix_bits = digit_bits == 8 && (size_t)256 * s.wg * 4 <= 16384 ? 8 : 4;
    while (local_bytes(&s, key_size, value_size) > ctx->local_mem && s.items > 1)
        s.items /= 2;
    s.tile = (size_t)s.wg * s.items;
    return s;
}

/* Look-back is used where the device is known to let running work-groups progress. */
static int lookback_safe(const clsort_context *ctx)
{
    switch (ctx->tuning.radix8_lookback) {
    case 1:
        return 1;
    case 2: /* CPU device of PoCL (an OS thread per running work-group) or Oclgrind (in order) */
        return strstr(ctx->platform_name, "Portable Computing Language") != NULL ||
               strstr(ctx->platform_name, "Oclgrind") != NULL;
    default:
        return 0;
    }
}

static int use_lookback(const clsort_context *ctx, const clsort_spec *spec)
{
    if (spec->segment) /* segments: tiles within segments, offsets from the scanned table */
        return 0;
    if (spec->algorithm == CLSORT_ALGO_ONESWEEP)
        return 1;
    if (spec->algorithm == CLSORT_ALGO_RADIX8_RTS)
        return 0;
    return lookback_safe(ctx);
}

/* Onesweep status words: a region of (tiles per portion + 1) x 256 words per launch. Small inputs get
 * one region per pass right after the histogram (digit places x portions x 256 words) in one buffer,
 * so that a single fill clears everything before the first kernel; larger ones reuse one region of its
 * own buffer, cleared before each launch. */
static size_t status_regions(size_t places, size_t portions, size_t per_portion)
{
    return portions == 1 && per_portion <= 4096 ? places : 1;
}

/* Digit places of the bit range. */
static unsigned places_of(const clsort_spec *spec, unsigned digit_bits)
{
    unsigned begin, end;
    clsort_key_range(spec, &begin, &end);
    return (end - begin + digit_bits - 1) / digit_bits;
}

/* Tiles per onesweep portion: the most whole tiles below 2^30 keys, a multiple of MAX_HIST_TILES
 * (CLSORT_RADIX8_PORTION_TILES makes it smaller, to test portions on small inputs). */
static size_t portion_tiles_for(const radix8_shape *s)
{
    size_t pt = ((((size_t)1 << 30) - 1) / s->tile) / MAX_HIST_TILES * MAX_HIST_TILES;
    const char *e = getenv("CLSORT_RADIX8_PORTION_TILES");
    if (e && atol(e) > 0 && (size_t)atol(e) < pt)
        pt = (size_t)atol(e);
    return pt;
}

/* Tiles of a sort: whole-array tiles, or with segments ceil(S / tile) per segment (*tps receives them;
 * n / tile for a whole array). */
static size_t rts_tiles(const radix8_shape *s, const clsort_spec *spec, size_t n, size_t *tps)
{
    const size_t seg = clsort_segment_length(spec, n);
    const size_t per = seg ? (seg + s->tile - 1) / s->tile : 0;
    if (tps)
        *tps = per;
    return seg ? (n + seg - 1) / seg * per : 0;
}

clsort_algorithm clsort_radix8_variant(const clsort_context *ctx, const clsort_spec *spec)
{
    return use_lookback(ctx, spec) ? CLSORT_ALGO_ONESWEEP : CLSORT_ALGO_RADIX8_RTS;
}

/* Byte places the up-front histogram counts for `places` digit places. */
static size_t hist_places(size_t places, unsigned digit_bits)
{
    return (places * digit_bits + 7) / 8;
}

static size_t lsd_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                          unsigned digit_bits)
{
    const size_t ks = clsort_key_width(spec->key_type) / 8, places = places_of(spec, digit_bits);
    radix8_shape s = shape_for(ctx, digit_bits, ks, spec->value_size, n, use_lookback(ctx, spec));
    const size_t bins = (size_t)1 << digit_bits, tiles = rts_tiles(&s, spec, n, NULL);
    size_t data = n * (ks + spec->value_size);
    if (use_lookback(ctx, spec)) {
        size_t pt = portion_tiles_for(&s);
        size_t portions = (tiles + pt - 1) / pt;
        size_t per_portion = tiles < pt ? tiles : pt;
        return data + status_regions(places, portions, per_portion) * (per_portion + 1) * bins * 4 +
               portions * hist_places(places, digit_bits) * HIST_BINS * 4 +
               ((places + 2) * bins + places) * 8;
    }
    return data + bins * tiles * sizeof(cl_ulong) + clsort_scan_scratch(ctx, bins * tiles);
}

size_t clsort_radix8_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    return lsd_scratch(ctx, spec, n, 8);
}

size_t clsort_radix4_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    return lsd_scratch(ctx, spec, n, 4);
}

static clsort_status lsd_enqueue(clsort_context *ctx, const clsort_job *job, unsigned digit_bits)
{
    const size_t vs = job->spec->value_size, ks = clsort_key_width(job->spec->key_type) / 8;
    const int lookback = use_lookback(ctx, job->spec);
    const radix8_shape s = shape_for(ctx, digit_bits, ks, vs, job->n, lookback);
    const char *fam = digit_bits == 8 ? "radix8" : "radix4";
    const unsigned bins = 1u << digit_bits;
    if (local_bytes(&s, ks, vs) > ctx->local_mem)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "%s needs %zu bytes of local memory; %s has %llu", fam,
                           local_bytes(&s, ks, vs), ctx->display_name,
                           (unsigned long long)ctx->local_mem);

    /* Options left out take the kernel's defaults (keys only, portable ranking, one copy). */
    char opts[512];
    int len0 = snprintf(opts, sizeof opts,
                        "-DWG=%u -DITEMS=%u -DLOOKBACK=%d -DRADIX=%u -DDIGIT_BITS=%u -DHIST_LOADS=%u",
                        s.wg, s.items, lookback, 1u << s.radix_bits, digit_bits, HIST_LOADS);
    size_t l = (size_t)len0;
    if (vs)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DHAS_VALUES=1 -DVALUE_T=%s",
                              vs == 8 ? "ulong" : "uint");
    if (s.ptx)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DUSE_PTX=1");
    if (s.wg & (s.wg - 1)) /* the warp ranking takes any multiple of 32 */
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DWG_ANY=1");
    if (job->n > 0xffffffffu)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DWIDE=1");
    const char *win = getenv("CLSORT_RADIX8_LB_WIN");
    if (win && atoi(win) > 0)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DLB_WIN=%d", atoi(win));
    if (s.ptx && s.match)
        l += (size_t)snprintf(opts + l, sizeof opts - l, s.match == 1 ? " -DMATCH_ANY=1" : " -DMATCH_OR=1");
    if (s.kv)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DKV_TOGETHER=1");
    if (s.ptx && lookback && s.lb_at)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DLB_AT=%u", s.lb_at);
    if (s.hist_copies > 1)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DHIST_COPIES=%u", s.hist_copies);
    if (s.serial)
        l += (size_t)snprintf(opts + l, sizeof opts - l, " -DSERIAL=1");
    /* The bit range: PLACES 8-bit digit places from bit RANGE_BEGIN. */
    unsigned begin, end;
    clsort_key_range(job->spec, &begin, &end);
    const unsigned places = places_of(job->spec, digit_bits);
    l += (size_t)snprintf(opts + l, sizeof opts - l, " -DRANGE_BEGIN=%u -DPLACES=%u ", begin, places);
    clsort_key_options(job->spec, opts + l, sizeof opts - l);
    const char *src[] = { clsort_cl_common, clsort_cl_radix8 };
    const size_t len[] = { clsort_cl_common_len, clsort_cl_radix8_len };
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, fam, src, len, 2, opts, &prog);
    if (st != CLSORT_OK)
        return st;

    const cl_ulong n = job->n;
    size_t tps;
    const size_t tiles = rts_tiles(&s, job->spec, job->n, &tps);
    const cl_ulong seg_len = clsort_segment_length(job->spec, job->n), zero = 0;
    cl_kernel hist_k = NULL, offs_k = NULL, up_k = NULL, bin_k = NULL;
    cl_mem tmp_keys = NULL, tmp_vals = NULL, work = NULL, offsets = NULL, status = NULL;
    clsort_scan scan = { 0 };

    /* The serial form's kernels (CPU devices) take the place of the upsweep and the binning. */
    const char *bin_name = s.serial ? "radix8_serial_scatter" : "radix8_bin";
    const char *up_name = s.serial ? "radix8_serial_count" : "radix8_upsweep";
    if ((st = clsort_create_kernel(ctx, prog, bin_name, &bin_k)) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_TMP_KEYS, job->n * ks, &tmp_keys,
                             "radix8 key scratch")) != CLSORT_OK ||
        (vs && (st = clsort_scratch(ctx, CLSORT_SLOT_TMP_VALUES, job->n * vs, &tmp_vals,
                                    "radix8 value scratch")) != CLSORT_OK))
        goto done;

    cl_mem keys[2] = { job->keys, tmp_keys }, vals[2] = { job->values, tmp_vals };
    unsigned done_passes = 0;
    if (lookback) {
        const size_t pt = portion_tiles_for(&s);
        const cl_uint portions = (cl_uint)((tiles + pt - 1) / pt);
        const size_t per_portion = tiles < pt ? tiles : pt;
        const cl_ulong portion_size = (cl_ulong)pt * s.tile;
        /* Histogram work-groups. One portion: HIST_GROUPS_PER_CU per compute unit over equal runs of
         * keys, so that every compute unit gets the same work (H100, 2^28 keys: 0.563 ms, 0.571 with
         * 16 per compute unit; 0.628 with runs of whole tiles, which left some compute units one
         * run more than others). Several portions: a few per compute unit, each over whole tiles
         * dividing a portion. */
        cl_ulong chunk;
        const char *hg = getenv("CLSORT_RADIX8_HIST_PER_CU");
        const unsigned per_cu = hg && *hg && atoi(hg) >= 0 ? (unsigned)atoi(hg) : HIST_GROUPS_PER_CU;
        if (portions == 1 && per_cu) {
            const cl_ulong groups = (cl_ulong)(ctx->compute_units ? ctx->compute_units : 1) * per_cu;
            const cl_ulong step = (cl_ulong)s.wg * 4 * HIST_LOADS; /* keys per round of its loop */
            chunk = ((n + groups - 1) / groups + step - 1) / step * step;
        } else {
            size_t hk = tiles / ((size_t)ctx->compute_units * 4 + 1);
            size_t p2 = 1;
            while (p2 * 2 <= hk && p2 * 2 <= MAX_HIST_TILES)
                p2 *= 2;
            while (pt % p2)
                p2 /= 2;
            chunk = (cl_ulong)p2 * s.tile;
        }
        const size_t hist_groups = (job->n + chunk - 1) / chunk;
        const size_t hist_words = (size_t)portions * hist_places(places, digit_bits) * HIST_BINS;
        const size_t region_words = (per_portion + 1) * bins;
        const size_t regions = status_regions(places, portions, per_portion);
        const size_t work_bytes = (hist_words + (regions > 1 ? regions * region_words : 0)) * 4;
        if ((st = clsort_create_kernel(ctx, prog, "radix8_histogram", &hist_k)) != CLSORT_OK ||
            (st = clsort_create_kernel(ctx, prog, "radix8_offsets", &offs_k)) != CLSORT_OK ||
            (st = clsort_scratch(ctx, CLSORT_SLOT_WORK, work_bytes, &work, "radix8 histogram")) !=
                CLSORT_OK ||
            (st = clsort_scratch(ctx, CLSORT_SLOT_OFFSETS, ((places + 2) * bins + places) * 8,
                                 &offsets, "radix8 offsets")) != CLSORT_OK ||
            (regions == 1 && (st = clsort_scratch(ctx, CLSORT_SLOT_STATUS, region_words * 4, &status,
                                                  "radix8 status words")) != CLSORT_OK))
            goto done;
        if ((st = clsort_fill(ctx, work, 0, work_bytes)) != CLSORT_OK ||
            (st = clsort_set_args(ctx, hist_k, "radix8_histogram", 6, ARG(job->keys), ARG(n),
                                  ARG(chunk), ARG(portion_size), ARG(portions), ARG(work))) !=
                CLSORT_OK ||
            (st = clsort_launch(ctx, hist_k, hist_groups * s.wg, s.wg)) != CLSORT_OK)
            goto done;
        clsort_profile_last(ctx, fam, "histogram", 0);
        if ((st = clsort_set_args(ctx, offs_k, "radix8_offsets", 3, ARG(work), ARG(portions),
                                  ARG(offsets))) != CLSORT_OK ||
            (st = clsort_launch(ctx, offs_k, (size_t)places * s.wg, s.wg)) != CLSORT_OK)
            goto done;
        clsort_profile_last(ctx, fam, "offsets", 0);
        /* Digit places where every key has the same digit would move every key to where it is:
         * when the caller waits anyway, read the offsets back and leave those passes out. */
        int skip[16] = { 0 };
        if (job->may_block) {
            cl_ulong off[8 * HIST_BINS]; /* places x bins: 8 x 256 or 16 x 16 at most */
            cl_int err = clEnqueueReadBuffer(ctx->queue, offsets, CL_TRUE, 0,
                                             places * bins * sizeof off[0], off, 1,
                                             &ctx->last_event, NULL);
            if (err != CL_SUCCESS) {
                st = clsort_fail_cl(ctx, err, "clEnqueueReadBuffer(radix8 offsets)");
                goto done;
            }
            for (unsigned place = 0; place < places; place++)
                for (unsigned d = 0; d < bins; d++) {
                    cl_ulong next = d + 1 < bins ? off[place * bins + d + 1] : n;
                    if (next - off[place * bins + d] == n)
                        skip[place] = 1;
                }
        }
        for (cl_uint pass = 0; pass < places; pass++) {
            if (skip[pass]) {
                ctx->passes_skipped++;
                continue;
            }
            const cl_uint shift = begin + pass * digit_bits;
            const unsigned io = done_passes++;
            cl_mem kin = keys[io & 1], kout = keys[(io + 1) & 1];
            cl_mem vin = vals[io & 1], vout = vals[(io + 1) & 1];
            for (cl_uint p = 0; p < portions; p++) {
                const cl_ulong base = (cl_ulong)p * portion_size;
                const cl_ulong pn = n - base < portion_size ? n - base : portion_size;
                const size_t ptiles = (size_t)((pn + s.tile - 1) / s.tile);
                /* Portion 0 starts at the pass's offsets; later ones at what the one before left in
                 * one of two running slots after the passes' offsets. */
                const cl_ulong off_index =
                    p == 0 ? (cl_ulong)pass * bins : (places + ((p + 1) & 1)) * bins;
                const cl_ulong off_next = (places + (p & 1)) * bins;
                const cl_ulong ntiles = ptiles;
                /* The region's first word is the tile counter, the status words follow; both start
                 * at zero: the first fill cleared every region, a reused one is cleared again. */
                const cl_ulong status_off = regions > 1 ? hist_words + pass * region_words : 0;
                cl_mem sbuf = regions > 1 ? work : status;
                if (regions == 1)
                    st = clsort_fill(ctx, status, 0, (ptiles + 1) * bins * 4);
                if (st == CLSORT_OK) {
                    if (vs)
                        st = clsort_set_args(ctx, bin_k, "radix8_bin", 14, ARG(kin), ARG(kout),
                                             ARG(vin), ARG(vout), ARG(base), ARG(pn), ARG(shift),
                                             ARG(sbuf), ARG(status_off), ARG(offsets),
                                             ARG(off_index), ARG(off_next), ARG(ntiles), ARG(zero));
                    else
                        st = clsort_set_args(ctx, bin_k, "radix8_bin", 12, ARG(kin), ARG(kout),
                                             ARG(base), ARG(pn), ARG(shift), ARG(sbuf),
                                             ARG(status_off), ARG(offsets), ARG(off_index),
                                             ARG(off_next), ARG(ntiles), ARG(zero));
                }
                if (st == CLSORT_OK)
                    st = clsort_launch(ctx, bin_k, ptiles * s.wg, s.wg);
                if (st != CLSORT_OK)
                    goto done;
                clsort_profile_last(ctx, fam, "onesweep", pass);
            }
        }
    } else {
        const cl_ulong ntiles = tps, tile_len = s.tile;
        if ((st = clsort_create_kernel(ctx, prog, up_name, &up_k)) != CLSORT_OK ||
            (st = clsort_scratch(ctx, CLSORT_SLOT_OFFSETS, (size_t)bins * tiles * sizeof(cl_ulong),
                                 &offsets, "radix8 tile counts")) != CLSORT_OK ||
            (st = clsort_scan_init(ctx, &scan, (size_t)bins * tiles)) != CLSORT_OK)
            goto done;
        for (cl_uint pass = 0; pass < places; pass++) {
            const cl_uint shift = begin + pass * digit_bits;
            const unsigned io = done_passes++;
            cl_mem kin = keys[io & 1], kout = keys[(io + 1) & 1];
            cl_mem vin = vals[io & 1], vout = vals[(io + 1) & 1];
            /* The serial kernels take the tile length last. */
            if ((st = clsort_set_args(ctx, up_k, up_name, s.serial ? 7 : 6, ARG(kin), ARG(n),
                                      ARG(shift), ARG(offsets), ARG(ntiles), ARG(seg_len),
                                      ARG(tile_len))) != CLSORT_OK ||
                (st = clsort_launch(ctx, up_k, tiles * s.wg, s.wg)) != CLSORT_OK)
                goto done;
            clsort_profile_last(ctx, fam, "upsweep", pass);
            if ((st = clsort_scan_enqueue(ctx, &scan, offsets, (size_t)bins * tiles)) != CLSORT_OK)
                goto done;
            /* status and counter are unused without look-back: any buffer will do. */
            if (s.serial) {
                if (vs)
                    st = clsort_set_args(ctx, bin_k, bin_name, 10, ARG(kin), ARG(kout),
                                         ARG(vin), ARG(vout), ARG(n), ARG(shift), ARG(offsets),
                                         ARG(ntiles), ARG(seg_len), ARG(tile_len));
                else
                    st = clsort_set_args(ctx, bin_k, bin_name, 8, ARG(kin), ARG(kout),
                                         ARG(n), ARG(shift), ARG(offsets), ARG(ntiles), ARG(seg_len),
                                         ARG(tile_len));
            } else if (vs)
                st = clsort_set_args(ctx, bin_k, "radix8_bin", 14, ARG(kin), ARG(kout), ARG(vin),
                                     ARG(vout), ARG(zero), ARG(n), ARG(shift), ARG(offsets),
                                     ARG(zero), ARG(offsets), ARG(zero), ARG(zero), ARG(ntiles),
                                     ARG(seg_len));
            else
                st = clsort_set_args(ctx, bin_k, "radix8_bin", 12, ARG(kin), ARG(kout), ARG(zero),
                                     ARG(n), ARG(shift), ARG(offsets), ARG(zero), ARG(offsets),
                                     ARG(zero), ARG(zero), ARG(ntiles), ARG(seg_len));
            if (st != CLSORT_OK || (st = clsort_launch(ctx, bin_k, tiles * s.wg, s.wg)) != CLSORT_OK)
                goto done;
            clsort_profile_last(ctx, fam, "bin", pass);
        }
    }
    /* An odd number of passes left the result in the scratch buffers. */
    if ((done_passes & 1) &&
        ((st = clsort_copy(ctx, tmp_keys, job->keys, job->n * ks)) != CLSORT_OK ||
         (vs && (st = clsort_copy(ctx, tmp_vals, job->values, job->n * vs)) != CLSORT_OK)))
        goto done;

done:
    /* Releasing now is safe: OpenCL keeps objects alive until the commands using them finish. */
    clsort_scan_release(&scan);
    cl_kernel kerns[] = { hist_k, offs_k, up_k, bin_k };
    for (size_t i = 0; i < sizeof kerns / sizeof kerns[0]; i++)
        if (kerns[i])
            clReleaseKernel(kerns[i]);
    cl_mem ms[] = { tmp_keys, tmp_vals, work, offsets, status };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        if (ms[i])
            clReleaseMemObject(ms[i]);
    return st;
}

clsort_status clsort_radix8_enqueue(clsort_context *ctx, const clsort_job *job)
{
    return lsd_enqueue(ctx, job, 8);
}

clsort_status clsort_radix4_enqueue(clsort_context *ctx, const clsort_job *job)
{
    return lsd_enqueue(ctx, job, 4);
}
