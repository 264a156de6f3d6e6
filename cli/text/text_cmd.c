/*
 * clsort text: text lines sorted as `LC_ALL=C sort` sorts them, byte for byte (GNU sort's options,
 * text_args.c). The inputs are read one after the other into a block of lines; a block is sorted by
 * clsort_sort_lines() (on the device from 1 MiB of input, or with --device, else on the host's
 * threads) and written out, or, when the input is larger than the -S budget, written sorted to a
 * nameless run file and the runs merged with the same comparison. -m merges the inputs as they are,
 * -c and -C check the order. Output goes through io.c: a temporary file put in place at the end, so
 * that no partial output is left and the output may be an input.
 * Calls text_args.c, the library (clsort_sort_lines, clsort_lines_order_*), io.c, settings.c, msg.c.
 */
#include "cli.h"
#include "io.h"
#include "settings.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* From this much input on, the device sorts (a context costs more than it saves below) */
#define TEXT_DEVICE_MIN (1u << 20)
#define TEXT_OUT_BYTES (1u << 20)
/* The default budget: the input and its line tables in memory up to this part of physical memory */
#define TEXT_DEFAULT_SHARE 2
/* Memory a line takes beside its bytes (twice: the block and its sorted copy) while its block
 * sorts: its start, prefix and place in the
 * order (8 bytes each), then the device sort's host copy of prefix and place (16) and, on a CPU
 * device, its buffers and scratch (32): 64 MiB of words, 7 million lines, peaked at 580 MB */
#define TEXT_LINE_COST 96

/* A run file with no name: O_TMPFILE, else a file unlinked the moment it exists (every signal
 * held off in between), so that nothing is left behind by a failure, a signal or a crash. */
static int nameless_file(const char *dir)
{
#ifdef O_TMPFILE
    const int tfd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tfd >= 0 || (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL))
        return tfd;
