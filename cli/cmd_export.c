/* sslat export / sslat import: a container as JSON or CSV, and back. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_export(int argc, char **argv)
{
    enum { OPT_JSON = 2001, OPT_CSV };
    static const struct option LONG[] = {{"json", no_argument, NULL, OPT_JSON},
                                         {"csv", no_argument, NULL, OPT_CSV},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int format = 0, opt;
    const char *output = "-";
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        switch (opt) {
        case OPT_JSON: format = OPT_JSON; break;
        case OPT_CSV: format = OPT_CSV; break;
        case 'o': output = optarg; break;
        case 'h':
            printf("usage: sslat export FILE --json|--csv [-o OUT]\n\n"
                   "JSON holds every field (doubles with 17 digits: sslat import rebuilds the same\n"
                   "container); CSV has one row per block x candidate. OUT defaults to stdout.\n");
            return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 1 != argc || !format) {
        fprintf(stderr, "sslat export: expects a container file and --json or --csv\n");
        return CLI_BAD_INPUT;
    }
    sslat_container *c = NULL;
    int code = cli_load_container(argv[optind], &c);
    if (code != CLI_OK) return code;
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

int cmd_import(int argc, char **argv)
{
    static const struct option LONG[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (opt == 'o') output = optarg;
        else if (opt == 'h') {
            printf("usage: sslat import FILE.json -o OUT.sslat\n\n"
                   "Rebuilds a binary container from a JSON export (sslat export --json).\n");
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    if (optind + 1 != argc || !output) {
        fprintf(stderr, "sslat import: expects a JSON file and -o OUT.sslat\n");
        return CLI_BAD_INPUT;
    }
    FILE *file = fopen(argv[optind], "rb");
    if (!file) {
        perror(argv[optind]);
        return CLI_FAILURE;
    }
    char *text = NULL;
    size_t size = 0, used = 0;
    bool ok = true;
    for (;;) {
        if (used + 65536 > size) {
            char *grown = realloc(text, size = size ? size * 2 : 1 << 20);
            if (!grown || size > (256u << 20)) {
                ok = false;
                free(grown ? grown : text);
                text = NULL;
                break;
            }
            text = grown;
        }
        size_t got = fread(text + used, 1, size - used, file);
        used += got;
        if (got == 0) break;
    }
    fclose(file);
    if (!ok) {
        fprintf(stderr, "sslat import: %s: too large or out of memory\n", argv[optind]);
        return CLI_FAILURE;
    }
    sslat_container *c = NULL;
    sslat_error err;
    sslat_status status = sslat_container_import_json(text, used, &c, &err);
    free(text);
    if (status == SSLAT_OK) status = sslat_container_save_to_file(c, output, &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import: %s: %s\n", argv[optind], err.message);
    sslat_container_free(c);
    return cli_exit_code(status);
}
