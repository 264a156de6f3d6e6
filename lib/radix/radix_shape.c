/*
 * Radix sort shapes and sizes, shared by both chains: the work-group shape per device, input size
 * and digit width (tuning table, then the radix settings), whether look-back is used, digit places,
 * tiles and onesweep portions, scratch bytes, the -D options, and the binning kernel's arguments.
 * Calls: keys.c, scan.c (its scratch size), options.c, chain.c.
 */
#include "radix.h"

#include <string.h>

static size_t local_bytes(const radix_shape *s, size_t key_size, size_t value_size)
{
    if (s->serial) /* counts and offsets live in private arrays */
        return 0;
    size_t tile = (size_t)s->wg * s->items;
    const size_t bins = (size_t)1 << s->digit_bits;
    size_t b = bins * (4 + 4 + 8) + 16;
    if (s->ptx) { /* the per-warp counters, reordered keys and reordered values share memory */
        size_t wc = (size_t)(s->wg / 32) * bins * 4 * (s->match >= 2 ? 2 : 1);
        size_t kv = tile * (s->kv ? key_size + value_size
                                  : key_size > value_size ? key_size : value_size);
        return b + (kv > wc ? kv : wc) + (s->wg / 32) * 4;
    }
    /* The counter table has a spare word per 32 (RANK_AT in cl/common.cl). */
    const size_t counters = ((size_t)1 << s->radix_bits) * s->wg * 33 / 32 + 1;
    return b + tile * key_size + counters * 4 + s->wg * 4 + bins * 4 + (value_size ? tile * 4 : 0);
}

size_t clsort_radix_local_bytes(const radix_shape *s, size_t key_size, size_t value_size)
{
    return local_bytes(s, key_size, value_size);
}

/* With the warp ranking, inputs of at least LARGE_N keys take larger tiles, inputs below SMALL_N
 * smaller ones (below). */
#define LARGE_N ((size_t)1 << 23)
#define SMALL_N ((size_t)1 << 19)
#define PAIR64_LB_AT_N ((size_t)1 << 26)
#define MID_N ((size_t)1 << 21)

/* Keys per tile of the serial form: a few tiles per compute unit, so that the device's threads
 * share the work evenly, and not so few keys that counting a tile's 256 digits dominates. */
#define SERIAL_MIN_TILE 4096

/* The serial form (reduce-then-scan only): one work-item per tile. The radix_serial setting turns
 * it on for any device (with tiles as small as it makes them) or off. Returns 0 when not used. */
static int serial_shape(const clsort_context *ctx, size_t n, int lookback, radix_shape *s)
{
    unsigned per_cu = ctx->tuning.radix.serial;
    size_t min_tile = SERIAL_MIN_TILE;
    if (ctx->settings.radix_serial >= 0) {
        per_cu = (unsigned)ctx->settings.radix_serial;
        min_tile = 1;
    }
    if (!per_cu || lookback)
        return 0;
    const size_t parts = (size_t)(ctx->compute_units ? ctx->compute_units : 1) * per_cu;
    s->serial = 1;
    s->wg = s->items = 1;
    s->ptx = 0;
    s->tile = (n + parts - 1) / parts;
    if (s->tile < min_tile)
        s->tile = min_tile;
    return 1;
}

/*
 * Warp ranking on large inputs: the tuning table's larger work-groups and tiles (as far as local
 * memory allows, below) mean fewer tiles to look back over and longer runs of a digit per tile to
 * write; small inputs keep smaller tiles, so that every compute unit gets some. The shapes are
 * chosen for registers too: a compute unit holds as many work-groups as its registers allow, and
 * the ones not waiting in the look-back keep it busy. On an H100 at 2^28 u32 keys, with the
 * counts published before the reorder (LB_AT=1): 448 x 24 (80 registers, two work-groups per
 * compute unit) 5.42 ms, 480 x 22 5.47, 416 x 26 5.50, 512 x 20 5.51, 384 x 28 5.52; with the
 * publication after the reorder 256 x 40 (113 registers) 6.20, 448 x 24 5.82, 256 x 32 6.58.
 * With u32 values 320 x 28 took 9.41 ms (AND of 2 words 8.76, of 4 words 7.94, constant keys
 * 7.30), 384 x 28 9.34 (but 10.51, 10.04 and 8.02), 256 x 32 9.40 (9.47, 8.91, 7.49), 448 x 20
 * 9.75, 512 x 16 10.93 (84 registers: one work-group per compute unit).
 */
