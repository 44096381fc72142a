// The loader: expansions of composite layers, choices, repeats, arch, overrides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
#include "ir/space.h"
}

namespace {

// The op sequence of a graph, as "conv2d batchnorm act …".
std::string ops_of(const sslat_graph &g)
{
    std::string text;
    for (int32_t i = 0; i < g.count; i++) {
        if (i) text += ' ';
        text += sslat_op_name(g.nodes[i].op);
    }
    return text;
}

const sslat_graph &fixed_layer(const sslat_space *s, int layer)
{
    return s->layers[layer].candidates[0].graph;
}

TEST(Loader, MBConvExpandsLikeTimm)
{
    sslat_space *s = load_text(space_json("\"cn_c16\", \"ir_k5_e6_c16\", \"ir_k3_e1_c24_s2\""));
    ASSERT_NE(s, nullptr);
    const sslat_graph &mb = fixed_layer(s, 1);
    EXPECT_EQ(ops_of(mb), "conv2d batchnorm act conv2d batchnorm act conv2d batchnorm add");
    EXPECT_EQ(mb.nodes[0].shape.c, 96);           // expand 16 · 6
    EXPECT_EQ(mb.nodes[3].params.conv.groups, 96);  // depthwise
    EXPECT_EQ(mb.nodes[3].params.conv.kernel, 5);
    EXPECT_EQ(mb.nodes[3].params.conv.padding, 2);
    EXPECT_EQ(mb.nodes[8].input[1], SSLAT_GRAPH_INPUT);  // residual from the block input
    // e == 1: no expansion conv; stride 2 and 16 → 24 channels: no residual
    EXPECT_EQ(ops_of(fixed_layer(s, 2)), "conv2d batchnorm act conv2d batchnorm");
    EXPECT_EQ(sslat_graph_output(&fixed_layer(s, 2)).h, 16);
    sslat_space_free(s);
}

TEST(Loader, SqueezeExciteGateFollowsTheNet)
{
    // a hswish net gets hsigmoid gates, reduce = make_divisible(mid · se, 8)
    sslat_space *s = load_text(space_json("\"cn_c16_nhs\", \"ir_k3_e4_se0.25_nhs\""));
    ASSERT_NE(s, nullptr);
    const sslat_graph &g = fixed_layer(s, 1);
    EXPECT_EQ(ops_of(g), "conv2d batchnorm act conv2d batchnorm act global_avgpool conv2d act "
                         "conv2d act mul_channel conv2d batchnorm add");
    EXPECT_EQ(g.nodes[7].shape.c, 16);  // 64 · 0.25
    EXPECT_TRUE(g.nodes[7].params.conv.bias);
    EXPECT_EQ(g.nodes[8].params.act, SSLAT_ACT_RELU);
    EXPECT_EQ(g.nodes[10].params.act, SSLAT_ACT_HSIGMOID);
    EXPECT_EQ(g.nodes[11].input[0], 5);  // x · s: x is the dw activation
    sslat_space_free(s);
    // a relu net gets sigmoid, unless the file says otherwise
    s = load_text(space_json("\"ir_k3_e4_se0.25\""));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(fixed_layer(s, 0).nodes[10].params.act, SSLAT_ACT_SIGMOID);
    sslat_space_free(s);
    s = load_text(space_json("\"ir_k3_e4_se0.25\"", ", \"se_gate\": \"hsigmoid\""));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(fixed_layer(s, 0).nodes[10].params.act, SSLAT_ACT_HSIGMOID);
    sslat_space_free(s);
    // torchvision's EfficientNet: reduced width max(1, in // 4) of the block input, SiLU inside
    s = load_text(space_json("\"cn_c16\", \"ir_k3_e4_se0.25_c16\"",
                             ", \"se_base\": \"input\", \"se_divisor\": 1, \"se_act\": \"silu\""));
    ASSERT_NE(s, nullptr);
    const sslat_graph &effnet = fixed_layer(s, 1);  // input 16 channels, expanded 64
    EXPECT_EQ(sslat_node_conv(&effnet.nodes[7])->out_channels, 4);  // se_reduce: 16 // 4
    EXPECT_EQ(effnet.nodes[8].params.act, SSLAT_ACT_SILU);
    EXPECT_EQ(sslat_node_conv(&effnet.nodes[9])->out_channels, 64);  // se_expand back to the expanded width
    sslat_space_free(s);
}

TEST(Loader, ShuffleNetV2UnitsSplitOrBranchThenConcatAndShuffle)
{
    sslat_space *s = load_text(space_json("\"cn_c16\", \"sv2_s1_c16\", \"sv2_s2_c24\""));
    ASSERT_NE(s, nullptr);
    const sslat_graph &one = fixed_layer(s, 1);
    EXPECT_EQ(ops_of(one), "channel_slice channel_slice conv2d batchnorm act conv2d batchnorm conv2d batchnorm act "
                           "concat channel_shuffle");
    EXPECT_EQ(one.nodes[0].params.slice.start, 0);
    EXPECT_EQ(one.nodes[1].params.slice.start, 8);  // x.chunk(2, 1): the second half runs the branch
    EXPECT_EQ(one.nodes[10].input[0], 0);            // cat(x1, branch(x2))
    EXPECT_EQ(one.nodes[10].input[1], 9);
    EXPECT_EQ(one.nodes[10].shape.c, 16);
    const sslat_graph &two = fixed_layer(s, 2);  // both branches read the unit's input
    EXPECT_EQ(ops_of(two), "conv2d batchnorm conv2d batchnorm act conv2d batchnorm act conv2d batchnorm conv2d "
                           "batchnorm act concat channel_shuffle");
    EXPECT_EQ(two.nodes[0].input[0], SSLAT_GRAPH_INPUT);
    EXPECT_EQ(two.nodes[5].input[0], SSLAT_GRAPH_INPUT);
    EXPECT_EQ(sslat_graph_output(&two).c, 24);
    EXPECT_EQ(sslat_graph_output(&two).h, 16);  // 32 / 2
    sslat_space_free(s);
}

TEST(Loader, FromWiresLayersAsYoloDoes)
{
    // rows: 0 cn (32x32), 1 cn_s2 "p4" (16x16), 2 upsample of row 1, 3 concat(row 2, row 0),
    // 4 cn_r2 (two layers), 5 detect on rows 4 (by index) and "p4" (by name)
    sslat_space *s = load_text(space_json(
        "\"cn_c8\", {\"op\": \"cn\", \"s\": 2, \"c\": 16, \"name\": \"p4\"}, \"upsample\", "
        "{\"op\": \"concat\", \"from\": [-1, 0]}, \"cn_r2_c8\", {\"op\": \"detect\", \"c\": 1, \"a\": 2, \"from\": [4, \"p4\"]}"));
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->n_layers, 7);  // the repeated row is two layers
    const sslat_layer &concat = s->layers[3];
    EXPECT_EQ(concat.n_sources, 2);
    EXPECT_EQ(concat.source[0], 2);
    EXPECT_EQ(concat.source[1], 0);
    EXPECT_EQ(ops_of(concat.candidates[0].graph), "input concat");
    EXPECT_EQ(sslat_graph_output(&concat.candidates[0].graph).c, 24);  // 16 upsampled + 8
    const sslat_layer &detect = s->layers[6];
    EXPECT_EQ(detect.source[0], 5);  // row 4's last copy
    EXPECT_EQ(detect.source[1], 1);
    EXPECT_EQ(ops_of(detect.candidates[0].graph), "input conv2d conv2d");
    EXPECT_EQ(sslat_node_conv(&detect.candidates[0].graph.nodes[1])->out_channels, 12);  // 2 × (1 + 5)
    EXPECT_TRUE(sslat_node_conv(&detect.candidates[0].graph.nodes[1])->bias);
    EXPECT_EQ(detect.candidates[0].graph.nodes[2].input[0], 0);  // the second scale reads the input node
    EXPECT_FALSE(sslat_space_is_chain(s));
    // the whole network: input nodes become identities on the layers they name
    sslat_graph whole;
    sslat_error err;
    ASSERT_EQ(sslat_space_architecture_graph(s, nullptr, 0, &whole, &err), SSLAT_OK) << err.message;
    int identities = 0;
    for (int32_t i = 0; i < whole.count; i++) identities += whole.nodes[i].op == SSLAT_OP_IDENTITY;
    EXPECT_EQ(identities, 2);
    EXPECT_EQ(whole.nodes[whole.count - 1].shape.h, 16);  // the last scale: p4's size
    sslat_graph_release(&whole);
    // the same layers chained hash differently from the wired ones
    sslat_space *chain = load_text(space_json("\"cn_c8\", \"cn_s2_c16\", \"upsample\""));
    sslat_space *wired = load_text(space_json("\"cn_c8\", \"cn_s2_c16\", {\"op\": \"upsample\", \"from\": 0}"));
    ASSERT_NE(chain, nullptr);
    ASSERT_NE(wired, nullptr);
    EXPECT_NE(sslat_space_hash(chain), sslat_space_hash(wired));
    EXPECT_TRUE(sslat_space_is_chain(chain));
    sslat_space_free(chain);
    sslat_space_free(wired);
    sslat_space_free(s);
}

