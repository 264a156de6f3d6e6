/*
 * Preloaded into programs run under Oclgrind's uninitialised-value check (tests/oclgrind.sh):
 * clEnqueueFillBuffer becomes a blocking clEnqueueWriteBuffer of the repeated pattern. Oclgrind 21.10
 * does not mark memory written by a fill as initialised, so every count the radix kernels add to a
 * zero-filled histogram or status word would be reported as an uninitialised value; a write of the
 * same bytes is tracked. The device memory ends up the same, and the returned event is complete.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef cl_int (*write_buffer_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                                  cl_uint, const cl_event *, cl_event *);

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void *pattern, size_t pattern_size,
                                                    size_t offset, size_t size, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event)
{
    const write_buffer_fn write_buffer = (write_buffer_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    if (!write_buffer)
        return CL_INVALID_OPERATION;
    if (!pattern || pattern_size == 0 || size % pattern_size || offset % pattern_size)
        return CL_INVALID_VALUE;
    unsigned char *data = malloc(size ? size : 1);
    if (!data)
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < size; i += pattern_size)
        memcpy(data + i, pattern, pattern_size);
    const cl_int err =
        write_buffer(queue, buffer, CL_TRUE, offset, size, data, num_events, wait_list, event);
    free(data);
    return err;
}
