#!/usr/bin/env bash
# Replacing files safely: what an output that replaces a file keeps (owner, group, mode, ACL, extended
# attributes), which symbolic links it follows, outputs that name open descriptors, what a pair of
# outputs is left as by a failure, a signal or SIGKILL at its commit, and no temporary file left by a
# crash. Checks that need another user run
# only as root (they switch to nobody with setpriv).
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 5000 --seed 3 -o keys.bin || exit 2
"$CLSORT" gen -n 5000 --seed 4 -o vals.bin || exit 2
"$CLSORT" -i keys.bin -o sorted.bin || exit 2
"$CLSORT" -i keys.bin --values vals.bin -o sorted-k.bin --values-out sorted-v.bin || exit 2
root=0
[ "$(id -u)" -eq 0 ] && root=1
# wait_stopped PID: until the process has stopped itself (a CLSORT_TEST_STOP_* hook), 10 s at most
wait_stopped() {
    for _ in $(seq 200); do
        [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = T ] && return
        sleep 0.05
    done
}
# Leak checks off where they cannot work or do not belong: LeakSanitizer cannot run under strace,
# and nobody's first run compiles kernels with PoCL, whose compiler keeps memory to the end.
NO_LEAK_CHECK="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
as_nobody() { mkdir -p nobody-home && chmod 777 nobody-home &&
    setpriv --reuid=65534 --regid=65534 --clear-groups -- env "$NO_LEAK_CHECK" \
    HOME="$PWD/nobody-home" CLSORT_CACHE_DIR="$PWD/nobody-home/cache" "$@"; }

# --- owner, group and mode kept by an in-place sort run by root ---------------------------------
if [ $root -eq 1 ]; then
    cp keys.bin own.bin
    chown nobody:nogroup own.bin
    chmod 4754 own.bin
    run_clsort -i own.bin -o own.bin
    expect_status "in place as root on a nobody-owned setuid file" 0
    check "owner, group and mode kept" test "$(stat -c '%U %G %a' own.bin)" = "nobody nogroup 4754"
    same_file "in place as root: sorted" own.bin sorted.bin

    # another user sorting root's world-writable setuid file in place: the owner cannot be kept, so
    # the set-user-ID and set-group-ID bits go; the group's bits shrink to what others had
    mkdir -m 0777 shared
    cp keys.bin shared/rootfile.bin
    chmod 6676 shared/rootfile.bin
    as_nobody "$CLSORT" -i shared/rootfile.bin -o shared/rootfile.bin 2>err.txt
    status=$?
    expect_status "in place as nobody on a root-owned setuid file" 0
    check "no set-ID bits on a file whose owner changed" test "$(stat -c '%a' shared/rootfile.bin)" = "666"
    same_file "in place as nobody: sorted" shared/rootfile.bin sorted.bin
fi

# --- extended attributes and ACLs ------------------------------------------------------------------
cp keys.bin attrs.bin
if $PYTHON -c 'import os,sys; os.setxattr(sys.argv[1], "user.origin", b"lab-7")' attrs.bin 2>/dev/null; then
    run_clsort -i attrs.bin -o attrs.bin
    expect_status "in place with an extended attribute" 0
    check "extended attribute kept" $PYTHON -c \
        'import os,sys; assert os.getxattr(sys.argv[1], "user.origin") == b"lab-7"' attrs.bin
else
    ok "skip: no user extended attributes on this file system"
fi
# An ACL: user::rw- user:nobody:rw- group::r-- mask::rw- other::---, mode 0660 (group bits = mask).
acl_py='
import os, struct, sys
def acl(entries):
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)
want = acl([(1, 6, 0xffffffff), (2, 6, 65534), (4, 4, 0xffffffff), (0x10, 6, 0xffffffff), (0x20, 0, 0xffffffff)])
if sys.argv[1] == "set":
    os.setxattr(sys.argv[2], "system.posix_acl_access", want)
