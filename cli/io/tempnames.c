/*
 * The table of temporary names and its lock (see tempnames.h). Calls nothing of clsort's.
 */
#include "tempnames.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_NAMES 8

typedef struct temp_name {
    int used;
    int dirfd;
    char name[256];
} temp_name;

static temp_name names[MAX_NAMES];
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void tempnames_lock(void)
{
    pthread_mutex_lock(&lock);
}

void tempnames_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

int tempnames_add(int dirfd, const char *name)
{
    if (strlen(name) >= sizeof names[0].name)
        return -1;
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < MAX_NAMES && slot < 0; i++)
        if (!names[i].used) {
            slot = i;
            names[i].dirfd = dirfd;
            snprintf(names[i].name, sizeof names[i].name, "%s", name);
            names[i].used = 1;
        }
    pthread_mutex_unlock(&lock);
    return slot;
}

void tempnames_drop(int slot, int remove)
{
    if (slot < 0 || slot >= MAX_NAMES)
        return;
    pthread_mutex_lock(&lock);
    if (names[slot].used && remove)
        unlinkat(names[slot].dirfd, names[slot].name, 0);
    names[slot].used = 0;
    pthread_mutex_unlock(&lock);
}

void tempnames_remove_locked(void)
{
    for (int i = 0; i < MAX_NAMES; i++)
        if (names[i].used) {
            unlinkat(names[i].dirfd, names[i].name, 0);
            names[i].used = 0;
        }
}
