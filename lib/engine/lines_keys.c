/*
 * Text lines: GNU sort's comparison in the C locale, exactly (its key fields, -n -g -h, the
 * modifiers b d f i r, the last-resort comparison of whole lines that -s and -u switch off), and
 * the 64-bit prefixes that let the device sort most of the order: a prefix never orders two lines
 * against the comparison, and equal lines have equal prefixes, so only ranges of equal prefixes are
 * left to the comparison (lines.c).
 * Calls status.c (errors) and the C library.
 */
#include "internal.h"
#include "lines.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GNU sort's tables in the C locale: blanks are isblank() and '\n'; -d leaves out what is neither
 * alphanumeric nor blank, -i what is not printable. */
static unsigned char blanks[256], nondictionary[256], nonprinting[256];
static unsigned char fold_upper[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_init(void)
{
    for (int c = 0; c < 256; c++) {
        int blank = c == ' ' || c == '\t' || c == '\n';
        int alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        blanks[c] = (unsigned char)blank;
        nondictionary[c] = (unsigned char)(!alnum && !blank);
        nonprinting[c] = (unsigned char)!(c >= 0x20 && c < 0x7f);
        fold_upper[c] = (unsigned char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
}

clsort_status lines_order_make(clsort_context *ctx, const clsort_lines_spec *spec, lines_order *o)
{
    pthread_once(&tables_once, tables_init);
    memset(o, 0, sizeof *o);
    if (!spec)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "clsort_lines: spec is NULL");
    if (spec->separator < -1 || spec->separator > 255)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_lines: separator %d is neither -1 (blanks) nor a byte",
                           spec->separator);
    if (spec->n_keys > CLSORT_LINES_MAX_KEYS || (spec->n_keys && !spec->keys))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_lines: %zu keys (at most %d, and keys not NULL)", spec->n_keys,
                           CLSORT_LINES_MAX_KEYS);
    o->tab = spec->separator;
    o->stable = spec->stable != 0;
    o->unique = spec->unique != 0;
    o->reverse = spec->reverse != 0;
    o->n_keys = spec->n_keys;
    for (size_t i = 0; i < spec->n_keys; i++) {
        const clsort_lines_key *k = &spec->keys[i];
        lines_key *q = &o->keys[i];
        const unsigned f = k->flags;
        const int numeric = !!(f & CLSORT_LINES_NUMERIC) + !!(f & CLSORT_LINES_GENERAL_NUMERIC) +
                            !!(f & CLSORT_LINES_HUMAN_NUMERIC);
        if (f & ~(unsigned)CLSORT_LINES_ALL_FLAGS)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "clsort_lines: key %zu has unknown flags 0x%x", i + 1, f);
        /* GNU sort refuses these together ("options '-dn' are incompatible") */
        if (numeric + !!(f & (CLSORT_LINES_DICTIONARY | CLSORT_LINES_NONPRINTING)) > 1)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "clsort_lines: key %zu combines orders that exclude each other "
                               "(n, g, h, and d or i)", i + 1);
        q->sword = k->start_field ? k->start_field - 1 : SIZE_MAX;
        q->schar = k->start_char ? k->start_char - 1 : 0;
        if (q->sword == 0 && q->schar == 0)
            q->sword = SIZE_MAX; /* field 1, character 1: the line's start, as GNU sort has it */
        if (q->sword == SIZE_MAX && q->schar)
            q->sword = 0;
        q->eword = k->end_field ? k->end_field - 1 : SIZE_MAX;
        q->echar = k->end_field ? k->end_char : 0;
        q->skip_start = !!(f & CLSORT_LINES_BLANKS_START);
        q->skip_end = !!(f & CLSORT_LINES_BLANKS_END);
        q->kind = (f & CLSORT_LINES_NUMERIC) ? LINES_NUMERIC
                  : (f & CLSORT_LINES_GENERAL_NUMERIC) ? LINES_GENERAL
                  : (f & CLSORT_LINES_HUMAN_NUMERIC) ? LINES_HUMAN : LINES_BYTES;
        q->reverse = !!(f & CLSORT_LINES_REVERSE);
        /* folding changes no number's value (digits, signs, 'e', "inf"), only -h's units */
        q->fold = !!(f & CLSORT_LINES_FOLD) && (q->kind == LINES_BYTES || q->kind == LINES_HUMAN);
        q->ignore = (f & CLSORT_LINES_DICTIONARY) ? nondictionary
                    : (f & CLSORT_LINES_NONPRINTING) ? nonprinting : NULL;
    }
    return CLSORT_OK;
}

