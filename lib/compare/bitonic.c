/*
 * Block bitonic sort (cl/bitonic.cl), in place, no scratch memory. Not stable.
 *
 * Each segment (the whole array when spec->segment is 0) is sorted as a block of P = 2^ceil(log2 S)
 * virtual positions whose tail past the segment's end acts as +infinity and is never touched.
 * bitonic_tile sorts blocks of up to one tile in registers and local memory. When P exceeds the tile,
 * each later stage runs its strides of a tile or more in passes over global memory, several levels
 * per pass: in registers (bitonic_merge_global, log2 of the register pass's elements per work-item)
 * or, where that fuses more, through a tile of local memory (bitonic_merge_wide); then its strides
 * below the tile in one pass (bitonic_merge_local). At 2^24 keys on an H100 the tile shape and
 * these passes took the sort from 2.61 ms to 1.66 ms.
 *
 * Keys arrive mapped to unsigned order bits (compare.c).
 * Calls: compare.c (shape, key options, mapping), keys.c, options.c, program.c, chain.c.
 */
#include "internal.h"

static unsigned log2u(size_t x)
{
    unsigned l = 0;
    while (((size_t)1 << l) < x)
        l++;
    return l;
}

/*
 * Levels per pass of bitonic_merge_wide, or 0 to run the large strides in registers
 * (bitonic_merge_global, f levels per pass). The wide pass keeps runs of 2^(lt - levels) consecutive
 * keys together; 32 of them (128 bytes of 4-byte keys) keep its accesses coalesced, so it takes up to
 * lt - 5 levels, where that beats the registers. The bitonic_wide setting (0 = never) overrides it.
 */
static unsigned wide_levels(const clsort_context *ctx, unsigned f, unsigned lt)
{
    if (ctx->settings.bitonic_wide_set) {
        const unsigned long v = ctx->settings.bitonic_wide;
        return v < lt ? (unsigned)v : lt;
    }
    return lt > 5 && lt - 5 > f ? lt - 5 : 0;
}

/* One bitonic sort's geometry: segments of 2^lp virtual positions, tiles of 2^lt. */
typedef struct bitonic_plan {
    clsort_tile_shape s;
    cl_mem keys, vals;
    cl_ulong n, seg_len, nseg;
    cl_uint lp, lt, gf;
    size_t tiles;
    cl_program prog;
} bitonic_plan;

static clsort_status build_bitonic(clsort_context *ctx, const clsort_job *job, bitonic_plan *p)
{
    const unsigned f = log2u(p->s.items);
    const int pos64 = (p->nseg << p->lp) > ((cl_ulong)1 << 31);
    /* GPUs keep a tile's elements in registers across its trades through local memory; CPU devices
     * keep private arrays that live across a barrier in memory, one copy per work-item, so there
     * every round goes back to local memory. The bitonic_carry setting overrides. */
    const int carry = ctx->settings.bitonic_carry >= 0 ? ctx->settings.bitonic_carry
                                                       : (ctx->type & CL_DEVICE_TYPE_GPU) != 0;
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, p->s.wg);
    clsort_opts_add(&opts, ITEMS, p->s.items);
    clsort_opts_add(&opts, F, f);
    clsort_opts_add(&opts, GF, p->gf);
    clsort_opts_add(&opts, POS64, pos64);
    clsort_opts_add(&opts, WHOLE, p->nseg == 1);
    clsort_opts_add(&opts, CARRY, carry);
    clsort_compare_key_options(job->spec, &opts);
    return clsort_get_program(ctx, "bitonic", clsort_cl_bitonic, clsort_cl_bitonic_len, &opts,
                              &p->prog);
}

/* The arguments every kernel starts with (keys, values, n, seg_len, lp); returns the next index. */
static clsort_status common_args(clsort_context *ctx, const bitonic_plan *p, cl_kernel k,
                                 const char *name, int *next)
{
    clsort_status st = clsort_set_data_args(ctx, k, name, 1, &p->keys, p->vals ? &p->vals : NULL,
                                            next);
    if (st == CLSORT_OK)
        st = clsort_set_args_at(ctx, k, name, *next, 3, ARG(p->n), ARG(p->seg_len), ARG(p->lp));
    *next += 3;
    return st;
}

/* The passes of the stages whose strides reach a tile or more: for each, its large strides in
 * register or wide passes, then its strides below the tile in one local pass. */
