/*
 * clsort_sort_lines_stream: text lines from a source callback (short reads that cut lines anywhere)
 * to a sink callback, with a tiny memory budget so that the input becomes hundreds of runs in run
 * files, merged in levels (fan-ins of 64 and 3). Checked byte for byte against clsort_sort_lines()
 * and clsort_gather_lines() of the whole input and against a host reference (qsort by
 * clsort_lines_compare(), input position breaking ties, -u keeping the first of equal lines): the
 * default byte order, -n, -u, -r, -z, keys with -t and -k, a missing final delimiter, empty input;
 * and the errors: a failing sink, a failing source, a source that overfills, a missing run
 * directory (with and without the input's size), a bad spec. And 3.5 MiB, whose lines are found in
 * chunks on the host's threads and written out in pieces, against one memchr() after the other;
 * a source whose context comes late (taken once, after the input is read).
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

#define MISSING_DIR "/nonexistent-clsort-lines-stream-dir"

static clsort_context *g_ctx; /* NULL when no device opened: the host's threads sort */

typedef struct feed {
    const char *buf;
    size_t len, pos;
    uint64_t rng;
    size_t max_read;  /* each call gives 1..max_read bytes */
    size_t fail_at;   /* fails once pos reaches this (0: never) */
    int too_many;     /* claims one byte more than it was asked for */
} feed;

typedef struct drain {
    char *buf;
    size_t len, cap;
    int fail;         /* every write fails */
    int calls;
} drain;

static uint64_t next_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static long long feed_read(void *user, char *buf, size_t max)
{
    feed *f = user;
    if (f->too_many)
        return (long long)max + 1;
    if (f->fail_at && f->pos >= f->fail_at)
        return -1;
    size_t n = 1 + (size_t)(next_rng(&f->rng) % f->max_read);
    if (n > max)
        n = max;
    if (n > f->len - f->pos)
        n = f->len - f->pos;
    memcpy(buf, f->buf + f->pos, n);
    f->pos += n;
    return (long long)n;
}

static int drain_write(void *user, const char *buf, size_t len)
{
    drain *d = user;
    d->calls++;
    if (d->fail)
        return -1;
    if (d->len + len > d->cap) {
        d->cap = (d->len + len) * 2;
        d->buf = realloc(d->buf, d->cap);
        assert_non_null(d->buf);
    }
    memcpy(d->buf + d->len, buf, len);
    d->len += len;
    return 0;
}

/* Lines of a word, a signed number and a letter, joined by sep; duplicates and empty lines. */
static char *make_lines(size_t n, char sep, char delim, int final_delim, size_t *len)
{
    char *buf = malloc(n * 32 + 1);
    assert_non_null(buf);
    uint64_t r = 88172645463325252ull;
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = next_rng(&r);
        if (x % 50 == 0) { /* an empty line */
        } else {
            const size_t wl = x % 5;
            for (size_t k = 0; k < wl; k++)
                buf[p++] = (char)("abcAB"[(x >> (8 + 3 * k)) % 5]);
            p += (size_t)sprintf(buf + p, "%c%d%c%c", sep, (int)((x >> 32) % 2001) - 1000, sep,
                                 (x >> 50) % 2 ? 'x' : 'y');
        }
        if (i + 1 < n || final_delim)
            buf[p++] = delim;
    }
    *len = p;
    return buf;
}

/* The in-memory sort of the whole input, gathered. */
static char *in_memory(const clsort_lines_spec *spec, const char *buf, size_t len, size_t *out_len)
{
    const size_t n = clsort_lines_count(spec, buf, len);
    uint64_t *starts = malloc((n + 1) * sizeof *starts), *order = malloc((n + 1) * sizeof *order);
    char *out = malloc(len + 1);
    size_t kept = 0;
    assert_true(starts && order && out);
    assert_int_equal(clsort_sort_lines(NULL, spec, buf, len, starts, order, &kept, NULL), CLSORT_OK);
    *out_len = clsort_gather_lines(spec, buf, starts, order, kept, out);
    free(starts);
    free(order);
    return out;
}

