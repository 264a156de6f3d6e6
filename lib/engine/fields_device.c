/*
 * Records by a key field with the records on the device (cl/fields.cl), for devices with memory of
 * their own: the records go up once, the keys are read out of them there, the stable sorts of the
 * key's words carry a permutation from word to word without leaving the device (the first is an
 * argsort, which makes it), and the records are gathered by it there, so the host does nothing but
 * the two transfers. The host's way (fields.c)
 * reads every key and gathers every record on the host's threads, a random read per record: on an
 * H100 machine 2^24 records of 100 bytes took 1.3-1.8 s that way beyond their kernels.
 * Calls: api.c (clsort_enqueue), run.c (reserving), dispatch.c (the sorts' scratch), transfer.c
 * (the records up and back), options.c, program.c, buffers.c, chain.c (clocks), status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Work-groups of the kernels: enough per compute unit to keep memory busy, each work-item taking
 * several records where there are many. */
enum { FIELDS_WG = 256, FIELDS_GROUPS_PER_CU = 16 };

void clsort_fields_word_spec(const clsort_spec *spec, const clsort_fields *f, size_t w,
                             clsort_spec *s)
{
    *s = *spec;
    s->value_size = f->ps;
    if (!f->key_size) /* a number at the offset: the spec's own type, order and bit range */
        return;
    /* a word of bytes, big-endian: the bytes past the key are zero and are not sorted on */
    const size_t bytes = w + 1 == f->words ? f->key_size - w * 8 : 8;
    s->key_type = CLSORT_KEY_U64;
    s->begin_bit = (unsigned)(64 - 8 * bytes);
    s->end_bit = bytes == 8 ? 0 : 64;
}

int clsort_fields_device_fits(clsort_context *ctx, const clsort_spec *spec, const clsort_fields *f)
{
    const int set = ctx->settings.device_gather;
    if (set == 0 || (set < 0 && ctx->host_unified) || f->n < 2)
        return 0;
    const size_t n = f->n, rest = f->words - 1;
    if (f->rs > ctx->max_alloc / n || (rest && 8 * rest > ctx->max_alloc / n))
        return 0;
    clsort_spec s;
    clsort_fields_word_spec(spec, f, f->words - 1, &s);
    if (clsort_dispatch_check_fits(ctx, &s, n, 1) != CLSORT_OK) {
        clsort_clear_detail(ctx);
        return 0;
    }
    /* two copies of the records, the other words, the sorted word, the positions, the scratch */
    const double need = 2.0 * n * f->rs + 8.0 * n * rest + (double)n * (f->ks + f->ps) +
                        clsort_dispatch_scratch(ctx, &s, n);
    return need <= (double)ctx->global_mem;
}

typedef struct dev_fields {
    cl_kernel extract, gather_word, gather;
    cl_mem rec, out, kcur, words, perm;
    cl_event up0, up, first, last, down[4]; /* down: the records' first and last, the index's */
    size_t wg, global;
} dev_fields;

static clsort_status dev_kernels(clsort_context *ctx, const clsort_fields *f, dev_fields *d)
{
    const size_t wg = ctx->max_wg < FIELDS_WG ? ctx->max_wg : FIELDS_WG;
    const size_t cus = ctx->compute_units ? ctx->compute_units : 1;
    size_t groups = (f->n + wg - 1) / wg;
    if (groups > cus * FIELDS_GROUPS_PER_CU)
        groups = cus * FIELDS_GROUPS_PER_CU;
    d->wg = wg;
    d->global = groups * wg;
    const int rec32 = f->rs % 4 == 0;
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, wg);
    clsort_opts_add(&opts, RS, f->rs);
    clsort_opts_add(&opts, OFF, f->off);
    if (f->key_size) {
        clsort_opts_add(&opts, KEY_SIZE, f->key_size);
        clsort_opts_add(&opts, WORDS, f->words);
    } else {
        clsort_opts_add(&opts, KS, f->ks);
    }
    clsort_opts_add_text(&opts, INDEX_T, f->ps == 4 ? "uint" : "ulong");
    clsort_opts_add_text(&opts, REC_T, rec32 ? "uint" : "uchar");
    clsort_opts_add(&opts, RW, rec32 ? f->rs / 4 : f->rs);
    cl_program prog;
    clsort_status st = clsort_get_program(ctx, "fields", clsort_cl_fields, clsort_cl_fields_len,
                                          &opts, &prog);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "fields_extract", &d->extract);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "fields_gather_word", &d->gather_word);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, "fields_gather", &d->gather);
    return st;
}

