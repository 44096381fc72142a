/* sslat validate: run whole architectures (cpu or cuda) and compare with the table. */
#include <jansson.h>
#include <math.h>
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
#include "table/describe.h"

static void validate_usage(void)
{
    printf("usage: sslat validate -c cpu|cuda SPACE LAT.sslat [-k K] [--seed S] [--reference R] [options] [--json]\n\n"
           "Runs the fastest and the slowest architecture and K more (default 20) stratified\n"
           "over the table's latency range (the range cut into K equal bands, one architecture\n"
           "drawn into each: the ends as present as the middle; none twice, and for a table\n"
           "fitted with --context none it was fitted to) as whole networks, and prints for\n"
           "each the latency LAT.sslat predicts and the one measured; then MAPE, the share\n"
           "within ±5%% and ±10%%, the bias, Kendall's tau and Spearman's rho with bootstrap\n"
           "95%% intervals, and the MAC count's tau on the same architectures beside the\n"
           "table's (a warning when the table ranks worse than MACs). Use K >= 100 for a\n"
           "figure that tells a good table from noise.\n\n"
           "  --reference R      who measures the whole networks:\n"
           "                     sslat (default): the table's own calculator, as the table ran;\n"
           "                     onnxruntime: each architecture exported to ONNX (seeded weights)\n"
           "                     and run in ONNX Runtime (CPU; for -c cuda its CUDA provider with\n"
           "                     IO binding and CUDA graphs, fp32 tables only);\n"
           "                     torch: PyTorch (cuda: cudnn.benchmark on, TF32 off);\n"
           "                     torch-default: PyTorch's defaults (cuda only: cudnn.benchmark\n"
           "                     off, TF32 on for convolutions);\n"
           "                     torch-compile: torch.compile, Inductor (compile time apart).\n"
           "                     On cuda each network is one CUDA graph timed by CUDA events,\n"
           "                     in the table's dtype and layout, BN folded for a fused table.\n"
           "                     They run in the project's Python (SSLAT_PYTHON, else\n"
           "                     build/python-venv, else python3). A runtime that is not\n"
           "                     installed or sees no GPU: exit 3.\n"
           "                     Their runs are watched as a cpu table's samples are (run delay,\n"
           "                     worker share, steal, other busy cores, calibration drift): a\n"
           "                     verdict ok / noisy / disturbed on stderr, in the output and\n"
           "                     in --json (reference_quality)\n"
           "  --strict           exit 6 (after the output) when the reference runs were disturbed\n"
           "  --channels-last    torch on cpu: channels_last memory format (a cuda table's layout\n"
           "                     decides it there)\n"
           "  --seed S           the strata's draws and the bootstrap's resamples (default 0);\n"
           "                     the networks' weights are the table's seed\n"
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

enum { OPT_SEED = 2001, OPT_MODE, OPT_THREADS, OPT_WARMUP, OPT_RUNS, OPT_JSON, OPT_REFERENCE, OPT_CHANNELS_LAST,
       OPT_STRICT };

typedef struct validate_args {
    cli_space_args space_options;
    const char *type;      /* cpu when not given */
    int32_t k, seed;
    const char *mode;      /* NULL: the table's */
    const char *reference; /* sslat, onnxruntime or torch */
    bool json, channels_last, strict;
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
    case OPT_REFERENCE:
        return cli_set_once(&a->reference, value, "validate", "--reference") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_CHANNELS_LAST: a->channels_last = true; return CLI_OK;
    case OPT_STRICT: a->strict = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option VALIDATE_OPTIONS[] = {
    {"calculator", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, OPT_SEED},
    {"mode", required_argument, NULL, OPT_MODE},   {"threads", required_argument, NULL, OPT_THREADS},
    {"warmup", required_argument, NULL, OPT_WARMUP}, {"runs", required_argument, NULL, OPT_RUNS},
    {"json", no_argument, NULL, OPT_JSON},         {"help", no_argument, NULL, 'h'},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"channels-last", no_argument, NULL, OPT_CHANNELS_LAST}, {"strict", no_argument, NULL, OPT_STRICT},
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
        fprintf(stderr, "sslat validate: --reference is sslat, %s, got '%s'\n", cli_reference_names(), a->reference);
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
                            const sslat_container *table, sslat_validation *v, cli_reference_answer *answer)
{
    const sslat_calc_options *o = &a->o;
    bool nhwc = cuda && sslat_layout_resolve(o->layout, o->dtype) == SSLAT_LAYOUT_NHWC;
    cli_reference_options r = {"validate", a->reference, cuda ? "cuda" : "cpu", sslat_dtype_name(o->dtype), cuda ? 0 : o->threads,
                               o->warmup_iterations, o->run_iterations, a->channels_last || nhwc,
                               cuda && o->mode == SSLAT_MODE_FUSED, !o->cold, o->seed};
    sslat_error err;
    sslat_validation_inputs inputs = {0};
    int code = cli_reference_check("validate", a->reference, cuda, sslat_dtype_name(o->dtype));
    /* the install hint, before any model is written */
    if (code == CLI_OK) code = cli_reference_available(a->reference, cuda);
    if (code == CLI_OK && (sslat_validation_inputs_make(space, table, &inputs, &err) != SSLAT_OK ||
                           sslat_validation_plan(space, table, a->k, (uint64_t)a->seed, &inputs.exclude, v,
                                                 &err) != SSLAT_OK ||
                           sslat_validation_count_macs(v, inputs.macs, &err) != SSLAT_OK)) {
        fprintf(stderr, "sslat validate: %s\n", err.message);
        code = cli_exit_code(err.status);
    }
    if (code == CLI_OK) code = cli_reference_measure(space, v, &r, answer);
    if (code == CLI_OK) cli_reference_say_quality("validate", answer);
    if (code == CLI_OK && sslat_validation_finish(v, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat validate: %s\n", err.message);
        code = cli_exit_code(err.status);
    }
    sslat_validation_inputs_release(&inputs);
    return code;
}

/* ---- write ------------------------------------------------------------------------ */

static json_t *interval_json(const sslat_interval *i)
{
    return json_pack("{s:o, s:[o, o]}", "value", cli_json_number(i->value), "ci95", cli_json_number(i->low),
                     cli_json_number(i->high));
}

/* What the table predicts: the runtime its context fit named, else its own calculator's. */
static const char *table_predicts(const sslat_container *table)
{
    const char *calibrated = sslat_table_calibrated_to(table);
    return calibrated ? calibrated : "sslat";
}

/* The rows that came from a latency stratum (not the table's two ends). */
static int strata_run(const sslat_validation *v)
{
    int n = 0;
    for (int r = 0; r < v->n; r++) n += !strncmp(v->rows[r].label, "stratum ", 8);
    return n;
}

static int print_json(const validate_args *a, const sslat_space *space, const sslat_container *table,
                      const sslat_validation *v, const cli_reference_answer *answer)
{
    json_t *rows = json_array();
    for (int r = 0; r < v->n; r++) {
        json_t *arch = json_array();
        for (int32_t b = 0; b < space->n_blocks; b++) json_array_append_new(arch, json_integer(v->rows[r].arch[b]));
        json_array_append_new(rows, json_pack("{s:s, s:o, s:o, s:o, s:o}", "label", v->rows[r].label, "arch", arch,
                                              "predicted_ms", cli_json_number(v->rows[r].predicted), "measured_ms",
                                              cli_json_number(v->rows[r].measured), "mmac",
                                              cli_json_number(v->rows[r].macs)));
    }
    const sslat_rank_figures *k = &v->ranks;
    /* figures through cli_json_number: a figure that is not finite is null, never an invalid document */
    json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "reference", a->reference, "runtime",
                             answer->runtime, "schedule", a->o.cold ? "interleaved" : "back_to_back", "architectures",
                             rows, "mape", cli_json_number(v->summary.mape), "within_5",
                             cli_json_number(v->summary.within_5), "within_10", cli_json_number(v->summary.within_10),
                             "bias", cli_json_number(v->summary.bias), "kendall_tau",
                             cli_json_number(v->ranks.tau.value));
    if (!root) return cli_print_json(root);
    json_object_set_new(root, "table_predicts", json_string(table_predicts(table)));
    json_object_set_new(root, "sampling", json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "method",
                                                    "argmin, argmax and one architecture per equal band of the "
                                                    "table's latency range", "strata_asked", v->asked,
                                                    "strata_run", strata_run(v), "architectures", v->n,
                                                    "fitted_draws_skipped", v->held_out,
                                                    "context_architectures_left_out", v->left_out));
    json_object_set_new(root, "bootstrap_seed", json_integer((json_int_t)v->seed));
    json_object_set_new(root, "kendall_tau_interval", interval_json(&k->tau));
    json_object_set_new(root, "spearman_rho", cli_json_number(k->rho.value));
    json_object_set_new(root, "spearman_rho_interval", interval_json(&k->rho));
    json_object_set_new(root, "bootstrap_resamples", json_integer(k->resamples));
    json_object_set_new(root, "mac", json_pack("{s:s, s:o, s:o, s:o}", "rule", "mac (torchvision's count)",
                                               "kendall_tau", interval_json(&k->mac_tau), "spearman_rho",
                                               interval_json(&k->mac_rho), "table_tau_minus_mac_tau",
                                               interval_json(&k->tau_minus_mac)));
    json_object_set_new(root, "table_ranks_worse_than_macs", json_boolean(sslat_rank_versus_macs(k) == SSLAT_VS_MACS_WORSE));
    json_object_set_new(root, "table_against_macs", json_string(sslat_versus_macs_name(sslat_rank_versus_macs(k))));
    const char *table_verdict = sslat_container_metadata(table, "quality.verdict");
    const char *table_cause = sslat_container_metadata(table, "quality.cause");
    json_object_set_new(root, "table_quality", table_verdict ? json_pack("{s:s, s:s}", "verdict", table_verdict,
                                                                         "cause", table_cause ? table_cause : "none")
                                                             : json_null());
    json_object_set_new(root, "reference_quality",
                        answer->watched ? json_pack("{s:s, s:s, s:s}", "verdict", sslat_quality_name(answer->verdict),
                                                    "cause", answer->cause[0] ? answer->cause : "none", "watch",
                                                    answer->figures)
                                        : json_null());
    if (answer->compiled)
        json_object_set_new(root, "compile_s", json_pack("{s:i, s:o, s:o, s:o}", "networks", answer->compiled,
                                                         "total", cli_json_number(answer->compile_total_s), "median",
                                                         cli_json_number(answer->compile_median_s), "max",
                                                         cli_json_number(answer->compile_max_s)));
    return cli_print_json(root);
}

/* The warning when the MAC count ranks these architectures better beyond
 * the interval: to stderr always (a --json run is read by a script, and a
 * person sees it). */
static void warn_if_worse_than_macs(const sslat_validation *v)
{
    const sslat_rank_figures *k = &v->ranks;
    if (sslat_rank_versus_macs(k) != SSLAT_VS_MACS_WORSE) return;
    fprintf(stderr, "sslat validate: warning: the table ranks these architectures worse than their MAC count does "
                    "(Kendall tau %.3f against %.3f; the difference's 95%% interval [%+.3f, %+.3f] is below 0): for "
                    "ranking, the MAC count is the better proxy, and this table is not worth using until it beats "
                    "it\n", k->tau.value, k->mac_tau.value, k->tau_minus_mac.low, k->tau_minus_mac.high);
}

/* Whether every row measured the same (no ranking can come from it). */
static bool measurements_all_equal(const sslat_validation *v)
{
    for (int r = 1; r < v->n; r++)
        if (v->rows[r].measured != v->rows[0].measured) return false;
    return true;
}

/* A figure with its interval, or what stands in for it. */
static void print_interval(const char *name, const sslat_interval *i)
{
    if (isnan(i->value)) printf("%s -", name);
    else if (isnan(i->low)) printf("%s %.3f [no interval]", name, i->value);
    else printf("%s %.3f [%.3f, %.3f]", name, i->value, i->low, i->high);
}

/* One ranking's line: its tau and rho with their intervals, or why there is
 * none (equal_ones: what is all equal). */
static void print_ranking(const char *who, const sslat_interval *tau, const sslat_interval *rho,
                          const char *equal_ones)
{
    if (isnan(tau->value)) {
        printf("%-12s no ranking (%s are all equal)\n", who, equal_ones);
        return;
    }
    printf("%-12s ", who);
    print_interval("Kendall tau", tau);
    print_interval("   Spearman rho", rho);
    printf("\n");
}

/* The table's own verdict, then the reference runs': a validation is only as
 * good as the worse of the two. */
static void print_qualities(const sslat_container *table, const cli_reference_answer *answer)
{
    const char *verdict = sslat_container_metadata(table, "quality.verdict");
    const char *cause = sslat_container_metadata(table, "quality.cause");
    if (verdict)
        printf("table quality %s%s%s%s\n", verdict, cause && strcmp(cause, "none") ? " (" : "",
               cause && strcmp(cause, "none") ? cli_text(cause) : "", cause && strcmp(cause, "none") ? ")" : "");
    else printf("table quality: not judged (an analytic or imported table, or one from before verdicts)\n");
    if (!answer->watched)
        printf("reference quality: not judged here (sslat's own calculator: the table's verdict is its own)\n");
    else
        printf("reference quality %s%s%s%s%s\n", answer->verdict == SSLAT_QUALITY_DISTURBED ? "DISTURBED" :
               sslat_quality_name(answer->verdict), answer->cause[0] ? " (" : "", answer->cause,
               answer->cause[0] ? ")" : "",
               answer->verdict == SSLAT_QUALITY_DISTURBED ? ": these figures are not a figure of this machine" : "");
}

static void print_text(const validate_args *a, const sslat_container *table, const sslat_validation *v,
                       const cli_reference_answer *answer)
{
    /* the first line: which reference ran, and how (a runner's description may begin with its name) */
    bool named = !strncmp(answer->runtime, a->reference, strlen(a->reference));
    printf("reference %s%s%s (cache mode %s: %s)\n", named ? "" : a->reference, named ? "" : ": ", answer->runtime,
           a->o.cold ? "cold" : "hot", a->cache_given ? "--cache" : "the table's");
    const char *fitted = sslat_container_metadata(table, "context.architectures");
    if (fitted)
        printf("the table is calibrated to %s (%s architectures, fitted by --context)%s\n", table_predicts(table),
               fitted, v->left_out ? "; none of them is run here"
                           : "; it was fitted before sslat recorded context.seed, so they cannot be left out: "
                             "some rows may be in-sample");
    if (fitted && strcmp(table_predicts(table), a->reference))
        printf("note: it is checked here against %s, not the runtime it was fitted to\n", a->reference);
    if (answer->compiled)
        printf("torch.compile: %d networks compiled in %.1f s (median %.2f s, longest %.2f s), outside every "
               "timing\n", answer->compiled, answer->compile_total_s, answer->compile_median_s, answer->compile_max_s);
    print_qualities(table, answer);
    printf("\n%-13s %14s %14s %9s %12s\n", "arch", "predicted ms", "measured ms", "error", "MMAC");
    for (int r = 0; r < v->n; r++)
        printf("%-13s %14.4f %14.4f %+8.2f%% %12.2f\n", v->rows[r].label, v->rows[r].predicted, v->rows[r].measured,
               100 * (v->rows[r].predicted - v->rows[r].measured) / v->rows[r].measured, v->rows[r].macs);
    const sslat_rank_figures *k = &v->ranks;
    int strata = strata_run(v);
    printf("\n%d architectures: %d of the table's two ends and %d of %d latency strata", v->n, v->n - strata, strata,
           v->asked);
    if (strata < v->asked) printf(" (the rest found no architecture not already drawn%s)", v->left_out ? " or fitted" : "");
    printf("\nMAPE %.2f%%   within ±5%%: %.0f%%   within ±10%%: %.0f%%   bias %+.2f%%\n", 100 * v->summary.mape,
           100 * v->summary.within_5, 100 * v->summary.within_10, 100 * v->summary.bias);
    bool flat = measurements_all_equal(v);
    print_ranking("table", &k->tau, &k->rho, flat ? "the measurements" : "its predictions");
    print_ranking("MAC count", &k->mac_tau, &k->mac_rho, flat ? "the measurements" : "the rows' MAC counts");
    static const char *const VERDICT[] = {
        "no comparison (no interval: too few architectures, or a ranking missing)",
        "the table ranks WORSE than the MAC count (not worth using for ranking)",
        "the table ranks better than the MAC count",
        "the table ranks no better than the MAC count within the interval"};
    if (!isnan(k->tau_minus_mac.value)) {
        print_interval("table − MACs Kendall tau", &k->tau_minus_mac);
        printf(": %s\n", VERDICT[sslat_rank_versus_macs(k)]);
    }
    if (k->resamples)
        printf("[intervals: bootstrap 95%%, %d resamples of these architectures%s]\n", k->resamples,
               v->n < 100 ? "; under 100 architectures they are wide: use -k 100 or more" : "");
    else
        printf("[no intervals: fewer than %d architectures; use -k 100 or more]\n", SSLAT_INTERVAL_MIN_ROWS);
}

int cmd_validate(int argc, char **argv)
{
    validate_args a = {.k = 20};
    sslat_calc_options_default(&a.o);
    int first, code = cli_parse(&VALIDATE, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.reference) a.reference = "sslat";
    const sslat_calculator *calculator = NULL;
    code = check_args(&a, &calculator);
    if (code != CLI_OK) return code;
    bool cuda = strcmp(calculator->name, "cuda") == 0;
    sslat_space *space = NULL;
    sslat_container *table = NULL;
    code = load_inputs(&a, argv[first], argv[first + 1], calculator, &space, &table);
    if (code == CLI_OK) code = adopt_table_settings(&a, table, cuda);
    sslat_validation v = {0};
    cli_reference_answer answer;
    memset(&answer, 0, sizeof answer);
    snprintf(answer.runtime, sizeof answer.runtime, "sslat %s (the table's own calculator), %s", calculator->name,
             a.o.cold ? "interleaved" : "back to back");
    /* Ctrl-C or SIGTERM: stop, remove what was made, exit 4 (the reference runner asks cli_stop_requested) */
    volatile int *stop = cli_catch_stop_signals();
    if (code == CLI_OK && !strcmp(a.reference, "sslat")) code = run_with_calculator(&a, calculator, space, table, &v, stop);
    else if (code == CLI_OK) code = run_in_reference(&a, cuda, space, table, &v, &answer);
    if (code == CLI_OK) warn_if_worse_than_macs(&v);
    if (code == CLI_OK && a.json) code = print_json(&a, space, table, &v, &answer);
    else if (code == CLI_OK) print_text(&a, table, &v, &answer);
    if (code == CLI_OK && a.strict && answer.watched && answer.verdict == SSLAT_QUALITY_DISTURBED) {
        fprintf(stderr, "sslat validate: --strict: the reference runs were disturbed (said above)\n");
        code = CLI_DISTURBED;
    }
    sslat_validation_release(&v);
    sslat_container_free(table);
    sslat_space_free(space);
    return code;
}
