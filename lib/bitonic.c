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
 * Both comparison sorts (this and oddeven) take keys of any type and order as unsigned order bits
 * (sort.c maps them before and back after), 32 or 64 bits wide, compared within the bit range only,
 * with values of 0, 4 or 8 bytes.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Local memory of one tile: keys (and values) with one spare word per 32. */
static size_t local_bytes(size_t tile, size_t key_size, size_t value_size)
{
    return (tile + tile / 32) * (key_size + value_size);
}

static unsigned log2u(size_t x)
{
    unsigned l = 0;
    while (((size_t)1 << l) < x)
        l++;
    return l;
}

clsort_status clsort_sort_shape(const clsort_context *ctx, const clsort_spec *spec, int bitonic,
                                clsort_sort_shape_t *s)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size, bytes = ks + vs;
    const clsort_tuning *t = &ctx->tuning;
    s->wg = bitonic ? t->bitonic_wg : t->sort_wg;
    s->items = bitonic ? t->bitonic_items : t->sort_items;
    s->global_items = t->bitonic_global_items;
    /* Override for tuning runs: "WGxITEMS[xGLOBAL_ITEMS]" (powers of two; items 4..64 for keys,
     * global items 2..64). */
    const char *env = getenv("CLSORT_SORT_TUNING");
    unsigned wg, items, gitems;
    const int got = env ? sscanf(env, "%ux%ux%u", &wg, &items, &gitems) : 0;
    if (got >= 2 && wg && !(wg & (wg - 1)) && items >= 4 && items <= 64 && !(items & (items - 1))) {
        s->wg = wg;
        s->items = items;
        s->global_items = items;
        if (got == 3 && gitems >= 2 && gitems <= 64 && !(gitems & (gitems - 1)))
            s->global_items = gitems;
    }
    /* The items are tuned for 4-byte keys: wider positions (pairs, 8-byte keys) take more registers
     * and local memory each, so halve the items once past 4 bytes and again past 8; keep the group. */
    if (bytes > 4 && s->items > 4)
        s->items /= 2;
    if (bytes > 8 && s->items > 4)
        s->items /= 2;
    if (bytes > 4 && s->global_items > 2)
        s->global_items /= 2;
    if (bytes > 8 && s->global_items > 2)
        s->global_items /= 2;
    while (s->wg > 1 && s->wg > ctx->max_wg)
        s->wg /= 2;
    while (local_bytes((size_t)s->wg * s->items, ks, vs) > ctx->local_mem && s->items > 4)
        s->items /= 2;
    while (local_bytes((size_t)s->wg * s->items, ks, vs) > ctx->local_mem && s->wg > 1)
        s->wg /= 2;
    s->tile = (size_t)s->wg * s->items;
    if (local_bytes(s->tile, ks, vs) > ctx->local_mem)
        return CLSORT_ERROR_DEVICE_UNSUITABLE;
    return CLSORT_OK;
}

int clsort_sort_key_options(const clsort_spec *spec, char *buf, size_t size)
{
    /* The keys arrive mapped to unsigned order bits, so the kernels' own key_to_bits must be the
     * identity: one program per key width and bit range, whatever the type and order. */
    clsort_spec mapped = *spec;
    mapped.key_type = clsort_key_width(spec->key_type) == 64 ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
    mapped.descending = 0;
    int len = snprintf(buf, size, "-DHAS_VALUES=%d -DVALUE_T=%s ", spec->value_size ? 1 : 0,
                       spec->value_size == 8 ? "ulong" : "uint");
    if (len < 0 || (size_t)len >= size)
        return len;
    return len + clsort_key_options(&mapped, buf + len, size - (size_t)len);
}

/* Segment length, or n for a whole array. */
size_t clsort_segment_length(const clsort_spec *spec, size_t n)
{
    return spec->segment && spec->segment < n ? spec->segment : n;
}

/*
 * Levels per pass of bitonic_merge_wide, or 0 to run the large strides in registers
 * (bitonic_merge_global, f levels per pass). The wide pass keeps runs of 2^(lt - levels) consecutive
 * keys together; 32 of them (128 bytes of 4-byte keys) keep its accesses coalesced, so it takes up to
 * lt - 5 levels, where that beats the registers. CLSORT_BITONIC_WIDE=N (0 = never) overrides it.
 */
static unsigned wide_levels(unsigned f, unsigned lt)
{
    const char *env = getenv("CLSORT_BITONIC_WIDE");
    if (env && *env) {
        const unsigned long v = strtoul(env, NULL, 10);
        return v < lt ? (unsigned)v : lt;
    }
    return lt > 5 && lt - 5 > f ? lt - 5 : 0;
}

