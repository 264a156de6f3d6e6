/*
 * clsort_sort_stream_records: records by a key field from a source callback to a sink callback, in
 * one run and in many (clsort_stream_settings.run_records), kept in memory or spilled to run files
 * (a small memory budget) and merged in levels (a small fan-in). Checked byte for byte against a
 * host reference (a stable sort by (key order, input position) with qsort) and against
 * clsort_sort_records() of the whole input, with the input positions: numbers of each type at an
 * odd offset, a bit range, keys of 10 and 20 bytes, both orders, at sizes 0, 1, a run and one
 * either side of it, and primes; segments in runs of whole segments.
 */
#include "clsort.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RUN 100 /* records per run in the runs' cases */

static clsort_context *g_ctx;

typedef struct feed {
    const unsigned char *rec;
    size_t n, rs, pos;
    uint64_t rng;     /* short counts: each call gives 1..max records */
    size_t fail_at;   /* the source fails once pos reaches this (0: never) */
    int too_many;     /* claims one record more than it was asked for */
} feed;

typedef struct drain {
    unsigned char *rec;
    uint64_t *pos;
    size_t n, cap, rs;
    int with_pos, values_seen;
    size_t fail_at;   /* the sink fails a write that would pass this (0: never) */
} drain;

static long long feed_read(void *user, void *keys, void *values, size_t max)
{
    feed *f = user;
    assert_null(values);
    if (f->fail_at && f->pos >= f->fail_at)
        return -1;
    if (f->too_many && f->pos < f->n)
        return (long long)max + 1;
    size_t m = f->n - f->pos < max ? f->n - f->pos : max;
    if (m > 1) {
        f->rng ^= f->rng << 13, f->rng ^= f->rng >> 7, f->rng ^= f->rng << 17;
        m = 1 + (size_t)(f->rng % m);
    }
    memcpy(keys, f->rec + f->pos * f->rs, m * f->rs);
    f->pos += m;
    return (long long)m;
}

static int drain_write(void *user, const void *keys, const void *values, size_t n)
{
    drain *d = user;
    if (d->n + n > d->cap || (d->fail_at && d->n + n > d->fail_at))
        return 1;
    memcpy(d->rec + d->n * d->rs, keys, n * d->rs);
    if (values) {
        assert_int_equal((uintptr_t)values % 8, 0); /* an array of uint64_t */
        d->values_seen = 1;
        memcpy(d->pos + d->n, values, n * 8);
    }
    d->n += n;
    return 0;
}

/* The reference: positions sorted by (key order, position). */
typedef struct ref_ctx {
    const unsigned char *rec;
    const clsort_spec *spec;
    size_t rs, off, key_size;
} ref_ctx;
static ref_ctx g_ref;

static int ref_cmp(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    const unsigned char *ka = g_ref.rec + a * g_ref.rs + g_ref.off;
    const unsigned char *kb = g_ref.rec + b * g_ref.rs + g_ref.off;
    int c;
    if (g_ref.key_size) {
        c = memcmp(ka, kb, g_ref.key_size);
        c = g_ref.spec->descending ? -c : c;
    } else {
        const uint64_t oa = clsort_key_order(g_ref.spec, ka), ob = clsort_key_order(g_ref.spec, kb);
        c = oa < ob ? -1 : oa > ob;
    }
    return c ? c : a < b ? -1 : a > b;
}

typedef struct layout_case {
    const char *name;
    clsort_key_type type;
    size_t rs, off, key_size;
    int descending;
    unsigned begin_bit, end_bit;
} layout_case;

/* Records with few distinct keys (ties) in random bytes. */
static void fill(unsigned char *rec, size_t n, const layout_case *c, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n * c->rs; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rec[i] = (unsigned char)x;
    }
    const size_t ks = c->key_size ? c->key_size : clsort_key_type_size(c->type);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned char *k = rec + i * c->rs + c->off;
        if (x % 3 == 0) /* a key from a small set: many equal keys, and long common prefixes */
            memset(k, (int)(x >> 8) % 4, ks);
        if (c->key_size && x % 5 == 0)
            k[ks - 1] = (unsigned char)(x >> 16);
    }
}