/* begfield() and limfield() of GNU sort; lim is the end of the line's text. */
static const char *key_begin(const lines_order *o, const lines_key *k, const char *p, const char *lim)
{
    if (k->sword == SIZE_MAX) {
        if (k->skip_start)
            while (p < lim && blanks[(unsigned char)*p])
                p++;
        return p;
    }
    size_t sword = k->sword;
    if (o->tab >= 0) {
        while (p < lim && sword--) {
            const char *t = memchr(p, o->tab, (size_t)(lim - p));
            p = t ? t + 1 : lim;
        }
    } else {
        while (p < lim && sword--) {
            while (p < lim && blanks[(unsigned char)*p])
                p++;
            while (p < lim && !blanks[(unsigned char)*p])
                p++;
        }
    }
    if (k->skip_start)
        while (p < lim && blanks[(unsigned char)*p])
            p++;
    return (size_t)(lim - p) < k->schar ? lim : p + k->schar;
}

static const char *key_limit(const lines_order *o, const lines_key *k, const char *p, const char *lim)
{
    if (k->eword == SIZE_MAX)
        return lim;
    size_t eword = k->eword, echar = k->echar;
    if (echar == 0)
        eword++; /* all of the end field */
    if (o->tab >= 0) {
        while (p < lim && eword--) {
            const char *t = memchr(p, o->tab, (size_t)(lim - p));
            p = t ? t : lim;
            if (p < lim && (eword || echar))
                p++;
        }
    } else {
        while (p < lim && eword--) {
            while (p < lim && blanks[(unsigned char)*p])
                p++;
            while (p < lim && !blanks[(unsigned char)*p])
                p++;
        }
    }
    if (echar != 0) {
        if (k->skip_end)
            while (p < lim && blanks[(unsigned char)*p])
                p++;
        p = (size_t)(lim - p) < echar ? lim : p + echar;
    }
    return p;
}

/* A decimal number as strnumcmp() reads it in the C locale: an optional '-', digits, an optional
 * '.' and digits, leading zeros and trailing fraction zeros not counted. */
typedef struct decimal {
    int neg;
    const char *ip; size_t il; /* integer digits without leading zeros */
    const char *fp; size_t fl; /* fraction digits without trailing zeros */
} decimal;

static const char *skip_blanks(const char *p, const char *lim)
{
    while (p < lim && blanks[(unsigned char)*p])
        p++;
    return p;
}

static void decimal_read(const char *p, const char *lim, decimal *d)
{
    d->neg = 0;
    if (p < lim && *p == '-') {
        d->neg = 1;
        p++;
    }
    while (p < lim && *p == '0')
        p++;
    d->ip = p;
    while (p < lim && *p >= '0' && *p <= '9')
        p++;
    d->il = (size_t)(p - d->ip);
    d->fp = p;
    d->fl = 0;
    if (p < lim && *p == '.') {
        d->fp = ++p;
        while (p < lim && *p >= '0' && *p <= '9')
            p++;
        const char *e = p;
        while (e > d->fp && e[-1] == '0')
            e--;
        d->fl = (size_t)(e - d->fp);
    }
    if (d->il == 0 && d->fl == 0)
        d->neg = 0; /* -0 is 0 */
}

static int decimal_cmp_abs(const decimal *a, const decimal *b)
{
    if (a->il != b->il)
        return a->il < b->il ? -1 : 1;
    int c = memcmp(a->ip, b->ip, a->il);
    if (c)
        return c < 0 ? -1 : 1;
    size_t m = a->fl < b->fl ? a->fl : b->fl;
    c = memcmp(a->fp, b->fp, m);
    if (c)
        return c < 0 ? -1 : 1;
    return a->fl < b->fl ? -1 : a->fl > b->fl;
}

static int decimal_cmp(const decimal *a, const decimal *b)
{
    if (a->neg != b->neg)
        return a->neg ? -1 : 1;
    const int c = decimal_cmp_abs(a, b);
    return a->neg ? -c : c;
}

/* The unit after a -h number (0 for a zero or none), negative for negative numbers; fold: -f
 * makes a lower-case letter its upper-case unit. GNU sort 9.1's units: K (and k) M G T P E Z Y. */
static int human_unit(const char *p, const char *lim, int fold)
{
    int neg = p < lim && *p == '-';
    p += neg;
    char max_digit = 0;
    while (p < lim && *p >= '0' && *p <= '9')
        max_digit = *p > max_digit ? *p : max_digit, p++;
    if (p < lim && *p == '.') {
        p++;
        while (p < lim && *p >= '0' && *p <= '9')
            max_digit = *p > max_digit ? *p : max_digit, p++;
    }
    if (max_digit <= '0' || p >= lim)
        return 0;
    static const char units[] = "KMGTPEZY";
    const int c = fold ? fold_upper[(unsigned char)*p] : (unsigned char)*p;
    int order = 0;
    if (c == 'k')
        order = 1;
    else if (c) {
        const char *u = strchr(units, c);
        order = u ? (int)(u - units) + 1 : 0;
    }
    return neg ? -order : order;
}

