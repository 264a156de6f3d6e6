/*
 * Recorder of one library call's OpenCL commands, for bench/ptxreplay.c (LD_PRELOAD). Nsight Compute
 * does not see OpenCL kernels; NVIDIA's OpenCL compiles them to PTX, which the CUDA driver can load
 * and launch, so recording the commands lets ptxreplay run the very code the OpenCL driver runs, on
 * the same data, where ncu can profile it.
 *
 * It records the REC_CALL-th (default 2) clsort_enqueue() or clsort_enqueue_segments() that has no
 * wait list (a blocking read inside a gated call would wait forever) into the folder REC_DIR:
 *   ops.txt      one line per command: buffer ID SIZE (its snapshot, taken at its first use),
 *                launch PROG KERNEL DIMS GLOBAL3 LOCAL3 NARGS ARGS (mID: a buffer, sSIZE:HEX: bytes),
 *                fill ID OFFSET SIZE PATTERN_SIZE HEX, copy FROM TO FROM_OFF TO_OFF SIZE,
 *                write ID OFFSET SIZE N (bytes in writeN.bin), result keys|vals ID SIZE
 *   bufN.bin     buffer N when the call first used it
 *   progN.ptx    the binary of the program (PTX on NVIDIA's platform)
 *   out_keys.bin, out_vals.bin   the keys and values after the call
 * Build: cc -O2 -shared -fPIC -o libclrecord.so bench/clrecord.c -ldl (bench/ncu-h100.sh does).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL(name)                                                                                 \
    static __typeof__(&name) real_##name;                                                          \
    if (!real_##name)                                                                              \
        real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

enum { MAX_MEMS = 4096, MAX_BUFS = 256, MAX_PROGS = 32, MAX_KERNELS = 256, MAX_ARGS = 40 };

typedef struct arg {
    size_t size;
    unsigned char bytes[64];
    cl_mem mem; /* a buffer the process created, else NULL */
} arg;

typedef struct kernel {
    cl_kernel kernel;
    cl_program program;
    char name[64];
    arg args[MAX_ARGS];
} kernel;

static struct {
    int on, calls;
    FILE *ops;
    const char *dir;
    cl_command_queue queue;
    cl_mem mems[MAX_MEMS], bufs[MAX_BUFS];
    cl_program progs[MAX_PROGS];
    kernel kernels[MAX_KERNELS];
    int n_mems, n_bufs, n_progs, n_kernels, n_writes;
} rec;

static FILE *open_in_dir(const char *name, int i, const char *ext)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%d%s", rec.dir, name, i, ext);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

static int is_mem(cl_mem m)
{
    for (int i = 0; i < rec.n_mems; i++)
        if (rec.mems[i] == m)
            return 1;
    return 0;
}

static kernel *find_kernel(cl_kernel k)
{
    for (int i = 0; i < rec.n_kernels; i++)
        if (rec.kernels[i].kernel == k)
            return &rec.kernels[i];
    return NULL;
}

static void read_whole(cl_mem m, void **host, size_t *size)
{
    REAL(clEnqueueReadBuffer);
    clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof *size, size, NULL);
    *host = malloc(*size);
    clFinish(rec.queue);
    real_clEnqueueReadBuffer(rec.queue, m, CL_TRUE, 0, *size, *host, 0, NULL, NULL);
}

/* The buffer's number, snapshotting it at its first use in the call. */
static int buffer_id(cl_mem m)
{
    for (int i = 0; i < rec.n_bufs; i++)
        if (rec.bufs[i] == m)
            return i;
    const int id = rec.n_bufs++;
    rec.bufs[id] = m;
    void *host;
    size_t size;
    read_whole(m, &host, &size);
    FILE *f = open_in_dir("buf", id, ".bin");
    fwrite(host, 1, size, f);
    fclose(f);
    free(host);
    fprintf(rec.ops, "buffer %d %zu\n", id, size);
    return id;
}

