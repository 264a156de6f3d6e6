/*
 * sort --record-size / --type bytes: see fields.h. The records stay on the host (the library sends
 * their keys and a permutation to the device), so the input is read whole: regular files in one
 * allocation of their size, streams into a buffer that doubles.
 * Calls io.c for the files, the library for the sort.
 */
#include "fields.h"
#include "cli.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole input: *data (malloc'd) and *bytes. */
static int read_all(input_file *in, unsigned char **data, size_t *bytes)
{
    size_t cap = in->is_regular ? (size_t)in->size : (size_t)1 << 20, len = 0;
    if (in->is_regular && (uint64_t)cap != in->size) {
        msg_error("%s: %llu bytes do not fit in this machine's memory", in->name,
                  (unsigned long long)in->size);
        return EXIT_USAGE;
    }
    unsigned char *buf = malloc(cap ? cap : 1);
    int rc = buf ? EXIT_OK : EXIT_DEVICE;
    while (rc == EXIT_OK) {
        if (len == cap) {
            if (in->is_regular)
                break; /* input_check_end below: a file that grew is an error */
            unsigned char *more = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!more) {
                rc = EXIT_DEVICE;
                break;
            }
            buf = more;
            cap *= 2;
        }
        size_t got;
        rc = input_read_some(in, buf + len, cap - len, &got);
        if (rc == EXIT_OK && !got)
            break;
        len += got;
        progress_set(len);
    }
    if (rc == EXIT_OK && in->is_regular)
        rc = input_check_end(in);
    if (rc == EXIT_DEVICE && !buf)
        msg_error("out of memory for %s", in->name);
    else if (rc == EXIT_DEVICE)
        msg_error("out of memory reading %s (%zu bytes so far): records are sorted in memory",
                  in->name, len);
    if (rc != EXIT_OK) {
        free(buf);
        return rc;
    }
    *data = buf;
    *bytes = len;
    return EXIT_OK;
}

int fields_sort(clsort_context *ctx, const clsort_spec *spec, const fields_args *f, input_file *in,
                output_file *out, output_file *index, clsort_stats *stats)
{
    unsigned char *data;
    size_t bytes;
    progress_phase("read", in->is_regular ? in->size : 0);
    const double t_read = now_ms();
    int rc = read_all(in, &data, &bytes);
    const double read_ms = now_ms() - t_read;
    if (rc != EXIT_OK)
        return rc;
    if (bytes % f->record_size) {
        msg_error("%s: %zu bytes is not a multiple of the %zu-byte record size", in->name, bytes,
                  f->record_size);
        free(data);
        return EXIT_USAGE;
    }
    const size_t n = bytes / f->record_size;
    uint64_t *pos = index && n ? malloc(n * sizeof *pos) : NULL;
    if (index && n && !pos) {
        msg_error("out of memory for the positions of %zu records", n);
        free(data);
        return EXIT_DEVICE;
    }
    progress_phase("sort", 0);
    clsort_status st = clsort_sort_records(ctx, spec, data, n, f->record_size, f->key_offset,
                                           f->key_size, pos, stats);
    if (st != CLSORT_OK) {
        msg_lib_error("sort failed", st, clsort_error_detail(ctx));
        rc = exit_for_status(st);
    }
    const double t_write = now_ms();
    if (rc == EXIT_OK) {
        progress_phase("write", bytes + (index ? n * 8 : 0));
        rc = output_write(out, data, bytes);
    }
    if (rc == EXIT_OK && index)
        rc = output_write(index, pos, n * sizeof *pos); /* little-endian hosts, as every output */
    /* the library's stats are its sorts'; the reading and writing are here */
    stats->read_ms = read_ms;
    stats->write_ms = now_ms() - t_write;
    stats->total_ms += read_ms + stats->write_ms;
    free(pos);
    free(data);
    return rc;
}
