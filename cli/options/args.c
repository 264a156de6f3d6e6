/*
 * Command-line options of the subcommands: one table of option rows, the rows each subcommand
 * takes, one loop that parses them (on opt.c's tokenizer), and each subcommand's checks once its
 * options are all in. Owns the structs of args.h. Calls opt.c, layout.c (the rules of --kv,
 * --value-size, --values), gen.c (--dist), help.c (--help) and the library's name lookups.
 */
#include "args.h"
#include "cli.h"
#include "opt.h"

#include "clsort.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------------------------------------------
 * Value parsers shared by rows: each prints an error naming the option and returns -1 on a bad value.
 */

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

/* The next item of a comma-separated list, copied into buf: 1, or 0 at the end, or -1 after an
 * error. */
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

/* -------------------------------------------------------------------------------------------------
 * The option table. A row's action stores its value (arg, NULL for a flag) in its field; it
 * returns -1 to go on, or an exit status to end with.
 */

typedef struct parse_ctx parse_ctx;
typedef int (*opt_action)(parse_ctx *p, void *field, const char *arg);

/* Where a row's field is: nowhere, in common_args, in layout_args, or in the subcommand's own
 * arguments. A subcommand's parse passes one struct for each. */
enum { IN_NONE, IN_COMMON, IN_LAYOUT, IN_OWN, N_IN };

typedef struct opt_row {
    const char *name;     /* long name, without "--" */
    char short_name;      /* or 0 */
    int has_arg;          /* 0: a flag; 1: takes a value; 2: may, as --name=value */
    opt_action action;
    unsigned char in;     /* IN_* */
    size_t offset;        /* of the field in its struct */
} opt_row;

typedef struct subcommand {
    const char *name;
    const char *help_cmd;      /* where messages send the user for help */
    void (*help)(void);
    const unsigned char *rows; /* the rows it takes, 0-terminated (see the lists below) */
    unsigned char operand_row; /* the row that takes an operand; 0: operands are an error */
} subcommand;

struct parse_ctx {
    opt_state st;
    const subcommand *cmd;
};

static int set_flag(parse_ctx *p, void *field, const char *arg)
{
    (void)p, (void)arg;
    *(int *)field = 1;
    return -1;
}

/* -c and --check[=diagnose-first]: 1; -C and --check=quiet or =silent: 2 (sort(1)'s spellings) */
static int set_check(parse_ctx *p, void *field, const char *arg)
{
    int quiet = p->st.current && !strcmp(p->st.current, "-C");
    if (arg && (!strcmp(arg, "quiet") || !strcmp(arg, "silent")))
        quiet = 1;
    else if (arg && strcmp(arg, "diagnose-first")) {
        msg_error("option '--check': '%s' is not a way to check: expected diagnose-first, quiet or "
                  "silent (see 'clsort --help')", arg);
        return EXIT_USAGE;
    }
    /* sort(1) refuses -c with -C ("options '-cC' are incompatible"): the last one must not win */
    if (*(int *)field && *(int *)field != (quiet ? 2 : 1)) {
        msg_error("options -c and -C are incompatible: -c reports the first record out of order, "
                  "-C (--check=quiet, --check=silent) says nothing; give one");
        return EXIT_USAGE;
    }
    *(int *)field = quiet ? 2 : 1;
    return -1;
}

static int set_text(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    *(const char **)field = arg;
    return -1;
}

static int set_u64(parse_ctx *p, void *field, const char *arg)
{
    return opt_parse_u64(&p->st, arg, field) != 0 ? EXIT_USAGE : -1;
}

static int set_count(parse_ctx *p, void *field, const char *arg)
{
    return opt_parse_count(&p->st, arg, field) != 0 ? EXIT_USAGE : -1;
}

static int set_algorithm(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    return parse_algorithm(arg, field) != 0 ? EXIT_USAGE : -1;
}

static int set_type(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    if (strcmp(arg, "bytes") == 0) {
        *(clsort_key_type *)field = LAYOUT_KEY_BYTES;
        return -1;
    }
    if (clsort_key_type_from_name(arg, field) != CLSORT_OK) {
        msg_error("unknown key type '%s' (u32, i32, f32, u64, i64, f64; sort: bytes)", arg);
        return EXIT_USAGE;
    }
    return -1;
}

/* --value-size V: 0, 4 or 8 bytes */
static int set_value_size(parse_ctx *p, void *field, const char *arg)
{
    uint64_t v;
    if (opt_parse_u64(&p->st, arg, &v) != 0)
        return EXIT_USAGE;
    if (v != 0 && v != 4 && v != 8) {
        msg_error("option '%s': %s is not a value size (0, 4 or 8 bytes)", p->st.current, arg);
        return EXIT_USAGE;
    }
    *(size_t *)field = (size_t)v;
    return -1;
}

