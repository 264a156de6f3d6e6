/*
 * clsort_sort_stream's way out of the device: a sorted run downloaded through the staging slots a
 * chunk at a time and written to the sink or to a run file; the sink call and the progress callback
 * with their accounting.
 * Calls: records.c (joining records on the device), runmerge.c (run files), status.c.
 */
#include "stream.h"

/* Wait for the slot's transfers; their device time goes to *ms. */
clsort_status clsort_stream_slot_wait(stream *s, slot *sl, double *ms)
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

/* The progress callback, at a phase's start (force) and at most five times a second. */
void clsort_stream_progress(stream *s, const char *phase, uint64_t done, uint64_t total, int force)
{
    if (!s->set.progress)
        return;
    const double t = clsort_now_ms();
    if (!force && t - s->progress_at < 200)
        return;
    s->progress_at = t;
    s->set.progress(s->set.progress_user, phase, done, total);
}

/* Download records [at, at + m) into a slot, after the sort: joined into records for a sink that
 * takes them, else keys and values apart. */
static clsort_status download_chunk(stream *s, slot *sl, size_t at, size_t m, cl_event done,
                                    int joined)
{
    if (joined) { /* joined on the device, then downloaded as records */
        cl_event ev = NULL;
        clsort_status st = clsort_records_enqueue(s->ctx, &s->rec, 1, sl->drec, s->dk, s->dv, m,
                                                  at, 1, &done, &ev);
        if (st != CLSORT_OK)
            return st;
        cl_int err = clEnqueueReadBuffer(s->ctx->queue, sl->drec, CL_FALSE, 0,
                                         m * (s->ks + s->vs), sl->keys, 1, &ev, &sl->busy[0]);
        sl->busy[1] = ev;
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

clsort_status clsort_stream_sink(stream *s, const void *keys, const void *values, size_t m)
{
    const double t = clsort_now_ms();
    int r = s->out->write(s->out->user, keys, s->vs && !s->rec_out ? values : NULL, m);
    s->st->write_ms += clsort_now_ms() - t;
    return r == 0 ? CLSORT_OK
                  : clsort_fail(s->ctx, CLSORT_ERROR_IO, "the sink reported an error after %zu "
                                "records", s->st->n);
}

/* Bytes still to write to run files, for an error's detail: what is not yet sorted, all of it. */
uint64_t clsort_stream_spill_left(const stream *s, size_t written)
{
    const uint64_t all = s->n_hint != CLSORT_SIZE_UNKNOWN ? s->n_hint : s->total;
    const uint64_t done = s->st->temp_bytes / (s->ks + s->vs) + written;
    return all > done ? (all - done) * (s->ks + s->vs) : 0;
}

/* Write a sorted run straight out, to the sink or to a run file (spill): chunks download into the
 * slots SLOTS - 1 ahead of the one being written (the last slot may hold the chunk read ahead for
 * the next run). */
clsort_status clsort_stream_drain(stream *s, size_t n, cl_event done, clsort_run *spill)
{
    const size_t chunks = (n + s->chunk - 1) / s->chunk, ring = SLOTS - 1;
    const unsigned base = (s->next_slot + 1) % SLOTS; /* past the read-ahead slot */
    clsort_status st = CLSORT_OK;
    for (size_t j = 0; j < chunks + ring && st == CLSORT_OK; j++) {
        if (j < chunks) { /* enqueue chunk j */
            slot *sl = &s->slots[(base + j % ring) % SLOTS];
            const size_t at = j * s->chunk, m = n - at < s->chunk ? n - at : s->chunk;
            if ((st = clsort_stream_slot_wait(s, sl, &s->st->upload_ms)) == CLSORT_OK)
                st = download_chunk(s, sl, at, m, done, s->rec_out && !spill);
        }
        if (j >= ring - 1 && j - (ring - 1) < chunks && st == CLSORT_OK) { /* write chunk k */
            const size_t k = j - (ring - 1);
            slot *sl = &s->slots[(base + k % ring) % SLOTS];
            const size_t at = k * s->chunk, m = n - at < s->chunk ? n - at : s->chunk;
            if ((st = clsort_stream_slot_wait(s, sl, &s->st->download_ms)) != CLSORT_OK)
                break;
            if (spill) {
                const double t = clsort_now_ms();
                st = clsort_run_append(s->ctx, s->spec, &s->lay, spill, sl->keys, sl->values, m,
                                       clsort_stream_spill_left(s, at + m));
                s->st->spill_ms += clsort_now_ms() - t;
            } else {
                st = clsort_stream_sink(s, sl->keys, sl->values, m);
                s->st->n += m;
            }
        }
    }
    return st;
}
