/* sslat pareto: the architectures no other beats on both latency and a second
 * table (MACs, parameters, an accuracy predictor's additive scores). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/arch_list.h"
#include "cli/cli.h"
#include "table/describe.h"

static void pareto_usage(void)
{
    printf("usage: sslat pareto LATENCY.sslat VALUE.sslat [--points N] [--json | --csv]\n\n"
           "The Pareto front of (latency, lower is better) against VALUE's total (higher is better)\n"
           "over every architecture of the space: each point an architecture no other is both\n"
           "faster than and better than. VALUE is a table of the same space: MACs (measure -c mac),\n"
           "or any per-candidate score (sslat import of a JSON export you filled in).\n"
           "Exact; a front past the memory limits (millions of points over all blocks) is thinned\n"
           "on a latency grid, and then the bound is printed. --points N shows N points spread\n"
           "evenly in latency (for each of N budgets from the fastest to the best-valued, the best\n"
           "architecture within it); default: the whole front. Every output says what a figure\n"
           "means: timed tables are per sample (a batch's time divided by its size), MAC tables\n"
           "count the whole batch.\n");
}

int cmd_pareto(int argc, char **argv)
{
    enum { OPT_POINTS = 2101, OPT_JSON, OPT_CSV };
    static const struct option LONG[] = {{"points", required_argument, NULL, OPT_POINTS},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"csv", no_argument, NULL, OPT_CSV},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int32_t points = 0;
    bool points_given = false;
    cli_list_format format = CLI_LIST_TEXT;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        switch (opt) {
        case OPT_POINTS:
            if (points_given) {
                fprintf(stderr, "sslat pareto: --points given twice\n");
                return CLI_BAD_INPUT;
            }
            if (!cli_parse_int(optarg, "--points", 2, 1000000, &points)) return CLI_BAD_INPUT;
            points_given = true;
            break;
        case OPT_JSON:
        case OPT_CSV:
            if (!cli_set_list_format(&format, opt == OPT_JSON ? CLI_LIST_JSON : CLI_LIST_CSV, "pareto")) return CLI_BAD_INPUT;
            break;
        case 'h': pareto_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 2 != argc) {
        fprintf(stderr, "sslat pareto: expects a latency table and a value table (sslat pareto --help)\n");
        return CLI_BAD_INPUT;
    }
    sslat_container *latency = NULL, *value = NULL;
    int code = cli_load_container(argv[optind], &latency);
    if (code == CLI_OK) code = cli_load_container(argv[optind + 1], &value);
    sslat_pareto_front *front = NULL;
    sslat_error err;
    if (code == CLI_OK && sslat_pareto_compute(latency, value, points, &front, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat pareto: %s and %s: %s\n", argv[optind], argv[optind + 1], err.message);
        code = cli_exit_code(err.status);
    }
    int32_t n = front ? sslat_pareto_size(front) : 0, blocks = latency ? sslat_container_block_count(latency) : 0;
    cli_arch_point *list = calloc((size_t)n + 1, sizeof *list);
    int32_t *archs = calloc((size_t)n * (size_t)blocks + 1, sizeof *archs);
    if (code == CLI_OK && (!list || !archs)) {
        fprintf(stderr, "sslat pareto: out of memory\n");
        code = CLI_FAILURE;
    }
    for (int32_t i = 0; code == CLI_OK && i < n; i++) {
        list[i].arch = &archs[(size_t)i * (size_t)blocks];
        sslat_pareto_point(front, i, &archs[(size_t)i * (size_t)blocks], blocks, &list[i].latency, &list[i].value, NULL);
    }
    if (code == CLI_OK) {
        double slack = sslat_pareto_slack(front);
        long long whole = (long long)sslat_pareto_front_size(front);
        char meaning[160], value_meaning[160];
        sslat_table_unit_meaning(latency, meaning, sizeof meaning);
        sslat_table_unit_meaning(value, value_meaning, sizeof value_meaning);
        if (format == CLI_LIST_JSON) {
            json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:f, s:o}", "space",
                                     sslat_container_space_name(latency), "latency_meaning", meaning, "value_type",
                                     sslat_container_latency_type(value), "value_unit", sslat_container_unit(value),
                                     "value_meaning", value_meaning, "front_size", (json_int_t)whole, "exact",
                                     slack == 0, "slack", slack, "points", cli_arch_list_json(latency, list, n));
            code = cli_print_json(root);
        } else if (format == CLI_LIST_CSV) {
            cli_arch_list_csv(stdout, latency, value, list, n);
        } else {
            printf("Pareto front of '%s': latency (lower is better) against %s (higher is better)\n",
                   sslat_container_space_name(latency), sslat_container_latency_type(value));
            printf("latency in %s; %s in %s\n", meaning, sslat_container_latency_type(value), value_meaning);
            if (slack == 0)
                printf("exact: %lld points on the front%s\n", whole, n < whole ? "" : ", all shown");
            else
                printf("thinned on a latency grid to %lld points (the exact front passed the memory limits): any "
                       "architecture is matched by a point of this front with at least its value and at most %.3g %s "
                       "more latency\n", whole, slack, sslat_container_unit(latency));
            if (n < whole) printf("showing %d of them, spread evenly in latency (--points)\n", n);
            cli_arch_list_text(stdout, latency, value, list, n);
        }
    }
    free(list);
    free(archs);
    sslat_pareto_free(front);
    sslat_container_free(value);
    sslat_container_free(latency);
    return code;
}