static void check_case(const layout_case *c, size_t n, const clsort_stream_settings *set, int index)
{
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.key_type = c->type;
    spec.descending = c->descending;
    spec.begin_bit = c->begin_bit;
    spec.end_bit = c->end_bit;
    const size_t rs = c->rs;
    unsigned char *in = malloc(n * rs + 1), *want = malloc(n * rs + 1);
    uint64_t *order = malloc((n + 1) * 8), *lib_index = malloc((n + 1) * 8);
    drain d = { .rec = malloc(n * rs + 1), .pos = malloc((n + 1) * 8), .cap = n, .rs = rs };
    assert_non_null(in);
    assert_non_null(d.rec);
    fill(in, n, c, n + rs);
    /* the host reference */
    g_ref = (ref_ctx){ in, &spec, rs, c->off, c->key_size };
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort(order, n, 8, ref_cmp);
    for (size_t i = 0; i < n; i++)
        memcpy(want + i * rs, in + order[i] * rs, rs);
    /* the in-memory sort agrees with it */
    memcpy(d.rec, in, n * rs);
    assert_int_equal(clsort_sort_records(g_ctx, &spec, d.rec, n, rs, c->off, c->key_size,
                                         lib_index, NULL),
                     CLSORT_OK);
    if (n)
        assert_memory_equal(d.rec, want, n * rs);
    /* the stream */
    feed f = { in, n, rs, 0, n * 31 + 7, 0, 0 };
    const clsort_source src = { feed_read, &f, n % 2 ? n : CLSORT_SIZE_UNKNOWN, 0 };
    const clsort_sink snk = { drain_write, &d, 0 };
    const clsort_layout lay = { rs, c->off, c->key_size, index };
    clsort_stats st;
    const clsort_status s = clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, set, &st);
    if (s != CLSORT_OK)
        fail_msg("%s, n %zu: %s: %s", c->name, n, clsort_status_string(s),
                 clsort_error_detail(g_ctx));
    assert_int_equal(d.n, n);
    assert_int_equal(st.n, n);
    /* the runs' cases went where they are meant to: runs, files, merge levels */
    if (set && set->run_records && n > set->run_records) {
        assert_true(st.runs >= 2);
        if (set->memory_bytes && n >= 1000 && !st.runs_spilled) /* past what memory keeps */
            fail_msg("%s, n %zu: %u runs, none in a file", c->name, n, st.runs);
        if (set->fan_in && st.runs > set->fan_in)
            assert_true(st.merge_levels > 0);
    }
    if (memcmp(d.rec, want, n * rs) != 0)
        fail_msg("%s, n %zu: the records differ from the reference", c->name, n);
    if (index) {
        assert_true(d.values_seen || n == 0);
        for (size_t i = 0; i < n; i++)
            if (d.pos[i] != order[i])
                fail_msg("%s, n %zu: position %zu is %llu, not %llu", c->name, n, i,
                         (unsigned long long)d.pos[i], (unsigned long long)order[i]);
    } else {
        assert_false(d.values_seen);
    }
    free(in);
    free(want);
    free(order);
    free(lib_index);
    free(d.rec);
    free(d.pos);
}

