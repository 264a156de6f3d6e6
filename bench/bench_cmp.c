/*
 * Comparison-sort benchmark: median kernel time (clsort_stats.kernel_ms) of repeated sorts of the same
 * input after a warm-up, checked once against a host sort of each segment.
 *
 *   bench_cmp gen FILE N [SEED]                  write N uniform u32 keys
 *   bench_cmp ALGO FILE [SEGMENT [REPS [N]]]     sort the file's keys (or its first N)
 *
 * Prints one line: algo n segment median_ms gkeys_per_s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clsort.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int gen(const char *path, size_t n, uint64_t seed)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    uint32_t buf[4096];
    for (size_t done = 0; done < n;) {
        size_t m = n - done < 4096 ? n - done : 4096;
        for (size_t i = 0; i < m; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
            buf[i] = (uint32_t)(s >> 32);
        }
        if (fwrite(buf, 4, m, f) != m) {
            perror(path);
            fclose(f);
            return 1;
        }
        done += m;
    }
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen"))
        return gen(argv[2], strtoull(argv[3], NULL, 0), argc > 4 ? strtoull(argv[4], NULL, 0) : 1);
    clsort_algorithm algo;
    if (argc < 3 || clsort_algorithm_from_name(argv[1], &algo) != CLSORT_OK) {
        fprintf(stderr, "usage: %s ALGO FILE [SEGMENT [REPS [N]]] | %s gen FILE N [SEED]\n", argv[0],
                argv[0]);
        return 2;
    }
    const size_t segment = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
    const int reps = argc > 4 ? atoi(argv[4]) : 10;
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f) / 4;
    rewind(f);
    if (argc > 5 && strtoull(argv[5], NULL, 0) < n)
        n = strtoull(argv[5], NULL, 0);
    uint32_t *input = malloc(n * 4), *keys = malloc(n * 4);
    if (!input || !keys || fread(input, 4, n, f) != n) {
        fprintf(stderr, "%s: cannot read %zu keys\n", argv[2], n);
        return 1;
    }
    fclose(f);

    clsort_context *ctx;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open: %s: %s\n", clsort_status_string(st), clsort_last_error_detail());
        return 1;
    }
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = algo;
    spec.segment = segment;
    double *ms = malloc(sizeof(double) * (reps > 0 ? reps : 1));
    for (int r = -2; r < reps; r++) { /* two warm-up runs: program build, first touch */
        memcpy(keys, input, n * 4);
        clsort_stats stats;
        if ((st = clsort_sort(ctx, &spec, keys, NULL, n, &stats)) != CLSORT_OK) {
            fprintf(stderr, "%s: %s: %s\n", argv[1], clsort_status_string(st), clsort_error_detail(ctx));
            return 1;
        }
        if (r >= 0)
            ms[r] = stats.kernel_ms;
    }
    /* The last result, checked segment by segment. */
    const size_t seg = segment && segment < n ? segment : n;
    for (size_t lo = 0; lo < n; lo += seg) {
        size_t m = n - lo < seg ? n - lo : seg;
        qsort(input + lo, m, 4, cmp_u32);
    }
    if (memcmp(input, keys, n * 4)) {
        fprintf(stderr, "%s: WRONG RESULT (n %zu, segment %zu)\n", argv[1], n, segment);
        return 1;
    }
    qsort(ms, reps, sizeof *ms, cmp_double);
    const double med = ms[reps / 2];
    printf("%s %zu %zu %.4f %.3f\n", argv[1], n, segment, med, med > 0 ? n / (med * 1e6) : 0.0);
    clsort_close(&ctx);
    free(ms);
    free(input);
    free(keys);
    return 0;
}
