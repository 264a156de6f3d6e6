/* The API around the sort: contexts, device strings, argument checks, status text, user buffers
 * with wait lists and events, borrowed queues. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>

#include <cmocka.h>

#include "clsort.h"
#include "testdata.h"

static void test_close_null(void **state)
{
    (void)state;
    clsort_close(NULL);
    clsort_context *ctx = NULL;
    clsort_close(&ctx);
    assert_null(ctx);
}

static void test_status_strings(void **state)
{
    (void)state;
    assert_string_equal(clsort_status_string(CLSORT_OK), "success");
    assert_string_equal(clsort_status_string((clsort_status)CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    assert_string_equal(clsort_status_string((clsort_status)CL_INVALID_BUILD_OPTIONS),
                        "CL_INVALID_BUILD_OPTIONS");
    assert_string_equal(clsort_status_string(CLSORT_ERROR_TOO_LARGE),
                        "input too large for the device's memory");
    assert_string_equal(clsort_status_string((clsort_status)-12345), "unknown status");
    assert_string_equal(clsort_version(), CLSORT_VERSION_STRING);
}

static void test_algorithm_names(void **state)
{
    (void)state;
    clsort_algorithm a;
    for (int i = 0; clsort_algorithm_name((clsort_algorithm)i); i++) {
        assert_int_equal(clsort_algorithm_from_name(clsort_algorithm_name((clsort_algorithm)i), &a),
                         CLSORT_OK);
        assert_int_equal(a, i);
    }
    assert_int_equal(clsort_algorithm_from_name("quick", &a), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_null(clsort_algorithm_name((clsort_algorithm)999));
}

static void test_device_strings(void **state)
{
    (void)state;
    size_t count = 0;
    assert_int_equal(clsort_list_devices(NULL, 0, &count), CLSORT_OK);
    assert_true(count >= 1);
    clsort_device_info *info = calloc(count, sizeof *info);
    assert_int_equal(clsort_list_devices(info, count, &count), CLSORT_OK);
    int defaults = 0;
    for (size_t i = 0; i < count; i++)
        defaults += info[i].is_default != 0;
    assert_int_equal(defaults, 1);

    /* Each listed id opens that device. */
    for (size_t i = 0; i < count; i++) {
        clsort_context *ctx = NULL;
        assert_int_equal(clsort_open(&ctx, info[i].id), CLSORT_OK);
        assert_non_null(strstr(clsort_device_name(ctx), info[i].name));
        clsort_close(&ctx);
        assert_null(ctx);
    }
    /* A name substring, case-insensitive, and the platform:device form. */
    char upper[128];
    snprintf(upper, sizeof upper, "%s", info[0].name);
    for (char *p = upper; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open(&ctx, upper), CLSORT_OK);
    clsort_close(&ctx);
    assert_int_equal(clsort_open(&ctx, ":0"), CLSORT_OK);
    clsort_close(&ctx);

    /* Failures: a context is never returned and the detail says why. */
    ctx = (clsort_context *)&count;
    assert_int_equal(clsort_open(&ctx, "no-such-device-xyz"), CLSORT_ERROR_NO_DEVICE);
    assert_null(ctx);
    assert_non_null(strstr(clsort_last_error_detail(), "no-such-device-xyz"));
    assert_non_null(strstr(clsort_last_error_detail(), info[0].id));
    assert_int_equal(clsort_open(&ctx, "99:0"), CLSORT_ERROR_NO_DEVICE);
    assert_int_equal(clsort_open(&ctx, "1:2:3"), CLSORT_ERROR_BAD_DEVICE_STRING);
    assert_non_null(strstr(clsort_last_error_detail(), "1:2:3"));

    setenv("CLSORT_DEVICE", "nothing-like-this", 1);
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_ERROR_NO_DEVICE);
    assert_non_null(strstr(clsort_last_error_detail(), "CLSORT_DEVICE"));
    setenv("CLSORT_DEVICE", info[0].id, 1);
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    clsort_close(&ctx);
    unsetenv("CLSORT_DEVICE");
    assert_int_equal(clsort_open(NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    free(info);
}

static int open_default(void **state)
{
    clsort_context *ctx = NULL;
    if (clsort_open(&ctx, NULL) != CLSORT_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int close_default(void **state)
{
    clsort_context *ctx = *state;
    clsort_close(&ctx);
    return 0;
}

static void test_bad_arguments(void **state)
{
    clsort_context *ctx = *state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    uint32_t k[4] = { 3, 1, 2, 0 };
    assert_int_equal(clsort_sort(NULL, &spec, k, NULL, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clsort_sort(ctx, &spec, NULL, NULL, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_error_detail(ctx), "keys"));
    spec.value_size = 4;
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    spec.value_size = 3;
    assert_int_equal(clsort_sort(ctx, &spec, k, k, 4, NULL), CLSORT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(clsort_error_detail(ctx), "value size 3"));
    clsort_spec_default(&spec);
    spec.algorithm = (clsort_algorithm)77;
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    /* Nothing was touched by the failed calls. */
    assert_int_equal(k[0], 3);
    assert_int_equal(k[3], 0);

    /* Too large for the device: the caller's buffers cannot be split, so clsort_enqueue refuses
     * before any work; clsort_sort refuses what no host could copy. */
    clsort_spec_default(&spec);
    size_t max_n = 0;
    assert_int_equal(clsort_max_keys(ctx, &spec, &max_n), CLSORT_OK);
    assert_true(max_n > 1000);
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    cl_int err;
    cl_mem small = clCreateBuffer(clctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clsort_enqueue(ctx, &spec, small, NULL, SIZE_MAX / 8, 0, NULL, NULL),
                     CLSORT_ERROR_TOO_LARGE);
    assert_non_null(strstr(clsort_error_detail(ctx), "GB"));
    clReleaseMemObject(small);
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, SIZE_MAX / 2, NULL), CLSORT_ERROR_TOO_LARGE);

    /* n = 0 and 1 are no-ops that succeed, also with NULL arrays for 0. */
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, NULL, NULL, NULL, 0, &stats), CLSORT_OK);
    assert_int_equal(stats.n, 0);
    assert_int_equal(clsort_sort(ctx, NULL, k, NULL, 1, &stats), CLSORT_OK);
    assert_int_equal(k[0], 3);
}

/* clsort_key_order() and clsort_key_orders() take a NULL spec as the defaults (u32, ascending, every
 * bit), as the sorts do, rather than reading through it. */
static void test_key_order_defaults(void **state)
{
    (void)state;
    const uint32_t keys[3] = { 7, 0xffffffffu, 0 };
    assert_int_equal(clsort_key_order(NULL, &keys[0]), 7);
    assert_int_equal(clsort_key_order(NULL, &keys[1]), 0xffffffffu);
    uint64_t out[3] = { 1, 1, 1 };
    clsort_key_orders(NULL, keys, 4, 3, out);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 0xffffffffu);
    assert_int_equal(out[2], 0);
    assert_int_equal(clsort_key_order(NULL, NULL), 0);
    clsort_key_orders(NULL, NULL, 4, 3, out); /* nothing to read: nothing written */
    assert_int_equal(out[1], 0xffffffffu);
    /* a bit range past the key's width: some order, no undefined shift */
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.begin_bit = 70;
    spec.end_bit = 90;
    (void)clsort_key_order(&spec, &keys[0]);
}

/* Device buffers smaller than n keys or values are refused before any work, the detail naming both
 * sizes (a sort past their ends crashed PoCL); the buffers are left as they were. */
static void test_enqueue_small_buffers(void **state)
{
    clsort_context *ctx = *state;
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    enum { N = 5000 };
    static uint32_t k[N], got[N];
    for (uint32_t i = 0; i < N; i++)
        k[i] = (N - i) * 2654435761u;
    cl_int err;
    cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem vb = clCreateBuffer(clctx, CL_MEM_READ_WRITE, N * 4 - 4, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem off = clCreateBuffer(clctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    const cl_ulong offsets[2] = { 0, 10 * N };
    assert_int_equal(clEnqueueWriteBuffer(q, off, CL_TRUE, 0, 16, offsets, 0, NULL, NULL), 0);
    clsort_spec spec;
    clsort_spec_default(&spec);
    char want[200];

    /* 10 N keys in a buffer of N: keys */
    snprintf(want, sizeof want, "the keys buffer holds %zu bytes; %zu keys of 4 bytes need %zu",
             sizeof k, (size_t)10 * N, (size_t)40 * N);
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, NULL, 10 * N, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);
    assert_int_equal(clsort_enqueue_segments(ctx, &spec, kb, NULL, 10 * N, off, 1, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);
    assert_int_equal(clsort_argsort_enqueue(ctx, &spec, kb, vb, 4, 10 * N, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);
    assert_int_equal(clsort_top_enqueue(ctx, &spec, kb, NULL, 10 * N, 5, vb, NULL, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);

    /* values one short */
    spec.value_size = 4;
    snprintf(want, sizeof want, "the values buffer holds %zu bytes; %zu values of 4 bytes need %zu",
             (size_t)N * 4 - 4, (size_t)N, (size_t)N * 4);
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, vb, N, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);
    spec.value_size = 0;
    snprintf(want, sizeof want, "the index buffer holds %zu bytes; %zu index of 4 bytes need %zu",
             (size_t)N * 4 - 4, (size_t)N, (size_t)N * 4);
    assert_int_equal(clsort_argsort_enqueue(ctx, &spec, kb, vb, 4, N, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);
    /* top: k results in a buffer of fewer */
    snprintf(want, sizeof want, "the out_keys buffer holds 16 bytes; 5 out_keys of 4 bytes need 20");
    assert_int_equal(clsort_top_enqueue(ctx, &spec, kb, NULL, N, 5, off, NULL, 0, NULL, NULL),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(clsort_error_detail(ctx), want);

    assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), 0);
    assert_memory_equal(got, k, sizeof k);
    /* exactly the size: sorted */
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, NULL, N, 0, NULL, NULL), CLSORT_OK);
    assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), 0);
    for (size_t i = 1; i < N; i++)
        assert_true(got[i - 1] <= got[i]);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    clReleaseMemObject(off);
}

