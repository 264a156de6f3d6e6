/*
 * Settings read once when a context opens: those the caller gives (clsort_open_with_settings()),
 * then every CLSORT_* variable not given (and XDG_CACHE_HOME / HOME for the cache directory, TMPDIR
 * for temporary files), parsed here by one parser and carried in the context, so no other file
 * reads the environment and a sort's behaviour does not change under it. An empty value is unset
 * (given by the caller, it also keeps the variable from being read); a value that does not parse,
 * or is out of range, is an error: the first one is described in clsort_settings.error and the
 * context does not open. The tests' hooks (testhooks.h) are read from the environment only.
 * Calls: nothing in the library (the C library only).
 */
#include "internal.h"
#include "testhooks.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LIMIT 0xffffffffffffffffull

/* The settings by name (a variable's name without CLSORT_, in lower case): the users', which
 * clsort_setting_names() lists and clsort.h documents, then, after a NULL, the tests' hooks. */
static const char *const names[] = {
    "device", "no_cache", "cache_dir", "build_options", "scratch_keep", "stage_bytes", "staging",
    "device_merge", "device_gather", "profile", "radix8_profile", "sort_tuning",
    "seg_short_tuning", "bitonic_wide", "bitonic_carry", "seg_bitonic_max", "single_tile_max",
    "radix8_wg", "radix8_items", "radix8_ptx", "radix8_match", "radix8_match_split",
    "radix8_lb_at", "radix8_lb_win", "radix8_hist_per_cu", "radix8_kv", "radix8_serial",
    "hybrid_wave_keys", "hybrid_lag", "hybrid_min_n", NULL,
    CLSORT_TEST_HOOK_NAMES, NULL,
};
#define N_NAMES (sizeof names / sizeof names[0])

const char *const *clsort_setting_names(void)
{
    return names;
}

/* What name is: 1 a user's setting, 2 a test hook, 0 neither. */
static int known(const char *name)
{
    int kind = 1;
    for (size_t i = 0; i < N_NAMES; i++) {
        if (!names[i])
            kind++;
        else if (!strcmp(names[i], name))
            return kind;
    }
    return 0;
}

/* Whether a setting's name is variable var's (CLSORT_ and the name in upper case). */
static int names_variable(const char *name, const char *var)
{
    if (strncmp(var, "CLSORT_", 7) != 0)
        return 0;
    var += 7;
    while (*name && *var && *name == tolower((unsigned char)*var))
        name++, var++;
    return !*name && !*var;
}

#ifndef NDEBUG
/* Whether variable var has a name in names[] (every CLSORT_* variable read must have one). */
static int has_name(const char *var)
{
    for (size_t i = 0; i < N_NAMES; i++)
        if (names[i] && names_variable(names[i], var))
            return 1;
    return 0;
}
#endif

/* What one read consults: the caller's settings, then the environment. */
typedef struct reader {
    clsort_settings *s;
    const clsort_setting *given; /* checked: known, user-facing names, once each, values not NULL */
    size_t count;
} reader;

/* The caller's entry for variable var, else NULL. */
static const clsort_setting *listed(const reader *r, const char *var)
{
    for (size_t i = 0; i < r->count; i++)
        if (names_variable(r->given[i].name, var))
            return &r->given[i];
    return NULL;
}

/* The text of var: the caller's (even when empty), else the environment's; NULL when neither has
 * it. */
static const char *raw(const reader *r, const char *var)
{
    assert(strncmp(var, "CLSORT_", 7) != 0 || has_name(var));
    const clsort_setting *g = listed(r, var);
    return g ? g->value : getenv(var);
}

/* ... when it is not empty, else NULL: an empty value is unset. */
static const char *value(const reader *r, const char *var)
{
    const char *e = raw(r, var);
    return e && *e ? e : NULL;
}

/* What an error calls var's value: "setting NAME" when the caller gave it, else the variable. */
static void label(const reader *r, const char *var, char *buf, size_t size)
{
    const clsort_setting *g = listed(r, var);
    snprintf(buf, size, g ? "setting %s" : "%s", g ? g->name : var);
}

/* Describe the first invalid value. */
static void invalid(reader *r, const char *var, const char *text, const char *expected)
{
    char name[64];
    label(r, var, name, sizeof name);
    if (!r->s->error[0])
        snprintf(r->s->error, sizeof r->s->error, "%s='%.200s': expected %s", name, text, expected);
}

