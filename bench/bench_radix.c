/*
 * Radix sort benchmark: median kernel throughput of clsort's sorts over sizes and key distributions.
 *
 *   bench_radix gen DIST LOG2N FILE      write 2^LOG2N keys of a distribution (uniform, q2..q16, constant,
 *                                        low16, nearly (sorted, 1% at random), skew);
 *                                        u64 keys when FILE ends in .u64 (two keys of the band each)
 *   bench_radix run [OPTIONS] FILE...    time sorts of key files named DIST-LOG2N.u32 or .u64 (pairs:
 *                                        4-byte values with either)
 *   bench_radix sweep [OPTIONS]          the same on keys generated in memory
 * Options: --algos a,b (default radix8)  --kinds keys,pairs (default both)  --reps N (default 10)
 *          --sizes 16,20,24 (sweep; log2)  --dists uniform,q2,... (sweep)  --cpu-ref (also time a
 *          plain single-threaded C LSD radix sort on the same data)  --host (time clsort_sort() on
 *          host arrays by its stats.kernel_ms: the path that may skip constant digit places)
 *
 * Kernel time: from the end of the copy that restores the unsorted input to the end of the sort's last
 * command (OpenCL profiling events), with the whole chain enqueued before the device may start it.
 * Each size runs once untimed first (program build, allocation), then --reps times; the median is
 * reported. Each line: RESULT impl=... dist=... log2n=... kind=... gkeys=... ms=...
 */
#include "benchgen.h"
#include "clsort.h"

#include <pthread.h>
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

/* Bytes per key of the file being timed: 4 (u32) or 8 (u64, named *.u64). Values are 4 bytes. */
static size_t g_ks = 4;

static clsort_key_type key_type(void) { return g_ks == 8 ? CLSORT_KEY_U64 : CLSORT_KEY_U32; }

static uint64_t key_at(const void *keys, size_t i)
{
    return g_ks == 8 ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- generation, in parallel slices ---- */
typedef struct gen_job {
    uint32_t *keys;
    size_t begin, end, n;
    unsigned q;
} gen_job;

static void *gen_slice(void *arg)
{
    gen_job *j = arg;
    for (size_t i = j->begin; i < j->end; i++)
        j->keys[i] = benchgen_key(i, j->n, j->q);
    return NULL;
}

static void generate(uint32_t *keys, size_t n, unsigned q)
{
    enum { T = 16 };
    pthread_t th[T];
    gen_job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (gen_job){ keys, n * t / T, n * (t + 1) / T, n, q };
        pthread_create(&th[t], NULL, gen_slice, &jobs[t]);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
}

/* ---- the host reference: plain single-threaded 8-bit LSD radix sort ---- */
static void cpu_lsd(uint32_t *keys, uint32_t *vals, uint32_t *tk, uint32_t *tv, size_t n)
{
    size_t count[4][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = keys[i];
        count[0][k & 255]++;
        count[1][(k >> 8) & 255]++;
        count[2][(k >> 16) & 255]++;
        count[3][k >> 24]++;
    }
    for (int p = 0; p < 4; p++) {
        size_t run = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[p][d];
            count[p][d] = run;
            run += c;
        }
        uint32_t *src = p & 1 ? tk : keys, *dst = p & 1 ? keys : tk;
        uint32_t *vsrc = p & 1 ? tv : vals, *vdst = p & 1 ? vals : tv;
        const int sh = 8 * p;
        for (size_t i = 0; i < n; i++) {
            uint32_t k = src[i];
            size_t pos = count[p][(k >> sh) & 255]++;
            dst[pos] = k;
            if (vals)
                vdst[pos] = vsrc[i];
        }
    }
}

typedef struct opts {
    char algos[256];
    int keys, pairs, reps, cpu_ref, host;
    char sizes[256], dists[256];
} opts;

static int sorted_ok(const void *orig, const void *keys, const uint32_t *vals, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (key_at(keys, i - 1) > key_at(keys, i))
            return 0;
    if (vals)
        for (size_t i = 0; i < n; i++)
            if (vals[i] >= n || key_at(orig, vals[i]) != key_at(keys, i))
                return 0;
    return 1;
}

static cl_ulong ev_time(cl_event e, cl_profiling_info what)
{
    cl_ulong t = 0;
    clGetEventProfilingInfo(e, what, sizeof t, &t, NULL);
    return t;
}

