/* sslat stats: every statistic of a container over its search space. */
#include <inttypes.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"
#include "base/error.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "table/describe.h"
#include "stats/fits.h"
#include "stats/stats.h"
#include "table/container.h"

static const double QUANTILES[] = {0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
enum { N_QUANTILES = sizeof QUANTILES / sizeof QUANTILES[0] };

typedef struct stats_report {
    double min, max, mean, median_sampled;
    double quantile[N_QUANTILES], bound[N_QUANTILES];
    int32_t argmin[SSLAT_MAX_LAYERS], argmax[SSLAT_MAX_LAYERS];
    bool has_current;
    double current;
    int32_t arch[SSLAT_MAX_LAYERS];
    char architectures[16384]; /* exact, in decimal (3^768 has 367 digits) */
} stats_report;

static sslat_status compute(const sslat_container *c, const sslat_space *space, size_t n,
                            uint64_t seed, int32_t bins, stats_report *r, sslat_error *err)
{
    sslat_distribution_options grid = {bins};
    int32_t blocks = sslat_container_block_count(c);
    sslat_status s = sslat_min_latency(c, &r->min, err);
    if (s == SSLAT_OK) s = sslat_max_latency(c, &r->max, err);
    if (s == SSLAT_OK) s = sslat_mean_latency(c, &r->mean, err);
    if (s == SSLAT_OK) s = sslat_median_latency(c, n, seed, &r->median_sampled, err);
    if (s == SSLAT_OK) s = sslat_argmin_arch(c, r->argmin, SSLAT_MAX_LAYERS, err);
    if (s == SSLAT_OK) s = sslat_argmax_arch(c, r->argmax, SSLAT_MAX_LAYERS, err);
    for (int q = 0; s == SSLAT_OK && q < N_QUANTILES; q++)
        s = sslat_latency_quantile(c, QUANTILES[q], &grid, &r->quantile[q], &r->bound[q], err);
    int32_t counts[SSLAT_MAX_LAYERS];
    for (int32_t b = 0; b < blocks && b < SSLAT_MAX_LAYERS; b++) counts[b] = sslat_container_candidate_count(c, b);
    sslat_product_string(counts, (size_t)blocks, r->architectures, sizeof r->architectures);
    r->has_current = false;
    if (s == SSLAT_OK && space && (s = sslat_table_fits_space(c, space, err)) != SSLAT_OK)
        sslat_error_prefix(err, "refusing statistics: ");
    if (s == SSLAT_OK && space && sslat_space_arch(space, r->arch, SSLAT_MAX_LAYERS) > 0) {
        s = sslat_best_arch_latency(c, space, &r->current, err);
        r->has_current = s == SSLAT_OK;
    }
    return s;
}

static json_t *arch_json(const int32_t *arch, int32_t length)
{
    json_t *a = json_array();
    for (int32_t b = 0; b < length; b++) json_array_append_new(a, json_integer(arch[b]));
    return a;
}

/* A figure for JSON (null when it is not finite), and its name in the
 * "overflow" list then: a sum past a double is said, never printed as a number. */
static json_t *figure(const char *name, double v, json_t *overflow)
{
    if (!isfinite(v)) json_array_append_new(overflow, json_string(name));
    return cli_json_number(v);
}

static int print_json(const sslat_container *c, const stats_report *r, size_t n, uint64_t seed)
{
    int32_t blocks = sslat_container_block_count(c);
    json_t *overflow = json_array(), *quantiles = json_array();
    char name[32];
    for (int q = 0; q < N_QUANTILES; q++) {
        snprintf(name, sizeof name, "p%g", QUANTILES[q] * 100);
        json_array_append_new(quantiles, json_pack("{s:f, s:o, s:o}", "p", QUANTILES[q], "latency",
                                                   figure(name, r->quantile[q], overflow), "bound",
                                                   cli_json_number(r->bound[q])));
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:o, s:{s:o, s:I, s:I}, s:o, s:o, s:o}",
                             "latency_type", sslat_container_latency_type(c), "unit",
                             sslat_container_unit(c), "space", sslat_container_space_name(c),
                             "blocks", blocks, "architectures", r->architectures, "min",
                             figure("min", r->min, overflow), "max", figure("max", r->max, overflow), "mean",
                             figure("mean", r->mean, overflow), "median_sampled", "value",
                             figure("median_sampled", r->median_sampled, overflow), "n", (json_int_t)n, "seed",
                             (json_int_t)seed, "quantiles", quantiles, "argmin", arch_json(r->argmin, blocks),
                             "argmax", arch_json(r->argmax, blocks));
    if (root && r->has_current) {
        json_object_set_new(root, "current", figure("current", r->current, overflow));
        json_object_set_new(root, "current_arch", arch_json(r->arch, blocks));
    }
    if (root) json_object_set_new(root, "value_name", json_string(sslat_container_value_name(c)));
    char predicts[1400];
    const char *runtime = NULL;
    sslat_table_predicts_text(c, predicts, sizeof predicts, &runtime);
    if (root && predicts[0])
        json_object_set_new(root, "predicts", json_pack("{s:s, s:s}", "runtime", runtime, "description", predicts));
    if (root && sslat_table_calibrated_to(c)) {
        const char *keys[] = {"context.quality.verdict", "context.quality.cause", "context.cv_relative_rms",
                              "context.enough", "context.swaps"};
        const char *names[] = {"reference_quality", "reference_quality_cause", "cv_relative_rms", "enough", "swaps"};
        json_t *fit = json_object();
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            const char *value = sslat_container_metadata(c, keys[i]);
            json_object_set_new(fit, names[i], value ? json_string(value) : json_null());
        }
        json_object_set_new(root, "fit", fit);
    }
    const char *verdict = sslat_container_metadata(c, "quality.verdict");
    if (root && verdict) {
        const char *cause = sslat_container_metadata(c, "quality.cause");
        const char *cov = sslat_container_metadata(c, "quality.cov_median");
        json_object_set_new(root, "quality", json_pack("{s:s, s:s, s:o}", "verdict", verdict, "cause",
                                                       cause ? cause : "", "cov_median",
                                                       cli_json_number(cov ? strtod(cov, NULL) : NAN)));
    }
    if (root && json_array_size(overflow)) json_object_set(root, "overflow", overflow);
    json_decref(overflow);
    return cli_print_json(root);
}

