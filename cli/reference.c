#define _GNU_SOURCE /* nftw, nanosleep */
#include "cli/reference.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file_io.h"
#include "base/order.h"
#include "cli/cli.h"
#include "ir/ir_json.h"
#include "ir/space.h"
#include "table/container.h"

/* cli/reference_runner.py, embedded at build time (cmake/embed_text.cmake). */
const char *sslat_reference_runner_py(void);

/* The reference runtimes: the module that must import, and the devices each times on. */
typedef struct reference_runtime {
    const char *name, *module;
    bool on_cpu, on_cuda;
} reference_runtime;

static const reference_runtime RUNTIMES[] = {
    {"onnxruntime", "onnxruntime", true, true},
    {"torch", "torch", true, true},
    {"torch-default", "torch", false, true}, /* PyTorch's cuDNN defaults: a cuda matter */
    {"torch-compile", "torch", true, true},
};
enum { N_RUNTIMES = sizeof RUNTIMES / sizeof RUNTIMES[0] };

static const reference_runtime *runtime_named(const char *name)
{
    for (int i = 0; i < N_RUNTIMES; i++)
        if (!strcmp(RUNTIMES[i].name, name)) return &RUNTIMES[i];
    return NULL;
}

bool cli_reference_known(const char *name) { return runtime_named(name) != NULL; }

const char *cli_reference_names(void)
{
    static char names[128];
    if (!names[0])
        for (int i = 0; i < N_RUNTIMES; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", RUNTIMES[i].name);
    return names;
}

int cli_reference_check(const char *verb, const char *runtime, bool cuda, const char *dtype)
{
    const reference_runtime *r = runtime_named(runtime);
    if (!r) {
        fprintf(stderr, "sslat %s: --reference is %s, got '%s'\n", verb, cli_reference_names(), runtime);
        return CLI_BAD_INPUT;
    }
    if (cuda ? !r->on_cuda : !r->on_cpu) {
        fprintf(stderr, "sslat %s: --reference %s times on cuda only (it is PyTorch's cuDNN settings): for a cpu "
                        "table use torch\n", verb, runtime);
        return CLI_BAD_INPUT;
    }
    if (cuda && !strcmp(runtime, "onnxruntime") && strcmp(dtype, "fp32") && strcmp(dtype, "tf32")) {
        fprintf(stderr, "sslat %s: --reference onnxruntime runs the ONNX export, which writes fp32 models: a %s "
                        "table's reference is torch, torch-default or torch-compile\n", verb, dtype);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* A private folder (mkdtemp) and the files made in it, removed together:
 * every entry in it goes, however many models a run wrote. */
typedef struct workspace {
    char dir[4096];
} workspace;

static const char *workspace_path(workspace *w, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", w->dir, name);
    return out;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path); /* and go on: remove what can be removed */
    return 0;
}

/* The folder and everything in it, whatever the runner made there (sub
 * folders too); links are removed, never followed. */
static void workspace_remove(workspace *w) { nftw(w->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Seconds a runner has to end after SIGTERM before it is killed. */
enum { RUNNER_GRACE_S = 5 };

/* The Python beside this command's own executable: a pip-installed sslat
 * sits in its environment's bin/ with that environment's python3. */
static const char *python_beside_command(void)
{
    static char path[4096];
    char exe[4000];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/python3", exe);
    return access(path, X_OK) == 0 ? path : NULL;
}

/* The Python that runs the runner: SSLAT_PYTHON; the python3 beside the
 * command (pip's environment); an activated virtual environment's; the
 * project's environment (scripts/setup.sh); or python3 from PATH. */
static const char *python_path(void)
{
    const char *chosen = getenv("SSLAT_PYTHON");
    if (chosen && *chosen) return chosen;
    const char *beside = python_beside_command();
    if (beside) return beside;
    static char active[4096];
    const char *venv = getenv("VIRTUAL_ENV");
    if (venv && *venv && strlen(venv) < 4000) {
        snprintf(active, sizeof active, "%s/bin/python3", venv);
        if (access(active, X_OK) == 0) return active;
    }
#ifdef SSLAT_PROJECT_PYTHON
    if (access(SSLAT_PROJECT_PYTHON, X_OK) == 0) return SSLAT_PROJECT_PYTHON;
#endif
    return "python3";
}

/* Run `python first second` and wait: its stdout into stdout_path, or to
 * /dev/null when that is NULL (stderr stays ours: a broken install's own
 * error is shown, not replaced by a guess). *status is waitpid's (exit 127:
 * no such Python; 126: the output could not be opened); false when it could
 * not be started or waited for (said). */
static bool spawn_python(const char *python, const char *first, const char *second, const char *stdout_path,
                         int *status)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "sslat: cannot start %s: %s\n", python, strerror(errno));
        return false;
    }
    if (pid == 0) {
        int fd = stdout_path ? open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_WRONLY);
        if (fd < 0 || dup2(fd, 1) < 0) _exit(126);
        close(fd);
        execlp(python, python, first, second, (char *)NULL);
        _exit(127);
    }
    /* SIGINT / SIGTERM (cli_catch_stop_signals) end the runner too: SIGTERM
     * first, SIGKILL when it has not ended RUNNER_GRACE_S later (a runner
     * that ignores SIGTERM must not keep sslat waiting); then the caller
     * removes the workspace. Polled, not blocked on: a signal that came
     * before the wait (or between a check and a blocking wait) is seen too. */
    time_t asked_at = 0;
    bool killed = false;
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid) return true;
        if (done < 0 && errno != EINTR) return false;
        if (cli_stop_requested() && !asked_at) {
            kill(pid, SIGTERM);
            asked_at = time(NULL);
        } else if (asked_at && !killed && time(NULL) - asked_at >= RUNNER_GRACE_S) {
            kill(pid, SIGKILL);
            killed = true;
        }
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* Exit statuses of the availability check beyond an import's own failure (1). */
enum { NO_CUDA_PROVIDER = 5, NO_CUDA_DEVICE = 6 };

