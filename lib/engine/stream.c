/*
 * clsort_sort_stream: records from a source callback, sorted on the device, to a sink callback.
 *
 * The pipeline, per run (a run is what one device sort takes and the memory budget allows; one run
 * for any input that fits):
 *   fill    the source writes a chunk into a staging slot; the slot's upload is enqueued and the
 *           next chunk is read into the next slot while it runs (the device buffers grow, by copies
 *           on the device, when the size was not known);
 *   sort    clsort_enqueue() on the device buffers, after every upload;
 *   drain   one run: chunks downloaded into the slots, each written to the sink while the next ones
 *           download; several runs: spill.c keeps each run in host memory or in a run file while
 *           the next run is read, and merges them (runmerge.c) into the sink.
 * Segmented sorts cut runs at segment boundaries and drain each one in turn (segments never mix).
 * On a CPU device, where host-radix sorts host memory where it is, an input of one run and known
 * size skips all of that: read whole into host memory, sorted there, written from there (direct()).
 * The host layer: the sorting goes through the public entry points (clsort_reserve, clsort_enqueue).
 * Calls: api.c's entry points, spill.c, drain.c, stage.c, records.c, dispatch.c (the name of what
 * ran), status.c.
 */
#include "stream.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* An event that completes after every command enqueued so far (in or out of order). */
static clsort_status stream_marker(stream *s, cl_event *ev)
{
    cl_int err = clEnqueueMarkerWithWaitList(s->ctx->queue, 0, NULL, ev);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "clEnqueueMarkerWithWaitList");
}

/* Device buffers for cap records, keeping the first n of the old ones. */
static clsort_status grow(stream *s, size_t cap, size_t n)
{
    clsort_context *ctx = s->ctx;
    cl_mem nk = NULL, nv = NULL;
    clsort_status st = clsort_alloc(ctx, cap * s->ks, &nk, "stream keys");
    if (st == CLSORT_OK && s->vs)
        st = clsort_alloc(ctx, cap * s->vs, &nv, "stream values");
    cl_event after = NULL;
    if (st == CLSORT_OK && n && (st = stream_marker(s, &after)) == CLSORT_OK) {
        cl_int err;
        err = clEnqueueCopyBuffer(ctx->queue, s->dk, nk, 0, 0, n * s->ks, 1, &after, NULL);
        if (err == CL_SUCCESS && s->vs)
            err = clEnqueueCopyBuffer(ctx->queue, s->dv, nv, 0, 0, n * s->vs, 1, &after, NULL);
        if (err != CL_SUCCESS)
            st = clsort_fail_cl(ctx, err, "clEnqueueCopyBuffer(stream data)");
    }
    release_event(&after);
    cl_mem old[] = { s->dk, s->dv };
    if (st != CLSORT_OK) {
        old[0] = nk;
        old[1] = nv;
    } else {
        s->dk = nk;
        s->dv = nv;
        s->cap = cap;
    }
    if (st == CLSORT_OK && n) {
        /* later uploads must follow the copies: they are ordered after a marker of everything */
        release_event(&s->fence);
        st = stream_marker(s, &s->fence);
    }
    clsort_release_mems(old, 2); /* OpenCL frees them once the copies are done */
    return st;
}

/* Read the next chunk into the next slot (once its earlier transfers are done). */
static clsort_status read_ahead(stream *s, size_t want)
{
    slot *sl = &s->slots[s->next_slot];
    clsort_status st = clsort_stream_slot_wait(s, sl, &s->st->upload_ms);
    if (st != CLSORT_OK)
        return st;
    const double t = clsort_now_ms();
    long long got = s->in->read(s->in->user, sl->keys, s->vs && !s->rec_in ? sl->values : NULL,
                                want);
    s->st->read_ms += clsort_now_ms() - t;
    if (got < 0)
        return clsort_fail(s->ctx, CLSORT_ERROR_IO, "the source reported an error after %zu records",
                           s->total + s->ahead);
    if ((unsigned long long)got > want)
        return clsort_fail(s->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "the source returned %lld records where at most %zu were asked for",
                           got, want);
    s->ahead = (size_t)got;
    s->eof = got == 0;
    return CLSORT_OK;
}