TEST(Loader, ACandidateWiredElementByElementEqualsTheComposite)
{
    // a ResNet basic block written as primitives with "from" inside the candidate
    // is the same graph (same hash) as the `basic` composite
    sslat_space *s = load_text(space_json(
        "\"cn_c16\", {\"choice\": [\"basic_c16\", [{\"op\": \"conv\", \"k\": 3, \"c\": 16}, \"bn\", \"relu\", "
        "{\"op\": \"conv\", \"k\": 3, \"c\": 16}, \"bn\", {\"op\": \"add\", \"from\": [-1, \"input\"]}, \"relu\"]]}"));
    ASSERT_NE(s, nullptr);
    const sslat_layer *block = sslat_space_block_layer(s, 0);
    EXPECT_EQ(sslat_graph_hash(&block->candidates[0].graph), sslat_graph_hash(&block->candidates[1].graph));
    // squeeze-excite as primitives: mul reads the block input's value and the gate
    sslat_space *se = load_text(space_json(
        "\"cn_c16\", {\"choice\": [[\"gap\", {\"op\": \"conv\", \"k\": 1, \"c\": 4, \"bias\": true}, \"relu\", "
        "{\"op\": \"conv\", \"k\": 1, \"c\": 16, \"bias\": true}, \"sigmoid\", {\"op\": \"mul\", \"from\": [\"input\", -1]}, "
        "\"slice_o8_c8\", \"s2d\"]]}"));
    ASSERT_NE(se, nullptr);
    const sslat_graph &g = sslat_space_block_layer(se, 0)->candidates[0].graph;
    EXPECT_EQ(ops_of(g), "global_avgpool conv2d act conv2d act mul_channel channel_slice space_to_depth");
    EXPECT_EQ(g.nodes[5].input[0], SSLAT_GRAPH_INPUT);
    EXPECT_EQ(g.nodes[5].input[1], 4);
    EXPECT_EQ(g.nodes[6].params.slice.start, 8);
    EXPECT_EQ(sslat_graph_output(&g).c, 32);  // 8 channels, four phases
    sslat_space_free(se);
    sslat_space_free(s);
    // a fixed sequence is one subgraph of the constant part, wired like a chain of its elements
    sslat_space *seq = load_text(space_json("{\"sequence\": [{\"op\": \"conv\", \"c\": 8}, \"bn\", \"relu\"], \"name\": \"stem\"}"));
    ASSERT_NE(seq, nullptr);
    EXPECT_EQ(seq->n_layers, 1);
    EXPECT_EQ(seq->n_blocks, 0);
    EXPECT_STREQ(seq->layers[0].name, "stem");
    EXPECT_EQ(ops_of(seq->layers[0].candidates[0].graph), "conv2d batchnorm act");
    sslat_space_free(seq);
}