else:
    assert os.getxattr(sys.argv[2], "system.posix_acl_access") == want
'
cp keys.bin acl.bin
chmod 0660 acl.bin
if $PYTHON -c "$acl_py" set acl.bin 2>/dev/null; then
    run_clsort -i acl.bin -o acl.bin
    expect_status "in place with an ACL" 0
    check "ACL kept" $PYTHON -c "$acl_py" get acl.bin
    check "group bits still the ACL's mask, not wider" test "$(stat -c '%a' acl.bin)" = "660"
else
    ok "skip: no ACLs on this file system"
fi

# --- hard links: the name given is replaced; -v says that other names keep the old data -----------
cp keys.bin linked.bin
ln linked.bin other-name.bin
run_clsort -v -i linked.bin -o linked.bin
expect_status "in place on a file with a second hard link" 0
expect_message "in place on a hard-linked file" "other hard links"
same_file "hard link: the other name keeps the input" other-name.bin keys.bin

# --- symbolic links ----------------------------------------------------------------------------------
mkdir plain
cp keys.bin plain/target.bin
ln -s target.bin plain/link.bin
run_clsort -i keys.bin -o plain/link.bin
expect_status "output through a symbolic link" 0
check "the link stays a link" test -L plain/link.bin
same_file "the link's target is written" plain/target.bin sorted.bin
if [ $root -eq 1 ]; then
    # a link that another user placed in a sticky world-writable directory is not followed
    mkdir -m 1777 sticky
    cp keys.bin victim.bin
    ln -s ../victim.bin sticky/out.bin
    chown -h nobody:nogroup sticky/out.bin
    run_clsort -i keys.bin -o sticky/out.bin
    expect_status "a link of another user in a sticky directory" 3
    expect_message "a link of another user in a sticky directory" "refusing to follow"
    same_file "the link's target is untouched" victim.bin keys.bin
    # the directory's owner's own link is followed
    chown -h root:root sticky/out.bin
    run_clsort -i keys.bin -o sticky/out.bin
    expect_status "root's own link in a sticky directory" 0
    same_file "root's own link: target written" victim.bin sorted.bin
fi

# --- outputs that name open descriptors ----------------------------------------------------------
printf 'earlier lines\n' > log.txt
"$CLSORT" -i keys.bin -o /dev/stdout >> log.txt 2>err.txt
status=$?
expect_status "-o /dev/stdout appended to a log" 0
check "the log keeps its earlier contents" test "$(head -c 14 log.txt)" = "earlier lines"
tail -c +15 log.txt > log-tail.bin
same_file "the sorted keys follow them" log-tail.bin sorted.bin
"$CLSORT" -i keys.bin -o /dev/stdout 2>err.txt | cat > piped.bin
status=${PIPESTATUS[0]}
expect_status "-o /dev/stdout into a pipe" 0
same_file "-o /dev/stdout into a pipe: sorted" piped.bin sorted.bin
"$CLSORT" -i keys.bin -o /dev/fd/7 7> fd7.bin 2>err.txt
status=$?
expect_status "-o /dev/fd/7" 0
same_file "-o /dev/fd/7: sorted" fd7.bin sorted.bin
run_clsort -i keys.bin -o /proc/self/fd/9
expect_status "-o /proc/self/fd/9 not open" 3
expect_message "-o /proc/self/fd/9 not open" "descriptor 9 is not open"

