/*
 * Segmented-sort benchmark: clsort_enqueue_segments() on 2^LOG2N uniform u32 keys (benchgen.h) in
 * the segments of a mix (benchgen.h: empty, single keys, ... millions, in one call), timed as a
 * user times it and as cub_segments times CUB: the host clock around the call + clFinish(), the
 * unsorted input restored (and finished) before each run, the median of --reps runs after one
 * untimed run (program build, scratch). The result of the last run is checked on the host.
 *   bench_segments [--reps N] [--kinds keys,pairs] [--mixes mixed,small,...] [--algo NAME] LOG2N...
 * A mix "fixed:L" is segments of L keys each (the last shorter), sorted by clsort_enqueue() with
 * spec.segment = L (cub_segments takes them as offsets).
 * Each line: RESULT impl=clsort-seg mix=... log2n=... n=... nseg=... kind=... wall_ms=... wgkeys=...
 */
#include "benchgen.h"
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct bench {
    clsort_context *ctx;
    cl_context cl;
    cl_command_queue q;
    clsort_algorithm algo;
    int reps;
} bench;

/* Each segment in order; with values, each value the index of its key and equal keys in input
 * order (stable). */
static int check(const uint32_t *host, const uint32_t *out, const uint32_t *vals, size_t n,
                 const uint64_t *off, size_t n_seg)
{
    for (size_t s = 0; s < n_seg; s++)
        for (uint64_t i = off[s] + 1; i < off[s + 1]; i++)
            if (out[i - 1] > out[i] || (vals && out[i - 1] == out[i] && vals[i - 1] > vals[i]))
                return 0;
    for (size_t i = 0; vals && i < n; i++)
        if (vals[i] >= n || host[vals[i]] != out[i])
            return 0;
    return 1;
}

/* The median wall time of b->reps sorts, or -1 on an error or a wrong result. */
static double time_mix(const bench *b, const uint32_t *host, size_t n, const uint64_t *off,
                       size_t n_seg, int pairs, size_t fixed)
{
    cl_int err;
    const size_t bytes = n * 4 + 4;
    uint32_t *out = malloc(bytes), *vals = pairs ? malloc(bytes) : NULL;
    double *ms = calloc((size_t)b->reps + 1, sizeof *ms), result = -1;
    for (size_t i = 0; vals && i < n; i++)
        vals[i] = (uint32_t)i;
    cl_mem pristine = clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                     (void *)host, &err);
    cl_mem iota = pairs ? clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                         vals, &err) : NULL;
    cl_mem kb = clCreateBuffer(b->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem vb = pairs ? clCreateBuffer(b->cl, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    cl_mem ob = clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (n_seg + 1) * sizeof *off, (void *)off, &err);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = b->algo;
    spec.value_size = pairs ? 4 : 0;
    spec.segment = fixed;
    if (!out || (pairs && !vals) || !ms || !pristine || !kb || !ob || (pairs && (!iota || !vb)))
        goto done;
    for (int r = 0; r <= b->reps; r++) {
        clEnqueueCopyBuffer(b->q, pristine, kb, 0, 0, n * 4, 0, NULL, NULL);
        if (vb)
            clEnqueueCopyBuffer(b->q, iota, vb, 0, 0, n * 4, 0, NULL, NULL);
        clFinish(b->q);
        const double t0 = now_ms();
        const clsort_status st =
            fixed ? clsort_enqueue(b->ctx, &spec, kb, vb, n, 0, NULL, NULL)
                  : clsort_enqueue_segments(b->ctx, &spec, kb, vb, n, ob, n_seg, 0, NULL, NULL);
        clFinish(b->q);
        ms[r] = now_ms() - t0;
        if (st != CLSORT_OK) {
            fprintf(stderr, "bench_segments: %s: %s\n", clsort_status_string(st),
                    clsort_error_detail(b->ctx));
            goto done;
        }
    }
    if (n && (clEnqueueReadBuffer(b->q, kb, CL_TRUE, 0, n * 4, out, 0, NULL, NULL) != CL_SUCCESS ||
              (vb && clEnqueueReadBuffer(b->q, vb, CL_TRUE, 0, n * 4, vals, 0, NULL, NULL) !=
                         CL_SUCCESS)))
        goto done;
    if (!check(host, out, vals, n, off, n_seg)) {
        fprintf(stderr, "bench_segments: WRONG RESULT n=%zu\n", n);
        goto done;
    }
    qsort(ms + 1, (size_t)b->reps, sizeof *ms, cmp_double);
    result = b->reps % 2 ? ms[1 + b->reps / 2] : (ms[b->reps / 2] + ms[1 + b->reps / 2]) / 2;
done:
    free(out);
    free(vals);
    free(ms);
    cl_mem mems[] = { pristine, iota, kb, vb, ob };
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    return result;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_segments [--reps N] [--kinds keys,pairs] "
                    "[--mixes mixed,small,medium,large] [--algo auto|radix8|radix8-rts] LOG2N...\n");
    return 2;
}