/* --bits B:E: two decimal bit numbers. The range is checked against the key width later. */
static int set_bits(parse_ctx *p, void *field, const char *arg)
{
    key_bits *bits = field;
    unsigned long b, e;
    char *q;
    if (*arg < '0' || *arg > '9')
        goto bad;
    b = strtoul(arg, &q, 10);
    if (*q != ':' || q[1] < '0' || q[1] > '9' || b > 64)
        goto bad;
    e = strtoul(q + 1, &q, 10);
    if (*q || e > 64)
        goto bad;
    bits->begin = (unsigned)b;
    bits->end = (unsigned)e;
    bits->given = 1;
    return -1;
bad:
    msg_error("option '%s': '%s' is not a bit range B:E (e.g. 0:16, bits B to E-1 of the key)",
              p->st.current, arg);
    return EXIT_USAGE;
}

/* -S SIZE: bytes, or N% of physical memory (opt_parse_memory) */
static int set_buffer_size(parse_ctx *p, void *field, const char *arg)
{
    sort_args *a = field;
    return opt_parse_memory(&p->st, arg, &a->buffer_size, &a->buffer_percent) != 0 ? EXIT_USAGE
                                                                                  : -1;
}

/* -T DIR, repeatable: the directories take the run files in turn */
static int add_temp_dir(parse_ctx *p, void *field, const char *arg)
{
    sort_args *a = field;
    if (!*arg) {
        msg_error("option '%s': an empty directory name", p->st.current);
        return EXIT_USAGE;
    }
    if (a->n_temp_dirs == SORT_MAX_TEMP_DIRS) {
        msg_error("option '%s': at most %d directories", p->st.current, SORT_MAX_TEMP_DIRS);
        return EXIT_USAGE;
    }
    a->temp_dirs[a->n_temp_dirs++] = arg;
    return -1;
}

static int set_dist(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    return dist_parse(arg, field) != 0 ? EXIT_USAGE : -1;
}

/* sort's input: -i FILE or the operand, only one of them */
static int set_input(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    const char **input = field;
    if (*input) {
        msg_error("more than one input ('%s' and '%s'); clsort sorts one file at a time", *input,
                  arg);
        return EXIT_USAGE;
    }
    *input = arg;
    return -1;
}

/* merge's operands, each added as it comes (the field is the merge_args, whose sort_args is first) */
static int add_merge_input(parse_ctx *p, void *field, const char *arg)
{
    (void)p;
    merge_args *a = field;
    a->inputs[a->n_inputs++] = arg;
    return -1;
}

static int list_full(const opt_state *st)
{
    msg_error("option '%s': at most %d values", st->current, BENCH_MAX_LIST);
    return EXIT_USAGE;
}

/* bench's lists: --n, --dist, --algo; each item is added as it is read */
static int add_sizes(parse_ctx *p, void *field, const char *arg)
{
    bench_args *a = field;
    char item[128];
    uint64_t v;
    int r;
    while ((r = next_item(&p->st, &arg, item, sizeof item)) != 0) {
        if (r < 0 || opt_parse_count(&p->st, item, &v) != 0)
            return EXIT_USAGE;
        if (a->n_count == BENCH_MAX_LIST)
            return list_full(&p->st);
        a->n[a->n_count++] = v;
    }
    return -1;
}

static int add_dists(parse_ctx *p, void *field, const char *arg)
{
    bench_args *a = field;
    /* dist_spec keeps pointers into its text: the items of lists are kept here */
    static char dist_text[BENCH_MAX_LIST][128];
    char item[128];
    int r;
    while ((r = next_item(&p->st, &arg, item, sizeof item)) != 0) {
        if (r < 0)
            return EXIT_USAGE;
        if (a->dist_count == BENCH_MAX_LIST)
            return list_full(&p->st);
        char *t = dist_text[a->dist_count];
        snprintf(t, sizeof dist_text[0], "%s", item);
        if (dist_parse(t, &a->dist[a->dist_count]) != 0 ||
            dist_check_type(&a->dist[a->dist_count], CLSORT_KEY_U32) != 0)
            return EXIT_USAGE;
        a->dist_count++;
    }
    return -1;
}

static int add_algorithms(parse_ctx *p, void *field, const char *arg)
{
    bench_args *a = field;
    char item[128];
    int r;
    while ((r = next_item(&p->st, &arg, item, sizeof item)) != 0) {
        if (r < 0)
            return EXIT_USAGE;
        if (a->algo_count == BENCH_MAX_LIST)
            return list_full(&p->st);
        if (parse_algorithm(item, &a->algorithm[a->algo_count]) != 0)
            return EXIT_USAGE;
        a->algo_count++;
    }
    return -1;
}

/* bench's --repeat (at least 1) and --warmup (may be 0) */
static int set_runs(parse_ctx *p, unsigned *field, const char *arg, unsigned min)
{
    uint64_t v;
    if (opt_parse_count(&p->st, arg, &v) != 0)
        return EXIT_USAGE;
    if (v > 100000 || v < min) {
        msg_error("option '%s': %s is out of range (%s)", p->st.current, arg,
                  min ? "1 to 100000" : "0 to 100000");
        return EXIT_USAGE;
    }
    *field = (unsigned)v;
    return -1;
}

static int set_repeat(parse_ctx *p, void *field, const char *arg)
{
    return set_runs(p, field, arg, 1);
}

