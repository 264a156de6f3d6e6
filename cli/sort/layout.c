/*
 * The layout rules of sort and gen (see layout.h). Owns the --kv / --value-size / --values /
 * --values-out rules and record sizes; calls msg.c for errors and the library for key sizes and
 * names.
 */
#include "layout.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* What differs between the commands: the option that keeps values apart, and the messages' words.
 */
static const struct {
    const char *apart;     /* the option that puts values in a file of their own */
    const char *verb;      /* what that option (or --kv) does with values */
    const char *separate;  /* the options --kv cannot be combined with */
    const char *to_stdout; /* keys and values both on stdout */
} words[] = {
    [LAYOUT_SORT] = {"--values", "gives", "--values/--values-out (separate files)",
                     "sorted keys and values cannot both go to stdout"},
    [LAYOUT_GEN] = {"--values-out", "asks for", "--values-out (a separate file)",
                    "keys and values cannot both go to stdout"},
};

int layout_settle(layout_args *l, layout_cmd cmd, int value_size_given)
{
    /* sort reads values apart with --values, gen writes them apart with --values-out */
    const int apart = (cmd == LAYOUT_SORT ? l->values : l->values_out) != NULL;
    if (value_size_given && l->value_size == 0 && (l->kv || apart)) {
        msg_error("--value-size 0 means keys only, but %s %s values",
                  l->kv ? "--kv" : words[cmd].apart, words[cmd].verb);
        return EXIT_USAGE;
    }
    if (value_size_given && l->value_size > 0 && !l->values && !l->values_out)
        l->kv = 1; /* records of key and value, as 'clsort gen --value-size V' writes them */
    if (!value_size_given)
        l->value_size = l->kv || apart ? 4 : 0;
    return EXIT_OK;
}

int layout_check_files(const layout_args *l, layout_cmd cmd, const char *in, const char *out)
{
    if (l->kv && (l->values || l->values_out)) {
        msg_error("--kv (interleaved records) cannot be combined with %s", words[cmd].separate);
        return EXIT_USAGE;
    }
    if (cmd == LAYOUT_SORT) {
        if (l->values && !l->values_out) {
            msg_error("--values needs --values-out: where should the sorted values go?");
            return EXIT_USAGE;
        }
        if (l->values_out && !l->values) {
            msg_error("--values-out needs --values: the values to sort with the keys");
            return EXIT_USAGE;
        }
        if (l->values && strcmp(in, "-") == 0 && strcmp(l->values, "-") == 0) {
            msg_error("keys and values cannot both come from stdin");
            return EXIT_USAGE;
        }
    }
    if (l->values_out && strcmp(out, "-") == 0 && strcmp(l->values_out, "-") == 0) {
        msg_error("%s", words[cmd].to_stdout);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

size_t layout_key_size(const layout_args *l)
{
    return clsort_key_type_size(l->type);
}

size_t layout_record_size(const layout_args *l)
{
    return layout_key_size(l) + (l->kv ? l->value_size : 0);
}

int layout_check_sizes(const layout_args *l, const char *kname, uint64_t kbytes, int kknown,
                       const char *vname, uint64_t vbytes, int vknown)
{
    const char *tn = clsort_key_type_name(l->type);
    const size_t ks = layout_key_size(l), vs = l->value_size, rs = layout_record_size(l);
    if (kknown && kbytes % rs) {
        /* the other value size, where it fits: --kv takes 4-byte values unless told */
        const size_t other = vs == 4 ? 8 : 4;
        char hint[96] = "";
        if (l->kv && kbytes % (ks + other) == 0)
            snprintf(hint, sizeof hint, "; it is a whole number of %zu-byte records (%s key + "
                     "%zu-byte value): give --value-size %zu", ks + other, tn, other, other);
        if (l->kv)
            msg_error("%s: %llu bytes is not a multiple of the %zu-byte record size "
                      "(%s key + %zu-byte value)%s", kname, (unsigned long long)kbytes, rs, tn, vs,
                      hint);
        else
            msg_error("%s: %llu bytes is not a multiple of the %zu-byte key size (%s keys)", kname,
                      (unsigned long long)kbytes, ks, tn);
        return EXIT_USAGE;
    }
    if (vname && vknown && vbytes % vs) {
        msg_error("%s: %llu bytes is not a multiple of the %zu-byte value size", vname,
                  (unsigned long long)vbytes, vs);
        return EXIT_USAGE;
    }
    if (vname && kknown && vknown && kbytes / ks != vbytes / vs) {
        msg_error("%s holds %llu keys (%llu bytes of %s keys) but %s holds %llu values "
                  "(%llu bytes): expected %llu bytes of %zu-byte values, one per key",
                  kname, (unsigned long long)(kbytes / ks), (unsigned long long)kbytes, tn, vname,
                  (unsigned long long)(vbytes / vs), (unsigned long long)vbytes,
                  (unsigned long long)(kbytes / ks * vs), vs);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int layout_check_records(const char *name, uint64_t bytes, uint64_t rs)
{
    if (bytes % rs == 0)
        return EXIT_OK;
    msg_error("%s: %llu bytes is not a multiple of the %llu-byte record size", name,
              (unsigned long long)bytes, (unsigned long long)rs);
    return EXIT_USAGE;
}

void layout_index_values(unsigned char *out, size_t stride, uint64_t first, size_t m, size_t vs)
{
    for (size_t j = 0; j < m; j++) {
        uint64_t v = first + j;
        if (vs == 4) {
            uint32_t w = (uint32_t)v;
            memcpy(out + j * stride, &w, 4);
        } else {
            memcpy(out + j * stride, &v, 8);
        }
    }
}
