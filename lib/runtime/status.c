/*
 * Status codes, their names, and the error details kept for the caller (per context, or per thread
 * where there is no context).
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* A context's detail may be written from the threads of a stream sort (run writers, merge threads)
 * at once: each is formatted apart and copied in whole. */
static pthread_mutex_t detail_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local char thread_detail[CLSORT_DETAIL_MAX];

static const char *cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
        E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
        E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
        E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_INVALID_PROPERTY) E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
        E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    default:
        return NULL;
    }
}

const char *clsort_status_string(clsort_status status)
{
    switch (status) {
    case CLSORT_OK: return "success";
    case CLSORT_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLSORT_ERROR_NO_DEVICE: return "no matching OpenCL device";
    case CLSORT_ERROR_BAD_DEVICE_STRING: return "malformed device string";
    case CLSORT_ERROR_BUILD_FAILED: return "kernel program build failed";
    case CLSORT_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
    case CLSORT_ERROR_TOO_LARGE: return "input too large for the device's memory";
    case CLSORT_ERROR_UNSUPPORTED: return "unsupported combination";
    case CLSORT_ERROR_DEVICE_UNSUITABLE: return "device lacks a required capability";
    case CLSORT_ERROR_LIMIT: return "input exceeds the algorithm's size limit";
    case CLSORT_ERROR_IO: return "the data source or sink failed";
    }
    const char *name = cl_error_name((cl_int)status);
    return name ? name : "unknown status";
}

static char *detail_slot(clsort_context *ctx)
{
    return ctx ? ctx->detail : thread_detail;
}

clsort_status clsort_fail(clsort_context *ctx, clsort_status status, const char *fmt, ...)
{
    char text[CLSORT_DETAIL_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&detail_lock);
    memcpy(detail_slot(ctx), text, sizeof text);
    pthread_mutex_unlock(&detail_lock);
    return status;
}

clsort_status clsort_fail_cl(clsort_context *ctx, cl_int err, const char *call)
{
    const char *name = cl_error_name(err);
    if (name)
        return clsort_fail(ctx, (clsort_status)err, "%s failed: %s (%d)", call, name, (int)err);
    return clsort_fail(ctx, (clsort_status)err, "%s failed: OpenCL error %d", call, (int)err);
}

void clsort_clear_detail(clsort_context *ctx)
{
    detail_slot(ctx)[0] = '\0';
}

void clsort_set_thread_detail(const char *text)
{
    snprintf(thread_detail, sizeof thread_detail, "%s", text);
}

const char *clsort_error_detail(const clsort_context *ctx)
{
    return ctx ? ctx->detail : "";
}

const char *clsort_last_error_detail(void)
{
    return thread_detail;
}

const char *clsort_version(void)
{
    return CLSORT_VERSION_STRING;
}
