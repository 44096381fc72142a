// The op IR: name tables and shape inference (graphs: test_graph.cc).
#include <gtest/gtest.h>

#include <cstring>

#include "helpers.h"

extern "C" {
#include "ir/graph.h"
#include "ir/op.h"
}

namespace {

TEST(OpNames, RoundTripEveryOpAndActivation)
{
    for (int op = 0; op < SSLAT_OP_COUNT; op++)
        EXPECT_EQ(sslat_op_from_name(sslat_op_name((sslat_op_kind)op)), op);
    for (int act = 0; act < SSLAT_ACT_COUNT; act++)
        EXPECT_EQ(sslat_act_from_name(sslat_act_name((sslat_act_kind)act)), act);
    EXPECT_EQ(sslat_op_from_name("softmax"), -1);
    EXPECT_STREQ(sslat_op_name(SSLAT_OP_MUL_CHANNEL), "mul_channel");
    EXPECT_EQ(sslat_op_arity(SSLAT_OP_ADD), 2);
    EXPECT_EQ(sslat_op_arity(SSLAT_OP_CONV2D), 1);
}

TEST(ShapeInference, ConvFollowsPyTorchFormula)
{
    char why[256];
    sslat_shape out;
    sslat_shape in = {2, 16, 224, 224};
    sslat_op_params p = conv_params(32, 3, 2, 1);
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.n, 2);
    EXPECT_EQ(out.c, 32);
    EXPECT_EQ(out.h, 112);  // floor((224 + 2 - 3) / 2) + 1
    p = conv_params(16, 3, 1, 2, 2);  // dilation 2 keeps size with padding 2
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 224);
    p = conv_params(16, 7, 2, 3);
    in = {1, 3, 225, 225};
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 113);
}

TEST(ShapeInference, SamePaddingGivesCeilOfInputOverStrideWithTheOddPixelLast)
{
    char why[256];
    sslat_shape out;
    sslat_op_params p = conv_params(8, 3, 2, 0);
    p.conv.same = true;
    // TensorFlow's rule (timm's Conv2dSame): 224 → 112 needs 1 pixel, at the bottom and right
    sslat_shape in = {1, 3, 224, 224};
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 112);
    sslat_pads pads = sslat_conv_pads(&p.conv, in);
    EXPECT_EQ(pads.top, 0);
    EXPECT_EQ(pads.bottom, 1);
    EXPECT_FALSE(sslat_pads_symmetric(pads));
    // an odd input pads evenly; H and W are padded each by its own size
    in = {1, 3, 225, 224};
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 113);
    EXPECT_EQ(out.w, 112);
    pads = sslat_conv_pads(&p.conv, in);
    EXPECT_EQ(pads.top, 1);
    EXPECT_EQ(pads.bottom, 1);
    EXPECT_EQ(pads.left, 0);
    EXPECT_EQ(pads.right, 1);
    // PyTorch's padding='same' with an even kernel: total 3, one left, two right
    p = conv_params(8, 4, 1, 0);
    p.conv.same = true;
    in = {1, 3, 7, 7};
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 7);
    pads = sslat_conv_pads(&p.conv, in);
    EXPECT_EQ(pads.left, 1);
    EXPECT_EQ(pads.right, 2);
    // 'same' and a padding are one or the other
    p.conv.padding = 1;
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, in, {}, &out, why, sizeof why));
    EXPECT_NE(strstr(why, "'same' padding with padding 1"), nullptr) << why;
}

TEST(ShapeInference, RejectsImpossibleShapesWithAReason)
{
    char why[256] = "";
    sslat_shape out;
    sslat_op_params p = conv_params(32, 3, 1, 1, 1, 3);  // 16 channels, 3 groups
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, {1, 16, 8, 8}, {}, &out, why, sizeof why));
    EXPECT_NE(strstr(why, "groups"), nullptr) << why;
    p = conv_params(8, 9, 1, 0);
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, {1, 8, 4, 4}, {}, &out, why, sizeof why));
    EXPECT_NE(strstr(why, "does not fit"), nullptr) << why;
    p = conv_params(8, 0, 1, 0);
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_CONV2D, &p, {1, 8, 4, 4}, {}, &out, why, sizeof why));
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_ADD, nullptr, {1, 8, 4, 4}, {1, 8, 4, 2}, &out, why,
                                   sizeof why));
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_MUL_CHANNEL, nullptr, {1, 8, 4, 4}, {1, 4, 1, 1}, &out,
                                   why, sizeof why));
    sslat_op_params lin;
    lin.linear = {10, true};
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_LINEAR, &lin, {1, 8, 4, 4}, {}, &out, why, sizeof why));
    EXPECT_NE(strstr(why, "flattened"), nullptr) << why;
    sslat_op_params shuffle;
    shuffle.shuffle_groups = 3;
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_CHANNEL_SHUFFLE, &shuffle, {1, 8, 4, 4}, {}, &out, why,
                                   sizeof why));
}

TEST(ShapeInference, PoolsFlattenAndGlobalPool)
{
    char why[256];
    sslat_shape out;
    sslat_op_params pool;
    pool.pool = {3, 2, 1};
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_MAXPOOL, &pool, {1, 64, 112, 112}, {}, &out, why, sizeof why));
    EXPECT_EQ(out.h, 56);
    pool.pool = {2, 2, 2};  // padding over half the kernel: PyTorch refuses
    EXPECT_FALSE(sslat_infer_shape(SSLAT_OP_AVGPOOL, &pool, {1, 64, 8, 8}, {}, &out, why, sizeof why));
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_GLOBAL_AVGPOOL, nullptr, {4, 64, 7, 7}, {}, &out, why, sizeof why));
    EXPECT_EQ(out.n, 4);
    EXPECT_EQ(out.h * out.w, 1);
    ASSERT_TRUE(sslat_infer_shape(SSLAT_OP_FLATTEN, nullptr, {4, 64, 7, 7}, {}, &out, why, sizeof why));
    EXPECT_EQ(out.c, 64 * 49);
}

}  // namespace
