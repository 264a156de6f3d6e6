/*
 * The host side of a file-to-file sort on an OpenCL GPU, step by step, without the sort: what the
 * device's open, the read, the transfers, the write and the teardown cost a process, so that the
 * tool's design can follow measurements (bench/hostio-h100.sh runs it beside the floor).
 *   hostio open RELEASE                       open (platform, context, queue), then exit
 *   hostio copy IN OUT THREADS UP RELEASE     IN read whole on THREADS threads while the device
 *                                             opens, uploaded (UP: pageable | pinned), copied on the
 *                                             device, downloaded into the same memory in pieces,
 *                                             each written to OUT while the next downloads
 *   hostio write IN OUT THREADS HOW           IN read whole on THREADS threads, then written to OUT
 *                                             (HOW: write, one thread's write() in 8 MiB pieces;
 *                                             mmap, OUT's blocks reserved, mapped and filled on
 *                                             THREADS threads; tmpwrite, tmpmap: the same into an
 *                                             unnamed file linked under OUT at the end; poolmap:
 *                                             tmpmap copied by clsort's pool, cli/io/pio.c)
 * RELEASE: 0 leaves everything to the process's exit, 1 releases after the write, 2 releases on a
 * thread once the last piece is downloaded (beside the write).
 * Prints each step's start and length in ms from the process's start.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include "pio.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double t_start;
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static void step(const char *what, double t0)
{
    const double t1 = now();
    printf("%-24s at %8.1f  took %8.1f ms\n", what, t0 - t_start, t1 - t0);
    fflush(stdout);
}
#define CHECK(e, what) do { if ((e) != CL_SUCCESS) { fprintf(stderr, "%s: %d\n", what, (int)(e)); exit(2); } } while (0)

typedef struct dev {
    cl_platform_id pf;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_mem a, b;
    size_t bytes;
} dev;

static void *open_dev(void *arg)
{
    dev *d = arg;
    double t = now();
    cl_uint n = 0;
    cl_platform_id pfs[8];
    CHECK(clGetPlatformIDs(8, pfs, &n), "clGetPlatformIDs");
    step("platforms", t);
    for (cl_uint i = 0; i < n; i++)
        if (clGetDeviceIDs(pfs[i], CL_DEVICE_TYPE_GPU, 1, &d->dev, NULL) == CL_SUCCESS) {
            d->pf = pfs[i];
            break;
        }
    for (cl_uint i = 0; i < n && !d->pf; i++) /* else any device (a CPU driver, to try it) */
        if (clGetDeviceIDs(pfs[i], CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL) == CL_SUCCESS)
            d->pf = pfs[i];
    if (!d->pf) {
        fprintf(stderr, "no device\n");
        exit(2);
    }
    t = now();
    cl_int e;
    d->ctx = clCreateContext(NULL, 1, &d->dev, NULL, NULL, &e);
    CHECK(e, "clCreateContext");
    step("context", t);
    t = now();
    d->q = clCreateCommandQueue(d->ctx, d->dev, 0, &e);
    CHECK(e, "clCreateCommandQueue");
    step("queue", t);
    if (d->bytes) {
        t = now();
        d->a = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, d->bytes, NULL, &e);
        CHECK(e, "clCreateBuffer");
        d->b = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, d->bytes, NULL, &e);
        CHECK(e, "clCreateBuffer");
        step("device buffers", t);
    }
    return NULL;
}

static void release(dev *d)
{
    double t = now();
    if (d->a)
        clReleaseMemObject(d->a);
    if (d->b)
        clReleaseMemObject(d->b);
    step("release buffers", t);
    t = now();
    clReleaseCommandQueue(d->q);
    step("release queue", t);
    t = now();
    clReleaseContext(d->ctx);
    step("release context", t);
}
static void *release_main(void *arg)
{
    release(arg);
    return NULL;
}