TEST(Loader, DepthwiseSeparableFusedAndGroupedBlocks)
{
    sslat_space *s = load_text(space_json(
        "\"cn_c32\", \"ds_k3_c16\", \"ds_k3\", \"er_k3_e4_c16\", \"ir_k3_e1_g2_c24\""));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(ops_of(fixed_layer(s, 1)), "conv2d batchnorm act conv2d batchnorm");
    EXPECT_EQ(ops_of(fixed_layer(s, 2)), "conv2d batchnorm act conv2d batchnorm add");
    const sslat_graph &er = fixed_layer(s, 3);
    EXPECT_EQ(ops_of(er), "conv2d batchnorm act conv2d batchnorm add");
    EXPECT_EQ(er.nodes[0].params.conv.kernel, 3);
    EXPECT_EQ(er.nodes[0].shape.c, 64);
    // FBNet's g2: grouped 1x1s around a channel shuffle, kept even at e1
    const sslat_graph &g2 = fixed_layer(s, 4);
    EXPECT_EQ(ops_of(g2), "conv2d batchnorm act channel_shuffle conv2d batchnorm act conv2d batchnorm");
    EXPECT_EQ(g2.nodes[0].params.conv.groups, 2);
    EXPECT_EQ(g2.nodes[7].params.conv.groups, 2);
    sslat_space_free(s);
}

