/*
 * Entry points that sort: argument validation, the choice between one device run and chunks, and
 * statistics. Nothing algorithmic: the checks and the work are dispatch's and the host runs'.
 * Calls: chunk.c, run.c, dispatch.c, chain.c (the caller's done event), status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The checks every sort makes before any work: the spec, then the limits on n. */
static clsort_status check_sort(clsort_context *ctx, const clsort_spec *spec, const void *values,
                           size_t n)
{
    clsort_status st = clsort_dispatch_check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    VALIDATE(ctx, spec->value_size == 0 || values || n == 0);
    const size_t per_key = clsort_key_size(spec->key_type) + spec->value_size;
    if (n > SIZE_MAX / per_key)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu keys of %zu bytes (values included) are more bytes than the "
                           "address space holds (SIZE_MAX)", n, per_key);
    return clsort_dispatch_check_limits(ctx, spec, n);
}

clsort_status clsort_check_buffer(clsort_context *ctx, cl_mem m, const char *what, size_t count,
                                  size_t size)
{
    if (!m || count == 0 || size == 0)
        return CLSORT_OK;
    size_t bytes = 0;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, (clsort_status)err,
                           "clGetMemObjectInfo(%s buffer, CL_MEM_SIZE) failed: %s (%d)", what,
                           clsort_status_string((clsort_status)err), (int)err);
    if (count <= bytes / size)
        return CLSORT_OK;
    if (count > SIZE_MAX / size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "the %s buffer holds %zu bytes; %zu %s of %zu bytes need more than "
                           "SIZE_MAX", what, bytes, count, what, size);
    return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                       "the %s buffer holds %zu bytes; %zu %s of %zu bytes need %zu", what, bytes,
                       count, what, size, count * size);
}

/* Where a buffer's bytes are: a CL_MEM_USE_HOST_PTR buffer's in host memory (space NULL), another's
 * in its parent's, or its own when it is no sub-buffer; start is the first byte there. */
typedef struct mem_place {
    const void *space;
    uintptr_t start;
} mem_place;

static cl_int mem_place_of(cl_mem m, mem_place *p)
{
    cl_mem parent = NULL;
    cl_mem_flags flags = 0;
    cl_int err;
    if ((err = clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL)) !=
            CL_SUCCESS ||
        (err = clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, NULL)) != CL_SUCCESS)
        return err;
    *p = (mem_place){ m, 0 };
    if (flags & CL_MEM_USE_HOST_PTR) {
        void *host = NULL;
        if ((err = clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host, &host, NULL)) != CL_SUCCESS)
            return err;
        *p = (mem_place){ NULL, (uintptr_t)host };
    } else if (parent) {
        size_t offset = 0;
        if ((err = clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof offset, &offset, NULL)) != CL_SUCCESS)
            return err;
        *p = (mem_place){ parent, offset };
    }
    return CL_SUCCESS;
}

clsort_status clsort_check_roles(clsort_context *ctx, const char *fn, const clsort_role *roles,
                                 int count)
{
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++) {
            const clsort_role *a = &roles[i], *b = &roles[j];
            if (!a->m || !b->m || !a->bytes || !b->bytes || !(a->written || b->written))
                continue;
            const char *how = "are the same buffer";
            if (a->m != b->m) {
                mem_place pa, pb;
                cl_int err;
                if ((err = mem_place_of(a->m, &pa)) != CL_SUCCESS ||
                    (err = mem_place_of(b->m, &pb)) != CL_SUCCESS)
                    return clsort_fail(ctx, (clsort_status)err,
                                       "%s: clGetMemObjectInfo of the %s or %s buffer failed: %s (%d)",
                                       fn, a->name, b->name, clsort_status_string((clsort_status)err),
                                       (int)err);
                if (pa.space != pb.space || pa.start >= pb.start + b->bytes ||
                    pb.start >= pa.start + a->bytes)
                    continue;
                how = pa.space ? "overlap (sub-buffers of one buffer)"
                               : "overlap (CL_MEM_USE_HOST_PTR over the same host memory)";
            }
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "%s: the %s and %s buffers %s; the call writes %s, so each role "
                               "needs memory of its own",
                               fn, a->name, b->name, how,
                               a->written && b->written ? "both"
                               : a->written            ? a->name
                                                       : b->name);
        }
    return CLSORT_OK;
}

