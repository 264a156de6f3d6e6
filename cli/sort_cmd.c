/*
 * clsort sort: read keys (and values), sort them on an OpenCL device, write them out.
 *
 * Owns the command's steps, each a function on one job: plan (what can be checked before reading,
 * the inputs opened), open the outputs, open the device, read, sort (and --verify), write, report.
 * Calls args.c for the options, layout.c for sizes, io.c for every file (no file access here),
 * the library for the sort, verify.c and report.c.
 */
#include "args.h"
#include "cli.h"
#include "io.h"
#include "progress.h"
#include "report.h"
#include "verify.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write interleaved records from separate arrays, a block at a time. */
static int write_records(output_file *out, const unsigned char *keys, size_t ks,
                         const unsigned char *values, size_t vs, size_t n)
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
    int has_values;                  /* values go with the keys (--kv or --values) */
    clsort_context *ctx;
    clsort_spec spec;                /* what the library is asked to do */
    clsort_stats stats;              /* what it reports it did */
    unsigned char *keys, *values;    /* what is sorted */
    unsigned char *own_keys, *own_values; /* heap arrays of --kv */
    size_t ks, vs;                   /* key and value sizes in bytes (vs 0: keys only) */
    size_t n;
    uint64_t fingerprint;            /* of the input records, for --verify */
    double t_read;                   /* when reading began: the end-to-end time starts there */
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
static void split_records(unsigned char *keys, unsigned char *values, const unsigned char *rec,
                          size_t n, size_t ks, size_t vs)
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
    const size_t ks = j->ks, vs = j->vs, rs = layout_record_size(&j->a.layout);
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
    const layout_args *l = &j->a.layout;
    if (l->kv && j->kin.is_regular && j->kin.size > 0)
        return load_records_in_blocks(j);
    int rc = input_read(&j->kin);
    if (rc == EXIT_OK && j->have_vin)
        rc = input_read(&j->vin);
    if (rc == EXIT_OK)
        rc = layout_check_sizes(l, j->kin.name, j->kin.len, 1, j->have_vin ? j->vin.name : NULL,
                                j->vin.len, 1);
    if (rc != EXIT_OK)
        return rc;
    j->n = j->kin.len / layout_record_size(l);
    if (l->kv) {
        rc = alloc_records(j);
        if (rc != EXIT_OK)
            return rc;
        split_records(j->keys, j->values, j->kin.data, j->n, j->ks, j->vs);
        input_close(&j->kin); /* the records are no longer needed */
    } else {
        j->keys = j->kin.data;
        j->values = j->have_vin ? j->vin.data : NULL;
    }
    return EXIT_OK;
}

/* Step 1: everything that can be checked before reading the data; the inputs opened. */
static int plan_files(sort_job *j)
{
    const sort_args *a = &j->a;
    const char *vout = a->layout.values_out;
    if (strcmp(j->output, "-") == 0 && !a->common.force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary data to a terminal "
                  "(use -o FILE, redirect stdout, or -f to force)");
        return EXIT_USAGE;
    }
    if (vout && strcmp(vout, "-") == 0 && !a->common.force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary values to a terminal (use --values-out FILE, or -f to "
                  "force)");
        return EXIT_USAGE;
    }
    int rc = input_open(&j->kin, j->input);
    if (rc != EXIT_OK)
        return rc;
    if (a->layout.values) {
        j->have_vin = 1;
        rc = input_open(&j->vin, a->layout.values);
        if (rc != EXIT_OK)
            return rc;
    }
    return layout_check_sizes(&a->layout, j->kin.name, j->kin.size, j->kin.is_regular,
                              j->have_vin ? j->vin.name : NULL, j->vin.size,
                              j->have_vin && j->vin.is_regular);
}

/* The job as the library's spec. */
static void job_spec(const sort_job *j, clsort_spec *spec)
{
    const sort_args *a = &j->a;
    clsort_spec_default(spec);
    spec->key_type = a->layout.type;
    spec->value_size = j->has_values ? j->vs : 0;
    spec->algorithm = (clsort_algorithm)a->algorithm;
    spec->descending = a->descending;
    spec->begin_bit = a->bits.given ? a->bits.begin : 0;
    spec->end_bit = a->bits.given ? a->bits.end : 0;
    spec->segment = (size_t)a->segment;
    /* -f: also a quadratic algorithm over its size limit */
    spec->allow_quadratic = a->common.force;
}

