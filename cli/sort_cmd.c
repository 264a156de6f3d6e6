/*
 * clsort sort: read keys (and values), sort them on an OpenCL device, write them out.
 */
#include "args.h"
#include "cli.h"
#include "io.h"
#include "progress.h"
#include "report.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Check the sizes of the inputs that are known (all of them after reading). Returns an exit status. */
static int check_sizes(const sort_args *a, const input_file *kin, uint64_t kbytes, int kknown,
                       const input_file *vin, uint64_t vbytes, int vknown)
{
    const char *tn = key_type_name(a->type);
    const size_t ks = key_type_size(a->type), vs = a->value_size, rs = ks + vs;
    if (kknown) {
        if (a->kv && kbytes % rs) {
            msg_error("%s: %llu bytes is not a multiple of the %zu-byte record size (%s key + %zu-byte value)",
                      kin->name, (unsigned long long)kbytes, rs, tn, vs);
            return EXIT_USAGE;
        }
        if (!a->kv && kbytes % ks) {
            msg_error("%s: %llu bytes is not a multiple of the %zu-byte key size (%s keys)", kin->name,
                      (unsigned long long)kbytes, ks, tn);
            return EXIT_USAGE;
        }
    }
    if (vin && vknown && vbytes % vs) {
        msg_error("%s: %llu bytes is not a multiple of the %zu-byte value size", vin->name,
                  (unsigned long long)vbytes, vs);
        return EXIT_USAGE;
    }
    if (vin && kknown && vknown && kbytes / ks != vbytes / vs) {
        msg_error("%s holds %llu keys (%llu bytes of %s keys) but %s holds %llu values (%llu bytes): "
                  "expected %llu bytes of %zu-byte values, one per key",
                  kin->name, (unsigned long long)(kbytes / ks), (unsigned long long)kbytes, tn, vin->name,
                  (unsigned long long)(vbytes / vs), (unsigned long long)vbytes,
                  (unsigned long long)(kbytes / ks * vs), vs);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static clsort_key_type lib_key_type(key_type t)
{
    switch (t) {
    case KEY_I32: return CLSORT_KEY_I32;
    case KEY_F32: return CLSORT_KEY_F32;
    case KEY_U64: return CLSORT_KEY_U64;
    case KEY_I64: return CLSORT_KEY_I64;
    case KEY_F64: return CLSORT_KEY_F64;
    default: return CLSORT_KEY_U32;
    }
}

/* The raw bits of a key or value of size 4 or 8 (0: none), zero-extended; little-endian host. */
static uint64_t load_word(const unsigned char *p, size_t size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    return 0;
}

/* A key's bits mapped to an unsigned integer with the type's order (IEEE total order for floats). */
static uint64_t map_key(key_type t, uint64_t k)
{
    switch (t) {
    case KEY_I32: return k ^ 0x80000000u;
    case KEY_F32: return (k & 0x80000000u) ? ~k & 0xffffffffu : k ^ 0x80000000u;
    case KEY_I64: return k ^ 0x8000000000000000ull;
    case KEY_F64: return (k >> 63) ? ~k : k ^ 0x8000000000000000ull;
    default: return k;
    }
}

/* A key as text, for messages. */
static void format_key(char *buf, size_t cap, key_type t, uint64_t k)
{
    switch (t) {
    case KEY_I32: snprintf(buf, cap, "%d", (int)(int32_t)(uint32_t)k); break;
    case KEY_I64: snprintf(buf, cap, "%lld", (long long)(int64_t)k); break;
    case KEY_F32: {
        uint32_t w = (uint32_t)k;
        float f;
        memcpy(&f, &w, 4);
        snprintf(buf, cap, "%.9g (0x%08x)", (double)f, (unsigned)w);
        break;
    }
    case KEY_F64: {
        double d;
        memcpy(&d, &k, 8);
        snprintf(buf, cap, "%.17g (0x%016llx)", d, (unsigned long long)k);
        break;
    }
    default: snprintf(buf, cap, "%llu", (unsigned long long)k); break;
    }
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An order-independent fingerprint of the (key, value) multiset, for --verify: the sum of a hash of
 * each record (key and value bits, all of them). */
static uint64_t fingerprint(const unsigned char *keys, size_t ks, const unsigned char *values, size_t vs,
                            size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = load_word(keys + i * ks, ks);
        uint64_t v = values ? load_word(values + i * vs, vs) : 0;
        sum += mix64(mix64(k + 0x9e3779b97f4a7c15ull) ^ v);
    }
    return sum;
}

/* --verify: the keys are in the type's order on the bit range (in each segment), and the records are
 * the same multiset as before. Returns an exit status. */
static int verify(const sort_args *a, const unsigned char *keys, const unsigned char *values, size_t n,
                  uint64_t before)
{
    const size_t ks = key_type_size(a->type), vs = values ? a->value_size : 0;
    const unsigned width = (unsigned)ks * 8;
    const unsigned b = a->have_bits ? a->begin_bit : 0, e = a->have_bits ? a->end_bit : width;
    const uint64_t mask = e - b >= 64 ? ~0ull : (1ull << (e - b)) - 1;
    const size_t seg = (size_t)a->segment;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (map_key(a->type, load_word(keys + i * ks, ks)) >> b) & mask;
        if (i > 0 && (seg == 0 || i % seg != 0) && (a->descending ? prev < d : prev > d)) {
            char x[64], y[64];
            format_key(x, sizeof x, a->type, load_word(keys + (i - 1) * ks, ks));
            format_key(y, sizeof y, a->type, load_word(keys + i * ks, ks));
            msg_error("verification failed: keys %zu and %zu are out of %s order (%s, %s)", i - 1, i,
                      a->descending ? "descending" : "ascending", x, y);
            return EXIT_DEVICE;
        }
        prev = d;
    }
    if (fingerprint(keys, ks, values, vs, n) != before) {
        msg_error("verification failed: the output is not a permutation of the input %s",
                  values ? "records" : "keys");
        return EXIT_DEVICE;
    }
    msg_info("verified: %zu keys in order%s, same %s as the input", n, seg ? " in each segment" : "",
             values ? "records" : "keys");
    return EXIT_OK;
}

/* Write interleaved records from separate arrays, a block at a time. */
static int write_records(output_file *out, const unsigned char *keys, size_t ks, const unsigned char *values,
                         size_t vs, size_t n)
{
    enum { BLOCK = 1 << 16 };
    const size_t rs = ks + vs;
    unsigned char *buf = malloc((size_t)BLOCK * rs);
    if (!buf) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < n && rc == EXIT_OK; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        for (size_t j = 0; j < m; j++) {
            memcpy(buf + j * rs, keys + (i + j) * ks, ks);
            memcpy(buf + j * rs + ks, values + (i + j) * vs, vs);
        }
        rc = output_write(out, buf, m * rs);
    }
    free(buf);
    return rc;
}

