/*
 * A line chart as an SVG document, written without any plotting library: throughput against n, on a
 * log2 axis for n, one line per series, with a legend.
 */
#ifndef CLSORT_PLOT_H
#define CLSORT_PLOT_H

#include <stddef.h>

typedef struct plot_series {
    const char *label;
    int dashed;         /* drawn dashed (a reference) */
    size_t count;
    const double *x;    /* n, > 0 */
    const double *y;    /* GKey/s, >= 0 */
} plot_series;

/* The SVG text (malloc'd), or NULL when out of memory. */
char *plot_svg(const char *title, const char *subtitle, const char *x_label, const char *y_label,
               const plot_series *series, size_t count);

#endif
