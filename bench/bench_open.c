/*
 * What opening a device costs a process, and what a small sort costs after it.
 *   bench_open [DEVICE]   clsort_open() (platform, context, queue; programs come later, at the
 *                         first sort) and clsort_close(), nothing else. bench/before-after-h100.sh
 *                         times the process beside clsort's on a tiny file.
 *   bench_open [DEVICE] --sort LOG2N,... [--reps R]
 *                         then, for each size, u32 keys and u64 keys with 8-byte values of host
 *                         arrays: clsort_sort()'s wall time with each algorithm of radix8 and
 *                         host-radix, its first call in the context (programs loaded) and the
 *                         median of R more (default 21), every result checked sorted. Lines:
 *                         SMALL algo=A kind=keys|pairs log2n=L first_ms=F warm_ms=W
 * DEVICE as -d takes it ("" or "-": $CLSORT_DEVICE, else the best device).
 */
#include <clsort.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The keys of n records filled again (the same each time), sorted, checked; wall ms. */
static double one_sort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                       size_t n, int *bad)
{
    uint64_t s = 88172645463325252ull;
    const int wide = spec->key_type == CLSORT_KEY_U64;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = next(&s);
        if (wide) {
            ((uint64_t *)keys)[i] = r;
            ((uint64_t *)values)[i] = i;
        } else {
            ((uint32_t *)keys)[i] = (uint32_t)r;
        }
    }
    const double t = now_ms();
    const clsort_status st = clsort_sort(ctx, spec, keys, values, n, NULL);
    const double ms = now_ms() - t;
    for (size_t i = 1; i < n && st == CLSORT_OK; i++)
        if (wide ? ((uint64_t *)keys)[i - 1] > ((uint64_t *)keys)[i]
                 : ((uint32_t *)keys)[i - 1] > ((uint32_t *)keys)[i])
            *bad = 1;
    if (st != CLSORT_OK) {
        fprintf(stderr, "bench_open: %s\n", clsort_error_detail(ctx));
        *bad = 1;
    }
    return ms;
}

static int time_sorts(clsort_context *ctx, const char *sizes, int reps)
{
    const clsort_algorithm algos[2] = { CLSORT_ALGO_RADIX8, CLSORT_ALGO_HOST_RADIX };
    int bad = 0;
    double *t = calloc((size_t)reps, sizeof *t);
    for (int kind = 0; kind < 2 && t; kind++) {
        for (const char *p = sizes; *p && !bad;) {
            const int l = atoi(p);
            const size_t n = (size_t)1 << l;
            void *keys = malloc(n * 8), *values = malloc(n * 8);
            for (int a = 0; a < 2 && keys && values && !bad; a++) {
                clsort_spec spec;
                clsort_spec_default(&spec);
                spec.algorithm = algos[a];
                spec.key_type = kind ? CLSORT_KEY_U64 : CLSORT_KEY_U32;
                spec.value_size = kind ? 8 : 0;
                const double first = one_sort(ctx, &spec, keys, kind ? values : NULL, n, &bad);
                for (int r = 0; r < reps; r++)
                    t[r] = one_sort(ctx, &spec, keys, kind ? values : NULL, n, &bad);
                qsort(t, (size_t)reps, sizeof *t, cmp_double);
                printf("SMALL algo=%s kind=%s log2n=%d first_ms=%.4f warm_ms=%.4f\n",
                       clsort_algorithm_name(algos[a]), kind ? "pairs" : "keys", l, first,
                       t[reps / 2]);
            }
            free(keys);
            free(values);
            p = strchr(p, ',');
            p = p ? p + 1 : "";
        }
    }
    free(t);
    return bad || !t;
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
    const char *sizes = NULL;
    int reps = 21;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sort"))
            sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--reps") && atoi(argv[i + 1]) > 0)
            reps = atoi(argv[i + 1]);
    }
    clsort_context *ctx = NULL;
    if (clsort_open(&ctx, device && *device ? device : NULL) != CLSORT_OK) {
        fprintf(stderr, "bench_open: %s\n", clsort_last_error_detail());
        return 2;
    }
    printf("%s\n", clsort_device_name(ctx));
    const int bad = sizes ? time_sorts(ctx, sizes, reps) : 0;
    clsort_close(&ctx);
    return bad ? 1 : 0;
}
