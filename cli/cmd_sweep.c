/* sslat sweep: one table per batch size x resolution x dtype, and a summary.
 * Resumable (points whose table exists and matches are kept) and shardable
 * (--shard I/N takes every N-th point). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/latency.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/limits.h"
#include "calc/calculator.h"
#include "calc/journal.h"
#include "calc/run.h"
#include "cli/cli.h"
#include "cli/sweep.h"
#include "table/container.h"
#include "ir/space.h"
#include "table/describe.h"


/* "1,8,32": at most SSLAT_MAX_SWEEP_VALUES whole numbers; -1 after saying what is wrong. */
static int parse_list(const char *text, const char *what, int32_t *values)
{
    int n = 0;
    for (const char *item = text;; item++) {
        const char *end = strchr(item, ',');
        size_t length = end ? (size_t)(end - item) : strlen(item);
        char number[32];
        if (length == 0 || length >= sizeof number) {
            fprintf(stderr, "sslat sweep: %s takes comma-separated whole numbers (1,8,32), got '%.80s'\n", what, text);
            return -1;
        }
        if (n == SSLAT_MAX_SWEEP_VALUES) {
            fprintf(stderr, "sslat sweep: %s takes at most %d values\n", what, SSLAT_MAX_SWEEP_VALUES);
            return -1;
        }
        memcpy(number, item, length);
        number[length] = '\0';
        if (!cli_parse_int(number, what, 1, SSLAT_MAX_BATCH, &values[n])) return -1;
        for (int k = 0; k < n; k++)
            if (values[k] == values[n]) {
                fprintf(stderr, "sslat sweep: %s: %d is given twice\n", what, values[n]);
                return -1;
            }
        n++;
        if (!end) return n;
        item = end;
    }
}

/* A list of budgets "1.5,2,3": finite positive numbers, at most SSLAT_MAX_SWEEP_VALUES. */
static int parse_budgets(const char *text, double *values)
{
    int n = 0;
    for (const char *item = text;; item++) {
        char *end = NULL;
        if (n == SSLAT_MAX_SWEEP_VALUES) {
            fprintf(stderr, "sslat sweep: --budget takes at most %d values\n", SSLAT_MAX_SWEEP_VALUES);
            return -1;
        }
        values[n] = strtod(item, &end);
        if (end == item || (*end && *end != ',') || !(values[n] > 0) || values[n] > 1e300) {
            fprintf(stderr, "sslat sweep: --budget takes comma-separated positive numbers in the table's unit "
                            "(per sample for a timed table: 1.5,2,3), got '%.80s'\n", text);
            return -1;
        }
        /* two budgets that print alike would make two columns of one name */
        char shown[32], earlier[32];
        snprintf(shown, sizeof shown, "%g", values[n]);
        for (int k = 0; k < n; k++)
            if (!strcmp(shown, (snprintf(earlier, sizeof earlier, "%g", values[k]), earlier))) {
                fprintf(stderr, "sslat sweep: --budget: %s is given twice\n", shown);
                return -1;
            }
        n++;
        if (!*end) return n;
        item = end;
    }
}

/* Every point is one whole run (shard 0 of 1: the count is in each table's
 * fingerprint) that reports its progress. */
static const sslat_run_plan POINT_PLAN = {.shard_index = 0, .shard_count = 1, .progress = true};

/* What is at a point's path before it runs. */
typedef enum { POINT_NEW, POINT_KEEP, POINT_OTHER } point_state;

/* The point's space (at its input) and the fingerprint of its run (also as
 * hex text in made_by; fingerprint may be NULL). */
static int open_point(const cli_space_args *base, const sslat_calculator *calculator, const sslat_calc_options *options,
                      point_result *r, sslat_space **space, sslat_calc_options *point_options, uint64_t *fingerprint,
                      char made_by[24])
{
    cli_space_args args = *base;
    args.options.batch = r->batch;
    args.options.height = args.options.width = r->resolution;
    int code = cli_load_space(&args, space);
    if (code != CLI_OK) return code;
    *point_options = *options;
    sslat_dtype_parse(r->dtype, &point_options->dtype); /* checked when the points were made */
    /* a table is kept only when it was made by the same calculator, options and
     * machine (--runs 30 does not reuse a --runs 10 table) */
    uint64_t run = sslat_run_fingerprint(calculator, *space, point_options, &POINT_PLAN);
    if (fingerprint) *fingerprint = run;
    snprintf(made_by, 24, "%016" PRIx64, run);
    return CLI_OK;
}

