#include "calc/options.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    o->device = -1;
}

static const char *const DTYPE_NAMES[SSLAT_DTYPE_COUNT] = {"fp32", "tf32", "fp16", "bf16"};

bool sslat_dtype_parse(const char *text, sslat_dtype *dtype)
{
    for (int d = 0; text && d < SSLAT_DTYPE_COUNT; d++)
        if (!strcmp(text, DTYPE_NAMES[d])) {
            *dtype = (sslat_dtype)d;
            return true;
        }
    return false;
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
