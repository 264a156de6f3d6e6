/*
 * On-disk cache of program binaries.
 *
 * Entries live in the settings' cache directory ($CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else
 * ~/.cache/clsort, resolved by settings.c), one file per key: a header (magic, key, payload size, payload hash) and the binary. The key hashes everything
 * that decides the binary (sources, options, platform, device, driver), so a stale entry is simply
 * never looked up again. Files are written to a temporary name and renamed, so readers never see a
 * partial entry; anything that fails the header checks is treated as absent and rebuilt.
 * Calls: nothing in the library.
 */
#include "internal.h"

#include <errno.h>
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

static int cache_dir(const clsort_settings *s, char *buf, size_t size)
{
    if (!s->cache_dir[0])
        return -1;
    return snprintf(buf, size, "%s", s->cache_dir) < (int)size ? 0 : -1;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
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

static int entry_path(const clsort_settings *s, uint64_t key, char *buf, size_t size)
{
    char dir[4000];
    if (cache_dir(s, dir, sizeof dir) != 0)
        return -1;
    return snprintf(buf, size, "%s/%016llx.bin", dir, (unsigned long long)key) < (int)size ? 0 : -1;
}

int clsort_cache_load(const clsort_settings *s, uint64_t key, unsigned char **binary, size_t *size)
{
    char path[4096];
    if (!s->cache_enabled || entry_path(s, key, path, sizeof path) != 0)
        return -1;
    FILE *f = fopen(path, "rb");
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

int clsort_cache_store(const clsort_settings *s, uint64_t key, const unsigned char *binary,
                       size_t size)
{
    char dir[4000], path[4096], tmp[4096];
    if (!s->cache_enabled || cache_dir(s, dir, sizeof dir) != 0 || make_dirs(dir) != 0 ||
        entry_path(s, key, path, sizeof path) != 0)
        return -1;
    if (snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir) >= (int)sizeof tmp)
        return -1;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    entry_header h;
    memcpy(h.magic, magic, sizeof magic);
    h.key = key;
    h.size = size;
    h.hash = clsort_hash64(CLSORT_HASH_SEED, binary, size);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(binary, 1, size, f) == size &&
             fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
