/*
 * libclsort: portable sorting on OpenCL devices.
 *
 * This header is the whole public interface of the library.
 */

#ifndef CLSORT_H
#define CLSORT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLSORT_BUILDING_LIBRARY) && defined(__GNUC__)
#define CLSORT_API __attribute__((visibility("default")))
#else
#define CLSORT_API
#endif

/** @file clsort.h
 *
 * @mainpage libclsort
 *
 * A context (::clsort_context) holds one OpenCL device, its context, a command queue and the kernel
 * programs built for it. Open one with clsort_open() (the library picks or looks up a device) or with
 * clsort_open_with_queue() (the library borrows the caller's queue), each also with settings
 * (clsort_open_with_settings(), clsort_open_with_queue_and_settings()), sort host arrays with
 * clsort_sort() or the caller's own buffers with clsort_enqueue() (segments of different lengths,
 * given by offsets: clsort_sort_segments(), clsort_enqueue_segments()), and release everything with
 * clsort_close().
 *
 * Kernel programs are compiled for the device the first time a sort needs them and their binaries are
 * cached on disk (see clsort_open()), so later processes start without compiling.
 *
 * A context is not thread-safe: use one context per thread, or serialise calls on a shared one.
 *
 * Settings. A context reads its settings once, when it opens (a sort never reads them): those given
 * to clsort_open_with_settings() or clsort_open_with_queue_and_settings(), as names and values of
 * text, then, for each setting not given, its environment variable: `CLSORT_` and the name in upper
 * case. The environment only fills defaults: a setting given through the API wins over its variable,
 * also when its value is empty. An empty value is the default. clsort_setting_names() lists the
 * names; libclsort(3), ENVIRONMENT, says more of each.
 *
 *   name (variable) = value: what it does
 * - `device` (`CLSORT_DEVICE`) = a device string: the device clsort_open() takes when given NULL
 *   (clsort_list_devices() marks the one `CLSORT_DEVICE` names as the default); refused with a
 *   borrowed queue, whose device it is.
 * - `no_cache` (`CLSORT_NO_CACHE`) = anything but 0: neither read nor write the on-disk program cache.
 * - `cache_dir` (`CLSORT_CACHE_DIR`) = a directory: the program cache's; by default
 *   `$XDG_CACHE_HOME/clsort`, else `~/.cache/clsort`.
 * - `build_options` (`CLSORT_BUILD_OPTIONS`) = extra compiler options appended to every OpenCL
 *   program build, words separated by white space. Refused (CLSORT_ERROR_INVALID_ARGUMENT from the
 *   open): options that define or undefine a macro the library sets, in any spelling (-DNAME,
 *   -D NAME, -D=NAME, -UNAME, --define-macro...); options that bring in files or pass words on to
 *   another stage (-I, -include, -imacros, @FILE, -Xclang, -Wp,); and any quote (' or ") or
 *   backslash, which the accepted options (compiler options such as -w, -D of other names with
 *   plain values) never need.
 * - `scratch_keep` (`CLSORT_SCRATCH_KEEP`) = MiB: at most this much scratch kept from one sort to
 *   the next (by default no limit; 0 keeps none); see clsort_reserve().
 * - `stage_bytes` (`CLSORT_STAGE_BYTES`) = bytes (16 or more) of each of clsort_sort_stream()'s four
 *   staging buffers (default 8 MiB).
 * - `staging` (`CLSORT_STAGING`) = pinned|use|host: what those buffers are: device-allocated host
 *   memory (CL_MEM_ALLOC_HOST_PTR, mapped; the default, and what NVIDIA transfers fastest), the
 *   library's own memory wrapped as CL_MEM_USE_HOST_PTR, or plain host memory; for measurements.
 * - `device_merge` (`CLSORT_DEVICE_MERGE`) = 0|1: clsort_sort_stream() merges its runs by sorting
 *   each merge block on the device (1, the default) or on the host's threads alone (0).
 * - `device_gather` (`CLSORT_DEVICE_GATHER`) = 0|1: clsort_sort_records() keeps the records on the
 *   host (0; the default on a CPU device) or sends them to the device (1; the default where the
 *   device has memory of its own and two copies of them fit).
 * - `profile` (`CLSORT_PROFILE`; `radix8_profile`, `CLSORT_RADIX8_PROFILE`, is an older name) =
 *   anything but 0: radix4, radix8, bitonic and the device scan wait for each of their commands and
 *   print its device time to standard error (profiling queues only).
 *
 * Tuning, for tuning runs: each overrides the device's row of the tuning table.
 * - `sort_tuning` (`CLSORT_SORT_TUNING`) = WGxITEMS[xGLOBAL]: work-group size and keys per work-item
 *   of the bitonic and odd-even kernels (powers of two, ITEMS 4..64).
 * - `seg_short_tuning` (`CLSORT_SEG_SHORT_TUNING`) = WGxITEMS, or 0: short variable segments in a
 *   launch of their own of that shape (0, the default: with the medium ones).
 * - `bitonic_wide` (`CLSORT_BITONIC_WIDE`), `bitonic_carry` (`CLSORT_BITONIC_CARRY`): bitonic's
 *   levels through local memory in one pass, and its keys in registers across barriers (0|1).
 * - `seg_bitonic_max` (`CLSORT_SEG_BITONIC_MAX`): the most keys a group of short segments sorts by
 *   the bitonic network; `single_tile_max` (`CLSORT_SINGLE_TILE_MAX`): the most keys of a whole
 *   array radix8 sorts in one work-group (0: never).
 * - `radix8_wg`, `radix8_items`, `radix8_ptx`, `radix8_match`, `radix8_match_split`,
 *   `radix8_lb_at`, `radix8_lb_win`, `radix8_hist_per_cu`, `radix8_kv` (`CLSORT_RADIX8_WG`,
 *   `CLSORT_RADIX8_ITEMS`, `CLSORT_RADIX8_PTX`, `CLSORT_RADIX8_MATCH`, `CLSORT_RADIX8_MATCH_SPLIT`,
 *   `CLSORT_RADIX8_LB_AT`, `CLSORT_RADIX8_LB_WIN`, `CLSORT_RADIX8_HIST_PER_CU`, `CLSORT_RADIX8_KV`):
 *   radix8's and radix4's work-group shape, warp ranking, look-back and histogram.
 * - `radix8_serial` (`CLSORT_RADIX8_SERIAL`) = N: reduce-then-scan in its serial form on any device,
 *   N tiles per compute unit (0: off, also on CPU devices).
 * - `hybrid_wave_keys`, `hybrid_lag`, `hybrid_min_n` (`CLSORT_HYBRID_WAVE_KEYS`,
 *   `CLSORT_HYBRID_LAG`, `CLSORT_HYBRID_MIN_N`): radix-hybrid's records per wave, steps between a
 *   wave's passes (1 to 4), and the size from which auto takes it.
 *
 * An unknown name, a name given twice, a NULL value, or a value that does not parse or is out of
 * range (given or from the environment) makes the open fail with ::CLSORT_ERROR_INVALID_ARGUMENT,
 * with a detail (clsort_last_error_detail()) naming the setting ("setting stage_bytes='x'") or the
 * variable ("CLSORT_STAGE_BYTES='x'"), its value and what it expects. The library also reads
 * `XDG_CACHE_HOME` and `HOME` for the default cache directory and `TMPDIR` for the run files of
 * clsort_sort_stream() when its settings name no directory.
 */

/** Library version as a string, e.g. "0.1.0". */
#define CLSORT_VERSION_STRING "0.1.0"

/**
 * Status codes.
 *
 * Zero is success. OpenCL's own (negative) error codes are passed through unchanged, so a value such as
 * -4 is CL_MEM_OBJECT_ALLOCATION_FAILURE; clsort_status_string() names both kinds. The library's own
 * codes lie below -2000, outside the range OpenCL and its extensions use.
 */
typedef enum clsort_status {
    CLSORT_OK = 0,
    /** An argument is invalid (NULL pointer, unknown enum value, inconsistent spec). */
    CLSORT_ERROR_INVALID_ARGUMENT = -2001,
    /** No OpenCL platform or device is available, or a device string matched none. */
    CLSORT_ERROR_NO_DEVICE = -2002,
    /** A device string is malformed or ambiguous. */
    CLSORT_ERROR_BAD_DEVICE_STRING = -2003,
    /** A kernel program failed to build; clsort_error_detail() holds the build log. */
    CLSORT_ERROR_BUILD_FAILED = -2004,
    /** Host memory could not be allocated. */
    CLSORT_ERROR_OUT_OF_HOST_MEMORY = -2005,
    /** The input (with the scratch space the algorithm needs) does not fit in device memory. */
    CLSORT_ERROR_TOO_LARGE = -2006,
    /** The requested combination (algorithm, key type, value size) is not supported. */
    CLSORT_ERROR_UNSUPPORTED = -2007,
    /** The device lacks a capability the library needs (e.g. profiling or local memory). */
    CLSORT_ERROR_DEVICE_UNSUITABLE = -2008,
    /** The input exceeds a size limit of the chosen algorithm (the odd-even sort's quadratic cost, see
     *  ::CLSORT_ODDEVEN_MAX_KEYS); clsort_error_detail() names the limit and an alternative. */
    CLSORT_ERROR_LIMIT = -2009,
    /** A clsort_sort_stream() source or sink callback reported an error (it says why itself). */
    CLSORT_ERROR_IO = -2010,
} clsort_status;

