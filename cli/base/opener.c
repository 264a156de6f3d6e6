#include "opener.h"
#include "progress.h"

#include <signal.h>
#include <stdio.h>

static void *open_device(void *arg)
{
    device_opener *o = arg;
    /* A driver may give the thread an alternate signal stack of its own (LLVM's crash handler in
     * PoCL's compiler does): the thread's own is put back before it ends, for whatever frees it at
     * the thread's end (AddressSanitizer unmaps the one it made). */
    stack_t own;
    const int have_own = sigaltstack(NULL, &own) == 0;
    const double t = now_ms();
    o->st = clsort_open(&o->ctx, o->device);
    if (o->st != CLSORT_OK)
        snprintf(o->detail, sizeof o->detail, "%s", clsort_last_error_detail());
    o->ms = now_ms() - t;
    if (have_own)
        (void)sigaltstack(&own, NULL);
    atomic_store(&o->done, 1);
    return NULL;
}

int device_open_start(device_opener *o, const char *device)
{
    o->device = device;
    atomic_store(&o->done, 0);
    return pthread_create(&o->thread, NULL, open_device, o) == 0 ? 0 : -1;
}

void device_open_join(device_opener *o)
{
    pthread_join(o->thread, NULL);
}
