/*
 * clsort_sort_stream: records from a source callback, sorted, to a sink callback. Checked bit for bit
 * against the host reference sort (stable: values are input positions) at sizes around the staging
 * chunk and the run length, which the settings make small, with sources that give short counts, a
 * size known in advance or not, segments, and the callbacks' errors.
 */
#include "clsort.h"
#include "testdata.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Stage of 1000 bytes: 125 u32 pairs or 250 u32 keys per chunk; runs of 1000 records. */
#define STAGE_BYTES "1000"
#define RUN_KEYS "1000"

typedef struct feed {
    const uint32_t *k, *v;
    size_t n, pos;
    uint64_t rng;        /* short counts: each call gives 1..max records */
    size_t fail_at;      /* the source fails once pos reaches this (SIZE_MAX: never) */
    size_t calls;
    int too_many;        /* claim one more record than asked for (writing only those asked for) */
    int records;         /* give joined records */
    size_t asked, gave;  /* the last call's max and return */
} feed;

typedef struct drain {
    uint32_t *k, *v;
    size_t n, cap;
    size_t fail_at;      /* the sink fails once n reaches this */
    int records;         /* takes joined records */
} drain;

static long long feed_read(void *user, void *keys, void *values, size_t max)
{
    feed *f = user;
    f->calls++;
    if (f->pos >= f->fail_at)
        return -1;
    size_t left = f->n - f->pos, m = left < max ? left : max;
    if (m > 1 && f->rng) {
        f->rng ^= f->rng << 13, f->rng ^= f->rng >> 7, f->rng ^= f->rng << 17;
        m = 1 + (size_t)(f->rng % m);
    }
    /* A source that returns more than it was asked for: it claims one record more, but writes
     * only the max it was given room for (a write past the buffers is the caller's own heap
     * corruption, not something the library can detect). */
    const size_t claimed = f->too_many && m == max && left > max ? m + 1 : m;
    if (f->records) {
        assert_null(values);
        for (size_t i = 0; i < m; i++) {
            memcpy((char *)keys + 8 * i, f->k + f->pos + i, 4);
            memcpy((char *)keys + 8 * i + 4, f->v + f->pos + i, 4);
        }
    } else {
        memcpy(keys, f->k + f->pos, m * 4);
        if (values)
            memcpy(values, f->v + f->pos, m * 4);
    }
    f->pos += claimed;
    f->asked = max;
    f->gave = claimed;
    return (long long)claimed;
}

static int drain_write(void *user, const void *keys, const void *values, size_t n)
{
    drain *d = user;
    if (d->n + n > d->cap || d->n >= d->fail_at)
        return 1;
    if (d->records) {
        assert_null(values);
        for (size_t i = 0; i < n; i++) {
            memcpy(d->k + d->n + i, (const char *)keys + 8 * i, 4);
            memcpy(d->v + d->n + i, (const char *)keys + 8 * i + 4, 4);
        }
    } else {
        memcpy(d->k + d->n, keys, n * 4);
        if (values)
            memcpy(d->v + d->n, values, n * 4);
    }
    d->n += n;
    return 0;
}

static clsort_context *open_with_stage(const char *stage, const char *run)
{
    setenv("CLSORT_STAGE_BYTES", stage, 1);
    if (run)
        setenv("CLSORT_CHUNK_KEYS", run, 1);
    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    unsetenv("CLSORT_STAGE_BYTES");
    unsetenv("CLSORT_CHUNK_KEYS");
    return ctx;
}

/* The reference: a stable sort of (key, position), descending by complementing; per segment when
 * seg is not 0. */
static void reference(const uint32_t *k, size_t n, int desc, size_t seg, uint32_t *rk, uint32_t *rv)
{
    for (size_t i = 0; i < n; i++) {
        rk[i] = desc ? ~k[i] : k[i];
        rv[i] = (uint32_t)i;
    }
    const size_t step = seg ? seg : (n ? n : 1);
    for (size_t s = 0; s < n; s += step)
        test_reference_sort(rk + s, rv + s, n - s < step ? n - s : step);
    for (size_t i = 0; desc && i < n; i++)
        rk[i] = ~rk[i];
}

/* One stream sort of n keys (with positions as values when pairs; joined records in and/or out as
 * bits 1 and 2 of pairs say), checked. */
