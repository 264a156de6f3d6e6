/*
 * clsort text: text lines sorted as `LC_ALL=C sort` sorts them, byte for byte (GNU sort's options,
 * text_args.c). The inputs, one after the other, are the source of the library's
 * clsort_sort_lines_stream() (on the device from 1 MiB of input, or with --device, else on the
 * host's threads), which sorts them in blocks within the -S budget, as runs in nameless files in -T
 * and merged when they do not fit, into the output. -m merges the inputs as they are (a heap here,
 * over the library's comparison), -c and -C check the order. Output goes through io.c: a temporary
 * file put in place at the end, so that no partial output is left and the output may be an input.
 * The device opens on a thread of its own while the library reads (the source's late context), on
 * hosts of 4 cores or more (not with --parallel=1); --parallel N bounds the host's threads of
 * every step (the library's stream settings); --stats says where the time went.
 * Calls text_args.c, the library (clsort_sort_lines_stream, clsort_lines_order_*), io.c,
 * settings.c, msg.c, progress.c (the clock).
 */
#include "cli.h"
#include "io.h"
#include "opener.h"
#include "progress.h"
#include "settings.h"
#include "text.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* From this much input on, the device sorts (a context costs more than it saves below) */
#define TEXT_DEVICE_MIN (1u << 20)
#define TEXT_OUT_BYTES (1u << 20)
/* The default budget: the input and its line tables in memory up to this part of physical memory
 * (the library's default too) */
#define TEXT_DEFAULT_SHARE 2

/* An input file read for -m and -c. */
typedef struct source {
    input_file in;
    const char *name;
} source;

static int source_read(source *s, char *buf, size_t cap, size_t *got)
{
    return input_read_some(&s->in, buf, cap, got) == EXIT_OK ? 0 : -1;
}

/* Lines read from a source a block at a time (a longer line grows the block). */
typedef struct reader {
    source *src;
    char *buf;
    size_t cap, beg, end;
    int eof;
    char delim;
    char *line; /* the current line */
    size_t len;
    uint64_t line_no;
} reader;

static int reader_init(reader *r, source *src, size_t cap, char delim)
{
    memset(r, 0, sizeof *r);
    r->src = src;
    r->cap = cap;
    r->delim = delim;
    r->buf = malloc(cap);
    if (!r->buf) {
        msg_error("out of memory");
        return -1;
    }
    return 0;
}

/* The next line into r->line, r->len: 1, 0 at the end, -1 on an error (said). */
static int reader_next(reader *r)
{
    for (;;) {
        char *q = r->end > r->beg ? memchr(r->buf + r->beg, r->delim, r->end - r->beg) : NULL;
        if (q || (r->eof && r->end > r->beg)) {
            r->line = r->buf + r->beg;
            r->len = q ? (size_t)(q - r->line) : r->end - r->beg;
            r->beg = q ? (size_t)(q - r->buf) + 1 : r->end;
            r->line_no++;
            return 1;
        }
        if (r->eof)
            return 0;
        if (r->beg > 0) {
            memmove(r->buf, r->buf + r->beg, r->end - r->beg);
            r->end -= r->beg;
            r->beg = 0;
        }
        if (r->end == r->cap) {
            char *b = realloc(r->buf, r->cap * 2);
            if (!b) {
                msg_error("out of memory for a line of %zu bytes or more", r->cap);
                return -1;
            }
            r->buf = b;
            r->cap *= 2;
        }
        size_t got = 0;
        if (source_read(r->src, r->buf + r->end, r->cap - r->end, &got) != 0)
            return -1;
        if (got == 0)
            r->eof = 1;
        r->end += got;
    }
}

/* Buffered output of lines, each ended by the delimiter. */
typedef struct writer {
    output_file *out;
    char *buf;
    size_t n;
    char delim;
} writer;

static int writer_flush(writer *w)
{
    if (w->n == 0)
        return 0;
    if (output_write(w->out, w->buf, w->n) != EXIT_OK)
        return -1;
    w->n = 0;
    return 0;
}

static int writer_line(writer *w, const char *p, size_t len)
{
    if (w->n + len + 1 > TEXT_OUT_BYTES) {
        if (writer_flush(w) != 0)
            return -1;
        if (len + 1 > TEXT_OUT_BYTES) {
            /* a long line goes straight through */
            const char *saved = w->buf;
            w->buf = (char *)p;
            w->n = len;
            const int rc = writer_flush(w);
            w->buf = (char *)saved;
            if (rc != 0)
                return -1;
            w->buf[w->n++] = w->delim;
            return 0;
        }
    }
    memcpy(w->buf + w->n, p, len);
    w->n += len;
    w->buf[w->n++] = w->delim;
    return 0;
}

