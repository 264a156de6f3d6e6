/*
 * Help texts of clsort and its subcommands. Owns the text only: the options it lists are args.c's
 * rows (tests/cli/test_man.sh checks that each is documented in clsort(1)). Calls msg.c for the
 * algorithms' names.
 */
#include "cli.h"

#include "clsort.h"

#include <stdio.h>
#include <string.h>

static void exit_status_text(void)
{
    printf("Exit status:\n"
           "  0    success\n"
           "  1    invalid usage or invalid input (unknown option or algorithm, missing or\n"
           "       unreadable input, a size that is not a whole number of records, an input\n"
           "       that -c, -C or merge finds out of order, a combination the algorithm\n"
           "       does not sort, e.g. --algo radix4 --segment 256, or an input over its\n"
           "       size limit, e.g. --algo oddeven on 70000 keys)\n"
           "  2    device, OpenCL or library error (no device, build failure, device out of\n"
           "       memory), host out of memory, or a failed --verify; with -c or -C, an\n"
           "       input that cannot be checked (missing, unreadable, not whole records)\n"
           "  3    I/O error reading or writing (cannot create, write, sync or rename the\n"
           "       output; a temporary file in -T: missing, read-only or full directory,\n"
           "       ulimit -f or -n), with the file or directory and the system's reason\n"
           "  128+N  ended by signal N (130 SIGINT, 143 SIGTERM); no partial output is left\n");
}

/* The algorithms' names, comma-separated, in lines that fit the option column (24 + 56 columns). */
static void algorithm_lines(char *out, size_t cap)
{
    char names[256];
    algorithm_names(names, sizeof names, ",");
    size_t used = 0, line = 0;
    out[0] = '\0';
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        const size_t len = strlen(name) + 1;
        const char *sep = !used ? "" : line + len > 56 ? ",\n                        " : ",";
        const int w = snprintf(out + used, cap - used, "%s%s", sep, name);
        if (w < 0 || (size_t)w >= cap - used)
            return;
        used += (size_t)w;
        line = sep[0] && sep[1] ? len - 1 : line + len;
    }
}

/* The commands' synopses and what each does. */
static void usage_text(void)
{
    printf("Usage: clsort [sort] [OPTIONS] [-i INPUT | INPUT] [-o OUTPUT]\n"
           "       clsort [sort] -c [OPTIONS] [-i INPUT | INPUT]\n"
           "       clsort merge [OPTIONS] FILE... [-o OUTPUT]\n"
           "       clsort gen -n N [--dist DIST] [--type T] [--value-size V] [--seed S]\n"
           "                  [-o OUTPUT]\n"
           "       clsort text [OPTION]... [FILE]...   (GNU sort's options)\n"
           "       clsort devices [--json]\n"
           "       clsort bench [--n N]... [--algo A]... [--dist D]... [--keys|--pairs]\n"
           "                    [--json FILE] [--plot FILE.svg]\n"
           "\n"
           "Sort binary files of little-endian keys (u32, i32, f32, u64, i64, f64), alone or\n"
           "with 4- or 8-byte values, on an OpenCL device (GPU or CPU).\n"
           "\n"
           "Commands:\n"
           "  sort      sort keys or key/value records (the default command)\n"
           "  merge     merge files that are sorted already\n"
           "  text      sort lines of text as 'LC_ALL=C sort' does\n"
           "  gen       write deterministic test data\n"
           "  devices   list OpenCL platforms and devices\n"
           "  bench     measure sorting throughput on generated data\n"
           "  help CMD  show the options of a command\n"
           "\n");
}

