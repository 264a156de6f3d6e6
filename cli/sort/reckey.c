/*
 * Keys of records (see reckey.h). Owns the order of keys of bytes on the host; numbers take the
 * library's clsort_key_orders(), the sort's own definition of their order. Calls verify.c for a
 * number's text.
 */
#include "reckey.h"
#include "verify.h"

#include <stdio.h>
#include <string.h>

size_t rec_key_from_args(rec_key *k, const sort_args *a, const clsort_spec *spec)
{
    k->spec = spec;
    k->offset = a->record_size ? (size_t)a->key_offset : 0;
    k->bytes = a->bytes_key;
    k->size = a->bytes_key ? (size_t)a->key_size : layout_key_size(&a->layout);
    return a->record_size ? (size_t)a->record_size : layout_record_size(&a->layout);
}

/* Bytes 0..7 of a key of bytes as a big-endian number, zero past the key's end: its order is the
 * order of the bytes. */
static uint64_t head(const unsigned char *key, size_t size)
{
    uint64_t v = 0;
    for (size_t b = 0; b < 8; b++)
        v = v << 8 | (b < size ? key[b] : 0);
    return v;
}

void rec_key_orders(const rec_key *k, const void *recs, size_t stride, size_t n, uint64_t *out)
{
    const unsigned char *r = (const unsigned char *)recs + k->offset;
    if (!k->bytes) {
        clsort_key_orders(k->spec, r, stride, n, out);
        return;
    }
    const uint64_t flip = k->spec->descending ? UINT64_MAX : 0;
    for (size_t i = 0; i < n; i++)
        out[i] = head(r + i * stride, k->size) ^ flip;
}

int rec_key_cmp(const rec_key *k, const void *a, uint64_t oa, const void *b, uint64_t ob)
{
    if (oa != ob)
        return oa < ob ? -1 : 1;
    if (!k->bytes || k->size <= 8)
        return 0;
    /* the first 8 bytes are equal: the rest decides */
    const int c = memcmp((const unsigned char *)a + k->offset + 8,
                         (const unsigned char *)b + k->offset + 8, k->size - 8);
    return k->spec->descending ? -c : c;
}

void rec_key_text(const rec_key *k, const void *rec, char *buf, size_t cap)
{
    const unsigned char *key = (const unsigned char *)rec + k->offset;
    if (!k->bytes) {
        verify_key_text(buf, cap, k->spec->key_type, verify_load_word(key, k->size));
        return;
    }
    const size_t shown = k->size < 16 ? k->size : 16;
    size_t at = 0;
    buf[0] = '\0';
    at += (size_t)snprintf(buf, cap, "0x");
    for (size_t i = 0; i < shown && at + 3 < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%02x", key[i]);
    if (shown < k->size && at + 4 < cap)
        snprintf(buf + at, cap - at, "...");
}