/* Whether the point's table is there and was made by this run's calculator
 * and options (*table: it, loaded), absent, or something else (why). */
static point_state check_point(const char *path, const sslat_calculator *calculator, const sslat_space *space,
                               const char *dtype, const char *made_by, sslat_container **table, char *why,
                               size_t why_size)
{
    sslat_error err;
    *table = NULL;
    if (access(path, F_OK) != 0) return POINT_NEW;
    if (sslat_container_load_from_file(path, table, &err) != SSLAT_OK) {
        snprintf(why, why_size, "it is not a table sslat reads (%s)", err.message);
        return POINT_OTHER;
    }
    const char *kept_by = sslat_container_metadata(*table, "sweep.options");
    if (sslat_container_space_hash(*table) == sslat_space_hash(space) &&
        !strcmp(sslat_container_latency_type(*table), calculator->name) && !strcmp(sslat_container_dtype(*table), dtype) &&
        kept_by && !strcmp(kept_by, made_by))
        return POINT_KEEP;
    char method[256];
    sslat_table_method_text(*table, method, sizeof method);
    snprintf(why, why_size, "it was made by another run (%s%s%s, options %s; this run: %s, options %s)",
             sslat_container_latency_type(*table), method[0] ? ", " : "", method, kept_by ? kept_by : "not recorded",
             calculator->name, made_by);
    sslat_container_free(*table);
    *table = NULL;
    return POINT_OTHER;
}

/* Before anything runs, what is at each of this shard's points: a table
 * this run made before is kept (loaded into its row: the point is not
 * measured again); another run's table is refused (each named) unless
 * --restart replaces them. */
static int scan_points(const cli_space_args *base, const sslat_calculator *calculator, const sslat_calc_options *options,
                       const char *dir, bool restart, point_result *rows, int total, int32_t shard_index,
                       int32_t shard_count)
{
    int others = 0, code = CLI_OK;
    for (int k = 0; code == CLI_OK && k < total; k++) {
        if (k % shard_count != shard_index) continue;
        sslat_space *space = NULL;
        sslat_calc_options point_options;
        char made_by[24], path[1024], why[1024];
        code = open_point(base, calculator, options, &rows[k], &space, &point_options, NULL, made_by);
        if (code != CLI_OK) break;
        snprintf(path, sizeof path, "%s/%s.sslat", dir, rows[k].name);
        point_state state = check_point(path, calculator, space, rows[k].dtype, made_by, &rows[k].table, why, sizeof why);
        rows[k].reused = state == POINT_KEEP;
        if (state == POINT_OTHER && !restart) {
            fprintf(stderr, "sslat sweep: %s: %s\n", path, why);
            others++;
        }
        sslat_space_free(space);
    }
    if (code == CLI_OK && others) {
        fprintf(stderr, "sslat sweep: %d earlier table%s in %s would be replaced: nothing was measured. Give another "
                        "-o to keep both, or --restart to replace them.\n", others, others == 1 ? "" : "s", dir);
        code = CLI_BAD_INPUT;
    }
    return code;
}

/* A value table (--value FILE) at a point: the same values at every batch and
 * resolution, so its blocks and candidates must be the point's (checked by
 * count and label; the hash differs with the input). */
static sslat_status value_table_for_point(const sslat_container *values, const sslat_space *space,
                                          sslat_container **out, sslat_error *err)
{
    int32_t blocks = sslat_space_block_count(space);
    if (sslat_container_block_count(values) != blocks)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "--value: the value table has %d blocks, the space %d",
                          (int)sslat_container_block_count(values), (int)blocks);
    for (int32_t b = 0; b < blocks; b++) {
        int32_t count = sslat_space_candidate_count(space, b);
        if (sslat_container_candidate_count(values, b) != count)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "--value: block %d has %d candidates in the value "
                              "table, %d in the space", (int)b, (int)sslat_container_candidate_count(values, b),
                              (int)count);
        for (int32_t c = 0; c < count; c++) {
            const char *label = sslat_container_candidate_label(values, b, c);
            if (label && *label && strcmp(label, sslat_space_candidate_label(space, b, c)))
                return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "--value: block %d candidate %d is '%s' in the "
                                  "value table, '%s' in the space", (int)b, (int)c, label,
                                  sslat_space_candidate_label(space, b, c));
        }
    }
    sslat_status status = sslat_container_clone(values, out, err);
    int32_t nchw[4];
    sslat_space_input_shape(space, nchw);
    /* the point's space and input: the pair of tables is then one space's */
    if (status == SSLAT_OK)
        status = sslat_container_set_space_info(*out, sslat_space_name(space), sslat_space_hash(space), nchw, err);
    return status;
}

