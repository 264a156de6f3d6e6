/*
 * File input and output for clsort.
 *
 * Input: read piece by piece; a regular file gives exactly the size it had when opened (a file that is
 * shorter or longer by the end of the read is an error); stdin, pipes and devices are read to the end.
 * Output: a regular file (or a path that does not exist yet) is written to an unnamed temporary file in
 * the same directory (a named one, made only when the data is ready, where the file system has no
 * unnamed files), synced when it replaces a file (new files with --sync), given the replaced file's owner, group, mode, ACLs and extended attributes,
 * and put in place only when everything was written, so a failure, a signal or a crash leaves no partial
 * output and the output may be the input file. Several outputs are put in place one after the other at
 * one commit point (output_commit(), which says what a failure or a kill there leaves). Anything
 * else (stdout, /dev/stdout and /dev/fd/N, a pipe, /dev/null, a character device) is written directly.
 * A symbolic link is followed as `>` would, except one in a sticky world-writable directory that belongs
 * to neither the user nor the directory's owner (the kernel's protected_symlinks rule).
 */
#ifndef CLSORT_IO_H
#define CLSORT_IO_H

#include "prefault.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct input_file {
    const char *path;    /* as given; "-" is stdin */
    const char *name;    /* for messages */
    int fd;
    int is_regular;      /* size is known before reading */
    int is_fifo;         /* a pipe */
    int wait_writer;     /* a FIFO opened without waiting for its writer: waited for at the first read */
    uint64_t size;       /* bytes, when is_regular */
    uint64_t start;      /* where the data starts in a regular file (stdin may be part-read) */
    uint64_t got;        /* bytes read so far */
    dev_t dev;
    ino_t ino;
} input_file;

/* Open an input and find its size where the kind of file allows. Never waits: a FIFO is opened at
 * once, and its writer is waited for at the first read, so the outputs can be checked first. Returns an
 * exit status. */
int input_open(input_file *in, const char *path);
/* Whether path still names the file that in has open (compared by device and inode). */
int input_still_named(const input_file *in);
/* Whether two opened inputs are the same file. */
int input_same(const input_file *a, const input_file *b);
/* The next bytes of the input: up to len into buf, *got of them (0 at the end). A regular file gives
 * exactly the size it had when opened: one that ends sooner is an error, and at the end it is checked
 * not to have grown; stdin, pipes and devices are read until len bytes or their end. Returns an exit
 * status. */
int input_read_some(input_file *in, void *buf, size_t len, size_t *got);
/* The same for a regular input, in pieces the caller sizes: read the next len bytes into buf (an error when
 * the file ends sooner), and after in->size bytes check that the file ends there (an error when it grew).
 * Both return an exit status. */
int input_read_exact(input_file *in, void *buf, size_t len);
int input_check_end(input_file *in);
/* Release the data and close the file. Safe to call twice and on an input that failed to open. */
void input_close(input_file *in);

typedef struct output_file {
    const char *path;    /* as given; "-" is stdout */
    const char *name;    /* for messages */
    int fd;              /* where the data goes (-1 until a named temporary file is made) */
    int direct;          /* written in place: stdout, a descriptor, a pipe, a device */
    int wait_reader;     /* a FIFO with no reader yet: opened at the first write */
    int dirfd;           /* directory of the file to replace */
    int exists;          /* that file existed when the output was opened */
    int old_fd;          /* ... opened O_PATH, to copy its extended attributes */
    struct stat old;     /* ... and its owner, group, mode and identity */
    int unnamed;         /* fd is an O_TMPFILE without a name yet */
    int slot;            /* a temporary name in the table signals clean up, or -1 */
    int undo;            /* during a commit: how to take this output's replacement back */
    mode_t mode;         /* permissions the committed file gets */
    uint64_t written;    /* bytes written so far */
    unsigned char *map;  /* the file mapped for writing (output_expect()), or NULL */
    uint64_t map_len;    /* ... its length, the file's size until output_finish() */
    prefault_bg populate; /* ... made present in the background meanwhile */
    char base[256];      /* the name in dirfd */
    char target[PATH_MAX]; /* the absolute name, for messages */
    char temp[PATH_MAX]; /* the temporary name in dirfd, once it has one */
} output_file;

/* Non-zero: new output files are flushed to stable storage before they are put in place, as files
 * that replace others always are (--sync). */
extern int g_output_sync;

/* Open an output; force: allow writing binary data to a terminal. Returns an exit status. Nothing is
 * visible at the target until output_commit(). */
int output_open(output_file *out, const char *path, int force);
/* The output will be `bytes` long: a temporary file of 64 MiB or more (any size, or none, as
 * CLSORT_MAP_OUTPUT says) on a host of 4 cores or more gets its blocks reserved now and is mapped,
 * its pages made present on the host's threads in the background meanwhile (prefault_start()),
 * and output_write() copies into the map on the host's threads (a file mapped for writing takes
 * 1 GiB in 0.12 s on the H100 machine's 16 cores, write() 0.29 s). No room for it is an error now,
 * before the sort; a file system that cannot reserve or map is written as usual. Writes past
 * `bytes` go on by write(). Returns an exit status. */
int output_expect(output_file *out, uint64_t bytes);
/* Write len bytes. Returns an exit status. */
int output_write(output_file *out, const void *buf, size_t len);
/* Flush the data to stable storage (temporary files) and close. Returns an exit status. */
int output_finish(output_file *out);
/* Put finished outputs in place, new files first, then the files they replace, one after the other
 * with signals held off (a signal meanwhile ends clsort once all are in place). Returns an exit status;
 * on a failure the outputs not in place are removed, and new files already in place too unless a file
 * was replaced already (which cannot be put back: said). */
int output_commit(output_file **outs, int n);
/* Remove the temporary file (if any) and close. Safe to call on any output, opened or not. */
void output_abort(output_file *out);
/* Whether two outputs write to the same file, pipe or FIFO, by whatever names (a character device
 * other than a terminal, such as /dev/null, may take both). */
int output_same(const output_file *a, const output_file *b);
/* Whether an output would write over a (regular) input file. */
int output_names_input(const output_file *out, const input_file *in);

/* Call once at start-up, before any thread is created. */
void io_init(void);
/* The process's resident memory now, in bytes (Linux: /proc/self/statm; else the peak so far). */
uint64_t io_resident_bytes(void);
/* Physical memory in bytes; 0 when the system does not say. */
uint64_t io_physical_memory(void);
/* Fault in the pages of buf (fresh memory) from several threads, huge pages where the system
 * gives them: a read() into fresh memory faults its pages in one at a time on the reading thread,
 * which took a 1.6 GB read three times as long as reading into memory already in place. Buffers
 * under 64 MiB are left alone unless `all`. */
void io_prefault(void *buf, size_t bytes, int all);
/* The process's umask, as io_init() found it. */
mode_t io_umask(void);

/* Remove temporary files and exit with 128 + N on SIGINT, SIGTERM, SIGHUP and SIGPIPE (signals that
 * were ignored when clsort started stay ignored), whichever thread they reach: call before the device
 * is opened (see signals.h). */
void io_install_signal_handlers(void);

#endif
