// The cuda backend on a real GPU: every primitive against the plain-C reference
// in each dtype and layout, measurement and metadata, and the error paths.
// Every test skips (with the reason) where the cuda calculator cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

// the CUDA headers first, outside extern "C" (they hold C++ overloads)
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nvtx3/nvToolsExt.h>

#include "helpers.h"
#include "op_cases.h"

extern "C" {
#include "api/latency.h"
#include "calc/calculator.h"
#include "cuda/cuda_backend.h"
#include "ir/space.h"
#include "reference_ops.h"
}

namespace {

#define SKIP_WITHOUT_CUDA()                                                              \
    do {                                                                                 \
        const char *why = sslat_cuda_calculator.unavailable_reason();                    \
        if (why) GTEST_SKIP() << "cuda calculator cannot run here: " << why;             \
    } while (0)

struct Variant {
    sslat_dtype dtype;
    sslat_layout layout;
    double bound; // normalised error allowed
};

const Variant VARIANTS[] = {
    {SSLAT_DTYPE_FP32, SSLAT_LAYOUT_NCHW, 1e-4}, {SSLAT_DTYPE_FP32, SSLAT_LAYOUT_NHWC, 1e-4},
    {SSLAT_DTYPE_TF32, SSLAT_LAYOUT_NCHW, 5e-3}, {SSLAT_DTYPE_FP16, SSLAT_LAYOUT_NHWC, 1e-2},
    {SSLAT_DTYPE_BF16, SSLAT_LAYOUT_NHWC, 5e-2},
};

class GpuOps : public ::testing::TestWithParam<OpCase> {
  protected:
    void SetUp() override
    {
        SKIP_WITHOUT_CUDA();
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        sslat_error err;
        ASSERT_EQ(cuda_session_open(&session, &o, &err), SSLAT_OK) << err.message;
        opened = true;
    }
    void TearDown() override
    {
        if (opened) cuda_session_close(&session);
    }
    cuda_session session = {};
    bool opened = false;
};

TEST_P(GpuOps, MatchesTheReferenceInEveryDtypeAndLayout)
{
    const OpCase &c = GetParam();
    sslat_space *space = load_text(space_json(c.layers, "", std::string("{\"shape\": ") + c.input + ", \"batch\": 2}"));
    ASSERT_NE(space, nullptr);
    std::vector<const sslat_graph *> graphs;
    sslat_graph whole;
    sslat_graph_init(&whole, space->input);
    sslat_error err;
    for (int32_t i = 0; i < space->n_layers; i++) {
        graphs.push_back(&space->layers[i].candidates[0].graph);
        ASSERT_EQ(sslat_graph_append(&whole, graphs.back(), &err), SSLAT_OK) << err.message;
    }
    const uint64_t seed = 1234;
    float *expected = reference_run(graphs.data(), (int)graphs.size(), seed);
    ASSERT_NE(expected, nullptr);
    size_t n = (size_t)sslat_shape_elements(sslat_graph_output(&whole));
    for (const Variant &v : VARIANTS)
        for (sslat_exec_mode mode : {SSLAT_MODE_EAGER, SSLAT_MODE_FUSED}) {
            sslat_calc_options o;
            sslat_calc_options_default(&o);
            o.seed = seed, o.dtype = v.dtype, o.layout = v.layout, o.mode = mode;
            cuda_program p;
            ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
            ASSERT_EQ(cuda_program_choose_algorithms(&p, &err), SSLAT_OK) << err.message;
            ASSERT_EQ(cuda_program_enqueue(&p, 0, &err), SSLAT_OK) << err.message;
            std::vector<float> got(n);
            ASSERT_EQ(cuda_program_read_output(&p, got.data(), &err), SSLAT_OK) << err.message;
            EXPECT_LT(normalised_error(got.data(), expected, n), v.bound)
                << c.layers << " " << sslat_dtype_name(v.dtype) << " " << sslat_layout_name(v.layout)
                << (mode == SSLAT_MODE_FUSED ? " fused" : " eager");
            cuda_program_release(&p);
        }
    free(expected);
    sslat_graph_release(&whole);
    sslat_space_free(space);
}

INSTANTIATE_TEST_SUITE_P(EveryPrimitive, GpuOps, ::testing::ValuesIn(CASES), op_case_name);

TEST(GpuCalculator, MeasuresEveryCandidateWithMetadata)
{
    SKIP_WITHOUT_CUDA();
    sslat_space *space = load_example("proxylessnas.json");
    ASSERT_NE(space, nullptr);
    sslat_latency_options o = {};
    o.run_iterations = 10;
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_OK) << err.message;
    EXPECT_GT(sslat_container_constant_latency(table), 0.0);
    for (int32_t b = 0; b < sslat_container_block_count(table); b++)
        for (int32_t c = 0; c < sslat_container_candidate_count(table, b); c++) {
            double v = sslat_container_latency(table, b, c);
            if (!strcmp(sslat_container_candidate_label(table, b, c), "skip")) EXPECT_EQ(v, 0.0);
            else EXPECT_GT(v, 0.0) << b << "/" << c;
        }
    for (const char *key : {"device.name", "device.compute_capability", "device.sms", "device.l2_bytes",
                            "software.cudnn", "software.cublas", "software.cuda_driver", "calculator.cache"})
        EXPECT_NE(sslat_container_metadata(table, key), nullptr) << key;
    bool plan = false;
    for (int32_t i = 0; i < sslat_container_metadata_count(table); i++) {
        const char *key, *value;
        sslat_container_metadata_at(table, i, &key, &value);
        if (!strncmp(key, "cuda.plan.", 10) && strstr(value, "copies")) plan = true;
    }
    EXPECT_TRUE(plan) << "each unit's plan, algorithms and copies are recorded";
    // the fp16 table (NHWC by default) is faster in total than fp32 on tensor cores
    double fp32 = 0, fp16 = 0;
    ASSERT_EQ(sslat_min_latency(table, &fp32, &err), SSLAT_OK);
    o.dtype = "fp16";
    ASSERT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_OK) << err.message;
    EXPECT_STREQ(sslat_container_layout(table), "nhwc");
    ASSERT_EQ(sslat_min_latency(table, &fp16, &err), SSLAT_OK);
    EXPECT_GT(fp16, 0.0);
    sslat_space_free(space);
}