/* Upload the chunk read ahead to record `at` of the device buffers. */
static clsort_status upload_ahead(stream *s, size_t at)
{
    slot *sl = &s->slots[s->next_slot];
    const cl_uint nw = s->fence ? 1 : 0;
    const cl_event *w = s->fence ? &s->fence : NULL;
    if (s->rec_in) { /* the records to the device, split there into the sort's buffers */
        cl_event up = NULL;
        cl_int err = clEnqueueWriteBuffer(s->ctx->queue, sl->drec, CL_FALSE, 0,
                                          s->ahead * (s->ks + s->vs), sl->keys, 0, NULL, &up);
        if (err != CL_SUCCESS)
            return clsort_fail_cl(s->ctx, err, "clEnqueueWriteBuffer(stream records)");
        cl_event waits[2] = { up, s->fence };
        clsort_status st = clsort_records_enqueue(s->ctx, &s->rec, 0, sl->drec, s->dk, s->dv,
                                                  s->ahead, at, 1 + nw, waits, &sl->busy[0]);
        sl->busy[1] = up;
        if (st != CLSORT_OK)
            return st;
        s->next_slot = (s->next_slot + 1) % SLOTS;
        s->ahead = 0;
        return CLSORT_OK;
    }
    cl_int err = clEnqueueWriteBuffer(s->ctx->queue, s->dk, CL_FALSE, at * s->ks, s->ahead * s->ks,
                                      sl->keys, nw, w, &sl->busy[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueWriteBuffer(s->ctx->queue, s->dv, CL_FALSE, at * s->vs, s->ahead * s->vs,
                                   sl->values, nw, w, &sl->busy[1]);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(s->ctx, err, "clEnqueueWriteBuffer(stream chunk)");
    s->next_slot = (s->next_slot + 1) % SLOTS;
    s->ahead = 0;
    return CLSORT_OK;
}

/* Fill the device buffers with the next run: *n records (0 at the end of the input). A full run
 * reads one chunk ahead, so that a run that ends with the input is known to be the last. */
static clsort_status fill_run(stream *s, size_t *n)
{
    clsort_status st;
    *n = 0;
    for (;;) {
        if (!s->ahead && !s->eof) {
            /* a full run reads ahead what the next one may take */
            size_t room = *n < s->run_limit ? s->run_limit - *n : s->run_limit;
            if ((st = read_ahead(s, room < s->chunk ? room : s->chunk)) != CLSORT_OK)
                return st;
            /* more records than the algorithm takes (odd-even's limit): refused once read, as
             * a sort of them all would have been before any work */
            if (s->ahead > s->max_n - s->total)
                return clsort_dispatch_refuse_past_limit(s->ctx, s->spec);
        }
        if (s->eof || *n == s->run_limit)
            return CLSORT_OK;
        if (*n + s->ahead > s->cap) {
            size_t cap = s->cap * 2 > *n + s->ahead ? s->cap * 2 : *n + s->ahead;
            if ((st = grow(s, cap < s->run_limit ? cap : s->run_limit, *n)) != CLSORT_OK)
                return st;
        }
        const size_t m = s->ahead;
        if ((st = upload_ahead(s, *n)) != CLSORT_OK)
            return st;
        *n += m;
        s->total += m;
        clsort_stream_progress(s, "sort", s->total, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0, 0);
    }
}

/* Sort the n records in the device buffers after everything enqueued before; *done completes with
 * the sort, *start before it (for the kernel time: account_sort()). */
static clsort_status sort_run(stream *s, size_t n, cl_event *start, cl_event *done)
{
    clsort_status st = stream_marker(s, start);
    if (st == CLSORT_OK)
        st = clsort_enqueue(s->ctx, s->spec, s->dk, s->vs ? s->dv : NULL, n, 1, start, done);
    return st;
}

/* Once the sort is done: from the end of what came before to its end, the kernels' time (profiling
 * queues only); the events are released. */
static clsort_status account_sort(stream *s, cl_event *start, cl_event *done)
{
    cl_int err = *done ? clWaitForEvents(1, done) : CL_SUCCESS;
    cl_ulong a = 0, b = 0;
    if (err == CL_SUCCESS && *done &&
        !clGetEventProfilingInfo(*start, CL_PROFILING_COMMAND_END, sizeof a, &a, NULL) &&
        !clGetEventProfilingInfo(*done, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) && b > a)
        s->st->kernel_ms += (double)(b - a) / 1e6;
    release_event(start);
    release_event(done);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "the sort");
}

void clsort_stream_resolve_settings(stream *s, const clsort_stream_settings *given)
{
    if (given)
        s->set = *given;
    else
        clsort_stream_settings_default(&s->set);
    if (!s->set.memory_bytes) { /* half of physical memory, as a share others can live with */
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        s->set.memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2
                                                    : (uint64_t)1 << 30;
    }
    if (!s->set.temp_dirs || !s->set.n_temp_dirs) { /* $TMPDIR when the context opened, or /tmp */
        s->dir0[0] = s->ctx->settings.temp_dir;
        s->set.temp_dirs = s->dir0;
        s->set.n_temp_dirs = 1;
    }
    if (!s->set.threads)
        s->set.threads = clsort_merge_threads_default();
    if (!s->set.fan_in)
        s->set.fan_in = 64;
}

/* The merge's blocks for data_bytes of budget and records of rs bytes: each thread holds two
 * (input, output), at most 32 MiB each, and two sub-blocks of at most a quarter of one for its
 * merge levels; a cut reads fewer than step records per run, a small part of a block. Returns the
 * bytes the merge threads hold. */
uint64_t clsort_stream_plan_blocks(stream *s, uint64_t data_bytes, size_t rs)
{
    uint64_t per = data_bytes / 2 / s->set.threads * 2 / 5;
    if (per > (32u << 20))
        per = 32u << 20;
    s->block = per / rs ? (size_t)(per / rs) : 1;
    s->step = s->block / (4 * (size_t)s->set.fan_in);
    if (s->step < 1)
        s->step = 1;
    return (uint64_t)s->set.threads * 2 * (s->block + clsort_merge_sub(s->block, rs)) * rs;
}

/* The budget: staging buffers first (smaller under a small budget), then the merge blocks, then
 * runs kept in memory; a run is at most what is left, shared with what else holds a run (on a
 * device that shares host memory, the data and the sort's second buffer; the spillers' buffers). */
static clsort_status plan_budget(stream *s, size_t *max_n)
{
    const size_t rs = s->ks + s->vs;
    const uint64_t budget = s->set.memory_bytes;
    size_t stage = s->ctx->settings.stage_bytes;
    /* an input known to be small gets slots its size (64 KiB at least): pinning the four 8 MiB
     * slots took more time than the whole sort of 16 KiB of keys on the H100 machine */
    const uint64_t small = s->n_hint != CLSORT_SIZE_UNKNOWN && s->n_hint < UINT64_MAX / rs
                               ? s->n_hint * rs : UINT64_MAX;
    if (small < stage)
        stage = small > (64u << 10) ? (size_t)small : (64u << 10);
    if (stage > budget / 16)
        stage = (size_t)(budget / 16);
    if (stage < rs)
        stage = rs;
    s->chunk = stage / rs;
    const uint64_t staging = (uint64_t)SLOTS * s->chunk * rs *
                             ((s->rec_in || s->rec_out) && s->ctx->host_unified ? 2 : 1);
    if (budget < staging + 64 * (uint64_t)rs)
        return clsort_fail(s->ctx, CLSORT_ERROR_TOO_LARGE,
                           "a memory budget of %llu bytes is too small: the staging buffers alone "
                           "take %llu", (unsigned long long)budget, (unsigned long long)staging);
    const uint64_t data_bytes = budget - staging; /* for records, besides the staging */
    const uint64_t merge_bytes = clsort_stream_plan_blocks(s, data_bytes, rs);
    s->keep_bytes = data_bytes > merge_bytes ? data_bytes - merge_bytes : 0;
    /* an input known to need runs, spilled by threads, gets a run buffer per spiller */
    s->spillers = s->async_spill && s->n_hint != CLSORT_SIZE_UNKNOWN && s->n_hint > data_bytes / rs
                      ? SPILLERS : 1;
    const uint64_t shares = (s->ctx->host_unified ? 2 : 0) + (s->async_spill ? s->spillers : 0);
    const uint64_t run_cap = data_bytes / ((shares ? shares : 1) * rs);
    if (run_cap < *max_n)
        *max_n = run_cap > 2 ? (size_t)run_cap : 2;
    return CLSORT_OK;
}

/* Records per run: what one device sort takes, and the budget allows (the setting
 * CLSORT_CHUNK_KEYS and clsort_stream_settings.run_records lower it, to test runs on small inputs); segmented sorts cut at segment
 * boundaries, and a known size is cut into runs of equal length. */
static clsort_status plan_stream(stream *s, uint64_t n_hint)
{
    size_t max_n;
    clsort_status st = clsort_max_keys(s->ctx, s->spec, &max_n);
    if (st != CLSORT_OK || (st = plan_budget(s, &max_n)) != CLSORT_OK)
        return st;
    const size_t seg = s->spec->segment;
    size_t test = s->ctx->settings.chunk_keys;
    const uint64_t asked = s->set.run_records; /* the caller's cap, as the test setting's */
    if (asked >= 2 && (test < 2 || asked < test))
        test = asked < SIZE_MAX ? (size_t)asked : SIZE_MAX;
    if (test >= 2 && test < max_n) /* never below one segment */
        max_n = seg && test < seg ? (seg < max_n ? seg : max_n) : test;
    if (seg && max_n >= seg)
        max_n -= max_n % seg;
    if (max_n < 2 || (seg && max_n < seg))
        return clsort_fail(s->ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s cannot sort even %zu records at once within the memory budget",
                           s->ctx->display_name, seg ? seg : (size_t)2);
    s->run_limit = max_n;
    if (n_hint != CLSORT_SIZE_UNKNOWN && n_hint > max_n && !seg) {
        const uint64_t runs = (n_hint + max_n - 1) / max_n;
        s->run_limit = (size_t)((n_hint + runs - 1) / runs);
    }
    /* the first device buffers: the whole input when its size is known, else room to grow from;
     * never more than the algorithm takes, which the input is checked against as it is read (the
     * hint is only a hint, and the buffers' size is not the input's) */
    s->cap = n_hint != CLSORT_SIZE_UNKNOWN ? (size_t)(n_hint < s->run_limit ? n_hint : s->run_limit)
                                           : 16 * s->chunk;
    if (s->cap > s->run_limit)
        s->cap = s->run_limit;
    s->max_n = clsort_dispatch_max_n(s->ctx, s->spec);
    if (s->cap > s->max_n)
        s->cap = s->max_n;
    if (s->cap < 1)
        s->cap = 1;
    return CLSORT_OK;
}

static clsort_status setup(stream *s)
{
    clsort_status st = CLSORT_OK;
    for (int i = 0; i < SLOTS && st == CLSORT_OK; i++) {
        slot *sl = &s->slots[i];
        st = clsort_stage_alloc(s->ctx, &sl->mem, s->chunk * (s->ks + s->vs));
        sl->keys = sl->mem.host;
        sl->values = sl->mem.host + s->chunk * s->ks;
        if (st == CLSORT_OK && (s->rec_in || s->rec_out))
            st = clsort_alloc(s->ctx, s->chunk * (s->ks + s->vs), &sl->drec, "stream records");
    }
    if (st == CLSORT_OK && (s->rec_in || s->rec_out))
        st = clsort_records_init(s->ctx, s->ks, s->vs, &s->rec);
    if (st == CLSORT_OK)
        st = clsort_stream_plan_spill(s);
    if (st == CLSORT_OK)
        st = grow(s, s->cap, 0);
    /* scratch and programs (and, where kernels compile at their first launch, that) before the
     * data comes, so that the sort itself allocates and compiles nothing */
    const double t = clsort_now_ms();
    if (st == CLSORT_OK)
        st = clsort_reserve(s->ctx, s->spec, s->cap);
    s->st->prepare_ms = clsort_now_ms() - t;
    s->st->warmed_up = s->ctx->launch_compiles;
    return st;
}

static void teardown(stream *s)
{
    clsort_stream_spill_join(s);
    clsort_stream_spill_free(s);
    double ms = 0;
    for (int i = 0; i < SLOTS; i++) {
        clsort_stream_slot_wait(s, &s->slots[i], &ms);
        clsort_stage_free(s->ctx, &s->slots[i].mem);
        if (s->slots[i].drec)
            clReleaseMemObject(s->slots[i].drec);
    }
    if (s->fence)
        clWaitForEvents(1, &s->fence);
    release_event(&s->fence);
    clsort_records_release(&s->rec);
    cl_mem ms_[] = { s->dk, s->dv };
    clsort_release_mems(ms_, 2);
    for (size_t i = 0; i < s->n_runs; i++)
        clsort_run_free(&s->runs[i]);
    free(s->runs);
}

/* Every run: filled, sorted, then written (one run, or segments) or kept for the merge. A kept
 * run's sort is accounted for once the next run is read, so that the read overlaps it. */
static clsort_status pipeline(stream *s)
{
    clsort_status st = CLSORT_OK;
    cl_event start = NULL, done = NULL;
    clsort_stream_progress(s, "sort", 0, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0, 1);
    for (;;) {
        size_t n;
        if ((st = fill_run(s, &n)) != CLSORT_OK || (st = account_sort(s, &start, &done)) != CLSORT_OK)
            break;
        const int last = s->eof && !s->ahead, direct = s->spec->segment || (last && !s->n_runs);
        if (n > 0 && (st = sort_run(s, n, &start, &done)) == CLSORT_OK) {
            if (direct && (st = clsort_stream_drain(s, n, done, NULL)) == CLSORT_OK)
                st = account_sort(s, &start, &done);
            else if (!direct)
                st = clsort_stream_keep_run(s, n, done);
        }
        s->st->runs += n > 0;
        if (st != CLSORT_OK || last)
            break;
    }
    if (st == CLSORT_OK)
        st = account_sort(s, &start, &done);
    if (done)
        clWaitForEvents(1, &done); /* on an error: nothing may still run when the buffers go */
    release_event(&start);
    release_event(&done);
    if (st == CLSORT_OK && s->n_runs)
        st = clsort_stream_merge_runs(s);
    return st;
}

/* A source that gives the records read ahead by direct() first, then the caller's source. */
typedef struct replay {
    const clsort_source *in;
    const unsigned char *keys, *values;
    size_t n, at, ks, vs;
} replay;

static long long replay_read(void *user, void *keys, void *values, size_t max)
{
    replay *r = user;
    if (r->at == r->n)
        return r->in->read(r->in->user, keys, values, max);
    const size_t m = r->n - r->at < max ? r->n - r->at : max;
    memcpy(keys, r->keys + r->at * r->ks, m * r->ks);
    if (values && r->vs)
        memcpy(values, r->values + r->at * r->vs, m * r->vs);
    r->at += m;
    return (long long)m;
}

/* Host memory for the direct path's records, in huge pages where the system gives them on advice
 * (Linux): 256 MiB first touched in 90-107 ms in 4 KiB pages, 18 ms in huge ones, on the 2-core
 * EPYC. free() releases it. */
static void *huge_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 2 * huge)
        return malloc(bytes ? bytes : 1);
    const size_t whole = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, whole);