static int program_id(cl_program p)
{
    for (int i = 0; i < rec.n_progs; i++)
        if (rec.progs[i] == p)
            return i;
    const int id = rec.n_progs++;
    rec.progs[id] = p;
    size_t size = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *bin = malloc(size), *bins[1] = { bin };
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
    FILE *f = open_in_dir("prog", id, ".ptx");
    fwrite(bin, 1, size, f);
    fclose(f);
    free(bin);
    return id;
}

static void put_hex(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(rec.ops, "%02x", ((const unsigned char *)p)[i]);
}

cl_mem clCreateBuffer(cl_context c, cl_mem_flags flags, size_t size, void *host, cl_int *err)
{
    REAL(clCreateBuffer);
    cl_mem m = real_clCreateBuffer(c, flags, size, host, err);
    if (m && !is_mem(m) && rec.n_mems < MAX_MEMS)
        rec.mems[rec.n_mems++] = m;
    return m;
}

cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    REAL(clCreateKernel);
    cl_kernel k = real_clCreateKernel(p, name, err);
    if (k && rec.n_kernels < MAX_KERNELS) {
        kernel *e = &rec.kernels[rec.n_kernels++];
        e->kernel = k;
        e->program = p;
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    return k;
}

cl_int clSetKernelArg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    REAL(clSetKernelArg);
    kernel *e = find_kernel(k);
    if (e && i < MAX_ARGS) {
        arg *a = &e->args[i];
        a->size = size;
        a->mem = value && size == sizeof(cl_mem) && is_mem(*(const cl_mem *)value)
                     ? *(const cl_mem *)value
                     : NULL;
        if (!a->mem && value && size <= sizeof a->bytes)
            memcpy(a->bytes, value, size);
    }
    return real_clSetKernelArg(k, i, size, value);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint n,
                              const cl_event *wait, cl_event *ev)
{
    REAL(clEnqueueNDRangeKernel);
    kernel *e = find_kernel(k);
    if (rec.on && e) {
        cl_uint n_args = 0;
        clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n_args, &n_args, NULL);
        const int prog = program_id(e->program);
        int ids[MAX_ARGS];
        for (cl_uint i = 0; i < n_args; i++) /* snapshots before the launch line */
            ids[i] = e->args[i].mem ? buffer_id(e->args[i].mem) : -1;
        size_t g[3] = { 1, 1, 1 }, l[3] = { 0, 1, 1 };
        for (cl_uint d = 0; d < dims && d < 3; d++) {
            g[d] = global[d];
            if (local)
                l[d] = local[d];
            if (offset && offset[d])
                fprintf(rec.ops, "# a global offset: not replayed\n");
        }
        fprintf(rec.ops, "launch %d %s %u %zu %zu %zu %zu %zu %zu %u", prog, e->name, dims, g[0],
                g[1], g[2], l[0], l[1], l[2], n_args);
        for (cl_uint i = 0; i < n_args; i++) {
            if (ids[i] >= 0) {
                fprintf(rec.ops, " m%d", ids[i]);
            } else {
                fprintf(rec.ops, " s%zu:", e->args[i].size);
                put_hex(e->args[i].bytes, e->args[i].size);
            }
        }
        fprintf(rec.ops, "\n");
    }
    return real_clEnqueueNDRangeKernel(q, k, dims, offset, global, local, n, wait, ev);
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pattern, size_t pattern_size,
                           size_t offset, size_t size, cl_uint n, const cl_event *wait,
                           cl_event *ev)
{
    REAL(clEnqueueFillBuffer);
    if (rec.on) {
        const int id = buffer_id(b);
        fprintf(rec.ops, "fill %d %zu %zu %zu ", id, offset, size, pattern_size);
        put_hex(pattern, pattern_size);
        fprintf(rec.ops, "\n");
    }
    return real_clEnqueueFillBuffer(q, b, pattern, pattern_size, offset, size, n, wait, ev);
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem from, cl_mem to, size_t from_off,
                           size_t to_off, size_t size, cl_uint n, const cl_event *wait,
                           cl_event *ev)
{
    REAL(clEnqueueCopyBuffer);
    if (rec.on) {
        const int a = buffer_id(from), b = buffer_id(to);
        fprintf(rec.ops, "copy %d %d %zu %zu %zu\n", a, b, from_off, to_off, size);
    }
    return real_clEnqueueCopyBuffer(q, from, to, from_off, to_off, size, n, wait, ev);
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t offset,
                            size_t size, const void *host, cl_uint n, const cl_event *wait,
                            cl_event *ev)
{
    REAL(clEnqueueWriteBuffer);
    if (rec.on) {
        const int id = buffer_id(b), w = rec.n_writes++;
        FILE *f = open_in_dir("write", w, ".bin");
        fwrite(host, 1, size, f);
        fclose(f);
        fprintf(rec.ops, "write %d %zu %zu %d\n", id, offset, size, w);
    }
    return real_clEnqueueWriteBuffer(q, b, blocking, offset, size, host, n, wait, ev);
}

