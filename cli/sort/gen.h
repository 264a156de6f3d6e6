/*
 * Deterministic key generators (clsort gen, clsort bench): a xoshiro256** stream seeded with splitmix64.
 */
#ifndef CLSORT_GEN_H
#define CLSORT_GEN_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

typedef enum dist_kind {
    DIST_UNIFORM,  /* uniform words */
    DIST_CONSTANT, /* every key the same (the value given, or drawn from the seed) */
    DIST_SORTED,   /* non-decreasing, spread over the whole range */
    DIST_REVERSE,  /* non-increasing */
    DIST_FEW,      /* param distinct values, each key one of them */
    DIST_ENTROPY,  /* AND of param uniform words: each bit is set with probability 2^-param */
    DIST_ZIPF,     /* Zipf's law with exponent s over 2^32 ranks, each rank a fixed scrambled key */
} dist_kind;

typedef struct dist_spec {
    dist_kind kind;
    uint64_t param;     /* few: K; entropy: Q; constant: the key's bits (after dist_check_type) */
    double s;           /* zipf: the exponent */
    int has_param;
    const char *text;   /* the parameter as given (constant:V is read once the key type is known) */
} dist_spec;

/* Parse "uniform", "constant[:V]", "sorted", "reverse", "few:K", "entropy:Q", "zipf:S". Returns 0, or -1
 * after printing an error. */
int dist_parse(const char *text, dist_spec *out);
/* Check the distribution's parameter against the key type (constant:V must be a value of the type) and
 * store it as the key's bits. Returns 0, or -1 after printing an error. */
int dist_check_type(dist_spec *d, clsort_key_type t);
/* The canonical text of a distribution, e.g. "entropy:3". */
void dist_format(const dist_spec *d, char *buf, size_t cap);

typedef struct gen_state {
    uint64_t s[4];     /* xoshiro256** state */
    dist_spec dist;
    clsort_key_type type;
    uint64_t n;        /* total keys (sorted/reverse spread over it) */
    uint64_t index;    /* next key's index */
    uint32_t constant; /* 32-bit keys: constant's value; few's and zipf's offset */
    uint64_t constant64; /* 64-bit keys: the same */
    /* zipf: rejection-inversion sampler (Hörmann and Derflinger) */
    double z_hx1, z_hn, z_sv;
    double *z_draw;    /* zipf: a round's draws and their ranks, tried on several threads */
    uint64_t *z_rank;
    size_t z_cap;
} gen_state;

/* Set up a generator of n keys of type t. */
void gen_init(gen_state *g, const dist_spec *d, clsort_key_type t, uint64_t seed, uint64_t n);
/* The next count keys (of the generator's type, count * clsort_key_type_size() bytes); the sequence
 * does not depend on how it is cut into calls. */
void gen_keys(gen_state *g, void *keys, size_t count);
/* Free what the generator holds (gen_init() takes nothing that needs it; zipf keys may). */
void gen_done(gen_state *g);

#endif