/* The odd-even sort's limit on the keys per array or segment, checked where the input's size is
 * known before reading (a regular file): the library sees n, and refuses, only once it is read. */
static int check_limit(const sort_job *j)
{
    const clsort_spec *spec = &j->spec;
    if (spec->algorithm != CLSORT_ALGO_ODDEVEN || spec->allow_quadratic || !j->kin.is_regular)
        return EXIT_OK;
    const uint64_t n = j->kin.size / layout_record_size(&j->a.layout);
    const uint64_t seg = spec->segment && spec->segment < n ? spec->segment : n;
    if (seg <= CLSORT_ODDEVEN_MAX_KEYS)
        return EXIT_OK;
    /* the library's words for the same refusal */
    char detail[320];
    snprintf(detail, sizeof detail,
             "oddeven sorts at most %d keys per array or segment (its cost grows as n^2); %s has "
             "%llu: use radix8 (or bitonic), or allow it explicitly (clsort --force)",
             CLSORT_ODDEVEN_MAX_KEYS, spec->segment ? "a segment" : "the input",
             (unsigned long long)seg);
    msg_lib_error("cannot sort this way", CLSORT_ERROR_LIMIT, detail);
    return exit_for_status(CLSORT_ERROR_LIMIT);
}

/* Step 3: the device opened. The library checks the combination (algorithm, key type, order, bit
 * range, values, segments) before the data is read; a refusal is a usage error. */
static int plan_device(sort_job *j)
{
    progress_phase("open", 0);
    double t = now_ms();
    clsort_status st = clsort_open(&j->ctx, j->a.common.device);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot open an OpenCL device", st, clsort_last_error_detail());
        return exit_for_status(st);
    }
    j->rep.open_ms = now_ms() - t;
    msg_info("device: %s", clsort_device_name(j->ctx));
    msg_info("program cache: %s", clsort_cache_info(j->ctx));
    job_spec(j, &j->spec);
    size_t max_n;
    st = clsort_max_keys(j->ctx, &j->spec, &max_n);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot sort this way", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    return check_limit(j);
}

/* Step 4: the inputs read into the arrays to sort. */
static int read_inputs(sort_job *j)
{
    j->t_read = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    int rc = load(j);
    if (rc != EXIT_OK)
        return rc;
    if (j->a.verify)
        j->fingerprint = verify_fingerprint(j->keys, j->ks, j->values, j->vs, j->n);
    j->rep.read_ms = now_ms() - j->t_read;
    return EXIT_OK;
}

/* No output may write over an input (compared by device and inode, so that other spellings and
 * links are caught), except -o over the key input and --values-out over the values input: that is
 * sorting in place. Values over the keys, keys over the values or a report over either would lose
 * the input. */
