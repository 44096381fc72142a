#include "kernels/cuda_env.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

sslat_status sslat_choose_device(int32_t requested, int32_t device_count, sslat_device_choice *out,
                                 sslat_error *err)
{
    memset(out, 0, sizeof *out);
    if (device_count <= 0) return sslat_fail(err, SSLAT_ERR_NO_DEVICE, "no CUDA device is present");
    if (requested >= 0) {
        if (requested >= device_count)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "--device %d: this machine has %d CUDA device%s (0..%d)",
                              requested, device_count, device_count == 1 ? "" : "s", device_count - 1);
        out->device = requested;
        snprintf(out->source, sizeof out->source, "--device");
        return SSLAT_OK;
    }
    static const char *const VARIABLES[] = SSLAT_LOCAL_RANK_VARIABLES;
    for (size_t i = 0; i < sizeof VARIABLES / sizeof VARIABLES[0]; i++) {
        const char *text = getenv(VARIABLES[i]);
        if (!text || !*text) continue;
        char *end = NULL;
        errno = 0;
        long rank = strtol(text, &end, 10);
        /* digits only: " 1" or "+1" are not what a launcher sets */
        if (errno || *end || text[0] < '0' || text[0] > '9' || rank < 0 || rank > 1000000)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "%s='%s' is not a local rank (a whole number >= 0)",
                              VARIABLES[i], text);
        out->device = (int32_t)(rank % device_count);
        snprintf(out->source, sizeof out->source, "%s=%ld modulo %d", VARIABLES[i], rank, device_count);
        return SSLAT_OK;
    }
    out->device = 0;
    snprintf(out->source, sizeof out->source, "default");
    return SSLAT_OK;
}

const char *sslat_cuda_tf32_refusal(sslat_dtype dtype)
{
    const char *override = getenv("NVIDIA_TF32_OVERRIDE");
    if (dtype != SSLAT_DTYPE_TF32 || !override || strcmp(override, "0")) return NULL;
    return "NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuDNN and cuBLAS: a tf32 table would time fp32 math (unset it, "
           "or measure --dtype fp32)";
}

int32_t sslat_cuda_copies(double single_copy_ms, size_t copy_bytes, size_t l2_bytes,
                          size_t memory_budget, double min_replay_ms, int32_t max_copies)
{
    double by_time = single_copy_ms > 0 ? ceil(min_replay_ms / single_copy_ms) : max_copies;
    double by_cache = copy_bytes > 0 ? floor(2.0 * (double)l2_bytes / (double)copy_bytes) + 1 : 1;
    double copies = fmax(fmax(by_time, by_cache), 1);
    if (copies > max_copies) copies = max_copies;
    if (copy_bytes > 0 && copies * (double)copy_bytes > (double)memory_budget)
        copies = floor((double)memory_budget / (double)copy_bytes);
    return copies < 1 ? 1 : (int32_t)copies;
}

int32_t sslat_cuda_copies_cap(int32_t limit)
{
    const char *text = getenv("SSLAT_CUDA_COPIES_CAP");
    if (!text || !*text) return limit;
    char *end = NULL;
    errno = 0;
    long cap = strtol(text, &end, 10);
    if (errno || *end || cap < 1 || cap > limit) return limit;
    return (int32_t)cap;
}
