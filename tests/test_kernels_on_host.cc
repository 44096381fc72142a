// The own CUDA kernels (kernels/*.cu) on the CPU: the same source compiled as
// host C++ under SSLAT_CUDA_EMULATE (kernels/emulate.h runs every thread of a
// launch's grid), every launcher × element type × layout × index width
// against references written here from each op's definition (PyTorch's), on
// boundary shapes; grids past the launch limits; and sparse checks of tensors
// past 2^31 and 2^32 elements. The blocking kernel is not emulated.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "ir/op.h"
#include "measure/fill.h"
#include "measure/half.h"
}
#include "kernels/common.cuh" /* kernels/emulate.h, the launch shape, sslat_fits_32 */
#include "kernels/ops.h"

namespace {

size_t elem_size(int elem) { return elem == SSLAT_ELEM_F32 ? 4 : 2; }

// A host buffer of one element type, read and written through float.
struct Buffer {
    int elem;
    size_t count;
    std::vector<uint8_t> bytes;
    Buffer(int elem, size_t count) : elem(elem), count(count), bytes(count * elem_size(elem)) {}
    void *data() { return bytes.data(); }
    float get(size_t i) const
    {
        if (elem == SSLAT_ELEM_F32) {
            float v;
            memcpy(&v, bytes.data() + 4 * i, 4);
            return v;
        }
        uint16_t h;
        memcpy(&h, bytes.data() + 2 * i, 2);
        return elem == SSLAT_ELEM_F16 ? sslat_fp16_to_float(h) : sslat_bf16_to_float(h);
    }
    void set(size_t i, float v)
    {
        if (elem == SSLAT_ELEM_F32) {
            memcpy(bytes.data() + 4 * i, &v, 4);
            return;
        }
        uint16_t h = elem == SSLAT_ELEM_F16 ? sslat_float_to_fp16(v) : sslat_float_to_bf16(v);
        memcpy(bytes.data() + 2 * i, &h, 2);
    }
};

// Seeded values in [lo, hi), rounded to the element type.
Buffer seeded(int elem, size_t count, uint64_t seed, float lo = -4.f, float hi = 4.f)
{
    Buffer b(elem, count);
    for (size_t i = 0; i < count; i++) b.set(i, sslat_fill_at(seed, i, lo, hi));
    return b;
}

// The activations as PyTorch defines them, in double.
double activation(int act, double x)
{
    auto relu6 = [](double v) { return std::fmin(std::fmax(v, 0.0), 6.0); };
    switch (act) {
    case SSLAT_ACT_RELU: return std::fmax(x, 0.0);
    case SSLAT_ACT_RELU6: return relu6(x);
    case SSLAT_ACT_HSWISH: return x * relu6(x + 3.0) / 6.0;
    case SSLAT_ACT_HSIGMOID: return relu6(x + 3.0) / 6.0;
    case SSLAT_ACT_SIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case SSLAT_ACT_SILU: return x / (1.0 + std::exp(-x));
    case SSLAT_ACT_GELU: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case SSLAT_ACT_TANH: return std::tanh(x);
    case SSLAT_ACT_GELU_TANH: return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 /* √(2/π) */ * (x + 0.044715 * x * x * x)));
    default: return x;
    }
}

// Where logical element (image, channel, row, col) lives in the buffer.
size_t offset(int nhwc, size_t image, size_t ch, size_t row, size_t col, size_t c, size_t h, size_t w)
{
    return nhwc ? ((image * h + row) * w + col) * c + ch : ((image * c + ch) * h + row) * w + col;
}

// got against want (one value per buffer element): within two units in the
// last place of the element type (the kernels compute in float, the
// references in double; both round once at the store).
void expect_near(const Buffer &got, const std::vector<double> &want, const std::string &what)
{
    ASSERT_EQ(got.count, want.size()) << what;
    double relative = got.elem == SSLAT_ELEM_F32 ? 1e-5 : got.elem == SSLAT_ELEM_F16 ? 0x1p-9 : 0x1p-6;
    size_t wrong = 0;
    for (size_t i = 0; i < want.size(); i++) {
        double g = got.get(i), tolerance = relative * std::fabs(want[i]) + 1e-6;
        if (std::isnan(g) || std::fabs(g - want[i]) > tolerance) {
            if (wrong < 4) ADD_FAILURE() << what << ": element " << i << " is " << g << ", expected " << want[i];
            wrong++;
        }
    }
    EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " of " << want.size() << " elements wrong";
}

