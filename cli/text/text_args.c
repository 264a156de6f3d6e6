/*
 * clsort text's options: GNU sort's, with GNU sort's meanings and messages (exit 2 for a bad one).
 * Options whose output clsort cannot give byte for byte (-M, -R, -V, --debug, a collation other
 * than C) are refused by name, pointing to GNU sort, never sorted differently.
 * Calls msg.c, the C library.
 */
#include "cli.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* xstrtoumax() as GNU sort reads counts: blanks, an optional '+', digits (too large: SIZE_MAX). */
static const char *parse_count(const char *s, size_t *val)
{
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    size_t v = 0;
    int over = 0;
    for (; isdigit((unsigned char)*p); p++) {
        const size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    *val = over ? SIZE_MAX : v;
    return p;
}

/* GNU sort's set_ordering(): modifier letters; end: b applies to POS2. Returns where they stop,
 * or NULL with the unsupported letter in *bad. */
static const char *parse_modifiers(const char *s, unsigned *flags, int end, char *bad)
{
    for (;; s++) {
        switch (*s) {
        case 'b': *flags |= end ? CLSORT_LINES_BLANKS_END : CLSORT_LINES_BLANKS_START; break;
        case 'd': *flags |= CLSORT_LINES_DICTIONARY; break;
        case 'f': *flags |= CLSORT_LINES_FOLD; break;
        case 'g': *flags |= CLSORT_LINES_GENERAL_NUMERIC; break;
        case 'h': *flags |= CLSORT_LINES_HUMAN_NUMERIC; break;
        case 'i': *flags |= CLSORT_LINES_NONPRINTING; break;
        case 'n': *flags |= CLSORT_LINES_NUMERIC; break;
        case 'r': *flags |= CLSORT_LINES_REVERSE; break;
        case 'M': case 'R': case 'V':
            *bad = *s;
            return NULL;
        default:
            return s;
        }
    }
}

int text_parse_key(const char *spec, clsort_lines_key *key, char *why, size_t cap)
{
    memset(key, 0, sizeof *key);
    char bad = 0;
    const char *s = parse_count(spec, &key->start_field);
    if (!s) {
        snprintf(why, cap, "invalid number at field start: invalid count at start of '%s'", spec);
        return -1;
    }
    if (key->start_field == 0) {
        snprintf(why, cap, "field number is zero: invalid field specification '%s'", spec);
        return -1;
    }
    if (*s == '.') {
        const char *t = parse_count(s + 1, &key->start_char);
        if (!t) {
            snprintf(why, cap, "invalid number after '.': invalid count at start of '%s'", s + 1);
            return -1;
        }
        if (key->start_char == 0) {
            snprintf(why, cap, "character offset is zero: invalid field specification '%s'", spec);
            return -1;
        }
        s = t;
    }
    s = parse_modifiers(s, &key->flags, 0, &bad);
    if (s && *s == ',') {
        const char *t = parse_count(s + 1, &key->end_field);
        if (!t) {
            snprintf(why, cap, "invalid number after ',': invalid count at start of '%s'", s + 1);
            return -1;
        }
        if (key->end_field == 0) {
            snprintf(why, cap, "field number is zero: invalid field specification '%s'", spec);
            return -1;
        }
        s = t;
        if (*s == '.') {
            t = parse_count(s + 1, &key->end_char);
            if (!t) {
                snprintf(why, cap, "invalid number after '.': invalid count at start of '%s'", s + 1);
                return -1;
            }
            s = t;
        }
        s = parse_modifiers(s, &key->flags, 1, &bad);
    }
    if (!s) {
        snprintf(why, cap, "-k %s: the modifier %c (%s) is not supported by clsort text; "
                 "use GNU sort for it", spec, bad,
                 bad == 'M' ? "month names" : bad == 'R' ? "random order" : "version numbers");
        return 1;
    }
    if (*s) {
        snprintf(why, cap, "stray character in field spec: invalid field specification '%s'", spec);
        return -1;
    }
    return 0;
}

static int usage_error(void)
{
    fprintf(stderr, "Try 'clsort text --help' for more information.\n");
    return TEXT_EXIT_ERROR;
}

static int unsupported(const char *what)
{
    msg_error("%s is not supported by clsort text (its output would differ from GNU sort's): "
              "use GNU sort for it", what);
    return TEXT_EXIT_ERROR;
}

/* -S: a number with an optional unit (b, %, K M G T P E Z Y; none is KiB), GNU sort's way. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 10;
    if (*end) {
        if (end[1])
            return -1;
        switch (*end) {
        case 'b': shift = 0; break;
        case '%': {
            const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
            const uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
            if (v > 100 || phys == 0)
                return -1;
            *out = phys / 100 * v;
            return 0;
        }
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        case 'P': shift = 50; break;
        case 'E': shift = 60; break;
        case 'Z': case 'Y': shift = 63; break;
        default: return -1;
        }
    }
    *out = shift >= 63 || v > (UINT64_MAX >> shift) ? UINT64_MAX : (uint64_t)v << shift;
    return 0;
}

/* The collation and numbers of the environment's locale must be C's: byte order, '.' and no
 * thousands separator. A locale that is not installed is C, for GNU sort as here. */
static int locale_is_c(int category, char *name, size_t cap)
{
    const char *l = setlocale(category, "");
    int ok = 1;
    if (l) {
        snprintf(name, cap, "%s", l);
        ok = strcmp(l, "C") == 0 || strcmp(l, "POSIX") == 0 || strncmp(l, "C.", 2) == 0;
    }
    setlocale(category, "C");
    return ok;
}

enum {
    OPT_CHECK = 256, OPT_FILES0, OPT_PARALLEL, OPT_SORT, OPT_HELP, OPT_VERSION, OPT_DEVICE,
    OPT_BATCH, OPT_DEBUG, OPT_COMPRESS, OPT_RANDOM_SOURCE, OPT_STATS
};

static const struct option long_options[] = {
    {"ignore-leading-blanks", no_argument, NULL, 'b'},
    {"check", optional_argument, NULL, OPT_CHECK},
    {"compress-program", required_argument, NULL, OPT_COMPRESS},
    {"debug", no_argument, NULL, OPT_DEBUG},
    {"dictionary-order", no_argument, NULL, 'd'},
    {"ignore-case", no_argument, NULL, 'f'},
    {"files0-from", required_argument, NULL, OPT_FILES0},
    {"general-numeric-sort", no_argument, NULL, 'g'},
    {"ignore-nonprinting", no_argument, NULL, 'i'},
    {"key", required_argument, NULL, 'k'},
    {"merge", no_argument, NULL, 'm'},
    {"month-sort", no_argument, NULL, 'M'},
    {"numeric-sort", no_argument, NULL, 'n'},
    {"human-numeric-sort", no_argument, NULL, 'h'},
    {"version-sort", no_argument, NULL, 'V'},
    {"random-sort", no_argument, NULL, 'R'},
    {"random-source", required_argument, NULL, OPT_RANDOM_SOURCE},
    {"sort", required_argument, NULL, OPT_SORT},
    {"output", required_argument, NULL, 'o'},
    {"reverse", no_argument, NULL, 'r'},
    {"stable", no_argument, NULL, 's'},
    {"batch-size", required_argument, NULL, OPT_BATCH},
    {"buffer-size", required_argument, NULL, 'S'},
    {"field-separator", required_argument, NULL, 't'},
    {"temporary-directory", required_argument, NULL, 'T'},
    {"unique", no_argument, NULL, 'u'},
    {"zero-terminated", no_argument, NULL, 'z'},
    {"parallel", required_argument, NULL, OPT_PARALLEL},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"stats", no_argument, NULL, OPT_STATS},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* --files0-from: names separated by NUL bytes; "-" as a name only when the list is not stdin. */
static int read_files0(const char *from, text_args *a)
{
    FILE *f = strcmp(from, "-") == 0 ? stdin : fopen(from, "rb");
    if (!f) {
        msg_error("cannot open '%s' for reading: %s", from, strerror(errno));
        return TEXT_EXIT_ERROR;
    }
    char *data = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 4096;
            char *d = realloc(data, cap);
            if (!d) {
                free(data);
                msg_error("out of memory reading '%s'", from);
                return TEXT_EXIT_ERROR;
            }
            data = d;
        }
        data[len++] = (char)c;
    }
    const int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (err) {
        free(data);
        msg_error("%s: read error", from);
        return TEXT_EXIT_ERROR;
    }
    if (len && data[len - 1] != '\0')
        data[len++] = '\0';
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += data[i] == '\0';
    if (n == 0) {
        free(data);
        msg_error("no input from '%s'", from);
        return TEXT_EXIT_ERROR;
    }
    a->files0 = calloc(n + 1, sizeof *a->files0);
    if (!a->files0) {
        free(data);
        msg_error("out of memory reading '%s'", from);
        return TEXT_EXIT_ERROR;
    }
    a->files0[n] = data; /* the names' storage, freed by text_args_free() */
    a->n_files = n;
    size_t k = 0, start = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\0')
            continue;
        if (i == start) {
            msg_error("%s:%zu: invalid zero-length file name", from, k + 1);
            return TEXT_EXIT_ERROR;
        }
        if (strcmp(from, "-") == 0 && strcmp(data + start, "-") == 0) {
            msg_error("when reading file names from stdin, no file name of '-' allowed");
            return TEXT_EXIT_ERROR;
        }
        a->files0[k++] = data + start;
        start = i + 1;
    }
    a->files = (const char **)a->files0;
    return -1;
}

