/*
 * clsort-mpi's steps other than the exchange: errors agreed between ranks, the read, the local
 * sort, the splitters and the write (see dsort.h). A rank's own errors are failure.c's.
 */
#include "dsort.h"
#include "msettings.h"
#include "msignals.h"
#include "cli.h"
#include "prefault.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dsort_agree(job *j)
{
    if (j->stopped)
        return j->code; /* agreed already: every rank knows */
    const int sig = msig_taken();
    if (sig) /* the signal thread is ending this rank: it votes no meanwhile */
        dsort_fail(j, 128 + sig, "ended by signal %d (%s)", sig, strsignal(sig));
    int mine = j->code ? j->rank : j->size, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == j->size)
        return 0;
    int code = j->code;
    MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
    MPI_Bcast(j->err, (int)sizeof j->err, MPI_CHAR, first, MPI_COMM_WORLD);
    j->err[sizeof j->err - 1] = '\0';
    j->code = code;
    j->stopped = 1;
    if (j->rank == 0) {
        mout_close(j); /* the temporary output goes first: nothing is renamed after a failure */
        msg_error("rank %d of %d: %s", first, j->size, j->err);
    }
    return code;
}

/* The slice into memory: read now, or, where the budget holds it and one device sort of it
 * besides, by the local sort, streamed from the file through the device into it. */
static void read_slice(job *j, MPI_File f)
{
    const char *in = j->a->input;
    if (j->m && j->m > SIZE_MAX / j->rs)
        j->data = NULL;
    else if (!(j->data = shm_slice(j, j->m * j->rs))) /* on one host the others read it there */
        j->data = malloc(j->m ? j->m * j->rs : 1);
    if (!j->data) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate %llu bytes for this rank's %llu records "
                   "(a share larger than memory: run more ranks)",
                   (unsigned long long)(j->m * j->rs), (unsigned long long)j->m);
        return;
    }
    if (dsort_injected(j, PH_READ))
        return;
    j->local_stream = !j->local_read && j->m > 0 &&
                      2 * (unsigned __int128)j->m * j->rs + (64u << 20) <= j->budget;
    if (j->local_stream) {
        /* faulted in on threads, where the engine's one thread would fault each page it copies */
        prefault(j->data, j->m * j->rs, j->threads);
        return;
    }
    if (dsort_posix_open(j, in, 0) != 0)
        return;
    if (j->posix_io) { /* on threads, while the device opens (dsort_read_end() waits) */
        dsort_read_begin(j, in, j->lo * j->rs, j->data, j->m * j->rs);
        return;
    }
    /* MPI-IO's one thread would fault the pages in as it copies: 4 GiB took 4.2 s */
    prefault(j->data, j->m * j->rs, j->threads);
    dsort_file_io(j, f, in, 0, j->lo * j->rs, j->data, j->m * j->rs);
}