struct Shape {
    int n, c, h, w;
};
std::string describe(const Shape &s)
{
    return std::to_string(s.n) + "x" + std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

// Boundary shapes: C not a multiple of anything, H = W = 1, a plane wider
// than a warp (the NCHW pool's lanes), several images.
const Shape kShapes[] = {{1, 3, 5, 7}, {2, 8, 4, 4}, {3, 5, 1, 1}, {2, 16, 6, 10}, {1, 7, 9, 9}};

struct Variant {
    int elem;
    int nhwc;
    bool wide; // the 64-bit index instantiation, whatever the size
};

std::string variant_text(const Variant &v)
{
    const char *elem = v.elem == SSLAT_ELEM_F32 ? "fp32" : v.elem == SSLAT_ELEM_F16 ? "fp16" : "bf16";
    return std::string(elem) + (v.nhwc ? "_nhwc" : "_nchw") + (v.wide ? "_index64" : "_index32");
}
void PrintTo(const Variant &v, std::ostream *out) { *out << variant_text(v); }

class CudaKernelsOnHost : public testing::TestWithParam<Variant> {
  protected:
    void SetUp() override
    {
        sslat_emulated_wide_index = GetParam().wide;
        sslat_emulated_threads = nullptr;
        (void)cudaGetLastError();
    }
    void TearDown() override { sslat_emulated_wide_index = false; }
    int elem() const { return GetParam().elem; }
    int nhwc() const { return GetParam().nhwc; }
};

TEST_P(CudaKernelsOnHost, ActivationsInPlaceAndOutOfPlace)
{
    for (const Shape &s : kShapes) {
        size_t count = (size_t)s.n * s.c * s.h * s.w;
        Buffer x = seeded(elem(), count, 11);
        for (int act = -1; act < SSLAT_ACT_COUNT; act++) {
            std::vector<double> want(count);
            for (size_t i = 0; i < count; i++) want[i] = activation(act, x.get(i));
            Buffer y(elem(), count);
            ASSERT_EQ(sslat_cuda_act(elem(), act, x.data(), y.data(), count, nullptr), 0);
            expect_near(y, want, "act " + std::to_string(act) + " " + describe(s));
            Buffer in_place = x;
            ASSERT_EQ(sslat_cuda_act(elem(), act, in_place.data(), in_place.data(), count, nullptr), 0);
            expect_near(in_place, want, "act in place " + std::to_string(act) + " " + describe(s));
        }
    }
}

// The token kernels (kernels/token.cu) on rows that are not a multiple of the
// warp and more rows than one block's warps: LayerNorm and softmax (a warp
// per row, their shuffles run by the emulation's twin), to tokens, the class
// token, the position embedding, the way back to an image and the layer
// scale. Tokens have one layout; nhwc() is unused.
TEST_P(CudaKernelsOnHost, TokenKernels)
{
    const int n = 3, tokens = 13, c = 70, rows = n * tokens;
    Buffer x = seeded(elem(), (size_t)rows * c, 21);
    std::vector<float> gamma(c), beta(c);
    for (int i = 0; i < c; i++) gamma[i] = 0.5f + i / 70.f, beta[i] = 0.25f - i / 140.f;
    std::vector<double> want((size_t)rows * c);
    for (int r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (int i = 0; i < c; i++) mean += x.get((size_t)r * c + i);
        mean /= c;
        for (int i = 0; i < c; i++) var += std::pow(x.get((size_t)r * c + i) - mean, 2);
        var /= c;
        for (int i = 0; i < c; i++)
            want[(size_t)r * c + i] = (x.get((size_t)r * c + i) - mean) / std::sqrt(var + 1e-6) * gamma[i] + beta[i];
    }
    Buffer y(elem(), (size_t)rows * c);
    ASSERT_EQ(sslat_cuda_layernorm(elem(), x.data(), gamma.data(), beta.data(), 1e-6f, y.data(), rows, c, nullptr), 0);
    expect_near(y, want, "layernorm");
    EXPECT_NE(sslat_cuda_layernorm(elem(), x.data(), gamma.data(), beta.data(), 1e-6f, x.data(), rows, c, nullptr), 0)
        << "in place is refused: the emulation's lanes would read written values";
    // softmax over rows of 70
    for (int r = 0; r < rows; r++) {
        double top = -INFINITY, sum = 0;
        for (int i = 0; i < c; i++) top = std::fmax(top, x.get((size_t)r * c + i));
        for (int i = 0; i < c; i++) sum += std::exp(x.get((size_t)r * c + i) - top);
        for (int i = 0; i < c; i++) want[(size_t)r * c + i] = std::exp(x.get((size_t)r * c + i) - top) / sum;
    }
    ASSERT_EQ(sslat_cuda_softmax(elem(), x.data(), y.data(), rows, c, nullptr), 0);
    expect_near(y, want, "softmax");
    // NCHW image n × c × (tokens as 13 × 1) to tokens
    for (int b = 0; b < n; b++)
        for (int l = 0; l < tokens; l++)
            for (int i = 0; i < c; i++) want[((size_t)b * tokens + l) * c + i] = x.get(((size_t)b * c + i) * tokens + l);
    ASSERT_EQ(sslat_cuda_to_tokens(elem(), x.data(), y.data(), n, c, tokens, nullptr), 0);
    expect_near(y, want, "to tokens");
    // and back: the tokens read as N×H×W×C (13 × 1 pixels) to an NCHW image
    for (int b = 0; b < n; b++)
        for (int l = 0; l < tokens; l++)
            for (int i = 0; i < c; i++) want[((size_t)b * c + i) * tokens + l] = x.get(((size_t)b * tokens + l) * c + i);
    ASSERT_EQ(sslat_cuda_from_tokens(elem(), x.data(), y.data(), n, c, tokens, nullptr), 0);
    expect_near(y, want, "from tokens");
    // a layer scale: γ along the last axis (tokens, NHWC), then along axis 1 of NCHW (13 pixels a plane)
    for (size_t i = 0; i < want.size(); i++) want[i] = (double)x.get(i) * gamma[i % c];
    ASSERT_EQ(sslat_cuda_scale_channels(elem(), 1, x.data(), gamma.data(), y.data(), want.size(), c, tokens, nullptr), 0);
    expect_near(y, want, "layer scale, channels last");
    for (size_t i = 0; i < want.size(); i++) want[i] = (double)x.get(i) * gamma[i / tokens % c];
    ASSERT_EQ(sslat_cuda_scale_channels(elem(), 0, x.data(), gamma.data(), y.data(), want.size(), c, tokens, nullptr), 0);
    expect_near(y, want, "layer scale, NCHW");
    // the class token before each image's tokens; the position embedding on every image
    Buffer token = seeded(elem(), (size_t)c, 22), with_class(elem(), (size_t)n * (tokens + 1) * c);
    std::vector<double> want_class(with_class.count);
    for (int b = 0; b < n; b++)
        for (int l = 0; l <= tokens; l++)
            for (int i = 0; i < c; i++)
                want_class[((size_t)b * (tokens + 1) + l) * c + i] =
                    l == 0 ? token.get(i) : x.get(((size_t)b * tokens + l - 1) * c + i);
    ASSERT_EQ(sslat_cuda_class_token(elem(), x.data(), token.data(), with_class.data(), n, tokens, c, nullptr), 0);
    expect_near(with_class, want_class, "class token");
    Buffer pos = seeded(elem(), (size_t)tokens * c, 23);
    for (size_t i = 0; i < want.size(); i++) want[i] = (double)x.get(i) + pos.get(i % ((size_t)tokens * c));
    ASSERT_EQ(sslat_cuda_add_periodic(elem(), x.data(), pos.data(), y.data(), want.size(), (size_t)tokens * c, nullptr), 0);
    expect_near(y, want, "position embedding");
}

TEST_P(CudaKernelsOnHost, AddWithAndWithoutActivation)
{
    for (const Shape &s : kShapes) {
        size_t count = (size_t)s.n * s.c * s.h * s.w;
        Buffer a = seeded(elem(), count, 1), b = seeded(elem(), count, 2);
        for (int act : {-1, (int)SSLAT_ACT_RELU}) {
            std::vector<double> want(count);
            for (size_t i = 0; i < count; i++) want[i] = activation(act, (double)a.get(i) + b.get(i));
            Buffer y(elem(), count);
            ASSERT_EQ(sslat_cuda_add(elem(), act, a.data(), b.data(), y.data(), count, nullptr), 0);
            expect_near(y, want, "add " + describe(s));
        }
    }
}

TEST_P(CudaKernelsOnHost, EpilogueAddsBiasPerChannelAndTheResidual)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w, count = (size_t)s.n * s.c * hw;
        std::vector<float> bias(s.c);
        for (int k = 0; k < s.c; k++) bias[k] = sslat_fill_at(5, k, -1.f, 1.f);
        Buffer residual = seeded(elem(), count, 6);
        for (int with_bias : {0, 1})
            for (int with_residual : {0, 1})
                for (int act : {-1, (int)SSLAT_ACT_RELU6, (int)SSLAT_ACT_HSWISH}) {
                    Buffer y = seeded(elem(), count, 7);
                    std::vector<double> want(count);
                    for (int image = 0; image < s.n; image++)
                        for (int ch = 0; ch < s.c; ch++)
                            for (size_t p = 0; p < hw; p++) {
                                size_t i = offset(nhwc(), image, ch, p / s.w, p % s.w, s.c, s.h, s.w);
                                double v = y.get(i) + (with_bias ? bias[ch] : 0.0) +
                                           (with_residual ? residual.get(i) : 0.0);
                                want[i] = activation(act, v);
                            }
                    ASSERT_EQ(sslat_cuda_epilogue(elem(), nhwc(), y.data(), with_bias ? bias.data() : nullptr,
                                                  with_residual ? residual.data() : nullptr, act, s.n, s.c, (int)hw,
                                                  nullptr),
                              0);
                    expect_near(y, want,
                                "epilogue bias " + std::to_string(with_bias) + " residual " +
                                    std::to_string(with_residual) + " act " + std::to_string(act) + " " + describe(s));
                }
    }
}