/* The call fails with INVALID_ARGUMENT and a detail naming both roles. */
static void expect_aliased(clsort_context *ctx, clsort_status st, const char *fn, const char *a,
                           const char *b, const char *how)
{
    char want[160];
    snprintf(want, sizeof want, "%s: the %s and %s buffers %s", fn, a, b, how);
    if (st != CLSORT_ERROR_INVALID_ARGUMENT || !strstr(clsort_error_detail(ctx), want) ||
        !strstr(clsort_error_detail(ctx), "needs memory of its own"))
        fail_msg("%s with the %s and %s buffers sharing memory: status %d, detail '%s'", fn, a, b,
                 (int)st, clsort_error_detail(ctx));
}

/* A buffer that one call writes cannot also be another of its buffers: clsort_enqueue() of keys
 * and values in one buffer returned CLSORT_OK with garbage, and clsort_argsort_enqueue() of keys
 * and index in one buffer gave keys 0 1 2 3. The same cl_mem twice, sub-buffers of one buffer
 * whose bytes overlap, and CL_MEM_USE_HOST_PTR buffers over the same host memory are refused in
 * every enqueue call, before anything is enqueued; sub-buffers side by side still sort. */
static void test_enqueue_aliased(void **state)
{
    clsort_context *ctx = *state;
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    enum { N = 1024 }; /* 4096 bytes of u32 keys */
    static uint32_t k[3 * N], got[3 * N];
    for (uint32_t i = 0; i < 3 * N; i++)
        k[i] = (3 * N - i) * 2654435761u;
    cl_int err;
    cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof k, k, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem ob = clCreateBuffer(clctx, CL_MEM_READ_WRITE, 4 * N, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clsort_spec spec;
    clsort_spec_default(&spec);
    const char *same = "are the same buffer";

    spec.value_size = 4;
    expect_aliased(ctx, clsort_enqueue(ctx, &spec, kb, kb, N, 0, NULL, NULL), "clsort_enqueue",
                   "keys", "values", same);
    expect_aliased(ctx, clsort_enqueue_segments(ctx, &spec, kb, kb, N, ob, 1, 0, NULL, NULL),
                   "clsort_enqueue_segments", "keys", "values", same);
    expect_aliased(ctx, clsort_top_enqueue(ctx, &spec, kb, ob, N, 5, ob, kb, 0, NULL, NULL),
                   "clsort_top_enqueue", "keys", "out_values", same);
    expect_aliased(ctx, clsort_top_enqueue(ctx, &spec, kb, ob, N, 5, ob, kb, 0, NULL, NULL),
                   "clsort_top_enqueue", "keys", "out_values", same);
    cl_mem ok2 = clCreateBuffer(clctx, CL_MEM_READ_WRITE, 4 * N, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    expect_aliased(ctx, clsort_top_enqueue(ctx, &spec, kb, ok2, N, 5, ok2, ob, 0, NULL, NULL),
                   "clsort_top_enqueue", "values", "out_keys", same);
    expect_aliased(ctx, clsort_top_enqueue(ctx, &spec, kb, kb, N, 5, ob, ob, 0, NULL, NULL),
                   "clsort_top_enqueue", "out_keys", "out_values", same);
    spec.value_size = 0;
    expect_aliased(ctx, clsort_argsort_enqueue(ctx, &spec, kb, kb, 4, 100, 0, NULL, NULL),
                   "clsort_argsort_enqueue", "keys", "index", same);
    expect_aliased(ctx, clsort_enqueue_segments(ctx, &spec, kb, NULL, N, kb, 1, 0, NULL, NULL),
                   "clsort_enqueue_segments", "keys", "offsets", same);
    /* (top-k only reads its inputs: keys and values may share a buffer) */
    spec.value_size = 4;
    assert_int_equal(clsort_top_enqueue(ctx, &spec, kb, kb, N, 5, ob, ok2, 0, NULL, NULL),
                     CLSORT_OK);
    assert_int_equal(clFinish(q), CL_SUCCESS);
    spec.value_size = 0;

    /* Sub-buffers at origins the device's alignment allows. */
    cl_device_id dev;
    cl_uint align_bits = 0;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL), 0);
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                                     &align_bits, NULL), 0);
    if (align_bits / 8 <= 4 * N) {
        /* bytes [0, 8N), [4N, 12N) and [8N, 12N): 2N, 2N and N keys */
        const cl_buffer_region lo = { 0, 8 * N }, mid = { 4 * N, 8 * N }, hi = { 8 * N, 4 * N };
        cl_mem a = clCreateSubBuffer(kb, 0, CL_BUFFER_CREATE_TYPE_REGION, &lo, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem b = clCreateSubBuffer(kb, 0, CL_BUFFER_CREATE_TYPE_REGION, &mid, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem c = clCreateSubBuffer(kb, 0, CL_BUFFER_CREATE_TYPE_REGION, &hi, &err);
        assert_int_equal(err, CL_SUCCESS);
        const char *sub = "overlap (sub-buffers of one buffer)";
        expect_aliased(ctx, clsort_argsort_enqueue(ctx, &spec, a, b, 4, 2 * N, 0, NULL, NULL),
                       "clsort_argsort_enqueue", "keys", "index", sub);
        expect_aliased(ctx, clsort_argsort_enqueue(ctx, &spec, b, a, 4, 2 * N, 0, NULL, NULL),
                       "clsort_argsort_enqueue", "keys", "index", sub);
        spec.value_size = 4;
        expect_aliased(ctx, clsort_enqueue(ctx, &spec, a, b, 2 * N, 0, NULL, NULL),
                       "clsort_enqueue", "keys", "values", sub);
        /* the parent and a sub-buffer inside it */
        expect_aliased(ctx, clsort_enqueue(ctx, &spec, kb, b, 2 * N, 0, NULL, NULL),
                       "clsort_enqueue", "keys", "values", "overlap");
        spec.value_size = 0; /* top-k's output inside its input */
        expect_aliased(ctx, clsort_top_enqueue(ctx, &spec, kb, NULL, 3 * N, N, c, NULL, 0, NULL,
                                               NULL),
                       "clsort_top_enqueue", "keys", "out_keys", sub);
        spec.value_size = 4;
        assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), 0);
        assert_memory_equal(got, k, sizeof k); /* nothing refused touched the keys */
        /* only the bytes used count: the first N keys of a end where b starts */
        assert_int_equal(clsort_enqueue(ctx, &spec, a, b, N, 0, NULL, NULL), CLSORT_OK);
        assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), 0);
        for (uint32_t i = 0; i < N; i++) { /* keys k[0..N) sorted, their values k[N..2N) along */
            if (i)
                assert_true(got[i - 1] <= got[i]);
            assert_int_equal(got[N + i], got[i] - (uint32_t)N * 2654435761u);
        }
        assert_memory_equal(got + 2 * N, k + 2 * N, 4 * N);
        spec.value_size = 0;
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(c);
    }

    /* Two buffers over the same host memory. */
    static uint32_t host[N] __attribute__((aligned(4096)));
    cl_mem h1 = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host, host, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem h2 = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host / 2,
                               host + N / 2 - 1, &err);
    assert_int_equal(err, CL_SUCCESS);
    expect_aliased(ctx, clsort_argsort_enqueue(ctx, &spec, h1, h2, 4, N / 2, 0, NULL, NULL),
                   "clsort_argsort_enqueue", "keys", "index",
                   "overlap (CL_MEM_USE_HOST_PTR over the same host memory)");
    clReleaseMemObject(h1);
    clReleaseMemObject(h2);
    clReleaseMemObject(kb);
    clReleaseMemObject(ob);
    clReleaseMemObject(ok2);
}

/* clsort_reserve() reports what it could not do: more keys than the address space holds is an
 * error, not CLSORT_OK with a failure in the detail; and a reservation that succeeds leaves no
 * failure there (a larger allocation tried first and refused is not the call's error). */
