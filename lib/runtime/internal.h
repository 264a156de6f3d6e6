/*
 * Internal declarations of libclsort, by file; the sections below go bottom up. The layers, with what
 * each file does and calls: lib/README.md, "Layers".
 *
 * Not installed.
 */
#ifndef CLSORT_INTERNAL_H
#define CLSORT_INTERNAL_H

#include "clsort.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CLSORT_DETAIL_MAX 8192
#define CLSORT_MAX_PROGRAMS 32
/* Scratch a context keeps between sorts, in bytes for all of its buffers together: by default all of
 * it, grown when a larger sort needs more and never shrunk, so repeated sorts allocate nothing after
 * the first (CLSORT_SCRATCH_KEEP sets a limit; clsort_release_scratch() and clsort_close() free it). */
#define CLSORT_SCRATCH_KEEP SIZE_MAX

/* ==== helpers ==== */

/* ---- settings.c: the settings the caller gives, then the environment, read once when a context
 * opens (the tests' hooks: testhooks.h) ---- */
#define CLSORT_UNSET_BYTES ((size_t)-1)
typedef struct clsort_settings {
    int cache_enabled;          /* not CLSORT_NO_CACHE */
    const char *no_cache_name;  /* what errors call it: "CLSORT_NO_CACHE" or "setting no_cache" */
    char cache_dir[4000];       /* resolved cache directory; "" for none */
    char temp_dir[4000];        /* $TMPDIR, else /tmp: clsort_sort_stream()'s default */
    char build_options[2048];   /* CLSORT_BUILD_OPTIONS, appended to every build */
    int build_options_too_long; /* ... and did not fit: every build fails as too long */
    const char *build_options_name; /* "CLSORT_BUILD_OPTIONS" or "setting build_options" */
    size_t scratch_keep;        /* CLSORT_SCRATCH_KEEP, in bytes */
    size_t chunk_keys;          /* CLSORT_CHUNK_KEYS; 0 unset */
    size_t top_cap;             /* CLSORT_TOP_CAP: top-k's candidate buffer capacity; 0 unset */
    size_t host_inline_bytes;   /* CLSORT_HOST_INLINE_BYTES; CLSORT_UNSET_BYTES unset */
    size_t host_small_bytes;    /* CLSORT_HOST_SMALL_BYTES; CLSORT_UNSET_BYTES unset */
    int spill_thread;           /* CLSORT_SPILL_THREAD; -1 unset */
    int device_merge;           /* CLSORT_DEVICE_MERGE; -1 unset */
    int device_gather;          /* CLSORT_DEVICE_GATHER; -1 unset */
    size_t transfer_slot;       /* CLSORT_TRANSFER_SLOT: staged transfers of any size; 0 unset */
    size_t stage_bytes;         /* CLSORT_STAGE_BYTES (default 8 MiB) */
    int staging;                /* CLSORT_STAGING: a CLSORT_STAGING_* kind */
    unsigned long fault_alloc;  /* CLSORT_FAULT_ALLOC; 0 unset */
    int profile;                /* CLSORT_PROFILE or CLSORT_RADIX8_PROFILE */
    /* CLSORT_SORT_TUNING (0: unset) */
    unsigned sort_wg, sort_items, sort_global_items;
    /* CLSORT_SEG_SHORT_TUNING: WGxITEMS, or 0 for one launch (seg_short_set 0: unset) */
    int seg_short_set;
    unsigned seg_short_wg, seg_short_items;
    /* CLSORT_BITONIC_WIDE, CLSORT_BITONIC_CARRY (-1: unset) */
    int bitonic_wide_set;
    unsigned long bitonic_wide;
    int bitonic_carry;
    /* CLSORT_SEG_BITONIC_MAX: short segments' groups of more keys take the radix sort (-1: unset) */
    long long seg_bitonic_max;
    /* CLSORT_SINGLE_TILE_MAX: whole arrays of at most this many keys sorted by one work-group
     * (-1: unset, the short-segment tile; 0: never) */
    long long single_tile_max;
    /* CLSORT_RADIX8_*: -1 (or 0 where 0 is not a value) for unset */
    int radix_serial, radix_wg, radix_items, radix_match, radix_lb_at, radix_kv;
    int radix_ptx_set;
    unsigned radix_ptx;
    int radix_lb_win, radix_hist_per_cu, radix_match_split;
    size_t radix_portion_tiles;
    /* CLSORT_HYBRID_WAVE_KEYS, CLSORT_HYBRID_LAG (0: unset), CLSORT_HYBRID_MIN_N (-1: unset) */
    size_t hybrid_wave_keys;
    int hybrid_lag;
    long long hybrid_min_n;
    char error[512];            /* the first value that did not parse; "" when all did */
} clsort_settings;
/* The caller's settings are well formed: known names that are not hooks, each once, values not
 * NULL; else non-zero with why. */
int clsort_settings_check(const clsort_setting *given, size_t count, char *why, size_t size);
/* Read the settings: the given ones (checked), then the environment for the others; non-zero when
 * a value is invalid (then described in s->error). */
int clsort_settings_read(clsort_settings *s, const clsort_setting *given, size_t count);
/* The device setting (given, else $CLSORT_DEVICE; NULL or "" for none) and *source, what errors
 * call it. */
const char *clsort_settings_device(const clsort_setting *given, size_t count, const char **source);

/* ---- parallel.c: the host's threads: how many (one per online processor, at most 16), and a
 * loop over [0, n) in slices on them (at least min_slice items each; 0: no minimum) ---- */
unsigned clsort_threads_default(void);
void clsort_parallel(size_t n, size_t min_slice, void (*fn)(void *arg, size_t begin, size_t end),
                     void *arg);
/* The same loop on at most `threads` threads (at most 16; 0: clsort_threads_default()). */
void clsort_parallel_threads(unsigned threads, size_t n, size_t min_slice,
                             void (*fn)(void *arg, size_t begin, size_t end), void *arg);

/* ---- transfer.c: large transfers through pinned staging slots, the host's threads copying ----
 * Upload bytes of host to mem; *ev_first is the first transfer, *done the last (the host memory
 * is free to change once this returns; staged, every chunk has arrived by then). Download bytes
 * of mem into host after `after` (NULL: nothing); staged, it returns once they are in place, else
 * once the transfer is enqueued (the caller finishes the queue either way); *ev_first and
 * *ev_last are its first and last transfers. Events may come back NULL; the caller releases
 * those that do not. */
clsort_status clsort_upload(clsort_context *ctx, cl_mem mem, const void *host, size_t bytes,
                            cl_event *ev_first, cl_event *done);
