/*
 * Top-k: the first K records of the stable sort, by radix select (cl/top.cl) and a stable radix sort
 * of the K records found. The select counts the key digit places in one read of the input; while
 * each place's bucket holds every record (constant keys, a constant top) that is all it reads, and
 * the result is the first K records. Otherwise a pass per place reads the input filtered by the
 * prefix, skipped while the K-th record follows the smallest key's digits (the pass before counted
 * those places), until the K-th record's bucket is small enough to be copied to a candidate buffer
 * (uniform keys: the pass after the histogram); then only the candidates are read. Passes over the
 * index digits read only the index range still open. Every decision is made on the device, so
 * clsort_top_enqueue() never blocks. The records found are sorted by input index, then stably by key
 * (radix8), so that equal keys keep their input order; their values are then fetched by index.
 * Calls: radix.c and segments.c (the sorts of the K records), keys.c, options.c, program.c,
 * buffers.c, chain.c, dispatch.c (the spec's checks), api.c (the stats' last fields), status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define TOP_BINS 256
#define TOP_MAX_PLACES 12 /* 64 key bits and 32 index bits, 8 at a time: MAX_PLACES in cl/top.cl */
#define TOP_MAX_GROUPS 2048 /* MAX_GROUPS in cl/top.cl */
#define TOP_STATE_WORDS (32 + TOP_MAX_PLACES * TOP_BINS + 2 * TOP_MAX_GROUPS) /* S_WORDS */
#define TOP_GROUPS_PER_CU 8

/* A digit place of the select: width bits at shift, of the mapped key or of the index. */
typedef struct top_place {
    cl_uint shift, width, index;
} top_place;

typedef struct top_run {
    const clsort_spec *spec;
    size_t n, k, ks, vs, cap, groups, wg;
    top_place places[TOP_MAX_PLACES];
    unsigned n_places, index_bits, begin, end;
    cl_kernel init, hist, pass, pick, values;
    cl_mem cand_keys, cand_idx, idx, state;
} top_run;

/* Places from the most significant down over [lo, hi), 8 bits each, the last what is left. */
static void add_places(top_run *t, unsigned lo, unsigned hi, cl_uint index)
{
    while (hi > lo) {
        const unsigned w = hi - lo < 8 ? hi - lo : 8;
        hi -= w;
        t->places[t->n_places++] = (top_place){ hi, w, index };
    }
}

static void plan_top(const clsort_context *ctx, top_run *t)
{
    clsort_key_range(t->spec, &t->begin, &t->end);
    add_places(t, t->begin, t->end, 0);
    t->index_bits = 1;
    while (t->index_bits < 32 && ((size_t)1 << t->index_bits) < t->n)
        t->index_bits++;
    add_places(t, 0, t->index_bits, 1);
    /* Candidates copied once the K-th record's bucket holds at most a sixteenth of the input:
     * uniform keys get there after the first digit, skewed ones re-read the input meanwhile
     * (CLSORT_TOP_CAP sets the capacity, for tests). */
    const size_t cap = ctx->settings.top_cap ? ctx->settings.top_cap : t->n / 16 + 256;
    t->cap = cap < t->n ? cap : t->n;
    t->wg = ctx->tuning.scan.wg;
    const size_t tile = t->wg * ctx->tuning.scan.items;
    const size_t most = (size_t)ctx->compute_units * TOP_GROUPS_PER_CU;
    t->groups = (t->n + tile - 1) / tile;
    if (t->groups > most)
        t->groups = most ? most : 1;
    if (t->groups > TOP_MAX_GROUPS)
        t->groups = TOP_MAX_GROUPS;
}

static clsort_status prepare_top(clsort_context *ctx, top_run *t)
{
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, t->wg);
    clsort_opts_add(&opts, ITEMS, ctx->tuning.scan.items);
    clsort_key_options(t->spec, &opts);
    if (t->vs)
        clsort_opts_add_text(&opts, VALUE_T, t->vs == 8 ? "ulong" : "uint");
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "top", clsort_cl_top, clsort_cl_top_len, &opts, &prog);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "top_init", &t->init);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "top_hist", &t->hist);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "top_pass", &t->pass);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "top_pick", &t->pick);
    if (st == CLSORT_OK && t->vs)
        st = clsort_create_kernel(ctx, prog, "top_values", &t->values);
    if (st == CLSORT_OK)
        st = clsort_scratch(ctx, CLSORT_SLOT_TOP_CAND_KEYS, 2 * t->cap * t->ks, &t->cand_keys,
                            "top-k candidate keys");
    if (st == CLSORT_OK)
        st = clsort_scratch(ctx, CLSORT_SLOT_TOP_CAND_INDEX, 2 * t->cap * 4, &t->cand_idx,
                            "top-k candidate indices");
    if (st == CLSORT_OK)
        st = clsort_scratch(ctx, CLSORT_SLOT_TOP_INDEX, t->k * 4, &t->idx, "top-k indices");
    if (st == CLSORT_OK)
        st = clsort_scratch(ctx, CLSORT_SLOT_TOP_STATE, TOP_STATE_WORDS * 4, &t->state,
                            "top-k state");
    return st;
}

