/*
 * On-disk cache of program binaries.
 *
 * Entries live in the settings' cache directory ($CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort,
 * else ~/.cache/clsort, resolved by settings.c), one file per key: a header (magic, key, payload
 * size, payload hash) and the binary. The key hashes everything that decides the binary (sources,
 * options, platform, device, driver), so a stale entry is simply never looked up again.
 *
 * An entry is code the driver runs in this process (native code on CPU devices), so the cache
 * trusts only what the effective user alone can have written: the directory is used only when it
 * is owned by the effective user and not writable by group or others (missing parts are created
 * 0700), and every directory above it is the user's or root's and, where group or others may write
 * it, sticky (a world-writable $XDG_CACHE_HOME is passed over, /tmp is not); missing parts are
 * created only after the directories above them passed those checks, so nothing is created in a
 * directory that is passed over; it is opened once, without following a final symbolic link, and every entry operation is
 * relative to that open directory, so it cannot be swapped afterwards. An entry is read only when
 * it is a regular file with the same owner that group and others cannot write (no FIFO or device
 * blocks the open); entries are written 0600 to a temporary name and renamed, so readers never see
 * a partial one. Anything that fails a check is treated as absent and rebuilt.
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = { 'C', 'L', 'S', 'O', 'R', 'T', 'B', '1' };

typedef struct entry_header {
    char magic[8];
    uint64_t key;
    uint64_t size;
    uint64_t hash;
} entry_header;

uint64_t clsort_hash64(uint64_t h, const void *data, size_t len)
{
    /* FNV-1a: not cryptographic, only a content key. */
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* mkdir -p, each missing part 0700. */
static int make_dirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The deepest part of path that exists, into base: path itself (returns 0), else an ancestor
 * (returns 1; "." for a relative path none of whose parts exists); -1 when path is too long. */
static int existing_part(const char *path, char *base, size_t size)
{
    if (snprintf(base, size, "%s", path) >= (int)size)
        return -1;
    struct stat st;
    int missing = 0;
    while (stat(base, &st) != 0) {
        missing = 1;
        char *slash = strrchr(base, '/');
        while (slash && slash > base && slash[-1] == '/') /* a//b */
            slash--;
        if (!slash)
            snprintf(base, size, ".");
        else
            slash[slash == base] = '\0'; /* the parent; "/" stays itself */
        if (!slash && stat(base, &st) != 0)
            break;
    }
    return missing;
}

/* Why a file or directory of this status cannot be trusted, or NULL when it can. */
static const char *distrust(const struct stat *st, char *buf, size_t size)
{
    if (st->st_uid != geteuid()) {
        snprintf(buf, size, "is owned by uid %lu, not %lu", (unsigned long)st->st_uid,
                 (unsigned long)geteuid());
        return buf;
    }
    if (st->st_mode & S_IWOTH)
        return "is writable by others";
    if (st->st_mode & S_IWGRP)
        return "is writable by its group";
    return NULL;
}

/* Why a directory above the cache cannot be trusted, or NULL: it must be the effective user's or
 * root's, and where group or others may write it, sticky (as /tmp is), or they could rename the
 * cache directory away and put one of theirs in its place. */
static const char *distrust_above(const struct stat *st, char *buf, size_t size)
{
    if (st->st_uid != geteuid() && st->st_uid != 0) {
        snprintf(buf, size, "is owned by uid %lu, neither %lu nor root", (unsigned long)st->st_uid,
                 (unsigned long)geteuid());
        return buf;
    }
    if ((st->st_mode & S_ISVTX) == 0 && (st->st_mode & S_IWOTH))
        return "is writable by others (and not sticky)";
    if ((st->st_mode & S_ISVTX) == 0 && (st->st_mode & S_IWGRP))
        return "is writable by its group (and not sticky)";
    return NULL;
}

/* The directory at real (a real path) checked by distrust_above(): NULL, or the reason naming it
 * in buf. */
static const char *distrust_dir(const char *real, char *buf, size_t size)
{
    struct stat st;
    char why[96];
    const char *bad = stat(real, &st) != 0 ? strerror(errno) : distrust_above(&st, why, sizeof why);
    if (!bad)
        return NULL;
    snprintf(buf, size, "is in %s, which %s", real, bad);
    return buf;
}

/* Every directory above dir's real path, and that path itself where `self`, checked by
 * distrust_dir(); NULL when all pass, else the reason in buf. `unresolved` begins the message
 * where dir has no real path. */