TEST(GpuCalculator, OutOfMemoryNamesTheCandidateAndFailsCleanly)
{
    SKIP_WITHOUT_CUDA();
    // 4096 x 256 x 1024 x 1024 fp32 activations: 4 TiB, more than any GPU has
    sslat_space_options big = {4096, 1024, 1024};
    sslat_space *space = load_text(space_json("{\"choice\": [\"conv_k3_c256\", \"skip\"], \"c\": 256}", "",
                                              "{\"shape\": [256, 8, 8]}"),
                                   &big);
    ASSERT_NE(space, nullptr);
    sslat_container *table = nullptr;
    sslat_error err;
    sslat_status status = sslat_initialize_latency("cuda", space, nullptr, nullptr, &table, &err);
    EXPECT_NE(status, SSLAT_OK);
    EXPECT_TRUE(status == SSLAT_ERR_NOMEM || status == SSLAT_ERR_LIMIT) << err.message;
    EXPECT_NE(std::string(err.message).find("conv_k3_c256"), std::string::npos) << err.message;
    EXPECT_EQ(sslat_space_latency(space), nullptr) << "nothing attached from a failed run";
    sslat_space_free(space);
}

TEST(GpuCalculator, ABadDeviceIndexIsRefused)
{
    SKIP_WITHOUT_CUDA();
    sslat_space *space = load_example("proxylessnas.json");
    sslat_latency_options o = {};
    o.device = "999";
    sslat_container *table = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("--device 999"), std::string::npos) << err.message;
    sslat_space_free(space);
}

} // namespace