/**
 * Key types. Keys are stored in the device's byte order (little-endian on every supported device).
 *
 * Floating-point keys sort by default (::CLSORT_FLOAT_TOTAL) in IEEE 754 total order: -NaN < -inf < negative numbers < -0.0 < +0.0 <
 * positive numbers < +inf < +NaN, with NaNs ordered by their payload (a larger payload is further from
 * zero). Inside the kernels every key is mapped to an unsigned integer with that order (the sign bit
 * flipped for signed integers; for floats the sign bit flipped on positive values and all bits on
 * negative ones); the mapping is undone when keys are stored, so no extra passes are made.
 */
typedef enum clsort_key_type {
    CLSORT_KEY_U32 = 0, /**< unsigned 32-bit integers */
    CLSORT_KEY_I32 = 1, /**< signed 32-bit integers (two's complement) */
    CLSORT_KEY_F32 = 2, /**< IEEE 754 single precision */
    CLSORT_KEY_U64 = 3, /**< unsigned 64-bit integers */
    CLSORT_KEY_I64 = 4, /**< signed 64-bit integers (two's complement) */
    CLSORT_KEY_F64 = 5, /**< IEEE 754 double precision */
} clsort_key_type;

/**
 * Orders of floating-point keys (clsort_spec::float_order); integer keys ignore it.
 */
typedef enum clsort_float_order {
    /** IEEE 754 total order (see ::clsort_key_type): -0.0 before +0.0, NaNs by sign and payload. */
    CLSORT_FLOAT_TOTAL = 0,
    /**
     * numpy's order (`numpy.sort(kind='stable')`): numbers by value, -0.0 and +0.0 equal keys, every
     * NaN after every number, all NaNs equal keys (whatever their sign and payload). Equal keys keep
     * their input order in the stable algorithms, and every key comes out with its own bits (-0.0
     * stays -0.0, a NaN keeps its payload). Descending: the numbers from the largest down, NaNs
     * still last (as pandas' `na_position='last'`), equal keys still in input order.
     * clsort_key_order() gives -0.0 and +0.0 one value and every NaN the largest (the bit range's
     * mask).
     *
     * How: ::CLSORT_ALGO_HOST_RADIX reads the order where it reads a digit. The device algorithms
     * sort a canonical form: three passes over the keys before the sort save the zeros and the NaNs
     * (in input order, to a scratch buffer of up to n keys) and write +0.0 for every zero and one
     * NaN for every NaN; three passes after it put the saved keys back, in their order, where the
     * zeros and the NaNs landed (they are equal keys, so the stable sort left them in input order).
     * The comparison sorts (bitonic, oddeven: not stable) take it for keys without values only
     * (with values ::CLSORT_ERROR_UNSUPPORTED); clsort_top() and clsort_top_enqueue() refuse it
     * (::CLSORT_ERROR_UNSUPPORTED).
     */
    CLSORT_FLOAT_NUMPY = 1,
} clsort_float_order;

/** Algorithms. */
typedef enum clsort_algorithm {
    /** Let the library choose for the device and the size: host-radix on a CPU device that shares
     *  host memory (whole arrays and segments), and for host arrays small enough that the round
     *  trip to the device costs more than the sort (NVIDIA GPUs: up to 32 KiB of keys and values,
     *  sorted on the calling thread, in clsort_sort() and the like and in clsort_sort_stream() for
     *  an input whose size is known); else radix8; for segments, see
     *  clsort_spec::segment and clsort_sort_segments(). Stable
     *  wherever stability can be seen: it picks an unstable algorithm (bitonic, for short
     *  segments) only for keys without values compared on every bit, where equal keys are
     *  identical. */
    CLSORT_ALGO_AUTO = 0,
    /** 4-bit LSD radix sort: one pass (histogram, scan, stable scatter) per 4 bits of the bit range.
     *  Every key type, order and bit range; values of 0, 4 or 8 bytes; whole arrays only. Stable. */
    CLSORT_ALGO_RADIX4 = 1,
    /** 8-bit LSD radix sort: one stable binning pass per 8 bits of the bit range, with the scan
     *  strategy the device's tuning table names (onesweep where look-back is known to be safe and
     *  pays, else reduce-then-scan; segments always take reduce-then-scan). Every key type, order and
     *  bit range; values of 0, 4 or 8 bytes; segments. Stable. */
    CLSORT_ALGO_RADIX8 = 2,
    /** radix8 with decoupled look-back (Onesweep) forced. Needs forward progress between
     *  work-groups: on a device without it this can hang; prefer ::CLSORT_ALGO_RADIX8. Whole arrays
     *  only (segments: ::CLSORT_ERROR_UNSUPPORTED). */
    CLSORT_ALGO_ONESWEEP = 3,
    /** radix8 with reduce-then-scan forced (per-tile histograms, a scan, then the binning pass). */
    CLSORT_ALGO_RADIX8_RTS = 4,
    /**
     * Bitonic sort: each work-group sorts a tile in local memory, then bitonic merge stages sort the
     * whole array (or each segment). O(n log² n) work, in place, any n. Every key type, order and bit
     * range; values of 0, 4 or 8 bytes. Not stable: keys that compare equal may come out with their
     * values in any order (argsorts and clsort_sort_records() refuse it).
     */
    CLSORT_ALGO_BITONIC = 5,
    /**
     * Odd-even transposition sort: tiles (and segments of up to a tile) are sorted in local memory in
     * as many alternating odd/even compare-exchange phases as they have keys; longer arrays or segments
     * are sorted as blocks with odd-even merge-split phases between neighbouring blocks. Its cost grows
     * as n², so arrays or segments longer than ::CLSORT_ODDEVEN_MAX_KEYS are refused with
     * ::CLSORT_ERROR_LIMIT unless clsort_spec::allow_quadratic is set. Takes what bitonic takes. A
     * teaching baseline. Not stable (argsorts and clsort_sort_records() refuse it).
     */
    CLSORT_ALGO_ODDEVEN = 6,
    /**
     * Host radix sort: the keys and values are mapped (by a thread of the library, on a queue of
     * its own, once the wait list and what was enqueued before completed) and sorted by the host's
     * threads, one per compute unit of the device, with 8-bit digits: the highest digit place that
     * varies splits the records into buckets, and each bucket is sorted by the lower places in the
     * core's cache; places where every key has the same digit are skipped. A barrier behind a user
     * event ends the sort on the caller's queue, so clsort_enqueue() returns at once and its event
     * completes when the sort has. On a CPU device the maps hand out the buffers' own memory;
     * elsewhere they copy, and the device's algorithms are faster. Segments (fixed or given by
     * offsets) are sorted each on its own: those of up to 4 MiB of records by one thread in cache,
     * the threads taking them as they come, longer ones on every thread in turn.
     * ::CLSORT_ALGO_AUTO picks it on CPU devices that share host memory, and for the smallest host
     * arrays on any device (see ::CLSORT_ALGO_AUTO). Every key type, order and
     * bit range; values of 0, 4 or 8 bytes; segments. Stable.
     */
    CLSORT_ALGO_HOST_RADIX = 7,
    /**
     * Hybrid radix sort: one radix8 onesweep pass over the most significant digit place splits the
     * keys into up to 256 buckets, then one launch sorts every bucket by the lower places, in waves
     * of buckets small enough to stay in the device's last-level cache between passes, so that a
     * 32-bit key moves about 24 bytes of memory traffic where LSD passes move 36. Needs forward
     * progress between work-groups, as ::CLSORT_ALGO_ONESWEEP does (on a device without it this
     * can hang). Inputs of 2^30 keys or more, bit ranges of one digit place and segments take
     * radix8's passes instead. ::CLSORT_ALGO_AUTO picks it for large whole arrays on devices whose
     * tuning says it pays. Every key type, order and bit range; values of 0, 4 or 8 bytes. Stable.
     */
    CLSORT_ALGO_RADIX_HYBRID = 8,
} clsort_algorithm;

/** Longest array or segment ::CLSORT_ALGO_ODDEVEN sorts without clsort_spec::allow_quadratic. */
#define CLSORT_ODDEVEN_MAX_KEYS 65536

