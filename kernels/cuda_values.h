/* What building a cuda program (kernels/cuda_program.c) and launching it
 * (kernels/cuda_launch.c) both read: the library types of a dtype and where a
 * value or a parameter of one copy lives. Private to the two. */
#ifndef SSLAT_CUDA_VALUES_H
#define SSLAT_CUDA_VALUES_H

#include "kernels/cuda_backend.h"

/* ---- types and layouts ------------------------------------------------------------- */

static inline cudnnDataType_t cudnn_type(sslat_dtype d)
{
    return d == SSLAT_DTYPE_FP16 ? CUDNN_DATA_HALF : d == SSLAT_DTYPE_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

static inline cudaDataType_t cublas_type(sslat_dtype d)
{
    return d == SSLAT_DTYPE_FP16 ? CUDA_R_16F : d == SSLAT_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* cuBLAS's compute type: 32F, with TF32 tensor cores allowed for the tf32 dtype */
static inline cublasComputeType_t cublas_compute(sslat_dtype d)
{
    return d == SSLAT_DTYPE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

static inline cudnnMathType_t math_of(sslat_dtype d)
{
    /* fp32: FMA only (no TF32); tf32: cuDNN may use TF32 tensor cores */
    return d == SSLAT_DTYPE_FP32 ? CUDNN_FMA_MATH : d == SSLAT_DTYPE_TF32 ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH;
}

static inline sslat_shape shape_of(const cuda_program *p, int32_t value)
{
    return sslat_graph_shape_of(p->graph, value - 1);
}

static inline int32_t value_of(int32_t node) { return node + 1; } /* SSLAT_GRAPH_INPUT (-1) → 0 */

/* The buffer a value lives in (aliases resolved). */
static inline void *buffer_of(const cuda_program *p, int32_t copy, int32_t value)
{
    return p->values[(size_t)copy * (size_t)p->n_values + (size_t)p->value_alias[value]];
}

static inline void *param_of(const cuda_program *p, int32_t copy, int32_t param)
{
    return param < 0 ? NULL : p->param_buffers[(size_t)copy * (size_t)p->n_params + (size_t)param];
}

#endif
