/*
 * libFuzzer harness for clsort text's key fields: the first line of the input is a -k spec (or
 * several, split at spaces), parsed as text_args.c parses them; the first bytes pick -t, -s, -u,
 * -r and -z. When the specs are taken, the rest of the input is lines, sorted by
 * clsort_sort_lines() on the host: the output must be in order by clsort_lines_compare(), every
 * line must come out once (or, with -u, the first of each run of equal keys), and the comparison
 * must be antisymmetric. A refused spec must say why.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_verbosity = 0;
    return 0;
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const unsigned mode = data[0];
    data++;
    size--;
    const uint8_t *nl = memchr(data, '\n', size);
    const size_t spec_len = nl ? (size_t)(nl - data) : size;
    if (spec_len > 200)
        return 0;
    char specs[201];
    memcpy(specs, data, spec_len);
    specs[spec_len] = '\0';
    const char *lines = nl ? (const char *)nl + 1 : "";
    const size_t len = nl ? size - spec_len - 1 : 0;

    clsort_lines_key keys[8];
    size_t n_keys = 0;
    char why[512];
    for (char *save = NULL, *tok = strtok_r(specs, " ", &save); tok && n_keys < 8;
         tok = strtok_r(NULL, " ", &save)) {
        why[0] = '\0';
        const int r = text_parse_key(tok, &keys[n_keys], why, sizeof why);
        if (r != 0) {
            if (why[0] == '\0')
                abort(); /* a refusal says why */
            return 0;
        }
        n_keys++;
    }
    clsort_lines_spec spec;
    clsort_lines_spec_default(&spec);
    spec.keys = keys;
    spec.n_keys = n_keys;
    spec.separator = (mode & 1) ? (mode & 2 ? ',' : '\t') : -1;
    spec.stable = !!(mode & 4);
    spec.unique = !!(mode & 8);
    spec.reverse = !!(mode & 16);
    spec.delimiter = (mode & 32) ? '\0' : '\n';
    clsort_lines_order *order;
    if (clsort_lines_order_new(&spec, &order) != CLSORT_OK)
        return 0; /* orders that exclude each other: refused, as GNU sort does */
    const size_t n = clsort_lines_count(&spec, lines, len);
    uint64_t *starts = malloc((n + 1) * sizeof *starts);
    uint64_t *out = malloc((n + 1) * sizeof *out);
    unsigned char *seen = calloc(n + 1, 1);
    size_t kept = 0;
    if (!starts || !out || !seen ||
        clsort_sort_lines(NULL, &spec, lines, len, starts, out, &kept, NULL) != CLSORT_OK)
        abort();
#define L(i) (lines + starts[i]), ((size_t)(starts[(i) + 1] - starts[i] - 1))
    for (size_t i = 0; i < kept; i++) {
        if (out[i] >= n || seen[out[i]])
            abort();
        seen[out[i]] = 1;
        if (i > 0) {
            const int c = clsort_lines_order_compare(order, L(out[i - 1]), L(out[i]));
            if (c > 0 || (spec.unique && c == 0))
                abort(); /* out of order */
            if (c == 0 && out[i - 1] > out[i])
                abort(); /* not stable */
            if (sign(clsort_lines_order_compare(order, L(out[i]), L(out[i - 1]))) != -sign(c))
                abort();
        }
    }
    if (!spec.unique && kept != n)
        abort();
    free(starts);
    free(out);
    free(seen);
    clsort_lines_order_free(order);
    return 0;
}