/** What to sort and how. Initialise with clsort_spec_default() and change what you need. */
typedef struct clsort_spec {
    clsort_key_type key_type;   /**< type of the keys; default ::CLSORT_KEY_U32 */
    size_t value_size;          /**< bytes per value: 0 (keys only), 4 or 8; default 0 */
    clsort_algorithm algorithm; /**< default ::CLSORT_ALGO_AUTO */
    /**
     * Non-zero: descending order. Stable algorithms stay stable (equal keys keep their input order); it
     * is not a reversal of the ascending result. Default 0.
     */
    int descending;
    /**
     * Bit range [begin_bit, end_bit) of the mapped key (see ::clsort_key_type) that decides the order;
     * the other bits are carried along but ignored, and the radix sorts make only the passes the range
     * needs (keys known to be below 2^16: begin 0, end 16, half the passes). end_bit 0 means the key's
     * width; the defaults (0, 0) use every bit. Every algorithm takes a range; the comparison sorts
     * compare only its bits.
     */
    unsigned begin_bit, end_bit;
    /**
     * Batched segments: 0 (the default) sorts the whole array; N > 0 sorts each consecutive run of N
     * keys (with their values) independently. When n is not a multiple of N, the last segment is the
     * n % N keys left over, sorted on their own. Supported by ::CLSORT_ALGO_BITONIC,
     * ::CLSORT_ALGO_ODDEVEN, ::CLSORT_ALGO_RADIX8, ::CLSORT_ALGO_RADIX8_RTS and
     * ::CLSORT_ALGO_HOST_RADIX (stable); ::CLSORT_ALGO_AUTO picks host-radix on a CPU device that
     * shares host memory, else bitonic for segments of up to 32768 keys without values compared on
     * every bit (equal keys are then identical, so their order cannot be seen) and radix8, stable,
     * for longer ones and all others;
     * ::CLSORT_ALGO_RADIX4, ::CLSORT_ALGO_ONESWEEP and ::CLSORT_ALGO_RADIX_HYBRID return
     * ::CLSORT_ERROR_UNSUPPORTED.
     * Segments of different lengths: clsort_sort_segments() and clsort_enqueue_segments().
     */
    size_t segment;
    /**
     * Non-zero lets ::CLSORT_ALGO_ODDEVEN sort arrays or segments longer than
     * ::CLSORT_ODDEVEN_MAX_KEYS despite its O(n²) cost; default 0 (refused with ::CLSORT_ERROR_LIMIT).
     */
    int allow_quadratic;
    /** Order of float keys: ::CLSORT_FLOAT_TOTAL (default) or ::CLSORT_FLOAT_NUMPY; integer keys
     *  ignore it. Another value: ::CLSORT_ERROR_INVALID_ARGUMENT. */
    clsort_float_order float_order;
} clsort_spec;

/** Measurements of one clsort_sort() or clsort_sort_stream() call. Times are in milliseconds. */
typedef struct clsort_stats {
    size_t n;                 /**< number of keys sorted */
    const char *algorithm;    /**< name of the algorithm that ran, e.g. "radix4"; for radix8 the
                                   variant that ran, "radix-hybrid", "onesweep" or "radix8-rts"
                                   (static storage) */
    double kernel_ms;         /**< time the sort's kernels ran on the device (profiling events) */
    double upload_ms;         /**< host to device transfer */
    double download_ms;       /**< device to host transfer */
    double total_ms;          /**< wall time of the whole call, allocation and transfers included */
    double gkeys_per_s;       /**< n / kernel time, in 10^9 keys per second (0 when n is 0) */
    unsigned programs_built;  /**< programs compiled from source during this call */
    unsigned programs_cached; /**< programs loaded from the on-disk cache during this call */
    /** Digit passes left out because every key had the same digit there (onesweep reads this from
     *  its up-front histogram; keys below 2^16 skip 2 of 4 passes, equal keys all 4). Through
     *  clsort_enqueue(), which does not wait, such a pass copies each tile as it is instead. */
    unsigned passes_skipped;
    /* clsort_sort_stream() only (0 otherwise). upload_ms and download_ms are then the device's
     * transfer time, which overlaps the reads and writes. */
    double read_ms;           /**< time spent in the source callback */
    double write_ms;          /**< time spent in the sink callback */
    double merge_ms;          /**< host merge of the runs, the sink's time excluded */
    double prepare_ms;        /**< device buffers, programs and warm-up (clsort_reserve()) */
    unsigned runs;            /**< device sorts: 1 when the input fit one */
    int warmed_up;            /**< prepare ran the kernels once: the device compiles each kernel at
                                   its first launch (PoCL), which would otherwise be timed */
    const char *staging;      /**< "pinned", "use-host-ptr" or "host" (static storage); "none"
                                   where the input was read whole into host memory and sorted
                                   there by the host's threads (a CPU device), with no staging */
    unsigned runs_spilled;    /**< runs written to temporary files */
    double spill_ms;          /**< writing temporary files (runs and merge levels) */
    unsigned merge_levels;    /**< merges before the final one (runs beyond the fan-in) */
    unsigned merge_threads;   /**< threads that merged (or, with merged_on_device, read blocks) */
    int merged_on_device;     /**< the merge's blocks were sorted on the device (see
                                   clsort_sort_stream()) */
    uint64_t temp_bytes;      /**< bytes written to temporary files, every level together */
    uint64_t memory_bytes;    /**< the budget the call worked within */
    /* clsort_sort_lines() and clsort_sort_lines_stream() only (0 otherwise): wall time of the
     * host's steps around the sort of the prefixes */
    double split_ms;          /**< the lines found (where each starts) */
    double keys_ms;           /**< each line's 64-bit prefix made */
    double sort_ms;           /**< the prefixes sorted with the lines' positions */
    double ties_ms;           /**< lines of equal prefixes ordered by the comparison; -u */
    double gather_ms;         /**< the sorted lines copied out, beyond what the sink's writes hid */
} clsort_stats;

/** Opaque sorting context. */
typedef struct clsort_context clsort_context;

/** Description of one OpenCL device, as listed by clsort_list_devices(). */
typedef struct clsort_device_info {
    char id[32];              /**< "P:D" indices, usable as a device string */
    char platform[128];       /**< platform name */
    char name[128];           /**< device name */
    char vendor[128];         /**< device vendor */
    char driver_version[64];  /**< driver version */
    char type[16];            /**< "GPU", "CPU", "accelerator" or "other" */
    cl_ulong global_mem;      /**< global memory in bytes */
    cl_ulong max_alloc;       /**< largest single buffer in bytes */
    cl_ulong local_mem;       /**< local memory per work-group in bytes */
    unsigned compute_units;   /**< number of compute units */
    int is_default;           /**< non-zero for the device clsort_open(NULL) would pick */
    char algorithms[256];     /**< algorithms (and variants) the library runs on this device */
} clsort_device_info;

/**
 * List the OpenCL devices of all platforms.
 *
 * @param out   array to fill, may be NULL when cap is 0
 * @param cap   number of entries @p out has room for
 * @param count receives the number of devices present (which may exceed @p cap)
 * @return ::CLSORT_OK, or an error (no platform is not an error: *count is 0)
 */
CLSORT_API clsort_status clsort_list_devices(clsort_device_info *out, size_t cap, size_t *count);

/**
 * Open a context on a device.
 *
 * @param ctx    receives the new context; set to NULL on failure
 * @param device device string, or NULL to use `$CLSORT_DEVICE` and, if that is unset or empty, the
 *               default device: the GPU with the most compute units × clock, else the first CPU device,
 *               else any device. A device string is `P:D`, `P` or `:D`, where P selects the platform
 *               and D the device, each either an index (as clsort_list_devices() numbers them) or a
 *               case-insensitive substring of the platform name or vendor / device name; P may
 *               also be an alias, "pocl" (Portable Computing Language), "nvidia", "amd" or
 *               "intel", and D a type, "cpu", "gpu" or "accelerator" ("pocl:cpu", ":gpu"). A
 *               single word without a colon that is not a number is a type, else a platform
 *               (name, vendor or alias), and only where no platform matches, a part of a device
 *               name: "amd" is AMD's platform, not a CPU device named "AMD EPYC" on another
 *               platform, unless no AMD platform is installed. A string that matches nothing gives
 *               ::CLSORT_ERROR_NO_DEVICE with a detail listing the devices and the names accepted.
 * @return ::CLSORT_OK, ::CLSORT_ERROR_NO_DEVICE, ::CLSORT_ERROR_BAD_DEVICE_STRING or an OpenCL error
 */
CLSORT_API clsort_status clsort_open(clsort_context **ctx, const char *device);

/**
 * Open a context that borrows the caller's command queue (and its device and context).
 *
 * The queue is retained and released again by clsort_close(). clsort_sort() reports kernel times only
 * if the queue was created with CL_QUEUE_PROFILING_ENABLE. An out-of-order queue is supported: the
 * library orders its own commands with events.
 */
CLSORT_API clsort_status clsort_open_with_queue(clsort_context **ctx, cl_command_queue queue);

/** A setting given when a context opens (see "Settings" above): a name of clsort_setting_names(),
 *  such as "stage_bytes", and its value as text, as its variable would hold it ("1048576"); ""
 *  is the default. The library reads both during the open only. */
typedef struct clsort_setting {
    const char *name;
    const char *value;
} clsort_setting;

/**
 * clsort_open() with settings: @p count settings at @p settings (NULL when count is 0), each read
 * in place of its environment variable; the environment fills in the rest. With no settings it is
 * clsort_open(). The `device` setting is taken when @p device is NULL or empty, as `CLSORT_DEVICE`
 * is.
 *
 * @return as clsort_open(); ::CLSORT_ERROR_INVALID_ARGUMENT, with a detail naming the setting, for
 *         an unknown name, a name given twice, a NULL name or value, or a value that does not parse
 */
