/*
 * Entry points that open and close contexts: the device, its description and tuning, the settings
 * (the caller's, then the environment's) read once, the OpenCL context and queue.
 * Calls: device.c, settings.c, options.c, cache.c, buffers.c, program.c, status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static clsort_context *new_context(const clsort_setting *settings, size_t count)
{
    clsort_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        clsort_fail(NULL, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    else {
        ctx->cache_fd = -1;
        clsort_settings_read(&ctx->settings, settings, count);
    }
    return ctx;
}

/* The caller's list of settings is well formed (fn: the entry point, for the detail); a context on
 * a borrowed queue has the queue's device, so the device setting is refused there. */
static clsort_status check_list(const char *fn, const clsort_setting *settings, size_t count,
                                int borrowed)
{
    char why[1024];
    if (count && !settings)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "%s: settings is NULL, count %zu",
                           fn, count);
    if (clsort_settings_check(settings, count, why, sizeof why) != 0)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "%s: %s", fn, why);
    for (size_t i = 0; borrowed && i < count; i++)
        if (!strcmp(settings[i].name, "device"))
            return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                               "%s: setting device (settings[%zu]): a context on a borrowed queue "
                               "has the queue's device", fn, i);
    return CLSORT_OK;
}

/* The settings are usable: every value parsed, the build options redefine none of our macros; then
 * open the program cache they name. */
static clsort_status check_settings(clsort_context *ctx)
{
    char why[512];
    if (ctx->settings.error[0])
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s", ctx->settings.error);
    if (clsort_opts_check_extra(ctx->settings.build_options, why, sizeof why) != 0)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s='%.300s': %s",
                           ctx->settings.build_options_name, ctx->settings.build_options, why);
    clsort_cache_open(&ctx->settings, &ctx->cache_fd, ctx->cache_info, sizeof ctx->cache_info);
    return CLSORT_OK;
}

/* Errors during open go to the thread's detail slot: the caller gets no context to ask. */
static clsort_status open_failed(clsort_context **out, clsort_context *ctx, clsort_status st)
{
    if (ctx)
        clsort_set_thread_detail(ctx->detail);
    clsort_close(&ctx);
    *out = NULL;
    return st;
}

static clsort_status open_device(const char *fn, clsort_context **out, const char *device,
                                 const clsort_setting *settings, size_t count)
{
    if (!out)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    *out = NULL;
    clsort_clear_detail(NULL);
    clsort_status st = check_list(fn, settings, count, 0);
    if (st != CLSORT_OK)
        return st;
    const char *source = "device string";
    if (!device || !*device)
        device = clsort_settings_device(settings, count, &source);
    clsort_device_ref ref;
    if ((st = clsort_find_device(device, source, &ref)) != CLSORT_OK)
        return st;
    clsort_context *ctx = new_context(settings, count);
    if (!ctx)
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    if ((st = check_settings(ctx)) != CLSORT_OK)
        return open_failed(out, ctx, st);
    ctx->platform = ref.platform;
    ctx->device = ref.device;
    if ((st = clsort_read_device_info(ctx)) != CLSORT_OK)
        return open_failed(out, ctx, st);

    cl_int err;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0 };
    ctx->context = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return open_failed(out, ctx, clsort_fail_cl(ctx, err, "clCreateContext"));
    ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS)
        return open_failed(out, ctx, clsort_fail_cl(ctx, err, "clCreateCommandQueue"));
    ctx->profiling = 1;
    *out = ctx;
    return CLSORT_OK;
}

clsort_status clsort_open(clsort_context **out, const char *device)
{
    return open_device("clsort_open", out, device, NULL, 0);
}

clsort_status clsort_open_with_settings(clsort_context **out, const char *device,
                                        const clsort_setting *settings, size_t count)
{
    return open_device("clsort_open_with_settings", out, device, settings, count);
}

static clsort_status open_queue(const char *fn, clsort_context **out, cl_command_queue queue,
                                const clsort_setting *settings, size_t count)
{
    if (!out || !queue)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "%s: ctx or queue is NULL", fn);
    *out = NULL;
    clsort_clear_detail(NULL);
    clsort_status st = check_list(fn, settings, count, 1);
    if (st != CLSORT_OK)
        return st;
    clsort_context *ctx = new_context(settings, count);
    if (!ctx)
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    st = check_settings(ctx);
    if (st != CLSORT_OK)
        return open_failed(out, ctx, st);
    cl_int err;
    cl_command_queue_properties qp = 0;
    if ((err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx->context, &ctx->context,
                                     NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device,
                                     NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform, &ctx->platform,
                               NULL)) != CL_SUCCESS) {
        ctx->context = NULL; /* not ours yet */
        return open_failed(out, ctx, clsort_fail_cl(ctx, err, "clGetCommandQueueInfo"));
    }
    clRetainContext(ctx->context);
    clRetainCommandQueue(queue);
    ctx->queue = queue;
    ctx->profiling = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
    ctx->out_of_order = (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    st = clsort_read_device_info(ctx);
    if (st != CLSORT_OK)
        return open_failed(out, ctx, st);
    *out = ctx;
    return CLSORT_OK;
}

clsort_status clsort_open_with_queue(clsort_context **out, cl_command_queue queue)
{
    return open_queue("clsort_open_with_queue", out, queue, NULL, 0);
}

clsort_status clsort_open_with_queue_and_settings(clsort_context **out, cl_command_queue queue,
                                                  const clsort_setting *settings, size_t count)
{
    return open_queue("clsort_open_with_queue_and_settings", out, queue, settings, count);
}

void clsort_close(clsort_context **pctx)
{
    if (!pctx || !*pctx)
        return;
    clsort_context *ctx = *pctx;
    if (ctx->queue)
        clFinish(ctx->queue);
    if (ctx->last_event)
        clReleaseEvent(ctx->last_event);
    clsort_scratch_release(ctx);
    clsort_transfer_release(ctx);
    clsort_release_programs(ctx);
    clsort_cache_close(&ctx->cache_fd);
    if (ctx->host_queue)
        clReleaseCommandQueue(ctx->host_queue);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->context)
        clReleaseContext(ctx->context);
    free(ctx);
    *pctx = NULL;
}

clsort_status clsort_context_info(const clsort_context *ctx, cl_context *context,
                                  cl_command_queue *queue)
{
    if (!ctx)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "clsort_context_info: ctx is NULL");
    if (context)
        *context = ctx->context;
    if (queue)
        *queue = ctx->queue;
    return CLSORT_OK;
}

const char *clsort_device_name(const clsort_context *ctx)
{
    return ctx ? ctx->display_name : "";
}

const char *clsort_cache_info(const clsort_context *ctx)
{
    return ctx ? ctx->cache_info : "";
}
