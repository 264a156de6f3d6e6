/*
 * clsort-mpi's environment (see msettings.h): the only getenv() of cli/mpi.
 */
#include "msettings.h"

#include <stdlib.h>

static mpi_settings current;

/* The variable's value, NULL when it is unset or empty. */
static const char *value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void msettings_load(void)
{
    current.fail_rank = value("CLSORT_MPI_FAIL_RANK");
    current.piece_bytes = value("CLSORT_MPI_PIECE_BYTES");
    current.test_stop = value("CLSORT_MPI_TEST_STOP");
    current.test_named = value("CLSORT_MPI_TEST_NAMED");
    current.local = value("CLSORT_MPI_LOCAL");
    current.shared = value("CLSORT_MPI_SHARED");
    current.merge_segment = value("CLSORT_MPI_MERGE_SEGMENT");
    current.runs = value("CLSORT_MPI_RUNS");
    current.device_set = value("CLSORT_DEVICE") != NULL;
    current.tmpdir = value("TMPDIR");
}

const mpi_settings *msettings(void)
{
    return &current;
}