clsort_status clsort_download(clsort_context *ctx, cl_mem mem, void *host, size_t bytes,
                              cl_event after, cl_event *ev_first, cl_event *ev_last);
/* The staging slots the context keeps, freed (clsort_release_scratch(), clsort_close()). */
void clsort_transfer_release(clsort_context *ctx);

/* ---- fields_device.c: records by a key field, gathered on the device ---- */
typedef struct clsort_fields {
    size_t n, rs, off;  /* records, their size, the key's offset */
    size_t key_size;    /* a key of bytes' length; 0 for a number of the spec's key type */
    size_t ks, words;   /* bytes per sorted word (8 for a key of bytes) and words per key */
    size_t ps;          /* bytes per position of the permutation: 4 or 8 */
} clsort_fields;
/* The spec of the stable sort of word w (a key of bytes: its bytes only), positions as values. */
void clsort_fields_word_spec(const clsort_spec *spec, const clsort_fields *f, size_t w,
                             clsort_spec *s);
/* Whether the records go to the device: it has memory of its own (CLSORT_DEVICE_GATHER decides
 * otherwise) and two copies of them fit with the sorts' buffers. */
int clsort_fields_device_fits(clsort_context *ctx, const clsort_spec *spec, const clsort_fields *f);
/* The whole sort on the device: the records uploaded, their keys read out, the sorts, the gather,
 * the download into records (and the positions into index, may be NULL). *touched is set once
 * records may have been written: before that a failure leaves them as they were. */
clsort_status clsort_fields_device_sort(clsort_context *ctx, const clsort_spec *spec,
                                        const clsort_fields *f, void *records, uint64_t *index,
                                        int *touched, clsort_stats *stats);

/* ---- records.c: interleaved key/value records split and joined on the device ---- */
typedef struct clsort_records {
    cl_kernel split, join;
    size_t kw, vw, word; /* words of `word` bytes per key and per value */
    size_t wg;
} clsort_records;
clsort_status clsort_records_init(clsort_context *ctx, size_t ks, size_t vs, clsort_records *r);
void clsort_records_release(clsort_records *r);
/* Split n records of rec into keys / values from record `at` on, or (join) the reverse; done may be
 * NULL. */
clsort_status clsort_records_enqueue(clsort_context *ctx, const clsort_records *r, int join,
                                     cl_mem rec, cl_mem keys, cl_mem values, size_t n, size_t at,
                                     cl_uint n_wait, const cl_event *wait, cl_event *done);

/* ---- stage.c: host memory for the transfers of a stream sort ---- */
enum { CLSORT_STAGING_PINNED, CLSORT_STAGING_USE, CLSORT_STAGING_HOST };
typedef struct clsort_stage {
    cl_mem mem;            /* the buffer that owns the memory, or NULL for plain host memory */
    void *own;             /* memory of our own (CLSORT_STAGING_USE, HOST) */
    unsigned char *host;   /* where the host reads and writes */
    size_t bytes;
    int kind;              /* CLSORT_STAGING_* it got */
} clsort_stage;
/* Staging memory of the kind the settings ask for, falling back to plain host memory. */
clsort_status clsort_stage_alloc(clsort_context *ctx, clsort_stage *s, size_t bytes);
void clsort_stage_free(clsort_context *ctx, clsort_stage *s);
const char *clsort_staging_name(int kind);

/* ---- api.c ---- */
/* A caller's buffer m holds count elements of size bytes (CL_MEM_SIZE), or CLSORT_ERROR_INVALID_ARGUMENT
 * with both sizes in the detail: a sort past a buffer's end reads and writes other memory. NULL m
 * or count 0 passes. */
clsort_status clsort_check_buffer(clsort_context *ctx, cl_mem m, const char *what, size_t count,
                                  size_t size);
/* One of the caller's buffers in an enqueue: its role's name, the bytes the call uses from its
 * start, and whether the call writes them. */
typedef struct clsort_role {
    cl_mem m;
    const char *name;
    size_t bytes;
    int written;
} clsort_role;
/* No buffer that the call writes shares memory with another of its buffers (the same cl_mem twice,
 * sub-buffers of one buffer whose used bytes overlap, or CL_MEM_USE_HOST_PTR buffers over the same
 * host bytes), else CLSORT_ERROR_INVALID_ARGUMENT naming both roles: a sort would read what it has
 * just written. NULL buffers and roles of 0 bytes pass. fn names the entry point. */
clsort_status clsort_check_roles(clsort_context *ctx, const char *fn, const clsort_role *roles,
                                 int count);

/* ---- options.c: the -D option builder ---- */
typedef struct clsort_opts {
    char text[1024];
    size_t len;
    int overflow; /* an option did not fit: the build fails rather than run without it */
} clsort_opts;
/* Every macro the builder can emit: it takes a name from this list and no other (a new one fails
 * to compile until it is added here), and CLSORT_BUILD_OPTIONS may redefine none of them
 * (clsort_opts_check_extra), so the two cannot drift apart. */
#define CLSORT_OPT_MACROS(X)                                                                       \
    X(BITONIC_MAX) X(CARRY) X(DESCENDING) X(DIGIT_BITS) X(F) X(GF) X(HAS_VALUES) X(HIST_COPIES)      \
    X(HIST_LOADS) X(HYBRID) X(INDEX_T) X(ITEMS) X(KEY_BITS) X(KEY_KIND) X(KEY_RANGE_MASK)            \
    X(KEY_SIZE) X(KS) X(KV_TOGETHER) X(KW) X(LB_AT) X(LB_WIN) X(LIB_WG) X(LOOKBACK) X(MATCH_ANY)     \
    X(MATCH_OR) X(MATCH_SPLIT) X(MATCH_TOP) X(OFF) X(PLACES) X(POS64) X(RADIX) X(RANGE_BEGIN)        \
    X(REC_T) X(RS) X(RW) X(SERIAL) X(USE_PTX) X(VALUE_T) X(VARSEG) X(VW) X(WG) X(WG_ANY) X(WHOLE)    \
    X(WIDE) X(WORD) X(WORDS)
