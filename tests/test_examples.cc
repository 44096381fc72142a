// Every shipped example loads, with the structure its original paper / code has.
#include <gtest/gtest.h>

#include <string>

#include "helpers.h"

extern "C" {
#include "ir/space.h"
}

namespace {

struct Example {
    const char *file;
    int32_t blocks;
    const char *architectures;  // exact count
    int32_t out_features;
};

TEST(Examples, EveryExampleLoadsWithItsArchitectureCount)
{
    const Example examples[] = {
        {"mobilenet_v2.json", 0, "1", 1000},
        {"resnet18.json", 0, "1", 1000},
        {"resnet50.json", 0, "1", 1000},
        {"mobilenet_v2_space.json", 16, "13179165217344", 1000},      // 6^6 · 7^10
        {"proxylessnas.json", 21, "221502229807900608", 1000},        // 6^6 · 7^15
        {"ofa_mobilenet_v3.json", 20, "34867844010000000000", 1000},  // (9² · 10²)^5
        {"fbnet.json", 22, "984770902183611232881", 1000},            // 9^22
        {"yolov5s_ss.json", 8, "429981696", 255},                     // 12^8; the head's last scale
        {"yolov5s.json", 0, "1", 255},
        {"autoformer_tiny.json", 14, "419430400", 1000},              // 4^12 · 5^2
        {"hybrid_vit.json", 11, "20000000", 1000},                    // 4^4 · 5^7
        {"convnext_atto.json", 12, "16777216", 1000},                 // 4^12
    };
    for (const Example &e : examples) {
        sslat_space *space = load_example(e.file);
        ASSERT_NE(space, nullptr) << e.file;
        EXPECT_EQ(sslat_space_block_count(space), e.blocks) << e.file;
        char count[64];
        sslat_space_architecture_count_string(space, count, sizeof count);
        EXPECT_STREQ(count, e.architectures) << e.file;
        const sslat_layer &last = space->layers[space->n_layers - 1];
        EXPECT_EQ(sslat_graph_output(&last.candidates[0].graph).c, e.out_features) << e.file;
        sslat_space_free(space);
    }
}

TEST(Examples, FBNetHasNineOpsPerLayerWithGroupedAndSkipVariants)
{
    sslat_space *space = load_example("fbnet.json");
    ASSERT_NE(space, nullptr);
    int shuffles = 0;
    for (int32_t b = 0; b < 22; b++) {
        const sslat_layer *layer = sslat_space_block_layer(space, b);
        ASSERT_EQ(layer->n_candidates, 9);
        EXPECT_STREQ(layer->candidates[1].label, "ir_k3_e1_g2");
        for (int32_t c = 0; c < 9; c++)
            for (int32_t n = 0; n < layer->candidates[c].graph.count; n++)
                shuffles += layer->candidates[c].graph.nodes[n].op == SSLAT_OP_CHANNEL_SHUFFLE;
    }
    EXPECT_EQ(shuffles, 22 * 2);  // the two g2 candidates of each layer
    // the last layer (184 → 352) has FBNet's projection instead of an identity skip
    EXPECT_STREQ(sslat_space_block_layer(space, 21)->candidates[8].label, "cn_k1_nre");
    EXPECT_STREQ(sslat_space_block_layer(space, 0)->candidates[8].label, "skip");
    sslat_space_free(space);
}

TEST(Examples, OFAMobileNetV3HasSqueezeExciteWhereTheOriginalDoes)
{
    sslat_space *space = load_example("ofa_mobilenet_v3.json");
    ASSERT_NE(space, nullptr);
    const bool se_stage[5] = {false, true, false, true, true};
    for (int32_t b = 0; b < 20; b++) {
        const sslat_layer *layer = sslat_space_block_layer(space, b);
        EXPECT_EQ(layer->n_candidates, (b % 4) >= 2 ? 10 : 9) << "slot " << b;
        const sslat_graph &g = layer->candidates[0].graph;
        bool has_se = false;
        for (int32_t n = 0; n < g.count; n++) {
            if (g.nodes[n].op != SSLAT_OP_MUL_CHANNEL) continue;
            has_se = true;
            EXPECT_EQ(g.nodes[n - 1].params.act, SSLAT_ACT_HSIGMOID);
        }
        EXPECT_EQ(has_se, se_stage[b / 4]) << "slot " << b;
    }
    sslat_space_free(space);
}

}  // namespace

// The transformer and ConvNeXt examples through every MAC rule (the timed calculators: the
// cpu and stand-in cuda tests list them with the other examples).
TEST(Examples, TheTransformerExamplesBuildEveryMacTable)
{
    for (const char *file : {"autoformer_tiny.json", "hybrid_vit.json", "convnext_atto.json"}) {
        sslat_space *space = load_example(file);
        ASSERT_NE(space, nullptr) << file;
        double plain = 0;
        for (const char *rule : {"mac", "mac_thop", "mac_fvcore", "mac_pthflops"}) {
            sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
            sslat_container *table = nullptr;
            sslat_error err;
            ASSERT_EQ(sslat_initialize_latency(rule, space, nullptr, &options, &table, &err), SSLAT_OK)
                << file << " " << rule << ": " << err.message;
            EXPECT_EQ(sslat_container_block_count(table), sslat_space_block_count(space)) << file << " " << rule;
            double constant = sslat_container_constant_latency(table);
            EXPECT_GT(constant, 0) << file << " " << rule;
            if (std::string(rule) == "mac") plain = constant;
            else if (std::string(rule) == "mac_thop") EXPECT_GT(constant, plain) << "thop adds the LayerNorms";
            /* the table belongs to the space (replaced by the next rule's) */
        }
        sslat_space_free(space);
    }
}
