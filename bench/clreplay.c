/*
 * Replays a call recorded by bench/clrecord.c through OpenCL, from the recorded program binaries, on
 * the device whose "platform / device" name contains REPLAY_DEVICE (default: the first one), and
 * checks the keys and values against the recorded result byte for byte (exit 1 where they differ).
 * It proves a recording complete on any device (the tests run it on PoCL), so that what
 * bench/ptxreplay.c replays under Nsight Compute is the whole call.
 *   clreplay DIR
 */
#include "recording.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

static recording rec;
static cl_mem bufs[REC_MAX_BUFS];
static cl_program progs[REC_MAX_PROGS];
static cl_command_queue queue;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "clreplay: %s failed (%d)\n", #call, (int)e_);                         \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static cl_device_id pick_device(void)
{
    const char *want = getenv("REPLAY_DEVICE");
    cl_platform_id plats[16];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(16, plats, &np));
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        char pname[128], dname[128], full[272];
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd; d++) {
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
            snprintf(full, sizeof full, "%s / %s", pname, dname);
            if (!want || strstr(full, want))
                return devs[d];
        }
    }
    fprintf(stderr, "clreplay: no device matches '%s'\n", want ? want : "");
    exit(2);
}

static cl_program program(cl_context ctx, cl_device_id dev, int i)
{
    if (!progs[i]) {
        char name[64];
        size_t size;
        snprintf(name, sizeof name, "prog%d.ptx", i);
        const unsigned char *bin = (const unsigned char *)rec_slurp(&rec, name, &size);
        cl_int err, status;
        progs[i] = clCreateProgramWithBinary(ctx, 1, &dev, &size, &bin, &status, &err);
        CHECK(err);
        CHECK(clBuildProgram(progs[i], 1, &dev, "", NULL, NULL));
        free((void *)bin);
    }
    return progs[i];
}

static void launch(cl_context ctx, cl_device_id dev, const rec_op *o)
{
    cl_int err;
    cl_kernel k = clCreateKernel(program(ctx, dev, o->prog), o->name, &err);
    CHECK(err);
    for (int a = 0; a < o->n_args; a++) {
        if (o->mem[a] >= 0)
            CHECK(clSetKernelArg(k, (cl_uint)a, sizeof(cl_mem), &bufs[o->mem[a]]));
        else
            CHECK(clSetKernelArg(k, (cl_uint)a, o->size[a], o->value[a]));
    }
    CHECK(clEnqueueNDRangeKernel(queue, k, (cl_uint)o->dims, NULL, o->global, o->local[0] ? o->local : NULL, 0,
                                 NULL, NULL));
    clReleaseKernel(k);
}

static void read_back(int buf, void *host, size_t size)
{
    CHECK(clEnqueueReadBuffer(queue, bufs[buf], CL_TRUE, 0, size, host, 0, NULL, NULL));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: clreplay DIR\n");
        return 2;
    }
    rec_load(&rec, argv[1]);
    cl_device_id dev = pick_device();
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    queue = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    for (int b = 0; b < rec.n_bufs; b++) {
        bufs[b] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, rec.buf_size[b] ? rec.buf_size[b] : 1,
                                 NULL, &err);
        CHECK(err);
        if (rec.buf_size[b])
            CHECK(clEnqueueWriteBuffer(queue, bufs[b], CL_TRUE, 0, rec.buf_size[b],
                                       rec.snapshot[b], 0, NULL, NULL));
    }
    for (int i = 0; i < rec.n_ops; i++) {
        const rec_op *o = &rec.ops[i];
        if (o->kind == 'L') {
            launch(ctx, dev, o);
        } else if (o->kind == 'F') {
            CHECK(clEnqueueFillBuffer(queue, bufs[o->a], o->pattern, o->pattern_size, o->off_a,
                                      o->bytes, 0, NULL, NULL));
        } else if (o->kind == 'C') {
            CHECK(clEnqueueCopyBuffer(queue, bufs[o->a], bufs[o->b], o->off_a, o->off_b, o->bytes,
                                      0, NULL, NULL));
        } else {
            char name[64];
            snprintf(name, sizeof name, "write%d.bin", o->write);
            char *h = rec_slurp(&rec, name, NULL);
            CHECK(clEnqueueWriteBuffer(queue, bufs[o->a], CL_TRUE, o->off_a, o->bytes, h, 0, NULL,
                                       NULL));
            free(h);
        }
    }
    CHECK(clFinish(queue));
    printf("%d commands replayed\n", rec.n_ops);
    return rec_check(&rec, read_back) ? 1 : 0;
}
