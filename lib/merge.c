/*
 * K-way merge of sorted runs with a binary min-heap of run heads, keyed by (key order, run index)
 * so that equal keys leave in run order (stable). O(n log k) comparisons of cached 64-bit key orders.
 * Calls: keys.c (clsort_key_order, key sizes).
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

struct clsort_merger {
    const clsort_spec *spec;
    clsort_key_recipe key;
    const clsort_merge_run *runs;
    size_t ks, vs, count; /* count: runs not yet used up, heads in h */
    head h[];
};

clsort_merger *clsort_merger_open(const clsort_spec *spec, const clsort_merge_run *runs, size_t k)
{
    clsort_merger *m = malloc(sizeof *m + (k ? k : 1) * sizeof(head));
    if (!m)
        return NULL;
    *m = (clsort_merger){ .spec = spec, .runs = runs, .ks = clsort_key_type_size(spec->key_type),
                          .vs = spec->value_size };
    clsort_key_recipe_init(spec, &m->key);
    for (size_t r = 0; r < k; r++)
        if (runs[r].n)
            m->h[m->count++] = (head){ clsort_key_recipe_order(&m->key, runs[r].keys), r, 0 };
    for (size_t i = m->count / 2; i-- > 0;)
        sift_down(m->h, m->count, i);
    return m;
}

/* One key or value: the common sizes as fixed-size copies the compiler inlines. */
static inline void copy(unsigned char *dst, const unsigned char *src, size_t size)
{
    switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, size); break;
    }
}

size_t clsort_merger_next_strided(clsort_merger *m, void *out_keys, size_t key_stride,
                                  void *out_values, size_t value_stride, size_t max)
{
    const size_t ks = m->ks, vs = m->vs;
    unsigned char *ok = out_keys, *ov = out_values;
    head *h = m->h;
    size_t i = 0;
    for (; i < max && m->count; i++) {
        head *top = &h[0];
        const clsort_merge_run *run = &m->runs[top->run];
        copy(ok + i * key_stride, (const unsigned char *)run->keys + top->pos * ks, ks);
        if (vs)
            copy(ov + i * value_stride, (const unsigned char *)run->values + top->pos * vs, vs);
        if (++top->pos < run->n)
            top->order = clsort_key_recipe_order(&m->key,
                                                 (const unsigned char *)run->keys + top->pos * ks);
        else
            h[0] = h[--m->count];
        sift_down(h, m->count, 0);
    }
    return i;
}

size_t clsort_merger_next(clsort_merger *m, void *out_keys, void *out_values, size_t max)
{
    return clsort_merger_next_strided(m, out_keys, m->ks, out_values, m->vs, max);
}

void clsort_merger_close(clsort_merger **m)
{
    if (m) {
        free(*m);
        *m = NULL;
    }
}

int clsort_merge_runs(const clsort_spec *spec, const clsort_merge_run *runs, size_t k,
                      void *out_keys, void *out_values)
{
    clsort_merger *m = clsort_merger_open(spec, runs, k);
    if (!m)
        return -1;
    clsort_merger_next(m, out_keys, out_values, SIZE_MAX);
    clsort_merger_close(&m);
    return 0;
}