static void test_reserve_errors(void **state)
{
    clsort_context *ctx = *state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    assert_int_equal(clsort_reserve(ctx, &spec, SIZE_MAX), CLSORT_ERROR_TOO_LARGE);
    assert_non_null(strstr(clsort_error_detail(ctx), "address space"));
    spec.value_size = 8;
    assert_int_equal(clsort_reserve(ctx, &spec, SIZE_MAX / 8), CLSORT_ERROR_TOO_LARGE);
    assert_non_null(strstr(clsort_error_detail(ctx), "12 bytes"));
    /* More keys than the device takes at once: clsort_sort() would sort them in chunks in a host
     * copy that no host holds (2^40 u32 keys: 4.4 TB; SIZE_MAX / 8: an exabyte), so reserving
     * for them is refused, naming both sizes (it returned CLSORT_OK with an empty detail), and
     * clsort_sort() refuses them the same way before it allocates or reads anything. */
    clsort_spec_default(&spec);
    static const size_t huge[] = { (size_t)1 << 40, SIZE_MAX / 8 };
    uint32_t one = 0;
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        if (clsort_reserve(ctx, &spec, huge[i]) != CLSORT_ERROR_TOO_LARGE)
            fail_msg("clsort_reserve of %zu u32 keys: not refused as too large (detail: %s)",
                     huge[i], clsort_error_detail(ctx));
        const char *d = clsort_error_detail(ctx);
        if (!strstr(d, "host copy") || !strstr(d, "physical memory") || !strstr(d, "chunks"))
            fail_msg("clsort_reserve of %zu keys: unclear detail: %s", huge[i], d);
        assert_int_equal(clsort_sort(ctx, &spec, &one, NULL, huge[i], NULL),
                         CLSORT_ERROR_TOO_LARGE);
        assert_non_null(strstr(clsort_error_detail(ctx), "physical memory"));
    }
    /* The largest single sort of the device: its buffers' slack (an eighth more) is past the
     * largest allocation, so the exact sizes are taken, with no failure left in the detail. On
     * PoCL only, whose CPU buffers take address space, not memory, until written. */
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    cl_device_id dev;
    cl_platform_id plat;
    char pname[256] = "";
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    if (!strstr(pname, "Portable Computing Language"))
        return;
    size_t max_n = 0;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_RADIX8;
    assert_int_equal(clsort_max_keys(ctx, &spec, &max_n), CLSORT_OK);
#ifdef M_PERTURB
    /* meson runs tests with MALLOC_PERTURB_, which fills each allocation: PoCL's buffers would
     * then take about 16 GB of memory rather than address space, and a shared machine's OOM
     * killer ended the test */
    mallopt(M_PERTURB, 0);
#endif
    const clsort_status st = clsort_reserve(ctx, &spec, max_n);
#ifdef M_PERTURB
    const char *perturb = getenv("MALLOC_PERTURB_");
    mallopt(M_PERTURB, perturb ? atoi(perturb) : 0);
#endif
    if (st == CLSORT_OK)
        assert_string_equal(clsort_error_detail(ctx), "");
    else
        assert_true(clsort_error_detail(ctx)[0] != '\0');
    clsort_release_scratch(ctx);
}

/* More keys than one device sort takes (forced small with CLSORT_CHUNK_KEYS): sorted in chunks and
 * merged on the host, still bit for bit the stable sort, values included, in either order. */
static void test_chunked(void **state)
{
    (void)state;
    static const size_t sizes[] = { 7001, 7002, 50000, 100003 };
    /* The library reads its environment when a context opens: a context of its own. */
    setenv("CLSORT_CHUNK_KEYS", "7001", 1);
    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int desc = 0; desc < 2; desc++) {
            const size_t n = sizes[s];
            uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *rk = malloc(n * 4), *rv = malloc(n * 4);
            test_fill_keys(k, n, DIST_ENTROPY4, n + desc);
            for (size_t i = 0; i < n; i++) {
                v[i] = (uint32_t)i;
                rk[i] = desc ? ~k[i] : k[i]; /* descending = ascending on complemented keys */
                rv[i] = (uint32_t)i;
            }
            test_reference_sort(rk, rv, n);
            for (size_t i = 0; desc && i < n; i++)
                rk[i] = ~rk[i];
            clsort_spec spec;
            clsort_spec_default(&spec);
            spec.value_size = 4;
            spec.descending = desc;
            clsort_stats stats;
            assert_int_equal(clsort_sort(ctx, &spec, k, v, n, &stats), CLSORT_OK);
            assert_int_equal(stats.n, n);
            assert_memory_equal(k, rk, n * 4);
            assert_memory_equal(v, rv, n * 4);
            free(k);
            free(v);
            free(rk);
            free(rv);
        }
    unsetenv("CLSORT_CHUNK_KEYS"); /* failures in later chunks: test_process */
    clsort_close(&ctx);
}

static void test_stats(void **state)
{
    clsort_context *ctx = *state;
    const size_t n = 50000;
    uint32_t *k = malloc(n * 4);
    test_fill_keys(k, n, DIST_UNIFORM, 3);
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, NULL, k, NULL, n, &stats), CLSORT_OK);
    assert_int_equal(stats.n, n);
    assert_non_null(stats.algorithm);
    assert_true(stats.kernel_ms > 0);
    assert_true(stats.total_ms >= stats.kernel_ms);
    assert_true(stats.gkeys_per_s > 0);
    for (size_t i = 1; i < n; i++)
        assert_true(k[i - 1] <= k[i]);
    free(k);
}

/* radix8 runs the scan strategy the device's tuning entry gives: reduce-then-scan on a device whose
 * entry does not mark look-back safe (work-groups that wait for others need forward progress), which
 * is what the CI's CPU device has; forcing either variant runs it. The entry shows in the device's
 * algorithms line: "radix8 (onesweep, ...", "radix8 (radix8-rts, ..." or, for devices of unknown
 * kind, "radix8 (onesweep on PoCL, else radix8-rts, ...". */
static void test_scan_strategy(void **state)
{
    clsort_context *ctx = *state;
    size_t count = 0;
    assert_int_equal(clsort_list_devices(NULL, 0, &count), CLSORT_OK);
    clsort_device_info *info = calloc(count, sizeof *info);
    assert_int_equal(clsort_list_devices(info, count, &count), CLSORT_OK);
    const clsort_device_info *d = NULL;
    for (size_t i = 0; i < count; i++)
        if (info[i].is_default)
            d = &info[i];
    assert_non_null(d);
    const char *want;
    if (!strncmp(d->algorithms, "radix8 (radix8-rts", 18))
        want = "radix8-rts";
    else if (!strncmp(d->algorithms, "radix8 (onesweep on PoCL", 24))
        want = strstr(d->platform, "Portable Computing Language") || strstr(d->platform, "Oclgrind")
                   ? "onesweep"
                   : "radix8-rts";
    else {
        assert_int_equal(strncmp(d->algorithms, "radix8 (onesweep,", 17), 0);
        want = "onesweep";
    }
    const size_t n = 20000;
    uint32_t *k = malloc(n * 4);
    clsort_spec spec;
    clsort_spec_default(&spec);
    const clsort_algorithm algos[] = { CLSORT_ALGO_RADIX8, CLSORT_ALGO_ONESWEEP, CLSORT_ALGO_RADIX8_RTS };
    const char *names[] = { want, "onesweep", "radix8-rts" };
    for (size_t a = 0; a < 3; a++) {
        test_fill_keys(k, n, DIST_UNIFORM, 9);
        spec.algorithm = algos[a];
        clsort_stats stats;
        assert_int_equal(clsort_sort(ctx, &spec, k, NULL, n, &stats), CLSORT_OK);
        assert_string_equal(stats.algorithm, names[a]);
        for (size_t i = 1; i < n; i++)
            assert_true(k[i - 1] <= k[i]);
    }
    free(k);
    free(info);
}

/* n keys of a distribution with their indices as values, and the reference sort of both. */
static void pairs_and_reference(uint32_t *k, uint32_t *v, uint32_t *rk, uint32_t *rv, size_t n,
                                test_dist d, uint64_t seed)
{
    test_fill_keys(k, n, d, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    memcpy(rk, k, n * 4);
    memcpy(rv, v, n * 4);
    test_reference_sort(rk, rv, n);
}

/* The buffers' n keys and values read into k and v, and compared with the reference. */
static void expect_pairs(cl_command_queue q, cl_mem kb, cl_mem vb, uint32_t *k, uint32_t *v,
                         const uint32_t *rk, const uint32_t *rv, size_t n)
{
    assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * 4, k, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(q, vb, CL_TRUE, 0, n * 4, v, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(k, rk, n * 4);
    assert_memory_equal(v, rv, n * 4);
}

/* Onesweep leaves out the passes over digit places where every key has the same digit, and the
 * result is still bit for bit the stable sort, values included. Through clsort_enqueue() the host
 * cannot see those places: the device copies the keys in their passes instead (cl/radix/base.cl's
 * ONE_DIGIT), with and without values, for 8- and 4-bit digits (radix4 copies where it looks
 * back, as on NVIDIA GPUs and under Oclgrind; on PoCL it takes reduce-then-scan and ranks them). */
static void check_skips(clsort_context *ctx, size_t n, uint32_t mask, uint32_t or_bits, unsigned want)
{
    uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *rk = malloc(n * 4), *rv = malloc(n * 4);
    uint32_t *k0 = malloc(n * 4), *v0 = malloc(n * 4);
    test_fill_keys(k0, n, DIST_UNIFORM, mask);
    for (size_t i = 0; i < n; i++) {
        k0[i] = (k0[i] & mask) | or_bits;
        v0[i] = (uint32_t)i;
    }
    memcpy(k, k0, n * 4);
    memcpy(v, v0, n * 4);
    memcpy(rk, k, n * 4);
    memcpy(rv, v, n * 4);
    test_reference_sort(rk, rv, n);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_ONESWEEP;
    spec.value_size = 4;
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, &spec, k, v, n, &stats), CLSORT_OK);
    assert_int_equal(stats.passes_skipped, want);
    assert_memory_equal(k, rk, n * 4);
    assert_memory_equal(v, rv, n * 4);
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    for (int run = 0; run < 4; run++) {
        const int pairs = !(run & 1);
        spec.algorithm = run < 2 ? CLSORT_ALGO_ONESWEEP : CLSORT_ALGO_RADIX4; /* 8- and 4-bit places */
        cl_int err;
        cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, k0, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem vb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, v0, &err);
        assert_int_equal(err, CL_SUCCESS);
        spec.value_size = pairs ? 4 : 0;
        assert_int_equal(clsort_enqueue(ctx, &spec, kb, pairs ? vb : NULL, n, 0, NULL, NULL),
                         CLSORT_OK);
        assert_int_equal(clFinish(q), CL_SUCCESS);
        if (pairs)
            expect_pairs(q, kb, vb, k, v, rk, rv, n);
        else {
            assert_int_equal(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * 4, k, 0, NULL, NULL),
                             CL_SUCCESS);
            assert_memory_equal(k, rk, n * 4);
        }
        clReleaseMemObject(kb);
        clReleaseMemObject(vb);
    }
    free(k);
    free(v);
    free(rk);
    free(rv);
    free(k0);
    free(v0);
}

