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
                              < +inf < +NaN, from the mapped bits. --unique: of each run of equal
                              keys (in that order) only the first record, the earliest input one
                              (several IN files joined by commas are one input, in that order: a
                              stable merge of sorted files is the stable sort of their concatenation)
  disorder IN [OPTIONS]       print 'disorder IN I', I the index of IN's first record out of order
                              (tsort's options; --strict: equal neighbours too, and 'disorder
                              strict IN I'), or 'sorted' for I
  firsts IN OUT [desc]        OUT holds the first record (the earliest) of each u32 key of IN's
                              8-byte records, in key order: sort -u, for inputs too long for tsort
  kvmerge OUT IN... [--unique] OUT holds the stable merge of the sorted u32 8-byte records of the INs
                              (on equal keys the earlier IN's first); --unique: the first of each key
  batch FILE                  run the commands of FILE, one per line, in this one process: print
                              each one's output, then 'ok LINE' or 'FAIL LINE: why'
  records OUT N SEED [OPTIONS]  write N records of --type T with --value-size V (each value its
                              index): keys from a small pool with repeats, the type's extremes, and
                              for floats ±0.0, ±inf and NaNs with payloads; --sorted: in tsort's
                              order (--desc, --bits B:E), stably
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
    elif cmd == 'batch':
        batch(args[0])
    elif cmd == 'firsts':
        rec = u32(args[0])
        first = {}
        for i, k in enumerate(rec[0::2]):
            first.setdefault(k, i)
        want = array.array('I')
        for k in sorted(first, reverse=len(args) > 2 and args[2] == 'desc'):
            want.append(k)
            want.append(rec[2 * first[k] + 1])
        same(u32(args[1]), want, args[1] + ' (first records)')
    elif cmd == 'kvmerge':
        unique = args[-1] == '--unique'
        ins = args[1:-1] if unique else args[1:]
        rec = array.array('I')
        for p in ins:
            rec.extend(u32(p))
        keys = rec[0::2]
        order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: runs in input order
        want = array.array('I')
        for n, i in enumerate(order):
            if not unique or n == 0 or keys[order[n - 1]] != keys[i]:
                want.append(keys[i])
                want.append(rec[2 * i + 1])
        same(u32(args[0]), want, args[0] + ' (merged records)')
    elif cmd == 'disorder':
        disorder(args)
    elif cmd == 'records':
        make_records(args)
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


def order_opts(args):
    """tsort's options: (type, key size, value size, digit function, segment, flags, values files)."""
    opts = {'type': 'u32', 'value-size': '0', 'bits': None, 'segment': '0'}
    flags = set()
    vfiles = None
    rest = list(args)
    while rest:
        o = rest.pop(0)[2:]
        if o in ('desc', 'unstable', 'unique', 'strict', 'sorted'):
            flags.add(o)
        elif o == 'values':
            vfiles = (rest.pop(0), rest.pop(0))
        else:
            opts[o] = rest.pop(0)
    ty = opts['type']
    ks, vs = TYPES[ty][1], int(opts['value-size'])
    b, e = (0, 8 * ks) if not opts['bits'] else map(int, opts['bits'].split(':'))
    mask = (1 << (e - b)) - 1
    desc = 'desc' in flags

    def digit(r):
        d = (mapped(ty, int.from_bytes(r[:ks], 'little')) >> b) & mask
        return -d if desc else d

    return ty, ks, vs, digit, int(opts['segment']), flags, vfiles


def read_joined(paths):
    data = b''
    for p in paths.split(','):
        with open(p, 'rb') as f:
            data += f.read()
    return data


def tsort(args):
    inp, out = args[0], args[1]
    rest = list(args[2:])
    top = None  # --top K: the first K records of the stable sort
    if '--top' in rest:
        at = rest.index('--top')
        top = int(rest[at + 1])
        del rest[at:at + 2]
    ty, ks, vs, digit, seg, flags, vfiles = order_opts(rest)
    desc = 'desc' in flags
    read = read_joined
    if vfiles:
        kin, kout = records(read(inp), ks, inp), records(read(out), ks, out)
        vin, vout = records(read(vfiles[0]), vs, vfiles[0]), records(read(vfiles[1]), vs, vfiles[1])
        if len(vout) != len(kout):
            fail(f'{vfiles[1]}: {len(vout)} values for {len(kout)} keys')
        rin = [k + v for k, v in zip(kin, vin)]
        rout = [k + v for k, v in zip(kout, vout)]
    else:
        rin, rout = records(read(inp), ks + vs, inp), records(read(out), ks + vs, out)
    if top is not None:
        rin = sorted(rin, key=digit)[:top]
    if 'unique' in flags:
        ordered = sorted(rin, key=digit)
        rin = [r for i, r in enumerate(ordered) if i == 0 or digit(ordered[i - 1]) != digit(r)]
    if len(rin) != len(rout):
        fail(f'{out}: {len(rout)} records, expected {len(rin)}')

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


def disorder(args):
    inp = args[0]
    ty, ks, vs, digit, seg, flags, _ = order_opts(args[1:])
    recs = records(read_joined(inp), ks + vs, inp)
    strict = 'strict' in flags
    for i in range(1, len(recs)):
        if seg and i % seg == 0:
            continue
        a, b = digit(recs[i - 1]), digit(recs[i])
        if a > b or (strict and a == b):
            print(f'disorder{" strict" if strict else ""} {inp} {i}')
            return
    print(f'disorder{" strict" if strict else ""} {inp} sorted')


def batch(path):
    import io
    import shlex
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    for line in lines:
        err, sys.stderr = sys.stderr, io.StringIO()
        try:
            main(['check.py'] + shlex.split(line))
            why = None
        except SystemExit as e:
            why = sys.stderr.getvalue().strip() or f'exit {e.code}' if e.code else None
        except Exception as e:  # a broken check fails its line, not the others
            why = repr(e)
        finally:
            sys.stderr = err
        print(f'ok {line}' if why is None else f'FAIL {line}: {why}')


def make_records(args):
    import random
    out, n, seed = args[0], int(args[1]), int(args[2])
    ty, ks, vs, digit, _, flags, _ = order_opts(args[3:])
    rnd = random.Random(seed)
    w = 8 * ks
    top = (1 << w) - 1
    pool = [0, top, 1 << (w - 1), (1 << (w - 1)) - 1, 1]
    if ty[0] == 'f':
        sign = 1 << (w - 1)
        inf = 0x7f800000 if w == 32 else 0x7ff0000000000000
        qnan = 0x7fc00000 if w == 32 else 0x7ff8000000000000
        pool += [sign, inf, inf | sign, qnan, qnan | sign, qnan | 0x123, qnan | sign | 0x123, inf | 1,
                 0x3f800000 if w == 32 else 0x3ff0000000000000]
    pool += [rnd.getrandbits(w) for _ in range(max(4, n // 8))]
    keys = [rnd.choice(pool) for _ in range(n)]
    recs = [k.to_bytes(ks, 'little') + (i.to_bytes(vs, 'little') if vs else b'') for i, k in enumerate(keys)]
    if 'sorted' in flags:
        recs.sort(key=digit)
    with open(out, 'wb') as f:
        f.write(b''.join(recs))


if __name__ == '__main__':
    main(sys.argv)
