/* sslat measure: run a calculator over a space and write the container. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <sys/stat.h>

#include "api/latency.h"
#include "base/error.h"
#include "base/file_io.h"
#include "base/limits.h"
#include "calc/calculator.h"
#include "api/context.h"
#include "calc/journal.h"
#include "calc/run.h"
#include "base/text.h"
#include "cli/cli.h"
#include "table/container.h"
#include "cli/mpi_measure.h"
#include "cli/reference.h"
#include "ir/space.h"

static void measure_usage(void)
{
    printf("usage: sslat measure [SPACE] [-c TYPE] [-o FILE.sslat] [--json FILE] [--csv FILE]\n\n"
           "Computes the constant part and one value per candidate of every NAS block and\n"
           "writes a container: binary with -o (docs/format.md), JSON / CSV exports with\n"
           "--json / --csv ('-' = standard output). With none of them, JSON goes to stdout.\n"
           "Files are written atomically (temp file + rename).\n\n" CLI_SPACE_HELP
           "  -c, --calculator T latency type (sslat calculators lists them); default: the best\n"
           "                     one that can run here\n"
           "  -o, --output FILE  the binary container\n"
           "  --json FILE        JSON export (every field, exact)\n"
           "  --csv FILE         CSV export (one row per block x candidate)\n"
           "  --ignore LIST      op kinds or activations left out (analytic calculators)\n"
           "  --fuse-bn          analytic: count with every BN folded into the conv before it\n"
           "  --context N        timed: time N seeded architectures end to end and refit the\n"
           "                     candidates to them (each candidate as it costs inside networks)\n"
           "  --reference R      with --context: time those architectures in the runtime you deploy\n"
           "                     instead of sslat, so the table predicts that runtime (then check\n"
           "                     it: sslat validate --reference R): onnxruntime, torch (cuda:\n"
           "                     cudnn.benchmark on, TF32 off), torch-default (cuda: PyTorch's\n"
           "                     defaults, benchmark off, TF32 on) or torch-compile (Inductor;\n"
           "                     compile time apart); on cuda each network one CUDA graph\n"
           "timed calculators (cpu, cuda):\n"
           "  --cache hot|cold   hot (default): each unit warmed up and timed back to back, as a\n"
           "                     benchmark loop over one model runs; cold: weights evicted between\n"
           "                     samples (cpu: units interleaved over copies past 2x L2; cuda: L2\n"
           "                     flushed). Recorded as calculator.cache\n"
           "  --strict           exit 6 (after writing the table) when its quality verdict (cpu)\n"
           "                     or that of its --context --reference runs is 'disturbed':\n"
           "                     another process or the hypervisor kept the threads from their\n"
           "                     cores (quality.* / context.quality.* in the metadata)\n"
           "  --mode M           fused (default: conv+BN+act+residual as one primitive) or eager\n"
           "  --threads N        worker threads (default: every core)\n"
           "  --warmup N         runs before timing (default 10)\n"
           "  --runs N           timed runs per subgraph (default 10; the minimum with --adaptive)\n"
           "  --adaptive NOISE   keep timing until the median's 95%% CI half-width is under NOISE\n"
           "                     (relative, e.g. 0.01) or --max-seconds per subgraph have passed\n"
           "  --max-seconds S    time cap per subgraph for --adaptive (default 2)\n"
           "  --seed S           seed of the random inputs and weights\n"
           "  --keep-going       a unit that fails is recorded (its error on stderr and in the\n"
           "                     table's metadata, its entry 0) and the run goes on; the table is\n"
           "                     written marked incomplete (stats, merge, validate refuse it) and\n"
           "                     the exit status is 5; --resume then measures only what failed\n"
           "cuda:\n" CLI_DEVICE_HELP
           "sharding (Slurm job arrays; then sslat merge):\n"
           "  --shard I/N        measure only shard I of N (work units balanced by MACs); default\n"
           "                     from SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN and\n"
           "                     SLURM_ARRAY_TASK_COUNT when set; needs -o\n"
           "resumable runs (with -o):\n"
           "  the run keeps OUT.journal (one synced record per finished unit) and removes it\n"
           "  when the table is written; SIGINT / SIGTERM finish the current units and exit 4\n"
           "  --resume           re-use the journal's records and measure only the rest\n"
           "  --restart          discard the journal an earlier, unfinished run left (without\n"
           "                     --resume or --restart such a journal is refused, not lost)\n"
           "  --keep-journal     leave the journal in place after success\n"
           "  -h, --help         this help\n");
}

/* Context mode against a reference runtime: the architectures go to the
 * reference runner (cli/reference.c) in one call, timed the way the table was
 * (back to back for a hot table, interleaved for a cold one). */
