/*
 * Block bitonic sort (cl/bitonic.cl), in place, no scratch memory. Not stable.
 *
 * Each segment (the whole array when spec->segment is 0) is sorted as a block of P = 2^ceil(log2 S)
 * virtual positions whose tail past the segment's end acts as +infinity and is never touched.
 * bitonic_tile sorts blocks of up to one tile in local memory. When P exceeds the tile, each later
 * stage runs its large strides in global memory, up to F levels fused per pass, and its strides below
 * the tile in one local-memory pass.
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

clsort_status clsort_sort_shape(const clsort_context *ctx, const clsort_spec *spec, clsort_sort_shape_t *s)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size, bytes = ks + vs;
    s->wg = ctx->tuning.sort_wg;
    s->items = ctx->tuning.sort_items;
    /* Override for tuning runs: "WGxITEMS" (powers of two; items 4..32 for keys). */
    const char *env = getenv("CLSORT_SORT_TUNING");
    unsigned wg, items;
    if (env && sscanf(env, "%ux%u", &wg, &items) == 2 && wg && !(wg & (wg - 1)) && items >= 4 &&
        items <= 32 && !(items & (items - 1))) {
        s->wg = wg;
        s->items = items;
    }
    /* The items are tuned for 4-byte keys: wider positions (pairs, 8-byte keys) take more registers
     * and local memory each, so halve the items once past 4 bytes and again past 8; keep the group. */
    if (bytes > 4 && s->items > 4)
        s->items /= 2;
    if (bytes > 8 && s->items > 4)
        s->items /= 2;
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

clsort_status clsort_bitonic_enqueue(clsort_context *ctx, const clsort_job *job)
{
    const size_t vs = job->spec->value_size;
    const size_t seg = clsort_segment_length(job->spec, job->n);
    if (seg < 2)
        return CLSORT_OK;
    clsort_sort_shape_t s;
    if (clsort_sort_shape(ctx, job->spec, &s) != CLSORT_OK)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUITABLE,
                           "bitonic needs at least %zu bytes of local memory; %s has %llu",
                           local_bytes(4, clsort_key_size(job->spec->key_type), vs), ctx->display_name,
                           (unsigned long long)ctx->local_mem);
    const unsigned f = log2u(s.items), lt = log2u(s.tile);

    char opts[320];
    int olen = snprintf(opts, sizeof opts, "-DWG=%u -DITEMS=%u -DF=%u ", s.wg, s.items, f);
    clsort_sort_key_options(job->spec, opts + olen, sizeof opts - (size_t)olen);
    const char *src[] = { clsort_cl_common, clsort_cl_bitonic };
    const size_t len[] = { clsort_cl_common_len, clsort_cl_bitonic_len };
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "bitonic", src, len, 2, opts, &prog);
    if (st != CLSORT_OK)
        return st;

    const cl_ulong n = job->n, seg_len = seg;
    const cl_uint lp = log2u(seg), lb = lp < lt ? lp : lt;
    const cl_ulong nseg = (job->n + seg - 1) / seg;
    const size_t tiles = (size_t)((nseg << lp) + s.tile - 1) / s.tile;
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
    if (lp > lt) {
        if ((st = clsort_create_kernel(ctx, prog, "bitonic_merge_local", &local_k)) != CLSORT_OK ||
            (st = clsort_create_kernel(ctx, prog, "bitonic_merge_global", &global_k)) != CLSORT_OK)
            goto done;
        const cl_ulong groups = nseg << (lp - f);
        const size_t gwg = ctx->max_wg < 256 ? ctx->max_wg : 256, gsize = (size_t)((groups + gwg - 1) / gwg * gwg);
        for (cl_uint lk = lt + 1; lk <= lp; lk++) {
            /* lk - lt levels have strides of a tile or more; the remainder goes first. */
            const cl_uint levels = lk - lt;
            cl_uint count = levels % f ? levels % f : f;
            for (cl_uint first = 0; first < levels; first += count, count = f) {
                if ((st = SET_ARGS(global_k, "bitonic_merge_global", 4, ARG(lk), ARG(first), ARG(count),
                                   ARG(groups))) != CLSORT_OK ||
                    (st = clsort_launch(ctx, global_k, gsize, gwg)) != CLSORT_OK)
                    goto done;
            }
            if ((st = SET_ARGS(local_k, "bitonic_merge_local", 1, ARG(lk))) != CLSORT_OK ||
                (st = clsort_launch(ctx, local_k, tiles * s.wg, s.wg)) != CLSORT_OK)
                goto done;
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
