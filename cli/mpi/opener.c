/*
 * The rank's memory budget (dsort_plan, before any work; dsort_sort_need, what a sort takes of it)
 * and its device (dsort_open), opened by the main thread while the rank's threads read its slice
 * (fileio.c): on four H200s a rank's device took 1.5-2 s to open. The device's side stays on the
 * main thread: the OpenCL compiler of a CPU device (LLVM in PoCL) gives the thread that first calls
 * it a signal stack of its own, which a thread that then ends cannot give back under
 * AddressSanitizer.
 */
#include "dsort.h"
#include "msettings.h"
#include "cli.h"

#include <mpi.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The device of this rank: -d, else $CLSORT_DEVICE (the library reads it), else the host's GPUs
 * dealt out by local rank, else the library's default. */
static void pick_device(const job *j, char *id, size_t cap)
{
    id[0] = '\0';
    if (j->a->device) {
        snprintf(id, cap, "%s", j->a->device);
        return;
    }
    if (msettings()->device_set)
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

/* -S as clsort applies it: the memory for the rank's data, what the process holds besides (the
 * OpenCL driver, MPI, the programs) not counted. Without -S, half of physical memory (the library's
 * default) shared by the host's ranks. Returns the budget in bytes (0 after a failure). */
static uint64_t plan_budget(job *j)
{
    const uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t budget = j->a->buffer_size;
    if (j->a->buffer_percent && !phys) {
        dsort_fail(j, EXIT_USAGE, "-S %u%%: this system does not say how much memory it has; "
                   "give a size", j->a->buffer_percent);
        return 0;
    }
    if (j->a->buffer_percent)
        budget = phys / 100 * j->a->buffer_percent;
    else if (!budget)
        budget = phys ? phys / 2 / (uint64_t)(j->local_size > 0 ? j->local_size : 1) : 1u << 30;
    return budget;
}

/* Every rank's least -S agreed (a collective: each rank calls it once): a budget below the largest
 * is refused on every rank with the figure that suffices for all of them, since ranks may hold
 * different amounts and naming one rank's least sent users from one refusal to the next. */
static void report_least(job *j, uint64_t budget, uint64_t least)
{
    unsigned long long mine = least, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (j->code)
        return;
    if (budget < most) {
        dsort_fail(j, EXIT_USAGE, "-S %.2f MiB is too small: the ranks need a few MiB for the data; "
                   "give at least -S %lluMi", (double)budget / 1048576,
                   (most + (1u << 20) - 1) >> 20);
        return;
    }
    j->budget = budget;
}

void dsort_plan(job *j)
{
    const uint64_t budget = plan_budget(j);
    report_least(j, budget, j->code ? 0 : (uint64_t)4 << 20);
    /* before the slices are made: where the ranks can read each other's memory they stay malloc'd */
    shm_probe(j);
}

void dsort_open(job *j)
{
    char id[128];
    pick_device(j, id, sizeof id);
    /* --merge host: the engine merges its runs on the host's threads */
    static const clsort_setting host_merge[] = {{"device_merge", "0"}};
    clsort_status st = clsort_open_with_settings(&j->ctx, id[0] ? id : NULL, host_merge,
                                                 j->a->merge == MERGE_HOST ? 1 : 0);
    j->opened = 1;
    if (st != CLSORT_OK) {
        dsort_fail(j, dsort_status_exit(st), "cannot open device %s: %s (%d) %s",
                   id[0] ? id : "(default)", clsort_status_string(st), st,
                   clsort_last_error_detail());
        return;
    }
    snprintf(j->device, sizeof j->device, "%s", clsort_device_name(j->ctx));
    clsort_spec spec = j->spec;
    spec.value_size = j->a->value_size;
    st = clsort_reserve(j->ctx, &spec, 1024);
    if (st != CLSORT_OK)
        dsort_fail(j, dsort_status_exit(st), "cannot prepare %s: %s (%d) %s", j->device,
                   clsort_status_string(st), st, clsort_error_detail(j->ctx));
}

unsigned __int128 dsort_sort_need(const job *j, uint64_t n)
{
    const unsigned __int128 bytes = (unsigned __int128)n * j->rs;
    /* before the device is open (the read decides while it opens): the most the library pins,
     * its two 32 MiB slots */
    const size_t staging =
        j->opened ? clsort_staging_bytes(j->ctx, bytes == (size_t)bytes ? (size_t)bytes : SIZE_MAX)
                  : (size_t)64 << 20;
    if (j->opened && n <= SIZE_MAX) { /* the library's own figure: on a GPU, records are gathered
                                         there and take no more host memory than themselves */
        const size_t more = clsort_records_host_bytes(j->ctx, &j->spec, (size_t)n, j->rs, 0, 0);
        if (more != SIZE_MAX)
            return bytes + more + staging;
    }
    const unsigned width = 8 * (unsigned)clsort_key_type_size(j->spec.key_type);
    if (!j->a->value_size && !j->spec.begin_bit && (!j->spec.end_bit || j->spec.end_bit == width))
        return bytes + staging; /* keys on all their bits: sorted in place */
    if (!j->a->value_size)
        return bytes + (unsigned __int128)n * 8 + staging; /* and their positions */
    /* records: a gathered copy, the keys and a permutation (the host's way, the most it takes) */
    return (unsigned __int128)n * (2 * j->rs + 32) + staging;
}
