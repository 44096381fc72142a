// The cuda backend on a real GPU: every primitive against the plain-C reference
// in each dtype and layout, measurement and metadata, and the error paths.
// Every test skips (with the reason) where the cuda calculator cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
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
#include "kernels/cuda_backend.h"
#include "ir/space.h"
#include "reference_ops.h"
}

namespace {

// Where the cuda calculator cannot run, a skip with the reason; with
// SSLAT_REQUIRE_CUDA=1 (bench/gpu_check.sh on the GPU machine) a failure: a
// green run that checked nothing is worse than a red one.
#define SKIP_WITHOUT_CUDA()                                                                        \
    do {                                                                                           \
        const char *why = sslat_cuda_calculator.unavailable_reason();                              \
        if (why && std::getenv("SSLAT_REQUIRE_CUDA")) FAIL() << "cuda calculator cannot run: " << why; \
        if (why) GTEST_SKIP() << "cuda calculator cannot run here: " << why;                       \
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

// "fp16-nhwc": the name SSLAT_GPU_VARIANTS uses
std::string variant_key(const Variant &v)
{
    return std::string(sslat_dtype_name(v.dtype)) + "-" + sslat_layout_name(v.layout);
}

std::string variant_name(const Variant &v, sslat_exec_mode mode)
{
    return variant_key(v) + (mode == SSLAT_MODE_FUSED ? " fused" : " eager");
}

// SSLAT_GPU_VARIANTS=fp32-nchw,fp16-nhwc,… runs only those (the device check
// orders a short GPU window by priority); unset, every variant.
bool variant_wanted(const Variant &v)
{
    const char *wanted = std::getenv("SSLAT_GPU_VARIANTS");
    if (!wanted || !*wanted) return true;
    std::string list = std::string(",") + wanted + ",";
    return list.find("," + variant_key(v) + ",") != std::string::npos;
}

// The names in SSLAT_GPU_VARIANTS that are no variant, with the known ones
// (a typo would otherwise run nothing and pass); empty when all are known.
std::string unknown_variants()
{
    const char *wanted = std::getenv("SSLAT_GPU_VARIANTS");
    std::string list = wanted ? wanted : "", unknown;
    for (size_t at = 0; at < list.size();) {
        size_t end = list.find(',', at);
        if (end == std::string::npos) end = list.size();
        std::string name = list.substr(at, end - at);
        bool known = false;
        for (const Variant &v : VARIANTS) known = known || variant_key(v) == name;
        if (!known) unknown += (unknown.empty() ? "'" : ", '") + name + "'";
        at = end + 1;
    }
    if (unknown.empty()) return unknown;
    std::string names;
    for (const Variant &v : VARIANTS) names += (names.empty() ? "" : ", ") + variant_key(v);
    return unknown + " (known: " + names + ")";
}

// SSLAT_GPU_APIS=legacy,graph (the default: both) names the cuDNN APIs the op
// cases run through.
std::vector<sslat_cudnn_api> wanted_apis()
{
    const char *wanted = std::getenv("SSLAT_GPU_APIS");
    std::string list = std::string(",") + (wanted && *wanted ? wanted : "legacy,graph") + ",";
    std::vector<sslat_cudnn_api> apis;
    for (sslat_cudnn_api api : {SSLAT_CUDNN_API_LEGACY, SSLAT_CUDNN_API_GRAPH})
        if (list.find(std::string(",") + sslat_cudnn_api_name(api) + ",") != std::string::npos) apis.push_back(api);
    return apis;
}

// One session for the whole suite (device, handles, workspace, the Find
// cache): opening one per test cost about a second each.
class GpuOps : public ::testing::TestWithParam<OpCase> {
  public:
    static void SetUpTestSuite()
    {
        if (sslat_cuda_calculator.unavailable_reason()) return;
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        sslat_error err;
        session = new cuda_session();
        if (cuda_session_open(session, &o, &err) != SSLAT_OK) {
            open_error = err.message;
            cuda_session_close(session);
            delete session;
            session = nullptr;
        }
    }
    static void TearDownTestSuite()
    {
        if (session) cuda_session_close(session);
        delete session;
        session = nullptr;
    }

  protected:
    void SetUp() override
    {
        SKIP_WITHOUT_CUDA();
        ASSERT_NE(session, nullptr) << "cuda_session_open: " << open_error;
        ASSERT_EQ(unknown_variants(), "") << "SSLAT_GPU_VARIANTS names no such variant";
        const OpCase &c = GetParam();
        space = load_text(space_json(c.layers, "", std::string("{\"shape\": ") + c.input + ", \"batch\": 2}"));
        ASSERT_NE(space, nullptr);
        sslat_error err;
        ASSERT_EQ(sslat_space_architecture_graph(space, nullptr, 0, &whole, &err), SSLAT_OK) << err.message;
        for (int32_t i = 0; i < whole.count; i++)
            if (!cuda_plan_supports(&whole.nodes[i]))
                GTEST_SKIP() << "op " << sslat_op_name(whole.nodes[i].op) << " has no cuda lowering yet";
        const sslat_graph *graph = &whole;  // the IR's wiring of the network (`from` included)
        expected = reference_run(&graph, 1, SEED);
        ASSERT_NE(expected, nullptr);
        n = (size_t)sslat_shape_elements(sslat_graph_output(&whole));
    }
    void TearDown() override
    {
        free(expected);
        sslat_graph_release(&whole);
        sslat_space_free(space);
    }
    // copy 0's output, in NCHW, against the reference
    double error_of(cuda_program *p)
    {
        std::vector<float> got(n);
        sslat_error err;
        EXPECT_EQ(cuda_program_read_output(p, got.data(), &err), SSLAT_OK) << err.message;
        return normalised_error(got.data(), expected, n);
    }

    static constexpr uint64_t SEED = 1234;
    static cuda_session *session;
    static std::string open_error;
    sslat_space *space = nullptr;
    sslat_graph whole = {};
    float *expected = nullptr;
    size_t n = 0;
};

cuda_session *GpuOps::session = nullptr;
std::string GpuOps::open_error;

// One line per (case, variant, mode) on stdout, whatever happens: what ran
// (algorithms, math, fallbacks) or cuDNN's reason for refusing it, so one GPU
// run gives the whole matrix.
void report(const std::string &what, const char *outcome, const std::string &detail)
{
    std::printf("sslat-op: %s: %s: %s\n", what.c_str(), outcome, detail.c_str());
    std::fflush(stdout);
}

TEST_P(GpuOps, MatchesTheReferenceInEveryDtypeAndLayout)
{
    ASSERT_FALSE(wanted_apis().empty()) << "SSLAT_GPU_APIS names no API (legacy, graph)";
    for (sslat_cudnn_api api : wanted_apis())
    for (const Variant &v : VARIANTS)
        for (sslat_exec_mode mode : {SSLAT_MODE_EAGER, SSLAT_MODE_FUSED}) {
            if (!variant_wanted(v)) continue;
            std::string what = std::string(GetParam().layers) + " " + variant_name(v, mode) + " " +
                               sslat_cudnn_api_name(api);
            SCOPED_TRACE(what);
            sslat_calc_options o;
            sslat_calc_options_default(&o);
            o.seed = SEED, o.dtype = v.dtype, o.layout = v.layout, o.mode = mode, o.cuda.api = api;
            cuda_program p;
            sslat_error err;
            sslat_status status = cuda_program_init(&p, session, &whole, &o, &err);
            if (status == SSLAT_OK) status = cuda_program_choose_algorithms(&p, &err);
            if (status == SSLAT_OK) status = cuda_program_enqueue(&p, 0, &err);
            if (status != SSLAT_OK) {
                ADD_FAILURE() << sslat_status_string(status) << ": " << err.message;
                report(what, "FAILED", std::string(sslat_status_string(status)) + ": " + err.message);
            } else {
                double e = error_of(&p);
                EXPECT_LT(e, v.bound) << GetParam().layers;
                char plan[2048];
                cuda_program_describe(&p, plan, sizeof plan);
                char head[96];
                std::snprintf(head, sizeof head, "error %.2e (bound %.0e)", e, v.bound);
                report(what, e < v.bound ? "ok" : "WRONG", std::string(head) + " | " + plan);
            }
            cuda_program_release(&p); /* every variant releases, refused or not */
        }
}

// Through the path a table takes: the eager run, the capture of many copies
// over rotating buffers, warmup and event-timed replays (hot), or the L2
// flush and one copy per replay (cold); copy 0 still holds the right output.
TEST_P(GpuOps, MeasuredThroughCaptureAndReplayCopyZeroIsRight)
{
    const Variant cases[] = {VARIANTS[0], VARIANTS[3]}; // fp32 NCHW, fp16 NHWC
    for (sslat_cudnn_api api : wanted_apis())
    for (const Variant &v : cases) {
        if (!variant_wanted(v)) continue;
        for (bool cold : {false, true}) {
            SCOPED_TRACE(variant_name(v, SSLAT_MODE_FUSED) + (cold ? " cold " : " hot ") + sslat_cudnn_api_name(api));
            sslat_calc_options o;
            sslat_calc_options_default(&o);
            o.seed = SEED, o.dtype = v.dtype, o.layout = v.layout, o.cold = cold, o.cuda.api = api;
            o.warmup_iterations = 2, o.run_iterations = 3;
            if (cold && !session->flush) continue; /* the suite's session was opened hot */
            cuda_program p;
            sslat_error err;
            ASSERT_EQ(cuda_program_init(&p, session, &whole, &o, &err), SSLAT_OK) << err.message;
            sslat_entry e;
            ASSERT_EQ(cuda_measure_program(&p, whole.input.n, &o, "test", CUDA_NVTX_PHASE, 0, &e, &err), SSLAT_OK)
                << err.message;
            EXPECT_GT(e.value, 0.0);
            EXPECT_EQ(e.samples, 3u);
            if (!cold) EXPECT_GE(p.copies, 1);
            EXPECT_LT(error_of(&p), v.bound) << GetParam().layers;
            cuda_program_release(&p);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryPrimitive, GpuOps, ::testing::ValuesIn(CASES), op_case_name);

// Cold mode needs a session that owns a flush buffer: one op case, both ways.
TEST(GpuCalculator, ColdAndHotTablesOfOneSpace)
{
    SKIP_WITHOUT_CUDA();
    sslat_space *space = load_text(space_json("{\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\", \"skip\"], \"c\": 16}", "",
                                              "{\"shape\": [16, 28, 28], \"batch\": 8}"));
    ASSERT_NE(space, nullptr);
    sslat_latency_options o = SSLAT_LATENCY_OPTIONS_INIT;
    o.run_iterations = 5;
    double hot = 0, cold = 0;
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_OK) << err.message;
    hot = sslat_container_latency(table, 0, 1);
    EXPECT_NE(std::string(sslat_container_metadata(table, "calculator.cache")).find("hot"), std::string::npos);
    o.cold = 1;
    ASSERT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_OK) << err.message;
    cold = sslat_container_latency(table, 0, 1);
    EXPECT_NE(std::string(sslat_container_metadata(table, "calculator.cache")).find("cold"), std::string::npos);
    EXPECT_GT(hot, 0.0);
    EXPECT_GT(cold, 0.0);
    sslat_space_free(space);
}

TEST(GpuCalculator, MeasuresEveryCandidateWithMetadata)
{
    SKIP_WITHOUT_CUDA();
    sslat_space *space = load_example("proxylessnas.json");
    ASSERT_NE(space, nullptr);
    sslat_latency_options o = SSLAT_LATENCY_OPTIONS_INIT;
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
                            "software.cudnn", "software.cublas", "software.cuda_driver", "calculator.cache",
                            "cuda.find", "cuda.blocking_kernel", "cuda.fused_fallbacks", "cuda.relaxed_captures"})
        EXPECT_NE(sslat_container_metadata(table, key), nullptr) << key;
    // the files really loaded, as paths (a wheel's copy and a system one told apart)
    EXPECT_NE(std::string(sslat_container_metadata(table, "software.cudnn")).find('/'), std::string::npos);
    EXPECT_NE(std::string(sslat_container_metadata(table, "software.cublas")).find('/'), std::string::npos);
    bool plan = false;
    for (int32_t i = 0; i < sslat_container_metadata_count(table); i++) {
        const char *key, *value;
        sslat_container_metadata_at(table, i, &key, &value);
        if (!strncmp(key, "cuda.plan.", 10) && strstr(value, "copies")) plan = true;
    }
    EXPECT_TRUE(plan) << "each unit's plan, algorithms and copies are recorded";
    double fp32 = 0, fp16 = 0;
    if (sslat_container_metadata(table, "standin")) {
        // the stand-in device (tests/standin) times nothing: no statistic takes its table as latencies
        EXPECT_EQ(sslat_min_latency(table, &fp32, &err), SSLAT_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(err.message).find("stand-in"), std::string::npos) << err.message;
        sslat_space_free(space);
        return;
    }
    // the fp16 table (NHWC by default)
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
    sslat_latency_options o = SSLAT_LATENCY_OPTIONS_INIT;
    o.device = "999";
    sslat_container *table = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_initialize_latency("cuda", space, nullptr, &o, &table, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("--device 999"), std::string::npos) << err.message;
    sslat_space_free(space);
}

} // namespace