/* The caller's device buffers of a call that sorts n keys in place, with values of
 * spec->value_size bytes (named vname: "values", or "index" for an argsort): each large enough, and
 * none that the call writes sharing memory with another. offsets (segments: n_offsets of them,
 * only read) joins the check of shared memory where given. fn names the call in the messages. */
static clsort_status check_device_buffers(clsort_context *ctx, const char *fn,
                                          const clsort_spec *spec, cl_mem keys, cl_mem values,
                                          const char *vname, size_t n, cl_mem offsets,
                                          size_t n_offsets)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    clsort_status st;
    if ((st = clsort_check_buffer(ctx, keys, "keys", n, ks)) != CLSORT_OK ||
        (st = clsort_check_buffer(ctx, values, vname, n, vs)) != CLSORT_OK)
        return st;
    const clsort_role roles[] = {
        { keys, "keys", n * ks, 1 },
        { values, vname, n * vs, 1 },
        { offsets, "offsets", n_offsets * sizeof(cl_ulong), 0 },
    };
    return clsort_check_roles(ctx, fn, roles, offsets ? 3 : 2);
}

clsort_status clsort_max_keys(clsort_context *ctx, const clsort_spec *spec, size_t *max_n)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    VALIDATE(ctx, ctx && max_n);
    clsort_status st = clsort_dispatch_check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    size_t n = 0;
    clsort_dispatch_max_fit(ctx, spec, &n);
    clsort_clear_detail(ctx);
    *max_n = n;
    return CLSORT_OK;
}

clsort_status clsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys, cl_mem values,
                             size_t n, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    return clsort_enqueue_kept(ctx, spec, keys, values, n, n_wait, wait, done);
}

/* The job's commands enqueued after the caller's events; done receives the chain's end. */
static clsort_status enqueue_job(clsort_context *ctx, clsort_job *job, cl_uint n_wait,
                                 const cl_event *wait, cl_event *done)
{
    job->no_start = 1;
    clsort_status st = clsort_dispatch(ctx, job, n_wait, wait);
    if (st != CLSORT_OK)
        return st;
    if (done) {
        *done = ctx->last_event;
        ctx->last_event = NULL;
    }
    clsort_chain_drop(ctx);
    return CLSORT_OK;
}

clsort_status clsort_enqueue_kept(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                  cl_mem values, size_t n, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (done)
        *done = NULL;
    VALIDATE(ctx, keys || n == 0);
    VALIDATE(ctx, (wait != NULL) == (n_wait > 0) || (wait && n_wait == 0));
    clsort_status st;
    if ((st = check_sort(ctx, spec, values, n)) != CLSORT_OK ||
        (st = clsort_dispatch_check_fits(ctx, spec, n, 0)) != CLSORT_OK ||
        (st = check_device_buffers(ctx, "clsort_enqueue", spec, keys, values, "values", n, NULL,
                                   0)) != CLSORT_OK)
        return st;
    /* The caller's buffers: the result ends in them (no swap), and nothing may block. */
    clsort_job job = { .spec = spec, .keys = keys, .values = values, .n = n, .no_event = !done };
    return enqueue_job(ctx, &job, n_wait, wait, done);
}

static clsort_status chunk_for(clsort_context *ctx, const clsort_spec *spec, size_t n,
                               size_t *chunk);

/* A device that compiles each kernel when it first launches (PoCL) would do so in the first timed
 * sort: sort up to 2^16 keys of varied bits (equal keys would skip the radix passes; fewer for
 * odd-even, enough for its kernels) with the same spec once, so that the kernels a sort of n keys
 * launches are compiled now. */