/* The sort's options of what is sorted and how (names: the algorithms, algorithm_lines()). */
static void sort_options_text(const char *names)
{
    printf("Sort options:\n"
           "  -i, --input FILE      keys to sort ('-' is stdin); default: stdin, if it is\n"
           "                        not a terminal\n"
           "  -o, --output FILE     where the sorted keys go ('-' is stdout, the default);\n"
           "                        may be the input file\n"
           "  -t, --type T          key type: u32 (default), i32, f32, u64, i64, f64, bytes\n"
           "                        (see --key-size); floats in IEEE total order: -NaN <\n"
           "                        -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN\n"
           "      --kv              records: a key, then a value (4 bytes by default)\n"
           "      --value-size V    bytes per value: 0 (keys only), 4 or 8; 4 and 8 without\n"
           "                        --values read records (as --kv) of key size + V bytes\n"
           "      --values FILE     values (4 bytes, or V), one per key, permuted with their\n"
           "                        keys\n"
           "      --values-out FILE where the permuted values go (needs --values)\n"
           "  -a, --algo NAME       algorithm (default auto):\n"
           "                        %s\n"
           "  -d, --device P:D      OpenCL device: platform:device, each an index or a part\n"
           "                        of the name (see 'clsort devices'); default\n"
           "                        $CLSORT_DEVICE, else the fastest GPU, else a CPU\n"
           "  -r, --desc, --reverse sort in descending order (stable: equal keys keep their\n"
           "                        input order)\n"
           "      --bits B:E        order by the key's bits B..E-1 only (0 <= B < E <= 32,\n"
           "                        or 64 for 64-bit keys)\n"
           "      --segment N       sort each run of N keys on its own (suffixes as in gen;\n"
           "                        0, the default: the whole input); not radix4,\n"
           "                        onesweep or radix-hybrid\n"
           "      --segments FILE   sort each segment of FILE's offsets on its own: u64\n"
           "                        little-endian, n_seg + 1 of them, first 0, last the\n"
           "                        number of records, never decreasing; any size: whole\n"
           "                        segments in batches within -S, a longer one alone in\n"
           "                        runs (-T); with --index-out, -c, --verify, --top K\n"
           "                        (each segment's first K); not with --segment, -u\n"
           "  -c, --check           check that the input is sorted (as the options say);\n"
           "                        exit 1 naming the first record out of order, 2 if it\n"
           "                        cannot be checked; no output\n"
           "  -C, --check=quiet     the same, saying nothing of the order (also\n"
           "                        --check=silent; --check=diagnose-first is -c)\n"
           "  -u, --unique          keep only the first record of each run of equal keys\n"
           "                        (equal in the sort's order and --bits); with -c, check\n"
           "                        that no two neighbours are equal\n"
           "      --record-size R   records of R bytes (1 GiB at most) sorted by a key field\n"
           "                        (the rest of each record goes with its key; with -c,\n"
           "                        -u, --verify, -S, -T, --top, merge; not --kv, --values,\n"
           "                        --segments)\n"
           "      --key-offset O    where the key starts in a record (default 0)\n"
           "      --key-size K      with --type bytes: keys of K bytes compared as unsigned\n"
           "                        bytes (memcmp order); without --record-size, keys alone\n"
           "      --index-out FILE  write the input position (u64, from 0) of each output\n"
           "                        key to FILE ('-' is stdout), to reorder other columns\n"
           "                        with; keys or records (no --kv or --values); stable:\n"
           "                        not with bitonic or oddeven (nor is -u with values or\n"
           "                        --bits)\n"
           "      --top K           write only the first K records of the sorted order (the\n"
           "                        K smallest, or largest with --desc), in order, equal\n"
           "                        keys in input order; K >= 1; an input of fewer records\n"
           "                        gives them all, sorted (with --segments: each\n"
           "                        segment's first K); with --index-out, their positions\n"
           "      --verify          check the result on the host (in the type's order, same\n"
           "                        records)\n",
           names);
}

/* The sort's options of reporting, memory, runs and output. */
static void run_options_text(void)
{
    printf("  -s, --stats           print times, throughput and memory to stderr\n"
           "      --stats-json FILE write them as a JSON object to FILE ('-' is stdout)\n"
           "  -S, --buffer-size SIZE memory for the data, as sort(1)'s buffer (what clsort\n"
           "                        and the OpenCL driver hold besides is not counted;\n"
           "                        at least 4 MiB); sort(1)'s suffixes: b bytes, K (the\n"
           "                        default), M, G, T, P, E powers of 1024 (Ki, Mi, ... the\n"
           "                        same), N%% of physical memory; more data is sorted in\n"
           "                        runs written to temporary files and merged (default:\n"
           "                        half of physical memory)\n"
           "  -T, --temporary-directory DIR\n"
           "                        where the runs go (repeatable; default $TMPDIR, else\n"
           "                        /tmp)\n"
           "      --parallel N      threads reading runs for the merge, records included\n"
           "                        (default: 1 per CPU, at most 16), and reading a\n"
           "                        regular input and copying the output (at most 16;\n"
           "                        default: 1 per CPU, at most 8)\n"
           "      --batch-size N    runs merged at once (default 64; more: in levels)\n"
           "  -f, --force           write binary data even to a terminal; let a quadratic\n"
           "                        algorithm (oddeven) sort beyond its size limit\n"
           "  -v, --verbose         print the device and a one-line summary to stderr\n"
           "  -q, --quiet           print errors only (and no progress line)\n"
           "      --no-progress     no progress line (shown on a terminal after a second)\n"
           "      --sync            flush a new output to disk before exiting (one that\n"
           "                        replaces a file always is)\n"
           "  -h, --help            show this help\n"
           "  -V, --version         show the version\n"
           "\n");
}