clsort_status clsort_bitonic_enqueue(clsort_context *ctx, const clsort_job *job)
{
    const size_t vs = job->spec->value_size;
    const size_t seg = clsort_segment_length(job->spec, job->n);
    if (seg < 2)
        return CLSORT_OK;
    clsort_sort_shape_t s;
    if (clsort_sort_shape(ctx, job->spec, 1, &s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "bitonic needs at least %zu bytes of local memory; %s has %llu",
                           local_bytes(4, clsort_key_size(job->spec->key_type), vs), ctx->display_name,
                           (unsigned long long)ctx->local_mem);
    const unsigned f = log2u(s.items), lt = log2u(s.tile);
    const cl_ulong n = job->n, seg_len = seg;
    const cl_uint lp = log2u(seg), lb = lp < lt ? lp : lt;
    const cl_ulong nseg = (job->n + seg - 1) / seg;
    const size_t tiles = (size_t)((nseg << lp) + s.tile - 1) / s.tile;
    /* The register pass runs only where lp > lt, and needs lp >= gf. */
    unsigned gf = log2u(s.global_items);
    if (gf > lt + 1)
        gf = lt + 1;
    const int pos64 = (nseg << lp) > ((cl_ulong)1 << 31);
    /* GPUs keep a tile's elements in registers across its trades through local memory; CPU devices
     * keep private arrays that live across a barrier in memory, one copy per work-item, so there
     * every round goes back to local memory. CLSORT_BITONIC_CARRY=0|1 overrides. */
    const char *carry_env = getenv("CLSORT_BITONIC_CARRY");
    const int carry =
        carry_env && *carry_env ? atoi(carry_env) != 0 : (ctx->type & CL_DEVICE_TYPE_GPU) != 0;

    char opts[320];
    int olen = snprintf(opts, sizeof opts,
                        "-DWG=%u -DITEMS=%u -DF=%u -DGF=%u -DPOS64=%d -DWHOLE=%d -DCARRY=%d ", s.wg,
                        s.items, f, gf, pos64, nseg == 1, carry);
    clsort_sort_key_options(job->spec, opts + olen, sizeof opts - (size_t)olen);
    const char *src[] = { clsort_cl_common, clsort_cl_bitonic };
    const size_t len[] = { clsort_cl_common_len, clsort_cl_bitonic_len };
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "bitonic", src, len, 2, opts, &prog);
    if (st != CLSORT_OK)
        return st;

    cl_kernel tile_k = NULL, local_k = NULL, global_k = NULL;
    const cl_mem keys = job->keys, vals = job->values;

    /* The arguments every kernel starts with, then `extra` more. */
#define SET_ARGS(k, name, extra, ...)                                                                \
    (vs ? clsort_set_args(ctx, k, name, 5 + (extra), ARG(keys), ARG(vals), ARG(n), ARG(seg_len),     \
                          ARG(lp), __VA_ARGS__)                                                      \
        : clsort_set_args(ctx, k, name, 4 + (extra), ARG(keys), ARG(n), ARG(seg_len), ARG(lp),       \
                          __VA_ARGS__))
    if ((st = clsort_create_kernel(ctx, prog, "bitonic_tile", &tile_k)) != CLSORT_OK ||
        (st = SET_ARGS(tile_k, "bitonic_tile", 1, ARG(lb))) != CLSORT_OK ||
        (st = clsort_launch(ctx, tile_k, tiles * s.wg, s.wg)) != CLSORT_OK)
        goto done;
    clsort_profile_last(ctx, "bitonic", "tile", 0);
    if (lp > lt) {
        const unsigned wide = wide_levels(gf, lt);
        if ((st = clsort_create_kernel(ctx, prog, "bitonic_merge_local", &local_k)) != CLSORT_OK ||
            (st = clsort_create_kernel(ctx, prog, wide ? "bitonic_merge_wide" : "bitonic_merge_global",
                                       &global_k)) != CLSORT_OK)
            goto done;
        /* Work-items of bitonic_merge_global, each with a coset of 2^gf positions. */
        const cl_ulong groups = nseg << (lp - gf);
        const size_t gwg = ctx->max_wg < 256 ? ctx->max_wg : 256;
        const size_t gsize = (size_t)((groups + gwg - 1) / gwg * gwg);
        const cl_uint per_pass = wide ? wide : gf;
        for (cl_uint lk = lt + 1; lk <= lp; lk++) {
            /* lk - lt levels have strides of a tile or more; the remainder goes first. */
            const cl_uint levels = lk - lt;
            cl_uint count = levels % per_pass ? levels % per_pass : per_pass;
            for (cl_uint first = 0; first < levels; first += count, count = per_pass) {
                if (wide)
                    st = SET_ARGS(global_k, "bitonic_merge_wide", 3, ARG(lk), ARG(first), ARG(count));
                else
                    st = SET_ARGS(global_k, "bitonic_merge_global", 4, ARG(lk), ARG(first), ARG(count),
                                  ARG(groups));
                if (st != CLSORT_OK ||
                    (st = wide ? clsort_launch(ctx, global_k, tiles * s.wg, s.wg)
                               : clsort_launch(ctx, global_k, gsize, gwg)) != CLSORT_OK)
                    goto done;
                clsort_profile_last(ctx, "bitonic", wide ? "wide" : "global", lk);
            }
            if ((st = SET_ARGS(local_k, "bitonic_merge_local", 1, ARG(lk))) != CLSORT_OK ||
                (st = clsort_launch(ctx, local_k, tiles * s.wg, s.wg)) != CLSORT_OK)
                goto done;
            clsort_profile_last(ctx, "bitonic", "local", lk);
        }
    }
#undef SET_ARGS

done:
    if (tile_k)
        clReleaseKernel(tile_k);
    if (local_k)
        clReleaseKernel(local_k);
    if (global_k)
        clReleaseKernel(global_k);
    return st;
}