#define CLSORT_OPT_ENUM(name) CLSORT_OPT_##name,
typedef enum clsort_opt_macro { CLSORT_OPT_MACROS(CLSORT_OPT_ENUM) CLSORT_OPT_COUNT } clsort_opt_macro;
#undef CLSORT_OPT_ENUM
extern const char *const clsort_opt_macro_names[CLSORT_OPT_COUNT];
void clsort_opts_init(clsort_opts *b);
/* Append -DNAME=value, NAME one of CLSORT_OPT_MACROS, written bare: clsort_opts_add(b, WG, 64). */
#define clsort_opts_add(b, name, value) clsort_opts_add_macro((b), CLSORT_OPT_##name, (value))
#define clsort_opts_add_text(b, name, value)                                                       \
    clsort_opts_add_macro_text((b), CLSORT_OPT_##name, (value))
/* Append -DNAME=value when cond holds; options left out take the kernel's defaults. */
#define clsort_opts_add_if(b, cond, name, value)                                                   \
    ((cond) ? clsort_opts_add_macro((b), CLSORT_OPT_##name, (value)) : (void)0)
void clsort_opts_add_macro(clsort_opts *b, clsort_opt_macro m, unsigned long long value);
void clsort_opts_add_macro_text(clsort_opts *b, clsort_opt_macro m, const char *value);
/* Check the user's extra build options: non-zero, with the reason in why, when one defines or
 * undefines a macro the library sets in any spelling, brings in files or passes words on to another
 * stage (-I, -include, @FILE, -Xclang, -Wp,), or holds a quote or backslash anywhere. */
int clsort_opts_check_extra(const char *extra, char *why, size_t size);

/* ---- tuning.c: per-device parameters, vendor -> device -> default ---- */
typedef struct clsort_tuning {
    const char *match_vendor;   /* substring of the vendor name; NULL matches any */
    const char *match_device;   /* substring of the device name; NULL matches any */
    cl_device_type match_type;  /* 0 matches any type */
    struct {
        unsigned wg;            /* work-group size of the generic scan (and the key mapping) */
        unsigned items;         /* elements per work-item */
    } scan;
    struct {
        unsigned wg;            /* work-group size of the radix kernels */
        unsigned items;         /* keys per work-item in binning */
        unsigned lookback;      /* 0 reduce-then-scan, 1 look-back, 2 look-back on PoCL/Oclgrind */
        unsigned ptx;           /* 1: NVIDIA inline PTX warp-match ranking (else portable) */
        unsigned hist_copies;   /* copies of the local histogram counters (atomic contention) */
        unsigned lb_at;         /* warp ranking, large inputs: when onesweep tiles publish their
                                 * counts and look back (LB_AT in cl/radix/base.cl; 0 after the
                                 * reorder) */
        unsigned serial;        /* CPU devices: reduce-then-scan with one work-item per tile,
                                 * walking its keys in order; this many tiles per compute unit
                                 * (0 off) */
        /* With the warp ranking on inputs of 2^23 keys or more (0: wg x items). */
        struct {
            unsigned wg, items;           /* keys only */
            unsigned pair_wg, pair_items; /* with values */
            unsigned pair_lb_win;         /* radix8 with values: predecessors a look-back step
                                           * reads (LB_WIN in cl/radix/base.cl; 0 its default) */
            unsigned pair_match_split;    /* radix8 with values: ballots on the top digit bits
                                           * beside the lane-mask table (MATCH_SPLIT; 0 none) */
        } large;
        /* radix8 of 64-bit keys there (0: the shapes above, items halved until the tile fits in
         * local memory) */
        struct {
            unsigned wg, items;
            unsigned pair_lb_at; /* with values, from PAIR64_LB_AT_N keys (lib/radix/radix_shape.c): LB_AT
                                  * (0: lb_at above) */
        } large64;
        /* radix8 with the warp ranking from 2^21 keys up to the inputs above (0: wg x items) */
        struct {
            unsigned wg, items;           /* 32-bit keys alone */
            unsigned pair_wg, pair_items; /* 32-bit keys with values */
            unsigned wg64, items64;       /* 64-bit keys, with values or not */
        } mid;
        /* radix4 there (0: the radix8 shapes above) */
        struct {
            unsigned wg, items, pair_wg, pair_items;
            unsigned pair_kv; /* 1: its values reordered with the keys (KV_TOGETHER) */
        } large4;
        /* radix-hybrid (lib/radix/radix_hybrid.c): auto takes it for whole arrays of at least min_n
         * records (0: never); bytes of records per wave (0: radix.h's default); stepped: one
         * launch per step of its ticket order, not one for all */
        struct {
            size_t min_n, wave_bytes;
            unsigned stepped;
        } hybrid;
    } radix;
    struct {
        unsigned wg, items;     /* the odd-even tile kernels; keys per work-item a power of two,
                                 * halved for pairs */
    } oddeven;
    /* Bitonic; a row's 0 becomes the value in brackets when the row is looked up. */
    struct {
        unsigned wg;            /* its tile kernels: work-group size [oddeven.wg] */
        unsigned items;         /* and elements per work-item, 2..64 [oddeven.items] */
        unsigned global_items;  /* its register passes over strides of a tile or more: elements
                                 * per work-item, 2..64 [items] */
    } bitonic;
    /* Variable segments: the short ones' own launch, with a tile of wg x items (items halved per
     * key and tag bytes as the comparison sorts' are) smaller than the bitonic tile that the
     * medium ones take; 0: one launch sorts both in the bitonic tile. */
    struct {
        unsigned short_wg, short_items;
    } segments;
    /* Host arrays of at most this many bytes (keys and values) that auto sorts on the calling
     * thread (host-radix) rather than in the device's kernels, where the round trip to the device
     * costs more than the sort (and the first sort of a context loads programs too); 0: never.
     * CPU devices take host-radix at every size anyway. */
    size_t host_small_bytes;
} clsort_tuning;
void clsort_tuning_lookup(const char *vendor, const char *device, cl_device_type type,
                          clsort_tuning *out);
/* Algorithms the library runs on such a device, for listings. */
void clsort_tuning_describe(const clsort_tuning *t, char *buf, size_t size);

/* ---- the context (filled by context.c and device.c) ---- */

/* What a kept scratch buffer is for: one slot per buffer a sort may need at once. */
typedef enum clsort_slot {
    CLSORT_SLOT_KEYS,       /* clsort_sort()'s device copy of the keys */
    CLSORT_SLOT_VALUES,     /* ... and of the values */
    CLSORT_SLOT_TMP_KEYS,   /* ping-pong partner of the keys */
    CLSORT_SLOT_TMP_VALUES, /* ... of the values */
    CLSORT_SLOT_COUNTERS,   /* histogram counts and a ticket, left zero by the sort using them */
    CLSORT_SLOT_WORK,       /* look-back status words */
    CLSORT_SLOT_OFFSETS,    /* digit offsets, tile counts */
    CLSORT_SLOT_STATUS,     /* look-back status words of large sorts */
    CLSORT_SLOT_SCAN,       /* partial sums of the device scan */
    CLSORT_SLOT_TOP_CAND_KEYS,  /* top-k: the two candidate buffers' keys */
    CLSORT_SLOT_TOP_CAND_INDEX, /* ... and input indices */
    CLSORT_SLOT_TOP_INDEX,      /* the K records' input indices */
    CLSORT_SLOT_TOP_STATE,      /* the select's histogram, counters and prefix */
    CLSORT_SLOT_TOP_OUT_KEYS,   /* clsort_top()'s device copy of the result */
    CLSORT_SLOT_TOP_OUT_VALUES,
    CLSORT_SLOT_SEG_OFFSETS, /* clsort_sort_segments()'s device copy of the offsets, or those of
                              * fixed segments sorted as variable ones */
    CLSORT_SLOT_SEG_TABLE,  /* variable segments: per-segment tiles and lengths, scanned */
    CLSORT_SLOT_SEG_TILES,  /* ... the long segments' radix tiles */
    CLSORT_SLOT_SEG_FLAG,   /* ... the device check's flag */
    CLSORT_SLOT_HYBRID_PLAN,    /* radix-hybrid: buckets, waves and their digit offsets */
    CLSORT_SLOT_HYBRID_CONTROL, /* ... tickets, counts and look-back words */
    CLSORT_SLOTS
} clsort_slot;

/* Parts of a program's source after cl/common.cl, at most. */
#define CLSORT_MAX_PARTS 8

/* A built program, the options it was built with and the parts it was built from (the embedded
 * sources' addresses: a family builds different parts for different forms). */
typedef struct clsort_program {
    char *options;
    const char *family; /* "radix4", ... */
    const char *parts[CLSORT_MAX_PARTS];
    unsigned n_parts;
    cl_program program;
} clsort_program;

/* Kernels a context keeps between sorts: clCreateKernel costs several microseconds on NVIDIA's
 * driver, a good part of a small sort. Arguments are set at every launch (and captured there). */
#define CLSORT_MAX_KERNELS 64
typedef struct clsort_kernel_entry {
    cl_program program;
    char name[48];
    cl_kernel kernel;
} clsort_kernel_entry;

struct clsort_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_command_queue host_queue; /* host-radix's maps, off the chain (created at its first sort) */
    int profiling;     /* the queue records profiling information */
    int out_of_order;  /* the queue may run commands out of order */
    int launch_compiles; /* the device compiles a kernel at its first launch (PoCL) */
    int host_unified;  /* the device's memory is host memory (a CPU device): it counts in budgets */
    int reserving;     /* clsort_reserve(): families allocate as for a sort, nothing is enqueued */
    unsigned long allocations; /* device buffers created since open, for clsort_scratch_info() */

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
    clsort_settings settings;
    int cache_fd;          /* the program cache's open directory; -1 without the cache */
    char cache_info[4200]; /* clsort_cache_info() */

    clsort_program programs[CLSORT_MAX_PROGRAMS];
    unsigned n_programs;
    clsort_kernel_entry kernels[CLSORT_MAX_KERNELS];
    unsigned n_kernels;
    unsigned programs_built;  /* counters since open, for clsort_stats */
    unsigned programs_cached;
    unsigned passes_skipped;

    /* Scratch kept between sorts (not on out-of-order queues, where two sorts may overlap). */
    clsort_stage xfer[2]; /* transfer.c's staging slots, kept once made (host memory is NULL) */
    unsigned xfer_large;  /* uploads of XFER_MIN bytes or more so far (counted up to 2) */
    cl_mem scratch[CLSORT_SLOTS];
    size_t scratch_bytes[CLSORT_SLOTS];
    int scratch_zero[CLSORT_SLOTS]; /* the kept buffer is known to hold zeros only */

    /* The sort being enqueued runs as a chain of commands, each waiting for the one before (so
     * out-of-order queues work too); the first waits for the caller's events. */
    const cl_event *chain_wait;
    cl_uint chain_n_wait;
    cl_event first_event, last_event;
    int chain_pending;  /* commands enqueued after last_event without an event of their own */
    int chain_flushed;  /* the chain's first kernel was flushed to the device */
    int chain_no_start; /* nobody reads the chain's span: its first command needs no event */

    char detail[CLSORT_DETAIL_MAX];
};

/* ---- api.c ---- */
/* clsort_enqueue() that leaves the context's error detail as it is unless it fails itself: for the
 * threads of a stream sort, while another may have just reported an error. */
clsort_status clsort_enqueue_kept(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                  cl_mem values, size_t n, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done);

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

/* An entry point's defaults: the caller's spec, else the default one written into *def. */
static inline const clsort_spec *clsort_spec_or_default(const clsort_spec *spec, clsort_spec *def)
{
    if (spec)
        return spec;
    clsort_spec_default(def);
    return def;
}

/* An entry point's statistics, zeroed: the caller's, else *local (which the call then ignores). */
static inline clsort_stats *clsort_stats_cleared(clsort_stats *stats, clsort_stats *local)
{
    if (!stats)
        stats = local;
    memset(stats, 0, sizeof *stats);
    return stats;
}

/* ---- device.c ---- */
typedef struct clsort_device_ref {
    cl_platform_id platform;
    cl_device_id device;
} clsort_device_ref;
/* Resolve a device string (NULL or "": the default device; the caller reads the device setting) to
 * a device; errors call the string `source` ("device string", "CLSORT_DEVICE"). Detail goes to the
 * thread slot. */
clsort_status clsort_find_device(const char *spec, const char *source, clsort_device_ref *out);
/* Fill the context's device description fields and tuning from ctx->device / ctx->platform. */
clsort_status clsort_read_device_info(clsort_context *ctx);
/* Whether a device of this type is the host's own cores: a CPU, and not also a GPU or an
 * accelerator (a simulator such as Oclgrind reports every type, and its runtime is not safe to call
 * from the host radix sort's thread while a flush runs its queue). */
int clsort_device_is_host_cores(cl_device_type type);

/* ---- cache.c: disk cache of program binaries ---- */
uint64_t clsort_hash64(uint64_t h, const void *data, size_t len);
#define CLSORT_HASH_SEED 0xcbf29ce484222325ull
/* Open the settings' cache directory when the cache is on and the directory can be trusted: *fd
 * (-1 when not) and, in info, the directory or "off: " and why (for clsort_cache_info()). */
void clsort_cache_open(const clsort_settings *s, int *fd, char *info, size_t size);
void clsort_cache_close(int *fd);
/* Both return 0 on success; dir is the open cache directory (-1: none). A load that finds a
 * missing, corrupt, stale or untrusted entry returns non-zero and the caller rebuilds. */
int clsort_cache_load(int dir, uint64_t key, unsigned char **binary, size_t *size);
int clsort_cache_store(int dir, uint64_t key, const unsigned char *binary, size_t size);

/* ---- program.c ---- */
/* One part of a program's source: an embedded file of cl/, CLSORT_CL_PART(radix_base) for
 * cl/radix/base.cl. */
typedef struct clsort_cl_part {
    const char *text;
    size_t len;
} clsort_cl_part;
#define CLSORT_CL_PART(name) ((clsort_cl_part){ clsort_cl_##name, clsort_cl_##name##_len })
/* Build (or fetch from the in-memory table or the disk cache) the program of a family: cl/common.cl
 * followed by the family's parts in order (at most CLSORT_MAX_PARTS), with the options built by
 * options.c. The disk cache's key covers every part. clsort_get_program() is the one-part form. */
clsort_status clsort_get_program_parts(clsort_context *ctx, const char *family,
                                       const clsort_cl_part *parts, unsigned n_parts,
                                       const clsort_opts *opts, cl_program *out);
clsort_status clsort_get_program(clsort_context *ctx, const char *family, const char *source,
                                 size_t length, const clsort_opts *opts, cl_program *out);
clsort_status clsort_create_kernel(clsort_context *ctx, cl_program program, const char *name,
                                   cl_kernel *out);
void clsort_release_programs(clsort_context *ctx);

/* ---- buffers.c: device buffers, kept scratch, fault injection ---- */
clsort_status clsort_alloc(clsort_context *ctx, size_t bytes, cl_mem *out, const char *what);
/* The same for a scratch buffer of a slot: the context's kept buffer when it is large enough (the
 * caller still releases what it gets; the context holds a reference of its own). Sorts on an in-order
 * queue run one after another, so consecutive sorts may share the buffers. */
clsort_status clsort_scratch(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out,
                             const char *what);
/* Release the kept scratch buffers. */
void clsort_scratch_release(clsort_context *ctx);
/* Whether m is the slot's kept buffer and known to hold zeros only; that it will once the commands
 * enqueued so far have run (a kernel that leaves it so was enqueued). Out-of-order queues and
 * clsort_reserve() never know: each call gets new buffers, or nothing runs. */
int clsort_scratch_zeroed(const clsort_context *ctx, clsort_slot slot, cl_mem m);
void clsort_scratch_set_zeroed(clsort_context *ctx, clsort_slot slot, cl_mem m);
/* The kept buffer is not known to be zero any more (commands are to dirty it). */
void clsort_scratch_set_dirty(clsort_context *ctx, clsort_slot slot, cl_mem m);
/* The size of the slot's kept buffer when m is it (it may be larger than asked: a buffer that is
 * to hold zeros only is filled whole), else 0. */
size_t clsort_scratch_kept_bytes(const clsort_context *ctx, clsort_slot slot, cl_mem m);
/* Release each non-NULL buffer of a list. */
void clsort_release_mems(cl_mem *list, size_t count);

/* ---- chain.c: the command chain of one sort, and kernel arguments ---- */
/* Monotonic wall clock, for the statistics. */
double clsort_now_ms(void);
/* An entry's last stats (NULL: nothing): total_ms from t0, and GKey/s on the kernel time, or on the
 * total where the device reported none. */
void clsort_stats_finish(clsort_stats *stats, size_t n, double t0);
/* Positions 0..n-1 on the host, as size-byte (4 or 8) words: an argsort's values. */
void clsort_host_positions(void *out, size_t size, size_t n);
/* Milliseconds from the start of a to the end of b (profiling queues only, else 0). */
double clsort_event_span_ms(cl_event a, cl_event b);
void clsort_chain_begin(clsort_context *ctx, cl_uint n_wait, const cl_event *wait);
/* Make ev (a command enqueued after the chain's waits) the chain's newest. */
void clsort_chain_push(clsort_context *ctx, cl_event ev);
/* Give the caller an event that follows its wait list when the chain enqueued nothing. */
clsort_status clsort_chain_marker(clsort_context *ctx);
/* Make last_event follow every command of the chain (an in-order queue's commands after the first
 * go without events of their own: a marker then stands for them). */
clsort_status clsort_chain_settle(clsort_context *ctx);
void clsort_chain_drop(clsort_context *ctx);
/* Launch a kernel, chained after the previous command of this sort. */
clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, size_t global, size_t local);
/* Fill bytes (a multiple of 4) of a buffer with a 32-bit pattern, chained likewise. */
clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, cl_uint pattern, size_t bytes);
/* Copy between buffers, chained likewise. */
clsort_status clsort_copy(clsort_context *ctx, cl_mem src, cl_mem dst, size_t bytes);
/* A marker after the chain's waits and everything enqueued before them: *start (a reference of
 * the caller's own, to release) completes when the sort's buffers are the host's to map elsewhere. */