static void large_shape(const clsort_tuning *t, size_t key_size, size_t value_size, size_t n,
                        radix_shape *s)
{
    s->wg = value_size ? t->radix.large.pair_wg : t->radix.large.wg;
    s->items = value_size ? t->radix.large.pair_items : t->radix.large.items;
    s->lb_at = t->radix.lb_at;
    /* 64-bit keys: the tiles above do not fit in local memory; halving their items (448 x 12,
     * 320 x 14 with values) is not the best that does. H100, u64 keys (ms at 2^27 / 2^24; pairs
     * with u32 values): 384 x 14 keys 8.47 / 1.18, pairs 13.54 / 1.74; 448 x 12 8.49 / 1.17,
     * 14.03 / 1.80; 256 x 20 8.68 / 1.15, 13.60 / 1.72; 320 x 16 8.70 / 1.18, 13.73 / 1.76;
     * 512 x 10 8.64 / 1.19, 13.68 / 1.74; 384 x 12 8.84 / 1.18, 13.95 / 1.79; 256 x 16 9.25 /
     * 1.20, 14.13 / 1.78 (CUB: 8.50 / 1.21, 12.71 / 1.65). */
    if (key_size == 8 && t->radix.large64.wg) {
        s->wg = t->radix.large64.wg;
        s->items = t->radix.large64.items;
    }
    /* 64-bit keys with values from PAIR64_LB_AT_N keys: each tile walks back before its reorder
     * (LB_AT=2) rather than after publishing. H100, u64 keys with u32 values, wall ms, same run,
     * two rounds, LB_AT 1 / 2: 2^24 1.662-1.663 / 1.681-1.685, 2^25 3.243 / 3.234-3.251, 2^26
     * 6.570-6.574 / 6.483-6.513, 2^27 12.996-13.015 / 12.760-12.783 (CUB 1.658-1.660, 3.177,
     * 6.486, 12.95-13.01). Keys alone lose by it (u64 2^27 8.35-8.36 -> 8.76-8.77, u32 2^28 5.27-5.28
     * -> 5.77-5.78), u32 pairs gain little (2^28 8.93-8.96 -> 8.91-8.92) or lose (2^26 2.26-2.27 ->
     * 2.30-2.32). */
    if (key_size == 8 && value_size && n >= PAIR64_LB_AT_N && t->radix.large64.pair_lb_at)
        s->lb_at = t->radix.large64.pair_lb_at;
    /* With values, tiles that read one predecessor at a time in the look-back (LB_WIN=1) instead
     * of four: H100, wall ms, same run, two rounds, default / one at a time: u32 pairs 2^24
     * 0.646-0.649 / 0.641-0.642, 2^26 2.334-2.346 / 2.282-2.294, 2^28 9.070-9.087 / 8.852-8.868
     * (CUB 9.263-9.268); u64 pairs 2^24 1.740-1.747 / 1.724-1.725, 2^27 13.43-13.44 / 13.03-13.08
     * (CUB 13.00-13.01). Keys alone lose by it (2^28 u32 5.39 -> 5.62) and two at a time is level
     * with four (5.39-5.42). */
    if (value_size && s->digit_bits == 8)
        s->lb_win = t->radix.large.pair_lb_win;
    /* With values, passes whose digits are spread find a digit's lanes by two ballots on its top
     * bits and a table of 64 lane masks (MATCH_SPLIT=2, cl/radix/) rather than the table of
     * 256 alone. H100, pairs, wall ms, same run, two rounds, without / with (`VARIANTS="old: new:"
     * KINDS=pairs bash bench/envab-h100.sh`): u32 2^24 0.621-0.625 / 0.615-0.620, 2^26
     * 2.259-2.260 / 2.251-2.257, 2^28 8.800-8.803 / 8.767-8.774 (CUB 9.199), AND of 4 words
     * 7.603-7.612 / 7.576-7.599, skewed 7.531-7.572 / 7.529-7.531, nearly sorted 8.678-8.731 /
     * 8.661-8.707; u64 2^24 1.667-1.671 / 1.666-1.683, 2^27 12.842-12.854 / 12.769-12.801 (CUB
     * 12.954). Keys alone lose by it (u32 2^28 5.32-5.34 -> 5.39 with k = 2, 5.50 with k = 3; the
     * docs/performance.md has the rest). */
    if (value_size && s->digit_bits == 8)
        s->split = t->radix.large.pair_match_split;
    /* 4-bit digits: 16 counters per warp and 16 look-back chains per tile leave the tile's
     * ranking cheaper, so the best shapes differ. Twice the passes make the values' second
     * reorder in local memory cost more than halving the tile does, so with values the keys
     * and values share it (KV_TOGETHER). H100, radix4 at 2^28 keys (GKey/s; uniform, AND of 4
     * words, of 8, constant): keys 256 x 24 32.4, 33.1, -, 34.6 (448 x 24 30.6, 31.3, 32.4,
     * 32.9); pairs 384 x 15 together 19.8, 20.4, 21.0, 21.4, 448 x 13 19.0, 19.5, 20.1, 20.4,
     * 256 x 22 18.2, 18.3, 19.2, 19.6, apart 384 x 31 17.0, 17.6, 18.9, 19.7, 384 x 28 16.7,
     * 17.0, 18.3, 19.2. radix8 pairs lose by it: 384 x 14 together 25.2 against 28.5. */
    if (s->digit_bits == 4 && t->radix.large4.wg) {
        s->wg = value_size ? t->radix.large4.pair_wg : t->radix.large4.wg;
        s->items = value_size ? t->radix.large4.pair_items : t->radix.large4.items;
        s->kv = t->radix.large4.pair_kv;
    }
}

