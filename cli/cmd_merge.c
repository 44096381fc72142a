/* sslat merge: the parts of a sharded run into one table. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void merge_usage(void)
{
    printf("usage: sslat merge PART.sslat... -o OUT.sslat\n\n"
           "Checks that the parts come from one run (space, latency type, calculator options),\n"
           "that shards 0..N-1 are each there once and every entry is measured exactly once,\n"
           "and writes the whole table.\n");
}

static int merge_option(int opt, const char *value, void *args)
{
    if (opt == 'o') return cli_set_once(args, value, "merge", "-o") ? CLI_OK : CLI_BAD_INPUT;
    return CLI_BAD_INPUT;
}

static const struct option MERGE_OPTIONS[] = {{"output", required_argument, NULL, 'o'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
static const cli_verb MERGE = {"merge", "o:h", MERGE_OPTIONS, merge_usage, merge_option, 1, -1,
                               "part files and -o OUT.sslat"};

int cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    int first, code = cli_parse(&MERGE, argc, argv, &output, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!output) return cli_expects(&MERGE);
    int n = argc - first;
    char **part_paths = argv + first;
    code = cli_check_paths("merge", (const char *const *)part_paths, (size_t)n, &output, 1);
    if (code != CLI_OK) return code;
    sslat_container **parts = calloc((size_t)n, sizeof *parts);
    if (!parts) return CLI_FAILURE;
    for (int k = 0; code == CLI_OK && k < n; k++) code = cli_load_container(part_paths[k], &parts[k]);
    sslat_container *whole = NULL;
    sslat_error err;
    if (code == CLI_OK) {
        sslat_status status = sslat_container_merge((const sslat_container *const *)parts, (size_t)n, &whole, &err);
        if (status == SSLAT_OK) status = sslat_container_save_to_file(whole, output, &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat merge: %s\n", err.message);
            code = cli_exit_code(status);
        } else {
            const char *warning = sslat_container_metadata(whole, "merged.warning");
            if (warning) fprintf(stderr, "sslat merge: warning: %s\n", warning);
            fprintf(stderr, "sslat merge: wrote %s from %d parts\n", output, n);
        }
    }
    sslat_container_free(whole);
    for (int k = 0; k < n; k++) sslat_container_free(parts[k]);
    free(parts);
    return code;
}
