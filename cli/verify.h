/*
 * sort --verify: checks of the sorted data on the host.
 */
#ifndef CLSORT_VERIFY_H
#define CLSORT_VERIFY_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* An order-independent fingerprint of the (key, value) multiset: ks-byte keys, vs-byte values
 * (values NULL: keys only). Taken before the sort and checked after it. */
uint64_t verify_fingerprint(const unsigned char *keys, size_t ks, const unsigned char *values,
                            size_t vs, size_t n);
/* The keys are in spec's order (type, direction, bit range; in each segment), and the records are
 * the multiset whose fingerprint was before. Prints the result. Returns an exit status. */
int verify_sorted(const clsort_spec *spec, const unsigned char *keys, const unsigned char *values,
                  size_t n, uint64_t before);

#endif