static const layout_case cases[] = {
    { "u32 at 3 of 12", CLSORT_KEY_U32, 12, 3, 0, 0, 0, 0 },
    { "i32 at 1 of 9, descending", CLSORT_KEY_I32, 9, 1, 0, 1, 0, 0 },
    { "f32 at 5 of 16", CLSORT_KEY_F32, 16, 5, 0, 0, 0, 0 },
    { "u64 at 7 of 24, bits 8:40", CLSORT_KEY_U64, 24, 7, 0, 0, 8, 40 },
    { "i64 at 0 of 8", CLSORT_KEY_I64, 8, 0, 0, 0, 0, 0 },
    { "f64 at 2 of 20, descending", CLSORT_KEY_F64, 20, 2, 0, 1, 0, 0 },
    { "bytes 10 at 3 of 32", CLSORT_KEY_U32, 32, 3, 10, 0, 0, 0 },
    { "bytes 20 at 5 of 40, descending", CLSORT_KEY_U32, 40, 5, 20, 1, 0, 0 },
    { "bytes 4 at 1 of 6", CLSORT_KEY_U32, 6, 1, 4, 0, 0, 0 },
};

static const size_t sizes[] = { 0, 1, RUN - 1, RUN, RUN + 1, 97, 1009, 3001 };

static void run_all(const clsort_stream_settings *set, int index)
{
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check_case(&cases[c], sizes[i], set, index);
}

/* One run: the whole input fits the default budget. */
static void test_one_run(void **state)
{
    (void)state;
    run_all(NULL, 1);
}

/* Runs of RUN records kept in memory, merged by two threads. */
static void test_runs_in_memory(void **state)
{
    (void)state;
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.run_records = RUN;
    set.threads = 2;
    run_all(&set, 1);
    run_all(&set, 0);
}

/* Runs written to run files under a small budget, merged in levels of 3. */
static void test_runs_in_files(void **state)
{
    (void)state;
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.run_records = RUN;
    set.memory_bytes = 128 << 10;
    set.threads = 3;
    set.fan_in = 3;
    run_all(&set, 1);
}

/* spec->segment: runs of whole segments, each sorted on its own and written as it is; the same
 * bytes and positions as clsort_sort_records() of the whole input, for a run cap that is not a
 * multiple of the segment and one below it. */
static void test_segments(void **state)
{
    (void)state;
    const layout_case *c = &cases[7]; /* bytes 20 at 5 of 40, descending */
    const size_t n = 1009, rs = c->rs;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.descending = 1;
    spec.segment = 50;
    unsigned char *in = malloc(n * rs), *want = malloc(n * rs);
    uint64_t *want_pos = malloc(n * 8);
    drain d = { .rec = malloc(n * rs), .pos = malloc(n * 8), .cap = n, .rs = rs };
    assert_non_null(d.pos);
    fill(in, n, c, 5);
    memcpy(want, in, n * rs);
    assert_int_equal(clsort_sort_records(g_ctx, &spec, want, n, rs, c->off, c->key_size, want_pos,
                                         NULL),
                     CLSORT_OK);
    const uint64_t caps[] = { 120, 30 };
    for (size_t i = 0; i < 2; i++) {
        clsort_stream_settings set;
        clsort_stream_settings_default(&set);
        set.run_records = caps[i];
        feed f = { in, n, rs, 0, 99, 0, 0 };
        const clsort_source src = { feed_read, &f, CLSORT_SIZE_UNKNOWN, 0 };
        const clsort_sink snk = { drain_write, &d, 0 };
        const clsort_layout lay = { rs, c->off, c->key_size, 1 };
        clsort_stats st;
        d.n = 0;
        assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, &set, &st),
                         CLSORT_OK);
        assert_int_equal(d.n, n);
        assert_true(st.runs > 1);
        assert_int_equal(st.merge_levels, 0);
        assert_memory_equal(d.rec, want, n * rs);
        assert_memory_equal(d.pos, want_pos, n * 8);
    }
    free(in);
    free(want);
    free(want_pos);
    free(d.rec);
    free(d.pos);
}

/* The callbacks' failures, a source that gives more than asked for, run files that cannot be made:
 * each an error with its detail, in one run and in runs. */