/* The point's answers from its table: extremes, fastest architecture, and
 * the best by the value table within each budget. */
static sslat_status answer_point(const sslat_calculator *value_calculator, const sslat_space *space,
                                 const sweep_answers *answers, point_result *r, sslat_error *err)
{
    sslat_status status = sslat_min_latency(r->table, &r->min, err);
    if (status == SSLAT_OK) status = sslat_mean_latency(r->table, &r->mean, err);
    if (status == SSLAT_OK) status = sslat_max_latency(r->table, &r->max, err);
    r->has_space_arch = status == SSLAT_OK && sslat_space_arch(space, NULL, 0) > 0;
    if (r->has_space_arch) status = sslat_best_arch_latency(r->table, space, &r->space_arch, err);
    r->blocks = sslat_container_block_count(r->table);
    size_t blocks = (size_t)r->blocks, budgets = (size_t)answers->n_budgets + 1;
    r->argmin = calloc(blocks + 1, sizeof *r->argmin);
    r->budget_arch = calloc(blocks * budgets + 1, sizeof *r->budget_arch); /* budget j's from j × blocks */
    r->budget_latency = calloc(budgets, sizeof *r->budget_latency);
    r->budget_value = calloc(budgets, sizeof *r->budget_value);
    r->budget_fits = calloc(budgets, sizeof *r->budget_fits);
    if (status == SSLAT_OK && (!r->argmin || !r->budget_arch || !r->budget_latency || !r->budget_value || !r->budget_fits))
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    if (status == SSLAT_OK) status = sslat_argmin_arch(r->table, r->argmin, r->blocks, err);
    if (status == SSLAT_OK && answers->n_budgets && answers->value_table)
        status = value_table_for_point(answers->value_table, space, &r->value, err);
    else if (status == SSLAT_OK && answers->n_budgets) {
        sslat_calc_options value_options;
        sslat_calc_options_default(&value_options);
        status = sslat_measure_space(value_calculator, space, &value_options, NULL, NULL, &r->value, err);
    }
    for (int j = 0; status == SSLAT_OK && j < answers->n_budgets; j++) {
        sslat_budget_result best;
        sslat_error why;
        sslat_status found = sslat_budget_maximize(r->table, r->value, answers->budgets[j], 0,
                                                   &r->budget_arch[(size_t)j * blocks], r->blocks, &best, &why);
        r->budget_fits[j] = found == SSLAT_OK;
        if (found == SSLAT_OK) r->budget_latency[j] = best.latency, r->budget_value[j] = best.value;
        else if (found != SSLAT_ERR_SPACE) status = sslat_fail(err, found, "--budget %g: %s", answers->budgets[j], why.message);
    }
    return status;
}

/* Measure one point unless the scan kept its table, then answer from it. The
 * point keeps DIR/POINT.sslat.journal while it runs: SIGINT / SIGTERM end it
 * within one sample round with its finished units in the journal (exit 4), and
 * the same sweep run again resumes it (--restart discards it). */