static void test_skip_constant_digits(void **state)
{
    clsort_context *ctx = *state;
    check_skips(ctx, 30001, 0xffffffffu, 0, 0);          /* every place varies */
    check_skips(ctx, 30001, 0x0000ffffu, 0, 2);          /* keys below 2^16: two passes */
    check_skips(ctx, 30001, 0x00ff0000u, 0x12000034u, 3); /* one varying byte, the others fixed */
    check_skips(ctx, 30001, 0, 0xdeadbeefu, 4);          /* equal keys: the histogram only */
    check_skips(ctx, 5000, 0xff00ff00u, 0, 2);           /* two places kept, not adjacent */
    check_skips(ctx, 5000, 0xff000000u, 0, 3);           /* one pass: the result is copied back */
}

/* Sort the caller's buffers after a user event, and wait on the returned event. */
static void check_enqueue(clsort_context *ctx, cl_context clctx, cl_command_queue q, size_t n)
{
    uint32_t *k = malloc(n * 4 + 4), *v = malloc(n * 4 + 4), *ref = malloc(n * 4 + 4),
             *rv = malloc(n * 4 + 4);
    pairs_and_reference(k, v, ref, rv, n, DIST_ENTROPY4, 11);
    cl_int err;
    cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4 + 4, k, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem vb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4 + 4, v, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event gate = clCreateUserEvent(clctx, &err);
    assert_int_equal(err, CL_SUCCESS);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = 4;
    cl_event done = NULL;
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, vb, n, 1, &gate, &done), CLSORT_OK);
    assert_non_null(done);
    cl_int exec = CL_COMPLETE;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
    assert_true(exec != CL_COMPLETE); /* held back by the gate */
    clSetUserEventStatus(gate, CL_COMPLETE);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    expect_pairs(q, kb, vb, k, v, ref, rv, n);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(k);
    free(v);
    free(ref);
    free(rv);
}

/* A queue the caller made (out-of-order where the device allows it, no profiling) is borrowed. */
/* Sorts enqueued one after another without waiting share the context's kept scratch buffers, which
 * grow (a buffer still in use is replaced) and shrink back in use between them; each result must
 * still be exact. The sizes cross the kept limit so that one sort also drops every kept buffer. */
static void test_back_to_back(void **state)
{
    (void)state;
    /* MiB: the 300007-key sort does not fit in it. Read when a context opens: a context of its own. */
    setenv("CLSORT_SCRATCH_KEEP", "2", 1);
    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    static const size_t sizes[] = { 70001, 3000, 300007, 1 << 12, 65537, 9, 400009, 5003 };
    static const clsort_algorithm algos[] = { CLSORT_ALGO_RADIX8, CLSORT_ALGO_RADIX8_RTS,
                                              CLSORT_ALGO_RADIX4, CLSORT_ALGO_ONESWEEP,
                                              CLSORT_ALGO_RADIX8_RTS, CLSORT_ALGO_RADIX8,
                                              CLSORT_ALGO_HOST_RADIX, CLSORT_ALGO_HOST_RADIX };
    enum { COUNT = sizeof sizes / sizeof sizes[0] };
    uint32_t *ref[COUNT], *rv[COUNT];
    cl_mem kb[COUNT], vb[COUNT];
    cl_event done[COUNT];
    for (int i = 0; i < COUNT; i++) {
        const size_t n = sizes[i];
        uint32_t *k = malloc(n * 4), *v = malloc(n * 4);
        ref[i] = malloc(n * 4);
        rv[i] = malloc(n * 4);
        test_fill_keys(k, n, i & 1 ? DIST_UNIFORM : DIST_ENTROPY4, 100 + i);
        for (size_t j = 0; j < n; j++)
            v[j] = (uint32_t)(j * 7 + i);
        memcpy(ref[i], k, n * 4);
        memcpy(rv[i], v, n * 4);
        test_reference_sort(ref[i], rv[i], n);
        cl_int err;
        kb[i] = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, k, &err);
        assert_int_equal(err, CL_SUCCESS);
        vb[i] = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, v, &err);
        assert_int_equal(err, CL_SUCCESS);
        free(k);
        free(v);
        clsort_spec spec;
        clsort_spec_default(&spec);
        spec.algorithm = algos[i];
        spec.value_size = i == 3 ? 0 : 4;
        assert_int_equal(clsort_enqueue(ctx, &spec, kb[i], spec.value_size ? vb[i] : NULL, n, 0, NULL,
                                        &done[i]),
                         CLSORT_OK);
    }
    unsetenv("CLSORT_SCRATCH_KEEP");
    assert_int_equal(clWaitForEvents(COUNT, done), CL_SUCCESS);
    for (int i = 0; i < COUNT; i++) {
        const size_t n = sizes[i];
        uint32_t *k = malloc(n * 4), *v = malloc(n * 4);
        assert_int_equal(clEnqueueReadBuffer(q, kb[i], CL_TRUE, 0, n * 4, k, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(q, vb[i], CL_TRUE, 0, n * 4, v, 0, NULL, NULL), CL_SUCCESS);
        assert_memory_equal(k, ref[i], n * 4);
        if (i != 3)
            assert_memory_equal(v, rv[i], n * 4);
        free(k);
        free(v);
        free(ref[i]);
        free(rv[i]);
        clReleaseEvent(done[i]);
        clReleaseMemObject(kb[i]);
        clReleaseMemObject(vb[i]);
    }
    clsort_close(&ctx);
}

/* Two host-radix sorts of the same buffers in flight at once, both behind a user event the caller
 * completes after both calls returned: the second (descending) sorts the first's output, so the
 * result is the descending stable order, values included. Each sort maps the buffers only after
 * the one before has unmapped them (mapping a buffer twice at once crashed NVIDIA's driver). */
static void test_host_in_flight(void **state)
{
    clsort_context *ctx = *state;
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    const size_t n = 20011;
    uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *rk = malloc(n * 4), *rv = malloc(n * 4);
    /* reference: stable descending (the complements' stable ascending order), ties in input
     * order, as the ascending pass keeps them */
    test_fill_keys(k, n, DIST_FEW, 41);
    for (size_t j = 0; j < n; j++) {
        v[j] = rv[j] = (uint32_t)j;
        rk[j] = ~k[j];
    }
    test_reference_sort(rk, rv, n);
    for (size_t j = 0; j < n; j++)
        rk[j] = ~rk[j];
    cl_int err;
    cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, k, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem vb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, v, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event go = clCreateUserEvent(clctx, &err), done[2];
    assert_int_equal(err, CL_SUCCESS);
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_HOST_RADIX;
    spec.value_size = 4;
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, vb, n, 1, &go, &done[0]), CLSORT_OK);
    spec.descending = 1;
    assert_int_equal(clsort_enqueue(ctx, &spec, kb, vb, n, 1, &done[0], &done[1]), CLSORT_OK);
    assert_int_equal(clSetUserEventStatus(go, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(2, done), CL_SUCCESS);
    expect_pairs(q, kb, vb, k, v, rk, rv, n);
    for (int i = 0; i < 2; i++)
        clReleaseEvent(done[i]);
    clReleaseEvent(go);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(k);
    free(v);
    free(rk);
    free(rv);
}

/* Scratch persists: after clsort_reserve(), sorts of that size or smaller, through clsort_enqueue()
 * and clsort_sort(), with every algorithm that needs scratch, allocate no device buffer; a larger
 * sort grows the kept buffers once, and the same size again allocates nothing; results stay right. */