/* radix8 from MID_N keys up to LARGE_N: fewer, larger tiles than the default's 256 x 16, which
 * suits 2^20 keys and below. H100, wall ms, same run, two rounds, 256 x 16 / the mid shape (CUB):
 * - u32 keys, 512 x 16: 2^21 0.121-0.124 / 0.102-0.109 (0.120), 2^22 0.188-0.191 / 0.164-0.166
 *   (0.182), AND of 4 words 2^22 0.181-0.187 / 0.154 (0.170). 448 x 24 0.114-0.118 and 0.188-0.189,
 *   512 x 10 0.107-0.113 and 0.166-0.171, 256 x 24 and 320 x 20 slower at 2^22.
 * - u32 pairs, 448 x 24: 2^21 0.138-0.143 / 0.141-0.143 (0.157), 2^22 0.242-0.249 / 0.218 (0.241),
 *   AND of 4 words 0.223-0.227 / 0.210-0.212 (0.217). 512 x 16 0.130-0.134 at 2^21 but 0.234 and
 *   0.227-0.228 at 2^22; 512 x 10 0.204 on the AND of 4 words but 0.150-0.156 at 2^21.
 * - 64-bit keys, 512 x 10: u64 keys 2^21 0.277-0.278 / 0.245-0.250 (0.271), 2^22 0.443-0.449 /
 *   0.405-0.412 (0.417); pairs 2^21 0.315-0.318 / 0.316-0.326 (0.339), 2^22 0.587-0.591 /
 *   0.522-0.530 (0.528). 256 x 20 and 384 x 14 came between.
 * At 2^20 the default is as fast (u64 keys 0.158-0.162 / 0.159-0.164); from 2^23 the large shapes
 * above are (u64 keys 0.640-0.645 against 0.643-0.650 with 512 x 10). Segments take these tiles
 * too (bench_segments --algo radix8, u32): 10-30% faster at 2^21-2^22, except the medium mix at
 * 2^22, 2-3% slower (keys 0.212-0.220 -> 0.217-0.224 ms). */
static void mid_shape(const clsort_tuning *t, size_t key_size, size_t value_size, radix_shape *s)
{
    const unsigned wg = key_size == 8 ? t->radix.mid.wg64
                        : value_size  ? t->radix.mid.pair_wg
                                      : t->radix.mid.wg;
    const unsigned items = key_size == 8 ? t->radix.mid.items64
                           : value_size  ? t->radix.mid.pair_items
                                         : t->radix.mid.items;
    if (wg) {
        s->wg = wg;
        s->items = items;
    }
}

