/*
 * Fixed-size records sorted by a key field: a number of the spec's key type at an offset, or a
 * string of bytes compared as unsigned bytes (memcmp order). Where the device has memory of its own
 * and the records fit it twice, the whole sort runs there (fields_device.c). Otherwise, here, the
 * records stay on the host: their keys go to the device, with a permutation as the values, and the
 * records are gathered by it.
 * A byte string longer than 8 bytes takes one stable sort per 8-byte word, from the least
 * significant to the most (LSD over words), each carrying the permutation of the one before; the
 * last, partial word sorts on its bytes only (a 10-byte key: 2 digit passes, then 8). Each word is
 * read big-endian, so that the order of the 64-bit numbers is the order of the bytes. Every word
 * is read from the records in one sequential pass first; a later sort gathers its word from that
 * array (8 bytes per key) rather than from the records. The passes over the records and the final
 * gather run on the host's threads: a gather is a random read per record, bound by memory latency
 * (H100 machine, 2^24 records of 100 bytes: 5.6 s end to end on one thread).
 * Calls: fields_device.c, api.c (clsort_sort() for each word: any size, chunks included),
 * parallel.c (the host's threads), status.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Word w of a byte key (bytes 8w.. of key_size), big-endian, zero past the key's end. */
static uint64_t field_key_word(const unsigned char *key, size_t key_size, size_t w)
{
    uint64_t v = 0;
    for (size_t b = 0; b < 8; b++) {
        const size_t at = w * 8 + b;
        v = v << 8 | (at < key_size ? key[at] : 0);
    }
    return v;
}

static clsort_status check_records(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                   size_t record_size, size_t key_offset, size_t key_size)
{
    const size_t ks = key_size ? key_size : clsort_key_size(spec->key_type);
    if (spec->value_size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "records carry their own values: spec->value_size must be 0, not %zu",
                           spec->value_size);
    if (!record_size || key_offset > record_size || ks > record_size - key_offset)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "a key of %zu bytes at offset %zu does not fit in records of %zu bytes",
                           ks, key_offset, record_size);
    if (key_size && (spec->begin_bit || spec->end_bit))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "a key of bytes is compared whole: no bit range (%u:%u)", spec->begin_bit,
                           spec->end_bit);
    if (spec->algorithm == CLSORT_ALGO_BITONIC || spec->algorithm == CLSORT_ALGO_ODDEVEN)
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED,
                           "records are sorted by stable passes over their keys; %s is not stable: "
                           "use radix8, radix4 or auto",
                           clsort_algorithm_name(spec->algorithm));
    if (n && record_size > SIZE_MAX / n)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%zu records of %zu bytes", n, record_size);
    return CLSORT_OK;
}

/* The permutation's words: 4 bytes while positions fit, else 8. */
static uint64_t perm_at(const void *perm, size_t ps, size_t i)
{
    return ps == 4 ? ((const uint32_t *)perm)[i] : ((const uint64_t *)perm)[i];
}

/* One step over records [begin, end), run on the host's threads. */
typedef struct step {
    const unsigned char *rec;
    unsigned char *out;
    const clsort_fields *f; /* the records' layout and the sort's shape */
    const void *perm;
    const uint64_t *src; /* a word of every record, to gather by the permutation */
    uint64_t *dst;
    void (*fn)(const struct step *st, size_t begin, size_t end);
} step;

/* Every word of a key of bytes (word-major: word w of record i at dst[w * n + i]), or the numbers. */
static void extract(const step *st, size_t begin, size_t end)
{
    const clsort_fields *f = st->f;
    for (size_t i = begin; i < end; i++) {
        const unsigned char *key = st->rec + i * f->rs + f->off;
        if (!f->key_size)
            memcpy((unsigned char *)st->dst + i * f->ks, key, f->ks);
        else
            for (size_t w = 0; w < f->words; w++)
                st->dst[w * f->n + i] = field_key_word(key, f->key_size, w);
    }
}

static void gather_words(const step *st, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        st->dst[i] = st->src[perm_at(st->perm, st->f->ps, i)];
}

/* A copy of a size known at compile time is a move or two; memcpy's call per record of a variable
 * size cost more than the random read itself (perf: 24% of clsort-mpi's time at 8-byte records). */
#define GATHER_FIXED(bytes)                                                                        \
    for (size_t i = begin; i < end; i++)                                                           \
        memcpy(st->out + i * (bytes), st->rec + perm_at(st->perm, ps, i) * (bytes), (bytes))

