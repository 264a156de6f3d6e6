/*
 * Programs: built once per (family, parts, options) and context from the embedded sources
 * (cl/common.cl, then the parts of cl/ the family names for its form), with their binaries kept in
 * the on-disk cache, under a key that covers every part, so later processes skip the compiler. The
 * settings' extra build options go last.
 * Calls: cache.c, status.c.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clsort_status build_log(clsort_context *ctx, cl_program prog, const char *family,
                               const char *options, cl_int err)
{
    char *log = NULL;
    size_t len = 0;
    if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
        len > 0 && (log = malloc(len + 1)) &&
        clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS)
        log[len] = '\0';
    clsort_status st = clsort_fail(ctx, CLSORT_ERROR_BUILD_FAILED,
                                   "building the %s kernels for %s failed (%d) with options '%s':\n%s",
                                   family, ctx->display_name, (int)err, options,
                                   log ? log : "(no build log)");
    free(log);
    return st;
}

/* The disk cache's key: every source part (each with its length, so that where one part ends is
 * part of the key too), the options, the library's version and the device's strings. */
static uint64_t program_key(const clsort_context *ctx, const char *const *sources,
                            const size_t *lengths, size_t n_sources, const char *options)
{
    uint64_t h = CLSORT_HASH_SEED;
    const char *parts[] = { CLSORT_VERSION_STRING, options, ctx->platform_name, ctx->device_name,
                            ctx->vendor, ctx->driver_version };
    for (size_t i = 0; i < n_sources; i++) {
        const uint64_t len = lengths[i];
        h = clsort_hash64(h, &len, sizeof len);
        h = clsort_hash64(h, sources[i], lengths[i]);
    }
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = clsort_hash64(h, parts[i], strlen(parts[i]) + 1); /* the NUL separates fields */
    return h;
}

/* Try the disk cache; returns a built program or NULL. */
static cl_program load_cached(clsort_context *ctx, uint64_t key, const char *options)
{
    unsigned char *bin = NULL;
    size_t size = 0;
    if (clsort_cache_load(ctx->cache_fd, key, &bin, &size) != 0)
        return NULL;
    cl_int err, bin_status;
    const unsigned char *bins[1] = { bin };
    cl_program prog =
        clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, bins, &bin_status, &err);
    free(bin);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS)
        return NULL;
    if (clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(prog); /* a binary the driver no longer accepts: rebuild from source */
        return NULL;
    }
    return prog;
}

static void store_binary(clsort_context *ctx, cl_program prog, uint64_t key)
{
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    unsigned char *bins[1] = { bin };
    if (bin && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        clsort_cache_store(ctx->cache_fd, key, bin, size); /* best effort: no error */
    free(bin);
}

/* The options of a build: the family's, then the user's extra ones, which may override ours. */
static clsort_status full_options(clsort_context *ctx, const clsort_opts *opts, char *buf,
                                  size_t size)
{
    const char *extra = ctx->settings.build_options;
    const size_t extra_len = strlen(extra);
    if (opts->overflow || ctx->settings.build_options_too_long ||
        opts->len + 1 + extra_len >= size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "build options too long: %s",
                           opts->text);
    /* Copies, not snprintf(): this runs on every call, before its first launch. */
    memcpy(buf, opts->text, opts->len);
    size_t len = opts->len;
    if (extra_len) {
        buf[len++] = ' ';
        memcpy(buf + len, extra, extra_len);
        len += extra_len;
    }
    buf[len] = '\0';
    return CLSORT_OK;
}

/* A new program from source, or the build log as the context's detail. */
static clsort_status build_program(clsort_context *ctx, const char *family,
                                   const char *const *sources, const size_t *lengths,
                                   unsigned n_sources, const char *opts, cl_program *out)
{
    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx->context, n_sources, (const char **)sources,
                                                lengths, &err);
    if (err != CL_SUCCESS)
        return clsort_fail_cl(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &ctx->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        clsort_status st = build_log(ctx, prog, family, opts, err);
        clReleaseProgram(prog);
        return st;
    }
    *out = prog;
    return CLSORT_OK;
}

/* Whether the table's program p is the one of family, parts and opts. */
static int same_program(const clsort_program *p, const char *family, const clsort_cl_part *parts,
                        unsigned n_parts, const char *opts)
{
    if (p->n_parts != n_parts || strcmp(p->family, family) || strcmp(p->options, opts))
        return 0;
    for (unsigned i = 0; i < n_parts; i++)
        if (p->parts[i] != parts[i].text)
            return 0;
    return 1;
}