typedef struct reference_timer {
    cli_reference_options options;
    cli_reference_answer answer;
} reference_timer;

static sslat_status time_in_reference(void *context, const sslat_space *space, const int32_t *const *archs, size_t n,
                                      double *ms, sslat_error *err)
{
    reference_timer *t = context;
    int code = cli_reference_measure_architectures(space, archs, n, &t->options, ms, &t->answer);
    if (code == CLI_OK) return SSLAT_OK;
    sslat_status status = code == CLI_UNAVAILABLE   ? SSLAT_ERR_UNSUPPORTED
                          : code == CLI_INTERRUPTED ? SSLAT_ERR_INTERRUPTED
                          : code == CLI_BAD_INPUT   ? SSLAT_ERR_INVALID_ARGUMENT
                                                    : SSLAT_ERR_IO;
    return sslat_fail(err, status, "the %s runs of context mode failed (said above)", t->options.runtime);
}

static sslat_status refine_to_reference(const sslat_calculator *calculator, const sslat_space *space,
                                        const sslat_calc_options *o, int32_t runs, const char *runtime,
                                        sslat_container *table, sslat_context_result *fit, sslat_error *err)
{
    bool cuda = strcmp(calculator->name, "cuda") == 0;
    bool nhwc = cuda && sslat_layout_resolve(o->layout, o->dtype) == SSLAT_LAYOUT_NHWC;
    const char *threads = sslat_container_metadata(table, "host.threads");
    reference_timer timer = {.options = {"measure", runtime, cuda ? "cuda" : "cpu", sslat_dtype_name(o->dtype),
                              cuda || !threads ? 0 : (int32_t)strtol(threads, NULL, 10), o->warmup_iterations,
                              o->run_iterations, nhwc, cuda && o->mode == SSLAT_MODE_FUSED, !o->cold, o->seed}};
    snprintf(timer.answer.runtime, sizeof timer.answer.runtime, "%s", runtime);
    sslat_context_target target = {time_in_reference, &timer, timer.answer.runtime, runtime, true};
    /* the runner writes the runtime it used (version, settings, regime) into
     * timer.answer before the fit records the name */
    sslat_status status = sslat_context_refine_to(space, o->seed, runs, &target, table, fit, err);
    /* the reference's own verdict: said, and kept with the fit it made */
    if (status == SSLAT_OK) {
        cli_reference_say_quality("measure", &timer.answer);
        status = cli_reference_record_quality(&timer.answer, "context.quality", table, err);
    }
    if (status == SSLAT_OK && timer.answer.compiled) {
        char text[64];
        snprintf(text, sizeof text, "%.3f", timer.answer.compile_total_s);
        status = sslat_container_set_metadata(table, "context.compile_s", text, err);
        fprintf(stderr, "[context] torch.compile: %d networks compiled in %.1f s (median %.2f s, longest %.2f s), "
                        "outside every timing\n", timer.answer.compiled, timer.answer.compile_total_s,
                timer.answer.compile_median_s, timer.answer.compile_max_s);
    }
    return status;
}

/* Every requested output, all or nothing: a failing export leaves no binary
 * behind, and no target changes before every one is ready. */
