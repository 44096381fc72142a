/* sslat measure: run a calculator over a space and write the values as JSON
 * (the binary container replaces this output in the container issue). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "calculator.h"
#include "cli.h"
#include "error.h"
#include "space.h"

static json_t *values_json(const sslat_calculator *calculator, const sslat_space *space,
                           const char *ignore, double constant, const double *per_op)
{
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)space->hash);
    json_t *blocks = json_array(), *latencies = json_array();
    size_t at = 0;
    for (int32_t b = 0; b < space->n_blocks; b++) {
        const sslat_layer *layer = sslat_space_block_layer(space, b);
        json_t *labels = json_array(), *values = json_array();
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            json_array_append_new(labels, json_string(layer->candidates[c].label));
            json_array_append_new(values, json_real(per_op[at++]));
        }
        json_array_append_new(latencies, values);
        json_array_append_new(blocks, json_pack("{s:s, s:o}", "name", layer->name, "candidates",
                                                labels));
    }
    return json_pack("{s:i, s:s, s:s, s:s, s:{s:s, s:s, s:[i,i,i,i]}, s:i, s:o, s:f, s:o, s:o}",
                     "sslat_values", 1, "tool_version", sslat_version(), "latency_type",
                     calculator->name, "unit", calculator->unit, "space", "name", space->name,
                     "hash", hash, "input", space->input.n, space->input.c, space->input.h,
                     space->input.w, "batch", space->input.n, "ignore",
                     ignore ? json_string(ignore) : json_null(), "constant_latency", constant,
                     "operations_latencies", latencies, "blocks", blocks);
}

static void measure_usage(void)
{
    printf("usage: sslat measure [SPACE] [-c TYPE] [-o FILE] [options]\n\n"
           "Computes the constant part and one value per candidate of every NAS block and\n"
           "writes them as JSON (to FILE atomically, or to standard output).\n\n" CLI_SPACE_HELP
           "  -c, --calculator T latency type (sslat calculators lists them); default: the best\n"
           "                     one that can run here\n"
           "  -o, --output FILE  write the JSON there (temp file + rename)\n"
           "  --ignore LIST      op kinds or activations left out (analytic calculators)\n"
           "  -h, --help         this help\n");
}

static const sslat_calculator *best_available(void)
{
    const char *const *names = NULL;
    int32_t count = sslat_available_calculators(&names);
    return count > 0 ? sslat_calculator_find(names[count - 1]) : NULL;
}

int cmd_measure(int argc, char **argv)
{
    enum { OPT_IGNORE = 2001 };
    static const struct option LONG[] = {{"calculator", required_argument, NULL, 'c'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"ignore", required_argument, NULL, OPT_IGNORE},
                                         {"help", no_argument, NULL, 'h'},
                                         CLI_SPACE_LONG_OPTIONS,
                                         {NULL, 0, NULL, 0}};
    cli_space_args args = {0};
    const char *type = NULL, *output = NULL, *ignore = NULL;
    int opt, code = CLI_OK;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "c:o:h", LONG, NULL)) != -1) {
        if (cli_space_option(opt, optarg, &args, &code)) {
            if (code) return code;
            continue;
        }
        switch (opt) {
        case 'c': type = optarg; break;
        case 'o': output = optarg; break;
        case OPT_IGNORE: ignore = optarg; break;
        case 'h': measure_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind < argc) args.path = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "sslat measure: unexpected argument '%s'\n", argv[optind]);
        return CLI_BAD_INPUT;
    }

    const sslat_calculator *calculator = type ? sslat_calculator_find(type) : best_available();
    if (!calculator) {
        fprintf(stderr, "sslat measure: unknown calculator '%s' (sslat calculators lists them)\n",
                type ? type : "");
        return CLI_BAD_INPUT;
    }
    if (!type)
        fprintf(stderr, "sslat measure: calculator %s (the best available here; sslat calculators "
                        "says why others are not)\n", calculator->name);
    sslat_calc_options options;
    sslat_error err;
    if (sslat_ignore_parse(ignore, &options.ignore, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat measure: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    sslat_space *space = NULL;
    code = cli_load_space(&args, &space);
    if (code != CLI_OK) return code;

    size_t total = sslat_space_total_candidates(space);
    double constant = 0.0, *per_op = calloc(total ? total : 1, sizeof *per_op);
    sslat_status status = per_op ? sslat_calculate_space(calculator, space, &options, &constant,
                                                         per_op, total, &err)
                                 : sslat_fail(&err, SSLAT_ERR_NOMEM, "out of memory");
    char *text = NULL;
    if (status == SSLAT_OK) {
        json_t *root = values_json(calculator, space, ignore, constant, per_op);
        text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
        json_decref(root);
        if (!text) status = sslat_fail(&err, SSLAT_ERR_NOMEM, "out of memory writing JSON");
    }
    if (status == SSLAT_OK && output) {
        status = sslat_write_file_atomic(output, text, strlen(text), &err);
        if (status == SSLAT_OK)
            fprintf(stderr, "sslat measure: wrote %s (%s, %s, %d blocks, %zu candidates)\n",
                    output, calculator->name, space->name, space->n_blocks, total);
    } else if (status == SSLAT_OK) {
        printf("%s\n", text);
    }
    if (status != SSLAT_OK) fprintf(stderr, "sslat measure: %s\n", err.message);
    free(text);
    free(per_op);
    sslat_space_free(space);
    return cli_exit_code(status);
}
