/* sslat pareto: the architectures no other beats on both latency and a second
 * table (MACs, parameters, an accuracy predictor's additive scores). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/arch_list.h"
#include "cli/cli.h"
#include "stats/stats.h"
#include "table/describe.h"

static void pareto_usage(void)
{
    printf("usage: sslat pareto LATENCY.sslat VALUE.sslat [--points N] [--json | --csv]\n\n"
           "The Pareto front of (latency, lower is better) against VALUE's total (higher is better)\n"
           "over every architecture of the space: each point an architecture no other is both\n"
           "faster than and better than. VALUE is a table of the same space: MACs (measure -c mac),\n"
           "or your own per-candidate values with a name and a unit (sslat import --values), which\n"
           "then label the output.\n"
           "Exact; a front past the memory limits (millions of points over all blocks) is thinned\n"
           "on a latency grid, and then the bound is printed. --points N shows N points spread\n"
           "evenly in latency (for each of N budgets from the fastest to the best-valued, the best\n"
           "architecture within it); default: the whole front. Every output says what a figure\n"
           "means: timed tables are per sample (a batch's time divided by its size), MAC tables\n"
           "count the whole batch.\n");
}

enum { OPT_POINTS = 2101, OPT_JSON, OPT_CSV };

typedef struct pareto_args {
    int32_t points; /* 0: the whole front */
    bool points_given;
    cli_list_format format;
} pareto_args;

static int pareto_option(int opt, const char *value, void *args)
{
    pareto_args *a = args;
    switch (opt) {
    case OPT_POINTS:
        if (a->points_given) {
            fprintf(stderr, "sslat pareto: --points given twice\n");
            return CLI_BAD_INPUT;
        }
        a->points_given = true;
        return cli_parse_int(value, "--points", 2, 1000000, &a->points) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_JSON:
    case OPT_CSV:
        return cli_set_list_format(&a->format, opt == OPT_JSON ? CLI_LIST_JSON : CLI_LIST_CSV, "pareto") ? CLI_OK
                                                                                                         : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option PARETO_OPTIONS[] = {{"points", required_argument, NULL, OPT_POINTS},
                                               {"json", no_argument, NULL, OPT_JSON},
                                               {"csv", no_argument, NULL, OPT_CSV},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
static const cli_verb PARETO = {"pareto", "h", PARETO_OPTIONS, pareto_usage, pareto_option, 2, 2,
                                "a latency table and a value table (sslat pareto --help)"};

int cmd_pareto(int argc, char **argv)
{
    pareto_args a = {.format = CLI_LIST_TEXT};
    int first, code = cli_parse(&PARETO, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    const char *latency_path = argv[first], *value_path = argv[first + 1];
    int32_t points = a.points;
    cli_list_format format = a.format;
    sslat_container *latency = NULL, *value = NULL;
    code = cli_load_container(latency_path, &latency);
    if (code == CLI_OK) code = cli_load_container(value_path, &value);
    sslat_pareto_front *front = NULL;
    sslat_error err;
    if (code == CLI_OK && sslat_pareto_compute(latency, value, points, &front, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat pareto: %s and %s: %s\n", latency_path, value_path, err.message);
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
            json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:f, s:b, s:o}", "space",
                                     sslat_container_space_name(latency), "latency_meaning", meaning, "value_type",
                                     sslat_container_latency_type(value), "value_name",
                                     sslat_container_value_name(value), "value_unit", sslat_container_unit(value),
                                     "value_meaning", value_meaning, "front_size", (json_int_t)whole, "exact",
                                     slack == 0, "slack", slack, "slack_exceeds_span",
                                     sslat_pareto_slack_exceeds_span(front), "points",
                                     cli_arch_list_json(latency, list, n));
            /* sums past a double are null in points: said by name, as stats does */
            json_t *overflow = json_array();
            cli_arch_list_overflow(list, n, overflow);
            if (root && json_array_size(overflow)) json_object_set(root, "overflow", overflow);
            json_decref(overflow);
            code = cli_print_json(root);
        } else if (format == CLI_LIST_CSV) {
            cli_arch_list_csv(stdout, latency, value, list, n);
        } else {
            printf("Pareto front of '%s': latency (lower is better) against %s (higher is better)\n",
                   cli_text(sslat_container_space_name(latency)), sslat_container_value_name(value));
            printf("latency in %s; %s in %s\n", meaning, sslat_container_value_name(value), value_meaning);
            cli_print_quality_note(stdout, latency, "latency");
            if (slack == 0)
                printf("exact: %lld points on the front%s\n", whole, n < whole ? "" : ", all shown");
            else
                printf("thinned on a latency grid to %lld points (the exact front passed the memory limits): any "
                       "architecture is matched by a point of this front with at least its value and at most %.3g %s "
                       "more latency\n", whole, slack, sslat_container_unit(latency));
            if (sslat_pareto_slack_exceeds_span(front))
                printf("warning: that bound is wider than the front's own span: its two ends (the fastest "
                       "architecture, the best-valued) hold, its shape between them does not (too many blocks for "
                       "an exact front)\n");
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