TEST(Loader, ResNetBlocksLikeTorchvision)
{
    sslat_space *s = load_text(space_json(
        "\"cn_k7_s2_c64_nre\", \"maxpool_k3_s2\", \"basic_c64\", \"basic_s2_c128\", "
        "\"bottleneck_c256\", \"gap\", \"fc10\"",
        "", "{\"shape\": [3, 64, 64]}"));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(sslat_graph_output(&fixed_layer(s, 1)).h, 16);  // stem: 64 → 32 → 16
    EXPECT_EQ(ops_of(fixed_layer(s, 2)), "conv2d batchnorm act conv2d batchnorm add act");
    const sslat_graph &down = fixed_layer(s, 3);
    EXPECT_EQ(ops_of(down), "conv2d batchnorm act conv2d batchnorm conv2d batchnorm add act");
    EXPECT_EQ(down.nodes[5].params.conv.kernel, 1);  // projection shortcut
    EXPECT_EQ(down.nodes[5].params.conv.stride, 2);
    EXPECT_EQ(down.nodes[5].input[0], SSLAT_GRAPH_INPUT);
    const sslat_graph &bottle = fixed_layer(s, 4);
    EXPECT_EQ(bottle.nodes[0].shape.c, 64);  // width = 256 / 4
    EXPECT_EQ(bottle.nodes[3].params.conv.kernel, 3);
    EXPECT_EQ(sslat_graph_output(&bottle).c, 256);
    const sslat_graph &fc = fixed_layer(s, 6);
    EXPECT_EQ(ops_of(fc), "linear");  // already 1x1 after gap: no flatten needed
    EXPECT_TRUE(fc.nodes[0].params.linear.bias);
    sslat_space_free(s);
    s = load_text(space_json("\"fc10\""));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(ops_of(fixed_layer(s, 0)), "flatten linear");
    sslat_space_free(s);
}

TEST(Loader, RepeatAppliesTheStrideToTheFirstCopyOnly)
{
    sslat_space *s = load_text(space_json(
        "\"cn_c16\", \"ir_r3_s2_e6_c24\", "
        "{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 24, \"s\": 1, \"repeat\": 2, \"name\": \"st\"}, "
        "{\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\"], \"c\": 32, \"s\": 2, \"repeat\": 2}"));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->n_layers, 1 + 3 + 2 + 2);
    EXPECT_EQ(sslat_graph_output(&fixed_layer(s, 1)).h, 16);
    EXPECT_EQ(sslat_graph_output(&fixed_layer(s, 2)).h, 16);
    EXPECT_EQ(std::string(s->layers[2].name), "ir_s1_e6_c24");  // label shows the stride used
    EXPECT_EQ(s->n_blocks, 4);
    EXPECT_STREQ(sslat_space_block_name(s, 0), "st.0");
    EXPECT_STREQ(sslat_space_block_name(s, 1), "st.1");
    EXPECT_STREQ(sslat_space_block_name(s, 2), "blk02");
    EXPECT_EQ(sslat_graph_output(&sslat_space_block_layer(s, 2)->candidates[1].graph).h, 8);
    EXPECT_EQ(sslat_graph_output(&sslat_space_block_layer(s, 3)->candidates[1].graph).h, 8);
    EXPECT_STREQ(sslat_space_candidate_label(s, 3, 1), "ir_k5_e6");
    EXPECT_EQ(sslat_space_candidate_label(s, 3, 2), nullptr);
    EXPECT_EQ(sslat_space_candidate_count(s, 9), -1);
    sslat_space_free(s);
}

