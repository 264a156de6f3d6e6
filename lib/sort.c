/* Entry points that sort: validation, algorithm choice, the command chain, host transfers, stats. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const algo_names[] = {
    [CLSORT_ALGO_AUTO] = "auto",
    [CLSORT_ALGO_RADIX4] = "radix4",
    [CLSORT_ALGO_RADIX8] = "radix8",
    [CLSORT_ALGO_ONESWEEP] = "onesweep",
    [CLSORT_ALGO_RADIX8_RTS] = "radix8-rts",
    [CLSORT_ALGO_BITONIC] = "bitonic",
    [CLSORT_ALGO_ODDEVEN] = "oddeven",
};
#define N_ALGOS (sizeof algo_names / sizeof algo_names[0])

const char *clsort_algorithm_name(clsort_algorithm a)
{
    return (unsigned)a < N_ALGOS && algo_names[a] ? algo_names[a] : NULL;
}

clsort_status clsort_algorithm_from_name(const char *name, clsort_algorithm *out)
{
    if (!name || !out)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < N_ALGOS; i++)
        if (algo_names[i] && !strcmp(name, algo_names[i])) {
            *out = (clsort_algorithm)i;
            return CLSORT_OK;
        }
    return CLSORT_ERROR_INVALID_ARGUMENT;
}

void clsort_spec_default(clsort_spec *spec)
{
    if (!spec)
        return;
    memset(spec, 0, sizeof *spec);
    spec->key_type = CLSORT_KEY_U32;
    spec->value_size = 0;
    spec->algorithm = CLSORT_ALGO_AUTO;
}

/* Why an algorithm cannot take a spec, or NULL when it can. The radix sorts take everything. */
static const char *unsupported(clsort_algorithm a, const clsort_spec *spec)
{
    /* bitonic and oddeven take every key type, value size and bit range as well. */
    (void)a;
    (void)spec;
    return NULL;
}

/* Segments longer than this go to radix8 under auto. */
#define AUTO_RADIX_SEGMENT 32768

/* The algorithm that runs for a spec on this device. */
static clsort_algorithm resolve(const clsort_context *ctx, const clsort_spec *spec)
{
    (void)ctx;
    if (spec->algorithm != CLSORT_ALGO_AUTO)
        return spec->algorithm;
    /* Batched segments: bitonic sorts a whole batch of short segments in one tile pass; long ones
     * take radix8 (reduce-then-scan, tiles within segments). On an H100, 2^24 keys in all, GKey/s
     * bitonic / radix8: segments of 4096 57.3 / 14.0, 16384 29.7 / 23.1, 65536 20.0 / 22.9. */
    if (spec->segment)
        return spec->segment > AUTO_RADIX_SEGMENT ? CLSORT_ALGO_RADIX8 : CLSORT_ALGO_BITONIC;
    return unsupported(CLSORT_ALGO_RADIX8, spec) ? CLSORT_ALGO_RADIX4 : CLSORT_ALGO_RADIX8;
}

static clsort_status check_spec(clsort_context *ctx, const clsort_spec *spec)
{
    const char *type = clsort_key_type_name(spec->key_type);
    if (!type)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "unknown key type %d",
                           (int)spec->key_type);
    if (spec->value_size != 0 && spec->value_size != 4 && spec->value_size != 8)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "value size %zu is not supported: use 0 (keys only), 4 or 8", spec->value_size);
    if (!clsort_algorithm_name(spec->algorithm))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "unknown algorithm %d",
                           (int)spec->algorithm);
    unsigned begin, end, width = clsort_key_width(spec->key_type);
    clsort_key_range(spec, &begin, &end);
    if (begin >= end || end > width)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "bit range %u:%u is not valid for %s keys: expected 0 <= begin < end <= %u",
                           spec->begin_bit, spec->end_bit, type, width);
    if (spec->segment && (spec->algorithm == CLSORT_ALGO_RADIX4 ||
                          spec->algorithm == CLSORT_ALGO_ONESWEEP))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s does not sort segments (segment = %zu): use radix8, radix8-rts, "
                           "bitonic, oddeven or auto",
                           clsort_algorithm_name(spec->algorithm), spec->segment);
    clsort_algorithm a = resolve(ctx, spec);
    const char *why = unsupported(a, spec);
    if (why) {
        char values[48] = " (keys only)";
        if (spec->value_size)
            snprintf(values, sizeof values, " with %zu-byte values", spec->value_size);
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "%s cannot sort %s keys%s%s%s: it %s; radix4 (or auto) sorts every key "
                           "type, order and bit range",
                           clsort_algorithm_name(a), type, spec->descending ? " descending" : "",
                           clsort_key_full_range(spec) ? "" : " on a bit range", values, why);
    }
    return CLSORT_OK;
}

