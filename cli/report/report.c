/*
 * Reporting measurements: text, one line and JSON (see report.h). Owns the formats and the JSON
 * writer the commands share; calls io.c to write a whole text file.
 */
#include "report.h"
#include "cli.h"
#include "io.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void report_finish(run_report *r)
{
    r->gkeys_per_s = r->kernel_ms > 0 ? (double)r->n / (r->kernel_ms * 1e6) : 0.0;
    r->total_gkeys_per_s = r->total_ms > 0 ? (double)r->n / (r->total_ms * 1e6) : 0.0;
    /* the rest of end to end, so that its four parts add up to it */
    const double rest = r->total_ms - r->read_ms - r->write_ms - r->commit_ms;
    r->sort_ms = rest > 0 ? rest : 0;
    /* the rest of the wall time, so that start, the device's open where it came before the read,
     * end to end and other add up to it */
    r->other_ms = r->wall_ms - r->start_ms - (r->open_overlapped ? 0 : r->open_wait_ms) -
                  r->total_ms;
    if (r->other_ms < 0)
        r->other_ms = 0;
    /* the peak so far (Linux: in kilobytes; its high-water mark is updated lazily, so never less
     * than the resident memory now) */
    struct rusage ru;
    const uint64_t now = io_resident_bytes();
    if (!r->peak_bytes && getrusage(RUSAGE_SELF, &ru) == 0)
        r->peak_bytes = (uint64_t)ru.ru_maxrss * 1024;
    if (r->peak_bytes < now)
        r->peak_bytes = now;
    if (r->peak_bytes < r->resident_bytes) /* measured before the data, by the same count as now */
        r->peak_bytes = r->resident_bytes;
}

