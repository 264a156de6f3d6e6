#!/usr/bin/env python3
"""Reference checks for the clsort CLI tests: each compares clsort's output with a result computed here.

Usage: check.py COMMAND ARGS...   (exit 0 when the check passes, 1 with a message when it fails)
  keys IN OUT [desc]          OUT holds IN's u32 keys sorted (descending with 'desc')
  kv IN OUT [desc]            OUT holds IN's 8-byte records stably sorted by key
  kvset IN OUT                OUT holds IN's records sorted by key, each value with its key (any
                              order among equal keys: for algorithms that need not be stable)
  separate KIN VIN KOUT VOUT  KOUT/VOUT are KIN/VIN's keys and values stably sorted by key
  count FILE N SIZE           FILE holds N records of SIZE bytes
  bits FILE Q                 the fraction of set bits in FILE's keys is close to 2^-Q
  dist FILE NAME [K]          FILE's keys have the shape of distribution NAME (sorted, reverse,
                              constant, few K, uniform)
  index-values FILE N         FILE holds the u32 values 0..N-1 (gen --values-out)
  kv-index FILE N             FILE's records have values 0..N-1 in order (gen --kv)
  json FILE KEY...            FILE is one JSON object with at least these keys; prints it
  zipf FILE S                 FILE's u32 keys follow Zipf's law with exponent S over 2^32 ranks
  typed FILE TYPE DIST [VS]   FILE holds keys of TYPE (u32 i32 f32 u64 i64 f64), each followed by a
                              VS-byte value (its index) when VS is given, with the shape of DIST
                              (uniform, sorted, reverse, entropy:Q)
  tsort IN OUT [OPTIONS]      OUT holds IN's records sorted as clsort sorts them; options:
                                --type T (default u32), --value-size V (bytes after each key,
                                default 0), --desc, --bits B:E, --segment N, --unstable (equal
                                keys in any order, each value still with its key), --values VIN
                                VOUT (the values in separate files; IN and OUT hold keys alone)
                              Floats in IEEE total order: -NaN < -inf < ... < -0.0 < +0.0 < ...
                              < +inf < +NaN, from the mapped bits.
"""
import array
import collections
import json
import math
import struct
import sys


def u32(path):
    a = array.array('I')
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) % 4:
        fail(f'{path}: {len(data)} bytes is not a whole number of u32 words')
    a.frombytes(data)
    if sys.byteorder != 'little':
        a.byteswap()
    return a


def fail(msg):
    print('check failed: ' + msg, file=sys.stderr)
    sys.exit(1)


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def same(got, want, what):
    if len(got) != len(want):
        fail(f'{what}: {len(got)} elements, expected {len(want)}')
    if got != want:
        i = first_difference(got, want)
        fail(f'{what}: element {i} is {got[i]}, expected {want[i]}')


