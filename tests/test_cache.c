/*
 * The on-disk program cache, seen across processes: a second process builds nothing, a corrupt entry
 * is rebuilt, CLSORT_NO_CACHE turns it off, and bad build options give a clear build error.
 * The parent never touches OpenCL; each scenario runs `test_cache child` with its own environment.
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

/* Child: sort a small array, print "status built cached ok detail-first-line". */
static int child(void)
{
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    if (st != CLSORT_OK) {
        printf("%d 0 0 0 open\n", (int)st);
        return 0;
    }
    uint32_t k[3000];
    for (int i = 0; i < 3000; i++)
        k[i] = (uint32_t)(2999 - i) * 2654435761u;
    clsort_stats stats = { 0 };
    st = clsort_sort(ctx, NULL, k, NULL, 3000, &stats);
    int ok = st == CLSORT_OK;
    for (int i = 1; ok && i < 3000; i++)
        ok = k[i - 1] <= k[i];
    char first[200];
    snprintf(first, sizeof first, "%s", clsort_error_detail(ctx));
    first[strcspn(first, "\n")] = '\0';
    printf("%d %u %u %d %s\n", (int)st, stats.programs_built, stats.programs_cached, ok, first);
    clsort_close(&ctx);
    return 0;
}

typedef struct result {
    int status;
    unsigned built, cached;
    int ok;
    char detail[200];
} result;

static result run_child(const char *env)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "env CLSORT_CACHE_DIR='%s' %s '%s' child", dir, env, self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    result r = { 0 };
    assert_int_equal(fscanf(p, "%d %u %u %d %199[^\n]", &r.status, &r.built, &r.cached, &r.ok,
                            r.detail) >= 4, 1);
    pclose(p);
    return r;
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

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    self = argv[0];
    snprintf(dir, sizeof dir, "/tmp/clsort-cache-test-%ld", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_process_builds_nothing),
        cmocka_unit_test(test_no_cache),
        cmocka_unit_test(test_bad_build_options),
    };
    int failed = cmocka_run_group_tests_name("cache", tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s-off'", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return failed;
}
