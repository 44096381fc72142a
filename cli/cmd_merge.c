/* sslat merge: the parts of a sharded run into one table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

int cmd_merge(int argc, char **argv)
{
    static const struct option LONG[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (opt == 'o') {
            if (!cli_set_once(&output, optarg, "merge", "-o")) return CLI_BAD_INPUT;
        } else if (opt == 'h') {
            printf("usage: sslat merge PART.sslat... -o OUT.sslat\n\n"
                   "Checks that the parts come from one run (space, latency type, calculator options),\n"
                   "that shards 0..N-1 are each there once and every entry is measured exactly once,\n"
                   "and writes the whole table.\n");
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    int n = argc - optind;
    if (n < 1 || !output) {
        fprintf(stderr, "sslat merge: expects part files and -o OUT.sslat\n");
        return CLI_BAD_INPUT;
    }
    int code = cli_check_paths("merge", (const char *const *)(argv + optind), (size_t)n, &output, 1);
    if (code != CLI_OK) return code;
    sslat_container **parts = calloc((size_t)n, sizeof *parts);
    if (!parts) return CLI_FAILURE;
    for (int k = 0; code == CLI_OK && k < n; k++) code = cli_load_container(argv[optind + k], &parts[k]);
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
