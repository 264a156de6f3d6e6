/*
 * The reduce-then-scan chain of the radix sorts: per digit place a tile histogram (upsweep), a scan
 * of the digit-major table of tile counts, then the binning kernel (about 3n traffic per pass). It
 * needs no forward progress between work-groups, and sorts segments (tiles within segments). On CPU
 * devices its serial form runs one work-item per tile, walking its keys in order.
 * Calls: radix_shape.c, scan.c, buffers.c, program.c, chain.c.
 */
#include "radix.h"

typedef struct rts {
    size_t tiles;
    cl_ulong n, ntiles, seg_len, tile_len;
    cl_kernel up_k;
    const char *up_name;
    cl_mem offsets;
    clsort_scan scan;
} rts;

/* The serial form's scatter: (keys in, out, [values in, out], n, shift, offsets, tiles per segment,
 * segment length, tile length). */
static clsort_status serial_scatter_args(clsort_context *ctx, const radix_run *r, unsigned io,
                                         const rts *t, cl_uint shift)
{
    const cl_mem keys[2] = { r->keys[io & 1], r->keys[(io + 1) & 1] };
    const cl_mem vals[2] = { r->vals[io & 1], r->vals[(io + 1) & 1] };
    int at;
    clsort_status st = clsort_set_data_args(ctx, r->bin_k, r->bin_name, 2, keys,
                                            r->vs ? vals : NULL, &at);
    if (st == CLSORT_OK)
        st = clsort_set_args_at(ctx, r->bin_k, r->bin_name, at, 6, ARG(t->n), ARG(shift),
                                ARG(t->offsets), ARG(t->ntiles), ARG(t->seg_len),
                                ARG(t->tile_len));
    if (st == CLSORT_OK && r->job->varseg)
        st = clsort_set_args_at(ctx, r->bin_k, r->bin_name, at + 6, 1, ARG(r->job->varseg->desc));
    return st;
}

/* One digit place: tile counts, their scan, the binning. */
static clsort_status rts_pass(clsort_context *ctx, radix_run *r, rts *t, cl_uint place)
{
    const cl_uint shift = r->begin + place * r->digit_bits;
    const unsigned io = r->done_passes++;
    const size_t wg = r->s.wg, table = (size_t)r->bins * t->tiles;
    const cl_mem kin = r->keys[io & 1];
    clsort_status st;
    /* The serial kernels take the tile length last, but for the tiles of variable segments. */
    const int up_args = r->s.serial ? 7 : 6;
    if ((st = clsort_set_args(ctx, t->up_k, t->up_name, up_args, ARG(kin), ARG(t->n),
                              ARG(shift), ARG(t->offsets), ARG(t->ntiles), ARG(t->seg_len),
                              ARG(t->tile_len))) != CLSORT_OK ||
        (r->job->varseg &&
         (st = clsort_set_args_at(ctx, t->up_k, t->up_name, up_args, 1,
                                  ARG(r->job->varseg->desc))) != CLSORT_OK) ||
        (st = clsort_launch(ctx, t->up_k, t->tiles * wg, wg)) != CLSORT_OK)
        return st;
    clsort_profile_last(ctx, r->fam, "upsweep", place);
    /* Variable segments: the tiles in use, which segments.c leaves after the descriptions. */
    const clsort_varseg *v = r->job->varseg;
    if ((st = v ? clsort_scan_enqueue_limit(ctx, &t->scan, t->offsets, table, v->desc,
                                            (cl_ulong)v->tiles * CLSORT_VSEG_WORDS, r->bins)
                : clsort_scan_enqueue(ctx, &t->scan, t->offsets, table)) != CLSORT_OK)
        return st;
    if (r->s.serial) {
        st = serial_scatter_args(ctx, r, io, t, shift);
    } else {
        /* The look-back arguments are unused without look-back: any buffer and 0 will do. */
        const radix_bin_args a = { .n = t->n, .shift = shift, .status = t->offsets,
                                   .offsets = t->offsets, .ntiles = t->ntiles,
                                   .seg_len = t->seg_len };
        st = clsort_radix_bin_args(ctx, r, io, &a);
    }
    if (st != CLSORT_OK || (st = clsort_launch(ctx, r->bin_k, t->tiles * wg, wg)) != CLSORT_OK)
        return st;
    clsort_profile_last(ctx, r->fam, "bin", place);
    return CLSORT_OK;
}

clsort_status clsort_radix_rts(clsort_context *ctx, radix_run *r)
{
    size_t tps;
    rts t = { .n = r->job->n, .tile_len = r->s.tile,
              .up_name = r->s.serial ? "radix8_serial_count" : "radix8_upsweep" };
    t.tiles = clsort_radix_tiles(&r->s, r->job->spec, r->job->n, &tps);
    t.ntiles = tps;
    if (r->job->varseg) /* described tile by tile (segments.c) */
        t.tiles = r->job->varseg->tiles;
    t.seg_len = clsort_segment_length(r->job->spec, r->job->n);
    const size_t table = (size_t)r->bins * t.tiles;
    clsort_status st;
    if ((st = clsort_create_kernel(ctx, r->prog, t.up_name, &t.up_k)) == CLSORT_OK &&
        (st = clsort_scratch(ctx, CLSORT_SLOT_OFFSETS, table * sizeof(cl_ulong), &t.offsets,
                             "radix8 tile counts")) == CLSORT_OK &&
        (st = clsort_scan_init(ctx, &t.scan, table)) == CLSORT_OK)
        for (cl_uint place = 0; place < r->places && st == CLSORT_OK; place++)
            st = rts_pass(ctx, r, &t, place);
    clsort_scan_release(&t.scan);
    if (t.up_k)
        clReleaseKernel(t.up_k);
    if (t.offsets)
        clReleaseMemObject(t.offsets);
    return st;
}
