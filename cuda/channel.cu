/* Per-channel kernels: SE scaling, global average pooling, channel shuffle. */
#include <cuda_runtime.h>

#include "cuda/common.cuh"

/* Index of (n, c, p) in NCHW or NHWC. */
static __device__ __forceinline__ size_t at(int nhwc, int n, int ch, int p, int c, int hw)
{
    return nhwc ? ((size_t)n * hw + p) * c + ch : ((size_t)n * c + ch) * hw + p;
}

template <typename T>
static __global__ void mul_channel_kernel(int nhwc, const T *x, const T *s, T *y, int n, int c, int hw)
{
    size_t count = (size_t)n * c * hw, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        size_t image = i / ((size_t)c * hw);
        int channel = nhwc ? (int)(i % c) : (int)((i / hw) % c);
        sslat_store(y, i, sslat_load(x, i) * sslat_load(s, image * c + channel));
    }
}

/* One warp per (n, c): a strided sum, then a shuffle reduction. */
template <typename T>
static __global__ void global_avgpool_kernel(int nhwc, const T *x, T *y, int n, int c, int hw)
{
    int warp = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
    if (warp >= n * c) return;
    int image = warp / c, channel = warp % c;
    float sum = 0.f;
    for (int p = lane; p < hw; p += 32) sum += sslat_load(x, at(nhwc, image, channel, p, c, hw));
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) sslat_store(y, (size_t)image * c + channel, sum / (float)hw);
}

template <typename T>
static __global__ void shuffle_kernel(int nhwc, const T *x, T *y, int n, int c, int hw, int groups)
{
    size_t count = (size_t)n * c * hw, stride = (size_t)gridDim.x * blockDim.x;
    int per_group = c / groups;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        int image, channel, p;
        if (nhwc) {
            channel = (int)(i % c), p = (int)((i / c) % hw), image = (int)(i / ((size_t)c * hw));
        } else {
            p = (int)(i % hw), channel = (int)((i / hw) % c), image = (int)(i / ((size_t)c * hw));
        }
        int out_channel = (channel % per_group) * groups + channel / per_group;
        sslat_store(y, at(nhwc, image, out_channel, p, c, hw), sslat_load(x, i));
    }
}

extern "C" int sslat_cuda_mul_channel(int elem, int nhwc, const void *x, const void *s, void *y, int n, int c,
                                      int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return 0;
#define LAUNCH(T) mul_channel_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(nhwc, (const T *)x, (const T *)s, (T *)y, n, c, hw)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}

extern "C" int sslat_cuda_global_avgpool(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                                         void *stream)
{
    size_t threads = (size_t)n * c * 32;
    if (threads == 0) return 0;
    int blocks = (int)((threads + SSLAT_CUDA_BLOCK - 1) / SSLAT_CUDA_BLOCK);
#define LAUNCH(T) global_avgpool_kernel<T><<<blocks, SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(nhwc, (const T *)x, (T *)y, n, c, hw)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}

extern "C" int sslat_cuda_channel_shuffle(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                                          int groups, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0 || groups < 1 || c % groups) return count == 0 ? 0 : (int)cudaErrorInvalidValue;
#define LAUNCH(T) shuffle_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>(nhwc, (const T *)x, (T *)y, n, c, hw, groups)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}
