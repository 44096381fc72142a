// The fixtures of the stand-in's tests (test_standin.cc, test_standin_graph.cc):
// the cuda backend's session on the stand-in with the default script, a
// one-layer space with its reference output, a rule broken on purpose, and
// `sslat` built against the stand-in.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublas_v2.h> // outside extern "C": it declares C++ overloads

#include "cli_fixture.h"
#include "helpers.h"
#include "op_cases.h"
#include "standin.h"

extern "C" {
#include "calc/calculator.h"
#include "ir/space.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_layout.h"
#include "kernels/ops.h"
#include "measure/half.h"
#include "reference_ops.h"
}

// A documented rule broken on purpose: the status it returned, and the rule
// named (counted as expected, so the suite's check that no rule was broken
// unexpectedly still holds).
inline void expect_rule(int status, int wanted, const char *rule)
{
    EXPECT_EQ(status, wanted) << rule;
    EXPECT_EQ(standin_counters().last_rule, rule);
    standin_counters().expected_violations++;
    standin_counters().last_rule.clear();
}

// The session of the backend on the stand-in, with the default script.
class Standin : public ::testing::Test {
  protected:
    void SetUp() override
    {
        ASSERT_EQ(sslat_cuda_calculator.unavailable_reason(), nullptr);
        standin_reset();
        open(false);
    }
    void TearDown() override
    {
        close();
        unsetenv("SSLAT_CUDA_COPIES_CAP");
        standin_reset(); // the rules broken are the listener's to check (it keeps them)
    }
    void open(bool cold)
    {
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        o.cold = cold;
        if (!selection_folder.empty()) o.cuda.selection_cache = selection_folder.c_str();
        sslat_error err;
        ASSERT_EQ(cuda_session_open(&session, &o, &err), SSLAT_OK) << err.message;
        opened = true;
    }
    void close()
    {
        if (opened) cuda_session_close(&session);
        opened = false;
    }
    // A one-layer space at batch 2 and its graph and reference output.
    void load(const std::string &layers, const std::string &input)
    {
        space = load_text(space_json(layers, "", "{\"shape\": " + input + ", \"batch\": 2}"));
        ASSERT_NE(space, nullptr);
        sslat_error err;
        ASSERT_EQ(sslat_space_architecture_graph(space, nullptr, 0, &whole, &err), SSLAT_OK) << err.message;
        const sslat_graph *g = &whole;
        float *r = reference_run(&g, 1, SEED);
        ASSERT_NE(r, nullptr);
        expected.assign(r, r + sslat_shape_elements(sslat_graph_output(&whole)));
        free(r);
    }
    void unload()
    {
        sslat_graph_release(&whole);
        sslat_space_free(space);
        space = nullptr;
    }
    sslat_calc_options options(sslat_dtype dtype, sslat_exec_mode mode)
    {
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        o.seed = SEED, o.dtype = dtype, o.mode = mode;
        o.warmup_iterations = 1, o.run_iterations = 3;
        return o;
    }
    // Copy `copy`'s output in NCHW, read from the stand-in's memory directly.
    std::vector<float> output_of(const cuda_program &p, int32_t copy)
    {
        int32_t v = p.plan.output + 1;
        const uint8_t *raw = (const uint8_t *)p.values[(size_t)copy * p.n_values + p.value_alias[v]];
        sslat_shape s = sslat_graph_shape_of(p.graph, p.plan.output);
        size_t count = (size_t)sslat_shape_elements(s), hw = (size_t)s.h * s.w;
        std::vector<float> out(count);
        for (size_t i = 0; i < count; i++) {
            float value;
            if (p.elem == SSLAT_ELEM_F32) std::memcpy(&value, raw + 4 * i, 4);
            else {
                uint16_t h;
                std::memcpy(&h, raw + 2 * i, 2);
                value = p.elem == SSLAT_ELEM_F16 ? sslat_fp16_to_float(h) : sslat_bf16_to_float(h);
            }
            out[p.nhwc ? sslat_nhwc_to_nchw(i, (size_t)s.c, hw) : i] = value;
        }
        return out;
    }
    double error(const std::vector<float> &got) { return normalised_error(got.data(), expected.data(), expected.size()); }

    static constexpr uint64_t SEED = 77;
    cuda_session session{};
    bool opened = false;
    std::string selection_folder; // the session's selection cache ("": off, as every stand-in program's default)
    sslat_space *space = nullptr;
    sslat_graph whole{};
    std::vector<float> expected;
};

// `sslat` against the stand-in (copies capped at 2), beside the real command.
class StandinCommand : public CliFixture {
  protected:
    // env: variables for this run only, e.g. "SSLAT_PYTHON=..."
    Result standin(const std::string &args, const std::string &env = "")
    {
        std::string out = dir + "/stdout", err = dir + "/stderr";
        std::string command = env + " SSLAT_CUDA_COPIES_CAP=2 " + std::string(SSLAT_STANDIN_CLI_PATH) + " " + args +
                              " >" + out + " 2>" + err;
        return {exit_code(std::system(command.c_str())), read_file(out), read_file(err)};
    }
};
