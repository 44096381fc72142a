// The op IR: name tables, shape inference, graph building, canonical hash.
#include <gtest/gtest.h>

#include <cstring>

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

sslat_op_params conv_params(int out, int k, int s, int p, int d = 1, int g = 1)
{
    sslat_op_params params;
    memset(&params, 0, sizeof params);
    params.conv = {out, k, s, p, d, g, false};
    return params;
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

// A 1x1 conv → bn → relu → add(input) chain.
void build_block(sslat_graph *g, int kernel, const char *conv_name)
{
    sslat_graph_init(g, {1, 8, 16, 16});
    sslat_op_params p = conv_params(8, kernel, 1, kernel / 2);
    sslat_op_params relu;
    memset(&relu, 0, sizeof relu);
    relu.act = SSLAT_ACT_RELU;
    int32_t at = -1;
    ASSERT_EQ(sslat_graph_add(g, SSLAT_OP_CONV2D, &p, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, conv_name, &at, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_graph_add(g, SSLAT_OP_BATCHNORM, nullptr, at, SSLAT_NO_INPUT, "bn", &at, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_graph_add(g, SSLAT_OP_ACT, &relu, at, SSLAT_NO_INPUT, "act", &at, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_graph_add(g, SSLAT_OP_ADD, nullptr, at, SSLAT_GRAPH_INPUT, "residual", &at, nullptr), SSLAT_OK);
}

TEST(Graph, HashIgnoresNamesButNotParamsOrShapes)
{
    sslat_graph a, b, c;
    build_block(&a, 3, "conv");
    build_block(&b, 3, "another_name");
    build_block(&c, 5, "conv");
    EXPECT_EQ(sslat_graph_hash(&a), sslat_graph_hash(&b));
    EXPECT_NE(sslat_graph_hash(&a), sslat_graph_hash(&c));
    sslat_graph d;
    build_block(&d, 3, "conv");
    d.input.n = 2;  // same ops, other batch: a different measurement
    EXPECT_NE(sslat_graph_hash(&a), sslat_graph_hash(&d));
    EXPECT_EQ(a.count, 4);
    EXPECT_EQ(sslat_graph_output(&a).c, 8);
    EXPECT_EQ(sslat_node_param_count(&a, &a.nodes[0]), 8 * 8 * 9);
    EXPECT_EQ(sslat_node_param_count(&a, &a.nodes[1]), 16);  // BN weight + bias
    sslat_graph_release(&a);
    sslat_graph_release(&b);
    sslat_graph_release(&c);
    sslat_graph_release(&d);
}

TEST(Graph, AddRejectsBadShapesAndNamesTheOp)
{
    sslat_graph g;
    sslat_graph_init(&g, {1, 8, 4, 4});
    sslat_op_params p = conv_params(8, 9, 1, 0);
    sslat_error err;
    EXPECT_EQ(sslat_graph_add(&g, SSLAT_OP_CONV2D, &p, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, "dw", nullptr, &err),
              SSLAT_ERR_SPACE);
    EXPECT_NE(strstr(err.message, "conv2d 'dw'"), nullptr) << err.message;
    EXPECT_EQ(g.count, 0);
    sslat_graph_release(&g);
}

}  // namespace