// Depthwise shapes: 3×3 to 7×7, strides 1 and 2, dilation 2, "same" padding
// one side more than the other (TensorFlow's stride-2 'same'), a 1×1 plane.
struct DepthwiseCase {
    int n, c, h, w, kernel, stride, dilation, pad_top, pad_bottom;
};
const DepthwiseCase kDepthwiseCases[] = {{1, 3, 5, 7, 3, 1, 1, 1, 1}, {2, 8, 9, 9, 7, 2, 1, 3, 3},
                                         {1, 5, 8, 6, 5, 2, 1, 1, 2}, {2, 16, 6, 10, 3, 1, 2, 2, 2},
                                         {1, 4, 1, 1, 3, 1, 1, 1, 1}, {3, 12, 7, 7, 7, 1, 1, 3, 3}};

TEST_P(CudaKernelsOnHost, DepthwiseIsEachChannelsOwnWindowThenTheEpilogue)
{
    for (const DepthwiseCase &d : kDepthwiseCases) {
        int reach = d.dilation * (d.kernel - 1) + 1;
        sslat_depthwise_shape s = {d.n, d.c, d.h, d.w, (d.h + d.pad_top + d.pad_bottom - reach) / d.stride + 1,
                                   (d.w + d.pad_top + d.pad_bottom - reach) / d.stride + 1, d.kernel, d.stride,
                                   d.dilation, d.pad_top, d.pad_top};
        size_t in_count = (size_t)s.n * s.c * s.h * s.w, out_count = (size_t)s.n * s.c * s.out_h * s.out_w;
        Buffer x = seeded(elem(), in_count, 11), w = seeded(elem(), (size_t)s.c * s.kernel * s.kernel, 12, -1.f, 1.f);
        Buffer residual = seeded(elem(), out_count, 13);
        std::vector<float> bias(s.c);
        for (int k = 0; k < s.c; k++) bias[k] = sslat_fill_at(14, k, -1.f, 1.f);
        for (int with_bias : {0, 1})
            for (int with_residual : {0, 1})
                for (int act : {-1, (int)SSLAT_ACT_RELU6, (int)SSLAT_ACT_HSWISH}) {
                    std::vector<double> want(out_count), scale(out_count);
                    for (int image = 0; image < s.n; image++)
                        for (int ch = 0; ch < s.c; ch++)
                            for (int row = 0; row < s.out_h; row++)
                                for (int col = 0; col < s.out_w; col++) {
                                    double sum = 0, magnitude = 0;
                                    for (int r = 0; r < s.kernel; r++)
                                        for (int q = 0; q < s.kernel; q++) {
                                            int ih = row * s.stride - s.pad_top + r * s.dilation;
                                            int iw = col * s.stride - s.pad_left + q * s.dilation;
                                            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                                            double term = x.get(offset(nhwc(), image, ch, ih, iw, s.c, s.h, s.w)) *
                                                          w.get(((size_t)ch * s.kernel + r) * s.kernel + q);
                                            sum += term, magnitude += std::fabs(term);
                                        }
                                    size_t i = offset(nhwc(), image, ch, row, col, s.c, s.out_h, s.out_w);
                                    if (with_bias) sum += bias[ch];
                                    if (with_residual) sum += residual.get(i);
                                    want[i] = activation(act, sum);
                                    scale[i] = magnitude + 8.0; /* float accumulation over the window */
                                }
                    Buffer y(elem(), out_count);
                    ASSERT_EQ(sslat_cuda_depthwise(elem(), nhwc(), &s, x.data(), w.data(),
                                                   with_bias ? bias.data() : nullptr,
                                                   with_residual ? residual.data() : nullptr, act, y.data(), nullptr),
                              0);
                    double relative = elem() == SSLAT_ELEM_F32 ? 1e-6 : elem() == SSLAT_ELEM_F16 ? 0x1p-10 : 0x1p-7;
                    size_t wrong = 0;
                    for (size_t i = 0; i < out_count; i++) {
                        double g = y.get(i), tolerance = 2 * relative * std::fabs(want[i]) + 1e-6 * scale[i];
                        if (std::isnan(g) || std::fabs(g - want[i]) > tolerance) {
                            if (wrong < 4)
                                ADD_FAILURE() << "depthwise k" << d.kernel << " s" << d.stride << " d" << d.dilation
                                              << " element " << i << " is " << g << ", expected " << want[i];
                            wrong++;
                        }
                    }
                    EXPECT_EQ(wrong, 0u) << "depthwise bias " << with_bias << " residual " << with_residual << " act "
                                         << act << " k" << d.kernel << " " << s.n << "x" << s.c << "x" << s.h << "x"
                                         << s.w;
                }
    }
}