clsort_status clsort_chain_fence(clsort_context *ctx, cl_event *start);
/* A barrier that holds the queue until gate (a user event) completes. */
clsort_status clsort_chain_gate(clsort_context *ctx, cl_event gate);
/* With the profile setting, wait for the chain's newest command and print its device time to stderr
 * (profiling queues only); for tuning runs. */
void clsort_profile_last(clsort_context *ctx, const char *family, const char *what, unsigned pass);
/* Set count kernel arguments from index first: pairs of (size, pointer), see ARG. */
clsort_status clsort_set_args_at(clsort_context *ctx, cl_kernel k, const char *kname, int first,
                                 int count, ...);
#define clsort_set_args(ctx, k, kname, count, ...)                                               \
    clsort_set_args_at(ctx, k, kname, 0, count, __VA_ARGS__)
/* A kernel's data arguments from index 0: `per` key buffers, then as many value buffers when values
 * is not NULL; *count receives how many were set. */
clsort_status clsort_set_data_args(clsort_context *ctx, cl_kernel k, const char *kname, int per,
                                   const cl_mem *keys, const cl_mem *values, int *count);
#define ARG(x) sizeof(x), (const void *)&(x)

/* ==== algorithm families ==== */

/* ---- keys.c: key types, order, bit ranges, and the key mapping pass ---- */
unsigned clsort_key_width(clsort_key_type t); /* 32 or 64 bits */
#define clsort_key_size(t) (clsort_key_width(t) / 8)
/* The bit range that decides the order, end_bit 0 resolved to the width. */
void clsort_key_range(const clsort_spec *spec, unsigned *begin, unsigned *end);
/* clsort_key_order() taken apart once per spec, for loops over many keys (merges, checks). */
typedef struct clsort_key_recipe {
    int wide, is_float;
    uint64_t sign, ones, flip, mask;
    /* numpy's float order: the bits of +inf (magnitudes above are NaNs); 0 for total order */
    uint64_t inf;
} clsort_key_recipe;
void clsort_key_recipe_init(const clsort_spec *spec, clsort_key_recipe *r);
static inline uint64_t clsort_key_recipe_order(const clsort_key_recipe *r, const void *key)
{
    uint64_t k;
    if (r->wide) {
        memcpy(&k, key, 8);
    } else {
        uint32_t k32;
        memcpy(&k32, key, 4);
        k = k32;
    }
    if (r->is_float && r->inf) { /* numpy's order: every NaN last, -0.0 as +0.0 */
        const uint64_t mag = k & (r->sign - 1);
        if (mag > r->inf)
            return r->mask;
        if (!mag)
            k = 0;
    }
    if (r->is_float) /* IEEE total order: negatives reversed below the positives */
        k = (k & r->sign) ? (~k & r->ones) : (k | r->sign);
    return (k ^ r->flip) & r->mask;
}
int clsort_key_full_range(const clsort_spec *spec);
/* Length of the runs sorted independently: spec->segment, or n for a whole array. */
size_t clsort_segment_length(const clsort_spec *spec, size_t n);
/* -D options selecting the key transform of cl/common.cl (KEY_BITS, KEY_KIND, DESCENDING,
 * KEY_RANGE_MASK). */
