/* sslat import / sslat import-enot: a container from its JSON export or from an
 * ENOT latency pickle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "table/container.h"

typedef struct import_args {
    const char *output;
} import_args;

static void import_usage(void)
{
    printf("usage: sslat import FILE.json -o OUT.sslat\n\n"
           "Rebuilds a binary container from a JSON export (sslat export --json).\n");
}

static int import_option(int opt, const char *value, void *args)
{
    import_args *a = args;
    if (opt == 'o') return cli_set_once(&a->output, value, "import", "-o") ? CLI_OK : CLI_BAD_INPUT;
    return CLI_BAD_INPUT;
}

static const struct option IMPORT_OPTIONS[] = {{"output", required_argument, NULL, 'o'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
static const cli_verb IMPORT = {"import", "o:h", IMPORT_OPTIONS, import_usage, import_option, 1, 1,
                                "a JSON file and -o OUT.sslat"};

int cmd_import(int argc, char **argv)
{
    import_args a = {0};
    int first, code = cli_parse(&IMPORT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.output) return cli_expects(&IMPORT);
    const char *input = argv[first], *output = a.output;
    code = cli_check_paths("import", &input, 1, &output, 1);
    if (code != CLI_OK) return code;
    size_t used = 0;
    char *text = NULL;
    sslat_error err;
    sslat_status status = sslat_read_file(input, (size_t)SSLAT_MAX_CONTAINER_BYTES, &text, &used, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat import: %s\n", err.message);
        return cli_exit_code(status);
    }
    sslat_container *c = NULL;
    status = sslat_container_import_json(text, used, &c, &err);
    free(text);
    if (status == SSLAT_OK) status = sslat_container_save_to_file(c, output, &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import: %s: %s\n", input, err.message);
    sslat_container_free(c);
    return cli_exit_code(status);
}

typedef struct import_enot_args {
    const char *output, *relabel;
    cli_space_args space;
} import_enot_args;

static void import_enot_usage(void)
{
    printf("usage: sslat import-enot FILE.pkl -o OUT.sslat [--space SPACE] [--as TYPE]\n\n"
           "Reads an ENOT latency pickle (a dict of latency_type, constant_latency and\n"
           "operations_latencies; floats or numpy float64) with a strict reader that runs no\n"
           "code. --space binds the table to its search space (names, hash) after checking\n"
           "that the blocks and candidates match (--batch N / --resolution R load it\n"
           "with the table's input). ENOT writes latency_type 'mmac' whatever counter made\n"
           "the table; sslat keeps it ('mmac': MACs, counter unknown) unless --as TYPE\n"
           "(e.g. mac_fvcore) says what it is.\n");
}

enum { OPT_SPACE = 2001, OPT_AS };

static int import_enot_option(int opt, const char *value, void *args)
{
    import_enot_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code)) return code;
    switch (opt) {
    case 'o': return cli_set_once(&a->output, value, "import-enot", "-o") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SPACE: return cli_set_once(&a->space.path, value, "import-enot", "--space") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_AS: return cli_set_once(&a->relabel, value, "import-enot", "--as") ? CLI_OK : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option IMPORT_ENOT_OPTIONS[] = {{"output", required_argument, NULL, 'o'},
                                                    {"space", required_argument, NULL, OPT_SPACE},
                                                    {"as", required_argument, NULL, OPT_AS},
                                                    {"help", no_argument, NULL, 'h'}, CLI_SPACE_LONG_OPTIONS,
                                                    {NULL, 0, NULL, 0}};
static const cli_verb IMPORT_ENOT = {"import-enot", "o:h", IMPORT_ENOT_OPTIONS, import_enot_usage,
                                     import_enot_option, 1, 1, "FILE.pkl and -o OUT.sslat"};

int cmd_import_enot(int argc, char **argv)
{
    import_enot_args a = {0};
    int first, code = cli_parse(&IMPORT_ENOT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.output) return cli_expects(&IMPORT_ENOT);
    const char *pickle = argv[first], *output = a.output, *relabel = a.relabel;
    cli_space_args space_args = a.space;
    const char *inputs[] = {pickle, space_args.path};
    code = cli_check_paths("import-enot", inputs, 2, &output, 1);
    if (code != CLI_OK) return code;
    size_t length = 0;
    char *bytes = NULL;
    sslat_error err;
    sslat_status status = sslat_read_file(pickle, (size_t)SSLAT_MAX_PICKLE_BYTES, &bytes, &length, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat import-enot: %s\n", err.message);
        return cli_exit_code(status);
    }
    sslat_container *c = NULL;
    sslat_space *space = NULL;
    status = sslat_container_import_enot((const uint8_t *)bytes, length, &c, &err);
    free(bytes);
    code = status == SSLAT_OK ? CLI_OK : cli_exit_code(status);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import-enot: %s: %s\n", pickle, err.message);
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