typedef struct part {
    int fd;
    unsigned char *p;
    const unsigned char *src;
    size_t off, len;
} part;
static void *read_part(void *arg)
{
    part *r = arg;
    size_t done = 0;
    while (done < r->len) {
        ssize_t g = pread(r->fd, r->p + r->off + done, r->len - done, (off_t)(r->off + done));
        if (g <= 0) {
            perror("pread");
            exit(3);
        }
        done += (size_t)g;
    }
    return NULL;
}
static void *copy_part(void *arg)
{
    part *r = arg;
    memcpy(r->p + r->off, r->src + r->off, r->len);
    return NULL;
}
static void on_threads(int threads, void *(*fn)(void *), part *proto, size_t len)
{
    pthread_t th[64];
    part ps[64];
    const size_t per = (len / threads + 4095) & ~(size_t)4095;
    int k = 0;
    for (size_t off = 0; off < len && k < 64; off += per, k++) {
        ps[k] = *proto;
        ps[k].off = off;
        ps[k].len = len - off < per ? len - off : per;
        pthread_create(&th[k], NULL, fn, &ps[k]);
    }
    for (int i = 0; i < k; i++)
        pthread_join(th[i], NULL);
}

typedef struct writer {
    int fd;
    const unsigned char *p;
    size_t piece, len;
    atomic_size_t ready; /* bytes downloaded */
} writer;
static void *write_main(void *arg)
{
    writer *w = arg;
    size_t done = 0;
    while (done < w->len) {
        size_t r;
        while ((r = atomic_load(&w->ready)) == done)
            usleep(50);
        while (done < r) {
            ssize_t g = write(w->fd, w->p + done, r - done);
            if (g <= 0) {
                perror("write");
                exit(3);
            }
            done += (size_t)g;
        }
    }
    return NULL;
}

static unsigned char *read_whole(const char *path, int threads, size_t *bytes)
{
    int in = open(path, O_RDONLY);
    struct stat sb;
    if (in < 0 || fstat(in, &sb)) {
        perror(path);
        exit(3);
    }
    *bytes = (size_t)sb.st_size;
    const size_t huge = 2u << 20, whole = (*bytes + huge - 1) / huge * huge;
    const double t = now();
    unsigned char *host = aligned_alloc(huge, whole);
    madvise(host, whole, MADV_HUGEPAGE);
    part proto = { in, host, NULL, 0, 0 };
    on_threads(threads, read_part, &proto, *bytes);
    step("read (threads)", t);
    close(in);
    return host;
}

