/*
 * The layout of the data sort reads and gen writes: the key type, and whether values go with the
 * keys (in records, --kv) or in a file of their own (--values / --values-out), and how large they
 * are. The rules that tie these options together are here, once, for both commands.
 */
#ifndef CLSORT_LAYOUT_H
#define CLSORT_LAYOUT_H

#include "clsort.h"

#include <stddef.h>
#include <stdint.h>

/* --type bytes (sort only): a key of --key-size bytes in memcmp order; not a key type of the
 * library's (sort turns it into a records sort, the other commands refuse it). */
#define LAYOUT_KEY_BYTES ((clsort_key_type)0x100)

typedef struct layout_args {
    clsort_key_type type;    /* -t, --type */
    size_t value_size;       /* --value-size, or 4 with --kv / values apart; 0: keys only */
    int kv;                  /* --kv: records of a key, then its value */
    const char *values;      /* --values (sort): the values, read from a file of their own */
    const char *values_out;  /* --values-out: where the values go, in a file of their own */
} layout_args;

/* The commands the rules serve; they differ in which file holds values apart and in their words. */
typedef enum layout_cmd { LAYOUT_SORT, LAYOUT_GEN } layout_cmd;

/* Settle the value size once the options are in: --value-size 0 with values is an error, a value
 * size alone means records (as gen writes them), and values without a size are 4 bytes.
 * value_size_given: whether --value-size was given. Returns an exit status. */
int layout_settle(layout_args *l, layout_cmd cmd, int value_size_given);
/* The combinations of files: --kv against values apart, --values with --values-out (sort), and not
 * both streams on stdin or stdout. in, out: the keys' input (sort; "-" is stdin) and output.
 * Returns an exit status. */
int layout_check_files(const layout_args *l, layout_cmd cmd, const char *in, const char *out);

/* Bytes of a key, and of one element of the keys' file (a key, or a record of key and value). */
size_t layout_key_size(const layout_args *l);
size_t layout_record_size(const layout_args *l);

/* Check the sizes in bytes of sort's inputs that are known (all of them after reading): whole keys
 * or records, whole values, and one value per key. kknown, vknown: whether a size is known yet;
 * vname: the values' file, or NULL without one. Returns an exit status. */
int layout_check_sizes(const layout_args *l, const char *kname, uint64_t kbytes, int kknown,
                       const char *vname, uint64_t vbytes, int vknown);

/* Records of rs bytes by a key field (--record-size): bytes must be whole records. Returns an exit
 * status. */
int layout_check_records(const char *name, uint64_t bytes, uint64_t rs);

/* Positions 'first' to 'first + m - 1' as vs-byte (4 or 8) words, stride bytes apart: the values
 * gen writes (each key's index) and the positions of sort --index-out. */
void layout_index_values(unsigned char *out, size_t stride, uint64_t first, size_t m, size_t vs);

#endif
