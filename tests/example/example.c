/* Sort keys that live in an OpenCL buffer with libclsort, on the caller's own queue.
 * Build: cc example.c $(pkg-config --cflags --libs clsort) -o example */
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    enum { N = 1000000 };
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device: %s\n", clsort_status_string(err));
        return 1;
    }
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);

    /* some keys, uploaded to a buffer of the caller's */
    cl_uint *keys = malloc(N * sizeof *keys);
    cl_uint x = 12345;
    for (size_t i = 0; i < N; i++)
        keys[i] = x = x * 1664525u + 1013904223u;
    cl_mem buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *keys, keys,
                                &err);

    /* the library borrows the queue; the sort runs in place on the buffer */
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open_with_queue(&ctx, queue);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_open_with_queue: %s\n", clsort_status_string(st));
        return 1;
    }
    clsort_spec spec;
    clsort_spec_default(&spec); /* u32 keys, no values, the best algorithm for the device */
    cl_event done;
    st = clsort_enqueue(ctx, &spec, buf, NULL, N, 0, NULL, &done);
    if (st != CLSORT_OK) {
        fprintf(stderr, "clsort_enqueue: %s: %s\n", clsort_status_string(st), clsort_error_detail(ctx));
        return 1;
    }

    /* read the result back once the sort is done */
    err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, N * sizeof *keys, keys, 1, &done, NULL);
    clReleaseEvent(done);
    size_t bad = 0;
    for (size_t i = 1; i < N; i++)
        bad += keys[i - 1] > keys[i];
    printf("sorted %d keys on %s: %s\n", N, clsort_device_name(ctx), err == CL_SUCCESS && !bad ? "ok" : "WRONG");

    clsort_close(&ctx);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(keys);
    return err == CL_SUCCESS && !bad ? 0 : 1;
}
