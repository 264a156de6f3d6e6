/*
 * clsort-mpi: a file of keys or records sorted by P processes, each with libclsort on a device of
 * its own (or a share of one): see dsort.h for the steps and clsort-mpi(1) for the use.
 */
#include "dsort.h"
#include "msettings.h"
#include "msignals.h"
#include "cli.h"
#include "pio.h"

#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *phase_label[N_PHASES] = {"read", "local sort", "sample", "exchange", "merge",
                                            "write"};

/* A rank and a point of the run, "RANK" or "RANK:POINT" (points: names[0 .. n-1]), of a testing
 * variable; *point keeps its default without ":POINT". Returns 0, or -1 when v is none of those. */
static int rank_and_point(const char *v, int size, const char *const *names, int n, int *rank,
                          int *point)
{
    char *end;
    long r = strtol(v, &end, 10);
    if (end == v || r < 0 || r >= size || (*end && *end != ':'))
        return -1;
    if (*end == ':') {
        int found = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(end + 1, names[i]) == 0)
                found = i;
        if (found < 0)
            return -1;
        *point = found;
    }
    *rank = (int)r;
    return 0;
}

/* The testing variables, the same on every rank: CLSORT_MPI_FAIL_RANK=R[:PHASE],
 * CLSORT_MPI_PIECE_BYTES=N, CLSORT_MPI_MERGE_SEGMENT=N, CLSORT_MPI_RUNS=N, CLSORT_MPI_TEST_STOP=R:POINT,
 * CLSORT_MPI_TEST_NAMED=1, CLSORT_MPI_LOCAL and CLSORT_MPI_SHARED. Returns an exit status. */
static int read_environment(job *j)
{
    static const char *const names[N_STOPS] = {"read", "sort", "sample", "exchange", "merge",
                                                "write", "written", "commit"};
    j->fail_rank = j->stop_rank = -1;
    j->fail_phase = PH_WRITE;
    j->piece_bytes = 1u << 30; /* MPI counts are ints: messages and file accesses of 1 GiB */
    const mpi_settings *env = msettings();
    const char *v = env->fail_rank;
    if (v && rank_and_point(v, j->size, names, N_PHASES, &j->fail_rank, &j->fail_phase)) {
        msg_error("CLSORT_MPI_FAIL_RANK='%s': expected RANK (0 to %d) or RANK:PHASE (read, "
                  "sort, sample, exchange, merge, write)", v, j->size - 1);
        return EXIT_USAGE;
    }
    v = env->piece_bytes;
    if (v) {
        char *end;
        unsigned long long b = strtoull(v, &end, 10);
        if (*end || b < 1 || b > 1u << 30) {
            msg_error("CLSORT_MPI_PIECE_BYTES='%s': expected bytes from 1 to 1073741824", v);
            return EXIT_USAGE;
        }
        j->piece_bytes = b;
    }
    v = env->merge_segment;
    j->merge_segment = 4096; /* a segment's cut costs some binary searches */
    if (v) {
        char *end;
        const unsigned long long n = strtoull(v, &end, 10);
        if (*end || *v < '0' || *v > '9' || n < 1 || n > (1ull << 40)) {
            msg_error("CLSORT_MPI_MERGE_SEGMENT='%s': expected a number of records from 1 to "
                      "1099511627776", v);
            return EXIT_USAGE;
        }
        j->merge_segment = n;
    }
    v = env->runs;
    if (v) {
        char *end;
        const unsigned long long n = strtoull(v, &end, 10);
        if (*end || *v < '0' || *v > '9' || n > 4096) {
            msg_error("CLSORT_MPI_RUNS='%s': expected the most runs a rank sorts itself, 0 to 4096",
                      v);
            return EXIT_USAGE;
        }
    }
    v = env->test_stop;
    j->stop_at = -1;
    if (v &&
        (rank_and_point(v, j->size, names, N_STOPS, &j->stop_rank, &j->stop_at) || j->stop_at < 0)) {
        msg_error("CLSORT_MPI_TEST_STOP='%s': expected RANK:POINT, RANK 0 to %d, POINT a phase "
                  "(read, sort, sample, exchange, merge, write), written or commit", v, j->size - 1);
        return EXIT_USAGE;
    }
    v = env->test_named;
    if (v && strcmp(v, "0") && strcmp(v, "1")) {
        msg_error("CLSORT_MPI_TEST_NAMED='%s': expected 0 or 1", v);
        return EXIT_USAGE;
    }
    j->named_temp = v && !strcmp(v, "1");
    v = env->local;
    if (v && strcmp(v, "partition") && strcmp(v, "stream") && strcmp(v, "read")) {
        msg_error("CLSORT_MPI_LOCAL='%s': expected partition, read or stream", v);
        return EXIT_USAGE;
    }
    j->local_read = !v || strcmp(v, "stream");
    j->partition_wanted = v && !strcmp(v, "partition");
    v = env->shared;
    if (v && strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "map")) {
        msg_error("CLSORT_MPI_SHARED='%s': expected 0, 1 or map", v);
        return EXIT_USAGE;
    }
    j->shared = !v || !strcmp(v, "1") ? SHARED_AUTO : !strcmp(v, "0") ? SHARED_NONE : SHARED_MAP;
    return EXIT_OK;
}

