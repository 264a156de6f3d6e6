/*
 * SVG line chart (see plot.h). Builds a string and calls nothing else in the CLI; bench writes it.
 */
#include "plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int failed;
} sbuf;

static void add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(sbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)n)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->failed = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* Text with &, <, >, " escaped. */
static void add_text(sbuf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': add(b, "&amp;"); break;
        case '<': add(b, "&lt;"); break;
        case '>': add(b, "&gt;"); break;
        case '"': add(b, "&quot;"); break;
        default:
            if ((unsigned char)*s >= 0x20)
                add(b, "%c", *s);
        }
    }
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about 'ticks' intervals up to max. */
static double nice_step(double max, int ticks)
{
    double raw = max / ticks;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static const char *const colors[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
};
#define N_COLORS (sizeof colors / sizeof colors[0])

/* The chart's scales and geometry: log2 of x from xmin to xmax, y from 0 to ytop in steps of ystep;
 * the plot area at (left, top), pw x ph, in a W x H picture with the legend on the right. */
typedef struct frame {
    double xmin, xmax, ystep, ytop;
    int W, H, left, top, pw, ph;
} frame;

static double px(const frame *f, double lx)
{
    return f->left + (lx - f->xmin) / (f->xmax - f->xmin) * f->pw;
}

static double py(const frame *f, double y)
{
    return f->top + f->ph - y / f->ytop * f->ph;
}

/* The scales from the data's range (x > 0 only, on a log2 axis), with a margin. */
static frame plot_frame(const plot_series *series, size_t count)
{
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    for (size_t i = 0; i < count; i++) {
        for (size_t k = 0; k < series[i].count; k++) {
            if (!(series[i].x[k] > 0))
                continue;
            double lx = log2(series[i].x[k]);
            xmin = fmin(xmin, lx);
            xmax = fmax(xmax, lx);
            if (isfinite(series[i].y[k]))
                ymax = fmax(ymax, series[i].y[k]);
        }
    }
    if (!isfinite(xmin)) {
        xmin = 10;
        xmax = 20;
    }
    xmin = floor(xmin);
    xmax = ceil(xmax);
    if (xmax - xmin < 2) {
        xmin -= 1;
        xmax += 1;
    }
    if (ymax <= 0)
        ymax = 1;
    double ystep = nice_step(ymax, 5);
    double ytop = ceil(ymax / ystep) * ystep;
    if (ytop < ymax * 1.02)
        ytop += ystep;

    /* geometry: plot area, legend on the right */
    frame f = { .xmin = xmin, .xmax = xmax, .ystep = ystep, .ytop = ytop,
                .W = 960, .H = 540, .left = 80, .top = 70 };
    const int right = 250, bottom = 70;
    f.pw = f.W - f.left - right;
    f.ph = f.H - f.top - bottom;
    return f;
}

/* The picture's head, titles, grid, ticks and axis labels. */
static void add_axes(sbuf *b, const frame *f, const char *title, const char *subtitle,
                     const char *x_label, const char *y_label)
{
    const int W = f->W, H = f->H, left = f->left, top = f->top, pw = f->pw, ph = f->ph;
    add(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    add(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"sans-serif\" font-size=\"13\">\n", W, H, W, H);
    add(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    add(b, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\">", left);
    add_text(b, title);
    add(b, "</text>\n<text x=\"%d\" y=\"48\" fill=\"#555\">", left);
    add_text(b, subtitle);
    add(b, "</text>\n");

    /* grid and ticks */
    const double xmin = f->xmin, xmax = f->xmax, ystep = f->ystep, ytop = f->ytop;
    int xstep = xmax - xmin > 12 ? 2 : 1;
    add(b, "<g stroke=\"#ddd\" stroke-width=\"1\">\n");
    for (double lx = xmin; lx <= xmax + 1e-9; lx += xstep)
        add(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", px(f, lx), top, px(f, lx),
            top + ph);
    for (double y = 0; y <= ytop + ystep / 2; y += ystep)
        add(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", left, py(f, y), left + pw,
            py(f, y));
    add(b, "</g>\n<g text-anchor=\"middle\">\n");
    for (double lx = xmin; lx <= xmax + 1e-9; lx += xstep)
        add(b, "<text x=\"%.1f\" y=\"%d\">2<tspan dy=\"-6\" font-size=\"10\">%.0f</tspan></text>\n",
            px(f, lx), top + ph + 20, lx);
    add(b, "</g>\n<g text-anchor=\"end\">\n");
    int decimals = ystep >= 1 ? 0 : (int)ceil(-log10(ystep));
    if (decimals > 6)
        decimals = 6;
    for (double y = 0; y <= ytop + ystep / 2; y += ystep)
        add(b, "<text x=\"%d\" y=\"%.1f\">%.*f</text>\n", left - 8, py(f, y) + 4, decimals, y);
    add(b, "</g>\n");
    add(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", left,
        top, pw, ph);
    add(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", left + pw / 2.0, H - 22);
    add_text(b, x_label);
    add(b, "</text>\n<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\">",
        top + ph / 2.0);
    add_text(b, y_label);
    add(b, "</text>\n");
}

/* Series i: its line, points and legend entry, in color c. */
static void add_series(sbuf *b, const frame *f, const plot_series *s, size_t i, const char *c)
{
    const char *dash = s->dashed ? " stroke-dasharray=\"6 4\"" : "";
    add(b, "<g class=\"series\"><title>");
    add_text(b, s->label);
    add(b, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", c, dash);
    for (size_t k = 0; k < s->count; k++)
        if (s->x[k] > 0 && isfinite(s->y[k]))
            add(b, "%s%.1f,%.1f", k ? " " : "", px(f, log2(s->x[k])), py(f, s->y[k]));
    add(b, "\"/>\n");
    for (size_t k = 0; k < s->count; k++)
        if (s->x[k] > 0 && isfinite(s->y[k]))
            add(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(f, log2(s->x[k])),
                py(f, s->y[k]), c);
    double ly = f->top + 10 + 20.0 * (double)i;
    const int lx = f->left + f->pw;
    add(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
        lx + 15, ly, lx + 40, ly, c, dash);
    add(b, "<text x=\"%d\" y=\"%.1f\">", lx + 46, ly + 4);
    add_text(b, s->label);
    add(b, "</text></g>\n");
}

char *plot_svg(const char *title, const char *subtitle, const char *x_label, const char *y_label,
               const plot_series *series, size_t count)
{
    const frame f = plot_frame(series, count);
    sbuf b = {0};
    add_axes(&b, &f, title, subtitle, x_label, y_label);
    /* lines, points and the legend */
    size_t color = 0;
    for (size_t i = 0; i < count; i++) {
        const char *c = series[i].dashed ? "#777" : colors[color++ % N_COLORS];
        add_series(&b, &f, &series[i], i, c);
    }
    add(&b, "</svg>\n");
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