#endif
    char path[4200];
    if (snprintf(path, sizeof path, "%s/.clsort-text-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = mkostemp(path, O_CLOEXEC);
    int saved = errno;
    if (fd >= 0 && unlink(path) != 0) {
        saved = errno;
        close(fd);
        fd = -1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return fd;
}

/* A source of bytes: an input file or a run file. */
typedef struct source {
    input_file in;  /* an input, or */
    int fd;         /* a run file (>= 0), read from offset 0 */
    uint64_t off, size;
    const char *name;
} source;

static int source_read(source *s, char *buf, size_t cap, size_t *got)
{
    if (s->fd < 0)
        return input_read_some(&s->in, buf, cap, got) == EXIT_OK ? 0 : -1;
    const uint64_t left = s->size - s->off;
    size_t want = cap < left ? cap : (size_t)left;
    size_t n = 0;
    while (n < want) {
        const ssize_t r = pread(s->fd, buf + n, want - n, (off_t)(s->off + n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            msg_error("cannot read a temporary run file: %s", r < 0 ? strerror(errno) : "it ended early");
            return -1;
        }
        n += (size_t)r;
    }
    s->off += n;
    *got = n;
    return 0;
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
    output_file *out; /* or NULL: a run file */
    int fd;
    uint64_t off;
    char *buf;
    size_t n;
    char delim;
} writer;

static int writer_flush(writer *w)
{
    if (w->n == 0)
        return 0;
    if (w->out) {
        if (output_write(w->out, w->buf, w->n) != EXIT_OK)
            return -1;
    } else {
        size_t done = 0;
        while (done < w->n) {
            const ssize_t r = pwrite(w->fd, w->buf + done, w->n - done, (off_t)(w->off + done));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                msg_error("cannot write a temporary run file: %s", r < 0 ? strerror(errno) : "no space");
                return -1;
            }
            done += (size_t)r;
        }
        w->off += w->n;
    }
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

typedef struct text_job {
    text_args a;
    clsort_lines_order *order;
    clsort_context *ctx;
    int ctx_tried;
    output_file out;
    int have_out;
    writer w;
    int run_fds[4096];
    uint64_t run_sizes[4096];
    size_t n_runs;
    const char *tmpdir;
} text_job;

static int open_output(text_job *j)
{
    if (output_open(&j->out, j->a.output ? j->a.output : "-", 1) != EXIT_OK)
        return -1;
    j->have_out = 1;
    j->w.out = &j->out;
    return 0;
}

/* The device, when it pays or is asked for; without one the host's threads sort. */
static int want_device(text_job *j, size_t len)
{
    if (!j->a.device && len < TEXT_DEVICE_MIN)
        return 0;
    if (!j->ctx_tried) {
        j->ctx_tried = 1;
        const clsort_status st = clsort_open(&j->ctx, j->a.device);
        if (st != CLSORT_OK) {
            if (j->a.device) {
                open_failed(st, clsort_last_error_detail());
                return -1;
            }
            j->ctx = NULL; /* the host sorts the same lines the same way */
        }
    }
    return 0;
}

/* Sort one block of whole lines and write it to w. */
static int sort_block(text_job *j, const char *buf, size_t len, writer *w)
{
    if (want_device(j, len) != 0)
        return -1;
    const size_t n = clsort_lines_count(&j->a.spec, buf, len);
    uint64_t *starts = malloc((n + 1) * sizeof *starts);
    uint64_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t kept = 0;
    int rc = -1;
    char *out = NULL;
    if (!starts || !order) {
        msg_error("out of memory for the tables of %zu lines", n);
        goto done;
    }
    const clsort_status st = clsort_sort_lines(j->ctx, &j->a.spec, buf, len, starts, order, &kept, NULL);
    if (st != CLSORT_OK) {
        msg_lib_error("sorting lines", st, j->ctx ? clsort_error_detail(j->ctx) : clsort_last_error_detail());
        goto done;
    }
    /* the lines gathered on the host's threads into one copy, written at once; without room for
     * it, line by line */
    out = kept ? malloc(len + 1) : NULL;
    if (out) {
        io_prefault(out, len + 1, 0); /* huge pages, faulted by several threads */
        const size_t bytes = clsort_gather_lines(&j->a.spec, buf, starts, order, kept, out);
        if (writer_flush(w) != 0)
            goto done;
        char *saved = w->buf;
        w->buf = out;
        w->n = bytes;
        rc = writer_flush(w);
        w->buf = saved;
        w->n = 0;
        goto done;
    }
    for (size_t i = 0; i < kept; i++) {
        const uint64_t k = order[i];
        if (writer_line(w, buf + starts[k], (size_t)(starts[k + 1] - starts[k] - 1)) != 0)
            goto done;
    }
    rc = writer_flush(w);
done:
    free(out);
    free(starts);
    free(order);
    return rc;
}

/* A sorted block to a nameless run file. */
static int write_run(text_job *j, const char *buf, size_t len)
{
    if (j->n_runs == sizeof j->run_fds / sizeof j->run_fds[0]) {
        msg_error("more than %zu runs: give a larger -S", j->n_runs);
        return -1;
    }
    const int fd = nameless_file(j->tmpdir);
    if (fd < 0) {
        msg_error("cannot create a temporary file in %s: %s", j->tmpdir, strerror(errno));
        return -1;
    }
    j->run_fds[j->n_runs] = fd;
    j->run_sizes[j->n_runs] = 0;
    j->n_runs++;
    writer w = { NULL, fd, 0, j->w.buf, 0, j->a.spec.delimiter };
    if (sort_block(j, buf, len, &w) != 0)
        return -1;
    j->run_sizes[j->n_runs - 1] = w.off;
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
    s->fd = -1;
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

/* Read the inputs into blocks of whole lines; each block that fills the budget becomes a run. */
static int sort_inputs(text_job *j)
{
    uint64_t budget = j->a.memory;
    if (!budget) {
        const uint64_t phys = io_physical_memory();
        budget = phys ? phys / TEXT_DEFAULT_SHARE : (uint64_t)1 << 32;
    }
    /* a read's piece: small budgets make small blocks */
    const size_t piece = budget / 4 < (64u << 10) ? 64u << 10 : budget / 4 > (16u << 20) ? 16u << 20
                                                                 : (size_t)(budget / 4);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    uint64_t lines = 0; /* delimiters in buf */
    int rc = -1;
    const char delim = j->a.spec.delimiter;
    for (size_t f = 0; f < j->a.n_files; f++) {
        source s;
        if (open_source(&s, j->a.files[f]) != 0)
            goto done;
        /* a regular file that fits: its room at once, not by doubling */
        if (s.in.is_regular && s.in.size && len + s.in.size + 1 > cap &&
            2 * (len + s.in.size + 1) + TEXT_LINE_COST * (lines + s.in.size / 8) <= budget) {
            char *nb = realloc(buf, len + (size_t)s.in.size + 1);
            if (nb) {
                buf = nb;
                cap = len + (size_t)s.in.size + 1;
            }
        }
        for (;;) {
            if (lines && 2 * len + TEXT_LINE_COST * lines >= budget) {
                /* the block fills the budget: its whole lines become a run */
                size_t whole = len;
                while (whole > 0 && buf[whole - 1] != delim)
                    whole--;
                if (write_run(j, buf, whole) != 0) {
                    input_close(&s.in);
                    goto done;
                }
                memmove(buf, buf + whole, len - whole);
                len -= whole;
                lines = 0;
            }
            if (cap - len < piece / 2) {
                const size_t ncap = cap + (cap > piece ? cap : piece);
                char *nb = realloc(buf, ncap);
                if (!nb) {
                    msg_error("out of memory for %zu bytes of input; give -S a smaller size", ncap);
                    input_close(&s.in);
                    goto done;
                }
                buf = nb;
                cap = ncap;
            }
            size_t got = 0, want = cap - len < piece ? cap - len : piece;
            if (source_read(&s, buf + len, want, &got) != 0) {
                input_close(&s.in);
                goto done;
            }
            if (got == 0)
                break;
            for (const char *p = buf + len, *e = buf + len + got;
                 (p = memchr(p, delim, (size_t)(e - p))) != NULL; p++)
                lines++;
            len += got;
        }
        input_close(&s.in);
        /* each file's last line ends at its end */
        if (len && buf[len - 1] != delim) {
            if (len == cap) {
                char *nb = realloc(buf, cap + 1);
                if (!nb) {
                    msg_error("out of memory");
                    goto done;
                }
                buf = nb;
                cap++;
            }
            buf[len++] = delim;
            lines++;
        }
    }
    if (j->n_runs == 0) {
        if (open_output(j) != 0)
            goto done;
        rc = sort_block(j, buf, len, &j->w);
        goto done;
    }
    if (len && write_run(j, buf, len) != 0)
        goto done;
    free(buf);
    buf = NULL;
    source *s = calloc(j->n_runs, sizeof *s);
    reader *r = calloc(j->n_runs, sizeof *r);
    size_t ready = 0;
    if (s && r) {
        const uint64_t per = budget / 2 / j->n_runs;
        const size_t block = per < (64u << 10) ? 64u << 10 : per > (8u << 20) ? 8u << 20 : (size_t)per;
        for (; ready < j->n_runs; ready++) {
            s[ready].fd = j->run_fds[ready];
            s[ready].size = j->run_sizes[ready];
            if (reader_init(&r[ready], &s[ready], block, delim) != 0)
                break;
        }
        if (ready == j->n_runs && open_output(j) == 0)
            rc = merge_readers(j, r, j->n_runs);
    } else {
        msg_error("out of memory");
    }
    for (size_t i = 0; i < ready; i++)
        free(r[i].buf);
    free(s);
    free(r);
done:
    free(buf);
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
           "      --parallel=N            accepted (no difference to the output)\n"
           "      --batch-size=NMERGE     accepted (no difference to the output)\n"
           "  -u, --unique                output only the first of an equal run\n"
           "  -z, --zero-terminated       line delimiter is NUL, not newline\n"
           "      --device=DEVICE         sort on this device (see 'clsort devices')\n"
           "                              whatever the size (else from 1 MiB of input)\n"
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
    j->w.fd = -1;
    if (!j->w.buf) {
        msg_error("out of memory");
        rc = TEXT_EXIT_ERROR;
        goto out;
    }
    const int r = j->a.merge ? merge_inputs(j) : sort_inputs(j);
    if (r == 0 && j->have_out) {
        output_file *outs[1] = { &j->out };
        if (output_finish(&j->out) == EXIT_OK && output_commit(outs, 1) == EXIT_OK) {
            j->have_out = 0;
            rc = EXIT_OK;
            goto out;
        }
    }
    rc = TEXT_EXIT_ERROR;
out:
    if (j->have_out)
        output_abort(&j->out);
    for (size_t i = 0; i < j->n_runs; i++)
        close(j->run_fds[i]);
    free(j->w.buf);
    clsort_lines_order_free(j->order);
    clsort_close(&j->ctx);
    text_args_free(&j->a);
    free(j);
    return rc;
}
