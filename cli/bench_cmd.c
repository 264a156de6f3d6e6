/*
 * clsort bench: sort generated keys repeatedly and report throughput, next to a CPU reference.
 */
#include "args.h"
#include "cli.h"
#include "gen.h"
#include "report.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Single-threaded 8-bit LSD radix sort (stable): the reference result and timing. */
static void cpu_radix_sort(uint32_t *keys, uint32_t *values, uint32_t *tk, uint32_t *tv, size_t n)
{
    uint32_t *k = keys, *v = values, *ok = tk, *ov = tv;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(k[i] >> shift) & 0xff]++;
        if (n && count[(k[0] >> shift) & 0xff] == n)
            continue; /* every key has this digit: the pass would not move anything */
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t pos = count[(k[i] >> shift) & 0xff]++;
            ok[pos] = k[i];
            if (v)
                ov[pos] = v[i];
        }
        uint32_t *t = k;
        k = ok;
        ok = t;
        t = v;
        v = ov;
        ov = t;
    }
    if (k != keys) {
        memcpy(keys, k, n * sizeof *k);
        if (values)
            memcpy(values, v, n * sizeof *v);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t pairs_fingerprint(const uint32_t *k, const uint32_t *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += mix64(((uint64_t)k[i] << 32 | (v ? v[i] : 0)) + 1);
    return s;
}

/* The device's result against the expected keys (and the records' multiset). Returns an exit status. */
static int check(const uint32_t *k, const uint32_t *v, const uint32_t *ref, uint64_t fp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ref ? k[i] != ref[i] : (i && k[i - 1] > k[i])) {
            msg_error("wrong result: key %zu is %u%s", i, (unsigned)k[i], ref ? "" : ", out of order");
            return EXIT_DEVICE;
        }
    }
    if (pairs_fingerprint(k, v, n) != fp) {
        msg_error("wrong result: the output is not a permutation of the input");
        return EXIT_DEVICE;
    }
    return EXIT_OK;
}

typedef struct bench_data {
    uint32_t *keys, *values;       /* input */
    uint32_t *wk, *wv;             /* work copies */
    uint32_t *rk, *rv, *tk, *tv;   /* reference result and its scratch */
    double *kernel, *sort, *upload, *download, *ref;
} bench_data;

static void free_data(bench_data *d)
{
    void *all[] = {d->keys, d->values, d->wk, d->wv, d->rk, d->rv, d->tk, d->tv,
                   d->kernel, d->sort, d->upload, d->download, d->ref};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
}

