/*
 * The host-radix family: the sort runs on the host's threads, on the job's buffers mapped. The
 * chain gets a marker (the start: the caller's events and everything enqueued before have
 * completed) and a barrier behind a user event (the gate); a thread of the library waits for the
 * start, maps the keys and values and scratch buffers of their size on a queue of its own, sorts
 * (host_sort.c; segments, fixed or by the offsets mapped too: host_segments.c), unmaps, and
 * completes the gate. The call returns at once, as clsort_enqueue()
 * must: its wait list may hold events that complete only after it returns. The maps are not the
 * chain's commands: a buffer mapped twice at once (two sorts in flight, sharing the scratch or the
 * caller's buffers) is undefined, and crashed NVIDIA's driver; here each sort maps only after the
 * one before has unmapped. On a CPU device the maps hand out the buffers' own memory, so nothing is
 * copied; elsewhere the maps copy, and the device's own algorithms are faster.
 * Host arrays (clsort_sort() and the like) up to clsort_host_radix_inline_bytes(), on a CPU device
 * of any size, skip all of that: clsort_host_radix_sort_host() sorts them where they are, small
 * ones in the calling thread with a scratch of malloc(), larger ones on the host's threads with the
 * kept scratch buffers mapped (after the caller's queue has finished: no task holds them mapped).
 * Calls: host_sort.c, host_segments.c, host_radix.c, chain.c, buffers.c, status.c.
 */
#include "host_sort.h"

#include <pthread.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define MAX_THREADS 64

/* Data keys and values, scratch keys and values, variable segments' offsets. */
enum { MAP_KEYS, MAP_VALUES, MAP_TMP_KEYS, MAP_TMP_VALUES, MAP_OFFSETS, MAPS };

typedef struct host_task {
    clsort_host_sort sort;
    cl_command_queue queue; /* the maps' own queue (a reference of the task's) */
    cl_mem mem[MAPS];       /* NULL where there is nothing to map (no values) */
    size_t bytes[MAPS];
    void *ptr[MAPS];
    cl_event start;         /* the chain's marker before the sort */
    cl_event gate;          /* completed by the sorting thread */
    size_t n_seg;           /* variable segments: their count (offsets mapped) */
    size_t seg_len;         /* fixed segments: their length (0: the whole array) */
} host_task;

static void task_free(host_task *t)
{
    for (int i = 0; i < MAPS; i++)
        if (t->mem[i])
            clReleaseMemObject(t->mem[i]);
    if (t->start)
        clReleaseEvent(t->start);
    if (t->gate)
        clReleaseEvent(t->gate);
    if (t->queue)
        clReleaseCommandQueue(t->queue);
    free(t);
}

/* Map every buffer (blocking), or none: what was mapped is unmapped again. */
static cl_int map_all(host_task *t)
{
    static const cl_map_flags flags[MAPS] = { CL_MAP_READ | CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE,
                                              CL_MAP_WRITE_INVALIDATE_REGION,
                                              CL_MAP_WRITE_INVALIDATE_REGION, CL_MAP_READ };
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < MAPS && err == CL_SUCCESS; i++)
        if (t->mem[i])
            t->ptr[i] = clEnqueueMapBuffer(t->queue, t->mem[i], CL_TRUE, flags[i], 0, t->bytes[i], 0,
                                           NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        for (int i = 0; i < MAPS; i++)
            if (t->ptr[i])
                clEnqueueUnmapMemObject(t->queue, t->mem[i], t->ptr[i], 0, NULL, NULL);
        clFinish(t->queue); /* unmapped before the gate lets the caller's queue go on */
    }
    return err;
}

static cl_int unmap_all(host_task *t)
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < MAPS; i++)
        if (t->ptr[i]) {
            cl_int e = clEnqueueUnmapMemObject(t->queue, t->mem[i], t->ptr[i], 0, NULL, NULL);
            err = err == CL_SUCCESS ? e : err;
        }
    cl_int e = clFinish(t->queue);
    return err == CL_SUCCESS ? e : err;
}

/* The caller's offsets of a clsort_enqueue_segments() as the device's check takes them. */
static int csr(const uint64_t *off, size_t n_seg, size_t n)
{
    if (off[0] != 0 || off[n_seg] != n)
        return 0;
    for (size_t i = 0; i < n_seg; i++)
        if (off[i + 1] < off[i])
            return 0;
    return 1;
}

