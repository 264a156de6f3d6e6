/*
 * A recording of bench/clrecord.c, read back: its commands, buffer snapshots and expected results.
 * Shared by the replays through the CUDA driver (ptxreplay.c, for Nsight Compute) and through
 * OpenCL (clreplay.c, which checks that the recording is complete on any device).
 */
#ifndef CLSORT_BENCH_RECORDING_H
#define CLSORT_BENCH_RECORDING_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strtok_r; include this header first */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REC_MAX_BUFS = 256, REC_MAX_OPS = 4096, REC_MAX_PROGS = 32, REC_MAX_ARGS = 40 };

typedef struct rec_op {
    char kind; /* L launch, F fill, C copy, W write */
    int prog, dims, n_args, mem[REC_MAX_ARGS], a, b, write;
    char name[64];
    size_t global[3], local[3]; /* local[0] 0: the implementation's choice */
    size_t size[REC_MAX_ARGS], off_a, off_b, bytes, pattern_size;
    unsigned char value[REC_MAX_ARGS][64], pattern[64];
} rec_op;

typedef struct recording {
    const char *dir;
    rec_op ops[REC_MAX_OPS];
    int n_ops, n_bufs, n_progs, result[2]; /* result: the keys' and values' buffers, or -1 */
    size_t buf_size[REC_MAX_BUFS];
    void *snapshot[REC_MAX_BUFS];
} recording;

/* A file of the recording, NUL-terminated; exits on failure. */
static char *rec_slurp(const recording *r, const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    b[n] = '\0';
    fclose(f);
    if (size)
        *size = (size_t)n;
    return b;
}

static void rec_unhex(const char *s, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sscanf(s + 2 * i, "%2hhx", &out[i]);
}

static size_t rec_next(void)
{
    const char *t = strtok(NULL, " \n");
    if (!t) {
        fprintf(stderr, "recording: a line ends early\n");
        exit(2);
    }
    return strtoull(t, NULL, 10);
}

static void rec_parse_launch(recording *r, rec_op *o)
{
    o->kind = 'L';
    o->prog = (int)rec_next();
    snprintf(o->name, sizeof o->name, "%s", strtok(NULL, " "));
    o->dims = (int)rec_next();
    for (int d = 0; d < 3; d++)
        o->global[d] = rec_next();
    for (int d = 0; d < 3; d++)
        o->local[d] = rec_next();
    o->n_args = (int)rec_next();
    for (int i = 0; i < o->n_args && i < REC_MAX_ARGS; i++) {
        const char *a = strtok(NULL, " \n");
        o->mem[i] = a[0] == 'm' ? atoi(a + 1) : -1;
        if (a[0] == 's') {
            o->size[i] = strtoull(a + 1, NULL, 10);
            rec_unhex(strchr(a, ':') + 1, o->value[i], o->size[i]);
        }
    }
    if (o->prog + 1 > r->n_progs)
        r->n_progs = o->prog + 1;
}

/* Reads DIR/ops.txt and the buffer snapshots. */
static void rec_load(recording *r, const char *dir)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->result[0] = r->result[1] = -1;
    char *text = rec_slurp(r, "ops.txt", NULL), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *kind = strtok(line, " ");
        if (!kind || kind[0] == '#')
            continue;
        rec_op *o = &r->ops[r->n_ops];
        if (!strcmp(kind, "buffer")) {
            const int id = (int)rec_next();
            char name[64];
            r->buf_size[id] = rec_next();
            snprintf(name, sizeof name, "buf%d.bin", id);
            r->snapshot[id] = rec_slurp(r, name, NULL);
            r->n_bufs = id + 1 > r->n_bufs ? id + 1 : r->n_bufs;
            continue;
        }
        if (!strcmp(kind, "result")) {
            const int vals = !strcmp(strtok(NULL, " "), "vals");
            r->result[vals] = (int)rec_next();
            continue;
        }
        if (!strcmp(kind, "launch")) {
            rec_parse_launch(r, o);
        } else if (!strcmp(kind, "fill")) {
            o->kind = 'F';
            o->a = (int)rec_next();
            o->off_a = rec_next();
            o->bytes = rec_next();
            o->pattern_size = rec_next();
            rec_unhex(strtok(NULL, " \n"), o->pattern, o->pattern_size);
        } else if (!strcmp(kind, "copy")) {
            o->kind = 'C';
            o->a = (int)rec_next();
            o->b = (int)rec_next();
            o->off_a = rec_next();
            o->off_b = rec_next();
            o->bytes = rec_next();
        } else if (!strcmp(kind, "write")) {
            o->kind = 'W';
            o->a = (int)rec_next();
            o->off_a = rec_next();
            o->bytes = rec_next();
            o->write = (int)rec_next();
        } else {
            fprintf(stderr, "recording: unknown command %s\n", kind);
            exit(2);
        }
        if (++r->n_ops == REC_MAX_OPS) {
            fprintf(stderr, "recording: more than %d commands\n", REC_MAX_OPS);
            exit(2);
        }
    }
    free(text);
}

/* Compares the replay's keys and values (read by `read`) with the recorded result; returns the
 * number of buffers that differ. */
static int rec_check(const recording *r, void (*read)(int buf, void *host, size_t size))
{
    int bad = 0;
    const char *names[2] = { "keys", "vals" };
    for (int j = 0; j < 2; j++) {
        if (r->result[j] < 0)
            continue;
        char name[64];
        size_t n;
        snprintf(name, sizeof name, "out_%s.bin", names[j]);
        unsigned char *want = (unsigned char *)rec_slurp(r, name, &n), *got = malloc(n);
        read(r->result[j], got, n);
        size_t diff = 0;
        for (size_t k = 0; k < n; k++)
            diff += got[k] != want[k];
        printf("%s: %zu of %zu bytes differ from the recorded result\n", names[j], diff, n);
        bad += diff != 0;
        free(want);
        free(got);
    }
    return bad;
}

#endif
