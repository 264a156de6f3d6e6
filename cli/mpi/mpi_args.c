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

void mpi_sanitize(char *out, size_t cap, const char *text)
{
    /* names are the user's bytes: control characters and bytes outside ASCII are shown as \xNN, so
     * that a crafted name cannot rewrite the terminal */
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && used + 5 < cap; p++) {
        if ((*p >= 0x20 && *p < 0x7f) || *p == '\n' || *p == '\t')
            out[used++] = (char)*p;
        else
            used += (size_t)snprintf(out + used, cap - used, "\\x%02x", *p);
    }
    out[used] = '\0';
}

/* opt.c reports through msg_error(); here the prefix is the tool's and only rank 0 speaks, so that
 * a usage error is printed once, not once per rank. */
void msg_error(const char *fmt, ...)
{
    if (g_mpi_rank != 0)
        return;
    char line[2048], safe[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    mpi_sanitize(safe, sizeof safe, line);
    fprintf(stderr, "clsort-mpi: %s\n", safe);
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
           "      --merge WHERE     where each rank merges the pieces it receives: device\n"
           "                        (default; a stable sort of them) or host (threads)\n"
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

enum { O_INPUT = 1, O_OUTPUT, O_TYPE, O_KV, O_VALUE_SIZE, O_DESC, O_REVERSE, O_BITS, O_DEVICE,
       O_STATS, O_PARALLEL, O_MERGE, O_BUFFER_SIZE, O_TEMP_DIR, O_HELP, O_VERSION };

static const opt_def defs[] = {
    {"input", 'i', 1, O_INPUT},     {"output", 'o', 1, O_OUTPUT},
    {"type", 't', 1, O_TYPE},       {"kv", 0, 0, O_KV},
    {"value-size", 0, 1, O_VALUE_SIZE}, {"desc", 0, 0, O_DESC},
    {"reverse", 'r', 0, O_REVERSE}, {"bits", 0, 1, O_BITS},
    {"device", 'd', 1, O_DEVICE},   {"stats", 0, 0, O_STATS},
    {"parallel", 0, 1, O_PARALLEL}, {"buffer-size", 'S', 1, O_BUFFER_SIZE},
    {"temporary-directory", 'T', 1, O_TEMP_DIR}, {"merge", 0, 1, O_MERGE},
    {"help", 'h', 0, O_HELP},       {"version", 0, 0, O_VERSION},
    {NULL, 0, 0, 0},
};

/* --bits B:E, as clsort reads it; the range is checked against the key width once the type is in. */
static int parse_bits(const opt_state *st, const char *arg, mpi_args *a)
{
    char *q;
    if (*arg >= '0' && *arg <= '9') {
        unsigned long b = strtoul(arg, &q, 10);
        if (*q == ':' && q[1] >= '0' && q[1] <= '9' && b <= 64) {
            unsigned long e = strtoul(q + 1, &q, 10);
            if (!*q && e <= 64) {
                a->begin_bit = (unsigned)b;
                a->end_bit = (unsigned)e;
                return 0;
            }
        }
    }
    msg_error("option '%s': '%s' is not a bit range B:E (e.g. 0:16, bits B to E-1 of the key)",
              st->current, arg);
    return -1;
}

int parse_mpi_args(int argc, char **argv, mpi_args *a)
{
    memset(a, 0, sizeof *a);
    a->type = CLSORT_KEY_U32;
    opt_state st;
    opt_init(&st, argc, argv, 1, "clsort-mpi --help");
    int kv = 0, vs_given = 0, bits_given = 0;
    uint64_t v;
    const char *arg;
    for (;;) {
        int id = opt_next(&st, defs, &arg);
        switch (id) {
        case OPT_END:
            goto done;
        case OPT_ERROR:
            return EXIT_USAGE;
        case OPT_OPERAND:
            msg_error("unexpected operand '%s': name the input with -i (see 'clsort-mpi --help')",
                      arg);
            return EXIT_USAGE;
        case O_INPUT: a->input = arg; break;
        case O_OUTPUT: a->output = arg; break;
        case O_DEVICE: a->device = arg; break;
        case O_KV: kv = 1; break;
        case O_DESC: case O_REVERSE: a->descending = 1; break;
        case O_STATS: a->stats = 1; break;
        case O_TYPE:
            if (clsort_key_type_from_name(arg, &a->type) != CLSORT_OK) {
                msg_error("unknown key type '%s' (u32, i32, f32, u64, i64, f64)", arg);
                return EXIT_USAGE;
            }
            break;
        case O_VALUE_SIZE:
            if (opt_parse_u64(&st, arg, &v) != 0)
                return EXIT_USAGE;
            if (v != 0 && v != 4 && v != 8) {
                msg_error("option '%s': %s is not a value size (0, 4 or 8 bytes)", st.current, arg);
                return EXIT_USAGE;
            }
            a->value_size = (size_t)v;
            vs_given = 1;
            break;
        case O_PARALLEL:
            if (opt_parse_count(&st, arg, &v) != 0)
                return EXIT_USAGE;
            if (v < 1 || v > 256) {
                msg_error("--parallel %s: expected 1 to 256 threads", arg);
                return EXIT_USAGE;
            }
            a->parallel = (unsigned)v;
            break;
        case O_MERGE:
            if (strcmp(arg, "device") != 0 && strcmp(arg, "host") != 0) {
                msg_error("--merge %s: expected device or host", arg);
                return EXIT_USAGE;
            }
            a->merge_host = strcmp(arg, "host") == 0;
            break;
        case O_BUFFER_SIZE:
            if (opt_parse_memory(&st, arg, &a->buffer_size, &a->buffer_percent) != 0)
                return EXIT_USAGE;
            break;
        case O_TEMP_DIR:
            if (!*arg || a->n_temp_dirs == MPI_MAX_TEMP_DIRS) {
                msg_error("option '%s': %s", st.current, *arg ? "at most 16 directories"
                                                              : "an empty directory name");
                return EXIT_USAGE;
            }
            a->temp_dirs[a->n_temp_dirs++] = arg;
            break;
        case O_BITS:
            if (parse_bits(&st, arg, a) != 0)
                return EXIT_USAGE;
            bits_given = 1;
            break;
        case O_HELP:
            if (g_mpi_rank == 0)
                help();
            return EXIT_OK;
        case O_VERSION:
            if (g_mpi_rank == 0)
                printf("clsort-mpi %s (libclsort %s)\n", CLSORT_VERSION_STRING, clsort_version());
            return EXIT_OK;
        }
    }
done:
    /* the layout rules of clsort sort: --kv alone means 4-byte values, --value-size V alone means
     * records of key and value */
    if (vs_given && a->value_size == 0 && kv) {
        msg_error("--value-size 0 means keys only, but --kv gives values");
        return EXIT_USAGE;
    }
    if (!vs_given)
        a->value_size = kv ? 4 : 0;
    if (bits_given) {
        unsigned width = (unsigned)clsort_key_type_size(a->type) * 8;
        if (a->begin_bit >= a->end_bit || a->end_bit > width) {
            msg_error("--bits %u:%u is not a bit range of %s keys: expected B:E with "
                      "0 <= B < E <= %u", a->begin_bit, a->end_bit, clsort_key_type_name(a->type),
                      width);
            return EXIT_USAGE;
        }
    }
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

size_t mpi_record_size(const mpi_args *a)
{
    return clsort_key_type_size(a->type) + a->value_size;
}
