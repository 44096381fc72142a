#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "base/text.h"
#include "cli/cli.h"

bool cli_set_once(const char **slot, const char *value, const char *verb, const char *option)
{
    if (*slot) {
        fprintf(stderr, "sslat %s: %s is given twice ('%.80s', then '%.80s')\n", verb, option, *slot, value);
        return false;
    }
    *slot = value;
    return true;
}

int cli_parse(const cli_verb *verb, int argc, char **argv, void *args, int *first)
{
    int opt;
    optind = 1; /* getopt's index is global; a process parses one command line, once */
    while ((opt = getopt_long(argc, argv, verb->short_options, verb->options, NULL)) != -1) {
        if (opt == 'h') {
            verb->usage();
            return CLI_HELP;
        }
        if (opt == '?' || opt == ':') return CLI_BAD_INPUT; /* getopt said which option */
        int code = verb->option(opt, optarg, args);
        if (code != CLI_OK) return code;
    }
    int n = argc - optind;
    if (n >= verb->min_args && (verb->max_args < 0 || n <= verb->max_args)) {
        *first = optind;
        return CLI_OK;
    }
    if (verb->expects || n < verb->min_args) return cli_expects(verb);
    fprintf(stderr, "sslat %s: unexpected argument '%s'\n", verb->name, argv[optind + verb->max_args]);
    return CLI_BAD_INPUT;
}

int cli_expects(const cli_verb *verb)
{
    fprintf(stderr, "sslat %s: expects %s\n", verb->name, verb->expects ? verb->expects : "other arguments (--help)");
    return CLI_BAD_INPUT;
}

const sslat_calculator *cli_best_calculator(void)
{
    const char *const *names = NULL;
    int32_t count = sslat_available_calculators(&names);
    return count > 0 ? sslat_calculator_find(names[count - 1]) : NULL;
}

static volatile int stop_flag = 0;

static void request_stop(int signal_number)
{
    (void)signal_number;
    stop_flag = 1;
}

volatile int *cli_catch_stop_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = request_stop; /* no SA_RESTART: a blocking wait returns EINTR and looks */
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    return &stop_flag;
}

bool cli_stop_requested(void) { return stop_flag != 0; }

const char *cli_text(const char *untrusted)
{
    /* a few at once, so one printf can show several */
    static char buffers[8][4096];
    static int next;
    char *out = buffers[next];
    next = (next + 1) % 8;
    sslat_escape_controls(untrusted ? untrusted : "", out, sizeof buffers[0]);
    return out;
}

int cli_exit_code(sslat_status status)
{
    switch (status) {
    case SSLAT_OK: return CLI_OK;
    case SSLAT_ERR_INVALID_ARGUMENT:
    case SSLAT_ERR_PARSE:
    case SSLAT_ERR_SPACE:
    case SSLAT_ERR_LIMIT: return CLI_BAD_INPUT;
    case SSLAT_ERR_UNSUPPORTED:
    case SSLAT_ERR_NO_DEVICE: return CLI_UNAVAILABLE;
    case SSLAT_ERR_IO:
    case SSLAT_ERR_NOMEM:
    case SSLAT_ERR_DEVICE: return CLI_FAILURE;
    case SSLAT_ERR_INTERRUPTED: return CLI_INTERRUPTED;
    }
    return CLI_FAILURE;
}

bool cli_parse_int(const char *text, const char *what, int64_t lo, int64_t hi, int32_t *out)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi) {
        fprintf(stderr, "sslat: %s must be a whole number in %lld..%lld, got '%s'\n", what,
                (long long)lo, (long long)hi, text);
        return false;
    }
    *out = (int32_t)value;
    return true;
}

