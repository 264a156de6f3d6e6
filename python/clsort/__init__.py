"""clsort: sorting on OpenCL devices for numpy and PyOpenCL arrays.

The results equal numpy's ``sort(kind='stable')`` and ``argsort(kind='stable')`` exactly, floats
included: every NaN last (in input order), -0.0 and +0.0 equal keys (in input order). The library
sorts floats in that order itself (``clsort_spec.float_order = CLSORT_FLOAT_NUMPY``), so the keys
come out with their own bits.

    >>> import numpy as np, clsort
    >>> clsort.sort(np.array([3.0, np.nan, -0.0, 1.0, 0.0], dtype=np.float32))
    array([-0.,  0.,  1.,  3., nan], dtype=float32)

Key dtypes: u4, i4, f4, u8, i8, f8 (any byte order; non-native ones are copied), and, through
argsorts of their 8-byte big-endian pieces, byte strings ``S<k>`` and structured arrays by fields.
A :class:`Context` holds one device and its compiled programs; the module's functions use a default
one, opened at the first call (``CLSORT_DEVICE`` and the other ``CLSORT_*`` settings of the
environment apply), or one per ``device=`` string. ``pyopencl.array.Array`` inputs are sorted in
place on their own queue, without a copy through the host.
"""
import re
import threading

import numpy as np

try:
    from ._clsort import ffi, lib
except ImportError:  # the meson build's module, beside the package on sys.path
    from _clsort import ffi, lib

__all__ = ['Context', 'ClsortError', 'sort', 'argsort', 'sort_by_key', 'top_k', 'sort_segments',
           'argsort_segments', 'sort_lines', 'default_context', 'algorithms', '__version__']

__version__ = ffi.string(lib.clsort_version()).decode()

_KEY_TYPES = {
    ('u', 4): lib.CLSORT_KEY_U32, ('i', 4): lib.CLSORT_KEY_I32, ('f', 4): lib.CLSORT_KEY_F32,
    ('u', 8): lib.CLSORT_KEY_U64, ('i', 8): lib.CLSORT_KEY_I64, ('f', 8): lib.CLSORT_KEY_F64,
}
_SUPPORTED = 'uint32, int32, float32, uint64, int64, float64, byte strings S<k>, structured arrays'

#: the names ``kind=`` takes besides numpy's ('stable', 'mergesort', 'quicksort', 'heapsort', which
#: all mean 'auto': clsort's choice is stable wherever stability can be seen)
algorithms = ('auto', 'radix4', 'radix8', 'onesweep', 'radix8-rts', 'bitonic', 'oddeven',
              'host-radix', 'radix-hybrid')


def _text(p):
    return ffi.string(p).decode('utf-8', 'replace') if p != ffi.NULL else ''


_STATUS_NAMES = {getattr(lib, n): n for n in dir(lib) if n.startswith('CLSORT_ERROR_')}


class ClsortError(RuntimeError):
    """A call of the library failed.

    Attributes: ``status`` (the library's code, negative: its own below -2000, OpenCL's above),
    ``name`` (``CLSORT_ERROR_UNSUPPORTED``; for OpenCL's codes their name, e.g.
    ``CL_OUT_OF_RESOURCES``), ``text`` (clsort_status_string(): "unsupported combination"),
    ``detail`` (the library's own explanation, clsort_error_detail()), ``call``.
    """

    def __init__(self, status, detail, call):
        self.status = int(status)
        self.text = _text(lib.clsort_status_string(status))
        self.name = _STATUS_NAMES.get(self.status, self.text)
        self.detail = detail
        self.call = call
        super().__init__('%s: %s%s' % (call, self.text, ' (%s)' % detail if detail else ''))


