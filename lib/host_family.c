/*
 * The host-radix family: the sort runs on the host's threads, on the job's buffers mapped on the
 * queue. The keys and values, and scratch buffers of their size, are mapped (not blocking) after
 * the chain's waits; unmaps enqueued behind a user event end the chain; a thread of the library
 * waits for the maps, sorts (host_sort.c) and completes the user event. The call returns at once,
 * as clsort_enqueue() must: its wait list may hold events that complete only after it returns. On a
 * CPU device the maps hand out the buffers' own memory, so nothing is copied; elsewhere the maps
 * copy, and the device's own algorithms are faster.
 * Calls: host_sort.c, host_radix.c, chain.c, buffers.c, status.c.
 */
#include "host_sort.h"

#include <pthread.h>
#include <stdlib.h>

#define MAX_THREADS 64

/* Data keys and values, scratch keys and values. */
enum { MAP_KEYS, MAP_VALUES, MAP_TMP_KEYS, MAP_TMP_VALUES, MAPS };

typedef struct host_task {
    clsort_host_sort sort;
    cl_mem mem[MAPS]; /* NULL where there is nothing to map (no values) */
    void *ptr[MAPS];
    cl_event mapped[MAPS];
    cl_event gate;    /* completed by the sorting thread */
} host_task;

static void task_free(host_task *t)
{
    for (int i = 0; i < MAPS; i++)
        if (t->mapped[i])
            clReleaseEvent(t->mapped[i]);
    if (t->gate)
        clReleaseEvent(t->gate);
    free(t);
}

static void *run_task(void *arg)
{
    host_task *t = arg;
    cl_int st = CL_SUCCESS;
    for (int i = 0; i < MAPS && st == CL_SUCCESS; i++)
        if (t->mapped[i])
            st = clWaitForEvents(1, &t->mapped[i]);
    if (st == CL_SUCCESS)
        clsort_host_sort_run(&t->sort);
    /* freed first: once the gate completes, the caller may end the process */
    cl_event gate = t->gate;
    t->gate = NULL;
    task_free(t);
    /* a failed map (a failed event in the caller's wait list) fails the commands after the gate */
    clSetUserEventStatus(gate, st == CL_SUCCESS ? CL_COMPLETE
                                                : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(gate);
    return NULL;
}

/* The maps, in chain order; on failure what was mapped is unmapped again. */
static clsort_status map_all(clsort_context *ctx, host_task *t, const size_t *bytes)
{
    static const cl_map_flags flags[MAPS] = { CL_MAP_READ | CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE,
                                              CL_MAP_WRITE_INVALIDATE_REGION,
                                              CL_MAP_WRITE_INVALIDATE_REGION };
    clsort_status st = CLSORT_OK;
    for (int i = 0; i < MAPS && st == CLSORT_OK; i++)
        if (t->mem[i])
            st = clsort_chain_map(ctx, t->mem[i], bytes[i], flags[i], &t->ptr[i], &t->mapped[i]);
    if (st != CLSORT_OK)
        for (int i = 0; i < MAPS; i++)
            if (t->mapped[i])
                clsort_chain_unmap(ctx, t->mem[i], t->ptr[i], NULL);
    return st;
}

static clsort_status unmap_all(clsort_context *ctx, host_task *t)
{
    clsort_status st = CLSORT_OK;
    for (int i = 0; i < MAPS; i++)
        if (t->mem[i]) {
            clsort_status u = clsort_chain_unmap(ctx, t->mem[i], t->ptr[i], t->gate);
            st = st == CLSORT_OK ? u : st;
        }
    return st;
}

/* Enqueue the maps, the gate and the unmaps, then hand the task to a thread of its own, which
 * frees it (on failure it is still the caller's). */
static clsort_status launch(clsort_context *ctx, host_task *t, const size_t *bytes)
{
    clsort_status st = map_all(ctx, t, bytes);
    if (st != CLSORT_OK)
        return st;
    cl_int err;
    t->gate = clCreateUserEvent(ctx->context, &err);
    if (err != CL_SUCCESS) {
        t->gate = NULL;
        unmap_all(ctx, t);
        return clsort_fail_cl(ctx, err, "clCreateUserEvent");
    }
    if ((st = unmap_all(ctx, t)) == CLSORT_OK)
        clFlush(ctx->queue); /* the maps run while the thread waits for them */
    t->sort.data = (clsort_host_span){ t->ptr[MAP_KEYS], t->ptr[MAP_VALUES] };
    t->sort.tmp = (clsort_host_span){ t->ptr[MAP_TMP_KEYS], t->ptr[MAP_TMP_VALUES] };
    pthread_t th;
    if (st != CLSORT_OK || pthread_create(&th, NULL, run_task, t)) {
        clSetUserEventStatus(t->gate, CL_COMPLETE); /* nothing sorted; the commands drain */
        return st != CLSORT_OK ? st
                               : clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                                             "host-radix: cannot start a thread");
    }
    pthread_detach(th);
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
        const cl_mem mem[MAPS] = { job->keys, vs ? job->values : NULL, tmp[0], tmp[1] };
        const size_t bytes[MAPS] = { n * ks, n * vs, n * ks, n * vs };
        memcpy(t->mem, mem, sizeof mem);
        clsort_host_sort_init(&t->sort, spec, n);
        t->sort.threads = thread_count(ctx);
        if ((st = launch(ctx, t, bytes)) != CLSORT_OK)
            task_free(t);
    } else if (st == CLSORT_OK && !ctx->reserving) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    /* the commands hold the scratch buffers as long as they need them */
    clsort_release_mems(tmp, 2);
    return st;
}
