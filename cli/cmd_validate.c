/* sslat validate: run whole architectures (cpu or cuda) and compare with the table. */
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validate.h"
#include "base/limits.h"
#include "cli/cli.h"
#include "cli/reference.h"
#include "ir/space.h"
#include "table/container.h"

static void validate_usage(void)
{
    printf("usage: sslat validate -c cpu|cuda SPACE LAT.sslat [-k K] [--seed S] [--reference R] [options] [--json]\n\n"
           "Runs the fastest, the slowest and K random architectures (default 20) as whole\n"
           "networks (the constant part and the chosen candidates in order) and prints, for\n"
           "each, the latency LAT.sslat predicts and the one measured; then MAPE, the share\n"
           "within ±5%% and ±10%%, the bias and Kendall's tau.\n\n"
           "  --reference R      who measures the whole networks:\n"
           "                     sslat (default): the table's own calculator, as the table ran;\n"
           "                     onnxruntime: each architecture exported to ONNX (seeded weights)\n"
           "                     and run in ONNX Runtime (CPU, or the CUDA provider for -c cuda);\n"
           "                     torch: PyTorch eager (cpu or cuda), built from the IR.\n"
           "                     Both run in the project's Python (SSLAT_PYTHON, else\n"
           "                     build/python-venv, else python3): warmup, interleaved rounds,\n"
           "                     medians. A runtime that is not installed: exit 3.\n"
           "  --channels-last    torch: channels_last memory format\n"
           "  --batch N, --resolution R  load SPACE with the table's input (a table of a sweep)\n"
           "The run uses the table's mode, threads, seed and cache mode unless given:\n"
           "  --mode fused|eager  --threads N  --warmup N (10)  --runs N (10)\n"
           "  --cache hot|cold   hot: each architecture warmed up and run back to back (what a\n"
           "                     benchmark loop over one model measures); cold: rounds of one\n"
           "                     run per architecture (weights evicted by the others). The\n"
           "                     reference runtime is run the same way; the output says which\n"
           "cuda (default: the table's dtype, layout and cache mode; each architecture is one\n"
           "CUDA graph):\n" CLI_DEVICE_HELP);
}

