"""cffi build of clsort._clsort in API mode: compiled against the real lib/clsort.h.

The declarations below name only what the package calls. Struct layouts (`...;`) and enum values
(`...`) are not written here: the C compiler takes them from clsort.h when the module is built, so a
change of the header cannot silently break the binding (a removed or retyped field or function
fails the build instead).

Where the header and the library are found, first match wins:
  - CLSORT_INCLUDE_DIR / CLSORT_LIB_DIR (the directory of libclsort.so);
  - CLSORT_BUILD_DIR: a meson build directory of the project (its lib/ holds libclsort.so);
  - the checkout this file is in: ../../lib/clsort.h, and the first of ../../build/lib,
    ../../build-*/lib holding libclsort.so;
  - pkg-config clsort (an installed library).

Run as a script with --emit FILE.c to write the C source only (the meson build compiles it).
"""
import glob
import os
import shutil
import subprocess
import sys

import cffi

CDEF = r"""
typedef int... cl_uint;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_context *cl_context;
typedef struct _cl_event *cl_event;

typedef enum clsort_status { CLSORT_OK, CLSORT_ERROR_INVALID_ARGUMENT, CLSORT_ERROR_NO_DEVICE,
    CLSORT_ERROR_BAD_DEVICE_STRING, CLSORT_ERROR_BUILD_FAILED, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
    CLSORT_ERROR_TOO_LARGE, CLSORT_ERROR_UNSUPPORTED, CLSORT_ERROR_DEVICE_UNSUITABLE,
    CLSORT_ERROR_LIMIT, CLSORT_ERROR_IO, ... } clsort_status;
typedef enum clsort_key_type { CLSORT_KEY_U32, CLSORT_KEY_I32, CLSORT_KEY_F32, CLSORT_KEY_U64,
    CLSORT_KEY_I64, CLSORT_KEY_F64, ... } clsort_key_type;
typedef enum clsort_algorithm { CLSORT_ALGO_AUTO, ... } clsort_algorithm;
typedef enum clsort_float_order { CLSORT_FLOAT_TOTAL, CLSORT_FLOAT_NUMPY, ... } clsort_float_order;

typedef struct clsort_spec {
    clsort_key_type key_type;
    size_t value_size;
    clsort_algorithm algorithm;
    int descending;
    unsigned begin_bit, end_bit;
    size_t segment;
    int allow_quadratic;
    clsort_float_order float_order;
    ...;
} clsort_spec;

typedef struct clsort_stats {
    size_t n;
    const char *algorithm;
    double kernel_ms;
    double upload_ms;
    double download_ms;
    double total_ms;
    ...;
} clsort_stats;

typedef struct clsort_setting {
    const char *name;
    const char *value;
} clsort_setting;

typedef struct clsort_context clsort_context;

clsort_status clsort_open_with_settings(clsort_context **ctx, const char *device,
                                        const clsort_setting *settings, size_t count);
clsort_status clsort_open_with_queue_and_settings(clsort_context **ctx, cl_command_queue queue,
                                                  const clsort_setting *settings, size_t count);
void clsort_close(clsort_context **ctx);
void clsort_spec_default(clsort_spec *spec);
clsort_status clsort_sort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *values,
                          size_t n, clsort_stats *stats);
clsort_status clsort_sort_copy(clsort_context *ctx, const clsort_spec *spec, const void *in_keys,
                               const void *in_values, void *keys, void *values, size_t n,
                               clsort_stats *stats);
clsort_status clsort_argsort(clsort_context *ctx, const clsort_spec *spec, void *keys, void *index,
                             size_t index_size, size_t n, clsort_stats *stats);
clsort_status clsort_sort_segments(clsort_context *ctx, const clsort_spec *spec, void *keys,
                                   void *values, size_t n, const uint64_t *offsets, size_t n_seg,
                                   clsort_stats *stats);
clsort_status clsort_top(clsort_context *ctx, const clsort_spec *spec, const void *keys,
                         const void *values, size_t n, size_t k, void *out_keys, void *out_values,
                         clsort_stats *stats);
clsort_status clsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                             cl_mem values, size_t n, cl_uint n_wait, const cl_event *wait,
                             cl_event *done);
clsort_status clsort_argsort_enqueue(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                     cl_mem index, size_t index_size, size_t n, cl_uint n_wait,
                                     const cl_event *wait, cl_event *done);
clsort_status clsort_enqueue_segments(clsort_context *ctx, const clsort_spec *spec, cl_mem keys,
                                      cl_mem values, size_t n, cl_mem offsets, size_t n_seg,
                                      cl_uint n_wait, const cl_event *wait, cl_event *done);
clsort_status clsort_algorithm_from_name(const char *name, clsort_algorithm *algorithm);
const char *clsort_algorithm_name(clsort_algorithm algorithm);

#define CLSORT_LINES_MAX_KEYS ...
enum clsort_lines_flag {
    CLSORT_LINES_NUMERIC, CLSORT_LINES_GENERAL_NUMERIC, CLSORT_LINES_HUMAN_NUMERIC,
    CLSORT_LINES_REVERSE, CLSORT_LINES_BLANKS_START, CLSORT_LINES_BLANKS_END, CLSORT_LINES_FOLD,
    CLSORT_LINES_DICTIONARY, CLSORT_LINES_NONPRINTING, ...
};
typedef struct clsort_lines_key {
    size_t start_field;
    size_t start_char;
    size_t end_field;
    size_t end_char;
    unsigned flags;
    ...;
} clsort_lines_key;
typedef struct clsort_lines_spec {
    char delimiter;
    int separator;
    const clsort_lines_key *keys;
    size_t n_keys;
    int stable;
    int unique;
    int reverse;
    ...;
} clsort_lines_spec;
void clsort_lines_spec_default(clsort_lines_spec *spec);
size_t clsort_lines_count(const clsort_lines_spec *spec, const char *buf, size_t len);
clsort_status clsort_sort_lines(clsort_context *ctx, const clsort_lines_spec *spec, const char *buf,
                                size_t len, uint64_t *starts, uint64_t *order, size_t *n_out,
                                clsort_stats *stats);
size_t clsort_gather_lines(const clsort_lines_spec *spec, const char *buf, const uint64_t *starts,
                           const uint64_t *order, size_t n, char *out);
const char *clsort_device_name(const clsort_context *ctx);
const char *clsort_status_string(clsort_status status);
const char *clsort_error_detail(const clsort_context *ctx);
const char *clsort_last_error_detail(void);
const char *const *clsort_setting_names(void);
const char *clsort_version(void);
"""

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.normpath(os.path.join(HERE, '..', '..'))