int cli_reference_available(const char *runtime, bool cuda)
{
    const reference_runtime *r = runtime_named(runtime);
    const char *python = python_path();
    char statement[400];
    bool ort = !strcmp(r ? r->module : runtime, "onnxruntime");
    if (!cuda)
        snprintf(statement, sizeof statement, "import %s", ort ? "onnxruntime" : "torch");
    else { /* on cuda ONNX Runtime needs its CUDA provider and PyTorch's CUDA events; torch needs a device */
        char provider_check[160] = "";
        if (ort)
            snprintf(provider_check, sizeof provider_check, "import onnxruntime as o\nif 'CUDAExecutionProvider' not "
                     "in o.get_available_providers(): sys.exit(%d)\n", NO_CUDA_PROVIDER);
        snprintf(statement, sizeof statement, "import sys\n%simport torch\nsys.exit(0 if torch.cuda.is_available() "
                 "else %d)", provider_check, NO_CUDA_DEVICE);
    }
    int status = 0;
    if (!spawn_python(python, "-c", statement, NULL, &status)) return CLI_FAILURE;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return CLI_OK;
    if (WIFSIGNALED(status))
        fprintf(stderr, "sslat: %s was killed by signal %d while importing %s\n", python, WTERMSIG(status), runtime);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        fprintf(stderr, "sslat: no Python at '%s': install python3 (and %s in it) or set SSLAT_PYTHON\n", python,
                runtime);
    else if (cuda && ort && WIFEXITED(status) && WEXITSTATUS(status) == NO_CUDA_PROVIDER)
        fprintf(stderr, "sslat: only the CPU build of ONNX Runtime is installed for %s: a cuda table's reference "
                        "needs its CUDA provider (pip install onnxruntime-gpu into that environment, or point "
                        "SSLAT_PYTHON at a Python that has it)\n", python);
    else if (cuda && WIFEXITED(status) && WEXITSTATUS(status) == NO_CUDA_DEVICE)
        fprintf(stderr, "sslat: the PyTorch of %s sees no CUDA device: --reference %s on cuda times with it (a "
                        "CUDA build of torch on a machine with the GPU)\n", python, runtime);
    else
        fprintf(stderr, "sslat: %s cannot be imported by %s (its error, if it printed one, is above): pip install "
                        "%s into that environment (bash "
                        "scripts/setup.sh puts onnxruntime into build/python-venv), or point SSLAT_PYTHON at a "
                        "Python that has it\n", cuda && ort ? "onnxruntime or torch" : r ? r->module : runtime,
                python, cuda && ort ? "onnxruntime-gpu and torch" : r ? r->module : runtime);
    return CLI_UNAVAILABLE;
}

