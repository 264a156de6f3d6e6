#!/usr/bin/env bash
# clsort-mpi's output and its commit: a signal to one rank (SIGTERM, SIGINT, SIGHUP, SIGPIPE) ends
# the job with 128 + N, the old output intact and no temporary file left, named (as ranks on several
# hosts write it) or nameless (every rank on one host); a signal in the commit lets it complete; a
# SIGTERM to mpirun leaves the old output (mpirun sends SIGCONT, then SIGTERM a second later: the
# ranks must not commit in between), or the new complete one once the commit had begun, and nothing
# is renamed after mpirun returned. The output handled as clsort handles it: symbolic links followed,
# owner, group and mode kept, a new file's mode from the umask, a file replaced during the run left
# alone; outputs and -T directories that cannot be written (missing, read-only, full) exit 3 with the
# path and the system's reason. Ranks stop at known points with CLSORT_MPI_TEST_STOP (SIGSTOP).
# Arguments: CLSORT SCRATCH CLSORT_MPI; $MPIRUN is mpirun.
MPI_EXE=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
. "$(dirname "$0")/lib.sh" "$@"

MPIRUN=${MPIRUN:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under AddressSanitizer no leak check of the ranks (Open MPI's own allocations at MPI_Finalize)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# mpirun's default: a rank that ends with a non-zero status ends the job (the others get SIGCONT,
# SIGTERM a second later, then SIGKILL), so a rank ended by a signal does not leave the others waiting
MPI_FLAGS=(--oversubscribe --bind-to none)

# start_mpi P ARGS...: clsort-mpi on P ranks in the background, each rank exec'd so that pid.R holds
# its own pid and its parent is mpirun
start_mpi() {
    local p=$1
    shift
    rm -f pid.*
    "$MPIRUN" "${MPI_FLAGS[@]}" -n "$p" bash -c 'echo $$ > pid.$OMPI_COMM_WORLD_RANK; exec "$0" "$@"' \
        "$MPI_EXE" "$@" > out.txt 2> err.txt &
    mpirun_pid=$!
}

# state PID: the process's state letter (T stopped, Z ended), or "gone"
state() {
    local s
    s=$(cat "/proc/$1/stat" 2> /dev/null) || { echo gone; return; }
    s=${s##*) }
    echo "${s%% *}"
}

# stopped R: rank R stopped itself (CLSORT_MPI_TEST_STOP) within 60 s, mpirun still running
stopped() {
    local i
    for ((i = 0; i < 1200; i++)); do
        [ -s pid.$1 ] && [ "$(state "$(cat pid.$1)")" = T ] && return 0
        kill -0 $mpirun_pid 2> /dev/null || return 1
        sleep 0.05
    done
    return 1
}

# kill_all: mpirun and its ranks, after a test went wrong
kill_all() {
    local f
    kill -KILL $mpirun_pid 2> /dev/null
    for f in pid.*; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2> /dev/null; done
    wait $mpirun_pid 2> /dev/null
}

# end_mpi NAME: mpirun's exit status in $status (it is killed after 60 s)
end_mpi() {
    local i
    for ((i = 0; i < 1200; i++)); do
        kill -0 $mpirun_pid 2> /dev/null || break
        sleep 0.05
    done
    if kill -0 $mpirun_pid 2> /dev/null; then
        not_ok "$1: mpirun still running after 60 s"
        kill_all
        status=-1
        return
    fi
    wait $mpirun_pid
    status=$?
}

# ranks_gone NAME: every rank of the last run has ended (within 10 s of mpirun's return)
ranks_gone() {
    local f i s alive
    for ((i = 0; i < 200; i++)); do
        alive=""
        for f in pid.*; do
            [ -s "$f" ] || continue
            s=$(state "$(cat "$f")")
            [ "$s" = gone ] || [ "$s" = Z ] || alive="$alive ${f#pid.}"
        done
        [ -z "$alive" ] && break
        sleep 0.05
    done
    if [ -z "$alive" ]; then ok "$1: every rank ended"; else not_ok "$1: ranks$alive still running"; fi
}

# expect_failed NAME: the last mpirun exited non-zero
expect_failed() {
    if [ "$status" -ne 0 ]; then ok "$1 (exit $status)"; else not_ok "$1: exit 0"; fi
}

# nameless_open NAME: rank 0 holds a nameless file in out/ open (its temporary output, O_TMPFILE)
nameless_open() {
    check "$1: the temporary output has no name" \
        bash -c 'ls -l "/proc/$0/fd" | grep -qF -- "-> $1/#"' "$(cat pid.0)" "$(cd out && pwd -P)"
}

"$CLSORT" gen -n 20000 --seed 1 -o keys.bin || exit 2
"$CLSORT" -i keys.bin -o keys.ref || exit 2
"$CLSORT" gen -n 300 --seed 2 -o old.orig || exit 2
mkdir out

# signal_rank NAME RANK SIGNAL WANT POINT NAMED: 3 ranks, rank RANK stopped at POINT; SIGNAL to it:
# mpirun exits WANT, the old output intact, no temporary file, every rank ended
signal_rank() {
    local name=$1 rank=$2 sig=$3 want=$4 point=$5 named=$6
    cp old.orig out/o.bin
    CLSORT_MPI_TEST_NAMED=$named CLSORT_MPI_TEST_STOP=$rank:$point start_mpi 3 -i keys.bin -o out/o.bin
    if ! stopped "$rank"; then
        not_ok "$name: rank $rank did not stop at $point"
        kill_all
        return
    fi
    if [ "$point" = written ] && [ "$named" = 1 ]; then
        check "$name: the named temporary output exists" \
            test -n "$(ls -A out | grep '^\.o\.bin\.clsort-mpi-')"
    elif [ "$point" = written ]; then
        nameless_open "$name"
    fi
    kill -"$sig" "$(cat pid.$rank)"
    kill -CONT "$(cat pid.$rank)"
    end_mpi "$name"
    expect_status "$name" "$want"
    same_file "$name: the old output kept" out/o.bin old.orig
    ranks_gone "$name"
    expect_only out "$name" o.bin
}

signal_rank "SIGTERM to rank 1, its part written (named temporary)" 1 TERM 143 written 1
signal_rank "SIGHUP to rank 0, its part written (named temporary)" 0 HUP 129 written 1
signal_rank "SIGINT to rank 2, its part written (nameless temporary)" 2 INT 130 written 0
signal_rank "SIGPIPE to rank 1 in the exchange" 1 PIPE 141 exchange 0
signal_rank "SIGTERM to rank 2 at the start of the write (named temporary)" 2 TERM 143 write 1

# a signal to rank 0 in the commit (signals held, just before the rename): the commit completes,
# then the rank ends with 128 + N
cp old.orig out/o.bin
CLSORT_MPI_TEST_NAMED=1 CLSORT_MPI_TEST_STOP=0:commit start_mpi 3 -i keys.bin -o out/o.bin
if stopped 0; then
    kill -TERM "$(cat pid.0)"
    kill -CONT "$(cat pid.0)"
    end_mpi "SIGTERM to rank 0 in the commit"
    expect_status "SIGTERM to rank 0 in the commit" 143
    same_file "SIGTERM to rank 0 in the commit: the new output, complete" out/o.bin keys.ref
    ranks_gone "SIGTERM to rank 0 in the commit"
    expect_only out "SIGTERM to rank 0 in the commit" o.bin
else
    not_ok "rank 0 did not stop in the commit"
    kill_all
fi

# signal_mpirun NAME RANK POINT NAMED SIGNAL EXPECT: rank RANK stopped at POINT, SIGNAL to mpirun
# alone: mpirun exits non-zero, the output is EXPECT (old.orig or keys.ref) when it returns and
# still is once every rank has ended, and no temporary file is left
signal_mpirun() {
    local name=$1 rank=$2 point=$3 named=$4 sig=$5 expect=$6
    cp old.orig out/o.bin
    CLSORT_MPI_TEST_NAMED=$named CLSORT_MPI_TEST_STOP=$rank:$point start_mpi 3 -i keys.bin -o out/o.bin
    if ! stopped "$rank"; then
        not_ok "$name: rank $rank did not stop at $point"
        kill_all
        return
    fi
    kill -"$sig" $mpirun_pid
    end_mpi "$name"
    expect_failed "$name"
    same_file "$name: the output when mpirun returned" out/o.bin "$expect"
    cp out/o.bin returned.bin
    ranks_gone "$name"
    sleep 0.5
    same_file "$name: nothing renamed after mpirun returned" out/o.bin returned.bin
    expect_only out "$name" o.bin
    rm -f returned.bin
}

# before the fix the ranks went on for the second between mpirun's SIGCONT and its SIGTERM and put
# the new output in place
signal_mpirun "SIGTERM to mpirun, rank 0's part written (named)" 0 written 1 TERM old.orig
signal_mpirun "SIGTERM to mpirun, rank 1's part written (nameless)" 1 written 0 TERM old.orig
signal_mpirun "SIGHUP to mpirun, rank 2 before its local sort" 2 sort 0 HUP old.orig
signal_mpirun "SIGTERM to mpirun in the commit (named)" 0 commit 1 TERM keys.ref
signal_mpirun "SIGTERM to mpirun in the commit (nameless)" 0 commit 0 TERM keys.ref

# the testing hook's value is checked
CLSORT_MPI_TEST_STOP=7:written "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" -i keys.bin -o out/o.bin \
    > /dev/null 2> err.txt
status=$?
expect_status "CLSORT_MPI_TEST_STOP=7:written on 2 ranks" 1
expect_message "CLSORT_MPI_TEST_STOP=7:written on 2 ranks" "CLSORT_MPI_TEST_STOP='7:written': expected RANK:POINT"

# run_mpi P ARGS...: clsort-mpi on P ranks in the foreground; $status is mpirun's
run_mpi() {
    local p=$1
    shift
    "$MPIRUN" "${MPI_FLAGS[@]}" -n "$p" "$MPI_EXE" "$@" > out.txt 2> err.txt
    status=$?
}

# symbolic links at the end of -o are followed: the file they name is replaced (or created), the
# links stay; a replaced file keeps its mode
mkdir out/real
cp old.orig out/real/t.bin
chmod 640 out/real/t.bin
ln -s real/t.bin out/link
ln -s link out/link2
run_mpi 2 -i keys.bin -o out/link2
expect_status "-o a link to a link" 0
same_file "-o a link to a link: the file it names sorted" out/real/t.bin keys.ref
check "-o a link to a link: still links" test -L out/link2 -a -L out/link
check "-o a link to a link: the mode kept" test "$(stat -c %a out/real/t.bin)" = 640
ln -s real/new.bin out/dangling
run_mpi 3 -i keys.bin -o out/dangling
expect_status "-o a dangling link" 0
same_file "-o a dangling link: the file it names created" out/real/new.bin keys.ref
check "-o a dangling link: still a link" test -L out/dangling
expect_only out/real "-o links" t.bin new.bin
rm -rf out/real out/link out/link2 out/dangling

# a new output's mode comes from the umask; a replaced one keeps its owner, group and mode (the
# owner and group of another user as root)
(umask 027; run_mpi 2 -i keys.bin -o out/new.bin; exit $status)
status=$?
expect_status "new output, umask 027" 0
check "new output, umask 027: mode 640" test "$(stat -c %a out/new.bin)" = 640
cp old.orig out/kept.bin
chmod 604 out/kept.bin
owner=$(stat -c %u:%g out/kept.bin)
if [ "$(id -u)" -eq 0 ] && chown 65534:65534 out/kept.bin 2> /dev/null; then
    owner=65534:65534
fi
run_mpi 3 -i keys.bin -o out/kept.bin
expect_status "replaced output" 0
same_file "replaced output: sorted" out/kept.bin keys.ref
check "replaced output: owner and group $owner kept" test "$(stat -c %u:%g out/kept.bin)" = "$owner"
check "replaced output: mode 604 kept" test "$(stat -c %a out/kept.bin)" = 604
rm -f out/new.bin out/kept.bin

# a symbolic link of another user in a sticky world-writable directory is not followed (root only:
# the link must belong to someone else)
if [ "$(id -u)" -eq 0 ]; then
    mkdir -m 1777 sticky
    ln -s ../out/target.bin sticky/link
    chown -h 65534 sticky/link
    run_mpi 2 -i keys.bin -o sticky/link
    expect_status "-o another user's link in a sticky directory" 3
    expect_message "-o another user's link in a sticky directory" "refusing to follow a symbolic link owned by user 65534"
    check "-o another user's link in a sticky directory: nothing written" test ! -e out/target.bin
    rm -rf sticky
fi

# the output replaced by another file while the ranks sort: that file is left alone, exit 3
cp old.orig out/o.bin
CLSORT_MPI_TEST_STOP=1:written start_mpi 2 -i keys.bin -o out/o.bin
if stopped 1; then
    cp keys.bin out/other.bin
    mv out/other.bin out/o.bin
    kill -CONT "$(cat pid.1)"
    end_mpi "output replaced during the run"
    expect_status "output replaced during the run" 3
    expect_message "output replaced during the run" "out/o.bin: was replaced or removed while clsort-mpi ran: not written"
    same_file "output replaced during the run: the new file left alone" out/o.bin keys.bin
    expect_only out "output replaced during the run" o.bin
else
    not_ok "rank 1 did not stop with its part written"
    kill_all
fi

# outputs that cannot be written, refused before any work: exit 3, the path and the reason
run_mpi 2 -i keys.bin -o missing/o.bin
expect_status "-o in a missing directory" 3
expect_message "-o in a missing directory" "missing/o.bin: cannot open: directory 'missing': No such file or directory"
run_mpi 2 -i keys.bin -o out
expect_status "-o a directory" 3
expect_message "-o a directory" "out: is a directory"
run_mpi 2 -i keys.bin -o /dev/null
expect_status "-o /dev/null" 1
expect_message "-o /dev/null" "/dev/null: not a regular file (the output is renamed into place)"
cp old.orig out/o.bin

# in_ns SETUP ARGS...: run ARGS in a private mount namespace after the shell commands SETUP
in_ns() {
    local setup=$1 how
    shift
    for how in "unshare -m" "unshare -rm"; do
        if $how true 2> /dev/null; then
            $how sh -c "$setup"' && exec "$@"' sh "$@"
            return
        fi
    done
    return 200
}
RO='mount --bind ro ro && mount -o remount,bind,ro ro'
mkdir ro
cp old.orig ro/existing.bin
if in_ns "$RO" test ! -w ro 2> /dev/null; then
    in_ns "$RO" "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" -i keys.bin -o ro/new.bin > /dev/null 2> err.txt
    status=$?
    expect_status "-o in a read-only directory" 3
    expect_message "-o in a read-only directory" "ro/new.bin: cannot create a temporary file in 'ro': Read-only file system"
    in_ns "$RO" "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" -i keys.bin -o ro/existing.bin > /dev/null 2> err.txt
    status=$?
    expect_status "-o an existing file in a read-only directory" 3
    expect_message "-o an existing file in a read-only directory" "ro/existing.bin: cannot write: Read-only file system"
    same_file "-o an existing file in a read-only directory: unchanged" ro/existing.bin old.orig
    expect_only ro "read-only directory" existing.bin
else
    echo "skip read-only directory tests: no private mount namespace here"
fi

# -T directories that cannot take the runs: missing, read-only, full (a small tmpfs). Each rank's
# share must exceed its budget: -S a few MiB above the least, asked twice (the first run builds the
# programs), on 2 ranks of 4000000 u32 keys each
"$CLSORT" gen -n 8000001 --dist few:2 --seed 3 -o ext.bin || exit 2
mkdir runs full
run_mpi 2 -i ext.bin -o out/o.bin -T runs -S 1Mi
run_mpi 2 -i ext.bin -o out/o.bin -T runs -S 1Mi
S=$(($(least_mi err.txt) + 3))Mi
run_mpi 2 -i ext.bin -o out/o.bin -T runs/missing -S "$S"
expect_status "-T a missing directory" 3
expect_message "-T a missing directory" "cannot create a temporary file in runs/missing for this rank's sorted slice: No such file or directory"
same_file "-T a missing directory: the old output kept" out/o.bin old.orig
if in_ns "$RO" test ! -w ro 2> /dev/null; then
    in_ns "$RO" "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" -i ext.bin -o out/o.bin -T ro -S "$S" \
        > /dev/null 2> err.txt
    status=$?
    expect_status "-T a read-only directory" 3
    expect_message "-T a read-only directory" "cannot create a temporary file in ro for this rank's sorted slice: Read-only file system"
    same_file "-T a read-only directory: the old output kept" out/o.bin old.orig
    # 4 MiB: less than a share, refused before the rank writes; 24 MiB: a share fits, its runs and
    # the sorted slice do not
    for size in 4 24; do
        in_ns "mount -t tmpfs -o size=${size}m tmpfs full" "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" \
            -i ext.bin -o out/o.bin -T full -S "$S" > /dev/null 2> err.txt
        status=$?
        expect_status "-T a full directory ($size MiB)" 3
        # the free-space check, the library's runs or this rank's sorted slice, whichever fails
        expect_message "-T a full directory ($size MiB)" "in full"
        expect_message "-T a full directory ($size MiB)" "No space left on device"
        same_file "-T a full directory ($size MiB): the old output kept" out/o.bin old.orig
    done
    # the output's own directory full: refused before any work, named (the write's own failures,
    # with no room left there later, are not reached here: Open MPI's start fails first under a
    # file-size limit)
    in_ns "mount -t tmpfs -o size=64k tmpfs full" "$MPIRUN" "${MPI_FLAGS[@]}" -n 2 "$MPI_EXE" \
        -i keys.bin -o full/o.bin > /dev/null 2> err.txt
    status=$?
    expect_status "-o in a full directory" 3
    expect_message "-o in a full directory" "full/o.bin: no room for the output's 80000 bytes"
    expect_message "-o in a full directory" "No space left on device"
else
    echo "skip read-only and full -T tests: no private mount namespace here"
fi
expect_only out "every failure" o.bin
expect_only runs "-T: nothing left behind"
expect_only full "-T full: nothing left behind"

finish
