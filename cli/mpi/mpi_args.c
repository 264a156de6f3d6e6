/*
 * clsort-mpi's options, with the names and messages of 'clsort sort' (parsed on opt.c's tokenizer),
 * its help text, and the messages of parsing: every rank parses, rank 0 alone prints.
 */
#include "mpi_args.h"
#include "cli.h"
#include "opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_mpi_rank;

void mpi_messages(int rank)
{
    g_mpi_rank = rank;
    g_msg_program = "clsort-mpi";
    g_msg_silent = rank != 0;
}

static void help(void)
{
    printf("Usage: mpirun -n P clsort-mpi -i INPUT -o OUTPUT [options]\n"
           "\n"
           "Sort a file of binary keys (or records of a key and a value) on P processes,\n"
           "each sorting its share on an OpenCL device with libclsort: a sample sort whose\n"
           "output is byte for byte what 'clsort' writes with the same options (stable).\n"
           "\n"
           "  -i, --input FILE      the input (a file every rank can read)\n"
           "  -o, --output FILE     the output, replaced only when every rank succeeded\n"
           "  -t, --type T          key type: u32 (default), i32, f32, u64, i64, f64\n"
           "      --kv              records of a key and a 4-byte value\n"
           "      --value-size V    bytes of each record's value: 0, 4 or 8\n"
           "  -r, --desc, --reverse descending order (equal keys keep their input order)\n"
           "      --bits B:E        sort by bits B to E-1 of the key only\n"
           "  -d, --device DEV      OpenCL device of every rank (default: $CLSORT_DEVICE,\n"
           "                        else a host's GPUs dealt out to its ranks)\n"
           "  -S, --buffer-size SIZE memory of each rank (e.g. 512Mi, 2G, or N%% of physical\n"
           "                        memory); a larger share is sorted in runs in temporary\n"
           "                        files (default: half of memory over the host's ranks)\n"
           "  -T, --temporary-directory DIR\n"
           "                        where the runs go (repeatable; default $TMPDIR, else\n"
           "                        /tmp)\n"
           "      --merge WHERE     where a rank merges the pieces it receives: pieces (on\n"
           "                        its threads, from where they lie), device (a sort on\n"
           "                        the device, its runs merged there), host (that sort's\n"
           "                        runs merged on the threads), or auto (default: pieces\n"
           "                        on two ranks or beyond the budget, where they lie in\n"
           "                        memory; else device)\n"
           "      --io WAY          how ranks read the input and write the output: posix\n"
           "                        (pread/pwrite on --parallel threads), mpi (MPI-IO), or\n"
           "                        auto (default: posix where every rank is on one host)\n"
           "      --parallel N      host threads of each rank (default: the host's online\n"
           "                        cores over its ranks, at least 1)\n"
           "      --stats           each phase's time (the slowest rank's) and each rank's\n"
           "                        share of the output\n"
           "  -h, --help            this text\n"
           "      --version         the version\n"
           "\n"
           "Exit status: 0 sorted; 1 invalid usage or input; 2 device, library or memory\n"
           "error; 3 I/O error. Every rank exits with the first failing rank's status,\n"
           "which rank 0 prints; 128+N: a rank ended by signal N (130 SIGINT, 143 SIGTERM),\n"
           "no temporary file left, the old output kept. See clsort-mpi(1).\n");
}

/* -------------------------------------------------------------------------------------------------
 * The option table: a row's step stores its value (arg, NULL for a flag); it returns -1 to go on,
 * or an exit status to end with (after --help, --version or an error).
 */

typedef struct parse_ctx {
    mpi_args *a;
    opt_state st;
    int kv, vs_given, bits_given;
} parse_ctx;

typedef struct mpi_row {
    const char *name;
    char short_name;
    int has_arg;
    int (*step)(parse_ctx *p, const char *arg);
} mpi_row;

static int set_input(parse_ctx *p, const char *arg) { p->a->input = arg; return -1; }
static int set_output(parse_ctx *p, const char *arg) { p->a->output = arg; return -1; }
static int set_device(parse_ctx *p, const char *arg) { p->a->device = arg; return -1; }
static int set_kv(parse_ctx *p, const char *arg) { (void)arg; p->kv = 1; return -1; }
static int set_desc(parse_ctx *p, const char *arg) { (void)arg; p->a->descending = 1; return -1; }
static int set_stats(parse_ctx *p, const char *arg) { (void)arg; p->a->stats = 1; return -1; }

