/*
 * clsort sort: read keys (and values), sort them on an OpenCL device, write them out.
 *
 * Owns the command's steps, each a function on one job: plan (what can be checked before reading,
 * the inputs opened), open the outputs, open the device, the memory budget (-S), the stream (read,
 * sort, write, --verify, -u; the library's clsort_sort_stream() calls back here for the records),
 * commit, report; and -c, which checks the input's order instead. Calls args.c for the options,
 * layout.c for sizes, io.c for every file (no file access here), the library for the sort,
 * verify.c, sorted.c (-c), unique.c (-u) and report.c.
 */
#include "args.h"
#include "cli.h"
#include "text.h"
#include "fields.h"
#include "io.h"
#include "opener.h"
#include "pio.h"
#include "progress.h"
#include "reckey.h"
#include "report.h"
#include "segments.h"
#include "segsort.h"
#include "settings.h"
#include "sorted.h"
#include "unique.h"
#include "verify.h"

#include "clsort.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The device opened on a thread of its own while the main thread reads the start of the input: the
 * thread calls clsort_open() only, and the context is used by the main thread once it is joined. */
typedef struct sort_job {
    sort_args a;
    const char *input, *output;
    input_file kin, vin, sin;        /* keys, values, --segments */
    output_file kout, vout, jout;
    int have_vin, have_sin, have_kout, have_vout, have_jout;
    int has_values;                  /* values go with the keys (--kv, --values or --index-out) */
    int index;                       /* --index-out: the values are the keys' input positions */
    clsort_context *ctx;
    clsort_spec spec;                /* what the library is asked to do */
    clsort_stats stats;              /* what it reports it did */
    size_t ks, vs;                   /* key and value sizes in bytes (vs 0: keys only) */
    int io_rc;                       /* the exit status of a failed read or write callback */
    int writing;                     /* the sink has been called */
    uint64_t fingerprint;            /* of the input records, for --verify */
    verify_state check;              /* of the output, for --verify */
    unique_filter unique;            /* -u: what the sink keeps */
    double t_read;                   /* when reading began: the end-to-end time starts there */
    clsort_stream_settings set;      /* -S, -T, --parallel, --batch-size */
    uint64_t resident;               /* bytes the process held before the data */
    int merging;                     /* the library reports a merge into a run file */
    seg_offsets segs;                /* --segments */
    uint64_t seg_out;                /* and the records written (fewer with --top) */
    uint64_t limit;                  /* --top by a whole sort: the records the sink writes at most */
    uint64_t top_out;                /* --top: the records written */
    int top_selected;                /* --top by the library's select over blocks */
    rec_key key;                     /* records by a key field: the key */
    uint64_t fields_out;             /* and the records written */
    unsigned char *pre;              /* the start of the keys input, read while the device opened */
    size_t pre_len, pre_pos;         /* its bytes, and those the library has taken */
    size_t pre_cap;                  /* the bytes its memory holds */
    double pre_ms;                   /* the time that read took */
    int hold;                        /* the sorted output gathered in pre's memory (hold_output()) */
    size_t hold_len;                 /* ... its bytes so far */
    int held;                        /* and written through the map at the end */
    int mapped;                      /* records: copied into the output's map as they came */
    char device_name[256];           /* the device's, kept for the report once it is closed */
    pthread_t closer;                /* the thread closing the device (write_held()) */
    int closing;                     /* ... started, to be joined before the process ends */
    run_report rep;
} sort_job;

/* The device's context, left open for the process's exit (sort_job_cleanup). */
static clsort_context *volatile kept_for_exit; /* volatile: a store never read is kept */

static void sort_job_cleanup(sort_job *j)
{
    if (j->have_kout)
        output_abort(&j->kout);
    if (j->have_vout)
        output_abort(&j->vout);
    if (j->have_jout)
        output_abort(&j->jout);
    input_close(&j->kin);
    if (j->have_vin)
        input_close(&j->vin);
    if (j->have_sin)
        input_close(&j->sin);
    unique_free(&j->unique);
    segments_free(&j->segs);
    free(j->pre);
    j->pre = NULL;
    /* The context is not closed: the process exits right after the command, and the OS takes its
     * memory back at once, where releasing the driver's buffers, queues and threads one by one costs
     * tens of milliseconds after the output is in place. Kept reachable from a static, so that a
     * leak checker does not count it. */
    if (j->closing)
        pthread_join(j->closer, NULL);
    j->closing = 0;
    if (j->ctx)
        kept_for_exit = j->ctx;
    j->ctx = NULL;
}

/* Up to len bytes of in, as input_read_some() gives them: first what was read while the device
 * opened (the keys input), then the input itself. */
static int job_read_some(sort_job *j, input_file *in, unsigned char *buf, size_t len, size_t *got)
{
    size_t from_pre = 0;
    if (in == &j->kin && j->pre_pos < j->pre_len) {
        from_pre = j->pre_len - j->pre_pos < len ? j->pre_len - j->pre_pos : len;
        pio_copy(buf, j->pre + j->pre_pos, from_pre);
        j->pre_pos += from_pre;
        if (j->pre_pos == j->pre_len && !j->hold) { /* all taken: its memory given back */
            free(j->pre);
            j->pre = NULL;
            j->pre_len = j->pre_pos = 0;
        }
        if (from_pre == len) {
            *got = len;
            return EXIT_OK;
        }
    }
    size_t more = 0;
    const int rc = input_read_some(in, buf + from_pre, len - from_pre, &more);
    *got = from_pre + more;
    return rc;
}

/* The keys the library has taken so far (the input's count less what waits in the read-ahead). */
static uint64_t keys_taken(const sort_job *j)
{
    return (j->kin.got - (j->pre_len - j->pre_pos)) / j->ks;
}

/* Up to max whole items of size bytes from in into buf: *m of them, 0 at the end. A stream that ends
 * inside an item is refused with the same words as a file of that size. */
static int read_items(sort_job *j, input_file *in, void *buf, size_t size, size_t max, size_t *m)
{
    size_t got;
    int rc = job_read_some(j, in, buf, max * size, &got);
    if (rc != EXIT_OK)
        return rc;
    *m = got / size;
    if (got % size == 0)
        return EXIT_OK;
    /* a stream that ended mid-item: the sizes as they are */
    const layout_args *l = &j->a.layout;
    return in == &j->kin ? layout_check_sizes(l, in->name, in->got, 1, NULL, 0, 0)
                         : layout_check_sizes(l, j->kin.name, 0, 0, in->name, in->got, 1);
}