typedef struct sort_job {
    sort_args a;
    const char *input, *output;
    input_file kin, vin;
    output_file kout, vout, jout;
    int have_vin, have_kout, have_vout, have_jout;
    clsort_context *ctx;
    unsigned char *keys, *values;    /* what is sorted */
    unsigned char *own_keys, *own_values; /* heap arrays of --kv */
    size_t ks, vs;                   /* key and value sizes in bytes (vs 0: keys only) */
    size_t n;
    run_report rep;
} sort_job;

static void job_cleanup(sort_job *j)
{
    if (j->have_kout)
        output_abort(&j->kout);
    if (j->have_vout)
        output_abort(&j->vout);
    if (j->have_jout)
        output_abort(&j->jout);
    input_close(&j->kin);
    if (j->have_vin)
        input_close(&j->vin);
    free(j->own_keys);
    free(j->own_values);
    clsort_close(&j->ctx);
}

/* Split n interleaved records into separate key and value arrays. */
static void split_records(unsigned char *keys, unsigned char *values, const unsigned char *rec, size_t n,
                          size_t ks, size_t vs)
{
    const size_t rs = ks + vs;
    if (ks == 4 && vs == 4) {
        const uint32_t *r32 = (const uint32_t *)(const void *)rec;
        uint32_t *k32 = (uint32_t *)(void *)keys, *v32 = (uint32_t *)(void *)values;
        for (size_t i = 0; i < n; i++) {
            k32[i] = r32[2 * i];
            v32[i] = r32[2 * i + 1];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            memcpy(keys + i * ks, rec + i * rs, ks);
            memcpy(values + i * vs, rec + i * rs + ks, vs);
        }
    }
}