void clsort_key_options(const clsort_spec *spec, clsort_opts *b);
/* numpy's float order on the device families (CLSORT_FLOAT_NUMPY, see clsort.h): before the sort
 * the zeros and NaNs are saved in input order and replaced by one canonical key each, which the
 * kernels sort in total order; after it the saved keys go back where those landed. Chained. */
typedef struct clsort_float_fix {
    cl_mem counts, saved;
    size_t groups;
} clsort_float_fix;
/* Float keys in numpy's order. */
int clsort_float_numpy(const clsort_spec *spec);
/* Device memory the fix takes for n keys. */
size_t clsort_float_fix_scratch(const clsort_spec *spec, size_t n);
clsort_status clsort_float_fix_save(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                    size_t n, clsort_float_fix *fix);
clsort_status clsort_float_fix_restore(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                       size_t n, clsort_float_fix *fix);
void clsort_float_fix_release(clsort_float_fix *fix);
/* Map keys in place to their unsigned order bits (inverse = 0) or back (1), chained. */
clsort_status clsort_keys_transform(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                    size_t n, int inverse);

/* ---- scan.c: exclusive prefix sum over a device array of cl_ulong ---- */
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
/* The same, scanning only the first min(n, limit[at] * scale) elements, the bound read on the device
 * (scale 0: all n). */
