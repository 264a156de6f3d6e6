/*
 * Variable segments (CSR offsets), stable (cl/segments/): short segments are sorted in local
 * memory, several to a work-group, in one launch; long ones by the radix8 passes, whose tiles are
 * cut within segments and described one by one, so every long segment, a few thousand keys or a
 * billion, is sorted by the same launches in parallel: a look-back chain each where the device
 * runs look-back (radix_chains.c), else reduce-then-scan. radix8's fixed segments go this way too
 * where the chains run (offsets made on the device).
 *
 * Why not a radix sort over a composite key (segment id above the key's bits), which needs no
 * segment-aware tiles: it adds ceil(log2 n_seg / 8) passes, carries a segment id per key (or a
 * permutation and a gather) through every pass, and sorts the short segments the slow way too. Here
 * the long segments take exactly the passes of their bit range, the short ones one pass through
 * local memory, and the segment table costs a pass over the n_seg + 1 offsets and a scan.
 *
 * Where a sort is short: a segment of at most HALF keys (half the tile sort's capacity), so that
 * the short segments starting in one stretch of HALF keys fit one tile; the same work-group then
 * sorts the medium segment (up to a whole tile) that may start in that stretch too, alone
 * (cl/segments/). Where the tuning gives the short segments a smaller tile of their own, they
 * take a launch of their own and the medium tile's launch sorts only the medium ones. Only longer
 * segments take the radix passes.
 * Calls: radix.c (the passes, its tile length), keys.c, compare.c (the tile shape), scan.c,
 * options.c, program.c, buffers.c, chain.c.
 */
#include "internal.h"

#define MAX_TILE 32768 /* positions and segment tags share a word (cl/segments/) */
#define MEDIUM_WAYS 8  /* the stretches a medium tile's group looks in (cl/segments/short.cl) */

/* The most keys a work-group of short segments sorts by the bitonic network; more take the radix
 * sort in local memory (cl/segments/; CLSORT_SEG_BITONIC_MAX overrides). The network's stages
 * grow as log^2 of the keys, the radix sort's 4-bit passes (8 for 32-bit keys, 16 for 64-bit ones,
 * fewer where a group's keys share digits) each cost a counter table and a scan over the work-group
 * whatever the keys: by counting local-memory operations and barriers per work-item the two meet at
 * about 512 keys of 32 bits, twice that for keys of 64. */
#define SEG_BITONIC_MAX_32 512
#define SEG_BITONIC_MAX_64 1024
#define SEG_RADIX 16 /* the radix sort's digits (RADIX in cl/common.cl's ranking) */

clsort_status clsort_segments_check(clsort_context *ctx, const uint64_t *off, size_t n_seg,
                                    size_t n)
{
    for (size_t i = 0; i <= n_seg; i++) {
        const unsigned long long o = off[i];
        if (i == 0 && o != 0)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "segment offsets: entry 0 is %llu, expected 0", o);
        if (o > n)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "segment offsets: entry %zu is %llu, past n (%zu)", i, o, n);
        if (i > 0 && o < off[i - 1])
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "segment offsets: entry %zu is %llu, below entry %zu (%llu): "
                               "expected at least %llu (offsets never decrease)",
                               i, o, i - 1, (unsigned long long)off[i - 1],
                               (unsigned long long)off[i - 1]);
        if (i == n_seg && o != n)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "segment offsets: entry %zu (the last of n_seg + 1 = %zu) is %llu, "
                               "expected n (%zu)",
                               i, n_seg + 1, o, n);
    }
    return CLSORT_OK;
}

/* A tile of segments: a comparison sort's shape (family) for keys with a 4-byte tag each. */
static clsort_status tagged_shape(const clsort_context *ctx, const clsort_spec *spec, int family,
                                  clsort_tile_shape *s)
{
    clsort_spec tagged = *spec;
    tagged.value_size = 4;
    clsort_status st = clsort_tile_shape_for(ctx, &tagged, family, s);
    while (st == CLSORT_OK && s->tile > MAX_TILE && s->items > 1) {
        s->items /= 2;
        s->tile /= 2;
    }
    if (st == CLSORT_OK && s->tile < 2)
        st = CLSORT_ERROR_DEVICE_UNSUITABLE;
    return st;
}

/* The tile that sorts the medium segments (and the short ones where they have no launch of their
 * own): the bitonic sort's. */