def stable_order(keys, desc):
    # Python's sort is stable; for descending, equal keys still keep their input order
    return sorted(range(len(keys)), key=(lambda i: -keys[i]) if desc else (lambda i: keys[i]))


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == 'keys':
        desc = len(args) > 2 and args[2] == 'desc'
        want = array.array('I', sorted(u32(args[0]), reverse=desc))
        same(u32(args[1]), want, args[1])
    elif cmd == 'kv':
        desc = len(args) > 2 and args[2] == 'desc'
        rec = u32(args[0])
        keys, vals = rec[0::2], rec[1::2]
        order = stable_order(keys, desc)
        want = array.array('I')
        for i in order:
            want.append(keys[i])
            want.append(vals[i])
        same(u32(args[1]), want, args[1] + ' (records)')
    elif cmd == 'kvset':
        rec, out = u32(args[0]), u32(args[1])
        if len(rec) != len(out):
            fail(f'{args[1]}: {len(out) // 2} records, expected {len(rec) // 2}')
        keys = out[0::2]
        if list(keys) != sorted(keys):
            fail(f'{args[1]}: keys not sorted')
        if sorted(zip(rec[0::2], rec[1::2])) != sorted(zip(out[0::2], out[1::2])):
            fail(f'{args[1]}: records differ from the input\'s (a value left its key)')
    elif cmd == 'separate':
        keys, vals = u32(args[0]), u32(args[1])
        order = stable_order(keys, False)
        same(u32(args[2]), array.array('I', (keys[i] for i in order)), args[2] + ' (keys)')
        same(u32(args[3]), array.array('I', (vals[i] for i in order)), args[3] + ' (values)')
    elif cmd == 'count':
        with open(args[0], 'rb') as f:
            size = len(f.read())
        want = int(args[1]) * int(args[2])
        if size != want:
            fail(f'{args[0]}: {size} bytes, expected {want}')
    elif cmd == 'bits':
        keys, q = u32(args[0]), int(args[1])
        ones = sum(bin(k).count('1') for k in keys)
        frac = ones / (32.0 * len(keys))
        want = 2.0 ** -q
        if abs(frac - want) > 0.1 * want + 0.002:
            fail(f'{args[0]}: fraction of set bits {frac:.5f}, expected about {want:.5f}')
        print(f'entropy:{q}: fraction of set bits {frac:.5f} (2^-{q} = {want:.5f})')
    elif cmd == 'dist':
        keys, name = u32(args[0]), args[1]
        if name == 'sorted' and list(keys) != sorted(keys):
            fail(f'{args[0]}: not sorted')
        if name == 'reverse' and list(keys) != sorted(keys, reverse=True):
            fail(f'{args[0]}: not in reverse order')
        if name in ('sorted', 'reverse') and len(keys) > 1000:
            # spread over the whole range
            if max(keys) < 0xF0000000 or min(keys) > 0x0FFFFFFF:
                fail(f'{args[0]}: keys do not span the range ({min(keys)}..{max(keys)})')
        if name == 'constant' and len(set(keys)) != 1:
            fail(f'{args[0]}: {len(set(keys))} distinct keys, expected 1')
        if name == 'few' and len(set(keys)) != int(args[2]):
            fail(f'{args[0]}: {len(set(keys))} distinct keys, expected {args[2]}')
        if name == 'uniform':
            distinct = len(set(keys))
            if distinct < 0.99 * len(keys):
                fail(f'{args[0]}: only {distinct} distinct keys of {len(keys)}')
            mean = sum(keys) / len(keys)
            if abs(mean / 2**32 - 0.5) > 0.01:
                fail(f'{args[0]}: mean {mean / 2**32:.4f} of the range, expected about 0.5')
    elif cmd == 'index-values':
        same(u32(args[0]), array.array('I', range(int(args[1]))), args[0])
    elif cmd == 'kv-index':
        rec = u32(args[0])
        same(rec[1::2], array.array('I', range(int(args[1]))), args[0] + ' (values)')
    elif cmd == 'json':
        with open(args[0]) as f:
            obj = json.load(f)
        if not isinstance(obj, dict):
            fail(f'{args[0]}: not a JSON object')
        missing = [k for k in args[1:] if k not in obj]
        if missing:
            fail(f'{args[0]}: missing keys {missing}')
        print(json.dumps(obj))
    elif cmd == 'zipf':
        zipf(args[0], float(args[1]))
    elif cmd == 'tsort':
        tsort(args)
    elif cmd == 'typed':
        typed(args[0], args[1], args[2], int(args[3]) if len(args) > 3 else 0)
    else:
        fail(f'unknown check {cmd}')


def zipf_norm(s, ranks=2**32, exact=100000):
    """The sum of k^-s for k = 1..ranks: the first terms exactly, the rest as an integral."""
    head = sum(k ** -s for k in range(1, exact + 1))
    a, b = exact + 0.5, ranks + 0.5
    tail = math.log(b / a) if s == 1 else (b ** (1 - s) - a ** (1 - s)) / (1 - s)
    return head + tail


def zipf(path, s):
    keys = u32(path)
    n = len(keys)
    counts = sorted(collections.Counter(keys).values(), reverse=True)
    h = zipf_norm(s)
    # the most frequent keys' shares against k^-s / H, within 5 standard deviations (and 2%)
    for k in (1, 2, 3, 10):
        p = k ** -s / h
        want = n * p
        sd = math.sqrt(n * p * (1 - p))
        got = counts[k - 1] if k <= len(counts) else 0
        if abs(got - want) > 5 * sd + 0.02 * want:
            fail(f'{path}: rank {k} has {got} keys, expected about {want:.0f} (zipf:{s})')
        print(f'zipf:{s}: rank {k}: {got} keys, expected {want:.0f}')


TYPES = {'u32': ('I', 4), 'i32': ('i', 4), 'f32': ('f', 4), 'u64': ('Q', 8), 'i64': ('q', 8), 'f64': ('d', 8)}


