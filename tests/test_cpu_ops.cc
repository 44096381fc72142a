// Every primitive through the oneDNN path against the plain-C reference, in
// eager and fused mode, compared by normalised error (ggml's test-backend-ops
// is the model). Skips when libdnnl cannot be loaded at run time.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cpu_helpers.h"
#include "helpers.h"
#include "op_cases.h"

extern "C" {
#include "host/choose.h"
#include "host/lower.h"
#include "host/wiring.h"
#include "ir/space.h"
#include "reference_ops.h"
}

namespace {

class CpuOps : public ::testing::TestWithParam<OpCase> {
  protected:
    void SetUp() override
    {
        SKIP_WITHOUT_DNNL();
        sslat_error err;
        ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK) << err.message;
    }
    void TearDown() override
    {
        if (session.engine) host_session_close(&session);
    }
    host_session session = {};
};

TEST_P(CpuOps, MatchesTheReference)
{
    const OpCase &c = GetParam();
    std::string text = space_json(c.layers, "", std::string("{\"shape\": ") + c.input + ", \"batch\": 2}");
    sslat_space *space = load_text(text);
    ASSERT_NE(space, nullptr);
    std::vector<const sslat_graph *> graphs;
    for (int32_t i = 0; i < space->n_layers; i++) graphs.push_back(&space->layers[i].candidates[0].graph);
    const uint64_t seed = 1234;
    // the reference runs the IR's own wiring of the network (one graph); the cpu
    // program wires the layers itself (host/wiring.c)
    sslat_graph whole;
    sslat_error whole_err;
    ASSERT_EQ(sslat_space_architecture_graph(space, nullptr, 0, &whole, &whole_err), SSLAT_OK) << whole_err.message;
    const sslat_graph *whole_graph = &whole;
    float *expected = reference_run(&whole_graph, 1, seed);
    sslat_graph_release(&whole);
    ASSERT_NE(expected, nullptr);
    sslat_shape out = sslat_graph_output(graphs.back());
    size_t n = (size_t)sslat_shape_elements(out);
    // every lowering either mode may fall back to (host/choose.h) computes the same
    std::vector<host_lowering> lowerings(2 * HOST_MAX_LOWERINGS);
    int n_fused = host_lowering_ladder(SSLAT_MODE_FUSED, lowerings.data());
    int n_eager = host_lowering_ladder(SSLAT_MODE_EAGER, lowerings.data() + n_fused);
    lowerings.resize((size_t)(n_fused + n_eager));
    for (const host_lowering &lowering : lowerings) {
        char name[128];
        host_lowering_describe(lowering, name, sizeof name);
        SCOPED_TRACE(name);
        host_program program;
        sslat_error err;
        ASSERT_EQ(host_program_init(&program, &session, space->input, lowering.mode, seed, &err), SSLAT_OK) << err.message;
        program.lowering = lowering;
        host_wiring wiring;
        ASSERT_EQ(host_wiring_begin(&wiring, space, &program, &err), SSLAT_OK);
        for (int32_t i = 0; i < space->n_layers; i++)
            ASSERT_EQ(host_wiring_append(&wiring, &program, i, graphs[(size_t)i], &err), SSLAT_OK) << err.message;
        host_wiring_end(&wiring);
        ASSERT_EQ(host_program_run(&program, &err), SSLAT_OK) << err.message;
        std::vector<float> got(n);
        ASSERT_EQ(host_program_read_output(&program, got.data(), &err), SSLAT_OK) << err.message;
        double e = normalised_error(got.data(), expected, n);
        EXPECT_LT(e, 1e-5) << c.layers;
        // a second run gives the same numbers (no state leaks between runs)
        ASSERT_EQ(host_program_run(&program, &err), SSLAT_OK);
        std::vector<float> again(n);
        ASSERT_EQ(host_program_read_output(&program, again.data(), &err), SSLAT_OK);
        EXPECT_EQ(got, again) << c.layers;
        host_program_release(&program);
    }
    free(expected);
    sslat_space_free(space);
}

INSTANTIATE_TEST_SUITE_P(EveryPrimitive, CpuOps, ::testing::ValuesIn(CASES), op_case_name);
INSTANTIATE_TEST_SUITE_P(LopsidedSamePadding, CpuOps, ::testing::ValuesIn(LOPSIDED_CASES), op_case_name);

TEST(CpuOpsSanity, TheReferenceIsNotTrivial)
{
    // a reference that returned zeros or the input would pass nothing above
    sslat_space *space = load_text(space_json("\"conv_k3_c4\"", "", "{\"shape\": [2, 4, 4]}"));
    ASSERT_NE(space, nullptr);
    const sslat_graph *g = &space->layers[0].candidates[0].graph;
    float *y = reference_run(&g, 1, 7);
    ASSERT_NE(y, nullptr);
    double norm = 0;
    for (int i = 0; i < 64; i++) norm += y[i] * y[i];
    EXPECT_GT(norm, 1e-3);
    float *other = reference_run(&g, 1, 8);
    EXPECT_NE(y[0], other[0]);  // the seed matters
    free(y);
    free(other);
    sslat_space_free(space);
}

}  // namespace