TEST(Loader, ChoiceDefaultsObjectsAndSequences)
{
    sslat_space *s = load_text(space_json(
        "\"cn_c16\", {\"choice\": [\"ir_k3_e3\", {\"op\": \"ir\", \"k\": 5, \"e\": 6, \"act\": \"hswish\"},"
        " [\"ir_k3_e3\", \"ir_k3_e3\"], \"cn_k1_nre\"], \"c\": 24, \"s\": 2, \"act\": \"relu6\"}"));
    ASSERT_NE(s, nullptr);
    const sslat_layer *block = sslat_space_block_layer(s, 0);
    ASSERT_EQ(block->n_candidates, 4);
    EXPECT_EQ(block->candidates[0].graph.nodes[2].params.act, SSLAT_ACT_RELU6);  // default act
    EXPECT_EQ(block->candidates[1].graph.nodes[2].params.act, SSLAT_ACT_HSWISH);  // its own
    EXPECT_STREQ(block->candidates[1].label, "ir_k5_e6_nhs");
    EXPECT_STREQ(block->candidates[2].label, "ir_k3_e3+ir_k3_e3");
    // a sequence: stride on its first element only, channels on both, residual on the second
    const sslat_graph &seq = block->candidates[2].graph;
    EXPECT_EQ(seq.nodes[3].params.conv.stride, 2);
    EXPECT_EQ(seq.nodes[11].params.conv.stride, 1);
    EXPECT_EQ(seq.nodes[seq.count - 1].op, SSLAT_OP_ADD);
    for (int c = 0; c < 4; c++) EXPECT_EQ(sslat_graph_output(&block->candidates[c].graph).c, 24);
    sslat_space_free(s);
}

TEST(Loader, ChoiceLabelsNameTheCandidatesAndLeaveTheHash)
{
    std::string plain = space_json("\"cn_c16\", {\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16}");
    std::string labelled = space_json(
        "\"cn_c16\", {\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16, \"labels\": [\"mb3:small\", \"none\"]}");
    sslat_space *a = load_text(plain);
    sslat_space *b = load_text(labelled);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_STREQ(sslat_space_block_layer(a, 0)->candidates[0].label, "ir_k3_e3");
    EXPECT_STREQ(sslat_space_block_layer(b, 0)->candidates[0].label, "mb3:small");
    EXPECT_STREQ(sslat_space_block_layer(b, 0)->candidates[1].label, "none");
    // labels are names only: the same network, the same hash, so tables attach either way
    EXPECT_EQ(sslat_space_hash(a), sslat_space_hash(b));
    sslat_space_free(a);
    sslat_space_free(b);
}

TEST(Loader, SamePaddingFromObjectsAndTokensWithItsOwnHash)
{
    sslat_space *a = load_text(space_json("{\"op\": \"conv\", \"k\": 3, \"s\": 2, \"c\": 8, \"p\": \"same\"}"));
    sslat_space *b = load_text(space_json("\"conv_k3_s2_c8_psame\""));
    sslat_space *symmetric = load_text(space_json("\"conv_k3_s2_c8_p1\""));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(symmetric, nullptr);
    EXPECT_STREQ(fixed_layer(a, 0).nodes[0].params.conv.same ? "same" : "", "same");
    EXPECT_STREQ(a->layers[0].name, "conv_k3_s2_c8_psame");  // the label names it, and parses back
    EXPECT_EQ(sslat_space_hash(a), sslat_space_hash(b));
    EXPECT_EQ(sslat_graph_output(&fixed_layer(a, 0)).h, 16);  // 32 → 16 either way,
    EXPECT_NE(sslat_space_hash(a), sslat_space_hash(symmetric));  // but the network differs
    sslat_space_free(a);
    sslat_space_free(b);
    sslat_space_free(symmetric);
}

// LayerNorm's epsilon and a linear layer without bias: parsed from tokens and
// objects alike, into the nodes, and hashed apart (timm's 1e-6 as it always was).
TEST(Loader, LayerNormEpsilonAndALinearWithoutBiasHashApart)
{
    sslat_space *plain = load_text(space_json("\"tokens\", \"ln\", \"fc8\""));
    sslat_space *same = load_text(space_json("\"tokens\", \"ln_eps1e-06\", \"fc8\""));
    sslat_space *eps = load_text(space_json("\"tokens\", {\"op\": \"ln\", \"eps\": 1e-5}, \"fc8\""));
    sslat_space *nobias = load_text(space_json("\"tokens\", \"ln\", {\"op\": \"fc\", \"c\": 8, \"nobias\": true}"));
    ASSERT_TRUE(plain && same && eps && nobias);
    EXPECT_EQ(sslat_space_hash(plain), sslat_space_hash(same));
    EXPECT_NE(sslat_space_hash(plain), sslat_space_hash(eps));
    EXPECT_NE(sslat_space_hash(plain), sslat_space_hash(nobias));
    EXPECT_FLOAT_EQ(sslat_node_layernorm_eps(&fixed_layer(eps, 1).nodes[0]), 1e-5f);
    EXPECT_FLOAT_EQ(sslat_node_layernorm_eps(&fixed_layer(plain, 1).nodes[0]), 1e-6f);
    EXPECT_TRUE(fixed_layer(plain, 2).nodes[0].params.linear.bias);
    EXPECT_FALSE(fixed_layer(nobias, 2).nodes[0].params.linear.bias);
    EXPECT_STREQ(eps->layers[1].name, "ln_eps1e-05");
    EXPECT_STREQ(nobias->layers[2].name, "fc8_nobias");
    // 3·8 weights (the input has 3 channels) and no bias
    EXPECT_EQ(sslat_node_param_count(&fixed_layer(nobias, 2), &fixed_layer(nobias, 2).nodes[0]), 3 * 8);
    for (sslat_space *s : {plain, same, eps, nobias}) sslat_space_free(s);
}

