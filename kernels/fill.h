/* Seeded random fill on the device: inputs and weights are never zeros.
 * Counter-based (splitmix64 of seed + index), so the host can reproduce every
 * value with sslat_fill_value() and check the kernel without a copy of state. */
#ifndef SSLAT_KERNELS_FILL_H
#define SSLAT_KERNELS_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The value at index i: uniform in [lo, hi), the same on host and device. */
float sslat_fill_value(uint64_t seed, uint64_t index, float lo, float hi);

/* Fill count floats at device pointer data on stream (a cudaStream_t).
 * Returns 0 on success, else the cudaError_t of the launch. */
int sslat_cuda_fill_uniform(float *data, size_t count, uint64_t seed, float lo, float hi,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif
