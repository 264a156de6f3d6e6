#!/usr/bin/env python3
"""clsort text against GNU sort (LC_ALL=C), byte for byte: a generated matrix of inputs and options.

Usage: text_matrix.py CLSORT GROUP...   (groups: single pairs keys edge errors check merge files
runs fuzz device). Prints one "ok NAME" or "FAIL NAME: why" a case; exit 0 either way (the shell
script counts). Inputs come from fixed seeds, so a failure repeats.
"""
import os
import random
import subprocess
import sys

CLSORT = sys.argv[1]
ENV = dict(os.environ, LC_ALL="C")
for k in ("LANG", "LC_COLLATE", "LC_NUMERIC", "LC_CTYPE"):
    ENV.pop(k, None)


def run(argv, data=None):
    p = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    return p.returncode, p.stdout, p.stderr


def first_line(err, prog):
    line = err.split(b"\n", 1)[0].decode("utf-8", "replace")
    return line[len(prog) + 2:] if line.startswith(prog + ": ") else line


def report(name, ok, why=""):
    name = name.replace("\n", "\\n").replace("\t", "TAB")
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    sys.stdout.flush()


def compare(name, opts, data, files=None, cl_extra=()):
    """Same output, status and (for errors) first message line as GNU sort."""
    files = files or []
    g = run(["sort"] + opts + files, data)
    c = run([CLSORT, "text"] + list(cl_extra) + opts + files, data)
    if g[0] != c[0]:
        report(name, False, "status %d, GNU sort %d; stderr %r" % (c[0], g[0], c[2][:300]))
    elif g[1] != c[1]:
        n = next((i for i in range(min(len(g[1]), len(c[1]))) if g[1][i] != c[1][i]),
                 min(len(g[1]), len(c[1])))
        report(name, False, "output differs at byte %d: %r vs GNU %r" %
               (n, c[1][max(0, n - 40):n + 40], g[1][max(0, n - 40):n + 40]))
    elif g[0] != 0 and first_line(g[2], "sort") != first_line(c[2], "clsort"):
        report(name, False, "message %r, GNU sort %r" % (first_line(c[2], "clsort"),
                                                          first_line(g[2], "sort")))
    else:
        report(name, True)


# ---- inputs ----------------------------------------------------------------------------------

def words(r, n):
    alpha = "abcABC xyz-_.,;:09\t"
    return ["".join(r.choice(alpha) for _ in range(r.randint(0, 6))) for _ in range(n)]