static void release(top_run *t)
{
    cl_kernel ks[] = { t->init, t->hist, t->pass, t->pick, t->values };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    cl_mem ms[] = { t->cand_keys, t->cand_idx, t->idx, t->state };
    clsort_release_mems(ms, sizeof ms / sizeof ms[0]);
}

/* Round r: the pick of place r, then the pass that applies it and counts the places after it. */
static clsort_status round_r(clsort_context *ctx, const top_run *t, cl_mem keys, cl_mem out_keys,
                             unsigned r)
{
    const cl_uint cap = (cl_uint)t->cap, n = (cl_uint)t->n, r32 = r;
    const cl_uint begin = t->begin, end = t->end, index_bits = t->index_bits;
    clsort_status st = clsort_set_args(ctx, t->pick, "top_pick", 7, ARG(t->state), ARG(cap),
                                       ARG(n), ARG(r32), ARG(begin), ARG(end), ARG(index_bits));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, t->pick, t->wg, t->wg);
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, t->pass, "top_pass", 11, ARG(keys), ARG(t->state),
                             ARG(t->cand_keys), ARG(t->cand_idx), ARG(cap), ARG(out_keys),
                             ARG(t->idx), ARG(r32), ARG(begin), ARG(end), ARG(index_bits));
    return st != CLSORT_OK ? st : clsort_launch(ctx, t->pass, t->groups * t->wg, t->wg);
}

/* The state reset and the histogram of every key place: the select's one full read. */
static clsort_status start(clsort_context *ctx, const top_run *t, cl_mem keys)
{
    const cl_uint k32 = (cl_uint)t->k, n32 = (cl_uint)t->n;
    const cl_ulong n = t->n;
    const cl_uint begin = t->begin, end = t->end;
    clsort_status st = clsort_set_args(ctx, t->init, "top_init", 3, ARG(t->state), ARG(k32),
                                       ARG(n32));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, t->init, t->wg, t->wg);
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, t->hist, "top_hist", 5, ARG(keys), ARG(n), ARG(t->state),
                             ARG(begin), ARG(end));
    return st != CLSORT_OK ? st : clsort_launch(ctx, t->hist, t->groups * t->wg, t->wg);
}

/* A stable sort of the K records: one work-group where they fit one. */
static clsort_status small_sort(clsort_context *ctx, clsort_job *j)
{
    return clsort_single_tile_fits(ctx, j->spec, j->n) ? clsort_single_tile_enqueue(ctx, j)
                                                       : clsort_radix8_enqueue(ctx, j);
}

/* The K records found, in no order, sorted: by index, then stably by key; values by index. */
static clsort_status sort_found(clsort_context *ctx, const top_run *t, cl_mem values, cl_mem out_keys,
                           cl_mem out_values)
{
    clsort_status st = CLSORT_OK;
    if (t->k > 1) {
        clsort_spec by_index, by_key = *t->spec;
        clsort_spec_default(&by_index);
        by_index.algorithm = CLSORT_ALGO_RADIX8;
        by_index.value_size = t->ks;
        by_index.end_bit = t->index_bits;
        clsort_job j1 = { .spec = &by_index, .keys = t->idx, .values = out_keys, .n = t->k,
                          .no_event = 1 };
        by_key.algorithm = CLSORT_ALGO_RADIX8;
        by_key.value_size = t->vs ? 4 : 0;
        by_key.segment = 0;
        clsort_job j2 = { .spec = &by_key, .keys = out_keys, .values = t->vs ? t->idx : NULL,
                          .n = t->k, .no_event = 1 };
        if ((st = small_sort(ctx, &j1)) != CLSORT_OK || (st = small_sort(ctx, &j2)) != CLSORT_OK)
            return st;
    }
    if (t->vs) {
        const cl_ulong k = t->k;
        st = clsort_set_args(ctx, t->values, "top_values", 4, ARG(values), ARG(t->idx),
                             ARG(out_values), ARG(k));
        if (st == CLSORT_OK)
            st = clsort_launch(ctx, t->values, (t->k + t->wg - 1) / t->wg * t->wg, t->wg);
    }
    return st;
}