/* The radix settings, for tuning runs: each overrides the table where it is set. */
static void apply_settings(const clsort_settings *set, radix_shape *s)
{
    if (set->radix_wg > 0)
        s->wg = (unsigned)set->radix_wg;
    if (set->radix_items > 0)
        s->items = (unsigned)set->radix_items;
    if (set->radix_ptx_set)
        s->ptx = set->radix_ptx;
    if (set->radix_match >= 0)
        s->match = (unsigned)set->radix_match;
    if (set->radix_lb_at >= 0)
        s->lb_at = (unsigned)set->radix_lb_at;
    if (set->radix_lb_win > 0)
        s->lb_win = (unsigned)set->radix_lb_win;
    if (set->radix_kv >= 0)
        s->kv = (unsigned)set->radix_kv;
    if (set->radix_match_split >= 0)
        s->split = (unsigned)set->radix_match_split;
}

/* Whether programs may use NVIDIA's warp primitives (inline PTX): the tuning's word, or
 * CLSORT_RADIX8_PTX where set. */
int clsort_warp_ptx(const clsort_context *ctx)
{
    const clsort_settings *set = &ctx->settings;
    return set->radix_ptx_set ? (int)set->radix_ptx : (int)ctx->tuning.radix.ptx;
}

radix_shape clsort_radix_shape(const clsort_context *ctx, unsigned digit_bits, size_t key_size,
                               size_t value_size, size_t n, int lookback)
{
    const clsort_tuning *t = &ctx->tuning;
    radix_shape s = { .digit_bits = digit_bits, .wg = t->radix.wg, .items = t->radix.items,
                      .ptx = t->radix.ptx, .radix_bits = 8, .hist_copies = t->radix.hist_copies };
    if (serial_shape(ctx, n, lookback, &s))
        return s;
    if (s.ptx && n >= LARGE_N && t->radix.large.wg)
        large_shape(t, key_size, value_size, n, &s);
    else if (s.ptx && digit_bits == 8 && n >= MID_N)
        mid_shape(t, key_size, value_size, &s);
    /* Below 2^19 keys, halve them: more tiles to spread over the compute units. On an H100 at 2^18
     * keys 256 x 8 took 0.099 ms against 0.110 for 256 x 16 (pairs 0.100 against 0.114); at 2^20
     * 256 x 16 was faster (0.116 against 0.122). */
    if (s.ptx && n < SMALL_N && s.items > 4)
        s.items /= 2;
    /* Lane masks from a table in local memory instead of eight ballots per key: on an H100 at 2^28
     * keys a binning pass took 1.43 ms against 1.64; at 2^24 and below it was slower. With 4-bit
     * digits (four ballots otherwise), radix4 at 2^28 keys: uniform 30.6 -> 31.0 GKey/s, AND of 4
     * words 31.3 -> 31.7, constant 32.9 -> 35.0; pairs 15.0 -> 15.4, 15.5 -> 15.7, 16.6 -> 17.6.
     * radix8 there also takes the table on passes where one digit holds 1/16 to 3/4 of the keys,
     * that digit's lanes found by a ballot (MATCH_TOP, cl/radix/): H100, 2^28 keys, wall ms
     * against the ballots, same run: skewed 5.42-5.45 -> 4.90 ms (pairs 7.86-7.90 -> 7.64-7.67), AND of 2
     * words 5.85-5.86 -> 5.54 (pairs 8.47-8.50 -> 8.49-8.52), of 3 5.60-5.63 -> 5.24-5.26 (7.97-8.00
     * -> 7.86-7.87), of 4 5.45-5.48 -> 5.03-5.05 (7.69-7.71 -> 7.53-7.54); uniform keys level
     * (5.41 against 5.43-5.46, pairs 9.24-9.25 against 9.23). Not measured with 4-bit digits. */
    if (s.ptx && n >= LARGE_N)
        s.match = digit_bits == 8 ? 3 : 2;
    apply_settings(&ctx->settings, &s);
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
    switch (ctx->tuning.radix.lookback) {
    case 1:
        return 1;
    case 2: /* CPU device of PoCL (an OS thread per running work-group) or Oclgrind (in order) */
        return strstr(ctx->platform_name, "Portable Computing Language") != NULL ||
               strstr(ctx->platform_name, "Oclgrind") != NULL;
    default:
        return 0;
    }
}