static size_t check_persist(clsort_context *ctx, const clsort_spec *spec, size_t n, uint64_t seed)
{
    cl_context clctx;
    cl_command_queue q;
    assert_int_equal(clsort_context_info(ctx, &clctx, &q), CLSORT_OK);
    uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *rk = malloc(n * 4), *rv = malloc(n * 4);
    pairs_and_reference(k, v, rk, rv, n, DIST_UNIFORM, seed);
    cl_int err;
    cl_mem kb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, k, &err);
    cl_mem vb = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, v, &err);
    unsigned long before, after;
    clsort_scratch_info(ctx, NULL, &before);
    assert_int_equal(clsort_enqueue(ctx, spec, kb, vb, n, 0, NULL, NULL), CLSORT_OK);
    clsort_scratch_info(ctx, NULL, &after);
    expect_pairs(q, kb, vb, k, v, rk, rv, n);
    pairs_and_reference(k, v, rk, rv, n, DIST_ENTROPY4, seed + 1);
    assert_int_equal(clsort_sort(ctx, spec, k, v, n, NULL), CLSORT_OK);
    assert_memory_equal(k, rk, n * 4);
    assert_memory_equal(v, rv, n * 4);
    unsigned long end;
    clsort_scratch_info(ctx, NULL, &end);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(k);
    free(v);
    free(rk);
    free(rv);
    return (after - before) + (end - after);
}

static void test_scratch_persists(void **state)
{
    clsort_context *ctx = *state;
    static const clsort_algorithm algos[] = { CLSORT_ALGO_RADIX8, CLSORT_ALGO_RADIX8_RTS,
                                              CLSORT_ALGO_RADIX4, CLSORT_ALGO_ONESWEEP,
                                              CLSORT_ALGO_HOST_RADIX };
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        clsort_spec spec;
        clsort_spec_default(&spec);
        spec.algorithm = algos[a];
        spec.value_size = 4;
        clsort_release_scratch(ctx);
        size_t kept;
        clsort_scratch_info(ctx, &kept, NULL);
        assert_int_equal(kept, 0);
        assert_int_equal(clsort_reserve(ctx, &spec, 300000), CLSORT_OK);
        clsort_scratch_info(ctx, &kept, NULL);
        assert_true(kept >= 300000 * 8); /* at least the second buffer of keys and values */
        static const size_t sizes[] = { 300000, 299999, 4099, 300000, 70001 };
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (check_persist(ctx, &spec, sizes[i], 40 + i) != 0)
                fail_msg("%s: a sort of %zu keys allocated after clsort_reserve(300000)",
                         clsort_algorithm_name(algos[a]), sizes[i]);
        /* larger: grows once, then allocates nothing */
        check_persist(ctx, &spec, 600001, 50);
        if (check_persist(ctx, &spec, 600001, 51) != 0)
            fail_msg("%s: a second sort of 600001 keys allocated again",
                     clsort_algorithm_name(algos[a]));
    }
    clsort_release_scratch(ctx);
    size_t kept;
    clsort_scratch_info(ctx, &kept, NULL);
    assert_int_equal(kept, 0);
}

/* 3000 keys of a host array sorted by radix8 through clsort_sort(), checked. */
static void sort_host_keys(clsort_context *ctx)
{
    uint32_t keys[3000];
    for (uint32_t i = 0; i < 3000; i++)
        keys[i] = (3000 - i) * 2654435761u;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_RADIX8;
    assert_int_equal(clsort_sort(ctx, &spec, keys, NULL, 3000, NULL), CLSORT_OK);
    for (uint32_t i = 1; i < 3000; i++)
        assert_true(keys[i - 1] <= keys[i]);
}

/* clsort_staging_bytes(): the pinned slots a transfer would make, 0 once the context holds them
 * and again after clsort_release_scratch(); none on a device sharing host memory unless a slot
 * size is set (CLSORT_TRANSFER_SLOT stages every transfer on any device). */
static void test_staging_bytes(void **state)
{
    clsort_context *plain = *state;
    assert_int_equal(clsort_staging_bytes(NULL, 1u << 30), 0);
    assert_int_equal(clsort_staging_bytes(plain, 0), 0);
    assert_int_equal(clsort_staging_bytes(plain, 1000), 0); /* small: plain transfers */
    setenv("CLSORT_TRANSFER_SLOT", "4000", 1);
    clsort_context *ctx = NULL;
    const clsort_status opened = clsort_open(&ctx, NULL);
    unsetenv("CLSORT_TRANSFER_SLOT");
    assert_int_equal(opened, CLSORT_OK);
    assert_int_equal(clsort_staging_bytes(ctx, 1), 8000);
    sort_host_keys(ctx); /* 12,000 bytes: through the slots */
    assert_int_equal(clsort_staging_bytes(ctx, 1), 0); /* held since that sort */
    clsort_release_scratch(ctx);
    assert_int_equal(clsort_staging_bytes(ctx, 1), 8000);
    clsort_close(&ctx);
}

/* clsort_records_host_bytes(): what clsort_sort_records() takes beyond the records, by its way:
 * the host's on a device sharing host memory (PoCL), nothing where the records are gathered on
 * the device (forced here by the setting), the positions of keys sorted on some of their bits. */
static void test_records_host_bytes(void **state)
{
    clsort_context *ctx = *state;
    clsort_spec spec;
    clsort_spec_default(&spec);
    assert_true(clsort_records_host_bytes(NULL, &spec, 1000, 16, 0, 0) == SIZE_MAX);
    assert_true(clsort_records_host_bytes(ctx, &spec, 1000, 16, 14, 0) == SIZE_MAX);
    assert_string_equal(clsort_error_detail(ctx), ""); /* the refusal keeps no detail */
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 0, 16, 0, 0), 0);
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 1000, 4, 0, 0), 0); /* in place */
    spec.begin_bit = 8;
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 1000, 4, 0, 0), 4000); /* positions */
    spec.begin_bit = 0;
    spec.key_type = CLSORT_KEY_U64;
    /* positions, then the larger of the keys and the gathered copy */
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 1000, 16, 8, 0), 4000 + 16000);
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 1000, 20, 2, 10),
                     4000 + 2 * 8000 + 8000); /* two key words and a spare one */
    spec.descending = 1; /* the order does not change the memory */
    assert_int_equal(clsort_records_host_bytes(ctx, &spec, 1000, 16, 8, 0), 4000 + 16000);
    static const clsort_setting gather[] = {{"device_gather", "1"}};
    clsort_context *dev = NULL;
    assert_int_equal(clsort_open_with_settings(&dev, NULL, gather, 1), CLSORT_OK);
    assert_int_equal(clsort_records_host_bytes(dev, &spec, 1000, 16, 8, 0), 0);
    clsort_close(&dev);
}

