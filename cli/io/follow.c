/*
 * The rule for following an output's symbolic links, one for clsort and clsort-mpi (follow.h).
 * Calls: nothing (the C library only).
 */
#include "follow.h"

#include <unistd.h>

int path_may_follow(int dirfd, const struct stat *link)
{
    struct stat d;
    if (fstat(dirfd, &d) != 0)
        return 0;
    if (!(d.st_mode & S_ISVTX) || !(d.st_mode & S_IWOTH))
        return 1;
    return link->st_uid == geteuid() || link->st_uid == d.st_uid;
}