class Context:
    """One OpenCL device, its queue and the kernel programs built for it, kept between calls.

    ``Context(device=None, settings=None)`` opens the device a device string names ("0:1",
    "nvidia", "cpu"; None: the library's default) with settings given as a dict of names and
    values (see ``clsort_setting_names()`` in clsort.h: ``{'no_cache': '1', 'stage_bytes':
    '1048576'}``), which win over the ``CLSORT_*`` environment variables. ``Context(queue=q)``
    borrows a ``pyopencl.CommandQueue`` (``clsort_open_with_queue``): its device, and sorts of
    device arrays ordered on that queue. Not thread-safe in the library; calls on one Context from
    several threads are serialised here. ``close()`` (or ``with``) releases it.
    """

    def __init__(self, device=None, settings=None, *, queue=None):
        self._ctx = ffi.NULL
        self._lock = threading.RLock()
        self._queue = queue
        keep = []
        items = list((settings or {}).items())
        arr = ffi.new('clsort_setting[]', max(1, len(items)))
        for i, (name, value) in enumerate(items):
            keep += [ffi.new('char[]', str(name).encode()), ffi.new('char[]', str(value).encode())]
            arr[i].name, arr[i].value = keep[-2], keep[-1]
        out = ffi.new('clsort_context **')
        if queue is not None:
            if device is not None:
                raise ValueError('clsort.Context: give a device or a queue, not both')
            st = lib.clsort_open_with_queue_and_settings(
                out, ffi.cast('cl_command_queue', queue.int_ptr), arr, len(items))
            call = 'clsort_open_with_queue_and_settings'
        else:
            dev = ffi.new('char[]', device.encode()) if device is not None else ffi.NULL
            st = lib.clsort_open_with_settings(out, dev, arr, len(items))
            call = 'clsort_open_with_settings'
        if st != lib.CLSORT_OK:
            raise ClsortError(st, _text(lib.clsort_last_error_detail()), call)
        self._ctx = out[0]

    @property
    def device_name(self):
        """"platform / device" of the context's device."""
        return _text(lib.clsort_device_name(self._live()))

    def close(self):
        """Release the device, its queue (a borrowed one is only released) and programs."""
        with self._lock:
            if self._ctx != ffi.NULL:
                p = ffi.new('clsort_context **', self._ctx)
                lib.clsort_close(p)
                self._ctx = ffi.NULL

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return '<clsort.Context %s>' % (self.device_name if self._ctx != ffi.NULL else 'closed')

    def _live(self):
        if self._ctx == ffi.NULL:
            raise ValueError('clsort.Context is closed')
        return self._ctx

    def _call(self, name, *args):
        with self._lock:
            st = getattr(lib, name)(self._live(), *args)
            if st != lib.CLSORT_OK:
                raise ClsortError(st, _text(lib.clsort_error_detail(self._ctx)), name)

    # The functions of the module, on this context.
    def sort(self, a, axis=-1, **kw):
        return sort(a, axis, context=self, **kw)

    def argsort(self, a, axis=-1, **kw):
        return argsort(a, axis, context=self, **kw)

    def sort_by_key(self, keys, values, **kw):
        return sort_by_key(keys, values, context=self, **kw)

    def top_k(self, a, k, **kw):
        return top_k(a, k, context=self, **kw)

    def sort_segments(self, a, offsets, **kw):
        return sort_segments(a, offsets, context=self, **kw)

    def argsort_segments(self, a, offsets, **kw):
        return argsort_segments(a, offsets, context=self, **kw)

    def sort_lines(self, data, keys=(), **kw):
        return sort_lines(data, keys, context=self, **kw)


_open_lock = threading.Lock()
_default = None
_by_device = {}
_by_queue = {}


def default_context():
    """The context of the module's functions when no device= or context= is given: opened at
    the first call, kept until the interpreter exits."""
    global _default
    with _open_lock:
        if _default is None:
            _default = Context()
        return _default


def _context(device, context):
    if context is not None:
        return context
    if device is None:
        return default_context()
    if isinstance(device, Context):
        return device
    with _open_lock:
        if device not in _by_device:
            _by_device[device] = Context(device)
        return _by_device[device]


def _queue_context(queue, context):
    if context is not None:
        return context
    with _open_lock:
        c = _by_queue.get(queue.int_ptr)
        if c is None:
            c = _by_queue[queue.int_ptr] = Context(queue=queue)
        return c