TEST_P(CudaKernelsOnHost, SqueezeExcitationScalesEachChannel)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w, count = (size_t)s.n * s.c * hw;
        Buffer x = seeded(elem(), count, 8), scale = seeded(elem(), (size_t)s.n * s.c, 9, 0.f, 1.f);
        std::vector<double> want(count);
        for (int image = 0; image < s.n; image++)
            for (int ch = 0; ch < s.c; ch++)
                for (size_t p = 0; p < hw; p++) {
                    size_t i = offset(nhwc(), image, ch, p / s.w, p % s.w, s.c, s.h, s.w);
                    want[i] = (double)x.get(i) * scale.get((size_t)image * s.c + ch);
                }
        Buffer y(elem(), count);
        ASSERT_EQ(sslat_cuda_mul_channel(elem(), nhwc(), x.data(), scale.data(), y.data(), s.n, s.c, (int)hw, nullptr),
                  0);
        expect_near(y, want, "mul_channel " + describe(s));
    }
}

TEST_P(CudaKernelsOnHost, GlobalAveragePoolIsTheMeanOfEachPlane)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w;
        Buffer x = seeded(elem(), (size_t)s.n * s.c * hw, 10);
        std::vector<double> want((size_t)s.n * s.c, 0.0);
        for (int image = 0; image < s.n; image++)
            for (int ch = 0; ch < s.c; ch++) {
                for (size_t p = 0; p < hw; p++)
                    want[(size_t)image * s.c + ch] += x.get(offset(nhwc(), image, ch, p / s.w, p % s.w, s.c, s.h, s.w));
                want[(size_t)image * s.c + ch] /= (double)hw;
            }
        Buffer y(elem(), want.size());
        ASSERT_EQ(sslat_cuda_global_avgpool(elem(), nhwc(), x.data(), y.data(), s.n, s.c, (int)hw, nullptr), 0);
        expect_near(y, want, "global_avgpool " + describe(s));
    }
}

