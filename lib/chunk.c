/*
 * Host sorts larger than the device takes at once: runs that fit are sorted one after another in a
 * host copy of the input (clsort_run_host), then merged into the caller's arrays (merge.c). The
 * merge takes the earlier run on equal keys, so stable algorithms stay stable; the caller's arrays
 * are written only once every run has sorted, so a failure leaves them as they were.
 * Calls: run.c, merge.c, keys.c, status.c.
 */
#include "internal.h"
#include "merge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void add_stats(clsort_stats *total, const clsort_stats *s)
{
    total->algorithm = s->algorithm;
    total->kernel_ms += s->kernel_ms;
    total->upload_ms += s->upload_ms;
    total->download_ms += s->download_ms;
    total->programs_built += s->programs_built;
    total->programs_cached += s->programs_cached;
    total->passes_skipped += s->passes_skipped;
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
    clsort_merge_run *runs = calloc(chunks, sizeof *runs);
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
        runs[c] = (clsort_merge_run){ tk + off * ks, vs ? tv + off * vs : NULL, len };
        st = clsort_run_host(ctx, spec, tk + off * ks, vs ? tv + off * vs : NULL, len, &s);
        if (st != CLSORT_OK)
            goto out;
        add_stats(&total, &s);
    }
    if (clsort_merge_runs(spec, runs, chunks, keys, values) != 0) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "merging %zu chunks: out of host "
                         "memory", chunks);
        goto out;
    }
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