/* The device's open on a thread of its own, while the inputs are read. */
typedef struct text_job {
    text_args a;
    clsort_lines_order *order;
    clsort_context *ctx;
    output_file out;
    int have_out;
    writer w;
    const char *tmpdir;
    clsort_stats stats; /* the library's measurements, for --stats */
    uint64_t bytes;     /* the inputs' bytes */
    double ahead_ms;    /* reading the inputs' start (beside the device's open) */
    double open_ms;     /* waiting for the device to open */
    double commit_ms;   /* the output put in place (synced first where it replaces a file) */
    device_opener *opener; /* the device opening beside the read, or NULL */
    clsort_context *lib_ctx; /* the context the library sorts with (its errors' details there) */
} text_job;

static int open_output(text_job *j)
{
    if (output_open(&j->out, j->a.output ? j->a.output : "-", 1) != EXIT_OK)
        return -1;
    j->have_out = 1;
    j->w.out = &j->out;
    return 0;
}

/* Whether reader x's line goes before reader y's: the smaller line, of equal ones the earlier
 * reader's (runs and inputs are in input order: the merge is stable). */
static int reader_before(const text_job *j, const reader *r, size_t x, size_t y)
{
    const int c = clsort_lines_order_compare(j->order, r[x].line, r[x].len, r[y].line, r[y].len);
    return c < 0 || (c == 0 && x < y);
}

