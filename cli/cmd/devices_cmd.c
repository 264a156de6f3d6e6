/*
 * clsort devices: list the OpenCL platforms and devices the library can use. Owns the listing's
 * text and JSON; calls args.c for its options, report.c's JSON writer and the library's device
 * list.
 */
#include "args.h"
#include "cli.h"
#include "report.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void human_bytes(char *buf, size_t cap, cl_ulong bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, cap, "%.*f %s", v < 10 ? 1 : 0, v, units[u]);
}

/* The most u32 keys, and u32 key/value pairs, that one device sort takes (clsort_max_keys()); more
 * are sorted in chunks merged on the host. Zeros when the device cannot be opened. */
typedef struct largest {
    size_t keys, pairs;
} largest;

static largest largest_sort(const char *id)
{
    largest l = { 0, 0 };
    clsort_context *ctx = NULL;
    if (clsort_open(&ctx, id) != CLSORT_OK)
        return l;
    clsort_spec spec;
    clsort_spec_default(&spec);
    if (clsort_max_keys(ctx, &spec, &l.keys) != CLSORT_OK)
        l.keys = 0;
    spec.value_size = 4;
    if (clsort_max_keys(ctx, &spec, &l.pairs) != CLSORT_OK)
        l.pairs = 0;
    clsort_close(&ctx);
    return l;
}

/* What the project tests on each OpenCL implementation (matched by a part of the platform name),
 * so that a user of any other one knows that nothing here has run there. */
static const struct {
    const char *platform, *tested;
} tested_on[] = {
    { "Portable Computing Language",
      "every test suite in CI (PoCL 3.1, Debian 12), Oclgrind beside it for the kernels" },
    { "Intel(R) OpenCL", "the library and command-line suites in CI (intel-opencl-rt 2026.22, "
                         "tools/intel-ocl.sh)" },
    { "NVIDIA", "H100 and H200 GPUs (driver 580): the suites, tools/gpu-validate.sh and the "
                "benchmarks, by hand" },
    { "Oclgrind", "every kernel in CI under the simulator (data races, bounds, uninitialised values)" },
};

static const char *tested_note(const char *platform)
{
    for (size_t i = 0; i < sizeof tested_on / sizeof tested_on[0]; i++)
        if (strstr(platform, tested_on[i].platform))
            return tested_on[i].tested;
    return "nothing: clsort has not been tested on this implementation (--verify checks a sort)";
}

static void print_text(const clsort_device_info *d, size_t count)
{
    const char *platform = NULL;
    for (size_t i = 0; i < count; i++) {
        if (!platform || strcmp(platform, d[i].platform) != 0) {
            platform = d[i].platform;
            printf("%sPlatform %.*s: %s\n", i ? "\n" : "", (int)strcspn(d[i].id, ":"), d[i].id, platform);
            printf("  tested: %s\n", tested_note(platform));
        }
        char global[32], alloc[32], local[32];
        human_bytes(global, sizeof global, d[i].global_mem);
        human_bytes(alloc, sizeof alloc, d[i].max_alloc);
        human_bytes(local, sizeof local, d[i].local_mem);
        printf("  %-5s %s%s\n", d[i].id, d[i].name, d[i].is_default ? "   [default]" : "");
        printf("        type %s, vendor %s, driver %s\n", d[i].type, d[i].vendor, d[i].driver_version);
        printf("        %u compute units, global memory %s (largest buffer %s), local memory %s\n",
               d[i].compute_units, global, alloc, local);
        printf("        algorithms: %s\n", d[i].algorithms[0] ? d[i].algorithms : "(none)");
        largest l = largest_sort(d[i].id);
        if (l.keys)
            printf("        largest single sort: %zu u32 keys, %zu u32 pairs (more: sorted in chunks)\n",
                   l.keys, l.pairs);
    }
}

static int print_json(const clsort_device_info *d, size_t count)
{
    json_buf j = {0};
    json_open(&j);
    json_key(&j, "devices");
    json_raw(&j, "[");
    for (size_t i = 0; i < count; i++) {
        if (i)
            json_raw(&j, ", ");
        json_open(&j);
        json_str(&j, "id", d[i].id);
        json_str(&j, "platform", d[i].platform);
        json_str(&j, "tested", tested_note(d[i].platform));
        json_str(&j, "name", d[i].name);
        json_str(&j, "vendor", d[i].vendor);
        json_str(&j, "driver_version", d[i].driver_version);
        json_str(&j, "type", d[i].type);
        json_u64(&j, "global_mem", d[i].global_mem);
        json_u64(&j, "max_alloc", d[i].max_alloc);
        json_u64(&j, "local_mem", d[i].local_mem);
        json_u64(&j, "compute_units", d[i].compute_units);
        json_bool(&j, "default", d[i].is_default);
        json_str(&j, "algorithms", d[i].algorithms);
        largest l = largest_sort(d[i].id);
        json_u64(&j, "max_keys_u32", l.keys);
        json_u64(&j, "max_pairs_u32", l.pairs);
        json_close(&j);
    }
    json_raw(&j, "]");
    j.fields = 1;
    json_close(&j);
    json_raw(&j, "\n");
    if (j.failed) {
        free(j.s);
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    fputs(j.s, stdout);
    free(j.s);
    return EXIT_OK;
}

int cmd_devices(int argc, char **argv, int first)
{
    devices_args a;
    int rc = parse_devices_args(argc, argv, first, &a);
    if (rc >= 0)
        return rc;
    size_t count = 0;
    clsort_status st = clsort_list_devices(NULL, 0, &count);
    clsort_device_info *d = NULL;
    if (st == CLSORT_OK && count > 0) {
        d = calloc(count, sizeof *d);
        if (!d) {
            msg_error("out of memory");
            return EXIT_DEVICE;
        }
        size_t again = count;
        st = clsort_list_devices(d, count, &again);
        if (again < count)
            count = again;
    }
    if (st != CLSORT_OK) {
        free(d);
        msg_lib_error("cannot list OpenCL devices", st, clsort_last_error_detail());
        return exit_for_status(st);
    }
    if (a.json) {
        rc = print_json(d, count);
    } else if (count == 0) {
        printf("No OpenCL devices found. Is an OpenCL driver (ICD) installed? Try 'clinfo'.\n");
        rc = EXIT_OK;
    } else {
        print_text(d, count);
        rc = EXIT_OK;
    }
    free(d);
    if (rc == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        msg_error("(stdout): write error");
        return EXIT_IO;
    }
    if (rc == EXIT_OK && count == 0) /* nothing to sort on */
        return EXIT_DEVICE;
    return rc;
}
