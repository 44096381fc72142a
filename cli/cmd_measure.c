/* sslat measure: run a calculator over a space and write the container. */
#include <getopt.h>
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
           "  --reference R      with --context: time those architectures in onnxruntime or torch\n"
           "                     (the runtime you deploy) instead of sslat, so the table predicts\n"
           "                     that runtime (then check it: sslat validate --reference R)\n"
           "timed calculators (cpu, cuda):\n"
           "  --cache hot|cold   hot (default): each unit warmed up and timed back to back, as a\n"
           "                     benchmark loop over one model runs; cold: weights evicted between\n"
           "                     samples (cpu: units interleaved over copies past 2x L2; cuda: L2\n"
           "                     flushed). Recorded as calculator.cache\n"
           "  --strict           cpu: exit 6 (after writing the table) when its quality verdict\n"
           "                     is 'disturbed': another process or the hypervisor kept the\n"
           "                     worker threads from their cores (quality.* in the metadata)\n"
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
    char runtime[512];
} reference_timer;

static sslat_status time_in_reference(void *context, const sslat_space *space, const int32_t *const *archs, size_t n,
                                      double *ms, sslat_error *err)
{
    reference_timer *t = context;
    int code = cli_reference_measure_architectures(space, archs, n, &t->options, ms, t->runtime, sizeof t->runtime);
    if (code == CLI_OK) return SSLAT_OK;
    return sslat_fail(err, code == CLI_UNAVAILABLE ? SSLAT_ERR_UNSUPPORTED : SSLAT_ERR_IO,
                      "the %s runs of context mode failed (said above)", t->options.runtime);
}

static sslat_status refine_to_reference(const sslat_calculator *calculator, const sslat_space *space,
                                        const sslat_calc_options *o, int32_t runs, const char *runtime,
                                        sslat_container *table, sslat_context_result *fit, sslat_error *err)
{
    bool cuda = strcmp(calculator->name, "cuda") == 0;
    bool nhwc = cuda && sslat_layout_resolve(o->layout, o->dtype) == SSLAT_LAYOUT_NHWC;
    const char *threads = sslat_container_metadata(table, "host.threads");
    reference_timer timer = {{runtime, cuda ? "cuda" : "cpu", sslat_dtype_name(o->dtype),
                              cuda || !threads ? 0 : (int32_t)strtol(threads, NULL, 10), o->warmup_iterations,
                              o->run_iterations, nhwc, cuda && o->mode == SSLAT_MODE_FUSED, !o->cold, o->seed},
                             ""};
    snprintf(timer.runtime, sizeof timer.runtime, "%s", runtime);
    sslat_context_target target = {time_in_reference, &timer, timer.runtime, true};
    /* the runner writes the runtime it used (version, threads, schedule) into
     * timer.runtime before the fit records the name */
    return sslat_context_refine_to(space, o->seed, runs, &target, table, fit, err);
}

