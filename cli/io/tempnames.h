/*
 * The table of temporary names a signal must not leave behind, and the lock that the signal thread
 * and a commit share, for clsort's signals.c and clsort-mpi's msignals.c alike: each program's
 * signal thread removes the names under the lock that its commit holds while it renames, so that a
 * signal lands before a commit or after it.
 */
#ifndef CLSORT_TEMPNAMES_H
#define CLSORT_TEMPNAMES_H

/* name in dirfd (kept open by the caller) put in the table: its slot; -1 for a name longer than
 * 255 bytes or a table of 8 names already full. */
int tempnames_add(int dirfd, const char *name);
/* The slot freed, and with remove its name unlinked first. */
void tempnames_drop(int slot, int remove);
/* Every name in the table unlinked and forgotten; call with the lock held. */
void tempnames_remove_locked(void);
/* The lock (recursive: a commit holds it while it names its temporary files). */
void tempnames_lock(void);
void tempnames_unlock(void);

#endif
