"""Whether a running clsort has its temporary output open: a visible temporary name matching a glob,
or (where the file system has unnamed files) a descriptor of the process open on an unnamed file in
the glob's directory ("DIR/#NNN (deleted)" in /proc/PID/fd)."""
import glob
import os


def temp_output_open(pid, pattern):
    if glob.glob(pattern):
        return True
    d = os.path.realpath(os.path.dirname(pattern) or ".")
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith(d + "/#"):
                return True
    except OSError:
        pass
    return False
