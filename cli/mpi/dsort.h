/*
 * The distributed sample sort of clsort-mpi, one step per function, each run by every rank:
 *   dsort_plan      the rank's memory budget (-S), agreed before any work (opener.c)
 *   dsort_open      the rank's device (opener.c), opened while the rank's threads read the slice
 *   dsort_read      each rank's contiguous slice of the input (fileio.c: POSIX or MPI-IO)
 *   dsort_local     the slice sorted on the rank's device (stable); with CLSORT_MPI_LOCAL=stream
 *                   the slice is read here, streamed from the input through the device (engine.c)
 *   dsort_sample    splitters from a regular sample of every rank's sorted slice
 *   dsort_exchange  the slices cut at the splitters and sent to their ranks (exchange.c)
 *   dsort_merge     the received pieces merged at the write, straight into the output: on the
 *                   rank's threads from where they lie (hmerge.c), or, from a file of received
 *                   messages or with --merge device|host, by a stable clsort_sort_stream() of
 *                   them in rank order (engine.c)
 *   dsort_write     each rank's part written at its offset into a temporary file (outfile.h), put
 *                   in place by rank 0 once every rank voted for it
 * Records compare as (clsort_key_order(), input position). A rank's sorted slice is stable, so a
 * record's (order, rank, index in the sorted slice) compares the same way and needs no positions:
 * that triple is what the sample and the splitters carry.
 * A slice larger than the budget is sorted in runs into a nameless file: by the rank itself where
 * they are few (runs.c), each run then a piece of its own, cut at the splitters; else by the
 * library's engine, clsort_sort_stream() (engine.c), merged into one sorted run. It is sampled and
 * cut from there (on one host each rank maps the stretch of every rank's file that holds its
 * pieces; else the pieces are sent). Where the received pieces are not merged on the
 * threads (hmerge.c), a stable sort of them in rank order is their merge, from memory, the
 * senders' files or, beyond the budget, a nameless file of what was sent, straight into the
 * output at the rank's offset (each merged chunk written while the next one downloads).
 * A step that fails on a rank records its message (dsort_fail); dsort_agree() after each step tells
 * every rank whether any failed, so that all stop together.
 */
#ifndef CLSORT_DSORT_H
#define CLSORT_DSORT_H

#include "mpi_args.h"
#include "outfile.h"

#include <mpi.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* job.merge_threads of a merge by a stable sort on the device (one device sort of the pieces, or
 * the engine's runs merged on the device) */
#define MERGED_ON_DEVICE UINT_MAX

/* job.shared: CLSORT_MPI_SHARED=0, 1 (the default), map (memory files even where the ranks can
 * read each other's memory: testing, measuring) */
enum { SHARED_NONE, SHARED_AUTO, SHARED_MAP };

enum { PH_READ, PH_SORT, PH_SAMPLE, PH_EXCHANGE, PH_MERGE, PH_WRITE, N_PHASES };
/* Testing (CLSORT_MPI_TEST_STOP): where a rank may stop itself, besides a phase's start: its part
 * written and the temporary file closed, before the vote; and in the commit (rank 0: signals held,
 * just before the rename; another rank: once the vote passed). */
enum { STOP_WRITTEN = N_PHASES, STOP_COMMIT, N_STOPS };

/* A sorted piece this rank merges, where it lies: n records at `at`, in this address space, or,
 * where pid is not 0, in that process's (read by process_vm_readv()). */
typedef struct src_piece {
    int rank;
    int pid;
    const unsigned char *at;
    uint64_t n;
} src_piece;