/* Limits that depend on n, checked before any work. */
static clsort_status check_limits(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    if (resolve(ctx, spec) == CLSORT_ALGO_ODDEVEN)
        return clsort_oddeven_check(ctx, spec, n);
    return CLSORT_OK;
}

static size_t scratch_bytes(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    switch (resolve(ctx, spec)) {
    case CLSORT_ALGO_RADIX8:
    case CLSORT_ALGO_ONESWEEP:
    case CLSORT_ALGO_RADIX8_RTS:
        return clsort_radix8_scratch(ctx, spec, n);
    case CLSORT_ALGO_BITONIC:
    case CLSORT_ALGO_ODDEVEN:
        return 0; /* in place */
    default:
        return clsort_radix4_scratch(ctx, spec, n);
    }
}

/* Would n keys fit? with_data: the key and value buffers are allocated by us too. */
static clsort_status check_fits(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                int with_data)
{
    const size_t ks = clsort_key_size(spec->key_type), per_key = ks + spec->value_size;
    const size_t widest = spec->value_size > ks ? spec->value_size : ks;
    if (n > ctx->max_alloc / widest)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%zu keys need a buffer of %.3g GB; the largest buffer %s allows is %.3g GB "
                           "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           n, (double)n * widest / 1e9, ctx->display_name, (double)ctx->max_alloc / 1e9);
    double need = (double)scratch_bytes(ctx, spec, n) + (with_data ? (double)n * per_key : 0.0);
    if (need > (double)ctx->global_mem)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "sorting %zu keys needs %.3g GB of device memory; %s has %.3g GB", n,
                           need / 1e9, ctx->display_name, (double)ctx->global_mem / 1e9);
    return CLSORT_OK;
}

/* Largest n that one device sort of this spec takes, with our own data buffers (bisection: the
 * scratch grows with n), lowered to *chunk when that is set and smaller. Returns 0 when under 2. */
static int max_fit(clsort_context *ctx, const clsort_spec *spec, size_t *chunk)
{
    size_t lo = 0, hi = (size_t)(ctx->max_alloc / clsort_key_size(spec->key_type)) + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (check_fits(ctx, spec, mid, 1) == CLSORT_OK)
            lo = mid;
        else
            hi = mid;
    }
    if (!*chunk || lo < *chunk)
        *chunk = lo;
    return *chunk >= 2;
}

clsort_status clsort_max_keys(clsort_context *ctx, const clsort_spec *spec, size_t *max_n)
{
    clsort_spec def;
    if (!spec) {
        clsort_spec_default(&def);
        spec = &def;
    }
    VALIDATE(ctx, ctx && max_n);
    clsort_status st = check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    size_t n = 0;
    max_fit(ctx, spec, &n);
    clsort_clear_detail(ctx);
    *max_n = n;
    return CLSORT_OK;
}

/* ---- the command chain ---- */

static void chain_begin(clsort_context *ctx, cl_uint n_wait, const cl_event *wait)
{
    ctx->chain_wait = wait;
    ctx->chain_n_wait = n_wait;
    ctx->first_event = ctx->last_event = NULL;
}

static void chain_push(clsort_context *ctx, cl_event ev)
{
    if (!ctx->first_event) {
        ctx->first_event = ev;
        clRetainEvent(ev);
    }
    if (ctx->last_event)
        clReleaseEvent(ctx->last_event);
    ctx->last_event = ev;
}

