/*
 * Readers of inputs that must be sorted (see sorted.h). Owns the check of an input's order; calls
 * io.c to read, layout.c for the sizes and reckey.c for the order itself (the library's
 * clsort_key_orders() for numbers), so that the check is the sort's own definition of it.
 */
#include "sorted.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A size that is not whole records, in the words of the layout. */
static int check_size(const sorted_reader *r, uint64_t bytes)
{
    if (r->args->record_size)
        return layout_check_records(r->in.name, bytes, r->rs);
    return layout_check_sizes(&r->args->layout, r->in.name, bytes, 1, NULL, 0, 0);
}

int sorted_open(sorted_reader *r, const char *path, const sort_args *a, const clsort_spec *spec,
                size_t block_bytes, int strict)
{
    memset(r, 0, sizeof *r);
    r->in.fd = -1;
    r->args = a;
    r->rs = rec_key_from_args(&r->key, a, spec);
    r->strict = strict;
    r->cap = block_bytes / r->rs ? block_bytes / r->rs : 1;
    int rc = input_open(&r->in, path);
    if (rc != EXIT_OK)
        return rc;
    if (r->in.is_regular && (rc = check_size(r, r->in.size)) != EXIT_OK)
        return rc;
    r->buf = malloc(r->cap * r->rs);
    r->order = malloc(r->cap * sizeof *r->order);
    r->last_rec = malloc(r->rs);
    if (!r->buf || !r->order || !r->last_rec) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    return EXIT_OK;
}

/* Record i of the input (rec) is out of order after record i - 1 (prev): say so, with both keys. */
static int disorder(sorted_reader *r, uint64_t i, const unsigned char *prev,
                    const unsigned char *rec, int equal)
{
    char x[64], y[64];
    r->unsorted = 1;
    if (r->quiet)
        return EXIT_USAGE;
    rec_key_text(&r->key, prev, x, sizeof x);
    rec_key_text(&r->key, rec, y, sizeof y);
    const char *dir = r->key.spec->descending ? "descending" : "ascending";
    if (equal)
        msg_error("%s: record %llu (byte %llu) repeats the key of record %llu (%s): not in strictly "
                  "%s order%s%s", r->in.name, (unsigned long long)i,
                  (unsigned long long)(i * r->rs), (unsigned long long)(i - 1), y, dir,
                  r->hint ? "; " : "", r->hint ? r->hint : "");
    else
        msg_error("%s: record %llu (byte %llu) is out of %s order: key %s after key %s "
                  "(record %llu)%s%s", r->in.name, (unsigned long long)i,
                  (unsigned long long)(i * r->rs), dir, y, x, (unsigned long long)(i - 1),
                  r->hint ? "; " : "", r->hint ? r->hint : "");
    return EXIT_USAGE;
}

int sorted_fill(sorted_reader *r)
{
    r->base += r->n;
    r->pos = r->n = 0;
    size_t got;
    int rc = input_read_some(&r->in, r->buf, r->cap * r->rs, &got);
    if (rc != EXIT_OK)
        return rc;
    if (got % r->rs) /* a stream that ended inside a record: the sizes as they are */
        return check_size(r, r->in.got);
    const size_t m = got / r->rs;
    if (!m)
        return EXIT_OK;
    rec_key_orders(&r->key, r->buf, r->rs, m, r->order);
    const uint64_t seg = r->key.spec->segment;
    for (size_t i = 0; i < m; i++) {
        const uint64_t at = r->base + i;
        if (!(i || r->have_last) || (seg && at % seg == 0))
            continue;
        while (r->next < r->n_starts && r->starts[r->next] < at)
            r->next++;
        if (r->next < r->n_starts && r->starts[r->next] == at)
            continue;
        const unsigned char *prev = i ? r->buf + (i - 1) * r->rs : r->last_rec;
        const int c = rec_key_cmp(&r->key, prev, i ? r->order[i - 1] : r->last,
                                  r->buf + i * r->rs, r->order[i]);
        if (c > 0 || (r->strict && c == 0))
            return disorder(r, at, prev, r->buf + i * r->rs, c == 0);
    }
    r->n = m;
    r->have_last = 1;
    r->last = r->order[m - 1];
    memcpy(r->last_rec, r->buf + (m - 1) * r->rs, r->rs);
    return EXIT_OK;
}

void sorted_segments(sorted_reader *r, const uint64_t *starts, size_t n)
{
    r->starts = starts;
    r->n_starts = n;
    r->next = 0;
}

void sorted_close(sorted_reader *r)
{
    input_close(&r->in);
    free(r->buf);
    free(r->order);
    free(r->last_rec);
    r->buf = r->last_rec = NULL;
    r->order = NULL;
}
