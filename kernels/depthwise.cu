/* An own depthwise convolution with its epilogue, written from the
 * definition: each output element is one thread's sum over its channel's
 * k × k window (float accumulation, padded taps skipped), then + bias[c]
 * + residual, then the activation, stored once. One of the autotune's
 * candidates for a depthwise convolution on cuDNN's graph API
 * (kernels/cuda_graph_choice.c): where cuDNN has no fast engine for a shape
 * (bf16 NHWC, 7×7), or PyTorch runs its own kernel (fp32 NCHW), it may win;
 * the choice times it beside cuDNN's plans and keeps the fastest. */
#include "kernels/common.cuh"

/* The flat output index of either layout split into (image, channel, row, col). */
template <typename I>
static __device__ __forceinline__ void split_output(I i, int nhwc, I c, I oh, I ow, I *image, I *ch, I *row, I *col)
{
    if (nhwc) { /* channels fastest: neighbouring threads read neighbouring channels */
        *ch = i % c, i /= c;
        *col = i % ow, i /= ow;
        *row = i % oh, *image = i / oh;
    } else {
        *col = i % ow, i /= ow;
        *row = i % oh, i /= oh;
        *ch = i % c, *image = i / c;
    }
}

template <typename T, typename I>
static __global__ void depthwise_kernel(sslat_depthwise_shape s, int nhwc, const T *x, const T *w, const float *bias,
                                        const T *residual, int act, T *y, I count)
{
    I c = (I)s.c, h = (I)s.h, wd = (I)s.w, oh = (I)s.out_h, ow = (I)s.out_w, k = (I)s.kernel;
    I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        I image, ch, row, col;
        split_output<I>(i, nhwc, c, oh, ow, &image, &ch, &row, &col);
        /* the window's first tap, which may lie in the padding (negative) */
        long long top = (long long)row * s.stride - s.pad_top, left = (long long)col * s.stride - s.pad_left;
        const T *filter = w + ch * k * k; /* KCRS and KRSC agree: one input channel per filter */
        float sum = 0.f;
        for (I r = 0; r < k; r++) {
            long long ih = top + (long long)r * s.dilation;
            if (ih < 0 || ih >= (long long)h) continue;
            for (I q = 0; q < k; q++) {
                long long iw = left + (long long)q * s.dilation;
                if (iw < 0 || iw >= (long long)wd) continue;
                I at = nhwc ? ((image * h + (I)ih) * wd + (I)iw) * c + ch : ((image * c + ch) * h + (I)ih) * wd + (I)iw;
                sum += sslat_load(x, at) * sslat_load(filter, r * k + q);
            }
        }
        if (bias) sum += bias[ch];
        if (residual) sum += sslat_load(residual, i);
        sslat_store(y, i, sslat_apply_act(act, sum));
    }
}

template <typename I>
static void launch_depthwise(int elem, int nhwc, const sslat_depthwise_shape *s, const void *x, const void *w,
                             const float *bias, const void *residual, int act, void *y, size_t count,
                             cudaStream_t stream)
{
#define LAUNCH(T)                                                                                            \
    SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, stream, depthwise_kernel<T, I>)( \
        *s, nhwc, (const T *)x, (const T *)w, bias, (const T *)residual, act, (T *)y, (I)count)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
}

extern "C" cudaError_t sslat_cuda_depthwise(int elem, int nhwc, const sslat_depthwise_shape *s, const void *x,
                                            const void *w, const float *bias, const void *residual, int act, void *y,
                                            void *stream)
{
    size_t count = (size_t)s->n * (size_t)s->c * (size_t)s->out_h * (size_t)s->out_w;
    if (count == 0) return cudaSuccess;
    /* the widest index the kernel forms is the input's */
    size_t input = (size_t)s->n * (size_t)s->c * (size_t)s->h * (size_t)s->w;
    if (sslat_fits_32(count > input ? count : input))
        launch_depthwise<uint32_t>(elem, nhwc, s, x, w, bias, residual, act, y, count, (cudaStream_t)stream);
    else launch_depthwise<size_t>(elem, nhwc, s, x, w, bias, residual, act, y, count, (cudaStream_t)stream);
    return cudaGetLastError();
}
