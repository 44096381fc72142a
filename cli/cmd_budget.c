/* sslat budget: how many architectures fit a latency budget, and the one that
 * maximises a second table (e.g. MACs) within it. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/limits.h"
#include "cli/cli.h"
#include "stats/stats.h"

static void budget_usage(void)
{
    printf("usage: sslat budget FILE --limit L [--maximize VALUE.sslat] [--bins B] [--json]\n\n"
           "Counts the architectures whose latency is at most L (bracketed: exact on a grid),\n"
           "and with --maximize finds the architecture with the largest total in VALUE (a\n"
           "table of the same space, e.g. MACs) within L: a multiple-choice knapsack on a grid\n"
           "of B steps (default %d). The answer always fits L and is at least as good as\n"
           "any architecture within L - slack (printed).\n", SSLAT_BUDGET_DEFAULT_BINS);
}

int cmd_budget(int argc, char **argv)
{
    enum { OPT_LIMIT = 2001, OPT_MAXIMIZE, OPT_BINS, OPT_JSON };
    static const struct option LONG[] = {{"limit", required_argument, NULL, OPT_LIMIT},
                                         {"maximize", required_argument, NULL, OPT_MAXIMIZE},
                                         {"bins", required_argument, NULL, OPT_BINS},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *maximize = NULL;
    double limit = NAN;
    int32_t bins = 0;
    bool json = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        char *end = NULL;
        switch (opt) {
        case OPT_LIMIT:
            limit = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(limit)) {
                fprintf(stderr, "sslat budget: --limit needs a number, got '%s'\n", optarg);
                return CLI_BAD_INPUT;
            }
            break;
        case OPT_MAXIMIZE: maximize = optarg; break;
        case OPT_BINS: if (!cli_parse_int(optarg, "--bins", 16, 1 << 22, &bins)) return CLI_BAD_INPUT; break;
        case OPT_JSON: json = true; break;
        case 'h': budget_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 1 != argc || isnan(limit)) {
        fprintf(stderr, "sslat budget: expects a container file and --limit L\n");
        return CLI_BAD_INPUT;
    }
    sslat_container *c = NULL, *value = NULL;
    int code = cli_load_container(argv[optind], &c);
    if (code == CLI_OK && maximize) code = cli_load_container(maximize, &value);
    sslat_error err;
    double low = 0, high = 0;
    sslat_distribution_options grid = {0};
    sslat_status status = SSLAT_OK;
    if (code == CLI_OK) status = sslat_count_under_budget(c, limit, &grid, &low, &high, &err);
    static int32_t arch[SSLAT_MAX_LAYERS];
    sslat_budget_result best = {0, 0, 0};
    if (code == CLI_OK && status == SSLAT_OK && value)
        status = sslat_budget_maximize(c, value, limit, bins, arch, SSLAT_MAX_LAYERS, &best, &err);
    if (code == CLI_OK && status != SSLAT_OK) {
        fprintf(stderr, "sslat budget: %s\n", err.message);
        code = cli_exit_code(status);
    }
    if (code == CLI_OK) {
        int32_t blocks = sslat_container_block_count(c);
        const char *unit = sslat_container_unit(c);
        if (json) {
            json_t *root = json_pack("{s:f, s:s, s:o, s:o}", "limit", limit, "unit", unit,
                                     "count_low", cli_json_number(low), "count_high", cli_json_number(high));
            if (root && (!isfinite(low) || !isfinite(high)))
                json_object_set_new(root, "overflow", json_pack("[s, s]", "count_low", "count_high"));
            if (value) {
                json_t *a = json_array();
                for (int32_t b = 0; b < blocks; b++) json_array_append_new(a, json_integer(arch[b]));
                json_object_set_new(root, "best", json_pack("{s:o, s:f, s:f, s:s, s:f}", "arch", a,
                                                            "latency", best.latency, "value", best.value,
                                                            "value_unit", sslat_container_unit(value),
                                                            "grid_slack", best.grid_slack));
            }
            code = cli_print_json(root);
        } else {
            printf("limit          %.6g %s\n", limit, unit);
            if (isfinite(low) && isfinite(high))
                printf("architectures  %.6g to %.6g fit (exact on a grid; the true count is in between)\n", low, high);
            else
                printf("architectures  more than a double holds fit (the count overflows)\n");
            if (value) {
                printf("best by %-6s %.6g %s at %.6g %s (grid slack %.3g %s)\narch           ",
                       sslat_container_latency_type(value), best.value, sslat_container_unit(value),
                       best.latency, unit, best.grid_slack, unit);
                cli_print_arch(stdout, arch, blocks);
                printf("\n");
            }
        }
    }
    sslat_container_free(value);
    sslat_container_free(c);
    return code;
}
