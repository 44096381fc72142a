/* Token kernels of transformer spaces: tensors N×L×C stored token after token
 * (ir/op.h), whatever the program's image layout. An image to tokens, the
 * class token, the position embedding, LayerNorm over each token and softmax
 * over each row of attention scores. The two normalisations give each row to
 * one warp: its 32 lanes stride over the row and combine their shares with
 * shuffles. Index arithmetic of the element-wise ones is 32-bit when the
 * tensor fits (I = uint32_t). */
#include "kernels/common.cuh"

/* ---- warp reductions ------------------------------------------------------------------- */

/* The sum (or maximum) of share(lane) over the 32 lanes of a warp, the same in
 * every lane: a butterfly of shuffles (offsets 16, 8, 4, 2, 1). The host
 * emulation runs one thread at a time, so no lane can read another's value:
 * its twin has each lane compute all 32 shares and combine them in the same
 * butterfly order, which gives every lane what the GPU gives it. */
template <typename Share>
static __device__ __forceinline__ float warp_combine(Share share, int lane, bool maximum)
{
#ifdef SSLAT_CUDA_EMULATE
    float v[32], next[32];
    for (int l = 0; l < 32; l++) v[l] = share(l);
    for (int offset = 16; offset > 0; offset /= 2) {
        for (int l = 0; l < 32; l++) next[l] = maximum ? fmaxf(v[l], v[l ^ offset]) : v[l] + v[l ^ offset];
        for (int l = 0; l < 32; l++) v[l] = next[l];
    }
    return v[lane];
#else
    float v = share(lane);
    for (int offset = 16; offset > 0; offset /= 2) {
        float other = __shfl_xor_sync(0xffffffffu, v, offset);
        v = maximum ? fmaxf(v, other) : v + other;
    }
    return v;
#endif
}

/* Rows handled by the warps of a grid: a warp-stride loop (every lane of a
 * warp on the same row, so the shuffles see the whole warp). */
#define FOR_EACH_ROW(row, rows)                                                                   \
    for (int row = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32); row < (rows);            \
         row += (int)(gridDim.x * (blockDim.x / 32)))

/* nn.LayerNorm over each row of c channels: the mean, then the (biased)
 * variance about it, then (x − mean) / √(var + eps) · γ + β. y must not be x
 * (the emulation's lanes would read a row their neighbours already wrote). */
template <typename T>
static __global__ void layernorm_kernel(const T *x, const float *gamma, const float *beta, float eps, T *y, int rows,
                                        int c)
{
    int lane = (int)(threadIdx.x % 32);
    FOR_EACH_ROW(row, rows)
    {
        const T *in = x + (size_t)row * c;
        float mean = warp_combine(
                         [&](int l) {
                             float s = 0.f;
                             for (int i = l; i < c; i += 32) s += sslat_load(in, (size_t)i);
                             return s;
                         },
                         lane, false) / (float)c;
        float var = warp_combine(
                        [&](int l) {
                            float s = 0.f;
                            for (int i = l; i < c; i += 32) {
                                float d = sslat_load(in, (size_t)i) - mean;
                                s += d * d;
                            }
                            return s;
                        },
                        lane, false) / (float)c;
        float scale = 1.f / sqrtf(var + eps);
        for (int i = lane; i < c; i += 32)
            sslat_store(y, (size_t)row * c + i, (sslat_load(in, (size_t)i) - mean) * scale * gamma[i] + beta[i]);
    }
}

/* Softmax over each row of length values: exp(x − max) / Σ exp(x − max). y must not be x. */
template <typename T>
static __global__ void softmax_kernel(const T *x, T *y, int rows, int length)
{
    int lane = (int)(threadIdx.x % 32);
    FOR_EACH_ROW(row, rows)
    {
        const T *in = x + (size_t)row * length;
        float top = warp_combine(
            [&](int l) {
                float m = -INFINITY;
                for (int i = l; i < length; i += 32) m = fmaxf(m, sslat_load(in, (size_t)i));
                return m;
            },
            lane, true);
        float sum = warp_combine(
            [&](int l) {
                float s = 0.f;
                for (int i = l; i < length; i += 32) s += __expf(sslat_load(in, (size_t)i) - top);
                return s;
            },
            lane, false);
        for (int i = lane; i < length; i += 32)
            sslat_store(y, (size_t)row * length + i, __expf(sslat_load(in, (size_t)i) - top) / sum);
    }
}

#undef FOR_EACH_ROW

/* ---- element-wise: one thread per output element ------------------------------------ */