static clsort_status short_shape(const clsort_context *ctx, const clsort_spec *spec,
                                 clsort_tile_shape *s)
{
    return tagged_shape(ctx, spec, CLSORT_SHAPE_BITONIC, s);
}

/*
 * Whether the short segments of n keys in n_seg segments take a launch of their own with a smaller
 * tile (*s), which the medium tile's launch then looks for medium segments in stretches of: at
 * most MEDIUM_WAYS stretches of s->tile / 2 in its own half tile (cl/segments/). Only where the
 * tuning asks for it and the segments average at most half the smaller tile: the second launch
 * and its work-groups that find nothing cost the other mixes. H100, 2^24 u32 keys (bench_segments,
 * wall ms of the whole call): with the counter ranking, one launch / short tiles of 1,024
 * positions took 1.60 / 1.33 on segments of about 64 keys, 1.21 / 1.31 on segments of about
 * 2,000, 0.81 / 0.88 on a mix of every length. Since the 4,096-position groups rank by warps
 * there (cl/segments/short.cl), one launch takes the short mix in 1.21 ms against 1.39 split (whose
 * groups of 128 rank by counters), so no device's tuning splits now.
 */
static int short_split(const clsort_context *ctx, const clsort_spec *spec,
                       const clsort_tile_shape *medium, size_t n, size_t n_seg,
                       clsort_tile_shape *s)
{
    return n_seg && tagged_shape(ctx, spec, CLSORT_SHAPE_SEG_SHORT, s) == CLSORT_OK &&
           !(s->tile & (s->tile - 1)) && s->tile < medium->tile &&
           medium->tile / s->tile <= MEDIUM_WAYS && n / n_seg <= s->tile / 2;
}

/* The most segments of more than `most` keys that n keys in n_seg segments can hold. */
static size_t most_long(size_t n_seg, size_t n, size_t most)
{
    const size_t longs = n / (most + 1);
    return n_seg < longs ? n_seg : longs;
}

/* The long segments (more than `most` keys each): the exact count when the offsets are on the
 * host, else the most there can be (at least one: with bad offsets all n keys are one). */
static size_t long_segments(const uint64_t *off, size_t n_seg, size_t n, size_t most)
{
    size_t longs = 0;
    if (!off) {
        longs = most_long(n_seg, n, most);
        return longs ? longs : 1;
    }
    for (size_t i = 0; i < n_seg; i++)
        longs += off[i + 1] - off[i] > most;
    return longs;
}

/* The radix tiles and long segments (more than `most` keys) of fixed segments of seg keys. */
static void fixed_counts(size_t n, size_t seg, size_t most, size_t tile, size_t *tiles,
                         size_t *longs)
{
    const size_t full = n / seg, last = n % seg;
    *tiles = *longs = 0;
    if (seg > most) {
        *tiles += full * ((seg + tile - 1) / tile);
        *longs += full;
    }
    if (last > most) {
        *tiles += (last + tile - 1) / tile;
        *longs += 1;
    }
}

/* Radix tiles for the long segments: the exact count when the offsets are on the host, else the
 * most there can be (each long segment wastes at most one tile). The spare tiles of that bound
 * cost each radix pass an empty work-group (and reduce-then-scan BINS zeros to scan). */
static size_t radix_tiles(const uint64_t *off, size_t n_seg, size_t n, size_t most, size_t tile)
{
    if (!off)
        return (n + tile - 1) / tile + most_long(n_seg, n, most);
    size_t tiles = 0;
    for (size_t i = 0; i < n_seg; i++) {
        const size_t len = (size_t)(off[i + 1] - off[i]);
        if (len > most)
            tiles += (len + tile - 1) / tile;
    }
    return tiles;
}

/* The windows of the medium tile's launch (seg_short's work-groups). */
static size_t windows(size_t n, const clsort_tile_shape *s)
{
    return (n + s->tile / 2 - 1) / (s->tile / 2);
}

double clsort_segments_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                               size_t n_seg)
{
    clsort_tile_shape s;
    if (short_shape(ctx, spec, &s) != CLSORT_OK)
        return 0;
    const size_t tile = clsort_radix8_varseg_tile(ctx, spec, n);
    const double tiles = (double)radix_tiles(NULL, n_seg, n, s.tile, tile);
    /* reduce-then-scan: a table of 256 counts a tile and its scan's partials; look-back chains:
     * 256 counts a place of each long segment, and two regions of 256 status words a tile */
    const double longs = (double)long_segments(NULL, n_seg, n, s.tile);
    const double places = clsort_key_size(spec->key_type);
    const double table = clsort_radix8_varseg_chains(ctx, spec, n)
                             ? (longs * places * 256 * 4 + 2 * (tiles + 1) * 256 * 4) / 8
                             : 256.0 * tiles * (1 + 1 / 64.0);
    const double seg = 3.0 * n_seg + 1 + windows(n, &s) + 1, desc = CLSORT_VSEG_WORDS * tiles + 1;
    return (double)n * (clsort_key_size(spec->key_type) + spec->value_size) +
           8.0 * (table + seg + seg / 64 + desc + n_seg + 1);
}