/* Each row's architecture as the runtime reads it: an ONNX model, or the
 * chained graph's IR for torch. */
static int write_models(const sslat_space *space, const sslat_validation *v, const cli_reference_options *o,
                        workspace *w, json_t *models)
{
    const char *verb = o->verb;
    bool onnx = !strcmp(o->runtime, "onnxruntime");
    int32_t shape[4];
    sslat_space_input_shape(space, shape);
    for (int r = 0; r < v->n; r++) {
        if (cli_stop_requested()) return CLI_INTERRUPTED;
        char name[32], path[4200];
        snprintf(name, sizeof name, "arch%d.%s", r, onnx ? "onnx" : "json");
        workspace_path(w, name, path, sizeof path);
        sslat_error err;
        sslat_status status = SSLAT_OK;
        if (onnx) {
            sslat_onnx_options options = {o->seed};
            status = sslat_space_export_onnx(space, v->rows[r].arch, space->n_blocks, &options, path, &err);
        } else {
            sslat_graph whole;
            status = sslat_space_architecture_graph(space, v->rows[r].arch, space->n_blocks, &whole, &err);
            json_t *graph = status == SSLAT_OK ? sslat_graph_json(&whole) : NULL;
            if (graph && json_dump_file(graph, path, JSON_COMPACT) != 0)
                status = sslat_fail(&err, SSLAT_ERR_IO, "%s: cannot write the architecture's graph", path);
            json_decref(graph);
            sslat_graph_release(&whole);
        }
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat %s: %s\n", verb, err.message);
            return cli_exit_code(status);
        }
        json_array_append_new(models, json_pack("{s:s, s:s, s:[i, i, i, i]}", onnx ? "onnx" : "graph", path,
                                                onnx ? "graph" : "onnx", "", "input", shape[0], shape[1], shape[2],
                                                shape[3]));
    }
    return CLI_OK;
}

/* Run python RUNNER MANIFEST with stdout into out_path; the runner's own
 * messages go to our stderr. Returns an exit code. */
static int run_python(const char *verb, const char *python, const char *runner, const char *manifest,
                      const char *out_path)
{
    int status = 0;
    if (!spawn_python(python, runner, manifest, out_path, &status)) return CLI_FAILURE;
    if (cli_stop_requested()) return CLI_INTERRUPTED;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "sslat %s: no Python at '%s': install python3 (and onnxruntime / torch in it) or set "
                        "SSLAT_PYTHON\n", verb, python);
        return CLI_UNAVAILABLE;
    }
    if (!WIFEXITED(status)) {
        fprintf(stderr, "sslat %s: the reference runner (%s) was killed by signal %d\n", verb, python,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return CLI_FAILURE;
    }
    switch (WEXITSTATUS(status)) {
    case 0: return CLI_OK;
    case 3: /* the runtime is missing: the runner said what to install */
        fprintf(stderr, "sslat %s: the reference runner (%s) found its runtime missing (exit 3; what to install is "
                        "said above)\n", verb, python);
        return CLI_UNAVAILABLE;
    case 2:
        fprintf(stderr, "sslat %s: the reference runner (%s) refused the run (exit 2; why is said above)\n", verb,
                python);
        return CLI_BAD_INPUT;
    default:
        fprintf(stderr, "sslat %s: the reference runner (%s) failed with exit status %d\n", verb, python,
                WEXITSTATUS(status));
        return CLI_FAILURE;
    }
}

/* Bounds of a plausible answer: a network's time per sample (1 ns to
 * 3 hours) and a compile's (up to a day). */
#define ANSWER_MIN_MS 1e-6
#define ANSWER_MAX_MS 1e7
#define ANSWER_MAX_COMPILE_S 86400.0

