// sslat's MAC figures against what the reference tools report for the same models.
//
// Library figures: printed by tests/reference/count_reference.py with torch 2.15.0,
// torchvision 0.29.2, thop 0.1.1-2209072238, fvcore 0.1.5.post20221221, pthflops 0.4.2
// (thop.profile, FlopCountAnalysis(model.eval(), x).total(), count_ops(mode="fx")),
// on torchvision's models at 1x3x224x224 and on the Probe module at 2x3x32x32.
// Published figures: torchvision's model table (GFLOPS column = conv + linear MACs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
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
};

double count(const sslat_space *space, const char *rule)
{
    double constant = 0;
    sslat_error err;
    EXPECT_EQ(sslat_mac_count(space, rule, nullptr, &constant, nullptr, 0, &err), SSLAT_OK)
        << err.message;
    return constant * 1e6;
}

TEST(MacReference, TorchvisionPublishedFiguresWithinHalfAPercent)
{
    for (const Reference &r : REFERENCES) {
        sslat_space *space = load_example(r.file);
        ASSERT_NE(space, nullptr);
        double gmacs = count(space, "mac") / 1e9;
        EXPECT_NEAR(gmacs, r.published_gmacs, 0.005 * r.published_gmacs) << r.file;
        EXPECT_NEAR(params_of(space) / 1e6, r.published_mparams, 0.005 * r.published_mparams);
        EXPECT_EQ(params_of(space), r.params) << r.file << ": exact parameter count";
        sslat_space_free(space);
    }
}

TEST(MacReference, ResNetsEqualThopFvcoreAndPthflopsExactly)
{
    for (const Reference &r : REFERENCES) {
        sslat_space *space = load_example(r.file);
        ASSERT_NE(space, nullptr);
        EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), r.fvcore) << r.file;
        if (std::string(r.file) != "mobilenet_v2.json") {
            EXPECT_DOUBLE_EQ(count(space, "mac_thop"), r.thop) << r.file;
            EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), r.pthflops) << r.file;
        }
        sslat_space_free(space);
    }
}

TEST(MacReference, MobileNetV2DiffersOnlyByTorchvisionsFunctionalPooling)
{
    // torchvision's MobileNetV2.forward pools with nn.functional.adaptive_avg_pool2d, which
    // thop's module hooks and pthflops' FX call_function table do not see; sslat counts the
    // global pool as the module form. The whole difference is that one op on 1x1280x7x7:
    sslat_space *space = load_example("mobilenet_v2.json");
    ASSERT_NE(space, nullptr);
    const double thop_gap = (7 * 7 + 1) * 1280;  // (Hi·Wi + 1)·Nout
    const double pthflops_gap = 7 * 7 * 1280;    // Hi·Wi·Nout
    EXPECT_DOUBLE_EQ(count(space, "mac_thop"), REFERENCES[2].thop + thop_gap);
    EXPECT_DOUBLE_EQ(count(space, "mac_pthflops"), REFERENCES[2].pthflops + pthflops_gap);
    EXPECT_DOUBLE_EQ(count(space, "mac_fvcore"), REFERENCES[2].fvcore);  // fvcore traces aten ops
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
        EXPECT_NEAR(sum * 1e6, count(fixed, rule), 1e-3) << rule;
    }
    sslat_space_free(space);
    sslat_space_free(fixed);
}

}  // namespace