/* What the sort's two halves share: the medium tile's shape and program, and the short
 * segments' own where they have a launch of their own (short_prog NULL otherwise). */
typedef struct seg_sort {
    clsort_tile_shape s, short_s;
    cl_program prog, short_prog;
    cl_mem flag, table, desc;
    cl_ulong n, n_seg, tile_len; /* tile_len: the radix passes' */
    int no_short; /* known to hold no segment of 1 to s.tile keys: no local sort to launch */
} seg_sort;

/* Whether the host knows that no segment has 1 to `tile` keys (which the local sort takes, a lone
 * key included): fixed segments, or offsets given on the host. */
static int none_short(const clsort_varseg *v, size_t n, size_t tile)
{
    if (v->fixed)
        return v->fixed > tile && (n % v->fixed == 0 || n % v->fixed > tile);
    if (!v->host_offsets)
        return 0;
    for (size_t i = 0; i < v->n_seg; i++) {
        const uint64_t len = v->host_offsets[i + 1] - v->host_offsets[i];
        if (len >= 1 && len <= tile)
            return 0;
    }
    return 1;
}

/* One launch of seg_short from prog (tile shape s): the parts (1 short, 2 medium, 3 both) of
 * each window of s->tile / 2 keys, medium segments looked for in stretches of `window`. */
static clsort_status launch_short(clsort_context *ctx, const clsort_job *job, cl_program prog,
                                  const clsort_tile_shape *s, cl_ulong window, cl_uint part,
                                  cl_mem keys_out, cl_mem values_out)
{
    const seg_sort *g = job->varseg->state;
    const size_t half = s->tile / 2, groups = g->n_seg ? (job->n + half - 1) / half : 1;
    /* the windows' first segments, which seg_count found for the medium tile's windows */
    const cl_ulong wins = g->n_seg && prog == g->prog ? 3 * g->n_seg + 1 : (cl_ulong)-1;
    const cl_mem table = g->table ? g->table : g->flag;
    cl_kernel k = NULL;
    int at;
    const cl_mem keys[2] = { job->keys, keys_out }, vals[2] = { job->values, values_out };
    clsort_status st = clsort_create_kernel(ctx, prog, "seg_short", &k);
    if (st == CLSORT_OK)
        st = clsort_set_data_args(ctx, k, "seg_short", 2, keys,
                                  job->spec->value_size ? vals : NULL, &at);
    if (st == CLSORT_OK)
        st = clsort_set_args_at(ctx, k, "seg_short", at, 8, ARG(job->varseg->offsets),
                                ARG(g->n_seg), ARG(g->n), ARG(g->flag), ARG(window), ARG(part),
                                ARG(table), ARG(wins));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, k, groups * s->wg, s->wg);
    if (k)
        clReleaseKernel(k);
    if (st == CLSORT_OK)
        clsort_profile_last(ctx, "segments", part == 1 ? "short" : part == 2 ? "medium" : "local",
                            0);
    return st;
}

/* Every segment of at most a medium tile, from job->keys into keys_out: in one launch, or the
 * short ones in their own launch and the medium ones in the medium tile's. */
static clsort_status sort_short_segments(clsort_context *ctx, const clsort_job *job,
                                         cl_mem keys_out, cl_mem values_out)
{
    const seg_sort *g = job->varseg->state;
    if (!g->short_prog || !g->n_seg)
        return launch_short(ctx, job, g->prog, &g->s, g->s.tile / 2, g->n_seg ? 3 : 1, keys_out,
                            values_out);
    const cl_ulong window = g->short_s.tile / 2;
    clsort_status st = launch_short(ctx, job, g->short_prog, &g->short_s, window, 1, keys_out,
                                    values_out);
    return st == CLSORT_OK
               ? launch_short(ctx, job, g->prog, &g->s, window, 2, keys_out, values_out)
               : st;
}

