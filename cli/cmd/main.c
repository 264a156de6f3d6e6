/*
 * clsort: sort binary files of keys and key/value records on OpenCL devices.
 *
 * This file dispatches to the subcommands; each lives in its own file (sort_cmd.c, merge_cmd.c,
 * gen_cmd.c, devices_cmd.c, bench_cmd.c, text/text_cmd.c). Owns the command names and the final flush of stdout;
 * calls the subcommands, help.c, msg.c (standard streams), io.c (set-up) and settings.c (the environment).
 * The layers are drawn in cli/README.md.
 */
#include "cli.h"
#include "io.h"
#include "progress.h"
#include "settings.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv, int first);
    void (*help)(void);
} command;

static const command commands[] = {
    {"sort", cmd_sort, help_sort},
    {"merge", cmd_merge, help_merge},
    {"gen", cmd_gen, help_gen},
    {"devices", cmd_devices, help_devices},
    {"bench", cmd_bench, help_bench},
    {"text", cmd_text, help_text},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int help_command(int argc, char **argv)
{
    if (argc < 3) {
        help_main();
        return EXIT_OK;
    }
    const command *c = find_command(argv[2]);
    if (!c) {
        msg_error("no such command '%s' (commands: sort, merge, gen, devices, bench, text)", argv[2]);
        return EXIT_USAGE;
    }
    c->help();
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    process_mark_start(); /* --stats measures the process's wall time from here */
    guard_std_fds();
    io_init();
    settings_load(); /* the environment, read here only */
    int rc;
    if (argc >= 2 && strcmp(argv[1], "help") == 0) {
        rc = help_command(argc, argv);
    } else {
        const command *c = argc >= 2 ? find_command(argv[1]) : NULL;
        /* without a command name, the arguments are the sort command's */
        rc = c ? c->run(argc, argv, 2) : cmd_sort(argc, argv, 1);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc == EXIT_OK) {
            msg_error("(stdout): write error");
            rc = EXIT_IO;
        }
    }
    return rc;
}
