/*
 * clsort gen: write deterministic test data (u32 keys, or key/value records).
 */
#include "args.h"
#include "cli.h"
#include "gen.h"
#include "io.h"

#include <stdlib.h>
#include <string.h>

enum { BLOCK = 1 << 16 };

static int generate(const gen_args *a, output_file *kout, output_file *vout)
{
    uint32_t *keys = malloc(BLOCK * sizeof *keys);
    uint32_t *buf = malloc(2 * BLOCK * sizeof *buf); /* records, or values */
    if (!keys || !buf) {
        free(keys);
        free(buf);
        msg_error("out of memory");
        return EXIT_DEVICE;
    }
    gen_state g;
    gen_init(&g, &a->dist, a->seed, a->n);
    int rc = EXIT_OK;
    for (uint64_t i = 0; i < a->n && rc == EXIT_OK; i += BLOCK) {
        size_t m = a->n - i < BLOCK ? (size_t)(a->n - i) : BLOCK;
        gen_keys(&g, keys, m);
        /* a value is its record's index: after a sort it tells where the key came from */
        if (a->kv) {
            for (size_t j = 0; j < m; j++) {
                buf[2 * j] = keys[j];
                buf[2 * j + 1] = (uint32_t)(i + j);
            }
            rc = output_write(kout, buf, m * 8);
        } else {
            rc = output_write(kout, keys, m * 4);
            if (rc == EXIT_OK && vout) {
                for (size_t j = 0; j < m; j++)
                    buf[j] = (uint32_t)(i + j);
                rc = output_write(vout, buf, m * 4);
            }
        }
    }
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
    const char *output = a.output ? a.output : "-";
    io_install_signal_handlers();

    output_file kout = {.fd = -1, .slot = -1}, vout = {.fd = -1, .slot = -1};
    int have_vout = a.values_out != NULL;
    double t0 = now_ms();
    rc = output_open(&kout, output, a.force);
    if (rc == EXIT_OK && have_vout) {
        rc = output_open(&vout, a.values_out, a.force);
        if (rc == EXIT_OK && output_same(&kout, &vout)) {
            msg_error("-o and --values-out name the same file (%s)", kout.name);
            rc = EXIT_USAGE;
        }
    }
    if (rc == EXIT_OK)
        rc = generate(&a, &kout, have_vout ? &vout : NULL);
    if (rc == EXIT_OK)
        rc = output_finish(&kout);
    if (rc == EXIT_OK && have_vout)
        rc = output_finish(&vout);
    if (rc == EXIT_OK) {
        output_file *outs[2] = {&kout, &vout};
        rc = output_commit(outs, have_vout ? 2 : 1);
    }
    output_abort(&kout);
    if (have_vout)
        output_abort(&vout);
    if (rc == EXIT_OK) {
        double ms = now_ms() - t0;
        char dist[64];
        dist_format(&a.dist, dist, sizeof dist);
        uint64_t bytes = a.n * (a.kv ? 8u : 4u) * (have_vout ? 2u : 1u);
        msg_info("generated %llu %s (%s, seed %llu) in %.1f ms, %.0f MB/s", (unsigned long long)a.n,
                 a.kv ? "records" : "keys", dist, (unsigned long long)a.seed, ms,
                 ms > 0 ? (double)bytes / (ms * 1e3) : 0.0);
    }
    return rc;
}