void text_args_free(text_args *a)
{
    if (a->files0) {
        size_t n = a->n_files;
        free(a->files0[n]);
        free(a->files0);
    } else {
        free(a->files);
    }
    a->files0 = NULL;
    a->files = NULL;
}

/* key_to_opts() of GNU sort: the letters of a key's orders, for "options '-dn' are incompatible" */
static void key_letters(unsigned f, char *out)
{
    if (f & CLSORT_LINES_DICTIONARY)
        *out++ = 'd';
    if (f & CLSORT_LINES_FOLD)
        *out++ = 'f';
    if (f & CLSORT_LINES_GENERAL_NUMERIC)
        *out++ = 'g';
    if (f & CLSORT_LINES_HUMAN_NUMERIC)
        *out++ = 'h';
    if ((f & CLSORT_LINES_NONPRINTING) && !(f & CLSORT_LINES_DICTIONARY))
        *out++ = 'i';
    if (f & CLSORT_LINES_NUMERIC)
        *out++ = 'n';
    *out = '\0';
}

/* What text_parse_args() gathers beyond text_args while it reads the options. */
typedef struct text_parse {
    text_args *a;
    char **av;               /* getopt's argv: av[optind - 1] is the option just read */
    unsigned global;         /* the orders given as options, for keys without their own */
    size_t n_keys;
    const char *files0_from; /* --files0-from, or NULL */
} text_parse;