static void check_stream_with(clsort_context *ctx, size_t n, test_dist dist, int pairs, int desc,
                              size_t seg, int known, uint64_t rng,
                              const clsort_stream_settings *set, clsort_stats *out_stats)
{
    const int rec_in = pairs & 2, rec_out = pairs & 4;
    uint32_t *k = malloc((n + 1) * 4), *v = malloc((n + 1) * 4);
    uint32_t *rk = malloc((n + 1) * 4), *rv = malloc((n + 1) * 4);
    uint32_t *ok = malloc((n + 1) * 4), *ov = malloc((n + 1) * 4);
    test_fill_keys(k, n, dist, n * 31 + (uint64_t)dist);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    reference(k, n, desc, seg, rk, rv);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = pairs ? 4 : 0;
    spec.descending = desc;
    spec.segment = seg;
    if (seg || pairs)
        spec.algorithm = CLSORT_ALGO_RADIX8; /* stable everywhere */
    feed f = { k, v, n, 0, rng, SIZE_MAX, 0, 0, rec_in, 0, 0 };
    drain d = { ok, ov, 0, n, SIZE_MAX, rec_out };
    clsort_source src = { feed_read, &f, known ? n : CLSORT_SIZE_UNKNOWN, rec_in };
    clsort_sink dst = { drain_write, &d, rec_out };
    clsort_stats stats;
    clsort_status st = clsort_sort_stream(ctx, &spec, &src, &dst, set, &stats);
    if (st != CLSORT_OK)
        fail_msg("n %zu %s pairs %d desc %d seg %zu known %d: %s (%s)", n, test_dist_name(dist),
                 pairs, desc, seg, known, clsort_status_string(st), clsort_error_detail(ctx));
    assert_int_equal(d.n, n);
    assert_int_equal(stats.n, n);
    if (memcmp(ok, rk, n * 4) != 0 || (pairs && memcmp(ov, rv, n * 4) != 0))
        fail_msg("n %zu %s pairs %d desc %d seg %zu known %d: output differs from the reference",
                 n, test_dist_name(dist), pairs, desc, seg, known);
    free(k);
    free(v);
    free(rk);
    free(rv);
    free(ok);
    free(ov);
    if (out_stats)
        *out_stats = stats;
}

static void check_stream(clsort_context *ctx, size_t n, test_dist dist, int pairs, int desc,
                         size_t seg, int known, uint64_t rng)
{
    check_stream_with(ctx, n, dist, pairs, desc, seg, known, rng, NULL, NULL);
}

/* Sizes around the chunk (125 pairs, 250 keys) and the run (1000), primes, and one of many runs. */
static const size_t sizes[] = { 0, 1, 2, 124, 125, 126, 249, 250, 251, 999, 1000, 1001, 2999, 3001,
                                7919, 20011 };

static void test_sizes(void **state)
{
    (void)state;
    clsort_context *ctx = open_with_stage(STAGE_BYTES, RUN_KEYS);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int pairs = 0; pairs < 8; pairs += pairs ? 2 : 1) /* 0, 1, 3, 5, 7 */
            for (int known = 0; known < 2; known++)
                check_stream(ctx, sizes[s], s % 2 ? DIST_FEW : DIST_UNIFORM, pairs, s % 3 == 1,
                             0, known, known ? 0 : sizes[s] + 1);
    clsort_close(&ctx);
}

static void test_distributions(void **state)
{
    (void)state;
    clsort_context *ctx = open_with_stage(STAGE_BYTES, RUN_KEYS);
    for (int d = 0; d < DIST_COUNT; d++)
        check_stream(ctx, 4099, (test_dist)d, 1, d % 2, 0, d % 3 != 0, (uint64_t)d + 7);
    clsort_close(&ctx);
}

/* One run, no forced run length: the whole input in one device sort through the staging ring. */
static void test_one_run(void **state)
{
    (void)state;
    clsort_context *ctx = open_with_stage("4096", NULL);
    check_stream(ctx, 100003, DIST_UNIFORM, 1, 0, 0, 1, 0);
    check_stream(ctx, 100003, DIST_FEW, 7, 1, 0, 0, 5);
    check_stream(ctx, 100003, DIST_ENTROPY4, 0, 1, 0, 0, 99);
    clsort_close(&ctx);
}

static void test_segments(void **state)
{
    (void)state;
    clsort_context *ctx = open_with_stage(STAGE_BYTES, RUN_KEYS);
    static const size_t segs[] = { 1, 7, 300, 1000, 1500 };
    for (size_t s = 0; s < sizeof segs / sizeof segs[0]; s++)
        for (int known = 0; known < 2; known++)
            check_stream(ctx, 4507, DIST_UNIFORM, known ? 7 : 1, (int)s % 2, segs[s], known,
                         known ? 0 : s + 3);
    clsort_close(&ctx);
}