clsort_status clsort_scan_enqueue_limit(clsort_context *ctx, clsort_scan *scan, cl_mem data,
                                        size_t n, cl_mem limit, cl_ulong at, cl_ulong scale);

/* ---- what dispatch hands a family ---- */
typedef struct clsort_job clsort_job;

/* Variable segments (CSR offsets), see segments.c. The radix passes sort the long segments' tiles
 * (desc, tiles of them) and then call short_sort, which sorts the short segments from the job's
 * buffers into the buffers holding the passes' result. */
#define CLSORT_VSEG_WORDS 5 /* words of a radix tile description (VSEG_WORDS, cl/radix/base.cl) */
typedef struct clsort_varseg {
    cl_mem offsets;                /* n_seg + 1 cl_ulong */
    size_t n_seg;
    const uint64_t *host_offsets;  /* the same on the host, checked, when the caller gave them */
    cl_mem desc;                   /* filled by segments.c: CLSORT_VSEG_WORDS words per radix tile,
                                    * then the number of tiles in use */
    size_t tiles;
    size_t longs;                  /* the long segments (at most; the look-back chains' counts) */
    size_t fixed;                  /* the offsets are those of fixed segments of this length */
    int chains;                    /* the descriptions are for look-back chains (radix_chains.c) */
    clsort_status (*short_sort)(clsort_context *ctx, const clsort_job *job, cl_mem keys_out,
                                cl_mem values_out);
    void *state;                   /* segments.c's own */
} clsort_varseg;

struct clsort_job {
    const clsort_spec *spec;
    cl_mem keys, values;
    size_t n;
    /* The caller waits for the result anyway (clsort_sort): the family may read small tables back
     * mid-sort to decide what to enqueue next. Never set for clsort_enqueue, whose wait list may hold
     * events that complete only after it returns. */
    int may_block;
    /* keys/values are the library's own (clsort_sort): a family whose passes end in its ping-pong
     * partners may leave the result there (CUB's double-buffer selector) and name them in
     * result_keys/result_values (retained: the caller releases them) instead of copying back. */
    int may_swap;
    cl_mem result_keys, result_values;
    /* The caller asked for no event (clsort_enqueue with done NULL): on an in-order queue the chain
     * needs no end marker, the queue's order is the caller's wait. */
    int no_event;
    /* Nobody reads the chain's span (clsort_enqueue and friends, not the host sorts' stats): the
     * first command goes without an event (on the H100 its enqueue took 18.5 us with one). */
    int no_start;
    /* An argsort: the values are first filled with the positions 0..n-1 (of value_size bytes). */
    int index_values;
    /* Variable segments; NULL for a whole array or fixed segments (spec->segment). */
    clsort_varseg *varseg;
};

/* ---- index.c: positions out[i] = i (of index_size 4 or 8 bytes), as the chain's next command ---- */
clsort_status clsort_index_fill(clsort_context *ctx, cl_mem out, size_t index_size, size_t n);

/* ---- radix.c: LSD radix sorts (radix8, onesweep, radix8-rts; radix4) ---- */
clsort_status clsort_radix8_enqueue(clsort_context *ctx, clsort_job *job);
clsort_status clsort_radix4_enqueue(clsort_context *ctx, clsort_job *job);
/* Device bytes needed besides the keys/values buffers, to check memory before work. */
size_t clsort_radix8_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
size_t clsort_radix4_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* The radix8 variant a spec of n keys runs as on this device: radix-hybrid, onesweep or
 * radix8-rts. */
