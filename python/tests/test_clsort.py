"""clsort's Python package against numpy as the reference: sort(kind='stable') and
argsort(kind='stable') exactly (bit for bit, floats included), every dtype, both orders, NaN and
-0.0, sizes 0, 1 and across the library's chunks, strided and byte-swapped input, out=, axes,
structured arrays and byte strings, CSR segments, top_k, errors, contexts and PyOpenCL arrays."""
import os

import numpy as np
import pytest

import clsort

NUMERIC = ['u4', 'i4', 'f4', 'u8', 'i8', 'f8']
SIZES = [0, 1, 2, 3, 1000, 70001]


def make(dtype, n, seed=0):
    """Keys with many repeats; floats mixed with ±0.0, ±inf and NaNs of both signs and several
    payloads."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in 'ui':
        info = np.iinfo(dt)
        a = rng.integers(-50 if dt.kind == 'i' else 0, 50, n).astype(dt)
        if n > 4:  # the extremes too
            a[rng.integers(0, n, 4)] = [info.min, info.max, info.min, info.max]
        return a
    a = (rng.integers(-16, 16, n) / 4).astype(dt)
    special = rng.integers(0, 8, n)
    a[special == 0] = 0.0
    a[special == 1] = -0.0
    a[special == 2] = np.inf
    a[special == 3] = -np.inf
    bits = a.view('u%d' % dt.itemsize)
    nan = special == 4
    frac = (1 << (23 if dt.itemsize == 4 else 52)) - 1
    exp = 0x7f800000 if dt.itemsize == 4 else 0x7ff0000000000000
    sign = 1 << (dt.itemsize * 8 - 1)
    payload = rng.integers(1, frac, n, dtype=np.uint64).astype(bits.dtype)
    neg = rng.integers(0, 2, n).astype(bool)
    bits[nan] = exp | payload[nan] | np.where(neg[nan], sign, 0).astype(bits.dtype)
    return a


def ref_argsort(a, descending=False):
    """numpy's stable argsort; descending: the numbers from the largest down with equal keys in
    input order, NaNs last in input order."""
    if not descending:
        return np.argsort(a, kind='stable')
    nan = np.isnan(a) if a.dtype.kind == 'f' else np.zeros(a.shape, bool)
    keep = np.flatnonzero(~nan)
    sub = a[keep]
    r = np.argsort(sub[::-1], kind='stable')[::-1]
    return np.concatenate([keep[len(sub) - 1 - r], np.flatnonzero(nan)]).astype(np.int64)


def bits(a):
    return a.view('u%d' % a.dtype.itemsize) if a.dtype.kind == 'f' else a


def same(x, y):
    """Equal shapes, dtypes and bits (so -0.0 is not 0.0 and each NaN keeps its payload)."""
    assert x.shape == y.shape and x.dtype == y.dtype
    assert np.array_equal(bits(x), bits(y))


@pytest.mark.parametrize('dtype', NUMERIC)
@pytest.mark.parametrize('descending', [False, True])
@pytest.mark.parametrize('n', SIZES)
def test_sort_argsort(dtype, descending, n):
    a = make(dtype, n, seed=n)
    keep = a.copy()
    idx = ref_argsort(a, descending)
    same(clsort.sort(a, descending=descending), a[idx])
    got = clsort.argsort(a, descending=descending)
    assert got.dtype == np.int64
    assert np.array_equal(got, idx)
    same(a, keep)  # the input is not touched
    if not descending:
        same(clsort.sort(a), np.sort(a, kind='stable'))


@pytest.mark.parametrize('dtype', ['f4', 'f8'])
def test_numpy_float_order(dtype):
    a = np.array([3.0, np.nan, -0.0, 1.0, 0.0, -np.nan, -np.inf, 0.0, -0.0], dtype=dtype)
    same(clsort.sort(a), np.sort(a, kind='stable'))
    assert np.array_equal(clsort.argsort(a), np.argsort(a, kind='stable'))
    # descending: numbers reversed, zeros and NaNs in input order, NaNs last
    assert np.array_equal(clsort.argsort(a, descending=True), [0, 3, 2, 4, 7, 8, 6, 1, 5])


def test_strided_swapped_out_axes():
    a = make('f8', 3001, seed=5)
    same(clsort.sort(a[::3]), np.sort(a[::3], kind='stable'))
    be = a.astype('>f8')
    got = clsort.sort(be)
    assert np.array_equal(bits(got.astype('f8')), bits(np.sort(a, kind='stable')))
    out = np.empty_like(a)
    assert clsort.sort(a, out=out) is out
    same(out, np.sort(a, kind='stable'))
    b = a.copy()
    clsort.sort(b, out=b)  # in place
    same(b, np.sort(a, kind='stable'))
    m = make('i4', 12 * 257, seed=6).reshape(12, 257)
    for axis in (0, 1, -1, None):
        same(clsort.sort(m, axis=axis), np.sort(m, axis=axis, kind='stable'))
        assert np.array_equal(clsort.argsort(m, axis=axis), np.argsort(m, axis=axis, kind='stable'))
    out2 = np.empty_like(m)
    clsort.sort(m, axis=0, out=out2)
    same(out2, np.sort(m, axis=0, kind='stable'))


@pytest.mark.parametrize('dtype', ['f4', 'i8', 'f8', 'u4'])
def test_large_where_they_are(dtype):
    """Arrays past 512 KiB, which a CPU device sorts where they are on the host's threads (past 4
    MiB split into buckets first, large buckets split again): around those limits, a prime, wide
    and narrow keys (normal floats: a few large buckets; floats without NaN or -0.0, sorted in
    total order), both orders, out= in place."""
    rng = np.random.default_rng(11)
    isz = np.dtype(dtype).itemsize
    for n in ((512 << 10) // isz + 1, (4 << 20) // isz - 1, (4 << 20) // isz + 1, 1_299_709):
        for a in (make(dtype, n, seed=n), (rng.standard_normal(n) * 1000).astype(dtype)):
            for d in (False, True):
                idx = ref_argsort(a, d)
                same(clsort.sort(a, descending=d), a[idx])
                assert np.array_equal(clsort.argsort(a, descending=d), idx)
            b = a.copy()
            clsort.sort(b, out=b)
            same(b, np.sort(a, kind='stable'))


def test_chunks():
    """The library's chunked path (sorted in chunks, merged on the host) through its test hook,
    which a context reads from the environment when it opens."""
    os.environ['CLSORT_CHUNK_KEYS'] = '1000'
    try:
        ctx = clsort.Context()
    finally:
        del os.environ['CLSORT_CHUNK_KEYS']
    with ctx:
        for dtype in ('f4', 'i8', 'f8'):
            a = make(dtype, 25001, seed=7)
            for d in (False, True):
                idx = ref_argsort(a, d)
                same(ctx.sort(a, descending=d), a[idx])
                assert np.array_equal(ctx.argsort(a, descending=d), idx)


def test_byte_strings():
    rng = np.random.default_rng(8)
    for k in (1, 5, 8, 13):
        raw = rng.integers(0, 4, (2000, k), dtype=np.uint8)  # NULs and repeats included
        a = raw.view('S%d' % k).reshape(-1)
        same_s = clsort.sort(a)
        assert np.array_equal(same_s, np.sort(a, kind='stable'))
        assert np.array_equal(clsort.argsort(a), np.argsort(a, kind='stable'))
        r = clsort.argsort(a, descending=True)
        assert np.array_equal(a[r], np.sort(a, kind='stable')[::-1])
        assert all(a[r[i]] != a[r[i + 1]] or r[i] < r[i + 1] for i in range(len(r) - 1))


def test_structured():
    rng = np.random.default_rng(9)
    n = 3000
    a = np.zeros(n, dtype=[('x', 'i4'), ('y', 'f8'), ('s', 'S3')])
    a['x'] = rng.integers(0, 5, n)
    a['y'] = make('f8', n, seed=10)
    a['s'] = rng.integers(0, 3, (n, 3), dtype=np.uint8).view('S3').reshape(-1)
    for order in ('y', ['s', 'x'], 'x', None):
        want = np.argsort(a, kind='stable', order=order)
        assert np.array_equal(clsort.argsort(a, order=order), want)
        got = clsort.sort(a, order=order)
        assert np.array_equal(got.view(np.uint8), a[want].view(np.uint8))
    with pytest.raises(ValueError, match='not a field'):
        clsort.sort(a, order='nope')


def test_segments():
    a = make('f4', 10000, seed=11)
    off = np.array([0, 0, 1, 700, 700, 5000, 5003, 10000], dtype=np.uint64)
    for d in (False, True):
        got = clsort.sort_segments(a, off, descending=d)
        pos = clsort.argsort_segments(a, off, descending=d)
        for lo, hi in zip(off[:-1].astype(int), off[1:].astype(int)):
            idx = lo + ref_argsort(a[lo:hi], d)
            same(got[lo:hi], a[idx])
            assert np.array_equal(pos[lo:hi], idx)
    keys, vals = clsort.sort_segments(a, off, values=np.arange(10000, dtype=np.uint32))
    same(keys, clsort.sort_segments(a, off))
    with pytest.raises(clsort.ClsortError, match='offsets') as e:
        clsort.sort_segments(a, np.array([0, 10, 5, 10000], dtype=np.uint64))
    assert e.value.name == 'CLSORT_ERROR_INVALID_ARGUMENT' and 'entry 2' in e.value.detail


def test_sort_by_key():
    k = make('i8', 5000, seed=12)
    v = np.arange(5000, dtype=np.float64) * 1.5
    idx = np.argsort(k, kind='stable')
    gk, gv = clsort.sort_by_key(k, v)
    same(gk, k[idx])
    same(gv, v[idx])
    v2 = np.arange(15000, dtype=np.int16).reshape(5000, 3)  # gathered by the argsort
    gk, gv = clsort.sort_by_key(k, v2, descending=True)
    ridx = ref_argsort(k, True)
    same(gk, k[ridx])
    assert np.array_equal(gv, v2[ridx])


@pytest.mark.parametrize('dtype', ['i4', 'u8', 'f4', 'f8'])
def test_top_k(dtype):
    a = make(dtype, 20000, seed=13)
    for largest in (True, False):
        for k in (0, 1, 17, 20000):
            vals, idx = clsort.top_k(a, k, largest=largest)
            want = ref_argsort(a, largest)[:k]
            assert np.array_equal(idx, want)
            same(vals, a[want])
    with pytest.raises(ValueError, match='k is 20001'):
        clsort.top_k(a, 20001)


def test_kind_radix8():
    """A device algorithm by name: the keys go through the library's canonical form and back."""
    a = make('f4', 5000, seed=14)
    for d in (False, True):
        idx = ref_argsort(a, d)
        assert np.array_equal(clsort.argsort(a, descending=d, kind='radix8'), idx)
        same(clsort.sort(a, descending=d, kind='radix8'), a[idx])