/* The algorithms that run on the host's threads rather than in the device's kernels. */
static int on_host(const run_report *r)
{
    return r->algorithm && strcmp(r->algorithm, "host-radix") == 0;
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static void describe(char *buf, size_t cap, const run_report *r)
{
    if (r->value_size)
        snprintf(buf, cap, "%s keys with %zu-byte values%s", or_dash(r->key_type), r->value_size,
                 r->descending ? ", descending" : "");
    else
        snprintf(buf, cap, "%s keys%s", or_dash(r->key_type), r->descending ? ", descending" : "");
}

/* The process's wall time and the parts that add up to it: start, the device's open (where it came
 * before the read), the four of end to end, other. */
static void report_times(FILE *f, const run_report *r, int host)
{
    fprintf(f, "  wall        %10.3f ms   (the process, from its start to this report, as time(1) "
               "shows it)\n", r->wall_ms);
    fprintf(f, "  start       %10.3f ms   (options, inputs and outputs checked)\n", r->start_ms);
    if (r->open_overlapped)
        fprintf(f, "  device open %10.3f ms   (while the input was read: within read and sort, "
                   "%.3f ms of it waited for in sort)\n", r->open_ms, r->open_wait_ms);
    else
        fprintf(f, "  device open %10.3f ms   (before the read)\n", r->open_wait_ms);
    fprintf(f, "  read        %10.3f ms\n", r->read_ms);
    fprintf(f, "  sort        %10.3f ms   (neither reading, writing nor commit: prepare, waits on the "
               "%s, merge)\n", r->sort_ms, host ? "host's threads and the transfers"
                                               : "transfers and kernels");
    if (r->write_mapped && r->write_held)
        fprintf(f, "  write       %10.3f ms   (gathered in memory, the device closed meanwhile, "
                   "copied into a map of the output on %u threads)\n", r->write_ms,
                r->write_mapped);
    else if (r->write_mapped)
        fprintf(f, "  write       %10.3f ms   (each sorted piece copied into a map of the output "
                   "on %u threads, its pages made present during the sort)\n", r->write_ms,
                r->write_mapped);
    else
        fprintf(f, "  write       %10.3f ms\n", r->write_ms);
    fprintf(f, "  commit      %10.3f ms   (sync where needed, rename into place)\n", r->commit_ms);
    fprintf(f, "  other       %10.3f ms   (the device's checks before the read, the report)\n",
            r->other_ms);
    fprintf(f, "  end to end  %10.3f ms   %8.4f GKey/s (read + sort + write + commit)\n",
            r->total_ms, r->total_gkeys_per_s);
}

void report_text(FILE *f, const run_report *r)
{
    char what[96];
    describe(what, sizeof what, r);
    const int host = on_host(r);
    fprintf(f, "clsort: sorted %llu %s\n", (unsigned long long)r->n, what);
    if (r->unique)
        fprintf(f, "  unique      %llu records written, %llu with a key seen before dropped\n",
                (unsigned long long)r->n_out, (unsigned long long)(r->n - r->n_out));
    fprintf(f, "  algorithm   %s%s\n", or_dash(r->algorithm),
            host ? " (on the host's threads, not in device kernels)" : "");
    fprintf(f, "  device      %s\n", or_dash(r->device));
    report_times(f, r, host);
    /* parts of those lines, or overlapping them: each says what ran */
    const int programs = r->programs_built + r->programs_cached > 0;
    if (r->top_select)
        fprintf(f, "  prepare     %10.3f ms   (nothing before the read: each select sets up its "
                   "buffers within sort)\n", r->prepare_ms);
    else if (host)
        fprintf(f, "  prepare     %10.3f ms   (in sort: buffers%s%s, no kernels for the sort; "
                   "before the read)\n", r->prepare_ms,
                !programs ? "" : r->layout && !strcmp(r->layout, "kv")
                                     ? ", programs that split and join the records" : ", programs",
                r->trial_sort ? ", a trial sort on the host's threads" : "");
    else
        fprintf(f, "  prepare     %10.3f ms   (in sort: buffers, programs%s; before the read)\n",
                r->prepare_ms, r->warm_up ? ", first launch of the kernels: this device compiles "
                                            "them then" : "");
    /* a CPU device's direct path: the input read whole into host memory and sorted there */
    const int in_place = r->staging && !strcmp(r->staging, "none");
    if (r->top_select)
        fprintf(f, "  upload      %10.3f ms   (device time: each block read, within sort)\n",
                r->upload_ms);
    else if (in_place)
        fprintf(f, "  upload      %10.3f ms   (none: the input was read whole into host memory and "
                   "sorted there, no staging buffers)\n", r->upload_ms);
    else if (host)
        fprintf(f, "  upload      %10.3f ms   (copies from the staging buffers into the buffers "
                   "the host's threads sort, during the read or the sort)\n", r->upload_ms);
    else
        fprintf(f, "  upload      %10.3f ms   (device time, from the staging buffers, during the read "
                   "or the sort)\n", r->upload_ms);
    if (host)
        fprintf(f, "  host sort   %10.3f ms   %8.4f GKey/s (%u run%s on the host's threads%s)\n",
                r->kernel_ms, r->gkeys_per_s, r->runs, r->runs == 1 ? "" : "s",
                in_place ? ", the sorted parts written as they were done" : "");
    else
        fprintf(f, "  kernels     %10.3f ms   %8.4f GKey/s (%u run%s; device time)\n", r->kernel_ms,
                r->gkeys_per_s, r->runs, r->runs == 1 ? "" : "s");
    if (r->top_select)
        fprintf(f, "  download    %10.3f ms   (device time: the records kept, read back after "
                   "each select, within sort)\n", r->download_ms);
    else if (in_place)
        fprintf(f, "  download    %10.3f ms   (none: written from where it was sorted)\n",
                r->download_ms);
    else
        fprintf(f, "  download    %10.3f ms   (%s, during the sort or the write)\n", r->download_ms,
                host ? "out of the buffers" : "device time");
    if (r->runs_spilled)
        fprintf(f, "  spill       %10.3f ms   (in sort: %u run%s, %.1f MiB, to temporary files)\n",
                r->spill_ms, r->runs_spilled, r->runs_spilled == 1 ? "" : "s",
                (double)r->temp_bytes / 1048576);
    if (r->runs > 1)
        fprintf(f, "  merge       %10.3f ms   (in sort: %s by %u thread%s, during the write; %u "
                "level%s before it)\n", r->merge_ms,
                r->merged_on_device ? "blocks of the runs sorted on the device, read"
                                    : "host merge of the runs",
                r->merge_threads, r->merge_threads == 1 ? "" : "s", r->merge_levels,
                r->merge_levels == 1 ? "" : "s");
    char budget[64] = "none";
    if (r->memory_bytes)
        snprintf(budget, sizeof budget, "%.1f MiB (%s)", (double)r->memory_bytes / 1048576,
                 r->budget_given ? "-S" : "half of physical memory");
    fprintf(f, "  memory      %.1f MiB resident at most (the whole process, %.1f MiB of it before "
               "the data); budget for the data %s\n", (double)r->peak_bytes / 1048576,
            (double)r->resident_bytes / 1048576, budget);
    fprintf(f, "  programs    %u built, %u from cache\n", r->programs_built, r->programs_cached);
}

void report_line(FILE *f, const run_report *r)
{
    fprintf(f, "clsort: %llu keys, %s on %s: %s %.3f ms (%.4f GKey/s), end to end %.3f ms (%.4f "
               "GKey/s)\n", (unsigned long long)r->n, or_dash(r->algorithm), or_dash(r->device),
            on_host(r) ? "host sort" : "kernels", r->kernel_ms, r->gkeys_per_s, r->total_ms,
            r->total_gkeys_per_s);
}

/* ---------------------------------------------------------------------------------------------------
 * JSON
 */

static void report_put(json_buf *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 256;
        while (j->len + n + 1 > cap)
            cap *= 2;
        char *ns = realloc(j->s, cap);
        if (!ns) {
            j->failed = 1;
            return;
        }
        j->s = ns;
        j->cap = cap;
    }
    memcpy(j->s + j->len, s, n);
    j->len += n;
    j->s[j->len] = '\0';
}