static int set_warmup(parse_ctx *p, void *field, const char *arg)
{
    return set_runs(p, field, arg, 0);
}

static int show_help(parse_ctx *p, void *field, const char *arg)
{
    (void)field, (void)arg;
    p->cmd->help();
    return EXIT_OK;
}

static int show_version(parse_ctx *p, void *field, const char *arg)
{
    (void)p, (void)field, (void)arg;
    printf("clsort %s\n", clsort_version());
    return EXIT_OK;
}

static int set_verbose(parse_ctx *p, void *field, const char *arg)
{
    (void)p, (void)field, (void)arg;
    g_verbosity = 2;
    return -1;
}

static int set_quiet(parse_ctx *p, void *field, const char *arg)
{
    (void)p, (void)field, (void)arg;
    g_verbosity = 0;
    return -1;
}

enum {
    R_NONE, /* ends a list of rows */
    /* every subcommand */
    R_VERBOSE, R_QUIET, R_HELP, R_VERSION,
    /* more than one */
    R_OUTPUT, R_DEVICE, R_SEED, R_FORCE, R_NO_PROGRESS, R_SYNC,
    R_TYPE, R_VALUE_SIZE, R_KV, R_VALUES, R_VALUES_OUT,
    /* sort */
    R_INPUT, R_ALGO, R_ALGORITHM, R_REVERSE, R_DESC, R_DESCENDING, R_BITS, R_SEGMENT, R_SEGMENTS,
    R_VERIFY, R_STATS, R_STATS_JSON, R_BUFFER_SIZE, R_TEMP_DIR, R_PARALLEL, R_BATCH_SIZE, R_CHECK,
    R_CHECK_QUIET, R_UNIQUE, R_INDEX_OUT, R_RECORD_SIZE, R_KEY_OFFSET, R_KEY_SIZE, R_TOP,
    /* merge */
    R_MERGE_INPUT,
    /* gen */
    R_COUNT, R_DIST,
    /* devices */
    R_JSON,
    /* bench */
    R_SIZES, R_COUNTS, R_DISTS, R_ALGOS, R_ALGORITHMS, R_KEYS, R_PAIRS, R_KV_PAIRS, R_REPEAT,
    R_WARMUP, R_JSON_FILE, R_PLOT, R_NO_REFERENCE,
    N_ROWS
};

#define COMMON(field) IN_COMMON, offsetof(common_args, field)
#define LAYOUT(field) IN_LAYOUT, offsetof(layout_args, field)
#define OWN(type, field) IN_OWN, offsetof(type, field)

