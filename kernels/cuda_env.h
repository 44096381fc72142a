/* Host-side decisions of the cuda backend that need no GPU: which device a
 * process uses, and how many copies of a subgraph one timed graph replays. */
#ifndef SSLAT_CUDA_ENV_H
#define SSLAT_CUDA_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "base/limits.h"
#include "calc/options.h"
#include "sslat.h"

/* The environment variables a launcher sets to a process's rank on its node,
 * in the order they are read. */
#define SSLAT_LOCAL_RANK_VARIABLES {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"}

typedef struct sslat_device_choice {
    int32_t device;
    char source[64]; /* "--device", "LOCAL_RANK=3 modulo 8", "default" */
} sslat_device_choice;

/* requested ≥ 0: that device (it must be < device_count). Otherwise the first
 * local-rank variable that is set, modulo device_count; else device 0. Fails
 * with SSLAT_ERR_NO_DEVICE when device_count is 0, SSLAT_ERR_INVALID_ARGUMENT
 * for a device out of range or a variable that is not a whole number. */
sslat_status sslat_choose_device(int32_t requested, int32_t device_count, sslat_device_choice *out,
                                 sslat_error *err);

/* Why a run of dtype cannot be what it says under the environment, or NULL:
 * NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuDNN and cuBLAS, so a tf32 table
 * would time fp32 math. */
const char *sslat_cuda_tf32_refusal(sslat_dtype dtype);

/* Limits of hot-mode replays. */
#define SSLAT_CUDA_MIN_REPLAY_MS 0.2  /* one replay lasts at least this long */

/* Copies of a subgraph captured in one graph (hot mode): enough that a replay
 * lasts ≥ min_replay_ms given one copy's time, and that the copies' buffers
 * together exceed 2× the L2 size (so no copy finds its data in L2 from the
 * copy before); at most max_copies and what memory_budget holds (at least 1). */
int32_t sslat_cuda_copies(double single_copy_ms, size_t copy_bytes, size_t l2_bytes,
                          size_t memory_budget, double min_replay_ms, int32_t max_copies);

/* The most copies a replay captures: SSLAT_CUDA_COPIES_CAP when it holds a
 * whole number in [1, limit] (the GPU tests set 8: the op cases at batch 2
 * would otherwise capture 1024 copies each), else limit. */
int32_t sslat_cuda_copies_cap(int32_t limit);

#endif
