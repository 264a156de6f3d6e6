/*
 * Key types, order, bit ranges and segment lengths: the default spec, sizes, the host's copy of the key order, the
 * build options that select the key transform in cl/common.cl, and an in-place transform pass
 * (cl/keys.cl) for the families that compare whole keys.
 * Calls: options.c, program.c, chain.c.
 */
#include "internal.h"

#include <stdio.h>

#include <string.h>

static const char *const type_names[] = { "u32", "i32", "f32", "u64", "i64", "f64" };
#define N_TYPES (sizeof type_names / sizeof type_names[0])

const char *clsort_key_type_name(clsort_key_type t)
{
    return (unsigned)t < N_TYPES ? type_names[t] : NULL;
}

clsort_status clsort_key_type_from_name(const char *name, clsort_key_type *out)
{
    if (!name || !out)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < N_TYPES; i++)
        if (!strcmp(name, type_names[i])) {
            *out = (clsort_key_type)i;
            return CLSORT_OK;
        }
    return CLSORT_ERROR_INVALID_ARGUMENT;
}

size_t clsort_key_type_size(clsort_key_type t)
{
    return clsort_key_type_name(t) ? clsort_key_width(t) / 8 : 0;
}

unsigned clsort_key_width(clsort_key_type t)
{
    return t >= CLSORT_KEY_U64 ? 64 : 32;
}

/* 0 unsigned, 1 signed, 2 floating point: KEY_KIND in cl/common.cl. */
static unsigned key_kind(clsort_key_type t)
{
    switch (t) {
    case CLSORT_KEY_I32:
    case CLSORT_KEY_I64:
        return 1;
    case CLSORT_KEY_F32:
    case CLSORT_KEY_F64:
        return 2;
    default:
        return 0;
    }
}

void clsort_key_range(const clsort_spec *spec, unsigned *begin, unsigned *end)
{
    *begin = spec->begin_bit;
    *end = spec->end_bit ? spec->end_bit : clsort_key_width(spec->key_type);
}

/* The host's copy of the mapping in cl/common.cl (key_to_bits), with the order and the range mask. */
void clsort_key_recipe_init(const clsort_spec *spec, clsort_key_recipe *r)
{
    const unsigned w = clsort_key_width(spec->key_type);
    const int kind = (int)key_kind(spec->key_type);
    unsigned begin, end;
    clsort_key_range(spec, &begin, &end);
    r->wide = w == 64;
    r->is_float = kind == 2;
    r->sign = 1ull << (w - 1);
    r->ones = w == 64 ? ~0ull : 0xffffffffull;
    r->flip = (kind == 1 ? r->sign : 0) ^ (spec->descending ? r->ones : 0);
    /* (a range the sorts would refuse, past the key's width, gives some mask, not undefined shifts) */
    end = end < w ? end : w;
    begin = begin < end ? begin : end;
    r->mask = (end == 64 ? ~0ull : (1ull << end) - 1) & ~((1ull << begin) - 1);
    r->inf = !clsort_float_numpy(spec) ? 0 : w == 64 ? 0x7ff0000000000000ull : 0x7f800000ull;
}

void clsort_spec_default(clsort_spec *spec)
{
    if (!spec)
        return;
    memset(spec, 0, sizeof *spec);
    spec->key_type = CLSORT_KEY_U32;
    spec->value_size = 0;
    spec->algorithm = CLSORT_ALGO_AUTO;
}

/* NULL spec: the defaults, as the sorts take it. */
static const clsort_spec *spec_or_default(const clsort_spec *spec, clsort_spec *def)
{
    if (spec)
        return spec;
    clsort_spec_default(def);
    return def;
}

uint64_t clsort_key_order(const clsort_spec *spec, const void *key)
{
    if (!key)
        return 0;
    clsort_spec def;
    clsort_key_recipe r;
    clsort_key_recipe_init(spec_or_default(spec, &def), &r);
    return clsort_key_recipe_order(&r, key);
}

void clsort_key_orders(const clsort_spec *spec, const void *keys, size_t stride, size_t n,
                       uint64_t *out)
{
    if (!keys || !out)
        return;
    clsort_spec def;
    clsort_key_recipe r;
    clsort_key_recipe_init(spec_or_default(spec, &def), &r);
    const unsigned char *k = keys;
    for (size_t i = 0; i < n; i++)
        out[i] = clsort_key_recipe_order(&r, k + i * stride);
}

int clsort_key_full_range(const clsort_spec *spec)
{
    unsigned b, e;
    clsort_key_range(spec, &b, &e);
    return b == 0 && e == clsort_key_width(spec->key_type);
}

size_t clsort_segment_length(const clsort_spec *spec, size_t n)
{
    return spec->segment && spec->segment < n ? spec->segment : n;
}

