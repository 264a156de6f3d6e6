/*
 * What opening a device costs a process: clsort_open() (platform, context, queue; programs come
 * later, at the first sort) and clsort_close(), nothing else. bench/before-after-h100.sh times the
 * process beside clsort's on a tiny file.
 *   bench_open [DEVICE]   (DEVICE as -d takes it; default $CLSORT_DEVICE, else the best device)
 */
#include <clsort.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    clsort_context *ctx = NULL;
    if (clsort_open(&ctx, argc > 1 ? argv[1] : NULL) != CLSORT_OK) {
        fprintf(stderr, "bench_open: %s\n", clsort_last_error_detail());
        return 2;
    }
    printf("%s\n", clsort_device_name(ctx));
    clsort_close(&ctx);
    return 0;
}
