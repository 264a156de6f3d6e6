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
 * Build: cc -O2 -I/usr/local/cuda/include -o ptxreplay bench/ptxreplay.c
 *        -L/usr/local/cuda/lib64/stubs -lcuda (bench/ncu-h100.sh does).
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum { MAX_BUFS = 256, MAX_OPS = 4096, MAX_PROGS = 32, MAX_ARGS = 40 };

typedef struct op {
    char kind; /* L launch, F fill, C copy, W write */
    int prog, n_args, mem[MAX_ARGS], a, b, write;
    char name[64];
    unsigned grid[3], block[3];
    size_t size[MAX_ARGS], off_a, off_b, bytes, pattern_size;
    unsigned char value[MAX_ARGS][64], pattern[64];
    CUfunction fn;
} op;

static op ops[MAX_OPS];
static int n_ops, n_bufs, result[2] = { -1, -1 };
static size_t buf_size[MAX_BUFS];
static void *snapshot[MAX_BUFS];
static CUdeviceptr dev[MAX_BUFS];
static CUmodule modules[MAX_PROGS];
static const char *dir;

static char *slurp(const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    b[n] = '\0';
    fclose(f);
    if (size)
        *size = (size_t)n;
    return b;
}

static void unhex(const char *s, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sscanf(s + 2 * i, "%2hhx", &out[i]);
}

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
        char *ptx = slurp(name, NULL), *cuda = cuda_ptx(ptx);
        CHECK(cuModuleLoadData(&modules[prog], cuda));
        free(ptx);
        free(cuda);
    }
    return modules[prog];
}

static void parse_launch(op *o)
{
    o->kind = 'L';
    o->prog = atoi(strtok(NULL, " "));
    snprintf(o->name, sizeof o->name, "%s", strtok(NULL, " "));
    strtok(NULL, " "); /* dimensions */
    size_t global[3], local[3];
    for (int d = 0; d < 3; d++)
        global[d] = strtoull(strtok(NULL, " "), NULL, 10);
    for (int d = 0; d < 3; d++)
        local[d] = strtoull(strtok(NULL, " "), NULL, 10);
    for (int d = 0; d < 3; d++) {
        o->block[d] = local[d] ? (unsigned)local[d] : 1;
        o->grid[d] = (unsigned)(global[d] / o->block[d]);
    }
    o->n_args = atoi(strtok(NULL, " \n"));
    for (int i = 0; i < o->n_args; i++) {
        const char *a = strtok(NULL, " \n");
        o->mem[i] = a[0] == 'm' ? atoi(a + 1) : -1;
        if (a[0] == 's') {
            o->size[i] = strtoull(a + 1, NULL, 10);
            unhex(strchr(a, ':') + 1, o->value[i], o->size[i]);
        }
    }
    CHECK(cuModuleGetFunction(&o->fn, module(o->prog), o->name));
}

static void parse(void)
{
    char *text = slurp("ops.txt", NULL), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *kind = strtok(line, " ");
        if (!kind || kind[0] == '#')
            continue;
        op *o = &ops[n_ops];
        if (!strcmp(kind, "buffer")) {
            const int id = atoi(strtok(NULL, " "));
            buf_size[id] = strtoull(strtok(NULL, " "), NULL, 10);
            char name[64];
            snprintf(name, sizeof name, "buf%d.bin", id);
            snapshot[id] = slurp(name, NULL);
            CHECK(cuMemAlloc(&dev[id], buf_size[id]));
            n_bufs = id + 1 > n_bufs ? id + 1 : n_bufs;
        } else if (!strcmp(kind, "launch")) {
            parse_launch(o);
            n_ops++;
        } else if (!strcmp(kind, "fill")) {
            o->kind = 'F';
            o->a = atoi(strtok(NULL, " "));
            o->off_a = strtoull(strtok(NULL, " "), NULL, 10);
            o->bytes = strtoull(strtok(NULL, " "), NULL, 10);
            o->pattern_size = strtoull(strtok(NULL, " "), NULL, 10);
            unhex(strtok(NULL, " "), o->pattern, o->pattern_size);
            n_ops++;
        } else if (!strcmp(kind, "copy")) {
            o->kind = 'C';
            o->a = atoi(strtok(NULL, " "));
            o->b = atoi(strtok(NULL, " "));
            o->off_a = strtoull(strtok(NULL, " "), NULL, 10);
            o->off_b = strtoull(strtok(NULL, " "), NULL, 10);
            o->bytes = strtoull(strtok(NULL, " "), NULL, 10);
            n_ops++;
        } else if (!strcmp(kind, "write")) {
            o->kind = 'W';
            o->a = atoi(strtok(NULL, " "));
            o->off_a = strtoull(strtok(NULL, " "), NULL, 10);
            o->bytes = strtoull(strtok(NULL, " "), NULL, 10);
            o->write = atoi(strtok(NULL, " "));
            n_ops++;
        } else if (!strcmp(kind, "result")) {
            const int vals = !strcmp(strtok(NULL, " "), "vals");
            result[vals] = atoi(strtok(NULL, " "));
        }
    }
    free(text);
}

