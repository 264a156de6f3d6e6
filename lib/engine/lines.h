/*
 * Text lines (clsort_sort_lines()): the keys of a spec in the form the comparison uses, shared by
 * lines.c (the sort) and lines_keys.c (fields, GNU sort's comparison, the 64-bit prefixes).
 */
#ifndef CLSORT_LINES_H
#define CLSORT_LINES_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* One key as GNU sort holds it: zero-based fields and characters, SIZE_MAX for "the line's start"
 * (sword) or "the line's end" (eword); echar 0 is the end of field eword. */
typedef struct lines_key {
    size_t sword, schar, eword, echar;
    int skip_start, skip_end; /* b on POS1, on POS2 */
    int kind;                 /* LINES_BYTES, LINES_NUMERIC, LINES_GENERAL, LINES_HUMAN */
    int reverse;
    int fold;                 /* f */
    const unsigned char *ignore; /* d or i: a table of bytes left out, or NULL */
} lines_key;

enum { LINES_BYTES, LINES_NUMERIC, LINES_GENERAL, LINES_HUMAN };

typedef struct lines_order {
    lines_key keys[CLSORT_LINES_MAX_KEYS];
    size_t n_keys;
    int tab;        /* a separator byte, or -1: fields begin at blank-to-nonblank transitions */
    int stable, unique, reverse;
} lines_order;

/* Check a public spec and turn it into an order; CLSORT_ERROR_INVALID_ARGUMENT (with ctx's detail,
 * when ctx is not NULL) for one that does not hold together. */
clsort_status lines_order_make(clsort_context *ctx, const clsort_lines_spec *spec, lines_order *o);
/* GNU sort's compare() of two lines (without their delimiters). */
int lines_compare(const lines_order *o, const char *a, size_t alen, const char *b, size_t blen);
/* A 64-bit prefix of a line's first key (or of the whole line without keys): a line that compares
 * before another never has a larger prefix, and lines that compare equal have equal prefixes. */
uint64_t lines_prefix(const lines_order *o, const char *line, size_t len);
/* `threads` below: the most of the host's threads a step runs on (clsort_stream_settings.threads,
 * `clsort text --parallel N`); 0: the default, one per online processor, at most 16. */
/* clsort_sort_lines() with room for that many lines in starts (one more) and order: more is refused
 * (CLSORT_ERROR_INVALID_ARGUMENT), never an overrun. */
clsort_status lines_sort(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                         size_t len, uint64_t *starts, uint64_t *order, size_t room, size_t *n_out,
                         clsort_stats *stats, unsigned threads);
/* malloc(), with the pages of a large block made present on the host's threads (lines.c). */
void *lines_alloc(size_t bytes, unsigned threads);
/* The bytes equal to d in p[0, n), on the host's threads from a few MiB on (lines.c). */
size_t lines_count_byte(const char *p, size_t n, char d, unsigned threads);
/* The lines order[0, n) of a sort (clsort_sort_lines()'s starts) copied to out, each ended by
 * delim, on the host's threads: their bytes. Nothing is copied when they take more than cap.
 * buf_len: buf's bytes (0 when not known): short lines are copied with some bytes after them where
 * buf has them (out's room is the lines' own). */
size_t lines_gather(const char *buf, size_t buf_len, const uint64_t *starts, const uint64_t *order,
                    size_t n, char delim, char *out, size_t cap, unsigned threads);

#endif
