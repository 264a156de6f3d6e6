/*
 * clsort-mpi's signals: SIGINT, SIGTERM, SIGHUP and SIGPIPE end a rank with 128 + N, its temporary
 * output name removed first (a signal ignored when the rank started stays ignored). They are blocked
 * in every thread before MPI or the device starts any, and one thread takes them with sigwait(): the
 * handlers that the OpenCL compiler (LLVM) installs never see them, and they delayed a rank's end by
 * seconds, long enough for it to rename its output after mpirun had returned.
 * A rank that takes a signal ends at once, so it never votes for the commit (dsort_write), and no
 * rank can pass the vote without it; a signal that came while the rank went on to vote (the signal
 * thread had not run yet, or the rank was stopped) makes it vote no (msig_taken). The commit's rename runs with signals held off (msig_hold): a
 * signal lands before it, and removes the temporary file, or after it.
 * mpirun (Open MPI's ORTE and PRRTE, PMIx) ends a job by sending each rank SIGCONT, then SIGTERM a
 * second later (odls_base_sigkill_timeout), then SIGKILL; ranks that went on for that second put a
 * new output in place after mpirun had been told to stop. So a SIGCONT from the rank's parent (mpirun
 * or its daemon) is noted, and the vote and the rename wait until 3 s have passed since the last
 * one: the SIGTERM that follows ends the rank first; after a stop and resume, the commit is only
 * later. A rank whose parent has ended does not commit at all.
 */
#ifndef CLSORT_MPI_SIGNALS_H
#define CLSORT_MPI_SIGNALS_H

/* Block the signals in this thread (and so in every thread created after it) and start the thread
 * that takes them. Call first, before MPI_Init(). Returns 0, or -1 when no thread could be started
 * (the signals are then left as they were). */
int msig_install(void);

/* The temporary names a signal removes: tempnames_add() and tempnames_drop() (cli/io/tempnames.h),
 * the table clsort's signals use too. */

/* Returns once the signal thread has taken every signal sent to the rank before the call (a
 * real-time marker, SIGRTMAX, is sent and waited for: see msignals.c). */
void msig_sync(void);
/* The signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE) that is ending the rank: taken by the signal thread
 * or pending; 0 when none. */
int msig_taken(void);

/* Waits until 3 s have passed since the last SIGCONT from the rank's parent, every signal sent
 * before each look taken first (msig_sync); returns at once when none came, or when a signal is
 * ending the rank. */
void msig_wait_launcher_quiet(void);
/* Whether a SIGCONT from the parent, as the signal thread has noted them, came less than 3 s ago. */
int msig_launcher_recent(void);
/* The rank's parent when it started (mpirun or its daemon), and whether it has ended since. */
long msig_launcher(void);
int msig_launcher_gone(void);

/* Hold signals off (a signal that arrives meanwhile ends the rank at msig_release()). Recursive. */
void msig_hold(void);
void msig_release(void);

#endif
