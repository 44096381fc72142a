// Subgraphs: building, hashing and parameter counts, and subgraphs chained
// into one network (whole-architecture runs).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "helpers.h"

extern "C" {
#include "ir/graph.h"
#include "ir/space.h"
}

namespace {

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

TEST(Graph, TokensHashApartFromAnImageOfTheSameNumbers)
{
    // tokens N×L×C keep L in h and 1 in w: an image N×C×L×1 has the same four numbers
    sslat_graph image, tokens;
    sslat_graph_init(&image, {1, 8, 16, 1, false});
    sslat_graph_init(&tokens, {1, 8, 16, 1, true});
    sslat_error err;
    sslat_op_params act = {.act = SSLAT_ACT_GELU};
    ASSERT_EQ(sslat_graph_add(&image, SSLAT_OP_ACT, &act, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, "act", nullptr, &err), SSLAT_OK);
    ASSERT_EQ(sslat_graph_add(&tokens, SSLAT_OP_ACT, &act, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, "act", nullptr, &err), SSLAT_OK);
    EXPECT_NE(sslat_graph_hash(&image), sslat_graph_hash(&tokens));
    EXPECT_TRUE(sslat_graph_output(&tokens).tokens);
    sslat_graph_release(&image);
    sslat_graph_release(&tokens);
}

TEST(Graph, AttentionChecksItsPackedInputAndCountsNoParameters)
{
    sslat_graph g;
    sslat_graph_init(&g, {2, 36, 10, 1, true}); // q|k|v of 3 heads × 4 channels
    sslat_op_params p;
    memset(&p, 0, sizeof p);
    p.attention = {3, 4, SSLAT_ATTENTION_FUSED};
    sslat_error err;
    int32_t at = -1;
    ASSERT_EQ(sslat_graph_add(&g, SSLAT_OP_ATTENTION, &p, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, "attn", &at, &err), SSLAT_OK)
        << err.message;
    EXPECT_EQ(sslat_graph_output(&g).c, 12);
    EXPECT_EQ(sslat_graph_output(&g).h, 10);
    EXPECT_EQ(sslat_node_param_count(&g, &g.nodes[at]), 0);
    p.attention = {5, 4, SSLAT_ATTENTION_FUSED};
    EXPECT_EQ(sslat_graph_add(&g, SSLAT_OP_ATTENTION, &p, SSLAT_GRAPH_INPUT, SSLAT_NO_INPUT, "attn2", nullptr, &err),
              SSLAT_ERR_SPACE);
    EXPECT_NE(strstr(err.message, "attention 'attn2': its input of 36 channels is not q|k|v of 5 heads × 4 channels"),
              nullptr) << err.message;
    sslat_graph_release(&g);
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


TEST(GraphAppend, ChainsSubgraphsWithRenumberedInputs)
{
    sslat_space *space = load_example("proxylessnas.json");
    ASSERT_NE(space, nullptr);
    sslat_graph whole;
    sslat_graph_init(&whole, space->input);
    sslat_error err;
    int32_t expected = 0;
    for (int32_t i = 0; i < 4; i++) {
        const sslat_graph *g = &space->layers[i].candidates[0].graph;
        int32_t base = whole.count, previous = sslat_graph_output_index(&whole);
        ASSERT_EQ(sslat_graph_append(&whole, g, &err), SSLAT_OK) << err.message;
        for (int32_t k = 0; k < g->count; k++) {
            const sslat_node &n = whole.nodes[base + k];
            EXPECT_EQ(n.op, g->nodes[k].op);
            int32_t want = g->nodes[k].input[0] == SSLAT_GRAPH_INPUT ? previous : g->nodes[k].input[0] + base;
            EXPECT_EQ(n.input[0], want);
        }
        expected += g->count;
    }
    EXPECT_EQ(whole.count, expected);
    sslat_shape last = sslat_graph_output(&space->layers[3].candidates[0].graph);
    sslat_shape out = sslat_graph_output(&whole);
    EXPECT_EQ(memcmp(&last, &out, sizeof out), 0);
    // a subgraph whose input is not the chain's output is refused
    EXPECT_EQ(sslat_graph_append(&whole, &space->layers[0].candidates[0].graph, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("cannot chain"), std::string::npos) << err.message;
    sslat_graph_release(&whole);
    sslat_space_free(space);
}

} // namespace
