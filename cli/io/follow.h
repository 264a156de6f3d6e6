/* Which symbolic links an output may be followed through (also clsort-mpi's). */
#ifndef CLSORT_CLI_FOLLOW_H
#define CLSORT_CLI_FOLLOW_H

#include <sys/stat.h>

/* The kernel's rule for symbolic links in sticky world-writable directories (fs.protected_symlinks),
 * applied whether or not the kernel enforces it: link (lstat of a name in dirfd) may be followed
 * only when its owner is the user or the directory's owner, so nobody can point another user's
 * output at a file of their choice. 1 when it may, 0 when not. */
int path_may_follow(int dirfd, const struct stat *link);

#endif