typedef struct job {
    const mpi_args *a;
    int rank, size, local_rank, local_size; /* local: the ranks of this host */
    size_t rs;                 /* bytes of a record */
    clsort_spec spec;
    uint64_t n;                /* records in the input */
    uint64_t lo, m;            /* this rank's slice: records lo .. lo + m - 1 */
    unsigned char *data;       /* the slice, sorted in place by dsort_local (NULL: ext_local) */
    uint64_t *splitters;       /* size - 1 triples (order, rank, index in its sorted slice) */
    uint64_t *send_n, *recv_n; /* records to and from each rank */
    unsigned char *recv;       /* the received pieces, in rank order */
    uint64_t recv_total;
    unsigned char *out;        /* this rank's part of the output (may be recv itself) */
    uint64_t out_n;
    uint64_t piece_bytes;      /* largest message of the exchange and the file I/O */
    unsigned threads;          /* --parallel, else the host's online cores over its ranks */
    int posix_io;              /* the input and output by pread()/pwrite(), not MPI-IO (--io) */
    int in_fd, out_fd;         /* posix_io: while a part is read or written; else -1 */
    unsigned merge_threads;    /* the host threads that merged the engine's runs (--merge host);
                                  MERGED_ON_DEVICE; 0: one piece, no merge */
    uint64_t budget;           /* bytes of records this rank may hold */
    int ext_local;             /* the slice sorted in runs, into the file sorted_fd */
    int local_read;            /* a slice within the budget read, then sorted in memory (the
                                  default); CLSORT_MPI_LOCAL=stream: streamed through the device */
    int partition_wanted;      /* CLSORT_MPI_LOCAL=partition */
    int partitioned;           /* the slices partitioned, not sorted, before the exchange
                                  (partition.c; agreed by every rank) */
    int local_stream;          /* the slice streamed from the input through the device into data
                                  (read and local sort in one) */
    int ext_recv;              /* the received pieces in the file recv_fd, merged into the output
                                  (else in memory, merged in place) */
    int merge_at_write;        /* the received pieces (in memory) merged at the write, straight
                                  into the output */
    int sorted_fd, recv_fd;    /* nameless temporary files, -1 when none */
    const char *sorted_dir, *recv_dir; /* their directories */
    unsigned next_dir;         /* the -T directory for the next temporary file */
    int shared;                /* SHARED_*: on one host, memory shared in place of messages and
                                  pwrite() where every rank can (shared.c); CLSORT_MPI_SHARED */
    int read_peers;            /* every rank can read the others' memory (process_vm_readv) */
    int slice_fd;              /* the slice's memory file (shared.c), -1 when malloc'd */
    uint64_t slice_bytes;
    unsigned char **peer_map;  /* shared exchange: the stretch of each rank's slice file that holds
                                  this rank's piece, mapped (none for its own memory) */
    uint64_t *peer_bytes;
    src_piece *src;            /* shared exchange: the sorted pieces this rank merges, where they
                                  lie, in (sending rank, run) order; NULL: they came by messages */
    int n_src;
    unsigned n_runs;           /* sorted runs of the slice: 1, or beyond the budget those this rank
                                  sorted itself into sorted_fd (runs.c), each a piece */
    int own_runs;              /* the runs are this rank's own (runs.c), not the engine's one */
    uint64_t *run_cut;         /* n_runs x (size + 1): where each destination's piece starts in each
                                  run (records of the slice), the run's end last */
    int pieces_unsorted;       /* what one rank sent is not one sorted piece (its runs, sent by
                                  messages one after the other): merged by the engine's sort */
    unsigned char *out_base, *out_map; /* the mapped output: the map, and this rank's part in it */
    uint64_t out_base_bytes;
    int out_mapped;            /* the output was written through out_map (for --stats) */
    int merge_faults_in;       /* the merge on the threads (hmerge.c) faults in each segment's
                                  stretch of out_map as it takes it: no fault-in in the background */
    uint64_t merge_segment;    /* --merge pieces: the least records of a thread's segment (4096;
                                  CLSORT_MPI_MERGE_SEGMENT, testing) */
    double merge_ms;           /* ext_recv: the merge's part of the write phase */
    unsigned runs_spilled;     /* runs the external sorts wrote to temporary files */
    clsort_context *ctx;
    char device[128];
    int opened;                /* dsort_open() has run (ctx may be asked) */
    struct io_async *reading;  /* the slice's read on threads, until dsort_read_end() */
    mpi_output dest;           /* rank 0: the output and its temporary file */
    double ms[N_PHASES];
    double open_ms;            /* the device's open (in the read and the local sort) */
    double device_ms[2][3];    /* the local sort's and the device merge's kernels, upload, download */
    int fail_rank;             /* testing: this rank fails at fail_phase (-1: none) */
    int fail_phase;
    int stop_rank;             /* testing: this rank stops itself (SIGSTOP) at stop_at (-1: none) */
    int stop_at;               /* a phase, STOP_WRITTEN or STOP_COMMIT */
    int named_temp;            /* testing: a named temporary output, as ranks on several hosts get */
    int code;                  /* this rank's first error (an exit status), 0 for none */
    char err[1024];
    int stopped;               /* the ranks agreed that one failed */
} job;

