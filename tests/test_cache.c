/*
 * What the on-disk program cache trusts: entries are code the driver runs in this process, so a
 * directory another user could write to, or owns, is not used, and entries that are not regular
 * files of our own that only we can write are passed over (a FIFO must not block). Each case
 * sorts with the cache in a directory of its own and reads clsort_stats.programs_cached and
 * clsort_cache_info().
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

#define N 5000

static char base[256];

typedef struct result {
    unsigned built, cached;
    int ascending, descending; /* the keys came out so */
    char info[4300];
} result;

/* Sort N keys with radix8, the cache in dir. */
static result sort_in(const char *dir, int descending)
{
    result r = { 0 };
    setenv("CLSORT_CACHE_DIR", dir, 1);
    clsort_context *ctx = NULL;
    assert_int_equal(clsort_open(&ctx, NULL), CLSORT_OK);
    snprintf(r.info, sizeof r.info, "%s", clsort_cache_info(ctx));
    static uint32_t k[N];
    for (uint32_t i = 0; i < N; i++)
        k[i] = (N - 1 - i) * 2654435761u;
    clsort_spec spec;
    clsort_spec_default(&spec);
    spec.algorithm = CLSORT_ALGO_RADIX8;
    spec.descending = descending;
    clsort_stats stats = { 0 };
    assert_int_equal(clsort_sort(ctx, &spec, k, NULL, N, &stats), CLSORT_OK);
    clsort_close(&ctx);
    r.built = stats.programs_built;
    r.cached = stats.programs_cached;
    r.ascending = r.descending = 1;
    for (uint32_t i = 1; i < N; i++) {
        r.ascending &= k[i - 1] <= k[i];
        r.descending &= k[i - 1] >= k[i];
    }
    return r;
}

static void path_of(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", base, name);
}

/* Call f on every entry of dir (not the temporary files); returns how many there were. */
static int each_entry(const char *dir, void (*f)(const char *path, const char *name, void *arg),
                      void *arg)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (f)
            f(path, e->d_name, arg);
        n++;
    }
    closedir(d);
    return n;
}

/* A directory of our own, filled by one sort. */
static void populate(char *dir, size_t size, const char *name)
{
    path_of(dir, size, name);
    result r = sort_in(dir, 0);
    assert_true(r.ascending);
    assert_true(r.built > 0);
    assert_string_equal(r.info, dir);
    assert_int_equal(each_entry(dir, NULL, NULL), (int)r.built);
    r = sort_in(dir, 0);
    assert_int_equal(r.built, 0);
    assert_true(r.cached > 0);
}

static int in_list(const char *name, char list[][256], int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], name))
            return 1;
    return 0;
}

typedef struct names {
    char list[32][256];
    int n;
} names;

static void collect(const char *path, const char *name, void *arg)
{
    (void)path;
    names *ns = arg;
    if (ns->n < 32)
        snprintf(ns->list[ns->n++], sizeof ns->list[0], "%s", name);
}

static void copy_file(const char *from, const char *to, uint64_t new_key)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    unsigned char buf[1 << 16];
    size_t got, at = 0;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        if (new_key && at == 0 && got >= 16)
            memcpy(buf + 8, &new_key, 8); /* the header's key field */
        assert_int_equal(fwrite(buf, 1, got, out), got);
        at += got;
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
    chmod(to, 0600);
}

/* An entry planted in a directory others can write is not loaded: the entry of the ascending
 * sort's program replaced by the descending one's, under the ascending key (a valid header and
 * hash). Where the directory is trusted the plant is used, and sorts the wrong way, which shows
 * the plant would be effective; group- or other-writable, the cache is off. */
