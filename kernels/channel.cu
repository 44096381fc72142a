/* Per-channel kernels: SE scaling, global average pooling, channel shuffle.
 * Index arithmetic is 32-bit when the tensor fits (I = uint32_t). */
#include "kernels/common.cuh"

/* Index of (n, c, p) in NCHW or NHWC. */
template <typename I>
static __device__ __forceinline__ I at(int nhwc, I n, I ch, I p, I c, I hw)
{
    return nhwc ? (n * hw + p) * c + ch : (n * c + ch) * hw + p;
}

template <typename T, typename I>
static __global__ void mul_channel_kernel(int nhwc, const T *x, const T *s, T *y, I count, I c, I hw)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        /* the scale's index n·C + c: in NHWC i / (C·HW) · C + i % C, in NCHW i / HW */
        I scale = nhwc ? i / (c * hw) * c + i % c : i / hw;
        sslat_store(y, i, sslat_load(x, i) * sslat_load(s, scale));
    }
}

/* One lane's share of an NCHW plane: the pixels p ≡ lane (mod 32). */
template <typename T>
static __device__ __forceinline__ float lane_sum(const T *plane, int hw, int lane)
{
    float sum = 0.f;
    for (int p = lane; p < hw; p += 32) sum += sslat_load(plane, (size_t)p);
    return sum;
}

/* The sum of a plane over the 32 lanes of a warp, complete in lane 0: a
 * shuffle tree (lane l adds lane l + offset for offset 16, 8, 4, 2, 1). The
 * host emulation runs one thread at a time, so no lane can wait for another:
 * its twin lets lane 0 compute all 32 shares and add them in the same tree
 * order (the other lanes' results are not used). */
template <typename T>
static __device__ __forceinline__ float warp_plane_sum(const T *plane, int hw, int lane)
{
#ifdef SSLAT_CUDA_EMULATE
    if (lane != 0) return 0.f;
    float shares[32];
    for (int l = 0; l < 32; l++) shares[l] = lane_sum(plane, hw, l);
    for (int offset = 16; offset > 0; offset /= 2)
        for (int l = 0; l < offset; l++) shares[l] += shares[l + offset];
    return shares[0];
#else
    float sum = lane_sum(plane, hw, lane);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    return sum;
#endif
}

/* NCHW: one warp per (n, c) plane, a strided sum over its contiguous pixels,
 * then a shuffle reduction. */
template <typename T>
static __global__ void global_avgpool_nchw_kernel(const T *x, T *y, int planes, int hw)
{
    int lane = threadIdx.x % 32, warps = (int)(gridDim.x * (blockDim.x / 32));
    for (int plane = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32); plane < planes; plane += warps) {
        float sum = warp_plane_sum(x + (size_t)plane * hw, hw, lane);
        if (lane == 0) sslat_store(y, (size_t)plane, sum / (float)hw);
    }
}

/* NHWC: threads over the channels of one image (neighbouring threads read
 * neighbouring channels: coalesced), each summing its channel over the pixels. */
template <typename T>
static __global__ void global_avgpool_nhwc_kernel(const T *x, T *y, int n, int c, int hw)
{
    for (int image = blockIdx.y; image < n; image += gridDim.y)
        for (int ch = blockIdx.x * blockDim.x + threadIdx.x; ch < c; ch += gridDim.x * blockDim.x) {
            float sum = 0.f;
            const size_t base = (size_t)image * hw * c + ch;
            for (int p = 0; p < hw; p++) sum += sslat_load(x, base + (size_t)p * c);
            sslat_store(y, (size_t)image * c + ch, sum / (float)hw);
        }
}

template <typename T, typename I>
static __global__ void shuffle_kernel(int nhwc, const T *x, T *y, I count, I c, I hw, I groups)
{
    I stride = (I)gridDim.x * blockDim.x, per_group = c / groups;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I image, channel, p;
        if (nhwc) {
            channel = i % c, p = (i / c) % hw, image = i / (c * hw);
        } else {
            p = i % hw, channel = (i / hw) % c, image = i / (c * hw);
        }
        I out_channel = (channel % per_group) * groups + channel / per_group;
        sslat_store(y, at<I>(nhwc, image, out_channel, p, c, hw), sslat_load(x, i));
    }
}

template <typename I>
static void launch_mul_channel(int elem, int nhwc, const void *x, const void *s, void *y, size_t count, size_t c,
                               size_t hw, cudaStream_t stream)
{
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, mul_channel_kernel<T, I>)(nhwc, (const T *)x, (const T *)s, (T *)y, (I)count, (I)c, (I)hw)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
}

template <typename I>
static void launch_shuffle(int elem, int nhwc, const void *x, void *y, size_t count, size_t c, size_t hw, size_t groups,
                           cudaStream_t stream)
{
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, shuffle_kernel<T, I>)(nhwc, (const T *)x, (T *)y, (I)count, (I)c, (I)hw, (I)groups)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
}

extern "C" cudaError_t sslat_cuda_mul_channel(int elem, int nhwc, const void *x, const void *s, void *y, int n, int c,
                                      int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return cudaSuccess;
    if (sslat_fits_32(count)) launch_mul_channel<uint32_t>(elem, nhwc, x, s, y, count, (size_t)c, (size_t)hw, (cudaStream_t)stream);
    else launch_mul_channel<size_t>(elem, nhwc, x, s, y, count, (size_t)c, (size_t)hw, (cudaStream_t)stream);
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_global_avgpool(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                                         void *stream)
{
    if ((size_t)n * c * hw == 0) return cudaSuccess;
    cudaStream_t s = (cudaStream_t)stream;
    if (nhwc) {
        dim3 grid((unsigned)sslat_grid_for((size_t)c, SSLAT_CUDA_BLOCK),
                  (unsigned)(n < SSLAT_CUDA_MAX_GRID ? n : SSLAT_CUDA_MAX_GRID));
#define LAUNCH(T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, s, global_avgpool_nhwc_kernel<T>)((const T *)x, (T *)y, n, c, hw)
        SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    } else {
        int planes = n * c, grid = sslat_grid_for((size_t)planes * 32, SSLAT_CUDA_BLOCK);
#define LAUNCH(T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, s, global_avgpool_nchw_kernel<T>)((const T *)x, (T *)y, planes, hw)
        SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    }
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_channel_shuffle(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                                          int groups, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0 || groups < 1 || c % groups) return count == 0 ? cudaSuccess : cudaErrorInvalidValue;
    if (sslat_fits_32(count))
        launch_shuffle<uint32_t>(elem, nhwc, x, y, count, (size_t)c, (size_t)hw, (size_t)groups, (cudaStream_t)stream);
    else
        launch_shuffle<size_t>(elem, nhwc, x, y, count, (size_t)c, (size_t)hw, (size_t)groups, (cudaStream_t)stream);
    return cudaGetLastError();
}