static void test_borrowed_queue(void **state)
{
    (void)state;
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err = clGetPlatformIDs(1, &plat, NULL);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
    cl_context clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue_properties qprops = 0;
    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL);
    cl_command_queue q = clCreateCommandQueue(
        clctx, dev, qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    assert_int_equal(err, CL_SUCCESS);

    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open_with_queue(&ctx, q), CLSORT_OK);
    check_enqueue(ctx, clctx, q, 3001);
    check_enqueue(ctx, clctx, q, 600011); /* host-radix, where auto picks it: on all threads */
    check_enqueue(ctx, clctx, q, 1);
    check_enqueue(ctx, clctx, q, 0);

    /* No profiling on this queue: kernel time is 0 and the rate comes from wall time. */
    uint32_t k[5] = { 5, 4, 3, 2, 1 };
    clsort_stats stats;
    assert_int_equal(clsort_sort(ctx, NULL, k, NULL, 5, &stats), CLSORT_OK);
    assert_int_equal(k[0], 1);
    assert_int_equal(k[4], 5);
    assert_true(stats.kernel_ms == 0.0);
    clsort_close(&ctx);
    assert_null(ctx);
    /* The queue is still ours to use and release. */
    assert_int_equal(clFinish(q), CL_SUCCESS);
    clReleaseCommandQueue(q);
    clReleaseContext(clctx);
    assert_int_equal(clsort_open_with_queue(&ctx, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
}

/* The names users type: platform aliases (pocl is "Portable Computing Language") and device types,
 * alone or as P:D. */
static void test_device_names(void **state)
{
    (void)state;
    size_t count = 0;
    assert_int_equal(clsort_list_devices(NULL, 0, &count), CLSORT_OK);
    clsort_device_info *info = calloc(count, sizeof *info);
    assert_int_equal(clsort_list_devices(info, count, &count), CLSORT_OK);
    int pocl_cpu = 0;
    for (size_t i = 0; i < count; i++)
        pocl_cpu |= strstr(info[i].platform, "Portable Computing Language") &&
                    !strcmp(info[i].type, "CPU");
    free(info);
    if (!pocl_cpu)
        skip();
    static const char *const names[] = { "pocl", "pocl:cpu", "POCL:CPU", "cpu", ":cpu", "pocl:" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        clsort_context *ctx = NULL;
        if (clsort_open(&ctx, names[i]) != CLSORT_OK)
            fail_msg("'%s' opens no device: %s", names[i], clsort_last_error_detail());
        assert_non_null(strstr(clsort_device_name(ctx), "Portable Computing Language"));
        clsort_close(&ctx);
    }
    /* A name that matches nothing: the detail lists the devices and the names accepted. */
    static const char *const none[] = { "nonsense-platform", "pocl:gpu", "nonsense:cpu" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        clsort_context *ctx = NULL;
        assert_int_equal(clsort_open(&ctx, none[i]), CLSORT_ERROR_NO_DEVICE);
        const char *d = clsort_last_error_detail();
        assert_non_null(strstr(d, none[i]));
        assert_non_null(strstr(d, "available:"));
        assert_non_null(strstr(d, "Portable Computing Language"));
        assert_non_null(strstr(d, "pocl, nvidia, amd, intel, cpu, gpu"));
    }
}

/* Is every segment of keys (with values holding the input index) in order, and stable: equal keys
 * (in the order bits of [0, end_bit)) keep their input order? */
static int segments_stable(const uint32_t *k, const uint32_t *v, size_t n, size_t seg, int desc,
                           unsigned end_bit)
{
    const uint32_t mask = end_bit >= 32 ? 0xffffffffu : (1u << end_bit) - 1;
    for (size_t i = 1; i < n; i++) {
        if (i % seg == 0)
            continue;
        const uint32_t a = k[i - 1] & mask, b = k[i] & mask;
        if (desc ? a < b : a > b)
            return 0;
        if (a == b && v[i - 1] >= v[i])
            return 0;
    }
    return 1;
}

/* auto is stable wherever stability can be seen: segments with values, or keys compared on part of
 * their bits, sort stably in both orders (it took bitonic for segments of up to 32768 keys). */
static void test_auto_stable_segments(void **state)
{
    clsort_context *ctx = *state;
    enum { n = 20000 };
    static uint32_t k[n], v[n];
    static const size_t segments[] = { 1000, 4096 };
    for (int desc = 0; desc < 2; desc++) {
        for (size_t s = 0; s < sizeof segments / sizeof segments[0]; s++) {
            for (int with_values = 1; with_values >= 0; with_values--) {
                clsort_spec spec;
                clsort_spec_default(&spec);
                spec.segment = segments[s];
                spec.descending = desc;
                spec.value_size = with_values ? 4 : 0;
                spec.end_bit = with_values ? 0 : 4; /* keys only: stability shows in bits 4.. */
                for (uint32_t i = 0; i < n; i++) {
                    /* many equal keys; keys only: the index in the bits above the range */
                    const uint32_t key = (i * 2654435761u) >> 28;
                    k[i] = with_values ? key : key | i << 4;
                    v[i] = i;
                }
                assert_int_equal(clsort_sort(ctx, &spec, k, with_values ? v : NULL, n, NULL),
                                 CLSORT_OK);
                if (!with_values)
                    for (uint32_t i = 0; i < n; i++)
                        v[i] = k[i] >> 4;
                if (!segments_stable(k, v, n, segments[s], desc, with_values ? 32 : 4))
                    fail_msg("auto, segments of %zu, %s, %s: not stably sorted", segments[s],
                             desc ? "descending" : "ascending",
                             with_values ? "values" : "keys in bits [0, 4)");
            }
            /* an argsort's positions are values: auto takes a stable algorithm for them, though
             * for these keys alone it may take bitonic */
            clsort_spec spec;
            clsort_spec_default(&spec);
            spec.segment = segments[s];
            spec.descending = desc;
            for (uint32_t i = 0; i < n; i++)
                k[i] = (i * 2654435761u) >> 28;
            assert_int_equal(clsort_argsort(ctx, &spec, k, v, 4, n, NULL), CLSORT_OK);
            if (!segments_stable(k, v, n, segments[s], desc, 32))
                fail_msg("auto, argsort in segments of %zu, %s: positions not stable", segments[s],
                         desc ? "descending" : "ascending");
        }
    }
}

/* Open with one variable set: the status, and the detail when the open failed. */
static clsort_status open_with(const char *name, const char *value, char *detail, size_t size)
{
    setenv(name, value, 1);
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    unsetenv(name); /* before any assertion, which would leave the function */
    snprintf(detail, size, "%s", st == CLSORT_OK ? "" : clsort_last_error_detail());
    if (st == CLSORT_OK)
        sort_host_keys(ctx); /* a sort works with what was accepted */
    clsort_close(&ctx);
    return st;
}

/* Values of CLSORT_* variables that do not parse are errors naming the variable, not defaults. */
static void test_invalid_environment(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "CLSORT_SORT_TUNING", "abc" },      { "CLSORT_SORT_TUNING", "256x3" },
        { "CLSORT_SORT_TUNING", "256x8x7" },  { "CLSORT_SORT_TUNING", "256x8junk" },
        { "CLSORT_SCRATCH_KEEP", "lots" },    { "CLSORT_CHUNK_KEYS", "-5" },
        { "CLSORT_RADIX8_WG", "0" },          { "CLSORT_RADIX8_ITEMS", "12abc" },
        { "CLSORT_RADIX8_MATCH", "4" },       { "CLSORT_RADIX8_LB_AT", "x" },
        { "CLSORT_RADIX8_SERIAL", "-1" },     { "CLSORT_BITONIC_WIDE", "wide" },
        { "CLSORT_BITONIC_CARRY", "yes" },    { "CLSORT_FAULT_ALLOC", "1e3" },
        { "CLSORT_RADIX8_KV", "on" },         { "CLSORT_SEG_BITONIC_MAX", "-1" },
        { "CLSORT_RADIX8_PORTION_TILES", "99999999999999999999" },
        { "CLSORT_SEG_SHORT_TUNING", "128" }, { "CLSORT_SEG_SHORT_TUNING", "128x16x4" },
    };
    char detail[2048], want[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(open_with(bad[i][0], bad[i][1], detail, sizeof detail),
                         CLSORT_ERROR_INVALID_ARGUMENT);
        snprintf(want, sizeof want, "%s='%s': expected ", bad[i][0], bad[i][1]);
        if (!strstr(detail, want))
            fail_msg("%s: detail '%s' lacks \"%s\"", bad[i][0], detail, want);
    }
    /* Values the tests and tuning runs use are still accepted. */
    static const char *const good[][2] = {
        { "CLSORT_SORT_TUNING", "64x8" },  { "CLSORT_SORT_TUNING", "64x8x4" },
        { "CLSORT_SCRATCH_KEEP", "0" },    { "CLSORT_CHUNK_KEYS", "1000" },
        { "CLSORT_RADIX8_SERIAL", "0" },   { "CLSORT_RADIX8_KV", "1" },
        { "CLSORT_BITONIC_WIDE", "0" },    { "CLSORT_BITONIC_CARRY", "0" },
        { "CLSORT_RADIX8_LB_AT", "2" },    { "CLSORT_SORT_TUNING", "" },
        { "CLSORT_SEG_BITONIC_MAX", "0" }, { "CLSORT_SEG_SHORT_TUNING", "0" },
        { "CLSORT_SEG_SHORT_TUNING", "128x16" }, { "CLSORT_RADIX8_MATCH", "3" },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (open_with(good[i][0], good[i][1], detail, sizeof detail) != CLSORT_OK)
            fail_msg("%s='%s' refused: %s", good[i][0], good[i][1], detail);
}

/* CLSORT_BUILD_OPTIONS cannot change the library's own macros (wrong orders, lost keys, heap
 * corruption before); compiler options still pass. */
static void test_build_options(void **state)
{
    (void)state;
    static const char *const bad[] = { "-DITEMS=1", "-DDESCENDING=1", "-DKEY_BITS=64",
                                       "-w -D KEY_KIND=2", "-UDESCENDING", "-include /dev/null",
                                       "-I/tmp" };
    char detail[2048];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(open_with("CLSORT_BUILD_OPTIONS", bad[i], detail, sizeof detail),
                         CLSORT_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(detail, "CLSORT_BUILD_OPTIONS"));
        assert_non_null(strstr(detail, bad[i] + (bad[i][1] == 'w' ? 3 : 0)));
        assert_non_null(strstr(detail, "accepted"));
    }
    assert_int_equal(open_with("CLSORT_BUILD_OPTIONS", "-w", detail, sizeof detail), CLSORT_OK);
}

/* Every macro the library's option builder passes to a build (lib/runtime/options.c, CLSORT_OPT_MACROS),
 * and those the kernels take defaults for that the library's shapes rely on, is refused in every
 * spelling: -DNAME=V, -DNAME, -D NAME=V, -UNAME. (-DVW=0 once changed pairs sorted by radix8 with
 * exit 0 and -DKW=2 crashed: such names were missing from a list kept apart from the builder.) WG
 * stays open (the kernels refuse a WG other than the launched one), and so do the tests' hooks and
 * kernel forms that sort alike. */