def _algorithm(kind):
    if kind is None or kind in ('stable', 'mergesort', 'quicksort', 'heapsort'):
        return lib.CLSORT_ALGO_AUTO
    out = ffi.new('clsort_algorithm *')
    if not isinstance(kind, str) or lib.clsort_algorithm_from_name(kind.encode(), out) != lib.CLSORT_OK:
        raise ValueError('clsort: unknown kind %r: expected one of %s, or numpy\'s stable, '
                         'mergesort, quicksort, heapsort' % (kind, ', '.join(algorithms)))
    return out[0]


def _key_type(dtype):
    return _KEY_TYPES.get((dtype.kind, dtype.itemsize))


def _spec(key_type, value_size=0, descending=False, kind=None, segment=0):
    s = ffi.new('clsort_spec *')
    lib.clsort_spec_default(s)
    s.key_type = key_type
    s.value_size = value_size
    s.algorithm = _algorithm(kind)
    s.descending = 1 if descending else 0
    s.segment = segment
    s.float_order = lib.CLSORT_FLOAT_NUMPY
    return s


def _ptr(a):
    return ffi.from_buffer(a, require_writable=True) if a.size else ffi.NULL


def _native(dtype):
    return dtype.newbyteorder('=') if dtype.byteorder not in ('=', '|') else dtype


def _is_cl_array(a):
    return type(a).__module__.startswith('pyopencl') and hasattr(a, 'base_data') and \
        hasattr(a, 'queue')


def _kind_check(a):
    if a.dtype.names is not None or a.dtype.kind == 'S':
        return None
    kt = _key_type(a.dtype)
    if kt is None:
        raise TypeError('clsort: cannot sort dtype %s: supported are %s' % (a.dtype, _SUPPORTED))
    return kt


# ---- numeric keys along the last axis of a C-contiguous array (rows as fixed segments) ----

def _sort_rows(ctx, buf, descending, kind, values=None):
    """Sort buf (C-contiguous, native) in place along its last axis, values (same shape, 4- or
    8-byte items, C-contiguous) with it."""
    n, row = buf.size, buf.shape[-1] if buf.ndim else 1
    if n <= 1 or row <= 1:
        return
    vs = values.dtype.itemsize if values is not None else 0
    spec = _spec(_key_type(buf.dtype), vs, descending, kind, row if row != n else 0)
    ctx._call('clsort_sort', spec, _ptr(buf), _ptr(values) if values is not None else ffi.NULL,
              n, ffi.NULL)


def _sorted_rows(ctx, a, descending, kind, into=None):
    """A sorted copy of a (C-contiguous, native) along its last axis, in `into` (C-contiguous,
    native, apart from a) or a new array: the library reads a where it is (a CPU device's first
    pass: no copy of it first)."""
    buf = np.empty(a.shape, dtype=a.dtype) if into is None else into
    n, row = a.size, a.shape[-1] if a.ndim else 1
    if n <= 1 or row <= 1:
        np.copyto(buf, a)
        return buf
    spec = _spec(_key_type(a.dtype), 0, descending, kind, row if row != n else 0)
    ctx._call('clsort_sort_copy', spec, ffi.from_buffer(a), ffi.NULL, _ptr(buf), ffi.NULL, n,
              ffi.NULL)
    return buf


