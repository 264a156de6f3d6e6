/* Test inputs and the host reference sort. */
#ifndef CLSORT_TESTDATA_H
#define CLSORT_TESTDATA_H

#include <stddef.h>
#include <stdint.h>

typedef enum test_dist {
    DIST_UNIFORM,
    DIST_CONSTANT,
    DIST_SORTED,
    DIST_REVERSE,
    DIST_FEW,       /* 7 distinct values */
    DIST_ENTROPY2,  /* AND of 2 uniform words */
    DIST_ENTROPY4,
    DIST_ENTROPY8,
    DIST_ENTROPY16,
    DIST_COUNT
} test_dist;

const char *test_dist_name(test_dist d);
void test_fill_keys(uint32_t *keys, size_t n, test_dist d, uint64_t seed);
/* Stable host sort of keys with their values (values may be NULL). */
void test_reference_sort(uint32_t *keys, uint32_t *values, size_t n);

#endif
