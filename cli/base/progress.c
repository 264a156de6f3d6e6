/*
 * Progress line on stderr and the monotonic clock (see progress.h). Calls nothing else in the CLI;
 * reads g_verbosity.
 */
#include "progress.h"
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum { DELAY_MS = 1000, PERIOD_MS = 100 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static int running, stopping;
static double start_ms, phase_ms;
static char phase[48];
static uint64_t total, done;
static volatile sig_atomic_t drawn; /* a line is on the terminal */

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double process_started;

void process_mark_start(void)
{
    process_started = now_ms();
}

double process_start_ms(void)
{
    return process_started;
}

static void progress_put(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

static void clear_line(void)
{
    if (drawn) {
        progress_put("\r\033[K", 4);
        drawn = 0;
    }
}

static void human(char *buf, size_t cap, double bytes)
{
    static const char *units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

/* Draw the line (with the lock held). */
static void draw(double now)
{
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    char line[512], a[32], b[32];
    int len;
    double secs = (now - phase_ms) / 1000.0;
    if (total > 0) {
        double f = (double)done / (double)total;
        if (f > 1)
            f = 1;
        human(a, sizeof a, (double)done);
        human(b, sizeof b, (double)total);
        char tail[160];
        int tl = snprintf(tail, sizeof tail, " %3.0f%%  %s of %s", f * 100, a, b);
        if (secs >= 1 && done > 0) { /* the rate so far, and the time left at that rate */
            const double rate = (double)done / secs;
            char r[32];
            human(r, sizeof r, rate);
            tl += snprintf(tail + tl, sizeof tail - (size_t)tl, "  %s/s  %.0f s left", r,
                           (double)(total > done ? total - done : 0) / rate);
        }
        int head = snprintf(line, sizeof line, "clsort: %-6s [", phase);
        int bar = width - 1 - head - 1 - tl;
        if (bar > 40)
            bar = 40;
        if (bar < 5)
            bar = 0;
        len = head;
        int fill = (int)(f * bar + 0.5);
        for (int i = 0; i < bar && len < (int)sizeof line - 1; i++)
            line[len++] = i < fill ? '#' : '.';
        len += snprintf(line + len, sizeof line - (size_t)len, "]%s", tail);
    } else if (done > 0) {
        human(a, sizeof a, (double)done);
        len = snprintf(line, sizeof line, "clsort: %-6s %s, %.1f s", phase, a, secs);
    } else {
        len = snprintf(line, sizeof line, "clsort: %-6s %.1f s", phase, secs);
    }
    if (len >= width)
        len = width - 1;
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    progress_put("\r", 1);
    progress_put(line, (size_t)len);
    progress_put("\033[K", 3);
    drawn = 1;
}

static void *progress_main(void *arg)
{
    (void)arg;
    /* signals are for the main thread, whose handler removes the temporary files */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&lock);
    while (!stopping) {
        double now = now_ms();
        if (now - start_ms >= DELAY_MS && phase[0])
            draw(now);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += PERIOD_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&wake, &lock, &ts);
    }
    clear_line();
    pthread_mutex_unlock(&lock);
    return NULL;
}

void progress_start(int enabled)
{
    if (running || !enabled || g_verbosity < 1 || !isatty(STDERR_FILENO))
        return;
    start_ms = phase_ms = now_ms();
    phase[0] = '\0';
    stopping = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    running = pthread_create(&thread, NULL, progress_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void progress_phase(const char *name, uint64_t size)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    snprintf(phase, sizeof phase, "%s", name);
    total = size;
    done = 0;
    phase_ms = now_ms();
    pthread_mutex_unlock(&lock);
}

void progress_add(uint64_t delta)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    done += delta;
    pthread_mutex_unlock(&lock);
}

void progress_set(uint64_t now_done)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    done = now_done;
    pthread_mutex_unlock(&lock);
}

void progress_end(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    running = 0;
}

void progress_hide(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    clear_line();
    pthread_mutex_unlock(&lock);
}

void progress_signal_clear(void)
{
    if (drawn)
        progress_put("\r\033[K", 4);
}