def test_errors():
    with pytest.raises(TypeError, match='float16'):
        clsort.sort(np.zeros(4, np.float16))
    with pytest.raises(ValueError, match='unknown kind'):
        clsort.sort(np.zeros(4, np.int32), kind='bogo')
    with pytest.raises(clsort.ClsortError) as e:
        clsort.argsort(np.arange(10, dtype=np.int32), kind='bitonic')
    assert e.value.name == 'CLSORT_ERROR_UNSUPPORTED' and 'stable' in e.value.detail
    with pytest.raises(clsort.ClsortError) as e:
        clsort.Context(settings={'stage_bytes': 'x'})
    assert e.value.name == 'CLSORT_ERROR_INVALID_ARGUMENT' and 'stage_bytes' in e.value.detail
    with pytest.raises(clsort.ClsortError) as e:
        clsort.Context('no-such-device-9:9')
    assert e.value.detail


def test_context():
    with clsort.Context(settings={'scratch_keep': '0'}) as c:
        assert 'Portable Computing Language' in c.device_name or c.device_name
        a = make('u4', 1000)
        same(c.sort(a), np.sort(a, kind='stable'))
    with pytest.raises(ValueError, match='closed'):
        c.sort(a)
    assert clsort.default_context() is clsort.default_context()


cl = pytest.importorskip('pyopencl')
cla = pytest.importorskip('pyopencl.array')