static void test_build_options_every_macro(void **state)
{
    (void)state;
    static const char *const names[] = {
        "BITONIC_MAX", "CARRY", "DESCENDING", "DIGIT_BITS", "F", "GF", "HAS_VALUES", "HIST_COPIES",
        "HIST_LOADS", "HYBRID", "INDEX_T", "ITEMS", "KEY_BITS", "KEY_KIND", "KEY_RANGE_MASK",
        "KEY_SIZE", "KS", "KV_TOGETHER", "KW", "LB_AT", "LB_WIN", "LIB_WG", "LOOKBACK",
        "MATCH_ANY", "MATCH_OR", "MATCH_SPLIT", "MATCH_TOP", "OFF", "PLACES", "POS64", "RADIX",
        "RANGE_BEGIN", "REC_T", "RS", "RW", "SERIAL", "USE_PTX", "VALUE_T", "VARSEG", "VW",
        "WG_ANY", "WHOLE", "WIDE", "WORD", "WORDS", "PACK_RANKS", "RANK_PAD", "SEG_PAD", "SEG_WARP",
    };
    static const char *const forms[] = { "-D%s=0", "-D%s", "-w -D %s=2", "-U%s", "-D%s(x)=x",
                                         "--define-macro=%s=1", "--define-macro %s",
                                         "--undefine-macro=%s" };
    char opt[64], detail[2048], want[96];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            snprintf(opt, sizeof opt, forms[f], names[i]);
            if (open_with("CLSORT_BUILD_OPTIONS", opt, detail, sizeof detail) !=
                CLSORT_ERROR_INVALID_ARGUMENT)
                fail_msg("CLSORT_BUILD_OPTIONS='%s' accepted", opt);
            snprintf(want, sizeof want, "changes %s, a macro the library sets", names[i]);
            if (!strstr(detail, "CLSORT_BUILD_OPTIONS") || !strstr(detail, want) ||
                !strstr(detail, "accepted"))
                fail_msg("CLSORT_BUILD_OPTIONS='%s': unclear detail: %s", opt, detail);
        }
    /* Spellings the compiler front end reads as one of those names: quotes it strips (-D"VW"=0
     * sorted pairs wrong with exit 0, -D"KW"=2 crashed), separators other than blanks (\v, \f, \r
     * escaped a check that split at space, tab and newline only), -D=NAME (PoCL defines NAME), and
     * a name followed by what ends an identifier. */
    static const char *const spelt[] = {
        "-D\"VW\"=0", "-D\"KW\"=2", "-D'VW'=0", "-DV\"W\"=0", "-D\\VW=0", "-D V\\W=0",
        "-w\v-DVW=0", "-w\f-DVW=0", "-w\r-DVW=0", "-w\v-D\vKW=2", "-D\fVW", "-D=VW", "-D=KW=2",
        "-D =VW", "-D= VW", "-U=VW", "-DVW;", "-DVW,KW", "-DVW#", "-D  VW",
        "--define-macro\vVW=0", "-DX=\"a b\"", "-DX='1'",
        "@/dev/null", "-Xclang -DVW=0", "-Xpreprocessor -DVW=0", "-Wp,-DVW=0", "-imacros /dev/null",
        "--include-directory=/tmp", "--include=/dev/null", "--imacros=/dev/null",
    };
    for (size_t i = 0; i < sizeof spelt / sizeof spelt[0]; i++) {
        if (open_with("CLSORT_BUILD_OPTIONS", spelt[i], detail, sizeof detail) !=
            CLSORT_ERROR_INVALID_ARGUMENT)
            fail_msg("CLSORT_BUILD_OPTIONS='%s' accepted", spelt[i]);
        const int quoted = strpbrk(spelt[i], "'\"\\") != NULL;
        if (!strstr(detail, "CLSORT_BUILD_OPTIONS") || !strstr(detail, "accepted") ||
            (quoted && !strstr(detail, "quotes and backslashes are never needed")) ||
            (!quoted && !strstr(detail, "is refused") && !strstr(detail, "a macro the library sets")))
            fail_msg("CLSORT_BUILD_OPTIONS='%s': unclear detail: %s", spelt[i], detail);
    }
    /* (names that only start like one of the library's are not its) */
    static const char *const good[] = { "-DSTALL_TILE=1", "-DONE_DIGIT_COPY=0",
                                        "-DVW2=1 -DKWX -D F_=1", "-D=VW2" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (open_with("CLSORT_BUILD_OPTIONS", good[i], detail, sizeof detail) != CLSORT_OK)
            fail_msg("CLSORT_BUILD_OPTIONS='%s' refused: %s", good[i], detail);
    /* (any white space separates words: not refused, though PoCL's own parser refuses \v) */
    setenv("CLSORT_BUILD_OPTIONS", "-w\v-DVW2=1\f-cl-mad-enable\r", 1);
    clsort_context *ctx = NULL;
    const clsort_status st = clsort_open(&ctx, NULL);
    unsetenv("CLSORT_BUILD_OPTIONS");
    clsort_close(&ctx);
    if (st != CLSORT_OK)
        fail_msg("CLSORT_BUILD_OPTIONS with \\v, \\f and \\r refused: %s", clsort_last_error_detail());
}

/* Open with settings given: the status, the detail when the open failed, the cache's state when it
 * opened (the context is closed again). */
static clsort_status open_given(const clsort_setting *settings, size_t count, char *detail,
                                size_t size, char *cache, size_t cache_size)
{
    clsort_context *ctx = (clsort_context *)&count; /* set to NULL on failure */
    const clsort_status st = clsort_open_with_settings(&ctx, NULL, settings, count);
    snprintf(detail, size, "%s", st == CLSORT_OK ? "" : clsort_last_error_detail());
    snprintf(cache, cache_size, "%s", st == CLSORT_OK ? clsort_cache_info(ctx) : "(no context)");
    if (st != CLSORT_OK && ctx)
        snprintf(detail, size, "a failed open returned a context");
    clsort_close(&ctx);
    return st;
}

/* Settings given at open take effect and win over the environment, also with an empty value (the
 * default then); the environment fills in the settings not given. */
static void test_settings_given(void **state)
{
    (void)state;
    const char *env_dir = getenv("CLSORT_CACHE_DIR"); /* the tests' own cache */
    assert_non_null(env_dir);
    char given_dir[2048], detail[2048], cache[5][4096];
    snprintf(given_dir, sizeof given_dir, "%s/given-setting", env_dir);

    /* cache_dir names the cache in place of $CLSORT_CACHE_DIR */
    const clsort_setting dir[] = { { "cache_dir", given_dir } };
    assert_int_equal(open_given(dir, 1, detail, sizeof detail, cache[0], sizeof cache[0]), CLSORT_OK);
    assert_string_equal(cache[0], given_dir);

    /* no_cache: given 1 turns the cache off; given 0, or empty, keeps it on under
     * CLSORT_NO_CACHE=1, which still turns it off for a plain open */
    const clsort_setting off[] = { { "no_cache", "1" } }, on[] = { { "no_cache", "0" } },
                         dflt[] = { { "no_cache", "" } };
    clsort_status st[5];
    st[0] = open_given(off, 1, detail, sizeof detail, cache[0], sizeof cache[0]);
    setenv("CLSORT_NO_CACHE", "1", 1);
    st[1] = open_given(on, 1, detail, sizeof detail, cache[1], sizeof cache[1]);
    st[2] = open_given(dflt, 1, detail, sizeof detail, cache[2], sizeof cache[2]);
    st[3] = open_given(NULL, 0, detail, sizeof detail, cache[3], sizeof cache[3]);
    unsetenv("CLSORT_NO_CACHE"); /* before any assertion, which would leave the function */
    for (int i = 0; i < 4; i++)
        assert_int_equal(st[i], CLSORT_OK);
    assert_string_equal(cache[0], "off: setting no_cache");
    assert_string_equal(cache[1], env_dir); /* cache_dir not given: the environment's */
    assert_string_equal(cache[2], env_dir);
    assert_string_equal(cache[3], "off: CLSORT_NO_CACHE");

    /* A value given is read in place of its variable: an invalid CLSORT_STAGE_BYTES refuses a plain
     * open, not one that gives stage_bytes; the context sorts. */
    const clsort_setting stage[] = { { "stage_bytes", "1048576" }, { "staging", "host" } };
    setenv("CLSORT_STAGE_BYTES", "lots", 1);
    clsort_context *ctx = NULL;
    st[0] = clsort_open_with_settings(&ctx, NULL, stage, 2);
    st[1] = open_given(NULL, 0, detail, sizeof detail, cache[0], sizeof cache[0]);
    unsetenv("CLSORT_STAGE_BYTES");
    assert_int_equal(st[0], CLSORT_OK);
    sort_host_keys(ctx);
    clsort_close(&ctx);
    assert_int_equal(st[1], CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(detail, "CLSORT_STAGE_BYTES='lots': expected "));

    /* device: taken when the argument is NULL, in place of $CLSORT_DEVICE; the argument wins */
    const clsort_setting first[] = { { "device", ":0" } }, none[] = { { "device", "no-such-xyz" } };
    setenv("CLSORT_DEVICE", "nothing-like-this", 1);
    st[0] = open_given(first, 1, detail, sizeof detail, cache[0], sizeof cache[0]);
    unsetenv("CLSORT_DEVICE");
    assert_int_equal(st[0], CLSORT_OK);
    assert_int_equal(open_given(none, 1, detail, sizeof detail, cache[0], sizeof cache[0]),
                     CLSORT_ERROR_NO_DEVICE);
    assert_non_null(strstr(detail, "setting device"));
    assert_non_null(strstr(detail, "no-such-xyz"));
    assert_int_equal(clsort_open_with_settings(&ctx, ":0", none, 1), CLSORT_OK);
    clsort_close(&ctx);
}

/* An unknown name, a test hook's name, a name given twice, a NULL name or value, a list that is
 * NULL, and a value that does not parse are refused with a detail that names the setting. */