static int alloc_records(sort_job *j)
{
    j->own_keys = malloc(j->n ? j->n * j->ks : 1);
    j->own_values = malloc(j->n ? j->n * j->vs : 1);
    if (!j->own_keys || !j->own_values) {
        msg_error("out of memory (%zu records)", j->n);
        return EXIT_DEVICE;
    }
    j->keys = j->own_keys;
    j->values = j->own_values;
    return EXIT_OK;
}

/* --kv from a regular file (size known and checked): read a block of records at a time and split it
 * at once, so that the records are held only once, as keys and values. */
static int load_records_in_blocks(sort_job *j)
{
    enum { BLOCK = 1 << 16 };
    const size_t ks = j->ks, vs = j->vs, rs = ks + vs;
    if (j->kin.size > SIZE_MAX) {
        msg_error("%s: out of memory (%llu bytes)", j->kin.name, (unsigned long long)j->kin.size);
        return EXIT_DEVICE;
    }
    j->n = (size_t)(j->kin.size / rs);
    int rc = alloc_records(j);
    if (rc != EXIT_OK)
        return rc;
    unsigned char *buf = malloc((size_t)BLOCK * rs);
    if (!buf) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    for (size_t i = 0; i < j->n && rc == EXIT_OK; i += BLOCK) {
        size_t m = j->n - i < BLOCK ? j->n - i : BLOCK;
        rc = input_read_exact(&j->kin, buf, m * rs);
        if (rc == EXIT_OK)
            split_records(j->keys + i * ks, j->values + i * vs, buf, m, ks, vs);
    }
    free(buf);
    if (rc == EXIT_OK)
        rc = input_check_end(&j->kin);
    input_close(&j->kin); /* the records are no longer needed */
    return rc;
}

/* Read the inputs into the arrays to sort. Returns an exit status. */
static int load(sort_job *j)
{
    const sort_args *a = &j->a;
    if (a->kv && j->kin.is_regular && j->kin.size > 0)
        return load_records_in_blocks(j);
    int rc = input_read(&j->kin);
    if (rc == EXIT_OK && j->have_vin)
        rc = input_read(&j->vin);
    if (rc == EXIT_OK)
        rc = check_sizes(a, &j->kin, j->kin.len, 1, j->have_vin ? &j->vin : NULL, j->vin.len, 1);
    if (rc != EXIT_OK)
        return rc;
    const size_t ks = j->ks, vs = j->vs;
    if (a->kv) {
        j->n = j->kin.len / (ks + vs);
        rc = alloc_records(j);
        if (rc != EXIT_OK)
            return rc;
        split_records(j->keys, j->values, j->kin.data, j->n, ks, vs);
        input_close(&j->kin); /* the records are no longer needed */
    } else {
        j->n = j->kin.len / ks;
        j->keys = j->kin.data;
        j->values = j->have_vin ? j->vin.data : NULL;
    }
    return EXIT_OK;
}