/* An option's letter that is an order of every key (-b -d -f -g -h -i -n -r), or 0. */
static unsigned order_flag(int c)
{
    switch (c) {
    case 'b': return CLSORT_LINES_BLANKS_START | CLSORT_LINES_BLANKS_END;
    case 'd': return CLSORT_LINES_DICTIONARY;
    case 'f': return CLSORT_LINES_FOLD;
    case 'g': return CLSORT_LINES_GENERAL_NUMERIC;
    case 'h': return CLSORT_LINES_HUMAN_NUMERIC;
    case 'i': return CLSORT_LINES_NONPRINTING;
    case 'n': return CLSORT_LINES_NUMERIC;
    case 'r': return CLSORT_LINES_REVERSE;
    default: return 0;
    }
}

/* An operand: a file, unless it is the obsolete +POS key form. */
static int opt_operand(text_parse *p, const char *arg)
{
    if (arg[0] == '+' && isdigit((unsigned char)arg[1]))
        return unsupported("the obsolete key form +POS (write -k instead)");
    p->a->files[p->a->n_files++] = arg;
    return -1;
}

/* --sort=WORD: GNU sort's words; a word it does not know is its status 1, as for --check. */
static int opt_sort(text_parse *p, const char *arg)
{
    if (strcmp(arg, "numeric") == 0) {
        p->global |= CLSORT_LINES_NUMERIC;
    } else if (strcmp(arg, "general-numeric") == 0) {
        p->global |= CLSORT_LINES_GENERAL_NUMERIC;
    } else if (strcmp(arg, "human-numeric") == 0) {
        p->global |= CLSORT_LINES_HUMAN_NUMERIC;
    } else if (strcmp(arg, "month") == 0 || strcmp(arg, "random") == 0 ||
               strcmp(arg, "version") == 0) {
        char what[512];
        snprintf(what, sizeof what, "--sort=%s", arg);
        return unsupported(what);
    } else {
        msg_error("invalid argument '%s' for '--sort'", arg);
        fprintf(stderr, "Valid arguments are:\n  - 'general-numeric'\n  - 'human-numeric'\n"
                        "  - 'month'\n  - 'numeric'\n  - 'random'\n  - 'version'\n");
        usage_error();
        return 1; /* GNU sort's status for a bad word */
    }
    return -1;
}

