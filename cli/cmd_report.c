/* sslat report: a latency table as one self-contained HTML page. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "stats/fits.h"
#include "stats/stats.h"


static void report_usage(void)
{
    printf("usage: sslat report LAT.sslat [--space SPACE] [--mac MAC.sslat] [--value VALUE.sslat]\n"
           "                    [--validation V.json] [--arch 0,3,1] [--samples N] [--seed S] -o report.html\n\n"
           "One HTML file, self-contained (inline SVG, no script, no network), that prints or saves as\n"
           "PDF cleanly: how the table was made (calculator, device, threads, cache mode, quality and\n"
           "noise, drift, fallbacks; a warning when the verdict is noisy or disturbed), a heat map of\n"
           "latency per block x candidate labelled on its axes and hatched where entries are noisy,\n"
           "the histogram and CDF of N random architectures (default 20000) with min, median, max and\n"
           "the current architecture marked, MACs vs latency with their rank correlation (--mac: a MAC\n"
           "table of the same space), the Pareto front of latency against --value (default: --mac)\n"
           "with its points' candidates, and predicted vs measured with labelled points (--validation:\n"
           "the output of sslat validate --json). The current architecture is --arch, else the\n"
           "space's \"arch\" (--space).\n");
}

/* A second table (--mac, --value) of the latency table's space, or a refusal naming both. */
static int load_second_table(const char *path, const char *option, const sslat_container *table,
                             sslat_container **out)
{
    int code = cli_load_container(path, out);
    sslat_error err;
    if (code == CLI_OK && sslat_check_table_pair(table, *out, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat report: %s %s is a table of space '%s', not of the latency table's '%s': %s\n",
                option, path, sslat_container_space_name(*out), sslat_container_space_name(table), err.message);
        code = CLI_BAD_INPUT;
    }
    return code;
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_SPACE = 3001, OPT_MAC, OPT_VALUE, OPT_VALIDATION, OPT_ARCH, OPT_SAMPLES, OPT_SEED };
    static const struct option LONG[] = {
        {"space", required_argument, NULL, OPT_SPACE},     {"mac", required_argument, NULL, OPT_MAC},
        {"value", required_argument, NULL, OPT_VALUE},
        {"validation", required_argument, NULL, OPT_VALIDATION}, {"arch", required_argument, NULL, OPT_ARCH},
        {"samples", required_argument, NULL, OPT_SAMPLES}, {"seed", required_argument, NULL, OPT_SEED},
        {"output", required_argument, NULL, 'o'},          {"help", no_argument, NULL, 'h'},
        CLI_SPACE_LONG_OPTIONS,                             {NULL, 0, NULL, 0}};
    cli_space_args space_options = {0};
    int option_code = CLI_OK;
    const char *space_path = NULL, *mac_path = NULL, *value_path = NULL, *validation_path = NULL,
               *arch_text = NULL, *output = NULL;
    int32_t samples = 20000, seed = 1;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (cli_space_option(opt, optarg, &space_options, &option_code)) {
            if (option_code) return option_code;
            continue;
        }
        switch (opt) {
        case OPT_SPACE: if (!cli_set_once(&space_path, optarg, "report", "--space")) return CLI_BAD_INPUT; break;
        case OPT_MAC: if (!cli_set_once(&mac_path, optarg, "report", "--mac")) return CLI_BAD_INPUT; break;
        case OPT_VALUE: if (!cli_set_once(&value_path, optarg, "report", "--value")) return CLI_BAD_INPUT; break;
        case OPT_VALIDATION: if (!cli_set_once(&validation_path, optarg, "report", "--validation")) return CLI_BAD_INPUT; break;
        case OPT_ARCH: if (!cli_set_once(&arch_text, optarg, "report", "--arch")) return CLI_BAD_INPUT; break;
        case OPT_SAMPLES: if (!cli_parse_int(optarg, "--samples", 10, 10000000, &samples)) return CLI_BAD_INPUT; break;
        case OPT_SEED: if (!cli_parse_int(optarg, "--seed", 0, INT32_MAX, &seed)) return CLI_BAD_INPUT; break;
        case 'o': if (!cli_set_once(&output, optarg, "report", "-o")) return CLI_BAD_INPUT; break;
        case 'h': report_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 1 != argc || !output) {
        fprintf(stderr, "sslat report: expects one table and -o report.html (sslat report --help)\n");
        return CLI_BAD_INPUT;
    }
    const char *inputs[] = {argv[optind], space_path, mac_path, value_path, validation_path};
    int code = cli_check_paths("report", inputs, 5, &output, 1);
    if (code != CLI_OK) return code;
    sslat_report_options options = {0};
    options.table_name = argv[optind];
    options.samples = samples;
    options.seed = (uint64_t)seed;
    sslat_container *table = NULL, *mac = NULL, *value = NULL;
    sslat_space *space = NULL;
    char *validation = NULL;
    int32_t *arch = NULL;
    sslat_error err;
    code = cli_load_container(argv[optind], &table);
    if (code == CLI_OK && space_path) {
        cli_space_args args = {space_path, space_options.options};
        code = cli_load_space(&args, &space);
        if (code == CLI_OK && sslat_table_fits_space(table, space, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: %s and %s: %s\n", space_path, argv[optind], err.message);
            code = CLI_BAD_INPUT;
        }
    }
    if (code == CLI_OK && mac_path) code = load_second_table(mac_path, "--mac", table, &mac);
    if (code == CLI_OK && value_path) code = load_second_table(value_path, "--value", table, &value);
    size_t size = 0;
    if (code == CLI_OK && validation_path &&
        sslat_read_file(validation_path, SSLAT_MAX_CONTAINER_BYTES, &validation, &size, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat report: %s\n", err.message);
        code = CLI_FAILURE;
    }
    int32_t blocks = table ? sslat_container_block_count(table) : 0;
    if (code == CLI_OK && arch_text) {
        arch = calloc((size_t)blocks + 1, sizeof *arch);
        int32_t length = arch ? cli_parse_arch(arch_text, arch, blocks + 1) : -1;
        double check;
        if (length >= 0 && sslat_current_latency(table, arch, length, &check, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: --arch: %s\n", err.message);
            length = -1;
        }
        if (length < 0) code = CLI_BAD_INPUT;
        options.arch = arch;
        options.arch_length = length;
    }
    if (code == CLI_OK) {
        options.space = space, options.mac = mac, options.value = value;
        options.validation_json = validation, options.validation_name = validation_path;
        char *html = NULL;
        if (sslat_report_html(table, &options, &html, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: %s: %s\n", argv[optind], err.message);
            code = cli_exit_code(err.status);
        } else {
            code = cli_write_text(output, html, "report");
        }
        sslat_free(html);
    }
    free(arch);
    free(validation);
    sslat_container_free(value);
    sslat_container_free(mac);
    sslat_space_free(space);
    sslat_container_free(table);
    return code;
}
