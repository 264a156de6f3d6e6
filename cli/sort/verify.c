/*
 * sort --verify (see verify.h). Owns the host-side checks of a sorted result; calls the library's
 * clsort_key_order() for the order, so that the check is the sort's own definition of it.
 */
#include "verify.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

uint64_t verify_load_word(const unsigned char *p, size_t size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    return 0;
}

void verify_key_text(char *buf, size_t cap, clsort_key_type t, uint64_t k)
{
    switch (t) {
    case CLSORT_KEY_I32: snprintf(buf, cap, "%d", (int)(int32_t)(uint32_t)k); break;
    case CLSORT_KEY_I64: snprintf(buf, cap, "%lld", (long long)(int64_t)k); break;
    case CLSORT_KEY_F32: {
        uint32_t w = (uint32_t)k;
        float f;
        memcpy(&f, &w, 4);
        snprintf(buf, cap, "%.9g (0x%08x)", (double)f, (unsigned)w);
        break;
    }
    case CLSORT_KEY_F64: {
        double d;
        memcpy(&d, &k, 8);
        snprintf(buf, cap, "%.17g (0x%016llx)", d, (unsigned long long)k);
        break;
    }
    default: snprintf(buf, cap, "%llu", (unsigned long long)k); break;
    }
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The sum of a hash of each record (key and value bits); keys and values stride bytes apart (0:
 * packed arrays). */
static uint64_t fingerprint(const unsigned char *keys, size_t ks, const unsigned char *values,
                            size_t vs, size_t n, size_t stride)
{
    const size_t kstep = stride ? stride : ks, vstep = stride ? stride : vs;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = verify_load_word(keys + i * kstep, ks);
        uint64_t v = values ? verify_load_word(values + i * vstep, vs) : 0;
        sum += mix64(mix64(k + 0x9e3779b97f4a7c15ull) ^ v);
    }
    return sum;
}

uint64_t verify_fingerprint(const unsigned char *keys, size_t ks, const unsigned char *values,
                            size_t vs, size_t n)
{
    return fingerprint(keys, ks, values, vs, n, 0);
}

uint64_t verify_fingerprint_records(const unsigned char *rec, size_t ks, size_t vs, size_t n)
{
    return fingerprint(rec, ks, rec + ks, vs, n, ks + vs);
}

uint64_t verify_fingerprint_bytes(const unsigned char *rec, size_t rs, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++, rec += rs) {
        uint64_t h = rs;
        size_t at = 0;
        for (; at + 8 <= rs; at += 8)
            h = mix64(h ^ verify_load_word(rec + at, 8));
        uint64_t tail = 0;
        memcpy(&tail, rec + at, rs - at);
        sum += mix64(h ^ tail ^ 0x9e3779b97f4a7c15ull);
    }
    return sum;
}

void verify_start(verify_state *v)
{
    memset(v, 0, sizeof *v);
}

void verify_segments(verify_state *v, const uint64_t *starts, size_t n)
{
    v->starts = starts;
    v->n_starts = n;
    v->next = 0;
}

/* Whether record i starts a variable segment (records are seen in order). */
static int segment_start(verify_state *v, uint64_t i)
{
    while (v->next < v->n_starts && v->starts[v->next] < i)
        v->next++;
    return v->next < v->n_starts && v->starts[v->next] == i;
}

int verify_block(verify_state *v, const clsort_spec *spec, const void *keys, const void *values,
                 size_t m, int records)
{
    const size_t ks = clsort_key_type_size(spec->key_type);
    const size_t vs = values || records ? spec->value_size : 0, step = records ? ks + vs : ks;
    const uint64_t seg = spec->segment;
    const unsigned char *k = keys;
    uint64_t order[1024]; /* the orders of a stretch of keys, the spec read once for all */
    for (size_t at = 0; at < m; at += sizeof order / sizeof order[0]) {
        const size_t len = m - at < sizeof order / sizeof order[0] ? m - at
                                                                   : sizeof order / sizeof order[0];
        clsort_key_orders(spec, k + at * step, step, len, order);
        for (size_t j = 0; j < len; j++, v->i++) {
            /* the order the sort makes: ascending in this value, descending order included */
            const uint64_t d = order[j];
            if (v->i > 0 && (seg == 0 || v->i % seg != 0) && v->prev > d &&
                !segment_start(v, v->i)) {
                char x[64], y[64];
                const uint64_t prev_bits =
                    at + j > 0 ? verify_load_word(k + (at + j - 1) * step, ks) : v->prev_key;
                verify_key_text(x, sizeof x, spec->key_type, prev_bits);
                verify_key_text(y, sizeof y, spec->key_type,
                                verify_load_word(k + (at + j) * step, ks));
                msg_error("verification failed: keys %llu and %llu are out of %s order (%s, %s)",
                          (unsigned long long)(v->i - 1), (unsigned long long)v->i,
                          spec->descending ? "descending" : "ascending", x, y);
                return EXIT_DEVICE;
            }
            v->prev = d;
        }
        v->prev_key = verify_load_word(k + (at + len - 1) * step, ks);
    }
    v->sum += records ? verify_fingerprint_records(keys, ks, vs, m)
                      : verify_fingerprint(keys, ks, values, vs, m);
    return EXIT_OK;
}

int verify_end(const verify_state *v, const clsort_spec *spec, int has_values, uint64_t before)
{
    if (v->sum != before) {
        msg_error("verification failed: the output is not a permutation of the input %s",
                  has_values ? "records" : "keys");
        return EXIT_DEVICE;
    }
    msg_info("verified: %llu keys in order%s, same %s as the input", (unsigned long long)v->i,
             spec->segment || v->starts ? " in each segment" : "", has_values ? "records" : "keys");
    return EXIT_OK;
}