/* A decimal number at text, up to the next non-digit (*end); -1 when there is none or it
 * overflows. */
static int decimal(const char *text, char **end, unsigned long long *out)
{
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    *out = strtoull(text, end, 10);
    return errno == ERANGE ? -1 : 0;
}

/* A whole number from lo to hi in variable name: its value, or unset when the variable is unset or
 * invalid (then described). */
static unsigned long long number(reader *r, const char *name, unsigned long long lo,
                                 unsigned long long hi, unsigned long long unset)
{
    const char *e = value(r, name);
    if (!e)
        return unset;
    char *end;
    unsigned long long v;
    if (decimal(e, &end, &v) == 0 && !*end && v >= lo && v <= hi)
        return v;
    char expected[96];
    if (hi == NO_LIMIT)
        snprintf(expected, sizeof expected, "a whole number, %llu or more", lo);
    else
        snprintf(expected, sizeof expected, "a whole number from %llu to %llu", lo, hi);
    invalid(r, name, e, expected);
    return unset;
}

/* The cache_dir setting, else $XDG_CACHE_HOME/clsort, else ~/.cache/clsort; "" when none fits. */
static void cache_dir(const reader *r, char *buf, size_t size)
{
    const char *dir = value(r, "CLSORT_CACHE_DIR"), *xdg = value(r, "XDG_CACHE_HOME"),
               *home = value(r, "HOME");
    int len = -1;
    if (dir)
        len = snprintf(buf, size, "%s", dir);
    else if (xdg)
        len = snprintf(buf, size, "%s/clsort", xdg);
    else if (home)
        len = snprintf(buf, size, "%s/.cache/clsort", home);
    if (len < 0 || (size_t)len >= size)
        buf[0] = '\0';
}

static int is_pow2(unsigned long long x)
{
    return x && !(x & (x - 1));
}

/* WGxITEMS[xGLOBAL_ITEMS] in e: the numbers read into v (up to `most` of them); how many, or 0 when
 * the text is not of that form or a number is out of range (powers of two: WG up to 65536, ITEMS
 * 4..64, GLOBAL_ITEMS 2..64). */
static int tile_numbers(const char *e, int most, unsigned long long v[3])
{
    const char *p = e;
    int got = 0;
    char *end = NULL;
    while (got < most && decimal(p, &end, &v[got]) == 0) {
        got++;
        if (*end != 'x')
            break;
        p = end + 1;
    }
    if (got < 2 || *end || !is_pow2(v[0]) || v[0] > 65536 || v[1] < 4 || v[1] > 64 ||
        !is_pow2(v[1]) || (got == 3 && (v[2] < 2 || v[2] > 64 || !is_pow2(v[2]))))
        return 0;
    return got;
}

/* CLSORT_SORT_TUNING=WGxITEMS[xGLOBAL_ITEMS]; CLSORT_SEG_SHORT_TUNING=WGxITEMS or 0. */
static void sort_tuning(reader *r)
{
    clsort_settings *s = r->s;
    unsigned long long v[3] = { 0, 0, 0 };
    const char *e = value(r, "CLSORT_SORT_TUNING");
    int got = 0;
    if (e && !(got = tile_numbers(e, 3, v)))
        invalid(r, "CLSORT_SORT_TUNING", e,
                "WGxITEMS or WGxITEMSxGLOBAL_ITEMS (powers of two: WG up to 65536, ITEMS 4..64, "
                "GLOBAL_ITEMS 2..64)");
    else if (e) {
        s->sort_wg = (unsigned)v[0];
        s->sort_items = (unsigned)v[1];
        s->sort_global_items = (unsigned)(got == 3 ? v[2] : v[1]);
    }
    e = value(r, "CLSORT_SEG_SHORT_TUNING");
    if (!e)
        return;
    v[0] = v[1] = 0;
    if (strcmp(e, "0") != 0 && !tile_numbers(e, 2, v)) {
        invalid(r, "CLSORT_SEG_SHORT_TUNING", e,
                "0 (one launch) or WGxITEMS (powers of two: WG up to 65536, ITEMS 4..64)");
        return;
    }
    s->seg_short_set = 1;
    s->seg_short_wg = (unsigned)v[0];
    s->seg_short_items = (unsigned)v[1];
}