/* Wall time of the last time_clsort(): clsort_enqueue() + clFinish() around the call, as a user
 * times it, the pristine copy made and finished before (median ms; 0 when not measured); and the
 * host's part of it, clsort_enqueue() alone (median ms). */
static double last_wall_ms, last_host_ms;

static double time_wall(clsort_context *ctx, cl_command_queue q, const clsort_spec *spec,
                        cl_mem pristine, cl_mem iota, cl_mem kb, cl_mem vb, size_t n, int reps)
{
    double *ms = calloc((size_t)reps + 1, sizeof *ms), result = -1;
    double *host = calloc((size_t)reps + 1, sizeof *host);
    for (int r = 0; r <= reps; r++) {
        clEnqueueCopyBuffer(q, pristine, kb, 0, 0, n * g_ks, 0, NULL, NULL);
        if (vb)
            clEnqueueCopyBuffer(q, iota, vb, 0, 0, n * 4, 0, NULL, NULL);
        clFinish(q);
        const double t0 = now_ms();
        clsort_status st = clsort_enqueue(ctx, spec, kb, vb, n, 0, NULL, NULL);
        host[r] = now_ms() - t0;
        clFinish(q);
        ms[r] = now_ms() - t0;
        if (st != CLSORT_OK)
            goto out;
    }
    result = median(ms + 1, reps);
    last_host_ms = median(host + 1, reps);
out:
    free(ms);
    free(host);
    return result;
}

/* Time one (algorithm, kind) on keys already in `pristine`; returns the median ms or < 0. */
static double time_clsort(clsort_context *ctx, cl_command_queue q, cl_context cl, clsort_algorithm a,
                          int pairs, cl_mem pristine, cl_mem iota, const void *host_keys,
                          size_t n, int reps)
{
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * g_ks, NULL, &err);
    cl_mem vb = pairs ? clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err) : NULL;
    if (!kb || (pairs && !vb)) {
        fprintf(stderr, "bench: cannot allocate %zu keys\n", n);
        return -1;
    }
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = a;
    spec.key_type = key_type();
    spec.value_size = pairs ? 4 : 0;
    double *ms = calloc((size_t)reps + 1, sizeof *ms);
    double result = -1;
    /* The gate holds the chain until it is all enqueued; not when the library waits on its own
     * commands while enqueueing (CLSORT_PROFILE, CLSORT_RADIX8_PROFILE). */
    const int gated = !getenv("CLSORT_RADIX8_PROFILE") && !getenv("CLSORT_PROFILE");
    for (int r = 0; r <= reps; r++) {
        cl_event gate = clCreateUserEvent(cl, &err), cp[2], done = NULL;
        cl_uint ncp = 0;
        clEnqueueCopyBuffer(q, pristine, kb, 0, 0, n * g_ks, gated, gated ? &gate : NULL, &cp[ncp++]);
        if (pairs)
            clEnqueueCopyBuffer(q, iota, vb, 0, 0, n * 4, gated, gated ? &gate : NULL, &cp[ncp++]);
        clsort_status st = clsort_enqueue(ctx, &spec, kb, vb, n, ncp, cp, &done);
        clSetUserEventStatus(gate, CL_COMPLETE);
        if (st != CLSORT_OK) {
            fprintf(stderr, "bench: %s n=%zu: %s: %s\n", clsort_algorithm_name(a), n,
                    clsort_status_string(st), clsort_error_detail(ctx));
            clFinish(q);
            goto out;
        }
        clWaitForEvents(1, &done);
        cl_ulong start = ev_time(cp[0], CL_PROFILING_COMMAND_END);
        if (ncp > 1 && ev_time(cp[1], CL_PROFILING_COMMAND_END) > start)
            start = ev_time(cp[1], CL_PROFILING_COMMAND_END);
        cl_ulong end = ev_time(done, CL_PROFILING_COMMAND_END);
        ms[r] = (double)(end - start) / 1e6;
        for (cl_uint i = 0; i < ncp; i++)
            clReleaseEvent(cp[i]);
        clReleaseEvent(done);
        clReleaseEvent(gate);
    }
    /* Check the last result. */
    {
        void *k = malloc(n * g_ks);
        uint32_t *v = pairs ? malloc(n * 4) : NULL;
        clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * g_ks, k, 0, NULL, NULL);
        if (pairs)
            clEnqueueReadBuffer(q, vb, CL_TRUE, 0, n * 4, v, 0, NULL, NULL);
        int ok = sorted_ok(host_keys, k, v, n);
        free(k);
        free(v);
        if (!ok) {
            fprintf(stderr, "bench: %s n=%zu %s: WRONG RESULT (median %.4f ms)\n",
                    clsort_algorithm_name(a), n, pairs ? "pairs" : "keys", median(ms + 1, reps));
            goto out;
        }
    }
    result = median(ms + 1, reps);
    last_wall_ms = time_wall(ctx, q, &spec, pristine, iota, kb, vb, n, reps);
