/*
 * Top-k benchmark: clsort_top_enqueue() against the full sort (clsort_enqueue()) of the same u32
 * keys in the same run, wall time of the call + clFinish(), median of --reps after one untimed run
 * each (program builds, scratch allocation).
 *
 *   bench_top [--log2n 28] [--k 1000] [--dists uniform,q4,constant,low16] [--reps 10] [--pairs]
 *             [--desc]
 *
 * Distributions: benchgen.h's (uniform, q2..q32: the AND of that many words, constant, low16,
 * nearly, skew), and two of the select's own cases: "two" (two keys that differ in byte 1 only:
 * the top places hold every key) and "ties" (two thirds of the keys equal, above the k-th key of
 * ascending order, the rest uniform).
 *
 * The full sort sorts a fresh copy of the input each time (the copy is made and finished before the
 * clock starts). The top-k result is checked against the first k records of the full sort's.
 * Each line: RESULT impl=clsort-top|clsort-sort dist=... log2n=... n=... k=... kind=... ms=...,
 * then RESULT impl=ratio ... speedup=sort/top.
 */
#include "benchgen.h"
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define CHECK_CL(call)                                                                             \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "bench_top: %s failed (%d)\n", #call, (int)e_);                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void check_st(clsort_context *ctx, clsort_status st, const char *what)
{
    if (st != CLSORT_OK) {
        fprintf(stderr, "bench_top: %s: %s: %s\n", what, clsort_status_string(st),
                clsort_error_detail(ctx));
        exit(1);
    }
}

#define DIST_TWO 1000
#define DIST_TIES 1001

static int dist_of(const char *name)
{
    return !strcmp(name, "two") ? DIST_TWO : !strcmp(name, "ties") ? DIST_TIES : benchgen_q(name);
}

static uint32_t key_of(uint64_t i, uint64_t n, int d)
{
    const uint32_t r = (uint32_t)benchgen_mix(5 * 0x9e3779b97f4a7c15ull + i);
    if (d == DIST_TWO)
        return r & 1 ? 0x89ab00cdu : 0x89abcdcdu;
    if (d == DIST_TIES)
        return r % 3 ? 0x55555555u : r;
    return benchgen_key(i, n, (unsigned)d);
}

typedef struct bench {
    clsort_context *ctx;
    cl_context cx;
    cl_command_queue q;
    clsort_spec spec;
    size_t n, k;
    int reps;
    cl_mem keys, vals, work_keys, work_vals, top_keys, top_vals;
} bench;

static double time_top(bench *b)
{
    double *ms = malloc((size_t)(b->reps + 1) * sizeof *ms);
    for (int r = 0; r <= b->reps; r++) {
        const double t0 = now_ms();
        check_st(b->ctx, clsort_top_enqueue(b->ctx, &b->spec, b->keys, b->vals, b->n, b->k,
                                            b->top_keys, b->top_vals, 0, NULL, NULL),
                 "clsort_top_enqueue");
        CHECK_CL(clFinish(b->q));
        ms[r] = now_ms() - t0;
    }
    const double m = median(ms + 1, b->reps);
    free(ms);
    return m;
}

static double time_sort(bench *b)
{
    const size_t vs = b->spec.value_size;
    double *ms = malloc((size_t)(b->reps + 1) * sizeof *ms);
    for (int r = 0; r <= b->reps; r++) {
        CHECK_CL(clEnqueueCopyBuffer(b->q, b->keys, b->work_keys, 0, 0, b->n * 4, 0, NULL, NULL));
        if (vs)
            CHECK_CL(clEnqueueCopyBuffer(b->q, b->vals, b->work_vals, 0, 0, b->n * vs, 0, NULL,
                                         NULL));
        CHECK_CL(clFinish(b->q));
        const double t0 = now_ms();
        check_st(b->ctx, clsort_enqueue(b->ctx, &b->spec, b->work_keys, b->work_vals, b->n, 0,
                                        NULL, NULL),
                 "clsort_enqueue");
        CHECK_CL(clFinish(b->q));
        ms[r] = now_ms() - t0;
    }
    const double m = median(ms + 1, b->reps);
    free(ms);
    return m;
}

/* The top-k output against the first k records of the sorted copy. */
static int same_result(bench *b)
{
    const size_t vs = b->spec.value_size, bytes = b->k * (4 + vs);
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    CHECK_CL(clEnqueueReadBuffer(b->q, b->top_keys, CL_TRUE, 0, b->k * 4, x, 0, NULL, NULL));
    CHECK_CL(clEnqueueReadBuffer(b->q, b->work_keys, CL_TRUE, 0, b->k * 4, y, 0, NULL, NULL));
    if (vs) {
        CHECK_CL(clEnqueueReadBuffer(b->q, b->top_vals, CL_TRUE, 0, b->k * vs, x + b->k * 4, 0,
                                     NULL, NULL));
        CHECK_CL(clEnqueueReadBuffer(b->q, b->work_vals, CL_TRUE, 0, b->k * vs, y + b->k * 4, 0,
                                     NULL, NULL));
    }
    const int same = !memcmp(x, y, bytes);
    free(x);
    free(y);
    return same;
}