/* The check, each segment's radix tiles and each window's first segment (seg_count): all seg_short
 * needs is the check's flag and the windows. */
static clsort_status describe_check(clsort_context *ctx, const clsort_varseg *v, seg_sort *g)
{
    const size_t wg = ctx->tuning.scan.wg, n_wins = windows(g->n, &g->s) + 1;
    const size_t items = v->n_seg + 1 > n_wins ? v->n_seg + 1 : n_wins;
    const cl_ulong wins = 3 * g->n_seg + 1, nw = n_wins;
    cl_kernel k = NULL;
    clsort_status st;
    if ((st = clsort_fill(ctx, g->flag, 0, 4)) == CLSORT_OK &&
        (st = clsort_create_kernel(ctx, g->prog, "seg_count", &k)) == CLSORT_OK &&
        (st = clsort_set_args(ctx, k, "seg_count", 8, ARG(v->offsets), ARG(g->n_seg), ARG(g->n),
                              ARG(g->flag), ARG(g->table), ARG(g->tile_len), ARG(wins),
                              ARG(nw))) == CLSORT_OK)
        st = clsort_launch(ctx, k, (items + wg - 1) / wg * wg, wg);
    if (k)
        clReleaseKernel(k);
    return st;
}

/* The radix passes' tiles: the segment table scanned, then each tile described (seg_tiles). */
static clsort_status describe_tiles(clsort_context *ctx, const clsort_varseg *v, seg_sort *g)
{
    const size_t entries = 3 * v->n_seg + 1, wg = ctx->tuning.scan.wg;
    const cl_ulong max_tiles = v->tiles;
    const cl_uint bins = 256, chains = (cl_uint)v->chains;
    cl_kernel k = NULL;
    clsort_scan scan = { 0 };
    clsort_status st;
    if ((st = clsort_scan_init(ctx, &scan, entries)) != CLSORT_OK ||
        (st = clsort_scan_enqueue(ctx, &scan, g->table, entries)) != CLSORT_OK)
        goto done;
    if (max_tiles &&
        ((st = clsort_create_kernel(ctx, g->prog, "seg_tiles", &k)) != CLSORT_OK ||
         (st = clsort_set_args(ctx, k, "seg_tiles", 10, ARG(v->offsets), ARG(g->n_seg), ARG(g->n),
                               ARG(g->flag), ARG(g->table), ARG(g->desc), ARG(max_tiles),
                               ARG(g->tile_len), ARG(bins), ARG(chains))) != CLSORT_OK ||
         (st = clsort_launch(ctx, k, (v->tiles + wg - 1) / wg * wg, wg)) != CLSORT_OK))
        goto done;
    clsort_profile_last(ctx, "segments", "describe", 0);
done:
    clsort_scan_release(&scan);
    if (k)
        clReleaseKernel(k);
    return st;
}

/*
 * The radix passes' hook before they start (clsort_varseg.short_sort): the short segments first,
 * then the tiles of the long ones described, so that the device sorts the short segments while the
 * host enqueues the rest (about 7 us a command on NVIDIA). H100, 2^22 u32 keys, the description's
 * four commands after the local sort rather than before: the mixes with long segments 1-4% faster
 * (7 segments 0.237 -> 0.228-0.232 ms), the others level.
 */
static clsort_status short_then_tiles(clsort_context *ctx, const clsort_job *job, cl_mem keys_out,
                                      cl_mem values_out)
{
    const seg_sort *g = job->varseg->state;
    clsort_status st = g->no_short ? CLSORT_OK : sort_short_segments(ctx, job, keys_out, values_out);
    return st == CLSORT_OK ? describe_tiles(ctx, job->varseg, job->varseg->state) : st;
}

/* Whether seg_short takes the radix sort for groups of more than *max keys: not where every group
 * fits the network, nor where its local memory (keys and tags or the counter table and a scan's
 * words, in the same bytes, and two words more) does not fit the device. */
static int radix_groups(const clsort_context *ctx, const clsort_spec *spec,
                        const clsort_tile_shape *s, size_t *max)
{
    const size_t ks = clsort_key_size(spec->key_type), words = SEG_RADIX * s->wg;
    const size_t sort = clsort_tile_local_bytes(s->tile, ks, 4);
    const size_t ranks = 4 * (words + (words - 1) / 32 + s->wg);
    const size_t bytes = (sort > ranks ? sort : ranks) + 8;
    const long long set = ctx->settings.seg_bitonic_max;
    *max = set >= 0 ? (size_t)set : ks == 8 ? SEG_BITONIC_MAX_64 : SEG_BITONIC_MAX_32;
    return *max < s->tile && bytes <= ctx->local_mem;
}