#if defined(MADV_HUGEPAGE)
    if (p)
        madvise(p, whole, MADV_HUGEPAGE);
#endif
    return p;
}

/* Where host-radix sorts host memory where it is (clsort_sort(): run.c; every size on a CPU device,
 * the smallest on any device: clsort_dispatch_ran_host()): an input of one
 * run, its size known, is read whole into host memory, sorted there and written from there, with
 * none of the staging slots' copies into the device buffers and out, no device buffers of its
 * size, and no trial sort before the read. 2^26 u32 keys file to file (`clsort -i k26.bin -o
 * out.bin --stats`, 2-core EPYC, PoCL), see docs/performance.md. */
static int direct_wanted(const stream *s)
{
    const uint64_t n = s->n_hint;
    return n != CLSORT_SIZE_UNKNOWN && n >= 2 && n < s->run_limit && n < s->max_n &&
           !s->spec->segment && !s->rec_in && !s->rec_out && !s->fields &&
           clsort_dispatch_ran_host(s->ctx, s->spec, (size_t)n) == CLSORT_ALGO_HOST_RADIX &&
           n <= clsort_host_radix_inline_bytes(s->ctx) / (s->ks + s->vs);
}

/* The direct path's writer: records sorted up to `upto`, to the sink (after a failure: nothing). */
typedef struct direct_out {
    stream *s;
    const unsigned char *keys, *values;
    size_t written;
    clsort_status st;
} direct_out;