static int check_outputs_spare_inputs(const sort_job *j)
{
    const struct { const output_file *out; const char *opt; int have; } outs[] = {
        {&j->kout, "-o", j->have_kout},
        {&j->vout, "--values-out", j->have_vout},
        {&j->jout, "--stats-json", j->have_jout},
    };
    const struct { const input_file *in; const char *opt; int have; } ins[] = {
        {&j->kin, j->a.input ? "-i " : "", 1},
        {&j->vin, "--values ", j->have_vin},
    };
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
        for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
            if (!outs[o].have || !ins[i].have || o == i ||
                !output_names_input(outs[o].out, ins[i].in))
                continue;
            msg_error("%s %s names the input %s%s: refusing to write over an input",
                      outs[o].opt, outs[o].out->name, ins[i].opt, ins[i].in->name);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* Step 2: open every output, before the device and the read: a bad path (a missing directory, one
 * that cannot be written, a directory, a terminal) fails before any input is consumed, and nothing
 * is in place until the commit. */
static int open_outputs(sort_job *j)
{
    int rc = output_open(&j->kout, j->output, j->a.common.force);
    j->have_kout = 1;
    if (rc != EXIT_OK)
        return rc;
    if (j->a.layout.values_out) {
        rc = output_open(&j->vout, j->a.layout.values_out, j->a.common.force);
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
    return check_outputs_spare_inputs(j);
}

/* Step 5: the sort on the device (upload, kernels, download: one library call), and --verify. */
static int sort_data(sort_job *j)
{
    static uint64_t none[2]; /* valid pointers for an empty input */
    void *keys = j->n ? (void *)j->keys : (void *)&none[0];
    void *values = j->has_values ? (j->n ? (void *)j->values : (void *)&none[1]) : NULL;
    progress_phase("sort", 0);
    double t = now_ms();
    clsort_status st = clsort_sort(j->ctx, &j->spec, keys, values, j->n, &j->stats);
    j->rep.sort_ms = now_ms() - t;
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (j->a.verify)
        return verify_sorted(&j->spec, j->keys, j->values, j->n, j->fingerprint);
    return EXIT_OK;
}

/* Step 6: the sorted data written, synced and committed. */
static int write_outputs(sort_job *j)
{
    progress_phase("write", (uint64_t)j->n * (j->ks + (j->has_values ? j->vs : 0)));
    double t = now_ms();
    int rc;
    if (j->a.layout.kv)
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
    if (rc != EXIT_OK)
        return rc;
    double t1 = now_ms();
    j->rep.write_ms = t1 - t;
    j->rep.total_ms = t1 - j->t_read;
    progress_end();
    return EXIT_OK;
}

/* What the report says about the job, beside the times the steps took. */
static void fill_report(sort_job *j)
{
    const sort_args *a = &j->a;
    const clsort_stats *s = &j->stats;
    run_report *r = &j->rep;
    r->n = j->n;
    r->algorithm = s->algorithm ? s->algorithm : clsort_algorithm_name(j->spec.algorithm);
    r->device = clsort_device_name(j->ctx);
    r->key_type = clsort_key_type_name(a->layout.type);
    r->value_size = j->spec.value_size;
    r->layout = a->layout.kv ? "kv" : a->layout.values ? "separate" : "keys";
    r->descending = a->descending;
    r->begin_bit = a->bits.given ? a->bits.begin : 0;
    r->end_bit = a->bits.given ? a->bits.end : (unsigned)j->ks * 8;
    r->segment = a->segment;
    r->input = j->input;
    r->output = j->output;
    r->values_input = a->layout.values;
    r->values_output = a->layout.values_out;
    r->upload_ms = s->upload_ms;
    r->kernel_ms = s->kernel_ms;
    r->download_ms = s->download_ms;
    r->programs_built = s->programs_built;
    r->programs_cached = s->programs_cached;
    report_finish(r);
}

static int write_json_report(sort_job *j)
{
    char *json = report_json(&j->rep);
    if (!json) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    int rc = output_write(&j->jout, json, strlen(json));
    free(json);
    if (rc == EXIT_OK)
        rc = output_finish(&j->jout);
    if (rc == EXIT_OK) {
        output_file *outs[1] = {&j->jout};
        rc = output_commit(outs, 1);
    }
    return rc;
}

/* Step 7: the report: --stats, -v, --stats-json. */
static int report(sort_job *j)
{
    const sort_args *a = &j->a;
    fill_report(j);
    if ((a->stats || a->stats_json || g_verbosity >= 2) && j->n > 0 && j->stats.kernel_ms <= 0)
        msg_warn("the device reported no kernel time (no profiling events?): kernel GKey/s is 0");
    if (a->stats)
        report_text(stderr, &j->rep);
    else if (g_verbosity >= 2)
        report_line(stderr, &j->rep);
    return j->have_jout ? write_json_report(j) : EXIT_OK;
}

static int run(sort_job *j)
{
    static int (*const steps[])(sort_job *) = {
        plan_files, open_outputs, plan_device, read_inputs, sort_data, write_outputs, report,
    };
    int rc = EXIT_OK;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && rc == EXIT_OK; i++)
        rc = steps[i](j);
    return rc;
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
    const layout_args *l = &j.a.layout;
    j.ks = layout_key_size(l);
    j.vs = l->value_size;
    j.has_values = l->kv || l->values;
    j.input = j.a.input ? j.a.input : "-";
    j.output = j.a.common.output ? j.a.common.output : "-";
    io_install_signal_handlers();
    g_output_sync = j.a.common.sync;
    progress_start(!j.a.common.no_progress);
    rc = run(&j);
    progress_end();
    job_cleanup(&j);
    return rc;
}
