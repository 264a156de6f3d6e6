/*
 * A device opened on a thread of its own while the caller reads its input (clsort sort, clsort
 * text): clsort_open() there, its time and error kept, and the thread's alternate signal stack put
 * back before it ends.
 */
#ifndef CLSORT_CLI_OPENER_H
#define CLSORT_CLI_OPENER_H

#include "clsort.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct device_opener {
    pthread_t thread;
    const char *device; /* the device string, NULL for the default */
    clsort_context *ctx;
    clsort_status st;
    char detail[1024];  /* clsort_last_error_detail() is the opening thread's */
    double ms;          /* the open's own time */
    atomic_int done;    /* set once the open has returned */
} device_opener;

/* Starts opening `device` on a thread of its own: 0, or -1 where no thread could start. */
int device_open_start(device_opener *o, const char *device);
/* Waits for the thread: o->ctx, o->st and o->detail are then the open's. */
void device_open_join(device_opener *o);

#endif