static void direct_write(void *user, size_t upto)
{
    direct_out *o = user;
    stream *s = o->s;
    while (o->st == CLSORT_OK && o->written < upto) {
        const size_t m = upto - o->written < s->chunk ? upto - o->written : s->chunk;
        o->st = clsort_stream_sink(s, o->keys + o->written * s->ks,
                                   s->vs ? o->values + o->written * s->vs : NULL, m);
        o->written += m;
        s->st->n += o->st == CLSORT_OK ? m : 0;
    }
}

/* The pages of the records' memory and of the sort's scratch, faulted in on a thread of their own
 * while the input is read (the read fills the pages in order on one core; the sort's split would
 * fault the scratch's in on the others): 2^26 u32 keys, 512 MiB in all. */
typedef struct direct_prefault {
    clsort_context *ctx;
    const clsort_spec *spec;
    size_t n;
    void *keys, *values;
} direct_prefault;

static void *prefault_run(void *arg)
{
    const direct_prefault *d = arg;
    clsort_host_radix_prefault(d->ctx, d->spec, d->n, d->keys, d->values);
    return NULL;
}

/* The direct path; *taken 0 (nothing read) where its memory cannot be had. An input longer than
 * its size said goes on through the pipeline, the records read so far first (*r, whose memory
 * the caller frees). */
