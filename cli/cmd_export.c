/* sslat export: a container as JSON, CSV or an ENOT pickle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "cli/cli.h"

enum { OPT_JSON = 2001, OPT_CSV, OPT_ENOT };

typedef struct export_args {
    int format; /* OPT_JSON, OPT_CSV or OPT_ENOT */
    const char *output; /* standard output when not given */
} export_args;

static void export_usage(void)
{
    printf("usage: sslat export FILE --json|--csv|--enot [-o OUT]\n\n"
           "JSON holds every field (doubles with 17 digits: sslat import rebuilds the same\n"
           "container); CSV has one row per block x candidate; --enot writes ENOT's pickle\n"
           "(latency_type, constant_latency, operations_latencies; plain floats) and needs -o.\n"
           "OUT defaults to stdout.\n");
}

static int export_option(int opt, const char *value, void *args)
{
    export_args *a = args;
    switch (opt) {
    case OPT_JSON:
    case OPT_CSV:
    case OPT_ENOT:
        if (a->format && a->format != opt) { /* one file, one format */
            fprintf(stderr, "sslat export: one of --json, --csv, --enot (export twice for two formats)\n");
            return CLI_BAD_INPUT;
        }
        a->format = opt;
        return CLI_OK;
    case 'o': return cli_set_once(&a->output, value, "export", "-o") ? CLI_OK : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option EXPORT_OPTIONS[] = {{"json", no_argument, NULL, OPT_JSON},
                                               {"csv", no_argument, NULL, OPT_CSV},
                                               {"enot", no_argument, NULL, OPT_ENOT},
                                               {"output", required_argument, NULL, 'o'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
static const cli_verb EXPORT = {"export", "o:h", EXPORT_OPTIONS, export_usage, export_option, 1, 1,
                                "a container file and --json, --csv or --enot -o OUT.pkl"};

int cmd_export(int argc, char **argv)
{
    export_args a = {0};
    int first, code = cli_parse(&EXPORT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    int format = a.format;
    const char *output = a.output ? a.output : "-", *input = argv[first];
    if (!format || (format == OPT_ENOT && !strcmp(output, "-"))) return cli_expects(&EXPORT);
    sslat_container *c = NULL;
    code = cli_check_paths("export", &input, 1, &output, 1);
    if (code != CLI_OK) return code;
    code = cli_load_container(input, &c);
    if (code != CLI_OK) return code;
    if (format == OPT_ENOT) {
        uint8_t *bytes = NULL;
        size_t size = 0;
        sslat_error err;
        sslat_status status = sslat_container_export_enot(c, &bytes, &size, &err);
        if (status == SSLAT_OK) status = sslat_write_file_atomic(output, bytes, size, &err);
        if (status != SSLAT_OK) fprintf(stderr, "sslat export: %s\n", err.message);
        sslat_free(bytes);
        sslat_container_free(c);
        return cli_exit_code(status);
    }
    char *text = NULL;
    sslat_error err;
    sslat_status status = format == OPT_JSON ? sslat_container_export_json(c, &text, &err)
                                             : sslat_container_export_csv(c, &text, &err);
    if (status == SSLAT_OK) {
        size_t length = strlen(text);
        bool needs_newline = format == OPT_JSON && strcmp(output, "-") == 0 && length;
        code = cli_write_text(output, text, "export");
        if (needs_newline) putchar('\n');
    } else {
        fprintf(stderr, "sslat export: %s\n", err.message);
        code = cli_exit_code(status);
    }
    sslat_free(text);
    sslat_container_free(c);
    return code;
}