/* --values: exactly m values, the ones that belong to the m keys just read; with m = 0 (the keys
 * ended) the values must end too. */
static int read_values(sort_job *j, unsigned char *values, size_t m)
{
    size_t got = 0;
    int rc = m ? read_items(j, &j->vin, values, j->vs, m, &got) : EXIT_OK;
    while (rc == EXIT_OK && got < m) { /* a pipe gives what it has */
        size_t more;
        rc = read_items(j, &j->vin, values + got * j->vs, j->vs, m - got, &more);
        if (rc == EXIT_OK && !more) {
            msg_error("%s ended after %llu values, but %s has more keys: expected one value per key",
                      j->vin.name, (unsigned long long)(j->vin.got / j->vs), j->kin.name);
            return EXIT_USAGE;
        }
        got += more;
    }
    if (rc == EXIT_OK && m == 0) {
        unsigned char extra[8];
        rc = read_items(j, &j->vin, extra, 1, 1, &got);
        if (rc == EXIT_OK && got) {
            msg_error("%s has more values than %s has keys (%llu): expected one value per key",
                      j->vin.name, j->kin.name, (unsigned long long)(j->kin.got / j->ks));
            return EXIT_USAGE;
        }
    }
    return rc;
}

/* The library's source: the next records of the input(s), fingerprinted for --verify. */
static long long keys_source_read(void *user, void *keys, void *values, size_t max)
{
    sort_job *j = user;
    size_t m = 0;
    int rc;
    if (j->a.layout.kv) /* whole records: the device splits them */
        rc = read_items(j, &j->kin, keys, j->ks + j->vs, max, &m);
    else if ((rc = read_items(j, &j->kin, keys, j->ks, max, &m)) == EXIT_OK && j->have_vin)
        rc = read_values(j, values, m);
    else if (rc == EXIT_OK && j->index) /* positions, counted in the keys read so far */
        layout_index_values(values, 8, keys_taken(j) - m, m, 8);
    if (rc != EXIT_OK) {
        j->io_rc = rc;
        return -1;
    }
    if (j->a.verify)
        j->fingerprint += j->a.layout.kv
                              ? verify_fingerprint_records(keys, j->ks, j->vs, m)
                              : verify_fingerprint(keys, j->ks, j->has_values ? values : NULL, j->vs, m);
    return (long long)m;
}

/* The sorted output gathered in the memory the input was read into, all of it taken by then (a copy
 * on the threads into memory already present, at the pace of the download), so that the device can
 * be closed while the output is written: past that memory, what it holds is written first and the
 * rest as usual. */
static int hold_output(sort_job *j, const void *buf, size_t bytes)
{
    if (j->pre_pos == j->pre_len && bytes <= j->pre_cap - j->hold_len) {
        pio_copy(j->pre + j->hold_len, buf, bytes);
        j->hold_len += bytes;
        return EXIT_OK;
    }
    j->hold = 0;
    int rc = j->hold_len ? output_write(&j->kout, j->pre, j->hold_len) : EXIT_OK;
    j->hold_len = 0;
    return rc == EXIT_OK ? output_write(&j->kout, buf, bytes) : rc;
}

/* The library's sink: sorted records to the output(s), checked for --verify (the sort's output, before
 * -u drops any). */
static int keys_sink_write(void *user, const void *keys, const void *values, size_t m)
{
    sort_job *j = user;
    if (j->limit) { /* --top: the first records only, the rest of the sorted output dropped */
        if (m > j->limit - j->top_out)
            m = (size_t)(j->limit - j->top_out);
        j->top_out += m;
        if (!m)
            return 0;
    }
    if (!j->writing) {
        j->writing = 1;
        progress_phase("write", j->kin.got + (j->have_vin ? j->vin.got : 0));
    }
    const int kv = j->a.layout.kv; /* whole records, joined on the device */
    int rc = j->a.verify ? verify_block(&j->check, &j->spec, keys, values, m, kv) : EXIT_OK;
    if (rc == EXIT_OK && j->a.unique) {
        rc = unique_write(&j->unique, &j->spec, keys, values, m, kv, &j->kout,
                          j->have_vout ? &j->vout : NULL);
    } else if (rc == EXIT_OK && j->hold) {
        rc = hold_output(j, keys, m * (kv ? j->ks + j->vs : j->ks));
    } else if (rc == EXIT_OK) {
        rc = output_write(&j->kout, keys, m * (kv ? j->ks + j->vs : j->ks));
        if (rc == EXIT_OK && j->have_vout && !kv)
            rc = output_write(&j->vout, values, m * j->vs);
    }
    if (rc != EXIT_OK)
        j->io_rc = rc;
    return rc != EXIT_OK;
}

/* The library's progress: a merge into a run file is a phase of its own on the progress line (the
 * reads and the final writes count themselves as they happen). */
static void sort_progress(void *user, const char *phase, uint64_t done, uint64_t total)
{
    sort_job *j = user;
    const uint64_t rs = layout_record_size(&j->a.layout);
    if (strcmp(phase, "merge") == 0) {
        if (!done)
            progress_phase("merge", total * rs);
        progress_set(done * rs);
    }
}

/* --segments: the offsets file opened as an input first (known by device and inode, so that no
 * output writes over it, and a FIFO refused without waiting for its writer), then read whole. */
static int load_segments(sort_job *j)
{
    const char *path = j->a.segments;
    j->have_sin = 1;
    int rc = input_open(&j->sin, strcmp(path, "-") ? path : "./-"); /* a file, never stdin */
    if (rc != EXIT_OK)
        return rc;
    if (!j->sin.is_regular) {
        msg_error("%s: not a regular file (the offsets are read whole)", path);
        return EXIT_USAGE;
    }
    rc = segments_load(&j->segs, path);
    if (rc == EXIT_OK && !input_still_named(&j->sin)) {
        msg_error("%s: replaced by another file while it was read", path);
        rc = EXIT_IO;
    }
    return rc;
}