/* strtold() of the key, as GNU sort's -g reads it: a copy ends it where the key ends. */
static long double general_value(const char *p, const char *lim, int *ok)
{
    char small[128];
    const size_t len = (size_t)(lim - p);
    char *s = len < sizeof small ? small : malloc(len + 1);
    if (!s) {
        *ok = 0; /* cannot happen in practice; ordered as text that is no number */
        return 0;
    }
    memcpy(s, p, len);
    s[len] = '\0';
    char *end;
    const long double v = strtold(s, &end);
    *ok = end != s;
    if (s != small)
        free(s);
    return v;
}

/* GNU sort 9.1 orders NaNs by the bytes of the long double (memcmp): here its 10 bytes of value
 * (GNU sort reads the 6 bytes of padding too, which nothing sets: its order of NaNs of equal
 * bits varies from run to run; here they are equal, and the last-resort comparison orders them). */
static int nan_cmp(long double a, long double b)
{
    unsigned char x[sizeof(long double)] = { 0 }, y[sizeof(long double)] = { 0 };
    const size_t bytes = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);
    memcpy(x, &a, bytes);
    memcpy(y, &b, bytes);
    const int c = memcmp(x, y, sizeof x);
    return c < 0 ? -1 : c > 0;
}

static int general_cmp(const char *a, const char *la, const char *b, const char *lb)
{
    int oka, okb;
    const long double x = general_value(a, la, &oka), y = general_value(b, lb, &okb);
    if (!oka)
        return okb ? -1 : 0;
    if (!okb)
        return 1;
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : y == y ? -1 : x == x ? 1 : nan_cmp(x, y);
}

/* Bytes of a key left after the ignored ones, folded where asked. */
static int bytes_cmp(const lines_key *k, const char *ta, const char *la, const char *tb, const char *lb)
{
    if (k->ignore) {
        const unsigned char *ig = k->ignore;
        for (;;) {
            while (ta < la && ig[(unsigned char)*ta])
                ta++;
            while (tb < lb && ig[(unsigned char)*tb])
                tb++;
            if (!(ta < la && tb < lb))
                break;
            int x = (unsigned char)*ta, y = (unsigned char)*tb;
            if (k->fold)
                x = fold_upper[x], y = fold_upper[y];
            if (x != y)
                return x - y;
            ta++;
            tb++;
        }
        return (ta < la) - (tb < lb);
    }
    const size_t lena = (size_t)(la - ta), lenb = (size_t)(lb - tb);
    const size_t m = lena < lenb ? lena : lenb;
    if (k->fold) {
        for (size_t i = 0; i < m; i++) {
            const int d = fold_upper[(unsigned char)ta[i]] - fold_upper[(unsigned char)tb[i]];
            if (d)
                return d;
        }
    } else if (m) {
        const int d = memcmp(ta, tb, m);
        if (d)
            return d;
    }
    return lena < lenb ? -1 : lena != lenb;
}

static int key_cmp(const lines_key *k, const char *ta, const char *la, const char *tb, const char *lb)
{
    switch (k->kind) {
    case LINES_NUMERIC: {
        decimal x, y;
        decimal_read(skip_blanks(ta, la), la, &x);
        decimal_read(skip_blanks(tb, lb), lb, &y);
        return decimal_cmp(&x, &y);
    }
    case LINES_HUMAN: {
        ta = skip_blanks(ta, la);
        tb = skip_blanks(tb, lb);
        const int ua = human_unit(ta, la, k->fold), ub = human_unit(tb, lb, k->fold);
        if (ua != ub)
            return ua < ub ? -1 : 1;
        decimal x, y;
        decimal_read(ta, la, &x);
        decimal_read(tb, lb, &y);
        return decimal_cmp(&x, &y);
    }
    case LINES_GENERAL:
        return general_cmp(ta, la, tb, lb);
    default:
        return bytes_cmp(k, ta, la, tb, lb);
    }
}