/* The wait list of the chain's next command: the caller's events first, then the newest command
 * (none on an in-order queue, which orders the chain by itself and runs it without waits). */
static void chain_waits(const clsort_context *ctx, cl_uint *n, const cl_event **list)
{
    if (ctx->last_event) {
        *n = ctx->out_of_order ? 1 : 0;
        *list = ctx->out_of_order ? &ctx->last_event : NULL;
    } else {
        *n = ctx->chain_n_wait;
        *list = ctx->chain_n_wait ? ctx->chain_wait : NULL;
    }
}

static void chain_drop(clsort_context *ctx)
{
    if (ctx->first_event)
        clReleaseEvent(ctx->first_event);
    if (ctx->last_event)
        clReleaseEvent(ctx->last_event);
    ctx->first_event = ctx->last_event = NULL;
}

clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, size_t global, size_t local)
{
    cl_uint n;
    const cl_event *w;
    cl_event ev;
    chain_waits(ctx, &n, &w);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, n, w, &ev);
    if (err != CL_SUCCESS) {
        char name[128] = "?";
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        name[sizeof name - 1] = '\0';
        return clsort_fail(ctx, (clsort_status)err,
                           "clEnqueueNDRangeKernel(%s, global %zu, local %zu) failed: %s (%d)", name,
                           global, local, clsort_status_string((clsort_status)err), (int)err);
    }
    chain_push(ctx, ev);
    return CLSORT_OK;
}

/* Make a command enqueued after the chain's waits (err, ev: what the enqueue call gave) its newest. */
static clsort_status chain_add(clsort_context *ctx, cl_int err, cl_event ev, const char *call)
{
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, call);
    chain_push(ctx, ev);
    return CLSORT_OK;
}

clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, cl_uint pattern, size_t bytes)
{
    cl_uint n;
    const cl_event *w;
    cl_event ev = NULL;
    chain_waits(ctx, &n, &w);
    cl_int err = clEnqueueFillBuffer(ctx->queue, buf, &pattern, sizeof pattern, 0, bytes, n, w, &ev);
    return chain_add(ctx, err, ev, "clEnqueueFillBuffer");
}

clsort_status clsort_copy(clsort_context *ctx, cl_mem src, cl_mem dst, size_t bytes)
{
    cl_uint n;
    const cl_event *w;
    cl_event ev = NULL;
    chain_waits(ctx, &n, &w);
    cl_int err = clEnqueueCopyBuffer(ctx->queue, src, dst, 0, 0, bytes, n, w, &ev);
    return chain_add(ctx, err, ev, "clEnqueueCopyBuffer");
}

static clsort_status alloc_failed(clsort_context *ctx, cl_int err, size_t bytes, const char *what)
{
    return clsort_fail(ctx, (clsort_status)err, "allocating %zu bytes of device memory (%s) failed: %s",
                       bytes, what, clsort_status_string((clsort_status)err));
}

/* A device buffer of at least 4 bytes, or a failure named after `what` (counted for fault injection
 * by the callers). */
static clsort_status create_buffer(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return alloc_failed(ctx, err, bytes, what);
    }
    return CLSORT_OK;
}

clsort_status clsort_alloc(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what)
{
    if (clsort_fault_alloc()) {
        *out = NULL;
        return alloc_failed(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, bytes, what);
    }
    return create_buffer(ctx, bytes, out, what);
}

/* CLSORT_SCRATCH_KEEP (MiB) overrides how much scratch a context keeps; 0 keeps none. */
static size_t scratch_keep_limit(void)
{
    const char *e = getenv("CLSORT_SCRATCH_KEEP");
    if (e && *e) {
        char *end;
        unsigned long long mib = strtoull(e, &end, 10);
        if (!*end && mib < ((size_t)-1 >> 20))
            return (size_t)mib << 20;
    }
    return CLSORT_SCRATCH_KEEP;
}