out:
    free(ms);
    clReleaseMemObject(kb);
    if (vb)
        clReleaseMemObject(vb);
    return result;
}

/* Time clsort_sort() on host arrays: its kernel time (first to last command of the sort, read-backs
 * made mid-sort included), the median of reps after one untimed run. */
static double time_host(clsort_context *ctx, clsort_algorithm a, int pairs, const uint32_t *keys,
                        size_t n, int reps)
{
    uint32_t *k = malloc(n * 4), *v = pairs ? malloc(n * 4) : NULL;
    double *ms = calloc((size_t)reps + 1, sizeof *ms), result = -1;
    double *total = calloc((size_t)reps + 1, sizeof *total);
    double *up = calloc((size_t)reps + 1, sizeof *up), *down = calloc((size_t)reps + 1, sizeof *down);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = a;
    spec.value_size = pairs ? 4 : 0;
    clsort_stats stats = { 0 };
    for (int r = 0; r <= reps; r++) {
        memcpy(k, keys, n * 4);
        for (size_t i = 0; pairs && i < n; i++)
            v[i] = (uint32_t)i;
        clsort_status st = clsort_sort(ctx, &spec, k, v, n, &stats);
        if (st != CLSORT_OK) {
            fprintf(stderr, "bench: %s: %s\n", clsort_status_string(st), clsort_error_detail(ctx));
            goto out;
        }
        ms[r] = stats.kernel_ms;
        total[r] = stats.total_ms;
        up[r] = stats.upload_ms;
        down[r] = stats.download_ms;
    }
    fprintf(stderr, "# %s n=%zu %s: %u digit passes skipped\n", clsort_algorithm_name(a), n,
            pairs ? "pairs" : "keys", stats.passes_skipped);
    /* the whole call as its caller sees it: the transfers from and to its arrays included */
    printf("HOSTCALL algo=%s n=%zu kind=%s call_ms=%.4f upload_ms=%.4f download_ms=%.4f "
           "kernel_ms=%.4f\n", clsort_algorithm_name(a), n, pairs ? "pairs" : "keys",
           median(total + 1, reps), median(up + 1, reps), median(down + 1, reps),
           median(ms + 1, reps));
    if (sorted_ok(keys, k, v, n))
        result = median(ms + 1, reps);
    else
        fprintf(stderr, "bench: %s n=%zu: WRONG RESULT\n", clsort_algorithm_name(a), n);
out:
    free(k);
    free(v);
    free(ms);
    free(total);
    free(up);
    free(down);
    return result;
}

static double time_cpu(const uint32_t *keys, size_t n, int pairs, int reps)
{
    uint32_t *k = malloc(n * 4), *tk = malloc(n * 4);
    uint32_t *v = pairs ? malloc(n * 4) : NULL, *tv = pairs ? malloc(n * 4) : NULL;
    double *ms = calloc((size_t)reps, sizeof *ms);
    for (int r = 0; r < reps; r++) {
        memcpy(k, keys, n * 4);
        if (pairs)
            for (size_t i = 0; i < n; i++)
                v[i] = (uint32_t)i;
        double t0 = now_ms();
        cpu_lsd(k, v, tk, tv, n);
        ms[r] = now_ms() - t0;
    }
    double res = sorted_ok(keys, k, v, n) ? median(ms, reps) : -1;
    free(k);
    free(tk);
    free(v);
    free(tv);
    free(ms);
    return res;
}

