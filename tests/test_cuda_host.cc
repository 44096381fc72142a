// Host-side logic of the cuda backend, which needs no GPU: device choice from
// the environment, copies per replay, and the plan of library calls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" {
#include "cuda_env.h"
#include "cuda_plan.h"
#include "space.h"
}

namespace {

void clear_rank_variables()
{
    unsetenv("LOCAL_RANK");
    unsetenv("SLURM_LOCALID");
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
}

TEST(CudaDevice, ExplicitThenLocalRankVariablesThenZero)
{
    clear_rank_variables();
    sslat_device_choice c;
    sslat_error err;
    ASSERT_EQ(sslat_choose_device(-1, 8, &c, &err), SSLAT_OK);
    EXPECT_EQ(c.device, 0);
    EXPECT_STREQ(c.source, "default");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5", 1);
    ASSERT_EQ(sslat_choose_device(-1, 4, &c, &err), SSLAT_OK);
    EXPECT_EQ(c.device, 1); // 5 mod 4
    EXPECT_STREQ(c.source, "OMPI_COMM_WORLD_LOCAL_RANK=5 modulo 4");
    setenv("SLURM_LOCALID", "2", 1); // read before Open MPI's
    ASSERT_EQ(sslat_choose_device(-1, 4, &c, &err), SSLAT_OK);
    EXPECT_EQ(c.device, 2);
    setenv("LOCAL_RANK", "11", 1); // torchrun's, read first
    ASSERT_EQ(sslat_choose_device(-1, 8, &c, &err), SSLAT_OK);
    EXPECT_EQ(c.device, 3);
    ASSERT_EQ(sslat_choose_device(6, 8, &c, &err), SSLAT_OK); // --device wins
    EXPECT_EQ(c.device, 6);
    EXPECT_STREQ(c.source, "--device");
    clear_rank_variables();
}

TEST(CudaDevice, ClearErrors)
{
    clear_rank_variables();
    sslat_device_choice c;
    sslat_error err;
    EXPECT_EQ(sslat_choose_device(-1, 0, &c, &err), SSLAT_ERR_NO_DEVICE);
    EXPECT_NE(std::string(err.message).find("no CUDA device"), std::string::npos);
    EXPECT_EQ(sslat_choose_device(2, 2, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("2 CUDA devices (0..1)"), std::string::npos);
    setenv("LOCAL_RANK", "two", 1);
    EXPECT_EQ(sslat_choose_device(-1, 2, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("LOCAL_RANK='two'"), std::string::npos);
    clear_rank_variables();
}

TEST(CudaCopies, LongEnoughReplayAndFootprintPastTwiceL2)
{
    const size_t MB = 1 << 20, l2 = 60 * MB, memory = 100000 * MB;
    // a 10 µs op with a 1 MB footprint: time needs 20 copies, the cache 121
    EXPECT_EQ(sslat_cuda_copies(0.010, MB, l2, memory, 0.2, 1024), 121);
    // a 1 µs op with 100 MB: the cache needs 2, time 200
    EXPECT_EQ(sslat_cuda_copies(0.001, 100 * MB, l2, memory, 0.2, 1024), 200);
    // a 5 ms op with 500 MB: one copy is enough for both
    EXPECT_EQ(sslat_cuda_copies(5.0, 500 * MB, l2, memory, 0.2, 1024), 1);
    // capped by max_copies, then by memory; never below one
    EXPECT_EQ(sslat_cuda_copies(0.0001, 1024, l2, memory, 0.2, 1024), 1024);
    EXPECT_EQ(sslat_cuda_copies(0.001, 100 * MB, l2, 1000 * MB, 0.2, 1024), 10);
    EXPECT_EQ(sslat_cuda_copies(0.001, 100 * MB, l2, 10 * MB, 0.2, 1024), 1);
}

// The plan of the first candidate of a one-block space built from tokens.
std::string plan_of(const std::string &layers, sslat_exec_mode mode, int *steps = nullptr, int *nodes = nullptr)
{
    std::string text = "{\"sslat\": 1, \"input\": {\"shape\": [32, 28, 28]}, \"layers\": [" + layers + "]}";
    sslat_space *space = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_space_load_string(text.c_str(), text.size(), "t", nullptr, &space, &err), SSLAT_OK) << err.message;
    if (!space) return "";
    const sslat_graph *g = &space->layers[0].candidates[0].graph;
    cuda_plan plan;
    EXPECT_EQ(cuda_plan_build(g, mode, &plan, &err), SSLAT_OK) << err.message;
    char buffer[1024];
    cuda_plan_describe(&plan, buffer, sizeof buffer);
    if (steps) *steps = plan.count;
    if (nodes) *nodes = g->count;
    EXPECT_EQ(plan.output, sslat_graph_output_index(g));
    cuda_plan_release(&plan);
    sslat_space_free(space);
    return buffer;
}

TEST(CudaPlan, ConvBnReluIsOneFusedCudnnCall)
{
    EXPECT_EQ(plan_of("\"cn_k3_c32_nre\"", SSLAT_MODE_FUSED), "cudnnConvolutionBiasActivationForward(relu)");
    EXPECT_EQ(plan_of("\"cn_k3_c32_nr6\"", SSLAT_MODE_FUSED), "cudnnConvolutionForward + sslat_epilogue(bias,relu6)");
}

TEST(CudaPlan, InvertedResidualFoldsBnAndMergesResidualIntoTheLastConv)
{
    EXPECT_EQ(plan_of("\"ir_k3_e6_c32_nr6\"", SSLAT_MODE_FUSED),
              "cudnnConvolutionForward + sslat_epilogue(bias,relu6); "
              "cudnnConvolutionForward + sslat_epilogue(bias,relu6); "
              "cudnnConvolutionForward + sslat_epilogue(bias,residual)");
}

TEST(CudaPlan, SqueezeExcitationUsesOwnKernels)
{
    std::string plan = plan_of("\"ir_k5_e4_c32_se0.25_nhs\"", SSLAT_MODE_FUSED);
    EXPECT_NE(plan.find("sslat_global_avgpool"), std::string::npos) << plan;
    EXPECT_NE(plan.find("sslat_mul_channel"), std::string::npos) << plan;
    EXPECT_NE(plan.find("hswish"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("cudnnBatchNormalization"), std::string::npos) << "every BN is folded: " << plan;
}

TEST(CudaPlan, EagerIsOneCallPerNode)
{
    int steps = 0, nodes = 0;
    std::string plan = plan_of("\"ir_k3_e6_c32_nr6\"", SSLAT_MODE_EAGER, &steps, &nodes);
    EXPECT_EQ(steps, nodes);
    EXPECT_NE(plan.find("cudnnBatchNormalizationForwardInference"), std::string::npos) << plan;
    EXPECT_NE(plan.find("cudnnActivationForward"), std::string::npos) << plan; // relu6 = clipped relu
    EXPECT_NE(plan.find("sslat_add"), std::string::npos) << plan;
}

TEST(CudaPlan, PoolingLinearAndShuffle)
{
    EXPECT_EQ(plan_of("\"maxpool_k3_s2\"", SSLAT_MODE_FUSED), "cudnnPoolingForward");
    EXPECT_EQ(plan_of("\"gap\", \"fc10\"", SSLAT_MODE_FUSED), "sslat_global_avgpool");
    std::string fc = plan_of("\"fc10\"", SSLAT_MODE_FUSED);
    EXPECT_NE(fc.find("cublasGemmEx + sslat_epilogue(bias)"), std::string::npos) << fc;
}

} // namespace

extern "C" {
#include "half.h"
}

namespace {

TEST(HalfConversion, KnownValuesAndRoundTrips)
{
    EXPECT_EQ(sslat_float_to_fp16(1.0f), 0x3c00);
    EXPECT_EQ(sslat_float_to_fp16(-2.0f), 0xc000);
    EXPECT_EQ(sslat_float_to_fp16(65504.0f), 0x7bff);
    EXPECT_EQ(sslat_float_to_fp16(1e6f), 0x7c00); // overflow: inf
    EXPECT_EQ(sslat_float_to_fp16(5.9604645e-8f), 0x0001); // smallest subnormal
    EXPECT_EQ(sslat_float_to_fp16(1.0f + 1.0f / 2048), 0x3c00); // tie to even: down
    EXPECT_EQ(sslat_float_to_fp16(1.0f + 3.0f / 2048), 0x3c02); // tie to even: up
    EXPECT_EQ(sslat_float_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(sslat_float_to_bf16(3.14159265f), 0x4049);
    for (float v : {0.0f, 0.5f, -0.75f, 3.0f, 1024.0f, 6.1035156e-5f}) {
        EXPECT_EQ(sslat_fp16_to_float(sslat_float_to_fp16(v)), v) << v;
        EXPECT_EQ(sslat_bf16_to_float(sslat_float_to_bf16(v)), v) << v;
    }
    // every fp16 pattern that is finite converts back to itself
    int mismatches = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if (((h >> 10) & 0x1f) == 0x1f) continue;
        mismatches += sslat_float_to_fp16(sslat_fp16_to_float((uint16_t)h)) != (uint16_t)h;
    }
    EXPECT_EQ(mismatches, 0);
}

} // namespace

#include <jansson.h>

#include "helpers.h"

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

TEST(ShowIr, EveryCandidateWithItsNodesAndShapes)
{
    std::string out = "/tmp/sslat-ir-" + std::to_string(getpid()) + ".json";
    ASSERT_EQ(std::system((std::string(SSLAT_CLI_PATH) + " show --ir " + example_path("ofa_mobilenet_v3.json") +
                           " --batch 8 > " + out).c_str()),
              0);
    json_error_t jerr;
    json_t *root = json_load_file(out.c_str(), 0, &jerr);
    ASSERT_NE(root, nullptr) << jerr.text;
    sslat_space_options options = {8, 0, 0};
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_file(example_path("ofa_mobilenet_v3.json").c_str(), &options, &space, &err), SSLAT_OK);
    json_t *layers = json_object_get(root, "layers");
    ASSERT_EQ((int32_t)json_array_size(layers), space->n_layers);
    for (int32_t i = 0; i < space->n_layers; i++) {
        json_t *candidates = json_object_get(json_array_get(layers, i), "candidates");
        ASSERT_EQ((int32_t)json_array_size(candidates), space->layers[i].n_candidates);
        for (int32_t c = 0; c < space->layers[i].n_candidates; c++) {
            const sslat_graph *g = &space->layers[i].candidates[c].graph;
            json_t *nodes = json_object_get(json_array_get(candidates, c), "nodes");
            ASSERT_EQ((int32_t)json_array_size(nodes), g->count);
            if (g->count == 0) continue;
            json_t *shape = json_object_get(json_array_get(nodes, g->count - 1), "shape");
            sslat_shape s = sslat_graph_output(g);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 0)), 8);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 1)), s.c);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 2)), s.h);
        }
    }
    json_decref(root);
    sslat_space_free(space);
    std::remove(out.c_str());
}

} // namespace