static void run(const op *o)
{
    if (o->kind == 'L') {
        void *params[MAX_ARGS];
        for (int i = 0; i < o->n_args; i++)
            params[i] = o->mem[i] >= 0 ? (void *)&dev[o->mem[i]] : (void *)o->value[i];
        CHECK(cuLaunchKernel(o->fn, o->grid[0], o->grid[1], o->grid[2], o->block[0], o->block[1],
                             o->block[2], 0, 0, params, NULL));
    } else if (o->kind == 'F' && o->pattern_size == 4) {
        unsigned v;
        memcpy(&v, o->pattern, 4);
        CHECK(cuMemsetD32(dev[o->a] + o->off_a, v, o->bytes / 4));
    } else if (o->kind == 'F') {
        unsigned char *h = malloc(o->bytes);
        for (size_t i = 0; i < o->bytes; i++)
            h[i] = o->pattern[i % o->pattern_size];
        CHECK(cuMemcpyHtoD(dev[o->a] + o->off_a, h, o->bytes));
        free(h);
    } else if (o->kind == 'C') {
        CHECK(cuMemcpyDtoD(dev[o->b] + o->off_b, dev[o->a] + o->off_a, o->bytes));
    } else {
        char name[64];
        snprintf(name, sizeof name, "write%d.bin", o->write);
        char *h = slurp(name, NULL);
        CHECK(cuMemcpyHtoD(dev[o->a] + o->off_a, h, o->bytes));
        free(h);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ptxreplay DIR [ROUNDS]\n");
        return 2;
    }
    dir = argv[1];
    const int rounds = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3;
    CUdevice device;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuCtxCreate(&ctx, NULL, 0, device));
    parse();
    CUevent ev[MAX_OPS + 1];
    for (int i = 0; i <= n_ops; i++)
        CHECK(cuEventCreate(&ev[i], 0));
    double *ms = calloc((size_t)n_ops + 1, sizeof *ms);
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < n_bufs; b++)
            if (snapshot[b])
                CHECK(cuMemcpyHtoD(dev[b], snapshot[b], buf_size[b]));
        CHECK(cuCtxSynchronize());
        CHECK(cuEventRecord(ev[0], 0));
        for (int i = 0; i < n_ops; i++) {
            run(&ops[i]);
            CHECK(cuEventRecord(ev[i + 1], 0));
        }
        CHECK(cuCtxSynchronize());
        for (int i = 0; i < n_ops; i++) {
            float t;
            CHECK(cuEventElapsedTime(&t, ev[i], ev[i + 1]));
            ms[i] += t;
        }
    }
    double total = 0;
    for (int i = 0; i < n_ops; i++) {
        printf("%3d %c %-24s %9.4f ms\n", i, ops[i].kind, ops[i].kind == 'L' ? ops[i].name : "",
               ms[i] / rounds);
        total += ms[i] / rounds;
    }
    printf("total %.4f ms (mean of %d rounds)\n", total, rounds);
    int bad = 0;
    const char *names[2] = { "keys", "vals" };
    for (int j = 0; j < 2; j++) {
        if (result[j] < 0)
            continue;
        char name[64];
        size_t n;
        snprintf(name, sizeof name, "out_%s.bin", names[j]);
        unsigned char *want = (unsigned char *)slurp(name, &n), *got = malloc(n);
        CHECK(cuMemcpyDtoH(got, dev[result[j]], n));
        size_t diff = 0;
        for (size_t k = 0; k < n; k++)
            diff += got[k] != want[k];
        printf("%s: %zu of %zu bytes differ from the OpenCL result\n", names[j], diff, n);
        bad |= diff != 0;
    }
    return bad;
}