/* The radix overrides: -1 (or 0 where 0 is not a value) where unset. */
static void radix(reader *r)
{
    clsort_settings *s = r->s;
    const unsigned long long big = 1u << 30;
    s->radix_serial = (int)number(r, "CLSORT_RADIX8_SERIAL", 0, big, (unsigned long long)-1);
    s->radix_wg = (int)number(r, "CLSORT_RADIX8_WG", 1, big, (unsigned long long)-1);
    s->radix_items = (int)number(r, "CLSORT_RADIX8_ITEMS", 1, big, (unsigned long long)-1);
    /* Set even when empty (then 0). */
    s->radix_ptx_set = raw(r, "CLSORT_RADIX8_PTX") != NULL;
    s->radix_ptx = (unsigned)number(r, "CLSORT_RADIX8_PTX", 0, 1, 0);
    s->radix_match = (int)number(r, "CLSORT_RADIX8_MATCH", 0, 3, (unsigned long long)-1);
    s->radix_lb_at = (int)number(r, "CLSORT_RADIX8_LB_AT", 0, 2, (unsigned long long)-1);
    const unsigned long long kv = number(r, "CLSORT_RADIX8_KV", 0, 1, 2);
    s->radix_kv = kv == 2 ? -1 : (int)kv;
    s->radix_lb_win = (int)number(r, "CLSORT_RADIX8_LB_WIN", 0, big, 0);
    s->radix_hist_per_cu =
        (int)number(r, "CLSORT_RADIX8_HIST_PER_CU", 0, big, (unsigned long long)-1);
    s->radix_match_split = (int)number(r, "CLSORT_RADIX8_MATCH_SPLIT", 0, 6, (unsigned long long)-1);
    s->radix_portion_tiles = (size_t)number(r, "CLSORT_RADIX8_PORTION_TILES", 0, NO_LIMIT, 0);
    s->hybrid_wave_keys = (size_t)number(r, "CLSORT_HYBRID_WAVE_KEYS", 1, NO_LIMIT, 0);
    s->hybrid_lag = (int)number(r, "CLSORT_HYBRID_LAG", 1, 4, 0);
    s->hybrid_min_n = (long long)number(r, "CLSORT_HYBRID_MIN_N", 0, NO_LIMIT, (unsigned long long)-1);
}

/* The profile setting, or radix8_profile, its older name: the caller's first. */
static const char *profile(const reader *r)
{
    const clsort_setting *g = listed(r, "CLSORT_PROFILE");
    if (g || (g = listed(r, "CLSORT_RADIX8_PROFILE")))
        return *g->value ? g->value : NULL;
    const char *e = value(r, "CLSORT_PROFILE");
    return e ? e : value(r, "CLSORT_RADIX8_PROFILE");
}

int clsort_settings_check(const clsort_setting *given, size_t count, char *why, size_t size)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = given[i].name;
        const int kind = name ? known(name) : 0;
        if (!name)
            snprintf(why, size, "settings[%zu]: the name is NULL", i);
        else if (kind == 2)
            snprintf(why, size, "settings[%zu]: '%s' is a test hook, read from the environment only",
                     i, name);
        else if (!kind) {
            int len = snprintf(why, size, "settings[%zu]: unknown setting '%.100s'; known:", i, name);
            for (size_t k = 0; names[k] && len >= 0 && (size_t)len < size; k++)
                len += snprintf(why + len, size - (size_t)len, "%s %s", k ? "," : "", names[k]);
        } else if (!given[i].value)
            snprintf(why, size, "setting %s (settings[%zu]): the value is NULL (\"\" is the default)",
                     name, i);
        else {
            for (size_t k = 0; k < i; k++)
                if (!strcmp(given[k].name, name)) {
                    snprintf(why, size, "setting %s is given twice: settings[%zu] and [%zu]", name,
                             k, i);
                    return -1;
                }
            continue;
        }
        return -1;
    }
    return 0;
}