static clsort_status dev_buffers(clsort_context *ctx, const clsort_fields *f, dev_fields *d)
{
    const size_t n = f->n, rest = f->words - 1;
    clsort_status st;
    if ((st = clsort_alloc(ctx, n * f->rs, &d->rec, "records")) != CLSORT_OK ||
        (st = clsort_alloc(ctx, n * f->rs, &d->out, "sorted records")) != CLSORT_OK ||
        (st = clsort_alloc(ctx, n * f->ks, &d->kcur, "keys")) != CLSORT_OK ||
        (st = clsort_alloc(ctx, rest ? n * 8 * rest : 8, &d->words, "key words")) != CLSORT_OK)
        return st;
    return clsort_alloc(ctx, n * f->ps, &d->perm, "positions");
}

/* Kernel k over the records after *ev (none if NULL); *ev becomes the launch. The first launch is
 * also kept in d->first, for the kernel time. */
static clsort_status dev_launch(clsort_context *ctx, dev_fields *d, cl_kernel k,
                                const char *name, cl_event *ev)
{
    cl_event done;
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &d->global, &d->wg, *ev ? 1 : 0,
                                        *ev ? ev : NULL, &done);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, name);
    if (*ev)
        clReleaseEvent(*ev);
    *ev = done;
    if (!d->first) {
        d->first = done;
        clRetainEvent(done);
    }
    return CLSORT_OK;
}

/* Every command up to the gathered records, after the upload; *ev ends the chain. */
static clsort_status dev_enqueue_all(clsort_context *ctx, const clsort_spec *spec,
                                     const clsort_fields *f, dev_fields *d, cl_event *ev)
{
    const cl_ulong n = f->n;
    clsort_status st = clsort_set_args(ctx, d->extract, "fields_extract", 4, ARG(d->rec),
                                       ARG(d->kcur), ARG(d->words), ARG(n));
    if (st == CLSORT_OK)
        st = dev_launch(ctx, d, d->extract, "fields_extract", ev);
    for (size_t w = f->words; w-- > 0 && st == CLSORT_OK;) {
        if (w + 1 < f->words) { /* this word, in the order the later words' sorts left */
            const cl_ulong w64 = w;
            st = clsort_set_args(ctx, d->gather_word, "fields_gather_word", 5, ARG(d->words),
                                 ARG(d->kcur), ARG(d->perm), ARG(n), ARG(w64));
            if (st == CLSORT_OK)
                st = dev_launch(ctx, d, d->gather_word, "fields_gather_word", ev);
        }
        clsort_spec s;
        clsort_fields_word_spec(spec, f, w, &s);
        cl_event sorted = NULL;
        if (st == CLSORT_OK && w + 1 == f->words) { /* the first: an argsort, positions made */
            s.value_size = 0;
            st = clsort_argsort_enqueue(ctx, &s, d->kcur, d->perm, f->ps, f->n, 1, ev, &sorted);
        } else if (st == CLSORT_OK) {
            st = clsort_enqueue(ctx, &s, d->kcur, d->perm, f->n, 1, ev, &sorted);
        }
        if (sorted) {
            clReleaseEvent(*ev);
            *ev = sorted;
        }
    }
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, d->gather, "fields_gather", 4, ARG(d->rec), ARG(d->out),
                             ARG(d->perm), ARG(n));
    if (st == CLSORT_OK)
        st = dev_launch(ctx, d, d->gather, "fields_gather", ev);
    return st;
}

