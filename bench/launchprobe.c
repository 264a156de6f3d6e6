/*
 * launchprobe: what one OpenCL launch costs the caller beyond the kernel's own time, on the first
 * GPU (else the first device): the floor under any library's "wall time around enqueue + finish"
 * against its kernel-event time. A kernel that spins for about T microseconds is launched alone
 * and as a chain of five (each T / 5, one flush after the first, as clsort does), REPS times:
 *   wall   enqueue .. clFinish() returning, on the host's clock;
 *   span   the first kernel's start to the last one's end, from the events (taken in a separate
 *          run of the same chain so that asking for events does not add to the wall times);
 *   gap    wall - span: what the caller pays beyond the kernels, whatever those kernels do.
 * Also the host cost of the calls a library makes before its first launch (retain and release of
 * a buffer and a kernel, clSetKernelArg), per call, and of an enqueue with and without an event.
 *   launchprobe [T_us (default 434)] [reps (default 50)] [MiB of the buffers the argument test passes
 *   (default 0: 4 KiB)]
 */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *source =
    "__kernel void spin(__global uint *out, ulong cycles) {\n"
    "    uint x = get_global_id(0);\n"
    "    for (ulong i = 0; i < cycles; i++) x = x * 1664525u + 1013904223u;\n"
    "    if (x == 0x12345678u) out[0] = x;\n"
    "}\n"
    "__kernel void args2(__global uint *a, __global uint *b) { if (get_global_id(0) == ~0u) a[0] = b[0]; }\n"
    "__kernel void args8(__global uint *a, __global uint *b, __global uint *c, __global uint *d,\n"
    "                    ulong e, ulong f, uint g, uint h) {\n"
    "    if (get_global_id(0) == ~0u) a[0] = b[0] + c[0] + d[0] + (uint)e + (uint)f + g + h; }\n"
    "__kernel void args14(__global uint *a, __global uint *b, __global uint *c, __global uint *d,\n"
    "                    __global uint *a2, __global uint *b2, ulong e, ulong f, ulong e2, ulong f2,\n"
    "                    uint g, uint h, uint g2, uint h2) {\n"
    "    if (get_global_id(0) == ~0u) a[0] = b[0] + c[0] + d[0] + a2[0] + b2[0] + (uint)(e + f + e2 + f2) + g + h + g2 + h2; }\n"
    "typedef struct { ulong w[10]; } params;\n"
    "__kernel void argstruct(__global uint *a, __global uint *b, __global uint *c, __global uint *d,\n"
    "                        params p) {\n"
    "    if (get_global_id(0) == ~0u) a[0] = b[0] + c[0] + d[0] + (uint)(p.w[0] + p.w[9]); }\n";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static cl_ulong ev_ns(cl_event e, cl_profiling_info what)
{
    cl_ulong t = 0;
    clGetEventProfilingInfo(e, what, sizeof t, &t, NULL);
    return t;
}

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "launchprobe: %s failed (%d)\n", #x, (int)e_);                         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static cl_device_id pick_device(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    return dev;
}

/* Launch `count` kernels of `cycles` each; with events, report the span; returns the wall time. */
static double chain(cl_command_queue q, cl_kernel k, cl_ulong cycles, int count, double *span_us)
{
    cl_event ev[8] = { 0 };
    const size_t global = 132 * 256, local = 256;
    clSetKernelArg(k, 1, sizeof cycles, &cycles);
    const double t0 = now_us();
    for (int i = 0; i < count; i++) {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, span_us ? &ev[i] : NULL);
        if (i == 0)
            clFlush(q);
    }
    clFinish(q);
    const double wall = now_us() - t0;
    if (span_us) {
        *span_us = (double)(ev_ns(ev[count - 1], CL_PROFILING_COMMAND_END) -
                            ev_ns(ev[0], CL_PROFILING_COMMAND_START)) / 1e3;
        for (int i = 0; i < count; i++)
            clReleaseEvent(ev[i]);
    }
    return wall;
}