/* torch-compile's compile times: their total, median and largest. */
static int read_compile_times(const char *verb, json_t *list, cli_reference_answer *answer)
{
    size_t n = json_array_size(list);
    double *seconds = calloc(n + 1, sizeof *seconds);
    if (!seconds) return CLI_FAILURE;
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        seconds[i] = json_number_value(item);
        if (!json_is_number(item) || !(seconds[i] >= 0 && seconds[i] <= ANSWER_MAX_COMPILE_S)) {
            fprintf(stderr, "sslat %s: the reference runner's compile time %zu is not 0 to %g s\n", verb, i,
                    ANSWER_MAX_COMPILE_S);
            free(seconds);
            return CLI_FAILURE;
        }
        answer->compile_total_s += seconds[i];
    }
    qsort(seconds, n, sizeof *seconds, sslat_compare_doubles);
    answer->compiled = (int32_t)n;
    answer->compile_median_s = n ? (seconds[(n - 1) / 2] + seconds[n / 2]) / 2 : 0;
    answer->compile_max_s = n ? seconds[n - 1] : 0;
    free(seconds);
    return CLI_OK;
}

/* A figure of the watch: a number in [low, high], or null where allowed (NAN). */
static bool watch_number(json_t *watch, const char *key, double low, double high, bool null_ok, double *out)
{
    json_t *item = json_object_get(watch, key);
    if (null_ok && json_is_null(item)) {
        *out = NAN;
        return true;
    }
    *out = json_number_value(item);
    return json_is_number(item) && *out >= low && *out <= high;
}

/* The runner's watch judged by the table's rule (measure/quality.h). */
static int read_watch(const char *verb, json_t *watch, cli_reference_answer *answer)
{
    double batches, disturbed, workers, usable, others, busy_start;
    sslat_quality_input *in = &answer->watch;
    *in = (sslat_quality_input){0};
    json_t *share_judged = json_object_get(watch, "share_judged");
    bool ok = json_is_object(watch) && json_is_boolean(share_judged) &&
              watch_number(watch, "batches", 0, 1e9, false, &batches) &&
              watch_number(watch, "disturbed", 0, batches, false, &disturbed) &&
              watch_number(watch, "workers", 1, 1e6, false, &workers) &&
              watch_number(watch, "usable", 1, 1e6, false, &usable) &&
              watch_number(watch, "mean_share", 0, 1e6, false, &in->mean_share) &&
              watch_number(watch, "worst_share", 0, 1e6, false, &in->worst_share) &&
              watch_number(watch, "mean_wait", 0, 1, false, &in->mean_wait) &&
              watch_number(watch, "worst_wait", 0, 1, false, &in->worst_wait) &&
              watch_number(watch, "worst_steal", 0, 1, false, &in->worst_steal) &&
              watch_number(watch, "most_others", 0, 1e6, false, &others) &&
              watch_number(watch, "busy_start", 0, 1e6, false, &busy_start) &&
              watch_number(watch, "busy_end", 0, 1e6, false, &in->busy_elsewhere) &&
              watch_number(watch, "calibration_share", 0, 1e6, false, &in->calibration_share) &&
              watch_number(watch, "drift", 0, 1e6, false, &in->drift) &&
              watch_number(watch, "cov_median", 0, 1e6, true, &in->cov_median) &&
              watch_number(watch, "cov_worst", 0, 1e6, true, &in->cov_worst);
    if (!ok) {
        fprintf(stderr, "sslat %s: the reference runner's watch (what the machine let its runs do) is missing or "
                        "not what was asked for\n", verb);
        return CLI_FAILURE;
    }
    in->busy_elsewhere = in->busy_elsewhere > busy_start ? in->busy_elsewhere : busy_start; /* the larger */
    in->batches = (long)batches;
    in->remeasured = 0; /* a reference batch is never run again: every disturbed one is kept */
    in->kept_disturbed = (long)disturbed;
    in->most_others = (int)others;
    in->free_cores = usable > workers ? (int)(usable - workers) : 0;
    in->oversubscribed = workers > usable;
    answer->disturbed_batches = (long)disturbed;
    answer->watched = true;
    answer->verdict = sslat_quality_judge(in, answer->cause, sizeof answer->cause);
    char share[128] = "worker CPU share not judged (several threads, or timed on the GPU)";
    if (json_is_true(share_judged))
        snprintf(share, sizeof share, "worker CPU %.0f%% of wall time on average, %.0f%% at worst",
                 100 * in->mean_share, 100 * in->worst_share);
    snprintf(answer->figures, sizeof answer->figures,
             "%ld batches of runs, %ld disturbed; the runtime's threads waited for a CPU %.1f%% of the time on "
             "average, %.1f%% at worst; %s; steal up to %.1f%%; other processes kept %.2f cores busy; calibration "
             "drift %+.1f%%, its thread got %.0f%% of its wall time; median network spread %.1f%%",
             in->batches, answer->disturbed_batches, 100 * in->mean_wait, 100 * in->worst_wait, share,
             100 * in->worst_steal, in->busy_elsewhere, 100 * (in->drift - 1), 100 * in->calibration_share,
             isnan(in->cov_median) ? 0.0 : 100 * in->cov_median);
    return CLI_OK;
}

