/*
 * Fault injection for tests: CLSORT_FAULT_ALLOC=N makes the N-th device buffer allocation of the
 * process fail (1 is the first), so every error path after an allocation can be exercised on any
 * device. Unset or 0: no faults.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>

int clsort_fault_alloc(void)
{
    static atomic_ulong count;
    const char *env = getenv("CLSORT_FAULT_ALLOC");
    if (!env || !*env)
        return 0;
    unsigned long target = strtoul(env, NULL, 10);
    return target && atomic_fetch_add(&count, 1) + 1 == target;
}