static int write_file(const char *path, const unsigned char *p, size_t bytes, int threads, int how)
{
    double t = now();
    int out;
    char dir[4096];
    if (how >= 2) { /* unnamed in OUT's directory, linked under OUT at the end */
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        out = open(dir, O_TMPFILE | O_RDWR, 0644);
        how -= 2;
    } else {
        out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    }
    if (out < 0) {
        perror(path);
        return 3;
    }
    if (how == 0) {
        for (size_t off = 0; off < bytes;) {
            const size_t m = bytes - off < (8u << 20) ? bytes - off : (8u << 20);
            ssize_t g = write(out, p + off, m);
            if (g <= 0) {
                perror("write");
                return 3;
            }
            off += (size_t)g;
        }
        step("write()", t);
    } else {
        int e = posix_fallocate(out, 0, (off_t)bytes);
        if (e) {
            fprintf(stderr, "posix_fallocate: %s\n", strerror(e));
            return 3;
        }
        step("fallocate", t);
        t = now();
        unsigned char *m = mmap(NULL, bytes, PROT_WRITE, MAP_SHARED, out, 0);
        if (m == MAP_FAILED) {
            perror("mmap");
            return 3;
        }
        if (how == 3) { /* clsort's pool */
            pio_set_threads((unsigned)threads);
            pio_copy(m, p, bytes);
            step("copy into the map (pio)", t);
        } else {
            part cp = { -1, m, p, 0, 0 };
            on_threads(threads, copy_part, &cp, bytes);
            step("copy into the map", t);
        }
        t = now();
        munmap(m, bytes);
        step("munmap", t);
    }
    t = now();
    {
        char fd_path[64];
        snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", out);
        if (access(path, F_OK) != 0 && linkat(AT_FDCWD, fd_path, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
            step("link", t);
    }
    t = now();
    close(out);
    step("close", t);
    return 0;
}

int main(int argc, char **argv)
{
    t_start = now();
    if (argc >= 6 && !strcmp(argv[1], "write")) {
        size_t bytes;
        unsigned char *host = read_whole(argv[2], atoi(argv[4]), &bytes);
        const int how = !strcmp(argv[5], "mmap") ? 1 : !strcmp(argv[5], "tmpwrite") ? 2
                        : !strcmp(argv[5], "tmpmap") ? 3 : !strcmp(argv[5], "poolmap") ? 5 : 0;
        const int rc = write_file(argv[3], host, bytes, atoi(argv[4]), how);
        step("end", now());
        return rc;
    }
    if (argc >= 3 && !strcmp(argv[1], "open")) {
        dev d = { 0 };
        open_dev(&d);
        if (atoi(argv[2]))
            release(&d);
        step("end", now());
        return 0;
    }
    if (argc < 7 || strcmp(argv[1], "copy")) {
        fprintf(stderr, "usage: hostio open RELEASE | hostio copy IN OUT THREADS pageable|pinned RELEASE\n");
        return 1;
    }
    const int threads = atoi(argv[4]), pinned = !strcmp(argv[5], "pinned"), rel = atoi(argv[6]);
    int in = open(argv[2], O_RDONLY);
    struct stat sb;
    if (in < 0 || fstat(in, &sb)) {
        perror(argv[2]);
        return 3;
    }
    const size_t bytes = (size_t)sb.st_size, huge = 2u << 20;
    dev d = { .bytes = bytes };
    pthread_t opener;
    pthread_create(&opener, NULL, open_dev, &d);
    double t = now();
    unsigned char *host = aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
    madvise(host, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
    part proto = { in, host, NULL, 0, 0 };
    on_threads(threads, read_part, &proto, bytes);
    step("read (threads)", t);
    t = now();
    pthread_join(opener, NULL);
    step("wait for open", t);
    const size_t piece = 64u << 20;
    cl_int e;
    if (pinned) {
        t = now();
        cl_mem pm = clCreateBuffer(d.ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
        CHECK(e, "pinned");
        unsigned char *pp = clEnqueueMapBuffer(d.q, pm, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
        CHECK(e, "map");
        step("pinned alloc+map", t);
        t = now();
        part cp = { -1, pp, host, 0, 0 };
        on_threads(threads, copy_part, &cp, bytes);
        step("copy into pinned", t);
        t = now();
        CHECK(clEnqueueWriteBuffer(d.q, d.a, CL_FALSE, 0, bytes, pp, 0, NULL, NULL), "write");
        clFinish(d.q);
        step("upload pinned", t);
        clEnqueueUnmapMemObject(d.q, pm, pp, 0, NULL, NULL);
        clFinish(d.q);
        t = now();
        clReleaseMemObject(pm);
        step("pinned release", t);
    } else {
        t = now();
        for (size_t off = 0; off < bytes; off += piece) {
            const size_t m = bytes - off < piece ? bytes - off : piece;
            CHECK(clEnqueueWriteBuffer(d.q, d.a, CL_FALSE, off, m, host + off, 0, NULL, NULL), "write");
        }
        clFinish(d.q);
        step("upload pageable", t);
    }
    t = now();
    CHECK(clEnqueueCopyBuffer(d.q, d.a, d.b, 0, 0, bytes, 0, NULL, NULL), "copy");
    clFinish(d.q);
    step("device copy", t);
    int out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        perror(argv[3]);
        return 3;
    }
    writer w = { out, host, piece, bytes, 0 };
    pthread_t wt;
    t = now();
    pthread_create(&wt, NULL, write_main, &w);
    for (size_t off = 0; off < bytes; off += piece) {
        const size_t m = bytes - off < piece ? bytes - off : piece;
        CHECK(clEnqueueReadBuffer(d.q, d.b, CL_TRUE, off, m, host + off, 0, NULL, NULL), "read");
        atomic_store(&w.ready, off + m);
    }
    step("download pageable", t);
    pthread_t rt;
    if (rel == 2)
        pthread_create(&rt, NULL, release_main, &d);
    pthread_join(wt, NULL);
    step("download+write", t);
    if (rel == 2)
        pthread_join(rt, NULL);
    else if (rel == 1)
        release(&d);
    t = now();
    close(out);
    step("close", t);
    step("end", now());
    return 0;
}