/* The host reference: qsort by the library's comparison, the input position breaking ties. */
typedef struct ref_line {
    const char *p;
    size_t len, pos;
} ref_line;

static const clsort_lines_spec *g_ref_spec;

static int ref_cmp(const void *a, const void *b)
{
    const ref_line *x = a, *y = b;
    const int c = clsort_lines_compare(g_ref_spec, x->p, x->len, y->p, y->len);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static char *reference(const clsort_lines_spec *spec, const char *buf, size_t len, size_t *out_len)
{
    ref_line *l = malloc((len + 1) * sizeof *l);
    char *out = malloc(len + 1);
    assert_true(l && out);
    size_t n = 0;
    for (size_t s = 0; s < len;) {
        const char *q = memchr(buf + s, spec->delimiter, len - s);
        const size_t e = q ? (size_t)(q - buf) : len;
        l[n] = (ref_line){ buf + s, e - s, n };
        n++;
        s = e + 1;
    }
    g_ref_spec = spec;
    qsort(l, n, sizeof *l, ref_cmp);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (spec->unique && i > 0 &&
            clsort_lines_compare(spec, l[i - 1].p, l[i - 1].len, l[i].p, l[i].len) == 0)
            continue;
        memcpy(out + o, l[i].p, l[i].len);
        o += l[i].len;
        out[o++] = spec->delimiter;
    }
    *out_len = o;
    free(l);
    return out;
}

/* Stream the input with a budget of 1 byte (a run per short read) and compare with both. */
static void check_stream(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                         size_t len, unsigned fan_in, int want_runs)
{
    feed f = { buf, len, 0, 12345, 600, 0, 0 };
    drain d = { 0 };
    const clsort_lines_source src = { feed_read, &f, len, NULL };
    const clsort_lines_sink sink = { drain_write, &d };
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = 1;
    set.fan_in = fan_in;
    const char *dirs[2] = { ".", "." };
    set.temp_dirs = dirs;
    set.n_temp_dirs = 2;
    clsort_stats st;
    const clsort_status s = clsort_sort_lines_stream(ctx, spec, &src, &sink, &set, &st);
    if (s != CLSORT_OK)
        fail_msg("clsort_sort_lines_stream: %d %s", (int)s,
                 ctx ? clsort_error_detail(ctx) : clsort_last_error_detail());
    size_t mlen, rlen;
    char *mem = in_memory(spec, buf, len, &mlen);
    char *ref = reference(spec, buf, len, &rlen);
    assert_int_equal(mlen, rlen);
    assert_memory_equal(mem, ref, rlen);
    assert_int_equal(d.len, rlen);
    if (rlen)
        assert_memory_equal(d.buf, ref, rlen);
    if (want_runs) {
        assert_true(st.runs_spilled > (unsigned)fan_in);
        assert_true(st.merge_levels >= 1);
    }
    free(mem);
    free(ref);
    free(d.buf);
}