static clsort_status warm_up(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const size_t most = clsort_dispatch_warm_n(ctx, spec);
    const size_t m = n < most ? n : most, ks = clsort_key_size(spec->key_type);
    if (m < 2)
        return CLSORT_OK;
    unsigned char *k = malloc(m * ks), *v = spec->value_size ? calloc(m, spec->value_size) : NULL;
    clsort_status st = CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    if (k && (v || !spec->value_size)) {
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < m * ks; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k[i] = (unsigned char)(x >> 24);
        }
        st = clsort_run_host(ctx, spec, k, v, m, NULL);
    }
    free(k);
    free(v);
    return st == CLSORT_ERROR_OUT_OF_HOST_MEMORY ? clsort_fail(ctx, st, "out of host memory") : st;
}

clsort_status clsort_reserve(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    size_t chunk;
    clsort_status st;
    /* values: a sort of these would be given some; their buffer is the context's own here */
    if ((st = check_sort(ctx, spec, ctx, n)) != CLSORT_OK ||
        (st = chunk_for(ctx, spec, n, &chunk)) != CLSORT_OK)
        return st;
    if ((st = clsort_run_reserve(ctx, spec, chunk ? chunk : n)) != CLSORT_OK)
        return st;
    return ctx->launch_compiles ? warm_up(ctx, spec, n) : CLSORT_OK;
}

void clsort_release_scratch(clsort_context *ctx)
{
    if (ctx) {
        clsort_scratch_release(ctx);
        clsort_transfer_release(ctx);
    }
}

void clsort_scratch_info(const clsort_context *ctx, size_t *kept_bytes, unsigned long *allocations)
{
    size_t kept = 0;
    for (int i = 0; ctx && i < CLSORT_SLOTS; i++)
        kept += ctx->scratch_bytes[i];
    if (kept_bytes)
        *kept_bytes = kept;
    if (allocations)
        *allocations = ctx ? ctx->allocations : 0;
}

/* The host's physical memory in bytes, or SIZE_MAX when the system does not say. */
static size_t host_memory(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || (unsigned long)pages > SIZE_MAX / (unsigned long)page)
        return SIZE_MAX;
    return (size_t)pages * (size_t)page;
}

/* More than the device takes at once (or than the chunk_keys setting, for tests): the run length
 * that fits, else 0 for one run. Segments are left to the device. Chunks are sorted in a host copy
 * of the input (chunk.c): one that physical memory cannot hold is refused here, before anything is
 * allocated, by clsort_sort() and clsort_reserve() alike. */
static clsort_status chunk_for(clsort_context *ctx, const clsort_spec *spec, size_t n,
                               size_t *chunk)
{
    *chunk = ctx->settings.chunk_keys;
    clsort_status st = clsort_dispatch_check_fits(ctx, spec, n, 1);
    if (st != CLSORT_OK) {
        if (st != CLSORT_ERROR_TOO_LARGE || spec->segment || n < 2 ||
            !clsort_dispatch_max_fit(ctx, spec, chunk))
            return st;
        clsort_clear_detail(ctx);
    }
    if (!(*chunk >= 2 && *chunk < n && !spec->segment)) {
        *chunk = 0;
        return CLSORT_OK;
    }
    const size_t per_key = clsort_key_size(spec->key_type) + spec->value_size, host = host_memory();
    if (n > host / per_key) /* (check_sort has made sure that n * per_key fits a size_t) */
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu keys of %zu bytes (values included) are more than one device sort "
                           "of %s takes (%zu): they would be sorted in chunks in a host copy of "
                           "%.4g GB, and the host has %.4g GB of physical memory",
                           n, per_key, ctx->display_name, *chunk, (double)n * per_key / 1e9,
                           (double)host / 1e9);
    return CLSORT_OK;
}

/* clsort_sort() (copy 0: the arrays sorted where they are) and clsort_sort_copy() (copy 1: the
 * records at in_keys and in_values sorted into keys and values). */
