/*
 * The runs of clsort_sort_stream() (and of clsort_sort_stream_records(), whose runs are sorted on
 * the host's side) when there is more than one: each kept in host memory while the budget allows,
 * else written to a nameless run file (from a thread of its own where the device has memory of its
 * own, so the next run is read meanwhile); then merged into the sink by runmerge.c, after levels
 * that bring the count down to the fan-in.
 * Calls: drain.c (the drain, the sink, progress), runmerge.c, runfile.c, stage.c, status.c.
 */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

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

/* The n sorted records in the device buffers to host memory, behind the sort; the next run's
 * uploads wait for the download (s->fence). */
static clsort_status download_run(stream *s, size_t n, cl_event done, void *keys, void *values)
{
    cl_event ev[2] = { NULL, NULL };
    cl_int err = clEnqueueReadBuffer(s->ctx->queue, s->dk, CL_FALSE, 0, n * s->ks, keys, 1, &done,
                                     &ev[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueReadBuffer(s->ctx->queue, s->dv, CL_FALSE, 0, n * s->vs, values, 1, &done,
                                  &ev[1]);
    release_event(&s->fence);
    if (err == CL_SUCCESS)
        err = clEnqueueMarkerWithWaitList(s->ctx->queue, s->vs ? 2 : 1, ev, &s->fence);
    release_event(&ev[0]);
    release_event(&ev[1]);
    return err == CL_SUCCESS ? CLSORT_OK : clsort_fail_cl(s->ctx, err, "downloading a sorted run");
}

/* Host memory a run needs besides the kept runs, while runs are sorted: on a device that shares
 * host memory, the device's run and its second buffer; with the spillers, their run buffers. */
static uint64_t run_overhead(const stream *s)
{
    if (s->fields) /* the run being sorted has its own share of the budget (fields_stream.c) */
        return 0;
    const uint64_t run_bytes = (uint64_t)s->run_limit * (s->ks + s->vs);
    return (s->ctx->host_unified ? 2 * run_bytes : 0) + (s->async_spill ? s->spillers * run_bytes : 0);
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
        sp->st = clsort_run_append(sp->ctx, sp->spec, NULL, &sp->run, sp->mem.host,
                                   sp->spec->value_size ? sp->mem.host + sp->n * ks : NULL, sp->n,
                                   sp->more);
    }
    sp->ms = clsort_now_ms() - t;
    return NULL;
}

/* Wait for a spiller's run to be in its file; its status. */
static clsort_status join(stream *s, spiller *sp)
{
    if (!sp->active)
        return CLSORT_OK;
    pthread_join(sp->thread, NULL);
    sp->active = 0;
    release_event(&sp->ready);
    s->runs[sp->index] = sp->run;
    s->st->spill_ms += sp->ms;
    return sp->st;
}

clsort_status clsort_stream_spill_join(stream *s)
{
    clsort_status st = CLSORT_OK;
    for (int i = 0; i < SPILLERS; i++) {
        const clsort_status one = join(s, &s->sp[i]);
        st = st == CLSORT_OK ? one : st;
    }
    return st;
}

void clsort_stream_spill_free(stream *s)
{
    for (int i = 0; i < SPILLERS; i++)
        clsort_stage_free(s->ctx, &s->sp[i].mem);
}

/* Hand the sorted run in the device buffers to the next spiller: downloaded whole behind the sort
 * (the next run's uploads wait for it), then written by its thread while the next runs are read. */
static clsort_status spill_async(stream *s, clsort_run *run, size_t n, cl_event done)
{
    spiller *sp = &s->sp[s->next_spiller++ % s->spillers];
    clsort_status st = join(s, sp);
    const size_t rs = s->ks + s->vs;
    if (st == CLSORT_OK && !sp->mem.host)
        st = clsort_stage_alloc(s->ctx, &sp->mem, s->run_limit * rs);
    if (st != CLSORT_OK)
        return st;
    if ((st = download_run(s, n, done, sp->mem.host, sp->mem.host + n * s->ks)) != CLSORT_OK)
        return st;
    cl_int err = clFlush(s->ctx->queue); /* the thread waits for the download: it must start */
    if (err != CL_SUCCESS)
        return clsort_fail_cl(s->ctx, err, "clFlush");
    clRetainEvent(s->fence);
    sp->ready = s->fence;
    sp->index = (size_t)(run - s->runs);
    sp->run = *run;
    sp->n = n;
    sp->ctx = s->ctx;
    sp->spec = s->spec;
    sp->more = clsort_stream_spill_left(s, n);
    sp->st = CLSORT_OK;
    if (pthread_create(&sp->thread, NULL, spiller_main, sp) != 0) {
        release_event(&sp->ready);
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "cannot start a thread");
    }
    sp->active = 1;
    return CLSORT_OK;
}