def _argsort_rows(ctx, buf, descending, kind):
    """Positions along the last axis that sort buf (C-contiguous, native; sorted in place too)."""
    n, row = buf.size, buf.shape[-1]
    idx = np.empty(buf.shape, dtype=np.int64)
    if n == 0:
        return idx
    if row <= 1:
        idx[...] = 0
        return idx
    spec = _spec(_key_type(buf.dtype), 0, descending, kind, row if row != n else 0)
    ctx._call('clsort_argsort', spec, _ptr(buf), _ptr(idx), 8, n, ffi.NULL)
    if row != n:  # the positions are over the whole array: make them the row's
        idx -= (np.arange(n // row, dtype=np.int64) * row).reshape(buf.shape[:-1] + (1,))
    return idx


def _lex_argsort(ctx, columns, descending, kind):
    """Stable argsort of records given as columns of 8-byte-or-smaller numeric keys, most
    significant first: one stable sort per column, least significant first (LSD)."""
    n = len(columns[0][0]) if columns else 0
    perm = np.arange(n, dtype=np.int64)
    for col, desc in reversed(columns):
        keys = np.ascontiguousarray(col[perm], dtype=_native(col.dtype))
        perm = perm[_argsort_rows(ctx, keys, desc, kind)]
    return perm


def _byte_columns(a):
    """Columns of a byte-string array (1-D) as big-endian 8-byte pieces, in order: memcmp order
    of the NUL-padded strings, which is numpy's."""
    n, k = a.shape[0], a.dtype.itemsize
    pad = (-k) % 8
    b = np.zeros((n, k + pad), dtype=np.uint8)
    if k:
        b[:, :k] = np.ascontiguousarray(a).view(np.uint8).reshape(n, k)
    words = b.view('>u8').astype(np.uint64)
    return [words[:, j] for j in range(words.shape[1])]


def _field_columns(a, order, descending):
    """Columns of a 1-D structured array: the fields of `order` first, then the others in dtype
    order (numpy breaks ties by them too)."""
    names = list(a.dtype.names)
    first = [order] if isinstance(order, str) else list(order or [])
    for f in first:
        if f not in names:
            raise ValueError('clsort: %r is not a field of %s' % (f, a.dtype))
    cols = []
    for f in first + [f for f in names if f not in first]:
        col = a[f]
        if col.ndim != 1:
            raise TypeError('clsort: field %r has a subarray dtype; not supported' % f)
        cols += _columns(col, f, descending)
    return cols


def _columns(a, what, descending):
    if a.dtype.kind == 'S':
        return [(c, descending) for c in _byte_columns(a)]
    if a.dtype.names is not None:
        return _field_columns(a, None, descending)
    if _key_type(a.dtype) is None:
        raise TypeError('clsort: cannot sort %s of dtype %s: supported are %s'
                        % (what, a.dtype, _SUPPORTED))
    return [(a, descending)]


def _general_argsort(ctx, a, descending, kind, order):
    """argsort along the last axis of byte strings or structured arrays: the row number is the
    most significant column."""
    shape = a.shape
    flat = a.reshape(-1)
    cols = _field_columns(flat, order, descending) if a.dtype.names is not None else \
        _columns(flat, 'array', descending)
    row = shape[-1] if shape else 1
    if len(shape) > 1:
        cols = [(np.repeat(np.arange(flat.size // max(row, 1), dtype=np.uint64), row), False)] + cols
    perm = _lex_argsort(ctx, cols, descending, kind) if flat.size else np.empty(0, np.int64)
    if len(shape) > 1:
        perm = perm.reshape(shape) - (np.arange(flat.size // max(row, 1), dtype=np.int64)
                                      * row).reshape(shape[:-1] + (1,))
    return perm.reshape(shape)


def _prepare(a, axis):
    a = np.asarray(a)
    if axis is None:
        return a.reshape(-1), -1
    if a.ndim == 0:
        raise np.exceptions.AxisError('clsort: a 0-d array has no axis to sort along')
    return a, axis


def sort(a, axis=-1, *, descending=False, kind=None, order=None, out=None, device=None,
         context=None):
    """A sorted copy of `a` along `axis` (None: flattened), equal to
    ``numpy.sort(a, axis, kind='stable', order=order)``, or, with ``descending=True``, the numbers
    from the largest down (NaNs still last, equal keys in input order).

    kind: None or numpy's names (all stable here), or a clsort algorithm (:data:`algorithms`).
    order: for structured arrays, the field (or list of fields) to sort by first.
    out: an array of a's shape and dtype to write the result into (it may be `a` itself: an
    in-place sort); returned.
    device / context: a device string or a :class:`Context` (default: :func:`default_context`).
    A ``pyopencl.array.Array`` is sorted in place on its own queue (out must be None or it) and
    returned; the call returns once the sort is enqueued.
    """
    if _is_cl_array(a):
        if out is not None and out is not a:
            raise ValueError('clsort.sort: a PyOpenCL array is sorted in place: out must be None')
        return _cl_sort(a, descending, kind, context, None)
    a, axis = _prepare(a, axis)
    ctx = _context(device, context)
    kt = _kind_check(a)
    if kt is None:  # byte strings, structured arrays: through their argsort
        idx = _general_argsort(ctx, np.moveaxis(a, axis, -1), descending, kind, order)
        res = np.moveaxis(np.take_along_axis(np.moveaxis(a, axis, -1), idx, -1), -1, axis)
        if out is not None:
            np.copyto(out, res)
            return out
        return np.ascontiguousarray(res)
    if order is not None:
        raise ValueError('clsort.sort: order= takes structured arrays only')
    moved = np.moveaxis(a, axis, -1)
    if out is not None:
        if out.shape != a.shape or out.dtype != a.dtype:
            raise ValueError('clsort.sort: out has shape %s and dtype %s; expected %s and %s'
                             % (out.shape, out.dtype, a.shape, a.dtype))
        target = np.moveaxis(out, axis, -1)
        if target.flags.c_contiguous and target.dtype.isnative and target.flags.writeable:
            if moved.flags.c_contiguous and moved.dtype.isnative and \
                    not np.shares_memory(target, moved):
                _sorted_rows(ctx, moved, descending, kind, into=target)
                return out
            np.copyto(target, moved)
            _sort_rows(ctx, target, descending, kind)
            return out
        buf = np.array(moved, dtype=_native(a.dtype), order='C')
        _sort_rows(ctx, buf, descending, kind)
        np.copyto(target, buf)
        return out
    if moved.flags.c_contiguous and moved.dtype.isnative:
        buf = _sorted_rows(ctx, moved, descending, kind)
    else:
        buf = np.array(moved, dtype=_native(a.dtype), order='C')
        _sort_rows(ctx, buf, descending, kind)
    return np.ascontiguousarray(np.moveaxis(buf, -1, axis)) if moved.ndim > 1 and axis not in (
        -1, a.ndim - 1) else buf


def argsort(a, axis=-1, *, descending=False, kind=None, order=None, device=None, context=None):
    """Positions (int64) that sort `a` along `axis`, equal to
    ``numpy.argsort(a, axis, kind='stable', order=order)`` (descending: see :func:`sort`).
    A 1-D ``pyopencl.array.Array`` is sorted in place and a new device array of its positions
    returned, both on its queue."""
    if _is_cl_array(a):
        return _cl_sort(a, descending, kind, context, 'argsort')
    a, axis = _prepare(a, axis)
    ctx = _context(device, context)
    moved = np.moveaxis(a, axis, -1)
    if _kind_check(a) is None:
        idx = _general_argsort(ctx, moved, descending, kind, order)
    else:
        if order is not None:
            raise ValueError('clsort.argsort: order= takes structured arrays only')
        idx = _argsort_rows(ctx, np.array(moved, dtype=_native(a.dtype), order='C'), descending,
                            kind)
    return np.moveaxis(idx, -1, axis)


def sort_by_key(keys, values, *, descending=False, kind=None, device=None, context=None):
    """(sorted keys, values in the same order) for 1-D keys and values whose first axis has the
    keys' length (stable). Values of 4 or 8 bytes move with the keys on the device; others are
    gathered with the keys' argsort."""
    keys = np.asarray(keys)
    values = np.asarray(values)
    if keys.ndim != 1 or values.shape[:1] != keys.shape:
        raise ValueError('clsort.sort_by_key: keys must be 1-D and values as long (%s and %s)'
                         % (keys.shape, values.shape))
    ctx = _context(device, context)
    if _kind_check(keys) is not None and values.ndim == 1 and values.dtype.itemsize in (4, 8) \
            and values.dtype.names is None and not values.dtype.hasobject:
        k = np.array(keys, dtype=_native(keys.dtype), order='C')
        v = np.array(values, order='C')
        _sort_rows(ctx, k, descending, kind, v.view('u%d' % v.dtype.itemsize))
        return k, v
    idx = argsort(keys, descending=descending, kind=kind, context=ctx)
    return keys[idx], values[idx]


def top_k(a, k, *, largest=True, kind=None, device=None, context=None):
    """(values, positions) of the k first records of a 1-D array's order: by default the k
    largest, from the largest down (largest=False: the k smallest, ascending); equal keys in
    input order; NaNs come last in either order, so they are taken only when there are fewer than
    k numbers. Integer keys go through the library's radix select (clsort_top); float keys through
    a full sort in numpy's order (the select takes IEEE total order only)."""
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError('clsort.top_k: expected a 1-D array, got shape %s' % (a.shape,))
    n = a.shape[0]
    if not 0 <= k <= n:
        raise ValueError('clsort.top_k: k is %d, expected 0 <= k <= %d' % (k, n))
    ctx = _context(device, context)
    kt = _kind_check(a)
    if kt is None or a.dtype.kind == 'f' or k == 0 or n > 0xffffffff:
        idx = argsort(a, descending=largest, kind=kind, context=ctx)[:k]
        return a[idx], idx
    keys = np.ascontiguousarray(a, dtype=_native(a.dtype))
    pos = np.arange(n, dtype=np.int64)
    out_k = np.empty(k, dtype=keys.dtype)
    out_v = np.empty(k, dtype=np.int64)
    spec = _spec(kt, 8, largest, kind)
    spec.algorithm = lib.CLSORT_ALGO_AUTO
    ctx._call('clsort_top', spec, ffi.from_buffer(keys), ffi.from_buffer(pos), n, k, _ptr(out_k),
              _ptr(out_v), ffi.NULL)
    return out_k, out_v


def _offsets(offsets, n):
    off = np.ascontiguousarray(offsets, dtype=np.uint64)
    if off.ndim != 1 or off.size < 1:
        raise ValueError('clsort: offsets must be a 1-D array of at least one entry (CSR: first 0, '
                         'last n)')
    return off


def sort_segments(a, offsets, *, descending=False, kind=None, values=None, device=None,
                  context=None):
    """Sort each segment [offsets[i], offsets[i+1]) of a 1-D array on its own (CSR offsets: the
    first 0, the last len(a), never decreasing; checked by the library). Returns the sorted copy,
    or (keys, values) when values (1-D, 4- or 8-byte items, as long) are given."""
    a = np.asarray(a)
    if a.ndim != 1 or _kind_check(a) is None:
        raise TypeError('clsort.sort_segments: expected a 1-D array of %s'
                        % _SUPPORTED.split(', byte')[0])
    ctx = _context(device, context)
    off = _offsets(offsets, a.shape[0])
    keys = np.array(a, dtype=_native(a.dtype), order='C')
    v = None
    if values is not None:
        v = np.array(values, order='C')
        if v.shape != a.shape or v.dtype.itemsize not in (4, 8):
            raise ValueError('clsort.sort_segments: values must be as long as the keys, of 4- or '
                             '8-byte items')
    spec = _spec(_key_type(keys.dtype), v.dtype.itemsize if v is not None else 0, descending, kind)
    ctx._call('clsort_sort_segments', spec, _ptr(keys), _ptr(v) if v is not None else ffi.NULL,
              keys.size, ffi.from_buffer('uint64_t[]', off), off.size - 1, ffi.NULL)
    return (keys, v) if values is not None else keys


def argsort_segments(a, offsets, *, descending=False, kind=None, device=None, context=None):
    """Positions (int64, into the whole array) that sort each CSR segment of `a` on its own: the
    result's segment i holds positions of segment i."""
    a = np.asarray(a)
    return sort_segments(a, offsets, descending=descending, kind=kind,
                         values=np.arange(a.shape[0] if a.ndim else 0, dtype=np.int64),
                         device=device, context=context)[1]


# ---- PyOpenCL arrays ----

def _cl_mem(buf):
    return ffi.cast('cl_mem', buf.int_ptr)


def _cl_sort(a, descending, kind, context, what):
    import pyopencl as cl
    import pyopencl.array as cla
    if a.queue is None:
        raise ValueError('clsort: the PyOpenCL array has no queue to sort on')
    if not a.flags.c_contiguous:
        raise ValueError('clsort: the PyOpenCL array is not contiguous: copy it first')
    kt = _key_type(a.dtype)
    if kt is None:
        raise TypeError('clsort: cannot sort a PyOpenCL array of dtype %s: supported are %s'
                        % (a.dtype, _SUPPORTED.split(', byte')[0]))
    ctx = _queue_context(a.queue, context)
    n = a.size
    row = a.shape[-1] if a.ndim else 1
    if what == 'argsort' and a.ndim != 1:
        raise ValueError('clsort.argsort: PyOpenCL arrays: 1-D only')
    idx = cla.empty(a.queue, a.shape, np.int64) if what == 'argsort' else None
    if n <= 1 or row <= 1:
        if idx is not None and n:
            idx.fill(0)
        return idx if what == 'argsort' else a
    mem = a.base_data if a.offset == 0 else a.base_data.get_sub_region(a.offset, a.nbytes)
    events = [e for e in a.events]
    wait = ffi.new('cl_event[]', [ffi.cast('cl_event', e.int_ptr) for e in events]) if events \
        else ffi.NULL
    done = ffi.new('cl_event *')
    spec = _spec(kt, 0, descending, kind, row if row != n else 0)
    if what == 'argsort':
        ctx._call('clsort_argsort_enqueue', spec, _cl_mem(mem), _cl_mem(idx.base_data), 8, n,
                  len(events), wait, done)
    else:
        ctx._call('clsort_enqueue', spec, _cl_mem(mem), ffi.NULL, n, len(events), wait, done)
    evt = cl.Event.from_int_ptr(int(ffi.cast('uintptr_t', done[0])), retain=False)
    a.add_event(evt)
    if idx is not None:
        idx.add_event(evt)
        return idx
    return a


# ---------------------------------------------------------------------------------------------
# Text lines, as ``LC_ALL=C sort`` orders them

_LINE_FLAGS = {'n': 'NUMERIC', 'g': 'GENERAL_NUMERIC', 'h': 'HUMAN_NUMERIC', 'r': 'REVERSE',
               'f': 'FOLD', 'd': 'DICTIONARY', 'i': 'NONPRINTING'}
_KEY_POS = re.compile(r'(\d+)(?:\.(\d+))?([A-Za-z]*)')


def _key_pos(key, text, end):
    """(field, char, flags, has_own_flags) of one position of a ``-k`` key."""
    m = _KEY_POS.fullmatch(text)
    if not m:
        raise ValueError('clsort.sort_lines: key %r: %r is not FIELD[.CHAR][OPTS]' % (key, text))
    field, char = int(m[1]), int(m[2]) if m[2] is not None else 0
    if field < 1:
        raise ValueError('clsort.sort_lines: key %r: fields count from 1' % key)
    if not end and m[2] is not None and char < 1:
        raise ValueError('clsort.sort_lines: key %r: characters count from 1' % key)
    flags = 0
    for c in m[3]:
        if c == 'b':
            flags |= lib.CLSORT_LINES_BLANKS_END if end else lib.CLSORT_LINES_BLANKS_START
        elif c in _LINE_FLAGS:
            flags |= getattr(lib, 'CLSORT_LINES_' + _LINE_FLAGS[c])
        else:
            raise ValueError('clsort.sort_lines: key %r: modifier %r is not one clsort sorts by '
                             '(b, d, f, g, h, i, n, r)' % (key, c))
    return field, char, flags, bool(m[3])


def _line_keys(keys, global_flags):
    """The keys as the library's structs: GNU sort's ``-k`` syntax, ``POS1[,POS2]``; a key with no
    modifiers of its own takes the global ones."""
    out = []
    for key in keys:
        if not isinstance(key, str):
            raise TypeError('clsort.sort_lines: a key is a str such as "2,2n", not %r' % (key,))
        k = key[2:] if key.startswith('-k') else key
        pos1, _, pos2 = k.partition(',')
        f1, c1, fl1, own1 = _key_pos(key, pos1, False)
        f2, c2, fl2, own2 = _key_pos(key, pos2, True) if pos2 else (0, 0, 0, False)
        flags = fl1 | fl2 if own1 or own2 else global_flags
        out.append((f1, c1, f2, c2, flags))
    return out


def sort_lines(data, keys=(), *, separator=None, zero_terminated=False, numeric=False,
               general_numeric=False, human_numeric=False, ignore_case=False,
               dictionary_order=False, ignore_nonprinting=False, ignore_leading_blanks=False,
               reverse=False, stable=False, unique=False, device=None, context=None):
    """The lines of ``data`` (bytes-like) sorted as ``LC_ALL=C sort`` sorts them, as bytes, each
    line ended by its delimiter (a last line without one gets one, as GNU sort writes it).

    ``keys``: GNU sort's ``-k`` definitions, e.g. ``['2,2n', '1']``; the keyword arguments are its
    options: ``separator`` (``-t``, one byte), ``zero_terminated`` (``-z``), ``numeric`` (``-n``),
    ``general_numeric`` (``-g``), ``human_numeric`` (``-h``), ``ignore_case`` (``-f``),
    ``dictionary_order`` (``-d``), ``ignore_nonprinting`` (``-i``), ``ignore_leading_blanks``
    (``-b``), ``reverse`` (``-r``), ``stable`` (``-s``), ``unique`` (``-u``). A key without
    modifiers of its own takes these; with no keys they order whole lines.

        >>> clsort.sort_lines(b'10\\n9\\n100\\n', numeric=True)
        b'9\\n10\\n100\\n'
    """
    if isinstance(data, str):
        raise TypeError('clsort.sort_lines: give bytes (for text, data.encode()); lines are '
                        'compared as bytes, as LC_ALL=C sort compares them')
    buf = bytes(data)
    if isinstance(keys, str):
        keys = (keys,)
    g = 0
    for on, name in ((numeric, 'NUMERIC'), (general_numeric, 'GENERAL_NUMERIC'),
                     (human_numeric, 'HUMAN_NUMERIC'), (ignore_case, 'FOLD'),
                     (dictionary_order, 'DICTIONARY'), (ignore_nonprinting, 'NONPRINTING'),
                     (reverse, 'REVERSE')):
        g |= getattr(lib, 'CLSORT_LINES_' + name) if on else 0
    if ignore_leading_blanks:
        g |= lib.CLSORT_LINES_BLANKS_START | lib.CLSORT_LINES_BLANKS_END
    ks = _line_keys(keys, g)
    if not ks and g & ~lib.CLSORT_LINES_REVERSE:  # whole lines by the global options
        ks = [(0, 0, 0, 0, g)]
    if len(ks) > lib.CLSORT_LINES_MAX_KEYS:
        raise ValueError('clsort.sort_lines: %d keys, at most %d' % (len(ks),
                                                                    lib.CLSORT_LINES_MAX_KEYS))
    spec = ffi.new('clsort_lines_spec *')
    lib.clsort_lines_spec_default(spec)
    spec.delimiter = b'\0' if zero_terminated else b'\n'
    if separator is not None:
        sep = separator.encode() if isinstance(separator, str) else bytes(separator)
        if len(sep) != 1:
            raise ValueError('clsort.sort_lines: the separator is one byte, not %r' % (separator,))
        spec.separator = sep[0]
    karr = ffi.new('clsort_lines_key[]', max(len(ks), 1))
    for i, (f1, c1, f2, c2, fl) in enumerate(ks):
        karr[i].start_field, karr[i].start_char = f1, c1
        karr[i].end_field, karr[i].end_char, karr[i].flags = f2, c2, fl
    spec.keys = karr if ks else ffi.NULL
    spec.n_keys = len(ks)
    spec.stable, spec.unique, spec.reverse = bool(stable), bool(unique), bool(reverse)
    if not buf:
        return b''
    n = lib.clsort_lines_count(spec, buf, len(buf))
    starts = np.empty(n + 1, dtype=np.uint64)
    order = np.empty(n, dtype=np.uint64)
    n_out = ffi.new('size_t *')
    ctx = _context(device, context)
    ctx._call('clsort_sort_lines', spec, buf, len(buf),
              ffi.cast('uint64_t *', starts.ctypes.data), ffi.cast('uint64_t *', order.ctypes.data),
              n_out, ffi.NULL)
    out = bytearray(len(buf) + 1)
    m = lib.clsort_gather_lines(spec, buf, ffi.cast('uint64_t *', starts.ctypes.data),
                                ffi.cast('uint64_t *', order.ctypes.data), n_out[0],
                                ffi.from_buffer(out))
    return bytes(out[:m])