static clsort_status sort_host(clsort_context *ctx, const clsort_spec *spec, int copy,
                               const void *in_keys, const void *in_values, void *keys,
                               void *values, size_t n, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys || n == 0);
    VALIDATE(ctx, !copy || in_keys || n == 0);
    VALIDATE(ctx, !copy || spec->value_size == 0 || in_values || n == 0);
    size_t chunk;
    clsort_status st;
    if ((st = check_sort(ctx, spec, values, n)) != CLSORT_OK ||
        (st = chunk_for(ctx, spec, n, &chunk)) != CLSORT_OK)
        return st;
    if (chunk) { /* sorted in place, after a copy */
        if (copy && in_keys != keys)
            memcpy(keys, in_keys, n * clsort_key_size(spec->key_type));
        if (copy && spec->value_size && in_values != values)
            memcpy(values, in_values, n * spec->value_size);
        st = clsort_sort_chunked(ctx, spec, keys, values, n, chunk, stats);
    } else {
        st = copy ? clsort_run_host_from(ctx, spec, in_keys, in_values, keys, values, n, stats)
                  : clsort_run_host(ctx, spec, keys, values, n, stats);
    }
    if (stats && st == CLSORT_OK) {
        stats->total_ms = clsort_now_ms() - t0;
        /* Chunks: kernel time only (the host merge is not the device's). */
        const double ms = chunk || stats->kernel_ms > 0 ? stats->kernel_ms : stats->total_ms;
        stats->gkeys_per_s = n && ms > 0 ? (double)n / (ms * 1e6) : 0.0;
    }
    return st;
}

clsort_status clsort_sort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                          size_t n, clsort_stats *stats)
{
    return sort_host(ctx, spec, 0, NULL, NULL, keys, values, n, stats);
}

clsort_status clsort_sort_copy(clsort_context *ctx, const clsort_spec *spec, const void *in_keys,
                               const void *in_values, void *keys, void *values, size_t n,
                               clsort_stats *stats)
{
    return sort_host(ctx, spec, 1, in_keys, in_values, keys, values, n, stats);
}

/* What an argsort asks: keys alone in the spec (the positions are the values), positions of 4 bytes
 * (n up to 2^32) or 8, and a stable algorithm: the positions of equal keys are the order the sort
 * left them in, and an unstable one leaves them in any order. */
static clsort_status check_argsort(clsort_context *ctx, const clsort_spec *spec, size_t index_size,
                                   size_t n)
{
    if (spec->value_size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "argsort: the positions are the values, so spec->value_size must be 0, "
                           "not %zu",
                           spec->value_size);
    if (index_size != 4 && index_size != 8)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "argsort: index_size must be 4 or 8 bytes, not %zu", index_size);
    if (index_size == 4 && (uint64_t)n > ((uint64_t)1 << 32))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "argsort: %zu keys have positions past 2^32 - 1: index_size 8 holds them",
                           n);
    clsort_spec s = *spec; /* (as sorted: the positions are its values, which auto heeds) */
    s.value_size = index_size;
    if (clsort_algorithm_name(s.algorithm) && !clsort_dispatch_stable(ctx, &s))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "argsort: %s is not stable, so equal keys' positions would come out in "
                           "any order: use a stable algorithm (" CLSORT_STABLE_NAMES ")",
                           clsort_algorithm_name(s.algorithm));
    return CLSORT_OK;
}

clsort_status clsort_argsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                     cl_mem index, size_t index_size, size_t n, cl_uint n_wait,
                                     const cl_event *wait, cl_event *done)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (done)
        *done = NULL;
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, (keys && index) || n == 0);
    VALIDATE(ctx, (wait != NULL) == (n_wait > 0) || (wait && n_wait == 0));
    clsort_status st = check_argsort(ctx, spec, index_size, n);
    if (st != CLSORT_OK)
        return st;
    clsort_spec s = *spec;
    s.value_size = index_size;
    if ((st = check_sort(ctx, &s, index, n)) != CLSORT_OK ||
        (st = clsort_dispatch_check_fits(ctx, &s, n, 0)) != CLSORT_OK ||
        (st = check_device_buffers(ctx, "clsort_argsort_enqueue", &s, keys, index, "index", n,
                                   NULL, 0)) != CLSORT_OK)
        return st;
    clsort_job job = { .spec = &s, .keys = keys, .values = index, .n = n, .no_event = !done,
                       .index_values = 1 };
    return enqueue_job(ctx, &job, n_wait, wait, done);
}