static clsort_status merge_stages(clsort_context *ctx, const bitonic_plan *p, cl_kernel local_k,
                                  cl_kernel global_k, unsigned wide)
{
    const size_t wg = p->s.wg, gwg = ctx->max_wg < 256 ? ctx->max_wg : 256;
    /* Work-items of bitonic_merge_global, each with a coset of 2^gf positions. */
    const cl_ulong groups = p->nseg << (p->lp - p->gf);
    const size_t gsize = (size_t)((groups + gwg - 1) / gwg * gwg);
    const cl_uint per_pass = wide ? wide : p->gf;
    const char *gname = wide ? "bitonic_merge_wide" : "bitonic_merge_global";
    int at;
    clsort_status st;
    if ((st = common_args(ctx, p, global_k, gname, &at)) != CLSORT_OK ||
        (st = common_args(ctx, p, local_k, "bitonic_merge_local", &at)) != CLSORT_OK)
        return st;
    for (cl_uint lk = p->lt + 1; lk <= p->lp; lk++) {
        /* lk - lt levels have strides of a tile or more; the remainder goes first. */
        const cl_uint levels = lk - p->lt;
        cl_uint count = levels % per_pass ? levels % per_pass : per_pass;
        for (cl_uint first = 0; first < levels; first += count, count = per_pass) {
            st = clsort_set_args_at(ctx, global_k, gname, at, 3, ARG(lk), ARG(first), ARG(count));
            if (st == CLSORT_OK && !wide)
                st = clsort_set_args_at(ctx, global_k, gname, at + 3, 1, ARG(groups));
            if (st != CLSORT_OK ||
                (st = wide ? clsort_launch(ctx, global_k, p->tiles * wg, wg)
                           : clsort_launch(ctx, global_k, gsize, gwg)) != CLSORT_OK)
                return st;
            clsort_profile_last(ctx, "bitonic", wide ? "wide" : "global", lk);
        }
        if ((st = clsort_set_args_at(ctx, local_k, "bitonic_merge_local", at, 1, ARG(lk))) !=
                CLSORT_OK ||
            (st = clsort_launch(ctx, local_k, p->tiles * wg, wg)) != CLSORT_OK)
            return st;
        clsort_profile_last(ctx, "bitonic", "local", lk);
    }
    return CLSORT_OK;
}

static clsort_status bitonic_sort(clsort_context *ctx, const clsort_job *job)
{
    const size_t seg = clsort_segment_length(job->spec, job->n);
    if (seg < 2)
        return CLSORT_OK;
    bitonic_plan p = { .keys = job->keys, .vals = job->spec->value_size ? job->values : NULL };
    if (clsort_tile_shape_for(ctx, job->spec, CLSORT_SHAPE_BITONIC, &p.s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "bitonic needs at least %zu bytes of local memory; %s has %llu",
                           clsort_tile_local_bytes(4, clsort_key_size(job->spec->key_type),
                                                   job->spec->value_size),
                           ctx->display_name, (unsigned long long)ctx->local_mem);
    p.lt = log2u(p.s.tile);
    p.n = job->n;
    p.seg_len = seg;
    p.lp = log2u(seg);
    p.nseg = (job->n + seg - 1) / seg;
    p.tiles = (size_t)((p.nseg << p.lp) + p.s.tile - 1) / p.s.tile;
    /* The register pass runs only where lp > lt, and needs lp >= gf. */
    p.gf = log2u(p.s.global_items);
    if (p.gf > p.lt + 1)
        p.gf = p.lt + 1;
    clsort_status st = build_bitonic(ctx, job, &p);
    if (st != CLSORT_OK)
        return st;

    const cl_uint lb = p.lp < p.lt ? p.lp : p.lt;
    const unsigned wide = wide_levels(ctx, p.gf, p.lt);
    cl_kernel tile_k = NULL, local_k = NULL, global_k = NULL;
    int at;
    if ((st = clsort_create_kernel(ctx, p.prog, "bitonic_tile", &tile_k)) != CLSORT_OK ||
        (st = common_args(ctx, &p, tile_k, "bitonic_tile", &at)) != CLSORT_OK ||
        (st = clsort_set_args_at(ctx, tile_k, "bitonic_tile", at, 1, ARG(lb))) != CLSORT_OK ||
        (st = clsort_launch(ctx, tile_k, p.tiles * p.s.wg, p.s.wg)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, "bitonic", "tile", 0);
    if (p.lp > p.lt &&
        ((st = clsort_create_kernel(ctx, p.prog, "bitonic_merge_local", &local_k)) != CLSORT_OK ||
         (st = clsort_create_kernel(ctx, p.prog,
                                    wide ? "bitonic_merge_wide" : "bitonic_merge_global",
                                    &global_k)) != CLSORT_OK ||
         (st = merge_stages(ctx, &p, local_k, global_k, wide)) != CLSORT_OK))
        goto done;

done:
    if (tile_k)
        clReleaseKernel(tile_k);
    if (local_k)
        clReleaseKernel(local_k);
    if (global_k)
        clReleaseKernel(global_k);
    return st;
}

clsort_status clsort_bitonic_enqueue(clsort_context *ctx, clsort_job *job)
{
    return clsort_compare_run(ctx, job, bitonic_sort);
}