def mixed(seed, n=120):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        f = []
        for _ in range(r.randint(0, 4)):
            c = r.random()
            if c < 0.3:
                f.append(r.choice(["", " ", "  "]) + str(r.randint(-50, 50)))
            elif c < 0.45:
                f.append("%.*f" % (r.randint(0, 3), r.uniform(-20, 20)))
            elif c < 0.6:
                f.append(r.choice(["", " ", "\t"]))
            elif c < 0.7:
                f.append(bytes([r.randint(0x80, 0xff)]).decode("latin-1") + "x")
            else:
                f.append(r.choice(words(r, 1)))
        out.append(r.choice([" ", "\t", ",", " "]).join(f))
    out += out[: n // 6]  # duplicates
    r.shuffle(out)
    return ("\n".join(out) + "\n").encode("latin-1")


NUMBERS = ["0", "-0", "+4", "4", "  -3.5", "-3.50", "3.5", ".5", "-.5", "0.000", "007", "7",
           "1e3", "1,000", "", "abc", "  12abc", "-", ".", "-0.0", "99999999999999999999",
           "99999999999999999998", "123456789012345678901234567890.5", "-1", "--1", " \t 8",
           "0.1", "0.10", "1.", "-1.", "12", "12.000001", "9223372036854775807",
           "9223372036854775808", "-9223372036854775809", "1" * 50, "1" * 49 + "2", "0." + "0" * 60 + "1"]
# NaNs apart (group_edge): GNU sort 9.1 orders NaNs of equal bits by padding bytes it never sets
GENERAL = ["1e3", "-inf", "inf", "0x1p3", "  2.5E-1", "abc", "", "1e5000",
           "-1e5000", "-0", "0", "1", "1.0", "+5", " 7", "infinity", "0x10",
           "1e-400", "-1e-400", "3", "2.9999999999999999999", "3.0000000000000000001", "e5", "."]
# (no R or Q: GNU sort took those units in 9.2; clsort text follows 9.1, Debian 12's)
HUMAN = ["1K", "2k", "3M", "1G", "0.5T", "-1K", "0K", "1", "10", "5Y", "x", "",
         "1.5K", "1.K", "1023", "2P", "-2M", "1E", "1Z", "-0.0G", " 3K", "1KiB", "1Ki", "0.001M"]


def values(seed, pool, n=90, fields=True):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        v = r.choice(pool)
        if fields:
            out.append("%s\t%s %s" % (r.choice(["a", "b", "B", "c"]), v, r.choice(pool)))
        else:
            out.append(v)
    return ("\n".join(out) + "\n").encode()


def crlf(seed):
    return mixed(seed, 40).replace(b"\n", b"\r\n")


def zdata(seed):
    r = random.Random(seed)
    recs = [("%s\n%d %s" % (r.choice(words(r, 3)), r.randint(-9, 9), r.choice(words(r, 2))))
            for _ in range(60)]
    return "\0".join(recs).encode() + b"\0"


def long_lines(seed):
    r = random.Random(seed)
    lines = []
    for i in range(6):
        body = "".join(r.choice("ab") for _ in range(65536 - 8))
        lines.append(("%d " % r.randint(0, 3)) + body + ("%02d" % (i % 3)))
    lines += ["1 a", "0 b"]
    r.shuffle(lines)
    return ("\n".join(lines) + "\n").encode()


DATA = {
    "mixed": mixed(1),
    "mixed2": mixed(2, 60),
    "numbers": values(3, NUMBERS),
    "numbers-plain": values(4, NUMBERS, fields=False),
    "general": values(5, GENERAL),
    "human": values(6, HUMAN),
    "crlf": crlf(7),
    "long": long_lines(8),
}

GLOBAL = ["-n", "-g", "-h", "-r", "-b", "-f", "-d", "-i", "-u", "-s"]


def group_single():
    for name, data in DATA.items():
        compare("plain %s" % name, [], data)
        for o in GLOBAL:
            compare("%s %s" % (o, name), [o], data)


def group_pairs():
    sets = ["mixed", "numbers", "general", "human"]
    i = 0
    for a in range(len(GLOBAL)):
        for b in range(a + 1, len(GLOBAL)):
            for s in (sets[i % 4], "mixed2"):
                compare("%s %s %s" % (GLOBAL[a], GLOBAL[b], s), [GLOBAL[a], GLOBAL[b]], DATA[s])
            i += 1


KEYS = [["-k2"], ["-k2,2"], ["-k2,2n"], ["-k2,2nr"], ["-k1.3,1.5"], ["-k2b,2"], ["-k2,2b"],
        ["-k1,1", "-k2n"], ["-k3,3r", "-k1,1"], ["-k2.2b,3.1"], ["-k2,2g"], ["-k2,2h"],
        ["-k2,2f", "-k1,1r"], ["-k2.3"], ["-k2,1"], ["-k1.2,1.0"], ["-k5"], ["-k2,2d"],
        ["-k2,2i", "-s"], ["-k2,2", "-u"], ["-k1,1", "-u", "-r"], ["-k2n", "-s", "-r"],
        ["-k2", "-n"], ["-k2", "-b", "-f"], ["-k2r", "-n"], ["-t", "\t", "-k2,2n"],
        ["-t", ",", "-k2,2"], ["-t", ",", "-k2"], ["-t", " ", "-k3,3", "-k2,2nr"],
        ["-t", ",", "-k1.2,1.3"], ["-t", "\t", "-k2.2,2.3b"], ["-t", "a", "-k2"],
        ["--key=2,2", "--numeric-sort"], ["--sort=numeric", "-k2,2"], ["-k", "1,1", "-k", "2,2g"],
        ["-t", "\t", "-k2,2h", "-u"], ["-k2bn,2"], ["-k2.1b,2.1b"]]


def group_keys():
    for i, k in enumerate(KEYS):
        for s in ("mixed", ["numbers", "general", "human"][i % 3], "crlf"):
            compare("%s %s" % (" ".join(k).replace("\t", "TAB"), s), k, DATA[s])


def group_edge():
    cases = {"empty": b"", "one": b"x\n", "one-no-nl": b"x", "two": b"b\na\n", "two-no-nl": b"b\na",
             "empty-lines": b"\n\n\nb\n\na\n", "nl-only": b"\n", "spaces": b"  \n \n\t\n",
             "no-final-nl": b"c\nb\na", "dups": b"a\nb\na\nb\na\n", "nul-in-line": b"a\0b\na\0a\n"}
    for name, data in cases.items():
        for o in ([], ["-r"], ["-u"], ["-n"], ["-k2"], ["-s", "-k1,1"]):
            compare("%s %s" % (name, " ".join(o)), o, data)
    for o in ([], ["-k2n"], ["-u", "-k1,1"], ["-r", "-b"], ["-f", "-s"], ["-t", "\n", "-k2,2"]):
        compare("-z %s" % " ".join(o), ["-z"] + o, zdata(9))
    compare("-z no final NUL", ["-z"], b"b\0a")
    # one NaN of each sign: GNU sort orders NaN against -NaN by their bytes in 9.1 and by their
    # text in 9.2 and later, in opposite orders
    nans = b"nan\n1\nx\n-inf\ninf\n\n2e0\n-0\n"
    for o in (["-g"], ["-g", "-r"], ["-g", "-s"], ["-g", "-u"]):
        compare("NaNs %s" % " ".join(o), o, nans)


def group_errors():
    bad = [["-k0"], ["-k1.0"], ["-kx"], ["-k1,x"], ["-k1y"], ["-nd"], ["-q"], ["-t", "ab"],
           ["-t", ""], ["-S", "x"], ["--parallel=0"], ["-k1,0"], ["-k1.x"], ["-k", "-1"],
           ["-gh"], ["-k1,1nd"], ["-k1", "-nd"], ["--sort=foo"], ["--frobnicate"], ["-k"],
           ["-c", "-C"], ["-c", "-o", "x"], ["-t", "a", "-t", "b"], ["-o", "a", "-o", "b"],
           ["--check=foo"], ["-k1.1,1.1x"]]
    for o in bad:
        compare("error %s" % " ".join(o), o, b"a\n")
    c = run([CLSORT, "text", "no-such-file"])
    report("error missing file", c[0] == 2 and b"no-such-file" in c[2] and not c[1], repr(c))
    compare("error -c two files", ["-c", "a", "b"], b"")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([CLSORT, "text"], input=b"b\na\n", stdout=full, stderr=subprocess.PIPE,
                               env=ENV)
        report("error: stdout full", p.returncode == 2 and b"No space" in p.stderr, repr(p))
    c = run([CLSORT, "text", "-o", "no-such-dir/x"], b"a\n")
    report("error: -o in a missing directory", c[0] == 2 and b"no-such-dir" in c[2], repr(c))
    for o in (["-M"], ["-R"], ["-V"], ["--sort=month"], ["--debug"], ["-k1M"], ["-k1,1V"], ["+1"]):
        c = run([CLSORT, "text"] + o, b"a\n")
        report("unsupported %s" % " ".join(o), c[0] == 2 and b"GNU sort" in c[2] and not c[1],
               "status %d, stderr %r" % (c[0], c[2]))
    c = run([CLSORT, "text"], b"a\n")
    env = dict(ENV, LC_ALL="", LC_COLLATE="", LANG="")
    for loc in ("C", "POSIX", "C.UTF-8"):
        p = subprocess.run([CLSORT, "text"], input=b"b\na\n", capture_output=True,
                           env=dict(env, LC_ALL=loc))
        report("locale %s accepted" % loc, p.returncode == 0 and p.stdout == b"a\nb\n",
               "status %d %r" % (p.returncode, p.stderr))
    loc = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    other = [l for l in loc if l.lower().startswith("en_") and "utf" in l.lower()]
    if other:
        p = subprocess.run([CLSORT, "text"], input=b"b\na\n", capture_output=True,
                           env=dict(env, LC_ALL=other[0]))
        report("locale %s refused" % other[0],
               p.returncode == 2 and b"LC_ALL=C" in p.stderr and not p.stdout,
               "status %d %r" % (p.returncode, p.stderr))


def group_check():
    sorted_mixed = run(["sort"], DATA["mixed"])[1]
    sorted_num = run(["sort", "-k2,2n"], DATA["numbers"])[1]
    for name, data, opts in (("sorted", sorted_mixed, []), ("unsorted", DATA["mixed"], []),
                             ("sorted -n", sorted_num, ["-k2,2n"]), ("sorted -u dups", sorted_mixed, ["-u"]),
                             ("sorted -r", sorted_mixed, ["-r"]), ("sorted -s -k1,1", sorted_mixed, ["-s", "-k1,1"]),
                             ("empty", b"", []), ("one", b"a", [])):
        for c in ("-c", "-C", "--check=quiet", "--check"):
            compare("check %s %s" % (c, name), [c] + opts, data)
            g = run(["sort", c] + opts, data)
            k = run([CLSORT, "text", c] + opts, data)
            report("check message %s %s" % (c, name),
                   g[2].replace(b"sort: ", b"", 1) == k[2].replace(b"clsort: ", b"", 1),
                   "%r vs GNU %r" % (k[2], g[2]))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def group_merge():
    parts = [mixed(20 + i, 50) for i in range(3)]
    for opts in ([], ["-n", "-k2,2"], ["-u"], ["-r"], ["-s", "-k1,1"], ["-u", "-k1,1"]):
        names = []
        for i, p in enumerate(parts):
            write("m%d.txt" % i, run(["sort"] + opts, p)[1])
            names.append("m%d.txt" % i)
        compare("merge %s" % " ".join(opts), ["-m"] + opts, b"", names)
    write("u.txt", b"b\na\nc\n")
    compare("merge unsorted input", ["-m"], b"", ["u.txt", "m0.txt"])


def group_files():
    write("f1.txt", b"b\nx")  # no final newline: its last line is a line
    write("f2.txt", b"a\ny\n")
    write("f3.txt", b"")
    compare("files three", [], b"", ["f1.txt", "f2.txt", "f3.txt"])
    compare("files stdin between", [], b"m\nc\n", ["f1.txt", "-", "f2.txt"])
    write("list0", b"f1.txt\0f2.txt\0")
    compare("files0-from", ["--files0-from=list0"], b"")
    compare("files0-from stdin", ["--files0-from=-"], b"f2.txt\0f1.txt\0")
    compare("files0-from with operand", ["--files0-from=list0", "f1.txt"], b"")
    write("list0-empty-name", b"f1.txt\0\0f2.txt\0")
    compare("files0-from zero-length name", ["--files0-from=list0-empty-name"], b"")
    write("list0-none", b"")
    compare("files0-from no names", ["--files0-from=list0-none"], b"")
    for extra in (["-u"], ["-r", "-k1,1"]):
        compare("files %s" % " ".join(extra), extra, b"", ["f1.txt", "f2.txt"])
    # -o may name an input: everything is read first
    write("io.txt", b"3\n1\n2\n")
    c = run([CLSORT, "text", "-o", "io.txt", "io.txt"])
    with open("io.txt", "rb") as f:
        report("-o is the input", c[0] == 0 and f.read() == b"1\n2\n3\n", repr(c))
    c = run([CLSORT, "text", "-o", "text-out.txt", "no-such-file"])
    report("no output on failure", c[0] == 2 and not os.path.exists("text-out.txt"), repr(c))


def group_runs():
    r = random.Random(30)
    big = "".join("%s %d %s\n" % (r.choice(words(r, 5)), r.randint(-999, 999), r.choice(["x", "y"]))
                  for _ in range(30000)).encode("latin-1")
    for opts in ([], ["-n", "-k2,2"], ["-u"], ["-r", "-s", "-k3,3"], ["-u", "-k3,3"], ["-f"]):
        compare("runs -S 64K %s" % " ".join(opts), ["-S", "64K", "-T", "."] + opts, big)
    compare("runs -S 1b -z", ["-S", "1b", "-z"], big.replace(b"\n", b"\0"))


def group_device():
    """The device's sort: forced on small inputs, and by size on 1 MiB and more."""
    dev = os.environ.get("TEXT_DEVICE", "0:0")
    for name in ("mixed", "numbers", "general", "human", "long"):
        for o in ([], ["-k2,2n"], ["-r", "-u"]):
            compare("device %s %s" % (name, " ".join(o)), o, DATA[name], cl_extra=["--device=" + dev])
    r = random.Random(40)
    big = "".join("%d\n" % r.randint(-10**9, 10**9) for _ in range(150000)).encode()
    compare("device by size -n", ["-n"], big)
    compare("device by size", [], big)


def group_fuzz():
    """-k specs, random and malformed, accepted and refused as GNU sort does."""
    r = random.Random(50)
    alpha = "0123456789..,,bdfghinr+ -x"
    data = DATA["mixed2"]
    for _ in range(150):
        spec = "".join(r.choice(alpha) for _ in range(r.randint(1, 8)))
        if r.random() < 0.5:
            spec = str(r.randint(1, 4)) + spec
        compare("fuzz -k %r" % spec, ["-k", spec], data)


def group_hint():
    """clsort sort hints at clsort text on text input, and does what it did before."""
    hint = b"clsort text"
    write("h-text.txt", b"b\na\nc\n")  # 6 bytes: not whole u32 keys
    write("h-bin.bin", bytes([0, 200, 3, 0, 1, 0, 9]))
    write("h-utf8.txt", "zé\nä\n".encode())  # 7 bytes
    write("h-four.txt", b"b\na\nc\n\n\n")  # 8 bytes: two u32 keys, sorted as before
    for f in ("h-out.bin", "h-out2.bin", "h-out3.bin"):
        if os.path.exists(f):
            os.remove(f)
    for name, want in (("h-text.txt", True), ("h-utf8.txt", True), ("h-bin.bin", False)):
        c = run([CLSORT, "sort", "-i", name, "-o", "h-out.bin"])
        report("hint %s" % name, c[0] == 1 and (hint in c[2]) == want and b"multiple" in c[2]
               and not os.path.exists("h-out.bin"), repr(c))
    c = run([CLSORT, "sort", "-i", "h-four.txt", "-o", "h-out.bin"])
    with open("h-out.bin", "rb") as f:
        out = f.read()
    import struct
    keys = sorted(struct.unpack("<2I", b"b\na\nc\n\n\n"))
    report("no hint, same sort, whole keys", c[0] == 0 and hint not in c[2] and
           out == struct.pack("<2I", *keys), repr(c))
    c = run([CLSORT, "sort", "-q", "-i", "h-text.txt", "-o", "h-out2.bin"])
    report("hint quiet with -q", c[0] == 1 and hint not in c[2], repr(c))
    import pty
    master, slave = pty.openpty()
    p = subprocess.run([CLSORT, "sort", "-o", "h-out3.bin"], stdin=slave, capture_output=True, env=ENV)
    os.close(slave)
    os.close(master)
    report("hint on a terminal", p.returncode == 1 and hint in p.stderr and b"no input" in p.stderr,
           repr(p))


GROUPS = {"hint": group_hint, "single": group_single, "pairs": group_pairs, "keys": group_keys, "edge": group_edge,
          "errors": group_errors, "check": group_check, "merge": group_merge, "files": group_files,
          "runs": group_runs, "device": group_device, "fuzz": group_fuzz}

for g in sys.argv[2:]:
    GROUPS[g]()