clsort_status clsort_get_program_parts(clsort_context *ctx, const char *family,
                                       const clsort_cl_part *parts, unsigned n_parts,
                                       const clsort_opts *options, cl_program *out)
{
    if (n_parts < 1 || n_parts > CLSORT_MAX_PARTS)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "the %s program takes 1 to %d source parts, not %u", family,
                           CLSORT_MAX_PARTS, n_parts);
    char opts[2048];
    clsort_status st = full_options(ctx, options, opts, sizeof opts);
    if (st != CLSORT_OK)
        return st;
    for (unsigned i = 0; i < ctx->n_programs; i++) {
        clsort_program *p = &ctx->programs[i];
        if (same_program(p, family, parts, n_parts, opts)) {
            *out = p->program;
            return CLSORT_OK;
        }
    }
    if (ctx->n_programs == CLSORT_MAX_PROGRAMS)
        clsort_release_programs(ctx); /* a context that cycles through many specs rebuilds */

    /* cl/common.cl first, then the parts */
    const char *sources[1 + CLSORT_MAX_PARTS] = { clsort_cl_common };
    size_t lengths[1 + CLSORT_MAX_PARTS] = { clsort_cl_common_len };
    for (unsigned i = 0; i < n_parts; i++) {
        sources[1 + i] = parts[i].text;
        lengths[1 + i] = parts[i].len;
    }
    uint64_t key = program_key(ctx, sources, lengths, 1 + n_parts, opts);
    cl_program prog = load_cached(ctx, key, opts);
    if (prog) {
        ctx->programs_cached++;
    } else {
        st = build_program(ctx, family, sources, lengths, 1 + n_parts, opts, &prog);
        if (st != CLSORT_OK)
            return st;
        ctx->programs_built++;
        store_binary(ctx, prog, key);
    }

    char *copy = strdup(opts);
    if (!copy) {
        clReleaseProgram(prog);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    clsort_program *p = &ctx->programs[ctx->n_programs++];
    p->family = family;
    p->options = copy;
    for (unsigned i = 0; i < n_parts; i++)
        p->parts[i] = parts[i].text;
    p->n_parts = n_parts;
    p->program = prog;
    *out = prog;
    return CLSORT_OK;
}

clsort_status clsort_get_program(clsort_context *ctx, const char *family, const char *source,
                                 size_t length, const clsort_opts *options, cl_program *out)
{
    const clsort_cl_part part = { source, length };
    return clsort_get_program_parts(ctx, family, &part, 1, options, out);
}

static void release_kernels(clsort_context *ctx)
{
    for (unsigned i = 0; i < ctx->n_kernels; i++)
        clReleaseKernel(ctx->kernels[i].kernel);
    ctx->n_kernels = 0;
}

clsort_status clsort_create_kernel(clsort_context *ctx, cl_program program, const char *name,
                                   cl_kernel *out)
{
    for (unsigned i = 0; i < ctx->n_kernels; i++) {
        clsort_kernel_entry *e = &ctx->kernels[i];
        if (e->program == program && !strcmp(e->name, name)) {
            clRetainKernel(e->kernel); /* the caller releases its reference as before */
            *out = e->kernel;
            return CLSORT_OK;
        }
    }
    cl_int err;
    *out = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return clsort_fail(ctx, (clsort_status)err, "clCreateKernel(%s) failed (%d)", name, (int)err);
    }
    if (strlen(name) < sizeof ctx->kernels[0].name) {
        if (ctx->n_kernels == CLSORT_MAX_KERNELS)
            release_kernels(ctx);
        clsort_kernel_entry *e = &ctx->kernels[ctx->n_kernels++];
        e->program = program;
        snprintf(e->name, sizeof e->name, "%s", name);
        e->kernel = *out;
        clRetainKernel(*out);
    }
    return CLSORT_OK;
}

void clsort_release_programs(clsort_context *ctx)
{
    release_kernels(ctx);
    for (unsigned i = 0; i < ctx->n_programs; i++) {
        clReleaseProgram(ctx->programs[i].program);
        free(ctx->programs[i].options);
    }
    ctx->n_programs = 0;
}
