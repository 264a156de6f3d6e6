/*
 * Scenarios that need a fresh process each: the on-disk program cache (a second process builds
 * nothing, a corrupt entry is rebuilt, CLSORT_NO_CACHE turns it off, bad build options give a clear
 * build error) and injected device allocation failures (a clear error, the caller's data untouched).
 * The parent never touches OpenCL; each scenario runs `test_process child ALGO` with its own
 * environment.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "clsort.h"

static const char *self;
static char dir[256];

#define CHILD_N 3000

/* Child: sort CHILD_N pairs with an algorithm, print
 * "status built cached sorted untouched detail-first-line": sorted when the result is right,
 * untouched when the arrays are exactly as they were given. */
static int child(const char *algo_name)
{
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.value_size = 4;
    if (clsort_algorithm_from_name(algo_name, &spec.algorithm) != CLSORT_OK)
        return 2;
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        printf("%d 0 0 0 0 open\n", (int)st);
        return 0;
    }
    static uint32_t k[CHILD_N], v[CHILD_N];
    for (uint32_t i = 0; i < CHILD_N; i++) {
        k[i] = (CHILD_N - 1 - i) * 2654435761u;
        v[i] = i;
    }
    clsort_stats stats = { 0 };
    st = clsort_sort(ctx, &spec, k, v, CHILD_N, &stats);
    int sorted = st == CLSORT_OK, untouched = 1;
    for (uint32_t i = 0; i < CHILD_N; i++) {
        if (i && k[i - 1] > k[i])
            sorted = 0;
        if (v[i] >= CHILD_N || k[i] != (CHILD_N - 1 - v[i]) * 2654435761u)
            sorted = 0; /* every key still has its value */
        if (k[i] != (CHILD_N - 1 - i) * 2654435761u || v[i] != i)
            untouched = 0;
    }
    char first[1000];
    snprintf(first, sizeof first, "%s", clsort_error_detail(ctx));
    first[strcspn(first, "\n")] = '\0';
    printf("%d %u %u %d %d %s\n", (int)st, stats.programs_built, stats.programs_cached, sorted,
           untouched, first);
    clsort_close(&ctx);
    return 0;
}

typedef struct result {
    int status;
    unsigned built, cached;
    int ok, untouched;
    char detail[1000];
} result;

static result run_child_algo(const char *env, const char *algo)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "env CLSORT_CACHE_DIR='%s' %s '%s' child %s", dir, env, self, algo);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    result r = { 0 };
    assert_true(fscanf(p, "%d %u %u %d %d %999[^\n]", &r.status, &r.built, &r.cached, &r.ok,
                       &r.untouched, r.detail) >= 5);
    assert_int_equal(pclose(p), 0);
    return r;
}

/* The cache scenarios need kernels: radix8 builds them on every device (auto may sort on the host) */
static result run_child(const char *env)
{
    return run_child_algo(env, "radix8");
}

static int count_entries(int corrupt)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        if (corrupt) {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            FILE *f = fopen(path, "r+b");
            assert_non_null(f);
            fseek(f, 40, SEEK_SET);
            fputs("garbage in the middle of a cached binary", f);
            fclose(f);
        }
    }
    closedir(d);
    return n;
}

static void test_second_process_builds_nothing(void **state)
{
    (void)state;
    result a = run_child("");
    assert_int_equal(a.status, 0);
    assert_true(a.ok);
    assert_true(a.built > 0);
    assert_int_equal(a.cached, 0);
    int entries = count_entries(0);
    assert_int_equal(entries, (int)a.built);

    result b = run_child("");
    assert_int_equal(b.status, 0);
    assert_true(b.ok);
    assert_int_equal(b.built, 0);
    assert_int_equal(b.cached, a.built);

    /* Damaged entries are detected and rebuilt, never trusted. */
    count_entries(1);
    result c = run_child("");
    assert_int_equal(c.status, 0);
    assert_true(c.ok);
    assert_int_equal(c.built, a.built);

    result d = run_child("");
    assert_int_equal(d.built, 0);
    assert_true(d.ok);
}

static void test_no_cache(void **state)
{
    (void)state;
    char saved[sizeof dir];
    memcpy(saved, dir, sizeof dir);
    strcat(dir, "-off"); /* dir holds a short /tmp path: room to spare */
    result a = run_child("CLSORT_NO_CACHE=1");
    result b = run_child("CLSORT_NO_CACHE=1");
    assert_true(a.ok && b.ok);
    assert_true(a.built > 0);
    assert_int_equal(b.built, a.built);
    assert_int_equal(count_entries(0), 0);
    memcpy(dir, saved, sizeof dir);
}

static void test_bad_build_options(void **state)
{
    (void)state;
    result a = run_child("CLSORT_NO_CACHE=1 CLSORT_BUILD_OPTIONS='-DWG=3'");
    assert_int_equal(a.status, CLSORT_ERROR_BUILD_FAILED);
    assert_false(a.ok);
    assert_non_null(strstr(a.detail, "building the"));
    assert_non_null(strstr(a.detail, "-DWG=3"));
}

/* Fail each device allocation of a sort in turn: every one gives the OpenCL error with a detail that
 * names the allocation, and leaves the caller's arrays as they were; past the last, sorts succeed. */
static void check_alloc_faults(const char *algo, const char *extra_env)
{
    int failures = 0, successes = 0;
    for (int k = 1; k <= 60 && successes < 2; k++) {
        char env[128];
        snprintf(env, sizeof env, "%s CLSORT_FAULT_ALLOC=%d", extra_env, k);
        result r = run_child_algo(env, algo);
        if (r.status == CLSORT_OK) {
            assert_true(r.ok);
            successes++;
            continue;
        }
        if (successes)
            fail_msg("%s: allocation %d failed after a later one succeeded", algo, k);
        assert_int_equal(r.status, CL_MEM_OBJECT_ALLOCATION_FAILURE);
        assert_true(r.untouched);
        assert_non_null(strstr(r.detail, "allocating"));
        failures++;
    }
    assert_int_equal(successes, 2);
    assert_true(failures >= 2); /* keys and values, then the algorithm's scratch buffers if any */
}

static void test_alloc_faults(void **state)
{
    (void)state;
    /* host-radix through its buffers: small host arrays it sorts in the calling thread, with none */
    for (int a = 1; clsort_algorithm_name((clsort_algorithm)a); a++)
        check_alloc_faults(clsort_algorithm_name((clsort_algorithm)a),
                           "CLSORT_HOST_INLINE_BYTES=0");
    /* In chunks (three of 1000 keys): a failure in a later chunk leaves the arrays untouched too. */
    check_alloc_faults("radix8", "CLSORT_CHUNK_KEYS=1000");
    check_alloc_faults("bitonic", "CLSORT_CHUNK_KEYS=1000");
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child"))
        return child(argv[2]);
    self = argv[0];
    snprintf(dir, sizeof dir, "/tmp/clsort-cache-test-%ld", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_process_builds_nothing),
        cmocka_unit_test(test_no_cache),
        cmocka_unit_test(test_bad_build_options),
        cmocka_unit_test(test_alloc_faults),
    };
    int failed = cmocka_run_group_tests_name("process", tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s-off'", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return failed;
}