int main(int argc, char **argv)
{
    const double target = argc > 1 ? atof(argv[1]) : 434;
    const int reps = argc > 2 ? atoi(argv[2]) : 50;
    const double mib = argc > 3 ? atof(argv[3]) : 0;
    if (target <= 0 || reps < 1 || reps > 10000 || mib < 0 || mib > 65536) {
        fprintf(stderr, "usage: launchprobe [T_us > 0] [reps 1-10000] [MiB 0-65536]\n");
        return 1;
    }
    cl_int err;
    cl_device_id dev = pick_device();
    if (!dev) {
        fprintf(stderr, "launchprobe: no OpenCL device\n");
        return 1;
    }
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(cx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program p = clCreateProgramWithSource(cx, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(p, "spin", &err);
    CHECK(err);
    cl_mem buf = clCreateBuffer(cx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));

    /* Calibrate cycles for the target duration from one kernel's event time. */
    cl_ulong cycles = 1000;
    for (int i = 0; i < 30; i++) {
        double span;
        chain(q, k, cycles, 1, &span);
        if (span > target * 0.99 && span < target * 1.01)
            break;
        cycles = (cl_ulong)((double)cycles * target / (span > 1 ? span : 1));
        if (!cycles)
            cycles = 1;
    }
    printf("# device: %s; kernel of %llu cycles; medians of %d\n", name, (unsigned long long)cycles,
           reps);
    double *w = malloc(sizeof *w * (size_t)reps), *s = malloc(sizeof *s * (size_t)reps);
    for (int count = 1; count <= 5; count += 4) {
        const cl_ulong c = cycles / (cl_ulong)count;
        for (int r = 0; r < reps; r++)
            chain(q, k, c, count, &s[r]);
        for (int r = 0; r < reps; r++)
            w[r] = chain(q, k, c, count, NULL);
        const double ms = median(s, reps), mw = median(w, reps);
        printf("%d launch%s: span %.1f us, wall %.1f us, gap %.1f us, span / wall %.4f\n", count,
               count > 1 ? "es" : "", ms, mw, mw - ms, ms / mw);
    }
    /* Empty kernel: the smallest wall time of a launch + finish. */
    for (int r = 0; r < reps; r++)
        w[r] = chain(q, k, 0, 1, NULL);
    printf("empty kernel: wall %.1f us\n", median(w, reps));
    /* Host cost per call. */
    const int calls = 10000;
    double t0 = now_us();
    for (int i = 0; i < calls; i++) {
        clRetainMemObject(buf);
        clReleaseMemObject(buf);
    }
    printf("clRetainMemObject + clReleaseMemObject: %.3f us\n", (now_us() - t0) / calls);
    t0 = now_us();
    for (int i = 0; i < calls; i++) {
        clRetainKernel(k);
        clReleaseKernel(k);
    }
    printf("clRetainKernel + clReleaseKernel: %.3f us\n", (now_us() - t0) / calls);
    t0 = now_us();
    for (int i = 0; i < calls; i++)
        clSetKernelArg(k, 0, sizeof buf, &buf);
    printf("clSetKernelArg (buffer): %.3f us\n", (now_us() - t0) / calls);
    const size_t global = 256, local = 256;
    const cl_ulong zero = 0;
    clSetKernelArg(k, 1, sizeof zero, &zero);
    for (int ev = 0; ev < 2; ev++) {
        for (int r = 0; r < reps; r++) {
            cl_event e = NULL;
            const double a = now_us();
            clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, ev ? &e : NULL);
            w[r] = now_us() - a;
            clFinish(q);
            if (e)
                clReleaseEvent(e);
        }
        printf("clEnqueueNDRangeKernel %s an event: %.2f us\n", ev ? "with" : "without",
               median(w, reps));
    }
    /* Host time of one enqueue by the kernel's arguments and grid. */
    const char *kn[] = { "args2", "args8", "args14", "argstruct" };
    const int nargs[] = { 2, 8, 14, 5 };
    const size_t grids[] = { 132 * 256, 1560 * 448, 24967 * 384 };
    const size_t locals[] = { 256, 448, 384 };
    cl_mem bufs[6];
    for (int i = 0; i < 6; i++) {
        bufs[i] = mib > 0 ? clCreateBuffer(cx, CL_MEM_READ_WRITE, (size_t)(mib * 1048576), NULL, &err)
                          : buf;
        CHECK(mib > 0 ? err : CL_SUCCESS);
        if (mib > 0) /* touched once, so that the driver has placed it */
            CHECK(clEnqueueFillBuffer(q, bufs[i], &(cl_uint){ 0 }, 4, 0, 4096, 0, NULL, NULL));
    }
    clFinish(q);
    for (int g = 0; g < 3; g++) {
        for (int j = 0; j < 4; j++) {
            cl_kernel a = clCreateKernel(p, kn[j], &err);
            CHECK(err);
            for (int i = 0; i < nargs[j]; i++) {
                if (j == 3 && i == 4) {
                    cl_ulong par[10] = { 0 };
                    clSetKernelArg(a, (cl_uint)i, sizeof par, par);
                } else if ((j == 0) || (j == 1 && i < 4) || (j == 2 && i < 6) || (j == 3 && i < 4)) {
                    clSetKernelArg(a, (cl_uint)i, sizeof bufs[i], &bufs[i]);
                } else if ((j == 1 && i < 6) || (j == 2 && i < 10)) {
                    const cl_ulong v = 1;
                    clSetKernelArg(a, (cl_uint)i, sizeof v, &v);
                } else {
                    const cl_uint v = 1;
                    clSetKernelArg(a, (cl_uint)i, sizeof v, &v);
                }
            }
            for (int r = 0; r < reps; r++) {
                const double t1 = now_us();
                clEnqueueNDRangeKernel(q, a, 1, NULL, &grids[g], &locals[g], 0, NULL, NULL);
                w[r] = now_us() - t1;
                const double t2 = now_us();
                clFlush(q);
                s[r] = now_us() - t2;
                clFinish(q);
            }
            const double me = median(w, reps), mf = median(s, reps);
            printf("enqueue %-9s (%2d args, buffers of %g MiB) grid %zu x %zu: %.2f us, flush %.2f "
                   "us\n", kn[j], nargs[j], mib > 0 ? mib : 4.0 / 1024, grids[g] / locals[g],
                   locals[g], me, mf);
            clReleaseKernel(a);
        }
    }
    free(w);
    free(s);
    for (int i = 0; i < 6 && mib > 0; i++)
        clReleaseMemObject(bufs[i]);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(cx);
    return 0;
}
