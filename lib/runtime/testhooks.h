/*
 * The library's test hooks: switches that force a code path or inject a failure so that the tests
 * reach what ordinary inputs on the test machine would not. They are read from the environment only,
 * once, when a context opens (settings.c, with the settings and by the same parser); they are not
 * settings of the API: clsort_setting_names() does not list them and clsort_open_with_settings()
 * refuses their names. Not installed, and not documented in clsort.h or libclsort(3).
 *
 * - CLSORT_FAULT_ALLOC=N: the N-th device buffer allocation of the process (counted over every
 *   context) fails with CL_MEM_OBJECT_ALLOCATION_FAILURE, so that the tests see every allocation of
 *   every algorithm fail and the caller's arrays left alone (buffers.c).
 * - CLSORT_CHUNK_KEYS=N: clsort_sort() sorts inputs of more than N keys in chunks of N,
 *   clsort_sort_segments() in batches of at most N keys and N segments, clsort_sort_stream() in
 *   runs of at most N (at least one segment): the chunked, batched and run paths on small inputs.
 * - CLSORT_TOP_CAP=N (1 or more): clsort_top() and clsort_top_enqueue() copy the records still in
 *   question to a buffer of their own only while there are at most N of them (by default a
 *   sixteenth of the input).
 * - CLSORT_SPILL_THREAD=0|1: clsort_sort_stream() writes run files from threads of their own, each
 *   run downloaded whole first (1, the default on a device with memory of its own), or from the
 *   calling thread through the staging buffers (0, the default on a CPU device).
 * - CLSORT_TRANSFER_SLOT=N (16 or more): the large transfers that go through two pinned staging
 *   slots (the arrays of clsort_sort() and clsort_sort_records() on a device with memory of its
 *   own: from 512 MiB, and from 64 MiB once the context has the slots; 32 MiB each) do so on any
 *   device and at any size, in slots of N bytes.
 * - CLSORT_RADIX8_PORTION_TILES=N: onesweep splits its input into portions of at most N tiles.
 * - CLSORT_HOST_INLINE_BYTES=N: host arrays of up to N bytes (keys and values) that host-radix sorts
 *   are sorted where they are (run.c), larger ones on mapped buffers by a thread of the
 *   library (host_family.c); 0 sends every one to the thread. Unset: every one on a CPU device,
 *   else CLSORT_HOST_INLINE_MAX_BYTES.
 * - CLSORT_HOST_SMALL_BYTES=N: auto sorts host arrays of up to N bytes (keys and values, at most
 *   CLSORT_HOST_INLINE_MAX_BYTES) on the calling thread by host-radix on any device, in place of
 *   the device's own row of tuning.c (host_small_bytes); 0: never.
 *
 * Kernel hooks go through the build_options setting (CLSORT_BUILD_OPTIONS), which leaves them open:
 * - -DSTALL_TILE=t: the work-group of tile t of onesweep's binning dawdles before it publishes
 *   anything, so that its successors wait on it under look-back (cl/radix/binning.cl; the test
 *   stall-onesweep).
 *
 * The command-line tool's own hooks (CLSORT_TEST_STOP_AFTER_READ and others) are read by
 * cli/base/settings.c and documented in clsort(1).
 */
#ifndef CLSORT_TESTHOOKS_H
#define CLSORT_TESTHOOKS_H

/* The hooks' names as settings.c knows them: the variables without CLSORT_, in lower case. */
#define CLSORT_TEST_HOOK_NAMES                                                                     \
    "fault_alloc", "chunk_keys", "top_cap", "spill_thread", "transfer_slot",                       \
        "radix8_portion_tiles", "host_inline_bytes", "host_small_bytes"

#endif