static const opt_row rows[N_ROWS] = {
    [R_VERBOSE] = {"verbose", 'v', 0, set_verbose, IN_NONE, 0},
    [R_QUIET] = {"quiet", 'q', 0, set_quiet, IN_NONE, 0},
    [R_HELP] = {"help", 'h', 0, show_help, IN_NONE, 0},
    [R_VERSION] = {"version", 'V', 0, show_version, IN_NONE, 0},

    [R_OUTPUT] = {"output", 'o', 1, set_text, COMMON(output)},
    [R_DEVICE] = {"device", 'd', 1, set_text, COMMON(device)},
    [R_SEED] = {"seed", 0, 1, set_u64, COMMON(seed)},
    [R_FORCE] = {"force", 'f', 0, set_flag, COMMON(force)},
    [R_NO_PROGRESS] = {"no-progress", 0, 0, set_flag, COMMON(no_progress)},
    [R_SYNC] = {"sync", 0, 0, set_flag, COMMON(sync)},
    [R_TYPE] = {"type", 't', 1, set_type, LAYOUT(type)},
    [R_VALUE_SIZE] = {"value-size", 0, 1, set_value_size, LAYOUT(value_size)},
    [R_KV] = {"kv", 0, 0, set_flag, LAYOUT(kv)},
    [R_VALUES] = {"values", 0, 1, set_text, LAYOUT(values)},
    [R_VALUES_OUT] = {"values-out", 0, 1, set_text, LAYOUT(values_out)},

    [R_INPUT] = {"input", 'i', 1, set_input, OWN(sort_args, input)},
    [R_ALGO] = {"algo", 'a', 1, set_algorithm, OWN(sort_args, algorithm)},
    [R_ALGORITHM] = {"algorithm", 0, 1, set_algorithm, OWN(sort_args, algorithm)},
    [R_REVERSE] = {"reverse", 'r', 0, set_flag, OWN(sort_args, descending)},
    [R_DESC] = {"desc", 0, 0, set_flag, OWN(sort_args, descending)},
    [R_DESCENDING] = {"descending", 0, 0, set_flag, OWN(sort_args, descending)},
    [R_BITS] = {"bits", 0, 1, set_bits, OWN(sort_args, bits)},
    [R_SEGMENT] = {"segment", 0, 1, set_count, OWN(sort_args, segment)},
    [R_SEGMENTS] = {"segments", 0, 1, set_text, OWN(sort_args, segments)},
    [R_VERIFY] = {"verify", 0, 0, set_flag, OWN(sort_args, verify)},
    [R_STATS] = {"stats", 's', 0, set_flag, OWN(sort_args, stats)},
    [R_STATS_JSON] = {"stats-json", 0, 1, set_text, OWN(sort_args, stats_json)},
    [R_BUFFER_SIZE] = {"buffer-size", 'S', 1, set_buffer_size, IN_OWN, 0},
    [R_TEMP_DIR] = {"temporary-directory", 'T', 1, add_temp_dir, IN_OWN, 0},
    [R_PARALLEL] = {"parallel", 0, 1, set_count, OWN(sort_args, parallel)},
    [R_BATCH_SIZE] = {"batch-size", 0, 1, set_count, OWN(sort_args, batch_size)},
    [R_CHECK] = {"check", 'c', 2, set_check, OWN(sort_args, check)},
    [R_CHECK_QUIET] = {NULL, 'C', 0, set_check, OWN(sort_args, check)},
    [R_UNIQUE] = {"unique", 'u', 0, set_flag, OWN(sort_args, unique)},
    [R_INDEX_OUT] = {"index-out", 0, 1, set_text, OWN(sort_args, index_out)},
    [R_RECORD_SIZE] = {"record-size", 0, 1, set_count, OWN(sort_args, record_size)},
    [R_KEY_OFFSET] = {"key-offset", 0, 1, set_count, OWN(sort_args, key_offset)},
    [R_KEY_SIZE] = {"key-size", 0, 1, set_count, OWN(sort_args, key_size)},
    [R_TOP] = {"top", 0, 1, set_count, OWN(sort_args, top)},

    [R_MERGE_INPUT] = {"input", 0, 1, add_merge_input, IN_OWN, 0}, /* operands only */

    [R_COUNT] = {"count", 'n', 1, set_count, OWN(gen_args, n)},
    [R_DIST] = {"dist", 0, 1, set_dist, OWN(gen_args, dist)},

    [R_JSON] = {"json", 0, 0, set_flag, OWN(devices_args, json)},

    [R_SIZES] = {"n", 'n', 1, add_sizes, IN_OWN, 0},
    [R_COUNTS] = {"count", 0, 1, add_sizes, IN_OWN, 0},
    [R_DISTS] = {"dist", 0, 1, add_dists, IN_OWN, 0},
    [R_ALGOS] = {"algo", 'a', 1, add_algorithms, IN_OWN, 0},
    [R_ALGORITHMS] = {"algorithm", 0, 1, add_algorithms, IN_OWN, 0},
    [R_KEYS] = {"keys", 0, 0, set_flag, OWN(bench_args, keys)},
    [R_PAIRS] = {"pairs", 0, 0, set_flag, OWN(bench_args, pairs)},
    [R_KV_PAIRS] = {"kv", 0, 0, set_flag, OWN(bench_args, pairs)},
    [R_REPEAT] = {"repeat", 'r', 1, set_repeat, OWN(bench_args, repeat)},
    [R_WARMUP] = {"warmup", 0, 1, set_warmup, OWN(bench_args, warmup)},
    [R_JSON_FILE] = {"json", 0, 1, set_text, OWN(bench_args, json)},
    [R_PLOT] = {"plot", 0, 1, set_text, OWN(bench_args, plot)},
    [R_NO_REFERENCE] = {"no-reference", 0, 0, set_flag, OWN(bench_args, no_reference)},
};

/* The rows each subcommand takes. The order is the one "did you mean" hints prefer among equally
 * close names, which differs between subcommands (no single order of the table gives each its own).
 */
#define EVERY_COMMAND R_VERBOSE, R_QUIET, R_HELP, R_VERSION, R_NONE

static const unsigned char sort_rows[] = {
    R_INPUT, R_OUTPUT, R_VALUES, R_VALUES_OUT, R_KV, R_ALGO, R_ALGORITHM, R_DEVICE, R_REVERSE,
    R_DESC, R_DESCENDING, R_BITS, R_SEGMENT, R_SEGMENTS, R_VERIFY, R_STATS, R_STATS_JSON, R_FORCE,
    R_TYPE, R_VALUE_SIZE, R_NO_PROGRESS, R_SYNC, R_BUFFER_SIZE, R_TEMP_DIR, R_PARALLEL,
    R_BATCH_SIZE, R_CHECK, R_CHECK_QUIET, R_UNIQUE, R_INDEX_OUT, R_RECORD_SIZE, R_KEY_OFFSET, R_KEY_SIZE, R_TOP,
    EVERY_COMMAND,
};
static const unsigned char merge_rows[] = {
    R_OUTPUT, R_TYPE, R_KV, R_VALUE_SIZE, R_REVERSE, R_DESC, R_DESCENDING, R_BITS, R_UNIQUE,
    R_FORCE, R_NO_PROGRESS, R_SYNC, R_RECORD_SIZE, R_KEY_OFFSET, R_KEY_SIZE, EVERY_COMMAND,
};
static const unsigned char gen_rows[] = {
    R_COUNT, R_DIST, R_SEED, R_KV, R_TYPE, R_VALUE_SIZE, R_OUTPUT, R_VALUES_OUT, R_FORCE,
    R_NO_PROGRESS, R_SYNC, EVERY_COMMAND,
};
static const unsigned char devices_rows[] = {R_JSON, EVERY_COMMAND};
static const unsigned char bench_rows[] = {
    R_SIZES, R_COUNTS, R_DISTS, R_SEED, R_ALGOS, R_ALGORITHMS, R_DEVICE, R_KEYS, R_PAIRS,
    R_KV_PAIRS, R_REPEAT, R_WARMUP, R_JSON_FILE, R_PLOT, R_NO_REFERENCE, R_NO_PROGRESS,
    EVERY_COMMAND,
};