/* Step 1: everything that can be checked before reading the data; the inputs opened. */
static int plan_files(sort_job *j)
{
    const sort_args *a = &j->a;
    const char *vout = a->layout.values_out ? a->layout.values_out : a->index_out;
    if (strcmp(j->output, "-") == 0 && !a->common.force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary data to a terminal "
                  "(use -o FILE, redirect stdout, or -f to force)");
        return EXIT_USAGE;
    }
    if (vout && strcmp(vout, "-") == 0 && !a->common.force && isatty(STDOUT_FILENO)) {
        msg_error("refusing to write binary values to a terminal (use --values-out FILE, or -f to "
                  "force)");
        return EXIT_USAGE;
    }
    int rc = a->segments ? load_segments(j) : EXIT_OK;
    if (rc == EXIT_OK)
        rc = input_open(&j->kin, j->input);
    if (rc != EXIT_OK)
        return rc;
    if (a->record_size) /* records by a key field: whole records */
        return j->kin.is_regular ? layout_check_records(j->kin.name, j->kin.size, a->record_size)
                                 : EXIT_OK;
    if (a->layout.values) {
        j->have_vin = 1;
        rc = input_open(&j->vin, a->layout.values);
        if (rc != EXIT_OK)
            return rc;
    }
    rc = layout_check_sizes(&a->layout, j->kin.name, j->kin.size, j->kin.is_regular,
                            j->have_vin ? j->vin.name : NULL, j->vin.size,
                            j->have_vin && j->vin.is_regular);
    if (rc != EXIT_OK && j->kin.is_regular && j->kin.size % layout_record_size(&a->layout))
        text_hint(j->kin.fd); /* a text file given to the binary sort */
    /* The offsets against the input's size where a regular file tells it, else in order only
     * (the rest once the input is read). */
    if (rc == EXIT_OK && a->segments)
        rc = segments_check(&j->segs, j->kin.size / layout_record_size(&a->layout),
                            j->kin.is_regular);
    return rc;
}

/* The job as the library's spec. */
static void job_spec(const sort_job *j, clsort_spec *spec)
{
    const sort_args *a = &j->a;
    clsort_spec_default(spec);
    spec->key_type = a->layout.type;
    spec->value_size = j->has_values ? j->vs : 0;
    spec->algorithm = (clsort_algorithm)a->algorithm;
    spec->descending = a->descending;
    spec->begin_bit = a->bits.given ? a->bits.begin : 0;
    spec->end_bit = a->bits.given ? a->bits.end : 0;
    spec->segment = (size_t)a->segment;
    /* -f: also a quadratic algorithm over its size limit */
    spec->allow_quadratic = a->common.force;
}

/* The odd-even sort's limit on the keys per array or segment, checked where the input's size is
 * known before reading (a regular file): the library sees n, and refuses, only once it is read. */
static int check_limit(const sort_job *j)
{
    const clsort_spec *spec = &j->spec;
    if (spec->algorithm != CLSORT_ALGO_ODDEVEN || spec->allow_quadratic || !j->kin.is_regular ||
        (j->a.top && !j->a.segments)) /* --top takes its own select, or a stable sort */
        return EXIT_OK;
    const uint64_t n = j->kin.size / layout_record_size(&j->a.layout);
    const uint64_t seg = spec->segment && spec->segment < n ? spec->segment : n;
    if (seg <= CLSORT_ODDEVEN_MAX_KEYS)
        return EXIT_OK;
    /* the library's words for the same refusal */
    char detail[320];
    snprintf(detail, sizeof detail,
             "oddeven sorts at most %d keys per array or segment (its cost grows as n^2); %s has "
             "%llu: use radix8 (or bitonic), or allow it explicitly (clsort --force)",
             CLSORT_ODDEVEN_MAX_KEYS, spec->segment ? "a segment" : "the input",
             (unsigned long long)seg);
    msg_lib_error("cannot sort this way", CLSORT_ERROR_LIMIT, detail);
    return exit_for_status(CLSORT_ERROR_LIMIT);
}

/* Whether the library sorts spec as j's options would ask it (--segments included), before any data. */
static clsort_status library_takes(sort_job *j, const clsort_spec *spec)
{
    size_t max_n;
    clsort_status st = clsort_max_keys(j->ctx, spec, &max_n);
    if (st == CLSORT_OK && j->a.segments) {
        /* an empty call: the library's refusal of segments (an algorithm that does not sort them)
         * before any input is read, a pipe's included */
        const uint64_t none = 0;
        st = clsort_sort_segments(j->ctx, spec, NULL, NULL, 0, &none, 0, NULL);
    }
    return st;
}

/* The algorithms that sort j's combination, as names "auto, radix8, ...": those the library takes
 * with every other option as given, and where an option needs stability only the stable ones, so
 * that no name suggested is then refused for another reason. */
static void algorithms_for(sort_job *j, int need_stable, char *names, size_t cap)
{
    size_t used = 0;
    names[0] = '\0';
    for (int i = 0; i < 256; i++) { /* the library's algorithms, numbered from 0 without gaps */
        const char *name = clsort_algorithm_name((clsort_algorithm)i);
        clsort_algorithm back;
        if (!name || !*name || clsort_algorithm_from_name(name, &back) != CLSORT_OK ||
            (int)back != i)
            break;
        clsort_spec alt = j->spec;
        alt.algorithm = (clsort_algorithm)i;
        if ((need_stable && algorithm_unstable(i)) || library_takes(j, &alt) != CLSORT_OK)
            continue;
        const int w = snprintf(names + used, cap - used, "%s%s", used ? ", " : "", name);
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
    }
}

/* A combination the library refuses: its explanation, with the algorithms to use instead chosen
 * here (the library's own list cannot know which of them an option such as --index-out refuses). */
static int refuse_combination(sort_job *j, clsort_status st, const char *need)
{
    char detail[1024], names[256];
    snprintf(detail, sizeof detail, "%s", clsort_error_detail(j->ctx));
    algorithms_for(j, need != NULL, names, sizeof names);
    char *use = strstr(detail, ": use ");
    if (use && *names) {
        *use = '\0';
        const size_t len = strlen(detail);
        snprintf(detail + len, sizeof detail - len, ": use %s%s%s%s", names,
                 need ? " (stable ones, for " : "", need ? need : "", need ? ")" : "");
    }
    msg_lib_error("cannot sort this way", st, detail);
    return exit_for_status(st);
}

/* An option that needs stability with an algorithm that is not stable: refused rather than answered
 * in some order of ties, with the stable algorithms that sort the rest of the combination. */
static int refuse_unstable(sort_job *j, const char *opt, const char *why)
{
    char names[256];
    algorithms_for(j, 1, names, sizeof names);
    msg_error("%s %s, but %s is not stable: use a stable algorithm (%s)", opt, why,
              clsort_algorithm_name(j->spec.algorithm), names);
    return EXIT_USAGE;
}