# a symbolic link to one of those names is written as that name would be: directly, into a pipe too
# (not a temporary file in /proc/PID/fd), with the same refusals
ln -s /dev/stdout to-stdout
ln -s /dev/fd/1 to-fd1
ln -s ../../../../../../../../../../../../../../dev/fd/1 to-fd1-relative
for link in to-stdout to-fd1 to-fd1-relative; do
    "$CLSORT" -i keys.bin -o $link 2>err.txt | cat > piped.bin
    status=${PIPESTATUS[0]}
    expect_status "-o a link to a descriptor ($link) into a pipe" 0
    same_file "-o $link into a pipe: sorted" piped.bin sorted.bin
    check "-o $link: the link stays a link" test -L $link
    cp keys.bin fd-input.bin
    "$CLSORT" -i fd-input.bin -o $link 1<>fd-input.bin 2>err.txt
    status=$?
    expect_status "-o $link with stdout open on the input" 1
    expect_message "-o $link with stdout open on the input: said" "names the input -i fd-input.bin"
    same_file "-o $link with stdout open on the input: untouched" fd-input.bin keys.bin
done
cp keys.bin fd-input.bin
"$CLSORT" -i fd-input.bin -o /dev/fd/1 1<>fd-input.bin 2>err.txt
status=$?
expect_status "-o /dev/fd/1 with stdout open on the input" 1
same_file "-o /dev/fd/1 with stdout open on the input: untouched" fd-input.bin keys.bin
# /dev/stdin is descriptor 0, as /dev/fd/0 is: open on the input it is refused (not an in-place
# sort), and open for reading only it cannot be written
for spelling in /dev/stdin /dev/fd/0; do
    cp keys.bin fd-input.bin
    "$CLSORT" -o $spelling 0<>fd-input.bin 2>err.txt
    status=$?
    expect_status "-o $spelling with stdin open on the input" 1
    expect_message "-o $spelling with stdin open on the input: said" "names the input (stdin)"
    same_file "-o $spelling with stdin open on the input: untouched" fd-input.bin keys.bin
    "$CLSORT" -o $spelling < fd-input.bin 2>err.txt
    status=$?
    expect_status "-o $spelling, stdin read-only" 3
    expect_message "-o $spelling, stdin read-only: said" "descriptor 0 is open for reading only"
    same_file "-o $spelling, stdin read-only: untouched" fd-input.bin keys.bin
    "$CLSORT" -i keys.bin -o $spelling 0<>fd0.bin 2>err.txt
    status=$?
    expect_status "-o $spelling, stdin open for writing" 0
    same_file "-o $spelling, stdin open for writing: sorted" fd0.bin sorted.bin
    rm -f fd0.bin
done
rm -f to-stdout to-fd1 to-fd1-relative fd-input.bin

# --- a pair of outputs at the commit -------------------------------------------------------------
# The values' output is swapped for a directory while clsort is stopped after reading: the commit
# finds it before anything is put in place, and the keys' output keeps its old contents.
# stopped_pair HOOK K V: old contents in pair/K and pair/V, then clsort sorting into them, stopped by
# the CLSORT_TEST_STOP_HOOK hook ($pid)
stopped_pair() {
    printf 'old keys' > "pair/$2"
    printf 'old values' > "pair/$3"
    env "CLSORT_TEST_STOP_$1" "$CLSORT" -i keys.bin --values vals.bin -o "pair/$2" \
        --values-out "pair/$3" 2>err.txt &
    pid=$!
    wait_stopped $pid
}
mkdir pair
stopped_pair AFTER_READ=1 k.bin v.bin
rm pair/v.bin && mkdir pair/v.bin && touch pair/v.bin/inside
kill -CONT $pid
wait $pid
status=$?
expect_status "values output replaced by a directory mid-run" 3
expect_message "values output replaced mid-run: noticed at the commit" "was replaced or removed"
check "the keys' output keeps its old contents" test "$(cat pair/k.bin)" = "old keys"
expect_only pair "failed pair commit" k.bin v.bin

