/*
 * Replays a call recorded by bench/clrecord.c through the CUDA driver API, so that Nsight Compute
 * can profile the kernels NVIDIA's OpenCL runs: each program's PTX is loaded as a CUDA module and
 * every command runs in order on the same buffers, restored from their snapshots before each round.
 * Prints each command's time (CUDA events, mean over the rounds) and checks the last round's keys
 * and values against the OpenCL result, byte for byte (exit 1 where they differ).
 *   ptxreplay DIR [ROUNDS]
 *   ncu --set full -k regex:radix8_bin -c 4 ptxreplay DIR 1
 * NVIDIA's OpenCL PTX reads special registers a CUDA launch does not set: %envreg0-2 offset the
 * group ids and %envreg3-5 the global ids (both 0 here: the library launches without offsets), and
 * %envreg6-8 hold the number of groups (%nctaid). They are rewritten before the module loads.
 * Build: cc -O2 -I/usr/local/cuda/include -I bench -o ptxreplay bench/ptxreplay.c
 *        -L/usr/local/cuda/lib64/stubs -lcuda (bench/ncu-h100.sh does).
 */
#include "recording.h"

#include <cuda.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *s_ = "?";                                                                  \
            cuGetErrorString(r_, &s_);                                                             \
            fprintf(stderr, "ptxreplay: %s: %s\n", #call, s_);                                     \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static recording rec;
static CUdeviceptr dev[REC_MAX_BUFS];
static CUmodule modules[REC_MAX_PROGS];
static CUfunction fns[REC_MAX_OPS];

/* The PTX with OpenCL's special registers rewritten (see the top of the file). */
static char *cuda_ptx(const char *ptx)
{
    static const char *const with[9] = { "0", "0", "0", "0", "0", "0",
                                         "%nctaid.x", "%nctaid.y", "%nctaid.z" };
    char *out = malloc(strlen(ptx) * 2 + 1), *w = out;
    for (const char *p = ptx; *p;) {
        if (strncmp(p, "%envreg", 7)) {
            *w++ = *p++;
            continue;
        }
        const int k = atoi(p + 7);
        for (p += 7; *p >= '0' && *p <= '9'; p++)
            ;
        if (k > 8) {
            fprintf(stderr, "ptxreplay: %%envreg%d has no known meaning\n", k);
            exit(2);
        }
        w += sprintf(w, "%s", with[k]);
    }
    *w = '\0';
    return out;
}

static CUmodule module(int prog)
{
    if (!modules[prog]) {
        char name[64];
        snprintf(name, sizeof name, "prog%d.ptx", prog);
        char *ptx = rec_slurp(&rec, name, NULL), *cuda = cuda_ptx(ptx);
        CHECK(cuModuleLoadData(&modules[prog], cuda));
        free(ptx);
        free(cuda);
    }
    return modules[prog];
}

static void run(int i)
{
    const rec_op *o = &rec.ops[i];
    if (o->kind == 'L') {
        void *params[REC_MAX_ARGS];
        unsigned grid[3], block[3];
        for (int a = 0; a < o->n_args; a++)
            params[a] = o->mem[a] >= 0 ? (void *)&dev[o->mem[a]] : (void *)o->value[a];
        for (int d = 0; d < 3; d++) {
            block[d] = o->local[d] ? (unsigned)o->local[d] : 1;
            grid[d] = (unsigned)(o->global[d] / block[d]);
        }
        CHECK(cuLaunchKernel(fns[i], grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, 0,
                             params, NULL));
    } else if (o->kind == 'F' && o->pattern_size == 4) {
        unsigned v;
        memcpy(&v, o->pattern, 4);
        CHECK(cuMemsetD32(dev[o->a] + o->off_a, v, o->bytes / 4));
    } else if (o->kind == 'F') {
        unsigned char *h = malloc(o->bytes);
        for (size_t k = 0; k < o->bytes; k++)
            h[k] = o->pattern[k % o->pattern_size];
        CHECK(cuMemcpyHtoD(dev[o->a] + o->off_a, h, o->bytes));
        free(h);
    } else if (o->kind == 'C') {
        CHECK(cuMemcpyDtoD(dev[o->b] + o->off_b, dev[o->a] + o->off_a, o->bytes));
    } else {
        char name[64];
        snprintf(name, sizeof name, "write%d.bin", o->write);
        char *h = rec_slurp(&rec, name, NULL);
        CHECK(cuMemcpyHtoD(dev[o->a] + o->off_a, h, o->bytes));
        free(h);
    }
}

static void read_back(int buf, void *host, size_t size)
{
    CHECK(cuMemcpyDtoH(host, dev[buf], size));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxreplay DIR [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3;
    CUdevice device;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuCtxCreate(&ctx, NULL, 0, device));
    rec_load(&rec, argv[1]);
    for (int b = 0; b < rec.n_bufs; b++)
        CHECK(cuMemAlloc(&dev[b], rec.buf_size[b] ? rec.buf_size[b] : 1));
    for (int i = 0; i < rec.n_ops; i++)
        if (rec.ops[i].kind == 'L')
            CHECK(cuModuleGetFunction(&fns[i], module(rec.ops[i].prog), rec.ops[i].name));
    static CUevent ev[REC_MAX_OPS + 1];
    for (int i = 0; i <= rec.n_ops; i++)
        CHECK(cuEventCreate(&ev[i], 0));
    double *ms = calloc((size_t)rec.n_ops + 1, sizeof *ms);
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < rec.n_bufs; b++)
            if (rec.snapshot[b])
                CHECK(cuMemcpyHtoD(dev[b], rec.snapshot[b], rec.buf_size[b]));
        CHECK(cuCtxSynchronize());
        CHECK(cuEventRecord(ev[0], 0));
        for (int i = 0; i < rec.n_ops; i++) {
            run(i);
            CHECK(cuEventRecord(ev[i + 1], 0));
        }
        CHECK(cuCtxSynchronize());
        for (int i = 0; i < rec.n_ops; i++) {
            float t;
            CHECK(cuEventElapsedTime(&t, ev[i], ev[i + 1]));
            ms[i] += t;
        }
    }
    double total = 0;
    for (int i = 0; i < rec.n_ops; i++) {
        const rec_op *o = &rec.ops[i];
        printf("%3d %c %-24s %9.4f ms\n", i, o->kind, o->kind == 'L' ? o->name : "", ms[i] / rounds);
        total += ms[i] / rounds;
    }
    printf("total %.4f ms (mean of %d rounds)\n", total, rounds);
    return rec_check(&rec, read_back) ? 1 : 0;
}