@pytest.fixture(scope='module')
def queue():
    try:
        ctx = cl.create_some_context(interactive=False)
    except Exception as e:  # no OpenCL platform for PyOpenCL
        pytest.skip('no PyOpenCL device: %s' % e)
    return cl.CommandQueue(ctx)


@pytest.mark.parametrize('dtype', ['f4', 'i8', 'f8'])
def test_pyopencl(queue, dtype):
    a = make(dtype, 30001, seed=15)
    for d in (False, True):
        idx = ref_argsort(a, d)
        g = cla.to_device(queue, a)
        assert clsort.sort(g, descending=d) is g  # in place, on its queue
        same(g.get(), a[idx])
        g = cla.to_device(queue, a)
        pos = clsort.argsort(g, descending=d)
        assert np.array_equal(pos.get(), idx)
        same(g.get(), a[idx])
    m = make(dtype, 40 * 301, seed=16).reshape(40, 301)
    g = cla.to_device(queue, m)
    clsort.sort(g)
    same(g.get(), np.sort(m, axis=-1, kind='stable'))
    with pytest.raises(ValueError, match='contiguous'):
        clsort.sort(cla.to_device(queue, m)[:, ::2])


def test_pyopencl_device_algorithm(queue):
    """radix8 on the device array: the library's canonical form and its restore run as kernels
    on the array's queue, after the events the array waits for."""
    a = make('f4', 20001, seed=17)
    for d in (False, True):
        g = cla.to_device(queue, a)
        clsort.sort(g, descending=d, kind='radix8')
        same(g.get(), a[ref_argsort(a, d)])