void clsort_scratch_release(clsort_context *ctx)
{
    for (int i = 0; i < CLSORT_SLOTS; i++) {
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
        ctx->scratch[i] = NULL;
        ctx->scratch_bytes[i] = 0;
    }
}

clsort_status clsort_scratch(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out,
                             const char *what)
{
    if (ctx->out_of_order)
        return clsort_alloc(ctx, bytes, out, what);
    /* A request counts as an allocation for fault injection whether or not it is served from the
     * kept buffers, so that the N-th allocation is the same one with and without them. */
    if (clsort_fault_alloc()) {
        *out = NULL;
        return alloc_failed(ctx, CL_MEM_OBJECT_ALLOCATION_FAILURE, bytes, what);
    }
    if (ctx->scratch[slot] && ctx->scratch_bytes[slot] >= bytes) {
        clRetainMemObject(ctx->scratch[slot]);
        *out = ctx->scratch[slot];
        return CLSORT_OK;
    }
    /* A kept buffer that is too small goes (the commands still using it keep it alive until they
     * finish); a larger one takes its place if it fits in the limit with the others. */
    size_t kept = 0;
    for (int i = 0; i < CLSORT_SLOTS; i++)
        kept += i == (int)slot ? 0 : ctx->scratch_bytes[i];
    if (ctx->scratch[slot])
        clReleaseMemObject(ctx->scratch[slot]);
    ctx->scratch[slot] = NULL;
    ctx->scratch_bytes[slot] = 0;
    const size_t limit = scratch_keep_limit();
    const int keep = kept <= limit && bytes <= limit - kept;
    if (!keep)
        clsort_scratch_release(ctx); /* a large sort gets all of the device's memory */
    cl_mem m;
    clsort_status st = create_buffer(ctx, bytes, &m, what);
    if (st != CLSORT_OK)
        return st;
    if (keep) {
        clRetainMemObject(m);
        ctx->scratch[slot] = m;
        ctx->scratch_bytes[slot] = bytes;
    }
    *out = m;
    return CLSORT_OK;
}

void clsort_profile_last(clsort_context *ctx, const char *family, const char *what, unsigned pass)
{
    const char *e = getenv("CLSORT_PROFILE");
    if (!e || !*e)
        e = getenv("CLSORT_RADIX8_PROFILE");
    if (!e || !*e || *e == '0' || !ctx->profiling || !ctx->last_event)
        return;
    cl_ulong a = 0, b = 0;
    clWaitForEvents(1, &ctx->last_event);
    clGetEventProfilingInfo(ctx->last_event, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    clGetEventProfilingInfo(ctx->last_event, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    fprintf(stderr, "%s: %-10s pass %u %9.3f ms\n", family, what, pass, (double)(b - a) / 1e6);
}

clsort_status clsort_set_args(clsort_context *ctx, cl_kernel k, const char *kname, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++) {
        size_t size = va_arg(ap, size_t);
        const void *ptr = va_arg(ap, const void *);
        cl_int err = clSetKernelArg(k, (cl_uint)i, size, ptr);
        if (err != CL_SUCCESS) {
            va_end(ap);
            return clsort_fail(ctx, (clsort_status)err, "clSetKernelArg(%s, %d) failed: %s", kname, i,
                               clsort_status_string((clsort_status)err));
        }
    }
    va_end(ap);
    return CLSORT_OK;
}

/* Enqueue the whole sort as a chain; on success ctx->first_event/last_event hold its ends. */
static clsort_status run_chain(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                               cl_mem values, size_t n, cl_uint n_wait, const cl_event *wait,
                               int may_block, clsort_algorithm *ran)
{
    chain_begin(ctx, n_wait, wait);
    clsort_algorithm algo = resolve(ctx, spec);
    *ran = algo == CLSORT_ALGO_RADIX8 ? clsort_radix8_variant(ctx, spec) : algo;
    clsort_status st = CLSORT_OK;
    if (n > 1) {
        clsort_job job = { spec, keys, values, n, may_block };
        switch (algo) {
        case CLSORT_ALGO_RADIX8:
        case CLSORT_ALGO_ONESWEEP:
        case CLSORT_ALGO_RADIX8_RTS:
            st = clsort_radix8_enqueue(ctx, &job);
            break;
        case CLSORT_ALGO_BITONIC:
        case CLSORT_ALGO_ODDEVEN:
            /* They compare whole unsigned keys: map the keys to their order bits and back. */
            st = clsort_keys_transform(ctx, spec, keys, n, 0);
            if (st == CLSORT_OK)
                st = algo == CLSORT_ALGO_BITONIC ? clsort_bitonic_enqueue(ctx, &job)
                                                 : clsort_oddeven_enqueue(ctx, &job);
            if (st == CLSORT_OK)
                st = clsort_keys_transform(ctx, spec, keys, n, 1);
            break;
        default:
            st = clsort_radix4_enqueue(ctx, &job);
            break;
        }
    }
    if (st == CLSORT_OK && !ctx->last_event) {
        /* Nothing to do: a marker still gives the caller an event that follows its wait list. */
        cl_event ev;
        cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, n_wait, n_wait ? wait : NULL, &ev);
        if (err != CL_SUCCESS)
            st = clsort_fail_cl(ctx, err, "clEnqueueMarkerWithWaitList");
        else
            chain_push(ctx, ev);
    }
    if (st != CLSORT_OK) {
        /* Let what was enqueued drain before the caller reuses its buffers. */
        clFinish(ctx->queue);
        chain_drop(ctx);
    }
    return st;
}