static int write_outputs(const sslat_container *c, const char *output, const char *json,
                         const char *csv)
{
    sslat_error err;
    sslat_output files[3];
    size_t n = 0;
    uint8_t *binary = NULL;
    size_t binary_size = 0;
    char *texts[2] = {NULL, NULL};
    sslat_status status = SSLAT_OK;
    if (output && (status = sslat_container_save_to_bytes(c, &binary, &binary_size, &err)) == SSLAT_OK)
        files[n++] = (sslat_output){output, binary, binary_size};
    const char *paths[2] = {json ? json : (!output && !csv ? "-" : NULL), csv};
    for (int kind = 0; status == SSLAT_OK && kind < 2; kind++) {
        if (!paths[kind]) continue;
        status = kind == 0 ? sslat_container_export_json(c, &texts[kind], &err)
                           : sslat_container_export_csv(c, &texts[kind], &err);
        if (status == SSLAT_OK && strcmp(paths[kind], "-") != 0)
            files[n++] = (sslat_output){paths[kind], texts[kind], strlen(texts[kind])};
    }
    if (status == SSLAT_OK) status = sslat_write_files_atomic(files, n, &err);
    for (int kind = 0; status == SSLAT_OK && kind < 2; kind++) /* standard output last, once the files are safe */
        if (paths[kind] && !strcmp(paths[kind], "-")) sslat_json_write_for_terminal(stdout, texts[kind]);
    if (status != SSLAT_OK) fprintf(stderr, "sslat measure: %s\n", err.message);
    sslat_free(binary);
    sslat_free(texts[0]);
    sslat_free(texts[1]);
    return cli_exit_code(status);
}

/* OUT.journal (OUT.rankR.journal under mpirun), or NULL when the name would
 * not fit (said: a cut name would land on another file). */
static char *journal_name(const char *output, bool mpi, int rank)
{
    size_t size = strlen(output) + 32;
    char *path = malloc(size);
    if (!path) return NULL;
    if (mpi) snprintf(path, size, "%s.rank%d.journal", output, rank);
    else snprintf(path, size, "%s.journal", output);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strlen(name) > 255) {
        fprintf(stderr, "sslat measure: the journal's name %s is longer than a file name may be (255 bytes): "
                        "choose a shorter -o\n", name);
        free(path);
        return NULL;
    }
    return path;
}

/* ---- parse ------------------------------------------------------------------------ */

enum { OPT_IGNORE = 2001, OPT_JSON, OPT_CSV, OPT_MODE, OPT_THREADS, OPT_WARMUP, OPT_RUNS,
       OPT_ADAPTIVE, OPT_MAX_SECONDS, OPT_SEED, OPT_SHARD, OPT_RESUME, OPT_KEEP_JOURNAL, OPT_RESTART,
       OPT_FUSE_BN, OPT_CONTEXT, OPT_KEEP_GOING, OPT_REFERENCE, OPT_STRICT };

/* What the command line asked for. */
typedef struct measure_args {
    cli_space_args space;
    const char *type, *output, *ignore, *json, *csv;
    sslat_calc_options options;
    sslat_run_plan plan;
    const char *shard;
    bool resume, keep_journal, restart, strict;
    int32_t context_runs;  /* --context N: refit to N whole architectures */
    const char *reference; /* --reference R: ... timed in that runtime */
} measure_args;

