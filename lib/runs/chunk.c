/*
 * Host sorts larger than the device takes at once: runs that fit are sorted one after another in a
 * host copy of the input (clsort_run_host), then merged into the caller's arrays by the stream
 * sort's merge (runmerge.c, on the host's threads). The merge takes the earlier run on equal keys,
 * so stable algorithms stay stable; the caller's arrays are written only once every run has sorted
 * and the merge's buffers are in hand, so a failure leaves them as they were.
 * Calls: run.c, runmerge.c, keys.c, status.c.
 */
#include "internal.h"
#include "runmerge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void clsort_stats_add(clsort_stats *total, const clsort_stats *s)
{
    total->algorithm = s->algorithm;
    total->kernel_ms += s->kernel_ms;
    total->upload_ms += s->upload_ms;
    total->download_ms += s->download_ms;
    total->programs_built += s->programs_built;
    total->programs_cached += s->programs_cached;
    total->passes_skipped += s->passes_skipped;
}

/* The merge's output, in order, into the caller's arrays. */
typedef struct into_arrays {
    unsigned char *keys, *values;
    size_t ks, vs, at;
} into_arrays;

static int write_arrays(void *user, const void *keys, const void *values, size_t m)
{
    into_arrays *o = user;
    memcpy(o->keys + o->at * o->ks, keys, m * o->ks);
    if (o->vs)
        memcpy(o->values + o->at * o->vs, values, m * o->vs);
    o->at += m;
    return 0;
}

clsort_status clsort_sort_chunked(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                  void *values, size_t n, size_t chunk, clsort_stats *stats)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    const size_t chunks = (n + chunk - 1) / chunk;
    if (n > SIZE_MAX / (ks + vs))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%zu keys of %zu bytes (with values) exceed "
                           "the address space", n, ks + vs);
    unsigned char *tk = malloc(n * ks), *tv = vs ? malloc(n * vs) : NULL;
    clsort_run *runs = calloc(chunks, sizeof *runs);
    clsort_status st = CLSORT_OK;
    if (!tk || (vs && !tv) || !runs) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "sorting %zu keys in %zu chunks needs %zu bytes of host memory for a copy", n,
                         chunks, n * (ks + vs));
        goto out;
    }
    memcpy(tk, keys, n * ks);
    if (vs)
        memcpy(tv, values, n * vs);

    clsort_stats total = { 0 };
    for (size_t c = 0; c < chunks; c++) {
        const size_t off = c * chunk, len = n - off < chunk ? n - off : chunk;
        clsort_stats s = { 0 };
        runs[c] = (clsort_run){ .n = len, .keys = tk + off * ks, .values = vs ? tv + off * vs : NULL };
        runs[c].file.fd = -1;
        st = clsort_run_host(ctx, spec, tk + off * ks, vs ? tv + off * vs : NULL, len, &s);
        if (st != CLSORT_OK)
            goto out;
        clsort_stats_add(&total, &s);
    }
    into_arrays o = { keys, values, ks, vs, 0 };
    const clsort_sink sink = { write_arrays, &o, 0 };
    /* blocks of 4 MiB: enough per thread to amortise a cut, little beside the copy */
    const size_t block = (4u << 20) / (ks + vs);
    if ((st = clsort_runs_merge(ctx, spec, runs, chunks, clsort_merge_threads_default(), block,
                                NULL, &sink)) != CLSORT_OK)
        goto out;
    if (stats) {
        total.n = n;
        *stats = total;
    }
out:
    free(tk);
    free(tv);
    free(runs);
    return st;
}