static void test_planted_entry(void **state)
{
    (void)state;
    char asc[512], desc[512], plant[512];
    populate(asc, sizeof asc, "asc");
    path_of(desc, sizeof desc, "desc");
    assert_true(sort_in(desc, 1).descending);
    names a = { .n = 0 }, d = { .n = 0 };
    each_entry(asc, collect, &a);
    each_entry(desc, collect, &d);
    const char *only_a = NULL, *only_d = NULL;
    for (int i = 0; i < a.n; i++)
        if (!in_list(a.list[i], d.list, d.n))
            only_a = a.list[i];
    for (int i = 0; i < d.n; i++)
        if (!in_list(d.list[i], a.list, a.n))
            only_d = d.list[i];
    assert_non_null(only_a);
    assert_non_null(only_d);

    path_of(plant, sizeof plant, "plant");
    assert_int_equal(mkdir(plant, 0700), 0);
    for (int i = 0; i < a.n; i++) {
        char from[1100], to[1100];
        const int swap = !strcmp(a.list[i], only_a);
        snprintf(from, sizeof from, "%s/%s", swap ? desc : asc, swap ? only_d : a.list[i]);
        snprintf(to, sizeof to, "%s/%s", plant, a.list[i]);
        copy_file(from, to, swap ? strtoull(only_a, NULL, 16) : 0);
    }
    /* Trusted: the planted program runs (the wrong order), so the check below means something. */
    result r = sort_in(plant, 0);
    assert_true(r.cached > 0);
    assert_false(r.ascending);

    static const struct { mode_t mode; const char *why; } modes[] = {
        { 0777, "is writable by others" }, { 0770, "is writable by its group" },
        { 01777, "is writable by others" },
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        assert_int_equal(chmod(plant, modes[i].mode), 0);
        r = sort_in(plant, 0);
        assert_int_equal(r.cached, 0);
        assert_true(r.built > 0);
        assert_true(r.ascending);
        assert_true(!strncmp(r.info, "off: ", 5) && strstr(r.info, plant) &&
                    strstr(r.info, modes[i].why));
    }
}

static int can_chown(void)
{
    return geteuid() == 0;
}

/* What to do to each entry of a directory. */
enum damage { GIVE_AWAY, MAKE_WRITABLE, MAKE_FIFO };

static void damage_entry(const char *path, const char *name, void *arg)
{
    (void)name;
    switch (*(const enum damage *)arg) {
    case GIVE_AWAY: /* to nobody */
        assert_int_equal(chown(path, 65534, 65534), 0);
        break;
    case MAKE_WRITABLE:
        assert_int_equal(chmod(path, 0666), 0);
        break;
    case MAKE_FIFO:
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkfifo(path, 0600), 0);
        break;
    }
}

static void damage_all(const char *dir, enum damage how)
{
    each_entry(dir, damage_entry, &how);
}

/* A directory owned by another user is not used. */
static void test_other_owner_dir(void **state)
{
    (void)state;
    if (!can_chown())
        skip();
    char dir[512];
    populate(dir, sizeof dir, "other-dir");
    assert_int_equal(chown(dir, 65534, 65534), 0);
    result r = sort_in(dir, 0);
    assert_int_equal(r.cached, 0);
    assert_true(r.ascending);
    assert_true(!strncmp(r.info, "off: ", 5) && strstr(r.info, "owned by uid 65534"));
}

/* Entries of another user, or that others may write, are passed over (and replaced). */
static void test_untrusted_entries(void **state)
{
    (void)state;
    char dir[512];
    populate(dir, sizeof dir, "writable-entries");
    damage_all(dir, MAKE_WRITABLE);
    result r = sort_in(dir, 0);
    assert_int_equal(r.cached, 0);
    assert_true(r.built > 0 && r.ascending);
    assert_string_equal(r.info, dir);
    r = sort_in(dir, 0); /* rewritten as ours */
    assert_int_equal(r.built, 0);

    if (!can_chown())
        return;
    populate(dir, sizeof dir, "other-entries");
    damage_all(dir, GIVE_AWAY);
    r = sort_in(dir, 0);
    assert_int_equal(r.cached, 0);
    assert_true(r.built > 0 && r.ascending);
}

/* A FIFO in place of an entry does not block the open: the sort finishes (else the alarm ends the
 * process). */
static void test_fifo_entry(void **state)
{
    (void)state;
    char dir[512];
    populate(dir, sizeof dir, "fifo");
    damage_all(dir, MAKE_FIFO);
    alarm(120);
    result r = sort_in(dir, 0);
    alarm(0);
    assert_int_equal(r.cached, 0);
    assert_true(r.built > 0 && r.ascending);
}

/* Sort with the cache in XDG_CACHE_HOME/clsort, CLSORT_CACHE_DIR unset. */
static result sort_in_xdg(const char *xdg)
{
    const char *saved = getenv("CLSORT_CACHE_DIR");
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", saved ? saved : "");
    unsetenv("CLSORT_CACHE_DIR");
    setenv("XDG_CACHE_HOME", xdg, 1);
    clsort_context *ctx = NULL;
    clsort_status st = clsort_open(&ctx, NULL);
    result r = { 0 };
    if (ctx)
        snprintf(r.info, sizeof r.info, "%s", clsort_cache_info(ctx));
    clsort_close(&ctx);
    unsetenv("XDG_CACHE_HOME");
    if (saved)
        setenv("CLSORT_CACHE_DIR", keep, 1);
    assert_int_equal(st, CLSORT_OK);
    return r;
}