int main(int argc, char **argv)
{
    bench b = { .algo = CLSORT_ALGO_AUTO, .reps = 10 };
    int keys = 1, pairs = 1, i = 1;
    const char *mixes = "mixed,small,medium,large";
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            b.reps = atoi(argv[++i]);
            if (b.reps < 1)
                b.reps = 1;
        } else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
            keys = strstr(argv[i + 1], "keys") != NULL;
            pairs = strstr(argv[i + 1], "pairs") != NULL;
            i++;
        } else if (!strcmp(argv[i], "--mixes") && i + 1 < argc) {
            mixes = argv[++i];
        } else if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            if (clsort_algorithm_from_name(argv[++i], &b.algo) != CLSORT_OK)
                return usage();
        } else {
            return usage();
        }
    }
    clsort_status st = clsort_open(&b.ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "bench_segments: %s: %s\n", clsort_status_string(st),
                clsort_last_error_detail());
        return 1;
    }
    clsort_context_info(b.ctx, &b.cl, &b.q);
    fprintf(stderr, "device: %s\n", clsort_device_name(b.ctx));
    int rc = 0;
    for (; i < argc; i++) {
        const int lg = atoi(argv[i]);
        if (lg < 1 || lg > 30) {
            fprintf(stderr, "bench_segments: log2 n %s: expected 1 to 30\n", argv[i]);
            rc = 2;
            break;
        }
        const size_t n = (size_t)1 << lg;
        uint32_t *host = malloc(n * 4);
        uint64_t *off = malloc((2 * n + 2) * sizeof *off);
        if (!host || !off) {
            fprintf(stderr, "bench_segments: out of memory\n");
            free(host);
            free(off);
            rc = 1;
            break;
        }
        for (size_t k = 0; k < n; k++)
            host[k] = benchgen_key(k, n, 1);
        for (const char *m = mixes; *m;) {
            char mix[32];
            const size_t len = strcspn(m, ",");
            snprintf(mix, sizeof mix, "%.*s", (int)len, m);
            m += len + (m[len] == ',');
            const size_t fixed =
                !strncmp(mix, "fixed:", 6) ? (size_t)strtoull(mix + 6, NULL, 0) : 0;
            const long long n_seg = benchgen_segments(mix, n, off);
            if (n_seg < 0) {
                fprintf(stderr, "bench_segments: unknown mix %s\n", mix);
                rc = 2;
                break;
            }
            for (int p = 0; p < 2; p++) {
                if ((p && !pairs) || (!p && !keys))
                    continue;
                const double ms = time_mix(&b, host, n, off, (size_t)n_seg, p, fixed);
                if (ms < 0)
                    rc = 1;
                printf("RESULT impl=clsort-seg mix=%s log2n=%d n=%zu nseg=%lld kind=%s "
                       "wall_ms=%.4f wgkeys=%.3f\n",
                       mix, lg, n, n_seg, p ? "pairs" : "keys", ms,
                       ms > 0 ? (double)n / (ms * 1e6) : 0.0);
                fflush(stdout);
            }
        }
        free(host);
        free(off);
    }
    clsort_close(&b.ctx);
    return rc;
}