static void *run_task(void *arg)
{
    host_task *t = arg;
    /* a failed start (a failed event in the caller's wait list) fails the commands after the gate */
    cl_int st = clWaitForEvents(1, &t->start);
    if (st == CL_SUCCESS && (st = map_all(t)) == CL_SUCCESS) {
        t->sort.data = (clsort_host_span){ t->ptr[MAP_KEYS], t->ptr[MAP_VALUES] };
        t->sort.tmp = (clsort_host_span){ t->ptr[MAP_TMP_KEYS], t->ptr[MAP_TMP_VALUES] };
        const uint64_t *off = t->ptr[MAP_OFFSETS];
        if (off && csr(off, t->n_seg, t->sort.n))
            clsort_host_sort_segments(&t->sort, off, t->n_seg, 0);
        else if (t->seg_len && t->seg_len < t->sort.n)
            clsort_host_sort_segments(&t->sort, NULL, 0, t->seg_len);
        else /* a whole array; offsets that are not CSR: all as one segment, as the kernels do */
            clsort_host_sort_run(&t->sort);
        st = unmap_all(t);
    }
    /* freed first: once the gate completes, the caller may end the process */
    cl_event gate = t->gate;
    t->gate = NULL;
    task_free(t);
    clSetUserEventStatus(gate, st == CL_SUCCESS ? CL_COMPLETE
                                                : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(gate);
    return NULL;
}

static clsort_status host_queue(clsort_context *ctx, cl_command_queue *q)
{
    if (!ctx->host_queue) {
        cl_int err;
        ctx->host_queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &err);
        if (err != CL_SUCCESS) {
            ctx->host_queue = NULL;
            return clsort_fail_cl(ctx, err, "clCreateCommandQueue");
        }
    }
    clRetainCommandQueue(ctx->host_queue);
    *q = ctx->host_queue;
    return CLSORT_OK;
}

/* Enqueue the start and the gate, then hand the task to a thread of its own, which frees it (on
 * failure it is still the caller's). */
static clsort_status launch(clsort_context *ctx, host_task *t)
{
    clsort_status st = host_queue(ctx, &t->queue);
    if (st == CLSORT_OK)
        st = clsort_chain_fence(ctx, &t->start);
    if (st != CLSORT_OK)
        return st;
    cl_int err;
    t->gate = clCreateUserEvent(ctx->context, &err);
    if (err != CL_SUCCESS) {
        t->gate = NULL;
        return clsort_fail_cl(ctx, err, "clCreateUserEvent");
    }
    st = clsort_chain_gate(ctx, t->gate);
    pthread_t th;
    if (st != CLSORT_OK || pthread_create(&th, NULL, run_task, t)) {
        clSetUserEventStatus(t->gate, CL_COMPLETE); /* nothing sorted; the commands drain */
        return st != CLSORT_OK ? st
                               : clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                                             "host-radix: cannot start a thread");
    }
    pthread_detach(th);
    /* The start completes while the thread waits for it. After the thread exists: a flush may run
     * the queue to its end before it returns (Oclgrind's does), and so wait for the gate. */
    clFlush(ctx->queue);
    return CLSORT_OK;
}

static unsigned thread_count(const clsort_context *ctx)
{
    const unsigned cu = ctx->compute_units ? ctx->compute_units : 1;
    return cu < MAX_THREADS ? cu : MAX_THREADS;
}

size_t clsort_host_radix_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    (void)ctx;
    return n * (clsort_key_size(spec->key_type) + spec->value_size);
}

clsort_status clsort_host_radix_enqueue(clsort_context *ctx, clsort_job *job)
{
    const clsort_spec *spec = job->spec;
    const size_t n = job->n, ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    cl_mem tmp[2] = { NULL, NULL };
    clsort_status st = clsort_scratch(ctx, CLSORT_SLOT_TMP_KEYS, n * ks, &tmp[0],
                                      "host-radix key scratch");
    if (st == CLSORT_OK && vs)
        st = clsort_scratch(ctx, CLSORT_SLOT_TMP_VALUES, n * vs, &tmp[1],
                            "host-radix value scratch");
    host_task *t = st == CLSORT_OK && !ctx->reserving ? calloc(1, sizeof *t) : NULL;
    if (t) {
        const clsort_varseg *v = job->varseg;
        const cl_mem mem[MAPS] = { job->keys, vs ? job->values : NULL, tmp[0], tmp[1],
                                   v ? v->offsets : NULL };
        const size_t bytes[MAPS] = { n * ks, n * vs, n * ks, n * vs,
                                     v ? (v->n_seg + 1) * sizeof(cl_ulong) : 0 };
        t->n_seg = v ? v->n_seg : 0;
        t->seg_len = clsort_segment_length(spec, n);
        for (int i = 0; i < MAPS; i++)
            if ((t->mem[i] = mem[i]) != NULL)
                clRetainMemObject(mem[i]); /* the thread's, as the caller may release them */
        memcpy(t->bytes, bytes, sizeof bytes);
        clsort_host_sort_init(&t->sort, spec, n);
        t->sort.threads = thread_count(ctx);
        if ((st = launch(ctx, t)) != CLSORT_OK)
            task_free(t);
    } else if (st == CLSORT_OK && !ctx->reserving) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    /* the task holds the scratch buffers as long as it needs them */
    clsort_release_mems(tmp, 2);
    return st;
}