static const sslat_calculator *best_available(void)
{
    const char *const *names = NULL;
    int32_t count = sslat_available_calculators(&names);
    return count > 0 ? sslat_calculator_find(names[count - 1]) : NULL;
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
        if (paths[kind] && !strcmp(paths[kind], "-")) fputs(texts[kind], stdout);
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

int cmd_measure(int argc, char **argv)
{
    enum { OPT_IGNORE = 2001, OPT_JSON, OPT_CSV, OPT_MODE, OPT_THREADS, OPT_WARMUP, OPT_RUNS,
           OPT_ADAPTIVE, OPT_MAX_SECONDS, OPT_SEED, OPT_SHARD, OPT_RESUME, OPT_KEEP_JOURNAL, OPT_RESTART,
           OPT_FUSE_BN, OPT_CONTEXT, OPT_KEEP_GOING, OPT_REFERENCE, OPT_STRICT };
    static const struct option LONG[] = {{"calculator", required_argument, NULL, 'c'},
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
    cli_space_args args = {0};
    const char *type = NULL, *output = NULL, *ignore = NULL, *json = NULL, *csv = NULL;
    int opt, code = CLI_OK;
    sslat_calc_options options;
    sslat_calc_options_default(&options);
    sslat_run_plan plan = {.progress = true};
    int32_t seed = 0;
    const char *shard = NULL;
    bool resume = false, keep_journal = false, restart = false;
    int32_t context_runs = 0; /* --context N: refit to N whole architectures */
    const char *reference = NULL; /* --reference R: ... timed in that runtime */
    bool strict = false;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "c:o:h", LONG, NULL)) != -1) {
        if (cli_space_option(opt, optarg, &args, &code) || cli_device_option(opt, optarg, &options, &code)) {
            if (code) return code;
            continue;
        }
        switch (opt) {
        case 'c': if (!cli_set_once(&type, optarg, "measure", "-c")) return CLI_BAD_INPUT; break;
        case 'o': if (!cli_set_once(&output, optarg, "measure", "-o")) return CLI_BAD_INPUT; break;
        case OPT_JSON: if (!cli_set_once(&json, optarg, "measure", "--json")) return CLI_BAD_INPUT; break;
        case OPT_CSV: if (!cli_set_once(&csv, optarg, "measure", "--csv")) return CLI_BAD_INPUT; break;
        case OPT_IGNORE: ignore = optarg; break;
        case OPT_MODE:
            if (strcmp(optarg, "fused") && strcmp(optarg, "eager")) {
                fprintf(stderr, "sslat measure: --mode is fused or eager, got '%s'\n", optarg);
                return CLI_BAD_INPUT;
            }
            options.mode = strcmp(optarg, "fused") == 0 ? SSLAT_MODE_FUSED : SSLAT_MODE_EAGER;
            break;
        case OPT_THREADS: if (!cli_parse_int(optarg, "--threads", 0, sslat_max_threads(), &options.threads)) return CLI_BAD_INPUT; break;
        case OPT_WARMUP: if (!cli_parse_int(optarg, "--warmup", 0, 1000000, &options.warmup_iterations)) return CLI_BAD_INPUT; break;
        case OPT_RUNS: if (!cli_parse_int(optarg, "--runs", 1, 1000000, &options.run_iterations)) return CLI_BAD_INPUT; break;
        case OPT_SEED:
            if (!cli_parse_int(optarg, "--seed", 0, INT32_MAX, &seed)) return CLI_BAD_INPUT;
            options.seed = (uint64_t)seed;
            break;
        case OPT_ADAPTIVE:
        case OPT_MAX_SECONDS: {
            char *end = NULL;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v > 0) || v > 3600) {
                fprintf(stderr, "sslat measure: --%s needs a positive number, got '%s'\n",
                        opt == OPT_ADAPTIVE ? "adaptive" : "max-seconds", optarg);
                return CLI_BAD_INPUT;
            }
            if (opt == OPT_ADAPTIVE) options.target_noise = v;
            else options.max_seconds = v;
            break;
        }
        case OPT_SHARD: shard = optarg; break;
        case OPT_RESUME: resume = true; break;
        case OPT_KEEP_JOURNAL: keep_journal = true; break;
        case OPT_RESTART: restart = true; break;
        case OPT_FUSE_BN: options.fuse_bn = true; break;
        case OPT_KEEP_GOING: plan.keep_going = true; break;
        case OPT_CONTEXT:
            if (!cli_parse_int(optarg, "--context", 1, 100000, &context_runs)) return CLI_BAD_INPUT;
            break;
        case OPT_REFERENCE:
            if (!cli_reference_known(optarg)) {
                fprintf(stderr, "sslat measure: --reference is onnxruntime or torch, got '%s'\n", optarg);
                return CLI_BAD_INPUT;
            }
            reference = optarg;
            break;
        case OPT_STRICT: strict = true; break;
        case 'h': measure_usage(); return CLI_OK;
        default: return CLI_BAD_INPUT;
        }
    }
    if (optind < argc) args.path = argv[optind++];
    if (reference && !context_runs) {
        fprintf(stderr, "sslat measure: --reference %s times the --context architectures: give --context N too\n",
                reference);
        return CLI_BAD_INPUT;
    }
    if (optind < argc) {
        fprintf(stderr, "sslat measure: unexpected argument '%s'\n", argv[optind]);
        return CLI_BAD_INPUT;
    }
    if (json && csv && !strcmp(json, "-") && !strcmp(csv, "-")) {
        fprintf(stderr, "sslat measure: --json - and --csv - would mix two formats on standard output: one of them\n");
        return CLI_BAD_INPUT;
    }

    code = cli_shard_options(shard, &plan.shard_index, &plan.shard_count);
    if (code != CLI_OK) return code;
    int rank = 0, ranks = 1;
    bool mpi = cli_mpi_launched();
    if (mpi && (shard || !output || json || csv)) {
        fprintf(stderr, "sslat measure: under mpirun every rank takes its own shard and rank 0 writes -o OUT "
                        "(no --shard, --json, --csv)\n");
        return CLI_BAD_INPUT;
    }
    if (plan.keep_going && (mpi || context_runs)) {
        fprintf(stderr, "sslat measure: --keep-going writes an incomplete table, which %s refuses: not with %s "
                        "(measure with --keep-going alone, then --resume until complete)\n",
                mpi ? "the ranks' merge" : "context mode", mpi ? "mpirun" : "--context");
        return CLI_BAD_INPUT;
    }
    if (context_runs && (mpi || plan.shard_count > 1)) {
        fprintf(stderr, "sslat measure: --context fits a whole table: not with shards or under mpirun "
                        "(merge the parts, then measure the context on one node)\n");
        return CLI_BAD_INPUT;
    }
    if (!mpi && plan.shard_count > 1 && (!output || json || csv)) {
        fprintf(stderr, "sslat measure: shard %d/%d writes a part: give -o PART.sslat (no --json / --csv; "
                        "export after sslat merge)\n", plan.shard_index, plan.shard_count);
        return CLI_BAD_INPUT;
    }
    const sslat_calculator *calculator = type ? sslat_calculator_find(type) : best_available();
    if (!calculator) {
        fprintf(stderr, "sslat measure: unknown calculator '%s' (sslat calculators lists them)\n",
                type ? type : "");
        return CLI_BAD_INPUT;
    }
    if (reference && (code = cli_reference_available(reference)) != CLI_OK) return code; /* before the table, not after */
    if (strict && (strcmp(calculator->name, "cpu") || mpi)) {
        fprintf(stderr, "sslat measure: --strict reads the cpu calculator's quality verdict%s; not %s\n",
                mpi ? " of one process" : "", mpi ? "under mpirun" : calculator->name);
        return CLI_BAD_INPUT;
    }
    if (!type)
        fprintf(stderr, "sslat measure: calculator %s (the best available here; sslat calculators "
                        "says why others are not)\n", calculator->name);
    sslat_error err;
    if (sslat_ignore_parse(ignore, &options.ignore, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat measure: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    if (resume && restart) {
        fprintf(stderr, "sslat measure: --resume continues a journal, --restart discards it: not both\n");
        return CLI_BAD_INPUT;
    }
    if ((resume || restart) && !output) {
        fprintf(stderr, "sslat measure: --%s needs -o (the journal is OUT.journal)\n", resume ? "resume" : "restart");
        return CLI_BAD_INPUT;
    }
    /* a refused run writes nothing, not even a journal: check what can be checked first */
    const char *why = sslat_calculator_unavailable(calculator);
    if (why) {
        fprintf(stderr, "sslat measure: calculator '%s' cannot run: %s\n", calculator->name, why);
        return CLI_UNAVAILABLE;
    }
    if (!(calculator->dtypes & SSLAT_DTYPE_BIT(options.dtype))) {
        fprintf(stderr, "sslat measure: calculator '%s' does not measure %s\n", calculator->name,
                sslat_dtype_name(options.dtype));
        return CLI_UNAVAILABLE;
    }
    struct stat output_stat;
    if (output && (!*output || (stat(output, &output_stat) == 0 && S_ISDIR(output_stat.st_mode)))) {
        fprintf(stderr, "sslat measure: -o '%s' is %s: give a file name\n", output, *output ? "a directory" : "empty");
        return CLI_BAD_INPUT;
    }
    /* a FIFO or a device (-o /dev/stdout) is written in place: no journal
     * beside it (that would be a file in /dev), so nothing to resume */
    bool direct_output = false;
    if (output) sslat_check_writable(output, &direct_output, NULL); /* its refusal is cli_check_paths's */
    if (direct_output && (resume || restart || keep_journal)) {
        fprintf(stderr, "sslat measure: -o %s is not a regular file, so the run keeps no journal: --%s needs a file "
                        "-o\n", output, resume ? "resume" : restart ? "restart" : "keep-journal");
        return CLI_BAD_INPUT;
    }
    char *journal_path = output && !direct_output ? journal_name(output, false, 0) : NULL;
    const char *outputs[] = {output, json, csv, journal_path};
    if (output && !direct_output && !journal_path) return CLI_BAD_INPUT;
    code = cli_check_paths("measure", &args.path, 1, outputs, 4);
    sslat_space *space = NULL;
    if (code == CLI_OK) code = cli_load_space(&args, &space);
    int32_t most = 0; /* --context must hold every candidate of the largest block */
    for (int32_t b = 0; space && b < space->n_blocks; b++)
        if (sslat_space_block_layer(space, b)->n_candidates > most) most = sslat_space_block_layer(space, b)->n_candidates;
    if (code == CLI_OK && context_runs && context_runs < most) {
        fprintf(stderr, "sslat measure: --context %d: context mode needs at least %d architectures (every candidate "
                        "of the largest block once)\n", context_runs, most);
        code = CLI_BAD_INPUT;
    }
    if (code != CLI_OK) {
        sslat_space_free(space);
        free(journal_path);
        return code;
    }
    if (mpi && !cli_mpi_begin(&plan, &rank, &ranks)) {
        fprintf(stderr, "sslat measure: MPI_Init failed\n");
        free(journal_path);
        sslat_space_free(space);
        return CLI_FAILURE;
    }
    sslat_journal *journal = NULL;
    sslat_status status = SSLAT_OK;
    if (output && !direct_output && mpi) { /* each rank its own journal */
        free(journal_path);
        journal_path = journal_name(output, true, rank);
        if (!journal_path) status = sslat_fail(&err, SSLAT_ERR_INVALID_ARGUMENT, "no journal name for rank %d", rank);
    }
    if (journal_path && status == SSLAT_OK) {
        /* under mpirun each rank keeps its own journal: a rerun resumes every rank */
        sslat_journal_info info;
        sslat_journal_mode mode = resume ? SSLAT_JOURNAL_RESUME : restart ? SSLAT_JOURNAL_RESTART : SSLAT_JOURNAL_NEW;
        status = sslat_journal_open(journal_path, mode, sslat_run_fingerprint(calculator, space, &options, &plan), &journal,
                                    &info, &err);
        if (status == SSLAT_OK && resume) {
            fprintf(stderr, "sslat measure: resuming: %zu units from %s", info.recovered, journal_path);
            if (info.damaged)
                fprintf(stderr, "; %zu damaged record%s skipped (the first is unit record %ld): measured again",
                        info.damaged, info.damaged == 1 ? "" : "s", info.first_damaged);
            if (info.foreign) fprintf(stderr, "; %zu records of another run skipped", info.foreign);
            if (info.torn) fprintf(stderr, "; a torn last record was dropped");
            fprintf(stderr, "\n");
        }
        plan.journal = journal;
        /* SIGINT / SIGTERM (Slurm preemption): end the chunk in flight within
         * one sample round, keep the journal, exit 4 */
        plan.stop = cli_catch_stop_signals();
    }
    sslat_container *container = NULL;
    if (status == SSLAT_OK && context_runs && !calculator->measure_architectures)
        status = sslat_fail(&err, SSLAT_ERR_INVALID_ARGUMENT,
                            "--context times whole architectures: the %s calculator cannot", calculator->name);
    if (status == SSLAT_OK) status = sslat_measure_space(calculator, space, &options, &plan, ignore, &container, &err);
    if (status == SSLAT_OK && context_runs) {
        sslat_context_result fit;
        if (reference) status = refine_to_reference(calculator, space, &options, context_runs, reference, container,
                                                    &fit, &err);
        else status = sslat_context_refine(calculator, space, &options, &plan, context_runs, container, &fit, &err);
        if (status == SSLAT_OK)
            fprintf(stderr, "[context] %d architectures end to end in %s: the isolated table was off by %.3g ms RMS "
                            "(bias %+.1f%%), the fitted one by %.3g ms (bias %+.1f%%)\n", context_runs,
                    reference ? reference : "sslat", fit.rms_before, 100 * fit.bias_before, fit.rms_after,
                    100 * fit.bias_after);
    }
    if (status == SSLAT_ERR_INTERRUPTED) {
        fprintf(stderr, "sslat measure: %s; the finished ones are in %s: run the same command with --resume to finish\n",
                err.message, journal_path);
        code = CLI_INTERRUPTED;
    } else if (status != SSLAT_OK) {
        fprintf(stderr, "sslat measure: %s%s\n", mpi ? "rank: " : "", err.message);
        code = cli_exit_code(status);
    } else if (mpi) {
        code = CLI_OK; /* rank 0 gathers and writes, below */
    } else {
        code = write_outputs(container, output, json, csv);
        if (code == CLI_OK && output)
            fprintf(stderr, "sslat measure: wrote %s (%s, space %s, %d blocks, %zu candidates%s)\n", output,
                    calculator->name, space->name, space->n_blocks, sslat_space_total_candidates(space),
                    plan.shard_count > 1 ? "; a shard's part: sslat merge joins the parts" : "");
        if (code == CLI_OK && sslat_container_has_failed_entries(container)) {
            fprintf(stderr, "sslat measure: the table is INCOMPLETE: %s unit(s) failed (said above; quality.failed_entries "
                            "and failed.* in its metadata)%s\n",
                    sslat_container_failed_units(container),
                    journal_path ? ": fix the cause and run the same command with --resume to measure only them" : "");
            code = CLI_INCOMPLETE;
        }
        const char *verdict = sslat_container_metadata(container, "quality.verdict");
        if (code == CLI_OK && strict && verdict && !strcmp(verdict, "disturbed")) {
            fprintf(stderr, "sslat measure: --strict: the table was written, but its quality verdict is disturbed "
                            "(said above; quality.cause in its metadata)\n");
            code = CLI_DISTURBED;
        }
    }
    if (mpi) code = cli_mpi_finish(code == CLI_OK ? container : NULL, code, status == SSLAT_OK ? NULL : err.message, output);
    /* the journal goes once the table is safely written; kept on a failure
     * that leaves work in it (a run refused before its first unit leaves none)
     * and for an incomplete table (--resume measures only its failed units) */
    sslat_journal_close(journal, (code == CLI_OK && !keep_journal) ||
                                     (code != CLI_OK && code != CLI_INTERRUPTED && sslat_journal_count(journal) == 0));
    free(journal_path);
    sslat_container_free(container);
    sslat_space_free(space);
    return code;
}
