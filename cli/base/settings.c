/*
 * The environment variables of the tool (see settings.h): the test hooks and TMPDIR. Owns
 * settings_load and settings; calls nothing of clsort's. A malformed value is kept for the file that uses it to warn
 * about, once options such as -q are known.
 */
#include "settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static cli_settings current;

/* A decimal byte count, or 0 when text is not one. */
static int parse_env_count(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text < '0' || *text > '9' || *end != '\0' || errno != 0)
        return 0;
    *out = v;
    return 1;
}

void settings_load(void)
{
    const char *stop = getenv("CLSORT_TEST_STOP_AFTER_READ");
    if (stop && *stop) {
        current.stop_after_read_set = parse_env_count(stop, &current.stop_after_read);
        if (!current.stop_after_read_set)
            current.stop_after_read_bad = stop;
    }
    const char *commit = getenv("CLSORT_TEST_STOP_IN_COMMIT");
    current.stop_in_commit = commit && !strcmp(commit, "1");
    if (commit && *commit && !current.stop_in_commit && strcmp(commit, "0"))
        current.stop_in_commit_bad = commit;
    const char *run = getenv("CLSORT_TEST_RECORD_RUN");
    if (run && !parse_env_count(run, &current.record_run))
        current.record_run = 0;
    const char *batch = getenv("CLSORT_TEST_SEGMENT_BATCH");
    if (batch && !parse_env_count(batch, &current.segment_batch))
        current.segment_batch = 0;
    const char *prefault = getenv("CLSORT_PREFAULT");
    current.prefault = !prefault ? -1 : !strcmp(prefault, "0") ? 0 : !strcmp(prefault, "1") ? 1 : -1;
    const char *ahead = getenv("CLSORT_READ_AHEAD");
    current.read_ahead = !ahead ? -1 : !strcmp(ahead, "0") ? 0 : !strcmp(ahead, "1") ? 1 : -1;
    const char *map = getenv("CLSORT_MAP_OUTPUT");
    current.map_output = !map ? -1 : !strcmp(map, "0") ? 0 : !strcmp(map, "1") ? 1 : -1;
    const char *tmp = getenv("TMPDIR");
    current.tmpdir = tmp && *tmp ? tmp : NULL;
}

const cli_settings *settings(void)
{
    return &current;
}