int clsort_radix_lookback(const clsort_context *ctx, const clsort_spec *spec)
{
    if (spec->segment) /* segments: tiles within segments, offsets from the scanned table */
        return 0;
    if (spec->algorithm == CLSORT_ALGO_ONESWEEP || spec->algorithm == CLSORT_ALGO_RADIX_HYBRID)
        return 1;
    if (spec->algorithm == CLSORT_ALGO_RADIX8_RTS)
        return 0;
    return lookback_safe(ctx);
}

/* radix-hybrid by name, or auto's choice from the tuning's (or the setting's) least size; never with
 * segments, 4-bit digits, one digit place, the serial form or onesweep portions (2^30 keys). */
int clsort_radix_hybrid_wanted(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                               unsigned digit_bits)
{
    if (spec->segment || digit_bits != 8 || clsort_radix_places(spec, 8) < 2 ||
        !clsort_radix_lookback(ctx, spec))
        return 0;
    const size_t ks = clsort_key_size(spec->key_type);
    const radix_shape s = clsort_radix_shape(ctx, 8, ks, spec->value_size, n, 1);
    if (s.serial || n > clsort_radix_portion_tiles(ctx, &s) * s.tile)
        return 0;
    if (spec->algorithm == CLSORT_ALGO_RADIX_HYBRID)
        return 1;
    const long long set = ctx->settings.hybrid_min_n;
    const size_t least = set >= 0 ? (size_t)set : ctx->tuning.radix.hybrid.min_n;
    return spec->algorithm == CLSORT_ALGO_AUTO && least > 0 && n >= least;
}

/* Onesweep status words: a region of (tiles per portion + 1) x 256 words per launch. Small inputs get
 * one region per pass right after the histogram (digit places x portions x 256 words) in one buffer,
 * so that a single fill clears everything before the first kernel; larger ones reuse one region of its
 * own buffer, cleared before each launch. */
size_t clsort_radix_status_regions(size_t places, size_t portions, size_t per_portion)
{
    return portions == 1 && per_portion <= 4096 ? places : 1;
}

unsigned clsort_radix_places(const clsort_spec *spec, unsigned digit_bits)
{
    unsigned begin, end;
    clsort_key_range(spec, &begin, &end);
    return (end - begin + digit_bits - 1) / digit_bits;
}

/* The most whole tiles below 2^30 keys, a multiple of MAX_HIST_TILES (the radix_portion_tiles
 * setting makes it smaller, to test portions on small inputs). */
size_t clsort_radix_portion_tiles(const clsort_context *ctx, const radix_shape *s)
{
    size_t pt = ((((size_t)1 << 30) - 1) / s->tile) / MAX_HIST_TILES * MAX_HIST_TILES;
    const size_t want = ctx->settings.radix_portion_tiles;
    if (want > 0 && want < pt)
        pt = want;
    return pt;
}

/* Whole-array tiles, or with segments ceil(S / tile) per segment (*tps receives them; n / tile for
 * a whole array). */
size_t clsort_radix_tiles(const radix_shape *s, const clsort_spec *spec, size_t n, size_t *tps)
{
    const size_t seg = clsort_segment_length(spec, n);
    const size_t per = seg ? (seg + s->tile - 1) / s->tile : 0;
    if (tps)
        *tps = per;
    return seg ? (n + seg - 1) / seg * per : 0;
}

size_t clsort_radix_hist_places(size_t places, unsigned digit_bits)
{
    return (places * digit_bits + 7) / 8;
}

size_t clsort_radix_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                            unsigned digit_bits)
{
    const size_t ks = clsort_key_size(spec->key_type);
    const size_t places = clsort_radix_places(spec, digit_bits);
    const int lookback = clsort_radix_lookback(ctx, spec);
    radix_shape s = clsort_radix_shape(ctx, digit_bits, ks, spec->value_size, n, lookback);
    const size_t bins = (size_t)1 << digit_bits, tiles = clsort_radix_tiles(&s, spec, n, NULL);
    size_t data = n * (ks + spec->value_size);
    if (lookback) {
        size_t pt = clsort_radix_portion_tiles(ctx, &s);
        size_t portions = (tiles + pt - 1) / pt;
        size_t per_portion = tiles < pt ? tiles : pt;
        const size_t hybrid = clsort_radix_hybrid_wanted(ctx, spec, n, digit_bits)
                                  ? clsort_radix_hybrid_scratch(n, s.tile, places)
                                  : 0;
        return data + hybrid +
               clsort_radix_status_regions(places, portions, per_portion) * (per_portion + 1) *
                   bins * 4 +
               (1 + portions * clsort_radix_hist_places(places, digit_bits) * HIST_BINS) * 4 +
               ((places + 2) * bins + places) * 8;
    }
    return data + bins * tiles * sizeof(cl_ulong) + clsort_scan_scratch(ctx, bins * tiles);
}

