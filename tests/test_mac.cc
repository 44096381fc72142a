// Per-op counting rules of the four MAC calculators, on one-layer spaces whose
// figures follow from each library's formula (docs/calculators.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
#include "calc/calculator.h"
#include "calc/mac.h"
#include "ir/space.h"
}

namespace {

const char *const RULES[] = {"mac", "mac_thop", "mac_fvcore", "mac_pthflops"};

double constant_of(const sslat_space *space, const char *rule, const char *ignore = nullptr)
{
    double constant = -1;
    sslat_error err;
    EXPECT_EQ(sslat_mac_count(space, rule, ignore, &constant, nullptr, 0, &err), SSLAT_OK)
        << err.message;
    return constant * 1e6;
}

struct OpCase {
    const char *layers;  // on a 2x3x8x8 input
    double expected[4];  // mac, mac_thop, mac_fvcore, mac_pthflops (raw counts)
    const char *rule_source;
};

TEST(MacRules, EachOpAsEachLibraryCountsIt)
{
    // M = 2·8·8·8·3·9 = 27648, B = 2·8·8·8 = 1024; Nin = 2·3·8·8 = 384
    const OpCase cases[] = {
        {"\"conv_k3_c8_bias\"", {27648, 27648, 27648, 27648 + 1024},
         "conv: M everywhere; pthflops adds the bias B"},
        {"\"conv_k3_c8\"", {27648, 27648, 27648, 27648}, "no bias: M everywhere"},
        {"\"conv_k3_c6_g3\"", {2 * 6 * 64 * 1 * 9, 2 * 6 * 64 * 9, 2 * 6 * 64 * 9, 2 * 6 * 64 * 9},
         "grouped conv: Cin/g"},
        {"\"bn\"", {0, 4 * 384, 2 * 384, 2 * 384}, "thop 2·Nin ×2 affine; fvcore eval 2·N; pthflops 2·Nout"},
        {"\"relu\"", {0, 0, 0, 2 * 384}, "pthflops counts nn.ReLU as 2·Nout, thop zero_ops"},
        {"\"relu6\"", {0, 0, 0, 0}, "ReLU6 is Hardtanh: nobody counts it"},
        {"\"hswish\", \"hsigmoid\", \"sigmoid\", \"silu\", \"gelu\", \"tanh\"", {0, 0, 0, 0},
         "no rule in any library"},
        {"\"maxpool_k3_s2\"", {0, 0, 0, 8 * 96}, "pthflops (K−1)·Nout, out 2x3x4x4 = 96"},
        {"\"avgpool_k2_s2\"", {0, 96, 0, 4 * 96}, "thop Nout; pthflops K·Nout"},
        {"\"gap\"", {0, 65 * 6, 384, 64 * 6}, "thop (HiWi+1)·Nout; fvcore Nin; pthflops HiWi·Nout"},
        {"\"fc10\"", {3840, 3840, 3840, 3850}, "2 rows × 192 × 10; pthflops + out once"},
        {"\"shuffle_g3\", \"flatten\"", {0, 0, 0, 0}, "free everywhere"},
    };
    for (const OpCase &c : cases) {
        sslat_space *space =
            load_text(space_json(c.layers, "", "{\"shape\": [3, 8, 8], \"batch\": 2}"));
        ASSERT_NE(space, nullptr) << c.layers;
        for (int r = 0; r < 4; r++)
            EXPECT_DOUBLE_EQ(constant_of(space, RULES[r]), c.expected[r])
                << c.layers << " with " << RULES[r] << " (" << c.rule_source << ")";
        sslat_space_free(space);
    }
}

TEST(MacRules, ResidualAddAndSqueezeExciteMultiply)
{
    // ds_k3 on 2x8x8x8 ends in a residual add; with se it also scales channels.
    sslat_space *space =
        load_text(space_json("\"ds_k3_se0.5\"", "", "{\"shape\": [8, 8, 8], \"batch\": 2}"));
    ASSERT_NE(space, nullptr);
    const sslat_graph &g = space->layers[0].candidates[0].graph;
    int adds = 0, muls = 0;
    for (int32_t i = 0; i < g.count; i++) {
        const sslat_node &n = g.nodes[i];
        if (n.op != SSLAT_OP_ADD && n.op != SSLAT_OP_MUL_CHANNEL) continue;
        adds += n.op == SSLAT_OP_ADD;
        muls += n.op == SSLAT_OP_MUL_CHANNEL;
        EXPECT_EQ(sslat_mac_node(&g, &n, SSLAT_MAC_PTHFLOPS, false), 2.0 * 1024);  // operator + / *
        EXPECT_EQ(sslat_mac_node(&g, &n, SSLAT_MAC_THOP, false), 0.0);
        EXPECT_EQ(sslat_mac_node(&g, &n, SSLAT_MAC_FVCORE, false), 0.0);
        EXPECT_EQ(sslat_mac_node(&g, &n, SSLAT_MAC_PLAIN, false), 0.0);
    }
    EXPECT_EQ(adds, 1);
    EXPECT_EQ(muls, 1);
    sslat_space_free(space);
}

TEST(MacIgnore, DropsOpKindsAndSingleActivations)
{
    sslat_space *space = load_text(space_json("\"conv_k3_c8_bias\", \"bn\", \"relu\", \"gap\"", "",
                                              "{\"shape\": [3, 8, 8], \"batch\": 2}"));
    ASSERT_NE(space, nullptr);
    // conv 27648 + bias 1024; bn 2·1024; relu 2·1024; gap 64·16
    EXPECT_DOUBLE_EQ(constant_of(space, "mac_pthflops"), 28672 + 2048 + 2048 + 1024);
    EXPECT_DOUBLE_EQ(constant_of(space, "mac_pthflops", "batchnorm"), 28672 + 2048 + 1024);
    EXPECT_DOUBLE_EQ(constant_of(space, "mac_pthflops", "relu"), 28672 + 2048 + 1024);
    EXPECT_DOUBLE_EQ(constant_of(space, "mac_pthflops", "relu6"), 28672 + 2048 + 2048 + 1024);
    EXPECT_DOUBLE_EQ(constant_of(space, "mac_pthflops", "act, global_avgpool"), 28672 + 2048);
    EXPECT_DOUBLE_EQ(constant_of(space, "mac", "conv2d"), 0.0);
    sslat_ignore_set set;
    sslat_error err;
    EXPECT_EQ(sslat_ignore_parse("batchnorm,softmax", &set, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("'softmax'"), std::string::npos) << err.message;
    sslat_space_free(space);
}

TEST(MacCount, PerCandidateValuesAndArgumentErrors)
{
    sslat_space *space = load_text(space_json(
        "\"cn_c16\", {\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\", \"skip\"], \"c\": 16}, \"gap\""));
    ASSERT_NE(space, nullptr);
    double constant = 0, per_op[3] = {-1, -1, -1};
    sslat_error err;
    ASSERT_EQ(sslat_mac_count(space, "mac", nullptr, &constant, per_op, 3, &err), SSLAT_OK);
    // cn_c16 on 3x32x32: 16·32·32·3·9
    EXPECT_DOUBLE_EQ(constant * 1e6, 16 * 1024 * 27);
    // ir_k3_e3 (16 → 48 → 16): expand 48·1024·16, dw 48·1024·9, project 16·1024·48
    EXPECT_DOUBLE_EQ(per_op[0] * 1e6, 1024.0 * (48 * 16 + 48 * 9 + 16 * 48));
    EXPECT_GT(per_op[1], per_op[0]);
    EXPECT_EQ(per_op[2], 0.0);
    EXPECT_EQ(sslat_mac_count(space, "mac", nullptr, &constant, per_op, 2, &err),
              SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_mac_count(space, "cuda", nullptr, &constant, per_op, 3, &err),
              SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_mac_count(nullptr, "mac", nullptr, &constant, per_op, 3, &err),
              SSLAT_ERR_INVALID_ARGUMENT);
    sslat_space_free(space);
}

}  // namespace
