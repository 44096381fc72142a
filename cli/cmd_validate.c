/* sslat validate: run whole architectures (cpu or cuda) and compare with the table. */
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

/* ---- parse ------------------------------------------------------------------------ */

enum { OPT_SEED = 2001, OPT_MODE, OPT_THREADS, OPT_WARMUP, OPT_RUNS, OPT_JSON, OPT_REFERENCE, OPT_CHANNELS_LAST };

typedef struct validate_args {
    cli_space_args space_options;
    const char *type;      /* cpu when not given */
    int32_t k, seed;
    const char *mode;      /* NULL: the table's */
    const char *reference; /* sslat, onnxruntime or torch */
    bool json, channels_last;
    sslat_calc_options o;
    /* which of the table's settings the command line overrides */
    bool threads_given, dtype_given, layout_given, cache_given;
} validate_args;

static int validate_option(int opt, const char *value, void *args)
{
    validate_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space_options, &code)) return code;
    if (cli_device_option(opt, value, &a->o, &code)) {
        a->dtype_given |= opt == CLI_OPT_DTYPE;
        a->layout_given |= opt == CLI_OPT_LAYOUT;
        a->cache_given |= opt == CLI_OPT_CACHE || opt == CLI_OPT_COLD;
        return code;
    }
    switch (opt) {
    case 'c': return cli_set_once(&a->type, value, "validate", "-c") ? CLI_OK : CLI_BAD_INPUT;
    case 'k': return cli_parse_int(value, "-k", 0, 10000, &a->k) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SEED: return cli_parse_int(value, "--seed", 0, INT32_MAX, &a->seed) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_MODE: a->mode = value; return CLI_OK;
    case OPT_THREADS:
        a->threads_given = true;
        return cli_parse_int(value, "--threads", 0, sslat_max_threads(), &a->o.threads) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_WARMUP:
        return cli_parse_int(value, "--warmup", 0, 1000000, &a->o.warmup_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_RUNS: return cli_parse_int(value, "--runs", 1, 1000000, &a->o.run_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_JSON: a->json = true; return CLI_OK;
    case OPT_REFERENCE: a->reference = value; return CLI_OK;
    case OPT_CHANNELS_LAST: a->channels_last = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option VALIDATE_OPTIONS[] = {
    {"calculator", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, OPT_SEED},
    {"mode", required_argument, NULL, OPT_MODE},   {"threads", required_argument, NULL, OPT_THREADS},
    {"warmup", required_argument, NULL, OPT_WARMUP}, {"runs", required_argument, NULL, OPT_RUNS},
    {"json", no_argument, NULL, OPT_JSON},         {"help", no_argument, NULL, 'h'},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"channels-last", no_argument, NULL, OPT_CHANNELS_LAST},
    CLI_DEVICE_LONG_OPTIONS,                       CLI_SPACE_LONG_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_verb VALIDATE = {"validate", "c:k:h", VALIDATE_OPTIONS, validate_usage, validate_option, 2, 2,
                                  "a space file and a table (sslat validate --help)"};

/* ---- check ------------------------------------------------------------------------ */

/* The reference and the calculator; NULL *calculator with an exit code when refused. */
static int check_args(const validate_args *a, const sslat_calculator **calculator)
{
    *calculator = NULL;
    if (strcmp(a->reference, "sslat") && !cli_reference_known(a->reference)) {
        fprintf(stderr, "sslat validate: --reference is sslat, onnxruntime or torch, got '%s'\n", a->reference);
        return CLI_BAD_INPUT;
    }
    const char *type = a->type ? a->type : "cpu";
    const sslat_calculator *found = sslat_calculator_find(type);
    if (!found || found->kind != SSLAT_CALC_TIMED) {
        fprintf(stderr, "sslat validate: -c is a timed calculator (cpu, cuda), got '%s'\n", type);
        return CLI_BAD_INPUT;
    }
    *calculator = found;
    return CLI_OK;
}

/* The space and the table, which must be the calculator's. */
static int load_inputs(const validate_args *a, const char *space_path, const char *table_path,
                       const sslat_calculator *calculator, sslat_space **space, sslat_container **table)
{
    cli_space_args space_args = {space_path, a->space_options.options};
    int code = cli_load_space(&space_args, space);
    if (code == CLI_OK) code = cli_load_container(table_path, table);
    if (code == CLI_OK && strcmp(sslat_container_latency_type(*table), calculator->name) != 0) {
        fprintf(stderr, "sslat validate: %s is a '%s' table, not '%s'\n", table_path,
                sslat_container_latency_type(*table), calculator->name);
        code = CLI_BAD_INPUT;
    }
    return code;
}

/* Measure the way the table was measured: its mode, threads, seed, dtype,
 * layout and cache mode, unless the command line says otherwise. */
static int adopt_table_settings(validate_args *a, const sslat_container *table, bool cuda)
{
    sslat_calc_options *o = &a->o;
    const char *table_mode = sslat_container_metadata(table, "calculator.mode");
    const char *table_threads = sslat_container_metadata(table, "host.threads");
    const char *table_seed = sslat_container_metadata(table, "calculator.seed");
    const char *m = a->mode ? a->mode : table_mode ? table_mode : "fused";
    int code = CLI_OK;
    if (strcmp(m, "fused") && strcmp(m, "eager")) {
        fprintf(stderr, "sslat validate: --mode is fused or eager, got '%s'\n", m);
        code = CLI_BAD_INPUT;
    }
    o->mode = strcmp(m, "eager") == 0 ? SSLAT_MODE_EAGER : SSLAT_MODE_FUSED;
    long recorded = table_threads ? strtol(table_threads, NULL, 10) : 0;
    if (!a->threads_given && recorded > 0) { /* the table's own count, within this machine's cores */
        int32_t value = recorded > sslat_max_threads() ? sslat_max_threads() : (int32_t)recorded;
        if (value != recorded)
            fprintf(stderr, "sslat validate: the table used %ld threads; this machine has %d cores: validating with %d\n",
                    recorded, sslat_max_threads(), value);
        o->threads = value;
    }
    if (table_seed) o->seed = strtoull(table_seed, NULL, 10);
    const char *table_dtype = sslat_container_metadata(table, "dtype");
    const char *table_layout = sslat_container_metadata(table, "layout");
    const char *table_cache = sslat_container_metadata(table, "calculator.cache");
    if (cuda && !a->dtype_given && table_dtype) sslat_dtype_parse(table_dtype, &o->dtype);
    if (cuda && !a->layout_given && table_layout) sslat_layout_parse(table_layout, &o->layout);
    /* the table's cuDNN API (its absence: a table from before the graph API, the legacy one) */
    const char *table_api = sslat_container_metadata(table, "cuda.api");
    if (cuda && o->cuda.api == SSLAT_CUDNN_API_DEFAULT && table_api) sslat_cudnn_api_parse(table_api, &o->cuda.api);
    /* the table's cache mode; a cpu table from before hot existed was timed interleaved */
    const char *table_schedule = sslat_container_metadata(table, "calculator.schedule");
    if (!a->cache_given) {
        if (table_cache) o->cold = !strncmp(table_cache, "cold", 4);
        else o->cold = !cuda && table_schedule && !strncmp(table_schedule, "interleaved", 11);
    }
    return code;
}

/* ---- run ------------------------------------------------------------------------ */

/* The architectures timed by the table's own calculator. */
static int run_with_calculator(const validate_args *a, const sslat_calculator *calculator, const sslat_space *space,
                               const sslat_container *table, sslat_validation *v, volatile int *stop)
{
    sslat_run_plan plan = {.progress = true, .stop = stop};
    sslat_error err;
    sslat_status status = sslat_validate_table(calculator, space, table, &a->o, &plan, a->k, (uint64_t)a->seed, v,
                                               &err);
    if (status == SSLAT_OK) return CLI_OK;
    fprintf(stderr, "sslat validate: %s\n", err.message);
    return cli_exit_code(status);
}

/* The same architectures, timed by a runtime that did not make the table; on
 * cuda with the table's layout and BN folding: the network the table measured. */
static int run_in_reference(const validate_args *a, bool cuda, const sslat_space *space,
                            const sslat_container *table, sslat_validation *v, char *runtime, size_t size)
{
    const sslat_calc_options *o = &a->o;
    bool nhwc = cuda && sslat_layout_resolve(o->layout, o->dtype) == SSLAT_LAYOUT_NHWC;
    cli_reference_options r = {a->reference, cuda ? "cuda" : "cpu", sslat_dtype_name(o->dtype), cuda ? 0 : o->threads,
                               o->warmup_iterations, o->run_iterations, a->channels_last || nhwc,
                               cuda && o->mode == SSLAT_MODE_FUSED, !o->cold, o->seed};
    sslat_error err;
    int code = cli_reference_available(a->reference); /* the install hint, before any model is written */
    if (code == CLI_OK && sslat_validation_plan(space, table, a->k, (uint64_t)a->seed, v, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat validate: %s\n", err.message);
        code = cli_exit_code(err.status);
    }
    if (code == CLI_OK) code = cli_reference_measure(space, v, &r, runtime, size);
    if (code == CLI_OK && sslat_validation_finish(v, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat validate: %s\n", err.message);
        code = CLI_FAILURE;
    }
    return code;
}

/* ---- write ------------------------------------------------------------------------ */

static int print_json(const validate_args *a, const sslat_space *space, const sslat_validation *v,
                      const char *runtime)
{
    json_t *rows = json_array();
    for (int r = 0; r < v->n; r++) {
        json_t *arch = json_array();
        for (int32_t b = 0; b < space->n_blocks; b++) json_array_append_new(arch, json_integer(v->rows[r].arch[b]));
        json_array_append_new(rows, json_pack("{s:s, s:o, s:f, s:f}", "label", v->rows[r].label, "arch", arch,
                                              "predicted_ms", v->rows[r].predicted, "measured_ms", v->rows[r].measured));
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:f}", "reference", a->reference, "runtime",
                             runtime, "schedule", a->o.cold ? "interleaved" : "back_to_back", "architectures", rows,
                             "mape", v->summary.mape, "within_5", v->summary.within_5, "within_10",
                             v->summary.within_10, "bias", v->summary.bias, "kendall_tau", v->summary.kendall_tau);
    return cli_print_json(root);
}

static void print_text(const validate_args *a, const sslat_validation *v, const char *runtime)
{
    printf("measured by %s (cache mode %s: %s)\n\n", runtime, a->o.cold ? "cold" : "hot",
           a->cache_given ? "--cache" : "the table's");
    printf("%-10s %14s %14s %9s\n", "arch", "predicted ms", "measured ms", "error");
    for (int r = 0; r < v->n; r++)
        printf("%-10s %14.4f %14.4f %+8.2f%%\n", v->rows[r].label, v->rows[r].predicted, v->rows[r].measured,
               100 * (v->rows[r].predicted - v->rows[r].measured) / v->rows[r].measured);
    printf("\nMAPE %.2f%%   within ±5%%: %.0f%%   within ±10%%: %.0f%%   bias %+.2f%%   Kendall tau %.3f   (%d architectures)\n",
           100 * v->summary.mape, 100 * v->summary.within_5, 100 * v->summary.within_10, 100 * v->summary.bias,
           v->summary.kendall_tau, v->n);
}

int cmd_validate(int argc, char **argv)
{
    validate_args a = {.k = 20, .reference = "sslat"};
    sslat_calc_options_default(&a.o);
    int first, code = cli_parse(&VALIDATE, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    const sslat_calculator *calculator = NULL;
    code = check_args(&a, &calculator);
    if (code != CLI_OK) return code;
    bool cuda = strcmp(calculator->name, "cuda") == 0;
    sslat_space *space = NULL;
    sslat_container *table = NULL;
    code = load_inputs(&a, argv[first], argv[first + 1], calculator, &space, &table);
    if (code == CLI_OK) code = adopt_table_settings(&a, table, cuda);
    sslat_validation v = {0, NULL, {0, 0, 0, 0, 0}};
    char runtime[512];
    snprintf(runtime, sizeof runtime, "sslat %s (the table's own calculator), %s", calculator->name,
             a.o.cold ? "interleaved" : "back to back");
    /* Ctrl-C or SIGTERM: stop, remove what was made, exit 4 (the reference runner asks cli_stop_requested) */
    volatile int *stop = cli_catch_stop_signals();
    if (code == CLI_OK && !strcmp(a.reference, "sslat")) code = run_with_calculator(&a, calculator, space, table, &v, stop);
    else if (code == CLI_OK) code = run_in_reference(&a, cuda, space, table, &v, runtime, sizeof runtime);
    if (code == CLI_OK && a.json) code = print_json(&a, space, &v, runtime);
    else if (code == CLI_OK) print_text(&a, &v, runtime);
    sslat_validation_release(&v);
    sslat_container_free(table);
    sslat_space_free(space);
    return code;
}