static int run_point(const cli_space_args *base, const sslat_calculator *calculator, const sslat_calc_options *options,
                     const char *dir, bool restart, volatile int *stop, const sweep_answers *answers,
                     const sslat_calculator *value_calculator, point_result *r)
{
    sslat_space *space = NULL;
    sslat_calc_options point_options;
    char made_by[24], path[1024], journal_path[1100];
    uint64_t fingerprint;
    int code = open_point(base, calculator, options, r, &space, &point_options, &fingerprint, made_by);
    if (code != CLI_OK) return code;
    snprintf(path, sizeof path, "%s/%s.sslat", dir, r->name);
    snprintf(journal_path, sizeof journal_path, "%s.journal", path);
    sslat_error err;
    double started = sslat_now_s();
    sslat_status status = SSLAT_OK;
    sslat_journal *journal = NULL;
    if (!r->reused) {
        sslat_run_plan plan = POINT_PLAN;
        sslat_journal_info info;
        plan.stop = stop;
        status = sslat_journal_open(journal_path, restart ? SSLAT_JOURNAL_RESTART : SSLAT_JOURNAL_RESUME, fingerprint,
                                    &journal, &info, &err);
        if (status == SSLAT_OK && info.recovered)
            fprintf(stderr, "[sweep] point %s: resuming %zu units from %s\n", r->name, info.recovered, journal_path);
        plan.journal = journal;
        if (status == SSLAT_OK) status = sslat_measure_space(calculator, space, &point_options, &plan, NULL, &r->table, &err);
        if (status == SSLAT_OK) status = sslat_container_set_metadata(r->table, "sweep.options", made_by, &err);
        if (status == SSLAT_OK) status = sslat_container_save_to_file(r->table, path, &err);
    }
    r->wall = sslat_now_s() - started;
    if (status == SSLAT_OK) status = answer_point(value_calculator, space, answers, r, &err);
    if (status == SSLAT_ERR_INTERRUPTED && sslat_journal_count(journal))
        fprintf(stderr, "sslat sweep: point %s: %s; its finished units are in %s: run the same sweep again to resume "
                        "it\n", r->name, err.message, journal_path);
    else if (status == SSLAT_ERR_INTERRUPTED)
        fprintf(stderr, "sslat sweep: point %s: %s: run the same sweep again to go on\n", r->name, err.message);
    else if (status != SSLAT_OK) fprintf(stderr, "sslat sweep: point %s: %s\n", r->name, err.message);
    /* the journal goes once the point's table is written; kept when it holds work */
    sslat_journal_close(journal, status == SSLAT_OK || sslat_journal_count(journal) == 0);
    sslat_space_free(space);
    return cli_exit_code(status);
}

/* ---- parse ------------------------------------------------------------------------ */

enum { OPT_BATCH = 3001, OPT_RESOLUTION, OPT_DTYPE, OPT_SHARD, OPT_RUNS, OPT_WARMUP, OPT_THREADS, OPT_CACHE,
       OPT_BUDGET, OPT_VALUE, OPT_RESTART };

typedef struct sweep_args {
    const char *type, *dir, *dtypes /* NULL: fp32 */, *shard, *value_type;
    int32_t batches[SSLAT_MAX_SWEEP_VALUES], resolutions[SSLAT_MAX_SWEEP_VALUES];
    int n_batch, n_res;
    double budgets[SSLAT_MAX_SWEEP_VALUES];
    int n_budgets;
    bool restart;
    sslat_calc_options options;
} sweep_args;

static void sweep_usage(void)
{
    printf("usage: sslat sweep [SPACE] -c TYPE --batch 1,8,32 --resolution 160,224 [--dtype fp32]\n"
           "                   -o DIR [--budget B1,B2 [--value mac|VALUE.sslat]] [--restart] [--shard I/N]\n"
           "                   [--runs N --warmup N --threads N --cache hot|cold]\n\n"
           "Writes DIR/b<batch>_r<res>_<dtype>.sslat per point, and DIR/summary.csv, summary.jsonl\n"
           "and summary.html: per point min / mean / max, the latency of the space's \"arch\", the\n"
           "fastest architecture and, for each --budget B (in the table's unit: per sample for a\n"
           "timed table), the architecture with the most --value (an analytic table made at the\n"
           "point's input: mac, mac_thop, mac_fvcore, mac_pthflops; default mac; or a value table\n"
           "of yours, VALUE.sslat from sslat import --values, the same values at every point) within\n"
           "B, labelled with its name and unit. The page\n"
           "shows where these architectures change from point to point.\n"
           "A point whose table this run made before is kept (resume). One made by another run\n"
           "(other options, calculator or machine) is never replaced silently: the sweep stops\n"
           "before measuring, naming it; --restart replaces them. --shard I/N (or the Slurm\n"
           "array variables) takes every N-th point.\n");
}

