/*
 * Command-line options of the subcommands.
 */
#include "args.h"
#include "cli.h"
#include "opt.h"

#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Option ids shared by the subcommands' tables. */
enum {
    O_HELP = 1, O_VERSION, O_VERBOSE, O_QUIET, O_FORCE,
    O_INPUT, O_OUTPUT, O_VALUES, O_VALUES_OUT, O_KV, O_ALGO, O_DEVICE, O_REVERSE, O_VERIFY,
    O_STATS, O_STATS_JSON,
    O_COUNT, O_DIST, O_SEED, O_JSON, O_REPEAT, O_WARMUP, O_NO_REF,
    O_TYPE, O_VALUE_SIZE, O_NO_PROGRESS, O_PLOT, O_KEYS, O_PAIRS, O_BITS, O_SEGMENT,
};

static int common_option(int id)
{
    switch (id) {
    case O_VERSION:
        printf("clsort %s\n", clsort_version());
        return EXIT_OK;
    case O_VERBOSE:
        g_verbosity = 2;
        return -1;
    case O_QUIET:
        g_verbosity = 0;
        return -1;
    default:
        return -2; /* not a common option */
    }
}

static int parse_algorithm(const char *name, int *out)
{
    clsort_algorithm a;
    if (clsort_algorithm_from_name(name, &a) != CLSORT_OK) {
        char names[256];
        algorithm_names(names, sizeof names, ", ");
        msg_error("unknown algorithm '%s' (known: %s; see 'clsort --help')", name, names);
        return -1;
    }
    *out = (int)a;
    return 0;
}