/* The whole chain, after the chain's waits (clsort_chain_begin()). */
static clsort_status top_chain(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                               cl_mem values, size_t n, size_t k, cl_mem out_keys,
                               cl_mem out_values)
{
    top_run t = { .spec = spec, .n = n, .k = k, .ks = clsort_key_size(spec->key_type),
                  .vs = spec->value_size };
    plan_top(ctx, &t);
    clsort_status st = prepare_top(ctx, &t);
    if (st == CLSORT_OK)
        st = start(ctx, &t, keys);
    for (unsigned r = 0; r < t.n_places && st == CLSORT_OK; r++)
        st = round_r(ctx, &t, keys, out_keys, r);
    if (st == CLSORT_OK)
        st = sort_found(ctx, &t, values, out_keys, out_values);
    release(&t);
    return st;
}

/* The checks of both entries: the spec as a stable radix sort takes it, K within 1..n. */
static clsort_status check_top(clsort_context *ctx, const clsort_spec *spec, int has_values,
                               int has_out_values, size_t n, size_t k)
{
    clsort_spec s = *spec;
    s.algorithm = CLSORT_ALGO_RADIX8; /* the algorithm is the select's own */
    if (spec->segment)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "top-k takes whole arrays, not segments (segment = %zu)", spec->segment);
    clsort_status st = clsort_dispatch_check_spec(ctx, &s);
    if (st != CLSORT_OK)
        return st;
    if (clsort_float_numpy(spec))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "top-k selects in IEEE total order only (float_order %d, numpy's, is not "
                           "supported): sort in numpy's order and take the first k",
                           (int)spec->float_order);
    VALIDATE(ctx, spec->value_size == 0 || (has_values && has_out_values));
    if (k == 0 || k > n)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "top-k of %zu records: k is %zu, expected 1 <= k <= %zu", n, k, n);
    if (n > UINT32_MAX)
        return clsort_fail(ctx, CLSORT_ERROR_LIMIT,
                           "top-k takes at most %u records at once (indices are 32 bits); %zu given: "
                           "take the top k of parts, then of their results",
                           UINT32_MAX, n);
    const size_t ks = clsort_key_size(spec->key_type);
    const size_t widest = spec->value_size > ks ? spec->value_size : ks;
    if (n > ctx->max_alloc / widest)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu records need a buffer of %.3g GB; the largest buffer %s allows is "
                           "%.3g GB (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           n, (double)n * widest / 1e9, ctx->display_name,
                           (double)ctx->max_alloc / 1e9);
    return CLSORT_OK;
}

/* The chain's end as clsort_dispatch() makes it: an event where one is wanted. */
static clsort_status run_chain(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                               cl_mem values, size_t n, size_t k, cl_mem out_keys,
                               cl_mem out_values, cl_uint n_wait, const cl_event *wait, int no_event)
{
    clsort_chain_begin(ctx, n_wait, wait);
    clsort_status st = top_chain(ctx, spec, keys, values, n, k, out_keys, out_values);
    const int want_end = !no_event || ctx->out_of_order;
    if (st == CLSORT_OK && want_end)
        st = clsort_chain_settle(ctx);
    if (st == CLSORT_OK && want_end && !ctx->last_event)
        st = clsort_chain_marker(ctx);
    if (st != CLSORT_OK) {
        clFinish(ctx->queue);
        clsort_chain_drop(ctx);
    }
    return st;
}