static int sweep_option(int opt, const char *value, void *args)
{
    sweep_args *a = args;
    sslat_calc_options *o = &a->options;
    switch (opt) {
    case 'c': return cli_set_once(&a->type, value, "sweep", "-c") ? CLI_OK : CLI_BAD_INPUT;
    case 'o': return cli_set_once(&a->dir, value, "sweep", "-o") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_BATCH: return (a->n_batch = parse_list(value, "--batch", a->batches)) < 1 ? CLI_BAD_INPUT : CLI_OK;
    case OPT_RESOLUTION:
        return (a->n_res = parse_list(value, "--resolution", a->resolutions)) < 1 ? CLI_BAD_INPUT : CLI_OK;
    case OPT_DTYPE: return cli_set_once(&a->dtypes, value, "sweep", "--dtype") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SHARD: return cli_set_once(&a->shard, value, "sweep", "--shard") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_RUNS: return cli_parse_int(value, "--runs", 1, 1000000, &o->run_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_WARMUP:
        return cli_parse_int(value, "--warmup", 0, 1000000, &o->warmup_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_THREADS:
        return cli_parse_int(value, "--threads", 0, sslat_max_threads(), &o->threads) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_CACHE: {
        int code = CLI_OK;
        cli_device_option(CLI_OPT_CACHE, value, o, &code); /* hot | cold, as measure */
        return code;
    }
    case OPT_BUDGET:
        if (a->n_budgets) {
            fprintf(stderr, "sslat sweep: --budget is given twice (one list: --budget 1.5,2,3)\n");
            return CLI_BAD_INPUT;
        }
        return (a->n_budgets = parse_budgets(value, a->budgets)) < 1 ? CLI_BAD_INPUT : CLI_OK;
    case OPT_VALUE: return cli_set_once(&a->value_type, value, "sweep", "--value") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_RESTART: a->restart = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option SWEEP_OPTIONS[] = {
    {"calculator", required_argument, NULL, 'c'}, {"output", required_argument, NULL, 'o'},
    {"batch", required_argument, NULL, OPT_BATCH}, {"resolution", required_argument, NULL, OPT_RESOLUTION},
    {"dtype", required_argument, NULL, OPT_DTYPE}, {"shard", required_argument, NULL, OPT_SHARD},
    {"runs", required_argument, NULL, OPT_RUNS},   {"warmup", required_argument, NULL, OPT_WARMUP},
    {"threads", required_argument, NULL, OPT_THREADS}, {"help", no_argument, NULL, 'h'},
    {"cache", required_argument, NULL, OPT_CACHE}, {"budget", required_argument, NULL, OPT_BUDGET},
    {"value", required_argument, NULL, OPT_VALUE}, {"restart", no_argument, NULL, OPT_RESTART},
    {NULL, 0, NULL, 0}};
static const cli_verb SWEEP = {"sweep", "c:o:h", SWEEP_OPTIONS, sweep_usage, sweep_option, 0, 1,
                               "[SPACE] and -o DIR (sslat sweep --help)"};

/* ---- check ------------------------------------------------------------------------ */

/* The dtypes of --dtype, each once and each one the calculator measures. */
static int parse_dtypes(const char *dtypes, const sslat_calculator *calculator, char copy[64],
                        const char *list[SSLAT_DTYPE_COUNT], int *count)
{
    if (strlen(dtypes) >= 64) {
        fprintf(stderr, "sslat sweep: --dtype takes up to four of fp32, tf32, fp16, bf16, got '%.80s'\n", dtypes);
        return CLI_BAD_INPUT;
    }
    snprintf(copy, 64, "%s", dtypes);
    size_t length = strlen(copy);
    if (!length || copy[0] == ',' || copy[length - 1] == ',' || strstr(copy, ",,")) {
        fprintf(stderr, "sslat sweep: --dtype takes comma-separated names (fp32,fp16), got '%s'\n", copy);
        return CLI_BAD_INPUT;
    }
    char *save = NULL;
    unsigned seen = 0;
    *count = 0;
    for (char *d = strtok_r(copy, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        sslat_dtype dtype;
        if (!sslat_dtype_parse(d, &dtype) || (seen & SSLAT_DTYPE_BIT(dtype))) {
            fprintf(stderr, "sslat sweep: --dtype: '%s' is %s (fp32, tf32, fp16, bf16, each once)\n", d,
                    sslat_dtype_parse(d, &dtype) ? "given twice" : "unknown");
            return CLI_BAD_INPUT;
        }
        seen |= SSLAT_DTYPE_BIT(dtype);
        if (!(calculator->dtypes & SSLAT_DTYPE_BIT(dtype))) {
            fprintf(stderr, "sslat sweep: the %s calculator does not measure %s\n", calculator->name, d);
            return CLI_UNAVAILABLE;
        }
        list[(*count)++] = d;
    }
    return CLI_OK;
}

/* --value FILE: a whole table, the same values at every point. */
static int load_value_table(const char *path, sslat_container **table)
{
    int code = cli_load_container(path, table);
    if (code != CLI_OK) return code;
    sslat_error err;
    if (sslat_container_require_complete(*table, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat sweep: --value %s: %s\n", path, err.message);
        sslat_container_free(*table);
        *table = NULL;
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* The calculators (the one swept, the one budgets maximise) and the folder's name. */
static int check_args(sweep_args *a, const sslat_calculator **calculator, const sslat_calculator **value_calculator,
                      sslat_container **value_table)
{
    *calculator = a->type ? sslat_calculator_find(a->type) : cli_best_calculator();
    if (!*calculator) {
        fprintf(stderr, "sslat sweep: unknown calculator '%s'\n", a->type ? a->type : "");
        return CLI_BAD_INPUT;
    }
    if (a->value_type && !a->n_budgets) {
        fprintf(stderr, "sslat sweep: --value names the table each --budget maximises: give --budget too\n");
        return CLI_BAD_INPUT;
    }
    if (!a->value_type) a->value_type = "mac";
    *value_table = NULL;
    if (strstr(a->value_type, ".sslat") || strchr(a->value_type, '/')) /* a file: a value table of the user's */
        return load_value_table(a->value_type, value_table);
    *value_calculator = sslat_calculator_find(a->value_type);
    if (!*value_calculator || (*value_calculator)->kind != SSLAT_CALC_ANALYTIC) {
        fprintf(stderr, "sslat sweep: --value '%s': the budgets maximise an analytic table made at each point "
                        "(mac, mac_thop, mac_fvcore, mac_pthflops) or a value table (FILE.sslat, sslat import "
                        "--values)\n", a->value_type);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* A path made from format (NULL: out of memory). */
static char *path_of(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *path = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (!path) return NULL;
    va_start(args, format);
    vsnprintf(path, (size_t)length + 1, format, args);
    va_end(args);
    return path;
}

/* No output of the sweep (a point table, its journal, a summary, a lock) is
 * the space file itself. */
static int check_folder_paths(const char *dir, const char *suffix, const point_result *rows, int total,
                              const char *space_path)
{
    static const char *const SUMMARIES[] = {".csv", ".jsonl", ".html"};
    size_t most = 2 * (size_t)total + 5, n = 0;
    char **paths = calloc(most, sizeof *paths);
    for (int k = 0; paths && k < total; k++) {
        paths[n++] = path_of("%s/%s.sslat", dir, rows[k].name);
        paths[n++] = path_of("%s/%s.sslat.journal", dir, rows[k].name);
    }
    for (int k = 0; paths && k < 3; k++) paths[n++] = path_of("%s/summary%s%s", dir, suffix, SUMMARIES[k]);
    if (paths) paths[n++] = path_of("%s/.sslat-sweep.lock", dir);
    if (paths && *suffix) paths[n++] = path_of("%s/.sslat-sweep%s.lock", dir, suffix); /* a shard's own */
    int code = paths ? CLI_OK : CLI_FAILURE;
    for (size_t k = 0; code == CLI_OK && k < n; k++)
        if (!paths[k]) code = CLI_FAILURE;
    if (code == CLI_OK) code = cli_check_paths("sweep", &space_path, 1, (const char *const *)paths, n);
    for (size_t k = 0; paths && k < n; k++) free(paths[k]);
    free(paths);
    return code;
}

/* What names this sweep in its folder's lock: the calculator, the first
 * point's run fingerprint (space, options, machine), every point, the answers
 * asked for and the shard count. */
static int sweep_signature(const cli_space_args *base, const sslat_calculator *calculator, const sweep_args *a,
                           const point_result *rows, int total, int32_t shard_count, char *out, size_t size)
{
    sslat_space *space = NULL;
    sslat_calc_options point_options;
    char made_by[24];
    point_result first = rows[0];
    int code = open_point(base, calculator, &a->options, &first, &space, &point_options, NULL, made_by);
    if (code != CLI_OK) return code;
    sslat_space_free(space);
    sslat_hasher h;
    sslat_hash_begin(&h);
    sslat_hash_bytes(&h, made_by, strlen(made_by));
    for (int k = 0; k < total; k++) sslat_hash_bytes(&h, rows[k].name, strlen(rows[k].name) + 1);
    sslat_hash_bytes(&h, a->value_type, strlen(a->value_type));
    sslat_hash_bytes(&h, a->budgets, (size_t)a->n_budgets * sizeof *a->budgets);
    sslat_hash_i32(&h, shard_count);
    snprintf(out, size, "calculator %s, %d point%s (%s .. %s), %d shard%s, sweep %016" PRIx64, calculator->name, total,
             total == 1 ? "" : "s", rows[0].name, rows[total - 1].name, (int)shard_count, shard_count == 1 ? "" : "s",
             h.state);
    return CLI_OK;
}

/* --value FILE against the first point's space, before anything is measured
 * (every point has the same blocks and labels; only the input differs). */
static int check_value_table(const cli_space_args *base, const sslat_calculator *calculator, const sweep_args *a,
                             const point_result *rows, const sslat_container *values)
{
    sslat_space *space = NULL;
    sslat_calc_options point_options;
    char made_by[24];
    point_result first = rows[0];
    int code = open_point(base, calculator, &a->options, &first, &space, &point_options, NULL, made_by);
    sslat_container *bound = NULL;
    sslat_error err;
    if (code == CLI_OK && value_table_for_point(values, space, &bound, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat sweep: %s\n", err.message);
        code = CLI_BAD_INPUT;
    }
    sslat_container_free(bound);
    sslat_space_free(space);
    return code;
}

/* ---- run ------------------------------------------------------------------------ */

/* This shard's points, one after the other, each printed as it ends; rows[0..*done) are the measured ones. */
static int run_points(const cli_space_args *base, const sslat_calculator *calculator, const sweep_args *a,
                      volatile int *stop, const sweep_answers *answers, const sslat_calculator *value_calculator,
                      point_result *rows, int total, int32_t shard_index, int32_t shard_count, int *done)
{
    int code = CLI_OK, n = 0;
    printf("%-22s %10s %12s %12s %12s %12s %8s\n", "point", "", "min", "mean", "max", "space arch", "wall s");
    for (int k = 0; code == CLI_OK && k < total; k++) {
        if (k % shard_count != shard_index) continue;
        point_result *r = &rows[n];
        if (r != &rows[k]) { /* the shard's points, packed to the front; each row owns what it holds */
            *r = rows[k];
            point_result moved = {0};
            rows[k] = moved;
        }
        if (*stop) {
            fprintf(stderr, "sslat sweep: interrupted before point %s: run the same sweep again to go on\n", r->name);
            code = CLI_INTERRUPTED;
            break;
        }
        /* a Slurm log shows each point begin and end, with the point's own progress between */
        fprintf(stderr, "[sweep] point %d/%d %s: started\n", k + 1, total, r->name);
        code = run_point(base, calculator, &a->options, a->dir, a->restart, stop, answers, value_calculator, r);
        if (code == CLI_OK)
            fprintf(stderr, "[sweep] point %d/%d %s: %s in %.1f s\n", k + 1, total, r->name,
                    r->reused ? "kept (its table was there)" : "done", r->wall);
        if (code != CLI_OK) break;
        char best[24] = "-";
        if (r->has_space_arch) snprintf(best, sizeof best, "%.4f", r->space_arch);
        printf("%-22s %10s %12.4f %12.4f %12.4f %12s %8.2f%s\n", r->name, sslat_calculator_unit(calculator), r->min,
               r->mean, r->max, best, r->wall, r->reused ? "  (kept)" : "");
        fflush(stdout);
        n++;
    }
    *done = n;
    return code;
}

static int sweep_points(const sweep_args *given, const cli_space_args *base_args, const sslat_calculator *calculator,
                        const sslat_calculator *value_calculator, const sweep_answers *answers_in);

int cmd_sweep(int argc, char **argv)
{
    sweep_args a = {.batches = {1}, .resolutions = {224}, .n_batch = 1, .n_res = 1};
    sslat_calc_options_default(&a.options);
    int first, code = cli_parse(&SWEEP, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (!a.dir) return cli_expects(&SWEEP);
    cli_space_args base = {first < argc ? argv[first] : NULL, {0, 0, 0}};
    const sslat_calculator *calculator = NULL, *value_calculator = NULL;
    sslat_container *value_table = NULL;
    code = check_args(&a, &calculator, &value_calculator, &value_table);
    if (code != CLI_OK) return code;
    sweep_answers answers = {a.budgets, a.n_budgets, value_table ? sslat_container_value_name(value_table) : a.value_type,
                             value_table};
    code = sweep_points(&a, &base, calculator, value_calculator, &answers);
    sslat_container_free(value_table);
    return code;
}

/* The sweep itself, once its arguments are checked. */
static int sweep_points(const sweep_args *given, const cli_space_args *base_args, const sslat_calculator *calculator,
                        const sslat_calculator *value_calculator, const sweep_answers *answers_in)
{
    sweep_args a = *given;
    cli_space_args base = *base_args;
    sweep_answers answers = *answers_in;
    int code = CLI_OK;
    int32_t shard_index, shard_count;
    code = cli_shard_options(a.shard, &shard_index, &shard_count);
    if (code != CLI_OK) return code;
    /* each dtype once: fp32, tf32, fp16, bf16 */
    const char *dtype_list[SSLAT_DTYPE_COUNT];
    int n_dtype = 0;
    char dtype_copy[64];
    code = parse_dtypes(a.dtypes ? a.dtypes : "fp32", calculator, dtype_copy, dtype_list, &n_dtype);
    if (code != CLI_OK) return code;
    const char *dir = a.dir;
    if (strlen(dir) > 900) { /* its files are DIR/b<batch>_r<res>_<dtype>.sslat and DIR/summary*.csv */
        fprintf(stderr, "sslat sweep: -o DIR: a folder path of %zu bytes leaves no room for the points' file names "
                        "(at most 900)\n", strlen(dir));
        return CLI_BAD_INPUT;
    }
    int total = a.n_batch * a.n_res * n_dtype, n = 0;
    point_result *rows = calloc((size_t)total, sizeof *rows);
    if (!rows) return CLI_FAILURE;
    for (int k = 0; k < total; k++) {
        point_result *r = &rows[k];
        r->batch = a.batches[k / (a.n_res * n_dtype)];
        r->resolution = a.resolutions[(k / n_dtype) % a.n_res];
        r->dtype = dtype_list[k % n_dtype];
        snprintf(r->name, sizeof r->name, "b%d_r%d_%s", r->batch, r->resolution, r->dtype);
    }
    char suffix[48] = "";
    if (shard_count > 1) snprintf(suffix, sizeof suffix, "-%d-of-%d", shard_index, shard_count);
    char signature[256];
    sweep_folder folder = {.common = -1, .own = -1, .path = dir};
    code = sweep_signature(&base, calculator, &a, rows, total, shard_count, signature, sizeof signature);
    if (code == CLI_OK && answers.value_table) code = check_value_table(&base, calculator, &a, rows, answers.value_table);
    if (code == CLI_OK && (code = sweep_folder_make(dir, suffix, &folder)) == CLI_OK) {
        code = check_folder_paths(dir, suffix, rows, total, base.path); /* before a lock writes anything */
        if (code == CLI_OK) code = sweep_folder_lock(&folder, suffix, signature);
        if (code != CLI_OK) sweep_folder_close(&folder);
    }
    if (code != CLI_OK) {
        free(rows);
        return code;
    }
    /* SIGINT / SIGTERM (Slurm preemption; also when inherited as ignored, as
     * from a script's `&`): the point in flight ends within a round and keeps
     * its journal, the locks are released, exit 4 */
    volatile int *stop = cli_catch_stop_signals();
    /* refused or failed before the first point: nothing measured */
    code = scan_points(&base, calculator, &a.options, dir, a.restart, rows, total, shard_index, shard_count);
    if (code == CLI_OK)
        code = run_points(&base, calculator, &a, stop, &answers, value_calculator, rows, total, shard_index,
                          shard_count, &n);
    /* ---- write */
    if (code == CLI_OK) sweep_print_answers(rows, n, &answers);
    if (code == CLI_OK) code = sweep_write_summary(dir, suffix, rows, n, &answers);
    if (code == CLI_OK)
        fprintf(stderr, "sslat sweep: %d points in %s (summary%s.csv, .jsonl, .html)\n", n, dir, suffix);
    for (int k = 0; k < total; k++) point_result_free(&rows[k]);
    sweep_folder_close(&folder);
    free(rows);
    return code;
}