TEST_P(CudaKernelsOnHost, ChannelShuffleIsViewTransposeView)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w, count = (size_t)s.n * s.c * hw;
        Buffer x = seeded(elem(), count, 12);
        for (int groups = 1; groups <= s.c; groups++) {
            Buffer y(elem(), count);
            int rc = sslat_cuda_channel_shuffle(elem(), nhwc(), x.data(), y.data(), s.n, s.c, (int)hw, groups, nullptr);
            if (s.c % groups) { // groups must divide the channels
                EXPECT_EQ(rc, (int)cudaErrorInvalidValue) << describe(s) << " groups " << groups;
                continue;
            }
            ASSERT_EQ(rc, 0);
            // x.view(n, g, c/g, h, w).transpose(1, 2): output channel k·g + gi
            // is input channel gi·(c/g) + k
            int per_group = s.c / groups;
            std::vector<double> want(count);
            for (int image = 0; image < s.n; image++)
                for (int gi = 0; gi < groups; gi++)
                    for (int k = 0; k < per_group; k++)
                        for (size_t p = 0; p < hw; p++)
                            want[offset(nhwc(), image, k * groups + gi, p / s.w, p % s.w, s.c, s.h, s.w)] =
                                x.get(offset(nhwc(), image, gi * per_group + k, p / s.w, p % s.w, s.c, s.h, s.w));
            expect_near(y, want, "shuffle groups " + std::to_string(groups) + " " + describe(s));
        }
    }
}

