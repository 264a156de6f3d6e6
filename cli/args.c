/*
 * Command-line options of the subcommands.
 */
#include "args.h"
#include "cli.h"
#include "opt.h"

#include "clsort.h"

#include <stdio.h>
#include <string.h>

/* Option ids shared by the subcommands' tables. */
enum {
    O_HELP = 1, O_VERSION, O_VERBOSE, O_QUIET, O_FORCE,
    O_INPUT, O_OUTPUT, O_VALUES, O_VALUES_OUT, O_KV, O_ALGO, O_DEVICE, O_REVERSE, O_VERIFY,
    O_STATS, O_STATS_JSON,
    O_COUNT, O_DIST, O_SEED, O_JSON, O_REPEAT, O_WARMUP, O_NO_REF,
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
    {"verify", 0, 0, O_VERIFY},
    {"stats", 's', 0, O_STATS},
    {"stats-json", 0, 1, O_STATS_JSON},
    {"force", 'f', 0, O_FORCE},
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
        }
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
    {"output", 'o', 1, O_OUTPUT},
    {"values-out", 0, 1, O_VALUES_OUT},
    {"force", 'f', 0, O_FORCE},
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
    int have_n = 0;
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
        }
    }
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
    {"count", 'n', 1, O_COUNT},
    {"dist", 0, 1, O_DIST},
    {"seed", 0, 1, O_SEED},
    {"algo", 'a', 1, O_ALGO},
    {"algorithm", 0, 1, O_ALGO},
    {"device", 'd', 1, O_DEVICE},
    {"kv", 0, 0, O_KV},
    {"repeat", 'r', 1, O_REPEAT},
    {"warmup", 0, 1, O_WARMUP},
    {"json", 0, 1, O_JSON},
    {"no-reference", 0, 0, O_NO_REF},
    {"verbose", 'v', 0, O_VERBOSE},
    {"quiet", 'q', 0, O_QUIET},
    {"help", 'h', 0, O_HELP},
    {"version", 'V', 0, O_VERSION},
    {NULL, 0, 0, 0},
};

int parse_bench_args(int argc, char **argv, int first, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->n = 1u << 24;
    a->dist.kind = DIST_UNIFORM;
    a->seed = 1;
    a->algorithm = CLSORT_ALGO_AUTO;
    a->repeat = 10;
    a->warmup = 1;
    opt_state st;
    opt_init(&st, argc, argv, first, "clsort bench --help");
    const char *arg;
    int id;
    uint64_t v;
    while ((id = opt_next(&st, bench_opts, &arg)) != OPT_END) {
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
            return extra_operand("bench", arg);
        case O_HELP:
            help_bench();
            return EXIT_OK;
        case O_COUNT:
            if (opt_parse_count(&st, arg, &a->n) != 0)
                return EXIT_USAGE;
            break;
        case O_DIST:
            if (dist_parse(arg, &a->dist) != 0)
                return EXIT_USAGE;
            break;
        case O_SEED:
            if (opt_parse_u64(&st, arg, &a->seed) != 0)
                return EXIT_USAGE;
            break;
        case O_ALGO:
            if (parse_algorithm(arg, &a->algorithm) != 0)
                return EXIT_USAGE;
            break;
        case O_DEVICE: a->device = arg; break;
        case O_KV: a->value_size = 4; break;
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
        case O_NO_REF: a->no_reference = 1; break;
        }
    }
    return -1;
}