bool cli_space_option(int opt, const char *value, cli_space_args *args, int *exit_code)
{
    if ((opt == CLI_OPT_BATCH && args->options.batch) || (opt == CLI_OPT_RESOLUTION && args->options.height)) {
        fprintf(stderr, "sslat: %s is given twice\n", opt == CLI_OPT_BATCH ? "--batch" : "--resolution");
        *exit_code = CLI_BAD_INPUT;
        return true;
    }
    if (opt == CLI_OPT_BATCH) {
        if (!cli_parse_int(value, "--batch", 1, SSLAT_MAX_BATCH, &args->options.batch))
            *exit_code = CLI_BAD_INPUT;
        return true;
    }
    if (opt == CLI_OPT_RESOLUTION) {
        char height[32], width[32];
        const char *x = strchr(value, 'x');
        if (x && (size_t)(x - value) < sizeof height && strlen(x + 1) < sizeof width) {
            memcpy(height, value, (size_t)(x - value));
            height[x - value] = '\0';
            strcpy(width, x + 1);
        } else if (!x && strlen(value) < sizeof height) {
            strcpy(height, value);
            strcpy(width, value);
        } else {
            fprintf(stderr, "sslat: --resolution takes H or HxW, whole numbers in 1..%d, got '%.40s%s'\n",
                    SSLAT_MAX_SPATIAL, value, strlen(value) > 40 ? "..." : "");
            *exit_code = CLI_BAD_INPUT;
            return true;
        }
        if (!cli_parse_int(height, "--resolution height", 1, SSLAT_MAX_SPATIAL, &args->options.height) ||
            !cli_parse_int(width, "--resolution width", 1, SSLAT_MAX_SPATIAL, &args->options.width))
            *exit_code = CLI_BAD_INPUT;
        return true;
    }
    return false;
}

int cli_load_space(const cli_space_args *args, sslat_space **space)
{
    sslat_error err;
    sslat_status status = args->path
                              ? sslat_space_load_file(args->path, &args->options, space, &err)
                              : sslat_space_load_default(&args->options, space, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat: %s\n", err.message);
        return cli_exit_code(status);
    }
    return CLI_OK;
}

int cli_load_container(const char *path, sslat_container **container)
{
    sslat_error err;
    sslat_status status = sslat_container_load_from_file(path, container, &err);
    if (status != SSLAT_OK) {
        fprintf(stderr, "sslat: %s\n", err.message);
        return cli_exit_code(status);
    }
    return CLI_OK;
}

int32_t cli_parse_arch(const char *text, int32_t *arch, int32_t capacity)
{
    int32_t length = 0;
    const char *p = text;
    while (*p == '[' || *p == ' ') p++;
    while (*p && *p != ']') {
        char *end = NULL;
        errno = 0;
        long value = strtol(p, &end, 10);
        if (end == p || errno || value < 0 || value > 1000000) {
            fprintf(stderr, "sslat: architecture '%.60s%s': expected comma-separated candidate indices (at index %d)\n",
                    text, strlen(text) > 60 ? "..." : "", length);
            return -1;
        }
        if (length >= capacity) {
            fprintf(stderr, "sslat: the architecture has more than %d indices\n", capacity);
            return -1;
        }
        arch[length++] = (int32_t)value;
        p = end;
        while (*p == ' ') p++;
        if (*p == ',') {
            p++;
            while (*p == ' ') p++;
            if (!*p || *p == ']') { /* "0,1," is refused, as every list is strict */
                fprintf(stderr, "sslat: architecture '%.60s': a comma with no index after it\n", text);
                return -1;
            }
        } else if (*p && *p != ']') {
            fprintf(stderr, "sslat: architecture '%.60s%s': expected comma-separated candidate indices (at index %d)\n",
                    text, strlen(text) > 60 ? "..." : "", length);
            return -1;
        }
    }
    if (*p == ']') p++;
    while (*p == ' ') p++;
    if (*p) { /* "0,1]junk" */
        fprintf(stderr, "sslat: architecture: unexpected '%.20s' after the indices\n", p);
        return -1;
    }
    return length;
}

void cli_print_arch_joined(FILE *out, const int32_t *arch, int32_t length, const char *separator)
{
    for (int32_t b = 0; b < length; b++) fprintf(out, "%s%d", b ? separator : "", arch[b]);
}

void cli_print_arch(FILE *out, const int32_t *arch, int32_t length) { cli_print_arch_joined(out, arch, length, ","); }