static void test_settings_refused(void **state)
{
    (void)state;
    static const struct {
        clsort_setting s[2];
        size_t count;
        const char *want;
    } bad[] = {
        { { { "stage_byte", "1" } }, 1, "unknown setting 'stage_byte'; known: device, no_cache," },
        { { { "STAGE_BYTES", "1" } }, 1, "unknown setting 'STAGE_BYTES'" },
        { { { "CLSORT_STAGE_BYTES", "1" } }, 1, "unknown setting 'CLSORT_STAGE_BYTES'" },
        { { { "stage_bytes", "12x" } }, 1, "setting stage_bytes='12x': expected a whole number" },
        { { { "scratch_keep", "-1" } }, 1, "setting scratch_keep='-1': expected a whole number" },
        { { { "staging", "fast" } }, 1, "setting staging='fast': expected pinned, use or host" },
        { { { "sort_tuning", "256x3" } }, 1, "setting sort_tuning='256x3': expected WGxITEMS" },
        { { { "radix8_kv", "on" } }, 1, "setting radix8_kv='on': expected a whole number from 0 to 1" },
        { { { "build_options", "-DITEMS=1" } }, 1, "setting build_options='-DITEMS=1': " },
        { { { "fault_alloc", "1" } }, 1, "'fault_alloc' is a test hook" },
        { { { "chunk_keys", "100" } }, 1, "'chunk_keys' is a test hook" },
        { { { "no_cache", "1" }, { "no_cache", "0" } }, 2,
          "setting no_cache is given twice: settings[0] and [1]" },
        { { { "no_cache", NULL } }, 1, "setting no_cache (settings[0]): the value is NULL" },
        { { { "no_cache", "1" }, { NULL, "1" } }, 2, "settings[1]: the name is NULL" },
    };
    char detail[2048], cache[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const clsort_status st =
            open_given(bad[i].s, bad[i].count, detail, sizeof detail, cache, sizeof cache);
        if (st != CLSORT_ERROR_INVALID_ARGUMENT || !strstr(detail, bad[i].want))
            fail_msg("case %zu: %s, detail '%s' lacks \"%s\"", i, clsort_status_string(st), detail,
                     bad[i].want);
    }
    /* the value's error is the same as the variable's, by the same parser */
    setenv("CLSORT_STAGE_BYTES", "12x", 1);
    const clsort_status env_st = open_given(NULL, 0, detail, sizeof detail, cache, sizeof cache);
    unsetenv("CLSORT_STAGE_BYTES");
    assert_int_equal(env_st, CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(detail, "CLSORT_STAGE_BYTES='12x': expected a whole number from 16 to"));

    clsort_context *ctx = (clsort_context *)detail;
    assert_int_equal(clsort_open_with_settings(&ctx, NULL, NULL, 2), CLSORT_ERROR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_non_null(strstr(clsort_last_error_detail(), "clsort_open_with_settings: settings is NULL"));
    assert_int_equal(clsort_open_with_settings(NULL, NULL, NULL, 0), CLSORT_ERROR_INVALID_ARGUMENT);
}

/* The first device's context and an in-order queue of the caller's. */
static void make_queue(cl_context *clctx, cl_command_queue *q)
{
    cl_platform_id plat;
    cl_device_id dev;
    assert_int_equal(clGetPlatformIDs(1, &plat, NULL), CL_SUCCESS);
    assert_int_equal(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
    cl_int err;
    *clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    *q = clCreateCommandQueue(*clctx, dev, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
}

/* A borrowed queue takes settings too, all but device (the queue's device is the context's). */
static void test_settings_borrowed_queue(void **state)
{
    (void)state;
    const char *env_dir = getenv("CLSORT_CACHE_DIR"); /* the tests' own cache */
    assert_non_null(env_dir);
    cl_context clctx;
    cl_command_queue q;
    make_queue(&clctx, &q);
    clsort_context *ctx = NULL;
    const clsort_setting off[] = { { "no_cache", "1" }, { "stage_bytes", "65536" } };
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, off, 2), CLSORT_OK);
    assert_string_equal(clsort_cache_info(ctx), "off: setting no_cache");
    clsort_close(&ctx);
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, NULL, 0), CLSORT_OK);
    assert_string_equal(clsort_cache_info(ctx), env_dir);
    clsort_close(&ctx);

    const clsort_setting device[] = { { "device", ":0" } }, bad[] = { { "stage_bytes", "x" } },
                         unknown[] = { { "cache", "/tmp" } };
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, device, 1),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_last_error_detail(), "setting device (settings[0]): a context "
                                                       "on a borrowed queue has the queue's device"));
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, bad, 1),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_last_error_detail(), "setting stage_bytes='x': expected"));
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, unknown, 1),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clsort_last_error_detail(), "unknown setting 'cache'"));
    assert_null(ctx);
    assert_int_equal(clsort_open_with_queue_and_settings(&ctx, q, NULL, 1),
                     CLSORT_ERROR_INVALID_ARGUMENT);
    clReleaseCommandQueue(q);
    clReleaseContext(clctx);
}

/* No settings is clsort_open(): the same device, cache and refusals. */
static void test_settings_none(void **state)
{
    (void)state;
    clsort_context *a = NULL, *b = NULL;
    assert_int_equal(clsort_open(&a, NULL), CLSORT_OK);
    assert_int_equal(clsort_open_with_settings(&b, NULL, NULL, 0), CLSORT_OK);
    assert_string_equal(clsort_device_name(a), clsort_device_name(b));
    assert_string_equal(clsort_cache_info(a), clsort_cache_info(b));
    sort_host_keys(b);
    clsort_close(&a);
    clsort_close(&b);
    char detail[2][2048];
    setenv("CLSORT_SORT_TUNING", "abc", 1);
    const clsort_status st0 = clsort_open(&a, NULL);
    snprintf(detail[0], sizeof detail[0], "%s", clsort_last_error_detail());
    const clsort_status st1 = clsort_open_with_settings(&b, NULL, NULL, 0);
    snprintf(detail[1], sizeof detail[1], "%s", clsort_last_error_detail());
    unsetenv("CLSORT_SORT_TUNING");
    assert_int_equal(st0, CLSORT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(st1, CLSORT_ERROR_INVALID_ARGUMENT);
    assert_string_equal(detail[0], detail[1]);
}

/* clsort_setting_names() lists each setting clsort.h documents once, and no test hook; every one is
 * taken with an empty value (its default). */
static void test_setting_names(void **state)
{
    (void)state;
    static const char *const documented[] = {
        "device", "no_cache", "cache_dir", "build_options", "scratch_keep", "stage_bytes",
        "staging", "device_merge", "device_gather", "profile", "radix8_profile", "sort_tuning",
        "seg_short_tuning", "bitonic_wide", "bitonic_carry", "seg_bitonic_max", "single_tile_max",
        "radix8_wg", "radix8_items", "radix8_ptx", "radix8_match", "radix8_match_split",
        "radix8_lb_at", "radix8_lb_win", "radix8_hist_per_cu", "radix8_kv", "radix8_serial",
        "hybrid_wave_keys", "hybrid_lag", "hybrid_min_n",
    };
    enum { n_doc = sizeof documented / sizeof documented[0] };
    const char *const *names = clsort_setting_names();
    assert_non_null(names);
    size_t n = 0;
    while (names[n])
        n++;
    assert_int_equal(n, n_doc);
    for (size_t d = 0; d < n_doc; d++) {
        int seen = 0;
        for (size_t i = 0; i < n; i++)
            seen += !strcmp(names[i], documented[d]);
        if (seen != 1)
            fail_msg("%s is listed %d times", documented[d], seen);
    }
    clsort_setting all[n_doc];
    for (size_t i = 0; i < n; i++)
        all[i] = (clsort_setting){ names[i], "" };
    clsort_context *ctx = NULL;
    if (clsort_open_with_settings(&ctx, NULL, all, n) != CLSORT_OK)
        fail_msg("every setting with an empty value refused: %s", clsort_last_error_detail());
    sort_host_keys(ctx);
    clsort_close(&ctx);
}

int main(void)
{
    const struct CMUnitTest plain[] = {
        cmocka_unit_test(test_close_null),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_algorithm_names),
        cmocka_unit_test(test_device_strings),
        cmocka_unit_test(test_device_names),
        cmocka_unit_test(test_borrowed_queue),
        cmocka_unit_test(test_invalid_environment),
        cmocka_unit_test(test_build_options),
        cmocka_unit_test(test_build_options_every_macro),
        cmocka_unit_test(test_settings_given),
        cmocka_unit_test(test_settings_refused),
        cmocka_unit_test(test_settings_borrowed_queue),
        cmocka_unit_test(test_settings_none),
        cmocka_unit_test(test_setting_names),
    };
    const struct CMUnitTest with_ctx[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_skip_constant_digits),
        cmocka_unit_test(test_scan_strategy),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_host_in_flight),
        cmocka_unit_test(test_scratch_persists),
        cmocka_unit_test(test_staging_bytes),
        cmocka_unit_test(test_records_host_bytes),
        cmocka_unit_test(test_auto_stable_segments),
        cmocka_unit_test(test_key_order_defaults),
        cmocka_unit_test(test_enqueue_small_buffers),
        cmocka_unit_test(test_reserve_errors),
        cmocka_unit_test(test_enqueue_aliased),
    };
    int failed = cmocka_run_group_tests_name("api", plain, NULL, NULL);
    failed += cmocka_run_group_tests_name("api-context", with_ctx, open_default, close_default);
    return failed;
}