int clsort_settings_read(clsort_settings *s, const clsort_setting *given, size_t count)
{
    memset(s, 0, sizeof *s);
    reader rd = { s, given, count }, *r = &rd;
    const char *e;
    const char *off = value(r, "CLSORT_NO_CACHE");
    s->cache_enabled = !(off && strcmp(off, "0") != 0);
    s->no_cache_name = listed(r, "CLSORT_NO_CACHE") ? "setting no_cache" : "CLSORT_NO_CACHE";
    cache_dir(r, s->cache_dir, sizeof s->cache_dir);
    /* the temporary directory of clsort_sort_stream(), as sort(1) and mkstemp users take it */
    const char *tmp = value(r, "TMPDIR");
    if (tmp && strlen(tmp) >= sizeof s->temp_dir)
        invalid(r, "TMPDIR", tmp, "a path shorter than 4000 bytes");
    snprintf(s->temp_dir, sizeof s->temp_dir, "%s", tmp && strlen(tmp) < sizeof s->temp_dir ? tmp : "/tmp");
    s->build_options_name =
        listed(r, "CLSORT_BUILD_OPTIONS") ? "setting build_options" : "CLSORT_BUILD_OPTIONS";
    if ((e = raw(r, "CLSORT_BUILD_OPTIONS"))) {
        s->build_options_too_long = strlen(e) >= sizeof s->build_options;
        snprintf(s->build_options, sizeof s->build_options, "%s", e);
    }
    /* CLSORT_SCRATCH_KEEP in MiB; 0 keeps none. */
    s->scratch_keep = (size_t)number(r, "CLSORT_SCRATCH_KEEP", 0, ((size_t)-1 >> 20) - 1,
                                     CLSORT_SCRATCH_KEEP >> 20) << 20;
    s->chunk_keys = (size_t)number(r, "CLSORT_CHUNK_KEYS", 0, (size_t)-1, 0);
    s->top_cap = (size_t)number(r, "CLSORT_TOP_CAP", 0, UINT32_MAX, 0);
    s->host_inline_bytes = (size_t)number(r, "CLSORT_HOST_INLINE_BYTES", 0,
                                          CLSORT_UNSET_BYTES - 1, CLSORT_UNSET_BYTES);
    s->host_small_bytes = (size_t)number(r, "CLSORT_HOST_SMALL_BYTES", 0, CLSORT_UNSET_BYTES - 1,
                                         CLSORT_UNSET_BYTES);
    /* for tests: 1 writes run files from a thread of their own, 0 from the sort's (default: the
     * thread where the device has memory of its own) */
    s->spill_thread = (int)number(r, "CLSORT_SPILL_THREAD", 0, 1, (unsigned long long)-1);
    s->device_merge = (int)number(r, "CLSORT_DEVICE_MERGE", 0, 1, (unsigned long long)-1);
    s->device_gather = (int)number(r, "CLSORT_DEVICE_GATHER", 0, 1, (unsigned long long)-1);
    s->transfer_slot = (size_t)number(r, "CLSORT_TRANSFER_SLOT", 16, (size_t)1 << 40, 0);
    s->stage_bytes = (size_t)number(r, "CLSORT_STAGE_BYTES", 16, (size_t)1 << 40, 8u << 20);
    s->staging = 0; /* CLSORT_STAGING_PINNED */
    if ((e = value(r, "CLSORT_STAGING"))) {
        static const char *const kinds[] = { "pinned", "use", "host" };
        int k = 0;
        while (k < 3 && strcmp(e, kinds[k]) != 0)
            k++;
        if (k < 3)
            s->staging = k;
        else
            invalid(r, "CLSORT_STAGING", e, "pinned, use or host");
    }
    s->fault_alloc = (unsigned long)number(r, "CLSORT_FAULT_ALLOC", 0, (unsigned long)-1, 0);
    e = profile(r);
    s->profile = e && *e != '0';
    sort_tuning(r);
    s->bitonic_wide_set = value(r, "CLSORT_BITONIC_WIDE") != NULL;
    s->bitonic_wide = (unsigned long)number(r, "CLSORT_BITONIC_WIDE", 0, (unsigned long)-1, 0);
    s->bitonic_carry = (int)number(r, "CLSORT_BITONIC_CARRY", 0, 1, (unsigned long long)-1);
    s->seg_bitonic_max =
        (long long)number(r, "CLSORT_SEG_BITONIC_MAX", 0, 1u << 30, (unsigned long long)-1);
    s->single_tile_max =
        (long long)number(r, "CLSORT_SINGLE_TILE_MAX", 0, 1u << 30, (unsigned long long)-1);
    radix(r);
    return s->error[0] ? -1 : 0;
}

const char *clsort_settings_device(const clsort_setting *given, size_t count, const char **source)
{
    const reader r = { NULL, given, count };
    *source = listed(&r, "CLSORT_DEVICE") ? "setting device" : "CLSORT_DEVICE";
    return raw(&r, "CLSORT_DEVICE");
}
