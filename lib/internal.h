/* Internal declarations shared by the library's source files. Not installed. */
#ifndef CLSORT_INTERNAL_H
#define CLSORT_INTERNAL_H

#include "clsort.h"

#include <stdarg.h>
#include <stddef.h>

#define CLSORT_DETAIL_MAX 8192
#define CLSORT_MAX_PROGRAMS 32
/* Scratch buffers a context keeps between sorts, in bytes for all of them together: enough that
 * repeated sorts of up to about 2^24 keys allocate nothing; larger ones allocate per call, where the
 * allocation is small against the sort. */
#define CLSORT_SCRATCH_KEEP ((size_t)256 << 20)

/* What a kept scratch buffer is for: one slot per buffer a sort may need at once. */
typedef enum clsort_slot {
    CLSORT_SLOT_KEYS,       /* clsort_sort()'s device copy of the keys */
    CLSORT_SLOT_VALUES,     /* ... and of the values */
    CLSORT_SLOT_TMP_KEYS,   /* ping-pong partner of the keys */
    CLSORT_SLOT_TMP_VALUES, /* ... of the values */
    CLSORT_SLOT_WORK,       /* histograms, status words */
    CLSORT_SLOT_OFFSETS,    /* digit offsets, tile counts */
    CLSORT_SLOT_STATUS,     /* look-back status words of large sorts */
    CLSORT_SLOT_SCAN,       /* partial sums of the device scan */
    CLSORT_SLOTS
} clsort_slot;

/* Per-device tuning: one row of the table in tuning.c. */
typedef struct clsort_tuning {
    const char *match_vendor; /* substring of the vendor name; NULL matches any */
    const char *match_device; /* substring of the device name; NULL matches any */
    unsigned scan_wg;         /* work-group size of the generic scan */
    unsigned scan_items;      /* elements per work-item in the generic scan */
    unsigned radix8_wg;       /* work-group size of the radix8 kernels */
    unsigned radix8_items;    /* keys per work-item in radix8 binning */
    unsigned radix8_lookback; /* radix8 scan: 0 reduce-then-scan, 1 look-back, 2 look-back on PoCL/Oclgrind */
    unsigned radix8_ptx;      /* 1: NVIDIA inline PTX warp-match ranking (else portable ranking) */
    unsigned radix8_hist_copies; /* copies of the local histogram counters (atomic contention) */
    unsigned radix8_lb_at;    /* warp ranking, large inputs: when onesweep tiles publish their counts
                               * and look back (LB_AT in cl/radix8.cl; 0 after the reorder) */
    unsigned sort_wg;         /* work-group size of the bitonic and odd-even tile kernels */
    unsigned sort_items;      /* keys per work-item there (a power of two; halved for pairs) */
    unsigned radix8_serial;   /* CPU devices: radix8 reduce-then-scan with one work-item per tile,
                               * walking its keys in order; this many tiles per compute unit (0 off) */
    /* Bitonic; a row's 0 becomes the value in brackets when the row is looked up. */
    unsigned bitonic_wg;      /* its tile kernels: work-group size [sort_wg] */
    unsigned bitonic_items;   /* and elements per work-item, 2..64 [sort_items; halved for pairs] */
    unsigned bitonic_global_items; /* its register passes over strides of a tile or more: elements
                                    * per work-item, 2..64 [bitonic_items; halved for pairs] */
    /* radix8 with the warp ranking on inputs of 2^23 keys or more (0: radix8_wg x radix8_items) */
    unsigned radix8_large_wg, radix8_large_items;           /* keys only */
    unsigned radix8_large_pair_wg, radix8_large_pair_items; /* with values */
    /* radix4 there (0: radix8's large shapes) */
    unsigned radix4_large_wg, radix4_large_items;
    unsigned radix4_large_pair_wg, radix4_large_pair_items;
    unsigned radix4_large_pair_kv; /* 1: its values reordered with the keys (KV_TOGETHER) */
} clsort_tuning;

/* A built program and the options it was built with. */
typedef struct clsort_program {
    char *options;
    const char *family; /* "radix4", ... */
    cl_program program;
} clsort_program;

struct clsort_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    int profiling;     /* the queue records profiling information */
    int out_of_order;  /* the queue may run commands out of order */

    char platform_name[128];
    char device_name[128];
    char vendor[128];
    char driver_version[64];
    char display_name[272];
    cl_device_type type;
    cl_ulong global_mem;
    cl_ulong max_alloc;
    cl_ulong local_mem;
    size_t max_wg;
    cl_uint compute_units;
    cl_uint mem_base_align; /* bytes */

    clsort_tuning tuning;

    clsort_program programs[CLSORT_MAX_PROGRAMS];
    unsigned n_programs;
    unsigned programs_built;  /* counters since open, for clsort_stats */
    unsigned programs_cached;
    unsigned passes_skipped;

    /* Scratch kept between sorts (not on out-of-order queues, where two sorts may overlap). */
    cl_mem scratch[CLSORT_SLOTS];
    size_t scratch_bytes[CLSORT_SLOTS];

    /* The sort being enqueued runs as a chain of commands, each waiting for the one before (so
     * out-of-order queues work too); the first waits for the caller's events. */
    const cl_event *chain_wait;
    cl_uint chain_n_wait;
    cl_event first_event, last_event;

    char detail[CLSORT_DETAIL_MAX];
};