void dsort_read(job *j)
{
    const char *in = j->a->input;
    struct stat st;
    if (stat(in, &st) != 0)
        dsort_fail(j, EXIT_USAGE, "%s: cannot open: %s", in, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        dsort_fail(j, EXIT_USAGE, "%s: not a regular file (every rank reads its own part of it)",
                   in);
    else {
        /* the system's reason, which MPI-IO's error text does not give */
        const int fd = open(in, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            dsort_fail(j, EXIT_USAGE, "%s: cannot open: %s", in, strerror(errno));
        else
            close(fd);
        if (fd >= 0 && j->rank == 0) /* before any work: the output's room */
            mout_check_room(j, (uint64_t)st.st_size);
    }
    if (dsort_agree(j))
        return;
    MPI_File f;
    char text[MPI_MAX_ERROR_STRING];
    int rc = MPI_File_open(MPI_COMM_WORLD, in, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    if (rc != MPI_SUCCESS) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", in,
                   dsort_mpi_error_text(rc, text));
        return;
    }
    MPI_Offset size = 0;
    MPI_File_get_size(f, &size);
    const char *tn = clsort_key_type_name(j->spec.key_type);
    if ((uint64_t)size % j->rs) {
        if (j->a->value_size)
            dsort_fail(j, EXIT_USAGE, "%s: %llu bytes is not a multiple of the %zu-byte record size "
                       "(%s key + %zu-byte value)", in, (unsigned long long)size, j->rs, tn,
                       j->a->value_size);
        else
            dsort_fail(j, EXIT_USAGE, "%s: %llu bytes is not a multiple of the %zu-byte key size "
                       "(%s keys)", in, (unsigned long long)size, j->rs, tn);
    } else {
        /* contiguous slices whose sizes differ by one record at most */
        j->n = (uint64_t)size / j->rs;
        const unsigned __int128 n = j->n;
        j->lo = (uint64_t)(n * (unsigned)j->rank / (unsigned)j->size);
        j->m = (uint64_t)(n * (unsigned)(j->rank + 1) / (unsigned)j->size) - j->lo;
        /* beyond the budget the slice is sorted in runs (engine.c), which read it themselves */
        j->ext_local = dsort_sort_need(j, j->m) > j->budget;
        if (j->ext_local) {
            dsort_injected(j, PH_READ);
            MPI_File_close(&f);
            return;
        }
        read_slice(j, f);
    }
    MPI_File_close(&f);
}

void dsort_local(job *j)
{
    dsort_choose_partition(j); /* collective: before a failure made on purpose */
    if (dsort_injected(j, PH_SORT) || j->partitioned)
        return; /* partitioned: the one sort of the records is the merge's */
    if (j->ext_local) {
        const unsigned runs = runs_plan(j);
        if (!runs || !runs_sort(j, runs)) /* a few: each a piece of the merge (runs.c) */
            ext_sort_slice(j);
        return;
    }
    if (j->local_stream) {
        ext_sort_read(j);
        return;
    }
    /* stable: equal keys keep their order within the slice, which the splitters rely on */
    clsort_stats stats = {0};
    clsort_status st = clsort_sort_records(j->ctx, &j->spec, j->data, j->m, j->rs, 0, 0, NULL,
                                           &stats);
    dsort_device_times(j, 0, &stats);
    if (st != CLSORT_OK)
        dsort_fail(j, dsort_status_exit(st), "sort of %llu records on %s: %s (%d) %s",
                   (unsigned long long)j->m, j->device, clsort_status_string(st), st,
                   clsort_error_detail(j->ctx));
}

static int triple_cmp(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

void dsort_sample(job *j)
{
    const int p = j->size;
    /* Regular sampling of sorted slices: a rank's part exceeds n/p by at most about p/s of n/p
     * for s samples per rank, so 64 per rank keep it within 2%; the total is capped so that rank
     * 0's sort of them stays small at thousands of ranks. */
    uint64_t s = j->partitioned ? 4096 : 64 * (uint64_t)p * (j->n_runs ? j->n_runs : 1);
    const uint64_t cap = ((uint64_t)1 << 22) / (uint64_t)p;
    if (s > cap)
        s = cap > (uint64_t)p ? cap : (uint64_t)p;
    if (s > j->m)
        s = j->m;
    uint64_t *mine = malloc((s ? s : 1) * 3 * sizeof *mine);
    j->splitters = malloc((size_t)(p > 1 ? p - 1 : 1) * 3 * sizeof *j->splitters);
    int count = (int)(3 * s), *counts = NULL, *displs = NULL;
    uint64_t *all = NULL, total = 0;
    if (j->rank == 0) {
        counts = calloc((size_t)p, sizeof *counts);
        displs = calloc((size_t)p, sizeof *displs);
    }
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (j->rank == 0 && counts && displs) {
        for (int r = 0; r < p; r++) {
            displs[r] = (int)total;
            total += (uint64_t)counts[r];
        }
        all = malloc((total ? total : 1) * sizeof *all);
    }
    if (!mine || !j->splitters || (j->rank == 0 && (!counts || !displs || !all)))
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the sample");
    dsort_injected(j, PH_SAMPLE);
    if (!dsort_agree(j)) {
        if (j->partitioned)
            dsort_partition_sample(j, s, mine);
        for (uint64_t i = 0; i < s && !j->partitioned; i++) {
            uint64_t at = (uint64_t)(((unsigned __int128)(2 * i + 1) * j->m) / (2 * s));
            mine[3 * i] = dsort_order_at(j, at);
            mine[3 * i + 1] = (uint64_t)j->rank;
            mine[3 * i + 2] = at;
        }
        MPI_Gatherv(mine, count, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
                    MPI_COMM_WORLD);
        if (j->rank == 0) {
            /* the splitters cut the sorted sample into p equal parts; with no sample (fewer
             * records than ranks... none at all) every record goes to rank 0 */
            const uint64_t ns = total / 3;
            qsort(all, ns, 3 * sizeof *all, triple_cmp);
            for (int k = 1; k < p; k++) {
                uint64_t at = ns * (uint64_t)k / (uint64_t)p;
                for (int f = 0; f < 3; f++)
                    j->splitters[3 * (k - 1) + f] = ns ? all[3 * at + f] : UINT64_MAX;
            }
        }
        if (p > 1)
            MPI_Bcast(j->splitters, 3 * (p - 1), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    }
    free(mine);
    free(counts);
    free(displs);
    free(all);
}

/* This rank's part at record `first` of the output: from memory, or merged from the received
 * pieces' file straight into it. */
static void write_part(job *j, MPI_File f, uint64_t first)
{
    if (!j->ext_recv && !j->merge_at_write) {
        if (j->src)
            shm_write_received(j, f, j->a->output, first);
        else
            shm_put_output(j, f, j->a->output, first, 0, j->out, j->out_n);
        return;
    }
    const double t0 = MPI_Wtime();
    ext_merge_into(j, f, j->a->output, first);
    j->merge_ms = (MPI_Wtime() - t0) * 1e3;
}

/* Whether path opens the file (dev, ino) here: rank 0's nameless file, by /proc. Checked before it is
 * opened for writing, and again once open: a rank in another PID namespace would find another
 * process there. */
static int opens_same(const char *path, uint64_t dev, uint64_t ino)
{
    struct stat a, b;
    if (stat(path, &a) != 0 || !S_ISREG(a.st_mode) || a.st_dev != dev || a.st_ino != ino)
        return 0;
    const int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return 0;
    const int same = fstat(fd, &b) == 0 && b.st_dev == dev && b.st_ino == ino;
    close(fd);
    return same;
}

/* The temporary output every rank writes: rank 0's nameless file where every rank is on its host and
 * opens it by /proc, else a named one. Returns an exit status, agreed. */
static int temp_output(job *j, int *sync)
{
    const int shared = j->local_size == j->size && !j->named_temp;
    uint64_t info[4] = {0}; /* nameless, its device and inode, whether the output replaces a file */
    if (j->rank == 0) {
        mout_prepare(j, shared);
        struct stat st;
        if (!j->code && j->dest.nameless && fstat(j->dest.fd, &st) == 0)
            info[0] = 1, info[1] = (uint64_t)st.st_dev, info[2] = (uint64_t)st.st_ino;
        else if (!j->code && j->dest.nameless)
            mout_name(j); /* cannot happen: fstat of an open file */
        info[3] = (uint64_t)j->dest.exists;
    }
    MPI_Bcast(info, 4, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(j->dest.path, (int)sizeof j->dest.path, MPI_CHAR, 0, MPI_COMM_WORLD);
    j->dest.path[sizeof j->dest.path - 1] = '\0';
    *sync = (int)info[3];
    int code = dsort_agree(j);
    if (code || !info[0])
        return code;
    int mine = opens_same(j->dest.path, info[1], info[2]), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all)
        return 0;
    if (j->rank == 0)
        mout_name(j);
    MPI_Bcast(j->dest.path, (int)sizeof j->dest.path, MPI_CHAR, 0, MPI_COMM_WORLD);
    j->dest.path[sizeof j->dest.path - 1] = '\0';
    return dsort_agree(j);
}

int dsort_write(job *j)
{
    uint64_t first = 0;
    MPI_Exscan(&j->out_n, &first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (j->rank == 0)
        first = 0; /* MPI_Exscan leaves rank 0's result undefined */
    int sync = 0, code = temp_output(j, &sync);
    if (code)
        return code;
    /* on one host: the file's room taken and each rank's part mapped, where every rank can; a
     * merge on the threads faults in each segment's stretch itself, so that a fault-in in the
     * background and the merge's writes do not meet on the same pages */
    j->merge_faults_in = ext_merge_on_threads(j);
    shm_map_output(j, first);
    if ((code = dsort_agree(j)))
        return code;
    MPI_File f;
    char text[MPI_MAX_ERROR_STRING];
    const char *name = j->a->output;
    int rc = MPI_File_open(MPI_COMM_WORLD, j->dest.path, MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
    if (rc != MPI_SUCCESS) {
        dsort_fail(j, EXIT_IO, "%s: cannot open its temporary file for writing: %s", name,
                   dsort_mpi_error_text(rc, text));
    } else {
        if (!dsort_injected(j, PH_WRITE) && dsort_posix_open(j, j->dest.path, 1) == 0) {
            write_part(j, f, first);
            dsort_posix_close(j, name, 1);
        }
        j->out_mapped = j->out_map != NULL;
        shm_unmap_output(j); /* before the sync */
        /* a file that replaces another is on disk before the rename: every rank's part, wherever
         * it was written from (MPI_File_sync is collective: every rank calls it) */
        if (sync && (rc = MPI_File_sync(f)) != MPI_SUCCESS)
            dsort_fail(j, EXIT_IO, "%s: cannot sync: %s", name, dsort_mpi_error_text(rc, text));
        rc = MPI_File_close(&f);
        if (rc != MPI_SUCCESS)
            dsort_fail(j, EXIT_IO, "%s: cannot close its temporary file: %s", name,
                       dsort_mpi_error_text(rc, text));
    }
    dsort_test_stop(j, STOP_WRITTEN);
    if ((code = dsort_agree(j)))
        return code;
    if (j->rank == 0)
        mout_finish(j);
    /* The vote: every rank's status, right before the rename. A rank ended by a signal before it
     * never votes, and the others wait here until mpirun ends them. A rank that mpirun has begun
     * to end (SIGCONT) waits for the SIGTERM that follows; one whose mpirun is gone votes no. */
    msig_wait_launcher_quiet();
    if (msig_launcher_gone())
        dsort_launcher_gone(j);
    if ((code = dsort_agree(j)))
        return code;
    if (j->rank == 0)
        mout_commit(j);
    else
        dsort_test_stop(j, STOP_COMMIT);
    return dsort_agree(j);
}
