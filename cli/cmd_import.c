/* sslat import / sslat import-enot: a container from its JSON export or from an
 * ENOT latency pickle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "cli/values_file.h"
#include "ir/space.h"
#include "table/container.h"

typedef struct import_args {
    const char *output, *values, *name, *unit;
    cli_space_args space;
} import_args;

static void import_usage(void)
{
    printf("usage: sslat import FILE.json -o OUT.sslat\n"
           "       sslat import --values FILE.csv|FILE.json --name NAME [--unit U] --space SPACE -o OUT.sslat\n\n"
           "Rebuilds a binary container from a JSON export (sslat export --json).\n\n"
           "With --values, makes a value table: your own per-candidate values (an accuracy\n"
           "predictor's additive terms, energy, memory...) bound to SPACE by its hash like\n"
           "any table, named NAME in UNIT (e.g. --name top1 --unit %%). pareto, budget\n"
           "--maximize, sweep --value, plot and report label axes, columns and captions\n"
           "with that name and unit. FILE.csv has the header block,candidate,value and one\n"
           "row per candidate (block by index or name, candidate by index or label; an\n"
           "optional row constant,,V for the fixed part, else 0); FILE.json is\n"
           "{\"constant\": V, \"values\": [[one per candidate], one list per block]} or\n"
           "{\"values\": {block: {label: value}}}. Every candidate exactly once, values\n"
           "finite and >= 0 (--batch N / --resolution R load SPACE at that input).\n");
}

enum { OPT_VALUES = 2101, OPT_NAME, OPT_UNIT, OPT_VALUES_SPACE };

static int import_option(int opt, const char *value, void *args)
{
    import_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code)) return code;
    switch (opt) {
    case 'o': return cli_set_once(&a->output, value, "import", "-o") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_VALUES: return cli_set_once(&a->values, value, "import", "--values") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_NAME: return cli_set_once(&a->name, value, "import", "--name") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_UNIT: return cli_set_once(&a->unit, value, "import", "--unit") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_VALUES_SPACE: return cli_set_once(&a->space.path, value, "import", "--space") ? CLI_OK : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option IMPORT_OPTIONS[] = {{"output", required_argument, NULL, 'o'},
                                               {"values", required_argument, NULL, OPT_VALUES},
                                               {"name", required_argument, NULL, OPT_NAME},
                                               {"unit", required_argument, NULL, OPT_UNIT},
                                               {"space", required_argument, NULL, OPT_VALUES_SPACE},
                                               {"help", no_argument, NULL, 'h'}, CLI_SPACE_LONG_OPTIONS,
                                               {NULL, 0, NULL, 0}};
static const cli_verb IMPORT = {"import", "o:h", IMPORT_OPTIONS, import_usage, import_option, 0, 1,
                                "a JSON file and -o OUT.sslat, or --values FILE --name NAME --space SPACE -o OUT.sslat"};

/* sslat import --values: the user's values as a named value table of the space. */
static int import_values(const import_args *a)
{
    const char *inputs[] = {a->values, a->space.path}, *output = a->output;
    int code = cli_check_paths("import", inputs, 2, &output, 1);
    if (code != CLI_OK) return code;
    sslat_space *space = NULL;
    code = cli_load_space(&a->space, &space);
    if (code != CLI_OK) return code;
    size_t total = sslat_space_total_candidates(space);
    double constant = 0, *values = calloc(total + 1, sizeof *values);
    int32_t blocks = sslat_space_block_count(space), *counts = calloc((size_t)blocks + 1, sizeof *counts);
    char why[1024];
    sslat_error err;
    sslat_container *c = NULL;
    sslat_status status = SSLAT_OK;
    if (!values || !counts) {
        fprintf(stderr, "sslat import: out of memory\n");
        code = CLI_FAILURE;
    } else if (!cli_read_values(a->values, space, &constant, values, why, sizeof why)) {
        fprintf(stderr, "sslat import: %s\n", cli_text(why));
        code = CLI_BAD_INPUT;
    }
    for (int32_t b = 0; code == CLI_OK && b < blocks; b++) counts[b] = sslat_space_candidate_count(space, b);
    if (code == CLI_OK &&
        ((status = sslat_container_create("value", constant, values, counts, blocks, &c, &err)) != SSLAT_OK ||
         (status = sslat_container_name_values(c, a->name, a->unit ? a->unit : "", &err)) != SSLAT_OK ||
         (status = sslat_container_bind_space(c, space, &err)) != SSLAT_OK ||
         (status = sslat_container_save_to_file(c, output, &err)) != SSLAT_OK)) {
        fprintf(stderr, "sslat import: %s\n", cli_text(err.message));
        code = cli_exit_code(status);
    }
    if (code == CLI_OK)
        fprintf(stderr, "sslat import: wrote %s (value table '%s' in '%s' of space %s, %d blocks, %zu candidates)\n",
                output, a->name, a->unit ? a->unit : "", cli_text(sslat_space_name(space)), (int)blocks, total);
    sslat_container_free(c);
    free(values);
    free(counts);
    sslat_space_free(space);
    return code;
}

int cmd_import(int argc, char **argv)
{
    import_args a = {0};
    int first, code = cli_parse(&IMPORT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.output) return cli_expects(&IMPORT);
    if (a.values || a.name || a.unit) {
        if (!a.values || !a.name || !a.space.path || first < argc) {
            fprintf(stderr, "sslat import: a value table needs --values FILE, --name NAME and --space SPACE (and "
                            "no JSON export beside them)\n");
            return CLI_BAD_INPUT;
        }
        return import_values(&a);
    }
    if (first >= argc || a.space.path) return cli_expects(&IMPORT);
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