static void gather_records(const step *st, size_t begin, size_t end)
{
    const size_t rs = st->f->rs, ps = st->f->ps;
    switch (rs) {
    case 4: GATHER_FIXED(4); break;
    case 8: GATHER_FIXED(8); break;
    case 12: GATHER_FIXED(12); break;
    case 16: GATHER_FIXED(16); break;
    default:
        for (size_t i = begin; i < end; i++)
            memcpy(st->out + i * rs, st->rec + perm_at(st->perm, ps, i) * rs, rs);
    }
}
#undef GATHER_FIXED

static void run_step(void *arg, size_t begin, size_t end)
{
    const step *st = arg;
    st->fn(st, begin, end);
}

/* st->fn over the records, on the host's threads. */
static void parallel(step *st)
{
    enum { MIN_SLICE = 65536 };
    clsort_parallel(st->f->n, MIN_SLICE, run_step, st);
}

/* Stable sorts of the key's words carrying the permutation: keys holds every word of the keys
 * (word-major) or the numbers; k is a spare array of n words for the gathered ones. */
static clsort_status sort_keys(clsort_context *ctx, const clsort_spec *spec, step *sp, void *keys,
                               uint64_t *k, void *perm, clsort_stats *stats)
{
    const clsort_fields *f = sp->f;
    clsort_spec s;
    const size_t n = f->n;
    if (!f->key_size) { /* one sort of the numbers at the offset */
        clsort_fields_word_spec(spec, f, 0, &s);
        return clsort_sort(ctx, &s, keys, perm, n, stats);
    }
    uint64_t *words = keys;
    clsort_status st = CLSORT_OK;
    double kernel_ms = 0;
    for (size_t w = f->words; w-- > 0 && st == CLSORT_OK;) {
        uint64_t *kw = words + w * n; /* the first sort takes its word in place */
        if (w + 1 < f->words) {
            sp->src = kw;
            sp->dst = k;
            sp->fn = gather_words;
            parallel(sp);
            kw = k;
        }
        clsort_fields_word_spec(spec, f, w, &s);
        st = clsort_sort(ctx, &s, kw, perm, n, stats);
        if (stats)
            kernel_ms += stats->kernel_ms;
    }
    if (stats && st == CLSORT_OK)
        stats->kernel_ms = kernel_ms;
    return st;
}

/* The permutation that sorts the records: every key word (or number) read, then the stable sorts. */
static clsort_status find_permutation(clsort_context *ctx, const clsort_spec *spec, step *sp,
                                      void *perm, clsort_stats *stats)
{
    const clsort_fields *f = sp->f;
    const size_t n = f->n;
    void *keys = malloc(n * f->ks * f->words);
    uint64_t *spare = f->words > 1 ? malloc(n * 8) : NULL;
    clsort_status st = CLSORT_OK;
    if (!keys || (f->words > 1 && !spare)) {
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for the keys of %zu records", n);
    } else {
        clsort_host_positions(perm, f->ps, n);
        sp->dst = keys;
        sp->fn = extract;
        parallel(sp);
        sp->perm = perm;
        st = sort_keys(ctx, spec, sp, keys, spare, perm, stats);
    }
    free(keys);
    free(spare);
    return st;
}

/* Records that are their keys alone: one stable sort in place, the positions as its values, with
 * no copy of the keys and no gather. */
static clsort_status sort_bare_keys(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                    size_t n, size_t ps, uint64_t *index, clsort_stats *stats,
                                    double t0)
{
    /* keys ordered on all their bits are equal only when their bytes are: no positions needed */
    const unsigned bits = (unsigned)(8 * clsort_key_size(spec->key_type));
    if (!index && spec->begin_bit == 0 && (spec->end_bit == 0 || spec->end_bit == bits)) {
        clsort_status st = clsort_sort(ctx, spec, keys, NULL, n, stats);
        if (st == CLSORT_OK)
            clsort_stats_finish(stats, n, t0);
        return st;
    }
    /* 8-byte positions go straight into the caller's index; 4-byte ones are widened after */
    void *perm = ps == 8 && index ? (void *)index : malloc(n * ps);
    if (!perm)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory for the positions of %zu records", n);
    clsort_host_positions(perm, ps, n);
    clsort_spec s = *spec;
    s.value_size = ps;
    clsort_status st = clsort_sort(ctx, &s, keys, perm, n, stats);
    if (st == CLSORT_OK && index && perm != (void *)index)
        for (size_t i = 0; i < n; i++)
            index[i] = perm_at(perm, ps, i);
    if (st == CLSORT_OK)
        clsort_stats_finish(stats, n, t0);
    if (perm != (void *)index)
        free(perm);
    return st;
}

