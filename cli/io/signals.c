/*
 * Signals and the temporary names they must not leave behind (see signals.h).
 *
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE are blocked in the main thread before the device starts any
 * thread of its own (PoCL runs a pool of them), so every thread inherits the mask and only one thread
 * here ever takes these signals, through a signalfd (sigwait() where there is none). It removes the
 * temporary names under the same lock that output_commit() holds while it renames, so a signal lands
 * before a commit or after it, never between two renames of one commit; one that arrives while the
 * lock is held ends clsort as the holder lets go. Owns: the signal thread, the table of named
 * temporaries.
 * Calls: progress (to clear the line), nothing else.
 */
#include "signals.h"
#include "cli.h"
#include "progress.h"
#include "tempnames.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* The lock is tempnames.c's (recursive: the commit holds it while it names temporary files). */
static sigset_t handled;
static int installed;
static int hold_depth;        /* signals_hold() calls not yet released (under the lock) */
static int sigfd = -1;        /* a signalfd of the handled signals, where the system gives one */
static _Atomic int caught;    /* without one: a signal the thread took while the lock was held */
static int pipe_default; /* SIGPIPE had its default action when clsort started */

static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define N_SIGNALS ((int)(sizeof signals / sizeof signals[0]))

/* Leave as the signal would have ended the process: no temporary name left, the progress line
 * cleared, status 128 + N. Called with the lock held. */
static void die_locked(int sig)
{
    tempnames_remove_locked();
    progress_signal_clear();
    _exit(128 + sig);
}

/* A handled signal that is pending, taken; 0 when none is. Called with the lock held. */
static int take_pending(void)
{
    if (sigfd >= 0) {
        struct signalfd_siginfo si;
        return read(sigfd, &si, sizeof si) == (ssize_t)sizeof si ? (int)si.ssi_signo : 0;
    }
    const struct timespec now = { 0, 0 };
    const int sig = sigtimedwait(&handled, NULL, &now);
    return sig > 0 ? sig : 0;
}

/* With a signalfd the thread only waits for a signal to be pending and takes it under the lock, so
 * that a signal that comes during a commit is still pending when the commit ends and the holder
 * takes it there (signals_release): it cannot be in this thread's hands, unseen, while the main
 * thread goes on to exit 0. Without one, sigwait() takes it and `caught` says so, a few
 * instructions later. */
static void *signal_thread(void *arg)
{
    (void)arg;
    for (;;) {
        int sig = 0;
        if (sigfd >= 0) {
            struct pollfd p = { sigfd, POLLIN, 0 };
            if (poll(&p, 1, -1) <= 0)
                continue;
            tempnames_lock(); /* waits for a commit in progress to finish */
            if ((sig = take_pending()) != 0)
                die_locked(sig);
            tempnames_unlock(); /* none after all */
            continue;
        }
        if (sigwait(&handled, &sig) != 0)
            continue;
        caught = sig; /* the holder ends the process as it lets go (signals_release) */
        tempnames_lock();
        die_locked(sig);
    }
    return NULL;
}

void signals_install(void)
{
    if (installed)
        return;
    sigemptyset(&handled);
    for (int i = 0; i < N_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* e.g. nohup: it stays ignored */
        sigaddset(&handled, signals[i]);
        if (signals[i] == SIGPIPE)
            pipe_default = 1;
    }
    sigset_t old;
    if (pthread_sigmask(SIG_BLOCK, &handled, &old) != 0)
        return;
    sigfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, signal_thread, NULL) != 0) {
        /* No thread to take them: leave the signals as they were rather than lose them. */
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (sigfd >= 0)
            close(sigfd);
        sigfd = -1;
    } else {
        installed = 1;
    }
    pthread_attr_destroy(&attr);
}

int signals_add_name(int dirfd, const char *name)
{
    return tempnames_add(dirfd, name);
}

void signals_drop_name(int slot, int remove)
{
    tempnames_drop(slot, remove);
}

void signals_hold(void)
{
    tempnames_lock();
    /* A signal already pending when the first hold begins came before what the hold protects (a
     * commit): it ends clsort now, with every output as it was, even where the main thread took the
     * lock before the signal thread could. */
    if (hold_depth == 0 && installed) {
        const int sig = caught ? caught : take_pending();
        if (sig)
            die_locked(sig);
    }
    hold_depth++;
}

void signals_release(void)
{
    /* A signal that came while the lock was held ends the process here, before anything else
     * happens: not at whatever point the signal thread gets the lock, which could be after the
     * main thread has gone on (or exited 0). */
    if (--hold_depth == 0 && installed) {
        const int sig = caught ? caught : take_pending();
        if (sig)
            die_locked(sig);
    }
    tempnames_unlock();
}

void signals_broken_pipe(void)
{
    if (!pipe_default || !installed)
        return; /* SIGPIPE ignored by whoever started clsort: the caller reports the error */
    tempnames_lock();
    die_locked(SIGPIPE);
}