CLSORT_API clsort_status clsort_open_with_settings(clsort_context **ctx, const char *device,
                                                   const clsort_setting *settings, size_t count);

/** clsort_open_with_queue() with settings, as clsort_open_with_settings() takes them (all but
 *  `device`: the queue's device is the context's). */
CLSORT_API clsort_status clsort_open_with_queue_and_settings(clsort_context **ctx,
                                                             cl_command_queue queue,
                                                             const clsort_setting *settings,
                                                             size_t count);

/** The names of the settings, in the order "Settings" above gives them, ending with NULL: what
 *  clsort_open_with_settings() takes, for bindings that pass settings on. */
CLSORT_API const char *const *clsort_setting_names(void);

/** Release a context and set *ctx to NULL. Does nothing when ctx or *ctx is NULL. */
CLSORT_API void clsort_close(clsort_context **ctx);

/** Fill a spec with the defaults: u32 keys, no values, automatic algorithm. */
CLSORT_API void clsort_spec_default(clsort_spec *spec);

/**
 * Sort host arrays: upload, sort on the device, download; blocks until done.
 *
 * On a device with memory of its own, arrays of 512 MiB or more (and from the context's second
 * upload of 64 MiB or more, those of 64 MiB or more) go up and come back through two pinned 32 MiB
 * staging slots that the host's
 * threads fill and empty while the device transfers the other: the caller's pageable memory
 * crosses at several times the driver's own speed (2^28 u32 keys on an H100 machine: the whole
 * call 66-70 ms against 210-226 ms, pairs 147-153 against 449-513). The context keeps the slots until clsort_release_scratch() or
 * clsort_close().
 *
 * @param ctx    context
 * @param spec   what to sort; NULL means the defaults
 * @param keys   n keys, sorted in place
 * @param values n values of spec->value_size bytes, permuted with their keys; NULL if value_size is 0
 * @param n      number of keys. More than one device sort takes (clsort_max_keys()) are sorted in
 *               chunks that fit, in a host copy of the input, and merged on the host (stable: on
 *               equal keys the earlier chunk comes first); the caller's arrays are written only once
 *               every chunk has sorted. A copy larger than the host's physical memory is refused
 *               with ::CLSORT_ERROR_TOO_LARGE. Segmented sorts are not chunked.
 * @param stats  receives measurements; may be NULL
 */
CLSORT_API clsort_status clsort_sort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                          size_t n, clsort_stats *stats);

/**
 * A sorted copy of host arrays: as clsort_sort() on @p keys and @p values after the n records at
 * @p in_keys and @p in_values were copied there, which are left as they are. The arrays are the
 * same ones (then as clsort_sort()) or do not overlap. Where host-radix sorts the arrays where they
 * are (a CPU device), its first pass reads the input there, so the copy costs nothing.
 */
CLSORT_API clsort_status clsort_sort_copy(clsort_context *ctx, const clsort_spec *spec,
                                          const void *in_keys, const void *in_values, void *keys,
                                          void *values, size_t n, clsort_stats *stats);

/**
 * Enqueue a sort of device buffers on the context's queue; returns without waiting.
 *
 * The keys (and values) are sorted in place. The buffers must hold at least n keys / n values
 * (CL_MEM_SIZE; smaller ones are refused with ::CLSORT_ERROR_INVALID_ARGUMENT, the detail naming
 * both sizes). In this and every other call on device buffers, a buffer that the call writes must
 * share no memory with another buffer of the call: the same cl_mem in two roles (keys and values,
 * keys and index, keys or values and offsets, an output of clsort_top_enqueue() and anything else),
 * sub-buffers of one buffer whose bytes in use overlap, or CL_MEM_USE_HOST_PTR buffers over the same
 * host bytes are refused with ::CLSORT_ERROR_INVALID_ARGUMENT before anything is enqueued, the
 * detail naming both roles.
 * Scratch buffers (see clsort_reserve()): on an in-order queue the context keeps them from one sort
 * to the next, so repeated sorts allocate nothing after the first; on an out-of-order queue they are
 * allocated for the call and released when its commands finish.
 *
 * @param ctx    context
 * @param spec   what to sort; NULL means the defaults
 * @param keys   buffer of n keys
 * @param values buffer of n values, or NULL when spec->value_size is 0
 * @param n      number of keys
 * @param n_wait number of events in @p wait
 * @param wait   events that must complete before the sort starts (may be NULL when n_wait is 0)
 * @param done   receives an event that completes when the sort has finished (may be NULL); release it
 *               with clReleaseEvent(). NULL saves a command on an in-order queue: later commands and
 *               clFinish() on the queue see the sorted data all the same.
 */
CLSORT_API clsort_status clsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys, cl_mem values,
                             size_t n, cl_uint n_wait, const cl_event *wait, cl_event *done);

/**
 * Argsort of device buffers: sort the keys in place and write to @p index the input position of each
 * key of the sorted order (stable: equal keys keep their input order), so that the caller can
 * reorder other columns with it. The positions are generated on the device: the caller uploads no
 * index array. Same queue, scratch and event rules as clsort_enqueue(); the spec's key type, order,
 * bit range, segments and algorithm apply. Only stable algorithms are taken: bitonic and oddeven,
 * which would leave equal keys' positions in any order, are refused with ::CLSORT_ERROR_UNSUPPORTED
 * (the detail names the stable ones), and ::CLSORT_ALGO_AUTO always takes a stable one.
 *
 * @param spec       what to sort; spec->value_size must be 0 (the positions are the values)
 * @param keys       buffer of n keys, sorted in place
 * @param index      buffer of n positions of @p index_size bytes: written, not read
 * @param index_size 4 (cl_uint positions, n up to 2^32) or 8 (cl_ulong)
 * @return ::CLSORT_ERROR_INVALID_ARGUMENT for a value size, an index size or an n that do not fit
 *         (the detail names which); ::CLSORT_ERROR_UNSUPPORTED for an algorithm that is not stable
 *         (bitonic, oddeven); else as clsort_enqueue()
 */
CLSORT_API clsort_status clsort_argsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                     cl_mem index, size_t index_size, size_t n, cl_uint n_wait,
                                     const cl_event *wait, cl_event *done);

/**
 * Argsort of host arrays: as clsort_argsort_enqueue(), on host memory, for any n that clsort_sort()
 * takes (the positions are written on the host and sorted with the keys as their values); stable
 * algorithms only, as there.
 *
 * @param stats receives measurements; may be NULL
 */
CLSORT_API clsort_status clsort_argsort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *index,
                             size_t index_size, size_t n, clsort_stats *stats);

/**
 * Sort fixed-size records in place by a key field, stably (equal keys keep their input order); the
 * rest of each record goes with its key.
 *
 * The key is either a number of spec->key_type at @p key_offset (@p key_size 0), ordered as
 * clsort_sort() orders keys (spec->descending and the bit range apply), or a string of @p key_size
 * bytes at @p key_offset compared as unsigned bytes, as memcmp() does (spec->descending applies; a
 * bit range does not). Keys of any length: each 8 bytes cost one 64-bit sort (a 10-byte key: one
 * sort on its last 2 bytes, of 2 digit passes, then one on its first 8), each carrying a permutation.
 * On a device with memory of its own where two copies of the records fit beside the sorts' buffers,
 * the records go to the device once, their keys are read out there, the permutation goes from sort
 * to sort there and the records are gathered by it there: the host does the two transfers (through
 * pinned staging slots that its threads fill and empty, for large runs) and nothing else. Otherwise (a CPU device, too little device memory, `CLSORT_DEVICE_GATHER=0`) only
 * the keys and the permutation go to the device, and the records are gathered on the host's
 * threads into a second copy of them. spec->segment sorts each run of that many records on its
 * own.
 *
 * @param records     n records of @p record_size bytes, sorted in place
 * @param key_offset  where the key starts in a record
 * @param key_size    0: the key is of spec->key_type; else its length in bytes (memcmp order)
 * @param index       receives the input position of each output record (may be NULL)
 * @param stats       receives measurements (kernel_ms: all the sorts); may be NULL
 * @return ::CLSORT_ERROR_INVALID_ARGUMENT for a key that does not fit in the record, a value size,
 *         or a bit range with a key of bytes; ::CLSORT_ERROR_UNSUPPORTED for an algorithm that is not
 *         stable (bitonic, oddeven); else as clsort_sort()
 */
CLSORT_API clsort_status clsort_sort_records(clsort_context *ctx, const clsort_spec *spec, void *records,
                                  size_t n, size_t record_size, size_t key_offset, size_t key_size,
                                  uint64_t *index, clsort_stats *stats);

