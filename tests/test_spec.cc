// Layer tokens: timm's block-string grammar, options, defaults, formatting.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "ir/expand.h"
#include "ir/spec.h"
}

namespace {

sslat_layer_spec parse_ok(const char *token)
{
    sslat_layer_spec spec;
    char why[256] = "";
    EXPECT_TRUE(sslat_spec_parse_token(token, &spec, why, sizeof why)) << token << ": " << why;
    return spec;
}

std::string parse_error(const char *token)
{
    sslat_layer_spec spec;
    char why[256] = "";
    EXPECT_FALSE(sslat_spec_parse_token(token, &spec, why, sizeof why)) << token;
    return why;
}

TEST(Token, FullMBConvToken)
{
    sslat_layer_spec s = parse_ok("ir_r2_k5_s2_e6_c40_se0.25_nhs");
    EXPECT_EQ(s.type, SSLAT_LAYER_IR);
    EXPECT_EQ(s.repeat, 2);
    EXPECT_EQ(s.kernel, 5);
    EXPECT_EQ(s.stride, 2);
    EXPECT_DOUBLE_EQ(s.expansion, 6.0);
    EXPECT_EQ(s.channels, 40);
    EXPECT_DOUBLE_EQ(s.se_ratio, 0.25);
    EXPECT_EQ(s.act, SSLAT_ACT_HSWISH);
    EXPECT_FALSE(s.set & SSLAT_OPT_NOSKIP);
    EXPECT_TRUE(parse_ok("ds_k3_noskip").set & SSLAT_OPT_NOSKIP);
    EXPECT_EQ(parse_ok("ir_k3_e1.5").expansion, 1.5);
}

TEST(Token, PlainTokensAndActivationCodes)
{
    EXPECT_EQ(parse_ok("fc1000").channels, 1000);
    EXPECT_EQ(parse_ok("fc1000").type, SSLAT_LAYER_FC);
    EXPECT_EQ(parse_ok("relu6").type, SSLAT_LAYER_ACT);
    EXPECT_EQ(parse_ok("relu6").act, SSLAT_ACT_RELU6);
    EXPECT_EQ(parse_ok("gap").type, SSLAT_LAYER_GAP);
    EXPECT_EQ(parse_ok("maxpool_k3_s2").kernel, 3);
    EXPECT_EQ(parse_ok("shuffle_g2").groups, 2);
    struct { const char *code; sslat_act_kind act; } codes[] = {
        {"re", SSLAT_ACT_RELU}, {"r6", SSLAT_ACT_RELU6}, {"hs", SSLAT_ACT_HSWISH},
        {"sw", SSLAT_ACT_SILU}, {"sg", SSLAT_ACT_SIGMOID}};
    for (auto &c : codes) {
        std::string token = std::string("cn_n") + c.code;
        EXPECT_EQ(parse_ok(token.c_str()).act, c.act) << token;
    }
}

TEST(Token, ErrorsSayWhatIsWrong)
{
    EXPECT_NE(parse_error("xx_k3").find("unknown layer type 'xx'"), std::string::npos);
    EXPECT_NE(parse_error("ir_z3").find("unknown option"), std::string::npos);
    EXPECT_NE(parse_error("ir_k3_k5").find("given twice"), std::string::npos);
    EXPECT_NE(parse_error("gap_k3").find("does not apply to 'gap'"), std::string::npos);
    EXPECT_NE(parse_error("ir_k3x").find("needs a whole number, got '3x'"), std::string::npos);
    EXPECT_NE(parse_error("ir_kx").find("unknown option 'kx'"), std::string::npos);
    EXPECT_NE(parse_error("ir_k0").find("outside"), std::string::npos);
    EXPECT_NE(parse_error("ir_nzz").find("activation code"), std::string::npos);
    EXPECT_NE(parse_error("ir_e-1").find("needs a number"), std::string::npos);
    EXPECT_NE(parse_error("ir__k3").find("malformed"), std::string::npos);
    EXPECT_NE(parse_error("ir_k3_").find("malformed"), std::string::npos);
    EXPECT_NE(parse_error("").find("empty"), std::string::npos);
    EXPECT_NE(parse_error("ir_se2").find("outside [0, 1]"), std::string::npos);
    EXPECT_NE(parse_error("ir_k99999999999").find("whole number"), std::string::npos);
}

TEST(Token, FormatRoundTrips)
{
    const char *tokens[] = {"ir_k5_s2_e6_c40_se0.25_nhs", "ds_k3_c16_nr6", "fc1000", "relu6",
                            "bottleneck_s2_c512", "cn_k1_c1280_g2_p0_d1", "ir_k3_noskip", "conv_k1_bias",
                            "vit_e3.5_h3_hd64_ngt_explicit", "attn_h4", "patch_k16_c192", "tokpool_mean",
                            "ln", "act_ngt", "fc1000_fn", "sdpa_h3_hd8_explicit", "leaky_slope0.1",
                            "maxpool_k3_s2_ceil", "adapool_k7", "image_w7", "scale_method", "cnx_k5_e3_ngt_convmlp", "image",
                            "fc10_nobias", "ln_eps1e-05", "vit_e3_h2_nge_eps1e-05", "cnx_k7_eps0.001",
                            "attn_h3_hd5_explicit_posbias", "sdpa_h2_posbias", "vit_e2_h4_posbias"};
    for (const char *token : tokens) {
        sslat_layer_spec spec = parse_ok(token);
        char text[128];
        sslat_spec_format(&spec, text, sizeof text);
        EXPECT_STREQ(text, token);
    }
}

TEST(Token, DefaultsFillOnlyWhatIsUnsetAndAccepted)
{
    sslat_layer_spec defaults = parse_ok("ir_s2_c24_se0.25_nr6");
    sslat_layer_spec ir = parse_ok("ir_k5_c32");
    sslat_spec_apply_defaults(&ir, &defaults);
    EXPECT_EQ(ir.channels, 32);  // set by the candidate
    EXPECT_EQ(ir.stride, 2);
    EXPECT_EQ(ir.act, SSLAT_ACT_RELU6);
    EXPECT_DOUBLE_EQ(ir.se_ratio, 0.25);
    sslat_layer_spec gap = parse_ok("gap");
    sslat_spec_apply_defaults(&gap, &defaults);
    EXPECT_EQ(gap.set, 0u);  // gap takes none of them
    sslat_layer_spec skip = parse_ok("skip");
    sslat_spec_apply_defaults(&skip, &defaults);
    EXPECT_EQ(skip.set, (unsigned)(SSLAT_OPT_S | SSLAT_OPT_C));  // checked at expansion
}

TEST(MakeDivisible, MatchesTimm)
{
    // timm make_divisible(v, 8): int(v + 4) // 8 * 8, at least 8, +8 when under 0.9 v
    EXPECT_EQ(sslat_make_divisible(30, 8), 32);
    EXPECT_EQ(sslat_make_divisible(20, 8), 24);
    EXPECT_EQ(sslat_make_divisible(17, 8), 16);
    EXPECT_EQ(sslat_make_divisible(3, 8), 8);
    EXPECT_EQ(sslat_make_divisible(144, 8), 144);
    EXPECT_EQ(sslat_make_divisible(27.6, 8), 32);  // 24 < 0.9 · 27.6
}

}  // namespace