static clsort_status direct(stream *s, int *taken, replay *r)
{
    const size_t ks = s->ks, vs = s->vs, cap = (size_t)s->n_hint + 1; /* + 1: the end seen */
    unsigned char *keys = huge_alloc(cap * ks), *values = vs ? huge_alloc(cap * vs) : NULL;
    *taken = keys && (values || !vs);
    if (!*taken) {
        free(keys);
        free(values);
        return CLSORT_OK;
    }
    /* the scratch (and its failure) before anything is read; nothing the caller queued before
     * (a borrowed queue) may still hold the kept scratch mapped */
    const double t0 = clsort_now_ms();
    const cl_int err = clFinish(s->ctx->queue);
    clsort_status st = err == CL_SUCCESS ? clsort_reserve(s->ctx, s->spec, (size_t)s->n_hint)
                                         : clsort_fail_cl(s->ctx, err, "clFinish");
    s->st->prepare_ms = clsort_now_ms() - t0;
    s->st->warmed_up = s->ctx->launch_compiles;
    if (st != CLSORT_OK) {
        free(keys);
        free(values);
        return st;
    }
    size_t n = 0;
    direct_prefault pf = { s->ctx, s->spec, (size_t)s->n_hint, keys, values };
    pthread_t helper;
    const int prefaulting = pthread_create(&helper, NULL, prefault_run, &pf) == 0;
    clsort_stream_progress(s, "sort", 0, s->n_hint, 1);
    for (;;) {
        const size_t want = cap - n < s->chunk ? cap - n : s->chunk;
        const double t = clsort_now_ms();
        const long long got = s->in->read(s->in->user, keys + n * ks, vs ? values + n * vs : NULL,
                                          want);
        s->st->read_ms += clsort_now_ms() - t;
        if (got < 0)
            st = clsort_fail(s->ctx, CLSORT_ERROR_IO,
                             "the source reported an error after %zu records", n);
        else if ((unsigned long long)got > want)
            st = clsort_fail(s->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                             "the source returned %lld records where at most %zu were asked for",
                             got, want);
        if (st != CLSORT_OK || got == 0)
            break;
        n += (size_t)got;
        clsort_stream_progress(s, "sort", n, s->n_hint, 0);
        if (n == cap) { /* more than the size said: the pipeline takes it from here */
            if (prefaulting)
                pthread_join(helper, NULL);
            *r = (replay){ s->in, keys, values, n, 0, ks, vs };
            return CLSORT_OK;
        }
    }
    if (prefaulting)
        pthread_join(helper, NULL);
    if (st == CLSORT_OK && n) {
        /* written as the sort's buckets come out, in order, while the other threads sort on */
        direct_out o = { s, keys, values, 0, CLSORT_OK };
        double host_ms = 0;
        st = clsort_host_radix_sort_host(s->ctx, s->spec, keys, values, n, NULL, 0, NULL,
                                         direct_write, &o, &host_ms);
        st = st != CLSORT_OK ? st : o.st;
        if (st == CLSORT_OK) {
            s->st->kernel_ms += s->ctx->profiling ? host_ms : 0;
            s->st->runs = 1;
            s->total = n;
        }
    }
    free(keys);
    free(values);
    return st;
}

