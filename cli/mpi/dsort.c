/*
 * clsort-mpi's steps other than the exchange: errors agreed between ranks, the read, the local
 * sort, the splitters and the write (see dsort.h).
 */
#include "dsort.h"
#include "../cli.h"

#include <mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *phase_names[N_PHASES] = {"read", "sort", "sample", "exchange", "merge", "write"};

void dsort_fail(job *j, int code, const char *fmt, ...)
{
    if (j->code)
        return; /* the first error is the one that explains the others */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof j->err, fmt, ap);
    va_end(ap);
    j->code = code;
}

int dsort_injected(job *j, int phase)
{
    if (j->fail_rank != j->rank || j->fail_phase != phase)
        return 0;
    dsort_fail(j, EXIT_IO, "%s failed on purpose (CLSORT_MPI_FAIL_RANK=%d:%s)", phase_names[phase],
               j->rank, phase_names[phase]);
    return 1;
}

int dsort_agree(job *j)
{
    if (j->stopped)
        return j->code; /* agreed already: every rank knows */
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
        if (j->tmp[0])
            unlink(j->tmp);
        char safe[4096];
        mpi_sanitize(safe, sizeof safe, j->err);
        fprintf(stderr, "clsort-mpi: rank %d of %d: %s\n", first, j->size, safe);
    }
    j->tmp[0] = '\0';
    return code;
}

