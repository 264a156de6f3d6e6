/*
 * clsort_sort_stream: records from a source callback, sorted on the device, to a sink callback.
 *
 * The pipeline, per run (a run is what one device sort takes; one run for any input that fits):
 *   fill    the source writes a chunk into a staging slot; the slot's upload is enqueued and the
 *           next chunk is read into the next slot while it runs (the device buffers grow, by copies
 *           on the device, when the size was not known);
 *   sort    clsort_enqueue() on the device buffers, after every upload;
 *   drain   one run: chunks downloaded into the slots, each written to the sink while the next ones
 *           download; several runs: each run's result is downloaded to host memory while the next
 *           run is read, and the runs are merged (merge.c) a block at a time into the sink.
 * Segmented sorts cut runs at segment boundaries and drain each one in turn (segments never mix).
 * The host layer: the sorting goes through the public entry points (clsort_reserve, clsort_enqueue).
 * Calls: api.c's entry points, stage.c, merge.c, dispatch.c (the name of what ran), status.c.
 */
#include "internal.h"
#include "runmerge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOTS = 4 };

typedef struct slot {
    clsort_stage mem;      /* chunk keys, then chunk values (or chunk records) */
    unsigned char *keys, *values;
    cl_mem drec;           /* records mode: the chunk's records on the device */
    cl_event busy[2];      /* transfers into or out of the slot still pending */
} slot;

/* A run written to its file by a thread of its own while the next run is read (devices with memory
 * of their own: the run is downloaded whole into `mem` first). */
typedef struct spiller {
    clsort_stage mem;      /* one run: keys, then values */
    pthread_t thread;
    int active;
    size_t index;          /* of the run in stream.runs */
    clsort_run run;        /* the thread's copy, put back when it is joined */
    size_t n;
    cl_event ready;        /* the download */
    clsort_context *ctx;
    const clsort_spec *spec;
    uint64_t more;
    double ms;
    clsort_status st;
} spiller;

typedef struct stream {
    clsort_context *ctx;
    const clsort_spec *spec;
    const clsort_source *in;
    const clsort_sink *out;
    clsort_stats *st;
    size_t ks, vs;
    int rec_in, rec_out;   /* the source / sink deal in joined records */
    clsort_records rec;    /* ... split and joined by these kernels */
    size_t chunk;          /* records per slot */
    size_t run_limit;      /* records per run */
    slot slots[SLOTS];
    unsigned next_slot;
    size_t ahead;          /* records read into slots[next_slot] but not yet uploaded */
    int eof;
    cl_mem dk, dv;         /* device buffers of cap records */
    size_t cap;
    cl_event fence;        /* what uploads into dk / dv must wait for (the last run's download) */
    clsort_run *runs;      /* sorted runs waiting for the merge, in memory or in files */
    size_t n_runs, runs_cap;
    size_t total;
    uint64_t n_hint;       /* source->n */
    /* the budget (clsort_stream_settings) and what plan() made of it */
    clsort_stream_settings set;
    uint64_t data_bytes;   /* memory for records besides the staging buffers */
    uint64_t keep_bytes;   /* of which runs kept in memory may take (with the device's, if shared) */
    uint64_t kept;         /* bytes of runs kept in memory now */
    size_t block;          /* records per merge block */
    size_t step;           /* index step of run files */
    unsigned next_dir;
    int dirs_checked;
    double progress_at;    /* when the progress callback was last called */
    const char *dir0[1];   /* the default temporary directory */
    int spilling;          /* a run went to a file: the later ones do too */
    int async_spill;       /* runs are written by the spiller (a device with its own memory) */
    spiller sp;
} stream;

