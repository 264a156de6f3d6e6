/*
 * The one builder of the -D options that carry a family's parameters into its kernels: every family
 * adds NAME=value pairs here, so the option strings are spelt one way.
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define CLSORT_OPT_NAME(name) #name,
const char *const clsort_opt_macro_names[CLSORT_OPT_COUNT] = { CLSORT_OPT_MACROS(CLSORT_OPT_NAME) };
#undef CLSORT_OPT_NAME

/* Kernel macros with #ifndef defaults that the library's shapes are tuned and checked with (ranks
 * packed two to a register, the padding of local tables, the warp ranking of segments): refused
 * too. The other defaults of cl/ (ONE_DIGIT_COPY, the tests' STALL_TILE) stay open: they switch
 * between kernel forms that sort alike. */
static const char *const kernel_macros[] = { "PACK_RANKS", "RANK_PAD", "SEG_PAD", "SEG_WARP" };

void clsort_opts_init(clsort_opts *b)
{
    b->text[0] = '\0';
    b->len = 0;
    b->overflow = 0;
}

/* Appends len bytes, or marks the builder overflowed. Plain copies, not snprintf(): a sort builds
 * its options on every call, before its first launch, so their cost is part of every call's
 * latency (about 2 us of formatting on a 2^24-key sort). */
static int opts_append(clsort_opts *b, const char *s, size_t len)
{
    if (b->overflow || len >= sizeof b->text - b->len) {
        b->overflow = 1;
        return 0;
    }
    memcpy(b->text + b->len, s, len);
    b->len += len;
    b->text[b->len] = '\0';
    return 1;
}

void clsort_opts_add_macro_text(clsort_opts *b, clsort_opt_macro m, const char *value)
{
    const char *const name = clsort_opt_macro_names[m];
    const size_t start = b->len;
    if (!(b->len == 0 || opts_append(b, " ", 1)) || !opts_append(b, "-D", 2) ||
        !opts_append(b, name, strlen(name)) || !opts_append(b, "=", 1) ||
        !opts_append(b, value, strlen(value))) {
        b->text[start] = '\0'; /* the text stays whole options; overflow fails the build */
        b->len = start;
        return;
    }
    /* WG stays redefinable by the user's options (a build-failure hook of the tests); the kernels
     * refuse to build when it no longer matches the work-group size the host launches. */
    if (m == CLSORT_OPT_WG)
        clsort_opts_add_text(b, LIB_WG, value);
}

void clsort_opts_add_macro(clsort_opts *b, clsort_opt_macro m, unsigned long long value)
{
    char v[24], *p = v + sizeof v;
    *--p = '\0';
    do
        *--p = (char)('0' + value % 10);
    while (value /= 10);
    clsort_opts_add_macro_text(b, m, p);
}

static int same_name(const char *a, const char *name, size_t len)
{
    return strlen(a) == len && !strncmp(a, name, len);
}

/* Every name the builder can emit, but WG: the tests redefine it to make builds fail, and the
 * kernels refuse to build when it differs from LIB_WG, which is refused. */
static int is_library_macro(const char *name, size_t len)
{
    for (size_t i = 0; i < CLSORT_OPT_COUNT; i++)
        if (i != CLSORT_OPT_WG && same_name(clsort_opt_macro_names[i], name, len))
            return 1;
    for (size_t i = 0; i < sizeof kernel_macros / sizeof kernel_macros[0]; i++)
        if (same_name(kernel_macros[i], name, len))
            return 1;
    return 0;
}

/* The front end's separators: OpenCL implementations split the options at blanks, and some at any
 * white space (\v, \f and \r too), so every isspace() character ends a word here. */
static size_t blank_len(const char *p)
{
    size_t n = 0;
    while (p[n] && isspace((unsigned char)p[n]))
        n++;
    return n;
}

static size_t word_len(const char *p)
{
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]))
        n++;
    return n;
}

/* The macro a -D or -U names: after any '=' (PoCL reads -D=NAME as -DNAME), the identifier's
 * characters; the compiler takes the name up to the first other character (-DNAME;, -DNAME(x),
 * -DNAME,X all define NAME). */
static size_t macro_name(const char *name, const char **start)
{
    while (*name == '=')
        name++;
    *start = name;
    size_t n = 0;
    while (isalnum((unsigned char)name[n]) || name[n] == '_')
        n++;
    return n;
}

#define ACCEPTED "accepted: compiler options such as -w or -cl-mad-enable, and -D of names the " \
                 "library does not use"

int clsort_opts_check_extra(const char *extra, char *why, size_t size)
{
    /* Quotes and backslashes are never needed by what is accepted, and each front end reads them
     * its own way (PoCL takes -D"NAME"=1 as -DNAME=1): refused wherever they are. */
    const size_t quote = strcspn(extra, "'\"\\");
    if (extra[quote]) {
        snprintf(why, size, "the %s at byte %zu is refused: quotes and backslashes are never "
                 "needed by the options the library accepts, and compilers read them differently; "
                 ACCEPTED " (plain words separated by white space)",
                 extra[quote] == '\\' ? "backslash" : "quote", quote + 1);
        return -1;
    }
    const char *p = extra;
    while (*p) {
        const char *opt = p + blank_len(p);
        const size_t len = word_len(opt);
        p = opt + len;
        if (!len)
            break;
        /* Include files and directories (-I, -include, -imacros, --include-directory...), response
         * files (@FILE), and options that pass words on to another stage (-Xclang, -Xpreprocessor,
         * -Wp,): each could bring in definitions that the words here do not show. */
        if ((opt[0] == '-' && (opt[1] == 'I' || opt[1] == 'i' || opt[1] == 'X')) ||
            !strncmp(opt, "--include", 9) || !strncmp(opt, "--imacros", 9) ||
            !strncmp(opt, "-Wp,", 4) || opt[0] == '@') {
            snprintf(why, size, "'%.*s' is refused: the kernels are the library's own sources, "
                     "and the options given must say all they define; " ACCEPTED, (int)len, opt);
            return -1;
        }
        /* -DNAME, -D NAME, and clang's long spellings --define-macro[=]NAME (-U alike) */
        static const char *const longs[] = { "--define-macro", "--undefine-macro" };
        size_t prefix = opt[0] == '-' && (opt[1] == 'D' || opt[1] == 'U') ? 2 : 0;
        for (int i = 0; i < 2 && !prefix; i++)
            if (!strncmp(opt, longs[i], strlen(longs[i])))
                prefix = strlen(longs[i]);
        if (!prefix)
            continue;
        const char *name;
        size_t name_len = macro_name(opt + prefix, &name);
        if (name == p) { /* the name is the next word (-D NAME, -D =NAME, -D= NAME) */
            const char *next = p + blank_len(p);
            p = next + word_len(next);
            name_len = macro_name(next, &name);
        }
        if (is_library_macro(name, name_len)) {
            snprintf(why, size, "'%.*s' changes %.*s, a macro the library sets; " ACCEPTED,
                     (int)(p - opt), opt, (int)name_len, name);
            return -1;
        }
    }
    return 0;
}