void cli_reference_say_quality(const char *verb, const cli_reference_answer *answer)
{
    if (!answer->watched) return;
    if (answer->verdict == SSLAT_QUALITY_DISTURBED)
        fprintf(stderr, "sslat %s: warning: reference quality DISTURBED: %s. These reference timings are not a "
                        "figure of this machine: rerun when it is quiet (%s)\n", verb, answer->cause, answer->figures);
    else if (answer->verdict == SSLAT_QUALITY_NOISY)
        fprintf(stderr, "sslat %s: reference quality noisy: %s (%s)\n", verb, answer->cause, answer->figures);
    else
        fprintf(stderr, "[reference] quality ok: %s\n", answer->figures);
}

sslat_status cli_reference_record_quality(const cli_reference_answer *answer, const char *prefix,
                                          sslat_container *table, sslat_error *err)
{
    if (!answer->watched) return SSLAT_OK;
    const char *values[3] = {sslat_quality_name(answer->verdict), answer->cause[0] ? answer->cause : "none",
                             answer->figures};
    const char *names[3] = {"verdict", "cause", "watch"};
    for (int i = 0; i < 3; i++) {
        char key[128];
        snprintf(key, sizeof key, "%s.%s", prefix, names[i]);
        sslat_status status = sslat_container_set_metadata(table, key, values[i], err);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

/* The runner's answer: the runtime's description, one time per row, compile times. */
static int read_answer(const char *verb, const char *runtime, const char *path, sslat_validation *v,
                       cli_reference_answer *answer)
{
    char *text = NULL;
    size_t size = 0;
    sslat_error err;
    if (sslat_read_file(path, 1 << 20, &text, &size, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat %s: the reference runner's answer: %s\n", verb, err.message);
        return CLI_FAILURE;
    }
    json_error_t json_err;
    json_t *root = json_loadb(text, size, 0, &json_err), *ms = root ? json_object_get(root, "ms") : NULL;
    json_t *compile = root ? json_object_get(root, "compile_s") : NULL;
    const char *name = root ? json_string_value(json_object_get(root, "runtime")) : NULL;
    int code = CLI_OK;
    if (!name || !json_is_array(ms) || json_array_size(ms) != (size_t)v->n ||
        (compile && (!json_is_array(compile) || json_array_size(compile) != (size_t)v->n))) {
        fprintf(stderr, "sslat %s: the reference runner's answer is not what was asked for: %.200s\n", verb, text);
        code = CLI_FAILURE;
    }
    for (int r = 0; code == CLI_OK && r < v->n; r++) {
        v->rows[r].measured = json_number_value(json_array_get(ms, (size_t)r));
        if (!(v->rows[r].measured >= ANSWER_MIN_MS && v->rows[r].measured <= ANSWER_MAX_MS)) {
            fprintf(stderr, "sslat %s: the reference runner gave %g ms for '%s': not a time of a network (%g to %g "
                            "ms)\n", verb, v->rows[r].measured, v->rows[r].label, ANSWER_MIN_MS, ANSWER_MAX_MS);
            code = CLI_FAILURE;
        }
    }
    if (code == CLI_OK && compile && strcmp(runtime, "torch-compile")) {
        fprintf(stderr, "sslat %s: the reference runner answered compile times for %s, which compiles nothing\n", verb,
                runtime);
        code = CLI_FAILURE;
    }
    if (code == CLI_OK) snprintf(answer->runtime, sizeof answer->runtime, "%s", name);
    if (code == CLI_OK && compile) code = read_compile_times(verb, compile, answer);
    if (code == CLI_OK) code = read_watch(verb, json_object_get(root, "watch"), answer);
    json_decref(root);
    free(text);
    return code;
}

int cli_reference_measure(const sslat_space *space, sslat_validation *v, const cli_reference_options *o,
                          cli_reference_answer *answer)
{
    const char *verb = o->verb;
    memset(answer, 0, sizeof *answer);
    workspace w;
    const char *tmp = getenv("TMPDIR");
    if (tmp && strlen(tmp) > 3000) tmp = NULL; /* no room for the files' names under it: /tmp */
    snprintf(w.dir, sizeof w.dir, "%s/sslat-reference-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w.dir)) {
        fprintf(stderr, "sslat %s: cannot make a temporary folder in %s: %s\n", verb, tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        return CLI_FAILURE;
    }
    json_t *models = json_array();
    int code = write_models(space, v, o, &w, models);
    char runner[4200], manifest[4200], answer_path[4200];
    workspace_path(&w, "runner.py", runner, sizeof runner);
    workspace_path(&w, "manifest.json", manifest, sizeof manifest);
    workspace_path(&w, "answer.json", answer_path, sizeof answer_path);
    if (code == CLI_OK) {
        const char *script = sslat_reference_runner_py();
        sslat_error err;
        json_t *root = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:b, s:b, s:s, s:O}", "runtime", o->runtime,
                                 "device", o->device, "threads", o->threads, "warmup", o->warmup, "runs", o->runs,
                                 "dtype", o->dtype, "channels_last", o->channels_last, "fold_bn", o->fold_bn,
                                 "schedule", o->back_to_back ? "back_to_back" : "interleaved", "models", models);
        if (sslat_write_file_atomic(runner, script, strlen(script), &err) != SSLAT_OK ||
            !root || json_dump_file(root, manifest, JSON_COMPACT) != 0) {
            fprintf(stderr, "sslat %s: cannot write the reference runner into %s\n", verb, w.dir);
            code = CLI_FAILURE;
        }
        json_decref(root);
    }
    const char *python = python_path();
    if (code == CLI_OK) {
        fprintf(stderr, "[reference] %d architectures end to end in %s (%s)\n", v->n, o->runtime, python);
        code = run_python(o->verb, python, runner, manifest, answer_path);
    }
    if (code == CLI_OK) code = read_answer(o->verb, o->runtime, answer_path, v, answer);
    if (code == CLI_INTERRUPTED) fprintf(stderr, "sslat %s: interrupted: the reference run stopped\n", verb);
    json_decref(models);
    workspace_remove(&w); /* on every path: success, failure and a signal */
    return code;
}

int cli_reference_measure_architectures(const sslat_space *space, const int32_t *const *archs, size_t n,
                                        const cli_reference_options *options, double *ms,
                                        cli_reference_answer *answer)
{
    if (n > INT32_MAX / 2) return CLI_BAD_INPUT;
    sslat_validation v = {.n = (int)n, .rows = calloc(n ? n : 1, sizeof(sslat_validation_row))};
    if (!v.rows) {
        fprintf(stderr, "sslat: out of memory\n");
        return CLI_FAILURE;
    }
    for (size_t k = 0; k < n; k++) {
        v.rows[k].arch = (int32_t *)archs[k]; /* borrowed: the rows are freed, not released */
        snprintf(v.rows[k].label, sizeof v.rows[k].label, "context %zu", k);
    }
    int code = cli_reference_measure(space, &v, options, answer);
    for (size_t k = 0; code == CLI_OK && k < n; k++) ms[k] = v.rows[k].measured;
    free(v.rows);
    return code;
}