/* Wait for the slot's transfers; their device time goes to *ms. */
static clsort_status slot_wait(stream *s, slot *sl, double *ms)
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 2; i++) {
        if (!sl->busy[i])
            continue;
        cl_int e = clWaitForEvents(1, &sl->busy[i]);
        if (e == CL_SUCCESS)
            *ms += clsort_event_span_ms(sl->busy[i], sl->busy[i]);
        else if (err == CL_SUCCESS)
            err = e;
        clReleaseEvent(sl->busy[i]);
        sl->busy[i] = NULL;
    }
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "a staging transfer");
}

/* An event that completes after every command enqueued so far (in or out of order). */
static clsort_status marker(stream *s, cl_event *ev)
{
    cl_int err = clEnqueueMarkerWithWaitList(s->ctx->queue, 0, NULL, ev);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "clEnqueueMarkerWithWaitList");
}

static void release_event(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
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
    if (st == CLSORT_OK && n && (st = marker(s, &after)) == CLSORT_OK) {
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
        st = marker(s, &s->fence);
    }
    clsort_release_mems(old, 2); /* OpenCL frees them once the copies are done */
    return st;
}

/* The progress callback, at a phase's start (force) and at most five times a second. */
static void progress(stream *s, const char *phase, uint64_t done, uint64_t total, int force)
{
    if (!s->set.progress)
        return;
    const double t = clsort_now_ms();
    if (!force && t - s->progress_at < 200)
        return;
    s->progress_at = t;
    s->set.progress(s->set.progress_user, phase, done, total);
}

/* Read the next chunk into the next slot (once its earlier transfers are done). */
static clsort_status read_ahead(stream *s, size_t want)
{
    slot *sl = &s->slots[s->next_slot];
    clsort_status st = slot_wait(s, sl, &s->st->upload_ms);
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
        progress(s, "sort", s->total, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0, 0);
    }
}

/* Sort the n records in the device buffers after everything enqueued before; *done completes with
 * the sort, *start before it (for the kernel time: account_sort()). */
