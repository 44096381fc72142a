/* The linear layers on the GPU: cuBLASLt with its epilogue, or cublasGemmEx
 * and the own epilogue kernel (kernels/cuda_linear.c). */
#ifndef SSLAT_CUDA_LINEAR_H
#define SSLAT_CUDA_LINEAR_H

#include "kernels/cuda_backend.h"

/* Step k (a linear on cuBLASLt): its descriptors and the heuristic's first
 * algorithm; with none, the step goes back to cublasGemmEx (counted in the
 * session's cublaslt_fallbacks). Other steps: nothing. */
sslat_status cuda_linear_prepare(cuda_program *p, int32_t k, sslat_error *err);

/* Its descriptors freed (NULL ones skipped). */
void cuda_linear_release(cuda_step_state *st);

/* Enqueue linear step k of copy on the session's stream: x in, y out. */
sslat_status cuda_linear_enqueue(const cuda_program *p, int32_t k, int32_t copy, const void *x, void *y,
                                 sslat_error *err);

#endif
