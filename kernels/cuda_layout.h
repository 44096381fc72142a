/* NCHW and NHWC, shared by the host (parameters, read-back, tests) and the
 * device (fill kernel): one index mapping, so a tensor filled in NHWC holds
 * the values its logical NCHW index gets everywhere else (the seeded input of
 * the reference, of the cpu backend and of the ONNX export). */
#ifndef SSLAT_CUDA_LAYOUT_H
#define SSLAT_CUDA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "measure/fill.h" /* SSLAT_HOST_DEVICE, sslat_fill_at */

/* The NCHW (logical) index of element i of an NHWC buffer of c channels and
 * hw pixels per image. */
static inline SSLAT_HOST_DEVICE size_t sslat_nhwc_to_nchw(size_t i, size_t c, size_t hw)
{
    size_t channel = i % c, pixel = (i / c) % hw, image = i / (c * hw);
    return (image * c + channel) * hw + pixel;
}

/* The value of element i of a seeded tensor in its buffer order: the value
 * its logical NCHW index has, whatever the layout. */
static inline SSLAT_HOST_DEVICE float sslat_fill_tensor_at(uint64_t seed, size_t i, int nhwc, size_t c, size_t hw,
                                                           float lo, float hi)
{
    return sslat_fill_at(seed, nhwc ? sslat_nhwc_to_nchw(i, c, hw) : i, lo, hi);
}

#ifndef __CUDACC__
/* A linear layer's weights (out_features rows of c·hw columns in (c, h, w)
 * order, as PyTorch's flatten + linear reads NCHW) with the columns permuted
 * to (h, w, c): what the same product needs when its input was flattened from
 * NHWC. */
static inline void sslat_permute_linear_columns(const float *w, float *out, size_t rows, size_t c, size_t hw)
{
    size_t columns = c * hw;
    for (size_t o = 0; o < rows; o++)
        for (size_t ch = 0; ch < c; ch++)
            for (size_t q = 0; q < hw; q++) out[o * columns + q * c + ch] = w[o * columns + ch * hw + q];
}
#endif

#endif
