// sslat's MAC figures against what the reference tools report for the same models.
//
// Library figures: printed by tests/reference/count_reference.py with torch 2.15.0,
// torchvision 0.29.2, thop 0.1.1-2209072238, fvcore 0.1.5.post20221221, pthflops 0.4.2
// (thop.profile, FlopCountAnalysis(model.eval(), x).total(), count_ops(mode="fx")),
// on torchvision's models at 1x3x224x224 and on the Probe module at 2x3x32x32; "fused"
// figures on the models after torch.fx.experimental.optimization.fuse (BN folded).
// Published figures: torchvision's model table (GFLOPS column = conv + linear MACs).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
#include "calc/mac.h"
#include "ir/graph.h"
#include "ir/space.h"
}

namespace {

// Parameters of a fixed network (every layer's one candidate).
double params_of(const sslat_space *space)
{
    double total = 0;
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_graph &g = space->layers[i].candidates[0].graph;
        for (int32_t n = 0; n < g.count; n++) total += (double)sslat_node_param_count(&g, &g.nodes[n]);
    }
    return total;
}

struct Reference {
    const char *file;
    double params;
    double thop, fvcore, pthflops;  // raw counts reported by the libraries
    double published_gmacs, published_mparams;
};

const Reference REFERENCES[] = {
    {"resnet18.json", 11689512, 1824033792, 1819065856, 1826793960, 1.81, 11.69},
    {"resnet50.json", 25557032, 4133742592, 4111512576, 4143375336, 4.09, 25.56},
    {"mobilenet_v2.json", 3504872, 327486720, 314193216, 314564264, 0.30, 3.50},
    {"efficientnet_b0.json", 5288548, 415145024, 401659392, 406703012, 0.39, 5.29},
    {"mobilenet_v3_large.json", 5483032, 234838456, 226033824, 232713504, 0.22, 5.48},
    {"mnasnet1_0.json", 4383312, 336242432, 325329152, 335509608, 0.31, 4.38},
    // pthflops 0.4.2 cannot count it (its FX tracer fails on x.size() in channel_shuffle): NAN
    {"shufflenet_v2_x1_0.json", 2278604, 152708792, 148808392, NAN, 0.14, 2.28},
};

// The same networks with every BN folded into its conv (torch.fx's fuse), counted by the
// libraries, against sslat's --fuse-bn.
struct FusedReference {
    const char *file;
    double thop, fvcore, pthflops;
};

const FusedReference FUSED[] = {
    {"resnet18.json", 1814098944, 1814098432, 1824310248},
    {"mobilenet_v2.json", 300774272, 300836992, 307886152},
    {"efficientnet_b0.json", 388194240, 388184000, 399965316},
};

double count(const sslat_space *space, const char *rule)
{
    double constant = 0;
    sslat_error err;
    EXPECT_EQ(sslat_mac_count(space, rule, nullptr, &constant, nullptr, 0, &err), SSLAT_OK)
        << err.message;
    return constant * 1e6;
}

// A fixed network's count with BN folded (every layer is constant).
double count_fused(const sslat_space *space, sslat_mac_rule rule)
{
    double total = 0;
    for (int32_t i = 0; i < space->n_layers; i++)
        total += sslat_mac_graph(&space->layers[i].candidates[0].graph, rule, nullptr, true);
    return total;
}

TEST(MacReference, TorchvisionPublishedFiguresRoundToTheTable)
{
    // the table prints two decimals: 0.3858 GMACs is its "0.39"
    for (const Reference &r : REFERENCES) {
        sslat_space *space = load_example(r.file);
        ASSERT_NE(space, nullptr);
        double gmacs = count(space, "mac") / 1e9;
        EXPECT_NEAR(gmacs, r.published_gmacs, 0.005) << r.file;
        EXPECT_NEAR(params_of(space) / 1e6, r.published_mparams, 0.005) << r.file;
        EXPECT_EQ(params_of(space), r.params) << r.file << ": exact parameter count";
        sslat_space_free(space);
    }
}

TEST(MacReference, EveryFixedNetworkEqualsThopFvcoreAndPthflopsExactly)
{
    for (const Reference &r : REFERENCES) {
        sslat_space *space = load_example(r.file);
        ASSERT_NE(space, nullptr);
        EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), r.fvcore) << r.file;
        EXPECT_DOUBLE_EQ(count(space, "mac_thop"), r.thop) << r.file;
        if (!std::isnan(r.pthflops)) EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), r.pthflops) << r.file;
        sslat_space_free(space);
    }
}

TEST(MacReference, FusedBatchNormEqualsTheLibrariesOnTheFusedModel)
{
    for (const FusedReference &r : FUSED) {
        sslat_space *space = load_example(r.file);
        ASSERT_NE(space, nullptr);
        EXPECT_DOUBLE_EQ(count_fused(space, SSLAT_MAC_THOP), r.thop) << r.file;
        EXPECT_DOUBLE_EQ(count_fused(space, SSLAT_MAC_FVCORE), r.fvcore) << r.file;
        EXPECT_DOUBLE_EQ(count_fused(space, SSLAT_MAC_PTHFLOPS), r.pthflops) << r.file;
        // folding removes BN's count only: conv and linear MACs stay
        EXPECT_DOUBLE_EQ(count_fused(space, SSLAT_MAC_PLAIN), count(space, "mac")) << r.file;
        sslat_space_free(space);
    }
}