/* ---- the library calls that open and close the recording ---- */
typedef struct clsort_context clsort_context;
typedef struct clsort_spec clsort_spec;
int clsort_context_info(const clsort_context *ctx, cl_context *context, cl_command_queue *queue);

static void begin(const clsort_context *ctx, cl_uint n_wait)
{
    if (n_wait)
        return;
    const char *want = getenv("REC_CALL");
    if (++rec.calls != (want ? atoi(want) : 2))
        return;
    rec.dir = getenv("REC_DIR") ? getenv("REC_DIR") : ".";
    char path[1024];
    snprintf(path, sizeof path, "%s/ops.txt", rec.dir);
    if (!(rec.ops = fopen(path, "w"))) {
        perror(path);
        exit(1);
    }
    cl_context c;
    clsort_context_info(ctx, &c, &rec.queue);
    clFinish(rec.queue);
    rec.on = 1;
}

static void end(cl_mem keys, cl_mem values)
{
    if (!rec.on)
        return;
    rec.on = 0;
    const cl_mem out[2] = { keys, values };
    const char *names[2] = { "keys", "vals" };
    for (int j = 0; j < 2; j++) {
        if (!out[j])
            continue;
        void *host;
        size_t size;
        read_whole(out[j], &host, &size);
        char path[1024];
        snprintf(path, sizeof path, "%s/out_%s.bin", rec.dir, names[j]);
        FILE *f = fopen(path, "wb");
        fwrite(host, 1, size, f);
        fclose(f);
        free(host);
        fprintf(rec.ops, "result %s %d %zu\n", names[j], buffer_id(out[j]), size);
    }
    fclose(rec.ops);
    fprintf(stderr, "clrecord: call %d recorded in %s\n", rec.calls, rec.dir);
}

int clsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys, cl_mem values,
                   size_t n, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    static int (*real)(clsort_context *, const clsort_spec *, cl_mem, cl_mem, size_t, cl_uint,
                       const cl_event *, cl_event *);
    if (!real)
        real = (__typeof__(real))dlsym(RTLD_NEXT, "clsort_enqueue");
    begin(ctx, n_wait);
    const int st = real(ctx, spec, keys, values, n, n_wait, wait, done);
    end(keys, values);
    return st;
}

int clsort_enqueue_segments(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                            cl_mem values, size_t n, cl_mem offsets, size_t n_seg, cl_uint n_wait,
                            const cl_event *wait, cl_event *done)
{
    static int (*real)(clsort_context *, const clsort_spec *, cl_mem, cl_mem, size_t, cl_mem,
                       size_t, cl_uint, const cl_event *, cl_event *);
    if (!real)
        real = (__typeof__(real))dlsym(RTLD_NEXT, "clsort_enqueue_segments");
    begin(ctx, n_wait);
    const int st = real(ctx, spec, keys, values, n, offsets, n_seg, n_wait, wait, done);
    end(keys, values);
    return st;
}