clsort_status clsort_argsort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *index,
                             size_t index_size, size_t n, clsort_stats *stats)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, (keys && index) || n == 0);
    clsort_status st = check_argsort(ctx, spec, index_size, n);
    if (st != CLSORT_OK)
        return st;
    /* The host's positions go with the keys: one path for every size (chunks included). */
    clsort_host_positions(index, index_size, n);
    clsort_spec s = *spec;
    s.value_size = index_size;
    return clsort_sort(ctx, &s, keys, index, n, stats);
}

/* The checks of both segment entries before any work; offsets on the host are checked whole. */
static clsort_status check_segments(clsort_context *ctx, const clsort_spec *spec,
                                    const void *values, size_t n, size_t n_seg, int with_data)
{
    clsort_status st = check_sort(ctx, spec, values, n);
    if (st == CLSORT_OK)
        st = clsort_dispatch_check_segments(ctx, spec, n, n_seg, with_data);
    return st;
}

clsort_status clsort_sort_segments(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                   void *values, size_t n, const uint64_t *offsets, size_t n_seg,
                                   clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys || n == 0);
    VALIDATE(ctx, offsets);
    VALIDATE(ctx, n_seg < SIZE_MAX);
    /* More than one device run takes (or than CLSORT_CHUNK_KEYS): batches of whole segments */
    size_t cap = ctx->settings.chunk_keys;
    clsort_status st = check_segments(ctx, spec, values, n, n_seg, 1);
    if (st == CLSORT_ERROR_TOO_LARGE && n >= 2) {
        if ((cap = clsort_segments_batch_cap(ctx, spec)) < 2)
            return check_segments(ctx, spec, values, n, n_seg, 1); /* its words again */
        st = CLSORT_OK;
    }
    if (st != CLSORT_OK || (st = clsort_segments_check(ctx, offsets, n_seg, n)) != CLSORT_OK)
        return st;
    if (cap >= 2 && (cap < n || cap < n_seg))
        st = clsort_sort_segments_batched(ctx, spec, keys, values, n, offsets, n_seg, cap, stats);
    else
        st = clsort_run_host_segments(ctx, spec, keys, values, n, offsets, n_seg, stats);
    if (st == CLSORT_OK)
        clsort_stats_finish(stats, n, t0);
    return st;
}

void clsort_host_positions(void *out, size_t size, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (size == 4)
            ((uint32_t *)out)[i] = (uint32_t)i;
        else
            ((uint64_t *)out)[i] = (uint64_t)i;
    }
}

void clsort_stats_finish(clsort_stats *stats, size_t n, double t0)
{
    if (!stats)
        return;
    stats->total_ms = clsort_now_ms() - t0;
    const double ms = stats->kernel_ms > 0 ? stats->kernel_ms : stats->total_ms;
    stats->gkeys_per_s = n && ms > 0 ? (double)n / (ms * 1e6) : 0.0;
}

clsort_status clsort_enqueue_segments(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                      cl_mem values, size_t n, cl_mem offsets, size_t n_seg,
                                      cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (done)
        *done = NULL;
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys || n == 0);
    VALIDATE(ctx, offsets);
    VALIDATE(ctx, (wait != NULL) == (n_wait > 0) || (wait && n_wait == 0));
    VALIDATE(ctx, n_seg < SIZE_MAX / sizeof(cl_ulong) - 1);
    size_t bytes = 0;
    cl_int err = clGetMemObjectInfo(offsets, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clGetMemObjectInfo(offsets, CL_MEM_SIZE)");
    if (bytes < (n_seg + 1) * sizeof(cl_ulong))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "the offsets buffer holds %zu bytes; n_seg + 1 = %zu offsets need %zu",
                           bytes, n_seg + 1, (n_seg + 1) * sizeof(cl_ulong));
    clsort_status st = check_segments(ctx, spec, values, n, n_seg, 0);
    if (st != CLSORT_OK ||
        (st = check_device_buffers(ctx, "clsort_enqueue_segments", spec, keys, values, "values", n,
                                   offsets, n_seg + 1)) != CLSORT_OK)
        return st;
    clsort_varseg v = { .offsets = offsets, .n_seg = n_seg };
    clsort_job job = { .spec = spec, .keys = keys, .values = values, .n = n, .no_event = !done,
                       .varseg = &v };
    return enqueue_job(ctx, &job, n_wait, wait, done);
}
