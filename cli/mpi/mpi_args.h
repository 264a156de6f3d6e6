/*
 * clsort-mpi: its options (mpi_args.c), its messages, and the steps of the distributed sort
 * (dsort.c). Every rank parses the same command line; only rank 0 prints what parsing finds.
 */
#ifndef CLSORT_MPI_ARGS_H
#define CLSORT_MPI_ARGS_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

enum { MPI_MAX_TEMP_DIRS = 16 };
/* --io: POSIX where every rank is on one host (auto), always, or MPI-IO always */
enum { MPI_IO_AUTO, MPI_IO_POSIX, MPI_IO_MPI };

typedef struct mpi_args {
    const char *input;       /* -i */
    const char *output;      /* -o */
    const char *device;      /* -d; NULL: $CLSORT_DEVICE, else a device by local rank */
    clsort_key_type type;    /* -t, --type */
    size_t value_size;       /* --value-size, or 4 with --kv; 0: keys only */
    int descending;          /* -r, --desc */
    unsigned begin_bit, end_bit; /* --bits B:E; 0, 0: every bit */
    int stats;               /* --stats */
    unsigned parallel;       /* --parallel N: host threads; 0: the host's cores over its ranks */
    int merge;               /* --merge: MERGE_AUTO, MERGE_PIECES, MERGE_DEVICE or MERGE_HOST */
    int io;                  /* --io: MPI_IO_AUTO, MPI_IO_POSIX or MPI_IO_MPI */
    uint64_t buffer_size;    /* -S SIZE in bytes; 0: the default (or buffer_percent) */
    unsigned buffer_percent; /* -S N%: of physical memory */
    const char *temp_dirs[MPI_MAX_TEMP_DIRS]; /* -T DIR, repeatable; none: $TMPDIR, else /tmp */
    unsigned n_temp_dirs;
} mpi_args;

/* --merge: where a rank merges the pieces it receives. pieces: on its threads, from where they lie
 * (hmerge.c); device: by a stable sort on the engine, its runs merged on the device; host: the same
 * sort, its runs merged on the host's threads (the engine's setting device_merge=0); auto: pieces
 * where they lie in memory the rank can read and there are two ranks, or beyond the budget, else
 * device. */
enum { MERGE_AUTO, MERGE_PIECES, MERGE_DEVICE, MERGE_HOST };

/* -1 to go on, or an exit status to end with (after --help, --version or an error). */
int parse_mpi_args(int argc, char **argv, mpi_args *a);

/* Bytes of one record: the key and its value. */
size_t mpi_record_size(const mpi_args *a);

/* This process's rank. Messages go through clsort's cli/base/msg.c (msg_error(), msg_sanitize()):
 * prefixed "clsort-mpi: ", printed by rank 0 alone (mpi_messages()). */
extern int g_mpi_rank;
void mpi_messages(int rank);
/* msg.c's program name and silence (defined there) */
extern const char *g_msg_program;
extern int g_msg_silent;

#endif
