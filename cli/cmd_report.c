/* sslat report: a latency table as one self-contained HTML page. */
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
    if (code == CLI_OK && sslat_container_check_complete(*out, &err) != SSLAT_OK) {
        /* its own reason (incomplete, stand-in, a part), not blamed on its space */
        fprintf(stderr, "sslat report: %s %s: %s\n", option, path, err.message);
        code = CLI_BAD_INPUT;
    } else if (code == CLI_OK && sslat_check_table_pair(table, *out, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat report: %s %s is a table of space '%s', not of the latency table's '%s': %s\n",
                option, path, cli_text(sslat_container_space_name(*out)), cli_text(sslat_container_space_name(table)),
                err.message);
        code = CLI_BAD_INPUT;
    }
    return code;
}

enum { OPT_SPACE = 3001, OPT_MAC, OPT_VALUE, OPT_VALIDATION, OPT_ARCH, OPT_SAMPLES, OPT_SEED };

typedef struct report_args {
    cli_space_args space_options; /* --batch / --resolution of --space */
    const char *space_path, *mac_path, *value_path, *validation_path, *arch_text, *output;
    int32_t samples, seed;
} report_args;

static int report_option(int opt, const char *value, void *args)
{
    report_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space_options, &code)) return code;
    bool ok;
    switch (opt) {
    case OPT_SPACE: ok = cli_set_once(&a->space_path, value, "report", "--space"); break;
    case OPT_MAC: ok = cli_set_once(&a->mac_path, value, "report", "--mac"); break;
    case OPT_VALUE: ok = cli_set_once(&a->value_path, value, "report", "--value"); break;
    case OPT_VALIDATION: ok = cli_set_once(&a->validation_path, value, "report", "--validation"); break;
    case OPT_ARCH: ok = cli_set_once(&a->arch_text, value, "report", "--arch"); break;
    case 'o': ok = cli_set_once(&a->output, value, "report", "-o"); break;
    case OPT_SAMPLES: ok = cli_parse_int(value, "--samples", 10, 10000000, &a->samples); break;
    case OPT_SEED: ok = cli_parse_int(value, "--seed", 0, INT32_MAX, &a->seed); break;
    default: ok = false;
    }
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

static const struct option REPORT_OPTIONS[] = {
    {"space", required_argument, NULL, OPT_SPACE},     {"mac", required_argument, NULL, OPT_MAC},
    {"value", required_argument, NULL, OPT_VALUE},
    {"validation", required_argument, NULL, OPT_VALIDATION}, {"arch", required_argument, NULL, OPT_ARCH},
    {"samples", required_argument, NULL, OPT_SAMPLES}, {"seed", required_argument, NULL, OPT_SEED},
    {"output", required_argument, NULL, 'o'},          {"help", no_argument, NULL, 'h'},
    CLI_SPACE_LONG_OPTIONS,                             {NULL, 0, NULL, 0}};
static const cli_verb REPORT = {"report", "o:h", REPORT_OPTIONS, report_usage, report_option, 1, 1,
                                "one table and -o report.html (sslat report --help)"};

int cmd_report(int argc, char **argv)
{
    report_args a = {.samples = 20000, .seed = 1};
    int first, code = cli_parse(&REPORT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.output) return cli_expects(&REPORT);
    const char *table_path = argv[first], *space_path = a.space_path, *mac_path = a.mac_path,
               *value_path = a.value_path, *validation_path = a.validation_path, *arch_text = a.arch_text,
               *output = a.output;
    cli_space_args space_options = a.space_options;
    int32_t samples = a.samples, seed = a.seed;
    const char *inputs[] = {table_path, space_path, mac_path, value_path, validation_path};
    code = cli_check_paths("report", inputs, 5, &output, 1);
    if (code != CLI_OK) return code;
    sslat_report_options options = SSLAT_REPORT_OPTIONS_INIT;
    options.table_name = table_path;
    options.samples = samples;
    options.seed = (uint64_t)seed;
    sslat_container *table = NULL, *mac = NULL, *value = NULL;
    sslat_space *space = NULL;
    char *validation = NULL;
    int32_t *arch = NULL;
    sslat_error err;
    code = cli_load_container(table_path, &table);
    if (code == CLI_OK && space_path) {
        cli_space_args args = {space_path, space_options.options};
        code = cli_load_space(&args, &space);
        if (code == CLI_OK && sslat_table_fits_space(table, space, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: %s and %s: %s\n", space_path, table_path, err.message);
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
            fprintf(stderr, "sslat report: %s: %s\n", table_path, err.message);
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