static int set_type(parse_ctx *p, const char *arg)
{
    if (clsort_key_type_from_name(arg, &p->a->type) == CLSORT_OK)
        return -1;
    msg_error("unknown key type '%s' (u32, i32, f32, u64, i64, f64)", arg);
    return EXIT_USAGE;
}

static int set_value_size(parse_ctx *p, const char *arg)
{
    uint64_t v;
    if (opt_parse_u64(&p->st, arg, &v) != 0)
        return EXIT_USAGE;
    if (v != 0 && v != 4 && v != 8) {
        msg_error("option '%s': %s is not a value size (0, 4 or 8 bytes)", p->st.current, arg);
        return EXIT_USAGE;
    }
    p->a->value_size = (size_t)v;
    p->vs_given = 1;
    return -1;
}

static int set_parallel(parse_ctx *p, const char *arg)
{
    uint64_t v;
    if (opt_parse_count(&p->st, arg, &v) != 0)
        return EXIT_USAGE;
    if (v < 1 || v > 256) {
        msg_error("--parallel %s: expected 1 to 256 threads", arg);
        return EXIT_USAGE;
    }
    p->a->parallel = (unsigned)v;
    return -1;
}

/* The index of arg among names[0..n), or -1. */
static int name_index(const char *arg, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

static int set_merge(parse_ctx *p, const char *arg)
{
    static const char *const names[] = {"auto", "pieces", "device", "host"};
    if ((p->a->merge = name_index(arg, names, 4)) >= 0)
        return -1;
    msg_error("--merge %s: expected auto, pieces, device or host", arg);
    return EXIT_USAGE;
}

static int set_io(parse_ctx *p, const char *arg)
{
    static const char *const names[] = {"auto", "posix", "mpi"};
    if ((p->a->io = name_index(arg, names, 3)) >= 0)
        return -1;
    msg_error("--io %s: expected auto, posix or mpi", arg);
    return EXIT_USAGE;
}

static int set_buffer_size(parse_ctx *p, const char *arg)
{
    return opt_parse_memory(&p->st, arg, &p->a->buffer_size, &p->a->buffer_percent) ? EXIT_USAGE
                                                                                     : -1;
}

static int add_temp_dir(parse_ctx *p, const char *arg)
{
    if (!*arg || p->a->n_temp_dirs == MPI_MAX_TEMP_DIRS) {
        msg_error("option '%s': %s", p->st.current,
                  *arg ? "at most 16 directories" : "an empty directory name");
        return EXIT_USAGE;
    }
    p->a->temp_dirs[p->a->n_temp_dirs++] = arg;
    return -1;
}

/* --bits B:E, as clsort reads it; the range is checked against the key width once the type is in. */
static int set_bits(parse_ctx *p, const char *arg)
{
    char *q;
    if (*arg >= '0' && *arg <= '9') {
        unsigned long b = strtoul(arg, &q, 10);
        if (*q == ':' && q[1] >= '0' && q[1] <= '9' && b <= 64) {
            unsigned long e = strtoul(q + 1, &q, 10);
            if (!*q && e <= 64) {
                p->a->begin_bit = (unsigned)b;
                p->a->end_bit = (unsigned)e;
                p->bits_given = 1;
                return -1;
            }
        }
    }
    msg_error("option '%s': '%s' is not a bit range B:E (e.g. 0:16, bits B to E-1 of the key)",
              p->st.current, arg);
    return EXIT_USAGE;
}

static int show_help(parse_ctx *p, const char *arg)
{
    (void)p, (void)arg;
    if (g_mpi_rank == 0)
        help();
    return EXIT_OK;
}

static int show_version(parse_ctx *p, const char *arg)
{
    (void)p, (void)arg;
    if (g_mpi_rank == 0)
        printf("clsort-mpi %s (libclsort %s)\n", CLSORT_VERSION_STRING, clsort_version());
    return EXIT_OK;
}

/* The names are clsort sort's. */
static const mpi_row rows[] = {
    {"input", 'i', 1, set_input},
    {"output", 'o', 1, set_output},
    {"type", 't', 1, set_type},
    {"kv", 0, 0, set_kv},
    {"value-size", 0, 1, set_value_size},
    {"desc", 0, 0, set_desc},
    {"reverse", 'r', 0, set_desc},
    {"bits", 0, 1, set_bits},
    {"device", 'd', 1, set_device},
    {"stats", 0, 0, set_stats},
    {"parallel", 0, 1, set_parallel},
    {"buffer-size", 'S', 1, set_buffer_size},
    {"temporary-directory", 'T', 1, add_temp_dir},
    {"merge", 0, 1, set_merge},
    {"io", 0, 1, set_io},
    {"help", 'h', 0, show_help},
    {"version", 0, 0, show_version},
};
enum { N_ROWS = sizeof rows / sizeof rows[0] };

/* -------------------------------------------------------------------------------------------------
 * The checks once every option is in, in the order clsort sort makes them.
 */

/* The layout rules of clsort sort: --kv alone means 4-byte values, --value-size V alone means
 * records of key and value. */
static int check_layout(parse_ctx *p)
{
    if (p->vs_given && p->a->value_size == 0 && p->kv) {
        msg_error("--value-size 0 means keys only, but --kv gives values");
        return EXIT_USAGE;
    }
    if (!p->vs_given)
        p->a->value_size = p->kv ? 4 : 0;
    return -1;
}

static int check_bits(parse_ctx *p)
{
    const mpi_args *a = p->a;
    unsigned width = (unsigned)clsort_key_type_size(a->type) * 8;
    if (!p->bits_given || (a->begin_bit < a->end_bit && a->end_bit <= width))
        return -1;
    msg_error("--bits %u:%u is not a bit range of %s keys: expected B:E with 0 <= B < E <= %u",
              a->begin_bit, a->end_bit, clsort_key_type_name(a->type), width);
    return EXIT_USAGE;
}

static int check_files(parse_ctx *p)
{
    const mpi_args *a = p->a;
    if (!a->input || !a->output) {
        msg_error("%s: clsort-mpi reads a file with MPI-IO and writes one (see 'clsort-mpi --help')",
                  !a->input ? "-i INPUT is missing" : "-o OUTPUT is missing");
        return EXIT_USAGE;
    }
    if (strcmp(a->input, "-") == 0 || strcmp(a->output, "-") == 0 || !*a->input || !*a->output) {
        msg_error("-i and -o name files: every rank reads and writes its own part of them, so "
                  "stdin and stdout cannot be used");
        return EXIT_USAGE;
    }
    return -1;
}

/* Every option through its row's step: -1 once all are in, else an exit status. */
static int parse_rows(parse_ctx *p)
{
    opt_def defs[N_ROWS + 1];
    for (int i = 0; i < N_ROWS; i++)
        defs[i] = (opt_def){rows[i].name, rows[i].short_name, rows[i].has_arg, i + 1};
    defs[N_ROWS] = (opt_def){NULL, 0, 0, 0};
    for (;;) {
        const char *arg;
        const int id = opt_next(&p->st, defs, &arg);
        if (id == OPT_END)
            return -1;
        if (id == OPT_ERROR)
            return EXIT_USAGE;
        if (id == OPT_OPERAND) {
            msg_error("unexpected operand '%s': name the input with -i (see 'clsort-mpi --help')",
                      arg);
            return EXIT_USAGE;
        }
        const int code = rows[id - 1].step(p, arg);
        if (code >= 0)
            return code;
    }
}

int parse_mpi_args(int argc, char **argv, mpi_args *a)
{
    int (*const checks[])(parse_ctx *) = {check_layout, check_bits, check_files};
    parse_ctx p = {.a = a};
    memset(a, 0, sizeof *a);
    a->type = CLSORT_KEY_U32;
    opt_init(&p.st, argc, argv, 1, "clsort-mpi --help");
    int code = parse_rows(&p);
    for (size_t i = 0; code < 0 && i < sizeof checks / sizeof checks[0]; i++)
        code = checks[i](&p);
    return code;
}

size_t mpi_record_size(const mpi_args *a)
{
    return clsort_key_type_size(a->type) + a->value_size;
}
