/*
 * Readers of inputs that must be sorted (see sorted.h). Owns the check of an input's order; calls
 * io.c to read, layout.c for the sizes, verify.c for a key's text and the library's
 * clsort_key_orders() for the order itself, so that the check is the sort's own definition of it.
 */
#include "sorted.h"
#include "cli.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sorted_open(sorted_reader *r, const char *path, const clsort_spec *spec, const layout_args *l,
                size_t block_bytes, int strict)
{
    memset(r, 0, sizeof *r);
    r->in.fd = -1;
    r->spec = spec;
    r->layout = l;
    r->ks = layout_key_size(l);
    r->rs = layout_record_size(l);
    r->strict = strict;
    r->cap = block_bytes / r->rs ? block_bytes / r->rs : 1;
    int rc = input_open(&r->in, path);
    if (rc != EXIT_OK)
        return rc;
    rc = layout_check_sizes(l, r->in.name, r->in.size, r->in.is_regular, NULL, 0, 0);
    if (rc != EXIT_OK)
        return rc;
    r->buf = malloc(r->cap * r->rs);
    r->order = malloc(r->cap * sizeof *r->order);
    if (!r->buf || !r->order) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    return EXIT_OK;
}

/* Record i of the input is out of order after record i - 1: say so, with both keys. */
static int disorder(const sorted_reader *r, uint64_t i, uint64_t prev_bits, uint64_t bits,
                    int equal)
{
    char x[64], y[64];
    verify_key_text(x, sizeof x, r->spec->key_type, prev_bits);
    verify_key_text(y, sizeof y, r->spec->key_type, bits);
    const char *dir = r->spec->descending ? "descending" : "ascending";
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
        return layout_check_sizes(r->layout, r->in.name, r->in.got, 1, NULL, 0, 0);
    const size_t m = got / r->rs;
    if (!m)
        return EXIT_OK;
    clsort_key_orders(r->spec, r->buf, r->rs, m, r->order);
    const uint64_t seg = r->spec->segment;
    uint64_t prev = r->last;
    int have = r->have_last;
    for (size_t i = 0; i < m; i++) {
        const uint64_t at = r->base + i, d = r->order[i];
        /* the order the sort makes is ascending in this value, descending order included */
        if (have && (seg == 0 || at % seg != 0) && (prev > d || (r->strict && prev == d))) {
            const uint64_t before =
                i ? verify_load_word(r->buf + (i - 1) * r->rs, r->ks) : r->last_bits;
            return disorder(r, at, before, verify_load_word(r->buf + i * r->rs, r->ks), prev == d);
        }
        prev = d;
        have = 1;
    }
    r->n = m;
    r->have_last = 1;
    r->last = prev;
    r->last_bits = verify_load_word(r->buf + (m - 1) * r->rs, r->ks);
    return EXIT_OK;
}

void sorted_close(sorted_reader *r)
{
    input_close(&r->in);
    free(r->buf);
    free(r->order);
    r->buf = NULL;
    r->order = NULL;
}
