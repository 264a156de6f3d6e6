/*
 * What the comparison sorts (bitonic.c, oddeven.c) share: the tile shape from the tuning table (and
 * the sort_tuning setting), their key options, and running them on keys mapped to unsigned order
 * bits. Both take keys of any type and order that way, 32 or 64 bits wide, compared within the bit
 * range only, with values of 0, 4 or 8 bytes.
 * Calls: keys.c, options.c.
 */
#include "internal.h"

size_t clsort_tile_local_bytes(size_t tile, size_t key_size, size_t value_size)
{
    return (tile + tile / 32) * (key_size + value_size);
}

/* The items are tuned for 4-byte keys: wider positions (pairs, 8-byte keys) take more registers and
 * local memory each, so halve them once past 4 bytes and again past 8 (not below floor). */
static unsigned per_bytes(unsigned items, size_t bytes, unsigned floor)
{
    if (bytes > 4 && items > floor)
        items /= 2;
    if (bytes > 8 && items > floor)
        items /= 2;
    return items;
}

clsort_status clsort_tile_shape_for(const clsort_context *ctx, const clsort_spec *spec,
                                    int family, clsort_tile_shape *s)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size, bytes = ks + vs;
    const clsort_tuning *t = &ctx->tuning;
    const clsort_settings *set = &ctx->settings;
    const int bitonic = family == CLSORT_SHAPE_BITONIC;
    s->wg = bitonic ? t->bitonic.wg : t->oddeven.wg;
    s->items = bitonic ? t->bitonic.items : t->oddeven.items;
    s->global_items = t->bitonic.global_items;
    if (family == CLSORT_SHAPE_SEG_SHORT) {
        s->wg = set->seg_short_set ? set->seg_short_wg : t->segments.short_wg;
        s->items = set->seg_short_set ? set->seg_short_items : t->segments.short_items;
        if (!s->wg || !s->items)
            return CLSORT_ERROR_UNSUPPORTED;
    } else if (set->sort_wg) { /* for tuning runs */
        s->wg = set->sort_wg;
        s->items = set->sort_items;
        s->global_items = set->sort_global_items;
    }
    s->items = per_bytes(s->items, bytes, 4);
    s->global_items = per_bytes(s->global_items, bytes, 2);
    while (s->wg > 1 && s->wg > ctx->max_wg)
        s->wg /= 2;
#define TOO_BIG (clsort_tile_local_bytes((size_t)s->wg * s->items, ks, vs) > ctx->local_mem)
    while (TOO_BIG && s->items > 4)
        s->items /= 2;
    while (TOO_BIG && s->wg > 1)
        s->wg /= 2;
#undef TOO_BIG
    s->tile = (size_t)s->wg * s->items;
    if (clsort_tile_local_bytes(s->tile, ks, vs) > ctx->local_mem)
        return CLSORT_ERROR_DEVICE_UNSUITABLE;
    return CLSORT_OK;
}

void clsort_compare_key_options(const clsort_spec *spec, clsort_opts *b)
{
    /* The keys arrive mapped to unsigned order bits, so the kernels' own key_to_bits must be the
     * identity: one program per key width and bit range, whatever the type and order. */
    clsort_spec mapped = *spec;
    mapped.key_type = clsort_key_width(spec->key_type) == 64 ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
    mapped.descending = 0;
    clsort_opts_add(b, HAS_VALUES, spec->value_size ? 1 : 0);
    clsort_opts_add_text(b, VALUE_T, spec->value_size == 8 ? "ulong" : "uint");
    clsort_key_options(&mapped, b);
}

clsort_status clsort_compare_run(clsort_context *ctx, const clsort_job *job,
                                 clsort_status (*sort)(clsort_context *, const clsort_job *))
{
    clsort_status st = clsort_keys_transform(ctx, job->spec, job->keys, job->n, 0);
    if (st == CLSORT_OK)
        st = sort(ctx, job);
    if (st == CLSORT_OK)
        st = clsort_keys_transform(ctx, job->spec, job->keys, job->n, 1);
    return st;
}