/* Record this rank's first error: its exit status and message. */
void dsort_fail(job *j, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Collective: 0 when no rank failed; else the first failing rank's status, its message printed by
 * rank 0 and the temporary output removed. A rank ended by a signal never reaches it: no rank
 * passes it then (they are ended by mpirun). */
int dsort_agree(job *j);
/* Testing: whether this rank is to fail at this phase (CLSORT_MPI_FAIL_RANK); records the error. */
int dsort_injected(job *j, int phase);
/* Records that the rank's parent (mpirun, its daemon) has ended: status 128 + SIGHUP. */
void dsort_launcher_gone(job *j);
/* Testing: this rank stops itself (SIGSTOP) if CLSORT_MPI_TEST_STOP names it and this point. */
void dsort_test_stop(job *j, int point);

/* MPI's text of an error code, in buf (MPI_MAX_ERROR_STRING bytes). */
const char *dsort_mpi_error_text(int rc, char *buf);
/* fileio.c: reads or writes len bytes at off of the input or the output: by pread()/pwrite() on
 * the rank's threads where its file descriptor is open (in_fd, out_fd), else of the MPI file f in
 * pieces of at most piece_bytes; 0 or -1 with the error recorded (name: the file's, for it). */
int dsort_file_io(job *j, MPI_File f, const char *name, int write, uint64_t off,
                  unsigned char *buf, uint64_t len);
/* The read of len bytes at off of in_fd into buf, started on the rank's threads (returns at once;
 * dsort_read_end() waits and closes in_fd); 0, or -1 with the error recorded (read in this thread
 * then, where no thread could start: 0). */
int dsort_read_begin(job *j, const char *name, uint64_t off, unsigned char *buf, uint64_t len);
/* A read of len bytes at off of in_fd into buf started on the rank's threads, or, where it could
 * not start, done now (NULL); dsort_pread_end() waits for it: 0, or -1 with the error recorded
 * (name: the file's, for it). */
struct io_async *dsort_pread_begin(job *j, const char *name, uint64_t off, unsigned char *buf,
                                   uint64_t len);
int dsort_pread_end(job *j, struct io_async *io);
/* With posix_io: path opened for reading (in_fd) or writing (out_fd); 0, or -1 with the error
 * recorded. Without, nothing (0). */
int dsort_posix_open(job *j, const char *path, int write);
/* That descriptor closed (an error closing the output recorded). */
void dsort_posix_close(job *j, const char *name, int write);
/* Exit status of a library error, as clsort gives it. */
int dsort_status_exit(clsort_status st);

/* opener.c: host bytes a clsort_sort_records() of n of this job's records takes at its peak, the records
 * included: the library's pinned staging slots, and, once the device is open, what the library
 * says it takes besides (clsort_records_host_bytes()); before, the most it may take: unless the
 * records are keys sorted on every bit (sorted in place), positions, or a gathered copy, keys and
 * a permutation. */
unsigned __int128 dsort_sort_need(const job *j, uint64_t n);
/* Add a device sort's kernel and transfer times to a phase's (which: 0 the local sort, 1 the
 * merge). */
void dsort_device_times(job *j, int which, const clsort_stats *stats);

/* Collective: the budget from -S (or the default), refused on every rank where too small. */
void dsort_plan(job *j);
/* The device, its programs for the spec; no MPI call. */
void dsort_open(job *j);
/* The read of the slice that dsort_read() left to threads (POSIX I/O) waited for, the input
 * closed; its error recorded. Every path after dsort_read() passes it. */
void dsort_read_end(job *j);
void dsort_read(job *j);
void dsort_local(job *j);
void dsort_sample(job *j);
void dsort_exchange(job *j);
void dsort_merge(job *j);
/* Returns once the output is in place, or with the error recorded; collective inside. */
int dsort_write(job *j);

/* shared.c: where every rank is on one host (POSIX I/O), memory shared in place of messages */
/* Collective, before the read: read_peers set where every rank can read every other's memory. */
void shm_probe(job *j);
/* A slice of `bytes` in a memory file the other ranks can map (sets slice_fd), or NULL where
 * not on one host, one rank, read_peers, CLSORT_MPI_SHARED=0, or the system says no (then malloc
 * it). */
unsigned char *shm_slice(job *j, size_t bytes);
/* The slice freed or unmapped, as it was made. */
void shm_release_slice(job *j);
/* Collective, once the run tables (run_cut) are known: every rank's slice mapped by every other
 * (where every slice was sorted into its file beyond the budget: the stretch of each file that
 * holds this rank's pieces, whatever the budget) or read where it lies, src[] set; 1, or 0 where
 * any rank cannot (its slice not shared, not `within_budget`): send messages. */
int shm_exchange(job *j, int within_budget);
/* Records [at, at + n) of the received pieces, in src[] order, copied to dst; 0, or -1 with the
 * error recorded. */
int shm_copy_received(job *j, unsigned char *dst, uint64_t at, size_t n);
/* Records [at, at + n) of piece s of src[] copied to dst, in this thread: 0 or an errno value
 * (nothing recorded: a thread of the merge may call it). */
int shm_read_piece(const job *j, int s, void *dst, uint64_t at, size_t n);
/* The received pieces (one, or none: nothing to merge) written into the output at record
 * `first`. */
void shm_write_received(job *j, MPI_File f, const char *name, uint64_t first);
/* Collective, at the write: the output's temporary file given its size (fallocate) and this rank's
 * part from record `first` mapped and faulted in (out_map); 1, or 0 where any rank cannot (then
 * write it with pwrite()). No room for the file is recorded as an error. */
int shm_map_output(job *j, uint64_t first);
/* n records at record `at` of this rank's part of the output, which starts at record `first`:
 * copied into its map on the rank's threads (shm_map_output), else written by dsort_file_io(); 0
 * or -1 with the error recorded. */
int shm_put_output(job *j, MPI_File f, const char *name, uint64_t first, uint64_t at,
                   const void *src, uint64_t n);
void shm_unmap_output(job *j);

/* partition.c: the slices partitioned by the splitters in place of sorted (CLSORT_MPI_LOCAL) */
/* Collective, at the local sort: partitioned set where every rank's slice and a copy fit. */
void dsort_choose_partition(job *j);
/* s (order, 0, input position) triples of records at random places of the unsorted slice. */
uint64_t dsort_partition_sample(job *j, uint64_t s, uint64_t *out);
/* The slice moved into a copy in destination order, each destination's records in input order,
 * on the rank's threads: send_n and sdisp set, the copy now data. */
void dsort_partition(job *j, uint64_t *sdisp);

/* runs.c: a slice beyond the budget sorted by its rank in a few runs, each a piece */
/* Runs of the slice, each within the budget: 0 where more than the most (32; CLSORT_MPI_RUNS) or
 * none fits (then the engine sorts it, ext_sort_slice()). */
unsigned runs_plan(job *j);
/* The slice sorted in that many runs into sorted_fd; n_runs and each run's bounds in run_cut.
 * Returns 1 (done, or the error recorded), or 0 where the file system cannot give the file its
 * room at once: then sort it with ext_sort_slice(). */
int runs_sort(job *j, unsigned runs);
/* clsort_key_order() of record i of the sorted slice, in memory or in sorted_fd (0 after a read
 * error, which is recorded). */
uint64_t dsort_order_at(job *j, uint64_t i);
/* Each run of run_cut cut at the splitters. */
void runs_cut(job *j);
/* Bytes [off, off + len) of rank to's pieces of every run, one after the other, from sorted_fd
 * into buf; 0, or -1 with the error recorded. */
int runs_read_piece(job *j, int to, uint64_t off, unsigned char *buf, size_t len);

/* hmerge.c: the received pieces merged on the rank's threads (--merge pieces) */
/* Whether the pieces lie where this rank's threads can read them: memory, the senders' memory or
 * their files mapped (not a file of received messages), sorted (not partitioned). */
int hmerge_possible(const job *j);
/* The pieces merged by (order, sending rank) into f (name: for messages) from record `first` on:
 * into the output's map where it is mapped, else a buffer of at most 32 MiB a thread at a time. */
void hmerge_into(job *j, MPI_File f, const char *name, uint64_t first);

/* engine.c: temporary files, and the sorts on clsort_sort_stream() */
/* A nameless file in the next -T directory (into *dir) for `bytes` of `what`, the directory's free
 * space checked first; or -1 with the error recorded. */
int ext_temp(job *j, const char *what, uint64_t bytes, const char **dir);
/* All of len bytes at off of a temporary file; 0, or -1 with the error recorded. */
int ext_pread(job *j, int fd, void *buf, size_t len, uint64_t off);
int ext_pwrite(job *j, int fd, const void *buf, size_t len, uint64_t off);
/* The slice sorted by clsort_sort_stream() into sorted_fd. */
void ext_sort_slice(job *j);
/* The slice streamed by clsort_sort_stream() from the input into data (local_stream). */
void ext_sort_read(job *j);
/* The received pieces (in recv_fd, or in memory with merge_at_write) merged into f (name: for
 * messages) from record `first` on. */
void ext_merge_into(job *j, MPI_File f, const char *name, uint64_t first);
/* Whether the write's merge runs on the rank's threads (hmerge.c), not on the engine. */
int ext_merge_on_threads(const job *j);

#endif
