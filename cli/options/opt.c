/*
 * Command-line option tokenizer (see opt.h). Owns the syntax of options and the messages about it
 * (unknown option, "did you mean", missing value) and the number parsers; knows no option by name
 * (args.c's table does). Calls msg.c only.
 */
#include "opt.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void opt_init(opt_state *st, int argc, char **argv, int first, const char *help)
{
    memset(st, 0, sizeof *st);
    st->argc = argc;
    st->argv = argv;
    st->index = first;
    st->help = help;
}

/* Edit distance, for "did you mean" hints; names are short. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void unknown_long(const opt_state *st, const char *name, size_t len, const opt_def *defs)
{
    char given[64];
    if (len >= sizeof given)
        len = sizeof given - 1;
    memcpy(given, name, len);
    given[len] = '\0';
    const char *best = NULL;
    size_t best_d = 3;
    for (const opt_def *d = defs; d->id; d++) {
        if (!d->name)
            continue;
        size_t dist = edit_distance(given, d->name);
        if (len >= 3 && strncmp(d->name, given, len) == 0)
            dist = 1; /* a prefix of a real option */
        if (dist < best_d) {
            best_d = dist;
            best = d->name;
        }
    }
    if (best)
        msg_error("unknown option '--%s'; did you mean '--%s'? (see '%s')", given, best, st->help);
    else
        msg_error("unknown option '--%s' (see '%s')", given, st->help);
}

int opt_next(opt_state *st, const opt_def *defs, const char **arg)
{
    *arg = NULL;
    if (st->group && *st->group) {
        /* inside a group of short options: -vf, -n100 */
        char c = *st->group++;
        const opt_def *d = defs;
        while (d->id && d->short_name != c)
            d++;
        st->current_buf[0] = '-';
        st->current_buf[1] = c;
        st->current_buf[2] = '\0';
        st->current = st->current_buf;
        if (!d->id) {
            msg_error("unknown option '-%c' (see '%s')", c, st->help);
            return OPT_ERROR;
        }
        if (d->has_arg == 1) {
            if (*st->group) {
                *arg = st->group;
            } else if (st->index < st->argc) {
                *arg = st->argv[st->index++];
            } else {
                msg_error("option '-%c' needs a value (see '%s')", c, st->help);
                return OPT_ERROR;
            }
            st->group = NULL;
        }
        return d->id;
    }
    st->group = NULL;
    if (st->index >= st->argc)
        return OPT_END;
    const char *a = st->argv[st->index++];
    if (st->only_operands || a[0] != '-' || a[1] == '\0') {
        *arg = a;
        return OPT_OPERAND;
    }
    if (a[1] == '-') {
        if (a[2] == '\0') {
            st->only_operands = 1;
            return opt_next(st, defs, arg);
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const opt_def *d = defs;
        while (d->id && !(d->name && strlen(d->name) == len && strncmp(d->name, name, len) == 0))
            d++;
        st->current = a;
        if (!d->id) {
            unknown_long(st, name, len, defs);
            return OPT_ERROR;
        }
        snprintf(st->current_buf, sizeof st->current_buf, "--%s", d->name);
        st->current = st->current_buf;
        if (d->has_arg == 1) {
            if (eq) {
                *arg = eq + 1;
            } else if (st->index < st->argc) {
                *arg = st->argv[st->index++];
            } else {
                msg_error("option '--%s' needs a value (see '%s')", d->name, st->help);
                return OPT_ERROR;
            }
        } else if (eq && d->has_arg == 2) {
            *arg = eq + 1; /* an optional value, given only as --name=value */
        } else if (eq) {
            msg_error("option '--%s' takes no value (see '%s')", d->name, st->help);
            return OPT_ERROR;
        }
        return d->id;
    }
    st->group = a + 1;
    return opt_next(st, defs, arg);
}

static int parse_u64_prefix(const char *text, uint64_t *out, char **end)
{
    if (*text == '-' || *text == '+' || *text == ' ' || *text == '\0')
        return -1;
    errno = 0;
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    unsigned long long v = strtoull(text, end, hex ? 16 : 10);
    if (errno || *end == text)
        return -1;
    *out = v;
    return 0;
}

static void bad_value(const opt_state *st, const char *text, const char *what)
{
    msg_error("option '%s': '%s' is not %s", st->current ? st->current : "?", text, what);
}

int opt_parse_u64(const opt_state *st, const char *text, uint64_t *out)
{
    char *end;
    if (parse_u64_prefix(text, out, &end) != 0 || *end != '\0') {
        bad_value(st, text, "an unsigned integer");
        return -1;
    }
    return 0;
}

int opt_parse_count(const opt_state *st, const char *text, uint64_t *out)
{
    char *end;
    uint64_t v;
    if (parse_u64_prefix(text, &v, &end) != 0) {
        bad_value(st, text, "a count (e.g. 1000, 64Ki, 1M)");
        return -1;
    }
    static const struct {
        const char *suffix;
        uint64_t mult;
    } suffixes[] = {
        {"", 1},
        {"k", 1000ull},
        {"K", 1000ull},
        {"M", 1000000ull},
        {"G", 1000000000ull},
        {"T", 1000000000000ull},
        {"Ki", 1ull << 10},
        {"Mi", 1ull << 20},
        {"Gi", 1ull << 30},
        {"Ti", 1ull << 40},
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].suffix) == 0) {
            if (v > UINT64_MAX / suffixes[i].mult) {
                bad_value(st, text, "a count that fits in 64 bits");
                return -1;
            }
            *out = v * suffixes[i].mult;
            return 0;
        }
    }
    bad_value(st, text, "a count (e.g. 1000, 64Ki, 1M)");
    return -1;
}

int opt_parse_memory(const opt_state *st, const char *text, uint64_t *bytes, unsigned *percent)
{
    /* sort(1)'s suffixes: b bytes, K (the default) to E powers of 1024, k m g t too, % of physical
     * memory; and Ki..Ei, the spellings of this tool's other sizes, as the same powers */
    static const struct {
        const char *suffix;
        unsigned shift;
    } suffixes[] = {
        {"", 10},   {"b", 0},    {"K", 10},   {"k", 10},   {"M", 20},   {"m", 20},
        {"G", 30},  {"g", 30},   {"T", 40},   {"t", 40},   {"P", 50},   {"E", 60},
        {"Ki", 10}, {"Mi", 20},  {"Gi", 30},  {"Ti", 40},  {"Pi", 50},  {"Ei", 60},
    };
    char *end;
    uint64_t v;
    /* decimal only, as sort(1) takes it: in hex a b would be a digit */
    if ((text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ||
        parse_u64_prefix(text, &v, &end) != 0)
        goto bad;
    if (strcmp(end, "%") == 0) {
        if (v < 1 || v > 100)
            goto bad;
        *percent = (unsigned)v;
        *bytes = 0;
        return 0;
    }
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].suffix) != 0)
            continue;
        if (v > UINT64_MAX >> suffixes[i].shift) {
            msg_error("option '%s': '%s' is too large (at most 2^64 - 1 bytes)",
                      st->current ? st->current : "?", text);
            return -1;
        }
        if (v == 0)
            goto bad;
        *bytes = v << suffixes[i].shift;
        *percent = 0;
        return 0;
    }
bad:
    msg_error("option '%s': '%s' is not a memory size: a decimal number of 1 or more with a "
              "suffix b (bytes), K (KiB, the default), M, G, T, P or E (powers of 1024), or N%% "
              "(1 to 100) of physical memory, e.g. 512M, 2G, 25%%",
              st->current ? st->current : "?", text);
    return -1;
}