int cmd_validate(int argc, char **argv)
{
    enum { OPT_SEED = 2001, OPT_MODE, OPT_THREADS, OPT_WARMUP, OPT_RUNS, OPT_JSON, OPT_REFERENCE, OPT_CHANNELS_LAST };
    static const struct option LONG[] = {
        {"calculator", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, OPT_SEED},
        {"mode", required_argument, NULL, OPT_MODE},   {"threads", required_argument, NULL, OPT_THREADS},
        {"warmup", required_argument, NULL, OPT_WARMUP}, {"runs", required_argument, NULL, OPT_RUNS},
        {"json", no_argument, NULL, OPT_JSON},         {"help", no_argument, NULL, 'h'},
        {"reference", required_argument, NULL, OPT_REFERENCE},
        {"channels-last", no_argument, NULL, OPT_CHANNELS_LAST},
        CLI_DEVICE_LONG_OPTIONS,                       CLI_SPACE_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_space_args space_options = {0};
    const char *type = NULL; /* cpu when not given */
    int32_t k = 20, seed = 0, value = 0;
    const char *mode = NULL, *reference = "sslat";
    bool json = false, threads_given = false, channels_last = false;
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    sslat_run_plan plan = {.progress = true};
    int opt;
    optind = 1;
    int device_code = CLI_OK;
    bool dtype_given = false, layout_given = false, cache_given = false;
    while ((opt = getopt_long(argc, argv, "c:k:h", LONG, NULL)) != -1) {
        int space_code = CLI_OK;
        if (cli_space_option(opt, optarg, &space_options, &space_code)) {
            if (space_code) return space_code;
            continue;
        }
        if (cli_device_option(opt, optarg, &o, &device_code)) {
            if (device_code) return device_code;
            dtype_given |= opt == CLI_OPT_DTYPE;
            layout_given |= opt == CLI_OPT_LAYOUT;
            cache_given |= opt == CLI_OPT_CACHE || opt == CLI_OPT_COLD;
            continue;
        }
        switch (opt) {
        case 'c': if (!cli_set_once(&type, optarg, "validate", "-c")) return CLI_BAD_INPUT; break;
        case 'k': if (!cli_parse_int(optarg, "-k", 0, 10000, &k)) return CLI_BAD_INPUT; break;
        case OPT_SEED: if (!cli_parse_int(optarg, "--seed", 0, INT32_MAX, &seed)) return CLI_BAD_INPUT; break;
        case OPT_MODE: mode = optarg; break;
        case OPT_THREADS:
            if (!cli_parse_int(optarg, "--threads", 0, sslat_max_threads(), &o.threads)) return CLI_BAD_INPUT;
            threads_given = true;
            break;
        case OPT_WARMUP: if (!cli_parse_int(optarg, "--warmup", 0, 1000000, &o.warmup_iterations)) return CLI_BAD_INPUT; break;
        case OPT_RUNS: if (!cli_parse_int(optarg, "--runs", 1, 1000000, &o.run_iterations)) return CLI_BAD_INPUT; break;
        case OPT_JSON: json = true; break;
        case OPT_REFERENCE: reference = optarg; break;
        case OPT_CHANNELS_LAST: channels_last = true; break;
        case 'h': validate_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind + 2 != argc) {
        fprintf(stderr, "sslat validate: expects a space file and a table (sslat validate --help)\n");
        return CLI_BAD_INPUT;
    }
    if (strcmp(reference, "sslat") && !cli_reference_known(reference)) {
        fprintf(stderr, "sslat validate: --reference is sslat, onnxruntime or torch, got '%s'\n", reference);
        return CLI_BAD_INPUT;
    }
    if (!type) type = "cpu";
    const sslat_calculator *calculator = sslat_calculator_find(type);
    if (!calculator || calculator->kind != SSLAT_CALC_TIMED) {
        fprintf(stderr, "sslat validate: -c is a timed calculator (cpu, cuda), got '%s'\n", type);
        return CLI_BAD_INPUT;
    }
    type = calculator->name;
    bool cuda = strcmp(type, "cuda") == 0;
    cli_space_args space_args = {argv[optind], space_options.options};
    sslat_space *space = NULL;
    sslat_container *table = NULL;
    int code = cli_load_space(&space_args, &space);
    if (code == CLI_OK) code = cli_load_container(argv[optind + 1], &table);
    if (code == CLI_OK && strcmp(sslat_container_latency_type(table), type) != 0) {
        fprintf(stderr, "sslat validate: %s is a '%s' table, not '%s'\n", argv[optind + 1],
                sslat_container_latency_type(table), type);
        code = CLI_BAD_INPUT;
    }
    if (code == CLI_OK) {
        /* measure the way the table was measured */
        const char *table_mode = sslat_container_metadata(table, "calculator.mode");
        const char *table_threads = sslat_container_metadata(table, "host.threads");
        const char *table_seed = sslat_container_metadata(table, "calculator.seed");
        const char *m = mode ? mode : table_mode ? table_mode : "fused";
        if (strcmp(m, "fused") && strcmp(m, "eager")) {
            fprintf(stderr, "sslat validate: --mode is fused or eager, got '%s'\n", m);
            code = CLI_BAD_INPUT;
        }
        o.mode = strcmp(m, "eager") == 0 ? SSLAT_MODE_EAGER : SSLAT_MODE_FUSED;
        long recorded = table_threads ? strtol(table_threads, NULL, 10) : 0;
        if (!threads_given && recorded > 0) { /* the table's own count, within this machine's cores */
            value = recorded > sslat_max_threads() ? sslat_max_threads() : (int32_t)recorded;
            if (value != recorded)
                fprintf(stderr, "sslat validate: the table used %ld threads; this machine has %d cores: validating with %d\n",
                        recorded, sslat_max_threads(), value);
            o.threads = value;
        }
        if (table_seed) o.seed = strtoull(table_seed, NULL, 10);
        const char *table_dtype = sslat_container_metadata(table, "dtype");
        const char *table_layout = sslat_container_metadata(table, "layout");
        const char *table_cache = sslat_container_metadata(table, "calculator.cache");
        if (cuda && !dtype_given && table_dtype) sslat_dtype_parse(table_dtype, &o.dtype);
        if (cuda && !layout_given && table_layout) sslat_layout_parse(table_layout, &o.layout);
        /* the table's cache mode; a cpu table from before hot existed was timed interleaved */
        const char *table_schedule = sslat_container_metadata(table, "calculator.schedule");
        if (!cache_given) {
            if (table_cache) o.cold = !strncmp(table_cache, "cold", 4);
            else o.cold = !cuda && table_schedule && !strncmp(table_schedule, "interleaved", 11);
        }
    }
    sslat_validation v = {0, NULL, {0, 0, 0, 0, 0}};
    char runtime[512];
    snprintf(runtime, sizeof runtime, "sslat %s (the table's own calculator), %s", type,
             o.cold ? "interleaved" : "back to back");
    /* Ctrl-C or SIGTERM: stop, remove what was made, exit 4 */
    plan.stop = cli_catch_stop_signals();
    if (code == CLI_OK && !strcmp(reference, "sslat")) {
        sslat_error err;
        sslat_status status = sslat_validate_table(calculator, space, table, &o, &plan, k, (uint64_t)seed, &v, &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat validate: %s\n", err.message);
            code = cli_exit_code(status);
        }
    } else if (code == CLI_OK) {
        /* the same architectures, timed by a runtime that did not make the table */
        /* on cuda, the table's layout and BN folding: the same network as the table measured */
        bool nhwc = cuda && sslat_layout_resolve(o.layout, o.dtype) == SSLAT_LAYOUT_NHWC;
        cli_reference_options r = {reference, cuda ? "cuda" : "cpu", sslat_dtype_name(o.dtype), cuda ? 0 : o.threads,
                                   o.warmup_iterations, o.run_iterations, channels_last || nhwc,
                                   cuda && o.mode == SSLAT_MODE_FUSED, !o.cold, o.seed};
        sslat_error err;
        code = cli_reference_available(reference); /* the install hint, before any model is written */
        if (code == CLI_OK && sslat_validation_plan(space, table, k, (uint64_t)seed, &v, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat validate: %s\n", err.message);
            code = cli_exit_code(err.status);
        }
        if (code == CLI_OK) code = cli_reference_measure(space, &v, &r, runtime, sizeof runtime);
        if (code == CLI_OK && sslat_validation_finish(&v, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat validate: %s\n", err.message);
            code = CLI_FAILURE;
        }
    }
    if (code == CLI_OK && json) {
        json_t *rows = json_array();
        for (int r = 0; r < v.n; r++) {
            json_t *arch = json_array();
            for (int32_t b = 0; b < space->n_blocks; b++) json_array_append_new(arch, json_integer(v.rows[r].arch[b]));
            json_array_append_new(rows, json_pack("{s:s, s:o, s:f, s:f}", "label", v.rows[r].label, "arch", arch,
                                                  "predicted_ms", v.rows[r].predicted, "measured_ms", v.rows[r].measured));
        }
        json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:f}", "reference", reference, "runtime", runtime,
                                 "schedule", o.cold ? "interleaved" : "back_to_back",
                                 "architectures", rows, "mape", v.summary.mape,
                                 "within_5", v.summary.within_5, "within_10", v.summary.within_10, "bias",
                                 v.summary.bias, "kendall_tau", v.summary.kendall_tau);
        code = cli_print_json(root);
    } else if (code == CLI_OK) {
        printf("measured by %s (cache mode %s: %s)\n\n", runtime, o.cold ? "cold" : "hot",
               cache_given ? "--cache" : "the table's");
        printf("%-10s %14s %14s %9s\n", "arch", "predicted ms", "measured ms", "error");
        for (int r = 0; r < v.n; r++)
            printf("%-10s %14.4f %14.4f %+8.2f%%\n", v.rows[r].label, v.rows[r].predicted, v.rows[r].measured,
                   100 * (v.rows[r].predicted - v.rows[r].measured) / v.rows[r].measured);
        printf("\nMAPE %.2f%%   within ±5%%: %.0f%%   within ±10%%: %.0f%%   bias %+.2f%%   Kendall tau %.3f   (%d architectures)\n",
               100 * v.summary.mape, 100 * v.summary.within_5, 100 * v.summary.within_10, 100 * v.summary.bias,
               v.summary.kendall_tau, v.n);
    }
    sslat_validation_release(&v);
    sslat_container_free(table);
    sslat_space_free(space);
    return code;
}