static void test_errors(void **state)
{
    (void)state;
    const layout_case *c = &cases[6]; /* bytes 10 at 3 of 32 */
    const size_t n = 1009, rs = c->rs;
    unsigned char *in = malloc(n * rs);
    drain d = { .rec = malloc(n * rs), .pos = malloc(n * 8), .cap = n, .rs = rs };
    assert_non_null(d.pos);
    fill(in, n, c, 3);
    clsort_spec spec;
    clsort_spec_default(&spec);
    const clsort_layout lay = { rs, c->off, c->key_size, 1 };
    const char *missing[] = { "/nonexistent-clsort-dir" };
    for (int runs = 0; runs < 2; runs++) {
        clsort_stream_settings set;
        clsort_stream_settings_default(&set);
        set.run_records = runs ? RUN : 0;
        const clsort_sink snk = { drain_write, &d, 0 };
        /* the source fails */
        feed f = { in, n, rs, 0, 1, 500, 0 };
        clsort_source src = { feed_read, &f, CLSORT_SIZE_UNKNOWN, 0 };
        d.n = 0;
        assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, &set, NULL),
                         CLSORT_ERROR_IO);
        assert_non_null(strstr(clsort_error_detail(g_ctx), "source"));
        /* more records than asked for */
        f = (feed){ in, n, rs, 0, 1, 0, 1 };
        assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, &set, NULL),
                         CLSORT_ERROR_INVALID_ARGUMENT);
        /* the sink fails */
        f = (feed){ in, n, rs, 0, 1, 0, 0 };
        d = (drain){ .rec = d.rec, .pos = d.pos, .cap = n, .rs = rs, .fail_at = 300 };
        assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, &set, NULL),
                         CLSORT_ERROR_IO);
        assert_non_null(strstr(clsort_error_detail(g_ctx), "sink"));
        d.fail_at = 0;
        /* run files in a directory that does not exist: named, before any read, when a small
         * budget needs them; nothing asked of it when one run holds the input */
        set.memory_bytes = runs ? 128 << 10 : 0;
        set.temp_dirs = missing;
        set.n_temp_dirs = 1;
        f = (feed){ in, n, rs, 0, 1, 0, 0 };
        src.n = n;
        d.n = 0;
        const clsort_status st =
            clsort_sort_stream_records(g_ctx, &spec, &lay, &src, &snk, &set, NULL);
        if (runs) {
            assert_int_equal(st, CLSORT_ERROR_IO);
            assert_non_null(strstr(clsort_error_detail(g_ctx), missing[0]));
            assert_int_equal(f.pos, 0); /* checked before any read */
        } else {
            assert_int_equal(st, CLSORT_OK); /* one run needs no file */
        }
    }
    free(in);
    free(d.rec);
    free(d.pos);
}

/* The checks before any read: a key that does not fit, a bit range on bytes, an unstable algorithm. */
static void test_refused(void **state)
{
    (void)state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    feed f = { NULL, 0, 8, 0, 1, 0, 0 };
    drain d = { 0 };
    const clsort_source src = { feed_read, &f, CLSORT_SIZE_UNKNOWN, 0 };
    const clsort_sink snk = { drain_write, &d, 0 };
    const clsort_layout too_far = { 8, 6, 0, 0 }, bytes = { 8, 0, 4, 0 };
    assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &too_far, &src, &snk, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.begin_bit = 4;
    assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &bytes, &src, &snk, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    spec.begin_bit = 0;
    spec.algorithm = CLSORT_ALGO_BITONIC;
    assert_int_equal(clsort_sort_stream_records(g_ctx, &spec, &bytes, &src, &snk, NULL, NULL),
                     CLSORT_ERROR_UNSUPPORTED);
    assert_int_equal(clsort_sort_stream_records(g_ctx, NULL, NULL, &src, &snk, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(f.pos, 0);
}

int main(void)
{
    if (clsort_open(&g_ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "cannot open a device: %s\n", clsort_last_error_detail());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_runs_in_memory),
        cmocka_unit_test(test_runs_in_files),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_errors),
    };
    const int r = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&g_ctx);
    return r;
}
