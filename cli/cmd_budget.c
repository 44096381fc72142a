/* sslat budget: how many architectures fit a latency budget, and the one (or
 * the k) that maximise a second table (e.g. MACs) within it. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/limits.h"
#include "cli/arch_list.h"
#include "cli/cli.h"
#include "table/describe.h"
#include "stats/stats.h"

static void budget_usage(void)
{
    printf("usage: sslat budget FILE --limit L [--maximize VALUE.sslat [--top K [--distinct]]] [--bins B] [--json | --csv]\n\n"
           "Counts the architectures whose latency is at most L (bracketed: exact on a grid),\n"
           "and with --maximize finds the architecture with the largest total in VALUE (a\n"
           "table of the same space, e.g. MACs) within L: a multiple-choice knapsack on a grid\n"
           "of B steps (default %d). The answer always fits L and is at least as good as\n"
           "any architecture within L - slack (printed). --top K lists the K best (1 to %d),\n"
           "best first, with their labels; --distinct drops an answer whose latency and value\n"
           "equal a better one's (the same blocks in another order: mirror pairs), looking\n"
           "through up to 8K answers. Timed tables are per sample (a batch's time divided by\n"
           "its size), MAC tables count the whole batch: every output says which.\n",
           SSLAT_BUDGET_DEFAULT_BINS, SSLAT_MAX_BUDGET_TOP);
}

/* The count under the limit, as text. */
static void print_count(double limit, const char *unit, double low, double high)
{
    printf("limit          %.6g %s\n", limit, unit);
    if (isfinite(low) && isfinite(high))
        printf("architectures  %.6g to %.6g fit (exact on a grid; the true count is in between)\n", low, high);
    else
        printf("architectures  more than a double holds fit (the count overflows)\n");
}

enum { OPT_LIMIT = 2001, OPT_MAXIMIZE, OPT_BINS, OPT_JSON, OPT_CSV, OPT_TOP, OPT_DISTINCT };

typedef struct budget_args {
    const char *maximize;
    double limit; /* NAN until given */
    int32_t bins, top;
    bool distinct;
    cli_list_format format;
} budget_args;

static int budget_option(int opt, const char *value, void *args)
{
    budget_args *a = args;
    char *end = NULL;
    switch (opt) {
    case OPT_LIMIT:
        if (!isnan(a->limit)) {
            fprintf(stderr, "sslat budget: --limit is given twice\n");
            return CLI_BAD_INPUT;
        }
        a->limit = strtod(value, &end);
        if (end == value || *end || !isfinite(a->limit)) {
            fprintf(stderr, "sslat budget: --limit needs a number, got '%s'\n", value);
            return CLI_BAD_INPUT;
        }
        return CLI_OK;
    case OPT_MAXIMIZE: return cli_set_once(&a->maximize, value, "budget", "--maximize") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_BINS:
    case OPT_TOP:
        if (opt == OPT_BINS ? a->bins != 0 : a->top != 0) {
            fprintf(stderr, "sslat budget: %s is given twice\n", opt == OPT_BINS ? "--bins" : "--top");
            return CLI_BAD_INPUT;
        }
        if (opt == OPT_BINS ? !cli_parse_int(value, "--bins", 16, 1 << 22, &a->bins)
                            : !cli_parse_int(value, "--top", 1, SSLAT_MAX_BUDGET_TOP, &a->top))
            return CLI_BAD_INPUT;
        return CLI_OK;
    case OPT_DISTINCT: a->distinct = true; return CLI_OK;
    case OPT_JSON:
    case OPT_CSV:
        return cli_set_list_format(&a->format, opt == OPT_JSON ? CLI_LIST_JSON : CLI_LIST_CSV, "budget") ? CLI_OK
                                                                                                         : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option BUDGET_OPTIONS[] = {{"limit", required_argument, NULL, OPT_LIMIT},
                                               {"maximize", required_argument, NULL, OPT_MAXIMIZE},
                                               {"bins", required_argument, NULL, OPT_BINS},
                                               {"top", required_argument, NULL, OPT_TOP},
                                               {"distinct", no_argument, NULL, OPT_DISTINCT},
                                               {"json", no_argument, NULL, OPT_JSON},
                                               {"csv", no_argument, NULL, OPT_CSV},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};
static const cli_verb BUDGET = {"budget", "h", BUDGET_OPTIONS, budget_usage, budget_option, 1, 1,
                                "a container file and --limit L"};

/* Two sums of the same terms in another order: equal but for rounding. */
static bool same_sum(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)); }

