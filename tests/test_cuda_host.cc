// Host-side logic of the cuda backend, which needs no GPU: device choice from
// the environment, copies per replay, and the plan of library calls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" {
#include "cuda/cuda_env.h"
#include "cuda/cuda_plan.h"
#include "ir/space.h"
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