/**
 * Top-k: the first k records of the sorted order of n records (the k smallest keys, or the largest
 * with clsort_spec::descending), in order: exactly what the first k records of clsort_sort()'s stable
 * sort of the same input would be, equal keys in their input order, values with their keys. Every
 * key type (floats in the IEEE total order of ::clsort_key_type), order, bit range and value size
 * of the spec is honoured; its algorithm is not used (top-k is a radix select of its own, then a
 * stable radix sort of the k records found) and segments are refused with
 * ::CLSORT_ERROR_UNSUPPORTED.
 *
 * The select reads the keys far fewer times than a sort: a histogram of the most significant 8 bits
 * of the bit range, then one pass that takes the records of the buckets below the k-th record's and
 * keeps that bucket's as candidates; later digits (and then the input index, which breaks ties)
 * read only the candidates. Where one bucket holds more than a sixteenth of the input (skewed keys,
 * equal keys), the next digit re-reads the input instead, at most once per 8 bits. Every decision is
 * made on the device: nothing is read back, and clsort_top_enqueue() returns without waiting.
 *
 * Scratch (kept like a sort's, see clsort_reserve()): two candidate buffers of n / 16 + 256 records
 * (keys and 4-byte indices), k indices, a small state buffer, and the radix sort's for k records.
 *
 * @param ctx        context
 * @param spec       key type, order, bit range, value size; NULL means the defaults
 * @param keys       buffer of n keys, not modified
 * @param values     buffer of n values, or NULL when spec->value_size is 0; not modified
 * @param n          number of records, at most 2^32 - 1 (indices are 32 bits; more is
 *                   ::CLSORT_ERROR_LIMIT: take the top k of parts, then the top k of their results
 *                   placed one after the other in input order)
 * @param k          records wanted: 1 <= k <= n, else ::CLSORT_ERROR_INVALID_ARGUMENT (the detail
 *                   names k and n)
 * @param out_keys   buffer of at least k keys, sharing memory with no other buffer of the call:
 *                   receives the result (@p keys and @p values, only read, may share a buffer)
 * @param out_values buffer of at least k values, sharing memory with no other buffer of the call,
 *                   or NULL without values
 * @param n_wait, wait, done   as for clsort_enqueue()
 */
CLSORT_API clsort_status clsort_top_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                            cl_mem values, size_t n, size_t k, cl_mem out_keys,
                                            cl_mem out_values, cl_uint n_wait, const cl_event *wait,
                                            cl_event *done);

/**
 * clsort_top_enqueue() on host arrays: the n records uploaded to the context's kept buffers, the k
 * first of their sorted order written to @p out_keys and @p out_values (k keys, k values); blocks
 * until done. The inputs are not modified. n must fit one device buffer
 * (::CLSORT_ERROR_TOO_LARGE otherwise: take the top k of parts that fit, then of their results in
 * input order; the clsort tool does so for files of any size).
 *
 * @param stats  receives n, algorithm "radix-select", kernel, upload, download and total times;
 *               may be NULL
 */
CLSORT_API clsort_status clsort_top(clsort_context *ctx, const clsort_spec *spec, const void *keys,
                                    const void *values, size_t n, size_t k, void *out_keys,
                                    void *out_values, clsort_stats *stats);

/**
 * Sort variable-length segments of host arrays, each on its own: upload, sort, download; blocks
 * until done. The segments are given CSR style, as CUB's DeviceSegmentedSort takes them: n_seg + 1
 * offsets, the first 0, the last n, none smaller than the one before; segment i is the keys
 * [offsets[i], offsets[i + 1]) (empty when the two are equal). Each segment is sorted stably, with
 * its values, in spec's key type, order and bit range; keys never leave their segment.
 *
 * Offsets that are not CSR are refused with ::CLSORT_ERROR_INVALID_ARGUMENT before any work, the
 * detail naming the first bad entry, its value and what was expected ("segment offsets: entry 3 is
 * 7, below entry 2 (9): expected at least 9 (offsets never decrease)").
 *
 * How: segments of up to a tile of the comparison sorts (a few thousand keys, depending on the
 * device and the key and value sizes) are sorted in local memory in one launch: the short segments
 * (up to half a tile) that start in one stretch of that length by one work-group, which then sorts
 * alone the longer segment that may start there if it fits a tile; longer ones by the radix8
 * reduce-then-scan passes of their bit range, all of them in the same launches, their tiles cut
 * within each segment. Nothing is launched per segment. On a CPU device that shares host memory,
 * ::CLSORT_ALGO_AUTO takes ::CLSORT_ALGO_HOST_RADIX instead: the host's threads sort the segments
 * (several times faster there for segments of up to tens of thousands of keys). spec->algorithm
 * must be ::CLSORT_ALGO_AUTO, ::CLSORT_ALGO_RADIX8, ::CLSORT_ALGO_RADIX8_RTS,
 * ::CLSORT_ALGO_ONESWEEP or ::CLSORT_ALGO_HOST_RADIX (others: ::CLSORT_ERROR_UNSUPPORTED) and
 * spec->segment 0 (else ::CLSORT_ERROR_INVALID_ARGUMENT). Onesweep sorts the long segments by
 * look-back chains, one a segment (radix8 too, where look-back is known to be safe), except in the
 * serial form of CPU devices, where both sort as radix8-rts. More keys (or segments) than one device
 * sort takes are sorted in batches of whole segments, one device sort each, and a segment longer
 * than a batch alone, in runs merged on the host as clsort_sort() does; the batches go through a
 * host copy of the arrays, written back once all have sorted, so a failure leaves them as they were.
 * stats->algorithm is "radix8-rts" or "host-radix" (a long segment's runs: clsort_sort()'s).
 *
 * @param offsets n_seg + 1 offsets (never NULL: n = 0 takes n_seg 0 and offsets {0})
 * @param n_seg   number of segments
 */
CLSORT_API clsort_status clsort_sort_segments(clsort_context *ctx, const clsort_spec *spec,
                                              void *keys, void *values, size_t n,
                                              const uint64_t *offsets, size_t n_seg,
                                              clsort_stats *stats);

/**
 * clsort_sort_segments() on device buffers, enqueued like clsort_enqueue(): the keys and values are
 * sorted in place, and @p offsets is a buffer of at least n_seg + 1 offsets (cl_ulong, CSR as
 * above; a smaller buffer is refused with ::CLSORT_ERROR_INVALID_ARGUMENT). The offsets are not
 * read on the host: the device checks them before it sorts, and if they are not CSR it sorts all n
 * keys as one segment instead. No error is reported then (the call has returned), but nothing is
 * read or written outside the buffers, nothing hangs, and the keys and values stay a permutation of
 * the input. Scratch grows with n and n_seg and is kept as clsort_enqueue()'s is (clsort_reserve()
 * does not reserve it).
 */
CLSORT_API clsort_status clsort_enqueue_segments(clsort_context *ctx, const clsort_spec *spec,
                                                 cl_mem keys, cl_mem values, size_t n,
                                                 cl_mem offsets, size_t n_seg, cl_uint n_wait,
                                                 const cl_event *wait, cl_event *done);

/**
 * Largest n that one device sort of this spec takes on the context's device, from its memory limits.
 * clsort_enqueue() refuses more with ::CLSORT_ERROR_TOO_LARGE before any work; clsort_sort() sorts
 * more in chunks.
 */
CLSORT_API clsort_status clsort_max_keys(clsort_context *ctx, const clsort_spec *spec, size_t *max_n);

/**
 * Scratch memory: the device buffers a sort needs besides the caller's (the radix sorts: a second
 * buffer of the keys and of the values, and small per-tile tables; clsort_sort() also its device copy
 * of the data). On an in-order queue a context keeps them from one call to the next, grows them when
 * a larger sort needs more and never shrinks them, so repeated sorts of any size that fits allocate
 * nothing after the first (`CLSORT_SCRATCH_KEEP=MiB` caps what is kept; 0 keeps nothing). When the
 * device refuses an allocation, the context lets go of what it keeps and tries once more before
 * reporting the error. Nothing is kept on an out-of-order queue, where two sorts may run at once.
 *
 * clsort_reserve() allocates now everything a sort of n keys of this spec needs (for clsort_sort()
 * and clsort_enqueue() alike) and builds its kernel programs, enqueuing nothing, so that the first
 * timed sort allocates and compiles nothing (CUB's temporary-storage query and allocation in one
 * call). For n larger than one device sort takes (clsort_max_keys(), which clsort_enqueue() refuses
 * past), it reserves for one of the chunks that clsort_sort() would sort, and nothing on the host:
 * clsort_sort() allocates its host copy of the input at each such call. Such an n whose host copy
 * (n times the key and value size) is more than the host's physical memory is refused with
 * ::CLSORT_ERROR_TOO_LARGE (the detail gives both sizes), by clsort_reserve() and clsort_sort()
 * alike, as is an n past what one sort takes where the spec has fixed segments (never chunked).
 * clsort_release_scratch() frees what the context keeps now (commands still using a buffer keep it
 * alive until they finish), the two 32 MiB pinned host slots that large transfers of host arrays
 * go through included (made by the first transfer of 512 MiB or more, see clsort_sort()); clsort_close() does too. clsort_scratch_info() tells how many bytes are
 * kept and how many device buffers the context has allocated since it opened (either pointer may be
 * NULL).
 */