int cmd_bench(int argc, char **argv, int first)
{
    bench_args a;
    int rc = parse_bench_args(argc, argv, first, &a);
    if (rc >= 0)
        return rc;
    if (a.n > SIZE_MAX / 8) {
        msg_error("-n %llu is too large for this machine", (unsigned long long)a.n);
        return EXIT_USAGE;
    }
    size_t n = (size_t)a.n, bytes = n ? n * 4 : 4;
    int kv = a.value_size != 0;
    unsigned nref = a.no_reference ? 0 : (a.repeat < 3 ? a.repeat : 3);
    bench_data d = {0};
    d.keys = malloc(bytes);
    d.wk = malloc(bytes);
    d.kernel = calloc(a.repeat, sizeof(double));
    d.sort = calloc(a.repeat, sizeof(double));
    d.upload = calloc(a.repeat, sizeof(double));
    d.download = calloc(a.repeat, sizeof(double));
    d.ref = calloc(nref ? nref : 1, sizeof(double));
    int oom = !d.keys || !d.wk || !d.kernel || !d.sort || !d.upload || !d.download || !d.ref;
    if (kv) {
        d.values = malloc(bytes);
        d.wv = malloc(bytes);
        oom |= !d.values || !d.wv;
    }
    if (nref) {
        d.rk = malloc(bytes);
        d.tk = malloc(bytes);
        oom |= !d.rk || !d.tk;
        if (kv) {
            d.rv = malloc(bytes);
            d.tv = malloc(bytes);
            oom |= !d.rv || !d.tv;
        }
    }
    if (oom) {
        free_data(&d);
        msg_error("out of memory (%llu keys)", (unsigned long long)a.n);
        return EXIT_DEVICE;
    }
    gen_state g;
    gen_init(&g, &a.dist, a.seed, a.n);
    gen_keys(&g, d.keys, n);
    if (kv)
        for (size_t i = 0; i < n; i++)
            d.values[i] = (uint32_t)i;
    uint64_t fp = pairs_fingerprint(d.keys, d.values, n);

    for (unsigned r = 0; r < nref; r++) {
        memcpy(d.rk, d.keys, n * 4);
        if (kv)
            memcpy(d.rv, d.values, n * 4);
        double t = now_ms();
        cpu_radix_sort(d.rk, d.rv, d.tk, d.tv, n);
        d.ref[r] = now_ms() - t;
    }

    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, a.device);
    if (st != CLSORT_OK) {
        free_data(&d);
        msg_lib_error("cannot open an OpenCL device", st, clsort_last_error_detail());
        return exit_for_status(st);
    }
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = (size_t)a.value_size;
    spec.algorithm = (clsort_algorithm)a.algorithm;
    clsort_stats s = {0};
    unsigned built = 0, cached = 0;
    for (unsigned r = 0; r < a.warmup + a.repeat && rc < 0; r++) {
        memcpy(d.wk, d.keys, n * 4);
        if (kv)
            memcpy(d.wv, d.values, n * 4);
        st = clsort_sort(ctx, &spec, d.wk, d.wv, n, &s);
        if (st != CLSORT_OK) {
            msg_lib_error("sort failed", st, clsort_error_detail(ctx));
            rc = exit_for_status(st);
            break;
        }
        built += s.programs_built;
        cached += s.programs_cached;
        if (r == 0 || r == a.warmup + a.repeat - 1) {
            int c = check(d.wk, d.wv, nref ? d.rk : NULL, fp, n);
            if (c != EXIT_OK)
                rc = c;
        }
        if (r >= a.warmup) {
            unsigned i = r - a.warmup;
            d.kernel[i] = s.kernel_ms;
            d.sort[i] = s.total_ms;
            d.upload[i] = s.upload_ms;
            d.download[i] = s.download_ms;
        }
    }
    if (rc >= 0) {
        clsort_close(&ctx);
        free_data(&d);
        return rc;
    }

    char dist[64];
    dist_format(&a.dist, dist, sizeof dist);
    double best = d.kernel[0];
    for (unsigned i = 1; i < a.repeat; i++)
        if (d.kernel[i] < best)
            best = d.kernel[i];
    double kmed = median(d.kernel, a.repeat), smed = median(d.sort, a.repeat);
    double umed = median(d.upload, a.repeat), dmed = median(d.download, a.repeat);
    double rmed = nref ? median(d.ref, nref) : 0;
    double gk = kmed > 0 ? (double)n / (kmed * 1e6) : 0;
    double gs = smed > 0 ? (double)n / (smed * 1e6) : 0;
    double gr = rmed > 0 ? (double)n / (rmed * 1e6) : 0;
    const char *algo = s.algorithm ? s.algorithm : clsort_algorithm_name(spec.algorithm);
    const char *dev = clsort_device_name(ctx);

    printf("clsort bench: %zu u32 keys%s, %s, seed %llu\n", n, kv ? " with 4-byte values" : "", dist,
           (unsigned long long)a.seed);
    printf("  algorithm      %s on %s\n", algo, dev);
    printf("  kernels        median %10.3f ms, best %10.3f ms   %8.4f GKey/s (median)\n", kmed, best, gk);
    printf("  clsort_sort()  median %10.3f ms (upload %.3f, download %.3f)   %8.4f GKey/s\n", smed, umed,
           dmed, gs);
    if (nref) {
        printf("  CPU reference  median %10.3f ms   %8.4f GKey/s (8-bit LSD radix sort, 1 thread)\n", rmed, gr);
        printf("  ratio          kernels %.2fx, clsort_sort() %.2fx the CPU reference's speed\n",
               rmed > 0 && kmed > 0 ? rmed / kmed : 0, rmed > 0 && smed > 0 ? rmed / smed : 0);
    }
    printf("  runs           %u timed after %u warm-up; programs %u built, %u from cache; results checked\n",
           a.repeat, a.warmup, built, cached);
    rc = EXIT_OK;
    if (a.json) {
        json_buf j = {0};
        json_open(&j);
        json_u64(&j, "n", n);
        json_str(&j, "dist", dist);
        json_u64(&j, "seed", a.seed);
        json_u64(&j, "value_size", (uint64_t)a.value_size);
        json_str(&j, "algorithm", algo);
        json_str(&j, "device", dev);
        json_u64(&j, "repeat", a.repeat);
        json_u64(&j, "warmup", a.warmup);
        json_num(&j, "kernel_ms", kmed);
        json_num(&j, "kernel_best_ms", best);
        json_num(&j, "gkeys_per_s", gk);
        json_num(&j, "sort_ms", smed);
        json_num(&j, "upload_ms", umed);
        json_num(&j, "download_ms", dmed);
        json_num(&j, "sort_gkeys_per_s", gs);
        if (nref) {
            json_num(&j, "reference_ms", rmed);
            json_num(&j, "reference_gkeys_per_s", gr);
            json_num(&j, "speedup_kernels", rmed > 0 && kmed > 0 ? rmed / kmed : 0);
        }
        json_u64(&j, "programs_built", built);
        json_u64(&j, "programs_cached", cached);
        json_close(&j);
        json_raw(&j, "\n");
        if (j.failed) {
            msg_error("out of memory");
            rc = EXIT_DEVICE;
        } else {
            fflush(stdout);
            rc = write_text_file(a.json, j.s);
        }
        free(j.s);
    }
    clsort_close(&ctx);
    free_data(&d);
    return rc;
}