static const char *distrust_path(const char *dir, int self, const char *unresolved, char *buf,
                                 size_t size)
{
    char *real = realpath(dir, NULL);
    if (!real) {
        snprintf(buf, size, "%s%s: %s", unresolved, dir, strerror(errno));
        return buf;
    }
    const char *bad = self ? distrust_dir(real, buf, size) : NULL;
    for (char *slash = strrchr(real, '/'); slash && !bad; slash = strrchr(real, '/')) {
        slash[slash == real] = '\0'; /* the parent; "/" stays itself */
        bad = distrust_dir(real, buf, size);
        if (slash == real)
            break;
    }
    free(real);
    return bad;
}

void clsort_cache_open(const clsort_settings *s, int *fd, char *info, size_t size)
{
    *fd = -1;
    if (!s->cache_enabled) {
        snprintf(info, size, "off: %s", s->no_cache_name);
        return;
    }
    const char *dir = s->cache_dir;
    if (!dir[0]) {
        snprintf(info, size, "off: no directory (CLSORT_CACHE_DIR, XDG_CACHE_HOME and HOME unset)");
        return;
    }
    /* Parts of the path that are missing are created only in a directory that passes the checks
     * of the directories above the cache, and so are all of those above it: nothing is created
     * in a directory that is passed over. */
    struct stat st;
    char why[96], above[4200], base[4096];
    const int missing = existing_part(dir, base, sizeof base);
    /* The cache directory is created in base, the deepest part of its path that exists: base and
     * every directory above it must pass. */
    if (missing > 0 && distrust_path(base, 1, "cannot be created in ", above, sizeof above)) {
        snprintf(info, size, "off: %s %s", dir, above);
        return;
    }
    if (missing < 0 || make_dirs(dir) != 0) {
        snprintf(info, size, "off: %s: cannot create: %s", dir,
                 strerror(missing < 0 ? ENAMETOOLONG : errno));
        return;
    }
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0) {
        snprintf(info, size, "off: %s: %s", dir,
                 errno == ELOOP ? "is a symbolic link" : strerror(errno));
        return;
    }
    const char *bad = fstat(d, &st) != 0 ? strerror(errno) : distrust(&st, why, sizeof why);
    if (!bad)
        bad = distrust_path(dir, 0, "", above, sizeof above);
    if (bad) {
        snprintf(info, size, "off: %s %s", dir, bad);
        close(d);
        return;
    }
    snprintf(info, size, "%s", dir);
    *fd = d;
}

void clsort_cache_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void entry_name(uint64_t key, char *buf, size_t size)
{
    snprintf(buf, size, "%016llx.bin", (unsigned long long)key);
}

/* The entry of key opened for reading, when it is one the cache trusts; else NULL. */
static FILE *open_entry(int dir, uint64_t key)
{
    char name[32], why[96];
    entry_name(key, name, sizeof name);
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !distrust(&st, why, sizeof why))
        f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    return f;
}

int clsort_cache_load(int dir, uint64_t key, unsigned char **binary, size_t *size)
{
    if (dir < 0)
        return -1;
    FILE *f = open_entry(dir, key);
    if (!f)
        return -1;
    entry_header h;
    unsigned char *data = NULL;
    int ok = fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, magic, sizeof magic) &&
             h.key == key && h.size > 0 && h.size < (1ull << 31);
    if (ok) {
        data = malloc(h.size);
        ok = data && fread(data, 1, h.size, f) == h.size && fgetc(f) == EOF &&
             clsort_hash64(CLSORT_HASH_SEED, data, h.size) == h.hash;
    }
    fclose(f);
    if (!ok) {
        free(data);
        return -1;
    }
    *binary = data;
    *size = h.size;
    return 0;
}

/* A new temporary entry file (0600) in dir, its name in tmp. */
static FILE *create_temp(int dir, char *tmp, size_t size)
{
    static unsigned counter;
    for (int attempt = 0; attempt < 16; attempt++) {
        snprintf(tmp, size, ".tmp-%ld-%u-%d", (long)getpid(), counter++, rand());
        int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return NULL;
        }
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            close(fd);
            unlinkat(dir, tmp, 0);
        }
        return f;
    }
    return NULL;
}

int clsort_cache_store(int dir, uint64_t key, const unsigned char *binary, size_t size)
{
    char name[32], tmp[64];
    if (dir < 0)
        return -1;
    entry_name(key, name, sizeof name);
    FILE *f = create_temp(dir, tmp, sizeof tmp);
    if (!f)
        return -1;
    entry_header h;
    memcpy(h.magic, magic, sizeof magic);
    h.key = key;
    h.size = size;
    h.hash = clsort_hash64(CLSORT_HASH_SEED, binary, size);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(binary, 1, size, f) == size &&
             fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || renameat(dir, tmp, dir, name) != 0) {
        unlinkat(dir, tmp, 0);
        return -1;
    }
    return 0;
}
