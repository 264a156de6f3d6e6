/*
 * Settings read once from the environment: every CLSORT_* override (and XDG_CACHE_HOME / HOME for
 * the cache directory) is parsed here when a context opens and travels in the context, so no other
 * file reads the environment and a sort's behaviour does not change under it. The parsing keeps
 * each variable's historical rules (an unparsable value falls back to the default, silently).
 * Calls: nothing in the library (the C library only).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of a set, non-empty variable, else NULL. */
static const char *env(const char *name)
{
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

/* CLSORT_SCRATCH_KEEP (MiB); 0 keeps none. */
static size_t scratch_keep(void)
{
    const char *e = env("CLSORT_SCRATCH_KEEP");
    if (e) {
        char *end;
        unsigned long long mib = strtoull(e, &end, 10);
        if (!*end && mib < ((size_t)-1 >> 20))
            return (size_t)mib << 20;
    }
    return CLSORT_SCRATCH_KEEP;
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

static int is_pow2(unsigned x)
{
    return x && !(x & (x - 1));
}

/* CLSORT_SORT_TUNING=WGxITEMS[xGLOBAL_ITEMS]: powers of two, items 4..64, global items 2..64. */
static void sort_tuning(clsort_settings *s)
{
    const char *e = getenv("CLSORT_SORT_TUNING");
    unsigned wg, items, gitems;
    const int got = e ? sscanf(e, "%ux%ux%u", &wg, &items, &gitems) : 0;
    if (got < 2 || !is_pow2(wg) || items < 4 || items > 64 || !is_pow2(items))
        return;
    s->sort_wg = wg;
    s->sort_items = items;
    s->sort_global_items = items;
    if (got == 3 && gitems >= 2 && gitems <= 64 && is_pow2(gitems))
        s->sort_global_items = gitems;
}

static int in_0_2(const char *e)
{
    return atoi(e) >= 0 && atoi(e) <= 2;
}

/* The radix overrides: -1 where unset (each with the range it accepted before). */
static void radix(clsort_settings *s)
{
    const char *e;
    s->radix_serial = (e = env("CLSORT_RADIX8_SERIAL")) && atoi(e) >= 0 ? atoi(e) : -1;
    s->radix_wg = (e = getenv("CLSORT_RADIX8_WG")) && atoi(e) > 0 ? atoi(e) : -1;
    s->radix_items = (e = getenv("CLSORT_RADIX8_ITEMS")) && atoi(e) > 0 ? atoi(e) : -1;
    s->radix_ptx_set = (e = getenv("CLSORT_RADIX8_PTX")) != NULL; /* even empty: 0 */
    s->radix_ptx = e ? (unsigned)atoi(e) : 0;
    s->radix_match = (e = env("CLSORT_RADIX8_MATCH")) && in_0_2(e) ? atoi(e) : -1;
    s->radix_lb_at = (e = env("CLSORT_RADIX8_LB_AT")) && in_0_2(e) ? atoi(e) : -1;
    s->radix_kv = (e = env("CLSORT_RADIX8_KV")) ? atoi(e) > 0 : -1;
    s->radix_lb_win = (e = getenv("CLSORT_RADIX8_LB_WIN")) && atoi(e) > 0 ? atoi(e) : 0;
    s->radix_hist_per_cu = (e = env("CLSORT_RADIX8_HIST_PER_CU")) && atoi(e) >= 0 ? atoi(e) : -1;
    s->radix_portion_tiles = (e = getenv("CLSORT_RADIX8_PORTION_TILES")) && atol(e) > 0
                                 ? (size_t)atol(e) : 0;
}

void clsort_settings_read(clsort_settings *s)
{
    memset(s, 0, sizeof *s);
    const char *e;
    const char *off = env("CLSORT_NO_CACHE");
    s->cache_enabled = !(off && strcmp(off, "0") != 0);
    cache_dir(s->cache_dir, sizeof s->cache_dir);
    if ((e = getenv("CLSORT_BUILD_OPTIONS"))) {
        s->build_options_too_long = strlen(e) >= sizeof s->build_options;
        snprintf(s->build_options, sizeof s->build_options, "%s", e);
    }
    s->scratch_keep = scratch_keep();
    s->chunk_keys = (e = env("CLSORT_CHUNK_KEYS")) ? (size_t)strtoull(e, NULL, 10) : 0;
    s->fault_alloc = (e = env("CLSORT_FAULT_ALLOC")) ? strtoul(e, NULL, 10) : 0;
    if (!(e = env("CLSORT_PROFILE")))
        e = env("CLSORT_RADIX8_PROFILE");
    s->profile = e && *e != '0';
    sort_tuning(s);
    if ((s->bitonic_wide_set = (e = env("CLSORT_BITONIC_WIDE")) != NULL))
        s->bitonic_wide = strtoul(e, NULL, 10);
    s->bitonic_carry = (e = env("CLSORT_BITONIC_CARRY")) ? atoi(e) != 0 : -1;
    radix(s);
}

const char *clsort_settings_device(void)
{
    return getenv("CLSORT_DEVICE");
}
