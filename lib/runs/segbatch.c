/*
 * Variable segments of host arrays larger than one device sort takes (or than CLSORT_CHUNK_KEYS,
 * for tests): whole segments gathered in order into batches that fit one device sort, each batch
 * sorted by the segmented sort (run.c) with its offsets rebased to its first key; a segment longer
 * than a batch is sorted alone in runs that are merged (chunk.c). Segments never straddle a batch,
 * so nothing is merged across batches. The batches are sorted in a host copy that is written back
 * only once every one has sorted, so a failure leaves the caller's arrays as they were (as
 * chunk.c's runs do).
 * Calls: dispatch.c, run.c, chunk.c, status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

size_t clsort_segments_batch_cap(clsort_context *ctx, const clsort_spec *spec)
{
    /* as many segments as keys: the most a batch of that many keys can have that is not empty */
    const size_t ks = clsort_key_size(spec->key_type);
    const size_t widest = spec->value_size > ks ? spec->value_size : ks;
    size_t lo = 0, hi = (size_t)(ctx->max_alloc / widest) + 1;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (clsort_dispatch_check_segments(ctx, spec, mid, mid, 1) == CLSORT_OK)
            lo = mid;
        else
            hi = mid;
    }
    clsort_clear_detail(ctx);
    const size_t test = ctx->settings.chunk_keys;
    return test >= 2 && test < lo ? test : lo;
}

/* Segments [i, j) of off (whose keys start at off[i]) as one device run, rebased into tmp. */
static clsort_status sort_batch(clsort_context *ctx, const clsort_spec *spec, unsigned char *keys,
                                unsigned char *values, const uint64_t *off, size_t i, size_t j,
                                uint64_t *tmp, clsort_stats *s)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    const uint64_t start = off[i];
    for (size_t k = i; k <= j; k++)
        tmp[k - i] = off[k] - start;
    return clsort_run_host_segments(ctx, spec, keys + start * ks, vs ? values + start * vs : NULL,
                                    (size_t)(off[j] - start), tmp, j - i, s);
}

clsort_status clsort_sort_segments_batched(clsort_context *ctx, const clsort_spec *spec,
                                           void *keys, void *values, size_t n,
                                           const uint64_t *off, size_t n_seg, size_t cap,
                                           clsort_stats *stats)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    if (n > SIZE_MAX / (ks + vs))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%zu keys of %zu bytes (with values) exceed "
                           "the address space", n, ks + vs);
    const size_t most = n_seg < cap ? n_seg : cap;
    unsigned char *tk = malloc(n * ks + 1), *tv = vs ? malloc(n * vs + 1) : NULL;
    uint64_t *tmp = malloc((most + 1) * sizeof *tmp);
    clsort_status st = CLSORT_OK;
    if (!tk || (vs && !tv) || !tmp) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "sorting %zu keys in %zu segments, in batches of at most %zu keys, needs "
                         "%zu bytes of host memory for a copy", n, n_seg, cap, n * (ks + vs));
        goto out;
    }
    memcpy(tk, keys, n * ks);
    if (vs)
        memcpy(tv, values, n * vs);
    clsort_stats total = { 0 };
    for (size_t i = 0; i < n_seg && st == CLSORT_OK;) {
        clsort_stats s = { 0 };
        const uint64_t start = off[i];
        if (off[i + 1] - start > cap) { /* longer than a batch: alone, in runs merged */
            const size_t len = (size_t)(off[i + 1] - start);
            st = clsort_sort_chunked(ctx, spec, tk + start * ks, vs ? tv + start * vs : NULL, len,
                                     cap, &s);
            i++;
        } else {
            size_t j = i + 1;
            while (j < n_seg && j - i < cap && off[j + 1] - start <= cap)
                j++;
            st = sort_batch(ctx, spec, tk, tv, off, i, j, tmp, &s);
            i = j;
        }
        if (st == CLSORT_OK)
            clsort_stats_add(&total, &s);
    }
    if (st != CLSORT_OK)
        goto out;
    memcpy(keys, tk, n * ks);
    if (vs)
        memcpy(values, tv, n * vs);
    if (stats) {
        total.n = n;
        *stats = total;
    }
out:
    free(tk);
    free(tv);
    free(tmp);
    return st;
}