TEST_P(CudaKernelsOnHost, ConcatAndSliceCopyChannelRanges)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w;
        int first = 3, c_out = first + s.c; // torch.cat([a (3 channels), b (C channels)], 1)
        Buffer a = seeded(elem(), (size_t)s.n * first * hw, 13), b = seeded(elem(), (size_t)s.n * s.c * hw, 14);
        Buffer y(elem(), (size_t)s.n * c_out * hw);
        ASSERT_EQ(sslat_cuda_copy_channels(elem(), nhwc(), a.data(), y.data(), s.n, first, c_out, s.h, s.w, 0, 0,
                                           first, nullptr),
                  0);
        ASSERT_EQ(sslat_cuda_copy_channels(elem(), nhwc(), b.data(), y.data(), s.n, s.c, c_out, s.h, s.w, 0, first,
                                           s.c, nullptr),
                  0);
        std::vector<double> want(y.count);
        for (int image = 0; image < s.n; image++)
            for (int ch = 0; ch < c_out; ch++)
                for (size_t p = 0; p < hw; p++) {
                    size_t row = p / s.w, col = p % s.w;
                    want[offset(nhwc(), image, ch, row, col, c_out, s.h, s.w)] =
                        ch < first ? a.get(offset(nhwc(), image, ch, row, col, first, s.h, s.w))
                                   : b.get(offset(nhwc(), image, ch - first, row, col, s.c, s.h, s.w));
                }
        expect_near(y, want, "concat " + describe(s));

        // the slice y[:, 2 : 2 + C] back out: b's channels 0..C-2 and a's last
        int from = 2, length = s.c;
        Buffer slice(elem(), (size_t)s.n * length * hw);
        ASSERT_EQ(sslat_cuda_copy_channels(elem(), nhwc(), y.data(), slice.data(), s.n, c_out, length, s.h, s.w, from,
                                           0, length, nullptr),
                  0);
        std::vector<double> sliced(slice.count);
        for (int image = 0; image < s.n; image++)
            for (int k = 0; k < length; k++)
                for (size_t p = 0; p < hw; p++)
                    sliced[offset(nhwc(), image, k, p / s.w, p % s.w, length, s.h, s.w)] =
                        want[offset(nhwc(), image, from + k, p / s.w, p % s.w, c_out, s.h, s.w)];
        expect_near(slice, sliced, "slice " + describe(s));
        EXPECT_EQ(sslat_cuda_copy_channels(elem(), nhwc(), y.data(), slice.data(), s.n, c_out, length, s.h, s.w,
                                           c_out - length + 1, 0, length, nullptr),
                  (int)cudaErrorInvalidValue)
            << "a slice past the last channel";
    }
}

TEST_P(CudaKernelsOnHost, NearestUpsamplingRepeatsEachPixel)
{
    for (const Shape &s : kShapes)
        for (int scale : {1, 2, 3}) {
            int oh = s.h * scale, ow = s.w * scale;
            Buffer x = seeded(elem(), (size_t)s.n * s.c * s.h * s.w, 15);
            Buffer y(elem(), (size_t)s.n * s.c * oh * ow);
            ASSERT_EQ(sslat_cuda_upsample_nearest(elem(), nhwc(), x.data(), y.data(), s.n, s.c, s.h, s.w, scale,
                                                  nullptr),
                      0);
            std::vector<double> want(y.count);
            for (int image = 0; image < s.n; image++)
                for (int ch = 0; ch < s.c; ch++)
                    for (int row = 0; row < oh; row++)
                        for (int col = 0; col < ow; col++) // F.interpolate(mode='nearest'): floor(dst / scale)
                            want[offset(nhwc(), image, ch, row, col, s.c, oh, ow)] =
                                x.get(offset(nhwc(), image, ch, row / scale, col / scale, s.c, s.h, s.w));
            expect_near(y, want, "upsample x" + std::to_string(scale) + " " + describe(s));
        }
}

TEST_P(CudaKernelsOnHost, FocusSpaceToDepthIsYolov5sCatOfFourPhases)
{
    // torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)
    const int phase_row[4] = {0, 1, 0, 1}, phase_col[4] = {0, 0, 1, 1};
    for (const Shape &s : {Shape{1, 3, 4, 6}, Shape{2, 5, 2, 2}, Shape{1, 7, 8, 4}}) {
        int oh = s.h / 2, ow = s.w / 2, oc = 4 * s.c;
        Buffer x = seeded(elem(), (size_t)s.n * s.c * s.h * s.w, 16);
        Buffer y(elem(), x.count);
        ASSERT_EQ(sslat_cuda_space_to_depth(elem(), nhwc(), x.data(), y.data(), s.n, s.c, s.h, s.w, nullptr), 0);
        std::vector<double> want(y.count);
        for (int image = 0; image < s.n; image++)
            for (int g = 0; g < 4; g++)
                for (int ch = 0; ch < s.c; ch++)
                    for (int row = 0; row < oh; row++)
                        for (int col = 0; col < ow; col++)
                            want[offset(nhwc(), image, g * s.c + ch, row, col, oc, oh, ow)] = x.get(
                                offset(nhwc(), image, ch, 2 * row + phase_row[g], 2 * col + phase_col[g], s.c, s.h, s.w));
        expect_near(y, want, "space_to_depth " + describe(s));
    }
    Buffer odd(elem(), 3 * 5 * 4);
    EXPECT_EQ(sslat_cuda_space_to_depth(elem(), nhwc(), odd.data(), odd.data(), 1, 3, 5, 4, nullptr),
              (int)cudaErrorInvalidValue)
        << "an odd height";
}