clsort_status clsort_top_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                 cl_mem values, size_t n, size_t k, cl_mem out_keys,
                                 cl_mem out_values, cl_uint n_wait, const cl_event *wait,
                                 cl_event *done)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (done)
        *done = NULL;
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys && out_keys && keys != out_keys);
    VALIDATE(ctx, (wait != NULL) == (n_wait > 0) || (wait && n_wait == 0));
    VALIDATE(ctx, spec->value_size == 0 || values != out_values);
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    clsort_status st = check_top(ctx, spec, values != NULL, out_values != NULL, n, k);
    if (st != CLSORT_OK || (st = clsort_check_buffer(ctx, keys, "keys", n, ks)) != CLSORT_OK ||
        (st = clsort_check_buffer(ctx, values, "values", n, vs)) != CLSORT_OK ||
        (st = clsort_check_buffer(ctx, out_keys, "out_keys", k, ks)) != CLSORT_OK ||
        (st = clsort_check_buffer(ctx, out_values, "out_values", k, vs)) != CLSORT_OK)
        return st;
    /* (keys and values are only read: they may share a buffer) */
    const clsort_role roles[] = { { keys, "keys", n * ks, 0 }, { values, "values", n * vs, 0 },
                                  { out_keys, "out_keys", k * ks, 1 },
                                  { out_values, "out_values", k * vs, 1 } };
    if ((st = clsort_check_roles(ctx, "clsort_top_enqueue", roles, 4)) != CLSORT_OK)
        return st;
    st = run_chain(ctx, spec, keys, values, n, k, out_keys, out_values, n_wait, wait, !done);
    if (st != CLSORT_OK)
        return st;
    if (done) {
        *done = ctx->last_event;
        ctx->last_event = NULL;
    }
    clsort_chain_drop(ctx);
    return CLSORT_OK;
}

/* Host arrays: the inputs uploaded to the context's kept buffers, the K records read back. */
clsort_status clsort_top(clsort_context *ctx, const clsort_spec *spec, const void *keys,
                         const void *values, size_t n, size_t k, void *out_keys,
                         void *out_values, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys && out_keys);
    clsort_status st = check_top(ctx, spec, values != NULL, out_values != NULL, n, k);
    if (st != CLSORT_OK)
        return st;
    const unsigned built0 = ctx->programs_built, cached0 = ctx->programs_cached;
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    cl_mem buf[4] = { NULL };
    cl_event ev[4] = { NULL };
    cl_uint n_up = 0;
    static const clsort_slot slots[4] = { CLSORT_SLOT_KEYS, CLSORT_SLOT_VALUES,
                                          CLSORT_SLOT_TOP_OUT_KEYS, CLSORT_SLOT_TOP_OUT_VALUES };
    const size_t bytes[4] = { n * ks, n * vs, k * ks, k * vs };
    static const char *const what[4] = { "keys", "values", "top-k keys", "top-k values" };
    for (int i = 0; i < 4 && st == CLSORT_OK; i++)
        if (bytes[i])
            st = clsort_scratch(ctx, slots[i], bytes[i], &buf[i], what[i]);
    const void *in[2] = { keys, values };
    for (int i = 0; i < 2 && st == CLSORT_OK; i++) {
        if (!bytes[i])
            continue;
        cl_int err = clEnqueueWriteBuffer(ctx->queue, buf[i], CL_FALSE, 0, bytes[i], in[i], 0,
                                          NULL, &ev[n_up]);
        if (err != CL_SUCCESS)
            st = clsort_fail_cl(ctx, err, "clEnqueueWriteBuffer");
        else
            n_up++;
    }
    if (st == CLSORT_OK)
        st = run_chain(ctx, spec, buf[0], buf[1], n, k, buf[2], buf[3], n_up, ev, 0);
    double kernel_ms = 0;
    if (st == CLSORT_OK) {
        void *out[2] = { out_keys, out_values };
        cl_int err = CL_SUCCESS;
        for (int i = 0; i < 2 && err == CL_SUCCESS; i++)
            if (bytes[2 + i])
                err = clEnqueueReadBuffer(ctx->queue, buf[2 + i], CL_FALSE, 0, bytes[2 + i],
                                          out[i], 1, &ctx->last_event, &ev[2 + i]);
        if (err == CL_SUCCESS)
            err = clFinish(ctx->queue);
        if (err != CL_SUCCESS) {
            clFinish(ctx->queue);
            st = clsort_fail_cl(ctx, err, "reading the top-k records back");
        } else if (ctx->profiling) {
            kernel_ms = clsort_event_span_ms(ctx->first_event, ctx->last_event);
        }
        clsort_chain_drop(ctx);
    }
    if (st == CLSORT_OK && stats) {
        stats->n = n;
        stats->algorithm = "radix-select";
        stats->kernel_ms = kernel_ms;
        if (ctx->profiling) {
            stats->upload_ms = n_up ? clsort_event_span_ms(ev[0], ev[n_up - 1]) : 0;
            stats->download_ms = clsort_event_span_ms(ev[2], ev[vs ? 3 : 2]);
        }
        stats->programs_built = ctx->programs_built - built0;
        stats->programs_cached = ctx->programs_cached - cached0;
        clsort_stats_finish(stats, n, t0);
    }
    for (int i = 0; i < 4; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    clsort_release_mems(buf, 4);
    return st;
}