CLSORT_API clsort_status clsort_reserve(clsort_context *ctx, const clsort_spec *spec, size_t n);
CLSORT_API void clsort_release_scratch(clsort_context *ctx);
CLSORT_API void clsort_scratch_info(const clsort_context *ctx, size_t *kept_bytes,
                                    unsigned long *allocations);

/**
 * Host memory that a transfer of @p bytes between a host array and the device (clsort_sort(),
 * clsort_sort_records(), clsort_sort_segments() and the other calls on host arrays) would pin now:
 * the two staging slots above, which the context then keeps; 0 where such a transfer goes without
 * them (smaller than 512 MiB, a device that shares host memory, `CLSORT_STAGING=host`) or the
 * context holds them already. For callers that keep to a memory budget (clsort(1)'s `-S`).
 */
CLSORT_API size_t clsort_staging_bytes(const clsort_context *ctx, size_t bytes);

/**
 * Host memory that clsort_sort_records() of @p n such records would take at its peak on this
 * context, besides the records themselves and the staging slots (clsort_staging_bytes()): 0 where
 * the records are gathered on the device or are keys sorted on every bit in place; the positions
 * for keys sorted on some of their bits; else the host's way's permutation, with the keys while it
 * is found and then with a gathered copy of the records. Where a device that looked large enough
 * turns out short of memory, the sort takes the host's way after all. SIZE_MAX for arguments that
 * clsort_sort_records() refuses (no detail is kept). For callers that keep to a memory budget.
 */
CLSORT_API size_t clsort_records_host_bytes(clsort_context *ctx, const clsort_spec *spec, size_t n,
                                            size_t record_size, size_t key_offset,
                                            size_t key_size);

/** clsort_source.n when the number of records is not known in advance (a pipe). */
#define CLSORT_SIZE_UNKNOWN UINT64_MAX

/** Where clsort_sort_stream() gets its records: a callback the library calls until it returns 0. */
typedef struct clsort_source {
    /**
     * Place up to @p max records: keys at @p keys (key-type-sized each, packed) and, when the spec
     * has values, their values at @p values (value_size each); @p values is NULL otherwise. Return
     * how many records were placed (fewer than max is fine; every call gets a new buffer position
     * to fill, so nothing is carried over), 0 at the end of the input, or -1 to stop the sort with
     * ::CLSORT_ERROR_IO (the callback reports its own error).
     *
     * The buffers hold exactly @p max records: the callback may write max × the key size bytes at
     * @p keys (max × (key size + value_size) with @p records) and max × value_size at @p values, and
     * nothing past them; they may be the OpenCL runtime's host memory, where a write past the end
     * corrupts its heap rather than faulting, and which memory checkers such as AddressSanitizer do
     * not see. A return above @p max stops the sort with ::CLSORT_ERROR_INVALID_ARGUMENT, the
     * detail naming both counts (any negative return, as -1, with ::CLSORT_ERROR_IO); nothing of
     * that call is used.
     */
    long long (*read)(void *user, void *keys, void *values, size_t max);
    void *user;
    /** Records the source will give, when known (buffers are sized for it once, and the input is
     *  cut into equal runs), else ::CLSORT_SIZE_UNKNOWN. A hint: more or fewer are sorted too. */
    uint64_t n;
    /** Non-zero: the callback places whole records, each a key followed by its value (key size +
     *  value_size bytes), at @p keys, and @p values is NULL; the device splits them. */
    int records;
} clsort_source;

/** Where clsort_sort_stream() puts the sorted records, in order, a block at a time. */
typedef struct clsort_sink {
    /** @p n records: keys at @p keys, values at @p values (NULL without values); valid only during
     *  the call. Return 0, or non-zero to stop the sort with ::CLSORT_ERROR_IO. */
    int (*write)(void *user, const void *keys, const void *values, size_t n);
    void *user;
    /** Non-zero: records come joined, each key followed by its value, at @p keys (values NULL). */
    int records;
} clsort_sink;

/** How much clsort_sort_stream() may hold and where it may spill (clsort_stream_settings_default()). */
typedef struct clsort_stream_settings {
    /**
     * Bytes of host memory the records may take at once: staging buffers, runs kept in memory,
     * merge buffers, and, on a device that shares host memory (a CPU device), the device's own
     * buffers. No device sort (run) takes more records than fit in it. 0: half of physical memory.
     * The process's other memory (the OpenCL driver, the program) is not counted.
     */
    uint64_t memory_bytes;
    /** Directories for the temporary files of sorted runs, used in turn; NULL or none: `$TMPDIR` as
     *  it was when the context opened, else /tmp. Run files have no name (O_TMPFILE, else they are
     *  unlinked as soon as they are created): they go with the process, however it ends. */
    const char *const *temp_dirs;
    size_t n_temp_dirs;
    /** Threads reading (and, with `CLSORT_DEVICE_MERGE=0`, merging) the runs' blocks; for
     *  clsort_sort_lines_stream(), the host's threads of every step. 0: one per online processor,
     *  at most 16. */
    unsigned threads;
    /** Runs merged at once (2 or more); with more runs, groups are merged into longer runs first.
     *  0: 64. */
    unsigned fan_in;
    /**
     * Called from the calling thread as work advances, at most a few times a second and at each
     * phase's start: @p phase "sort" (reading and sorting runs; @p total the records the source
     * said it has, or 0), "merge" (runs merged into a longer one) or "output" (the final merge
     * into the sink); @p done and @p total in records. NULL: not called.
     */
    void (*progress)(void *user, const char *phase, uint64_t done, uint64_t total);
    void *progress_user;
    /** Records a run (one device sort) takes at most, below what the budget allows: smaller runs
     *  start the output sooner and make runs of small inputs (to test a merge). 0: as the budget
     *  allows. */
    uint64_t run_records;
} clsort_stream_settings;

/** The defaults: everything 0 or NULL. */
CLSORT_API void clsort_stream_settings_default(clsort_stream_settings *settings);

/**
 * Sort records that come from a callback and go to another: a file, a pipe, a socket, a generator;
 * of any size, within a memory budget.
 *
 * The records go through staging buffers the device transfers from fastest (pinned host memory
 * where the device has it; see `CLSORT_STAGING`), a chunk at a time: each chunk is uploaded while
 * the source fills the next, the device sorts (clsort_enqueue()), and chunks download while the sink
 * writes the ones before. When everything fits one device sort and the budget
 * (clsort_stream_settings.memory_bytes), host memory is the staging buffers only (4 x
 * `CLSORT_STAGE_BYTES`, less under a small budget).
 *
 * More records than that are sorted in runs: each run is sorted on the device while the next one is
 * read; a sorted run is kept in host memory while the budget allows, else written to a temporary
 * file (clsort_stream_settings.temp_dirs); where the input is known to need files, two threads
 * write them in turn, each from a run buffer of its own. The runs are then merged a block at a time
 * while the sink writes the blocks before: clsort_stream_settings.threads threads read each block's
 * piece of every run, one after the other in run order, and the device sorts the block (a stable
 * sort of those pieces is their merge; faster than a merge on the host's threads both on an H100 and
 * on a 2-core CPU device, see `CLSORT_DEVICE_MERGE`). More runs than the fan-in are first merged in
 * groups into longer runs. Segmented sorts cut runs at
 * segment boundaries and need no merge. The result is what clsort_sort() gives for the same records,
 * byte for byte (stable).
 *
 * Before the first record is read, the device buffers are allocated and the programs built
 * (clsort_reserve()), so a bad spec or a device too small fails before any input is consumed; when
 * source->n says the input needs temporary files, each directory is checked first (that a file can
 * be made there, that it has the space, that the file-size limit, `ulimit -f`, allows a run: ignore
 * SIGXFSZ so that a file that reaches the limit fails with EFBIG instead of ending the process). On
 * an error the sink may have received part of the output: the caller discards it. An algorithm's
 * size limit (::CLSORT_ODDEVEN_MAX_KEYS) applies to the records the source gives, not to source->n
 * (a hint) or to the buffers: more are refused with ::CLSORT_ERROR_LIMIT as soon as they are read,
 * before any is sorted or written.
 *
 * @param settings  memory budget, temporary directories, threads; NULL for the defaults
 * @param stats     receives measurements (read_ms, write_ms, runs, ... included); may be NULL
 * @return ::CLSORT_OK, ::CLSORT_ERROR_IO when a callback failed or a temporary file could not be
 *         made, written or read (the detail names the directory and the space needed), or the
 *         errors of clsort_enqueue()
 */
CLSORT_API clsort_status clsort_sort_stream(clsort_context *ctx, const clsort_spec *spec,
                                            const clsort_source *source, const clsort_sink *sink,
                                            const clsort_stream_settings *settings,
                                            clsort_stats *stats);

/** How clsort_sort_stream_records() finds the key of a record: fixed-size records by a key field,
 *  as clsort_sort_records() takes them. */
