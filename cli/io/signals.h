/*
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGPIPE end clsort with 128 + N and leave no temporary name
 * behind, in whichever thread the kernel would have delivered them (a signal that was ignored when
 * clsort started stays ignored). A commit of several outputs runs with them held off.
 */
#ifndef CLSORT_SIGNALS_H
#define CLSORT_SIGNALS_H

/* Block the signals in this thread and every thread created after it, and start the thread that takes
 * them. Call before the device is opened (it may start threads). Safe to call twice. */
void signals_install(void);

/* A temporary name (relative to dirfd, which must stay open) to remove if a signal ends clsort.
 * Returns a slot, or -1 when the table is full or the name too long. */
int signals_add_name(int dirfd, const char *name);
/* Forget a slot; remove: also unlink the name now. */
void signals_drop_name(int slot, int remove);

/* Hold signals off around a commit (a signal that arrives meanwhile ends clsort in the outermost
 * signals_release(), before it returns). */
void signals_hold(void);
void signals_release(void);

/* A write found the reader gone (EPIPE, SIGPIPE being blocked): end as SIGPIPE would have, quietly,
 * unless SIGPIPE was ignored when clsort started; then return and let the caller report the error. */
void signals_broken_pipe(void);

#endif