/* A callback that fails stops the sort with CLSORT_ERROR_IO; the sink saw nothing past the failure;
 * a source that gives more than asked is refused. The context stays usable. */
static void test_callback_errors(void **state)
{
    (void)state;
    clsort_context *ctx = open_with_stage(STAGE_BYTES, RUN_KEYS);
    const size_t n = 5000;
    uint32_t *k = malloc(n * 4), *out = malloc(n * 4);
    test_fill_keys(k, n, DIST_UNIFORM, 5);
    for (int where = 0; where < 3; where++) {
        const size_t fail_at = where == 0 ? 0 : where == 1 ? 2500 : SIZE_MAX;
        feed f = { k, NULL, n, 0, 0, fail_at, 0, 0, 0, 0, 0 };
        drain d = { out, NULL, 0, n, where == 2 ? 0 : SIZE_MAX, 0 };
        clsort_source src = { feed_read, &f, n, 0 };
        clsort_sink dst = { drain_write, &d, 0 };
        assert_int_equal(clsort_sort_stream(ctx, NULL, &src, &dst, NULL, NULL), CLSORT_ERROR_IO);
        assert_true(strstr(clsort_error_detail(ctx), where == 2 ? "sink" : "source") != NULL);
        if (where < 2)
            assert_int_equal(d.n, 0);
    }
    feed f = { k, NULL, n, 0, 0, SIZE_MAX, 0, 1, 0, 0, 0 };
    drain d = { out, NULL, 0, n, SIZE_MAX, 0 };
    clsort_source src = { feed_read, &f, n, 0 };
    clsort_sink dst = { drain_write, &d, 0 };
    assert_int_equal(clsort_sort_stream(ctx, NULL, &src, &dst, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    char want[128];
    assert_int_equal(f.gave, f.asked + 1);
    snprintf(want, sizeof want, "the source returned %zu records where at most %zu were asked for",
             f.gave, f.asked);
    assert_string_equal(clsort_error_detail(ctx), want);
    assert_int_equal(d.n, 0);
    clsort_source none = { NULL, NULL, 0, 0 };
    assert_int_equal(clsort_sort_stream(ctx, NULL, &none, &dst, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    free(k);
    free(out);
    check_stream(ctx, 3001, DIST_UNIFORM, 1, 0, 0, 1, 0);
    clsort_close(&ctx);
}

/* Odd-even's limit (CLSORT_ODDEVEN_MAX_KEYS) applies to the records the source gives, not to the
 * staging buffers' capacity or to the size hint: an input of unknown size under the limit is sorted
 * (it was refused as if it held 16 staging chunks), and one that gives more is refused once read
 * past it, with nothing written. */
static void test_oddeven_limit(void **state)
{
    (void)state;
    clsort_context *ctx = NULL; /* the default staging: chunks of 2^21 keys */
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    const size_t big = CLSORT_ODDEVEN_MAX_KEYS + 1;
    uint32_t *k = malloc(big * 4), *out = malloc(big * 4), *ref = malloc(big * 4);
    test_fill_keys(k, big, DIST_UNIFORM, 17);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_ODDEVEN;
    static const struct { size_t n; uint64_t hint; } ok_cases[] = {
        { 0, CLSORT_SIZE_UNKNOWN }, { 2, CLSORT_SIZE_UNKNOWN }, { 1000, CLSORT_SIZE_UNKNOWN },
        { 1000, 100000 }, /* a hint past the limit: only a hint */
    };
    for (size_t c = 0; c < sizeof ok_cases / sizeof ok_cases[0]; c++) {
        const size_t n = ok_cases[c].n;
        feed f = { k, NULL, n, 0, 0, SIZE_MAX, 0, 0, 0, 0, 0 };
        drain d = { out, NULL, 0, big, SIZE_MAX, 0 };
        clsort_source src = { feed_read, &f, ok_cases[c].hint, 0 };
        clsort_sink dst = { drain_write, &d, 0 };
        clsort_status st = clsort_sort_stream(ctx, &spec, &src, &dst, NULL, NULL);
        if (st != CLSORT_OK)
            fail_msg("oddeven, %zu keys: %s", n, clsort_error_detail(ctx));
        assert_int_equal(d.n, n);
        memcpy(ref, k, n * 4);
        test_reference_sort(ref, NULL, n);
        assert_memory_equal(out, ref, n * 4);
    }
    for (int known = 0; known < 2; known++) {
        feed f = { k, NULL, big, 0, 0, SIZE_MAX, 0, 0, 0, 0, 0 };
        drain d = { out, NULL, 0, big, SIZE_MAX, 0 };
        clsort_source src = { feed_read, &f, known ? big : CLSORT_SIZE_UNKNOWN, 0 };
        clsort_sink dst = { drain_write, &d, 0 };
        assert_int_equal(clsort_sort_stream(ctx, &spec, &src, &dst, NULL, NULL), CLSORT_ERROR_LIMIT);
        assert_non_null(strstr(clsort_error_detail(ctx), "the input has more than 65536"));
        assert_int_equal(d.n, 0);
    }
    free(k);
    free(out);
    free(ref);
    clsort_close(&ctx);
}

/* Under a small memory budget: runs in temporary files (some kept in memory first), merged by
 * 1 to 3 threads, in levels when the fan-in is below the run count. */
static void spill_cases(clsort_context *ctx);

/* ... with run files written from the calling thread and from a thread of their own, merged by
 * sorting blocks on the device (the default) and on the host's threads alone */
static void test_spill(void **state)
{
    (void)state;
    static const char *const modes[][2] = { { "0", "1" }, { "1", "1" }, { "0", "0" } };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        setenv("CLSORT_SPILL_THREAD", modes[m][0], 1);
        setenv("CLSORT_DEVICE_MERGE", modes[m][1], 1);
        clsort_context *ctx = open_with_stage(STAGE_BYTES, RUN_KEYS);
        unsetenv("CLSORT_SPILL_THREAD");
        unsetenv("CLSORT_DEVICE_MERGE");
        spill_cases(ctx);
        clsort_close(&ctx);
    }
}

static void spill_cases(clsort_context *ctx)
{
    static const struct { uint64_t budget; unsigned threads, fan_in; } cases[] = {
        { 16 << 10, 1, 2 }, { 40 << 10, 2, 3 }, { 48 << 10, 3, 0 }, { 16 << 10, 2, 64 },
    };
    static const size_t ns[] = { 1001, 7919, 20011 };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (int pairs = 0; pairs < 8; pairs += pairs ? 2 : 1) {
                clsort_stream_settings set;
                clsort_stream_settings_default(&set);
                set.memory_bytes = cases[c].budget;
                set.threads = cases[c].threads;
                set.fan_in = cases[c].fan_in;
                clsort_stats st;
                const int known = (int)(c + i) % 2;
                check_stream_with(ctx, ns[i], (test_dist)((c * 3 + i) % DIST_COUNT), pairs,
                                  pairs % 3 == 1, 0, known, known ? 0 : ns[i], &set, &st);
                assert_true(st.runs > 1);
                if (ns[i] > 5000)
                    assert_true(st.runs_spilled > 0);
                assert_int_equal(st.merge_threads, cases[c].threads);
                if (cases[c].fan_in && st.runs > cases[c].fan_in)
                    assert_true(st.merge_levels > 0);
                else
                    assert_int_equal(st.merge_levels, 0);
            }
    /* a directory where no file can be made */
    const char *bad = "/nonexistent-clsort-dir";
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = 16 << 10;
    set.temp_dirs = &bad;
    set.n_temp_dirs = 1;
    const size_t n = 5000;
    uint32_t *k = malloc(n * 4), *out = malloc(n * 4);
    test_fill_keys(k, n, DIST_UNIFORM, 5);
    for (int known = 0; known < 2; known++) {
        feed f = { k, NULL, n, 0, 0, SIZE_MAX, 0, 0, 0, 0, 0 };
        drain d = { out, NULL, 0, n, SIZE_MAX, 0 };
        clsort_source src = { feed_read, &f, known ? n : CLSORT_SIZE_UNKNOWN, 0 };
        clsort_sink dst = { drain_write, &d, 0 };
        assert_int_equal(clsort_sort_stream(ctx, NULL, &src, &dst, &set, NULL), CLSORT_ERROR_IO);
        assert_true(strstr(clsort_error_detail(ctx), bad) != NULL);
        if (known) /* checked before anything was read */
            assert_int_equal(f.pos, 0);
        assert_int_equal(d.n, 0);
    }
    free(k);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_callback_errors),
        cmocka_unit_test(test_oddeven_limit),
        cmocka_unit_test(test_spill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