/* -c, -C, --check[=WORD]: one of the two kinds only. */
static int opt_check(text_parse *p, int c, const char *arg)
{
    int k = c;
    if (c == OPT_CHECK) {
        if (!arg || strcmp(arg, "diagnose-first") == 0) {
            k = 'c';
        } else if (strcmp(arg, "quiet") == 0 || strcmp(arg, "silent") == 0) {
            k = 'C';
        } else {
            msg_error("invalid argument '%s' for '--check'", arg);
            fprintf(stderr, "Valid arguments are:\n  - 'quiet', 'silent'\n"
                            "  - 'diagnose-first'\n");
            usage_error();
            return 1;
        }
    }
    if (p->a->check && p->a->check != k) {
        msg_error("options '-cC' are incompatible");
        return TEXT_EXIT_ERROR;
    }
    p->a->check = k;
    return -1;
}

static int opt_key(text_parse *p, const char *arg)
{
    if (p->n_keys == CLSORT_LINES_MAX_KEYS) {
        msg_error("more than %d keys: clsort text takes at most %d; use GNU sort",
                  CLSORT_LINES_MAX_KEYS, CLSORT_LINES_MAX_KEYS);
        return TEXT_EXIT_ERROR;
    }
    char why[512];
    if (text_parse_key(arg, &p->a->keys[p->n_keys], why, sizeof why) != 0) {
        msg_error("%s", why);
        return TEXT_EXIT_ERROR;
    }
    p->n_keys++;
    return -1;
}

/* -o: given twice, only with the same name. */
static int opt_output(text_args *a, const char *arg)
{
    if (a->output && strcmp(a->output, arg) != 0) {
        msg_error("multiple output files specified");
        return TEXT_EXIT_ERROR;
    }
    a->output = arg;
    return -1;
}

/* -S: the largest one given counts. */
static int opt_buffer_size(text_args *a, const char *arg)
{
    uint64_t v;
    if (parse_size(arg, &v) != 0) {
        msg_error("invalid -S argument '%s'", arg);
        return TEXT_EXIT_ERROR;
    }
    if (v > a->memory)
        a->memory = v;
    return -1;
}

/* -t: one byte, or "\0"; given twice, only the same one. */
static int opt_tab(text_args *a, const char *arg)
{
    int t;
    if (arg[0] == '\0') {
        msg_error("empty tab");
        return TEXT_EXIT_ERROR;
    }
    if (arg[1] == '\0') {
        t = (unsigned char)arg[0];
    } else if (strcmp(arg, "\\0") == 0) {
        t = 0;
    } else {
        msg_error("multi-character tab '%s'", arg);
        return TEXT_EXIT_ERROR;
    }
    if (a->spec.separator != -1 && a->spec.separator != t) {
        msg_error("incompatible tabs");
        return TEXT_EXIT_ERROR;
    }
    a->spec.separator = t;
    return -1;
}