# The commit point: a signal before it leaves both outputs as they were; one after it (between the
# first and the second file put in place) is taken once both are in place: exit 143, both new, no
# temporary name.
stopped_pair AFTER_READ=1 k1.bin v1.bin
kill -TERM $pid
kill -CONT $pid
wait $pid
status=$?
expect_status "SIGTERM before the commit" 143
check "SIGTERM before the commit: keys as they were" test "$(cat pair/k1.bin)" = "old keys"
check "SIGTERM before the commit: values as they were" test "$(cat pair/v1.bin)" = "old values"
stopped_pair IN_COMMIT=1 k2.bin v2.bin
kill -TERM $pid
kill -CONT $pid
wait $pid
status=$?
expect_status "SIGTERM in the commit" 143
same_file "SIGTERM in the commit: keys written" pair/k2.bin sorted-k.bin
same_file "SIGTERM in the commit: values written with them" pair/v2.bin sorted-v.bin
expect_only pair "signals before and in the commit" k.bin v.bin k1.bin v1.bin k2.bin v2.bin
rm -rf pair && mkdir pair

# SIGKILL in the commit, between the first and the second file put in place: the first is new, the
# second as it was, and no temporary name is left (the one a replacement takes lives only between
# its two system calls).
stopped_pair IN_COMMIT=1 k.bin v.bin
kill -KILL $pid
wait $pid 2>/dev/null
same_file "SIGKILL in the commit: the keys are new" pair/k.bin sorted-k.bin
check "SIGKILL in the commit: the values as they were" test "$(cat pair/v.bin)" = "old values"
expect_only pair "SIGKILL in the commit, files replaced" k.bin v.bin
rm -f pair/*
CLSORT_TEST_STOP_IN_COMMIT=1 "$CLSORT" -i keys.bin --values vals.bin -o pair/k.bin \
    --values-out pair/v.bin 2>err.txt &
pid=$!
wait_stopped $pid
kill -KILL $pid
wait $pid 2>/dev/null
same_file "SIGKILL in the commit: the new keys file is there" pair/k.bin sorted-k.bin
expect_only pair "SIGKILL in the commit, new files: no values file, no temporary name" k.bin
rm -f pair/*

# A failure in the commit: new files already in place are removed again; a file already replaced
# cannot be put back, and the message says which output holds the new data.
CLSORT_TEST_STOP_IN_COMMIT=1 "$CLSORT" -i keys.bin --values vals.bin -o pair/k.bin \
    --values-out pair/v.bin 2>err.txt &
pid=$!
wait_stopped $pid
printf 'made meanwhile' > pair/v.bin
kill -CONT $pid
wait $pid
status=$?
expect_status "a file made at the second new output's name during the commit" 3
expect_message "a file made at the second name: said" "v.bin: a file was created there"
check "the new keys file is removed again" test ! -e pair/k.bin
check "the file made meanwhile is kept" test "$(cat pair/v.bin)" = "made meanwhile"
expect_only pair "new files, failed commit" v.bin
rm -f pair/*
printf 'old values' > pair/v.bin
CLSORT_TEST_STOP_IN_COMMIT=1 "$CLSORT" -i keys.bin --values vals.bin -o pair/k.bin \
    --values-out pair/v.bin 2>err.txt &
pid=$!
wait_stopped $pid
rm pair/v.bin && printf 'another file' > pair/v.bin
kill -CONT $pid
wait $pid
status=$?
expect_status "a new file and a replacement that fails" 3
check "the new keys file is removed again (the values were not replaced)" test ! -e pair/k.bin
check "the values' other file is kept" test "$(cat pair/v.bin)" = "another file"
expect_only pair "a new file and a failed replacement" v.bin
rm -f pair/*
stopped_pair IN_COMMIT=1 k.bin v.bin
rm pair/v.bin && printf 'another file' > pair/v.bin
kill -CONT $pid
wait $pid
status=$?
expect_status "two replacements, the second fails" 3
expect_message "two replacements, the second fails: said" "was replaced or removed"
expect_message "two replacements, the first stays: said" "k.bin: holds the new data already"
same_file "two replacements, the second fails: the first is new" pair/k.bin sorted-k.bin
check "the values' other file is kept" test "$(cat pair/v.bin)" = "another file"
expect_only pair "two replacements, the second fails: no temporary name" k.bin v.bin

# A value of the hook other than 1 (or 0) is ignored with a warning, as a malformed
# CLSORT_TEST_STOP_AFTER_READ is: a test that sets it wrong does not pass silently without its stop.
for v in 2 abc 1x; do
    CLSORT_TEST_STOP_IN_COMMIT=$v timeout -s KILL 60 "$CLSORT" -i keys.bin --values vals.bin \
        -o pair/k.bin --values-out pair/v.bin 2>err.txt
    status=$?
    expect_status "CLSORT_TEST_STOP_IN_COMMIT=$v" 0
    expect_message "CLSORT_TEST_STOP_IN_COMMIT=$v: said" \
        "warning: CLSORT_TEST_STOP_IN_COMMIT='$v' is not 1 (or 0): ignored"
    same_file "CLSORT_TEST_STOP_IN_COMMIT=$v: the keys sorted" pair/k.bin sorted-k.bin
    same_file "CLSORT_TEST_STOP_IN_COMMIT=$v: the values sorted" pair/v.bin sorted-v.bin
    rm -f pair/*
done
CLSORT_TEST_STOP_IN_COMMIT=0 run_clsort -i keys.bin -o pair/k.bin
expect_status "CLSORT_TEST_STOP_IN_COMMIT=0" 0
check "CLSORT_TEST_STOP_IN_COMMIT=0: nothing said" test ! -s err.txt
rm -f pair/*

# --- a crash leaves no temporary file ---------------------------------------------------------------
mkdir crash
CLSORT_TEST_STOP_AFTER_READ=1 "$CLSORT" -i keys.bin -o crash/out.bin 2>err.txt &
pid=$!
wait_stopped $pid
# the output is open (unnamed) while clsort runs
if ls -l /proc/$pid/fd 2>/dev/null | grep -q "crash/.*(deleted)\|crash/#"; then
    ok "an unnamed temporary output is open"
else
    ok "skip: no unnamed temporary files here (a named one is made only when the data is ready)"
fi
kill -KILL $pid
wait $pid 2>/dev/null
expect_only crash "SIGKILL after reading"

# --- an empty output name ----------------------------------------------------------------------------
run_clsort -i keys.bin -o ""
expect_status "-o ''" 1
expect_message "-o ''" "name is empty"

# --- durability: a replacement is synced before the rename, a new file only with --sync -----------
# fsync calls on the output's directory and files (strace -y names them), where strace can trace.
syncs() { # the fsync calls made on files in durable/
    env "$NO_LEAK_CHECK" strace -f -y -e trace=fsync,fdatasync -o trace.txt "$CLSORT" "$@" \
        2>err.txt || return 1
    grep -c 'sync([0-9]*<[^>]*/durable' trace.txt
}
mkdir durable
if command -v strace > /dev/null && strace -o /dev/null true 2>/dev/null; then
    check "a new file: no sync" test "$(syncs -i keys.bin -o durable/new.bin)" = 0
    same_file "a new file: written" durable/new.bin sorted.bin
    check "a replaced file: synced" test "$(syncs -i keys.bin -o durable/new.bin)" -ge 1
    rm durable/new.bin
    check "a new file with --sync: synced" test "$(syncs -i keys.bin -o durable/new.bin --sync)" -ge 1
else
    ok "skip: strace cannot trace here"
fi

# --- control characters in file names are shown escaped, never sent to the terminal ----------------
run_clsort -i "$(printf 'no\033]0;retitled\007such.bin')" -o out.bin
expect_status "a missing input with control characters in its name" 1
expect_message "control characters escaped" 'no\x1b]0;retitled\x07such.bin'
cp err.txt ctl-err.txt
check "no raw escape character in the message" $PYTHON -c \
    'import sys; m = open("ctl-err.txt", "rb").read(); sys.exit(b"\x1b" in m or b"\x07" in m)'

finish