static const char *mpi_error_text(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

/* Reads or writes len bytes at off in pieces of at most piece_bytes (MPI counts are ints). */
static int file_io(job *j, MPI_File f, int write, uint64_t off, unsigned char *buf, uint64_t len)
{
    char text[MPI_MAX_ERROR_STRING];
    const char *name = write ? j->tmp : j->a->input;
    while (len > 0) {
        int piece = (int)(len < j->piece_bytes ? len : j->piece_bytes), got = 0;
        MPI_Status status;
        int rc = write ? MPI_File_write_at(f, (MPI_Offset)off, buf, piece, MPI_BYTE, &status)
                       : MPI_File_read_at(f, (MPI_Offset)off, buf, piece, MPI_BYTE, &status);
        if (rc != MPI_SUCCESS) {
            dsort_fail(j, EXIT_IO, "%s: cannot %s %d bytes at offset %llu: %s", name,
                       write ? "write" : "read", piece, (unsigned long long)off,
                       mpi_error_text(rc, text));
            return -1;
        }
        MPI_Get_count(&status, MPI_BYTE, &got);
        if (got <= 0) {
            dsort_fail(j, EXIT_IO, "%s: %s at offset %llu (the file changed while it was read?)",
                       name, write ? "nothing written" : "end of file", (unsigned long long)off);
            return -1;
        }
        off += (uint64_t)got;
        buf += got;
        len -= (uint64_t)got;
    }
    return 0;
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
    if (dsort_agree(j))
        return;
    MPI_File f;
    char text[MPI_MAX_ERROR_STRING];
    int rc = MPI_File_open(MPI_COMM_WORLD, in, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    if (rc != MPI_SUCCESS) {
        dsort_fail(j, EXIT_USAGE, "%s: cannot open for reading: %s", in,
                   mpi_error_text(rc, text));
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
        /* Linux grants allocations it may not back (overcommit): a share that cannot fit is
         * refused here, clearly, rather than ended later by the kernel's OOM killer. The peak is
         * in the local sort: the slice, its gathered copy, the keys, positions (twice) and orders */
        const unsigned __int128 need = (unsigned __int128)j->m * (2 * j->rs + 8 + 24);
        const uint64_t host = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
        const uint64_t part = host / (uint64_t)(j->local_size > 0 ? j->local_size : 1);
        if (host > 0 && need > part) {
            dsort_fail(j, EXIT_DEVICE, "this rank's share of %llu records of %zu bytes needs about "
                       "%.1f GiB of host memory (the records twice, their keys, orders and "
                       "positions), more than its part of this host's, %.1f GiB of %.1f GiB for %d "
                       "ranks: run on more hosts, or fewer ranks a host",
                       (unsigned long long)j->m, j->rs, (double)need / (1 << 30),
                       (double)part / (1 << 30), (double)host / (1 << 30), j->local_size);
            MPI_File_close(&f);
            return;
        }
        j->data = malloc(j->m ? j->m * j->rs : 1);
        if (!j->data || (j->m && j->m > SIZE_MAX / j->rs))
            dsort_fail(j, EXIT_DEVICE, "cannot allocate %llu bytes for this rank's %llu records "
                       "(a share larger than memory: run more ranks)",
                       (unsigned long long)(j->m * j->rs), (unsigned long long)j->m);
        else if (!dsort_injected(j, PH_READ))
            file_io(j, f, 0, j->lo * j->rs, j->data, j->m * j->rs);
    }
    MPI_File_close(&f);
}

/* The exit status of a library error, as clsort gives it: the usage's for a device string or a
 * combination the library refuses, the device's for the others. */
static int status_exit(clsort_status st)
{
    return st == CLSORT_ERROR_BAD_DEVICE_STRING || st == CLSORT_ERROR_UNSUPPORTED ||
                   st == CLSORT_ERROR_LIMIT
               ? EXIT_USAGE
               : EXIT_DEVICE;
}

/* The device of this rank: -d, else $CLSORT_DEVICE (the library reads it), else the host's GPUs
 * dealt out by local rank, else the library's default. */
static void pick_device(job *j, char *id, size_t cap)
{
    id[0] = '\0';
    if (j->a->device) {
        snprintf(id, cap, "%s", j->a->device);
        return;
    }
    const char *env = getenv("CLSORT_DEVICE");
    if (env && *env)
        return;
    clsort_device_info list[64];
    size_t count = 0;
    if (clsort_list_devices(list, 64, &count) != CLSORT_OK)
        return; /* clsort_open() reports it */
    size_t gpus[64], n_gpu = 0;
    for (size_t i = 0; i < count && i < 64; i++)
        if (strcmp(list[i].type, "GPU") == 0)
            gpus[n_gpu++] = i;
    if (n_gpu > 0)
        snprintf(id, cap, "%s", list[gpus[(size_t)j->local_rank % n_gpu]].id);
}

void dsort_local(job *j)
{
    char id[128];
    pick_device(j, id, sizeof id);
    clsort_status st = clsort_open(&j->ctx, id[0] ? id : NULL);
    if (st != CLSORT_OK) {
        dsort_fail(j, status_exit(st), "cannot open device %s: %s (%d) %s",
                   id[0] ? id : "(default)", clsort_status_string(st), st,
                   clsort_last_error_detail());
        return;
    }
    snprintf(j->device, sizeof j->device, "%s", clsort_device_name(j->ctx));
    if (dsort_injected(j, PH_SORT))
        return;
    j->ord = malloc((j->m ? j->m : 1) * sizeof *j->ord);
    j->pos = malloc((j->m ? j->m : 1) * sizeof *j->pos);
    if (!j->ord || !j->pos) {
        dsort_fail(j, EXIT_DEVICE, "cannot allocate the orders and positions of %llu records",
                   (unsigned long long)j->m);
        return;
    }
    /* stable, with each record's input position: the positions break ties between ranks */
    st = clsort_sort_records(j->ctx, &j->spec, j->data, j->m, j->rs, 0, 0, j->pos, NULL);
    if (st != CLSORT_OK) {
        dsort_fail(j, status_exit(st), "sort of %llu records on %s: %s (%d) %s",
                   (unsigned long long)j->m, j->device, clsort_status_string(st), st,
                   clsort_error_detail(j->ctx));
        return;
    }
    for (uint64_t i = 0; i < j->m; i++)
        j->pos[i] += j->lo;
    clsort_key_orders(&j->spec, j->data, j->rs, j->m, j->ord);
}

static int pair_cmp(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

void dsort_sample(job *j)
{
    const int p = j->size;
    /* Regular sampling of sorted slices: a rank's part exceeds n/p by at most about p/s of n/p
     * for s samples per rank, so 64 per rank keep it within 2%; the total is capped so that rank
     * 0's sort of them stays small at thousands of ranks. */
    uint64_t s = 64 * (uint64_t)p;
    const uint64_t cap = ((uint64_t)1 << 22) / (uint64_t)p;
    if (s > cap)
        s = cap > (uint64_t)p ? cap : (uint64_t)p;
    if (s > j->m)
        s = j->m;
    uint64_t *mine = malloc((s ? s : 1) * 2 * sizeof *mine);
    j->splitters = malloc((size_t)(p > 1 ? p - 1 : 1) * 2 * sizeof *j->splitters);
    int count = (int)(2 * s), *counts = NULL, *displs = NULL;
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
        for (uint64_t i = 0; i < s; i++) {
            uint64_t at = (uint64_t)(((unsigned __int128)(2 * i + 1) * j->m) / (2 * s));
            mine[2 * i] = j->ord[at];
            mine[2 * i + 1] = j->pos[at];
        }
        MPI_Gatherv(mine, count, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
                    MPI_COMM_WORLD);
        if (j->rank == 0) {
            /* the splitters cut the sorted sample into p equal parts; with no sample (fewer
             * records than ranks... none at all) every record goes to rank 0 */
            const uint64_t ns = total / 2;
            qsort(all, ns, 2 * sizeof *all, pair_cmp);
            for (int k = 1; k < p; k++) {
                uint64_t at = ns * (uint64_t)k / (uint64_t)p;
                j->splitters[2 * (k - 1)] = ns ? all[2 * at] : UINT64_MAX;
                j->splitters[2 * (k - 1) + 1] = ns ? all[2 * at + 1] : UINT64_MAX;
            }
        }
        if (p > 1)
            MPI_Bcast(j->splitters, 2 * (p - 1), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    }
    free(mine);
    free(counts);
    free(displs);
    free(all);
}

/* Rank 0: a new, empty temporary file beside the output, with the mode the output will have. */
static void make_temp(job *j)
{
    const char *out = j->a->output, *slash = strrchr(out, '/');
    struct stat st;
    mode_t mode;
    if (stat(out, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            dsort_fail(j, EXIT_USAGE, "%s: not a regular file (the output is renamed into place)",
                       out);
            return;
        }
        mode = st.st_mode & 07777; /* a replaced file keeps its mode */
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    int len = slash ? (int)(slash - out) + 1 : 0;
    if (snprintf(j->tmp, sizeof j->tmp, "%.*s.%s.clsort-mpi-XXXXXX", len, out,
                 slash ? slash + 1 : out) >= (int)sizeof j->tmp) {
        j->tmp[0] = '\0';
        dsort_fail(j, EXIT_USAGE, "%s: the output's name is too long", out);
        return;
    }
    int fd = mkstemp(j->tmp);
    if (fd < 0) {
        dsort_fail(j, EXIT_IO, "cannot create a temporary file in %s%.*s: %s", len ? "" : "./",
                   len ? len : 0, out, strerror(errno));
        j->tmp[0] = '\0';
        return;
    }
    if (fchmod(fd, mode) != 0)
        dsort_fail(j, EXIT_IO, "%s: cannot set its mode: %s", j->tmp, strerror(errno));
    close(fd);
}

int dsort_write(job *j)
{
    uint64_t first = 0;
    MPI_Exscan(&j->out_n, &first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (j->rank == 0) {
        first = 0; /* MPI_Exscan leaves rank 0's result undefined */
        make_temp(j);
    }
    MPI_Bcast(j->tmp, (int)sizeof j->tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    int code = dsort_agree(j);
    if (code)
        return code;
    MPI_File f;
    char text[MPI_MAX_ERROR_STRING];
    int rc = MPI_File_open(MPI_COMM_WORLD, j->tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
    if (rc != MPI_SUCCESS) {
        dsort_fail(j, EXIT_IO, "%s: cannot open for writing: %s", j->tmp, mpi_error_text(rc, text));
    } else {
        if (!dsort_injected(j, PH_WRITE))
            file_io(j, f, 1, first * j->rs, j->out, j->out_n * j->rs);
        rc = MPI_File_close(&f);
        if (rc != MPI_SUCCESS)
            dsort_fail(j, EXIT_IO, "%s: cannot close: %s", j->tmp, mpi_error_text(rc, text));
    }
    if ((code = dsort_agree(j)))
        return code;
    /* every rank wrote its part: only now does the output appear, whole */
    if (j->rank == 0) {
        if (rename(j->tmp, j->a->output) != 0)
            dsort_fail(j, EXIT_IO, "cannot rename %s to %s: %s", j->tmp, j->a->output,
                       strerror(errno));
        else
            j->tmp[0] = '\0';
    }
    return dsort_agree(j);
}