int main(int argc, char **argv)
{
    int log2n = 28, reps = 10, pairs = 0, desc = 0;
    size_t k = 1000;
    char dists[256] = "uniform";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--log2n") && i + 1 < argc)
            log2n = atoi(argv[++i]);
        else if (!strcmp(a, "--k") && i + 1 < argc)
            k = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (!strcmp(a, "--dists") && i + 1 < argc)
            snprintf(dists, sizeof dists, "%s", argv[++i]);
        else if (!strcmp(a, "--pairs"))
            pairs = 1;
        else if (!strcmp(a, "--desc"))
            desc = 1;
        else {
            fprintf(stderr, "usage: %s [--log2n N] [--k K] [--dists a,b] [--reps N] [--pairs] "
                            "[--desc]\n", argv[0]);
            return 2;
        }
    }
    bench b = { .n = (size_t)1 << log2n, .k = k, .reps = reps };
    if (k < 1 || k > b.n) {
        fprintf(stderr, "bench_top: --k %zu: expected 1 <= k <= 2^%d\n", k, log2n);
        return 2;
    }
    if (clsort_open(&b.ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "bench_top: clsort_open: %s\n", clsort_last_error_detail());
        return 1;
    }
    fprintf(stderr, "# device: %s\n", clsort_device_name(b.ctx));
    clsort_context_info(b.ctx, &b.cx, &b.q);
    clsort_spec_default(&b.spec);
    b.spec.value_size = pairs ? 4 : 0;
    b.spec.descending = desc;
    const size_t vs = b.spec.value_size;
    cl_int err;
    uint32_t *host = malloc(b.n * 4), *hv = pairs ? malloc(b.n * 4) : NULL;
    b.keys = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, b.n * 4, NULL, &err);
    CHECK_CL(err);
    b.work_keys = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, b.n * 4, NULL, &err);
    CHECK_CL(err);
    b.top_keys = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, k * 4, NULL, &err);
    CHECK_CL(err);
    if (vs) {
        b.vals = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, b.n * vs, NULL, &err);
        CHECK_CL(err);
        b.work_vals = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, b.n * vs, NULL, &err);
        CHECK_CL(err);
        b.top_vals = clCreateBuffer(b.cx, CL_MEM_READ_WRITE, k * vs, NULL, &err);
        CHECK_CL(err);
        for (size_t i = 0; i < b.n; i++)
            hv[i] = (uint32_t)i;
        CHECK_CL(clEnqueueWriteBuffer(b.q, b.vals, CL_TRUE, 0, b.n * 4, hv, 0, NULL, NULL));
    }
    int rc = 0;
    for (char *save = NULL, *d = strtok_r(dists, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        const int q = dist_of(d);
        if (q < 0) {
            fprintf(stderr, "bench_top: unknown distribution %s\n", d);
            return 2;
        }
        for (size_t i = 0; i < b.n; i++)
            host[i] = key_of(i, b.n, q);
        CHECK_CL(clEnqueueWriteBuffer(b.q, b.keys, CL_TRUE, 0, b.n * 4, host, 0, NULL, NULL));
        const double top = time_top(&b), sort = time_sort(&b);
        const char *kind = pairs ? "pairs" : "keys";
        if (!same_result(&b)) {
            fprintf(stderr, "bench_top: %s: WRONG RESULT (top-k differs from the sort's first "
                            "%zu records)\n", d, k);
            rc = 1;
        }
        printf("RESULT impl=clsort-top dist=%s log2n=%d n=%zu k=%zu kind=%s%s ms=%.4f\n", d, log2n,
               b.n, k, kind, desc ? " desc=1" : "", top);
        printf("RESULT impl=clsort-sort dist=%s log2n=%d n=%zu k=%zu kind=%s%s ms=%.4f\n", d, log2n,
               b.n, k, kind, desc ? " desc=1" : "", sort);
        printf("RESULT impl=ratio dist=%s log2n=%d n=%zu k=%zu kind=%s%s speedup=%.2f\n", d, log2n,
               b.n, k, kind, desc ? " desc=1" : "", top > 0 ? sort / top : 0.0);
        fflush(stdout);
    }
    cl_mem ms[] = { b.keys, b.vals, b.work_keys, b.work_vals, b.top_keys, b.top_vals };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        if (ms[i])
            clReleaseMemObject(ms[i]);
    free(host);
    free(hv);
    clsort_close(&b.ctx);
    return rc;
}