/* Options left out take the kernel's defaults (keys only, portable ranking, one copy). */
void clsort_radix_options(const radix_run *r, clsort_opts *b)
{
    const radix_shape *s = &r->s;
    clsort_opts_add(b, WG, s->wg);
    clsort_opts_add(b, ITEMS, s->items);
    clsort_opts_add(b, LOOKBACK, r->lookback);
    clsort_opts_add(b, RADIX, 1u << s->radix_bits);
    clsort_opts_add(b, DIGIT_BITS, r->digit_bits);
    clsort_opts_add(b, HIST_LOADS, HIST_LOADS);
    if (r->vs) {
        clsort_opts_add(b, HAS_VALUES, 1);
        clsort_opts_add_text(b, VALUE_T, r->vs == 8 ? "ulong" : "uint");
    }
    clsort_opts_add_if(b, s->ptx, USE_PTX, 1);
    clsort_opts_add_if(b, s->wg & (s->wg - 1), WG_ANY, 1); /* warp ranking: any multiple of 32 */
    clsort_opts_add_if(b, r->job->n > 0xffffffffu, WIDE, 1);
    clsort_opts_add_if(b, r->lookback && s->lb_win, LB_WIN, s->lb_win);
    clsort_opts_add_if(b, s->ptx && s->match == 1, MATCH_ANY, 1);
    clsort_opts_add_if(b, s->ptx && s->match >= 2, MATCH_OR, 1);
    clsort_opts_add_if(b, s->ptx && s->match == 3, MATCH_TOP, 1);
    clsort_opts_add_if(b, s->ptx && s->match >= 2 && s->split && r->digit_bits == 8, MATCH_SPLIT,
                       s->split);
    clsort_opts_add_if(b, s->kv, KV_TOGETHER, 1);
    clsort_opts_add_if(b, s->ptx && r->lookback && s->lb_at, LB_AT, s->lb_at);
    clsort_opts_add_if(b, s->hist_copies > 1, HIST_COPIES, s->hist_copies);
    clsort_opts_add_if(b, s->serial, SERIAL, 1);
    clsort_opts_add_if(b, r->job->varseg != NULL, VARSEG, 1);
    clsort_opts_add_if(b, r->hybrid, HYBRID, 1);
    /* The bit range: PLACES digit places from bit RANGE_BEGIN. */
    clsort_opts_add(b, RANGE_BEGIN, r->begin);
    clsort_opts_add(b, PLACES, r->places);
    clsort_key_options(r->job->spec, b);
}

clsort_status clsort_radix_bin_args(clsort_context *ctx, const radix_run *r, unsigned io,
                                    const radix_bin_args *a)
{
    const cl_mem keys[2] = { r->keys[io & 1], r->keys[(io + 1) & 1] };
    const cl_mem vals[2] = { r->vals[io & 1], r->vals[(io + 1) & 1] };
    int at;
    clsort_status st = clsort_set_data_args(ctx, r->bin_k, "radix8_bin", 2, keys,
                                            r->vs ? vals : NULL, &at);
    if (st == CLSORT_OK)
        st = clsort_set_args_at(ctx, r->bin_k, "radix8_bin", at, 10, ARG(a->base), ARG(a->n),
                                ARG(a->shift), ARG(a->status), ARG(a->status_off), ARG(a->offsets),
                                ARG(a->off_index), ARG(a->off_next), ARG(a->ntiles),
                                ARG(a->seg_len));
    if (st == CLSORT_OK && r->job->varseg) /* the tiles of variable segments, last */
        st = clsort_set_args_at(ctx, r->bin_k, "radix8_bin", at + 10, 1, ARG(r->job->varseg->desc));
    if (st == CLSORT_OK && r->job->varseg && r->lookback) /* and their segments' counts */
        st = clsort_set_args_at(ctx, r->bin_k, "radix8_bin", at + 11, 1, ARG(r->seg_hist));
    return st;
}