clsort_status clsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys, cl_mem values,
                             size_t n, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    clsort_spec def;
    if (!spec) {
        clsort_spec_default(&def);
        spec = &def;
    }
    if (done)
        *done = NULL;
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys || n == 0);
    VALIDATE(ctx, (wait != NULL) == (n_wait > 0) || (wait && n_wait == 0));
    clsort_status st = check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    VALIDATE(ctx, spec->value_size == 0 || values || n == 0);
    if ((st = check_limits(ctx, spec, n)) != CLSORT_OK || (st = check_fits(ctx, spec, n, 0)) != CLSORT_OK)
        return st;
    clsort_algorithm ran;
    if ((st = run_chain(ctx, spec, keys, values, n, n_wait, wait, 0, &ran)) != CLSORT_OK)
        return st;
    if (done) {
        *done = ctx->last_event;
        ctx->last_event = NULL;
    }
    chain_drop(ctx);
    return CLSORT_OK;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Milliseconds from the start of a to the end of b (profiling queues only). */
static double event_span_ms(cl_event a, cl_event b)
{
    cl_ulong start = 0, end = 0;
    if (!a || !b || clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ||
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) || end < start)
        return 0.0;
    return (double)(end - start) / 1e6;
}

clsort_status clsort_sort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                          size_t n, clsort_stats *stats)
{
    const double t0 = now_ms();
    clsort_spec def;
    if (!spec) {
        clsort_spec_default(&def);
        spec = &def;
    }
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, keys || n == 0);
    clsort_status st = check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    VALIDATE(ctx, spec->value_size == 0 || values || n == 0);
    if ((st = check_limits(ctx, spec, n)) != CLSORT_OK)
        return st;
    /* More than the device takes at once (or than CLSORT_CHUNK_KEYS, for tests): sort chunks that fit
     * and merge them on the host. Segments are left to the device. */
    const char *force = getenv("CLSORT_CHUNK_KEYS");
    size_t chunk = force && *force ? strtoull(force, NULL, 10) : 0;
    if ((st = check_fits(ctx, spec, n, 1)) != CLSORT_OK) {
        if (st != CLSORT_ERROR_TOO_LARGE || spec->segment || n < 2 || !max_fit(ctx, spec, &chunk))
            return st;
        clsort_clear_detail(ctx);
    }
    if (chunk >= 2 && chunk < n && !spec->segment) {
        st = clsort_sort_chunked(ctx, spec, keys, values, n, chunk, stats);
        if (stats && st == CLSORT_OK) {
            stats->total_ms = now_ms() - t0;
            stats->gkeys_per_s = stats->kernel_ms > 0 ? (double)n / (stats->kernel_ms * 1e6) : 0.0;
        }
        return st;
    }

    const unsigned built0 = ctx->programs_built, cached0 = ctx->programs_cached;
    const unsigned skipped0 = ctx->passes_skipped;
    const size_t vs = spec->value_size, ks = clsort_key_size(spec->key_type);
    cl_mem kbuf = NULL, vbuf = NULL;
    cl_event up[2] = { NULL, NULL }, down[2] = { NULL, NULL };
    cl_uint n_up = 0;
    clsort_algorithm ran = resolve(ctx, spec);
    if (ran == CLSORT_ALGO_RADIX8)
        ran = clsort_radix8_variant(ctx, spec);
    double kernel_ms = 0;

    if (n > 1) {
        if ((st = clsort_scratch(ctx, CLSORT_SLOT_KEYS, n * ks, &kbuf, "keys")) != CLSORT_OK ||
            (vs && (st = clsort_scratch(ctx, CLSORT_SLOT_VALUES, n * vs, &vbuf, "values")) !=
                       CLSORT_OK))
            goto done;
        cl_int err = clEnqueueWriteBuffer(ctx->queue, kbuf, CL_FALSE, 0, n * ks, keys, 0, NULL, &up[n_up]);
        if (err != CL_SUCCESS) {
            st = clsort_fail_cl(ctx, err, "clEnqueueWriteBuffer(keys)");
            goto done;
        }
        n_up++;
        if (vs) {
            err = clEnqueueWriteBuffer(ctx->queue, vbuf, CL_FALSE, 0, n * vs, values, 0, NULL, &up[n_up]);
            if (err != CL_SUCCESS) {
                st = clsort_fail_cl(ctx, err, "clEnqueueWriteBuffer(values)");
                goto done;
            }
            n_up++;
        }
        if ((st = run_chain(ctx, spec, kbuf, vbuf, n, n_up, up, 1, &ran)) != CLSORT_OK)
            goto done;
        err = clEnqueueReadBuffer(ctx->queue, kbuf, CL_FALSE, 0, n * ks, keys, 1, &ctx->last_event,
                                  &down[0]);
        if (err == CL_SUCCESS && vs)
            err = clEnqueueReadBuffer(ctx->queue, vbuf, CL_FALSE, 0, n * vs, values, 1,
                                      &ctx->last_event, &down[1]);
        if (err == CL_SUCCESS)
            err = clFinish(ctx->queue);
        if (err != CL_SUCCESS) {
            st = clsort_fail_cl(ctx, err, "reading the sorted data back");
            clFinish(ctx->queue);
            chain_drop(ctx);
            goto done;
        }
        if (ctx->profiling)
            kernel_ms = event_span_ms(ctx->first_event, ctx->last_event);
        chain_drop(ctx);
    }

    if (stats) {
        stats->n = n;
        stats->algorithm = clsort_algorithm_name(ran);
        stats->kernel_ms = kernel_ms;
        if (ctx->profiling && n > 1) {
            stats->upload_ms = event_span_ms(up[0], up[n_up - 1]);
            stats->download_ms = event_span_ms(down[0], down[vs ? 1 : 0]);
        }
        stats->total_ms = now_ms() - t0;
        double ms = kernel_ms > 0 ? kernel_ms : stats->total_ms;
        stats->gkeys_per_s = n && ms > 0 ? (double)n / (ms * 1e6) : 0.0;
        stats->programs_built = ctx->programs_built - built0;
        stats->programs_cached = ctx->programs_cached - cached0;
        stats->passes_skipped = ctx->passes_skipped - skipped0;
    }

done:
    for (int i = 0; i < 2; i++) {
        if (up[i])
            clReleaseEvent(up[i]);
        if (down[i])
            clReleaseEvent(down[i]);
    }
    if (kbuf)
        clReleaseMemObject(kbuf);
    if (vbuf)
        clReleaseMemObject(vbuf);
    return st;
}