static int opt_parallel(text_args *a, const char *arg)
{
    size_t v;
    const char *e = parse_count(arg, &v);
    if (!e || *e) {
        msg_error("invalid number of threads: '%s'", arg);
        return TEXT_EXIT_ERROR;
    }
    if (v == 0) {
        msg_error("number in parallel must be nonzero");
        return TEXT_EXIT_ERROR;
    }
    a->parallel = v > 1024 ? 1024 : (unsigned)v;
    return -1;
}

/* --batch-size: how many files a merge opens at once, no difference to the output; checked only. */
static int opt_batch_size(const char *arg)
{
    size_t v;
    const char *e = parse_count(arg, &v);
    if (!e || *e || v < 2) {
        msg_error("invalid --batch-size argument '%s'", arg);
        return TEXT_EXIT_ERROR;
    }
    return -1;
}

/* getopt's refusal (unknown option, missing argument) in GNU sort's words. */
static int bad_option(char **av)
{
    if (optopt && optopt < 256 && strchr("kotST", optopt) &&
        strncmp(av[optind - 1], "--", 2) != 0)
        msg_error("option requires an argument -- '%c'", optopt);
    else if (optopt && optopt < 256)
        msg_error("invalid option -- '%c'", optopt);
    else if (optopt >= 256)
        msg_error("option '%s' requires an argument", av[optind - 1]);
    else
        msg_error("unrecognized option '%s'", av[optind - 1]);
    return usage_error();
}

/* One option c from getopt_long(), its argument in optarg. Returns -1 to go on, else an exit
 * status; --help and --version go on too, with a->help or a->version set. */
static int text_option(text_parse *p, int c)
{
    text_args *a = p->a;
    if (order_flag(c)) {
        p->global |= order_flag(c);
        return -1;
    }
    switch (c) {
    case 1: return opt_operand(p, optarg);
    case 'M': return unsupported("-M (--month-sort)");
    case 'R': return unsupported("-R (--random-sort)");
    case 'V': return unsupported("-V (--version-sort)");
    case OPT_RANDOM_SOURCE: return unsupported("--random-source");
    case OPT_DEBUG: return unsupported("--debug");
    case OPT_COMPRESS: return unsupported("--compress-program");
    case OPT_SORT: return opt_sort(p, optarg);
    case 'c': case 'C': case OPT_CHECK: return opt_check(p, c, optarg);
    case 'k': return opt_key(p, optarg);
    case 'm': a->merge = 1; return -1;
    case 'o': return opt_output(a, optarg);
    case 's': a->spec.stable = 1; return -1;
    case 'u': a->spec.unique = 1; return -1;
    case 'z': a->spec.delimiter = '\0'; return -1;
    case 'y': return -1; /* obsolete, ignored by GNU sort too */
    case 'S': return opt_buffer_size(a, optarg);
    case 't': return opt_tab(a, optarg);
    case 'T':
        if (!a->tmpdir)
            a->tmpdir = optarg;
        return -1;
    case OPT_PARALLEL: return opt_parallel(a, optarg);
    case OPT_BATCH: return opt_batch_size(optarg);
    case OPT_FILES0: p->files0_from = optarg; return -1;
    case OPT_DEVICE: a->device = optarg; return -1;
    case OPT_STATS: a->stats = 1; return -1;
    case OPT_HELP: a->help = 1; return -1;
    case OPT_VERSION: a->version = 1; return -1;
    default: return bad_option(p->av); /* ':' and '?' */
    }
}

/* Keys without modifiers of their own take the global ones (GNU sort's inheritance); without
 * keys, global orders are one key of the whole line. A key of two orders is refused. */
