/*
 * Device enumeration, device strings ("P:D") and the default choice; the device description a
 * context keeps, and its tuning row.
 * Calls: settings.c ($CLSORT_DEVICE), tuning.c, status.c.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct dev_entry {
    cl_platform_id platform;
    cl_device_id device;
    unsigned p, d; /* indices as listed */
    char platform_name[128];
    char platform_vendor[128];
    char name[128];
    cl_device_type type;
    unsigned long long score;
} dev_entry;

typedef struct dev_table {
    dev_entry e[MAX_DEVICES];
    size_t n;
} dev_table;

static void get_string(cl_device_id dev, cl_device_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(dev, what, size, buf, NULL) != CL_SUCCESS)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

/* Preference for the default device: any GPU before any CPU before anything else; among GPUs the
 * most compute units × clock. */
static unsigned long long device_score(cl_device_id dev, cl_device_type type)
{
    cl_uint cu = 1, mhz = 1;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    unsigned long long perf = (unsigned long long)(cu ? cu : 1) * (mhz ? mhz : 1);
    if (type & CL_DEVICE_TYPE_GPU)
        return (3ull << 60) + perf;
    if (type & CL_DEVICE_TYPE_CPU)
        return 2ull << 60; /* the first CPU device wins among CPUs */
    return (1ull << 60) + perf;
}

static clsort_status enumerate(dev_table *t)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    t->n = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform */ ||
        (err == CL_SUCCESS && np == 0))
        return CLSORT_OK;
    if (err != CL_SUCCESS)
        return clsort_fail_cl(NULL, err, "clGetPlatformIDs");
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue; /* a platform without devices is not an error */
        if (nd > MAX_DEVICES)
            nd = MAX_DEVICES;
        char pname[128] = "?";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        pname[sizeof pname - 1] = '\0';
        char pvendor[128] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_VENDOR, sizeof pvendor, pvendor, NULL);
        pvendor[sizeof pvendor - 1] = '\0';
        for (cl_uint d = 0; d < nd && t->n < MAX_DEVICES; d++) {
            dev_entry *e = &t->e[t->n++];
            e->platform = plats[p];
            e->device = devs[d];
            e->p = p;
            e->d = d;
            snprintf(e->platform_name, sizeof e->platform_name, "%s", pname);
            snprintf(e->platform_vendor, sizeof e->platform_vendor, "%s", pvendor);
            get_string(devs[d], CL_DEVICE_NAME, e->name, sizeof e->name);
            e->type = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof e->type, &e->type, NULL);
            e->score = device_score(devs[d], e->type);
        }
    }
    return CLSORT_OK;
}

