/*
 * sort -u (see unique.h). Owns the choice of the records kept; calls the library's
 * clsort_key_orders() for equality, so that "equal" is the sort's own (-0.0 and +0.0 differ, NaNs
 * with other payloads differ, bits outside --bits do not count), and io.c to write.
 */
#include "unique.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Records taken at a time: their orders on the stack, the kept ones gathered into one write. */
#define STRETCH 4096

void unique_start(unique_filter *u)
{
    memset(u, 0, sizeof *u);
}

int unique_write(unique_filter *u, const clsort_spec *spec, const void *keys, const void *values,
                 size_t m, int records, output_file *kout, output_file *vout)
{
    const size_t ks = clsort_key_type_size(spec->key_type), vs = spec->value_size;
    const size_t step = records ? ks + vs : ks; /* bytes from one key to the next */
    const unsigned char *k = keys, *v = records ? NULL : values;
    if (!u->keys && !(u->keys = malloc(STRETCH * step))) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    if (v && vout && !u->values && !(u->values = malloc(STRETCH * vs))) {
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    uint64_t order[STRETCH];
    for (size_t at = 0; at < m; at += STRETCH) {
        const size_t len = m - at < STRETCH ? m - at : STRETCH;
        clsort_key_orders(spec, k + at * step, step, len, order);
        size_t kept = 0;
        for (size_t i = 0; i < len; i++) {
            if (u->have_last && order[i] == u->last)
                continue;
            u->have_last = 1;
            u->last = order[i];
            memcpy(u->keys + kept * step, k + (at + i) * step, step);
            if (v && vout)
                memcpy(u->values + kept * vs, v + (at + i) * vs, vs);
            kept++;
        }
        u->in += len;
        u->out += kept;
        if (!kept)
            continue;
        int rc = output_write(kout, u->keys, kept * step);
        if (rc == EXIT_OK && v && vout)
            rc = output_write(vout, u->values, kept * vs);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

void unique_free(unique_filter *u)
{
    free(u->keys);
    free(u->values);
    u->keys = u->values = NULL;
}
