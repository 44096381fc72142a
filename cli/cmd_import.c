/* sslat import / sslat import-enot: a container from its JSON export or from an
 * ENOT latency pickle. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "table/container.h"

int cmd_import(int argc, char **argv)
{
    static const struct option LONG[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (opt == 'o') {
            if (!cli_set_once(&output, optarg, "import", "-o")) return CLI_BAD_INPUT;
        } else if (opt == 'h') {
            printf("usage: sslat import FILE.json -o OUT.sslat\n\n"
                   "Rebuilds a binary container from a JSON export (sslat export --json).\n");
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    if (optind + 1 != argc || !output) {
        fprintf(stderr, "sslat import: expects a JSON file and -o OUT.sslat\n");
        return CLI_BAD_INPUT;
    }
    const char *input = argv[optind];
    int code = cli_check_paths("import", &input, 1, &output, 1);
    if (code != CLI_OK) return code;
    size_t used = 0;
    char *text = NULL;
    sslat_error err;
    sslat_status status = sslat_read_file(argv[optind], (size_t)SSLAT_MAX_CONTAINER_BYTES, &text, &used, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat import: %s\n", err.message);
        return cli_exit_code(status);
    }
    sslat_container *c = NULL;
    status = sslat_container_import_json(text, used, &c, &err);
    free(text);
    if (status == SSLAT_OK) status = sslat_container_save_to_file(c, output, &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import: %s: %s\n", argv[optind], err.message);
    sslat_container_free(c);
    return cli_exit_code(status);
}

int cmd_import_enot(int argc, char **argv)
{
    enum { OPT_SPACE = 2001, OPT_AS };
    static const struct option LONG[] = {{"output", required_argument, NULL, 'o'},
                                         {"space", required_argument, NULL, OPT_SPACE},
                                         {"as", required_argument, NULL, OPT_AS},
                                         {"help", no_argument, NULL, 'h'}, CLI_SPACE_LONG_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL, *relabel = NULL;
    cli_space_args space_args = {0};
    int opt;
    optind = 1;
    int space_code = CLI_OK;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (cli_space_option(opt, optarg, &space_args, &space_code)) {
            if (space_code) return space_code;
            continue;
        }
        if (opt == 'o') {
            if (!cli_set_once(&output, optarg, "import-enot", "-o")) return CLI_BAD_INPUT;
        } else if (opt == OPT_SPACE) {
            if (!cli_set_once(&space_args.path, optarg, "import-enot", "--space")) return CLI_BAD_INPUT;
        } else if (opt == OPT_AS) {
            if (!cli_set_once(&relabel, optarg, "import-enot", "--as")) return CLI_BAD_INPUT;
        } else if (opt == 'h') {
            printf("usage: sslat import-enot FILE.pkl -o OUT.sslat [--space SPACE] [--as TYPE]\n\n"
                   "Reads an ENOT latency pickle (a dict of latency_type, constant_latency and\n"
                   "operations_latencies; floats or numpy float64) with a strict reader that runs no\n"
                   "code. --space binds the table to its search space (names, hash) after checking\n"
                   "that the blocks and candidates match (--batch N / --resolution R load it\n"
                   "with the table's input). ENOT writes latency_type 'mmac' whatever counter made\n"
                   "the table; sslat keeps it ('mmac': MACs, counter unknown) unless --as TYPE\n"
                   "(e.g. mac_fvcore) says what it is.\n");
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    if (optind + 1 != argc || !output) {
        fprintf(stderr, "sslat import-enot: expects FILE.pkl and -o OUT.sslat\n");
        return CLI_BAD_INPUT;
    }
    const char *inputs[] = {argv[optind], space_args.path};
    int code = cli_check_paths("import-enot", inputs, 2, &output, 1);
    if (code != CLI_OK) return code;
    size_t length = 0;
    char *bytes = NULL;
    sslat_error err;
    sslat_status status = sslat_read_file(argv[optind], (size_t)SSLAT_MAX_PICKLE_BYTES, &bytes, &length, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat import-enot: %s\n", err.message);
        return cli_exit_code(status);
    }
    sslat_container *c = NULL;
    sslat_space *space = NULL;
    status = sslat_container_import_enot((const uint8_t *)bytes, length, &c, &err);
    free(bytes);
    code = status == SSLAT_OK ? CLI_OK : cli_exit_code(status);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import-enot: %s: %s\n", argv[optind], err.message);
    if (code == CLI_OK && relabel) {
        /* the export gives the file back under its own name */
        const char *own = sslat_container_metadata(c, "enot.latency_type");
        char original[64];
        snprintf(original, sizeof original, "%s", own ? own : sslat_container_latency_type(c));
        if ((status = sslat_container_relabel_type(c, relabel, &err)) == SSLAT_OK)
            status = sslat_container_set_metadata(c, "enot.latency_type", original, &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat import-enot: --as: %s\n", err.message);
            code = CLI_BAD_INPUT;
        }
    }
    if (code == CLI_OK && space_args.path) code = cli_load_space(&space_args, &space);
    if (code == CLI_OK && space && (status = sslat_container_bind_space(c, space, &err)) != SSLAT_OK) {
        fprintf(stderr, "sslat import-enot: %s\n", err.message);
        code = cli_exit_code(status);
    }
    if (code == CLI_OK && (status = sslat_container_save_to_file(c, output, &err)) != SSLAT_OK) {
        fprintf(stderr, "sslat import-enot: %s\n", err.message);
        code = cli_exit_code(status);
    }
    sslat_space_free(space);
    sslat_container_free(c);
    return code;
}