static int is_index(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int type_word(const char *s, cl_device_type *type)
{
    if (!strcasecmp(s, "gpu"))
        *type = CL_DEVICE_TYPE_GPU;
    else if (!strcasecmp(s, "cpu"))
        *type = CL_DEVICE_TYPE_CPU;
    else if (!strcasecmp(s, "accelerator"))
        *type = CL_DEVICE_TYPE_ACCELERATOR;
    else
        return 0;
    return 1;
}

/* The names users type for platforms, and a part of the platform name or vendor each stands for. */
static const struct {
    const char *word, *platform;
} platform_aliases[] = {
    { "pocl", "Portable Computing Language" },
    { "nvidia", "NVIDIA" },
    { "amd", "Advanced Micro Devices" },
    { "amd", "AMD" },
    { "intel", "Intel" },
};
#define NAMES_HELP                                                                                 \
    "an index, a part of a platform or device name, pocl, nvidia, amd, intel, cpu, gpu or "        \
    "accelerator"

/* Does a word name the entry's platform: a part of its name or vendor, or an alias of them? */
static int platform_matches(const char *word, const dev_entry *e)
{
    if (strcasestr(e->platform_name, word) || strcasestr(e->platform_vendor, word))
        return 1;
    for (size_t i = 0; i < sizeof platform_aliases / sizeof platform_aliases[0]; i++)
        if (!strcasecmp(word, platform_aliases[i].word) &&
            (strcasestr(e->platform_name, platform_aliases[i].platform) ||
             strcasestr(e->platform_vendor, platform_aliases[i].platform)))
            return 1;
    return 0;
}

/* Does a selector part (index, type word or name substring) match? */
static int part_matches(const char *part, unsigned index, const char *name, cl_device_type type,
                        int allow_type)
{
    cl_device_type want;
    if (!*part)
        return 1;
    if (is_index(part))
        return strtoul(part, NULL, 10) == index;
    if (allow_type && type_word(part, &want))
        return (type & want) != 0;
    return strcasestr(name, part) != NULL;
}

static int default_index(const dev_table *t)
{
    int best = -1;
    for (size_t i = 0; i < t->n; i++)
        if (best < 0 || t->e[i].score > t->e[best].score)
            best = (int)i;
    return best;
}

clsort_status clsort_find_device(const char *spec, const char *source, clsort_device_ref *out)
{
    dev_table t;
    clsort_status st = enumerate(&t);
    if (st != CLSORT_OK)
        return st;
    if (t.n == 0)
        return clsort_fail(NULL, CLSORT_ERROR_NO_DEVICE,
                           "no OpenCL device found: no platform is installed, or none has a device "
                           "(check clinfo and /etc/OpenCL/vendors)");

    if (!spec || !*spec) {
        int i = default_index(&t);
        out->platform = t.e[i].platform;
        out->device = t.e[i].device;
        return CLSORT_OK;
    }

    char plat[128], dev[128];
    const char *colon = strchr(spec, ':');
    if (strlen(spec) >= sizeof plat || (colon && strchr(colon + 1, ':')))
        return clsort_fail(NULL, CLSORT_ERROR_BAD_DEVICE_STRING,
                           "%s '%s' is malformed: expected P:D, P or :D, where each part is "
                           NAMES_HELP " (see 'clsort devices')", source, spec);
    int single = 0;
    if (colon) {
        snprintf(plat, sizeof plat, "%.*s", (int)(colon - spec), spec);
        snprintf(dev, sizeof dev, "%s", colon + 1);
    } else if (is_index(spec)) {
        snprintf(plat, sizeof plat, "%s", spec);
        dev[0] = '\0';
    } else {
        single = 1; /* one word: platform name, device name or device type */
        plat[0] = '\0';
        snprintf(dev, sizeof dev, "%s", spec);
    }

    /* A single word that names a platform (its name, vendor or an alias) picks that platform's
     * devices before any device whose name merely contains it: "amd" is AMD's platform where there
     * is one, not PoCL's or Intel's CPU device called "AMD EPYC". */
    int best = -1, best_rank = 0;
    for (size_t i = 0; i < t.n; i++) {
        const dev_entry *e = &t.e[i];
        int rank;
        if (single) {
            cl_device_type want;
            rank = type_word(dev, &want) ? ((e->type & want) != 0) * 2
                   : platform_matches(dev, e) ? 2
                   : strcasestr(e->name, dev) != NULL;
        } else {
            rank = (!*plat || (is_index(plat) ? strtoul(plat, NULL, 10) == e->p
                                              : platform_matches(plat, e))) &&
                   part_matches(dev, e->d, e->name, e->type, 1);
        }
        if (rank > 0 && (best < 0 || rank > best_rank ||
                         (rank == best_rank && e->score > t.e[best].score))) {
            best = (int)i;
            best_rank = rank;
        }
    }
    if (best < 0) {
        char list[CLSORT_DETAIL_MAX / 2];
        size_t used = 0;
        list[0] = '\0';
        for (size_t i = 0; i < t.n && used < sizeof list - 1; i++) {
            int w = snprintf(list + used, sizeof list - used, "\n  %u:%u  %s / %s", t.e[i].p,
                             t.e[i].d, t.e[i].platform_name, t.e[i].name);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        return clsort_fail(NULL, CLSORT_ERROR_NO_DEVICE,
                           "%s '%s' matches no device (each part: " NAMES_HELP "); available:%s",
                           source, spec, list);
    }
    out->platform = t.e[best].platform;
    out->device = t.e[best].device;
    return CLSORT_OK;
}

clsort_status clsort_read_device_info(clsort_context *ctx)
{
    cl_device_id dev = ctx->device;
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof ctx->platform_name, ctx->platform_name,
                      NULL);
    ctx->platform_name[sizeof ctx->platform_name - 1] = '\0';
    get_string(dev, CL_DEVICE_NAME, ctx->device_name, sizeof ctx->device_name);
    get_string(dev, CL_DEVICE_VENDOR, ctx->vendor, sizeof ctx->vendor);
    get_string(dev, CL_DRIVER_VERSION, ctx->driver_version, sizeof ctx->driver_version);
    snprintf(ctx->display_name, sizeof ctx->display_name, "%s / %s", ctx->platform_name,
             ctx->device_name);
    ctx->launch_compiles = strstr(ctx->platform_name, "Portable Computing Language") != NULL;
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof ctx->type, &ctx->type, NULL));
    cl_bool unified = CL_FALSE; /* deprecated in 2.0 but answered; a CPU device shares it anyway */
    if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL))
        unified = CL_FALSE;
    ctx->host_unified = unified || (ctx->type & CL_DEVICE_TYPE_CPU);
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ctx->global_mem,
                                  &ctx->global_mem, NULL));
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ctx->max_alloc,
                                  &ctx->max_alloc, NULL));
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ctx->local_mem,
                                  &ctx->local_mem, NULL));
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof ctx->max_wg,
                                  &ctx->max_wg, NULL));
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof ctx->compute_units,
                                  &ctx->compute_units, NULL));
    cl_uint bits = 0;
    CL_CHECK(ctx, clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
    ctx->mem_base_align = bits / 8 ? bits / 8 : 1;
    clsort_tuning_lookup(ctx->vendor, ctx->device_name, ctx->type, &ctx->tuning);
    return CLSORT_OK;
}

