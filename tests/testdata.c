#include "testdata.h"

#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

const char *test_dist_name(test_dist d)
{
    static const char *names[] = { "uniform", "constant", "sorted", "reverse", "few",
                                   "entropy2", "entropy4", "entropy8", "entropy16" };
    return d < DIST_COUNT ? names[d] : "?";
}

void test_fill_keys(uint32_t *keys, size_t n, test_dist d, uint64_t seed)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + d;
    static const uint32_t few[7] = { 0, 1, 0x7fffffffu, 0x80000000u, 0xdeadbeefu, 0xffffffffu, 42 };
    int q = d == DIST_ENTROPY2 ? 2 : d == DIST_ENTROPY4 ? 4 : d == DIST_ENTROPY8 ? 8 : 16;
    for (size_t i = 0; i < n; i++) {
        switch (d) {
        case DIST_CONSTANT:
            keys[i] = 0x12345678u;
            break;
        case DIST_SORTED:
            keys[i] = (uint32_t)(i * 3);
            break;
        case DIST_REVERSE:
            keys[i] = (uint32_t)(0xfffffff0u - i * 5);
            break;
        case DIST_FEW:
            keys[i] = few[splitmix64(&s) % 7];
            break;
        case DIST_ENTROPY2:
        case DIST_ENTROPY4:
        case DIST_ENTROPY8:
        case DIST_ENTROPY16: {
            uint32_t k = 0xffffffffu;
            for (int j = 0; j < q; j++)
                k &= (uint32_t)splitmix64(&s);
            keys[i] = k;
            break;
        }
        default:
            keys[i] = (uint32_t)splitmix64(&s);
            break;
        }
    }
}

/* LSD radix sort with 8-bit digits: stable by construction, independent of the device code. */
void test_reference_sort(uint32_t *keys, uint32_t *values, size_t n)
{
    if (n < 2)
        return;
    uint32_t *tk = malloc(n * sizeof *tk);
    uint32_t *tv = values ? malloc(n * sizeof *tv) : NULL;
    if (!tk || (values && !tv))
        abort();
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((keys[i] >> shift) & 255) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) {
            size_t dst = count[(keys[i] >> shift) & 255]++;
            tk[dst] = keys[i];
            if (values)
                tv[dst] = values[i];
        }
        memcpy(keys, tk, n * sizeof *tk);
        if (values)
            memcpy(values, tv, n * sizeof *tv);
    }
    free(tk);
    free(tv);
}