clsort_algorithm clsort_radix8_variant(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* How radix8 sorts the long segments of n keys in all (variable segments): 1 by look-back chains,
 * one a segment (radix_chains.c), 0 by reduce-then-scan; and the keys per tile of its passes. */
int clsort_radix8_varseg_chains(const clsort_context *ctx, const clsort_spec *spec, size_t n);
size_t clsort_radix8_varseg_tile(const clsort_context *ctx, const clsort_spec *spec, size_t n);
int clsort_warp_ptx(const clsort_context *ctx);

/* ---- segments.c: variable segments (CSR offsets) ---- */
/* A whole array of n keys that one work-group sorts in local memory in one launch (radix8's
 * small sorts): whether it fits, and the launch. */
int clsort_single_tile_fits(const clsort_context *ctx, const clsort_spec *spec, size_t n);
clsort_status clsort_single_tile_enqueue(clsort_context *ctx, clsort_job *job);
/* The first entry of host offsets that is not CSR, as a detail on ctx; CLSORT_OK when all are. */
clsort_status clsort_segments_check(clsort_context *ctx, const uint64_t *offsets, size_t n_seg,
                                    size_t n);
/* Device bytes a sort of n keys in n_seg segments needs besides the caller's buffers. */
double clsort_segments_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n,
                               size_t n_seg);
/* The whole sort of a job with job->varseg set (n > 1). */
clsort_status clsort_segments_enqueue(clsort_context *ctx, clsort_job *job);
/* Fixed segments (spec->segment) sorted by radix8 as variable ones, with offsets made on the
 * device: whether they are here, and the sort. */
int clsort_segments_fixed_wanted(const clsort_context *ctx, const clsort_spec *spec, size_t n);
clsort_status clsort_segments_fixed_enqueue(clsort_context *ctx, clsort_job *job);

/* ---- compare.c: what the comparison sorts (bitonic, oddeven) share ---- */
typedef struct clsort_tile_shape {
    unsigned wg, items, global_items;
    size_t tile;
} clsort_tile_shape;
/* The tile shapes' families: the odd-even tiles, the bitonic tiles (which also sort medium
 * segments), the short segments' own launch (CLSORT_ERROR_UNSUPPORTED where it has none). */
enum { CLSORT_SHAPE_ODDEVEN, CLSORT_SHAPE_BITONIC, CLSORT_SHAPE_SEG_SHORT };
clsort_status clsort_tile_shape_for(const clsort_context *ctx, const clsort_spec *spec,
                                    int family, clsort_tile_shape *s);
/* Local memory of one tile: keys (and values) with one spare word per 32. */
size_t clsort_tile_local_bytes(size_t tile, size_t key_size, size_t value_size);
/* Their -D options after the shape: HAS_VALUES, VALUE_T, and KEY_BITS and KEY_RANGE_MASK for keys
 * already mapped to their order bits. */
void clsort_compare_key_options(const clsort_spec *spec, clsort_opts *b);
/* Run sort on keys mapped to their order bits, mapping them back after. */
clsort_status clsort_compare_run(clsort_context *ctx, const clsort_job *job,
                                 clsort_status (*sort)(clsort_context *, const clsort_job *));

/* ---- host_family.c: host-radix, the host's threads on mapped buffers (host_sort.h) ---- */
clsort_status clsort_host_radix_enqueue(clsort_context *ctx, clsort_job *job);
/* Bytes of the scratch buffers (a second array of the keys and values). */
size_t clsort_host_radix_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* Host arrays of up to this many bytes (keys and values) that host-radix sorts are sorted where
 * they are by clsort_host_radix_sort_host() (SIZE_MAX on a CPU device; the test hook
 * CLSORT_HOST_INLINE_BYTES sets it). */
size_t clsort_host_radix_inline_bytes(const clsort_context *ctx);
/* Host arrays of up to this many bytes that auto sorts by host-radix on any device: the device's
 * tuning (host_small_bytes), or the test hook CLSORT_HOST_SMALL_BYTES; never more than the
 * calling thread alone sorts (CLSORT_HOST_INLINE_MAX_BYTES). */
size_t clsort_host_radix_small_bytes(const clsort_context *ctx);
/* Sort host arrays in place in the calling thread, as the family sorts them on buffers (offsets:
 * n_seg variable segments, checked, or NULL); *host_ms: the sort's time. from: NULL, or the n
 * records to sort, read from there (the same arrays, or apart), the result in keys and values
 * (a whole array's first pass reads them where they are: no copy). ready: NULL, or called
 * by the calling thread with records [0, upto) in their final place, upto growing to n (large
 * whole arrays: while the other threads sort the rest); it keeps what it has taken. */
typedef struct clsort_host_from {
    const void *keys, *values;
} clsort_host_from;
clsort_status clsort_host_radix_sort_host(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                          void *values, size_t n, const uint64_t *offsets,
                                          size_t n_seg, const clsort_host_from *from,
                                          void (*ready)(void *, size_t), void *ready_user,
                                          double *host_ms);
/* The kept scratch buffers that clsort_host_radix_sort_host() takes for n records, if any. */
clsort_status clsort_host_radix_reserve_host(clsort_context *ctx, const clsort_spec *spec, size_t n);
/* The pages of keys and values (n records) and of the kept scratch reserved for them faulted in
 * (on a thread of the caller's while it does other work; nothing else may use the context's
 * queues or scratch meanwhile): the sort's first passes then find them there. */
void clsort_host_radix_prefault(clsort_context *ctx, const clsort_spec *spec, size_t n, void *keys,
                                void *values);

/* ---- bitonic.c, oddeven.c ---- */
clsort_status clsort_bitonic_enqueue(clsort_context *ctx, clsort_job *job);
clsort_status clsort_oddeven_enqueue(clsort_context *ctx, clsort_job *job);
/* The most keys odd-even takes in one array: SIZE_MAX where the segments (or allow_quadratic)
 * keep it within its limit, else CLSORT_ODDEVEN_MAX_KEYS. */
size_t clsort_oddeven_max_n(const clsort_spec *spec);
/* The odd-even limit (CLSORT_ERROR_LIMIT) for n keys, checked before any work; more: n is what was
 * read of an input that holds more (the detail says so). */
clsort_status clsort_oddeven_check(clsort_context *ctx, const clsort_spec *spec, size_t n, int more);
/* Keys enough for a warm-up sort to launch every odd-even kernel (one past a tile: the block form). */
size_t clsort_oddeven_warm_n(clsort_context *ctx, const clsort_spec *spec);

/* ==== dispatch.c ==== */
/* Unknown types, value sizes and algorithms, bit ranges and segments a family does not sort. */
clsort_status clsort_dispatch_check_spec(clsort_context *ctx, const clsort_spec *spec);
/* Non-zero when the algorithm the spec runs (auto resolved) is stable: not bitonic or oddeven. */
int clsort_dispatch_stable(const clsort_context *ctx, const clsort_spec *spec);
/* The stable algorithms, for details that suggest them. */
#define CLSORT_STABLE_NAMES "auto, radix8, radix4, onesweep, radix8-rts, radix-hybrid or host-radix"
/* Limits that depend on n, checked before any work. */
clsort_status clsort_dispatch_check_limits(clsort_context *ctx, const clsort_spec *spec, size_t n);
/* The most keys one array of this spec may hold under those limits (SIZE_MAX: none), and the
 * refusal of an input found to hold more than that while it is read (its size not known before). */