static int open_outputs(sort_job *j)
{
    int rc = output_open(&j->kout, j->output, j->a.force);
    j->have_kout = 1;
    if (rc != EXIT_OK)
        return rc;
    if (j->a.values_out) {
        rc = output_open(&j->vout, j->a.values_out, j->a.force);
        j->have_vout = 1;
        if (rc != EXIT_OK)
            return rc;
        if (output_same(&j->kout, &j->vout)) {
            msg_error("-o and --values-out name the same file (%s)", j->kout.name);
            return EXIT_USAGE;
        }
    }
    if (j->a.stats_json) {
        /* opened now, so that a bad path fails before any output is in place */
        rc = output_open(&j->jout, j->a.stats_json, 1);
        j->have_jout = 1;
        if (rc != EXIT_OK)
            return rc;
        if (output_same(&j->kout, &j->jout) || (j->have_vout && output_same(&j->vout, &j->jout))) {
            msg_error("--stats-json names the same file as an output (%s)", j->jout.name);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

static int write_outputs(sort_job *j)
{
    int rc;
    if (j->a.kv)
        rc = write_records(&j->kout, j->keys, j->ks, j->values, j->vs, j->n);
    else
        rc = output_write(&j->kout, j->keys, j->n * j->ks);
    if (rc == EXIT_OK && j->have_vout)
        rc = output_write(&j->vout, j->values, j->n * j->vs);
    progress_phase("sync", 0);
    if (rc == EXIT_OK)
        rc = output_finish(&j->kout);
    if (rc == EXIT_OK && j->have_vout)
        rc = output_finish(&j->vout);
    if (rc == EXIT_OK) {
        output_file *outs[2] = {&j->kout, &j->vout};
        rc = output_commit(outs, j->have_vout ? 2 : 1);
    }
    return rc;
}

static int run(sort_job *j)
{
    const sort_args *a = &j->a;
    run_report *r = &j->rep;

    /* Everything that can be checked before reading the data is checked first. */
    if (strcmp(j->output, "-") == 0 && !a->force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary data to a terminal (use -o FILE, redirect stdout, or -f to force)");
        return EXIT_USAGE;
    }
    if (a->values_out && strcmp(a->values_out, "-") == 0 && !a->force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary values to a terminal (use --values-out FILE, or -f to force)");
        return EXIT_USAGE;
    }
    int rc = input_open(&j->kin, j->input);
    if (rc != EXIT_OK)
        return rc;
    if (a->values) {
        j->have_vin = 1;
        rc = input_open(&j->vin, a->values);
        if (rc != EXIT_OK)
            return rc;
    }
    rc = check_sizes(a, &j->kin, j->kin.size, j->kin.is_regular, j->have_vin ? &j->vin : NULL, j->vin.size,
                     j->have_vin && j->vin.is_regular);
    if (rc != EXIT_OK)
        return rc;

    progress_phase("open", 0);
    double t = now_ms();
    clsort_status st = clsort_open(&j->ctx, a->device);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot open an OpenCL device", st, clsort_last_error_detail());
        return exit_for_status(st);
    }
    r->open_ms = now_ms() - t;
    msg_info("device: %s", clsort_device_name(j->ctx));

    /* The library checks the combination (algorithm, key type, order, bit range, values, segments)
     * before the data is read; a refusal is a usage error. */
    clsort_spec spec;
    clsort_spec_default(&spec);
    int has_values = a->kv || a->values;
    spec.key_type = lib_key_type(a->type);
    spec.value_size = has_values ? j->vs : 0;
    spec.algorithm = (clsort_algorithm)a->algorithm;
    spec.descending = a->descending;
    spec.begin_bit = a->have_bits ? a->begin_bit : 0;
    spec.end_bit = a->have_bits ? a->end_bit : 0;
    spec.segment = (size_t)a->segment;
    spec.allow_quadratic = a->force; /* -f: also a quadratic algorithm over its size limit */
    size_t max_n;
    st = clsort_max_keys(j->ctx, &spec, &max_n);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot sort this way", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }

    double t0 = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    rc = load(j);
    if (rc != EXIT_OK)
        return rc;
    uint64_t fp = a->verify ? fingerprint(j->keys, j->ks, j->values, j->vs, j->n) : 0;
    r->read_ms = now_ms() - t0;

    rc = open_outputs(j);
    if (rc != EXIT_OK)
        return rc;

    clsort_stats stats;
    memset(&stats, 0, sizeof stats);
    static uint64_t none[2]; /* valid pointers for an empty input */
    void *keys = j->n ? (void *)j->keys : (void *)&none[0];
    void *values = has_values ? (j->n ? (void *)j->values : (void *)&none[1]) : NULL;
    progress_phase("sort", 0); /* upload, kernels, download: one library call */
    double ts = now_ms();
    st = clsort_sort(j->ctx, &spec, keys, values, j->n, &stats);
    r->sort_ms = now_ms() - ts;
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (a->verify) {
        rc = verify(a, j->keys, j->values, j->n, fp);
        if (rc != EXIT_OK)
            return rc;
    }

    progress_phase("write", (uint64_t)j->n * (j->ks + (has_values ? j->vs : 0)));
    double tw = now_ms();
    rc = write_outputs(j);
    if (rc != EXIT_OK)
        return rc;
    double t1 = now_ms();
    r->write_ms = t1 - tw;
    r->total_ms = t1 - t0;
    progress_end();

    r->n = j->n;
    r->algorithm = stats.algorithm ? stats.algorithm : clsort_algorithm_name(spec.algorithm);
    r->device = clsort_device_name(j->ctx);
    r->key_type = key_type_name(a->type);
    r->value_size = spec.value_size;
    r->layout = a->kv ? "kv" : a->values ? "separate" : "keys";
    r->descending = a->descending;
    r->begin_bit = a->have_bits ? a->begin_bit : 0;
    r->end_bit = a->have_bits ? a->end_bit : (unsigned)j->ks * 8;
    r->segment = a->segment;
    r->input = j->input;
    r->output = j->output;
    r->values_input = a->values;
    r->values_output = a->values_out;
    r->upload_ms = stats.upload_ms;
    r->kernel_ms = stats.kernel_ms;
    r->download_ms = stats.download_ms;
    r->programs_built = stats.programs_built;
    r->programs_cached = stats.programs_cached;
    report_finish(r);
    if ((a->stats || a->stats_json || g_verbosity >= 2) && j->n > 0 && stats.kernel_ms <= 0)
        msg_warn("the device reported no kernel time (no profiling events?): kernel GKey/s is 0");
    if (a->stats)
        report_text(stderr, r);
    else if (g_verbosity >= 2)
        report_line(stderr, r);
    if (j->have_jout) {
        char *json = report_json(r);
        if (!json) {
            msg_error("out of memory");
            return EXIT_DEVICE;
        }
        rc = output_write(&j->jout, json, strlen(json));
        free(json);
        if (rc == EXIT_OK)
            rc = output_finish(&j->jout);
        if (rc == EXIT_OK) {
            output_file *outs[1] = {&j->jout};
            rc = output_commit(outs, 1);
        }
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

int cmd_sort(int argc, char **argv, int first)
{
    sort_job j;
    memset(&j, 0, sizeof j);
    j.kin.fd = j.vin.fd = -1;
    int rc = parse_sort_args(argc, argv, first, &j.a);
    if (rc >= 0)
        return rc;
    if (!j.a.input && (g_stdin_closed || isatty(STDIN_FILENO))) {
        msg_error("no input: give a file (-i FILE), or pipe data to stdin (see 'clsort --help')");
        return EXIT_USAGE;
    }
    j.ks = key_type_size(j.a.type);
    j.vs = j.a.value_size;
    j.input = j.a.input ? j.a.input : "-";
    j.output = j.a.output ? j.a.output : "-";
    io_install_signal_handlers();
    progress_start(!j.a.no_progress);
    rc = run(&j);
    progress_end();
    job_cleanup(&j);
    return rc;
}