/* The sorted records (and positions) back; the positions widened to 8 bytes where they are 4. */
static clsort_status dev_download(clsort_context *ctx, const clsort_fields *f, dev_fields *d,
                                  void *records, uint64_t *index, int *touched)
{
    uint32_t *narrow = NULL;
    if (index && f->ps == 4 && !(narrow = malloc(f->n * 4)))
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory for the positions of %zu records", f->n);
    *touched = 1;
    clsort_status st = clsort_download(ctx, d->out, records, f->n * f->rs, d->last, &d->down[0],
                                       &d->down[1]);
    if (st == CLSORT_OK && index)
        st = clsort_download(ctx, d->perm, narrow ? (void *)narrow : (void *)index, f->n * f->ps,
                             d->last, &d->down[2], &d->down[3]);
    const cl_int err = clFinish(ctx->queue);
    if (st == CLSORT_OK && err != CL_SUCCESS)
        st = clsort_fail_cl(ctx, err, "reading the sorted records back");
    for (size_t i = 0; narrow && st == CLSORT_OK && i < f->n; i++)
        index[i] = narrow[i];
    free(narrow);
    return st;
}

clsort_status clsort_fields_device_sort(clsort_context *ctx, const clsort_spec *spec,
                                        const clsort_fields *f, void *records, uint64_t *index,
                                        int *touched, clsort_stats *stats)
{
    const unsigned built0 = ctx->programs_built, cached0 = ctx->programs_cached;
    dev_fields d = { 0 };
    *touched = 0;
    clsort_status st;
    if ((st = dev_kernels(ctx, f, &d)) != CLSORT_OK || (st = dev_buffers(ctx, f, &d)) != CLSORT_OK)
        goto done;
    /* every sort's programs and scratch now, so that the kernel time holds no compiling */
    for (size_t w = 0; w < f->words && st == CLSORT_OK; w++) {
        clsort_spec s;
        clsort_fields_word_spec(spec, f, w, &s);
        st = clsort_reserve_buffers(ctx, &s, d.kcur, d.perm, f->n, w + 1 == f->words);
    }
    if (st != CLSORT_OK)
        goto done;
    if ((st = clsort_upload(ctx, d.rec, records, f->n * f->rs, &d.up0, &d.up)) != CLSORT_OK)
        goto done;
    d.last = d.up;
    if (d.up)
        clRetainEvent(d.up);
    st = dev_enqueue_all(ctx, spec, f, &d, &d.last);
    if (st != CLSORT_OK) {
        clFinish(ctx->queue); /* nothing of ours may still run when the buffers go */
        goto done;
    }
    if ((st = dev_download(ctx, f, &d, records, index, touched)) != CLSORT_OK)
        goto done;
    if (stats) {
        clsort_spec s;
        clsort_fields_word_spec(spec, f, f->words - 1, &s);
        stats->n = f->n;
        stats->algorithm = clsort_algorithm_name(clsort_dispatch_ran(ctx, &s, f->n));
        stats->programs_built = ctx->programs_built - built0;
        stats->programs_cached = ctx->programs_cached - cached0;
        if (ctx->profiling) {
            stats->kernel_ms = clsort_event_span_ms(d.first, d.last);
            stats->upload_ms = clsort_event_span_ms(d.up0, d.up);
            stats->download_ms = clsort_event_span_ms(d.down[0], d.down[1]);
        }
    }
done:;
    cl_event evs[] = { d.up0, d.up, d.first, d.last, d.down[0], d.down[1], d.down[2], d.down[3] };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i])
            clReleaseEvent(evs[i]);
    cl_kernel ks[] = { d.extract, d.gather_word, d.gather };
    for (size_t i = 0; i < 3; i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    cl_mem ms[] = { d.rec, d.out, d.kcur, d.words, d.perm };
    clsort_release_mems(ms, sizeof ms / sizeof ms[0]);
    return st;
}