/* The segments' program for tiles of shape s, held in *prog (NULL on failure). */
static clsort_status build_segments(clsort_context *ctx, const clsort_spec *spec,
                           const clsort_tile_shape *s, cl_program *prog)
{
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, s->wg);
    clsort_opts_add(&opts, ITEMS, s->items);
    /* The radix sort's scans by warp shuffles (cl/common.cl) */
    clsort_opts_add_if(&opts, clsort_warp_ptx(ctx) && s->wg % 32 == 0, USE_PTX, 1);
    size_t bmax;
    if (radix_groups(ctx, spec, s, &bmax)) {
        clsort_opts_add(&opts, BITONIC_MAX, bmax);
        clsort_opts_add(&opts, RADIX, SEG_RADIX);
    }
    if (spec->value_size) {
        clsort_opts_add(&opts, HAS_VALUES, 1);
        clsort_opts_add_text(&opts, VALUE_T, spec->value_size == 8 ? "ulong" : "uint");
    }
    clsort_key_options(spec, &opts);
    const clsort_cl_part parts[] = { CLSORT_CL_PART(segments_tiles),
                                     CLSORT_CL_PART(segments_short) };
    clsort_status st = clsort_get_program_parts(ctx, "segments", parts, 2, &opts, prog);
    /* Held: the radix and scan programs fetched later may make the context drop its table. */
    if (st == CLSORT_OK)
        clRetainProgram(*prog);
    else
        *prog = NULL;
    return st;
}

/*
 * A whole array of at most one tile (4,096 u32 keys on the H100) sorted by seg_short as one segment,
 * in place, in one launch of one work-group: radix8 would take five launches (the histogram and a
 * pass per byte), each about 10 us on the H100 however few the keys. CLSORT_SINGLE_TILE_MAX caps
 * it (0: never), and enables it on CPU devices.
 */
int clsort_single_tile_fits(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    /* Not on CPU devices unless asked: a launch costs them little, and the program it needs besides
     * radix8's is one more to compile (seconds with PoCL) for each spec. */
    const long long set = ctx->settings.single_tile_max;
    if (set < 0 ? (ctx->type & CL_DEVICE_TYPE_CPU) != 0 : n > (size_t)set)
        return 0;
    clsort_tile_shape s;
    return short_shape(ctx, spec, &s) == CLSORT_OK && !(s.tile & (s.tile - 1)) && n <= s.tile;
}

clsort_status clsort_single_tile_enqueue(clsort_context *ctx, clsort_job *job)
{
    seg_sort g = { .n = job->n, .n_seg = 0 };
    clsort_status st = short_shape(ctx, job->spec, &g.s);
    if (st == CLSORT_OK)
        st = build_segments(ctx, job->spec, &g.s, &g.prog);
    /* The kernel reads neither the offsets nor the flag of a whole array: the keys stand in. */
    clsort_varseg v = { .offsets = job->keys };
    clsort_job one = *job;
    one.varseg = &v;
    v.state = &g;
    g.flag = job->keys;
    if (st == CLSORT_OK)
        st = sort_short_segments(ctx, &one, job->keys, job->spec->value_size ? job->values : NULL);
    if (g.prog)
        clReleaseProgram(g.prog);
    return st;
}

