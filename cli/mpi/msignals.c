/*
 * clsort-mpi's signal thread and its table of temporary names (see msignals.h); clsort's own
 * (cli/io/signals.c) works the same way.
 */
#include "msignals.h"
#include "tempnames.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The table of temporary names and its lock are tempnames.c's, as clsort's signals.c uses them
 * (the lock is recursive: the commit holds it while it names its temporary file). */
static sigset_t handled;
static int installed;
static pid_t launcher;            /* the parent when the rank started */
static long long last_cont = -1;  /* ms (CLOCK_MONOTONIC) of its last SIGCONT; -1 none */
static int taken;                 /* the signal the thread took, that ends the rank; 0 none */
enum { QUIET_MS = 3000 };

/* msig_sync(): markers sent, and taken by the thread */
static int marker;
static unsigned long marks_sent, marks_taken;
static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mark_cond;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define N_SIGNALS ((int)(sizeof signals / sizeof signals[0]))

static void *signal_thread(void *arg)
{
    (void)arg;
    for (;;) {
        siginfo_t info;
        const int sig = sigwaitinfo(&handled, &info);
        if (sig < 0)
            continue;
        if (sig == SIGCONT) {
            /* the launcher's first step in ending the job (its stop and resume too, from a
             * scheduler that suspends jobs): noted, not an end */
            if (info.si_code == SI_USER && info.si_pid == launcher)
                __atomic_store_n(&last_cont, now_ms(), __ATOMIC_SEQ_CST);
            continue;
        }
        if (sig == marker) {
            pthread_mutex_lock(&mark_lock);
            marks_taken++;
            pthread_cond_broadcast(&mark_cond);
            pthread_mutex_unlock(&mark_lock);
            continue;
        }
        __atomic_store_n(&taken, sig, __ATOMIC_SEQ_CST); /* seen by msig_taken() from now */
        pthread_mutex_lock(&mark_lock); /* msig_sync() waits no more */
        pthread_cond_broadcast(&mark_cond);
        pthread_mutex_unlock(&mark_lock);
        tempnames_lock(); /* waits for a rename in progress to finish */
        tempnames_remove_locked();
        _exit(128 + sig); /* quietly, as the signal itself would have ended the rank */
    }
    return NULL;
}

int msig_install(void)
{
    launcher = getppid();
    marker = SIGRTMAX;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&mark_cond, &ca);
    pthread_condattr_destroy(&ca);
    sigemptyset(&handled);
    /* blocked, SIGCONT still resumes a stopped rank: only its notice comes here */
    sigaddset(&handled, SIGCONT);
    sigaddset(&handled, marker);
    for (int i = 0; i < N_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* e.g. nohup: it stays ignored */
        sigaddset(&handled, signals[i]);
    }
    sigset_t old;
    if (pthread_sigmask(SIG_BLOCK, &handled, &old) != 0)
        return -1;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, signal_thread, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        /* no thread to take them: leave the signals as they were rather than lose them */
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    installed = 1;
    return 0;
}

/* A real-time signal is taken after every standard one that was pending when it was sent (the
 * lowest number first), so once the thread has taken a marker sent now, it has taken, and noted,
 * every SIGCONT and every ending signal sent before: a rank resumed by mpirun runs on at once,
 * and would otherwise vote before its signal thread has seen who resumed it. A thread that takes
 * an ending signal takes no marker after it: then this returns at once. */
void msig_sync(void)
{
    if (!installed)
        return;
    pthread_mutex_lock(&mark_lock);
    const unsigned long want = ++marks_sent;
    pthread_mutex_unlock(&mark_lock);
    if (sigqueue(getpid(), marker, (union sigval){0}) != 0)
        return;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 1;
    pthread_mutex_lock(&mark_lock);
    while (marks_taken < want && !__atomic_load_n(&taken, __ATOMIC_SEQ_CST))
        if (pthread_cond_timedwait(&mark_cond, &mark_lock, &until) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&mark_lock);
}

int msig_taken(void)
{
    const int sig = __atomic_load_n(&taken, __ATOMIC_SEQ_CST);
    if (sig)
        return sig;
    sigset_t pending;
    if (sigpending(&pending) != 0)
        return 0;
    for (int i = 0; i < N_SIGNALS; i++)
        if (sigismember(&handled, signals[i]) && sigismember(&pending, signals[i]))
            return signals[i];
    return 0;
}

int msig_launcher_recent(void)
{
    const long long t = __atomic_load_n(&last_cont, __ATOMIC_SEQ_CST);
    return t >= 0 && now_ms() - t < QUIET_MS;
}

void msig_wait_launcher_quiet(void)
{
    for (;;) {
        msig_sync();
        if (!msig_launcher_recent() || msig_taken())
            return;
        const struct timespec step = {0, 50 * 1000000};
        nanosleep(&step, NULL);
    }
}

long msig_launcher(void)
{
    return (long)launcher;
}

int msig_launcher_gone(void)
{
    return getppid() != launcher;
}

void msig_hold(void)
{
    tempnames_lock();
}

void msig_release(void)
{
    tempnames_unlock();
}