static int measure_option(int opt, const char *value, void *args)
{
    measure_args *a = args;
    sslat_calc_options *o = &a->options;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code) || cli_device_option(opt, value, o, &code)) return code;
    switch (opt) {
    case 'c': return cli_set_once(&a->type, value, "measure", "-c") ? CLI_OK : CLI_BAD_INPUT;
    case 'o': return cli_set_once(&a->output, value, "measure", "-o") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_JSON: return cli_set_once(&a->json, value, "measure", "--json") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_CSV: return cli_set_once(&a->csv, value, "measure", "--csv") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_IGNORE: a->ignore = value; return CLI_OK;
    case OPT_MODE:
        if (strcmp(value, "fused") && strcmp(value, "eager")) {
            fprintf(stderr, "sslat measure: --mode is fused or eager, got '%s'\n", value);
            return CLI_BAD_INPUT;
        }
        o->mode = strcmp(value, "fused") == 0 ? SSLAT_MODE_FUSED : SSLAT_MODE_EAGER;
        return CLI_OK;
    case OPT_THREADS:
        return cli_parse_int(value, "--threads", 0, sslat_max_threads(), &o->threads) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_WARMUP:
        return cli_parse_int(value, "--warmup", 0, 1000000, &o->warmup_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_RUNS: return cli_parse_int(value, "--runs", 1, 1000000, &o->run_iterations) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SEED: {
        int32_t seed = 0;
        if (!cli_parse_int(value, "--seed", 0, INT32_MAX, &seed)) return CLI_BAD_INPUT;
        o->seed = (uint64_t)seed;
        return CLI_OK;
    }
    case OPT_ADAPTIVE:
    case OPT_MAX_SECONDS: {
        char *end = NULL;
        double v = strtod(value, &end);
        if (end == value || *end || !(v > 0) || v > 3600) {
            fprintf(stderr, "sslat measure: --%s needs a positive number, got '%s'\n",
                    opt == OPT_ADAPTIVE ? "adaptive" : "max-seconds", value);
            return CLI_BAD_INPUT;
        }
        if (opt == OPT_ADAPTIVE) o->target_noise = v;
        else o->max_seconds = v;
        return CLI_OK;
    }
    case OPT_SHARD: a->shard = value; return CLI_OK;
    case OPT_RESUME: a->resume = true; return CLI_OK;
    case OPT_KEEP_JOURNAL: a->keep_journal = true; return CLI_OK;
    case OPT_RESTART: a->restart = true; return CLI_OK;
    case OPT_FUSE_BN: o->fuse_bn = true; return CLI_OK;
    case OPT_KEEP_GOING: a->plan.keep_going = true; return CLI_OK;
    case OPT_CONTEXT: return cli_parse_int(value, "--context", 1, 100000, &a->context_runs) ? CLI_OK : CLI_BAD_INPUT;
    case OPT_REFERENCE:
        if (!cli_reference_known(value)) {
            fprintf(stderr, "sslat measure: --reference is %s, got '%s'\n", cli_reference_names(), value);
            return CLI_BAD_INPUT;
        }
        return cli_set_once(&a->reference, value, "measure", "--reference") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_STRICT: a->strict = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option MEASURE_OPTIONS[] = {{"calculator", required_argument, NULL, 'c'},
                                                {"output", required_argument, NULL, 'o'},
                                                {"json", required_argument, NULL, OPT_JSON},
                                                {"csv", required_argument, NULL, OPT_CSV},
                                                {"ignore", required_argument, NULL, OPT_IGNORE},
                                                {"mode", required_argument, NULL, OPT_MODE},
                                                {"threads", required_argument, NULL, OPT_THREADS},
                                                {"warmup", required_argument, NULL, OPT_WARMUP},
                                                {"runs", required_argument, NULL, OPT_RUNS},
                                                {"adaptive", required_argument, NULL, OPT_ADAPTIVE},
                                                {"max-seconds", required_argument, NULL, OPT_MAX_SECONDS},
                                                {"seed", required_argument, NULL, OPT_SEED},
                                                {"shard", required_argument, NULL, OPT_SHARD},
                                                {"resume", no_argument, NULL, OPT_RESUME},
                                                {"keep-journal", no_argument, NULL, OPT_KEEP_JOURNAL},
                                                {"restart", no_argument, NULL, OPT_RESTART},
                                                {"fuse-bn", no_argument, NULL, OPT_FUSE_BN},
                                                {"context", required_argument, NULL, OPT_CONTEXT},
                                                {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
                                                {"reference", required_argument, NULL, OPT_REFERENCE},
                                                {"strict", no_argument, NULL, OPT_STRICT},
                                                {"help", no_argument, NULL, 'h'},
                                                CLI_SPACE_LONG_OPTIONS,
                                                CLI_DEVICE_LONG_OPTIONS,
                                                {NULL, 0, NULL, 0}};
/* SPACE is optional; a second argument is refused by check_combinations (after
 * --reference, as the command always said) */
static const cli_verb MEASURE = {"measure", "c:o:h", MEASURE_OPTIONS, measure_usage, measure_option, 0, -1, NULL};

/* ---- check ------------------------------------------------------------------------ */

/* Options that cannot go together, before anything is loaded; extra is the
 * first argument after SPACE, or NULL. */
static int check_combinations(measure_args *a, bool mpi, const char *extra)
{
    if (a->reference && !a->context_runs) {
        fprintf(stderr, "sslat measure: --reference %s times the --context architectures: give --context N too\n",
                a->reference);
        return CLI_BAD_INPUT;
    }
    if (extra) {
        fprintf(stderr, "sslat measure: unexpected argument '%s'\n", extra);
        return CLI_BAD_INPUT;
    }
    if (a->json && a->csv && !strcmp(a->json, "-") && !strcmp(a->csv, "-")) {
        fprintf(stderr, "sslat measure: --json - and --csv - would mix two formats on standard output: one of them\n");
        return CLI_BAD_INPUT;
    }
    int code = cli_shard_options(a->shard, &a->plan.shard_index, &a->plan.shard_count);
    if (code != CLI_OK) return code;
    if (mpi && (a->shard || !a->output || a->json || a->csv)) {
        fprintf(stderr, "sslat measure: under mpirun every rank takes its own shard and rank 0 writes -o OUT "
                        "(no --shard, --json, --csv)\n");
        return CLI_BAD_INPUT;
    }
    if (a->plan.keep_going && (mpi || a->context_runs)) {
        fprintf(stderr, "sslat measure: --keep-going writes an incomplete table, which %s refuses: not with %s "
                        "(measure with --keep-going alone, then --resume until complete)\n",
                mpi ? "the ranks' merge" : "context mode", mpi ? "mpirun" : "--context");
        return CLI_BAD_INPUT;
    }
    if (a->context_runs && (mpi || a->plan.shard_count > 1)) {
        fprintf(stderr, "sslat measure: --context fits a whole table: not with shards or under mpirun "
                        "(merge the parts, then measure the context on one node)\n");
        return CLI_BAD_INPUT;
    }
    if (!mpi && a->plan.shard_count > 1 && (!a->output || a->json || a->csv)) {
        fprintf(stderr, "sslat measure: shard %d/%d writes a part: give -o PART.sslat (no --json / --csv; "
                        "export after sslat merge)\n", a->plan.shard_index, a->plan.shard_count);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* The calculator, and whether it can run what was asked, here. */
static int check_calculator(measure_args *a, bool mpi, const sslat_calculator **calculator)
{
    *calculator = a->type ? sslat_calculator_find(a->type) : cli_best_calculator();
    const sslat_calculator *c = *calculator;
    if (!c) {
        fprintf(stderr, "sslat measure: unknown calculator '%s' (sslat calculators lists them)\n",
                a->type ? a->type : "");
        return CLI_BAD_INPUT;
    }
    int code = CLI_OK;
    bool cuda = !strcmp(c->name, "cuda");
    if (a->reference && (code = cli_reference_check("measure", a->reference, cuda,
                                                    sslat_dtype_name(a->options.dtype))) != CLI_OK)
        return code;
    if (a->reference && (code = cli_reference_available(a->reference, cuda)) != CLI_OK) return code; /* before the table */
    if (a->strict && ((strcmp(c->name, "cpu") && !a->reference) || mpi)) {
        fprintf(stderr, "sslat measure: --strict reads the cpu calculator's quality verdict%s, or the --reference "
                        "runtime's; not %s\n", mpi ? " of one process" : "", mpi ? "under mpirun" : c->name);
        return CLI_BAD_INPUT;
    }
    if (!a->type)
        fprintf(stderr, "sslat measure: calculator %s (the best available here; sslat calculators "
                        "says why others are not)\n", c->name);
    sslat_error err;
    if (sslat_ignore_parse(a->ignore, &a->options.ignore, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat measure: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    if (a->resume && a->restart) {
        fprintf(stderr, "sslat measure: --resume continues a journal, --restart discards it: not both\n");
        return CLI_BAD_INPUT;
    }
    if ((a->resume || a->restart) && !a->output) {
        fprintf(stderr, "sslat measure: --%s needs -o (the journal is OUT.journal)\n", a->resume ? "resume" : "restart");
        return CLI_BAD_INPUT;
    }
    /* a refused run writes nothing, not even a journal: check what can be checked first */
    const char *why = sslat_calculator_unavailable(c);
    if (why) {
        fprintf(stderr, "sslat measure: calculator '%s' cannot run: %s\n", c->name, why);
        return CLI_UNAVAILABLE;
    }
    if (!(c->dtypes & SSLAT_DTYPE_BIT(a->options.dtype))) {
        fprintf(stderr, "sslat measure: calculator '%s' does not measure %s\n", c->name,
                sslat_dtype_name(a->options.dtype));
        return CLI_UNAVAILABLE;
    }
    return CLI_OK;
}

/* -o is a file that can hold a journal beside it, or written in place (a FIFO,
 * /dev/stdout: no journal); every output is writable and none is an input.
 * *journal_path: OUT.journal, or NULL. */
static int check_outputs(const measure_args *a, bool *direct_output, char **journal_path)
{
    const char *output = a->output;
    *direct_output = false;
    *journal_path = NULL;
    struct stat output_stat;
    if (output && (!*output || (stat(output, &output_stat) == 0 && S_ISDIR(output_stat.st_mode)))) {
        fprintf(stderr, "sslat measure: -o '%s' is %s: give a file name\n", output, *output ? "a directory" : "empty");
        return CLI_BAD_INPUT;
    }
    if (output) sslat_check_writable(output, direct_output, NULL); /* its refusal is cli_check_paths's */
    if (*direct_output && (a->resume || a->restart || a->keep_journal)) {
        fprintf(stderr, "sslat measure: -o %s is not a regular file, so the run keeps no journal: --%s needs a file "
                        "-o\n", output, a->resume ? "resume" : a->restart ? "restart" : "keep-journal");
        return CLI_BAD_INPUT;
    }
    *journal_path = output && !*direct_output ? journal_name(output, false, 0) : NULL;
    if (output && !*direct_output && !*journal_path) return CLI_BAD_INPUT;
    const char *outputs[] = {output, a->json, a->csv, *journal_path};
    return cli_check_paths("measure", &a->space.path, 1, outputs, 4);
}

/* --context must time every candidate of the largest block at least once. */
static int check_context(const measure_args *a, const sslat_space *space)
{
    int32_t most = 0;
    for (int32_t b = 0; b < space->n_blocks; b++)
        if (sslat_space_block_layer(space, b)->n_candidates > most) most = sslat_space_block_layer(space, b)->n_candidates;
    if (!a->context_runs || a->context_runs >= most) return CLI_OK;
    fprintf(stderr, "sslat measure: --context %d: context mode needs at least %d architectures (every candidate "
                    "of the largest block once)\n", a->context_runs, most);
    return CLI_BAD_INPUT;
}

/* ---- run ------------------------------------------------------------------------ */

/* The journal of this run (each rank its own under mpirun), opened new, resumed or restarted. */
static sslat_status open_journal(measure_args *a, const sslat_calculator *calculator, const sslat_space *space,
                                 const char *journal_path, sslat_journal **journal, sslat_error *err)
{
    sslat_journal_info info;
    sslat_journal_mode mode = a->resume ? SSLAT_JOURNAL_RESUME : a->restart ? SSLAT_JOURNAL_RESTART : SSLAT_JOURNAL_NEW;
    sslat_status status = sslat_journal_open(journal_path, mode,
                                             sslat_run_fingerprint(calculator, space, &a->options, &a->plan), journal,
                                             &info, err);
    if (status == SSLAT_OK && a->resume) {
        fprintf(stderr, "sslat measure: resuming: %zu units from %s", info.recovered, journal_path);
        if (info.damaged)
            fprintf(stderr, "; %zu damaged record%s skipped (the first is unit record %ld): measured again",
                    info.damaged, info.damaged == 1 ? "" : "s", info.first_damaged);
        if (info.foreign) fprintf(stderr, "; %zu records of another run skipped", info.foreign);
        if (info.torn) fprintf(stderr, "; a torn last record was dropped");
        fprintf(stderr, "\n");
    }
    a->plan.journal = *journal;
    /* SIGINT / SIGTERM (Slurm preemption): end the chunk in flight within one
     * sample round, keep the journal, exit 4 */
    a->plan.stop = cli_catch_stop_signals();
    return status;
}

/* What the fit says of itself: a warning when its own cross-validation says
 * more runs would help, and the candidates whose order it changed. */
static void say_fit(const sslat_container *table)
{
    const char *enough = sslat_container_metadata(table, "context.enough");
    const char *swaps = sslat_container_metadata(table, "context.swaps");
    if (enough && !strncmp(enough, "more would help", 15))
        fprintf(stderr, "sslat measure: warning: --context: %s\n", enough);
    else if (enough && !strncmp(enough, "unknown", 7))
        fprintf(stderr, "sslat measure: note: --context: %s\n", enough);
    if (swaps && strncmp(swaps, "none", 4))
        fprintf(stderr, "[context] the fit changed the order of candidates: %s (context.swaps)\n", swaps);
}

/* The table: the calculator over the space, then (--context) refitted to whole architectures. */
static sslat_status run(const measure_args *a, const sslat_calculator *calculator, const sslat_space *space,
                        sslat_container **container, sslat_error *err)
{
    if (a->context_runs && !calculator->measure_architectures)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "--context times whole architectures: the %s calculator cannot", calculator->name);
    sslat_status status = sslat_measure_space(calculator, space, &a->options, &a->plan, a->ignore, container, err);
    if (status != SSLAT_OK || !a->context_runs) return status;
    sslat_context_result fit;
    if (a->reference)
        status = refine_to_reference(calculator, space, &a->options, a->context_runs, a->reference, *container, &fit,
                                     err);
    else status = sslat_context_refine(calculator, space, &a->options, &a->plan, a->context_runs, *container, &fit, err);
    if (status == SSLAT_OK)
        fprintf(stderr, "[context] %d architectures end to end in %s: the isolated table was off by %.3g ms RMS "
                        "(bias %+.1f%%), the fitted one by %.3g ms (bias %+.1f%%)\n", a->context_runs,
                a->reference ? a->reference : "sslat", fit.rms_before, 100 * fit.bias_before, fit.rms_after,
                100 * fit.bias_after);
    if (status == SSLAT_OK) say_fit(*container);
    return status;
}

/* ---- write ------------------------------------------------------------------------ */

/* The outputs of a finished run and what the exit status says of the table:
 * incomplete (--keep-going), disturbed (--strict). */
static int write_table(const measure_args *a, const sslat_calculator *calculator, const sslat_space *space,
                       const sslat_container *container, const char *journal_path)
{
    int code = write_outputs(container, a->output, a->json, a->csv);
    if (code == CLI_OK && a->output)
        fprintf(stderr, "sslat measure: wrote %s (%s, space %s, %d blocks, %zu candidates%s)\n", a->output,
                calculator->name, cli_text(space->name), space->n_blocks, sslat_space_total_candidates(space),
                a->plan.shard_count > 1 ? "; a shard's part: sslat merge joins the parts" : "");
    if (code == CLI_OK && sslat_container_has_failed_entries(container)) {
        fprintf(stderr, "sslat measure: the table is INCOMPLETE: %s unit(s) failed (said above; quality.failed_entries "
                        "and failed.* in its metadata)%s\n",
                sslat_container_failed_units(container),
                journal_path ? ": fix the cause and run the same command with --resume to measure only them" : "");
        code = CLI_INCOMPLETE;
    }
    const char *verdict = sslat_container_metadata(container, "quality.verdict");
    const char *reference_verdict = sslat_container_metadata(container, "context.quality.verdict");
    if (code == CLI_OK && a->strict && verdict && !strcmp(verdict, "disturbed")) {
        fprintf(stderr, "sslat measure: --strict: the table was written, but its quality verdict is disturbed "
                        "(said above; quality.cause in its metadata)\n");
        code = CLI_DISTURBED;
    }
    if (code == CLI_OK && a->strict && reference_verdict && !strcmp(reference_verdict, "disturbed")) {
        fprintf(stderr, "sslat measure: --strict: the table was written, but the reference runs it was fitted to "
                        "were disturbed (said above; context.quality.cause in its metadata)\n");
        code = CLI_DISTURBED;
    }
    return code;
}

int cmd_measure(int argc, char **argv)
{
    measure_args a = {.plan = {.progress = true}};
    sslat_calc_options_default(&a.options);
    int first, code = cli_parse(&MEASURE, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    if (first < argc) a.space.path = argv[first];
    bool mpi = cli_mpi_launched();
    const sslat_calculator *calculator = NULL;
    code = check_combinations(&a, mpi, argc - first > 1 ? argv[first + 1] : NULL);
    if (code == CLI_OK) code = check_calculator(&a, mpi, &calculator);
    if (code != CLI_OK) return code;
    bool direct_output = false;
    char *journal_path = NULL;
    code = check_outputs(&a, &direct_output, &journal_path);
    sslat_space *space = NULL;
    if (code == CLI_OK) code = cli_load_space(&a.space, &space);
    if (code == CLI_OK) code = check_context(&a, space);
    int rank = 0, ranks = 1;
    if (code == CLI_OK && mpi && !cli_mpi_begin(&a.plan, &rank, &ranks)) {
        fprintf(stderr, "sslat measure: MPI_Init failed\n");
        code = CLI_FAILURE;
    }
    if (code != CLI_OK) {
        sslat_space_free(space);
        free(journal_path);
        return code;
    }
    sslat_journal *journal = NULL;
    sslat_container *container = NULL;
    sslat_error err;
    sslat_status status = SSLAT_OK;
    if (a.output && !direct_output && mpi) { /* under mpirun each rank keeps its own journal */
        free(journal_path);
        journal_path = journal_name(a.output, true, rank);
        if (!journal_path) status = sslat_fail(&err, SSLAT_ERR_INVALID_ARGUMENT, "no journal name for rank %d", rank);
    }
    if (journal_path && status == SSLAT_OK) status = open_journal(&a, calculator, space, journal_path, &journal, &err);
    if (status == SSLAT_OK) status = run(&a, calculator, space, &container, &err);
    if (status == SSLAT_ERR_INTERRUPTED) {
        if (journal_path)
            fprintf(stderr, "sslat measure: %s; the finished ones are in %s: run the same command with --resume to "
                            "finish\n", err.message, journal_path);
        else fprintf(stderr, "sslat measure: %s; nothing was kept (a run keeps a journal to resume only with -o)\n",
                     err.message);
        code = CLI_INTERRUPTED;
    } else if (status != SSLAT_OK) {
        fprintf(stderr, "sslat measure: %s%s\n", mpi ? "rank: " : "", err.message);
        code = cli_exit_code(status);
    } else if (!mpi) { /* under mpirun rank 0 gathers and writes, below */
        code = write_table(&a, calculator, space, container, journal_path);
    }
    if (mpi)
        code = cli_mpi_finish(code == CLI_OK ? container : NULL, code, status == SSLAT_OK ? NULL : err.message, a.output);
    /* the journal goes once the table is safely written (a disturbed one
     * too: a --resume would only re-use its records); kept on a failure that
     * leaves work in it (a run refused before its first unit leaves none) and
     * for an incomplete table (--resume measures only its failed units) */
    bool finished = code == CLI_OK || code == CLI_DISTURBED;
    sslat_journal_close(journal, (finished && !a.keep_journal) ||
                                     (code != CLI_OK && code != CLI_INTERRUPTED && sslat_journal_count(journal) == 0));
    free(journal_path);
    sslat_container_free(container);
    sslat_space_free(space);
    return code;
}
