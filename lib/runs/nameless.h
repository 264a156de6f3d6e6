/*
 * A temporary file with no name (nameless.c): for run files, and for clsort-mpi's temporary files
 * and clsort's record runs (cli/sort/tempfile.c), which compile nameless.c in too. Not installed.
 */
#ifndef CLSORT_NAMELESS_H
#define CLSORT_NAMELESS_H

/* A new file with no name in dir, open for reading and writing (close-on-exec): nothing is left
 * behind however the process ends. The descriptor, or -1 with errno set. */
int clsort_nameless_file(const char *dir);

#endif