/* The host's online cores shared by its ranks, at least 1 each. */
static unsigned default_threads(const job *j)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long each = cores / (j->local_size > 0 ? j->local_size : 1);
    return each < 1 ? 1 : each > 256 ? 256 : (unsigned)each;
}

static void print_stats(job *j)
{
    double slowest[N_PHASES], dev[2][3], open_ms = 0;
    MPI_Reduce(j->ms, slowest, N_PHASES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&j->open_ms, &open_ms, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(j->device_ms, dev, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t *shares = j->rank == 0 ? malloc((size_t)j->size * sizeof *shares) : NULL;
    unsigned *threads = j->rank == 0 ? malloc(5 * (size_t)j->size * sizeof *threads) : NULL;
    char *devices = j->rank == 0 ? malloc((size_t)j->size * sizeof j->device) : NULL;
    MPI_Gather(&j->out_n, 1, MPI_UINT64_T, shares, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const unsigned mine[5] = {j->merge_threads, j->runs_spilled,
                              j->ext_local ? 1u : j->local_stream ? 2u : 0u,
                              (unsigned)(j->ext_recv && j->recv_fd >= 0),
                              j->own_runs ? j->n_runs : 0};
    MPI_Gather(mine, 5, MPI_UNSIGNED, threads, 5, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    MPI_Gather(j->device, (int)sizeof j->device, MPI_CHAR, devices, (int)sizeof j->device,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    if (j->rank == 0 && shares && threads && devices) {
        double total = 0;
        fprintf(stderr, "clsort-mpi: %d ranks, %llu records of %zu bytes (%s keys), %s I/O%s%s%s\n",
                j->size, (unsigned long long)j->n, j->rs, clsort_key_type_name(j->spec.key_type),
                j->posix_io ? "POSIX" : "MPI-IO",
                j->partitioned ? ", slices partitioned (one sort, at the merge)" : "",
                !j->src        ? ""
                : j->ext_local ? ", pieces read from the senders' sorted files"
                : j->read_peers ? ", pieces read from the senders' memory"
                               : ", pieces read from the senders' memory files",
                j->out_mapped ? ", output mapped" : "");
        for (int ph = 0; ph < N_PHASES; ph++) {
            fprintf(stderr, "  %-10s %10.3f ms (slowest rank)\n", phase_label[ph], slowest[ph]);
            /* of the device sorts in it, what the device itself took */
            const double *d = ph == PH_SORT ? dev[0] : ph == PH_MERGE ? dev[1] : NULL;
            if (d && d[0] + d[1] + d[2] > 0)
                fprintf(stderr, "    on the device: kernels %.3f, upload %.3f, download %.3f ms "
                        "(the most of any rank)\n", d[0], d[1], d[2]);
            total += slowest[ph];
        }
        fprintf(stderr, "  %-10s %10.3f ms (sum of the phases)\n", "total", total);
        /* the slice was read meanwhile: what the read hid is not in the phases */
        fprintf(stderr, "  device open %.3f ms (slowest rank; while its slice was read)\n", open_ms);
        const double fair = (double)j->n / j->size;
        for (int r = 0; r < j->size; r++) {
            char safe[512];
            msg_sanitize(safe, sizeof safe, devices + (size_t)r * sizeof j->device);
            const unsigned *f = threads + 5 * r, t = f[0];
            fprintf(stderr, "  rank %d: %llu records out (%.1f%% of n/P) on %s, ", r,
                    (unsigned long long)shares[r], fair > 0 ? 100.0 * shares[r] / fair : 0.0,
                    safe);
            if (t == MERGED_ON_DEVICE)
                fprintf(stderr, "merged on the device");
            else if (t == 0)
                fprintf(stderr, "one piece, no merge");
            else
                fprintf(stderr, "merged on %u thread%s", t, t == 1 ? "" : "s");
            /* beyond the budget: where the external sorts went */
            if (f[2] == 1 && f[4]) /* runs.c */
                fprintf(stderr, ", slice sorted in runs (%u, each a piece)", f[4]);
            else if (f[2] == 1)
                fprintf(stderr, ", slice sorted in runs");
            else if (f[2] == 2)
                fprintf(stderr, ", slice streamed from the input through the device");
            if (f[3])
                fprintf(stderr, ", received part in a file");
            if (f[1])
                fprintf(stderr, ", %u runs in temporary files", f[1]);
            fputc('\n', stderr);
        }
    }
    free(shares);
    free(threads);
    free(devices);
}

static int run_steps(job *j)
{
    void (*steps[])(job *) = {dsort_read, dsort_local, dsort_sample, dsort_exchange, dsort_merge};
    int code;
    /* the output checked before any work, its nameless temporary file opened */
    if (j->rank == 0)
        mout_open(j);
    if ((code = dsort_agree(j)))
        return code;
    dsort_plan(j);
    if ((code = dsort_agree(j)))
        return code;
    /* the device opens while the rank's threads read the slice (POSIX I/O): its opening counts to
     * the local sort, what is left of the read then to the read */
    dsort_test_stop(j, PH_READ);
    double t0 = MPI_Wtime();
    dsort_read(j);
    j->ms[PH_READ] = (MPI_Wtime() - t0) * 1e3;
    t0 = MPI_Wtime();
    if (!j->code && !j->stopped)
        dsort_open(j);
    j->ms[PH_SORT] = j->open_ms = (MPI_Wtime() - t0) * 1e3;
    t0 = MPI_Wtime();
    dsort_read_end(j);
    j->ms[PH_READ] += (MPI_Wtime() - t0) * 1e3;
    if ((code = dsort_agree(j)))
        return code;
    for (int ph = PH_SORT; ph < PH_WRITE; ph++) {
        dsort_test_stop(j, ph);
        t0 = MPI_Wtime();
        steps[ph](j);
        j->ms[ph] += (MPI_Wtime() - t0) * 1e3;
        if ((code = dsort_agree(j)))
            return code;
    }
    dsort_test_stop(j, PH_WRITE);
    t0 = MPI_Wtime();
    code = dsort_write(j);
    /* a merge that streams into the output is the merge's time, not the write's */
    j->ms[PH_WRITE] = (MPI_Wtime() - t0) * 1e3 - j->merge_ms;
    j->ms[PH_MERGE] += j->merge_ms;
    if (!code && j->a->stats)
        print_stats(j);
    return code;
}

int main(int argc, char **argv)
{
    /* before MPI and the device start threads, so that every thread has the signals blocked */
    msettings_load();
    msig_install();
    /* threads of the rank (the device's opener, I/O, the library's) make no MPI call */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    static job j;
    j.sorted_fd = j.recv_fd = j.in_fd = j.out_fd = j.slice_fd = -1;
    j.dest.dirfd = j.dest.fd = j.dest.old_fd = j.dest.slot = -1;
    /* a temporary file that reaches the file-size limit fails with EFBIG, reported, rather than
     * ending the rank */
    signal(SIGXFSZ, SIG_IGN);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    mpi_messages(j.rank); /* rank 0 alone prints */
    /* the ranks of one host share its devices, dealt out by rank within the host */
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &j.local_rank);
    MPI_Comm_size(local, &j.local_size);
    MPI_Comm_free(&local);

    mpi_args a;
    int code = parse_mpi_args(argc, argv, &a); /* -1: go on; else --help, --version, an error */
    if (code < 0 && (code = read_environment(&j)) == EXIT_OK) {
        j.a = &a;
        j.rs = mpi_record_size(&a);
        clsort_spec_default(&j.spec);
        j.spec.key_type = a.type;
        j.spec.descending = a.descending;
        j.spec.begin_bit = a.begin_bit;
        j.spec.end_bit = a.end_bit;
        j.threads = a.parallel ? a.parallel : default_threads(&j);
        pio_set_threads(j.threads);
        /* on one host the file system is local to every rank: POSIX I/O on threads, as clsort */
        j.posix_io = a.io == MPI_IO_POSIX || (a.io == MPI_IO_AUTO && j.local_size == j.size);
        code = run_steps(&j);
    }
    if (j.rank == 0)
        mout_close(&j); /* whatever ended the run: a temporary name that is left goes */
    /* a signal that came during the commit, or after it: the rank ends as it says, as clsort does
     * (the signal thread is ending it already; this exit is the same) */
    msig_sync();
    const int sig = msig_taken();
    if (sig)
        _exit(128 + sig);
    /* the output is committed: the process's exit frees the memory and the device's context
     * (as clsort leaves them), faster than freeing each piece first */
    if (code == EXIT_OK) {
        MPI_Finalize();
        return code;
    }
    if (j.out != j.recv)
        free(j.out);
    free(j.recv);
    shm_release_slice(&j);
    if (j.sorted_fd >= 0)
        close(j.sorted_fd);
    if (j.recv_fd >= 0)
        close(j.recv_fd);
    free(j.splitters);
    free(j.send_n);
    free(j.recv_n);
    free(j.run_cut);
    clsort_close(&j.ctx);
    MPI_Finalize();
    return code;
}