clsort_status clsort_sort_records(clsort_context *ctx, const clsort_spec *spec, void *records,
                                  size_t n, size_t record_size, size_t key_offset, size_t key_size,
                                  uint64_t *index, clsort_stats *stats)
{
    const double t0 = clsort_now_ms();
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (stats)
        memset(stats, 0, sizeof *stats);
    VALIDATE(ctx, ctx);
    clsort_clear_detail(ctx);
    VALIDATE(ctx, records || n == 0);
    clsort_status st = check_records(ctx, spec, n, record_size, key_offset, key_size);
    if (st != CLSORT_OK || n == 0)
        return st;
    const size_t ps = (uint64_t)n <= ((uint64_t)1 << 32) ? 4 : 8;
    if (!key_size && record_size == clsort_key_size(spec->key_type))
        return sort_bare_keys(ctx, spec, records, n, ps, index, stats, t0);
    const clsort_fields f = { .n = n, .rs = record_size, .off = key_offset, .key_size = key_size,
                              .ks = key_size ? 8 : clsort_key_size(spec->key_type),
                              .words = key_size ? (key_size + 7) / 8 : 1, .ps = ps };
    step sp = { .rec = records, .f = &f };
    if (clsort_fields_device_fits(ctx, spec, &f)) {
        int touched;
        st = clsort_fields_device_sort(ctx, spec, &f, records, index, &touched, stats);
        /* the device's memory ran short after all (it reports some shortages only when a buffer
         * is first used): the host's way, the records untouched */
        if (st == CLSORT_OK || touched ||
            (st != CL_MEM_OBJECT_ALLOCATION_FAILURE && st != CL_OUT_OF_RESOURCES &&
             st != CLSORT_ERROR_TOO_LARGE)) {
            if (st == CLSORT_OK)
                clsort_stats_finish(stats, n, t0);
            return st;
        }
        clsort_clear_detail(ctx);
    }
    void *perm = malloc(n * ps);
    unsigned char *out = NULL;
    if (!perm)
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for the positions of %zu records", n);
    else
        st = find_permutation(ctx, spec, &sp, perm, stats);
    /* the gather: a copy of the records in the permutation's order, then back in place */
    if (st == CLSORT_OK && !(out = malloc(n * record_size)))
        st = clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                         "out of host memory for a copy of %zu records of %zu bytes", n,
                         record_size);
    if (st == CLSORT_OK) {
        sp.out = out;
        sp.fn = gather_records;
        parallel(&sp);
        memcpy(records, out, n * record_size);
        for (size_t i = 0; index && i < n; i++)
            index[i] = perm_at(perm, ps, i);
    }
    if (st == CLSORT_OK)
        clsort_stats_finish(stats, n, t0);
    free(perm);
    free(out);
    return st;
}

size_t clsort_records_host_bytes(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                 size_t record_size, size_t key_offset, size_t key_size)
{
    clsort_spec def;
    spec = clsort_spec_or_default(spec, &def);
    if (!ctx)
        return SIZE_MAX;
    const int bad = check_records(ctx, spec, n, record_size, key_offset, key_size) != CLSORT_OK;
    clsort_clear_detail(ctx);
    if (bad)
        return SIZE_MAX;
    if (n == 0)
        return 0;
    const size_t ps = (uint64_t)n <= ((uint64_t)1 << 32) ? 4 : 8;
    if (!key_size && record_size == clsort_key_size(spec->key_type)) { /* sort_bare_keys() */
        const unsigned bits = (unsigned)(8 * record_size);
        return spec->begin_bit == 0 && (spec->end_bit == 0 || spec->end_bit == bits) ? 0 : n * ps;
    }
    const clsort_fields f = { .n = n, .rs = record_size, .off = key_offset, .key_size = key_size,
                              .ks = key_size ? 8 : clsort_key_size(spec->key_type),
                              .words = key_size ? (key_size + 7) / 8 : 1, .ps = ps };
    if (clsort_fields_device_fits(ctx, spec, &f))
        return 0;
    /* the host's way: the permutation, with the keys (and a spare word) while it is found, then
     * with the gathered copy; each product is below n * record_size, checked above, or a word */
    const double keys = (double)n * f.ks * f.words + (f.words > 1 ? 8.0 * n : 0.0);
    const double peak = (double)n * ps + (keys > (double)n * record_size ? keys
                                                                         : (double)n * record_size);
    return peak >= (double)SIZE_MAX ? SIZE_MAX : (size_t)peak;
}