_Static_assert(CLSORT_HOST_INLINE_MAX_BYTES <= CLSORT_HOST_LOCAL_MAX_BYTES,
               "arrays sorted in the calling thread alone are ones that one thread sorts in cache");

/* Where the device is the host's own cores, host arrays of any size are sorted where they are, by
 * the calling thread and helpers, through the kept scratch buffers (host_sort.h); elsewhere the
 * small ones only. */
size_t clsort_host_radix_inline_bytes(const clsort_context *ctx)
{
    const size_t hook = ctx->settings.host_inline_bytes;
    if (hook != CLSORT_UNSET_BYTES)
        return hook;
    return clsort_device_is_host_cores(ctx->type) && ctx->host_unified
               ? SIZE_MAX
               : CLSORT_HOST_INLINE_MAX_BYTES;
}

size_t clsort_host_radix_small_bytes(const clsort_context *ctx)
{
    const size_t hook = ctx->settings.host_small_bytes;
    const size_t b = hook != CLSORT_UNSET_BYTES ? hook : ctx->tuning.host_small_bytes;
    return b < CLSORT_HOST_INLINE_MAX_BYTES ? b : CLSORT_HOST_INLINE_MAX_BYTES;
}

/* The scratch of a large host sort: the kept scratch buffers (host-radix's own slots), mapped on
 * the family's queue. On a CPU device the maps hand out the buffers' memory, kept between calls,
 * where malloc() would give fresh pages each call: 2^24 u32 keys, 64 MiB of scratch, about 16,000
 * page faults and the pages' zeroing. */
typedef struct kept_scratch {
    cl_command_queue queue;
    cl_mem mem[2];
    void *ptr[2];
} kept_scratch;

/* Huge pages for the fresh pages of a large scratch (Linux, where transparent huge pages are
 * given on advice): 256 MiB first touched in 90-107 ms in 4 KiB pages, 18 ms in huge ones, on
 * the 2-core EPYC (the scratch of 2^26 u32 keys, faulted in by the split). Advice only: the
 * range is the buffer's own, whole pages inside it. */
static void advise_huge(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (bytes >= 2 * huge && hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

static const clsort_slot kept_slots[2] = { CLSORT_SLOT_TMP_KEYS, CLSORT_SLOT_TMP_VALUES };
static const char *const kept_what[2] = { "host-radix key scratch", "host-radix value scratch" };

clsort_status clsort_host_radix_reserve_host(clsort_context *ctx, const clsort_spec *spec, size_t n)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    if (n * (ks + vs) <= CLSORT_HOST_INLINE_MAX_BYTES)
        return CLSORT_OK; /* a scratch of malloc() at each call */
    const size_t bytes[2] = { n * ks, n * vs };
    cl_command_queue q = NULL;
    clsort_status st = host_queue(ctx, &q); /* for the maps, clsort_host_radix_prefault()'s too */
    if (q)
        clReleaseCommandQueue(q);
    for (int i = 0; i < 2 && st == CLSORT_OK; i++) {
        cl_mem m = NULL;
        if (bytes[i] && (st = clsort_scratch(ctx, kept_slots[i], bytes[i], &m, kept_what[i])) ==
                            CLSORT_OK)
            clReleaseMemObject(m);
    }
    return st;
}

/* Fault in the pages of [p, p + bytes) for writing, without writing (Linux 5.14 and later; else
 * nothing). */
static void populate(void *p, size_t bytes)
{
#if defined(MADV_POPULATE_WRITE)
    const uintptr_t page = 4096;
    const uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

void clsort_host_radix_prefault(clsort_context *ctx, const clsort_spec *spec, size_t n, void *keys,
                                void *values)
{
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    populate(keys, n * ks);
    if (vs)
        populate(values, n * vs);
    if (!ctx->host_unified || n * (ks + vs) <= CLSORT_HOST_INLINE_MAX_BYTES)
        return;
    const size_t bytes[2] = { n * ks, n * vs };
    cl_command_queue q = ctx->host_queue; /* made by the caller before, as the scratch */
    for (int i = 0; i < 2 && q; i++) {
        const cl_mem m = ctx->scratch[kept_slots[i]];
        if (!bytes[i] || !m || ctx->scratch_bytes[kept_slots[i]] < bytes[i])
            continue;
        cl_int err;
        void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes[i], 0,
                                     NULL, NULL, &err);
        if (err != CL_SUCCESS)
            continue;
        advise_huge(p, bytes[i]);
        populate(p, bytes[i]);
        clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
        clFinish(q);
    }
}

static clsort_status kept_map(clsort_context *ctx, const size_t bytes[2], kept_scratch *k)
{
    clsort_status st = host_queue(ctx, &k->queue);
    for (int i = 0; i < 2 && st == CLSORT_OK; i++) {
        if (!bytes[i])
            continue;
        if ((st = clsort_scratch(ctx, kept_slots[i], bytes[i], &k->mem[i], kept_what[i])) !=
            CLSORT_OK)
            break;
        cl_int err;
        k->ptr[i] = clEnqueueMapBuffer(k->queue, k->mem[i], CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                       0, bytes[i], 0, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            k->ptr[i] = NULL;
            st = clsort_fail_cl(ctx, err, "clEnqueueMapBuffer(host-radix scratch)");
        } else if (ctx->host_unified) {
            advise_huge(k->ptr[i], bytes[i]);
        }
    }
    return st;
}

static clsort_status kept_unmap(clsort_context *ctx, kept_scratch *k, clsort_status st)
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 2; i++)
        if (k->ptr[i]) {
            const cl_int e = clEnqueueUnmapMemObject(k->queue, k->mem[i], k->ptr[i], 0, NULL, NULL);
            err = err == CL_SUCCESS ? e : err;
        }
    if (k->queue) {
        const cl_int e = clFinish(k->queue);
        err = err == CL_SUCCESS ? e : err;
        clReleaseCommandQueue(k->queue);
    }
    clsort_release_mems(k->mem, 2);
    if (st == CLSORT_OK && err != CL_SUCCESS)
        st = clsort_fail_cl(ctx, err, "unmapping the host-radix scratch");
    return st;
}