TEST(Loader, ArchNameHashAndOverrides)
{
    std::string text = space_json(
        "\"cn_c16\", {\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\", \"skip\"], \"c\": 16}",
        ", \"name\": \"tiny\", \"arch\": [2]");
    sslat_space *a = load_text(text);
    sslat_space *b = load_text(text);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_STREQ(sslat_space_name(a), "tiny");
    int32_t arch[4] = {-1, -1, -1, -1};
    EXPECT_EQ(sslat_space_arch(a, arch, 4), 1);
    EXPECT_EQ(arch[0], 2);
    EXPECT_EQ(sslat_space_hash(a), sslat_space_hash(b));
    EXPECT_DOUBLE_EQ(sslat_space_architecture_count(a), 3.0);
    sslat_space_options options = {8, 64, 48};
    sslat_space *big = load_text(text, &options);
    ASSERT_NE(big, nullptr);
    int32_t nchw[4];
    sslat_space_input_shape(big, nchw);
    EXPECT_EQ(nchw[0], 8);
    EXPECT_EQ(nchw[2], 64);
    EXPECT_EQ(nchw[3], 48);
    EXPECT_EQ(sslat_graph_output(&fixed_layer(big, 0)).n, 8);
    EXPECT_NE(sslat_space_hash(a), sslat_space_hash(big));
    sslat_space_free(a);
    sslat_space_free(b);
    sslat_space_free(big);
    sslat_space_free(nullptr);  // allowed
}

TEST(Loader, ArchitectureCountIsExact)
{
    std::string layers = "\"cn_c16\"";
    for (int i = 0; i < 30; i++)
        layers += ", {\"choice\": [\"ir_k3_e3\", \"ir_k5_e3\", \"ir_k7_e3\", \"skip\", \"ir_k3_e6\", "
                  "\"ir_k5_e6\", \"ir_k7_e6\"], \"c\": 16}";
    sslat_space *s = load_text(space_json(layers));
    ASSERT_NE(s, nullptr);
    char text[64];
    size_t length = sslat_space_architecture_count_string(s, text, sizeof text);
    EXPECT_STREQ(text, "22539340290692258087863249");  // 7^30
    EXPECT_EQ(length, 26u);
    char small[8];
    EXPECT_EQ(sslat_space_architecture_count_string(s, small, sizeof small), 26u);  // snprintf-like
    EXPECT_EQ(strlen(small), 7u);
    sslat_space_free(s);
}

TEST(Loader, DefaultSpaceIsTheShippedMobileNetV2Space)
{
    sslat_space *builtin = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_default(nullptr, &builtin, &err), SSLAT_OK) << err.message;
    sslat_space *file = load_example("mobilenet_v2_space.json");
    ASSERT_NE(file, nullptr);
    EXPECT_EQ(sslat_space_hash(builtin), sslat_space_hash(file));
    EXPECT_EQ(sslat_space_block_count(builtin), 16);
    sslat_space_free(builtin);
    sslat_space_free(file);
}

TEST(Loader, MissingFileIsAnIoError)
{
    sslat_space *s = reinterpret_cast<sslat_space *>(0x1);
    sslat_error err;
    EXPECT_EQ(sslat_space_load_file("/nonexistent/space.json", nullptr, &s, &err), SSLAT_ERR_IO);
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(std::string(err.message).find("/nonexistent/space.json"), std::string::npos);
    EXPECT_EQ(sslat_space_load_file("/tmp", nullptr, &s, &err), SSLAT_ERR_IO) << err.message;
    EXPECT_EQ(sslat_space_load_string(nullptr, 0, "x", nullptr, &s, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(sslat_status_string(SSLAT_ERR_SPACE), "search space invalid or not the table's");
}

}  // namespace