/* Whether the start of the input is read while the device opens: the keys (or whole records) of
 * the library's stream, records by a key field where CLSORT_READ_AHEAD=1 asks (fields.c takes
 * them through job_read_some()); not a FIFO whose writer
 * has not come (its wait would hold up a device that fails). Only with --algo auto and without
 * --segments: the library may refuse an algorithm named for a combination once it is open, and such
 * a refusal reads nothing, a pipe's included. By default on a host of 4 cores or more: on 2 cores a
 * CPU driver's open (PoCL's) takes the core the read would use, and the copy out of what was read
 * ahead made the whole slower there (CLSORT_READ_AHEAD says otherwise). */
static int can_read_ahead(const sort_job *j)
{
    const int ahead = settings()->read_ahead;
    if (ahead == 0 || (ahead < 0 && sysconf(_SC_NPROCESSORS_ONLN) < 4))
        return 0;
    /* records by a key field: where asked, and not for --top's blocks (fields.c reads them up to
     * the input's size as the file's reads count it) */
    if (j->a.record_size && (ahead != 1 || j->a.top))
        return 0;
    return !j->kin.wait_writer && (!j->kin.is_regular || j->kin.size > 0) &&
           j->spec.algorithm == CLSORT_ALGO_AUTO && !j->a.segments;
}

/* The keys input read into memory until the device is open, on the host's threads (pio.c) in
 * pieces, into huge pages where the system gives them: a regular file of 1 GiB is read whole in
 * 40-80 ms on the H100 machine's 16 cores, within the device's open of 250-400 ms. At most an
 * eighth of physical memory (128 MiB of a stream) and an eighth of -S. The library takes it first,
 * copied on the threads, then reads on. Memory that cannot be had is no error: the read then waits
 * for the device as before. */
static int read_ahead(sort_job *j, device_opener *o)
{
    enum { PIECE = 64u << 20, STREAM_PIECE = 2u << 20 };
    const size_t huge = (size_t)2 << 20;
    uint64_t cap = j->kin.is_regular ? io_physical_memory() / 8 : 128u << 20;
    if (j->a.buffer_size && j->a.buffer_size / 8 < cap)
        cap = j->a.buffer_size / 8;
    if (j->a.buffer_percent) {
        const uint64_t part = io_physical_memory() / 100 * j->a.buffer_percent / 8;
        if (part < cap)
            cap = part;
    }
    if (j->kin.is_regular && j->kin.size < cap)
        cap = j->kin.size;
    if (cap < 4096 || cap > SIZE_MAX - huge)
        return EXIT_OK;
    const size_t whole = ((size_t)cap + huge - 1) / huge * huge;
    if (!(j->pre = aligned_alloc(huge, whole)))
        return EXIT_OK;
    j->pre_cap = (size_t)cap;
#ifdef MADV_HUGEPAGE
    (void)madvise(j->pre, whole, MADV_HUGEPAGE);
#endif
    const double t = now_ms();
    const size_t piece = j->kin.is_regular ? PIECE : STREAM_PIECE;
    int rc = EXIT_OK;
    while (j->pre_len < cap && !atomic_load(&o->done)) {
        const size_t want = cap - j->pre_len < piece ? (size_t)(cap - j->pre_len) : piece;
        size_t got = 0;
        rc = input_read_some(&j->kin, j->pre + j->pre_len, want, &got);
        j->pre_len += got;
        if (rc != EXIT_OK || got < want) /* an error, or the input's end */
            break;
    }
    j->pre_ms = now_ms() - t;
    return rc;
}

/* Step 3: the device opened. The library checks the combination (algorithm, key type, order, bit
 * range, values, segments) before the data is read; a refusal is a usage error, as is an unstable
 * algorithm for an option that needs a stable one. */
static int plan_device(sort_job *j)
{
    progress_phase("open", 0);
    double t = now_ms();
    j->rep.start_ms = t - process_start_ms();
    /* what needs no device is checked before anything is read */
    job_spec(j, &j->spec);
    int lrc = check_limit(j);
    if (lrc != EXIT_OK)
        return lrc;
    clsort_status st;
    if (j->a.parallel) /* the host's threads for reads and copies too */
        pio_set_threads((unsigned)j->a.parallel);
    device_opener *o = calloc(1, sizeof *o);
    if (o && can_read_ahead(j) && device_open_start(o, j->a.common.device) == 0) {
        j->t_read = t; /* the read begins now, beside the open */
        const int rc = read_ahead(j, o);
        const double w = now_ms();
        device_open_join(o);
        j->rep.open_wait_ms = now_ms() - w;
        j->rep.open_overlapped = 1;
        j->rep.open_ms = o->ms;
        j->ctx = o->ctx;
        st = o->st;
        if (rc != EXIT_OK) { /* the input's own failure, said already */
            free(o);
            return rc;
        }
        if (st != CLSORT_OK) {
            const int orc = open_failed(st, o->detail);
            free(o);
            return orc;
        }
    } else {
        st = clsort_open(&j->ctx, j->a.common.device);
        if (st != CLSORT_OK) {
            free(o);
            return open_failed(st, clsort_last_error_detail());
        }
        j->rep.open_ms = j->rep.open_wait_ms = now_ms() - t;
    }
    free(o);
    msg_info("device: %s", clsort_device_name(j->ctx));
    msg_info("program cache: %s", clsort_cache_info(j->ctx));
    const char *why = NULL, *need = sort_args_need_stable(&j->a, &why);
    st = library_takes(j, &j->spec);
    if (st == CLSORT_ERROR_UNSUPPORTED)
        return refuse_combination(j, st, need);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot sort this way", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (need && algorithm_unstable(j->spec.algorithm))
        return refuse_unstable(j, need, why);
    return EXIT_OK;
}

/* What the process holds now, less the input read while the device opened (that is data). */
static uint64_t resident_besides_data(const sort_job *j)
{
    const uint64_t r = io_resident_bytes(), pre = j->pre_len - j->pre_pos;
    return r > pre ? r - pre : r;
}

/* -S: the memory for the data, as sort(1)'s buffer: what the process holds besides (the OpenCL
 * driver, the programs) is not counted; -T, --parallel, --batch-size as given. What the process
 * holds before the data is measured for the report. */