/* A run of n records (bytes) in a new file: from this run on every run goes to a file; the
 * directories checked by the first run that needs one (a pipe's input is not planned ahead). */
static clsort_status create_file_run(stream *s, clsort_run *run, size_t n, uint64_t bytes)
{
    s->spilling = 1;
    if (!s->dirs_checked) {
        s->dirs_checked = 1;
        clsort_status st =
            clsort_tempdirs_check(s->ctx, s->set.temp_dirs, s->set.n_temp_dirs, 0, bytes);
        if (st != CLSORT_OK)
            return st;
    }
    return clsort_run_create(s->ctx, s->spec, &s->lay, next_dir(s), n, s->step, run);
}

/* Several runs: this one downloaded into host memory of its own when the budget has room, else
 * written to a file (and so are the later ones). */
clsort_status clsort_stream_keep_run(stream *s, size_t n, cl_event done)
{
    const uint64_t bytes = (uint64_t)n * (s->ks + s->vs);
    clsort_run *run = new_run(s);
    if (!run)
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (s->spilling || s->kept + bytes + run_overhead(s) > s->keep_bytes) { /* spill */
        clsort_status st = create_file_run(s, run, n, bytes);
        if (st == CLSORT_OK)
            st = s->async_spill ? spill_async(s, run, n, done) : clsort_stream_drain(s, n, done, run);
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
    return download_run(s, n, done, run->keys, run->values);
}

clsort_status clsort_stream_keep_host_run(stream *s, unsigned char **keys, unsigned char **values,
                                          size_t n)
{
    const uint64_t bytes = (uint64_t)n * (s->ks + s->vs);
    clsort_run *run = new_run(s);
    if (!run)
        return clsort_fail(s->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (s->spilling || s->kept + bytes > s->keep_bytes) { /* spill */
        clsort_status st = create_file_run(s, run, n, bytes);
        const double t = clsort_now_ms();
        if (st == CLSORT_OK)
            st = clsort_run_append(s->ctx, s->spec, &s->lay, run, *keys, values ? *values : NULL,
                                   n, clsort_stream_spill_left(s, n));
        s->st->spill_ms += clsort_now_ms() - t;
        s->st->runs_spilled++;
        s->st->temp_bytes += bytes;
        return st;
    }
    run->n = n;
    run->keys = *keys;
    run->values = values ? *values : NULL;
    *keys = NULL;
    if (values)
        *values = NULL;
    s->kept += bytes;
    return CLSORT_OK;
}

/* The merge writes to the sink through here (write time and progress). */
static int merge_sink(void *user, const void *keys, const void *values, size_t m)
{
    stream *s = user;
    clsort_status st = clsort_stream_sink(s, keys, values, m);
    s->st->n += m;
    clsort_stream_progress(s, "output", s->st->n, s->total, 0);
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
    clsort_status st = clsort_run_append(s->ctx, s->spec, &s->lay, o->run, keys, values, m, 0);
    s->st->spill_ms += clsort_now_ms() - t;
    s->st->temp_bytes += (uint64_t)m * (s->ks + s->vs);
    clsort_stream_progress(s, "merge", o->run->written, o->run->n, 0);
    return st != CLSORT_OK;
}

/* A merge block sorted on the device (clsort_block_sorter): uploaded into the run buffers (free
 * once the runs are sorted), sorted, downloaded in place. The sort is stable, so the pieces, laid
 * one after the other in run order, come out merged. */
static clsort_status device_block_sort(void *user, void *keys, void *values, size_t n)
{
    stream *s = user;
    cl_command_queue q = s->ctx->queue;
    cl_event up[2] = { NULL, NULL }, done = NULL;
    cl_int err = clEnqueueWriteBuffer(q, s->dk, CL_FALSE, 0, n * s->ks, keys, 0, NULL, &up[0]);
    if (err == CL_SUCCESS && s->vs)
        err = clEnqueueWriteBuffer(q, s->dv, CL_FALSE, 0, n * s->vs, values, 0, NULL, &up[1]);
    if (err != CL_SUCCESS) {
        release_event(&up[0]);
        clFinish(q);
        return clsort_fail_cl(s->ctx, err, "uploading a merge block");
    }
    /* a merge must be stable: the comparison sorts (and odd-even's size limit) give way to radix */
    clsort_spec spec = *s->spec;
    if (spec.algorithm == CLSORT_ALGO_BITONIC || spec.algorithm == CLSORT_ALGO_ODDEVEN)
        spec.algorithm = CLSORT_ALGO_AUTO;
    clsort_status st = clsort_enqueue_kept(s->ctx, &spec, s->dk, s->vs ? s->dv : NULL, n,
                                           s->vs ? 2 : 1, up, &done);
    if (st == CLSORT_OK) {
        err = clEnqueueReadBuffer(q, s->dk, CL_TRUE, 0, n * s->ks, keys, 1, &done, NULL);
        if (err == CL_SUCCESS && s->vs)
            err = clEnqueueReadBuffer(q, s->dv, CL_TRUE, 0, n * s->vs, values, 1, &done, NULL);
        if (err != CL_SUCCESS)
            st = clsort_fail_cl(s->ctx, err, "downloading a merge block");
    }
    if (st != CLSORT_OK)
        clFinish(q); /* nothing may still read or write the block's memory */
    release_event(&up[0]);
    release_event(&up[1]);
    release_event(&done);
    return st;
}

/* Merge runs[0..k) into out, on the device where the stream chose it. */
static clsort_status merge(stream *s, clsort_run *runs, size_t k, const clsort_sink *out)
{
    const clsort_block_sorter device =
        s->fields ? s->fields_sorter : (clsort_block_sorter){ device_block_sort, s };
    /* a block fits the run buffers (smaller than a run, unless CLSORT_CHUNK_KEYS made runs tiny);
     * records by a key field sort their blocks from host memory */
    const size_t block = s->device_merge && !s->fields && s->block > s->cap ? s->cap : s->block;
    return clsort_runs_merge_layout(s->ctx, s->spec, &s->lay, runs, k, s->set.threads, block,
                                    s->device_merge ? &device : NULL, out);
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
    clsort_status st = clsort_run_create(s->ctx, s->spec, &s->lay, next_dir(s), n, s->step, &merged);
    level_out o = { s, &merged };
    const clsort_sink out = { level_sink, &o, 0 };
    clsort_stream_progress(s, "merge", 0, n, 1);
    if (st == CLSORT_OK)
        st = merge(s, first, g, &out);
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
clsort_status clsort_stream_merge_runs(stream *s)
{
    clsort_status js = clsort_stream_spill_join(s);
    clsort_stream_spill_free(s);
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
        s->cap = 0;
        if (s->device_merge && !s->fields) { /* ... all but a block's, when the device sorts the
                                              * blocks */
            clsort_status as = clsort_alloc(s->ctx, s->block * s->ks, &s->dk, "merge keys");
            if (as == CLSORT_OK && s->vs)
                as = clsort_alloc(s->ctx, s->block * s->vs, &s->dv, "merge values");
            if (as != CLSORT_OK)
                return as;
            s->cap = s->block;
        }
    }
    const double t0 = clsort_now_ms(), w0 = s->st->write_ms + s->st->spill_ms;
    clsort_status st = CLSORT_OK;
    size_t at = 0;
    while (st == CLSORT_OK && s->n_runs > s->set.fan_in)
        st = merge_level(s, &at);
    const clsort_sink out = { merge_sink, s, s->rec_out };
    clsort_stream_progress(s, "output", 0, s->total, 1);
    if (st == CLSORT_OK)
        st = merge(s, s->runs, s->n_runs, &out);
    s->st->merge_ms = clsort_now_ms() - t0 - (s->st->write_ms + s->st->spill_ms - w0);
    s->st->merge_threads = s->set.threads;
    s->st->merged_on_device = s->device_merge;
    return st;
}

/* A known input that will need run files: the directories checked before anything is read, for
 * the whole input (what memory keeps is not counted on) and the largest file a merge level makes. */
clsort_status clsort_stream_plan_spill(stream *s)
{
    const uint64_t n = s->n_hint, rs = s->ks + s->vs;
    if (n == CLSORT_SIZE_UNKNOWN || n <= s->run_limit || s->spec->segment ||
        n * rs + run_overhead(s) <= s->keep_bytes)
        return CLSORT_OK;
    /* the levels clsort_stream_merge_runs() will make, on run sizes alone: the largest file they write */
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
