/* sslat export / sslat import: a container as JSON or CSV, and back. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli.h"
#include "space.h"

int cmd_export(int argc, char **argv)
{
    enum { OPT_JSON = 2001, OPT_CSV, OPT_ENOT };
    static const struct option LONG[] = {{"json", no_argument, NULL, OPT_JSON},
                                         {"csv", no_argument, NULL, OPT_CSV},
                                         {"enot", no_argument, NULL, OPT_ENOT},
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
        case OPT_ENOT: format = OPT_ENOT; break;
        case 'o': output = optarg; break;
        case 'h':
            printf("usage: sslat export FILE --json|--csv|--enot [-o OUT]\n\n"
                   "JSON holds every field (doubles with 17 digits: sslat import rebuilds the same\n"
                   "container); CSV has one row per block x candidate; --enot writes ENOT's pickle\n"
                   "(latency_type, constant_latency, operations_latencies; plain floats) and needs -o.\n"
                   "OUT defaults to stdout.\n");
            return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 1 != argc || !format || (format == OPT_ENOT && !strcmp(output, "-"))) {
        fprintf(stderr, "sslat export: expects a container file and --json, --csv or --enot -o OUT.pkl\n");
        return CLI_BAD_INPUT;
    }
    sslat_container *c = NULL;
    int code = cli_load_container(argv[optind], &c);
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

/* Read a whole (bounded) file; NULL with a message on failure. */
static char *read_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        return NULL;
    }
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 65536 > size) {
            size = size ? size * 2 : 1 << 20;
            char *grown = size <= (256u << 20) ? realloc(text, size) : NULL;
            if (!grown) {
                fprintf(stderr, "sslat: %s: too large or out of memory\n", path);
                free(text);
                fclose(file);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + used, 1, size - used, file);
        used += got;
        if (got == 0) break;
    }
    fclose(file);
    *length = used;
    return text;
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
    size_t used = 0;
    char *text = read_file(argv[optind], &used);
    if (!text) return CLI_FAILURE;
    sslat_container *c = NULL;
    sslat_error err;
    sslat_status status = sslat_container_import_json(text, used, &c, &err);
    free(text);
    if (status == SSLAT_OK) status = sslat_container_save_to_file(c, output, &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import: %s: %s\n", argv[optind], err.message);
    sslat_container_free(c);
    return cli_exit_code(status);
}

int cmd_import_enot(int argc, char **argv)
{
    enum { OPT_SPACE = 2001 };
    static const struct option LONG[] = {{"output", required_argument, NULL, 'o'},
                                         {"space", required_argument, NULL, OPT_SPACE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL;
    cli_space_args space_args = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (opt == 'o') output = optarg;
        else if (opt == OPT_SPACE) space_args.path = optarg;
        else if (opt == 'h') {
            printf("usage: sslat import-enot FILE.pkl -o OUT.sslat [--space SPACE]\n\n"
                   "Reads an ENOT latency pickle (a dict of latency_type, constant_latency and\n"
                   "operations_latencies; floats or numpy float64) with a strict reader that runs no\n"
                   "code. --space binds the table to its search space (names, hash) after checking\n"
                   "that the blocks and candidates match.\n");
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    if (optind + 1 != argc || !output) {
        fprintf(stderr, "sslat import-enot: expects FILE.pkl and -o OUT.sslat\n");
        return CLI_BAD_INPUT;
    }
    size_t length = 0;
    char *bytes = read_file(argv[optind], &length);
    if (!bytes) return CLI_FAILURE;
    sslat_container *c = NULL;
    sslat_space *space = NULL;
    sslat_error err;
    sslat_status status = sslat_container_import_enot((const uint8_t *)bytes, length, &c, &err);
    free(bytes);
    int code = status == SSLAT_OK ? CLI_OK : cli_exit_code(status);
    if (status != SSLAT_OK) fprintf(stderr, "sslat import-enot: %s: %s\n", argv[optind], err.message);
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