clsort_status clsort_host_radix_sort_host(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                          void *values, size_t n, const uint64_t *offsets,
                                          size_t n_seg, const clsort_host_from *from,
                                          void (*ready)(void *, size_t), void *ready_user,
                                          double *host_ms)
{
    const double t0 = clsort_now_ms();
    const size_t ks = clsort_key_size(spec->key_type), vs = spec->value_size;
    /* small arrays: one thread, one allocation for the scratch keys and values (the values' part
     * starts on a line), no OpenCL call */
    const int small = n * (ks + vs) <= CLSORT_HOST_INLINE_MAX_BYTES;
    const size_t kbytes = (n * ks + CLSORT_HOST_LINE - 1) / CLSORT_HOST_LINE * CLSORT_HOST_LINE;
    unsigned char *tmp = NULL;
    kept_scratch kept = { 0 };
    clsort_host_sort s;
    clsort_host_sort_init(&s, spec, n);
    s.data = (clsort_host_span){ keys, vs ? values : NULL };
    if (small) {
        if (!(tmp = malloc(kbytes + n * vs)))
            return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "host-radix: out of host memory for %zu bytes of scratch",
                               kbytes + n * vs);
        /* one thread: as the threaded path sorts up to CLSORT_HOST_LOCAL_MAX_BYTES */
        s.threads = 1;
        s.tmp = (clsort_host_span){ tmp, vs ? tmp + kbytes : NULL };
    } else {
        const size_t bytes[2] = { n * ks, n * vs };
        clsort_status st = kept_map(ctx, bytes, &kept);
        if (st != CLSORT_OK)
            return kept_unmap(ctx, &kept, st);
        s.threads = thread_count(ctx);
        s.tmp = (clsort_host_span){ kept.ptr[0], vs ? kept.ptr[1] : NULL };
    }
    const size_t seg_len = clsort_segment_length(spec, n);
    const int whole = !(offsets && csr(offsets, n_seg, n)) && seg_len >= n;
    if (from && from->keys != keys) {
        if (whole) { /* the first pass reads them where they are */
            s.src = (clsort_host_span){ (void *)from->keys, vs ? (void *)from->values : NULL };
        } else {
            memcpy(keys, from->keys, n * ks);
            if (vs)
                memcpy(values, from->values, n * vs);
        }
    }
    /* as run_task() does; the host entry points have checked the offsets already */
    if (offsets && csr(offsets, n_seg, n)) {
        clsort_host_sort_segments(&s, offsets, n_seg, 0);
    } else if (seg_len < n) {
        clsort_host_sort_segments(&s, NULL, 0, seg_len);
    } else {
        s.ready = ready; /* called at least once, with n */
        s.ready_user = ready_user;
        clsort_host_sort_run(&s);
        ready = NULL;
    }
    if (ready)
        ready(ready_user, n);
    free(tmp);
    const clsort_status st = small ? CLSORT_OK : kept_unmap(ctx, &kept, CLSORT_OK);
    *host_ms = clsort_now_ms() - t0;
    return st;
}
