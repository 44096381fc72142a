/* Elementwise kernels: activations, residual add, the conv / GEMM epilogue. */
#include <cuda_runtime.h>

#include "cuda/common.cuh"

template <typename T>
static __global__ void act_kernel(int act, const T *x, T *y, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_apply_act(act, sslat_load(x, i)));
}

template <typename T>
static __global__ void add_kernel(int act, const T *a, const T *b, T *y, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_apply_act(act, sslat_load(a, i) + sslat_load(b, i)));
}

template <typename T>
static __global__ void epilogue_kernel(int nhwc, T *y, const float *bias, const T *residual, int act,
                                       int n, int c, int hw)
{
    size_t count = (size_t)n * c * hw, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        int channel = nhwc ? (int)(i % c) : (int)((i / hw) % c);
        float v = sslat_load(y, i);
        if (bias) v += bias[channel];
        if (residual) v += sslat_load(residual, i);
        sslat_store(y, i, sslat_apply_act(act, v));
    }
}

extern "C" int sslat_cuda_act(int elem, int act, const void *x, void *y, size_t count, void *stream)
{
    if (count == 0) return 0;
#define LAUNCH(T) act_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(act, (const T *)x, (T *)y, count)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}

extern "C" int sslat_cuda_add(int elem, int act, const void *a, const void *b, void *y, size_t count, void *stream)
{
    if (count == 0) return 0;
#define LAUNCH(T) add_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(act, (const T *)a, (const T *)b, (T *)y, count)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}

extern "C" int sslat_cuda_epilogue(int elem, int nhwc, void *y, const float *bias, const void *residual, int act,
                                   int n, int c, int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return 0;
#define LAUNCH(T) epilogue_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(nhwc, (T *)y, bias, (const T *)residual, act, n, c, hw)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}
