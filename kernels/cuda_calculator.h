/* What the cuda calculator is, shared by its table entry (kernels/cuda_calculator.c)
 * and the stub of builds without CUDA (kernels/cuda_stub.c). */
#ifndef SSLAT_CUDA_CALCULATOR_H
#define SSLAT_CUDA_CALCULATOR_H

#include "calc/calculator.h"

#define SSLAT_CUDA_CALCULATOR_IDENTITY                                                       \
    .api_version = SSLAT_CALCULATOR_API_VERSION, .name = "cuda", .kind = SSLAT_CALC_TIMED,   \
    .summary = "cuDNN / cuBLAS / own kernels timed with CUDA graphs and events",             \
    .dtypes = SSLAT_DTYPES_ALL,                                                              \
    .options_read = SSLAT_READS_COLD | SSLAT_READS_LAYOUT | SSLAT_READS_DEVICE | SSLAT_READS_PROFILE |        \
                    SSLAT_READS_CUDNN_API | SSLAT_READS_SELECTION_CACHE

#endif