typedef struct clsort_layout {
    /** Bytes of each record (1 or more). */
    size_t record_size;
    /** Where the key starts in a record. */
    size_t key_offset;
    /** 0: the key is a number of clsort_spec::key_type (its order, direction and bit range);
     *  else a string of this many bytes, compared as unsigned bytes (memcmp() order). */
    size_t key_size;
    /** Non-zero: the sink's @p values receives each output record's input position (uint64_t,
     *  counted from 0), as clsort_sort_records()'s index. */
    int index;
} clsort_layout;

/**
 * clsort_sort_stream() for records by a key field: the result is clsort_sort_records() of the whole
 * input, byte for byte (stable: equal keys keep their input order; descending and bit ranges as
 * there), at any size, within the same budget and settings.
 *
 * The source places up to @p max whole records of layout->record_size bytes at its @p keys
 * (@p values is NULL; clsort_source::records is not used); the sink gets @p n records at its
 * @p keys, and their input positions at @p values when layout->index is set (else NULL). Each run
 * the budget holds is read into host memory and sorted by clsort_sort_records() (on the device,
 * with the records there where they fit it); one run goes straight to the sink; more are kept in
 * host memory or written to temporary files, and merged a block at a time as clsort_sort_stream()
 * merges its runs: clsort_stream_settings.threads threads read the blocks, and each block is
 * sorted by clsort_sort_records() (a stable sort of the runs' pieces is their merge; with
 * `CLSORT_DEVICE_MERGE=0` the threads merge them on the host). A key of bytes of any length is
 * cut exactly between blocks (its order is compared 8 bytes at a time). spec->segment sorts each
 * run of that many records on its own, with no merge. Memory: a run's records take about
 * 2 x record_size + 8 x (key words) + 56 bytes each while sorted (half the budget), the runs kept
 * and the merge's blocks the other half.
 *
 * @return as clsort_sort_stream(); ::CLSORT_ERROR_INVALID_ARGUMENT for a layout whose key does not
 *         fit its records, a value size or a bit range with a key of bytes;
 *         ::CLSORT_ERROR_UNSUPPORTED for an algorithm that is not stable (as clsort_sort_records())
 */
CLSORT_API clsort_status clsort_sort_stream_records(clsort_context *ctx, const clsort_spec *spec,
                                                    const clsort_layout *layout,
                                                    const clsort_source *source,
                                                    const clsort_sink *sink,
                                                    const clsort_stream_settings *settings,
                                                    clsort_stats *stats);

/**
 * The OpenCL context and command queue a clsort context works on, to create buffers for
 * clsort_enqueue() and to order other work with it. They stay owned by the clsort context: valid until
 * clsort_close(); retain them to keep them longer. Either pointer may be NULL.
 */
CLSORT_API clsort_status clsort_context_info(const clsort_context *ctx, cl_context *context,
                                             cl_command_queue *queue);

/** Name of the context's device ("platform / device"), valid until clsort_close(). */
CLSORT_API const char *clsort_device_name(const clsort_context *ctx);

/**
 * Where the context's program cache is, or why it is off: the directory (e.g.
 * "/home/u/.cache/clsort"), or "off: " and the reason ("off: CLSORT_NO_CACHE", "off: /tmp/x is
 * writable by others", "off: /tmp/x is owned by uid 1001, not 1000"). The cache uses a directory
 * only when it is owned by the effective user and not writable by group or others and every
 * directory above it is that user's or root's and, where group or others may write it, sticky; it
 * creates missing parts (0700) only where those checks pass, nothing in a directory passed over;
 * it reads only regular files with that owner that group and others cannot write. Valid until clsort_close();
 * "" for NULL.
 */
CLSORT_API const char *clsort_cache_info(const clsort_context *ctx);

/** Text for a status code: the library's own codes and OpenCL's (e.g. "CL_OUT_OF_RESOURCES"). */
CLSORT_API const char *clsort_status_string(clsort_status status);

/**
 * Details of the last error on a context: the failing call, the build log, the limit that was hit.
 * Returns "" when there is none; the text stays valid until the next call on the context.
 */
CLSORT_API const char *clsort_error_detail(const clsort_context *ctx);

/**
 * Details of the last error of a call that had no context to store it in (a failed clsort_open(),
 * clsort_open_with_queue() or clsort_list_devices()), for the calling thread.
 */
CLSORT_API const char *clsort_last_error_detail(void);

/** Name of an algorithm ("auto", "radix4", "radix8", "onesweep", "radix8-rts", "bitonic", "oddeven",
 *  "host-radix"), or NULL for a value that names none. */
CLSORT_API const char *clsort_algorithm_name(clsort_algorithm algorithm);

/** Look up an algorithm by name. @return ::CLSORT_OK or ::CLSORT_ERROR_INVALID_ARGUMENT */
CLSORT_API clsort_status clsort_algorithm_from_name(const char *name, clsort_algorithm *algorithm);

/** Name of a key type ("u32", "i32", "f32", "u64", "i64", "f64"), or NULL for a value that names none. */
CLSORT_API const char *clsort_key_type_name(clsort_key_type type);

/** Look up a key type by name. @return ::CLSORT_OK or ::CLSORT_ERROR_INVALID_ARGUMENT */
CLSORT_API clsort_status clsort_key_type_from_name(const char *name, clsort_key_type *type);

/** Bytes of one key of a type: 4 or 8 (0 for a value that names no type). */
CLSORT_API size_t clsort_key_type_size(clsort_key_type type);

/**
 * A key's place in a spec's order as an unsigned integer: with spec's key type, order, float order
 * and bit range,
 * key a sorts before key b exactly when clsort_key_order(spec, a) < clsort_key_order(spec, b), and the
 * two are equal exactly when the sort treats them as equal. key points at the key's stored bytes
 * (host byte order, any alignment). For host-side merges and checks of sorted data. A NULL spec
 * means the defaults (clsort_spec_default()), as for the sorts; a NULL key gives 0.
 */
CLSORT_API uint64_t clsort_key_order(const clsort_spec *spec, const void *key);

/**
 * clsort_key_order() of n keys at once, stride bytes apart (the key size for a packed array, the
 * record size for records): out[i] is the order of the key at keys + i * stride. Several times
 * faster per key than one call each, for checks of long sorted outputs. A NULL spec means the
 * defaults; with keys or out NULL nothing is written.
 */
CLSORT_API void clsort_key_orders(const clsort_spec *spec, const void *keys, size_t stride,
                                  size_t n, uint64_t *out);

/**
 * @name Text lines
 *
 * Lines of text sorted as `LC_ALL=C sort` (GNU coreutils) sorts them, byte for byte: lines end at
 * clsort_lines_spec::delimiter ('\n', or '\0' for NUL-terminated records); a last line without one
 * is a line. Each line is compared by its keys in turn (GNU sort's `-k POS1[,POS2]` with the
 * modifiers n g h r b f d i), then, when every key compares equal and neither
 * clsort_lines_spec::stable nor clsort_lines_spec::unique is set, by its whole text as unsigned bytes
 * (reversed by clsort_lines_spec::reverse): GNU sort's last-resort comparison. Without keys, the
 * whole line is the key. Numbers are read as in the C locale ('.' the decimal point, no thousands
 * separator), blanks are space, tab and newline.
 *
 * Each key carries its own flags: options that GNU sort applies to all keys (`sort -n -k2`) are the
 * caller's to copy into every key that has none of its own, as GNU sort does; an ordering without
 * keys (`sort -f`) is one key of the whole line (start_field 0, end_field 0) with those flags.
 *
 * The sort: a 64-bit prefix of each line's first key (numbers as order-preserving integers, bytes as
 * their first 8 after the modifiers) is made on the host's threads and sorted on the device with
 * the lines' positions (clsort_argsort()), then the ranges of equal prefixes are ordered on the
 * host's threads by the exact comparison. Stable: lines that compare equal keep their input order.
 * @{
 */

/** Most keys in a clsort_lines_spec. */
#define CLSORT_LINES_MAX_KEYS 64

/** Modifiers of a key (clsort_lines_key::flags), GNU sort's letters. n, g and h exclude each other
 *  and d and i (GNU sort: "options '-dn' are incompatible"); d wins over i. */
enum clsort_lines_flag {
    CLSORT_LINES_NUMERIC = 1 << 0,         /**< n: a decimal number, [-]digits[.digits] */
    CLSORT_LINES_GENERAL_NUMERIC = 1 << 1, /**< g: strtold(); no number < NaN < numbers */
    CLSORT_LINES_HUMAN_NUMERIC = 1 << 2,   /**< h: by the unit after the number (K < M < ... < Q)
                                                 first, then as n */
    CLSORT_LINES_REVERSE = 1 << 3,         /**< r: this key in descending order */
    CLSORT_LINES_BLANKS_START = 1 << 4,    /**< b on POS1: leading blanks of the start field skipped */
    CLSORT_LINES_BLANKS_END = 1 << 5,      /**< b on POS2: leading blanks of the end field skipped */
    CLSORT_LINES_FOLD = 1 << 6,            /**< f: lower-case letters compared as upper-case */
    CLSORT_LINES_DICTIONARY = 1 << 7,      /**< d: only letters, digits and blanks compared */
    CLSORT_LINES_NONPRINTING = 1 << 8,     /**< i: only printable bytes (0x20-0x7e) compared */
    CLSORT_LINES_ALL_FLAGS = (1 << 9) - 1
};