static int plan_sort_budget(sort_job *j)
{
    const sort_args *a = &j->a;
    clsort_stream_settings *set = &j->set;
    clsort_stream_settings_default(set);
    set->temp_dirs = a->n_temp_dirs ? a->temp_dirs : NULL;
    set->n_temp_dirs = a->n_temp_dirs;
    set->threads = (unsigned)a->parallel;
    set->fan_in = (unsigned)a->batch_size;
    if (!a->buffer_size && !a->buffer_percent) {
        j->resident = resident_besides_data(j);
        return EXIT_OK;
    }
    uint64_t budget = a->buffer_size;
    if (a->buffer_percent) {
        const uint64_t phys = io_physical_memory();
        if (!phys) {
            msg_error("-S %u%%: this system does not say how much memory it has; give a size",
                      a->buffer_percent);
            return EXIT_USAGE;
        }
        budget = phys / 100 * a->buffer_percent;
        if (budget < SORT_MIN_BUFFER) {
            msg_error("-S %u%% is %llu bytes, too small: the data need at least %llu MiB; give "
                      "at least -S %lluMi", a->buffer_percent, (unsigned long long)budget,
                      (unsigned long long)(SORT_MIN_BUFFER >> 20),
                      (unsigned long long)(SORT_MIN_BUFFER >> 20));
            return EXIT_USAGE;
        }
    }
    /* the programs built (and, where kernels compile at first launch, run once) before measuring
     * what the process holds besides the data */
    clsort_status st = clsort_reserve(j->ctx, &j->spec, 1024);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot prepare the device", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    j->resident = resident_besides_data(j);
    set->memory_bytes = budget;
    return EXIT_OK;
}

/* No output may write over an input (compared by device and inode, so that other spellings and
 * links are caught), except -o over the key input and --values-out over the values input where a
 * new file replaces it: that is sorting in place. Values over the keys, keys over the values,
 * anything over the offsets of --segments, a report over any input, or a descriptor open on an
 * input (written into, not replaced) would lose it. */