/* Keeps the first answer of each (latency, value) pair, at most keep of them,
 * moved to the front in order; returns how many are kept. */
static int32_t drop_ties(sslat_budget_result *results, int32_t *archs, int32_t stride, int32_t found, int32_t keep)
{
    int32_t kept = 0;
    for (int32_t i = 0; i < found && kept < keep; i++) {
        bool tie = false;
        for (int32_t j = 0; j < kept && !tie; j++)
            tie = same_sum(results[j].latency, results[i].latency) && same_sum(results[j].value, results[i].value);
        if (tie) continue;
        if (kept != i) {
            results[kept] = results[i];
            memmove(&archs[(size_t)kept * (size_t)stride], &archs[(size_t)i * (size_t)stride],
                    (size_t)stride * sizeof *archs);
        }
        kept++;
    }
    return kept;
}

int cmd_budget(int argc, char **argv)
{
    budget_args a = {.limit = NAN, .format = CLI_LIST_TEXT};
    int first, parsed = cli_parse(&BUDGET, argc, argv, &a, &first);
    if (parsed != CLI_OK) return parsed == CLI_HELP ? CLI_OK : parsed;
    if (isnan(a.limit)) return cli_expects(&BUDGET);
    const char *maximize = a.maximize, *table_path = argv[first];
    double limit = a.limit;
    int32_t bins = a.bins, top = a.top;
    cli_list_format format = a.format;
    if ((top || format == CLI_LIST_CSV) && !maximize) {
        fprintf(stderr, "sslat budget: %s lists architectures by a second table: give --maximize VALUE.sslat\n",
                top ? "--top" : "--csv");
        return CLI_BAD_INPUT;
    }
    if (a.distinct && !top) {
        fprintf(stderr, "sslat budget: --distinct drops ties from a --top K list: give --top K\n");
        return CLI_BAD_INPUT;
    }
    /* --distinct: more answers than asked for, ties dropped below */
    int32_t asked = top ? top : 1;
    int32_t wanted = a.distinct ? (asked * 8 < SSLAT_MAX_BUDGET_TOP ? asked * 8 : SSLAT_MAX_BUDGET_TOP) : asked;
    sslat_container *c = NULL, *value = NULL;
    int code = cli_load_container(table_path, &c);
    if (code == CLI_OK && maximize) code = cli_load_container(maximize, &value);
    int32_t blocks = c ? sslat_container_block_count(c) : 0, found = 0;
    int32_t *archs = calloc((size_t)wanted * (size_t)(blocks + 1), sizeof *archs);
    sslat_budget_result *results = calloc((size_t)wanted, sizeof *results);
    cli_arch_point *list = calloc((size_t)wanted, sizeof *list);
    if (code == CLI_OK && (!archs || !results || !list)) {
        fprintf(stderr, "sslat budget: out of memory\n");
        code = CLI_FAILURE;
    }
    sslat_error err;
    double low = 0, high = 0;
    sslat_distribution_options grid = {0};
    sslat_status status = SSLAT_OK;
    if (code == CLI_OK) status = sslat_count_under_budget(c, limit, &grid, &low, &high, &err);
    if (code == CLI_OK && status == SSLAT_OK && value)
        status = sslat_budget_top(c, value, limit, bins, wanted, archs, blocks + 1, results, &found, &err);
    if (code == CLI_OK && status != SSLAT_OK) {
        fprintf(stderr, "sslat budget: %s\n", err.message);
        code = cli_exit_code(status);
    }
    int32_t looked_at = found;
    if (code == CLI_OK && a.distinct) found = drop_ties(results, archs, blocks + 1, found, asked);
    if (code == CLI_OK && a.distinct && found < asked && looked_at == wanted)
        fprintf(stderr, "sslat budget: --distinct: %d distinct (latency, value) pairs among the %d best answers\n",
                found, looked_at);
    for (int32_t i = 0; i < found; i++)
        list[i] = (cli_arch_point){&archs[(size_t)i * (size_t)(blocks + 1)], results[i].latency, results[i].value};
    if (code == CLI_OK) {
        const char *unit = sslat_container_unit(c);
        char meaning[160];
        sslat_table_unit_meaning(c, meaning, sizeof meaning);
        if (format == CLI_LIST_JSON) {
            json_t *root = json_pack("{s:f, s:s, s:s, s:o, s:o}", "limit", limit, "unit", unit, "latency_meaning",
                                     meaning, "count_low", cli_json_number(low), "count_high", cli_json_number(high));
            json_t *overflow = json_array();
            if (!isfinite(low) || !isfinite(high)) {
                json_array_append_new(overflow, json_string("count_low"));
                json_array_append_new(overflow, json_string("count_high"));
            }
            cli_arch_list_overflow(list, found, overflow); /* the answers' sums (null in "top") */
            if (root && json_array_size(overflow)) json_object_set(root, "overflow", overflow);
            json_decref(overflow);
            if (value && found > 0) {
                json_object_set_new(root, "value_type", json_string(sslat_container_latency_type(value)));
                json_object_set_new(root, "value_name", json_string(sslat_container_value_name(value)));
                json_object_set_new(root, "value_unit", json_string(sslat_container_unit(value)));
                char value_meaning[160];
                sslat_table_unit_meaning(value, value_meaning, sizeof value_meaning);
                json_object_set_new(root, "value_meaning", json_string(value_meaning));
                json_object_set_new(root, "grid_slack", json_real(results[0].grid_slack));
                /* "best": the one answer (as before --top), "top": the k best */
                json_t *best = cli_arch_list_json(c, list, 1);
                json_object_set(root, "best", json_array_get(best, 0));
                json_object_set_new(json_object_get(root, "best"), "grid_slack", json_real(results[0].grid_slack));
                json_object_set_new(json_object_get(root, "best"), "value_unit", json_string(sslat_container_unit(value)));
                json_decref(best);
                if (top) json_object_set_new(root, "top", cli_arch_list_json(c, list, found));
            }
            code = cli_print_json(root);
        } else if (format == CLI_LIST_CSV) {
            cli_arch_list_csv(stdout, c, value, list, found);
        } else {
            print_count(limit, unit, low, high);
            printf("latency in     %s\n", meaning);
            cli_print_quality_note(stdout, c, "latency");
            if (value && !top) {
                printf("best by %-6s %.6g %s at %.6g %s (grid slack %.3g %s)\narch           ",
                       sslat_container_value_name(value), results[0].value, sslat_container_unit(value),
                       results[0].latency, unit, results[0].grid_slack, unit);
                cli_print_arch(stdout, archs, blocks);
                printf("\n");
            } else if (value) {
                printf("the %d best by %s within the limit (grid slack %.3g %s):\n", found,
                       sslat_container_value_name(value), results[0].grid_slack, unit);
                cli_arch_list_text(stdout, c, value, list, found);
                /* k lists per cell cost memory: past the limit the grid is coarser than asked */
                double fastest = 0;
                int32_t asked = bins ? bins : SSLAT_BUDGET_DEFAULT_BINS;
                if (found > 0 && sslat_min_latency(c, &fastest, NULL) == SSLAT_OK &&
                    /* (the search widens its room by the float resolution of the limit) */
                    results[0].grid_slack > 1.001 * blocks * (limit - fastest) / asked + 1e-12 * fabs(limit))
                    printf("note: to keep %d per grid cell within memory the grid has fewer than its %d steps; "
                           "--top with a smaller K (or --top 1) answers on a finer grid\n", top, asked);
            }
        }
    }
    free(list);
    free(results);
    free(archs);
    sslat_container_free(value);
    sslat_container_free(c);
    return code;
}