TEST_P(CudaKernelsOnHost, FillGivesEachElementItsLogicalIndexsValue)
{
    for (const Shape &s : kShapes) {
        size_t hw = (size_t)s.h * s.w, count = (size_t)s.n * s.c * hw;
        Buffer y(elem(), count);
        ASSERT_EQ(sslat_cuda_fill_tensor(elem(), nhwc(), y.data(), count, (size_t)s.c, hw, 99, -2.f, 2.f, nullptr), 0);
        std::vector<double> want(count);
        for (int image = 0; image < s.n; image++)
            for (int ch = 0; ch < s.c; ch++)
                for (size_t p = 0; p < hw; p++)
                    want[offset(nhwc(), image, ch, p / s.w, p % s.w, s.c, s.h, s.w)] =
                        sslat_fill_at(99, ((size_t)image * s.c + ch) * hw + p, -2.f, 2.f);
        expect_near(y, want, "fill " + describe(s));
    }
}

std::string variant_name(const testing::TestParamInfo<Variant> &info) { return variant_text(info.param); }

std::vector<Variant> all_variants()
{
    std::vector<Variant> variants;
    for (int elem : {(int)SSLAT_ELEM_F32, (int)SSLAT_ELEM_F16, (int)SSLAT_ELEM_BF16})
        for (int nhwc : {0, 1})
            for (bool wide : {false, true}) variants.push_back({elem, nhwc, wide});
    return variants;
}

INSTANTIATE_TEST_SUITE_P(EveryTypeLayoutAndIndexWidth, CudaKernelsOnHost, testing::ValuesIn(all_variants()),
                         variant_name);

// ---- launch shapes past the grid's limits ---------------------------------

TEST(CudaKernelsOnHostLaunch, TheEmulatorRefusesWhatTheGpuRefuses)
{
    (void)cudaGetLastError();
    uint64_t launches = sslat_emulated_launches;
    auto nothing = [](int) {};
    void (*kernel)(int) = nothing;
    sslat_emulate(dim3(1, 65536), dim3(32), nullptr, kernel)(0);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration) << "grid y past 65535";
    sslat_emulate(dim3(1), dim3(1025), nullptr, kernel)(0);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration) << "1025 threads in a block";
    EXPECT_EQ(sslat_emulated_launches, launches + 2);
    EXPECT_TRUE(sslat_emulated_shape_ok(dim3(0x7fffffffu, 65535, 65535), dim3(1024)));
    EXPECT_FALSE(sslat_emulated_shape_ok(dim3(1, 1, 65536), dim3(1)));
    EXPECT_FALSE(sslat_emulated_shape_ok(dim3(1), dim3(32, 32, 2)));
}

TEST(CudaKernelsOnHostLaunch, MoreRowsOfPlanesThanTheGridHolds)
{
    // NCHW epilogue: one plane per grid row, capped at 65535 rows; 70000 planes
    int n = 35000, c = 2, hw = 3;
    size_t count = (size_t)n * c * hw;
    Buffer y = seeded(SSLAT_ELEM_F32, count, 20);
    std::vector<float> bias = {0.5f, -0.25f};
    std::vector<double> want(count);
    for (size_t i = 0; i < count; i++) want[i] = (double)y.get(i) + bias[i / hw % c];
    ASSERT_EQ(sslat_cuda_epilogue(SSLAT_ELEM_F32, 0, y.data(), bias.data(), nullptr, -1, n, c, hw, nullptr), 0);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    expect_near(y, want, "70000-plane NCHW epilogue");

    // NHWC global pool: one image per grid row; 70000 images
    Buffer x = seeded(SSLAT_ELEM_F16, (size_t)70000 * 3 * 2, 21), pooled(SSLAT_ELEM_F16, (size_t)70000 * 3);
    std::vector<double> means(pooled.count, 0.0);
    for (size_t image = 0; image < 70000; image++)
        for (size_t ch = 0; ch < 3; ch++)
            means[image * 3 + ch] = ((double)x.get((image * 2 + 0) * 3 + ch) + x.get((image * 2 + 1) * 3 + ch)) / 2;
    ASSERT_EQ(sslat_cuda_global_avgpool(SSLAT_ELEM_F16, 1, x.data(), pooled.data(), 70000, 3, 2, nullptr), 0);
    expect_near(pooled, means, "70000-image NHWC global pool");
}

TEST(CudaKernelsOnHostLaunch, MoreElementsThanThreadsInTheLargestGrid)
{
    // 65535 blocks × 256 threads = 16,776,960: the grid-stride loop does the rest
    size_t count = 16800000;
    Buffer x = seeded(SSLAT_ELEM_F16, count, 22), y(SSLAT_ELEM_F16, count);
    ASSERT_EQ(sslat_cuda_act(SSLAT_ELEM_F16, SSLAT_ACT_RELU, x.data(), y.data(), count, nullptr), 0);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++) wrong += y.get(i) != std::fmax(x.get(i), 0.f);
    EXPECT_EQ(wrong, 0u) << "of " << count;

    // NCHW pool: one warp per plane, 600,000 planes = 19.2M lanes past the grid
    Buffer planes = seeded(SSLAT_ELEM_F32, (size_t)600000 * 2, 23), pooled(SSLAT_ELEM_F32, 600000);
    std::vector<double> means(600000);
    for (size_t p = 0; p < 600000; p++) means[p] = ((double)planes.get(2 * p) + planes.get(2 * p + 1)) / 2;
    ASSERT_EQ(sslat_cuda_global_avgpool(SSLAT_ELEM_F32, 0, planes.data(), pooled.data(), 1, 600000, 2, nullptr), 0);
    expect_near(pooled, means, "600000-plane NCHW global pool");
}