static void run_specs(clsort_context *ctx, unsigned fan_in)
{
    size_t len;
    char *buf = make_lines(20000, ' ', '\n', 0, &len);
    clsort_lines_spec spec;
    clsort_lines_key keys[2];

    clsort_lines_spec_default(&spec); /* default byte order */
    check_stream(ctx, &spec, buf, len, fan_in, 1);

    clsort_lines_spec_default(&spec); /* -n */
    keys[0] = (clsort_lines_key){ 0, 0, 0, 0, CLSORT_LINES_NUMERIC };
    spec.keys = keys;
    spec.n_keys = 1;
    check_stream(ctx, &spec, buf, len, fan_in, 1);

    clsort_lines_spec_default(&spec); /* -u */
    spec.unique = 1;
    check_stream(ctx, &spec, buf, len, fan_in, 1);

    clsort_lines_spec_default(&spec); /* -r */
    spec.reverse = 1;
    keys[0] = (clsort_lines_key){ 0, 0, 0, 0, CLSORT_LINES_REVERSE };
    spec.keys = keys;
    spec.n_keys = 1;
    check_stream(ctx, &spec, buf, len, fan_in, 1);

    clsort_lines_spec_default(&spec); /* -u -k2,2n -k1,1r: numbers of 2001 values, many equal */
    keys[0] = (clsort_lines_key){ 2, 0, 2, 0, CLSORT_LINES_NUMERIC };
    keys[1] = (clsort_lines_key){ 1, 0, 1, 0, CLSORT_LINES_REVERSE };
    spec.keys = keys;
    spec.n_keys = 2;
    spec.unique = 1;
    check_stream(ctx, &spec, buf, len, fan_in, 1);
    free(buf);

    /* -t, -k2,2n -k3,3 -s, NUL-terminated (-z) */
    buf = make_lines(20000, ',', '\0', 1, &len);
    clsort_lines_spec_default(&spec);
    spec.delimiter = '\0';
    spec.separator = ',';
    keys[0] = (clsort_lines_key){ 2, 0, 2, 0, CLSORT_LINES_NUMERIC };
    keys[1] = (clsort_lines_key){ 3, 0, 3, 0, 0 };
    spec.keys = keys;
    spec.n_keys = 2;
    spec.stable = 1;
    check_stream(ctx, &spec, buf, len, fan_in, 1);
    free(buf);

    /* small inputs: empty, one line without its delimiter, a few lines (one run, no file) */
    clsort_lines_spec_default(&spec);
    check_stream(ctx, &spec, "", 0, fan_in, 0);
    check_stream(ctx, &spec, "b", 1, fan_in, 0);
    check_stream(ctx, &spec, "b\na\n\nc", 6, fan_in, 0);
}

static void test_host_fan_in_64(void **state)
{
    (void)state;
    run_specs(NULL, 0);
}

static void test_host_fan_in_3(void **state)
{
    (void)state;
    run_specs(NULL, 3);
}

static void test_device(void **state)
{
    (void)state;
    if (!g_ctx)
        skip();
    size_t len;
    char *buf = make_lines(20000, ' ', '\n', 1, &len);
    clsort_lines_spec spec;
    clsort_lines_spec_default(&spec);
    spec.unique = 1;
    check_stream(g_ctx, &spec, buf, len, 8, 1);
    free(buf);
}

/* 3.5 MiB of short lines of digits, signs, points, blanks and letters (empty ones too), with the
 * delimiter on the last byte of the first 1 MiB and on the first byte after it, no delimiter from
 * 2 MiB - 1 to 3 MiB - 1 (a line longer than a 1 MiB chunk, and no line starting in one) and a
 * line starting at 3 MiB; the last delimiter there or not. */
static char *make_big(char delim, int final_delim, size_t *len)
{
    const size_t mib = 1u << 20, n = 3 * mib + mib / 2;
    char *buf = malloc(n);
    assert_non_null(buf);
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = next_rng(&r);
        buf[i] = x % 12 == 0 ? delim : "0123456789-. ab"[(x >> 8) % 15];
    }
    buf[mib - 1] = buf[mib] = delim;
    buf[2 * mib - 2] = delim;
    for (size_t i = 2 * mib - 1; i < 3 * mib - 1; i++)
        if (buf[i] == delim)
            buf[i] = 'x';
    buf[3 * mib - 1] = delim;
    buf[n - 1] = final_delim ? delim : 'z';
    *len = n;
    return buf;
}

/* The lines found in 1 MiB chunks on the host's threads, their starts against one memchr() after
 * the other, the sort against the reference in memory and through the stream (whose output goes
 * out in pieces of an eighth of the block, one line longer than a piece). */
