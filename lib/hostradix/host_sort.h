/*
 * Shared by the host radix sort's files only: host_radix.c (the loops), host_local.c (the sort of
 * a range in one thread), host_sort.c (the threads and the plan) and host_family.c (the family
 * entry: buffers mapped on the queue).
 */
#ifndef CLSORT_HOST_SORT_H
#define CLSORT_HOST_SORT_H

#include "internal.h"

#define CLSORT_HOST_MAX_PASSES 8 /* 8-bit digits of a 64-bit key */

/* Inputs (and segments) of up to this many bytes (keys and values) are sorted by the calling
 * thread alone: up to there the array stays in cache for its passes, and the split's extra pass
 * and the second thread cost more than they save. 2^20 u32 keys, shared 2-core EPYC (/tmp harness
 * on clsort_host_sort_run, medians of 41): one thread 3.6-4.2 ms CPU, 7.8-11 ms wall; split on two
 * threads 5.2 ms CPU, 15.5-17 ms wall (minimum wall 3.0 against 4.3). */
#define CLSORT_HOST_LOCAL_MAX_BYTES ((size_t)4 << 20)

/* Host arrays of up to this many bytes (keys and values) that host-radix sorts are sorted where
 * they are, by the calling thread alone with a scratch of malloc() (run.c;
 * clsort_host_radix_sort_host()), not through buffers mapped by a thread of the library behind
 * events. Larger ones are sorted where they are too on a CPU device, by the calling thread and
 * helpers through the kept scratch buffers (mapped: no fresh pages each call); elsewhere past this
 * the threaded path. 2^24 keys, clsort.sort(a, out=a) on the same 2-core EPYC, medians of 7 (load
 * ~2.6): f32 131 ms threaded, 88 ms where they are; i64 86 / 67; u32 78 / 35. Past this, on other
 * devices, the scratch of malloc() (fresh pages each call) costs more than the handoff saves. Python
 * clsort.sort per call, shared 2-core EPYC, PoCL, in the calling thread / threaded
 * (CLSORT_HOST_INLINE_BYTES=0): 1,000 f32 12 / 290-1060 us; 10^4 f32 54 / 237, i64 57 / 496;
 * 2^17 f32 (512 KiB) 634 / 850; 2^16 i64 (512 KiB) 338 / 581; 2^17 i64 (1 MiB) 1434 / 952. */
#define CLSORT_HOST_INLINE_MAX_BYTES ((size_t)512 << 10)

/* Keys and values (NULL without values) of an array, indexed from its start. */
typedef struct clsort_host_span {
    void *keys, *values;
} clsort_host_span;

typedef struct clsort_host_sort clsort_host_sort;

/* Digits of the sort of a short range (in cache): up to 12 bits each, lowest first. */
#define CLSORT_HOST_MAX_DIGITS 8
#define CLSORT_HOST_DIGIT_MAX 4096
typedef struct clsort_host_digits {
    unsigned n, shift[CLSORT_HOST_MAX_DIGITS], mask[CLSORT_HOST_MAX_DIGITS];
} clsort_host_digits;

/* A thread's buffer for the split's scatter: per digit, the records gathered for the digit's next
 * aligned group in the scratch (64 bytes of the narrower of key and value), written as whole
 * cache lines once complete. */
#define CLSORT_HOST_LINE 64
typedef struct clsort_host_lines {
    _Alignas(CLSORT_HOST_LINE) unsigned char keys[256][2 * CLSORT_HOST_LINE];
    _Alignas(CLSORT_HOST_LINE) unsigned char values[256][2 * CLSORT_HOST_LINE];
    size_t begin[256]; /* where the chunk's records of each digit start */
} clsort_host_lines;

/* The loops, compiled per key size, value size and key kind. */
typedef struct clsort_host_ops {
    /* Counts of the digit places in `places` (bit per place) over keys [lo, hi); in numpy's float
     * order, where `odd` is not NULL, *odd += the keys that order apart from IEEE total order
     * (NaNs, -0.0). */
    void (*hist)(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                 unsigned places, size_t (*c)[256], size_t *odd);
    /* Records [lo, hi) of src to dst by the digit of `pass`; off[d]: where digit d goes next. */
    void (*scatter)(const clsort_host_sort *s, const clsort_host_span *src,
                    const clsort_host_span *dst, size_t lo, size_t hi, unsigned pass, size_t *off);
    /* The scatter, by whole lines where dst is aligned to lines (else as scatter); dst is
     * written from memory, not read, so lines go around the cache. */
    void (*split)(const clsort_host_sort *s, const clsort_host_span *src,
                  const clsort_host_span *dst, size_t lo, size_t hi, unsigned pass, size_t *off,
                  clsort_host_lines *lines);
    /* Counts of every digit of g over keys [lo, hi) (hi - lo < 2^32). */
    void (*digit_hist)(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                       const clsort_host_digits *g, uint32_t (*c)[CLSORT_HOST_DIGIT_MAX]);
    /* n records of src from index `from` to dst from index `to`, by digit j of g; off[d]: where
     * digit d goes next, counted from `to`. */
    void (*digit_scatter)(const clsort_host_sort *s, const clsort_host_span *src, size_t from,
                          const clsort_host_span *dst, size_t to, size_t n,
                          const clsort_host_digits *g, unsigned j, uint32_t *off);
    /* Stable insertion sort of [lo, hi) in place. */
    void (*insertion)(const clsort_host_sort *s, const clsort_host_span *a, size_t lo, size_t hi);
    /* Counts of the wide digit (bits sh.. under dm, up to 16 bits) over keys [lo, hi) into
     * c[0..dm] (hi - lo < 2^32); odd as for hist. */
    void (*wide_hist)(const clsort_host_sort *s, const void *keys, size_t lo, size_t hi,
                      unsigned sh, unsigned dm, uint32_t *c, size_t *odd);
    /* The split (by whole lines where lines is not NULL, as split; else as scatter) by the
     * bucket map[] of the wide digit: off[b] is where bucket b goes next. */
    void (*split_map)(const clsort_host_sort *s, const clsort_host_span *src,
                      const clsort_host_span *dst, size_t lo, size_t hi, unsigned sh, unsigned dm,
                      const uint8_t *map, size_t *off, clsort_host_lines *lines);
} clsort_host_ops;

/* One sort: the data, the order, the digit places of the bit range. */
struct clsort_host_sort {
    clsort_host_span data, tmp; /* the result ends in data; tmp holds n records of scratch */
    /* clsort_host_sort_run() only: where the records are read from first (keys NULL: data, in
     * place), left as they are; the first pass that moves them writes them elsewhere anyway */
    clsort_host_span src;
    size_t n;
    unsigned ks, vs;            /* key and value bytes */
    unsigned threads;           /* threads to sort with (1: the calling thread alone) */
    clsort_key_recipe recipe;
    unsigned passes;            /* 8-bit digit places of the bit range, lowest first */
    unsigned shift[CLSORT_HOST_MAX_PASSES], dmask[CLSORT_HOST_MAX_PASSES];
    const clsort_host_ops *ops;
    /* NULL, or called by the calling thread with records [0, upto) of data in their final place,
     * upto growing, while the other threads sort the rest (clsort_host_sort_run()'s buckets in
     * order; the caller writes them out meanwhile); the callee keeps what it has taken. */
    void (*ready)(void *user, size_t upto);
    void *ready_user;
};

/* A thread's scratch for clsort_host_sort_local(): a range of up to `records` records is sorted
 * through it where that saves a copy (an even count of passes into alt); records 0: none. With
 * `stream`, the passes go between src and it and the result is streamed into alt (alt's range is
 * not in cache: reading its lines for the scatter's stores would cost more). */
typedef struct clsort_host_buffer {
    clsort_host_span span;
    size_t records;
    int stream;
} clsort_host_buffer;

/* memcpy() with the destination's whole lines stored around the cache (where the target has
 * such stores). */
void clsort_host_stream(void *dst, const void *src, size_t bytes);

/* The loops of s's key and value sizes in IEEE total order: for keys in numpy's float order that
 * hold no NaN and no -0.0, where the two orders agree and total order costs less. */
const clsort_host_ops *clsort_host_ops_total(const clsort_host_sort *s);
/* The order and digit places of a spec for n records; data, tmp and threads are the caller's. */
void clsort_host_sort_init(clsort_host_sort *s, const clsort_spec *spec, size_t n);
/* Sort records [lo, hi) of src by the digit places in `places`, in the calling thread, through alt
 * ([lo, hi) of it is scratch) and buf (NULL: none); the result ends in alt when to_alt, else in
 * src. Returns the digit passes skipped because every record there had the same digit. */
unsigned clsort_host_sort_local(const clsort_host_sort *s, const clsort_host_span *src,
                                const clsort_host_span *alt, int to_alt, size_t lo, size_t hi,
                                unsigned places, const clsort_host_buffer *buf);
/* The whole sort of s->data, on s->threads threads (fewer when threads cannot be started), and
 * the calling thread for s->ready where that is set (called at least once, with n, at the end).
 * Returns the digit places skipped. */
unsigned clsort_host_sort_run(const clsort_host_sort *s);
/* Segments of s->data each sorted on its own, on s->threads threads: [off[i], off[i + 1]) for
 * the n_seg + 1 offsets off (checked), or, where off is NULL, runs of seg_len records (the last
 * one shorter). */
void clsort_host_sort_segments(const clsort_host_sort *s, const uint64_t *off, size_t n_seg,
                               size_t seg_len);

#endif