// ---- tensors past 2^31 and 2^32 elements, sparsely ------------------------

// Anonymous memory reserved but never committed: only the pages a test's
// sampled threads touch are ever backed.
struct SparseMemory {
    void *data = MAP_FAILED;
    size_t bytes;
    explicit SparseMemory(size_t bytes) : bytes(bytes)
    {
        data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    ~SparseMemory()
    {
        if (data != MAP_FAILED) munmap(data, bytes);
    }
    uint16_t at(size_t i) const { return ((const uint16_t *)data)[i]; }
};

// An fp16 NHWC epilogue over `count` zeros with bias {1, 2, 3}, run by three
// threads of the grid only (the first, the last, and the one owning the last
// element): every element they own holds bias[i % 3], element 1 (owned by an
// unsampled thread) stays 0, and the last element is reached.
void sparse_epilogue(size_t count)
{
    SparseMemory y(count * 2);
    if (y.data == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << y.bytes << " bytes of address space";
    const float bias[3] = {1.f, 2.f, 3.f};
    const uint64_t stride = (uint64_t)SSLAT_CUDA_MAX_GRID * SSLAT_CUDA_BLOCK;
    std::vector<uint64_t> threads = {0, stride - 1, (count - 1) % stride};
    sslat_emulated_threads = &threads;
    int rc = sslat_cuda_epilogue(SSLAT_ELEM_F16, 1, y.data, bias, nullptr, -1, 1, 3, (int)(count / 3), nullptr);
    sslat_emulated_threads = nullptr;
    ASSERT_EQ(rc, 0);
    size_t checked = 0, wrong = 0;
    bool reached_last = false;
    for (uint64_t t : threads)
        for (uint64_t i = t; i < count; i += stride) {
            wrong += sslat_fp16_to_float(y.at(i)) != bias[i % 3];
            checked++;
            reached_last |= i == count - 1;
        }
    EXPECT_EQ(wrong, 0u) << "of " << checked << " sampled elements of " << count;
    EXPECT_TRUE(reached_last);
    EXPECT_EQ(y.at(1), 0u) << "an element no sampled thread owns was written";
}

TEST(CudaKernelsOnHostSparse, EpilogueJustBelowTwoToThe31)
{
    ASSERT_TRUE(sslat_fits_32((size_t)3 * 715827882));
    sparse_epilogue((size_t)3 * 715827882); // 2^31 - 2: the 32-bit path
}

TEST(CudaKernelsOnHostSparse, EpilogueJustAboveTwoToThe31)
{
    ASSERT_FALSE(sslat_fits_32((size_t)3 * 715827883));
    sparse_epilogue((size_t)3 * 715827883); // 2^31 + 1: the 64-bit path
}

TEST(CudaKernelsOnHostSparse, EpiloguePastTwoToThe32)
{
    // 2^32 + 2 elements: a 32-bit count would wrap to 2, and the last element
    // (2^32 + 1) would land on element 1, which sparse_epilogue checks stays 0
    ASSERT_FALSE(sslat_fits_32((size_t)3 * 1431655766));
    sparse_epilogue((size_t)3 * 1431655766);
}

TEST(CudaKernelsOnHostSparse, ConcatIntoATensorPastTwoToThe31)
{
    // x: 2 images of 1 channel, 1×1; y: 2 images of 2^30 + 1 channels; x goes
    // to channel 2^30, so image 1's element is at 2^31 + 1
    int c_out = (1 << 30) + 1, to = 1 << 30;
    SparseMemory y((size_t)2 * c_out * 2);
    if (y.data == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << y.bytes << " bytes of address space";
    Buffer x(SSLAT_ELEM_F16, 2);
    x.set(0, 1.5f), x.set(1, -2.5f);
    for (int nhwc : {0, 1}) {
        ASSERT_EQ(sslat_cuda_copy_channels(SSLAT_ELEM_F16, nhwc, x.data(), y.data, 2, 1, c_out, 1, 1, 0, to, 1, nullptr), 0);
        EXPECT_EQ(sslat_fp16_to_float(y.at((size_t)to)), 1.5f);
        EXPECT_EQ(sslat_fp16_to_float(y.at((size_t)c_out + to)), -2.5f);
    }
}

} // namespace