static void check_big(clsort_context *ctx, const clsort_lines_spec *spec, int final_delim)
{
    size_t len;
    char *buf = make_big(spec->delimiter, final_delim, &len);
    uint64_t *want = malloc((len + 2) * sizeof *want);
    assert_non_null(want);
    size_t n = 0;
    for (size_t p = 0; p < len;) {
        want[n++] = p;
        const char *q = memchr(buf + p, spec->delimiter, len - p);
        p = q ? (size_t)(q - buf) + 1 : len;
    }
    want[n] = len + !final_delim;
    assert_int_equal(clsort_lines_count(spec, buf, len), n);
    uint64_t *starts = malloc((n + 1) * sizeof *starts), *order = malloc(n * sizeof *order);
    char *out = malloc(len + 1);
    assert_true(starts && order && out);
    size_t kept = 0;
    assert_int_equal(clsort_sort_lines(ctx, spec, buf, len, starts, order, &kept, NULL), CLSORT_OK);
    assert_memory_equal(starts, want, (n + 1) * sizeof *starts);
    const size_t olen = clsort_gather_lines(spec, buf, starts, order, kept, out);
    size_t rlen;
    char *ref = reference(spec, buf, len, &rlen);
    assert_int_equal(olen, rlen);
    assert_memory_equal(out, ref, rlen);
    feed f = { buf, len, 0, 12345, 1u << 20, 0, 0 };
    drain d = { 0 };
    const clsort_lines_source src = { feed_read, &f, len, NULL };
    const clsort_lines_sink sink = { drain_write, &d };
    assert_int_equal(clsort_sort_lines_stream(ctx, spec, &src, &sink, NULL, NULL), CLSORT_OK);
    assert_int_equal(d.len, rlen);
    assert_memory_equal(d.buf, ref, rlen);
    assert_true(d.calls >= 8);
    free(d.buf);
    free(ref);
    free(out);
    free(order);
    free(starts);
    free(want);
    free(buf);
}

/* A source whose context comes late: taken once, before the first block sorts. */
typedef struct late {
    feed f;
    clsort_context *ctx;
    int calls;
} late;

static long long late_read(void *user, char *buf, size_t max)
{
    late *l = user;
    assert_int_equal(l->calls, 0); /* the whole input is one block: read before the context */
    return feed_read(&l->f, buf, max);
}

static clsort_context *late_context(void *user)
{
    late *l = user;
    l->calls++;
    assert_int_equal(l->f.pos, l->f.len);
    return l->ctx;
}

static void test_late_context(void **state)
{
    (void)state;
    size_t len, rlen;
    char *buf = make_lines(20000, ' ', '\n', 1, &len);
    clsort_lines_spec spec;
    clsort_lines_spec_default(&spec);
    char *ref = reference(&spec, buf, len, &rlen);
    for (int with_ctx = 0; with_ctx < 2; with_ctx++) {
        late l = { { buf, len, 0, 777, 5000, 0, 0 }, with_ctx ? g_ctx : NULL, 0 };
        drain d = { 0 };
        const clsort_lines_source src = { late_read, &l, len, late_context };
        const clsort_lines_sink sink = { drain_write, &d };
        assert_int_equal(clsort_sort_lines_stream(NULL, &spec, &src, &sink, NULL, NULL), CLSORT_OK);
        assert_int_equal(l.calls, 1);
        assert_int_equal(d.len, rlen);
        assert_memory_equal(d.buf, ref, rlen);
        free(d.buf);
    }
    free(ref);
    free(buf);
}

static void test_big_chunks(void **state)
{
    (void)state;
    clsort_lines_spec spec;
    clsort_lines_key key = { 0, 0, 0, 0, CLSORT_LINES_NUMERIC };
    clsort_lines_spec_default(&spec);
    check_big(g_ctx, &spec, 1);
    check_big(NULL, &spec, 0);
    spec.delimiter = '\0';
    check_big(g_ctx, &spec, 0);
    clsort_lines_spec_default(&spec);
    spec.keys = &key;
    spec.n_keys = 1;
    check_big(g_ctx, &spec, 0);
}

/* One error case: the status and, where given, a piece of the detail. */
static void expect_error(const clsort_lines_spec *spec, feed *f, drain *d, const char *dir,
                         uint64_t memory, uint64_t size_hint, clsort_status want,
                         const char *detail)
{
    const clsort_lines_source src = { feed_read, f, size_hint, NULL };
    const clsort_lines_sink sink = { drain_write, d };
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = memory;
    const char *dirs[1] = { dir };
    set.temp_dirs = dirs;
    set.n_temp_dirs = 1;
    assert_int_equal(clsort_sort_lines_stream(NULL, spec, &src, &sink, &set, NULL), want);
    if (detail && !strstr(clsort_last_error_detail(), detail))
        fail_msg("detail '%s' does not say '%s'", clsort_last_error_detail(), detail);
}