# --- text lines, against GNU sort (LC_ALL=C) ----------------------------------------------------

def _gnu_sort(data, args):
    import shutil
    import subprocess
    if not shutil.which('sort'):
        pytest.skip('GNU sort not found')
    env = dict(os.environ, LC_ALL='C')
    return subprocess.run(['sort', *args], input=data, capture_output=True, env=env,
                          check=True).stdout


def _lines(rng, n, words=False):
    out = []
    for _ in range(n):
        if words:  # fields: a word, a number, a size with a unit, mixed case
            out.append(b'%s\t%d\t%d%s\t%s' % (
                bytes(rng.choice(list(b'abcXYZ'), size=rng.integers(0, 4)).tolist()),
                rng.integers(-50, 50), rng.integers(0, 999), rng.choice([b'', b'K', b'M', b'G']),
                rng.choice([b'Apple', b'apple', b'banana', b'Banana', b' x', b''])))
        else:  # any bytes but the delimiter, short lines so that many are equal or prefixes
            out.append(bytes(rng.integers(1, 256, size=rng.integers(0, 12)).astype(np.uint8)
                             .tobytes().replace(b'\n', b'.')))
    return out


@pytest.mark.parametrize('n', [0, 1, 2, 1000, 40009])
def test_sort_lines_bytes(n):
    rng = np.random.default_rng(n)
    data = b'\n'.join(_lines(rng, n))  # the last line without its newline
    for args, kw in (([], {}), (['-r'], {'reverse': True}), (['-u'], {'unique': True})):
        assert clsort.sort_lines(data, **kw) == _gnu_sort(data, args), args


@pytest.mark.parametrize('args,keys,kw', [
    (['-n'], (), {'numeric': True}),
    (['-t', '\t', '-k2,2n'], ['2,2n'], {'separator': '\t'}),
    (['-t', '\t', '-k2,2nr', '-k1,1'], ['2,2nr', '1,1'], {'separator': '\t'}),
    (['-t', '\t', '-k3,3h'], ['3,3h'], {'separator': '\t'}),
    (['-t', '\t', '-k4,4f', '-s'], ['4,4f'], {'separator': '\t', 'stable': True}),
    (['-t', '\t', '-k2,2g', '-u'], ['2,2g'], {'separator': '\t', 'unique': True}),
    (['-f'], (), {'ignore_case': True}),
    (['-k4b'], ['4b'], {}),
    (['-b', '-k4'], ['4'], {'ignore_leading_blanks': True}),
    (['-d', '-r'], (), {'dictionary_order': True, 'reverse': True}),
])
def test_sort_lines_keys(args, keys, kw):
    rng = np.random.default_rng(7)
    data = b'\n'.join(_lines(rng, 20011, words=True)) + b'\n'
    assert clsort.sort_lines(data, keys, **kw) == _gnu_sort(data, args)


def test_sort_lines_zero_terminated_and_errors():
    data = b'b\nx\0a\0c'
    assert clsort.sort_lines(data, zero_terminated=True) == _gnu_sort(data, ['-z'])
    assert clsort.sort_lines(b'') == b''
    assert clsort.sort_lines(bytearray(b'b\na')) == b'a\nb\n'
    with pytest.raises(TypeError):
        clsort.sort_lines('text')
    with pytest.raises(ValueError, match='FIELD'):
        clsort.sort_lines(b'a\n', ['x'])
    with pytest.raises(ValueError, match="modifier 'M'"):
        clsort.sort_lines(b'a\n', ['1M'])
    with pytest.raises(ValueError, match='one byte'):
        clsort.sort_lines(b'a\n', separator='ab')
    ctx = clsort.default_context()
    assert ctx.sort_lines(b'2\n10\n1\n', numeric=True) == b'1\n2\n10\n'
