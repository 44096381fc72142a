/* Own CUDA kernels of the cuda backend, C-callable: each launcher takes a
 * cudaStream_t (as void *) and returns cudaSuccess or the cudaError_t of its
 * launch. Tensors are NCHW or NHWC (nhwc = 1) of one element type; math is in
 * float. */
#ifndef SSLAT_CUDA_OPS_H
#define SSLAT_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <driver_types.h> /* cudaError_t: a plain C header of the toolkit */

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of device tensors. */
enum { SSLAT_ELEM_F32 = 0, SSLAT_ELEM_F16 = 1, SSLAT_ELEM_BF16 = 2 };

/* act: an sslat_act_kind (ir/op.h), or -1 for none. */

/* y = act(x), count elements (in place allowed). */
cudaError_t sslat_cuda_act(int elem, int act, const void *x, void *y, size_t count, void *stream);

/* y = x if x > 0 else slope · x (nn.LeakyReLU), count elements (in place allowed). */
cudaError_t sslat_cuda_leaky_relu(int elem, float slope, const void *x, void *y, size_t count, void *stream);
/* y = x · gamma[channel] over count elements of c channels: the channel is i mod c when
 * channels_last (tokens, NHWC), else (i / hw) mod c (NCHW); gamma is float. */
cudaError_t sslat_cuda_scale_channels(int elem, int channels_last, const void *x, const float *gamma, void *y,
                                      size_t count, int c, int hw, void *stream);

/* y = act(a + b) (in place allowed). */
cudaError_t sslat_cuda_add(int elem, int act, const void *a, const void *b, void *y, size_t count, void *stream);

/* The epilogue after a convolution or a matrix product, in place:
 * y = act(y + bias[c] + residual), bias (float, c entries) and residual may be NULL. */
cudaError_t sslat_cuda_epilogue(int elem, int nhwc, void *y, const float *bias, const void *residual, int act,
                        int n, int c, int hw, void *stream);

/* A depthwise convolution's shape: n images of c channels, h × w in, out_h ×
 * out_w out, a k × k window (kernel) per channel, its stride and dilation,
 * the padding above and left (below and right follow from the output size). */
typedef struct sslat_depthwise_shape {
    int n, c, h, w, out_h, out_w, kernel, stride, dilation, pad_top, pad_left;
} sslat_depthwise_shape;

/* Depthwise convolution with its epilogue in one kernel (kernels/depthwise.cu):
 * y = act(conv(x, w) + bias[c] + residual); w holds c filters of k × k (its
 * KCRS and KRSC forms agree); bias (float) and residual may be NULL. */
cudaError_t sslat_cuda_depthwise(int elem, int nhwc, const sslat_depthwise_shape *shape, const void *x, const void *w,
                                 const float *bias, const void *residual, int act, void *y, void *stream);

/* Squeeze-excitation scaling: y[n, c, p] = x[n, c, p] · s[n, c]. */
cudaError_t sslat_cuda_mul_channel(int elem, int nhwc, const void *x, const void *s, void *y, int n, int c,
                           int hw, void *stream);

/* Global average pooling to N×C (×1×1). */
cudaError_t sslat_cuda_global_avgpool(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                              void *stream);

/* ShuffleNet's channel shuffle: channel g·(c/groups)+k goes to k·groups+g. */
cudaError_t sslat_cuda_channel_shuffle(int elem, int nhwc, const void *x, void *y, int n, int c, int hw,
                               int groups, void *stream);

/* Channels [from, from + length) of x (c_in channels) into channels
 * [to, to + length) of y (c_out channels), same N, H, W: a concat is one call
 * per input, a channel slice one call. */
cudaError_t sslat_cuda_copy_channels(int elem, int nhwc, const void *x, void *y, int n, int c_in, int c_out, int h, int w,
                             int from, int to, int length, void *stream);

/* Nearest upsampling of an N×C×H×W tensor by an integer scale (PyTorch's nearest). */
cudaError_t sslat_cuda_upsample_nearest(int elem, int nhwc, const void *x, void *y, int n, int c, int h, int w, int scale,
                                void *stream);

/* YOLOv5's Focus slicing: N×C×H×W (H, W even) to N×4C×H/2×W/2, channel group g
 * holding pixel phase (g % 2, g / 2) in (row, column). */
cudaError_t sslat_cuda_space_to_depth(int elem, int nhwc, const void *x, void *y, int n, int c, int h, int w, void *stream);

/* Token tensors N×L×C, stored token after token (kernels/token.cu). */

/* nn.LayerNorm over each of rows rows of c channels: γ and β in float; y must not be x. */
cudaError_t sslat_cuda_layernorm(int elem, const void *x, const float *gamma, const float *beta, float eps, void *y,
                                 int rows, int c, void *stream);

/* Softmax over each of rows rows of length values; y must not be x. */
cudaError_t sslat_cuda_softmax(int elem, const void *x, void *y, int rows, int length, void *stream);

/* x.flatten(2).transpose(1, 2) of an NCHW image: N×C×HW to N×HW×C tokens. */
cudaError_t sslat_cuda_to_tokens(int elem, const void *x, void *y, int n, int c, int hw, void *stream);

/* x.permute(0, 3, 1, 2) of N×HW×C tokens read as N×H×W×C: to an NCHW image N×C×HW. */
cudaError_t sslat_cuda_from_tokens(int elem, const void *x, void *y, int n, int c, int hw, void *stream);

/* A class token (c values) before the tokens of each image: N×L×C to N×(L+1)×C. */
cudaError_t sslat_cuda_class_token(int elem, const void *x, const void *token, void *y, int n, int tokens, int c,
                                   void *stream);

/* y[i] = x[i] + rows[i mod period]: a position embedding (period L·C) on every image. */
cudaError_t sslat_cuda_add_periodic(int elem, const void *x, const void *rows, void *y, size_t count, size_t period,
                                    void *stream);

/* Seeded uniform values in [lo, hi) (measure/fill.h's formula, then rounded to
 * the element type), element i of the buffer getting the value of its index. */
cudaError_t sslat_cuda_fill(int elem, void *data, size_t count, uint64_t seed, float lo, float hi, void *stream);

/* The same for an N×C×H×W tensor in NCHW or NHWC (c channels, hw pixels):
 * each element gets the value of its logical NCHW index (kernels/cuda_layout.h). */
cudaError_t sslat_cuda_fill_tensor(int elem, int nhwc, void *data, size_t count, size_t c, size_t hw, uint64_t seed,
                           float lo, float hi, void *stream);

/* nvbench's blocking kernel: holds the stream until *release (host-mapped
 * memory) is non-zero, so the launches queued behind it (start event, graph,
 * stop event) start back to back with no host latency inside the timing. It
 * gives up after timeout_ns of GPU time and sets *timed_out. */
cudaError_t sslat_cuda_block_stream(const volatile int32_t *release, int32_t *timed_out, uint64_t timeout_ns, void *stream);

#ifdef __cplusplus
}
#endif

#endif
