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

#define KEY_SIZE 4
#define VALUE_SIZE 4
#define RECORD_SIZE (KEY_SIZE + VALUE_SIZE)

/* Check the sizes of the inputs that are known (all of them after reading). Returns an exit status. */
static int check_sizes(const sort_args *a, const input_file *kin, uint64_t kbytes, int kknown,
                       const input_file *vin, uint64_t vbytes, int vknown)
{
    if (kknown) {
        if (a->kv && kbytes % RECORD_SIZE) {
            msg_error("%s: %llu bytes is not a multiple of the %d-byte record size (u32 key + u32 value)",
                      kin->name, (unsigned long long)kbytes, RECORD_SIZE);
            return EXIT_USAGE;
        }
        if (!a->kv && kbytes % KEY_SIZE) {
            msg_error("%s: %llu bytes is not a multiple of the %d-byte key size", kin->name,
                      (unsigned long long)kbytes, KEY_SIZE);
            return EXIT_USAGE;
        }
    }
    if (vin && vknown && vbytes % VALUE_SIZE) {
        msg_error("%s: %llu bytes is not a multiple of the %d-byte value size", vin->name,
                  (unsigned long long)vbytes, VALUE_SIZE);
        return EXIT_USAGE;
    }
    if (vin && kknown && vknown && kbytes / KEY_SIZE != vbytes / VALUE_SIZE) {
        msg_error("%s holds %llu keys (%llu bytes) but %s holds %llu values (%llu bytes): "
                  "keys and values must have the same count",
                  kin->name, (unsigned long long)(kbytes / KEY_SIZE), (unsigned long long)kbytes, vin->name,
                  (unsigned long long)(vbytes / VALUE_SIZE), (unsigned long long)vbytes);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An order-independent fingerprint of the (key, value) multiset, for --verify. */
static uint64_t fingerprint(const uint32_t *keys, const uint32_t *values, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += mix64(((uint64_t)keys[i] << 32 | (values ? values[i] : 0)) + 0x9e3779b97f4a7c15ull);
    return sum;
}

/* --verify: the keys are in order and are the same multiset as before. Returns an exit status. */
static int verify(const uint32_t *keys, const uint32_t *values, size_t n, int descending, uint64_t before)
{
    for (size_t i = 1; i < n; i++) {
        if (descending ? keys[i - 1] < keys[i] : keys[i - 1] > keys[i]) {
            msg_error("verification failed: keys %zu and %zu are out of order (%u, %u)", i - 1, i,
                      (unsigned)keys[i - 1], (unsigned)keys[i]);
            return EXIT_DEVICE;
        }
    }
    if (fingerprint(keys, values, n) != before) {
        msg_error("verification failed: the output is not a permutation of the input %s",
                  values ? "records" : "keys");
        return EXIT_DEVICE;
    }
    msg_info("verified: %zu keys in order, same %s as the input", n, values ? "records" : "keys");
    return EXIT_OK;
}

static void complement(uint32_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        keys[i] = ~keys[i];
}

/* Write interleaved records from separate arrays, a block at a time. */
static int write_records(output_file *out, const uint32_t *keys, const uint32_t *values, size_t n)
{
    enum { BLOCK = 1 << 16 };
    uint32_t *buf = malloc((size_t)BLOCK * RECORD_SIZE);
    if (!buf) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < n && rc == EXIT_OK; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        for (size_t j = 0; j < m; j++) {
            buf[2 * j] = keys[i + j];
            buf[2 * j + 1] = values[i + j];
        }
        rc = output_write(out, buf, m * RECORD_SIZE);
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
    uint32_t *keys, *values;    /* what is sorted */
    uint32_t *own_keys, *own_values; /* heap arrays of --kv */
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

/* Read the inputs into the arrays to sort. Returns an exit status. */
static int load(sort_job *j)
{
    const sort_args *a = &j->a;
    int rc = input_read(&j->kin, !a->kv);
    if (rc == EXIT_OK && j->have_vin)
        rc = input_read(&j->vin, 1);
    if (rc == EXIT_OK)
        rc = check_sizes(a, &j->kin, j->kin.len, 1, j->have_vin ? &j->vin : NULL, j->vin.len, 1);
    if (rc != EXIT_OK)
        return rc;
    if (a->kv) {
        j->n = j->kin.len / RECORD_SIZE;
        j->own_keys = malloc(j->n ? j->n * KEY_SIZE : 1);
        j->own_values = malloc(j->n ? j->n * VALUE_SIZE : 1);
        if (!j->own_keys || !j->own_values) {
            msg_error("out of memory (%zu records)", j->n);
            return EXIT_DEVICE;
        }
        const uint32_t *rec = (const uint32_t *)(const void *)j->kin.data;
        for (size_t i = 0; i < j->n; i++) {
            j->own_keys[i] = rec[2 * i];
            j->own_values[i] = rec[2 * i + 1];
        }
        input_close(&j->kin); /* the records are no longer needed */
        j->keys = j->own_keys;
        j->values = j->own_values;
    } else {
        j->n = j->kin.len / KEY_SIZE;
        j->keys = (uint32_t *)(void *)j->kin.data;
        j->values = j->have_vin ? (uint32_t *)(void *)j->vin.data : NULL;
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
        rc = write_records(&j->kout, j->keys, j->values, j->n);
    else
        rc = output_write(&j->kout, j->keys, j->n * KEY_SIZE);
    if (rc == EXIT_OK && j->have_vout)
        rc = output_write(&j->vout, j->values, j->n * VALUE_SIZE);
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

    double t0 = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    rc = load(j);
    if (rc != EXIT_OK)
        return rc;
    if (a->descending)
        complement(j->keys, j->n);
    uint64_t fp = a->verify ? fingerprint(j->keys, j->values, j->n) : 0;
    r->read_ms = now_ms() - t0;

    rc = open_outputs(j);
    if (rc != EXIT_OK)
        return rc;

    clsort_spec spec;
    clsort_spec_default(&spec);
    int has_values = a->kv || a->values;
    spec.value_size = has_values ? VALUE_SIZE : 0;
    spec.algorithm = (clsort_algorithm)a->algorithm;
    spec.allow_quadratic = a->force; /* -f: also a quadratic algorithm over its size limit */
    clsort_stats stats;
    memset(&stats, 0, sizeof stats);
    static uint32_t none[2]; /* valid pointers for an empty input */
    uint32_t *keys = j->n ? j->keys : none;
    uint32_t *values = has_values ? (j->n ? j->values : none + 1) : NULL;
    progress_phase("sort", 0); /* upload, kernels, download: one library call */
    double ts = now_ms();
    st = clsort_sort(j->ctx, &spec, keys, values, j->n, &stats);
    r->sort_ms = now_ms() - ts;
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (a->verify) {
        rc = verify(j->keys, j->values, j->n, 0, fp);
        if (rc != EXIT_OK)
            return rc;
    }
    if (a->descending)
        complement(j->keys, j->n);

    progress_phase("write", (uint64_t)j->n * (has_values ? RECORD_SIZE : KEY_SIZE));
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
    r->key_type = "u32";
    r->value_size = spec.value_size;
    r->layout = a->kv ? "kv" : a->values ? "separate" : "keys";
    r->descending = a->descending;
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
    j.input = j.a.input ? j.a.input : "-";
    j.output = j.a.output ? j.a.output : "-";
    io_install_signal_handlers();
    progress_start(!j.a.no_progress);
    rc = run(&j);
    progress_end();
    job_cleanup(&j);
    return rc;
}