/** One key: GNU sort's `-k start_field.start_char,end_field.end_char` with its modifiers. */
typedef struct clsort_lines_key {
    size_t start_field; /**< POS1's field, from 1; 0: the line's start */
    size_t start_char;  /**< POS1's character in it, from 1; 0 as 1 */
    size_t end_field;   /**< POS2's field, from 1; 0: the key runs to the line's end */
    size_t end_char;    /**< POS2's last character, from 1; 0: the end of end_field */
    unsigned flags;     /**< ::clsort_lines_flag values, or-ed */
} clsort_lines_key;

/** How lines are split and ordered. Initialise with clsort_lines_spec_default(). */
typedef struct clsort_lines_spec {
    char delimiter;  /**< the byte that ends a line: '\n' (default) or '\0' (`sort -z`) */
    /** Fields: -1 (default): a field is blanks then non-blanks (the blanks belong to it, as in
     *  GNU sort without -t); else a byte 0-255 that separates fields (`sort -t`). */
    int separator;
    const clsort_lines_key *keys; /**< n_keys keys, compared in turn */
    size_t n_keys;                /**< 0 to ::CLSORT_LINES_MAX_KEYS */
    int stable;  /**< non-zero: no last-resort comparison (`sort -s`) */
    int unique;  /**< non-zero: keep the first of lines whose keys compare equal (`sort -u`) */
    int reverse; /**< non-zero: the last-resort comparison reversed (`sort -r`) */
} clsort_lines_spec;

/** Fill a spec with the defaults: '\n', fields at blanks, no keys (whole lines as bytes). */
CLSORT_API void clsort_lines_spec_default(clsort_lines_spec *spec);

/** How many lines buf holds: delimiters, plus one for a last line without its delimiter. */
CLSORT_API size_t clsort_lines_count(const clsort_lines_spec *spec, const char *buf, size_t len);

/**
 * Sort the lines of a buffer; the buffer is not changed.
 *
 * @param ctx    a context, or NULL to sort on the host's threads alone
 * @param buf    len bytes of lines
 * @param starts receives where each line starts, clsort_lines_count() + 1 entries (may be NULL):
 *               line i is the bytes [starts[i], starts[i + 1] - 1), without its delimiter;
 *               the last entry is len, or len + 1 when the last line has no delimiter
 * @param order  receives the numbers (from 0) of the lines in sorted order: room for
 *               clsort_lines_count() entries
 * @param n_out  receives how many were written: every line, or with spec->unique the first of each
 *               run of equal keys
 * @param stats  the device sort's measurements, n the lines and total_ms the whole call; may be NULL
 * @return ::CLSORT_ERROR_INVALID_ARGUMENT for a spec that does not hold together (the detail says
 *         why); else as clsort_argsort()
 */
CLSORT_API clsort_status clsort_sort_lines(clsort_context *ctx, const clsort_lines_spec *spec,
                                           const char *buf, size_t len, uint64_t *starts,
                                           uint64_t *order, size_t *n_out, clsort_stats *stats);

/**
 * The lines of a sort's result, one after the other, each ended by spec->delimiter (a last line
 * that had none gets one, as GNU sort writes it), copied on the host's threads.
 *
 * @param starts, order, n  what clsort_sort_lines() gave (n: its *n_out)
 * @param out   room for the lines and their delimiters: len + 1 bytes always suffice
 * @return the bytes written (0 for NULL arguments or n 0)
 */
CLSORT_API size_t clsort_gather_lines(const clsort_lines_spec *spec, const char *buf,
                                      const uint64_t *starts, const uint64_t *order, size_t n,
                                      char *out);

/** Where clsort_sort_lines_stream() gets its bytes: a callback the library calls until it returns 0. */
typedef struct clsort_lines_source {
    /** Place up to @p max bytes of the input at @p buf (lines may be cut anywhere between calls);
     *  return how many were placed, 0 at the end of the input, or -1 to stop the sort with
     *  ::CLSORT_ERROR_IO (the callback reports its own error). A return above @p max stops it
     *  with ::CLSORT_ERROR_INVALID_ARGUMENT. */
    long long (*read)(void *user, char *buf, size_t max);
    void *user;
    /** Bytes the source will give, when known (a block that holds them is allocated at once, and
     *  an input that needs run files has its directories checked before it is read), else
     *  ::CLSORT_SIZE_UNKNOWN. A hint: more or fewer are sorted too. */
    uint64_t size;
    /** May be NULL. Else called once, on the calling thread, just before the first block is
     *  sorted: the context it returns (NULL: the host's threads) sorts in place of the one passed,
     *  so that a device may open while the input is read. */
    clsort_context *(*context)(void *user);
} clsort_lines_source;

/** Where clsort_sort_lines_stream() puts the sorted lines, in order. */
typedef struct clsort_lines_sink {
    /** @p len bytes of the output, lines each ended by the delimiter (a long line may be cut
     *  between calls); valid only during the call. Return 0, or non-zero to stop the sort with
     *  ::CLSORT_ERROR_IO. */
    int (*write)(void *user, const char *buf, size_t len);
    void *user;
} clsort_lines_sink;

/**
 * Sort lines of text that come from a callback and go to another, of any size, within a memory
 * budget: the output is what clsort_sort_lines() and clsort_gather_lines() give for the whole
 * input (GNU sort's order; with spec->unique the first of lines whose keys compare equal,
 * across the whole input), byte for byte.
 *
 * The source's bytes are read into a block until the block, its sorted copy and its line tables
 * (its bytes twice, plus about 96 bytes a line) fill clsort_stream_settings.memory_bytes (0: half of
 * physical memory), or until it holds clsort_stream_settings.run_records lines when that is set.
 * Each block is sorted by clsort_sort_lines() (on the device with @p ctx, on the host's threads
 * with NULL). An input that fits one block goes to the sink with no file; else each sorted block
 * is appended as a run to a nameless file (one per directory and merge level, so that any number
 * of runs takes few descriptors) in clsort_stream_settings.temp_dirs, used in turn (none
 * given: `$TMPDIR` as it was when @p ctx opened, else /tmp; /tmp without a context), and the runs
 * are merged on the calling thread by the same comparison, each read back a buffered block at a
 * time, equal lines taken from the earlier run first; more runs than clsort_stream_settings.fan_in
 * (0: 64) are first merged in groups into longer runs. clsort_stream_settings.threads bounds the
 * host's threads of every step (0: one per online processor, at most 16); the progress setting is
 * not used. A last line without its delimiter gets one. On an error the sink may have received part of
 * the output: the caller discards it.
 *
 * @param ctx       a context, or NULL to sort on the host's threads alone
 * @param settings  memory budget, temporary directories, fan-in; NULL for the defaults
 * @param stats     receives n (the lines read), runs, runs_spilled, merge_levels, temp_bytes,
 *                  memory_bytes, read_ms, write_ms, spill_ms, merge_ms and total_ms; may be NULL
 * @return ::CLSORT_OK; ::CLSORT_ERROR_INVALID_ARGUMENT for a spec that does not hold together or a
 *         NULL callback; ::CLSORT_ERROR_IO when a callback failed or a run file could not be made,
 *         written or read (the detail names the directory and the space needed);
 *         ::CLSORT_ERROR_OUT_OF_HOST_MEMORY; else as clsort_sort_lines()
 */
CLSORT_API clsort_status clsort_sort_lines_stream(clsort_context *ctx,
                                                  const clsort_lines_spec *spec,
                                                  const clsort_lines_source *source,
                                                  const clsort_lines_sink *sink,
                                                  const clsort_stream_settings *settings,
                                                  clsort_stats *stats);

/** The comparison of two lines (without delimiters) that clsort_sort_lines() sorts by: <0, 0, >0.
 *  0 also for a spec that does not hold together; clsort_lines_order_new() checks it once, for
 *  many comparisons (merges of sorted files, checks of order). */
CLSORT_API int clsort_lines_compare(const clsort_lines_spec *spec, const char *a, size_t alen,
                                    const char *b, size_t blen);

/** A spec checked and prepared once for clsort_lines_order_compare(). */
typedef struct clsort_lines_order clsort_lines_order;
/** ::CLSORT_ERROR_INVALID_ARGUMENT (clsort_last_error_detail() says why) for a bad spec. */
CLSORT_API clsort_status clsort_lines_order_new(const clsort_lines_spec *spec,
                                                clsort_lines_order **order);
CLSORT_API int clsort_lines_order_compare(const clsort_lines_order *order, const char *a,
                                          size_t alen, const char *b, size_t blen);
/** Release an order made by clsort_lines_order_new(); NULL is fine. */
CLSORT_API void clsort_lines_order_free(clsort_lines_order *order);

/** @} */

/** The library's version, CLSORT_VERSION_STRING of the build that is linked. */
CLSORT_API const char *clsort_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSORT_H */