static int check_outputs_spare_inputs(const sort_job *j)
{
    const struct { const output_file *out; const char *opt; int have; } outs[] = {
        {&j->kout, "-o", j->have_kout},
        {&j->vout, j->a.index_out ? "--index-out" : "--values-out", j->have_vout},
        {&j->jout, "--stats-json", j->have_jout},
    };
    const struct { const input_file *in; const char *opt; int have; } ins[] = {
        {&j->kin, j->a.input ? "-i " : "", 1},
        {&j->vin, "--values ", j->have_vin},
        {&j->sin, "--segments ", j->have_sin},
    };
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
        for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
            if (!outs[o].have || !ins[i].have ||
                (o == i && o < 2 && !outs[o].out->direct) /* in place, through a new file */ ||
                !output_names_input(outs[o].out, ins[i].in))
                continue;
            msg_error("%s %s names the input %s%s: refusing to write over an input",
                      outs[o].opt, outs[o].out->name, ins[i].opt, ins[i].in->name);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* Step 2: open every output, before the device and the read: a bad path (a missing directory, one
 * that cannot be written, a directory, a terminal) fails before any input is consumed, and nothing
 * is in place until the commit. */
static int open_outputs(sort_job *j)
{
    int rc = output_open(&j->kout, j->output, j->a.common.force);
    j->have_kout = 1;
    if (rc != EXIT_OK)
        return rc;
    const char *vout = j->a.index_out ? j->a.index_out : j->a.layout.values_out;
    if (vout) {
        rc = output_open(&j->vout, vout, j->a.common.force);
        j->have_vout = 1;
        if (rc != EXIT_OK)
            return rc;
        if (output_same(&j->kout, &j->vout)) {
            msg_error("-o %s and %s %s name the same file", j->kout.name,
                      j->a.index_out ? "--index-out" : "--values-out", j->vout.name);
            return EXIT_USAGE;
        }
    }
    if (j->a.stats_json) {
        /* opened now, so that a bad path fails before any output is in place */
        rc = output_open(&j->jout, j->a.stats_json, 1);
        j->have_jout = 1;
        if (rc != EXIT_OK)
            return rc;
        if (output_same(&j->kout, &j->jout) || (j->have_vout && output_same(&j->vout, &j->jout))) {
            msg_error("--stats-json %s names the same file as an output (%s)", j->jout.name,
                      output_same(&j->kout, &j->jout) ? j->kout.name : j->vout.name);
            return EXIT_USAGE;
        }
    }
    return check_outputs_spare_inputs(j);
}

/* --segments: whole segments read in batches within the budget (-S), each sorted by
 * clsort_sort_segments() and written before the next is read; a segment larger than a batch sorted
 * alone by clsort_sort_stream(), spilled to -T beyond the budget (segsort.c). */
static int sort_segments(sort_job *j)
{
    const layout_args *l = &j->a.layout;
    clsort_source src = { keys_source_read, j, CLSORT_SIZE_UNKNOWN, l->kv };
    clsort_sink dst = { keys_sink_write, j, l->kv };
    if (!j->t_read) /* else the read began while the device opened */
        j->t_read = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    progress_add(j->pre_len - j->pre_pos); /* read while the device opened */
    verify_start(&j->check);
    verify_segments(&j->check, j->segs.off, j->segs.n_seg + 1);
    const segsort_args args = { &j->set, j->a.top, settings()->segment_batch, &j->io_rc };
    int rc = segsort_run(j->ctx, &j->spec, &j->segs, &src, &dst, &args, &j->stats, &j->seg_out);
    if (rc == EXIT_OK && j->a.verify)
        rc = verify_end(&j->check, &j->spec, j->has_values, j->fingerprint);
    return rc;
}

static void *close_device(void *arg)
{
    clsort_context *ctx = arg;
    clsort_close(&ctx);
    return NULL;
}

/* The output gathered by hold_output() written, while the device is closed on a thread of its own:
 * the driver's teardown (65-96 ms on the H100 machine, bench/hostio) beside the write instead of
 * after the commit. */
static int write_held(sort_job *j)
{
    const double t = now_ms();
    snprintf(j->device_name, sizeof j->device_name, "%s", clsort_device_name(j->ctx));
    if (pthread_create(&j->closer, NULL, close_device, j->ctx) == 0) {
        j->closing = 1;
        j->ctx = NULL;
    }
    const int rc = output_write(&j->kout, j->pre, j->hold_len);
    j->held = 1;
    j->hold_len = 0;
    j->stats.write_ms += now_ms() - t;
    return rc;
}

/* One output as long as its input (no -u, no --top), within the memory budget: its room reserved
 * before the sort and, where output_expect() maps it (its pages then made present on the threads
 * while the sort runs), filled through the map:
 * - keys (no separate values), the whole input read into memory while the device opened: the sorted
 *   output gathered in that memory (hold_output()) and copied into the map at once, each thread a
 *   stretch of the file of its own, while the device closes;
 * - records by a key field: each sorted piece the sink gets copied into the map on the threads.
 * (A fresh map filled in the sink's pieces, its pages faulted in by the copy, took longer than
 * write() on the H100 machine: bench/hostio, docs/performance.md.) */
static int expect_output(sort_job *j)
{
    const uint64_t budget = j->set.memory_bytes ? j->set.memory_bytes : io_physical_memory() / 2;
    if (j->a.unique || j->limit || j->a.top || !j->kin.is_regular || j->kin.size > budget)
        return EXIT_OK;
    if (j->a.record_size)
        return output_expect(&j->kout, j->kin.size);
    if (j->have_vout || !j->pre || j->pre_len != j->kin.size || j->pre_cap < j->kin.size)
        return EXIT_OK;
    const int rc = output_expect(&j->kout, j->kin.size);
    j->hold = rc == EXIT_OK && j->kout.map;
    return rc;
}

/* Steps 4 and 5: the data read, sorted and written, as one stream through the device (the library
 * overlaps the reads with the uploads and the downloads with the writes); --verify checks the
 * records as they are written. Nothing is in place until the commit. */
static int sort_stream(sort_job *j)
{
    if (j->a.segments)
        return sort_segments(j);
    const layout_args *l = &j->a.layout;
    const uint64_t rs = layout_record_size(l);
    clsort_source src = { keys_source_read, j, CLSORT_SIZE_UNKNOWN, l->kv };
    if (j->kin.is_regular && j->kin.size)
        src.n = j->kin.size / rs;
    clsort_sink dst = { keys_sink_write, j, l->kv };
    j->set.progress = sort_progress;
    j->set.progress_user = j;
    verify_start(&j->check);
    if (!j->t_read) /* else the read began while the device opened */
        j->t_read = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    progress_add(j->pre_len - j->pre_pos); /* read while the device opened */
    int rc = expect_output(j);
    if (rc != EXIT_OK)
        return rc;
    clsort_status st = clsort_sort_stream(j->ctx, &j->spec, &src, &dst, &j->set, &j->stats);
    if (st == CLSORT_ERROR_IO && j->io_rc != EXIT_OK)
        return j->io_rc; /* said already */
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (j->hold_len && (rc = write_held(j)) != EXIT_OK)
        return rc;
    if (j->a.verify)
        return verify_end(&j->check, &j->spec, j->has_values, j->fingerprint);
    return EXIT_OK;
}

/*
 * --top K: the input read a block at a time behind the K first records of what came before, and the
 * library's top-k taken of the two together whenever they hold more than K records. The records
 * kept come first and are the earlier input, so ties keep their input order and the result is the
 * first K records of the stable sort, for an input of any size. A block is what -S allows (a third
 * of the budget, for the block, its split and the result), else 2^24 records, and at most what
 * one device run takes beside the K. An input of fewer than K records gives them all, sorted; a K
 * that leaves no room for blocks (or that a regular file does not exceed) is a whole sort instead,
 * of which the first K records are written.
 */
typedef struct top_buffers {
    unsigned char *keys, *values; /* the K kept records, then the block */
    unsigned char *records;       /* --kv: the block as read, and the result joined */
    unsigned char *out_keys, *out_values;
} top_buffers;

static void top_free(top_buffers *b)
{
    free(b->keys);
    free(b->values);
    free(b->records);
    free(b->out_keys);
    free(b->out_values);
}

/* Records per block; 0: a whole sort instead. */
static int top_block(sort_job *j, uint64_t k, size_t *block)
{
    const uint64_t rs = j->ks + j->vs;
    uint64_t b = (uint64_t)1 << 24;
    if (j->set.memory_bytes && j->set.memory_bytes / 3 / rs < b)
        b = j->set.memory_bytes / 3 / rs;
    size_t max_n = 0;
    clsort_status st = clsort_max_keys(j->ctx, &j->spec, &max_n);
    if (st != CLSORT_OK) {
        msg_lib_error("cannot take the top records this way", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    if (max_n > UINT32_MAX)
        max_n = UINT32_MAX;
    *block = 0;
    if (k > max_n / 2 || b < 1024 ||
        (j->kin.is_regular && k >= j->kin.size / layout_record_size(&j->a.layout)))
        return EXIT_OK;
    if (b > max_n - k)
        b = max_n - k;
    *block = (size_t)b;
    return EXIT_OK;
}

/* Up to max records into the keys and values after `at`: whole blocks, as a pipe gives them. */
static int top_read(sort_job *j, top_buffers *b, size_t at, size_t max, size_t *got)
{
    *got = 0;
    while (*got < max) {
        const size_t pos = at + *got;
        long long m;
        if (j->a.layout.kv) {
            m = keys_source_read(j, b->records, NULL, max - *got);
            for (long long i = 0; i < m; i++) { /* split on the host: blocks are small */
                const unsigned char *r = b->records + (size_t)i * (j->ks + j->vs);
                memcpy(b->keys + (pos + (size_t)i) * j->ks, r, j->ks);
                memcpy(b->values + (pos + (size_t)i) * j->vs, r + j->ks, j->vs);
            }
        } else {
            m = keys_source_read(j, b->keys + pos * j->ks, j->has_values ? b->values + pos * j->vs : NULL,
                            max - *got);
        }
        if (m < 0)
            return j->io_rc;
        if (m == 0)
            break;
        *got += (size_t)m;
    }
    return EXIT_OK;
}

/* The top k of the `have` records kept and read, moved to the front. */
static int top_take(sort_job *j, top_buffers *b, size_t have, size_t k)
{
    clsort_stats s;
    clsort_status st = clsort_top(j->ctx, &j->spec, b->keys, j->vs ? b->values : NULL, have, k,
                                  b->out_keys, j->vs ? b->out_values : NULL, &s);
    if (st != CLSORT_OK) {
        msg_lib_error("top-k failed", st, clsort_error_detail(j->ctx));
        return exit_for_status(st);
    }
    /* the report: every select's device time, each a run */
    j->top_selected = 1;
    clsort_stats *t = &j->stats;
    t->algorithm = s.algorithm;
    t->kernel_ms += s.kernel_ms;
    t->upload_ms += s.upload_ms;
    t->download_ms += s.download_ms;
    t->programs_built += s.programs_built;
    t->programs_cached += s.programs_cached;
    t->runs++;
    memcpy(b->keys, b->out_keys, k * j->ks);
    if (j->vs)
        memcpy(b->values, b->out_values, k * j->vs);
    return EXIT_OK;
}

static int top_write(sort_job *j, top_buffers *b, size_t k)
{
    if (!j->a.layout.kv)
        return keys_sink_write(j, b->keys, j->vs ? b->values : NULL, k) ? j->io_rc : EXIT_OK;
    for (size_t i = 0; i < k; i++) {
        unsigned char *r = b->records + i * (j->ks + j->vs);
        memcpy(r, b->keys + i * j->ks, j->ks);
        memcpy(r + j->ks, b->values + i * j->vs, j->vs);
    }
    return keys_sink_write(j, b->records, NULL, k) ? j->io_rc : EXIT_OK;
}

static int top_stream(sort_job *j)
{
    const uint64_t k64 = j->a.top;
    size_t block = 0;
    int rc = top_block(j, k64, &block);
    if (rc != EXIT_OK)
        return rc;
    j->limit = k64; /* the sink writes the first K records */
    if (!block) {
        /* --top is the first K of the stable sort, whatever --algo says (as its select is) */
        if (j->spec.algorithm == CLSORT_ALGO_BITONIC || j->spec.algorithm == CLSORT_ALGO_ODDEVEN)
            j->spec.algorithm = CLSORT_ALGO_AUTO;
        return sort_stream(j);
    }
    const size_t k = (size_t)k64, cap = k + block, rs = j->ks + j->vs;
    top_buffers b = {
        malloc(cap * j->ks), j->vs ? malloc(cap * j->vs) : NULL,
        j->a.layout.kv ? malloc(cap * rs) : NULL,
        malloc(k * j->ks), j->vs ? malloc(k * j->vs) : NULL,
    };
    if (!b.keys || !b.out_keys || (j->vs && (!b.values || !b.out_values)) ||
        (j->a.layout.kv && !b.records)) {
        top_free(&b);
        msg_error("out of memory for --top %zu (blocks of %zu records)", k, block);
        return EXIT_DEVICE;
    }
    if (!j->t_read) /* else the read began while the device opened */
        j->t_read = now_ms();
    progress_phase("read", j->kin.is_regular && (!j->have_vin || j->vin.is_regular)
                               ? j->kin.size + (j->have_vin ? j->vin.size : 0) : 0);
    progress_add(j->pre_len - j->pre_pos); /* read while the device opened */
    uint64_t n = 0;
    size_t have = 0; /* records at the front: the top k so far (taken) and those read since */
    int taken = 0;
    for (;;) {
        size_t got;
        const double t = now_ms();
        rc = top_read(j, &b, have, cap - have, &got);
        j->stats.read_ms += now_ms() - t;
        if (rc != EXIT_OK)
            break;
        n += got;
        have += got;
        if (got)
            taken = 0;
        if (have == cap || (!got && have >= k && !taken)) {
            if ((rc = top_take(j, &b, have, k)) != EXIT_OK)
                break;
            have = k;
            taken = 1;
        }
        if (!got)
            break;
    }
    if (rc == EXIT_OK && have < k && have) /* fewer than K in all: every one, sorted */
        rc = top_take(j, &b, have, have);
    const double t = now_ms();
    if (rc == EXIT_OK && (have = have < k ? have : k))
        rc = top_write(j, &b, have);
    j->stats.write_ms = now_ms() - t;
    j->stats.n = n;
    top_free(&b);
    return rc;
}

/* Step 6: the outputs synced (where the policy says) and committed. */
static int commit_outputs(sort_job *j)
{
    double t = now_ms();
    progress_phase("sync", 0);
    int rc = output_finish(&j->kout);
    if (rc == EXIT_OK && j->have_vout)
        rc = output_finish(&j->vout);
    if (rc == EXIT_OK) {
        output_file *outs[2] = {&j->kout, &j->vout};
        rc = output_commit(outs, j->have_vout ? 2 : 1);
    }
    if (rc != EXIT_OK)
        return rc;
    double t1 = now_ms();
    j->rep.commit_ms = t1 - t;
    j->rep.total_ms = t1 - j->t_read;
    progress_end();
    return EXIT_OK;
}

/* What the report says about the job, beside the times the steps took. */
static void fill_report(sort_job *j)
{
    const sort_args *a = &j->a;
    const clsort_stats *s = &j->stats;
    run_report *r = &j->rep;
    r->n = s->n;
    r->unique = a->unique;
    r->n_out = a->record_size ? j->fields_out
               : a->segments  ? j->seg_out
               : a->unique    ? j->unique.out
               : a->top       ? j->top_out
                              : s->n;
    r->algorithm = s->algorithm ? s->algorithm : clsort_algorithm_name(j->spec.algorithm);
    r->device = j->ctx ? clsort_device_name(j->ctx) : j->device_name;
    static char bytes_type[32];
    snprintf(bytes_type, sizeof bytes_type, "%llu-byte", (unsigned long long)a->key_size);
    r->key_type = a->bytes_key ? bytes_type : clsort_key_type_name(a->layout.type);
    r->value_size = j->spec.value_size;
    r->layout = a->record_size ? "records" : a->layout.kv ? "kv" : a->layout.values ? "separate" : "keys";
    r->descending = a->descending;
    r->begin_bit = a->bits.given ? a->bits.begin : 0;
    r->end_bit = a->bits.given ? a->bits.end : (unsigned)j->ks * 8;
    r->segment = a->segment;
    r->input = j->input;
    r->output = j->output;
    r->values_input = a->layout.values;
    r->values_output = a->layout.values_out;
    r->upload_ms = s->upload_ms;
    r->kernel_ms = s->kernel_ms;
    r->download_ms = s->download_ms;
    r->read_ms = s->read_ms + j->pre_ms; /* with what was read while the device opened */
    r->write_ms = s->write_ms;
    r->write_mapped = j->held || j->mapped ? pio_threads() : 0;
    r->write_held = j->held;
    r->merge_ms = s->merge_ms;
    r->prepare_ms = s->prepare_ms;
    r->runs = s->runs;
    r->runs_spilled = s->runs_spilled;
    r->merge_levels = s->merge_levels;
    r->merge_threads = s->merge_threads;
    r->merged_on_device = s->merged_on_device;
    r->temp_bytes = s->temp_bytes;
    r->spill_ms = s->spill_ms;
    r->memory_bytes = s->memory_bytes ? s->memory_bytes : j->set.memory_bytes; /* --top: -S */
    r->budget_given = a->buffer_size || a->buffer_percent;
    r->resident_bytes = j->resident;
    /* host-radix launches no kernels: the library's warm-up is a sort on the host's threads */
    const int host = r->algorithm && !strcmp(r->algorithm, "host-radix");
    r->trial_sort = s->warmed_up;
    r->warm_up = s->warmed_up && !host;
    r->staging = s->staging;
    r->top_select = j->top_selected;
    r->programs_built = s->programs_built;
    r->programs_cached = s->programs_cached;
    r->wall_ms = now_ms() - process_start_ms();
    report_finish(r);
}

static int write_json_report(sort_job *j)
{
    char *json = report_json(&j->rep);
    if (!json) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    int rc = output_write(&j->jout, json, strlen(json));
    free(json);
    if (rc == EXIT_OK)
        rc = output_finish(&j->jout);
    if (rc == EXIT_OK) {
        output_file *outs[1] = {&j->jout};
        rc = output_commit(outs, 1);
    }
    return rc;
}

/* Step 7: the report: --stats, -v, --stats-json. */
static int report(sort_job *j)
{
    const sort_args *a = &j->a;
    fill_report(j);
    if ((a->stats || a->stats_json || g_verbosity >= 2) && j->stats.n > 0 && j->stats.kernel_ms <= 0)
        msg_warn("the device reported no kernel time (no profiling events?): kernel GKey/s is 0");
    if (a->stats)
        report_text(stderr, &j->rep);
    else if (g_verbosity >= 2)
        report_line(stderr, &j->rep);
    return j->have_jout ? write_json_report(j) : EXIT_OK;
}

/* -c: the input's order checked as it is read, a block at a time; no device, no output. The status
 * is sort(1)'s: 1 for a record out of order (said, unless -C), 2 for an input that could not be
 * checked (opened, read, whole records); the offsets of --segments are an option's, and their
 * errors exit 1 as the sort's do. */
static int check_keys_order(sort_job *j)
{
    job_spec(j, &j->spec);
    sorted_reader r;
    int rc = j->a.segments ? load_segments(j) : EXIT_OK;
    const int opened = rc == EXIT_OK;
    if (opened) {
        rc = sorted_open(&r, j->input, &j->a, &j->spec, 1u << 20, j->a.unique);
        r.quiet = j->a.check == 2; /* -C */
        if (rc != EXIT_OK)
            rc = CHECK_TROUBLE;
    }
    /* --segments: the offsets against a regular file's size before it is read, a pipe's after */
    if (rc == EXIT_OK && j->a.segments) {
        rc = segments_check(&j->segs, r.in.size / r.rs, r.in.is_regular);
        sorted_segments(&r, j->segs.off, j->segs.n_seg + 1);
    }
    if (rc == EXIT_OK)
        progress_phase("check", r.in.is_regular ? r.in.size : 0);
    int filled = EXIT_OK; /* the input's own failure */
    while (rc == EXIT_OK && (rc = filled = sorted_fill(&r)) == EXIT_OK && r.n)
        ;
    if (filled != EXIT_OK)
        rc = r.unsorted ? CHECK_UNSORTED : CHECK_TROUBLE;
    if (rc == EXIT_OK && j->a.segments && !r.in.is_regular)
        rc = segments_check(&j->segs, r.in.got / r.rs, 1);
    if (rc == EXIT_OK)
        msg_info("%s: %llu records in %s%s order", r.in.name,
                 (unsigned long long)(r.in.got / r.rs), j->a.unique ? "strictly " : "",
                 j->a.descending ? "descending" : "ascending");
    if (opened)
        sorted_close(&r);
    return rc;
}

static int fields_read(void *user, input_file *in, unsigned char *buf, size_t len, size_t *got)
{
    return job_read_some(user, in, buf, len, got);
}

/* Step 5 of records sorted by a key field: the library's stream of records, in runs merged when
 * there are more than one (-S, -T, --batch-size, --parallel); -u, --verify and --index-out on the
 * way out; with --top, the first K records of the runs sorted behind the K kept. */
static int sort_fields(sort_job *j)
{
    const sort_args *a = &j->a;
    const size_t rs = rec_key_from_args(&j->key, a, &j->spec);
    const fields_args f = { &j->key, rs, a->unique, a->verify, j->set.memory_bytes,
                            a->n_temp_dirs ? a->temp_dirs : NULL, a->n_temp_dirs,
                            (size_t)a->batch_size, a->top, (unsigned)a->parallel,
                            fields_read, j };
    if (!j->t_read) /* else the read began while the device opened */
        j->t_read = now_ms();
    int rc = expect_output(j);
    if (rc != EXIT_OK)
        return rc;
    rc = fields_sort(j->ctx, &j->spec, &f, &j->kin, &j->kout, j->have_vout ? &j->vout : NULL,
                     &j->stats, &j->fields_out);
    j->mapped = j->kout.map != NULL;
    return rc;
}

static int run_sort(sort_job *j)
{
    int (*steps[])(sort_job *) = {
        plan_files, open_outputs, plan_device, plan_sort_budget, sort_stream, commit_outputs, report,
    };
    static int (*const field_steps[])(sort_job *) = {
        plan_files, open_outputs, plan_device, plan_sort_budget, sort_fields, commit_outputs, report,
    };
    if (j->a.check)
        return check_keys_order(j);
    if (j->a.record_size) {
        int rc = EXIT_OK;
        for (size_t i = 0; i < sizeof field_steps / sizeof field_steps[0] && rc == EXIT_OK; i++)
            rc = field_steps[i](j);
        return rc;
    }
    if (j->a.top && !j->a.segments) /* --segments --top: each segment's first K (segsort.c) */
        steps[4] = top_stream;
    int rc = EXIT_OK;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && rc == EXIT_OK; i++)
        rc = steps[i](j);
    return rc;
}

int cmd_sort(int argc, char **argv, int first)
{
    sort_job j;
    memset(&j, 0, sizeof j);
    j.kin.fd = j.vin.fd = j.sin.fd = -1;
    int rc = parse_sort_args(argc, argv, first, &j.a);
    if (rc >= 0)
        return rc;
    if (!j.a.input && (g_stdin_closed || isatty(STDIN_FILENO))) {
        msg_error("no input: give a file (-i FILE), or pipe data to stdin (see 'clsort --help')");
        if (!g_stdin_closed)
            text_hint(-1);
        return EXIT_USAGE;
    }
    const layout_args *l = &j.a.layout;
    j.ks = j.a.bytes_key ? (size_t)j.a.key_size : layout_key_size(l);
    j.vs = l->value_size;
    j.index = j.a.index_out != NULL && !j.a.record_size; /* records: the library's positions */
    j.has_values = l->kv || l->values || j.index;
    if (j.index)
        j.vs = 8;
    j.input = j.a.input ? j.a.input : "-";
    j.output = j.a.common.output ? j.a.common.output : "-";
    io_install_signal_handlers();
    g_output_sync = j.a.common.sync;
    progress_start(!j.a.common.no_progress);
    rc = run_sort(&j);
    progress_end();
    sort_job_cleanup(&j);
    return rc;
}
