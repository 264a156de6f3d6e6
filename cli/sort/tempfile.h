/*
 * Temporary files for the runs of records larger than memory: nameless (O_TMPFILE, else unlinked
 * the moment they exist, with signals held off), so that no signal, crash or kill leaves one
 * behind; written and read at offsets. Errors name the directory.
 */
#ifndef CLSORT_TEMPFILE_H
#define CLSORT_TEMPFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct temp_file {
    int fd;          /* -1 when closed */
    const char *dir; /* for messages: the caller keeps it valid */
} temp_file;

/* A new nameless file in dir. Returns an exit status (the error said). */
int temp_open(temp_file *t, const char *dir);
/* All of len bytes at off. Returns an exit status (the error said). */
int temp_write(temp_file *t, const void *buf, size_t len, uint64_t off);
int temp_read(const temp_file *t, void *buf, size_t len, uint64_t off);
/* Safe on a closed file. */
void temp_close(temp_file *t);

#endif