size_t clsort_dispatch_max_n(const clsort_context *ctx, const clsort_spec *spec);
/* Keys enough for a warm-up sort (clsort_reserve()) to launch the kernels any larger sort does. */
size_t clsort_dispatch_warm_n(clsort_context *ctx, const clsort_spec *spec);
clsort_status clsort_dispatch_refuse_past_limit(clsort_context *ctx, const clsort_spec *spec);
/* Bytes of device scratch a sort of n keys of this spec takes, its data buffers apart. */
double clsort_dispatch_scratch(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* Would n keys fit? with_data: the key and value buffers are allocated by us too. */
clsort_status clsort_dispatch_check_fits(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                         int with_data);
/* Largest n one device sort of this spec takes with our own data buffers, lowered to *chunk when
 * that is set and smaller. Returns 0 when under 2. */
int clsort_dispatch_max_fit(clsort_context *ctx, const clsort_spec *spec, size_t *chunk);
/* The algorithm that runs for a spec on this device, variants resolved (for stats). */
clsort_algorithm clsort_dispatch_ran(const clsort_context *ctx, const clsort_spec *spec, size_t n);
/* ... for n records of host arrays: auto takes host-radix for small ones on any device
 * (clsort_host_radix_small_bytes()), else as clsort_dispatch_ran(). */
clsort_algorithm clsort_dispatch_ran_host(const clsort_context *ctx, const clsort_spec *spec,
                                          size_t n);
/* Variable segments: the spec's algorithm sorts them (auto, radix8, radix8-rts) and n_seg segments
 * of n keys fit the device (with_data: the key and value buffers are ours too). */
clsort_status clsort_dispatch_check_segments(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                             size_t n_seg, int with_data);
/* Enqueue the whole sort as a chain after the wait list; on success ctx->first_event/last_event
 * hold its ends (a marker when there was nothing to do). */
clsort_status clsort_dispatch(clsort_context *ctx, clsort_job *job, cl_uint n_wait,
                              const cl_event *wait);

/* ==== host runs ==== */
/* ---- run.c: one device sort of host arrays (checked to fit) ---- */
clsort_status clsort_run_host(clsort_context *ctx, const clsort_spec *spec, void *keys,
                              void *values, size_t n, clsort_stats *stats);
/* The same, the records read from from_keys / from_values (left as they are; the same arrays or
 * apart): a whole array that host-radix sorts where it is reads them there, others are copied. */
clsort_status clsort_run_host_from(clsort_context *ctx, const clsort_spec *spec,
                                   const void *from_keys, const void *from_values, void *keys,
                                   void *values, size_t n, clsort_stats *stats);
/* The same with variable segments: n_seg + 1 offsets, checked. */
clsort_status clsort_run_host_segments(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                       void *values, size_t n, const uint64_t *offsets,
                                       size_t n_seg, clsort_stats *stats);
/* Allocate (and keep) every buffer such a run of n keys needs, and build its programs, enqueuing
 * nothing: clsort_reserve(). */
clsort_status clsort_run_reserve(clsort_context *ctx, const clsort_spec *spec, size_t n);
/* The same for a sort in the caller's buffers (as clsort_enqueue() sorts them, or with
 * index_values as clsort_argsort_enqueue() does): scratch and programs only. */
clsort_status clsort_reserve_buffers(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                     cl_mem values, size_t n, int index_values);
/* ---- chunk.c: n keys in runs of at most `chunk` keys, each sorted by clsort_run_host() and merged
 * on the host (merge.h) ---- */
clsort_status clsort_sort_chunked(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                  void *values, size_t n, size_t chunk, clsort_stats *stats);
/* One run's device times and program counts added to a total. */
void clsort_stats_add(clsort_stats *total, const clsort_stats *s);
/* ---- segbatch.c: variable segments of host arrays in batches of whole segments of at most `cap`
 * keys (and segments), each one device run; a longer segment alone, by clsort_sort_chunked() ---- */
/* The most keys (and segments) one device run of segments takes, lowered to CLSORT_CHUNK_KEYS;
 * under 2 when none fits. */
size_t clsort_segments_batch_cap(clsort_context *ctx, const clsort_spec *spec);
clsort_status clsort_sort_segments_batched(clsort_context *ctx, const clsort_spec *spec,
                                           void *keys, void *values, size_t n,
                                           const uint64_t *off, size_t n_seg, size_t cap,
                                           clsort_stats *stats);

/* embedded sources (generated from cl/) */
extern const char clsort_cl_common[];
extern const size_t clsort_cl_common_len;
extern const char clsort_cl_bitonic[];
extern const size_t clsort_cl_bitonic_len;
extern const char clsort_cl_oddeven[];
extern const size_t clsort_cl_oddeven_len;
extern const char clsort_cl_radix_base[];
extern const size_t clsort_cl_radix_base_len;
extern const char clsort_cl_radix_serial[];
extern const size_t clsort_cl_radix_serial_len;
extern const char clsort_cl_radix_histogram[];
extern const size_t clsort_cl_radix_histogram_len;
extern const char clsort_cl_radix_rts[];
extern const size_t clsort_cl_radix_rts_len;
extern const char clsort_cl_radix_ranking[];
extern const size_t clsort_cl_radix_ranking_len;
extern const char clsort_cl_radix_chains[];
extern const size_t clsort_cl_radix_chains_len;
extern const char clsort_cl_radix_binning[];
extern const size_t clsort_cl_radix_binning_len;
extern const char clsort_cl_radix_hybrid[];
extern const size_t clsort_cl_radix_hybrid_len;
extern const char clsort_cl_keys[];
extern const size_t clsort_cl_keys_len;
extern const char clsort_cl_scan[];
extern const size_t clsort_cl_scan_len;
extern const char clsort_cl_records[];
extern const size_t clsort_cl_records_len;
extern const char clsort_cl_index[];
extern const size_t clsort_cl_index_len;
extern const char clsort_cl_top[];
extern const size_t clsort_cl_top_len;
extern const char clsort_cl_fields[];
extern const size_t clsort_cl_fields_len;
extern const char clsort_cl_segments_tiles[];
extern const size_t clsort_cl_segments_tiles_len;
extern const char clsort_cl_segments_short[];
extern const size_t clsort_cl_segments_short_len;

#endif