/* --value-size V: 0, 4 or 8 bytes. Returns 0, or -1 after an error. */
static int parse_value_size(const opt_state *st, const char *text, size_t *out)
{
    uint64_t v;
    if (opt_parse_u64(st, text, &v) != 0)
        return -1;
    if (v != 0 && v != 4 && v != 8) {
        msg_error("option '%s': %s is not a value size (0, 4 or 8 bytes)", st->current, text);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

/* --bits B:E: two decimal bit numbers. The range is checked against the key width later. Returns 0, or
 * -1 after an error. */
static int parse_bits(const opt_state *st, const char *text, unsigned *begin, unsigned *end)
{
    unsigned long b, e;
    char *p;
    const char *q = text;
    if (*q < '0' || *q > '9')
        goto bad;
    b = strtoul(q, &p, 10);
    if (*p != ':' || p[1] < '0' || p[1] > '9' || b > 64)
        goto bad;
    e = strtoul(p + 1, &p, 10);
    if (*p || e > 64)
        goto bad;
    *begin = (unsigned)b;
    *end = (unsigned)e;
    return 0;
bad:
    msg_error("option '%s': '%s' is not a bit range B:E (e.g. 0:16, bits B to E-1 of the key)",
              st->current, text);
    return -1;
}

static int extra_operand(const char *cmd, const char *arg)
{
    msg_error("unexpected argument '%s' (see 'clsort %s --help')", arg, cmd);
    return EXIT_USAGE;
}

static const opt_def sort_opts[] = {
    {"input", 'i', 1, O_INPUT},
    {"output", 'o', 1, O_OUTPUT},
    {"values", 0, 1, O_VALUES},
    {"values-out", 0, 1, O_VALUES_OUT},
    {"kv", 0, 0, O_KV},
    {"algo", 'a', 1, O_ALGO},
    {"algorithm", 0, 1, O_ALGO},
    {"device", 'd', 1, O_DEVICE},
    {"reverse", 'r', 0, O_REVERSE},
    {"desc", 0, 0, O_REVERSE},
    {"descending", 0, 0, O_REVERSE},
    {"bits", 0, 1, O_BITS},
    {"segment", 0, 1, O_SEGMENT},
    {"verify", 0, 0, O_VERIFY},
    {"stats", 's', 0, O_STATS},
    {"stats-json", 0, 1, O_STATS_JSON},
    {"force", 'f', 0, O_FORCE},
    {"type", 't', 1, O_TYPE},
    {"value-size", 0, 1, O_VALUE_SIZE},
    {"no-progress", 0, 0, O_NO_PROGRESS},
    {"verbose", 'v', 0, O_VERBOSE},
    {"quiet", 'q', 0, O_QUIET},
    {"help", 'h', 0, O_HELP},
    {"version", 'V', 0, O_VERSION},
    {NULL, 0, 0, 0},
};

int parse_sort_args(int argc, char **argv, int first, sort_args *a)
{
    memset(a, 0, sizeof *a);
    a->algorithm = CLSORT_ALGO_AUTO;
    opt_state st;
    opt_init(&st, argc, argv, first, "clsort --help");
    const char *arg;
    int id;
    key_type type = KEY_U32;
    size_t value_size = 0;
    int have_value_size = 0;
    while ((id = opt_next(&st, sort_opts, &arg)) != OPT_END) {
        int rc = common_option(id);
        if (rc != -2) {
            if (rc >= 0)
                return rc;
            continue;
        }
        switch (id) {
        case OPT_ERROR:
            return EXIT_USAGE;
        case OPT_OPERAND:
            if (a->input) {
                msg_error("more than one input ('%s' and '%s'); clsort sorts one file at a time", a->input, arg);
                return EXIT_USAGE;
            }
            a->input = arg;
            break;
        case O_HELP:
            help_sort();
            return EXIT_OK;
        case O_INPUT:
            if (a->input) {
                msg_error("more than one input ('%s' and '%s'); clsort sorts one file at a time", a->input, arg);
                return EXIT_USAGE;
            }
            a->input = arg;
            break;
        case O_OUTPUT: a->output = arg; break;
        case O_VALUES: a->values = arg; break;
        case O_VALUES_OUT: a->values_out = arg; break;
        case O_KV: a->kv = 1; break;
        case O_ALGO:
            if (parse_algorithm(arg, &a->algorithm) != 0)
                return EXIT_USAGE;
            break;
        case O_DEVICE: a->device = arg; break;
        case O_REVERSE: a->descending = 1; break;
        case O_VERIFY: a->verify = 1; break;
        case O_STATS: a->stats = 1; break;
        case O_STATS_JSON: a->stats_json = arg; break;
        case O_FORCE: a->force = 1; break;
        case O_NO_PROGRESS: a->no_progress = 1; break;
        case O_TYPE:
            if (key_type_parse(arg, &type) != 0)
                return EXIT_USAGE;
            break;
        case O_VALUE_SIZE:
            if (parse_value_size(&st, arg, &value_size) != 0)
                return EXIT_USAGE;
            have_value_size = 1;
            break;
        case O_BITS:
            if (parse_bits(&st, arg, &a->begin_bit, &a->end_bit) != 0)
                return EXIT_USAGE;
            a->have_bits = 1;
            break;
        case O_SEGMENT:
            if (opt_parse_count(&st, arg, &a->segment) != 0)
                return EXIT_USAGE;
            break;
        }
    }
    a->type = type;
    if (have_value_size && value_size == 0 && (a->kv || a->values)) {
        msg_error("--value-size 0 means keys only, but %s gives values", a->kv ? "--kv" : "--values");
        return EXIT_USAGE;
    }
    if (have_value_size && value_size > 0 && !a->values && !a->values_out)
        a->kv = 1; /* records of key and value, as 'clsort gen --value-size V' writes them */
    a->value_size = have_value_size ? value_size : (a->kv || a->values) ? 4 : 0;
    if (a->have_bits) {
        unsigned width = (unsigned)key_type_size(type) * 8;
        if (a->begin_bit >= a->end_bit || a->end_bit > width) {
            msg_error("--bits %u:%u is not a bit range of %s keys: expected B:E with 0 <= B < E <= %u",
                      a->begin_bit, a->end_bit, key_type_name(type), width);
            return EXIT_USAGE;
        }
    }
    if ((uint64_t)(size_t)a->segment != a->segment) {
        msg_error("--segment %llu is too large for this machine", (unsigned long long)a->segment);
        return EXIT_USAGE;
    }
    /* combinations */
    if (a->kv && (a->values || a->values_out)) {
        msg_error("--kv (interleaved records) cannot be combined with --values/--values-out (separate files)");
        return EXIT_USAGE;
    }
    if (a->values && !a->values_out) {
        msg_error("--values needs --values-out: where should the sorted values go?");
        return EXIT_USAGE;
    }
    if (a->values_out && !a->values) {
        msg_error("--values-out needs --values: the values to sort with the keys");
        return EXIT_USAGE;
    }
    const char *in = a->input ? a->input : "-";
    const char *out = a->output ? a->output : "-";
    if (a->values) {
        if (strcmp(in, "-") == 0 && strcmp(a->values, "-") == 0) {
            msg_error("keys and values cannot both come from stdin");
            return EXIT_USAGE;
        }
        if (strcmp(out, "-") == 0 && strcmp(a->values_out, "-") == 0) {
            msg_error("sorted keys and values cannot both go to stdout");
            return EXIT_USAGE;
        }
    }
    if (a->stats_json && strcmp(a->stats_json, "-") == 0 &&
        (strcmp(out, "-") == 0 || (a->values_out && strcmp(a->values_out, "-") == 0))) {
        msg_error("--stats-json - would mix the report with the sorted data on stdout");
        return EXIT_USAGE;
    }
    return -1;
}

static const opt_def gen_opts[] = {
    {"count", 'n', 1, O_COUNT},
    {"dist", 0, 1, O_DIST},
    {"seed", 0, 1, O_SEED},
    {"kv", 0, 0, O_KV},
    {"type", 't', 1, O_TYPE},
    {"value-size", 0, 1, O_VALUE_SIZE},
    {"output", 'o', 1, O_OUTPUT},
    {"values-out", 0, 1, O_VALUES_OUT},
    {"force", 'f', 0, O_FORCE},
    {"no-progress", 0, 0, O_NO_PROGRESS},
    {"verbose", 'v', 0, O_VERBOSE},
    {"quiet", 'q', 0, O_QUIET},
    {"help", 'h', 0, O_HELP},
    {"version", 'V', 0, O_VERSION},
    {NULL, 0, 0, 0},
};

int parse_gen_args(int argc, char **argv, int first, gen_args *a)
{
    memset(a, 0, sizeof *a);
    a->dist.kind = DIST_UNIFORM;
    a->seed = 1;
    a->type = KEY_U32;
    int have_n = 0, have_value_size = 0;
    opt_state st;
    opt_init(&st, argc, argv, first, "clsort gen --help");
    const char *arg;
    int id;
    while ((id = opt_next(&st, gen_opts, &arg)) != OPT_END) {
        int rc = common_option(id);
        if (rc != -2) {
            if (rc >= 0)
                return rc;
            continue;
        }
        switch (id) {
        case OPT_ERROR:
            return EXIT_USAGE;
        case OPT_OPERAND:
            return extra_operand("gen", arg);
        case O_HELP:
            help_gen();
            return EXIT_OK;
        case O_COUNT:
            if (opt_parse_count(&st, arg, &a->n) != 0)
                return EXIT_USAGE;
            have_n = 1;
            break;
        case O_DIST:
            if (dist_parse(arg, &a->dist) != 0)
                return EXIT_USAGE;
            break;
        case O_SEED:
            if (opt_parse_u64(&st, arg, &a->seed) != 0)
                return EXIT_USAGE;
            break;
        case O_KV: a->kv = 1; break;
        case O_OUTPUT: a->output = arg; break;
        case O_VALUES_OUT: a->values_out = arg; break;
        case O_FORCE: a->force = 1; break;
        case O_NO_PROGRESS: a->no_progress = 1; break;
        case O_TYPE:
            if (key_type_parse(arg, &a->type) != 0)
                return EXIT_USAGE;
            break;
        case O_VALUE_SIZE:
            if (parse_value_size(&st, arg, &a->value_size) != 0)
                return EXIT_USAGE;
            have_value_size = 1;
            break;
        }
    }
    if (dist_check_type(&a->dist, a->type) != 0)
        return EXIT_USAGE;
    if (have_value_size && a->value_size == 0 && (a->kv || a->values_out)) {
        msg_error("--value-size 0 means keys only, but %s asks for values", a->kv ? "--kv" : "--values-out");
        return EXIT_USAGE;
    }
    if (!have_value_size)
        a->value_size = a->kv || a->values_out ? 4 : 0;
    if (have_value_size && a->value_size > 0 && !a->values_out)
        a->kv = 1; /* the values go with their keys, in records */
    if (!have_n) {
        msg_error("gen needs the number of keys: -n N (see 'clsort gen --help')");
        return EXIT_USAGE;
    }
    if (a->kv && a->values_out) {
        msg_error("--kv (interleaved records) cannot be combined with --values-out (a separate file)");
        return EXIT_USAGE;
    }
    const char *out = a->output ? a->output : "-";
    if (a->values_out && strcmp(out, "-") == 0 && strcmp(a->values_out, "-") == 0) {
        msg_error("keys and values cannot both go to stdout");
        return EXIT_USAGE;
    }
    return -1;
}

static const opt_def devices_opts[] = {
    {"json", 0, 0, O_JSON},
    {"verbose", 'v', 0, O_VERBOSE},
    {"quiet", 'q', 0, O_QUIET},
    {"help", 'h', 0, O_HELP},
    {"version", 'V', 0, O_VERSION},
    {NULL, 0, 0, 0},
};

int parse_devices_args(int argc, char **argv, int first, devices_args *a)
{
    memset(a, 0, sizeof *a);
    opt_state st;
    opt_init(&st, argc, argv, first, "clsort devices --help");
    const char *arg;
    int id;
    while ((id = opt_next(&st, devices_opts, &arg)) != OPT_END) {
        int rc = common_option(id);
        if (rc != -2) {
            if (rc >= 0)
                return rc;
            continue;
        }
        switch (id) {
        case OPT_ERROR:
            return EXIT_USAGE;
        case OPT_OPERAND:
            return extra_operand("devices", arg);
        case O_HELP:
            help_devices();
            return EXIT_OK;
        case O_JSON: a->json = 1; break;
        }
    }
    return -1;
}

static const opt_def bench_opts[] = {
    {"n", 'n', 1, O_COUNT},
    {"count", 0, 1, O_COUNT},
    {"dist", 0, 1, O_DIST},
    {"seed", 0, 1, O_SEED},
    {"algo", 'a', 1, O_ALGO},
    {"algorithm", 0, 1, O_ALGO},
    {"device", 'd', 1, O_DEVICE},
    {"keys", 0, 0, O_KEYS},
    {"pairs", 0, 0, O_PAIRS},
    {"kv", 0, 0, O_PAIRS},
    {"repeat", 'r', 1, O_REPEAT},
    {"warmup", 0, 1, O_WARMUP},
    {"json", 0, 1, O_JSON},
    {"plot", 0, 1, O_PLOT},
    {"no-reference", 0, 0, O_NO_REF},
    {"no-progress", 0, 0, O_NO_PROGRESS},
    {"verbose", 'v', 0, O_VERBOSE},
    {"quiet", 'q', 0, O_QUIET},
    {"help", 'h', 0, O_HELP},
    {"version", 'V', 0, O_VERSION},
    {NULL, 0, 0, 0},
};

/* The next item of a comma-separated list, copied into buf: 1, or 0 at the end, or -1 after an error. */
static int next_item(const opt_state *st, const char **p, char *buf, size_t cap)
{
    if (!**p)
        return 0;
    size_t len = strcspn(*p, ",");
    if (len == 0 || len >= cap) {
        msg_error("option '%s': '%s' is not a list of values separated by commas", st->current, *p);
        return -1;
    }
    memcpy(buf, *p, len);
    buf[len] = '\0';
    *p += len + ((*p)[len] == ',');
    return 1;
}

static int list_full(const opt_state *st)
{
    msg_error("option '%s': at most %d values", st->current, BENCH_MAX_LIST);
    return EXIT_USAGE;
}

int parse_bench_args(int argc, char **argv, int first, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = 1;
    a->repeat = 10;
    a->warmup = 1;
    opt_state st;
    opt_init(&st, argc, argv, first, "clsort bench --help");
    const char *arg;
    int id;
    uint64_t v;
    char item[128];
    /* dist_spec keeps pointers into its text: the items of lists are kept here */
    static char dist_text[BENCH_MAX_LIST][128];
    while ((id = opt_next(&st, bench_opts, &arg)) != OPT_END) {
        int rc = common_option(id);
        if (rc != -2) {
            if (rc >= 0)
                return rc;
            continue;
        }
        const char *p = arg;
        int r;
        switch (id) {
        case OPT_ERROR:
            return EXIT_USAGE;
        case OPT_OPERAND:
            return extra_operand("bench", arg);
        case O_HELP:
            help_bench();
            return EXIT_OK;
        case O_COUNT:
            while ((r = next_item(&st, &p, item, sizeof item)) != 0) {
                if (r < 0 || opt_parse_count(&st, item, &v) != 0)
                    return EXIT_USAGE;
                if (a->n_count == BENCH_MAX_LIST)
                    return list_full(&st);
                a->n[a->n_count++] = v;
            }
            break;
        case O_DIST:
            while ((r = next_item(&st, &p, item, sizeof item)) != 0) {
                if (r < 0)
                    return EXIT_USAGE;
                if (a->dist_count == BENCH_MAX_LIST)
                    return list_full(&st);
                char *t = dist_text[a->dist_count];
                snprintf(t, sizeof dist_text[0], "%s", item);
                if (dist_parse(t, &a->dist[a->dist_count]) != 0 ||
                    dist_check_type(&a->dist[a->dist_count], KEY_U32) != 0)
                    return EXIT_USAGE;
                a->dist_count++;
            }
            break;
        case O_SEED:
            if (opt_parse_u64(&st, arg, &a->seed) != 0)
                return EXIT_USAGE;
            break;
        case O_ALGO:
            while ((r = next_item(&st, &p, item, sizeof item)) != 0) {
                if (r < 0)
                    return EXIT_USAGE;
                if (a->algo_count == BENCH_MAX_LIST)
                    return list_full(&st);
                if (parse_algorithm(item, &a->algorithm[a->algo_count]) != 0)
                    return EXIT_USAGE;
                a->algo_count++;
            }
            break;
        case O_DEVICE: a->device = arg; break;
        case O_KEYS: a->keys = 1; break;
        case O_PAIRS: a->pairs = 1; break;
        case O_REPEAT:
        case O_WARMUP:
            if (opt_parse_count(&st, arg, &v) != 0)
                return EXIT_USAGE;
            if (v > 100000 || (id == O_REPEAT && v == 0)) {
                msg_error("option '%s': %s is out of range (%s)", st.current, arg,
                          id == O_REPEAT ? "1 to 100000" : "0 to 100000");
                return EXIT_USAGE;
            }
            if (id == O_REPEAT)
                a->repeat = (unsigned)v;
            else
                a->warmup = (unsigned)v;
            break;
        case O_JSON: a->json = arg; break;
        case O_PLOT: a->plot = arg; break;
        case O_NO_REF: a->no_reference = 1; break;
        case O_NO_PROGRESS: a->no_progress = 1; break;
        }
    }
    if (a->json && a->plot && strcmp(a->json, "-") == 0 && strcmp(a->plot, "-") == 0) {
        msg_error("--json - and --plot - cannot both go to stdout");
        return EXIT_USAGE;
    }
    /* the defaults: a sweep */
    if (!a->n_count) {
        for (unsigned k = 16; k <= 24; k += 2)
            a->n[a->n_count++] = 1ull << k;
    }
    if (!a->dist_count) {
        dist_parse("uniform", &a->dist[0]);
        a->dist_count = 1;
    }
    if (!a->algo_count) {
        /* every named algorithm but auto (which is one of them), onesweep (radix8 picks it where it
         * is safe: forcing it elsewhere could hang) and oddeven (quadratic: a teaching baseline) */
        for (int i = 0; i < 256 && a->algo_count < BENCH_MAX_LIST; i++) {
            const char *name = clsort_algorithm_name((clsort_algorithm)i);
            clsort_algorithm back;
            if (!name || !*name || clsort_algorithm_from_name(name, &back) != CLSORT_OK || (int)back != i)
                break;
            if (i != CLSORT_ALGO_AUTO && i != CLSORT_ALGO_ONESWEEP && strcmp(name, "oddeven") != 0)
                a->algorithm[a->algo_count++] = i;
        }
    }
    if (!a->keys && !a->pairs)
        a->keys = a->pairs = 1;
    return -1;
}
