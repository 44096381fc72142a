/* sslat arch: one architecture's latency with its per-block breakdown. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/limits.h"
#include "cli/cli.h"

static void arch_usage(void)
{
    printf("usage: sslat arch FILE ARCH [--json]\n\n"
           "ARCH is one candidate index per NAS block, comma-separated (0,3,1,...).\n"
           "Prints the constant part, each block's chosen candidate and value, and the total.\n");
}

static int arch_option(int opt, const char *value, void *args)
{
    (void)value;
    if (opt != 'j') return CLI_BAD_INPUT;
    *(bool *)args = true; /* --json */
    return CLI_OK;
}

static const struct option ARCH_OPTIONS[] = {{"json", no_argument, NULL, 'j'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
static const cli_verb ARCH = {"arch", "h", ARCH_OPTIONS, arch_usage, arch_option, 2, 2,
                              "a container file and an architecture (sslat arch --help)"};

int cmd_arch(int argc, char **argv)
{
    bool json = false;
    int first, parsed = cli_parse(&ARCH, argc, argv, &json, &first);
    if (parsed != CLI_OK) return parsed == CLI_HELP ? CLI_OK : parsed;
    const char *table_path = argv[first], *arch_text = argv[first + 1];
    static int32_t arch[SSLAT_MAX_LAYERS];
    int32_t length = cli_parse_arch(arch_text, arch, SSLAT_MAX_LAYERS);
    if (length < 0) return CLI_BAD_INPUT;
    sslat_container *c = NULL;
    int code = cli_load_container(table_path, &c);
    if (code != CLI_OK) return code;
    double total = 0;
    sslat_error err;
    sslat_status status = sslat_current_latency(c, arch, length, &total, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat arch: %s\n", err.message);
        sslat_container_free(c);
        return cli_exit_code(status);
    }
    const char *unit = sslat_container_unit(c);
    if (json) {
        json_t *blocks = json_array();
        for (int32_t b = 0; b < length; b++)
            json_array_append_new(blocks, json_pack("{s:i, s:s, s:i, s:s, s:f}", "block", b, "name",
                                                    sslat_container_block_name(c, b), "candidate", arch[b],
                                                    "label", sslat_container_candidate_label(c, b, arch[b]),
                                                    "latency", sslat_container_latency(c, b, arch[b])));
        json_t *root = json_pack("{s:s, s:s, s:o, s:o, s:o}", "latency_type",
                                 sslat_container_latency_type(c), "unit", unit, "constant",
                                 cli_json_number(sslat_container_constant_latency(c)), "blocks", blocks, "total",
                                 cli_json_number(total));
        code = cli_print_json(root);
    } else {
        printf("%-6s %-18s %-5s %-26s %14s\n", "block", "name", "cand", "label", unit);
        printf("%-6s %-18s %-5s %-26s %14.6g\n", "-", "constant part", "", "",
               sslat_container_constant_latency(c));
        for (int32_t b = 0; b < length; b++)
            printf("%-6d %-18s %-5d %-26s %14.6g\n", b, cli_text(sslat_container_block_name(c, b)), arch[b],
                   cli_text(sslat_container_candidate_label(c, b, arch[b])), sslat_container_latency(c, b, arch[b]));
        if (isfinite(total)) printf("%-6s %-18s %-5s %-26s %14.6g\n", "", "total", "", "", total);
        else printf("%-6s %-18s %-5s %-26s %14s\n", "", "total", "", "", "overflow");
    }
    if (code == CLI_OK && !isfinite(total)) {
        fprintf(stderr, "sslat arch: the total overflows a double: the table's values are too large to add\n");
        code = CLI_FAILURE;
    }
    sslat_container_free(c);
    return code;
}