/* "%.6g", or "overflow" for what is not finite. */
static const char *text_of(double v, char *buffer, size_t size)
{
    if (isfinite(v)) snprintf(buffer, size, "%.6g", v);
    else snprintf(buffer, size, "overflow (the sum exceeds a double)");
    return buffer;
}

static void print_text(const sslat_container *c, const stats_report *r, size_t n, uint64_t seed,
                       int32_t bins)
{
    int32_t blocks = sslat_container_block_count(c);
    const char *unit = sslat_container_unit(c);
    char a[64], b[64];
    if (sslat_container_space_hash(c) != 0)
        printf("table         %s (%s)%s, space %s (hash %016" PRIx64 "), batch %d\n", sslat_container_value_name(c),
               unit, strcmp(sslat_container_latency_type(c), "value") ? "" : ", a value table",
               cli_text(sslat_container_space_name(c)),
               sslat_container_space_hash(c), sslat_container_batch(c));
    else /* an imported ENOT table knows none of it */
        printf("table         %s (%s), space %s, batch unknown\n", sslat_container_latency_type(c), unit,
               cli_text(sslat_container_space_title(c)));
    char method[256], quality[1400];
    sslat_table_method_text(c, method, sizeof method);
    sslat_table_quality_text(c, quality, sizeof quality);
    if (method[0]) printf("measured      %s\n", method);
    char predicts[1400];
    sslat_table_predicts_text(c, predicts, sizeof predicts, NULL);
    if (predicts[0]) printf("predicts      %s\n", cli_text(predicts));
    char fit[3000];
    sslat_table_fit_text(c, "\n", fit, sizeof fit);
    /* one line per part, each escaped (the metadata is the file's) */
    for (char *line = fit[0] ? fit : NULL, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        printf("%s%s\n", line == fit ? "fit           " : "              ", cli_text(line));
    }
    if (quality[0]) printf("quality       %s\n", quality);
    printf("blocks        %d, architectures %s\n", blocks, r->architectures);
    printf("constant      %s %s\n", text_of(sslat_container_constant_latency(c), a, sizeof a), unit);
    printf("min           %s %s   argmin ", text_of(r->min, a, sizeof a), unit);
    cli_print_arch(stdout, r->argmin, blocks);
    printf("\nmax           %s %s   argmax ", text_of(r->max, a, sizeof a), unit);
    cli_print_arch(stdout, r->argmax, blocks);
    printf("\nmean          %s %s\n", text_of(r->mean, a, sizeof a), unit);
    printf("median        %s %s   (sampled: %zu random architectures, seed %" PRIu64 ")\n",
           text_of(r->median_sampled, a, sizeof a), unit, n, seed);
    printf("quantiles     exact on a %d-bin grid; the true value lies within ± bound\n",
           bins ? bins : SSLAT_DISTRIBUTION_DEFAULT_BINS);
    for (int q = 0; q < N_QUANTILES; q++)
        printf("  p%-4g       %s ± %s %s\n", QUANTILES[q] * 100, text_of(r->quantile[q], a, sizeof a),
               text_of(r->bound[q], b, sizeof b), unit);
    if (r->has_current) {
        printf("current arch  %s %s   (", text_of(r->current, a, sizeof a), unit);
        cli_print_arch(stdout, r->arch, blocks);
        printf(")\n");
    }
}

