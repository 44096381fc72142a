// Every primitive and the composite layers, on small shapes: the cases both
// timed backends are checked on against tests/reference_ops.c.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

namespace {

struct OpCase {
    const char *layers;
    const char *input;
};

const OpCase CASES[] = {
    {"\"conv_k3_c16\"", "[8, 10, 10]"},
    {"\"conv_k3_s2_c16_bias\"", "[8, 11, 11]"},
    {"\"conv_k5_c8_d2\"", "[8, 12, 12]"},
    {"\"conv_k3_c16_g4\"", "[8, 9, 9]"},
    {"\"conv_k3_c8_g8\"", "[8, 9, 9]"},
    {"\"conv_k1_c24\"", "[8, 7, 7]"},
    {"\"conv_k3_p0_c8\"", "[3, 9, 9]"},
    {"\"conv_k3_s2_c8_psame\"", "[8, 9, 9]"},  // 'same' that comes out even: 1 on every side
    {"\"cn_k3_c16_nre\"", "[8, 8, 8]"},
    {"\"cn_k3_s2_c16_nr6\"", "[8, 9, 9]"},
    {"\"cn_k1_c16_nhs\"", "[8, 6, 6]"},
    {"\"cn_k3_c16_nsw\"", "[8, 6, 6]"},
    {"\"bn\"", "[8, 5, 5]"},
    {"\"relu\"", "[8, 5, 5]"},
    {"\"relu6\"", "[8, 5, 5]"},
    {"\"hswish\"", "[8, 5, 5]"},
    {"\"hsigmoid\"", "[8, 5, 5]"},
    {"\"sigmoid\"", "[8, 5, 5]"},
    {"\"silu\"", "[8, 5, 5]"},
    {"\"gelu\"", "[8, 5, 5]"},
    {"\"tanh\"", "[8, 5, 5]"},
    {"\"maxpool_k3_s2\"", "[8, 9, 9]"},
    {"\"avgpool_k2_s2\"", "[8, 8, 8]"},
    {"\"avgpool_k3_s2_p1\"", "[8, 9, 9]"},
    {"\"gap\"", "[8, 7, 7]"},
    {"\"gap\", \"fc10\"", "[8, 7, 7]"},
    {"\"fc10\"", "[8, 3, 3]"},
    {"\"fc12\", \"relu\", \"fc5\"", "[8, 2, 2]"},
    {"\"shuffle_g2\"", "[8, 4, 4]"},
    {"\"shuffle_g4\"", "[8, 4, 4]"},
    {"\"ds_k3\"", "[16, 8, 8]"},
    {"\"ir_k3_e2_c16\"", "[16, 8, 8]"},
    {"\"ir_k5_s2_e3_c24\"", "[16, 9, 9]"},
    {"\"ir_k3_e2_se0.25_nhs\"", "[16, 6, 6]"},
    {"\"ir_k3_e2_se0.25\"", "[16, 6, 6]"},
    {"\"ir_k3_e1_g2_c16\"", "[16, 6, 6]"},
    {"\"er_k3_e2\"", "[16, 6, 6]"},
    {"\"basic_c16\"", "[16, 6, 6]"},
    {"\"basic_s2_c32\"", "[16, 7, 7]"},
    {"\"bottleneck_c32\"", "[16, 6, 6]"},
    {"\"cn_k7_s2_c16_nre\", \"maxpool_k3_s2\"", "[3, 16, 16]"},
    {"\"conv_k1_c8\", \"skip\"", "[8, 5, 5]"},
    {"\"gap_mean\", \"fc10\"", "[8, 5, 5]"},
    {"\"sv2_s1_c16\"", "[16, 6, 6]"},
    {"\"sv2_s2_c24\"", "[16, 7, 7]"},
    {"\"upsample\"", "[8, 5, 5]"},
    {"\"focus_k3_c16_nsw\"", "[3, 8, 10]"},
    {"\"upsample_s3\", \"conv_k3_c8\"", "[4, 4, 4]"},
    {"\"c3_b2_c16\"", "[16, 6, 6]"},
    {"\"c3_b1_e0.25_k5_c24_noskip\"", "[16, 6, 6]"},
    {"\"convblock_b3_e0.375_c24\"", "[16, 6, 6]"},
    {"\"convblock_b1_c16\"", "[16, 6, 6]"},
    {"\"spp_c16\"", "[16, 7, 7]"},
    {"\"sppf_c16_nsw\"", "[16, 7, 7]"},
    // `from`: a concat reaching back two layers, a detect head on three sources of two sizes
    {"\"cn_c8\", \"cn_s2_c8\", \"upsample\", {\"op\": \"concat\", \"from\": [-1, 0]}", "[4, 6, 6]"},
    // MixNet's mixed depthwise conv: five channel groups, five kernels, joined again
    {"{\"sequence\": [\"cn_c10\", {\"op\": \"slice\", \"o\": 0, \"c\": 2, \"from\": 0}, \"conv_k3_c2_g2\", "
     "{\"op\": \"slice\", \"o\": 2, \"c\": 2, \"from\": 0}, \"conv_k5_c2_g2\", {\"op\": \"slice\", \"o\": 4, \"c\": 2, \"from\": 0}, "
     "\"conv_k7_c2_g2\", {\"op\": \"slice\", \"o\": 6, \"c\": 2, \"from\": 0}, \"conv_k9_c2_g2\", "
     "{\"op\": \"slice\", \"o\": 8, \"c\": 2, \"from\": 0}, \"conv_k11_c2_g2\", {\"op\": \"concat\", \"from\": [2, 4, 6, 8, 10]}]}",
     "[4, 12, 12]"},
    {"\"cn_c8\", \"cn_s2_c16\", \"cn_c8\", {\"op\": \"detect\", \"c\": 3, \"a\": 2, \"from\": [0, 1, -1]}", "[4, 6, 6]"},
    // two fully-connected heads joined: rank-2 values read as N,C,1,1
    {"\"gap\", \"fc10\", {\"op\": \"fc\", \"c\": 6, \"from\": 0}, {\"op\": \"concat\", \"from\": [1, 2]}", "[8, 5, 5]"},
    // DenseNet's concat of many; GoogLeNet's ceil-mode max pool; VGG's AdaptiveAvgPool2d(7) (equal windows)
    {"\"cn_c4\", {\"op\": \"concat\", \"from\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}", "[4, 5, 5]"},
    {"\"maxpool_k3_s2_ceil\"", "[8, 10, 10]"},
    {"\"maxpool_k3_s2_p1_ceil\"", "[8, 9, 9]"},
    {"\"adapool_k3\", \"fc5\"", "[8, 9, 9]"},
    {"\"conv_k3_c8\", \"leaky_slope0.1\"", "[8, 5, 5]"},
    // transformers: token tensors N×L×C and their ops (the cuda backend has no lowering of them yet)
    {"\"act_ngt\"", "[8, 5, 5]"},
    {"\"patch_k4_c12\"", "[3, 8, 12]"},
    {"\"tokens\", \"ln\"", "[12, 3, 5]"},
    {"\"tokens\", \"fc20\", \"gelu\"", "[12, 3, 5]"},
    {"\"tokens\", \"attn_h2\"", "[12, 3, 3]"},
    {"\"tokens\", \"attn_h3_hd5_explicit\"", "[12, 4, 3]"},
    // LeViT's attention bias (heads × L, read at the grid offset): fused and explicit, on 3×3 and 4×4 tokens
    {"\"tokens\", \"attn_h2_posbias\"", "[12, 3, 3]"},
    {"\"tokens\", \"attn_h3_hd5_explicit_posbias\"", "[12, 4, 4]"},
    {"\"patch_k2_c16\", \"vit_h2_posbias\", \"tokpool_mean\", \"fc5\"", "[3, 8, 8]"},
    {"\"tokens\", \"cls\", \"pos\"", "[12, 3, 3]"},
    {"\"tokens\", \"tokpool\"", "[12, 3, 3]"},
    {"\"tokens\", \"tokpool_mean\", \"fc5\"", "[12, 3, 3]"},
    {"\"tokens\", \"vit_h2_e2\"", "[12, 3, 3]"},
    {"\"tokens\", \"vit_h4_e1.5_ngt\"", "[16, 3, 3]"},
    {"\"patch_k4_c16\", \"cls\", \"pos\", \"vit_h2\", \"skip\", \"ln\", \"tokpool\", \"fc10\"", "[3, 8, 8]"},
    // ConvNeXt: LayerNorm2d (permute, LayerNorm, permute back), tokens back to an image, layer scale, the block
    {"\"ln\"", "[12, 3, 5]"},
    {"\"tokens\", \"image_w5\", \"conv_k3_c8\"", "[12, 3, 5]"},
    {"\"scale\"", "[8, 5, 5]"},
    {"\"tokens\", \"scale_method\"", "[12, 3, 3]"},
    {"\"cnx_k3\"", "[12, 5, 4]"},
    {"\"tokens\", \"ln_eps0.25\", \"fc9_nobias\"", "[12, 3, 3]"},  // a LayerNorm epsilon that shows
    {"\"cnx_k5_e2_convmlp\"", "[12, 5, 5]"},
    {"\"conv_k2_s2_c16_bias\", \"ln\", \"cnx\", \"gap\", \"ln\", \"fc10\"", "[3, 8, 8]"},
};

// 'same' padding one side more than the other (the odd pixel at the bottom and
// right): the cpu backend and the reference run it, the cuda plan refuses it.
const OpCase LOPSIDED_CASES[] = {
    {"\"conv_k3_s2_c8_psame\"", "[8, 10, 10]"},      // TensorFlow's stride-2 'same': (0, 1)
    {"\"conv_k5_s2_c8_g8_psame\"", "[8, 10, 12]"},   // (1, 2), H and W alike
    {"{\"op\": \"conv\", \"k\": 4, \"c\": 8, \"p\": \"same\"}", "[8, 7, 7]"},  // PyTorch's even-kernel 'same'
    {"\"conv_k3_s2_c8_psame\"", "[8, 9, 10]"},       // H even, W odd: the two differ
};

// gtest prints a case as its layers and input instead of its bytes.
inline void PrintTo(const OpCase &c, std::ostream *os) { *os << "layers " << c.layers << " on " << c.input; }

// ||a − b|| / ||b||, with a floor so all-zero references compare too
inline double normalised_error(const float *a, const float *b, size_t n)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < n; i++) {
        diff += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        norm += (double)b[i] * b[i];
    }
    return std::sqrt(diff / std::max(norm, 1e-12));
}

// A test name from a case: its index and the layer tokens' letters and digits.
inline std::string op_case_name(const ::testing::TestParamInfo<OpCase> &info)
{
    std::string name;
    for (const char *p = info.param.layers; *p; p++)
        if (isalnum((unsigned char)*p)) name += *p;
        else if (*p == ',') name += '_';
    return std::to_string(info.index) + "_" + name;
}

}  // namespace
