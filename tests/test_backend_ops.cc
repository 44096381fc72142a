// Every primitive on every backend that can run here, through the backend
// table alone (its compute slot), against the plain-C reference: one suite
// over the registry, as ggml's test-backend-ops loops over its devices. A
// backend that cannot run here skips with its reason. What only one backend
// has is checked beside it: every cpu lowering (test_cpu_ops.cc), every cuda
// dtype and layout and the capture-and-replay path (device/test_gpu_cuda.cc).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "helpers.h"
#include "op_cases.h"

extern "C" {
#include "calc/calculator.h"
#include "ir/space.h"
#include "reference_ops.h"
}

namespace {

// The registered backends that compute (whether they can run here is asked per test).
std::vector<std::string> computing_backends()
{
    std::vector<std::string> names;
    for (int i = 0; i < sslat_calculator_count(); i++)
        if (sslat_calculator_at(i)->compute) names.push_back(sslat_calculator_at(i)->name);
    return names;
}

using BackendCase = std::tuple<OpCase, std::string>;

class BackendOps : public ::testing::TestWithParam<BackendCase> {};

// What one test holds, released however it ends (an ASSERT returns early).
struct Held {
    sslat_space *space = nullptr;
    sslat_graph whole = {};
    float *expected = nullptr;
    const sslat_calculator *calculator = nullptr;
    void *session = nullptr;
    bool session_open = false;
    ~Held()
    {
        if (session_open && calculator->end) calculator->end(session);
        free(expected);
        sslat_graph_release(&whole);
        sslat_space_free(space);
    }
};

TEST_P(BackendOps, MatchesTheReferenceInEagerAndFusedMode)
{
    const OpCase &c = std::get<0>(GetParam());
    Held held;
    const sslat_calculator *calculator = held.calculator = sslat_calculator_find(std::get<1>(GetParam()).c_str());
    ASSERT_NE(calculator, nullptr);
    if (const char *why = sslat_calculator_unavailable(calculator)) GTEST_SKIP() << why;
    held.space = load_text(space_json(c.layers, "", std::string("{\"shape\": ") + c.input + ", \"batch\": 2}"));
    ASSERT_NE(held.space, nullptr);
    // the network as one graph, the IR's own wiring (`from` included): the unit both sides run
    sslat_error err;
    ASSERT_EQ(sslat_space_architecture_graph(held.space, nullptr, 0, &held.whole, &err), SSLAT_OK) << err.message;
    for (int32_t i = 0; calculator->supports_op && i < held.whole.count; i++)
        if (!calculator->supports_op(&held.whole.nodes[i]))
            GTEST_SKIP() << calculator->name << " has no lowering of op " << sslat_op_name(held.whole.nodes[i].op);
    const uint64_t seed = 1234;
    const sslat_graph *graph = &held.whole;
    held.expected = reference_run(&graph, 1, seed);
    ASSERT_NE(held.expected, nullptr);
    size_t n = (size_t)sslat_shape_elements(sslat_graph_output(&held.whole));
    sslat_unit unit = {&held.whole, sslat_graph_hash(&held.whole), 0, 0, "network", "case", false};
    // every cuDNN API a backend can be asked for (the cuda backend: legacy and graph)
    std::vector<sslat_cudnn_api> apis = {SSLAT_CUDNN_API_DEFAULT};
    if (calculator->options_read & SSLAT_READS_CUDNN_API) apis.push_back(SSLAT_CUDNN_API_GRAPH);
    for (sslat_cudnn_api api : apis)
    for (sslat_exec_mode mode : {SSLAT_MODE_EAGER, SSLAT_MODE_FUSED}) {
        SCOPED_TRACE(std::string(mode == SSLAT_MODE_FUSED ? "fused" : "eager") + ", " + sslat_cudnn_api_name(api) +
                     " API");
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        o.seed = seed, o.mode = mode, o.threads = 1, o.cuda.api = api;
        sslat_run_plan plan = {};
        if (calculator->begin)
            ASSERT_EQ(calculator->begin(calculator, &o, &plan, &held.session, &err), SSLAT_OK) << err.message;
        held.session_open = true;
        std::vector<float> got(n), again(n);
        ASSERT_EQ(calculator->compute(calculator, held.session, &unit, &o, got.data(), &err), SSLAT_OK) << err.message;
        EXPECT_LT(normalised_error(got.data(), held.expected, n), 1e-4) << c.layers;
        // a second computation gives the same numbers (nothing carried over)
        ASSERT_EQ(calculator->compute(calculator, held.session, &unit, &o, again.data(), &err), SSLAT_OK)
            << err.message;
        EXPECT_EQ(got, again) << c.layers;
        if (calculator->end) calculator->end(held.session);
        held.session_open = false;
    }
}

// "cpu_7_convk3c16g4": the backend, then the op case as op_case_name names it (its index in CASES)
std::string backend_case_name(const ::testing::TestParamInfo<BackendCase> &info)
{
    const OpCase &c = std::get<0>(info.param);
    size_t index = 0;
    while (index < sizeof CASES / sizeof CASES[0] && CASES[index].layers != c.layers) index++;
    return std::get<1>(info.param) + "_" + op_case_name(::testing::TestParamInfo<OpCase>(c, index));
}

INSTANTIATE_TEST_SUITE_P(EveryPrimitive, BackendOps,
                         ::testing::Combine(::testing::ValuesIn(CASES), ::testing::ValuesIn(computing_backends())),
                         backend_case_name);

TEST(BackendOpsRegistry, EveryTimedBackendComputes)
{
    // a timed backend without compute would silently drop out of the suite
    // above (a stub of a build without the backend's library measures nothing)
    int timed = 0;
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *c = sslat_calculator_at(i);
        if (c->kind != SSLAT_CALC_TIMED || !c->measure_graph) continue;
        EXPECT_NE(c->compute, nullptr) << c->name;
        timed++;
    }
    if (timed == 0) GTEST_SKIP() << "this build has no timed backend";
}

}  // namespace
