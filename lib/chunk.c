/*
 * Host sorts larger than the device takes at once: chunks that fit are sorted one after another in a
 * host copy of the input, then merged into the caller's arrays. The merge takes the earlier chunk on
 * equal keys, so stable algorithms stay stable; the caller's arrays are written only once every
 * chunk has sorted, so a failure leaves them as they were.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

clsort_status clsort_sort_chunked(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                  void *values, size_t n, size_t chunk, clsort_stats *stats)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    const size_t chunks = (n + chunk - 1) / chunk;
    if (n > SIZE_MAX / (ks + vs))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%zu keys of %zu bytes (with values) exceed "
                           "the address space", n, ks + vs);
    unsigned char *tk = malloc(n * ks), *tv = vs ? malloc(n * vs) : NULL;
    size_t *head = calloc(chunks, sizeof *head);
    uint64_t *front = calloc(chunks, sizeof *front);
    clsort_status st = CLSORT_OK;
    if (!tk || (vs && !tv) || !head || !front) {
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
        clsort_stats s;
        st = clsort_sort(ctx, spec, tk + off * ks, vs ? tv + off * vs : NULL, len, &s);
        if (st != CLSORT_OK)
            goto out;
        total.algorithm = s.algorithm;
        total.kernel_ms += s.kernel_ms;
        total.upload_ms += s.upload_ms;
        total.download_ms += s.download_ms;
        total.programs_built += s.programs_built;
        total.programs_cached += s.programs_cached;
        total.passes_skipped += s.passes_skipped;
    }

    /* k-way merge; the chunks are few (each is as large as the device allows). */
    for (size_t c = 0; c < chunks; c++) {
        head[c] = c * chunk;
        front[c] = clsort_key_order(spec, tk + head[c] * ks);
    }
    unsigned char *ok = keys, *ov = values;
    for (size_t i = 0; i < n; i++) {
        size_t best = chunks;
        for (size_t c = 0; c < chunks; c++) {
            const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
            if (head[c] < end && (best == chunks || front[c] < front[best]))
                best = c;
        }
        const size_t src = head[best]++;
        memcpy(ok + i * ks, tk + src * ks, ks);
        if (vs)
            memcpy(ov + i * vs, tv + src * vs, vs);
        const size_t end = (best + 1) * chunk < n ? (best + 1) * chunk : n;
        if (head[best] < end)
            front[best] = clsort_key_order(spec, tk + head[best] * ks);
    }
    if (stats) {
        total.n = n;
        *stats = total;
    }
out:
    free(tk);
    free(tv);
    free(head);
    free(front);
    return st;
}