/* Whether path exists (as anything). */
static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A world- or group-writable directory above the cache (a 0777 $XDG_CACHE_HOME) is passed over,
 * though the clsort directory in it is ours and 0700: others could rename it away and put theirs
 * in its place. A sticky one (as /tmp is) is not; nor is a private one. Nothing is created in a
 * directory that is passed over (a 0700 clsort/ was made in the 0777 one before it was judged). */
static void test_writable_parent(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        mode_t mode;
        const char *why; /* NULL: used */
    } cases[] = {
        { "xdg-0777", 0777, "is writable by others (and not sticky)" },
        { "xdg-0770", 0770, "is writable by its group (and not sticky)" },
        { "xdg-1777", 01777, NULL },
        { "xdg-0700", 0700, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char xdg[512], dir[700], want[1400];
        path_of(xdg, sizeof xdg, cases[i].name);
        assert_int_equal(mkdir(xdg, 0700), 0);
        assert_int_equal(chmod(xdg, cases[i].mode), 0);
        snprintf(dir, sizeof dir, "%s/clsort", xdg);
        result r = sort_in_xdg(xdg);
        if (cases[i].why) {
            snprintf(want, sizeof want, "off: %s is in %s, which %s", dir, xdg, cases[i].why);
            assert_string_equal(r.info, want);
            if (exists(dir))
                fail_msg("%s created in a directory passed over", dir);
        } else {
            assert_string_equal(r.info, dir);
        }
        /* the same through CLSORT_CACHE_DIR, a level deeper */
        snprintf(dir, sizeof dir, "%s/a/b", xdg);
        r = sort_in(dir, 0);
        assert_true(r.ascending);
        if (cases[i].why) {
            snprintf(want, sizeof want, "off: %s is in %s, which %s", dir, xdg, cases[i].why);
            assert_string_equal(r.info, want);
            assert_int_equal(r.cached, 0);
            snprintf(dir, sizeof dir, "%s/a", xdg);
            if (exists(dir))
                fail_msg("%s created in a directory passed over", dir);
        } else {
            assert_string_equal(r.info, dir);
        }
        /* $XDG_CACHE_HOME one level below: missing (nothing made in it or on the way), and
         * private but in the writable one (nothing made in it) */
        char sub[600], made[sizeof dir];
        snprintf(sub, sizeof sub, "%s/sub", xdg);
        for (int private_sub = 0; private_sub < 2; private_sub++) {
            if (private_sub && !exists(sub)) /* (a cache used made it) */
                assert_int_equal(mkdir(sub, 0700), 0);
            r = sort_in_xdg(sub);
            snprintf(dir, sizeof dir, "%s/clsort", sub);
            snprintf(made, sizeof made, "%s", private_sub ? dir : sub);
            if (cases[i].why) {
                snprintf(want, sizeof want, "off: %s is in %s, which %s", dir, xdg, cases[i].why);
                assert_string_equal(r.info, want);
                if (exists(made))
                    fail_msg("%s created in a directory passed over", made);
            } else {
                assert_string_equal(r.info, dir);
            }
        }
    }
}

/* The cache turned off says so. */
static void test_no_cache_info(void **state)
{
    (void)state;
    setenv("CLSORT_NO_CACHE", "1", 1);
    char dir[512];
    path_of(dir, sizeof dir, "off");
    result r = sort_in(dir, 0);
    unsetenv("CLSORT_NO_CACHE");
    assert_string_equal(r.info, "off: CLSORT_NO_CACHE");
    assert_int_equal(r.cached, 0);
}

int main(void)
{
    snprintf(base, sizeof base, "/tmp/clsort-cache-trust-%ld", (long)getpid());
    if (mkdir(base, 0700) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_entry),
        cmocka_unit_test(test_other_owner_dir),
        cmocka_unit_test(test_untrusted_entries),
        cmocka_unit_test(test_fifo_entry),
        cmocka_unit_test(test_no_cache_info),
        cmocka_unit_test(test_writable_parent),
    };
    int failed = cmocka_run_group_tests_name("cache", tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    return failed;
}