static void putf(json_buf *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(json_buf *j, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        report_put(j, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void json_raw(json_buf *j, const char *text)
{
    report_put(j, text, strlen(text));
}

/* One character of a string at p, escaped for JSON; returns the bytes it took. Strings are file
 * names among others, any bytes: the JSON stays valid UTF-8 whatever they are. */
static size_t quote_char(json_buf *j, const unsigned char *p)
{
    switch (*p) {
    case '"': report_put(j, "\\\"", 2); return 1;
    case '\\': report_put(j, "\\\\", 2); return 1;
    case '\n': report_put(j, "\\n", 2); return 1;
    case '\r': report_put(j, "\\r", 2); return 1;
    case '\t': report_put(j, "\\t", 2); return 1;
    }
    if (*p < 0x20 || *p == 0x7f) {
        putf(j, "\\u%04x", *p);
        return 1;
    }
    if (*p < 0x80) {
        report_put(j, (const char *)p, 1);
        return 1;
    }
    size_t len = utf8_printable(p);
    if (len) {
        report_put(j, (const char *)p, len);
        return len;
    }
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) { /* a C1 control: escaped as the others */
        putf(j, "\\u%04x", p[1]);
        return 2;
    }
    report_put(j, "\\ufffd", 6); /* a byte that is not UTF-8: U+FFFD REPLACEMENT CHARACTER */
    return 1;
}

void json_quote(json_buf *j, const char *s)
{
    report_put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p;)
        p += quote_char(j, p);
    report_put(j, "\"", 1);
}

void json_open(json_buf *j)
{
    report_put(j, "{", 1);
    j->fields = 0;
}

void json_close(json_buf *j)
{
    report_put(j, "}", 1);
    j->fields = 1; /* a closed object is a field of its parent */
}

void json_key(json_buf *j, const char *key)
{
    if (j->fields++)
        report_put(j, ", ", 2);
    json_quote(j, key);
    report_put(j, ": ", 2);
}

void json_str(json_buf *j, const char *key, const char *value)
{
    json_key(j, key);
    if (value)
        json_quote(j, value);
    else
        json_raw(j, "null");
}

void json_num(json_buf *j, const char *key, double value)
{
    json_key(j, key);
    if (isfinite(value))
        putf(j, "%.10g", value);
    else
        json_raw(j, "null");
}

void json_u64(json_buf *j, const char *key, uint64_t value)
{
    json_key(j, key);
    putf(j, "%llu", (unsigned long long)value);
}

void json_bool(json_buf *j, const char *key, int value)
{
    json_key(j, key);
    json_raw(j, value ? "true" : "false");
}

char *report_json(const run_report *r)
{
    json_buf j = {0};
    json_open(&j);
    json_u64(&j, "n", r->n);
    json_u64(&j, "n_out", r->n_out);
    json_bool(&j, "unique", r->unique);
    json_str(&j, "algorithm", r->algorithm);
    json_str(&j, "device", r->device);
    json_str(&j, "key_type", r->key_type);
    json_u64(&j, "value_size", r->value_size);
    json_str(&j, "layout", r->layout);
    json_bool(&j, "descending", r->descending);
    json_u64(&j, "begin_bit", r->begin_bit);
    json_u64(&j, "end_bit", r->end_bit);
    json_u64(&j, "segment", r->segment);
    json_str(&j, "input", r->input);
    json_str(&j, "output", r->output);
    json_str(&j, "values_input", r->values_input);
    json_str(&j, "values_output", r->values_output);
    json_num(&j, "kernel_ms", r->kernel_ms);
    json_num(&j, "total_ms", r->total_ms);
    json_num(&j, "gkeys_per_s", r->gkeys_per_s);
    json_num(&j, "total_gkeys_per_s", r->total_gkeys_per_s);
    json_num(&j, "read_ms", r->read_ms);
    json_num(&j, "upload_ms", r->upload_ms);
    json_num(&j, "download_ms", r->download_ms);
    json_num(&j, "sort_ms", r->sort_ms);
    json_num(&j, "write_ms", r->write_ms);
    json_u64(&j, "write_mapped_threads", r->write_mapped);
    json_num(&j, "commit_ms", r->commit_ms);
    json_num(&j, "prepare_ms", r->prepare_ms);
    json_bool(&j, "warm_up", r->warm_up);
    json_num(&j, "merge_ms", r->merge_ms);
    json_u64(&j, "runs", r->runs);
    json_u64(&j, "runs_spilled", r->runs_spilled);
    json_u64(&j, "merge_levels", r->merge_levels);
    json_u64(&j, "merge_threads", r->merge_threads);
    json_u64(&j, "merged_on_device", (uint64_t)r->merged_on_device);
    json_u64(&j, "temp_bytes", r->temp_bytes);
    json_num(&j, "spill_ms", r->spill_ms);
    json_u64(&j, "memory_bytes", r->memory_bytes);
    json_u64(&j, "resident_bytes", r->resident_bytes);
    json_u64(&j, "peak_resident_bytes", r->peak_bytes);
    json_str(&j, "staging", r->staging);
    json_num(&j, "open_ms", r->open_ms);
    json_num(&j, "open_wait_ms", r->open_wait_ms);
    json_bool(&j, "open_overlapped", r->open_overlapped);
    json_num(&j, "wall_ms", r->wall_ms);
    json_num(&j, "start_ms", r->start_ms);
    json_num(&j, "other_ms", r->other_ms);
    json_u64(&j, "programs_built", r->programs_built);
    json_u64(&j, "programs_cached", r->programs_cached);
    json_close(&j);
    json_raw(&j, "\n");
    if (j.failed) {
        free(j.s);
        return NULL;
    }
    return j.s;
}

int write_text_file(const char *path, const char *text)
{
    output_file out;
    int rc = output_open(&out, path, 1);
    if (rc == EXIT_OK)
        rc = output_write(&out, text, strlen(text));
    if (rc == EXIT_OK)
        rc = output_finish(&out);
    if (rc == EXIT_OK) {
        output_file *list[1] = {&out};
        rc = output_commit(list, 1);
    }
    if (rc != EXIT_OK)
        output_abort(&out);
    return rc;
}
