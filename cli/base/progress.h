/*
 * A progress line on stderr, for work that takes a while.
 *
 * It is drawn only when stderr is a terminal, messages are not turned off (-q, --no-progress) and the job
 * has been running for more than a second; it is redrawn at most ten times a second by a thread of its
 * own, and cleared when the job ends, before any message and when a signal ends clsort.
 */
#ifndef CLSORT_PROGRESS_H
#define CLSORT_PROGRESS_H

#include <stdint.h>

/* Start timing a job; draw its progress if enabled (stderr a terminal, not quiet, not --no-progress). */
void progress_start(int enabled);
/* A new phase: its name ("read", "sort", "write") and its size in bytes (0: not known in advance). */
void progress_phase(const char *name, uint64_t total);
/* The phase has done delta more bytes (callable from the main thread only). */
void progress_add(uint64_t delta);
/* The phase has done this many bytes in all (callable from the main thread only). */
void progress_set(uint64_t done);
/* End the job: stop drawing and clear the line. Safe to call when nothing was started. */
void progress_end(void);
/* Clear the line now (it is drawn again at the next update); for messages. */
void progress_hide(void);
/* Clear the line from a signal handler (async-signal-safe). */
void progress_signal_clear(void);

/* Monotonic time in milliseconds: the clock of the progress line and of the commands' timings. */
double now_ms(void);
/* The process's start on that clock: main() marks it first thing, the reports measure from it. */
void process_mark_start(void);
double process_start_ms(void);

#endif