static void report(const char *impl, const char *dist, int log2n, size_t n, int pairs, double ms)
{
    printf("RESULT impl=%s dist=%s log2n=%d n=%zu type=%s kind=%s gkeys=%.3f ms=%.4f", impl, dist,
           log2n, n, g_ks == 8 ? "u64" : "u32", pairs ? "pairs" : "keys",
           ms > 0 ? (double)n / (ms * 1e6) : 0.0, ms);
    if (last_wall_ms > 0)
        printf(" wall_ms=%.4f wgkeys=%.3f host_ms=%.4f", last_wall_ms,
               (double)n / (last_wall_ms * 1e6), last_host_ms);
    printf("\n");
    last_wall_ms = 0;
    fflush(stdout);
}

static int bench_keys(clsort_context *ctx, cl_command_queue q, cl_context cl, const opts *o,
                      const void *keys, size_t n, const char *dist, int log2n)
{
    cl_int err;
    if (g_ks != 4 && (o->host || o->cpu_ref)) {
        fprintf(stderr, "bench: --host and --cpu-ref time u32 keys only\n");
        return 1;
    }
    cl_mem pristine = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * g_ks,
                                     (void *)keys, &err);
    cl_mem iota = NULL;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bench: cannot upload %zu keys (%d)\n", n, err);
        return 1;
    }
    if (o->pairs) {
        uint32_t *v = malloc(n * 4);
        for (size_t i = 0; i < n; i++)
            v[i] = (uint32_t)i;
        iota = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, v, &err);
        free(v);
    }
    int rc = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", o->algos);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        clsort_algorithm a;
        if (clsort_algorithm_from_name(name, &a) != CLSORT_OK) {
            fprintf(stderr, "bench: unknown algorithm %s\n", name);
            rc = 1;
            continue;
        }
        for (int pairs = 0; pairs < 2; pairs++) {
            if ((pairs && !o->pairs) || (!pairs && !o->keys))
                continue;
            double ms = o->host ? time_host(ctx, a, pairs, keys, n, o->reps)
                                : time_clsort(ctx, q, cl, a, pairs, pristine, iota, keys, n, o->reps);
            if (ms < 0)
                rc = 1;
            report(name, dist, log2n, n, pairs, ms);
        }
    }
    if (o->cpu_ref)
        for (int pairs = 0; pairs < 2; pairs++) {
            if ((pairs && !o->pairs) || (!pairs && !o->keys))
                continue;
            int reps = o->reps < 5 ? o->reps : 5;
            report("cpu-lsd", dist, log2n, n, pairs, time_cpu(keys, n, pairs, reps));
        }
    clReleaseMemObject(pristine);
    if (iota)
        clReleaseMemObject(iota);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_radix gen DIST LOG2N FILE | run [OPTIONS] FILE... | sweep [OPTIONS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (!strcmp(argv[1], "gen")) {
        if (argc != 5)
            return usage();
        int q = benchgen_q(argv[2]), lg = atoi(argv[3]);
        if (q < 0 || lg < 0 || lg > 34)
            return usage();
        size_t n = (size_t)1 << lg;
        const size_t len = strlen(argv[4]);
        const int wide = len > 4 && !strcmp(argv[4] + len - 4, ".u64");
        /* u64 keys: two u32 keys of the band each, so that every bit keeps its probability */
        uint32_t *keys = malloc(n * (wide ? 8 : 4));
        generate(keys, wide ? 2 * n : n, (unsigned)q);
        FILE *f = fopen(argv[4], "wb");
        if (!f || fwrite(keys, wide ? 8 : 4, n, f) != n || fclose(f)) {
            perror(argv[4]);
            return 1;
        }
        free(keys);
        return 0;
    }
    const int sweep = !strcmp(argv[1], "sweep");
    if (!sweep && strcmp(argv[1], "run"))
        return usage();
    opts o = { "radix8", 1, 1, 10, 0, 0, "16,18,20,22,24", "uniform" };
    int first_file = argc;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--algos") && i + 1 < argc)
            snprintf(o.algos, sizeof o.algos, "%s", argv[++i]);
        else if (!strcmp(a, "--kinds") && i + 1 < argc) {
            const char *k = argv[++i];
            o.keys = strstr(k, "keys") != NULL;
            o.pairs = strstr(k, "pairs") != NULL;
        } else if (!strcmp(a, "--reps") && i + 1 < argc)
            o.reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (!strcmp(a, "--sizes") && i + 1 < argc)
            snprintf(o.sizes, sizeof o.sizes, "%s", argv[++i]);
        else if (!strcmp(a, "--dists") && i + 1 < argc)
            snprintf(o.dists, sizeof o.dists, "%s", argv[++i]);
        else if (!strcmp(a, "--cpu-ref"))
            o.cpu_ref = 1;
        else if (!strcmp(a, "--host"))
            o.host = 1;
        else if (a[0] == '-')
            return usage();
        else {
            first_file = i;
            break;
        }
    }

    /* A profiling queue of our own on the device clsort picks (the library does not expose its
     * queue, and the benchmark needs its own buffers and events in the same context). */
    clsort_status st;
    clsort_context *ctx = NULL;
    st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK)
        return 1;
    fprintf(stderr, "# device: %s\n", clsort_device_name(ctx));
    cl_command_queue q = NULL;
    {
        cl_platform_id plats[16];
        cl_uint np = 0;
        clGetPlatformIDs(16, plats, &np);
        const char *want = clsort_device_name(ctx);
        cl_device_id dev = NULL;
        for (cl_uint p = 0; p < np && !dev; p++) {
            cl_device_id devs[16];
            cl_uint nd = 0;
            char pname[128];
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd; d++) {
                char dname[128], full[272];
                clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
                snprintf(full, sizeof full, "%s / %s", pname, dname);
                if (!strcmp(full, want)) {
                    dev = devs[d];
                    break;
                }
            }
        }
        clsort_close(&ctx);
        if (!dev) {
            fprintf(stderr, "bench: cannot find the device %s\n", want);
            return 1;
        }
        cl_int err;
        cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        q = clCreateCommandQueue(cl, dev, CL_QUEUE_PROFILING_ENABLE, &err);
        if (!q || (st = clsort_open_with_queue(&ctx, q)) != CLSORT_OK) {
            fprintf(stderr, "bench: cannot make a profiling queue\n");
            return 1;
        }
        clReleaseContext(cl);
    }
    cl_context cl;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);

    int rc = 0;
    if (sweep) {
        char dl[256];
        snprintf(dl, sizeof dl, "%s", o.dists);
        for (char *s1 = NULL, *dist = strtok_r(dl, ",", &s1); dist; dist = strtok_r(NULL, ",", &s1)) {
            int qv = benchgen_q(dist);
            if (qv < 0) {
                fprintf(stderr, "bench: unknown distribution %s\n", dist);
                rc = 1;
                continue;
            }
            char sl[256];
            snprintf(sl, sizeof sl, "%s", o.sizes);
            for (char *s2 = NULL, *sz = strtok_r(sl, ",", &s2); sz; sz = strtok_r(NULL, ",", &s2)) {
                int lg = atoi(sz);
                size_t n = (size_t)1 << lg;
                uint32_t *keys = malloc(n * 4);
                generate(keys, n, (unsigned)qv);
                rc |= bench_keys(ctx, q, cl, &o, keys, n, dist, lg);
                free(keys);
            }
        }
    } else {
        for (int i = first_file; i < argc; i++) {
            const char *path = argv[i], *base = strrchr(path, '/');
            base = base ? base + 1 : path;
            char dist[64];
            int lg = 0;
            const char *dash = strrchr(base, '-');
            if (!dash || (size_t)(dash - base) >= sizeof dist) {
                fprintf(stderr, "bench: %s: name must be DIST-LOG2N.u32 or .u64\n", path);
                rc = 1;
                continue;
            }
            memcpy(dist, base, (size_t)(dash - base));
            dist[dash - base] = '\0';
            lg = atoi(dash + 1);
            FILE *f = fopen(path, "rb");
            if (!f) {
                perror(path);
                rc = 1;
                continue;
            }
            const size_t len = strlen(base);
            g_ks = len > 4 && !strcmp(base + len - 4, ".u64") ? 8 : 4;
            fseek(f, 0, SEEK_END);
            size_t n = (size_t)ftell(f) / g_ks;
            fseek(f, 0, SEEK_SET);
            void *keys = malloc(n * g_ks);
            if (fread(keys, g_ks, n, f) != n) {
                perror(path);
                rc = 1;
            } else
                rc |= bench_keys(ctx, q, cl, &o, keys, n, dist, lg);
            fclose(f);
            free(keys);
        }
    }
    clsort_close(&ctx);
    clReleaseCommandQueue(q);
    return rc;
}
