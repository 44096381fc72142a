/* sslat arch: one architecture's latency with its per-block breakdown. */
#include <getopt.h>
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

int cmd_arch(int argc, char **argv)
{
    static const struct option LONG[] = {{"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    bool json = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        if (opt == 'j') json = true;
        else if (opt == 'h') {
            arch_usage();
            return CLI_OK;
        } else return CLI_BAD_INPUT;
    }
    if (optind + 2 != argc) {
        fprintf(stderr, "sslat arch: expects a container file and an architecture (sslat arch --help)\n");
        return CLI_BAD_INPUT;
    }
    static int32_t arch[SSLAT_MAX_LAYERS];
    int32_t length = cli_parse_arch(argv[optind + 1], arch, SSLAT_MAX_LAYERS);
    if (length < 0) return CLI_BAD_INPUT;
    sslat_container *c = NULL;
    int code = cli_load_container(argv[optind], &c);
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
            printf("%-6d %-18s %-5d %-26s %14.6g\n", b, sslat_container_block_name(c, b), arch[b],
                   sslat_container_candidate_label(c, b, arch[b]), sslat_container_latency(c, b, arch[b]));
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
