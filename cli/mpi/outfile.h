/*
 * clsort-mpi's output, handled as clsort handles its own (cli/io/output.c): symbolic links at the end
 * of -o followed (the file they point to is replaced, under the kernel's rule for links in sticky
 * world-writable directories), the replaced file's owner, group, mode and extended attributes kept,
 * the new file synced before it replaces an old one, and what is there at the commit checked to be
 * the file that was there at the start. Rank 0 alone calls these; dsort_write() runs the steps.
 * The temporary file: rank 0 opens it with no name (O_TMPFILE) when the run starts; where every rank
 * is on rank 0's host and can open it as /proc/PID/fd/N (checked to be the same file), the ranks
 * write it so, and it gets a name only for the rename, with signals held off, so that nothing is
 * left behind however a rank ends. Else (ranks on several hosts, or no O_TMPFILE) the ranks write a
 * named ".NAME.clsort-mpi-XXXXXXXX" beside the output, which every failure path and a signal to rank 0
 * remove; a SIGKILL or a crash of rank 0 while it exists can leave it.
 */
#ifndef CLSORT_MPI_OUTFILE_H
#define CLSORT_MPI_OUTFILE_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

struct job;

typedef struct mpi_output {
    int dirfd;            /* the directory of the file replaced (links followed); -1 none */
    char dir[PATH_MAX];   /* its path, for messages and for the ranks to open the named file */
    char base[256];       /* the file's name in it */
    int exists;           /* a file is replaced (else one is created) */
    struct stat old;      /* what was there at the start */
    int old_fd;           /* O_PATH of it, for its extended attributes; -1 none */
    mode_t mode;          /* the new file's mode */
    int fd;               /* rank 0's descriptor of the temporary file; -1 none */
    int nameless;         /* fd has no name (O_TMPFILE) */
    char temp[256];       /* its name in dir, "" while it has none */
    int slot;             /* that name's slot in the signal table; -1 none */
    char path[PATH_MAX + 512]; /* what the ranks open: /proc/PID/fd/N, or dir/temp */
} mpi_output;

/* Rank 0, before any work: the output resolved and checked, and the nameless temporary file opened
 * where the file system has them. Records an error (dsort_fail). */
void mout_open(struct job *j);
/* Rank 0, before the read: the output's file system checked to have room for bytes (the old file
 * stays until the new one replaces it). Records an error. */
void mout_check_room(struct job *j, uint64_t bytes);
/* Rank 0, at the write: o->path set to what the ranks open: the nameless file (shared: every rank
 * is on this host), else a named one, created now. Records an error. */
void mout_prepare(struct job *j, int shared);
/* Rank 0: the nameless file given its temporary name, for ranks that cannot open it by /proc. */
void mout_name(struct job *j);
/* Rank 0, once every rank closed the file: owner, group, mode and extended attributes kept, and
 * the file synced when it replaces one. Records an error. */
void mout_finish(struct job *j);
/* Rank 0, once every rank agreed: the file put in place. Records an error. */
void mout_commit(struct job *j);
/* Rank 0: the temporary file removed (if it has a name) and closed; safe to call twice. */
void mout_close(struct job *j);

#endif