static void test_errors(void **state)
{
    (void)state;
    size_t len;
    char *buf = make_lines(5000, ' ', '\n', 1, &len);
    clsort_lines_spec spec;
    clsort_lines_spec_default(&spec);

    /* a failing sink: in one run, and in the merge of runs */
    feed f = { buf, len, 0, 7, 600, 0, 0 };
    drain d = { .fail = 1 };
    expect_error(&spec, &f, &d, ".", 0, len, CLSORT_ERROR_IO, "sink");
    assert_int_equal(d.calls, 1);
    f = (feed){ buf, len, 0, 7, 600, 0, 0 };
    d = (drain){ .fail = 1 };
    expect_error(&spec, &f, &d, ".", 1, len, CLSORT_ERROR_IO, "sink");
    assert_int_equal(d.calls, 1);

    /* a failing source, and one that claims more than it was given room for */
    f = (feed){ buf, len, 0, 7, 600, len / 2, 0 };
    d = (drain){ 0 };
    expect_error(&spec, &f, &d, ".", 1, CLSORT_SIZE_UNKNOWN, CLSORT_ERROR_IO, "source");
    assert_int_equal(d.calls, 0);
    f = (feed){ buf, len, 0, 7, 600, 0, 1 };
    expect_error(&spec, &f, &d, ".", 1, len, CLSORT_ERROR_INVALID_ARGUMENT, "placed");
    assert_int_equal(d.calls, 0);

    /* a missing run directory: checked before reading when the size says runs are needed, else
     * at the first run; an input that fits needs no directory */
    f = (feed){ buf, len, 0, 7, 600, 0, 0 };
    expect_error(&spec, &f, &d, MISSING_DIR, 1, len, CLSORT_ERROR_IO, MISSING_DIR);
    assert_int_equal(f.pos, 0);
    f = (feed){ buf, len, 0, 7, 600, 0, 0 };
    expect_error(&spec, &f, &d, MISSING_DIR, 1, CLSORT_SIZE_UNKNOWN, CLSORT_ERROR_IO, MISSING_DIR);
    assert_int_equal(d.calls, 0);
    f = (feed){ buf, len, 0, 7, 600, 0, 0 };
    expect_error(&spec, &f, &d, MISSING_DIR, 0, len, CLSORT_OK, NULL);
    assert_true(d.len == len);
    free(d.buf);

    /* a spec that does not hold together, and NULL callbacks */
    clsort_lines_key bad = { 1, 0, 1, 0, CLSORT_LINES_NUMERIC | CLSORT_LINES_GENERAL_NUMERIC };
    spec.keys = &bad;
    spec.n_keys = 1;
    f = (feed){ buf, len, 0, 7, 600, 0, 0 };
    d = (drain){ 0 };
    expect_error(&spec, &f, &d, ".", 0, len, CLSORT_ERROR_INVALID_ARGUMENT, NULL);
    clsort_lines_spec_default(&spec);
    assert_int_equal(clsort_sort_lines_stream(NULL, &spec, NULL, NULL, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    free(buf);
}

int main(void)
{
    if (clsort_open(&g_ctx, NULL) != CLSORT_OK) {
        fprintf(stderr, "no device (%s): the device's case is skipped\n", clsort_last_error_detail());
        g_ctx = NULL;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_fan_in_64),
        cmocka_unit_test(test_host_fan_in_3),
        cmocka_unit_test(test_device),
        cmocka_unit_test(test_big_chunks),
        cmocka_unit_test(test_late_context),
        cmocka_unit_test(test_errors),
    };
    const int r = cmocka_run_group_tests(tests, NULL, NULL);
    clsort_close(&g_ctx);
    return r;
}