def typed(path, ty, dist, vs):
    code, ks = TYPES[ty]
    with open(path, 'rb') as f:
        data = f.read()
    rs = ks + vs
    if len(data) % rs:
        fail(f'{path}: {len(data)} bytes is not a whole number of {rs}-byte records')
    n = len(data) // rs
    keys = [struct.unpack_from('<' + code, data, i * rs)[0] for i in range(n)]
    if vs:
        vcode = 'I' if vs == 4 else 'Q'
        vals = [struct.unpack_from('<' + vcode, data, i * rs + ks)[0] for i in range(n)]
        if vals != list(range(n)):
            fail(f'{path}: the values are not the indices 0..{n - 1}')
    if ty[0] == 'f' and not all(math.isfinite(k) for k in keys):
        fail(f'{path}: keys that are not finite')
    if dist == 'sorted' and keys != sorted(keys):
        fail(f'{path}: not sorted as {ty}')
    if dist == 'reverse' and keys != sorted(keys, reverse=True):
        fail(f'{path}: not in reverse order as {ty}')
    if dist in ('sorted', 'reverse', 'uniform') and n >= 1000:
        if ty[0] in 'if':
            neg = sum(1 for k in keys if k < 0) / n
            if abs(neg - 0.5) > 0.05:
                fail(f'{path}: {neg:.3f} of the keys are negative, expected about half')
        if dist == 'uniform' and len(set(keys)) < 0.99 * n:
            fail(f'{path}: only {len(set(keys))} distinct keys of {n}')
        if ty[0] == 'u':
            top = 2 ** (8 * ks)
            mean = sum(keys) / n / top
            if abs(mean - 0.5) > 0.02:
                fail(f'{path}: mean {mean:.4f} of the range, expected about 0.5')
    if dist.startswith('entropy:'):
        q = int(dist.split(':')[1])
        raw = [int.from_bytes(data[i * rs:i * rs + ks], 'little') for i in range(n)]
        frac = sum(bin(k).count('1') for k in raw) / (8.0 * ks * n)
        if abs(frac - 2.0 ** -q) > 0.1 * 2.0 ** -q + 0.002:
            fail(f'{path}: fraction of set bits {frac:.5f}, expected about {2.0 ** -q:.5f}')
    print(f'{path}: {n} {ty} keys{f" with {vs}-byte values" if vs else ""}, {dist}: ok')



def mapped(ty, bits):
    """The key's bits as an unsigned integer in the type's order (as clsort maps them)."""
    w = 8 * TYPES[ty][1]
    sign = 1 << (w - 1)
    if ty[0] == 'i':
        return bits ^ sign
    if ty[0] == 'f':
        return (~bits & ((1 << w) - 1)) if bits & sign else bits ^ sign
    return bits


def records(data, rs, what):
    if len(data) % rs:
        fail(f'{what}: {len(data)} bytes is not a whole number of {rs}-byte records')
    return [data[i:i + rs] for i in range(0, len(data), rs)]


def tsort(args):
    opts = {'type': 'u32', 'value-size': '0', 'bits': None, 'segment': '0'}
    flags = set()
    vfiles = None
    inp, out = args[0], args[1]
    rest = args[2:]
    while rest:
        o = rest.pop(0)[2:]
        if o in ('desc', 'unstable'):
            flags.add(o)
        elif o == 'values':
            vfiles = (rest.pop(0), rest.pop(0))
        else:
            opts[o] = rest.pop(0)
    ty = opts['type']
    ks, vs = TYPES[ty][1], int(opts['value-size'])
    b, e = (0, 8 * ks) if not opts['bits'] else map(int, opts['bits'].split(':'))
    seg = int(opts['segment'])
    desc = 'desc' in flags
    read = lambda p: open(p, 'rb').read()
    if vfiles:
        kin, kout = records(read(inp), ks, inp), records(read(out), ks, out)
        vin, vout = records(read(vfiles[0]), vs, vfiles[0]), records(read(vfiles[1]), vs, vfiles[1])
        if len(vout) != len(kout):
            fail(f'{vfiles[1]}: {len(vout)} values for {len(kout)} keys')
        rin = [k + v for k, v in zip(kin, vin)]
        rout = [k + v for k, v in zip(kout, vout)]
    else:
        rin, rout = records(read(inp), ks + vs, inp), records(read(out), ks + vs, out)
    if len(rin) != len(rout):
        fail(f'{out}: {len(rout)} records, expected {len(rin)}')
    mask = (1 << (e - b)) - 1

    def digit(r):
        d = (mapped(ty, int.from_bytes(r[:ks], 'little')) >> b) & mask
        return -d if desc else d

    n = len(rin)
    step = seg if seg else max(n, 1)
    for s0 in range(0, n, step):
        want = sorted(rin[s0:s0 + step], key=digit)  # stable, descending too
        got = rout[s0:s0 + step]
        if 'unstable' in flags:
            if [digit(r) for r in got] != [digit(r) for r in want]:
                i = first_difference([digit(r) for r in got], [digit(r) for r in want])
                fail(f'{out}: record {s0 + i} is out of order')
            if sorted(got) != sorted(want):
                fail(f'{out}: the records of the segment at {s0} differ from the input\'s')
        elif got != want:
            i = first_difference(got, want)
            gk = struct.unpack('<' + TYPES[ty][0], got[i][:ks])[0]
            wk = struct.unpack('<' + TYPES[ty][0], want[i][:ks])[0]
            fail(f'{out}: record {s0 + i} is key {gk!r} value {got[i][ks:].hex()}, expected key {wk!r} '
                 f'value {want[i][ks:].hex()}')
    print(f'{out}: {n} {ty} records sorted{" descending" if desc else ""}: ok')


if __name__ == '__main__':
    main(sys.argv)
