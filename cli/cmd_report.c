/* sslat report: a latency table as one self-contained HTML page. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/limits.h"
#include "cli/cli.h"
#include "stats/fits.h"
#include "cli/report.h"


static void report_usage(void)
{
    printf("usage: sslat report LAT.sslat [--space SPACE] [--mac MAC.sslat] [--validation V.json]\n"
           "                    [--arch 0,3,1] [--samples N] [--seed S] -o report.html\n\n"
           "One HTML file, self-contained (inline SVG, no script, no network): the table's summary\n"
           "and metadata, a heat map of latency per block x candidate, the histogram and CDF of N\n"
           "random architectures (default 20000) with min, median, max and the current architecture\n"
           "marked, MACs vs latency with their rank correlation (--mac: a MAC table of the same\n"
           "space), and predicted vs measured (--validation: the output of sslat validate --json).\n"
           "The current architecture is --arch, else the space's \"arch\" (--space).\n");
}

/* Read `sslat validate --json` output: {"runtime", "architectures": [{label, predicted_ms, measured_ms}]}. */
static int load_validation(const char *path, report_validation_row **rows, int32_t *count, char *runtime,
                           size_t runtime_size)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        fprintf(stderr, "sslat report: %s:%d:%d: %s\n", path, jerr.line, jerr.column, jerr.text);
        return CLI_BAD_INPUT;
    }
    json_t *list = json_object_get(root, "architectures");
    size_t n = json_is_array(list) ? json_array_size(list) : 0;
    if (n == 0 || n > SSLAT_MAX_VALIDATION_ROWS) {
        fprintf(stderr, "sslat report: %s: expected \"architectures\": a list of 1..%d results "
                        "(the output of sslat validate --json)\n", path, SSLAT_MAX_VALIDATION_ROWS);
        json_decref(root);
        return CLI_BAD_INPUT;
    }
    report_validation_row *out = calloc(n, sizeof *out);
    if (!out) {
        json_decref(root);
        fprintf(stderr, "sslat report: out of memory\n");
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        json_t *p = json_object_get(item, "predicted_ms"), *m = json_object_get(item, "measured_ms");
        const char *label = json_string_value(json_object_get(item, "label"));
        const char *bad = !json_is_number(p) ? "predicted_ms" : !json_is_number(m) ? "measured_ms" : NULL;
        if (!bad && !(json_number_value(p) >= 0 && isfinite(json_number_value(p)))) bad = "predicted_ms";
        if (!bad && !(json_number_value(m) > 0 && isfinite(json_number_value(m)))) bad = "measured_ms";
        if (bad) {
            fprintf(stderr, "sslat report: %s: architectures[%zu].%s must be a finite number%s\n", path, i, bad,
                    strcmp(bad, "measured_ms") ? " >= 0" : " > 0");
            free(out);
            json_decref(root);
            return CLI_BAD_INPUT;
        }
        snprintf(out[i].label, sizeof out[i].label, "%s", label ? label : "");
        out[i].predicted = json_number_value(p);
        out[i].measured = json_number_value(m);
    }
    const char *who = json_string_value(json_object_get(root, "runtime"));
    snprintf(runtime, runtime_size, "%s", who ? who : "");
    json_decref(root);
    *rows = out;
    *count = (int32_t)n;
    return CLI_OK;
}