int cli_write_text(const char *path, const char *text, const char *verb)
{
    if (strcmp(path, "-") == 0) {
        sslat_json_write_for_terminal(stdout, text); /* (a CSV holds no control character) */
        return CLI_OK;
    }
    sslat_error err;
    sslat_status status = sslat_write_file_atomic(path, text, strlen(text), &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat %s: %s\n", verb, err.message);
    return cli_exit_code(status);
}

/* A Slurm array variable as a whole number >= 0; false after naming it. */
static bool slurm_number(const char *name, long *out)
{
    const char *text = getenv(name);
    char *end = NULL;
    errno = 0;
    long value = text ? strtol(text, &end, 10) : -1;
    if (!text || errno || end == text || *end || value < 0 || value > SSLAT_MAX_SHARDS * 64L) {
        fprintf(stderr, "sslat: %s='%.40s' is not a Slurm array value (a whole number >= 0)\n", name, text ? text : "");
        return false;
    }
    *out = value;
    return true;
}

/* The shard of a Slurm array task: (ID - MIN) / STEP of COUNT tasks, so
 * --array=1-7:3 (tasks 1, 4, 7) are shards 0, 1, 2 of 3. */
static int slurm_shard(int32_t *index, int32_t *count)
{
    long id, n, first = 0, step = 1;
    if (!slurm_number("SLURM_ARRAY_TASK_ID", &id) || !slurm_number("SLURM_ARRAY_TASK_COUNT", &n) ||
        (getenv("SLURM_ARRAY_TASK_MIN") && !slurm_number("SLURM_ARRAY_TASK_MIN", &first)) ||
        (getenv("SLURM_ARRAY_TASK_STEP") && !slurm_number("SLURM_ARRAY_TASK_STEP", &step)))
        return CLI_BAD_INPUT;
    if (step < 1) step = 1;
    if (n < 1 || n > SSLAT_MAX_SHARDS || id < first || (id - first) % step || (id - first) / step >= n) {
        fprintf(stderr, "sslat: the Slurm array task %ld is not one of %ld tasks from %ld in steps of %ld "
                        "(SLURM_ARRAY_TASK_ID / _MIN / _STEP / _COUNT): give --shard I/N\n", id, n, first, step);
        return CLI_BAD_INPUT;
    }
    *index = (int32_t)((id - first) / step);
    *count = (int32_t)n;
    return CLI_OK;
}

int cli_shard_options(const char *text, int32_t *index, int32_t *count)
{
    *index = 0;
    *count = 1;
    if (!text) {
        bool has_id = getenv("SLURM_ARRAY_TASK_ID"), has_count = getenv("SLURM_ARRAY_TASK_COUNT");
        if (!has_id && !has_count) return CLI_OK; /* not an array task: the whole space */
        if (has_id != has_count) { /* half an array task: never guess the whole space */
            fprintf(stderr, "sslat: %s is set but %s is not (Slurm sets both in an array task): give --shard I/N\n",
                    has_id ? "SLURM_ARRAY_TASK_ID" : "SLURM_ARRAY_TASK_COUNT",
                    has_id ? "SLURM_ARRAY_TASK_COUNT" : "SLURM_ARRAY_TASK_ID");
            return CLI_BAD_INPUT;
        }
        return slurm_shard(index, count);
    }
    const char *slash = strchr(text, '/');
    char left[32];
    if (!slash || (size_t)(slash - text) >= sizeof left) {
        fprintf(stderr, "sslat: --shard takes I/N (e.g. 0/4), got '%s'\n", text);
        return CLI_BAD_INPUT;
    }
    memcpy(left, text, (size_t)(slash - text));
    left[slash - text] = '\0';
    if (!cli_parse_int(slash + 1, "shard count", 1, SSLAT_MAX_SHARDS, count) ||
        !cli_parse_int(left, "shard index", 0, *count - 1, index))
        return CLI_BAD_INPUT;
    return CLI_OK;
}

int cli_print_json(json_t *root)
{
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    if (text) {
        sslat_json_write_for_terminal(stdout, text);
        fputc('\n', stdout);
    }
    else fprintf(stderr, "sslat: the JSON output could not be built (a value JSON cannot hold, or out of memory)\n");
    free(text);
    json_decref(root);
    return text ? CLI_OK : CLI_FAILURE;
}

json_t *cli_json_number(double value) { return isfinite(value) ? json_real(value) : json_null(); }

static bool cache_mode_given;

bool cli_device_option(int opt, const char *value, sslat_calc_options *options, int *exit_code)
{
    *exit_code = CLI_OK;
    switch (opt) {
    case CLI_OPT_DEVICE:
        if (!sslat_device_parse(value, &options->cuda.device)) {
            fprintf(stderr, "sslat: --device is a GPU index ('0' or 'cuda:1'), got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        return true;
    case CLI_OPT_DTYPE:
        if (!sslat_dtype_parse(value, &options->dtype)) {
            fprintf(stderr, "sslat: --dtype is fp32, tf32, fp16 or bf16, got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        return true;
    case CLI_OPT_LAYOUT:
        if (options->layout != SSLAT_LAYOUT_DEFAULT) {
            fprintf(stderr, "sslat: --layout is given twice\n");
            *exit_code = CLI_BAD_INPUT;
        } else if (!sslat_layout_parse(value, &options->layout)) {
            fprintf(stderr, "sslat: --layout is nchw or nhwc, got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        return true;
    case CLI_OPT_COLD:
    case CLI_OPT_CACHE:
        /* the cache mode once: --cache hot --cold (or two --cache) would
         * otherwise let the last one win silently (a process parses one line) */
        if (cache_mode_given) {
            fprintf(stderr, "sslat: the cache mode is given twice (--cache or --cold): give it once\n");
            *exit_code = CLI_BAD_INPUT;
            return true;
        }
        cache_mode_given = true;
        if (opt == CLI_OPT_COLD) {
            options->cold = true;
            return true;
        }
        if (strcmp(value, "hot") && strcmp(value, "cold")) {
            fprintf(stderr, "sslat: --cache is hot or cold, got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        options->cold = strcmp(value, "cold") == 0;
        return true;
    case CLI_OPT_PROFILE: options->cuda.profile = true; return true;
    case CLI_OPT_CUDA_API:
        if (options->cuda.api != SSLAT_CUDNN_API_DEFAULT) {
            fprintf(stderr, "sslat: --cuda-api is given twice\n");
            *exit_code = CLI_BAD_INPUT;
        } else if (!sslat_cudnn_api_parse(value, &options->cuda.api)) {
            fprintf(stderr, "sslat: --cuda-api is legacy or graph, got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        return true;
    case CLI_OPT_SELECTION_CACHE:
        if (options->cuda.selection_cache) {
            fprintf(stderr, "sslat: --selection-cache is given twice\n");
            *exit_code = CLI_BAD_INPUT;
        } else if (!value[0]) {
            fprintf(stderr, "sslat: --selection-cache is a folder or 'off', got ''\n");
            *exit_code = CLI_BAD_INPUT;
        }
        options->cuda.selection_cache = value;
        return true;
    default: return false;
    }
}

void cli_print_quality_note(FILE *out, const sslat_container *table, const char *role)
{
    const char *verdict = sslat_container_metadata(table, "quality.verdict");
    const char *cause = sslat_container_metadata(table, "quality.cause");
    if (verdict && strcmp(verdict, "ok"))
        fprintf(out, "note: the %s table's quality verdict is %s%s%s\n", role,
                strcmp(verdict, "disturbed") ? verdict : "DISTURBED", cause && strcmp(cause, "none") ? ": " : "",
                cause && strcmp(cause, "none") ? cli_text(cause) : "");
    const char *reference = sslat_container_metadata(table, "context.quality.verdict");
    if (reference && strcmp(reference, "ok"))
        fprintf(out, "note: the reference runs the %s table was fitted to were %s (sslat stats: fit)\n", role,
                reference);
}
