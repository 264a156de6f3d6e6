/*
 * Settings read once from the environment: every CLSORT_* override (and XDG_CACHE_HOME / HOME for
 * the cache directory, TMPDIR for temporary files) is parsed here when a context opens and travels in the context, so no other
 * file reads the environment and a sort's behaviour does not change under it. An empty variable is
 * unset; a value that does not parse, or is out of range, is an error: the first one is described
 * in clsort_settings.error and the context does not open.
 * Calls: nothing in the library (the C library only).
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LIMIT 0xffffffffffffffffull

/* The value of a set, non-empty variable, else NULL. */
static const char *env(const char *name)
{
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

/* Describe the first invalid value. */
static void invalid(clsort_settings *s, const char *name, const char *value, const char *expected)
{
    if (!s->error[0])
        snprintf(s->error, sizeof s->error, "%s='%.200s': expected %s", name, value, expected);
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
static unsigned long long number(clsort_settings *s, const char *name, unsigned long long lo,
                                 unsigned long long hi, unsigned long long unset)
{
    const char *e = env(name);
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
    invalid(s, name, e, expected);
    return unset;
}

/* $CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else ~/.cache/clsort; "" when none fits. */
static void cache_dir(char *buf, size_t size)
{
    const char *dir = env("CLSORT_CACHE_DIR"), *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
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
static void sort_tuning(clsort_settings *s)
{
    unsigned long long v[3] = { 0, 0, 0 };
    const char *e = env("CLSORT_SORT_TUNING");
    int got = 0;
    if (e && !(got = tile_numbers(e, 3, v)))
        invalid(s, "CLSORT_SORT_TUNING", e,
                "WGxITEMS or WGxITEMSxGLOBAL_ITEMS (powers of two: WG up to 65536, ITEMS 4..64, "
                "GLOBAL_ITEMS 2..64)");
    else if (e) {
        s->sort_wg = (unsigned)v[0];
        s->sort_items = (unsigned)v[1];
        s->sort_global_items = (unsigned)(got == 3 ? v[2] : v[1]);
    }
    e = env("CLSORT_SEG_SHORT_TUNING");
    if (!e)
        return;
    v[0] = v[1] = 0;
    if (strcmp(e, "0") != 0 && !tile_numbers(e, 2, v)) {
        invalid(s, "CLSORT_SEG_SHORT_TUNING", e,
                "0 (one launch) or WGxITEMS (powers of two: WG up to 65536, ITEMS 4..64)");
        return;
    }
    s->seg_short_set = 1;
    s->seg_short_wg = (unsigned)v[0];
    s->seg_short_items = (unsigned)v[1];
}

/* The radix overrides: -1 (or 0 where 0 is not a value) where unset. */
static void radix(clsort_settings *s)
{
    const unsigned long long big = 1u << 30;
    s->radix_serial = (int)number(s, "CLSORT_RADIX8_SERIAL", 0, big, (unsigned long long)-1);
    s->radix_wg = (int)number(s, "CLSORT_RADIX8_WG", 1, big, (unsigned long long)-1);
    s->radix_items = (int)number(s, "CLSORT_RADIX8_ITEMS", 1, big, (unsigned long long)-1);
    /* Set even when empty (then 0). */
    s->radix_ptx_set = getenv("CLSORT_RADIX8_PTX") != NULL;
    s->radix_ptx = (unsigned)number(s, "CLSORT_RADIX8_PTX", 0, 1, 0);
    s->radix_match = (int)number(s, "CLSORT_RADIX8_MATCH", 0, 3, (unsigned long long)-1);
    s->radix_lb_at = (int)number(s, "CLSORT_RADIX8_LB_AT", 0, 2, (unsigned long long)-1);
    const unsigned long long kv = number(s, "CLSORT_RADIX8_KV", 0, 1, 2);
    s->radix_kv = kv == 2 ? -1 : (int)kv;
    s->radix_lb_win = (int)number(s, "CLSORT_RADIX8_LB_WIN", 0, big, 0);
    s->radix_hist_per_cu =
        (int)number(s, "CLSORT_RADIX8_HIST_PER_CU", 0, big, (unsigned long long)-1);
    s->radix_match_split = (int)number(s, "CLSORT_RADIX8_MATCH_SPLIT", 0, 6, (unsigned long long)-1);
    s->radix_portion_tiles = (size_t)number(s, "CLSORT_RADIX8_PORTION_TILES", 0, NO_LIMIT, 0);
    s->hybrid_wave_keys = (size_t)number(s, "CLSORT_HYBRID_WAVE_KEYS", 1, NO_LIMIT, 0);
    s->hybrid_lag = (int)number(s, "CLSORT_HYBRID_LAG", 1, 4, 0);
    s->hybrid_min_n = (long long)number(s, "CLSORT_HYBRID_MIN_N", 0, NO_LIMIT, (unsigned long long)-1);
}

int clsort_settings_read(clsort_settings *s)
{
    memset(s, 0, sizeof *s);
    const char *e;
    const char *off = env("CLSORT_NO_CACHE");
    s->cache_enabled = !(off && strcmp(off, "0") != 0);
    cache_dir(s->cache_dir, sizeof s->cache_dir);
    /* the temporary directory of clsort_sort_stream(), as sort(1) and mkstemp users take it */
    const char *tmp = env("TMPDIR");
    if (tmp && strlen(tmp) >= sizeof s->temp_dir)
        invalid(s, "TMPDIR", tmp, "a path shorter than 4000 bytes");
    snprintf(s->temp_dir, sizeof s->temp_dir, "%s", tmp && strlen(tmp) < sizeof s->temp_dir ? tmp : "/tmp");
    if ((e = getenv("CLSORT_BUILD_OPTIONS"))) {
        s->build_options_too_long = strlen(e) >= sizeof s->build_options;
        snprintf(s->build_options, sizeof s->build_options, "%s", e);
    }
    /* CLSORT_SCRATCH_KEEP in MiB; 0 keeps none. */
    s->scratch_keep = (size_t)number(s, "CLSORT_SCRATCH_KEEP", 0, ((size_t)-1 >> 20) - 1,
                                     CLSORT_SCRATCH_KEEP >> 20) << 20;
    s->chunk_keys = (size_t)number(s, "CLSORT_CHUNK_KEYS", 0, (size_t)-1, 0);
    s->top_cap = (size_t)number(s, "CLSORT_TOP_CAP", 0, UINT32_MAX, 0);
    /* for tests: 1 writes run files from a thread of their own, 0 from the sort's (default: the
     * thread where the device has memory of its own) */
    s->spill_thread = (int)number(s, "CLSORT_SPILL_THREAD", 0, 1, (unsigned long long)-1);
    s->device_merge = (int)number(s, "CLSORT_DEVICE_MERGE", 0, 1, (unsigned long long)-1);
    s->device_gather = (int)number(s, "CLSORT_DEVICE_GATHER", 0, 1, (unsigned long long)-1);
    s->transfer_slot = (size_t)number(s, "CLSORT_TRANSFER_SLOT", 16, (size_t)1 << 40, 0);
    s->stage_bytes = (size_t)number(s, "CLSORT_STAGE_BYTES", 16, (size_t)1 << 40, 8u << 20);
    s->staging = 0; /* CLSORT_STAGING_PINNED */
    if ((e = env("CLSORT_STAGING"))) {
        static const char *const kinds[] = { "pinned", "use", "host" };
        int k = 0;
        while (k < 3 && strcmp(e, kinds[k]) != 0)
            k++;
        if (k < 3)
            s->staging = k;
        else
            invalid(s, "CLSORT_STAGING", e, "pinned, use or host");
    }
    s->fault_alloc = (unsigned long)number(s, "CLSORT_FAULT_ALLOC", 0, (unsigned long)-1, 0);
    if (!(e = env("CLSORT_PROFILE")))
        e = env("CLSORT_RADIX8_PROFILE");
    s->profile = e && *e != '0';
    sort_tuning(s);
    s->bitonic_wide_set = env("CLSORT_BITONIC_WIDE") != NULL;
    s->bitonic_wide = (unsigned long)number(s, "CLSORT_BITONIC_WIDE", 0, (unsigned long)-1, 0);
    s->bitonic_carry = (int)number(s, "CLSORT_BITONIC_CARRY", 0, 1, (unsigned long long)-1);
    s->seg_bitonic_max =
        (long long)number(s, "CLSORT_SEG_BITONIC_MAX", 0, 1u << 30, (unsigned long long)-1);
    s->single_tile_max =
        (long long)number(s, "CLSORT_SINGLE_TILE_MAX", 0, 1u << 30, (unsigned long long)-1);
    radix(s);
    return s->error[0] ? -1 : 0;
}

const char *clsort_settings_device(void)
{
    return getenv("CLSORT_DEVICE");
}
