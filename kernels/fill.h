/* Seeded random fill on the device: inputs and weights are never zeros. The
 * values are engine/fill.h's sslat_fill_at, the same as on the host. */
#ifndef SSLAT_KERNELS_FILL_H
#define SSLAT_KERNELS_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fill count floats at device pointer data on stream (a cudaStream_t).
 * Returns 0 on success, else the cudaError_t of the launch. */
int sslat_cuda_fill_uniform(float *data, size_t count, uint64_t seed, float lo, float hi,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif
