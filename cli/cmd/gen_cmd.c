/*
 * clsort gen: write deterministic test data: keys of any supported type, alone, with their values
 * in records, or with the values in a file of their own. Owns the command's steps; calls args.c for
 * its options, gen.c for the keys, layout.c for record sizes and io.c for the outputs.
 */
#include "args.h"
#include "cli.h"
#include "gen.h"
#include "io.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BLOCK = 1 << 20 };

static int generate(const gen_args *a, output_file *kout, output_file *vout)
{
    const layout_args *l = &a->layout;
    size_t ks = layout_key_size(l), vs = l->value_size, rs = layout_record_size(l);
    unsigned char *keys = malloc(BLOCK * ks);
    unsigned char *buf = malloc(BLOCK * (rs > vs ? rs : vs) + 1); /* records, or values */
    if (!keys || !buf) {
        free(keys);
        free(buf);
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    gen_state g;
    gen_init(&g, &a->dist, l->type, a->common.seed, a->n);
    int rc = EXIT_OK;
    for (uint64_t i = 0; i < a->n && rc == EXIT_OK; i += BLOCK) {
        size_t m = a->n - i < BLOCK ? (size_t)(a->n - i) : BLOCK;
        gen_keys(&g, keys, m);
        /* a value is its record's index: after a sort it tells where the key came from */
        if (l->kv) {
            for (size_t j = 0; j < m; j++)
                memcpy(buf + j * rs, keys + j * ks, ks);
            layout_index_values(buf + ks, rs, i, m, vs);
            rc = output_write(kout, buf, m * rs);
        } else {
            rc = output_write(kout, keys, m * ks);
            if (rc == EXIT_OK && vout) {
                layout_index_values(buf, vs, i, m, vs);
                rc = output_write(vout, buf, m * vs);
            }
        }
    }
    gen_done(&g);
    free(keys);
    free(buf);
    return rc;
}

int cmd_gen(int argc, char **argv, int first)
{
    gen_args a;
    int rc = parse_gen_args(argc, argv, first, &a);
    if (rc >= 0)
        return rc;
    const layout_args *l = &a.layout;
    const char *output = a.common.output ? a.common.output : "-";
    io_install_signal_handlers();

    output_file kout = {.fd = -1, .slot = -1}, vout = {.fd = -1, .slot = -1};
    int have_vout = l->values_out != NULL;
    double t0 = now_ms();
    rc = output_open(&kout, output, a.common.force);
    if (rc == EXIT_OK && have_vout) {
        rc = output_open(&vout, l->values_out, a.common.force);
        if (rc == EXIT_OK && output_same(&kout, &vout)) {
            msg_error("-o and --values-out name the same file (%s)", kout.name);
            rc = EXIT_USAGE;
        }
    }
    uint64_t bytes = a.n * (layout_key_size(l) + l->value_size);
    g_output_sync = a.common.sync;
    progress_start(!a.common.no_progress);
    progress_phase("gen", bytes);
    if (rc == EXIT_OK)
        rc = generate(&a, &kout, have_vout ? &vout : NULL);
    if (rc == EXIT_OK) {
        progress_phase("sync", 0);
        rc = output_finish(&kout);
    }
    if (rc == EXIT_OK && have_vout)
        rc = output_finish(&vout);
    if (rc == EXIT_OK) {
        output_file *outs[2] = {&kout, &vout};
        rc = output_commit(outs, have_vout ? 2 : 1);
    }
    progress_end();
    output_abort(&kout);
    if (have_vout)
        output_abort(&vout);
    if (rc == EXIT_OK) {
        double ms = now_ms() - t0;
        char dist[64], what[64];
        dist_format(&a.dist, dist, sizeof dist);
        const char *tn = clsort_key_type_name(l->type);
        if (l->value_size)
            snprintf(what, sizeof what, "%s, %zu-byte values %s", tn, l->value_size,
                     l->kv ? "in records" : "apart");
        else
            snprintf(what, sizeof what, "%s", tn);
        msg_info("generated %llu keys (%s; %s, seed %llu) in %.1f ms, %.0f MB/s",
                 (unsigned long long)a.n, what, dist, (unsigned long long)a.common.seed, ms,
                 ms > 0 ? (double)bytes / (ms * 1e3) : 0.0);
    }
    return rc;
}
