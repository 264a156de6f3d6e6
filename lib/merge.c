/*
 * K-way merge of sorted runs with a binary min-heap of run heads, keyed by (key order, run index)
 * so that equal keys leave in run order (stable). O(n log k) comparisons of cached 64-bit key orders.
 * Calls: keys.c (the key recipe, key sizes).
 */
#include "merge.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct head {
    uint64_t order; /* clsort_key_order() of the run's next key */
    size_t run;
    size_t pos; /* index of that key in the run */
} head;

static int before(const head *a, const head *b)
{
    return a->order < b->order || (a->order == b->order && a->run < b->run);
}

static void sift_down(head *h, size_t count, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < count && before(&h[l], &h[m]))
            m = l;
        if (r < count && before(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        const head t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int clsort_merge_runs(const clsort_spec *spec, const clsort_merge_run *runs, size_t k,
                      void *out_keys, void *out_values)
{
    const size_t ks = clsort_key_type_size(spec->key_type), vs = spec->value_size;
    head *h = malloc((k ? k : 1) * sizeof *h);
    if (!h)
        return -1;
    clsort_key_recipe key;
    clsort_key_recipe_init(spec, &key);
    size_t count = 0;
    for (size_t r = 0; r < k; r++)
        if (runs[r].n)
            h[count++] = (head){ clsort_key_recipe_order(&key, runs[r].keys), r, 0 };
    for (size_t i = count / 2; i-- > 0;)
        sift_down(h, count, i);
    unsigned char *ok = out_keys, *ov = out_values;
    for (size_t i = 0; count; i++) {
        head *top = &h[0];
        const clsort_merge_run *run = &runs[top->run];
        memcpy(ok + i * ks, (const unsigned char *)run->keys + top->pos * ks, ks);
        if (vs)
            memcpy(ov + i * vs, (const unsigned char *)run->values + top->pos * vs, vs);
        if (++top->pos < run->n)
            top->order = clsort_key_recipe_order(&key,
                                                 (const unsigned char *)run->keys + top->pos * ks);
        else
            h[0] = h[--count];
        sift_down(h, count, 0);
    }
    free(h);
    return 0;
}