/* Where input and output go, and the environment. */
static void files_text(void)
{
    printf("'-' is stdin or stdout; with neither -i nor -o and stdin not a terminal, clsort\n"
           "reads stdin and writes stdout. Output to a regular file goes to a temporary file\n"
           "in the same directory that replaces the target only when complete (Ctrl-C\n"
           "removes it; the input is never modified); stdout, pipes and devices are written\n"
           "directly. No output may name an input (the offsets of --segments too) but -o\n"
           "the keys' and --values-out the values' (in place), nor two outputs one file;\n"
           "two outputs are put in place at one commit point (see clsort(1)). Binary data\n"
           "is never written to a terminal without -f. On a terminal, work that takes more\n"
           "than a second shows a progress line on stderr.\n"
           "\n"
           "Environment: CLSORT_DEVICE (device when -d is not given), CLSORT_CACHE_DIR,\n"
           "CLSORT_NO_CACHE=1, CLSORT_BUILD_OPTIONS, TMPDIR (see clsort(1)).\n"
           "\n");
}

static void examples_text(void)
{
    printf("\nExamples:\n"
           "  clsort gen -n 1M --seed 7 -o keys.bin\n"
           "  clsort -i keys.bin -o sorted.bin --stats\n"
           "  clsort gen -n 1M | clsort | od -An -tu4 | head\n"
           "  clsort --kv -i pairs.bin -o pairs.sorted.bin --device 0:0\n"
           "  clsort gen -n 1M --type f64 -o f.bin\n"
           "  clsort --type f64 --desc -i f.bin -o f.sorted\n"
           "  clsort --type u64 --value-size 8 -i recs.bin -o recs.sorted\n"
           "  clsort -i k.bin -o k.sorted --values v.bin --values-out v.sorted\n"
           "  clsort -c --type f64 f.sorted && echo sorted\n"
           "  clsort -u -i keys.bin -o distinct.bin\n"
           "  clsort merge a.sorted b.sorted -o all.sorted\n");
}

void help_main(void)
{
    char names[512];
    algorithm_lines(names, sizeof names);
    usage_text();
    sort_options_text(names);
    run_options_text();
    files_text();
    exit_status_text();
    examples_text();
}

void help_sort(void)
{
    help_main();
}

void help_merge(void)
{
    printf("Usage: clsort merge [OPTIONS] FILE... [-o OUTPUT]\n"
           "\n"
           "Merge files that are each sorted already into one sorted output, on the host (no\n"
           "device), reading each a block at a time: any size, in bounded memory. Stable: of\n"
           "equal keys, the records of an earlier FILE come first, and within a file they\n"
           "keep their order. '-' as a FILE is stdin. An input out of order is an error\n"
           "(exit 1) naming the file and the record, and no output is left.\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE     the merged records ('-' is stdout, the default); may be\n"
           "                        one of the inputs\n"
           "  -t, --type T          key type: u32 (default), i32, f32, u64, i64, f64 (floats\n"
           "                        in IEEE total order, as the sort takes them), bytes\n"
           "      --kv              records: a key, then a value (4 bytes by default)\n"
           "      --value-size V    bytes per value: 0 (keys only), 4 or 8 (records)\n"
           "  -r, --desc, --reverse the inputs are in descending order\n"
           "      --bits B:E        the inputs are ordered by the key's bits B..E-1 only\n"
           "  -u, --unique          keep only the first record of each run of equal keys\n"
           "      --record-size R   records of R bytes (1 GiB at most), ordered by a key\n"
           "                        field\n"
           "      --key-offset O    where the key starts in a record (default 0)\n"
           "      --key-size K      with --type bytes: keys of K bytes in memcmp order\n"
           "  -f, --force           write binary data even to a terminal\n"
           "      --no-progress     no progress line\n"
           "      --sync            flush a new output to disk before exiting\n"
           "  -v, --verbose         report the records merged\n"
           "  -q, --quiet           print errors only\n"
           "  -h, --help            show this help\n"
           "\n");
    exit_status_text();
}