/* The MAC table must describe the same space as the latency table. */
static int check_same_space(const sslat_container *table, const sslat_container *mac, const char *mac_path)
{
    bool same = sslat_container_block_count(table) == sslat_container_block_count(mac) &&
                sslat_container_space_hash(table) == sslat_container_space_hash(mac);
    for (int32_t b = 0; same && b < sslat_container_block_count(table); b++)
        same = sslat_container_candidate_count(table, b) == sslat_container_candidate_count(mac, b);
    if (!same) {
        fprintf(stderr, "sslat report: %s is a table of space '%s' (hash %016llx), not of the latency "
                        "table's '%s' (hash %016llx)\n",
                mac_path, sslat_container_space_name(mac), (unsigned long long)sslat_container_space_hash(mac),
                sslat_container_space_name(table), (unsigned long long)sslat_container_space_hash(table));
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_SPACE = 3001, OPT_MAC, OPT_VALIDATION, OPT_ARCH, OPT_SAMPLES, OPT_SEED };
    static const struct option LONG[] = {
        {"space", required_argument, NULL, OPT_SPACE},     {"mac", required_argument, NULL, OPT_MAC},
        {"validation", required_argument, NULL, OPT_VALIDATION}, {"arch", required_argument, NULL, OPT_ARCH},
        {"samples", required_argument, NULL, OPT_SAMPLES}, {"seed", required_argument, NULL, OPT_SEED},
        {"output", required_argument, NULL, 'o'},          {"help", no_argument, NULL, 'h'},
        CLI_SPACE_LONG_OPTIONS,                             {NULL, 0, NULL, 0}};
    cli_space_args space_options = {0};
    int option_code = CLI_OK;
    const char *space_path = NULL, *mac_path = NULL, *validation_path = NULL, *arch_text = NULL, *output = NULL;
    int32_t samples = 20000, seed = 1;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", LONG, NULL)) != -1) {
        if (cli_space_option(opt, optarg, &space_options, &option_code)) {
            if (option_code) return option_code;
            continue;
        }
        switch (opt) {
        case OPT_SPACE: space_path = optarg; break;
        case OPT_MAC: mac_path = optarg; break;
        case OPT_VALIDATION: validation_path = optarg; break;
        case OPT_ARCH: arch_text = optarg; break;
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
    const char *inputs[] = {argv[optind], space_path, mac_path, validation_path};
    int code = cli_check_paths("report", inputs, 4, &output, 1);
    if (code != CLI_OK) return code;
    report_input in = {0};
    in.table_path = argv[optind];
    in.samples = samples;
    in.seed = (uint64_t)seed;
    sslat_container *table = NULL, *mac = NULL;
    sslat_space *space = NULL;
    report_validation_row *rows = NULL;
    char runtime[512] = "";
    int32_t *arch = NULL;
    code = cli_load_container(in.table_path, &table);
    if (code == CLI_OK && space_path) {
        cli_space_args args = {space_path, space_options.options};
        code = cli_load_space(&args, &space);
        sslat_error err;
        if (code == CLI_OK && sslat_table_fits_space(table, space, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: %s and %s: %s\n", space_path, in.table_path, err.message);
            code = CLI_BAD_INPUT;
        }
    }
    if (code == CLI_OK && mac_path) code = cli_load_container(mac_path, &mac);
    if (code == CLI_OK && mac) code = check_same_space(table, mac, mac_path);
    if (code == CLI_OK && validation_path) code = load_validation(validation_path, &rows, &in.n_validation, runtime, sizeof runtime);
    int32_t blocks = table ? sslat_container_block_count(table) : 0;
    if (code == CLI_OK && (arch_text || (space && sslat_space_arch(space, NULL, 0) > 0))) {
        arch = calloc((size_t)blocks + 1, sizeof *arch);
        int32_t length = !arch ? -1 : arch_text ? cli_parse_arch(arch_text, arch, blocks + 1)
                                                : sslat_space_arch(space, arch, blocks);
        double check;
        sslat_error err;
        if (length >= 0 && sslat_current_latency(table, arch, length, &check, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat report: --arch: %s\n", err.message);
            length = -1;
        }
        if (length < 0) code = CLI_BAD_INPUT;
    }
    if (code == CLI_OK) {
        in.table = table, in.space = space, in.mac = mac, in.validation = rows, in.current_arch = arch;
        in.validation_runtime = runtime[0] ? runtime : NULL;
        char *html = NULL;
        sslat_error err;
        sslat_status status = report_render(&in, &html, &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat report: %s: %s\n", in.table_path, err.message);
            code = cli_exit_code(status);
        } else {
            code = cli_write_text(output, html, "report");
        }
        free(html);
    }
    free(arch);
    free(rows);
    sslat_container_free(mac);
    sslat_space_free(space);
    sslat_container_free(table);
    return code;
}