static int finish_keys(text_parse *p)
{
    text_args *a = p->a;
    for (size_t i = 0; i < p->n_keys; i++)
        if (a->keys[i].flags == 0)
            a->keys[i].flags = p->global;
    if (p->n_keys == 0 && (p->global & ~(unsigned)CLSORT_LINES_REVERSE)) {
        a->keys[0] = (clsort_lines_key){ 0, 0, 0, 0, p->global };
        p->n_keys = 1;
    }
    for (size_t i = 0; i < p->n_keys; i++) {
        const unsigned f = a->keys[i].flags;
        const int orders = !!(f & CLSORT_LINES_NUMERIC) + !!(f & CLSORT_LINES_GENERAL_NUMERIC) +
                           !!(f & CLSORT_LINES_HUMAN_NUMERIC) +
                           !!(f & (CLSORT_LINES_DICTIONARY | CLSORT_LINES_NONPRINTING));
        if (orders > 1) {
            char letters[16];
            key_letters(f, letters);
            msg_error("options '-%s' are incompatible", letters);
            return TEXT_EXIT_ERROR;
        }
    }
    a->spec.keys = a->keys;
    a->spec.n_keys = p->n_keys;
    a->spec.reverse = !!(p->global & CLSORT_LINES_REVERSE);
    return -1;
}

/* The inputs: the operands, --files0-from's list or stdin; -c and -C check one, and write none. */
static int finish_files(text_parse *p)
{
    text_args *a = p->a;
    if (p->files0_from) {
        if (a->n_files) {
            msg_error("extra operand '%s'", a->files[0]);
            fprintf(stderr, "file operands cannot be combined with --files0-from\n");
            return usage_error();
        }
        free(a->files);
        a->files = NULL;
        const int rc = read_files0(p->files0_from, a);
        if (rc != -1)
            return rc;
    } else if (a->n_files == 0) {
        a->files[a->n_files++] = "-";
    }
    if (a->check) {
        if (a->n_files > 1) {
            msg_error("extra operand '%s' not allowed with -%c", a->files[1], a->check);
            return TEXT_EXIT_ERROR;
        }
        if (a->output) {
            msg_error("options '-%co' are incompatible", a->check);
            return TEXT_EXIT_ERROR;
        }
    }
    return -1;
}

static int check_locale(void)
{
    char name[256];
    if (!locale_is_c(LC_COLLATE, name, sizeof name) || !locale_is_c(LC_NUMERIC, name, sizeof name)) {
        msg_error("the locale '%s' (LC_ALL, LC_COLLATE, LC_NUMERIC or LANG) orders text other than "
                  "bytes; clsort text sorts as LC_ALL=C sort does: set LC_ALL=C, or use GNU sort for "
                  "the locale's order", name);
        return TEXT_EXIT_ERROR;
    }
    return -1;
}

int text_parse_args(int argc, char **argv, int first, text_args *a)
{
    memset(a, 0, sizeof *a);
    clsort_lines_spec_default(&a->spec);
    /* getopt over argv[first - 1 ..]: the command's name stands in for the program's */
    text_parse p = { .a = a, .av = argv + first - 1 };
    const int ac = argc - first + 1;
    a->files = calloc((size_t)ac + 1, sizeof *a->files);
    if (!a->files) {
        msg_error("out of memory");
        return TEXT_EXIT_ERROR;
    }
    optind = 0; /* glibc: start over */
    opterr = 0;
    int c;
    while ((c = getopt_long(ac, p.av, "-bcCdfghik:mMno:rRsS:t:T:uVy:z", long_options, NULL)) != -1) {
        const int rc = text_option(&p, c);
        if (rc != -1)
            return rc;
        if (a->help || a->version)
            return -1; /* at once, as GNU sort: nothing after them is read */
    }
    int rc = finish_keys(&p);
    if (rc == -1)
        rc = finish_files(&p);
    if (rc == -1)
        rc = check_locale();
    return rc;
}
