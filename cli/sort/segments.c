/*
 * --segments FILE: n_seg + 1 offsets, u64 little-endian, CSR style (segment i is records
 * [off[i], off[i + 1])). Every error names the file, the first bad entry and what was expected.
 */
#include "segments.h"

#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

int segments_load(seg_offsets *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        msg_error("%s: %s", path, f ? "not a regular file (the offsets are read whole)"
                                    : strerror(errno));
        if (f)
            fclose(f);
        return EXIT_USAGE;
    }
    const uint64_t bytes = (uint64_t)st.st_size;
    if (bytes % 8 || bytes == 0) {
        msg_error("%s: %llu bytes, not a whole number of offsets: expected n_seg + 1 u64 "
                  "little-endian offsets (8 bytes each), at least one", path,
                  (unsigned long long)bytes);
        fclose(f);
        return EXIT_USAGE;
    }
    const size_t count = (size_t)(bytes / 8);
    unsigned char *raw = malloc(bytes);
    s->off = malloc(count * sizeof *s->off);
    int rc = EXIT_OK;
    if (!raw || !s->off) {
        msg_error("%s: out of memory for %zu offsets", path, count);
        rc = EXIT_DEVICE;
    } else if (fread(raw, 1, bytes, f) != bytes) {
        msg_error("%s: cannot read: %s", path, ferror(f) ? strerror(errno) : "file shrank");
        rc = EXIT_IO;
    }
    fclose(f);
    for (size_t i = 0; rc == EXIT_OK && i < count; i++)
        s->off[i] = le64(raw + 8 * i);
    free(raw);
    s->n_seg = count - 1;
    if (rc != EXIT_OK)
        segments_free(s);
    return rc;
}

int segments_check(const seg_offsets *s, uint64_t n, int n_known)
{
    const uint64_t *off = s->off;
    for (size_t i = 0; i <= s->n_seg; i++) {
        const unsigned long long o = off[i];
        if (i == 0 && o != 0) {
            msg_error("%s: entry 0 is %llu, expected 0 (the first offset)", s->path, o);
            return EXIT_USAGE;
        }
        if (n_known && o > n) {
            msg_error("%s: entry %zu is %llu, past the number of records (%llu): expected at "
                      "most %llu", s->path, i, o, (unsigned long long)n, (unsigned long long)n);
            return EXIT_USAGE;
        }
        if (i > 0 && o < off[i - 1]) {
            msg_error("%s: entry %zu is %llu, below entry %zu (%llu): expected at least %llu "
                      "(offsets never decrease)", s->path, i, o, i - 1,
                      (unsigned long long)off[i - 1], (unsigned long long)off[i - 1]);
            return EXIT_USAGE;
        }
        if (n_known && i == s->n_seg && o != n) {
            msg_error("%s: entry %zu (the last) is %llu, expected the number of records (%llu)",
                      s->path, i, o, (unsigned long long)n);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

void segments_free(seg_offsets *s)
{
    free(s->off);
    s->off = NULL;
}
