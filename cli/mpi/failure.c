/*
 * A rank's own errors, below every step (see dsort.h): the first failure recorded with its message,
 * failures injected by the tests, the exit status of a library error. dsort_agree() (dsort.c) then makes every rank know the first one.
 */
#include "dsort.h"
#include "msignals.h"
#include "cli.h"

#include <mpi.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void dsort_launcher_gone(job *j)
{
    dsort_fail(j, 128 + SIGHUP, "the process that started this rank (pid %ld, mpirun or its "
               "daemon) has ended: the output is not replaced", msig_launcher());
}

void dsort_test_stop(job *j, int point)
{
    if (j->stop_rank == j->rank && j->stop_at == point)
        raise(SIGSTOP);
}

const char *dsort_mpi_error_text(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

/* The exit status of a library error, as clsort gives it: the usage's for a device string or a
 * combination the library refuses, the device's for the others. */
int dsort_status_exit(clsort_status st)
{
    return st == CLSORT_ERROR_BAD_DEVICE_STRING || st == CLSORT_ERROR_UNSUPPORTED ||
                   st == CLSORT_ERROR_LIMIT
               ? EXIT_USAGE
               : EXIT_DEVICE;
}

void dsort_device_times(job *j, int which, const clsort_stats *stats)
{
    j->device_ms[which][0] += stats->kernel_ms;
    j->device_ms[which][1] += stats->upload_ms;
    j->device_ms[which][2] += stats->download_ms;
}