void clsort_stream_settings_default(clsort_stream_settings *settings)
{
    if (settings)
        memset(settings, 0, sizeof *settings);
}

clsort_status clsort_sort_stream(clsort_context *ctx, const clsort_spec *spec,
                                 const clsort_source *in, const clsort_sink *out,
                                 const clsort_stream_settings *settings, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    clsort_stats local;
    spec = clsort_spec_or_default(spec, &def);
    stats = clsort_stats_cleared(stats, &local);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, in && in->read && out && out->write);
    clsort_status st = clsort_dispatch_check_spec(ctx, spec);
    if (st != CLSORT_OK)
        return st;
    const unsigned built0 = ctx->programs_built, cached0 = ctx->programs_cached;
    const unsigned skipped0 = ctx->passes_skipped;
    stream s = { .ctx = ctx, .spec = spec, .in = in, .out = out, .st = stats,
                 .ks = clsort_key_size(spec->key_type), .vs = spec->value_size,
                 .rec_in = in->records && spec->value_size, .rec_out = out->records && spec->value_size,
                 .n_hint = in->n };
    s.lay = clsort_merge_layout_keys(spec);
    clsort_stream_resolve_settings(&s, settings);
    s.async_spill = ctx->settings.spill_thread >= 0 ? ctx->settings.spill_thread : !ctx->host_unified;
    s.device_merge = ctx->settings.device_merge != 0; /* faster on the H100 and on PoCL alike */
    VALIDATE(ctx, s.set.fan_in >= 2);
    stats->memory_bytes = s.set.memory_bytes;
    int taken = 0;
    replay r = { 0 };
    clsort_source again;
    if ((st = plan_stream(&s, in->n)) == CLSORT_OK && direct_wanted(&s))
        st = direct(&s, &taken, &r);
    if (st == CLSORT_OK && r.keys) { /* longer than its size said */
        again = (clsort_source){ replay_read, &r, CLSORT_SIZE_UNKNOWN, 0 };
        s.in = &again;
        s.n_hint = CLSORT_SIZE_UNKNOWN;
        st = plan_stream(&s, CLSORT_SIZE_UNKNOWN);
        taken = 0;
    }
    if (st == CLSORT_OK && !taken && (st = setup(&s)) == CLSORT_OK)
        st = pipeline(&s);
    free((void *)r.keys);
    free((void *)r.values);
    /* before teardown clears the slots; "none" where the input was sorted where it was read */
    stats->staging = taken ? "none" : clsort_staging_name(s.slots[0].mem.kind);
    teardown(&s);
    stats->algorithm = clsort_algorithm_name(taken ? CLSORT_ALGO_HOST_RADIX
                                                   : clsort_dispatch_ran(ctx, spec, in->n));
    stats->programs_built = ctx->programs_built - built0;
    stats->programs_cached = ctx->programs_cached - cached0;
    stats->passes_skipped = ctx->passes_skipped - skipped0;
    stats->total_ms = clsort_now_ms() - t0;
    stats->gkeys_per_s =
        stats->n && stats->kernel_ms > 0 ? (double)stats->n / (stats->kernel_ms * 1e6) : 0.0;
    return st;
}
