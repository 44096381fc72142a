// Subgraphs chained into one network (whole-architecture runs).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "helpers.h"

extern "C" {
#include "ir/space.h"
}

namespace {

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
