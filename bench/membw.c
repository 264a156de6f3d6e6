/*
 * membw: the host's memory bandwidth for a copy, on T threads (each copies its part of a buffer of
 * B bytes into another): the yardstick for clsort-mpi's exchange on one host, which moves each
 * rank's pieces through shared memory. Prints GB/s counting bytes read and written.
 *   membw [GiB] [threads]      (defaults: 4 GiB, the online cores)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct part {
    char *dst;
    const char *src;
    size_t bytes;
} part;

static void *copy_part(void *arg)
{
    const part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One copy of src into dst on t threads; seconds taken. */
static double copy_once(char *dst, const char *src, size_t bytes, int t)
{
    pthread_t th[256];
    part parts[256];
    const double t0 = now_s();
    for (int i = 0; i < t; i++) {
        const size_t lo = bytes * (size_t)i / (size_t)t, hi = bytes * (size_t)(i + 1) / (size_t)t;
        parts[i] = (part){ dst + lo, src + lo, hi - lo };
        if (pthread_create(&th[i], NULL, copy_part, &parts[i]) != 0)
            copy_part(&parts[i]), th[i] = 0;
    }
    for (int i = 0; i < t; i++)
        if (th[i])
            pthread_join(th[i], NULL);
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    const double gib = argc > 1 ? atof(argv[1]) : 4.0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = argc > 2 ? atoi(argv[2]) : (int)(cores > 0 ? cores : 1);
    if (gib <= 0 || t < 1 || t > 256) {
        fprintf(stderr, "usage: membw [GiB > 0] [threads 1-256]\n");
        return 1;
    }
    const size_t bytes = (size_t)(gib * (1 << 30));
    char *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) {
        fprintf(stderr, "membw: cannot allocate 2 x %.1f GiB\n", gib);
        return 1;
    }
    memset(src, 1, bytes); /* fault every page in before timing */
    memset(dst, 0, bytes);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        const double s = copy_once(dst, src, bytes, t);
        best = s < best ? s : best;
    }
    printf("membw: %.1f GiB copied on %d threads: best of 5 %.3f s, %.1f GB/s read + written\n",
           gib, t, best, 2.0 * (double)bytes / best / 1e9);
    free(src);
    free(dst);
    return 0;
}
