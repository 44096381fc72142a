/* Elementwise kernels: activations, residual add, the conv / GEMM epilogue.
 * Index arithmetic is 32-bit when the tensor fits (I = uint32_t), 64-bit only
 * past 2^31 elements: a 64-bit division per element is a library call. */
#include "kernels/common.cuh"

template <typename T, typename I>
static __global__ void act_kernel(int act, const T *x, T *y, I count)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_apply_act(act, sslat_load(x, i)));
}

template <typename T, typename I>
static __global__ void leaky_relu_kernel(float slope, const T *x, T *y, I count)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float v = sslat_load(x, i);
        sslat_store(y, i, v > 0.f ? v : slope * v);
    }
}

template <typename T, typename I>
static __global__ void scale_channels_kernel(int channels_last, const T *x, const float *gamma, T *y, I count, I c,
                                             I hw)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_load(x, i) * gamma[channels_last ? i % c : i / hw % c]);
}

template <typename T, typename I>
static __global__ void add_kernel(int act, const T *a, const T *b, T *y, I count)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_apply_act(act, sslat_load(a, i) + sslat_load(b, i)));
}

/* NHWC (and vectors): the channel is the fastest-moving index. */
template <typename T, typename I>
static __global__ void epilogue_nhwc_kernel(T *y, const float *bias, const T *residual, int act, I count, I c)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float v = sslat_load(y, i);
        if (bias) v += bias[i % c];
        if (residual) v += sslat_load(residual, i);
        sslat_store(y, i, sslat_apply_act(act, v));
    }
}

/* NCHW: one (image, channel) plane per grid row, so the channel is read once
 * per plane instead of divided out of every index. */
template <typename T, typename I>
static __global__ void epilogue_nchw_kernel(T *y, const float *bias, const T *residual, int act, I planes, I c, I hw)
{
    for (I plane = blockIdx.y; plane < planes; plane += gridDim.y) {
        float b = bias ? bias[plane % c] : 0.f;
        I base = plane * hw;
        for (I p = (I)blockIdx.x * blockDim.x + threadIdx.x; p < hw; p += (I)gridDim.x * blockDim.x) {
            float v = sslat_load(y, base + p) + b;
            if (residual) v += sslat_load(residual, base + p);
            sslat_store(y, base + p, sslat_apply_act(act, v));
        }
    }
}

/* Launchers per index type I (the narrowest that holds the tensor). */
template <typename I>
static void launch_act(int elem, int act, const void *x, void *y, size_t count, cudaStream_t stream)
{
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, act_kernel<T, I>)(act, (const T *)x, (T *)y, (I)count)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
}

template <typename I>
static void launch_add(int elem, int act, const void *a, const void *b, void *y, size_t count, cudaStream_t stream)
{
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, add_kernel<T, I>)(act, (const T *)a, (const T *)b, (T *)y, (I)count)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
}

template <typename I>
static void launch_epilogue(int elem, int nhwc, void *y, const float *bias, const void *residual, int act, size_t n,
                            size_t c, size_t hw, cudaStream_t stream)
{
    size_t count = n * c * hw, planes = n * c;
    if (nhwc || hw == 1) {
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, epilogue_nhwc_kernel<T, I>)((T *)y, bias, (const T *)residual, act, (I)count, (I)c)
        SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    } else {
        dim3 grid((unsigned)sslat_grid_for(hw, SSLAT_CUDA_BLOCK),
                  (unsigned)(planes < SSLAT_CUDA_MAX_GRID ? planes : SSLAT_CUDA_MAX_GRID));
#define LAUNCH(T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, stream, epilogue_nchw_kernel<T, I>)((T *)y, bias, (const T *)residual, act, (I)planes, (I)c, (I)hw)
        SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    }
}

extern "C" cudaError_t sslat_cuda_act(int elem, int act, const void *x, void *y, size_t count, void *stream)
{
    if (count == 0) return cudaSuccess;
    if (sslat_fits_32(count)) launch_act<uint32_t>(elem, act, x, y, count, (cudaStream_t)stream);
    else launch_act<size_t>(elem, act, x, y, count, (cudaStream_t)stream);
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_leaky_relu(int elem, float slope, const void *x, void *y, size_t count, void *stream)
{
    if (count == 0) return cudaSuccess;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, leaky_relu_kernel<T, I>)(slope, (const T *)x, (T *)y, (I)count)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_scale_channels(int elem, int channels_last, const void *x, const float *gamma,
                                                 void *y, size_t count, int c, int hw, void *stream)
{
    if (count == 0) return cudaSuccess;
    if (c < 1 || hw < 1) return cudaErrorInvalidValue;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, scale_channels_kernel<T, I>)(channels_last, (const T *)x, gamma, (T *)y, (I)count, (I)c, (I)hw)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_add(int elem, int act, const void *a, const void *b, void *y, size_t count, void *stream)
{
    if (count == 0) return cudaSuccess;
    if (sslat_fits_32(count)) launch_add<uint32_t>(elem, act, a, b, y, count, (cudaStream_t)stream);
    else launch_add<size_t>(elem, act, a, b, y, count, (cudaStream_t)stream);
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_epilogue(int elem, int nhwc, void *y, const float *bias, const void *residual, int act,
                                   int n, int c, int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return cudaSuccess;
    if (sslat_fits_32(count))
        launch_epilogue<uint32_t>(elem, nhwc, y, bias, residual, act, (size_t)n, (size_t)c, (size_t)hw, (cudaStream_t)stream);
    else
        launch_epilogue<size_t>(elem, nhwc, y, bias, residual, act, (size_t)n, (size_t)c, (size_t)hw, (cudaStream_t)stream);
    return cudaGetLastError();
}
