#include "calc/options.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/limits.h"

void sslat_calc_options_default(sslat_calc_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = SSLAT_MODE_FUSED;
    o->warmup_iterations = SSLAT_DEFAULT_WARMUP;
    o->run_iterations = SSLAT_DEFAULT_RUNS;
    o->max_seconds = SSLAT_DEFAULT_MAX_SECONDS;
    o->seed = SSLAT_DEFAULT_SEED;
    o->dtype = SSLAT_DTYPE_FP32;
    o->layout = SSLAT_LAYOUT_DEFAULT;
    o->cuda.device = -1;
}

/* The index of text in names (count of them), or -1. */
static int name_index(const char *text, const char *const *names, int count)
{
    for (int i = 0; text && i < count; i++)
        if (!strcmp(text, names[i])) return i;
    return -1;
}

static const char *const DTYPE_NAMES[SSLAT_DTYPE_COUNT] = {"fp32", "tf32", "fp16", "bf16"};

bool sslat_dtype_parse(const char *text, sslat_dtype *dtype)
{
    int d = name_index(text, DTYPE_NAMES, SSLAT_DTYPE_COUNT);
    if (d >= 0) *dtype = (sslat_dtype)d;
    return d >= 0;
}

const char *sslat_dtype_name(sslat_dtype dtype)
{
    return (unsigned)dtype < SSLAT_DTYPE_COUNT ? DTYPE_NAMES[dtype] : "?";
}

bool sslat_layout_parse(const char *text, sslat_layout *layout)
{
    if (!text) return false;
    if (!strcasecmp(text, "nchw")) *layout = SSLAT_LAYOUT_NCHW;
    else if (!strcasecmp(text, "nhwc")) *layout = SSLAT_LAYOUT_NHWC;
    else return false;
    return true;
}

sslat_layout sslat_layout_resolve(sslat_layout layout, sslat_dtype dtype)
{
    if (layout != SSLAT_LAYOUT_DEFAULT) return layout;
    return dtype == SSLAT_DTYPE_FP16 || dtype == SSLAT_DTYPE_BF16 ? SSLAT_LAYOUT_NHWC : SSLAT_LAYOUT_NCHW;
}

const char *sslat_layout_name(sslat_layout layout)
{
    return layout == SSLAT_LAYOUT_NHWC ? "nhwc" : layout == SSLAT_LAYOUT_NCHW ? "nchw" : "default";
}

/* the names of SSLAT_CUDNN_API_LEGACY onwards */
static const char *const CUDNN_API_NAMES[SSLAT_CUDNN_API_COUNT - 1] = {"legacy", "graph"};

bool sslat_cudnn_api_parse(const char *text, sslat_cudnn_api *api)
{
    int a = name_index(text, CUDNN_API_NAMES, SSLAT_CUDNN_API_COUNT - 1);
    if (a >= 0) *api = (sslat_cudnn_api)(SSLAT_CUDNN_API_LEGACY + a);
    return a >= 0;
}

sslat_cudnn_api sslat_cudnn_api_resolve(sslat_cudnn_api api)
{
    return api == SSLAT_CUDNN_API_DEFAULT ? SSLAT_CUDNN_API_LEGACY : api;
}

const char *sslat_cudnn_api_name(sslat_cudnn_api api)
{
    api = sslat_cudnn_api_resolve(api);
    return (unsigned)api < SSLAT_CUDNN_API_COUNT ? CUDNN_API_NAMES[api - SSLAT_CUDNN_API_LEGACY] : "?";
}

bool sslat_device_parse(const char *text, int32_t *device)
{
    if (!text) return false;
    if (!strncmp(text, "cuda:", 5)) text += 5;
    if (*text < '0' || *text > '9') return false;
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (*end || value > SSLAT_MAX_DEVICE_INDEX) return false;
    *device = (int32_t)value;
    return true;
}

int32_t sslat_max_threads(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    return cores > SSLAT_MAX_THREADS ? SSLAT_MAX_THREADS : (int32_t)cores;
}

sslat_status sslat_calc_options_check(const sslat_calc_options *o, sslat_error *err)
{
    if (o->threads < 0 || o->threads > sslat_max_threads())
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "threads = %d: this machine has %d cores (0 = all of them)",
                          o->threads, sslat_max_threads());
    if (o->run_iterations < 1)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "run_iterations = %d: at least 1 timed run", o->run_iterations);
    if (o->warmup_iterations < 0)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "warmup_iterations = %d is negative", o->warmup_iterations);
    if (!(o->target_noise >= 0) || !isfinite(o->target_noise))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "target_noise = %g: a finite number >= 0 (0 = off)",
                          o->target_noise);
    if (!(o->max_seconds > 0) || !isfinite(o->max_seconds))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "max_seconds = %g: a finite number > 0", o->max_seconds);
    return SSLAT_OK;
}