void clsort_key_options(const clsort_spec *spec, clsort_opts *b)
{
    const unsigned width = clsort_key_width(spec->key_type);
    clsort_opts_add(b, KEY_BITS, width);
    clsort_opts_add(b, KEY_KIND, key_kind(spec->key_type));
    clsort_opts_add(b, DESCENDING, spec->descending ? 1 : 0);
    if (!clsort_key_full_range(spec)) {
        unsigned begin, end;
        clsort_key_range(spec, &begin, &end);
        unsigned long long mask = (end == 64 ? ~0ull : (1ull << end) - 1) & ~((1ull << begin) - 1);
        char v[32];
        snprintf(v, sizeof v, "0x%llx%s", mask, width == 64 ? "ul" : "u");
        clsort_opts_add_text(b, KEY_RANGE_MASK, v);
    }
}

clsort_status clsort_keys_transform(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                    size_t n, int inverse)
{
    if (n == 0 || (key_kind(spec->key_type) == 0 && !spec->descending))
        return CLSORT_OK; /* the mapping is the identity */
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, ctx->tuning.scan.wg);
    clsort_key_options(spec, &opts);
    cl_program prog;
    cl_kernel k = NULL;
    clsort_status st = clsort_get_program(ctx, "keys", clsort_cl_keys, clsort_cl_keys_len, &opts,
                                          &prog);
    if (st == CLSORT_OK)
        st = clsort_create_kernel(ctx, prog, inverse ? "keys_from_bits" : "keys_to_bits", &k);
    const cl_ulong n64 = n;
    const size_t wg = ctx->tuning.scan.wg;
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, k, "keys_transform", 2, ARG(keys), ARG(n64));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, k, (n + wg - 1) / wg * wg, wg);
    if (k)
        clReleaseKernel(k);
    return st;
}

int clsort_float_numpy(const clsort_spec *spec)
{
    return key_kind(spec->key_type) == 2 && spec->float_order == CLSORT_FLOAT_NUMPY;
}

/* Keys per work-group of cl/keys.cl's fix kernels: FIX_ITEMS per work-item. */
#define FIX_ITEMS 16

size_t clsort_float_fix_scratch(const clsort_spec *spec, size_t n)
{
    /* the saved keys (every key, at worst) and two counts per block (blocks of 64 keys at least) */
    return clsort_float_numpy(spec) ? n * clsort_key_size(spec->key_type) + (n / 64 + 2) * 16 : 0;
}

/* fix_count, then fix_scan over the block counts, then `last` (fix_save or fix_restore). */
static clsort_status fix_pass(clsort_context *ctx, const clsort_spec *spec, cl_mem keys, size_t n,
                              clsort_float_fix *fix, const char *last)
{
    clsort_opts opts;
    clsort_opts_init(&opts);
    clsort_opts_add(&opts, WG, ctx->tuning.scan.wg);
    clsort_key_options(spec, &opts);
    cl_program prog;
    cl_kernel k[3] = { NULL, NULL, NULL };
    const char *names[3] = { "fix_count", "fix_scan", last };
    clsort_status st = clsort_get_program(ctx, "keys", clsort_cl_keys, clsort_cl_keys_len, &opts,
                                          &prog);
    for (int i = 0; i < 3 && st == CLSORT_OK; i++)
        st = clsort_create_kernel(ctx, prog, names[i], &k[i]);
    const size_t wg = ctx->tuning.scan.wg;
    const cl_ulong n64 = n, groups = fix->groups;
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, k[0], "fix_count", 3, ARG(keys), ARG(n64), ARG(fix->counts));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, k[0], fix->groups * wg, wg);
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, k[1], "fix_scan", 2, ARG(fix->counts), ARG(groups));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, k[1], wg, wg);
    if (st == CLSORT_OK)
        st = clsort_set_args(ctx, k[2], last, 4, ARG(keys), ARG(n64), ARG(fix->counts),
                             ARG(fix->saved));
    if (st == CLSORT_OK)
        st = clsort_launch(ctx, k[2], fix->groups * wg, wg);
    for (int i = 0; i < 3; i++)
        if (k[i])
            clReleaseKernel(k[i]);
    return st;
}

clsort_status clsort_float_fix_save(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                    size_t n, clsort_float_fix *fix)
{
    memset(fix, 0, sizeof *fix);
    const size_t block = ctx->tuning.scan.wg * FIX_ITEMS;
    fix->groups = (n + block - 1) / block;
    clsort_status st = clsort_alloc(ctx, 2 * fix->groups * sizeof(cl_ulong), &fix->counts,
                                    "float order counts");
    if (st == CLSORT_OK)
        st = clsort_alloc(ctx, n * clsort_key_size(spec->key_type), &fix->saved,
                          "float order zeros and NaNs");
    return st == CLSORT_OK ? fix_pass(ctx, spec, keys, n, fix, "fix_save") : st;
}

clsort_status clsort_float_fix_restore(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                       size_t n, clsort_float_fix *fix)
{
    return fix_pass(ctx, spec, keys, n, fix, "fix_restore");
}

void clsort_float_fix_release(clsort_float_fix *fix)
{
    /* commands still using them keep them alive until they finish */
    if (fix->counts)
        clReleaseMemObject(fix->counts);
    if (fix->saved)
        clReleaseMemObject(fix->saved);
    fix->counts = fix->saved = NULL;
}