static const subcommand sort_cmd = {"sort", "clsort --help", help_sort, sort_rows, R_INPUT};
static const subcommand merge_cmd = {
    "merge", "clsort merge --help", help_merge, merge_rows, R_MERGE_INPUT};
static const subcommand gen_cmd = {"gen", "clsort gen --help", help_gen, gen_rows, R_NONE};
static const subcommand devices_cmd = {
    "devices", "clsort devices --help", help_devices, devices_rows, R_NONE};
static const subcommand bench_cmd = {
    "bench", "clsort bench --help", help_bench, bench_rows, R_NONE};

/* Parse cmd's options, each row's value into its struct in base[] (indexed by IN_*). Returns -1 to
 * go on, or an exit status; *seen gets bit R for each row R given. */
static int parse_options(const subcommand *cmd, int argc, char **argv, int first,
                         void *const base[N_IN], uint64_t *seen)
{
    opt_def defs[N_ROWS];
    size_t n = 0;
    for (const unsigned char *r = cmd->rows; *r; r++)
        defs[n++] = (opt_def){rows[*r].name, rows[*r].short_name, rows[*r].has_arg, *r};
    defs[n] = (opt_def){NULL, 0, 0, 0};
    parse_ctx p = {.cmd = cmd};
    opt_init(&p.st, argc, argv, first, cmd->help_cmd);
    *seen = 0;
    const char *arg;
    int id, rc = -1;
    while (rc < 0 && (id = opt_next(&p.st, defs, &arg)) != OPT_END) {
        if (id == OPT_ERROR)
            return EXIT_USAGE;
        if (id == OPT_OPERAND && !cmd->operand_row) {
            msg_error("unexpected argument '%s' (see 'clsort %s --help')", arg, cmd->name);
            return EXIT_USAGE;
        }
        if (id == OPT_OPERAND)
            id = cmd->operand_row;
        const opt_row *row = &rows[id];
        rc = row->action(&p, row->in ? (char *)base[row->in] + row->offset : NULL, arg);
        *seen |= 1ull << id;
    }
    return rc;
}

#define GIVEN(seen, row) (((seen) >> (row)) & 1)
_Static_assert(N_ROWS <= 64, "the options seen are a 64-bit mask of the rows");

/* -------------------------------------------------------------------------------------------------
 * The subcommands: defaults, the options, then the checks that need all of them.
 */