static clsort_status sort_run(stream *s, size_t n, cl_event *start, cl_event *done)
{
    clsort_status st = marker(s, start);
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

/* Download records [at, at + m) into a slot, after the sort: joined into records for a sink that
 * takes them, else keys and values apart. */
static clsort_status download_chunk(stream *s, slot *sl, size_t at, size_t m, cl_event done,
                                    int joined)
{
    if (joined) { /* joined on the device, then downloaded as records */
        cl_event joined = NULL;
        clsort_status st = clsort_records_enqueue(s->ctx, &s->rec, 1, sl->drec, s->dk, s->dv, m,
                                                  at, 1, &done, &joined);
        if (st != CLSORT_OK)
            return st;
        cl_int err = clEnqueueReadBuffer(s->ctx->queue, sl->drec, CL_FALSE, 0,
                                         m * (s->ks + s->vs), sl->keys, 1, &joined, &sl->busy[0]);
        sl->busy[1] = joined;
        return err == CL_SUCCESS ? CLSORT_OK
                                 : clsort_fail_cl(s->ctx, err, "clEnqueueReadBuffer(stream records)");
    }
    cl_int err = clEnqueueReadBuffer(s->ctx->queue, s->dk, CL_FALSE, at * s->ks, m * s->ks,
                                     sl->keys, 1, &done, &sl->busy[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueReadBuffer(s->ctx->queue, s->dv, CL_FALSE, at * s->vs, m * s->vs,
                                  sl->values, 1, &done, &sl->busy[1]);
    return err == CL_SUCCESS ? CLSORT_OK
                             : clsort_fail_cl(s->ctx, err, "clEnqueueReadBuffer(stream chunk)");
}

static clsort_status sink(stream *s, const void *keys, const void *values, size_t m)
{
    const double t = clsort_now_ms();
    int r = s->out->write(s->out->user, keys, s->vs && !s->rec_out ? values : NULL, m);
    s->st->write_ms += clsort_now_ms() - t;
    return r == 0 ? CLSORT_OK
                  : clsort_fail(s->ctx, CLSORT_ERROR_IO, "the sink reported an error after %zu "
                                "records", s->st->n);
}

/* Bytes still to write to run files, for an error's detail: what is not yet sorted, all of it. */
static uint64_t spill_left(const stream *s, size_t written)
{
    const uint64_t all = s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : s->total;
    const uint64_t done = s->st->temp_bytes / (s->ks + s->vs) + written;
    return all > done ? (all - done) * (s->ks + s->vs) : 0;
}

/* Write a sorted run straight out, to the sink or to a run file (spill): chunks download into the
 * slots SLOTS - 1 ahead of the one being written (the last slot may hold the chunk read ahead for
 * the next run). */
static clsort_status drain_run(stream *s, size_t n, cl_event done, clsort_run *spill)
{
    const size_t chunks = (n + s->chunk - 1) / s->chunk, ring = SLOTS - 1;
    const unsigned base = (s->next_slot + 1) % SLOTS; /* past the read-ahead slot */
    clsort_status st = CLSORT_OK;
    for (size_t j = 0; j < chunks + ring && st == CLSORT_OK; j++) {
        if (j < chunks) { /* enqueue chunk j */
            slot *sl = &s->slots[(base + j % ring) % SLOTS];
            const size_t at = j * s->chunk, m = n - at < s->chunk ? n - at : s->chunk;
            if ((st = slot_wait(s, sl, &s->st->upload_ms)) == CLSORT_OK)
                st = download_chunk(s, sl, at, m, done, s->rec_out && !spill);
        }
        if (j >= ring - 1 && j - (ring - 1) < chunks && st == CLSORT_OK) { /* write chunk k */
            const size_t k = j - (ring - 1);
            slot *sl = &s->slots[(base + k % ring) % SLOTS];
            const size_t at = k * s->chunk, m = n - at < s->chunk ? n - at : s->chunk;
            if ((st = slot_wait(s, sl, &s->st->download_ms)) != CLSORT_OK)
                break;
            if (spill) {
                const double t = clsort_now_ms();
                st = clsort_run_append(s->ctx, s->spec, spill, sl->keys, sl->values, m,
                                       spill_left(s, at + m));
                s->st->spill_ms += clsort_now_ms() - t;
            } else {
                st = sink(s, sl->keys, sl->values, m);
                s->st->n += m;
            }
        }
    }
    return st;
}

/* A new slot at the end of the run list. */
static clsort_run *new_run(stream *s)
{
    if (s->n_runs == s->runs_cap) {
        size_t cap = s->runs_cap ? 2 * s->runs_cap : 8;
        clsort_run *r = realloc(s->runs, cap * sizeof *r);
        if (!r)
            return NULL;
        s->runs = r;
        s->runs_cap = cap;
    }
    clsort_run *run = &s->runs[s->n_runs++];
    memset(run, 0, sizeof *run);
    run->file.fd = -1;
    return run;
}

/* The directory for the next run file (they are used in turn). */
static const char *next_dir(stream *s)
{
    return s->set.temp_dirs[s->next_dir++ % s->set.n_temp_dirs];
}

static void *spiller_main(void *arg)
{
    spiller *sp = arg;
    cl_int err = clWaitForEvents(1, &sp->ready);
    const double t = clsort_now_ms();
    if (err != CL_SUCCESS) {
        sp->st = clsort_fail_cl(sp->ctx, err, "downloading a sorted run");
    } else {
        const size_t ks = clsort_key_type_size(sp->spec->key_type);
        sp->st = clsort_run_append(sp->ctx, sp->spec, &sp->run, sp->mem.host,
                                   sp->spec->value_size ? sp->mem.host + sp->n * ks : NULL, sp->n,
                                   sp->more);
    }
    sp->ms = clsort_now_ms() - t;
    return NULL;
}

/* Wait for the spiller's run to be in its file; its status. */
static clsort_status spill_join(stream *s)
{
    spiller *sp = &s->sp;
    if (!sp->active)
        return CLSORT_OK;
    pthread_join(sp->thread, NULL);
    sp->active = 0;
    release_event(&sp->ready);
    s->runs[sp->index] = sp->run;
    s->st->spill_ms += sp->ms;
    return sp->st;
}

/* Hand the sorted run in the device buffers to the spiller: downloaded whole behind the sort (the
 * next run's uploads wait for it), then written by the thread while the next run is read. */
static clsort_status spill_async(stream *s, clsort_run *run, size_t n, cl_event done)
{
    spiller *sp = &s->sp;
    clsort_status st = spill_join(s);
    const size_t rs = s->ks + s->vs;
    if (st == CLSORT_OK && !sp->mem.host)
        st = clsort_stage_alloc(s->ctx, &sp->mem, s->run_limit * rs);
    if (st != CLSORT_OK)
        return st;
    cl_event ev[2] = { NULL, NULL };
    cl_int err = clEnqueueReadBuffer(s->ctx->queue, s->dk, CL_FALSE, 0, n * s->ks, sp->mem.host, 1,
                                     &done, &ev[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueReadBuffer(s->ctx->queue, s->dv, CL_FALSE, 0, n * s->vs,
                                  sp->mem.host + n * s->ks, 1, &done, &ev[1]);
    release_event(&s->fence);
    if (err == CL_SUCCESS)
        err = clEnqueueMarkerWithWaitList(s->ctx->queue, s->vs ? 2 : 1, ev, &s->fence);
    release_event(&ev[0]);
    release_event(&ev[1]);
    if (err == CL_SUCCESS)
        err = clFlush(s->ctx->queue);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(s->ctx, err, "downloading a sorted run");
    clRetainEvent(s->fence);
    sp->ready = s->fence;
    sp->index = (size_t)(run - s->runs);
    sp->run = *run;
    sp->n = n;
    sp->ctx = s->ctx;
    sp->spec = s->spec;
    sp->more = spill_left(s, n);
    sp->st = CLSORT_OK;
    if (pthread_create(&sp->thread, NULL, spiller_main, sp) != 0) {
        release_event(&sp->ready);
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "cannot start a thread");
    }
    sp->active = 1;
    return CLSORT_OK;
}

/* Several runs: download this one into host memory of its own, behind the sort, when the budget
 * has room; the next run's uploads wait for the download (s->fence). Else write it to a file. */
static clsort_status keep_run(stream *s, size_t n, cl_event done)
{
    const uint64_t bytes = (uint64_t)n * (s->ks + s->vs);
    clsort_run *run = new_run(s);
    if (!run)
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    /* on a device that shares host memory, the device's run and its second buffer count too */
    /* on a device that shares host memory, the device's run and its second buffer count too;
     * elsewhere the spiller's run buffer is kept room for */
    const uint64_t run_bytes = (uint64_t)s->run_limit * (s->ks + s->vs);
    const uint64_t device = (s->ctx->host_unified ? 2 * run_bytes : 0) +
                            (s->async_spill ? run_bytes : 0);
    if (s->spilling || s->kept + bytes + device > s->keep_bytes) { /* spill */
        s->spilling = 1;
        clsort_status st = CLSORT_OK;
        if (!s->dirs_checked) { /* a pipe's input: the first run that needs a file checks */
            s->dirs_checked = 1;
            st = clsort_tempdirs_check(s->ctx, s->set.temp_dirs, s->set.n_temp_dirs, 0, bytes);
        }
        if (st == CLSORT_OK)
            st = clsort_run_create(s->ctx, s->spec, next_dir(s), n, s->step, run);
        if (st == CLSORT_OK)
            st = s->async_spill ? spill_async(s, run, n, done) : drain_run(s, n, done, run);
        s->st->runs_spilled++;
        s->st->temp_bytes += bytes;
        return st;
    }
    run->n = n;
    run->keys = malloc(n * s->ks);
    run->values = s->vs ? malloc(n * s->vs) : NULL;
    if (!run->keys || (s->vs && !run->values))
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "cannot hold a sorted run of %zu records in host memory", n);
    s->kept += bytes;
    cl_event ev[2] = { NULL, NULL };
    cl_int err = clEnqueueReadBuffer(s->ctx->queue, s->dk, CL_FALSE, 0, n * s->ks, run->keys, 1,
                                     &done, &ev[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueReadBuffer(s->ctx->queue, s->dv, CL_FALSE, 0, n * s->vs, run->values, 1,
                                  &done, &ev[1]);
    release_event(&s->fence);
    if (err == CL_SUCCESS)
        err = clEnqueueMarkerWithWaitList(s->ctx->queue, s->vs ? 2 : 1, ev, &s->fence);
    release_event(&ev[0]);
    release_event(&ev[1]);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "downloading a sorted run");
}

/* The merge writes to the sink through here (write time and progress). */
static int merge_sink(void *user, const void *keys, const void *values, size_t m)
{
    stream *s = user;
    clsort_status st = sink(s, keys, values, m);
    s->st->n += m;
    progress(s, "output", s->st->n, s->total, 0);
    return st != CLSORT_OK;
}

typedef struct level_out {
    stream *s;
    clsort_run *run;
} level_out;

/* ... and a merge level to a new run file through here. */
static int level_sink(void *user, const void *keys, const void *values, size_t m)
{
    level_out *o = user;
    stream *s = o->s;
    const double t = clsort_now_ms();
    clsort_status st = clsort_run_append(s->ctx, s->spec, o->run, keys, values, m, 0);
    s->st->spill_ms += clsort_now_ms() - t;
    s->st->temp_bytes += (uint64_t)m * (s->ks + s->vs);
    progress(s, "merge", o->run->written, o->run->n, 0);
    return st != CLSORT_OK;
}

/* More runs than the fan-in: merge g consecutive runs, from *at, into one run file in their place
 * (consecutive, so that equal keys keep the input's order), as few as bring the count down to the
 * fan-in; *at moves on past the new run, so each pass merges the shortest runs first. */
static size_t level_group(size_t count, size_t fan, size_t *at)
{
    const size_t g = count - fan + 1 < fan ? count - fan + 1 : fan;
    if (*at + g > count)
        *at = 0;
    return g;
}

static clsort_status merge_level(stream *s, size_t *at)
{
    const size_t g = level_group(s->n_runs, s->set.fan_in, at);
    clsort_run *first = s->runs + *at;
    size_t n = 0;
    for (size_t r = 0; r < g; r++)
        n += first[r].n;
    clsort_run merged;
    clsort_status st = clsort_run_create(s->ctx, s->spec, next_dir(s), n, s->step, &merged);
    level_out o = { s, &merged };
    const clsort_sink out = { level_sink, &o, 0 };
    progress(s, "merge", 0, n, 1);
    if (st == CLSORT_OK)
        st = clsort_runs_merge(s->ctx, s->spec, first, g, s->set.threads, s->block, &out);
    for (size_t r = 0; r < g; r++) {
        if (first[r].keys)
            s->kept -= (uint64_t)first[r].n * (s->ks + s->vs);
        clsort_run_free(&first[r]);
    }
    first[0] = merged; /* freed with the others, also after an error */
    memmove(first + 1, first + g, (s->n_runs - *at - g) * sizeof *first);
    s->n_runs -= g - 1;
    *at += 1;
    s->st->merge_levels++;
    return st;
}

/* Merge the runs into the sink, a block at a time, after any levels the fan-in asks for. */
static clsort_status merge_runs(stream *s)
{
    clsort_status js = spill_join(s);
    clsort_stage_free(s->ctx, &s->sp.mem);
    if (js != CLSORT_OK)
        return js;
    cl_int err = s->fence ? clWaitForEvents(1, &s->fence) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        return clsort_fail_cl(s->ctx, err, "downloading the sorted runs");
    if (s->ctx->host_unified) { /* the device's buffers are host memory the merge may need */
        cl_mem ms[] = { s->dk, s->dv };
        clsort_release_mems(ms, 2);
        s->dk = s->dv = NULL;
        clsort_release_scratch(s->ctx);
    }
    const double t0 = clsort_now_ms(), w0 = s->st->write_ms + s->st->spill_ms;
    clsort_status st = CLSORT_OK;
    size_t at = 0;
    while (st == CLSORT_OK && s->n_runs > s->set.fan_in)
        st = merge_level(s, &at);
    const clsort_sink out = { merge_sink, s, s->rec_out };
    progress(s, "output", 0, s->total, 1);
    if (st == CLSORT_OK)
        st = clsort_runs_merge(s->ctx, s->spec, s->runs, s->n_runs, s->set.threads, s->block, &out);
    s->st->merge_ms = clsort_now_ms() - t0 - (s->st->write_ms + s->st->spill_ms - w0);
    s->st->merge_threads = s->set.threads;
    return st;
}

/* The settings with their defaults filled in. */
static void resolve_settings(stream *s, const clsort_stream_settings *given)
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
    if (!s->set.threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        s->set.threads = cpus < 1 ? 1 : cpus > 16 ? 16 : (unsigned)cpus;
    }
    if (!s->set.fan_in)
        s->set.fan_in = 64;
}

/* The budget: staging buffers first (smaller under a small budget), then the merge blocks, then
 * runs kept in memory; a run is at most what is left (on a device that shares host memory, half of
 * it: the data and the sort's second buffer). */
static clsort_status plan_budget(stream *s, size_t *max_n)
{
    const size_t rs = s->ks + s->vs;
    const uint64_t budget = s->set.memory_bytes;
    size_t stage = s->ctx->settings.stage_bytes;
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
    s->data_bytes = budget - staging;
    /* merge blocks: each thread holds three (input and level, the other level, output), at most
     * 32 MiB each */
    uint64_t per = s->data_bytes / 2 / (3 * (uint64_t)s->set.threads);
    if (per > (32u << 20))
        per = 32u << 20;
    s->block = per / rs ? (size_t)(per / rs) : 1;
    /* a cut reads fewer than step records per run: a small part of a block */
    s->step = s->block / (4 * (size_t)s->set.fan_in);
    if (s->step < 1)
        s->step = 1;
    const uint64_t merge_bytes = 3 * (uint64_t)s->set.threads * s->block * rs;
    s->keep_bytes = s->data_bytes > merge_bytes ? s->data_bytes - merge_bytes : 0;
    const uint64_t device_share = s->ctx->host_unified ? 2 : 1;
    const uint64_t run_cap = s->data_bytes / (device_share * rs);
    if (run_cap < *max_n)
        *max_n = run_cap > 2 ? (size_t)run_cap : 2;
    return CLSORT_OK;
}

/* Records per run: what one device sort takes, and the budget allows (the setting
 * CLSORT_CHUNK_KEYS lowers it, to test runs on small inputs); segmented sorts cut at segment
 * boundaries, and a known size is cut into runs of equal length. */
static clsort_status plan(stream *s, uint64_t n_hint)
{
    size_t max_n;
    clsort_status st = clsort_max_keys(s->ctx, s->spec, &max_n);
    if (st != CLSORT_OK || (st = plan_budget(s, &max_n)) != CLSORT_OK)
        return st;
    const size_t seg = s->spec->segment, test = s->ctx->settings.chunk_keys;
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
    /* the first device buffers: the whole input when its size is known, else room to grow from */
    s->cap = n_hint != CLSORT_SIZE_UNKNOWN ? (size_t)(n_hint < s->run_limit ? n_hint : s->run_limit)
                                           : 16 * s->chunk;
    if (s->cap > s->run_limit)
        s->cap = s->run_limit;
    if (s->cap < 1)
        s->cap = 1;
    return CLSORT_OK;
}

/* A known input that will need run files: the directories checked before anything is read, for
 * the whole input (what memory keeps is not counted on) and the largest file a merge level makes. */
static clsort_status plan_spill(stream *s)
{
    const uint64_t n = s->n_hint, rs = s->ks + s->vs;
    const uint64_t device = s->ctx->host_unified ? 2 * (uint64_t)s->run_limit * rs : 0;
    if (n == CLSORT_SIZE_UNKNOWN || n <= s->run_limit || s->spec->segment ||
        n * rs + device <= s->keep_bytes)
        return CLSORT_OK;
    /* the levels merge_runs() will make, on run sizes alone: the largest file they write */
    size_t count = (size_t)((n + s->run_limit - 1) / s->run_limit);
    uint64_t largest = (uint64_t)s->run_limit * rs;
    const size_t fan = s->set.fan_in;
    if (count > fan) {
        uint64_t *size = malloc(count * sizeof *size);
        if (!size)
            return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
        for (size_t i = 0; i < count; i++)
            size[i] = (uint64_t)s->run_limit * rs;
        size_t at = 0;
        while (count > fan) {
            const size_t g = level_group(count, fan, &at);
            uint64_t sum = 0;
            for (size_t i = 0; i < g; i++)
                sum += size[at + i];
            size[at] = sum;
            memmove(size + at + 1, size + at + g, (count - at - g) * sizeof *size);
            count -= g - 1;
            at++;
            largest = sum > largest ? sum : largest;
        }
        free(size);
    }
    s->dirs_checked = 1;
    return clsort_tempdirs_check(s->ctx, s->set.temp_dirs, s->set.n_temp_dirs, n * rs, largest);
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
        st = plan_spill(s);
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
    spill_join(s);
    clsort_stage_free(s->ctx, &s->sp.mem);
    double ms = 0;
    for (int i = 0; i < SLOTS; i++) {
        slot_wait(s, &s->slots[i], &ms);
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
    progress(s, "sort", 0, s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : 0, 1);
    for (;;) {
        size_t n;
        if ((st = fill_run(s, &n)) != CLSORT_OK || (st = account_sort(s, &start, &done)) != CLSORT_OK)
            break;
        const int last = s->eof && !s->ahead, direct = s->spec->segment || (last && !s->n_runs);
        if (n > 0 && (st = sort_run(s, n, &start, &done)) == CLSORT_OK) {
            if (direct && (st = drain_run(s, n, done, NULL)) == CLSORT_OK)
                st = account_sort(s, &start, &done);
            else if (!direct)
                st = keep_run(s, n, done);
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
        st = merge_runs(s);
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
    if (!spec) {
        clsort_spec_default(&def);
        spec = &def;
    }
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
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
    resolve_settings(&s, settings);
    s.async_spill = ctx->settings.spill_thread >= 0 ? ctx->settings.spill_thread : !ctx->host_unified;
    VALIDATE(ctx, s.set.fan_in >= 2);
    stats->memory_bytes = s.set.memory_bytes;
    if ((st = plan(&s, in->n)) == CLSORT_OK && (st = setup(&s)) == CLSORT_OK)
        st = pipeline(&s);
    teardown(&s);
    stats->algorithm = clsort_algorithm_name(clsort_dispatch_ran(ctx, spec));
    stats->staging = clsort_staging_name(s.slots[0].mem.kind);
    stats->programs_built = ctx->programs_built - built0;
    stats->programs_cached = ctx->programs_cached - cached0;
    stats->passes_skipped = ctx->passes_skipped - skipped0;
    stats->total_ms = clsort_now_ms() - t0;
    stats->gkeys_per_s =
        stats->n && stats->kernel_ms > 0 ? (double)stats->n / (stats->kernel_ms * 1e6) : 0.0;
    return st;
}