/* x.flatten(2).transpose(1, 2) of NCHW: y[n][p][ch] = x[n][ch][p]. */
template <typename T, typename I>
static __global__ void to_tokens_kernel(const T *x, T *y, I count, I c, I hw)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I ch = i % c, rest = i / c, p = rest % hw, n = rest / hw;
        sslat_store(y, i, sslat_load(x, (n * c + ch) * hw + p));
    }
}

/* x.permute(0, 3, 1, 2) of tokens read as N×H×W×C, to NCHW: y[n][ch][p] = x[n][p][ch]. */
template <typename T, typename I>
static __global__ void from_tokens_kernel(const T *x, T *y, I count, I c, I hw)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I p = i % hw, rest = i / hw, ch = rest % c, n = rest / c;
        sslat_store(y, i, sslat_load(x, (n * hw + p) * c + ch));
    }
}

/* cat((token.expand(N, -1, -1), x), 1): tokens = L + 1 rows per image. */
template <typename T, typename I>
static __global__ void class_token_kernel(const T *x, const T *token, T *y, I count, I c, I tokens)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I ch = i % c, t = i / c % tokens, n = i / c / tokens;
        sslat_store(y, i, t == 0 ? sslat_load(token, ch) : sslat_load(x, (n * (tokens - 1) + t - 1) * c + ch));
    }
}

/* y = x + rows[i mod period]: the position embedding (period L·C) added to every image. */
template <typename T, typename I>
static __global__ void add_periodic_kernel(const T *x, const T *rows, T *y, I count, I period)
{
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(y, i, sslat_load(x, i) + sslat_load(rows, i % period));
}

/* ---- launchers -------------------------------------------------------------------------- */

/* A grid of warps for rows: 8 warps a block. */
static int grid_for_rows(int rows) { return sslat_grid_for((size_t)rows * 32, SSLAT_CUDA_BLOCK); }

extern "C" cudaError_t sslat_cuda_layernorm(int elem, const void *x, const float *gamma, const float *beta, float eps,
                                            void *y, int rows, int c, void *stream)
{
    if (rows == 0 || c == 0) return cudaSuccess;
    if (rows < 0 || c < 0 || x == y) return cudaErrorInvalidValue;
#define LAUNCH(T) SSLAT_LAUNCH(grid_for_rows(rows), SSLAT_CUDA_BLOCK, (cudaStream_t)stream, layernorm_kernel<T>)((const T *)x, gamma, beta, eps, (T *)y, rows, c)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_softmax(int elem, const void *x, void *y, int rows, int length, void *stream)
{
    if (rows == 0 || length == 0) return cudaSuccess;
    if (rows < 0 || length < 0 || x == y) return cudaErrorInvalidValue;
#define LAUNCH(T) SSLAT_LAUNCH(grid_for_rows(rows), SSLAT_CUDA_BLOCK, (cudaStream_t)stream, softmax_kernel<T>)((const T *)x, (T *)y, rows, length)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_to_tokens(int elem, const void *x, void *y, int n, int c, int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return cudaSuccess;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, to_tokens_kernel<T, I>)((const T *)x, (T *)y, (I)count, (I)c, (I)hw)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_from_tokens(int elem, const void *x, void *y, int n, int c, int hw, void *stream)
{
    size_t count = (size_t)n * c * hw;
    if (count == 0) return cudaSuccess;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, from_tokens_kernel<T, I>)((const T *)x, (T *)y, (I)count, (I)c, (I)hw)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_class_token(int elem, const void *x, const void *token, void *y, int n, int tokens,
                                              int c, void *stream)
{
    size_t count = (size_t)n * (size_t)(tokens + 1) * c;
    if (count == 0) return cudaSuccess;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, class_token_kernel<T, I>)((const T *)x, (const T *)token, (T *)y, (I)count, (I)c, (I)(tokens + 1))
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_add_periodic(int elem, const void *x, const void *rows, void *y, size_t count,
                                               size_t period, void *stream)
{
    if (count == 0) return cudaSuccess;
    if (period == 0) return cudaErrorInvalidValue;
    int grid = sslat_grid_for(count, SSLAT_CUDA_BLOCK);
#define LAUNCH(I, T) SSLAT_LAUNCH(grid, SSLAT_CUDA_BLOCK, (cudaStream_t)stream, add_periodic_kernel<T, I>)((const T *)x, (const T *)rows, (T *)y, (I)count, (I)period)
    SSLAT_DISPATCH_INDEX_AND_TYPE(elem, sslat_fits_32(count), LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}
