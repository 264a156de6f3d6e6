/*
 * The file-system steps of replacing an output with a temporary file, as clsort (output.c) and
 * clsort-mpi (cli/mpi/outfile.c) both take them: each program keeps its own order of steps and its
 * own messages; these return what happened (errno set) and print nothing but a warning for an
 * extended attribute that could not be kept.
 */
#ifndef CLSORT_REPLACE_H
#define CLSORT_REPLACE_H

#include <stddef.h>
#include <sys/stat.h>

/* path's directory ("." or "/" where it has none) into dir, its last name into base. Returns 0;
 * -1 with errno ENAMETOOLONG; 1 when the last name is empty, "." or "..": a directory. */
int replace_split(const char *path, char *dir, size_t dir_cap, char *base, size_t base_cap);
/* The directory to work in, opened to list it, else (one that may be written but not listed) as
 * O_PATH; -1 with errno. */
int replace_open_dir(const char *dir);
/* path after the symbolic link it names, whose text is link: the link itself when absolute, else
 * the link relative to path's directory. Returns 0, or -1 with errno ENAMETOOLONG. */
int replace_follow(char *path, size_t cap, const char *link);

/* A fresh name ".BASE.TAG-XXXXXXXX" (BASE cut to keep it a valid name). */
void replace_temp_name(const char *base, const char *tag, char *buf, size_t cap);
/* A temporary file with no name (O_TMPFILE) in dirfd: its descriptor; -2 where the file system or
 * the system has none (then a named one is made); -1 with errno on another error. */
int replace_open_unnamed(int dirfd);
/* fd (a file with no name) linked under name in dirfd: through /proc, else by the descriptor itself
 * (which needs CAP_DAC_READ_SEARCH). 0, or -1 with errno. */
int replace_link_fd(int fd, int dirfd, const char *name);
/* The temporary name from renamed to the new name to in dirfd, unless a file is there (EEXIST);
 * a plain rename where the system has no renameat2. 0, or -1 with errno. */
int replace_rename_new(int dirfd, const char *from, const char *to);

/* The new file fd given the owner and group of old where it can be; *mode (the old file's) loses
 * the set-user-ID and set-group-ID bits where the owner could not be kept, and its group bits
 * shrink to what others had where the group could not. 0, or -1 with errno. */
int replace_keep_owner(int fd, const struct stat *old, mode_t *mode);
/* The extended attributes of old_fd (an O_PATH descriptor; ACLs among them) copied to fd. Returns
 * 0; -1 with errno when they cannot be listed; 1 when an access control list cannot be kept (its
 * attribute's name in acl, errno set): without it the group bits of the mode would grant what its
 * mask limited. Another attribute that cannot be kept is a warning naming the output (name). */
int replace_keep_xattrs(int old_fd, int fd, const char *name, char *acl, size_t acl_cap);

#endif