clsort_status clsort_list_devices(clsort_device_info *out, size_t cap, size_t *count)
{
    if (!count || (cap && !out))
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_list_devices: count is NULL, or out is NULL with cap > 0");
    dev_table t;
    clsort_status st = enumerate(&t);
    if (st != CLSORT_OK)
        return st;
    *count = t.n;
    /* What clsort_open(NULL) would pick, $CLSORT_DEVICE included. */
    clsort_device_ref ref = {0};
    char saved[CLSORT_DETAIL_MAX];
    snprintf(saved, sizeof saved, "%s", clsort_last_error_detail());
    const char *source;
    const char *spec = clsort_settings_device(NULL, 0, &source);
    int have_def = clsort_find_device(spec, source, &ref) == CLSORT_OK;
    clsort_set_thread_detail(saved);
    for (size_t i = 0; i < t.n && i < cap; i++) {
        const dev_entry *e = &t.e[i];
        clsort_device_info *o = &out[i];
        memset(o, 0, sizeof *o);
        snprintf(o->id, sizeof o->id, "%u:%u", e->p, e->d);
        snprintf(o->platform, sizeof o->platform, "%s", e->platform_name);
        snprintf(o->name, sizeof o->name, "%s", e->name);
        get_string(e->device, CL_DEVICE_VENDOR, o->vendor, sizeof o->vendor);
        get_string(e->device, CL_DRIVER_VERSION, o->driver_version, sizeof o->driver_version);
        snprintf(o->type, sizeof o->type, "%s",
                 e->type & CL_DEVICE_TYPE_GPU ? "GPU"
                 : e->type & CL_DEVICE_TYPE_CPU ? "CPU"
                 : e->type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other");
        clGetDeviceInfo(e->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof o->global_mem, &o->global_mem,
                        NULL);
        clGetDeviceInfo(e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof o->max_alloc, &o->max_alloc,
                        NULL);
        clGetDeviceInfo(e->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof o->local_mem, &o->local_mem,
                        NULL);
        cl_uint cu = 0;
        clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
        o->compute_units = cu;
        o->is_default = have_def && e->device == ref.device;
        clsort_tuning tun;
        clsort_tuning_lookup(o->vendor, o->name, e->type, &tun);
        clsort_tuning_describe(&tun, o->algorithms, sizeof o->algorithms);
        if (clsort_device_is_host_cores(e->type)) { /* dispatch.c's auto sorts there so */
            const size_t used = strlen(o->algorithms);
            snprintf(o->algorithms + used, sizeof o->algorithms - used,
                     ", host-radix (the host's threads; auto's choice)");
        }
    }
    return CLSORT_OK;
}

int clsort_device_is_host_cores(cl_device_type type)
{
    return (type & CL_DEVICE_TYPE_CPU) && !(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR));
}