void help_gen(void)
{
    printf("Usage: clsort gen -n N [--dist DIST] [--type T] [--value-size V] [--seed S]\n"
           "                  [--kv | --values-out FILE] [-o FILE]\n"
           "\n"
           "Write N deterministic little-endian keys (or key/value records). The same\n"
           "arguments always give the same bytes.\n"
           "\n"
           "Options:\n"
           "  -n, --count N         number of keys; suffixes k, M, G (10^3, 10^6, 10^9) and\n"
           "                        Ki, Mi, Gi (2^10, 2^20, 2^30): 1M, 64Ki (counts of\n"
           "                        records; sort -S's sizes are powers of 1024)\n"
           "      --dist DIST       key distribution (default uniform):\n"
           "                          uniform      uniform over the type's range\n"
           "                          constant[:V] every key V (default: a value from the\n"
           "                                       seed)\n"
           "                          sorted       non-decreasing, spread over the range\n"
           "                          reverse      non-increasing\n"
           "                          few:K        K distinct values\n"
           "                          entropy:Q    AND of Q uniform words (1-32): each bit\n"
           "                                       is set with probability 2^-Q\n"
           "                          zipf:S       Zipf's law with exponent S > 0 over 2^32\n"
           "                                       ranks (the k-th most frequent key has\n"
           "                                       probability proportional to k^-S)\n"
           "  -t, --type T          key type: u32 (default), i32, f32, u64, i64, f64\n"

           "      --value-size V    bytes per value: 0 (keys only, the default), 4 or 8;\n"
           "                        each key's index is its value, after the key in a record\n"
           "                        (or in --values-out)\n"
           "      --kv              records with 4-byte values (--value-size 4)\n"
           "      --values-out FILE write the values to FILE instead, keys alone to -o\n"
           "      --seed S          seed of the generator (default 1)\n"
           "  -o, --output FILE     output ('-' is stdout, the default)\n"
           "  -f, --force           write binary data even to a terminal\n"
           "      --no-progress     no progress line\n"
           "      --sync            flush a new output to disk before exiting\n"
           "  -v, --verbose         report the time taken\n"
           "  -q, --quiet           print errors only\n"
           "  -h, --help            show this help\n");
}

void help_devices(void)
{
    printf("Usage: clsort devices [--json]\n"
           "\n"
           "List the OpenCL platforms and devices: the P:D id to use with --device or\n"
           "CLSORT_DEVICE, platform, name, type, driver version, memory sizes, compute\n"
           "units, the algorithms the library runs there, and which device is the default.\n"
           "Exits with 2 when there is no device.\n"
           "\n"
           "Options:\n"
           "      --json            one JSON object: {\"devices\": [...]}\n"
           "  -h, --help            show this help\n");
}

void help_bench(void)
{
    char names[512];
    algorithm_lines(names, sizeof names);
    printf("Usage: clsort bench [OPTIONS]\n"
           "\n"
           "Sweep algorithms, sizes, distributions, and keys alone or with values: sort\n"
           "generated data repeatedly on a device and print a table of the kernel and\n"
           "end-to-end (upload, sort, download) throughput in GKey/s, and the ratio to a\n"
           "reference run in the same process on the same data (a single-threaded LSD radix\n"
           "sort on the host). Every result is checked. Each option below narrows the sweep;\n"
           "the list options may be repeated or given comma-separated values.\n"
           "\n"
           "Options:\n"
           "  -n, --n N             sizes (default 64Ki,256Ki,1Mi,4Mi,16Mi; suffixes as in\n"
           "                        gen)\n"
           "  -a, --algo NAME       algorithms:\n"
           "                        %s\n"
           "                        (default: all but auto, onesweep and radix-hybrid,\n"
           "                        which need forward progress between work-groups, and\n"
           "                        the quadratic oddeven)\n"
           "      --dist DIST       distributions, as in 'clsort gen' (default uniform)\n"
           "      --keys            keys alone only\n"
           "      --pairs           keys with 4-byte values only (default: both)\n"
           "      --seed S          seed (default 1)\n"
           "  -d, --device P:D      OpenCL device (see 'clsort devices')\n"
           "  -r, --repeat R        timed runs per case, the median is reported (default 10)\n"
           "      --warmup W        untimed runs first (default 1)\n"
           "      --no-reference    skip the host reference sort (no ratio)\n"
           "      --json FILE       write the results as JSON ('-' is stdout, instead of the\n"
           "                        table): format_version, tool version, device, driver,\n"
           "                        and one object per row\n"
           "      --plot FILE.svg   write an SVG chart of kernel GKey/s against n (log2),\n"
           "                        one line per algorithm\n"
           "      --no-progress     no progress line\n"
           "  -q, --quiet           print errors only\n"
           "  -h, --help            show this help\n",
           names);
}
