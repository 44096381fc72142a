#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"
#include "cli/cli.h"

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
            height[0] = width[0] = '\0';
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
            fprintf(stderr, "sslat: architecture '%s': expected comma-separated candidate indices\n", text);
            return -1;
        }
        if (length >= capacity) {
            fprintf(stderr, "sslat: architecture '%s' has more than %d indices\n", text, capacity);
            return -1;
        }
        arch[length++] = (int32_t)value;
        p = end;
        while (*p == ' ') p++;
        if (*p == ',') p++;
        while (*p == ' ') p++;
    }
    return length;
}

void cli_print_arch(FILE *out, const int32_t *arch, int32_t length)
{
    for (int32_t b = 0; b < length; b++) fprintf(out, "%s%d", b ? "," : "", arch[b]);
}

int cli_write_text(const char *path, const char *text, const char *verb)
{
    if (strcmp(path, "-") == 0) {
        fputs(text, stdout);
        return CLI_OK;
    }
    sslat_error err;
    sslat_status status = sslat_write_file_atomic(path, text, strlen(text), &err);
    if (status != SSLAT_OK) fprintf(stderr, "sslat %s: %s\n", verb, err.message);
    return cli_exit_code(status);
}

int cli_shard_options(const char *text, int32_t *index, int32_t *count)
{
    *index = 0;
    *count = 1;
    char from_slurm[64] = "";
    if (!text) {
        const char *id = getenv("SLURM_ARRAY_TASK_ID"), *n = getenv("SLURM_ARRAY_TASK_COUNT");
        const char *min = getenv("SLURM_ARRAY_TASK_MIN");
        if (!id || !n) return CLI_OK;
        long first = min ? strtol(min, NULL, 10) : 0;
        snprintf(from_slurm, sizeof from_slurm, "%ld/%s", strtol(id, NULL, 10) - first, n);
        text = from_slurm;
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

void cli_print_json(json_t *root)
{
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    if (text) printf("%s\n", text);
    free(text);
    json_decref(root);
}

bool cli_device_option(int opt, const char *value, sslat_calc_options *options, int *exit_code)
{
    *exit_code = CLI_OK;
    switch (opt) {
    case CLI_OPT_DEVICE:
        if (!sslat_device_parse(value, &options->device)) {
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
        if (!sslat_layout_parse(value, &options->layout)) {
            fprintf(stderr, "sslat: --layout is nchw or nhwc, got '%s'\n", value);
            *exit_code = CLI_BAD_INPUT;
        }
        return true;
    case CLI_OPT_COLD: options->cold = true; return true;
    case CLI_OPT_PROFILE: options->profile = true; return true;
    default: return false;
    }
}