static void heap_down(const text_job *j, const reader *r, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, c = 2 * i + 1;
        if (c < n && reader_before(j, r, h[c], h[m]))
            m = c;
        if (c + 1 < n && reader_before(j, r, h[c + 1], h[m]))
            m = c + 1;
        if (m == i)
            return;
        const size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Merge readers into the output through a heap: the smallest line first, of equal lines the
 * earlier reader's; -u keeps the first of lines that compare equal. */
static int merge_readers(text_job *j, reader *r, size_t k)
{
    size_t *heap = calloc(k ? k : 1, sizeof *heap);
    size_t n = 0;
    char *last = NULL;
    size_t last_len = 0, last_cap = 0;
    int have_last = 0, rc = -1;
    if (!heap) {
        msg_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        const int g = reader_next(&r[i]);
        if (g < 0)
            goto done;
        if (g)
            heap[n++] = i;
    }
    for (size_t i = n / 2; i-- > 0;)
        heap_down(j, r, heap, n, i);
    while (n > 0) {
        const size_t best = heap[0];
        reader *b = &r[best];
        int keep = 1;
        if (j->a.spec.unique) {
            keep = !have_last || clsort_lines_order_compare(j->order, last, last_len, b->line, b->len) != 0;
            if (keep) {
                if (b->len > last_cap) {
                    char *nl = realloc(last, b->len);
                    if (!nl) {
                        msg_error("out of memory");
                        goto done;
                    }
                    last = nl;
                    last_cap = b->len;
                }
                if (b->len)
                    memcpy(last, b->line, b->len);
                last_len = b->len;
                have_last = 1;
            }
        }
        if (keep && writer_line(&j->w, b->line, b->len) != 0)
            goto done;
        const int g = reader_next(b);
        if (g < 0)
            goto done;
        if (!g)
            heap[0] = heap[--n];
        heap_down(j, r, heap, n, 0);
    }
    rc = writer_flush(&j->w);
done:
    free(heap);
    free(last);
    return rc;
}

static int open_source(source *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    if (input_open(&s->in, path) != EXIT_OK)
        return -1;
    return 0;
}

/* -c / -C: the first line out of order (equal ones too with -u) is reported, exit 1. */
static int check_order(text_job *j)
{
    source s;
    reader r;
    if (open_source(&s, j->a.files[0]) != 0)
        return TEXT_EXIT_ERROR;
    if (reader_init(&r, &s, 1u << 20, j->a.spec.delimiter) != 0) {
        input_close(&s.in);
        return TEXT_EXIT_ERROR;
    }
    char *prev = NULL;
    size_t prev_len = 0, prev_cap = 0;
    int have = 0, rc = EXIT_OK, g;
    while ((g = reader_next(&r)) > 0) {
        if (have) {
            const int c = clsort_lines_order_compare(j->order, prev, prev_len, r.line, r.len);
            if (c > 0 || (c == 0 && j->a.spec.unique)) {
                if (j->a.check == 'c') {
                    fflush(stdout);
                    fprintf(stderr, "clsort: %s:%llu: disorder: ", j->a.files[0],
                            (unsigned long long)r.line_no);
                    fwrite(r.line, 1, r.len, stderr);
                    fputc('\n', stderr);
                }
                rc = TEXT_EXIT_DISORDER;
                break;
            }
        }
        if (r.len > prev_cap) {
            char *p = realloc(prev, r.len);
            if (!p) {
                msg_error("out of memory");
                rc = TEXT_EXIT_ERROR;
                break;
            }
            prev = p;
            prev_cap = r.len;
        }
        if (r.len) /* an empty line: prev may be NULL still */
            memcpy(prev, r.line, r.len);
        prev_len = r.len;
        have = 1;
    }
    if (g < 0)
        rc = TEXT_EXIT_ERROR;
    free(prev);
    free(r.buf);
    input_close(&s.in);
    return rc;
}

static int merge_inputs(text_job *j)
{
    const size_t k = j->a.n_files;
    source *s = calloc(k, sizeof *s);
    reader *r = calloc(k, sizeof *r);
    size_t opened = 0;
    int rc = -1;
    if (!s || !r) {
        msg_error("out of memory");
        goto done;
    }
    for (; opened < k; opened++) {
        if (open_source(&s[opened], j->a.files[opened]) != 0)
            goto done;
        if (reader_init(&r[opened], &s[opened], 256u << 10, j->a.spec.delimiter) != 0) {
            input_close(&s[opened].in);
            goto done;
        }
    }
    if (open_output(j) != 0)
        goto done;
    rc = merge_readers(j, r, k);
done:
    for (size_t i = 0; i < opened; i++) {
        free(r[i].buf);
        input_close(&s[i].in);
    }
    free(s);
    free(r);
    return rc;
}

/* The inputs one after the other as the library's source of bytes: each file's last line ends at
 * its end (a delimiter added where it has none), as GNU sort reads several files. The first bytes
 * may have been read ahead (pre) to choose the device. */
typedef struct text_source {
    text_job *j;
    size_t next;      /* the next file to open */
    int open, any;    /* a file is open; it gave bytes */
    char last;        /* the last byte it gave */
    int failed;       /* an input's error, said */
    input_file in;
    char *pre;
    size_t pre_len, pre_off;
} text_source;

static long long text_source_files(text_source *t, char *buf, size_t max)
{
    const char delim = t->j->a.spec.delimiter;
    for (;;) {
        if (!t->open) {
            if (t->next == t->j->a.n_files)
                return 0;
            if (input_open(&t->in, t->j->a.files[t->next]) != EXIT_OK) {
                t->failed = 1;
                return -1;
            }
            t->open = 1;
            t->any = 0;
        }
        size_t got = 0;
        if (input_read_some(&t->in, buf, max, &got) != EXIT_OK) {
            t->failed = 1;
            return -1;
        }
        if (got) {
            t->any = 1;
            t->last = buf[got - 1];
            t->j->bytes += got;
            return (long long)got;
        }
        input_close(&t->in);
        t->open = 0;
        t->next++;
        if (t->any && t->last != delim) {
            buf[0] = delim;
            return 1;
        }
    }
}

static long long text_source_read(void *user, char *buf, size_t max)
{
    text_source *t = user;
    if (t->pre_off < t->pre_len) {
        const size_t n = t->pre_len - t->pre_off < max ? t->pre_len - t->pre_off : max;
        memcpy(buf, t->pre + t->pre_off, n);
        t->pre_off += n;
        if (t->pre_off == t->pre_len) { /* all taken: its memory given back */
            free(t->pre);
            t->pre = NULL;
            t->pre_off = t->pre_len = 0;
        }
        return (long long)n;
    }
    return text_source_files(t, buf, max);
}

/* Up to max bytes of the inputs read ahead; 0, or -1 on an error (said). */
static int text_source_ahead(text_source *t, size_t max)
{
    const double t0 = now_ms();
    t->pre = malloc(max);
    if (!t->pre) {
        msg_error("out of memory");
        return -1;
    }
    int rc = 0;
    while (t->pre_len < max) {
        const long long got = text_source_files(t, t->pre + t->pre_len, max - t->pre_len);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        t->pre_len += (size_t)got;
    }
    t->j->ahead_ms += now_ms() - t0;
    return rc;
}

/* The device, when it pays (the first MiB of input read ahead was full) or is asked for; without
 * one the host's threads sort. Without --device, on a host of 4 cores or more (or as
 * CLSORT_READ_AHEAD says), it opens on a thread of its own while the library reads the inputs,
 * and the library takes it (join_device()) when its first block is read: a device that fails to
 * open leaves the sort to the host's threads. Else it opens now. 0, or -1 (said). */
static int open_device(text_job *j, text_source *t, uint64_t budget)
{
    if (!j->a.device && !(t->pre_len == TEXT_DEVICE_MIN && budget / 2 >= TEXT_DEVICE_MIN))
        return 0;
    const int ahead = settings()->read_ahead;
    /* --parallel=1: no thread beside the read */
    if (!j->a.device && ahead != 0 && j->a.parallel != 1 &&
        (ahead > 0 || sysconf(_SC_NPROCESSORS_ONLN) >= 4)) {
        j->opener = calloc(1, sizeof *j->opener);
        if (j->opener && device_open_start(j->opener, NULL) == 0)
            return 0;
        free(j->opener);
        j->opener = NULL;
    }
    const double t0 = now_ms();
    const clsort_status st = clsort_open(&j->ctx, j->a.device);
    j->open_ms += now_ms() - t0;
    if (st != CLSORT_OK) {
        j->ctx = NULL; /* the host sorts the same lines the same way */
        if (j->a.device) {
            (void)open_failed(st, clsort_last_error_detail());
            return -1;
        }
    }
    return 0;
}

/* The device opening on its thread waited for: its context, or NULL (the host sorts). */
static clsort_context *join_device(text_job *j)
{
    if (j->opener) {
        const double w = now_ms();
        device_open_join(j->opener);
        j->open_ms += now_ms() - w;
        j->ctx = j->opener->st == CLSORT_OK ? j->opener->ctx : NULL;
        free(j->opener);
        j->opener = NULL;
    }
    return j->ctx;
}

static clsort_context *text_source_context(void *user)
{
    text_job *j = ((text_source *)user)->j;
    return j->lib_ctx = join_device(j);
}

/* The inputs' bytes when each is a regular file, else CLSORT_SIZE_UNKNOWN: the library's hint. */
static uint64_t text_inputs_size(const text_args *a)
{
    uint64_t sum = 0;
    for (size_t f = 0; f < a->n_files; f++) {
        struct stat st;
        const int r = strcmp(a->files[f], "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(a->files[f], &st);
        if (r != 0 || !S_ISREG(st.st_mode))
            return CLSORT_SIZE_UNKNOWN;
        sum += (uint64_t)st.st_size;
    }
    return sum;
}

/* The library's sink: the output, opened at the first bytes (everything has been read by then). */
typedef struct text_sink {
    text_job *j;
    int failed; /* the output's error, said */
} text_sink;

static int text_sink_write(void *user, const char *buf, size_t len)
{
    text_sink *k = user;
    if ((!k->j->have_out && open_output(k->j) != 0) || output_write(&k->j->out, buf, len) != EXIT_OK) {
        k->failed = 1;
        return -1;
    }
    return 0;
}

/* Sort the inputs through clsort_sort_lines_stream() into the output. */
static int sort_inputs(text_job *j)
{
    uint64_t budget = j->a.memory;
    if (!budget) {
        const uint64_t phys = io_physical_memory();
        budget = phys ? phys / TEXT_DEFAULT_SHARE : (uint64_t)1 << 32;
    }
    text_source t = { .j = j };
    text_sink k = { .j = j };
    int rc = -1;
    /* the device for blocks of 1 MiB or more: the first MiB read ahead says whether there are */
    if (!j->a.device && text_source_ahead(&t, TEXT_DEVICE_MIN) != 0)
        goto done;
    if (open_device(j, &t, budget) != 0)
        goto done;
    const clsort_lines_source src = { text_source_read, &t, text_inputs_size(&j->a),
                                      j->opener ? text_source_context : NULL };
    const clsort_lines_sink sink = { text_sink_write, &k };
    const char *dirs[1] = { j->tmpdir };
    clsort_stream_settings set;
    clsort_stream_settings_default(&set);
    set.memory_bytes = budget;
    set.temp_dirs = dirs;
    set.n_temp_dirs = 1;
    set.threads = j->a.parallel; /* 0: the library's default */
    j->lib_ctx = j->ctx; /* until the library takes the one opening beside the read */
    const clsort_status st = clsort_sort_lines_stream(j->ctx, &j->a.spec, &src, &sink, &set,
                                                      &j->stats);
    join_device(j); /* where the library took no block (an error) */
    if (st != CLSORT_OK) {
        if (!t.failed && !k.failed)
            msg_lib_error("sorting lines", st,
                          j->lib_ctx ? clsort_error_detail(j->lib_ctx) : clsort_last_error_detail());
        goto done;
    }
    rc = j->have_out ? 0 : open_output(j); /* an empty output */
done:
    if (t.open)
        input_close(&t.in);
    free(t.pre);
    return rc;
}

/* Whether the first bytes of a file look like text lines: a newline, no NUL, only printable
 * ASCII, tab, CR and UTF-8. For clsort sort's hint; reads at an offset, moving nothing. */
static int looks_like_text(int fd)
{
    unsigned char b[4096 + 4] = { 0 };
    ssize_t n;
    do
        n = pread(fd, b, 4096, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0 || !memchr(b, '\n', (size_t)n))
        return 0;
    for (ssize_t i = 0; i < n;) {
        const unsigned char c = b[i];
        if (c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f)) {
            i++;
            continue;
        }
        const size_t u = utf8_printable(b + i);
        if (u == 0)
            return n == 4096 && i > 4096 - 4; /* a character cut at the end of the block */
        i += (ssize_t)u;
    }
    return 1;
}

void text_hint(int fd)
{
    if (g_verbosity >= 1 && (fd < 0 || isatty(fd) || looks_like_text(fd)))
        fprintf(stderr, "clsort: hint: %s: 'clsort text' sorts lines of text as 'LC_ALL=C sort' "
                        "does (this command sorts binary keys and records)\n",
                fd < 0 || isatty(fd) ? "input from a terminal" : "the input looks like text lines");
}

void help_text(void)
{
    printf("Usage: clsort text [OPTION]... [FILE]...\n"
           "\n"
           "Sort lines of text as 'LC_ALL=C sort' does, byte for byte, with GNU sort's\n"
           "options and their meanings: the keys' prefixes are sorted on the device, lines\n"
           "with equal prefixes on the host. With no FILE, or when FILE is -, read stdin.\n"
           "\n"
           "Ordering options:\n"
           "  -b, --ignore-leading-blanks  ignore leading blanks\n"
           "  -d, --dictionary-order      consider only blanks and alphanumeric characters\n"
           "  -f, --ignore-case           fold lower case to upper case characters\n"
           "  -g, --general-numeric-sort  compare according to general numerical value\n"
           "  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)\n"
           "  -i, --ignore-nonprinting    consider only printable characters\n"
           "  -n, --numeric-sort          compare according to string numerical value\n"
           "  -r, --reverse               reverse the result of comparisons\n"
           "      --sort=WORD             numeric -n, general-numeric -g, human-numeric -h\n"
           "\n"
           "Other options:\n"
           "  -c, --check                 check for sorted input; do not sort\n"
           "      --check=diagnose-first  the same\n"
           "  -C, --check=quiet           like -c, but do not report the first bad line\n"
           "      --check=silent          the same\n"
           "      --files0-from=F         read the inputs named in F (NUL-terminated)\n"
           "  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type\n"
           "  -m, --merge                 merge already sorted files; do not sort\n"
           "  -o, --output=FILE           write result to FILE (may be an input)\n"
           "  -s, --stable                stabilize sort by disabling last-resort comparison\n"
           "  -S, --buffer-size=SIZE      memory for the input; larger inputs are sorted\n"
           "                              in runs in temporary files and merged\n"
           "  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition\n"
           "  -T, --temporary-directory=DIR  the runs' directory ($TMPDIR, else /tmp)\n"
           "      --parallel=N            at most N threads for the host's steps (16 at\n"
           "                              most; default: one per core, at most 16)\n"
           "      --batch-size=NMERGE     accepted (no difference to the output)\n"
           "  -u, --unique                output only the first of an equal run\n"
           "  -z, --zero-terminated       line delimiter is NUL, not newline\n"
           "      --device=DEVICE         sort on this device (see 'clsort devices')\n"
           "                              whatever the size (else from 1 MiB of input)\n"
           "      --stats                 where the time went, one line on stderr: read,\n"
           "                              open, split, keys, sort, ties, gather, write,\n"
           "                              runs, commit and the rest of the process's time\n"
           "      --help                  display this help and exit\n"
           "\n"
           "KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, F a field\n"
           "number and C a character position in the field, both origin 1; OPTS are\n"
           "ordering options (b d f g h i n r) for this key only. Without -t, a field is\n"
           "blanks and the non-blanks after them.\n"
           "\n"
           "Refused with exit 2, as their output would differ (use GNU sort): -M, -R, -V,\n"
           "--sort=month|random|version, --random-source, --debug, --compress-program,\n"
           "the obsolete +POS keys, and a locale whose collation or numbers are not C's\n"
           "(LC_ALL, LC_COLLATE, LC_NUMERIC, LANG): set LC_ALL=C.\n"
           "\n"
           "Exit status: 0 success, 1 -c or -C found disorder, 2 an error (as GNU sort).\n");
}

/* The device's context, left open for the process's exit (cmd_text). */
static clsort_context *volatile kept_for_exit; /* volatile: a store never read is kept */

/* --stats: one line on stderr, the steps' wall times adding up to the process's */
static void text_print_stats(const text_job *j)
{
    const clsort_stats *s = &j->stats;
    const double wall = now_ms() - process_start_ms();
    const double runs = s->spill_ms + s->merge_ms, read = j->ahead_ms + s->read_ms;
    const double parts = read + j->open_ms + s->split_ms + s->keys_ms + s->sort_ms + s->ties_ms +
                         s->gather_ms + s->write_ms + runs + j->commit_ms;
    fprintf(stderr,
            "clsort: text: %zu lines, %llu bytes in %.3f s (%.3f GB/s), %s: read %.3f, open %.3f, "
            "split %.3f, keys %.3f, sort %.3f, ties %.3f, gather %.3f, write %.3f, runs %.3f, "
            "commit %.3f, other %.3f s\n",
            s->n, (unsigned long long)j->bytes, wall / 1e3, wall > 0 ? j->bytes / wall / 1e6 : 0.0,
            j->ctx ? (s->algorithm ? s->algorithm : "device") : "host", read / 1e3,
            j->open_ms / 1e3, s->split_ms / 1e3, s->keys_ms / 1e3, s->sort_ms / 1e3,
            s->ties_ms / 1e3, s->gather_ms / 1e3, s->write_ms / 1e3, runs / 1e3,
            j->commit_ms / 1e3, (wall - parts) / 1e3);
}

int cmd_text(int argc, char **argv, int first)
{
    text_job *j = calloc(1, sizeof *j);
    if (!j) {
        msg_error("out of memory");
        return TEXT_EXIT_ERROR;
    }
    int rc = text_parse_args(argc, argv, first, &j->a);
    if (rc != -1)
        goto out;
    if (j->a.help || j->a.version) {
        if (j->a.help)
            help_text();
        else
            printf("clsort text %s\n", clsort_version());
        rc = EXIT_OK;
        goto out;
    }
    if (clsort_lines_order_new(&j->a.spec, &j->order) != CLSORT_OK) {
        msg_error("%s", clsort_last_error_detail());
        rc = TEXT_EXIT_ERROR;
        goto out;
    }
    if (j->a.check) {
        rc = check_order(j);
        goto out;
    }
    j->tmpdir = j->a.tmpdir ? j->a.tmpdir : settings()->tmpdir ? settings()->tmpdir : "/tmp";
    j->w.buf = malloc(TEXT_OUT_BYTES);
    j->w.delim = j->a.spec.delimiter;
    if (!j->w.buf) {
        msg_error("out of memory");
        rc = TEXT_EXIT_ERROR;
        goto out;
    }
    const int r = j->a.merge ? merge_inputs(j) : sort_inputs(j);
    if (r == 0 && j->have_out) {
        output_file *outs[1] = { &j->out };
        const double t = now_ms();
        if (output_finish(&j->out) == EXIT_OK && output_commit(outs, 1) == EXIT_OK) {
            j->commit_ms = now_ms() - t;
            j->have_out = 0;
            rc = EXIT_OK;
            if (j->a.stats && !j->a.merge)
                text_print_stats(j);
            goto out;
        }
    }
    rc = TEXT_EXIT_ERROR;
out:
    if (j->have_out)
        output_abort(&j->out);
    free(j->w.buf);
    clsort_lines_order_free(j->order);
    /* The context is not closed: the process exits right after the command and the OS takes its
     * memory back at once, where releasing the driver's buffers, queues and threads one by one
     * costs tens of milliseconds after the output is in place. Kept reachable from a static, so
     * that a leak checker does not count it. */
    join_device(j);
    if (j->ctx)
        kept_for_exit = j->ctx;
    text_args_free(&j->a);
    free(j);
    return rc;
}