def _has_lib(d):
    return bool(d) and os.path.exists(os.path.join(d, 'libclsort.so'))


def _pkg_config(*args):
    if not shutil.which('pkg-config'):
        return None
    r = subprocess.run(['pkg-config', *args, 'clsort'], capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else None


def locate():
    """(include_dirs, library_dirs) for clsort.h and libclsort.so, or SystemExit saying what is
    missing."""
    inc = os.environ.get('CLSORT_INCLUDE_DIR')
    lib = os.environ.get('CLSORT_LIB_DIR')
    build = os.environ.get('CLSORT_BUILD_DIR')
    if not lib and build:
        lib = os.path.join(build, 'lib')
    if not inc and os.path.exists(os.path.join(CHECKOUT, 'lib', 'clsort.h')):
        inc = os.path.join(CHECKOUT, 'lib')
    if not lib:
        cands = [os.path.join(CHECKOUT, 'build', 'lib')] + sorted(
            glob.glob(os.path.join(CHECKOUT, 'build-*', 'lib')))
        lib = next((c for c in cands if _has_lib(c)), None)
    if (not inc or not lib) and _pkg_config('--exists') is not None:
        inc = inc or next((f[2:] for f in _pkg_config('--cflags-only-I') or [] if f.startswith('-I')),
                          None)
        lib = lib or next((f[2:] for f in _pkg_config('--libs-only-L') or [] if f.startswith('-L')),
                          None)
    if not inc or not os.path.exists(os.path.join(inc, 'clsort.h')):
        raise SystemExit('clsort: lib/clsort.h not found: set CLSORT_INCLUDE_DIR, or build from '
                         'the project checkout')
    if not _has_lib(lib):
        raise SystemExit('clsort: libclsort.so not found (looked in %s): build the library '
                         '(meson setup build && ninja -C build) or set CLSORT_BUILD_DIR or '
                         'CLSORT_LIB_DIR' % (lib or 'the checkout\'s build directories'))
    return [os.path.abspath(inc)], [os.path.abspath(lib)]


def make(include_dirs, library_dirs, module='clsort._clsort'):
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source(module, '#include "clsort.h"\n', include_dirs=include_dirs,
                   library_dirs=library_dirs, libraries=['clsort'],
                   extra_link_args=['-Wl,-rpath,' + d for d in library_dirs])
    return ffi


if __name__ == '__main__' and '--emit' in sys.argv:
    out = sys.argv[sys.argv.index('--emit') + 1]
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source('_clsort', '#include "clsort.h"\n')
    ffi.emit_c_code(out)
else:
    ffibuilder = make(*locate()) if __name__ != '__main__' else None
