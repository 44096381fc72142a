/* Data-movement kernels of graph spaces: channel copies (concat, channel
 * slices), nearest upsampling, YOLOv5's space-to-depth. Each thread writes one
 * output element (coalesced writes), reading where that element comes from.
 * Index arithmetic is 32-bit when the tensor fits (I = uint32_t). */
#include "kernels/common.cuh"

/* Split an output index into (image, channel, y, x) in NCHW or NHWC. */
template <typename I>
static __device__ __forceinline__ void split(int nhwc, I i, I c, I h, I w, I *image, I *ch, I *y, I *x)
{
    if (nhwc) {
        *ch = i % c, *x = (i / c) % w, *y = (i / (c * w)) % h, *image = i / (c * w * h);
    } else {
        *x = i % w, *y = (i / w) % h, *ch = (i / (w * h)) % c, *image = i / (w * h * c);
    }
}

template <typename I>
static __device__ __forceinline__ I index_of(int nhwc, I image, I ch, I y, I x, I c, I h, I w)
{
    return nhwc ? ((image * h + y) * w + x) * c + ch : ((image * c + ch) * h + y) * w + x;
}

/* y[:, to + k] = x[:, from + k] for k < length; x has c_in channels, y c_out. */
template <typename T, typename I>
static __global__ void copy_channels_kernel(int nhwc, const T *x, T *y, I n, I c_in, I c_out, I h, I w, I from, I to,
                                            I length)
{
    I count = n * length * h * w, stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I image, k, row, col;
        split<I>(nhwc, i, length, h, w, &image, &k, &row, &col);
        sslat_store(y, index_of<I>(nhwc, image, to + k, row, col, c_out, h, w),
                    sslat_load(x, index_of<I>(nhwc, image, from + k, row, col, c_in, h, w)));
    }
}

/* out[n, c, y, x] = in[n, c, y / s, x / s] (PyTorch's nearest: the source rounded down). */
template <typename T, typename I>
static __global__ void upsample_kernel(int nhwc, const T *x, T *y, I count, I c, I h, I w, I scale)
{
    I stride = (I)gridDim.x * blockDim.x, oh = h * scale, ow = w * scale;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I image, ch, row, col;
        split<I>(nhwc, i, c, oh, ow, &image, &ch, &row, &col);
        sslat_store(y, i, sslat_load(x, index_of<I>(nhwc, image, ch, row / scale, col / scale, c, h, w)));
    }
}

/* Focus: output channel group g holds pixel phase (dy, dx) = (g % 2, g / 2):
 * cat(x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]). */
template <typename T, typename I>
static __global__ void space_to_depth_kernel(int nhwc, const T *x, T *y, I count, I c, I h, I w)
{
    I stride = (I)gridDim.x * blockDim.x, oh = h / 2, ow = w / 2;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I image, out_ch, row, col;
        split<I>(nhwc, i, 4 * c, oh, ow, &image, &out_ch, &row, &col);
        I group = out_ch / c, ch = out_ch % c;
        sslat_store(y, i, sslat_load(x, index_of<I>(nhwc, image, ch, 2 * row + group % 2, 2 * col + group / 2, c, h, w)));
    }
}

extern "C" cudaError_t sslat_cuda_copy_channels(int elem, int nhwc, const void *x, void *y, int n, int c_in, int c_out, int h,
                                        int w, int from, int to, int length, void *stream)
{
    size_t count = (size_t)n * length * h * w, largest = (size_t)n * (c_in > c_out ? c_in : c_out) * h * w;
    if (count == 0) return cudaSuccess;
    if (from < 0 || to < 0 || from + length > c_in || to + length > c_out) return cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, s, copy_channels_kernel<T, I>)(nhwc, (const T *)x, (T *)y, (I)n, (I)c_in, (I)c_out, (I)h, (I)w, (I)from, (I)to, (I)length)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(largest), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_upsample_nearest(int elem, int nhwc, const void *x, void *y, int n, int c, int h, int w,
                                           int scale, void *stream)
{
    size_t count = (size_t)n * c * h * w * scale * scale;
    if (count == 0) return cudaSuccess;
    if (scale < 1) return cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, s, upsample_kernel<T, I>)(nhwc, (const T *)x, (T *)y, (I)count, (I)c, (I)h, (I)w, (I)scale)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_space_to_depth(int elem, int nhwc, const void *x, void *y, int n, int c, int h, int w,
                                         void *stream)
{
    size_t count = (size_t)n * c * h * w;
    if (count == 0) return cudaSuccess;
    if (h % 2 || w % 2) return cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, s, space_to_depth_kernel<T, I>)(nhwc, (const T *)x, (T *)y, (I)count, (I)c, (I)h, (I)w)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}
