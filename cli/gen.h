/*
 * Deterministic key generators (clsort gen, clsort bench): a xoshiro256** stream seeded with splitmix64.
 */
#ifndef CLSORT_GEN_H
#define CLSORT_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef enum dist_kind {
    DIST_UNIFORM,  /* uniform 32-bit words */
    DIST_CONSTANT, /* every key the same (param: the value, or drawn from the seed) */
    DIST_SORTED,   /* non-decreasing, spread over the whole range */
    DIST_REVERSE,  /* non-increasing */
    DIST_FEW,      /* param distinct values, each key one of them */
    DIST_ENTROPY,  /* AND of param uniform words: each bit is set with probability 2^-param */
} dist_kind;

typedef struct dist_spec {
    dist_kind kind;
    uint64_t param;
    int has_param;
} dist_spec;

/* Parse "uniform", "constant[:V]", "sorted", "reverse", "few:K", "entropy:Q". Returns 0, or -1 after
 * printing an error. */
int dist_parse(const char *text, dist_spec *out);
/* The canonical text of a distribution, e.g. "entropy:3". */
void dist_format(const dist_spec *d, char *buf, size_t cap);

typedef struct gen_state {
    uint64_t s[4];     /* xoshiro256** state */
    dist_spec dist;
    uint64_t n;        /* total keys (sorted/reverse spread over it) */
    uint64_t index;    /* next key's index */
    uint32_t constant; /* constant's value; few's offset */
} gen_state;

/* Set up a generator of n keys. */
void gen_init(gen_state *g, const dist_spec *d, uint64_t seed, uint64_t n);
/* The next count keys; the sequence does not depend on how it is cut into calls. */
void gen_keys(gen_state *g, uint32_t *keys, size_t count);

#endif