/* The layout and the order, as sort and merge take them. */
static int check_order_args(sort_args *a, uint64_t seen)
{
    if (a->layout.type == LAYOUT_KEY_BYTES) {
        msg_error("--type bytes: keys of bytes are sorted in records (clsort sort --type bytes "
                  "--key-size K); here the keys are numbers (u32, i32, f32, u64, i64, f64)");
        return EXIT_USAGE;
    }
    if (layout_settle(&a->layout, LAYOUT_SORT, GIVEN(seen, R_VALUE_SIZE)) != EXIT_OK)
        return EXIT_USAGE;
    if (a->bits.given) {
        unsigned width = (unsigned)layout_key_size(&a->layout) * 8;
        if (a->bits.begin >= a->bits.end || a->bits.end > width) {
            msg_error("--bits %u:%u is not a bit range of %s keys: expected B:E with "
                      "0 <= B < E <= %u", a->bits.begin, a->bits.end,
                      clsort_key_type_name(a->layout.type), width);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* -c reads the keys and writes nothing: options that write, or read what it does not check, are
 * refused (as sort(1) refuses -c with -o) rather than ignored. */
static int check_check_args(uint64_t seen)
{
    static const struct { unsigned char row; const char *name, *why; } no[] = {
        {R_OUTPUT, "-o", "it writes nothing"},
        {R_VALUES_OUT, "--values-out", "it writes nothing"},
        {R_INDEX_OUT, "--index-out", "it writes nothing"},
        {R_VALUES, "--values", "it checks the keys alone (give their file)"},
        {R_VERIFY, "--verify", "it sorts nothing"},
        {R_STATS, "--stats", "it sorts nothing"},
        {R_STATS_JSON, "--stats-json", "it sorts nothing"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (GIVEN(seen, no[i].row)) {
            msg_error("options -c and %s are incompatible: -c checks the input's order, %s",
                      no[i].name, no[i].why);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* -u with --segment: one record per key of the whole output cannot be kept segment by segment. */
static int check_unique_args(const sort_args *a)
{
    if (a->segment && !a->check) {
        msg_error("options -u and --segment are incompatible: -u keeps one record per key of the "
                  "whole sorted output");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int algorithm_unstable(int algorithm)
{
    return algorithm == CLSORT_ALGO_BITONIC || algorithm == CLSORT_ALGO_ODDEVEN;
}

/* The rule for every option whose result depends on the order of equal keys: it needs a stable
 * algorithm (the sort refuses an unstable one, and suggests only stable ones, once the device is
 * open: sort_cmd.c). --index-out writes each key's input position, so its ties always differ; -u
 * keeps the first of equal keys, which differ where values come with them or --bits leaves bits out
 * of the order; records by a key field carry the rest of the record. --top of keys is a stable select
 * (or a stable sort) whatever the algorithm. */
const char *sort_args_need_stable(const sort_args *a, const char **why)
{
    if (a->check)
        return NULL;
    if (a->record_size || a->bytes_key) {
        *why = "are sorted by stable passes over their keys";
        return "records by a key field";
    }
    if (a->top) /* its select is stable whatever the algorithm */
        return NULL;
    if (a->index_out) {
        *why = "writes each key's input position: equal keys must keep their input order";
        return "--index-out";
    }
    if (a->unique && (a->layout.kv || a->layout.values || a->bits.given)) {
        *why = "keeps the first record of equal keys (with values or --bits, equal keys differ)";
        return "-u";
    }
    return NULL;
}

/* The largest record (and key, and key offset) taken. */
#define MAX_RECORD_SIZE ((uint64_t)1 << 30)

/* Records sorted by a key field: --record-size R, --key-offset O, --type bytes with --key-size K
 * (sort and merge). The records carry their own data: options for values are refused with them, and
 * so is --segments, of the layouts of keys only. */
static int check_fields_args(sort_args *a, uint64_t seen)
{
    if (a->layout.type == LAYOUT_KEY_BYTES) {
        a->bytes_key = 1;
        a->layout.type = CLSORT_KEY_U32; /* not used: the key is K bytes */
        if (!GIVEN(seen, R_KEY_SIZE) || a->key_size == 0) {
            msg_error("--type bytes needs --key-size K: the key's length in bytes (1 or more)");
            return EXIT_USAGE;
        }
    } else if (GIVEN(seen, R_KEY_SIZE)) {
        msg_error("--key-size gives the length of a --type bytes key; a number's size is its "
                  "type's (%s: %zu bytes)", clsort_key_type_name(a->layout.type),
                  clsort_key_type_size(a->layout.type));
        return EXIT_USAGE;
    }
    /* --key-offset needs --record-size with every type: keys of bytes alone start at 0 (records of
     * O + K bytes, keyed at their end, were read from it silently) */
    const int offset_alone = GIVEN(seen, R_KEY_OFFSET) && !GIVEN(seen, R_RECORD_SIZE);
    if (offset_alone && !a->bytes_key) {
        msg_error("--key-offset needs --record-size: where is the key in which records?");
        return EXIT_USAGE;
    }
    if (!GIVEN(seen, R_RECORD_SIZE) && !a->bytes_key)
        return EXIT_OK;
    /* the sizes bounded before any sum or product of them: a record is held whole, several times
     * (the run, its sorted copy, a merge block, the last record written) */
    static const struct { unsigned char row; const char *name; } sizes[] = {
        {R_RECORD_SIZE, "--record-size"}, {R_KEY_OFFSET, "--key-offset"}, {R_KEY_SIZE, "--key-size"},
    };
    const uint64_t *value[] = {&a->record_size, &a->key_offset, &a->key_size};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (GIVEN(seen, sizes[i].row) && *value[i] > MAX_RECORD_SIZE) {
            msg_error("%s %llu is too large: records (and their keys) of at most %llu bytes "
                      "(1 GiB)", sizes[i].name, (unsigned long long)*value[i],
                      (unsigned long long)MAX_RECORD_SIZE);
            return EXIT_USAGE;
        }
    if (offset_alone) { /* after the sizes, so that one too large is named as such */
        msg_error("--key-offset needs --record-size: where is the key in which records? (keys of "
                  "--type bytes alone, without --record-size, start at 0)");
        return EXIT_USAGE;
    }
    const uint64_t ks = a->bytes_key ? a->key_size : clsort_key_type_size(a->layout.type);
    if (!GIVEN(seen, R_RECORD_SIZE))
        a->record_size = ks; /* keys of bytes alone */
    if (a->record_size == 0 || a->key_offset > a->record_size ||
        ks > a->record_size - a->key_offset) {
        msg_error("a key of %llu bytes at --key-offset %llu does not fit in records of %llu bytes "
                  "(--record-size)", (unsigned long long)ks, (unsigned long long)a->key_offset,
                  (unsigned long long)a->record_size);
        return EXIT_USAGE;
    }
    static const struct { unsigned char row; const char *name, *why; } no[] = {
        {R_KV, "--kv", "they carry their own data"},
        {R_VALUES, "--values", "they carry their own data"},
        {R_VALUES_OUT, "--values-out", "they carry their own data"},
        {R_VALUE_SIZE, "--value-size", "they carry their own data"},
        {R_SEGMENTS, "--segments", "it takes keys and key/value records"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (GIVEN(seen, no[i].row)) {
            msg_error("%s does not apply to records sorted by a key field (--record-size, --type "
                      "bytes): %s", no[i].name, no[i].why);
            return EXIT_USAGE;
        }
    if (a->bytes_key && a->bits.given) {
        msg_error("--bits with --type bytes: a key of bytes is compared whole");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* --top K: K records of at least one (fewer where the input has fewer); the options that need the
 * whole sorted output refused. */
static int check_top_args(const sort_args *a, uint64_t seen)
{
    if (a->top == 0) {
        msg_error("--top 0: expected a number of records of at least 1");
        return EXIT_USAGE;
    }
    static const struct { unsigned char row; const char *name, *why; } no[] = {
        {R_CHECK, "-c", "-c checks the input's order and writes nothing"},
        {R_UNIQUE, "-u", "-u filters the whole sorted output"},
        {R_SEGMENT, "--segment", "--top takes the first records of the whole input"},
        {R_VERIFY, "--verify", "--verify checks a whole sorted output"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (GIVEN(seen, no[i].row)) {
            msg_error("options --top and %s are incompatible: %s", no[i].name, no[i].why);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* --segments sorts each segment on its own (in batches within -S, a long one alone in runs spilled
 * to -T): options of the whole output's order or of fixed segments are refused, not ignored. */
static int check_segments_args(uint64_t seen, int check)
{
    static const struct { unsigned char row; const char *name, *why; } no[] = {
        {R_SEGMENT, "--segment", "give the segments one way"},
        {R_UNIQUE, "-u", "-u keeps one record per key of the whole sorted output"},
        {R_RECORD_SIZE, "--record-size", "records by a key field are sorted whole"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (GIVEN(seen, no[i].row) && !(check && no[i].row == R_UNIQUE)) { /* -c -u: strictly */
            msg_error("options --segments and %s are incompatible: %s", no[i].name, no[i].why);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

static int check_sort_args(sort_args *a, uint64_t seen)
{
    if (check_fields_args(a, seen) != EXIT_OK)
        return EXIT_USAGE;
    if (GIVEN(seen, R_TOP) && check_top_args(a, seen) != EXIT_OK)
        return EXIT_USAGE;
    if (a->segments && check_segments_args(seen, a->check) != EXIT_OK)
        return EXIT_USAGE;
    if (check_order_args(a, seen) != EXIT_OK)
        return EXIT_USAGE;
    if (a->check && check_check_args(seen) != EXIT_OK)
        return EXIT_USAGE;
    if (a->unique && check_unique_args(a) != EXIT_OK)
        return EXIT_USAGE;
    if (a->buffer_size && a->buffer_size < SORT_MIN_BUFFER) {
        msg_error("-S of %llu bytes is too small: the data need at least %llu MiB (%llu bytes); "
                  "give at least -S %lluMi", (unsigned long long)a->buffer_size,
                  (unsigned long long)(SORT_MIN_BUFFER >> 20),
                  (unsigned long long)SORT_MIN_BUFFER, (unsigned long long)(SORT_MIN_BUFFER >> 20));
        return EXIT_USAGE;
    }
    if (GIVEN(seen, R_PARALLEL) && (a->parallel < 1 || a->parallel > 256)) {
        msg_error("--parallel %llu: expected 1 to 256 threads", (unsigned long long)a->parallel);
        return EXIT_USAGE;
    }
    if (GIVEN(seen, R_BATCH_SIZE) && (a->batch_size < 2 || a->batch_size > 65536)) {
        msg_error("--batch-size %llu: expected 2 to 65536 runs merged at once",
                  (unsigned long long)a->batch_size);
        return EXIT_USAGE;
    }
    if ((uint64_t)(size_t)a->segment != a->segment) {
        msg_error("--segment %llu is too large for this machine", (unsigned long long)a->segment);
        return EXIT_USAGE;
    }
    const char *in = a->input ? a->input : "-";
    const char *out = a->common.output ? a->common.output : "-";
    if (layout_check_files(&a->layout, LAYOUT_SORT, in, out) != EXIT_OK)
        return EXIT_USAGE;
    const char *vout = a->layout.values_out ? a->layout.values_out : a->index_out;
    if (a->index_out && !a->record_size &&
        (a->layout.kv || a->layout.values || a->layout.value_size)) {
        msg_error("--index-out writes the input position of each output key, as its value: the "
                  "keys come alone (not with --kv, --values or --value-size); sort them with "
                  "--index-out, then reorder the values with the positions");
        return EXIT_USAGE;
    }
    if (a->index_out && strcmp(a->index_out, "-") == 0 && strcmp(out, "-") == 0) {
        msg_error("the keys and --index-out cannot both go to stdout: give -o FILE or "
                  "--index-out FILE");
        return EXIT_USAGE;
    }
    if (a->stats_json && strcmp(a->stats_json, "-") == 0 &&
        (strcmp(out, "-") == 0 || (vout && strcmp(vout, "-") == 0))) {
        msg_error("--stats-json - would mix the report with the sorted data on stdout");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int parse_sort_args(int argc, char **argv, int first, sort_args *a)
{
    memset(a, 0, sizeof *a);
    a->algorithm = CLSORT_ALGO_AUTO;
    a->layout.type = CLSORT_KEY_U32;
    void *const base[N_IN] = {NULL, &a->common, &a->layout, a};
    uint64_t seen;
    int rc = parse_options(&sort_cmd, argc, argv, first, base, &seen);
    if (rc >= 0)
        return rc;
    if (GIVEN(seen, R_CHECK_QUIET)) /* -C is -c for the options it excludes */
        seen |= 1ull << R_CHECK;
    return check_sort_args(a, seen) == EXIT_OK ? -1 : EXIT_USAGE;
}

int parse_merge_args(int argc, char **argv, int first, merge_args *a)
{
    memset(a, 0, sizeof *a);
    a->s.algorithm = CLSORT_ALGO_AUTO;
    a->s.layout.type = CLSORT_KEY_U32;
    /* each operand may be an input: at most argc of them */
    a->inputs = malloc((size_t)argc * sizeof *a->inputs);
    if (!a->inputs) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    void *const base[N_IN] = {NULL, &a->s.common, &a->s.layout, a};
    uint64_t seen;
    int rc = parse_options(&merge_cmd, argc, argv, first, base, &seen);
    if (rc >= 0)
        return rc;
    if (check_fields_args(&a->s, seen) != EXIT_OK || check_order_args(&a->s, seen) != EXIT_OK)
        return EXIT_USAGE;
    if (!a->n_inputs) {
        msg_error("merge needs the sorted files to merge (see 'clsort merge --help')");
        return EXIT_USAGE;
    }
    int stdin_seen = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (strcmp(a->inputs[i], "-") == 0 && stdin_seen++) {
            msg_error("'-' (stdin) is given more than once: it can be read only once");
            return EXIT_USAGE;
        }
    return -1;
}

int parse_gen_args(int argc, char **argv, int first, gen_args *a)
{
    memset(a, 0, sizeof *a);
    a->dist.kind = DIST_UNIFORM;
    a->common.seed = 1;
    a->layout.type = CLSORT_KEY_U32;
    void *const base[N_IN] = {NULL, &a->common, &a->layout, a};
    uint64_t seen;
    int rc = parse_options(&gen_cmd, argc, argv, first, base, &seen);
    if (rc >= 0)
        return rc;
    if (a->layout.type == LAYOUT_KEY_BYTES) {
        msg_error("--type bytes: gen writes numbers (u32, i32, f32, u64, i64, f64)");
        return EXIT_USAGE;
    }
    if (dist_check_type(&a->dist, a->layout.type) != 0 ||
        layout_settle(&a->layout, LAYOUT_GEN, GIVEN(seen, R_VALUE_SIZE)) != EXIT_OK)
        return EXIT_USAGE;
    if (!GIVEN(seen, R_COUNT)) {
        msg_error("gen needs the number of keys: -n N (see 'clsort gen --help')");
        return EXIT_USAGE;
    }
    const char *out = a->common.output ? a->common.output : "-";
    if (layout_check_files(&a->layout, LAYOUT_GEN, NULL, out) != EXIT_OK)
        return EXIT_USAGE;
    return -1;
}

int parse_devices_args(int argc, char **argv, int first, devices_args *a)
{
    memset(a, 0, sizeof *a);
    void *const base[N_IN] = {NULL, NULL, NULL, a};
    uint64_t seen;
    return parse_options(&devices_cmd, argc, argv, first, base, &seen);
}

/* bench's defaults for what was not narrowed: a sweep */
static void bench_defaults(bench_args *a)
{
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
         * is safe: forcing it elsewhere could hang), radix-hybrid (likewise) and oddeven
         * (quadratic: a teaching baseline) */
        for (int i = 0; i < 256 && a->algo_count < BENCH_MAX_LIST; i++) {
            const char *name = clsort_algorithm_name((clsort_algorithm)i);
            clsort_algorithm back;
            if (!name || !*name || clsort_algorithm_from_name(name, &back) != CLSORT_OK ||
                (int)back != i)
                break;
            if (i != CLSORT_ALGO_AUTO && i != CLSORT_ALGO_ONESWEEP &&
                i != CLSORT_ALGO_RADIX_HYBRID && strcmp(name, "oddeven") != 0)
                a->algorithm[a->algo_count++] = i;
        }
    }
    if (!a->keys && !a->pairs)
        a->keys = a->pairs = 1;
}

int parse_bench_args(int argc, char **argv, int first, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->common.seed = 1;
    a->repeat = 10;
    a->warmup = 1;
    void *const base[N_IN] = {NULL, &a->common, NULL, a};
    uint64_t seen;
    int rc = parse_options(&bench_cmd, argc, argv, first, base, &seen);
    if (rc >= 0)
        return rc;
    if (a->json && a->plot && strcmp(a->json, "-") == 0 && strcmp(a->plot, "-") == 0) {
        msg_error("--json - and --plot - cannot both go to stdout");
        return EXIT_USAGE;
    }
    bench_defaults(a);
    return -1;
}
