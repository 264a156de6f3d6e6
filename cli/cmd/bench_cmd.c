/*
 * clsort bench: a sweep over algorithms, sizes, distributions and keys / key-value pairs. Each case sorts
 * generated data repeatedly and reports kernel and end-to-end throughput next to a reference that runs
 * in the same process on the same data: a single-threaded LSD radix sort on the host. A table goes to
 * stdout, and optionally JSON (--json) and an SVG chart (--plot).
 *
 * Owns the sweep, the reference sort and the table; calls args.c for its options, gen.c for the
 * keys, io.c for the --json and --plot files, report.c, plot.c, progress.c and the library.
 */
#include "args.h"
#include "cli.h"
#include "gen.h"
#include "io.h"
#include "plot.h"
#include "progress.h"
#include "report.h"

#include "clsort.h"

#include <math.h>
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

static uint64_t bench_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t pairs_fingerprint(const uint32_t *k, const uint32_t *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += bench_mix64(((uint64_t)k[i] << 32 | (v ? v[i] : 0)) + 1);
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

/* The result of one case: an algorithm on one data set. */
typedef struct bench_row {
    int algorithm;         /* as asked for */
    const char *ran;       /* the algorithm that ran (static storage of the library) */
    uint64_t n;
    unsigned dist;         /* index into the arguments' distributions */
    int pairs;
    double kernel_ms, kernel_best_ms, sort_ms, upload_ms, download_ms, reference_ms;
    unsigned built, cached;
} bench_row;

static double rate(uint64_t n, double ms)
{
    return ms > 0 ? (double)n / (ms * 1e6) : 0;
}

typedef struct bench {
    bench_args a;
    size_t max_n;
    uint32_t *keys, *values;       /* input */
    uint32_t *wk, *wv;             /* work copies */
    uint32_t *rk, *rv, *tk, *tv;   /* reference result and its scratch */
    double *kernel, *sort, *upload, *download;
    bench_row *rows;
    size_t n_rows;
    clsort_context *ctx;
    const char *device;
    char platform[128], driver[64];
    output_file json, plot;
    int have_json, have_plot;
    int table;                     /* the table goes to stdout */
} bench;

static void bench_free(bench *b)
{
    void *all[] = {b->keys, b->values, b->wk, b->wv, b->rk, b->rv, b->tk, b->tv,
                   b->kernel, b->sort, b->upload, b->download, b->rows};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    if (b->have_json)
        output_abort(&b->json);
    if (b->have_plot)
        output_abort(&b->plot);
    clsort_close(&b->ctx);
}

static int bench_alloc(bench *b)
{
    const bench_args *a = &b->a;
    size_t bytes = b->max_n ? b->max_n * 4 : 4;
    int nref = !a->no_reference;
    uint32_t **bufs[] = {&b->keys, &b->wk, &b->values, &b->wv, &b->rk, &b->tk, &b->rv, &b->tv};
    int need[] = {1, 1, a->pairs, a->pairs, nref, nref, nref && a->pairs, nref && a->pairs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (need[i] && !(*bufs[i] = malloc(bytes)))
            goto oom;
    b->kernel = calloc(a->repeat, sizeof(double));
    b->sort = calloc(a->repeat, sizeof(double));
    b->upload = calloc(a->repeat, sizeof(double));
    b->download = calloc(a->repeat, sizeof(double));
    size_t cases = (size_t)(a->keys + a->pairs) * a->dist_count * a->n_count * a->algo_count;
    b->rows = calloc(cases, sizeof *b->rows);
    if (b->kernel && b->sort && b->upload && b->download && b->rows)
        return EXIT_OK;
oom:
    msg_error("out of memory (%zu keys)", b->max_n);
    return EXIT_DEVICE;
}

/* The device's platform and driver version, from the device list. */
static void find_driver(bench *b)
{
    size_t count = 0;
    if (clsort_list_devices(NULL, 0, &count) != CLSORT_OK || count == 0)
        return;
    clsort_device_info *d = calloc(count, sizeof *d);
    if (!d)
        return;
    if (clsort_list_devices(d, count, &count) == CLSORT_OK) {
        for (size_t i = 0; i < count; i++) {
            char name[300];
            snprintf(name, sizeof name, "%s / %s", d[i].platform, d[i].name);
            if (strcmp(name, b->device) == 0) {
                snprintf(b->platform, sizeof b->platform, "%s", d[i].platform);
                snprintf(b->driver, sizeof b->driver, "%s", d[i].driver_version);
                break;
            }
        }
    }
    free(d);
}

static const char *layout_name(int pairs)
{
    return pairs ? "pairs" : "keys";
}

static void print_header(const bench *b)
{
    const bench_args *a = &b->a;
    printf("clsort bench on %s (driver %s): %u timed run%s after %u warm-up, seed %llu\n", b->device,
           b->driver[0] ? b->driver : "?", a->repeat, a->repeat == 1 ? "" : "s", a->warmup,
           (unsigned long long)a->common.seed);
    printf("%-24s %11s  %-12s %-6s %14s %14s %8s\n", "algorithm", "n", "distribution", "data",
           "kernel GKey/s", "e2e GKey/s", "vs ref");
    fflush(stdout);
}

static void print_row(const bench *b, const bench_row *r)
{
    char dist[64], ratio[32] = "-";
    dist_format(&b->a.dist[r->dist], dist, sizeof dist);
    if (r->reference_ms > 0 && r->kernel_ms > 0)
        snprintf(ratio, sizeof ratio, "%.3gx", r->reference_ms / r->kernel_ms);
    /* the algorithm asked for, and the one that ran where that differs (auto) */
    char algo[64];
    const char *asked = clsort_algorithm_name(r->algorithm);
    if (r->ran && strcmp(r->ran, asked) != 0)
        snprintf(algo, sizeof algo, "%s (%s)", asked, r->ran);
    else
        snprintf(algo, sizeof algo, "%s", asked);
    progress_hide();
    printf("%-24s %11llu  %-12s %-6s %14.4f %14.4f %8s\n", algo, (unsigned long long)r->n, dist,
           layout_name(r->pairs), rate(r->n, r->kernel_ms), rate(r->n, r->sort_ms), ratio);
    fflush(stdout);
}

/* Generate one data set and sort it with the reference. */
static double prepare(bench *b, uint64_t n, const dist_spec *dist, int pairs, uint64_t *fp)
{
    gen_state g;
    gen_init(&g, dist, CLSORT_KEY_U32, b->a.common.seed, n);
    gen_keys(&g, b->keys, (size_t)n);
    gen_done(&g);
    if (pairs)
        for (size_t i = 0; i < n; i++)
            b->values[i] = (uint32_t)i;
    uint32_t *v = pairs ? b->values : NULL;
    *fp = pairs_fingerprint(b->keys, v, (size_t)n);
    if (b->a.no_reference)
        return 0;
    unsigned nref = b->a.repeat < 3 ? b->a.repeat : 3;
    double t[3];
    for (unsigned r = 0; r < nref; r++) {
        memcpy(b->rk, b->keys, n * 4);
        if (pairs)
            memcpy(b->rv, b->values, n * 4);
        double t0 = now_ms();
        cpu_radix_sort(b->rk, pairs ? b->rv : NULL, b->tk, pairs ? b->tv : NULL, (size_t)n);
        t[r] = now_ms() - t0;
    }
    return median(t, nref);
}

enum { CASE_SKIPPED = -1 };

/* One case: warm-up and timed runs of one algorithm on the prepared data. Returns an exit status, or
 * CASE_SKIPPED where the algorithm does not take this case (too large for it or the device, or an
 * unsupported combination). */
static int run_case(bench *b, bench_row *r, uint64_t fp)
{
    const bench_args *a = &b->a;
    size_t n = (size_t)r->n;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = r->pairs ? 4 : 0;
    spec.algorithm = (clsort_algorithm)r->algorithm;
    for (unsigned i = 0; i < a->warmup + a->repeat; i++) {
        memcpy(b->wk, b->keys, n * 4);
        if (r->pairs)
            memcpy(b->wv, b->values, n * 4);
        clsort_stats s = {0};
        clsort_status st = clsort_sort(b->ctx, &spec, b->wk, r->pairs ? b->wv : NULL, n, &s);
        if (st != CLSORT_OK) {
            char dist[64];
            dist_format(&a->dist[r->dist], dist, sizeof dist);
            if (st == CLSORT_ERROR_TOO_LARGE || st == CLSORT_ERROR_UNSUPPORTED || st == CLSORT_ERROR_LIMIT) {
                msg_warn("skipped %s, n %zu, %s, %s: %s", clsort_algorithm_name(spec.algorithm), n, dist,
                         layout_name(r->pairs), clsort_status_string(st));
                return CASE_SKIPPED;
            }
            msg_lib_error("sort failed", st, clsort_error_detail(b->ctx));
            msg_error("(algorithm %s, n %zu, %s, %s)", clsort_algorithm_name(spec.algorithm), n, dist,
                      layout_name(r->pairs));
            return exit_for_status(st);
        }
        r->built += s.programs_built;
        r->cached += s.programs_cached;
        r->ran = s.algorithm;
        if (i == 0 || i == a->warmup + a->repeat - 1) {
            int c = check(b->wk, r->pairs ? b->wv : NULL, a->no_reference ? NULL : b->rk, fp, n);
            if (c != EXIT_OK)
                return c;
        }
        if (i >= a->warmup) {
            unsigned k = i - a->warmup;
            b->kernel[k] = s.kernel_ms;
            b->sort[k] = s.total_ms;
            b->upload[k] = s.upload_ms;
            b->download[k] = s.download_ms;
        }
    }
    double best = b->kernel[0];
    for (unsigned i = 1; i < a->repeat; i++)
        best = b->kernel[i] < best ? b->kernel[i] : best;
    r->kernel_best_ms = best;
    r->kernel_ms = median(b->kernel, a->repeat);
    r->sort_ms = median(b->sort, a->repeat);
    r->upload_ms = median(b->upload, a->repeat);
    r->download_ms = median(b->download, a->repeat);
    return EXIT_OK;
}

static int sweep(bench *b)
{
    const bench_args *a = &b->a;
    size_t total = (size_t)(a->keys + a->pairs) * a->dist_count * a->n_count * a->algo_count;
    for (int pairs = 0; pairs <= 1; pairs++) {
        if (!(pairs ? a->pairs : a->keys))
            continue;
        for (unsigned d = 0; d < a->dist_count; d++) {
            for (unsigned k = 0; k < a->n_count; k++) {
                uint64_t n = a->n[k], fp;
                char dist[64], label[160];
                dist_format(&a->dist[d], dist, sizeof dist);
                snprintf(label, sizeof label, "bench: reference, n %llu, %s, %s", (unsigned long long)n, dist,
                         layout_name(pairs));
                progress_phase(label, 0);
                double ref = prepare(b, n, &a->dist[d], pairs, &fp);
                for (unsigned g = 0; g < a->algo_count; g++) {
                    bench_row *r = &b->rows[b->n_rows];
                    r->algorithm = a->algorithm[g];
                    r->n = n;
                    r->dist = d;
                    r->pairs = pairs;
                    r->reference_ms = ref;
                    snprintf(label, sizeof label, "bench %zu/%zu: %s, n %llu, %s, %s", b->n_rows + 1, total,
                             clsort_algorithm_name(r->algorithm), (unsigned long long)n, dist,
                             layout_name(pairs));
                    progress_phase(label, 0);
                    msg_info("%s", label + 6);
                    int rc = run_case(b, r, fp);
                    if (rc == CASE_SKIPPED) {
                        memset(r, 0, sizeof *r);
                        continue;
                    }
                    if (rc != EXIT_OK)
                        return rc;
                    b->n_rows++;
                    if (b->table)
                        print_row(b, r);
                }
            }
        }
    }
    return EXIT_OK;
}

static char *bench_json(const bench *b)
{
    const bench_args *a = &b->a;
    json_buf j = {0};
    json_open(&j);
    json_u64(&j, "format_version", 1);
    json_str(&j, "tool", "clsort");
    json_str(&j, "version", clsort_version());
    json_str(&j, "device", b->device);
    json_str(&j, "platform", b->platform[0] ? b->platform : NULL);
    json_str(&j, "driver", b->driver[0] ? b->driver : NULL);
    json_u64(&j, "seed", a->common.seed);
    json_u64(&j, "repeat", a->repeat);
    json_u64(&j, "warmup", a->warmup);
    json_str(&j, "reference", a->no_reference ? NULL : "host LSD radix sort, 8-bit digits, 1 thread");
    json_key(&j, "rows");
    json_raw(&j, "[");
    for (size_t i = 0; i < b->n_rows; i++) {
        const bench_row *r = &b->rows[i];
        char dist[64];
        dist_format(&a->dist[r->dist], dist, sizeof dist);
        json_raw(&j, i ? ",\n  " : "\n  ");
        json_open(&j);
        json_str(&j, "algorithm", clsort_algorithm_name(r->algorithm));
        json_str(&j, "algorithm_ran", r->ran);
        json_u64(&j, "n", r->n);
        json_str(&j, "dist", dist);
        json_str(&j, "data", layout_name(r->pairs));
        json_str(&j, "key_type", "u32");
        json_u64(&j, "value_size", r->pairs ? 4 : 0);
        json_num(&j, "kernel_ms", r->kernel_ms);
        json_num(&j, "kernel_best_ms", r->kernel_best_ms);
        json_num(&j, "kernel_gkeys_per_s", rate(r->n, r->kernel_ms));
        json_num(&j, "e2e_ms", r->sort_ms);
        json_num(&j, "upload_ms", r->upload_ms);
        json_num(&j, "download_ms", r->download_ms);
        json_num(&j, "e2e_gkeys_per_s", rate(r->n, r->sort_ms));
        if (a->no_reference) {
            json_str(&j, "reference_ms", NULL);
            json_str(&j, "reference_gkeys_per_s", NULL);
            json_str(&j, "ratio", NULL);
            json_str(&j, "ratio_e2e", NULL);
        } else {
            json_num(&j, "reference_ms", r->reference_ms);
            json_num(&j, "reference_gkeys_per_s", rate(r->n, r->reference_ms));
            json_num(&j, "ratio", r->kernel_ms > 0 ? r->reference_ms / r->kernel_ms : NAN);
            json_num(&j, "ratio_e2e", r->sort_ms > 0 ? r->reference_ms / r->sort_ms : NAN);
        }
        json_u64(&j, "programs_built", r->built);
        json_u64(&j, "programs_cached", r->cached);
        json_close(&j);
    }
    json_raw(&j, "\n]");
    j.fields = 1;
    json_close(&j);
    json_raw(&j, "\n");
    if (j.failed) {
        free(j.s);
        return NULL;
    }
    return j.s;
}

/* One line per algorithm (and distribution and layout, where there are several), kernel GKey/s against
 * n; the reference dashed. */
static char *bench_plot(const bench *b)
{
    const bench_args *a = &b->a;
    size_t max_series = (size_t)(a->algo_count + 1) * a->dist_count * 2;
    plot_series *s = calloc(max_series, sizeof *s);
    double *xs = calloc(max_series * a->n_count, sizeof(double));
    double *ys = calloc(max_series * a->n_count, sizeof(double));
    char (*labels)[96] = calloc(max_series, sizeof *labels);
    char *svg = NULL;
    if (!s || !xs || !ys || !labels)
        goto out;
    int many = a->dist_count > 1 || a->keys + a->pairs > 1;
    size_t count = 0;
    for (int pairs = 0; pairs <= 1; pairs++) {
        if (!(pairs ? a->pairs : a->keys))
            continue;
        for (unsigned d = 0; d < a->dist_count; d++) {
            char dist[64];
            dist_format(&a->dist[d], dist, sizeof dist);
            for (unsigned g = 0; g <= a->algo_count; g++) {
                int ref = g == a->algo_count;
                if (ref && a->no_reference)
                    continue;
                plot_series *p = &s[count];
                double *x = xs + count * a->n_count, *y = ys + count * a->n_count;
                for (size_t i = 0; i < b->n_rows; i++) {
                    const bench_row *r = &b->rows[i];
                    if (r->pairs != pairs || r->dist != d || (!ref && r->algorithm != a->algorithm[g]))
                        continue;
                    if (ref && p->count && x[p->count - 1] == (double)r->n)
                        continue; /* the reference once per n */
                    x[p->count] = (double)r->n;
                    y[p->count] = rate(r->n, ref ? r->reference_ms : r->kernel_ms);
                    p->count++;
                }
                const char *name = ref ? "host reference" : clsort_algorithm_name(a->algorithm[g]);
                if (many)
                    snprintf(labels[count], sizeof labels[0], "%s (%s, %s)", name, dist, layout_name(pairs));
                else
                    snprintf(labels[count], sizeof labels[0], "%s", name);
                p->label = labels[count];
                p->dashed = ref;
                p->x = x;
                p->y = y;
                count++;
            }
        }
    }
    char subtitle[400];
    snprintf(subtitle, sizeof subtitle, "%s, driver %s; median of %u runs; clsort %s", b->device,
             b->driver[0] ? b->driver : "?", a->repeat, clsort_version());
    svg = plot_svg("clsort bench: sorting throughput (kernels)", subtitle, "n (keys, log2 scale)",
                   "GKey/s", s, count);
out:
    free(s);
    free(xs);
    free(ys);
    free(labels);
    return svg;
}

static int write_report(output_file *out, char *text)
{
    if (!text) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    fflush(stdout);
    int rc = output_write(out, text, strlen(text));
    free(text);
    if (rc == EXIT_OK)
        rc = output_finish(out);
    if (rc == EXIT_OK) {
        output_file *list[1] = {out};
        rc = output_commit(list, 1);
    }
    return rc;
}

static int bench_run(bench *b)
{
    const bench_args *a = &b->a;
    for (unsigned i = 0; i < a->n_count; i++) {
        if (a->n[i] > SIZE_MAX / 8 || a->n[i] > UINT32_MAX) {
            msg_error("-n %llu is too large (at most %u keys: the values are u32 indices)",
                      (unsigned long long)a->n[i], UINT32_MAX);
            return EXIT_USAGE;
        }
        if (a->n[i] > b->max_n)
            b->max_n = (size_t)a->n[i];
    }
    /* the reports are opened first, so that a bad path fails before the work */
    int rc;
    if (a->json) {
        b->have_json = 1;
        if ((rc = output_open(&b->json, a->json, 1)) != EXIT_OK)
            return rc;
    }
    if (a->plot) {
        b->have_plot = 1;
        if ((rc = output_open(&b->plot, a->plot, 1)) != EXIT_OK)
            return rc;
        if (b->have_json && output_same(&b->json, &b->plot)) {
            msg_error("--json and --plot name the same file (%s)", b->plot.name);
            return EXIT_USAGE;
        }
    }
    b->table = !(a->json && strcmp(a->json, "-") == 0) && !(a->plot && strcmp(a->plot, "-") == 0);
    if ((rc = bench_alloc(b)) != EXIT_OK)
        return rc;
    progress_phase("bench: opening the device", 0);
    clsort_status st = clsort_open(&b->ctx, a->common.device);
    if (st != CLSORT_OK) {
        return open_failed(st, clsort_last_error_detail());
    }
    b->device = clsort_device_name(b->ctx);
    find_driver(b);
    if (b->table)
        print_header(b);
    if ((rc = sweep(b)) != EXIT_OK)
        return rc;
    progress_end();
    if (b->table && !a->no_reference)
        printf("vs ref: the reference's time over the kernels' (host LSD radix sort, 1 thread, same data);"
               " e2e: upload, kernels, download\n");
    if (b->have_json && (rc = write_report(&b->json, bench_json(b))) != EXIT_OK)
        return rc;
    if (b->have_plot && (rc = write_report(&b->plot, bench_plot(b))) != EXIT_OK)
        return rc;
    return EXIT_OK;
}

int cmd_bench(int argc, char **argv, int first)
{
    bench b;
    memset(&b, 0, sizeof b);
    int rc = parse_bench_args(argc, argv, first, &b.a);
    if (rc >= 0)
        return rc;
    io_install_signal_handlers();
    progress_start(!b.a.common.no_progress);
    rc = bench_run(&b);
    progress_end();
    bench_free(&b);
    return rc;
}
