/*
 * The one builder of the -D options that carry a family's parameters into its kernels: every family
 * adds NAME=value pairs here, so the option strings are spelt one way.
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <stdio.h>

void clsort_opts_init(clsort_opts *b)
{
    b->text[0] = '\0';
    b->len = 0;
    b->overflow = 0;
}

void clsort_opts_add_text(clsort_opts *b, const char *name, const char *value)
{
    if (b->overflow)
        return;
    const size_t room = sizeof b->text - b->len;
    const int w = snprintf(b->text + b->len, room, "%s-D%s=%s", b->len ? " " : "", name, value);
    if (w < 0 || (size_t)w >= room) {
        b->overflow = 1;
        b->text[b->len] = '\0';
        return;
    }
    b->len += (size_t)w;
}

void clsort_opts_add(clsort_opts *b, const char *name, unsigned long long value)
{
    char v[24];
    snprintf(v, sizeof v, "%llu", value);
    clsort_opts_add_text(b, name, v);
}

void clsort_opts_add_if(clsort_opts *b, int cond, const char *name, unsigned long long value)
{
    if (cond)
        clsort_opts_add(b, name, value);
}