int lines_compare(const lines_order *o, const char *a, size_t alen, const char *b, size_t blen)
{
    const char *ea = a + alen, *eb = b + blen;
    for (size_t i = 0; i < o->n_keys; i++) {
        const lines_key *k = &o->keys[i];
        const char *ta = key_begin(o, k, a, ea), *tb = key_begin(o, k, b, eb);
        const char *la = key_limit(o, k, a, ea), *lb = key_limit(o, k, b, eb);
        if (la < ta)
            la = ta; /* a key that ends before it starts is empty */
        if (lb < tb)
            lb = tb;
        const int d = key_cmp(k, ta, la, tb, lb);
        if (d)
            return k->reverse ? (d < 0 ? 1 : -1) : (d < 0 ? -1 : 1);
    }
    if (o->n_keys && (o->unique || o->stable))
        return 0;
    const size_t m = alen < blen ? alen : blen;
    int d = m ? memcmp(a, b, m) : 0;
    if (!d)
        d = alen < blen ? -1 : alen != blen;
    d = d < 0 ? -1 : d > 0;
    return o->reverse ? -d : d;
}

/* Order-preserving 64-bit images of doubles (-0 as +0, NaN not given). */
static uint64_t double_order(double v)
{
    if (v == 0)
        v = 0; /* -0 equals +0 */
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

/* The value of a decimal, rounded to a double the same way for equal values: exact integers of
 * up to 18 digits directly, else strtod() of its digits (a bounded copy, truncated towards zero,
 * which keeps the order). */
static double decimal_double(const decimal *d)
{
    if (d->fl == 0 && d->il <= 18) {
        uint64_t v = 0;
        for (size_t i = 0; i < d->il; i++)
            v = v * 10 + (uint64_t)(d->ip[i] - '0');
        const double x = (double)v;
        return d->neg ? -x : x;
    }
    char s[64];
    size_t n = 0, budget = 40;
    if (d->neg)
        s[n++] = '-';
    size_t il = d->il;
    for (size_t i = 0; i < il && budget; i++, budget--)
        s[n++] = d->ip[i];
    size_t exp10 = il > 40 ? il - 40 : 0;
    if (!budget && exp10) {
        n += (size_t)snprintf(s + n, sizeof s - n, "e%zu", exp10 > 99999 ? (size_t)99999 : exp10);
    } else {
        s[n++] = '.';
        for (size_t i = 0; i < d->fl && budget; i++, budget--)
            s[n++] = d->fp[i];
    }
    s[n] = '\0';
    return strtod(s, NULL);
}

/* Bytes of a key, as bytes_cmp() reads them, in the 8 bytes of a big-endian prefix. */
static uint64_t bytes_prefix(const lines_key *k, const char *t, const char *l)
{
    if (!k || (!k->ignore && !k->fold)) { /* the bytes as they are: one load (a byte swap) */
        unsigned char b[8] = { 0 };
        memcpy(b, t, (size_t)(l - t) < sizeof b ? (size_t)(l - t) : sizeof b);
        return (uint64_t)b[0] << 56 | (uint64_t)b[1] << 48 | (uint64_t)b[2] << 40 |
               (uint64_t)b[3] << 32 | (uint64_t)b[4] << 24 | (uint64_t)b[5] << 16 |
               (uint64_t)b[6] << 8 | b[7];
    }
    uint64_t v = 0;
    int got = 0;
    for (; t < l && got < 8; t++) {
        unsigned c = (unsigned char)*t;
        if (k && k->ignore && k->ignore[c])
            continue;
        if (k && k->fold)
            c = fold_upper[c];
        v = v << 8 | c;
        got++;
    }
    return got == 8 ? v : got ? v << (8 * (8 - got)) : 0;
}

uint64_t lines_prefix(const lines_order *o, const char *line, size_t len)
{
    const char *end = line + len;
    if (o->n_keys == 0) {
        const uint64_t v = bytes_prefix(NULL, line, end);
        return o->reverse ? ~v : v;
    }
    const lines_key *k = &o->keys[0];
    const char *t = key_begin(o, k, line, end), *l = key_limit(o, k, line, end);
    if (l < t)
        l = t;
    uint64_t v;
    switch (k->kind) {
    case LINES_NUMERIC: {
        decimal d;
        decimal_read(skip_blanks(t, l), l, &d);
        v = double_order(decimal_double(&d));
        break;
    }
    case LINES_HUMAN: {
        t = skip_blanks(t, l);
        const int unit = human_unit(t, l, k->fold);
        decimal d;
        decimal_read(t, l, &d);
        /* the unit first (5 bits), then the value, its lowest bits given up */
        v = (uint64_t)(unit + 10) << 59 | double_order(decimal_double(&d)) >> 5;
        break;
    }
    case LINES_GENERAL: {
        int ok;
        const long double x = general_value(t, l, &ok);
        /* text that is no number first, then NaNs, then numbers (never 0 or 1: see double_order) */
        v = !ok ? 0 : isnan(x) ? 1 : double_order((double)x);
        break;
    }
    default:
        v = bytes_prefix(k, t, l);
        break;
    }
    return k->reverse ? ~v : v;
}