TEST(MacReference, TheWayAModelPoolsDecidesWhatALibrarySees)
{
    // torchvision's MobileNetV2 pools with F.adaptive_avg_pool2d (gap_fn), MNASNet with
    // x.mean([2, 3]) (gap_mean): thop and pthflops see neither, fvcore sees the first
    // (aten::adaptive_avg_pool2d) but not aten::mean. On 1x1280x7x7:
    for (const char *form : {"gap", "gap_fn", "gap_mean"}) {
        std::string json = std::string("{\"sslat\": 1, \"input\": {\"shape\": [1280, 7, 7]}, \"layers\": [\"") +
                           form + "\"]}";
        sslat_space *one = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_space_load_string(json.c_str(), json.size(), form, nullptr, &one, &err), SSLAT_OK)
            << err.message;
        bool module = std::string(form) == "gap", mean = std::string(form) == "gap_mean";
        EXPECT_DOUBLE_EQ(count(one, "mac_thop"), module ? (7 * 7 + 1) * 1280 : 0) << form;
        EXPECT_DOUBLE_EQ(count(one, "mac_pthflops"), module ? 7 * 7 * 1280 : 0) << form;
        EXPECT_DOUBLE_EQ(count(one, "mac_fvcore"), mean ? 0 : 7 * 7 * 1280) << form;
        sslat_space_free(one);
    }
}

TEST(MacReference, NearestUpsamplingCountsAsTheLibraries)
{
    // count_reference.py's "upsample" model: Conv(8, 8, 3) → nn.Upsample(2, nearest) → Conv(8, 4, 1)
    // at 1x8x10x10: thop's count_upsample and fvcore's aten::upsample_nearest2d count the 3,200
    // output elements, pthflops nothing
    std::string json = "{\"sslat\": 1, \"input\": {\"shape\": [8, 10, 10]}, "
                       "\"layers\": [\"conv_k3_c8\", \"upsample\", \"conv_k1_c4\"]}";
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_string(json.c_str(), json.size(), "upsample", nullptr, &space, &err), SSLAT_OK)
        << err.message;
    EXPECT_DOUBLE_EQ(count(space, "mac_thop"), 73600);
    EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), 73600);
    EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), 70400);
    sslat_space_free(space);
}

TEST(MacReference, YoloFocusCountsAsTheLibraries)
{
    // count_reference.py's Focus: cat of the four pixel phases → Conv(12, 32, 3) → BN → SiLU on
    // 1x3x64x64; the slicing and the cat count nothing anywhere
    std::string json = "{\"sslat\": 1, \"input\": {\"shape\": [3, 64, 64]}, \"layers\": [\"focus_k3_c32_nsw\"]}";
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_string(json.c_str(), json.size(), "focus", nullptr, &space, &err), SSLAT_OK)
        << err.message;
    EXPECT_EQ(params_of(space), 3520);
    EXPECT_DOUBLE_EQ(count(space, "mac_thop"), 3670016);
    EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), 3604480);
    EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), 3604480);
    sslat_space_free(space);
}

TEST(MacReference, ProbeModuleEqualsAllThreeLibraries)
{
    // tests/data/probe.json is the twin of Probe in count_reference.py: conv with bias, bn,
    // relu, maxpool, avgpool, MBConv with hswish, SE (x * s, hsigmoid), residual x + y, fc.
    sslat_space *space = nullptr;
    sslat_error err;
    std::string path = std::string(SSLAT_TEST_DATA_DIR) + "/probe.json";
    ASSERT_EQ(sslat_space_load_file(path.c_str(), nullptr, &space, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(params_of(space), 2674);
    EXPECT_DOUBLE_EQ(count(space, "mac_thop"), 1234336);
    EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), 1146176);
    EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), 1330618);
    sslat_space_free(space);
}

TEST(MacReference, SpaceArchitectureEqualsTheFixedNetwork)
{
    // mobilenet_v2_space's arch picks ir_k3_e6 everywhere: torchvision's mobilenet_v2.
    sslat_space *space = load_example("mobilenet_v2_space.json");
    sslat_space *fixed = load_example("mobilenet_v2.json");
    ASSERT_NE(space, nullptr);
    ASSERT_NE(fixed, nullptr);
    int32_t arch[64];
    int32_t blocks = sslat_space_arch(space, arch, 64);
    ASSERT_EQ(blocks, 16);
    size_t total = 0;
    for (int32_t b = 0; b < blocks; b++) total += sslat_space_candidate_count(space, b);
    for (const char *rule : {"mac", "mac_thop", "mac_fvcore", "mac_pthflops"}) {
        std::vector<double> per_op(total);
        double constant = 0;
        sslat_error err;
        ASSERT_EQ(sslat_mac_count(space, rule, nullptr, &constant, per_op.data(), total, &err), SSLAT_OK);
        double sum = constant;
        size_t offset = 0;
        for (int32_t b = 0; b < blocks; b++) {
            sum += per_op[offset + arch[b]];
            offset += sslat_space_candidate_count(space, b);
        }
        // the space pools with the module, torchvision's network with F.adaptive_avg_pool2d:
        // thop and pthflops see only the module (1x1280x7x7)
        double module_gap = !strcmp(rule, "mac_thop")       ? (7 * 7 + 1) * 1280
                            : !strcmp(rule, "mac_pthflops") ? 7 * 7 * 1280
                                                            : 0;
        EXPECT_NEAR(sum * 1e6, count(fixed, rule) + module_gap, 1e-3) << rule;
    }
    sslat_space_free(space);
    sslat_space_free(fixed);
}

}  // namespace