/* ---- status.c ---- */
/* Store a printf-style detail on ctx (or the thread's context-less slot when ctx is NULL) and return
 * status, so error paths read: return clsort_fail(ctx, st, "...", ...). */
clsort_status clsort_fail(clsort_context *ctx, clsort_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same for a failed OpenCL call: names the call and the code. */
clsort_status clsort_fail_cl(clsort_context *ctx, cl_int err, const char *call);
void clsort_clear_detail(clsort_context *ctx);
void clsort_set_thread_detail(const char *text);

#define CL_CHECK(ctx, call)                                                                          \
    do {                                                                                             \
        cl_int cl_check_err_ = (call);                                                               \
        if (cl_check_err_ != CL_SUCCESS)                                                             \
            return clsort_fail_cl((ctx), cl_check_err_, #call);                                      \
    } while (0)

/* Argument validation: return an error naming the failed condition. */
#define VALIDATE(ctx, cond)                                                                          \
    do {                                                                                             \
        if (!(cond))                                                                                 \
            return clsort_fail((ctx), CLSORT_ERROR_INVALID_ARGUMENT, "%s: invalid argument: %s",     \
                               __func__, #cond);                                                     \
    } while (0)

/* ---- keys.c: key types, order, bit ranges ---- */
unsigned clsort_key_width(clsort_key_type t); /* 32 or 64 bits */
#define clsort_key_size(t) (clsort_key_width(t) / 8)
/* The bit range that decides the order, end_bit 0 resolved to the width. */
void clsort_key_range(const clsort_spec *spec, unsigned *begin, unsigned *end);
int clsort_key_full_range(const clsort_spec *spec);
/* -D options selecting the key transform of cl/common.cl (KEY_BITS, KEY_KIND, DESCENDING). */
int clsort_key_options(const clsort_spec *spec, char *buf, size_t size);
/* Map keys in place to their unsigned order bits (inverse = 0) or back (1), chained. */
clsort_status clsort_keys_transform(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                    size_t n, int inverse);

/* ---- chunk.c ---- */
/* clsort_sort() of n keys in chunks of at most `chunk` keys, merged on the host. */
clsort_status clsort_sort_chunked(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                  void *values, size_t n, size_t chunk, clsort_stats *stats);

/* ---- fault.c ---- */
/* Non-zero when this device allocation is to fail ($CLSORT_FAULT_ALLOC, for tests). */
int clsort_fault_alloc(void);

/* ---- device.c ---- */
typedef struct clsort_device_ref {
    cl_platform_id platform;
    cl_device_id device;
} clsort_device_ref;
/* Resolve a device string (NULL or "" = default) to a device. Detail goes to the thread slot. */
clsort_status clsort_find_device(const char *spec, clsort_device_ref *out);
/* Fill the context's device description fields from ctx->device / ctx->platform. */
clsort_status clsort_read_device_info(clsort_context *ctx);

/* ---- tuning.c ---- */
void clsort_tuning_lookup(const char *vendor, const char *device, cl_device_type type,
                          clsort_tuning *out);
/* Algorithms the library runs on such a device, for listings. */
void clsort_tuning_describe(const clsort_tuning *t, char *buf, size_t size);

/* ---- program.c ---- */
/* Build (or fetch from the in-memory table or the disk cache) the program of a family with options.
 * sources: NULL-terminated list of embedded source names in order (e.g. common, radix8). */
clsort_status clsort_get_program(clsort_context *ctx, const char *family, const char *const *sources,
                                 const size_t *lengths, size_t n_sources, const char *options,
                                 cl_program *out);
clsort_status clsort_create_kernel(clsort_context *ctx, cl_program program, const char *name,
                                   cl_kernel *out);
void clsort_release_programs(clsort_context *ctx);

/* ---- cache.c ---- */
uint64_t clsort_hash64(uint64_t h, const void *data, size_t len);
#define CLSORT_HASH_SEED 0xcbf29ce484222325ull
/* Disk cache of program binaries. Both return 0 on success. A load that finds a missing, corrupt or
 * stale entry returns non-zero and the caller rebuilds. */
int clsort_cache_load(uint64_t key, unsigned char **binary, size_t *size);
int clsort_cache_store(uint64_t key, const unsigned char *binary, size_t size);
int clsort_cache_enabled(void);

/* ---- sort.c: helpers for the algorithm files ---- */
/* Launch a kernel, chained after the previous command of this sort. */
clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, size_t global, size_t local);
/* Fill bytes (a multiple of 4) of a buffer with a 32-bit pattern, chained likewise. */
clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, cl_uint pattern, size_t bytes);
/* Copy between buffers, chained likewise. */
clsort_status clsort_copy(clsort_context *ctx, cl_mem src, cl_mem dst, size_t bytes);
clsort_status clsort_alloc(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what);
/* The same for a scratch buffer of a slot: the context's kept buffer when it is large enough (the
 * caller still releases what it gets; the context holds a reference of its own). Sorts on an in-order
 * queue run one after another, so consecutive sorts may share the buffers. */
clsort_status clsort_scratch(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out,
                             const char *what);
/* Release the kept scratch buffers. */
void clsort_scratch_release(clsort_context *ctx);
/* With CLSORT_PROFILE (or CLSORT_RADIX8_PROFILE) set, wait for the chain's newest command and print its
 * device time to stderr (profiling queues only); for tuning runs. */
void clsort_profile_last(clsort_context *ctx, const char *family, const char *what, unsigned pass);
clsort_status clsort_set_args(clsort_context *ctx, cl_kernel k, const char *kname, int count, ...);
/* Argument kinds for clsort_set_args: pairs of (size, pointer) are passed explicitly. */
#define ARG(x) sizeof(x), (const void *)&(x)

/* ---- scan.c: exclusive prefix sum over a device array of cl_ulong or cl_uint ---- */
typedef struct clsort_scan {
    cl_kernel reduce, spine, downsweep;
    cl_mem partials;
    size_t tile; /* elements per work-group */
    size_t wg;
} clsort_scan;
/* Prepare scans of up to max_n elements. */
clsort_status clsort_scan_init(clsort_context *ctx, clsort_scan *scan, size_t max_n);
void clsort_scan_release(clsort_scan *scan);
size_t clsort_scan_scratch(const clsort_context *ctx, size_t max_n);
/* In-place exclusive scan of n cl_ulong at data. */
clsort_status clsort_scan_enqueue(clsort_context *ctx, clsort_scan *scan, cl_mem data, size_t n);

/* ---- algorithm families ---- */
typedef struct clsort_job {
    const clsort_spec *spec;
    cl_mem keys, values;
    size_t n;
    /* The caller waits for the result anyway (clsort_sort): the family may read small tables back
     * mid-sort to decide what to enqueue next. Never set for clsort_enqueue, whose wait list may hold
     * events that complete only after it returns. */
    int may_block;
} clsort_job;
clsort_status clsort_radix4_enqueue(clsort_context *ctx, const clsort_job *job);
/* Device bytes needed besides the keys/values buffers, to check memory before work. */
size_t clsort_radix4_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* radix8, onesweep and radix8-rts (lib/radix8.c). */
clsort_status clsort_radix8_enqueue(clsort_context *ctx, const clsort_job *job);
size_t clsort_radix8_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* The radix8 variant a spec runs as on this device: onesweep or radix8-rts. */
clsort_algorithm clsort_radix8_variant(const clsort_context *ctx, const clsort_spec *spec);

/* bitonic.c: the tile shape shared by the comparison sorts (bitonic, oddeven). */
typedef struct clsort_sort_shape_t {
    unsigned wg, items, global_items;
    size_t tile;
} clsort_sort_shape_t;
clsort_status clsort_sort_shape(const clsort_context *ctx, const clsort_spec *spec, int bitonic,
                                clsort_sort_shape_t *s);
/* Their -D options after the shape: HAS_VALUES, VALUE_T, and KEY_BITS and KEY_RANGE_MASK for keys
 * already mapped to their order bits (clsort_keys_transform). */
int clsort_sort_key_options(const clsort_spec *spec, char *buf, size_t size);
/* Length of the runs sorted independently: spec->segment, or n for a whole array. */
size_t clsort_segment_length(const clsort_spec *spec, size_t n);
clsort_status clsort_bitonic_enqueue(clsort_context *ctx, const clsort_job *job);
clsort_status clsort_oddeven_enqueue(clsort_context *ctx, const clsort_job *job);
/* The odd-even limit (CLSORT_ERROR_LIMIT) for n keys, checked before any work. */
clsort_status clsort_oddeven_check(clsort_context *ctx, const clsort_spec *spec, size_t n);

/* embedded sources (generated from cl/) */
extern const char clsort_cl_common[];
extern const size_t clsort_cl_common_len;
extern const char clsort_cl_bitonic[];
extern const size_t clsort_cl_bitonic_len;
extern const char clsort_cl_oddeven[];
extern const size_t clsort_cl_oddeven_len;
extern const char clsort_cl_radix8[];
extern const size_t clsort_cl_radix8_len;
extern const char clsort_cl_keys[];
extern const size_t clsort_cl_keys_len;
extern const char clsort_cl_scan[];
extern const size_t clsort_cl_scan_len;

#endif