static void stats_usage(void)
{
    printf("usage: sslat stats FILE [--space SPACE] [-n N] [--seed S] [--bins B] [--json]\n\n"
           "Prints min / max / mean (constant + per-block min / max / mean), the median of N\n"
           "random architectures, exact quantiles of a random architecture's latency with\n"
           "their bound, the argmin / argmax architectures, and with --space the latency of\n"
           "the space's arch (the space must be the container's).\n\n"
           "  --space SPACE   the search-space file the table was made for\n"
           "  --batch N, --resolution R  load SPACE with the table's input (a table of a sweep)\n"
           "  -n N            random architectures for the sampled median (default 1000)\n"
           "  --seed S        their seed (default 0)\n"
           "  --bins B        grid of the exact distribution (default %d)\n"
           "  --json          machine-readable output\n", SSLAT_DISTRIBUTION_DEFAULT_BINS);
}

enum { OPT_SPACE = 2001, OPT_SEED, OPT_BINS, OPT_JSON };

typedef struct stats_args {
    cli_space_args space;
    int32_t n, bins, seed;
    bool json;
} stats_args;

static int stats_option(int opt, const char *value, void *args)
{
    stats_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code)) return code;
    switch (opt) {
    case OPT_SPACE: a->space.path = value; return CLI_OK;
    case 'n': return cli_parse_int(value, "-n", 1, 100000000, &a->n) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SEED: return cli_parse_int(value, "--seed", 0, INT32_MAX, &a->seed) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_BINS: return cli_parse_int(value, "--bins", 16, 1 << 22, &a->bins) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_JSON: a->json = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option STATS_OPTIONS[] = {
    {"space", required_argument, NULL, OPT_SPACE}, {"seed", required_argument, NULL, OPT_SEED},
    {"bins", required_argument, NULL, OPT_BINS},   {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},              CLI_SPACE_LONG_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_verb STATS = {"stats", "n:h", STATS_OPTIONS, stats_usage, stats_option, 1, 1,
                               "one container file (sslat stats --help)"};

int cmd_stats(int argc, char **argv)
{
    stats_args a = {.n = 1000};
    int first, code = cli_parse(&STATS, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    cli_space_args space_args = a.space;
    int32_t n = a.n, bins = a.bins, seed32 = a.seed;
    bool json = a.json;
    sslat_container *c = NULL;
    sslat_space *space = NULL;
    code = cli_load_container(argv[first], &c);
    if (code == CLI_OK && space_args.path) code = cli_load_space(&space_args, &space);
    stats_report *report = calloc(1, sizeof *report);
    if (code == CLI_OK && !report) code = CLI_FAILURE;
    if (code == CLI_OK) {
        sslat_error err;
        sslat_status status = compute(c, space, (size_t)n, (uint64_t)seed32, bins, report, &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat stats: %s\n", err.message);
            code = cli_exit_code(status);
        } else if (json) {
            code = print_json(c, report, (size_t)n, (uint64_t)seed32);
        } else {
            print_text(c, report, (size_t)n, (uint64_t)seed32, bins);
        }
    }
    free(report);
    sslat_space_free(space);
    sslat_container_free(c);
    return code;
}