clsort_status clsort_segments_enqueue(clsort_context *ctx, clsort_job *job)
{
    clsort_varseg *v = job->varseg;
    seg_sort g = { .n = job->n, .n_seg = v->n_seg };
    if (short_shape(ctx, job->spec, &g.s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "sorting segments needs at least %zu bytes of local memory; %s has %llu",
                           clsort_tile_local_bytes(2, clsort_key_size(job->spec->key_type), 4),
                           ctx->display_name, (unsigned long long)ctx->local_mem);
    v->chains = clsort_radix8_varseg_chains(ctx, job->spec, job->n);
    g.tile_len = clsort_radix8_varseg_tile(ctx, job->spec, job->n);
    if (v->fixed) {
        fixed_counts(job->n, v->fixed, g.s.tile, g.tile_len, &v->tiles, &v->longs);
    } else {
        v->tiles = radix_tiles(v->host_offsets, v->n_seg, job->n, g.s.tile, g.tile_len);
        v->longs = long_segments(v->host_offsets, v->n_seg, job->n, g.s.tile);
    }
    g.no_short = none_short(v, job->n, g.s.tile);
    v->state = &g;
    v->short_sort = short_then_tiles;
    clsort_status st;
    if ((st = build_segments(ctx, job->spec, &g.s, &g.prog)) != CLSORT_OK ||
        (short_split(ctx, job->spec, &g.s, job->n, v->n_seg, &g.short_s) &&
         (st = build_segments(ctx, job->spec, &g.short_s, &g.short_prog)) != CLSORT_OK) ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_SEG_FLAG, sizeof(cl_uint), &g.flag,
                             "segment check flag")) != CLSORT_OK ||
        (st = clsort_scratch(ctx, CLSORT_SLOT_SEG_TABLE,
                             (3 * v->n_seg + 1 + windows(job->n, &g.s) + 1) * sizeof(cl_ulong),
                             &g.table, "segment table")) != CLSORT_OK ||
        (v->tiles && (st = clsort_scratch(ctx, CLSORT_SLOT_SEG_TILES,
                                          (v->tiles * CLSORT_VSEG_WORDS + 1) * sizeof(cl_ulong),
                                          &g.desc,
                                          "segment tiles")) != CLSORT_OK))
        goto done;
    v->desc = g.desc;
    if ((st = describe_check(ctx, v, &g)) != CLSORT_OK)
        goto done;
    /* Without long segments the short ones are the whole sort, in place. */
    st = v->tiles ? clsort_radix8_enqueue(ctx, job)
                  : sort_short_segments(ctx, job, job->keys,
                                        job->spec->value_size ? job->values : NULL);
done:
    v->state = NULL;
    v->desc = NULL;
    cl_mem ms[] = { g.flag, g.table, g.desc };
    clsort_release_mems(ms, 3);
    cl_program progs[] = { g.prog, g.short_prog };
    for (int i = 0; i < 2; i++)
        if (progs[i])
            clReleaseProgram(progs[i]);
    return st;
}

/*
 * Fixed segments sorted by radix8 where its long segments are look-back chains (NVIDIA GPUs): as
 * variable segments with offsets made on the device, so that segments of up to a local tile are
 * sorted in local memory in one launch and longer ones by the chains (1 + places launches), where
 * the fixed segments' reduce-then-scan passes take five launches a place over tiles of each
 * segment. radix8-rts by name keeps those passes.
 */
int clsort_segments_fixed_wanted(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    clsort_spec var = *spec;
    var.segment = 0;
    clsort_tile_shape s;
    return spec->segment && spec->segment < n && spec->algorithm != CLSORT_ALGO_RADIX8_RTS &&
           clsort_radix8_varseg_chains(ctx, &var, n) && short_shape(ctx, &var, &s) == CLSORT_OK;
}

clsort_status clsort_segments_fixed_enqueue(clsort_context *ctx, clsort_job *job)
{
    clsort_spec var = *job->spec;
    var.segment = 0;
    const cl_ulong seg = job->spec->segment, n = job->n, n_seg = (n + seg - 1) / seg;
    const size_t wg = ctx->tuning.scan.wg;
    clsort_tile_shape s;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    clsort_varseg v = { .n_seg = (size_t)n_seg, .fixed = (size_t)seg };
    clsort_status st = short_shape(ctx, &var, &s);
    if (st == CLSORT_OK &&
        (st = clsort_scratch(ctx, CLSORT_SLOT_SEG_OFFSETS, (n_seg + 1) * sizeof(cl_ulong),
                             &v.offsets, "fixed segment offsets")) == CLSORT_OK &&
        (st = build_segments(ctx, &var, &s, &prog)) == CLSORT_OK &&
        (st = clsort_create_kernel(ctx, prog, "seg_fixed_offsets", &k)) == CLSORT_OK &&
        (st = clsort_set_args(ctx, k, "seg_fixed_offsets", 4, ARG(v.offsets), ARG(n_seg), ARG(seg),
                              ARG(n))) == CLSORT_OK &&
        (st = clsort_launch(ctx, k, (n_seg + 1 + wg - 1) / wg * wg, wg)) == CLSORT_OK) {
        clsort_job j = *job;
        j.spec = &var;
        j.varseg = &v;
        st = clsort_segments_enqueue(ctx, &j);
        job->result_keys = j.result_keys;
        job->result_values = j.result_values;
    }
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    clsort_release_mems(&v.offsets, 1);
    return st;
}
