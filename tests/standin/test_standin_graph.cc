// The cuda backend's graph-API path on the stand-in device (cudnn_backend.cc):
// how an engine is chosen (the notes a dtype refuses, the first ten plans
// timed on the stand-in clock, the fastest kept and named), the legacy API
// where the graph API cannot compute a convolution, each side's padding,
// the phase timers, `sslat measure --cuda-api graph`, and every documented
// rule of the backend API broken once on purpose.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <map>

#include "standin_fixture.h"

extern "C" {
#include "api/latency.h"
#include "kernels/cuda_graph.h"
#include "kernels/cuda_selection.h"
}

namespace {

class StandinGraph : public Standin {
  protected:
    // the loaded network computed once through the graph API: its plan text
    std::string run(sslat_dtype dtype, sslat_exec_mode mode, double *error_out = nullptr)
    {
        sslat_calc_options o = options(dtype, mode);
        o.cuda.api = SSLAT_CUDNN_API_GRAPH;
        cuda_program p;
        sslat_error err;
        sslat_status status = cuda_program_init(&p, &session, &whole, &o, &err);
        EXPECT_EQ(status, SSLAT_OK) << err.message;
        if (status != SSLAT_OK) return "";
        // each step only after the one before worked (a program whose choice failed is never launched)
        std::vector<float> got(expected.size());
        if (status == SSLAT_OK) status = cuda_program_choose_algorithms(&p, &err);
        if (status == SSLAT_OK) status = cuda_program_enqueue(&p, 0, &err);
        if (status == SSLAT_OK) status = cuda_program_read_output(&p, got.data(), &err);
        EXPECT_EQ(status, SSLAT_OK) << err.message;
        if (error_out) *error_out = status == SSLAT_OK ? error(got) : 1.0;
        char plan[2048];
        cuda_program_describe(&p, plan, sizeof plan);
        cuda_program_release(&p);
        return plan;
    }
    // the loaded network's convolutions chosen once, the program released (a table's first decisions)
    void choose_algorithms(const sslat_calc_options &o)
    {
        cuda_program p;
        sslat_error err;
        ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
        ASSERT_EQ(cuda_program_choose_algorithms(&p, &err), SSLAT_OK) << err.message;
        cuda_program_release(&p);
    }
    static int executions_of(int64_t engine)
    {
        int n = 0;
        for (int64_t e : standin_counters().executions) n += e == engine;
        return n;
    }
};

TEST_F(StandinGraph, Fp32KeepsTheFastestEngineWithoutTensorCoresAndNamesIt)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-4);
    // the script: 7 refuses to finalize, 12 is TENSOR_CORE, 21 DOWN_CONVERT,
    // 3 is in both lists (counted once); 40 (runtime-compiled), 3 and 0 ran
    EXPECT_NE(plan.find("cudnnBackendExecute(conv) + sslat_epilogue(bias,relu)"), std::string::npos) << plan;
    EXPECT_NE(plan.find("graph eng3_k0=1, ws 1048576 B, notes none, rank 2 of 3 timed"), std::string::npos) << plan;
    EXPECT_NE(plan.find("6 configs (2 refused for fp32, 1 not finalized or run)"), std::string::npos) << plan;
    EXPECT_EQ(executions_of(12), 0) << "fp32 never runs a TF32 engine";
    EXPECT_EQ(executions_of(21), 0) << "no dtype runs a down-converting engine";
    EXPECT_EQ(executions_of(7), 0);
    EXPECT_GT(executions_of(40), 0);
    EXPECT_GT(executions_of(0), 0) << "the fallback list was timed too";
    EXPECT_EQ(standin_counters().compile_events, 1) << "the runtime-compiled plan was finalized once";
    // fused mode: the epilogue fused as a graph too; its runtime-fusion engine
    // takes no fp32 NCHW, the slow fallback one ran and lost to conv + epilogue
    EXPECT_EQ(standin_counters().plans_refused, 2);
    EXPECT_EQ(standin_counters().heuristics_queries, 4) << "mode A and the fallback list, for each graph";
    EXPECT_EQ(executions_of(51), 0);
    EXPECT_GT(executions_of(52), 0);
    EXPECT_NE(plan.find("candidates: plain+epilogue 1.0040 ms, fused graph 1.0500 ms (2 configs), own depthwise -"),
              std::string::npos) << plan;
    EXPECT_EQ(session.graph_convs, 1);
    EXPECT_EQ(session.legacy_convs, 0);
    EXPECT_EQ(standin_counters().find_calls, 0) << "the legacy API's Find never ran";
    EXPECT_GE(session.workspace_size, (size_t)1 << 20) << "the kept plan's workspace";
    unload();
}

// TF32 rounding on the stand-in is visible beyond fp32's bound: an fp32 table
// that took the tensor-core engine would fail its check.
TEST_F(StandinGraph, Tf32AndFp16TakeTheTensorCoreEngineWhoseTf32RoundingShows)
{
    load("\"conv_k3_c32\"", "[32, 8, 8]");
    double e = 0;
    std::string plan = run(SSLAT_DTYPE_TF32, SSLAT_MODE_EAGER, &e);
    EXPECT_NE(plan.find("graph eng12_"), std::string::npos) << plan;
    EXPECT_NE(plan.find("notes tensor_core, rank 1 of 4 timed"), std::string::npos) << plan;
    EXPECT_GT(e, 1e-4) << "the TF32 engine's rounding shows at fp32's bound";
    EXPECT_LT(e, 5e-3);
    plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_EAGER, &e);
    EXPECT_NE(plan.find("graph eng12_"), std::string::npos) << plan;
    EXPECT_LT(e, 1e-2);
    unload();
}

TEST_F(StandinGraph, AtMostTenPlansAreTimedInHeuristicsOrder)
{
    load("\"conv_k1_c8\"", "[8, 4, 4]");
    std::vector<StandinEngine> many;
    for (int i = 0; i < 14; i++) many.push_back({100 + i, {}, 0, 0, 0, false, true, true, 0.05 - 0.002 * i});
    standin_script().engines = many;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER);
    EXPECT_NE(plan.find("graph eng109, ws 0 B, notes none, rank 10 of 10 timed"), std::string::npos) << plan;
    for (int i = 10; i < 14; i++) EXPECT_EQ(executions_of(100 + i), 0) << "engine " << 100 + i << " past the limit";
    unload();
}

TEST_F(StandinGraph, TheSessionKeepsItsPlanForTheNextProgram)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    std::string first = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    long queries = standin_counters().heuristics_queries, finalized = standin_counters().plans_finalized;
    std::string again = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    EXPECT_EQ(again, first);
    EXPECT_EQ(standin_counters().heuristics_queries, queries);
    EXPECT_EQ(standin_counters().plans_finalized, finalized);
    EXPECT_EQ(session.find_cache.hits, 1);
    unload();
}

TEST_F(StandinGraph, WhereNoPlanRunsTheLegacyApiDecidesAndSaysWhy)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    for (StandinEngine &e : standin_script().engines) e.finalizes = false; // e.g. no NVRTC, no engine for the shape
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER, &e);
    EXPECT_LT(e, 1e-4);
    EXPECT_NE(plan.find("legacy API: no engine configuration of cuDNN's heuristics ran: 6 configurations, 2 refused for "
                        "fp32, 4 not finalized or run; last: "),
              std::string::npos) << plan;
    EXPECT_NE(plan.find("does not support this graph"), std::string::npos) << plan << ": cuDNN's own words";
    EXPECT_GT(standin_counters().find_calls, 0);
    EXPECT_EQ(session.legacy_convs, 1);
    unload();
    // plans that finalize but fail to run: the same
    standin_reset();
    for (StandinEngine &engine : standin_script().engines) engine.executes = false;
    load("\"conv_k3_c8\"", "[8, 8, 8]");
    plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_EAGER, &e);
    EXPECT_LT(e, 1e-2);
    EXPECT_NE(plan.find("fails to run"), std::string::npos) << plan;
    unload();
}

TEST_F(StandinGraph, WithoutTheGraphApiTheLegacyApiDecides)
{
    load("\"conv_k3_c8\"", "[8, 8, 8]");
    std::snprintf(sslat_cuda_api.graph_missing, sizeof sslat_cuda_api.graph_missing,
                  "libcudnn.so.9 has no cudnnBackendExecute");
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER, &e);
    standin_fill_cudnn_backend_table();
    EXPECT_LT(e, 1e-4);
    EXPECT_NE(plan.find("legacy API: this cuDNN has no graph API: libcudnn.so.9 has no cudnnBackendExecute"),
              std::string::npos) << plan;
    EXPECT_EQ(standin_counters().heuristics_queries, 0);
    unload();
}

TEST_F(StandinGraph, AnEngineWhoseWorkspaceIsPastTheLimitIsNotTimed)
{
    load("\"conv_k3_c8\"", "[8, 8, 8]");
    standin_script().engines = {{5, {}, 0, 0, (size_t)64 << 30, false, true, true, 0.001},
                                {6, {}, 0, 0, 0, false, true, true, 0.01}};
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER);
    EXPECT_NE(plan.find("graph eng6, ws 0 B"), std::string::npos) << plan;
    EXPECT_NE(plan.find("(0 refused for fp32, 1 not finalized or run)"), std::string::npos) << plan;
    EXPECT_EQ(executions_of(5), 0);
    EXPECT_LT(session.workspace_size, (size_t)1 << 30);
    unload();
}

// 'same' padding one side more than the other: the graph API's pre and post
// paddings compute it (the legacy API cannot); without a plan that runs, a
// clear refusal
TEST_F(StandinGraph, EachSidesPaddingRunsThroughTheGraphApi)
{
    standin_script().kernel_ms = 1.0; /* cuDNN's plans, not the own depthwise kernel, for the depthwise case */
    for (const OpCase &c : LOPSIDED_CASES) {
        load(c.layers, c.input);
        for (sslat_dtype dtype : {SSLAT_DTYPE_FP32, SSLAT_DTYPE_FP16})
            for (sslat_exec_mode mode : {SSLAT_MODE_EAGER, SSLAT_MODE_FUSED}) {
                double e = 1;
                std::string plan = run(dtype, mode, &e);
                EXPECT_LT(e, dtype == SSLAT_DTYPE_FP32 ? 1e-4 : 1e-2) << c.layers << " " << plan;
                EXPECT_NE(plan.find("graph eng"), std::string::npos) << plan;
            }
        unload();
    }
    close(); // a new session: the one above keeps the plans it chose
    open(false);
    load(LOPSIDED_CASES[0].layers, LOPSIDED_CASES[0].input);
    for (StandinEngine &e : standin_script().engines) e.finalizes = false;
    sslat_calc_options o = options(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    o.cuda.api = SSLAT_CUDNN_API_GRAPH;
    cuda_program p;
    sslat_error err;
    ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(cuda_program_choose_algorithms(&p, &err), SSLAT_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(err.message).find("cannot pad one side more than the other"), std::string::npos)
        << err.message;
    cuda_program_release(&p);
    unload();
}

// A convolution's epilogue fused into its graph (bias of the folded BN, then
// relu6 as a clipped relu) is timed against the plain plan + the own
// epilogue, and kept only when faster; either way the numbers are right.
TEST_F(StandinGraph, AFusedEpilogueIsKeptOnlyWhenFasterThanConvPlusOwnEpilogue)
{
    load("\"cn_k3_s2_c16_nr6\"", "[8, 9, 9]");
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2) << plan;
    EXPECT_NE(plan.find("conv 0: graph_fused eng51_k"), std::string::npos) << plan;
    EXPECT_EQ(plan.rfind("cudnnBackendExecute(conv) fusing (bias,relu6) | ", 0), 0u) << "the plan names the fused epilogue: "
                                                                                     << plan;
    EXPECT_NE(plan.find("notes runtime_compilation"), std::string::npos) << plan;
    EXPECT_GT(executions_of(51), 0);
    EXPECT_EQ(session.fused_graphs, 1);
    close();
    open(false);
    // fusion slower than the two kernels (PyTorch #68506's 7x7 case): the plain plan and the own epilogue
    standin_script().fused_engines[0].ms = 0.01;
    plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2) << plan;
    EXPECT_NE(plan.find("conv 0: graph eng12_"), std::string::npos) << plan;
    EXPECT_NE(plan.find("candidates: plain+epilogue 1.0020 ms, fused graph 1.0100 ms"), std::string::npos) << plan;
    EXPECT_EQ(session.fused_graphs, 0);
    close();
    open(false);
    // eager mode fuses nothing: one node per step, no fused graph asked for
    long queries = standin_counters().heuristics_queries;
    plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_EAGER, &e);
    EXPECT_LT(e, 1e-2) << plan;
    EXPECT_EQ(plan.find("graph_fused"), std::string::npos) << plan;
    EXPECT_EQ(standin_counters().heuristics_queries - queries, 2) << "the convolution's graph only";
    unload();
}

// hswish has no pointwise mode of its own: x · relu6(x + 3) / 6 from ADD,
// a clipped RELU and two MULs, its constants by-value scalars; with the
// residual of an inverted residual block, every epilogue the graph holds.
TEST_F(StandinGraph, HswishAndTheResidualFuseAsAPointwiseGraph)
{
    for (const OpCase &c : {OpCase{"\"cn_k3_c16_nsw\"", "[8, 6, 6]"}, OpCase{"\"ir_k3_e2_c16\"", "[16, 8, 8]"}}) {
        load(c.layers, c.input);
        for (sslat_dtype dtype : {SSLAT_DTYPE_FP16, SSLAT_DTYPE_BF16}) {
            double e = 1;
            std::string plan = run(dtype, SSLAT_MODE_FUSED, &e);
            EXPECT_LT(e, dtype == SSLAT_DTYPE_FP16 ? 1e-2 : 5e-2) << c.layers << " " << plan;
            EXPECT_NE(plan.find("graph_fused eng51"), std::string::npos) << c.layers << " " << plan;
        }
        unload();
    }
}

// Every op case on the graph API in fused mode, half and bfloat16 channels
// last (where the stand-in's runtime fusion engine is the fastest), the own
// depthwise kernel made slow: each convolution with an epilogue runs as a
// fused graph, against the plain-C reference.
TEST_F(StandinGraph, EveryOpCaseRunsThroughTheFusedGraphPath)
{
    standin_script().kernel_ms = 1.0;
    int fused = 0;
    for (const OpCase &c : CASES) {
        load(c.layers, c.input);
        bool supported = true; /* the cases the cuda calculator refuses by name (a ceil-mode pool) are not run */
        for (int32_t i = 0; i < whole.count; i++) supported = supported && cuda_plan_supports(&whole.nodes[i]);
        if (!supported) {
            unload();
            continue;
        }
        for (sslat_dtype dtype : {SSLAT_DTYPE_FP16, SSLAT_DTYPE_BF16}) {
            double e = 1;
            std::string plan = run(dtype, SSLAT_MODE_FUSED, &e);
            EXPECT_LT(e, dtype == SSLAT_DTYPE_FP16 ? 1e-2 : 5e-2) << c.layers << " " << plan;
            // no convolution with an epilogue left to the plain plan and the own epilogue kernel
            size_t at = 0;
            while ((at = plan.find(" | conv ", at)) != std::string::npos) {
                size_t end = plan.find(" | ", at + 3);
                std::string part = plan.substr(at, end == std::string::npos ? std::string::npos : end - at);
                EXPECT_FALSE(part.find(": graph eng") != std::string::npos &&
                             part.find("plain+epilogue") != std::string::npos)
                    << c.layers << ": " << part;
                fused += part.find(": graph_fused eng51") != std::string::npos;
                at += 3;
            }
        }
        unload();
        close(); // a fresh session per case: nothing decided before
        open(false);
    }
    EXPECT_GT(fused, 60) << "fused graphs across the op cases";
}

// The own depthwise kernel (bias, residual and activation in it) is one more
// candidate of a depthwise convolution: kept when it is the fastest, not
// otherwise, right either way.
TEST_F(StandinGraph, TheOwnDepthwiseKernelIsKeptOnlyWhenItIsTheFastest)
{
    load("\"conv_k3_c8_g8\"", "[8, 9, 9]");
    for (sslat_dtype dtype : {SSLAT_DTYPE_FP32, SSLAT_DTYPE_BF16}) {
        double e = 1;
        standin_script().kernel_ms = 0;
        std::string plan = run(dtype, SSLAT_MODE_FUSED, &e);
        EXPECT_LT(e, dtype == SSLAT_DTYPE_FP32 ? 1e-4 : 5e-2) << plan;
        EXPECT_NE(plan.find("conv 0: own_depthwise"), std::string::npos) << plan;
        EXPECT_EQ(plan.rfind("sslat_depthwise", 0), 0u) << plan;
        close();
        open(false);
        standin_script().kernel_ms = 1.0;
        plan = run(dtype, SSLAT_MODE_FUSED, &e);
        EXPECT_LT(e, dtype == SSLAT_DTYPE_FP32 ? 1e-4 : 5e-2) << plan;
        EXPECT_EQ(plan.find("conv 0: own_depthwise"), std::string::npos) << plan;
        EXPECT_NE(plan.find("own depthwise 2.0000 ms"), std::string::npos) << plan;
        close();
        open(false);
    }
    // a dense convolution never has it as a candidate
    unload();
    load("\"conv_k3_c16\"", "[8, 10, 10]");
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    EXPECT_NE(plan.find("own depthwise -"), std::string::npos) << plan;
    unload();
}

// The selection cache between two sessions: the second takes every
// decision from disk (no heuristics, no autotune, no Find) and computes the
// same numbers; an engine that is gone makes its entry stale: decided again.
TEST_F(StandinGraph, ASecondRunTakesItsDecisionsFromTheSelectionCache)
{
    TempDir dir;
    selection_folder = dir.path("cache");
    close();
    open(false);
    load("\"ir_k3_e2_c16\"", "[16, 8, 8]"); // expansion, depthwise, projection with the residual
    double e = 1;
    std::string first = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2) << first;
    EXPECT_EQ(first.find("from the selection cache"), std::string::npos) << first;
    close(); // writes the decisions
    standin_reset();
    open(false);
    std::string second = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2) << second;
    EXPECT_NE(second.find("own_depthwise (sslat_depthwise with its epilogue), from the selection cache"),
              std::string::npos) << second;
    EXPECT_NE(second.find("graph_fused eng51_k2=2, ws 0 B, notes runtime_compilation, from the selection cache"),
              std::string::npos) << second;
    EXPECT_EQ(standin_counters().heuristics_queries, 0) << "no engine chosen again";
    EXPECT_EQ(session.selection.hits, 3);
    EXPECT_EQ(session.selection.n_fresh, 0);
    // the legacy API: Find runs in the first session only
    close();
    standin_reset();
    open(false);
    sslat_calc_options o = options(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    for (int pass = 0; pass < 2; pass++) {
        ASSERT_NO_FATAL_FAILURE(choose_algorithms(o));
        close();
        if (pass == 0) EXPECT_GT(standin_counters().find_calls, 0);
        else EXPECT_EQ(standin_counters().find_calls, 0) << "Find's choices from the first session";
        standin_reset();
        open(false);
    }
    // the fused engine is gone from this cuDNN: its entry is stale, the convolution decided again
    close();
    standin_reset();
    standin_script().fused_engines.erase(standin_script().fused_engines.begin());
    open(false);
    std::string third = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2) << third;
    EXPECT_EQ(session.selection.stale, 2) << "the expansion's and the projection's";
    EXPECT_EQ(session.selection.hits, 1) << "the depthwise decision, reused; the stale ones are not counted as reused";
    EXPECT_GT(standin_counters().heuristics_queries, 0);
    EXPECT_EQ(third.find("eng51"), std::string::npos) << third;
    close();
    standin_reset();
    open(false);
    EXPECT_EQ(session.selection.stale, 0) << "the stale entry was replaced when the file was written";
    unload();
    selection_folder.clear();
}

// A kept decision is held to the rules of a fresh one: an engine whose notes
// cuDNN now gives as TENSOR_CORE is no fp32 engine; a legacy fp32 decision
// keeps FMA math; a graph route is no legacy run's. Each is stale, decided again.
TEST_F(StandinGraph, AKeptDecisionMeetsTheRulesOfAFreshOne)
{
    TempDir dir;
    selection_folder = dir.path("cache");
    close();
    open(false);
    load("\"conv_k3_c16\"", "[8, 10, 10]");
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED, &e);
    EXPECT_NE(plan.find("graph eng3_"), std::string::npos) << plan;
    close();
    // this cuDNN now says engine 3 uses tensor cores: fp32 may not keep it
    standin_reset();
    for (StandinEngine &engine : standin_script().engines)
        if (engine.global_index == 3) engine.numerical |= 1u << CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
    open(false);
    plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-4) << plan;
    EXPECT_EQ(session.selection.stale, 1);
    EXPECT_EQ(plan.find("from the selection cache"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("graph eng3_"), std::string::npos) << "no TF32 engine for fp32: " << plan;
    // the legacy API: its fp32 decisions rewritten with tensor-op math, then with a graph route
    uint64_t hardware = session.selection.hardware, software = session.selection.software;
    close();
    standin_reset();
    open(false);
    sslat_calc_options o = options(SSLAT_DTYPE_FP32, SSLAT_MODE_FUSED);
    ASSERT_NO_FATAL_FAILURE(choose_algorithms(o));
    close();
    cuda_program p;
    sslat_error err;
    for (int forged = 0; forged < 2; forged++) {
        cuda_selection_cache c;
        cuda_selection_open(&c, selection_folder.c_str(), hardware, software);
        int32_t legacy = 0;
        for (int32_t i = 0; i < c.count; i++) {
            cuda_selection_entry edited = c.items[i];
            if (edited.route != CUDA_ROUTE_LEGACY || edited.key.fields[22] != SSLAT_CUDNN_API_LEGACY) continue;
            if (forged == 0) edited.math = CUDNN_TENSOR_OP_MATH;
            else edited.route = CUDA_ROUTE_GRAPH, edited.engine.global_index = 3;
            cuda_selection_put(&c, &edited);
            legacy++;
        }
        ASSERT_EQ(legacy, 1);
        ASSERT_TRUE(cuda_selection_save(&c)) << c.problem;
        cuda_selection_release(&c);
        standin_reset();
        open(false);
        ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
        ASSERT_EQ(cuda_program_choose_algorithms(&p, &err), SSLAT_OK) << err.message;
        EXPECT_EQ(session.selection.stale, 1) << (forged ? "a graph route in a legacy run" : "tensor-op math for fp32");
        EXPECT_GT(standin_counters().find_calls, 0) << "decided again by Find";
        EXPECT_EQ(p.states[0].math, CUDNN_FMA_MATH);
        cuda_program_release(&p);
        close();
    }
    open(false);
    unload();
    selection_folder.clear();
}

TEST_F(StandinGraph, NvidiaTf32OverrideZeroRefusesATf32Table)
{
    load("\"conv_k3_c8\"", "[8, 8, 8]");
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    sslat_calc_options o = options(SSLAT_DTYPE_TF32, SSLAT_MODE_EAGER);
    cuda_program p;
    sslat_error err;
    EXPECT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(err.message).find("NVIDIA_TF32_OVERRIDE=0"), std::string::npos) << err.message;
    o.dtype = SSLAT_DTYPE_FP32; // fp32 is what the override leaves: it runs
    EXPECT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
    cuda_program_release(&p);
    unsetenv("NVIDIA_TF32_OVERRIDE");
    unload();
}

// ---- the phase timers -----------------------------------------------------------------------------

double seconds_in(const sslat_container *table, const char *key)
{
    const char *value = sslat_container_metadata(table, key);
    return value ? std::atof(value) : -1;
}

TEST(StandinPhases, ThePhaseTimersAddUpToTheWallTimeOfTheRun)
{
    // ProxylessNAS at 64x64: every kind of unit, a short run on the stand-in
    sslat_space_options small = {1, 64, 64};
    sslat_space *space = nullptr;
    sslat_error loaded;
    ASSERT_EQ(sslat_space_load_file(example_path("proxylessnas.json").c_str(), &small, &space, &loaded), SSLAT_OK)
        << loaded.message;
    setenv("SSLAT_CUDA_COPIES_CAP", "2", 1);
    for (sslat_cudnn_api api : {SSLAT_CUDNN_API_LEGACY, SSLAT_CUDNN_API_GRAPH}) {
        SCOPED_TRACE(sslat_cudnn_api_name(api));
        sslat_calc_options o;
        sslat_calc_options_default(&o);
        o.warmup_iterations = 1, o.run_iterations = 3, o.cuda.api = api;
        sslat_container *table = nullptr;
        sslat_error err;
        auto started = std::chrono::steady_clock::now();
        ASSERT_EQ(sslat_measure_space(&sslat_cuda_calculator, space, &o, nullptr, nullptr, &table, &err), SSLAT_OK)
            << err.message;
        double outside = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        double sum = 0;
        for (const char *phase : {"open", "select", "prepare", "capture", "measure", "outside"}) {
            double s = seconds_in(table, (std::string("cuda.time.") + phase).c_str());
            EXPECT_GE(s, 0.0) << phase;
            sum += s;
        }
        double wall = seconds_in(table, "cuda.time.wall");
        EXPECT_NEAR(sum, wall, 1e-5) << "each phase printed to the microsecond";
        EXPECT_LE(wall, outside + 0.001) << "the session lives inside the run";
        EXPECT_GE(wall, 0.8 * outside) << "the phases cover the run: nothing of it is unaccounted for";
        for (const char *phase : {"cuda.time.open", "cuda.time.select", "cuda.time.prepare", "cuda.time.capture",
                                  "cuda.time.measure"})
            EXPECT_GT(seconds_in(table, phase), 0.0) << phase;
        EXPECT_STREQ(sslat_container_metadata(table, "cuda.api"), sslat_cudnn_api_name(api));
        sslat_container_free(table);
    }
    unsetenv("SSLAT_CUDA_COPIES_CAP");
    sslat_space_free(space);
}

// ---- the command ------------------------------------------------------------------------------

class StandinGraphCommand : public StandinCommand {};

TEST_F(StandinGraphCommand, MeasureTakesTheGraphApiAndRefusesAnythingElse)
{
    std::string json = path("px.json");
    Result r = standin("measure " + example_path("proxylessnas.json") + " -c cuda --cuda-api graph --resolution 64 "
                       "--warmup 1 --runs 3 -o " + path("px.sslat") + " --json " + json);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("RULE"), std::string::npos) << r.err;
    std::string text = read_file(json);
    for (const char *wanted : {"\"cuda.api\": \"graph\"", "through the graph-API autotune", "0 on the legacy API",
                               "cudnnBackendExecute(conv)", "\"cuda.time.wall\""})
        EXPECT_NE(text.find(wanted), std::string::npos) << wanted;
    Result bad = standin("measure " + example_path("proxylessnas.json") + " -c cuda --cuda-api fast -o " + path("x.sslat"));
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("--cuda-api is legacy or graph, got 'fast'"), std::string::npos) << bad.err;
    for (const char *api : {"graph", "legacy"}) { // even the default's name: the option is the cuda calculator's
        Result mac = run("measure " + example_path("proxylessnas.json") + " -c mac --cuda-api " + api + " -o " +
                         path("m.sslat"));
        EXPECT_EQ(mac.code, 2) << api;
        EXPECT_NE(mac.err.find("a cuDNN API (--cuda-api): it applies to the cuda calculator only, not mac"),
                  std::string::npos) << mac.err;
    }
    for (const char *twice : {"--cuda-api graph --cuda-api legacy", "--layout nchw --layout nhwc"}) {
        Result again = standin("measure " + example_path("fbnet.json") + " -c cuda " + twice + " -o " + path("t.sslat"));
        EXPECT_EQ(again.code, 2) << twice;
        EXPECT_NE(again.err.find("is given twice"), std::string::npos) << again.err;
    }
}

// `--selection-cache DIR`: the second table of a space takes every decision
// from the first's; the metadata says so; `off` and the cpu calculator.
TEST_F(StandinGraphCommand, ASecondTableTakesItsChoicesFromTheSelectionCache)
{
    std::string cache = path("selection");
    for (const char *api : {"graph", "legacy"}) {
        std::string json[2];
        for (int run = 0; run < 2; run++) {
            json[run] = path(std::string(api) + std::to_string(run) + ".json");
            Result r = standin("measure " + example_path("proxylessnas.json") + " -c cuda --cuda-api " + api +
                               " --dtype fp16 --resolution 64 --warmup 1 --runs 3 --selection-cache " + cache +
                               " -o " + path("px.sslat") + " --json " + json[run]);
            ASSERT_EQ(r.code, 0) << r.err;
            EXPECT_EQ(r.err.find("RULE"), std::string::npos) << r.err;
            EXPECT_EQ(r.err.find("selection cache"), std::string::npos) << "nothing to say: " << r.err;
        }
        std::string first = read_file(json[0]), second = read_file(json[1]);
        EXPECT_NE(first.find(cache + "/" CUDA_SELECTION_FILE ": 0 decisions reused"), std::string::npos) << first;
        EXPECT_NE(second.find("made and written"), std::string::npos);
        EXPECT_NE(second.find(", 0 made and written"), std::string::npos) << second;
        EXPECT_NE(second.find("0 distinct convolutions timed by cudnnFind"), std::string::npos) << second;
        EXPECT_NE(second.find(", from the selection cache"), std::string::npos);
        EXPECT_EQ(first.find(", from the selection cache"), std::string::npos);
    }
    Result off = standin("measure " + example_path("fbnet.json") + " -c cuda --resolution 32 --warmup 1 --runs 3 "
                         "--selection-cache off -o " + path("f.sslat") + " --json " + path("f.json"));
    ASSERT_EQ(off.code, 0) << off.err;
    EXPECT_NE(read_file(path("f.json")).find("\"cuda.selection_cache\": \"off (--selection-cache off)\""),
              std::string::npos);
    Result cpu = run("measure " + example_path("fbnet.json") + " -c mac --selection-cache " + cache + " -o " +
                     path("m.sslat"));
    EXPECT_EQ(cpu.code, 2);
    EXPECT_NE(cpu.err.find("a selection cache (--selection-cache): it applies to the cuda calculator only"),
              std::string::npos) << cpu.err;
    Result twice = standin("measure " + example_path("fbnet.json") + " -c cuda --selection-cache off "
                           "--selection-cache " + cache + " -o " + path("t.sslat"));
    EXPECT_EQ(twice.code, 2);
    EXPECT_NE(twice.err.find("--selection-cache is given twice"), std::string::npos) << twice.err;
    // a cache file sslat cannot read: said, not trusted, not replaced, the table made
    write("selection/" CUDA_SELECTION_FILE, "not a cache\n");
    Result foreign = standin("measure " + example_path("fbnet.json") + " -c cuda --resolution 32 --warmup 1 --runs 3 "
                             "--selection-cache " + cache + " -o " + path("g.sslat"));
    ASSERT_EQ(foreign.code, 0) << foreign.err;
    EXPECT_NE(foreign.err.find("is not a selection cache of this version"), std::string::npos) << foreign.err;
    EXPECT_EQ(read_file(cache + "/" CUDA_SELECTION_FILE), "not a cache\n");
    // a folder that cannot be made (under a file): said, the metadata says so, the table is made
    write("a-file", "x");
    Result unwritable = standin("measure " + example_path("fbnet.json") + " -c cuda --resolution 32 --warmup 1 "
                                "--runs 3 --selection-cache " + path("a-file/cache") + " -o " + path("u.sslat") +
                                " --json " + path("u.json"));
    ASSERT_EQ(unwritable.code, 0) << unwritable.err;
    EXPECT_NE(unwritable.err.find("sslat: selection cache not written"), std::string::npos) << unwritable.err;
    EXPECT_NE(read_file(path("u.json")).find("made and NOT written"), std::string::npos);
}

TEST_F(StandinGraphCommand, ShardsOfTwoApisAreNotMergedAndTf32UnderTheOverrideIsRefusedUpFront)
{
    std::string common = "measure " + example_path("fbnet.json") + " -c cuda --resolution 64 --warmup 1 --runs 3 ";
    ASSERT_EQ(standin(common + "--cuda-api graph --shard 0/2 -o " + path("s0.sslat")).code, 0);
    ASSERT_EQ(standin(common + "--shard 1/2 -o " + path("s1.sslat")).code, 0);
    Result merged = run("merge " + path("s0.sslat") + " " + path("s1.sslat") + " -o " + path("all.sslat"));
    EXPECT_NE(merged.code, 0);
    EXPECT_NE(merged.err.find("cuda.api is 'graph' in one part and 'legacy' in the other"), std::string::npos)
        << merged.err;
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    Result tf32 = standin(common + "--dtype tf32 --keep-going -o " + path("tf32.sslat"));
    unsetenv("NVIDIA_TF32_OVERRIDE");
    EXPECT_NE(tf32.code, 0);
    EXPECT_NE(tf32.err.find("NVIDIA_TF32_OVERRIDE=0 turns TF32 off"), std::string::npos) << tf32.err;
    EXPECT_EQ(tf32.err.find("layer '"), std::string::npos) << "refused for the run, not blamed on a layer: " << tf32.err;
    struct stat st;
    EXPECT_NE(stat(path("tf32.sslat").c_str(), &st), 0) << "no table of zeros written";
}

// ---- every rule of the backend API, broken once on purpose --------------------------------------------

// A 3x3 convolution 8 -> 16 channels on 1x8x6x6, padding 1, NCHW fp32, built
// through the backend API the way kernels/cuda_graph.c builds it; each test
// changes one thing.
class StandinGraphRules : public Standin {
  protected:
    void SetUp() override
    {
        Standin::SetUp();
        ASSERT_EQ(cudaMalloc(&memory, 4 << 20), cudaSuccess);
    }
    void TearDown() override
    {
        for (auto d = made.rbegin(); d != made.rend(); ++d) cudnnBackendDestroyDescriptor(*d); // plans first
        cudaFree(memory);
        Standin::TearDown();
    }
    cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type)
    {
        cudnnBackendDescriptor_t d = nullptr;
        EXPECT_EQ(cudnnBackendCreateDescriptor(type, &d), CUDNN_STATUS_SUCCESS);
        made.push_back(d);
        return d;
    }
    template <typename T>
    cudnnStatus_t set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                      std::vector<T> values)
    {
        return cudnnBackendSetAttribute(d, name, type, (int64_t)values.size(), values.data());
    }
    // a tensor, unfinalized (dims in N, C, H, W order; NCHW strides unless given)
    cudnnBackendDescriptor_t tensor(int64_t uid, std::vector<int64_t> dims, std::vector<int64_t> strides = {},
                                    bool finalize = true)
    {
        if (strides.empty()) strides = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
        cudnnBackendDescriptor_t t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        set<cudnnDataType_t>(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
        set<int64_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
        set<int64_t>(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
        set<int64_t>(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, {uid});
        set<int64_t>(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, {16});
        if (finalize) EXPECT_EQ(cudnnBackendFinalize(t), CUDNN_STATUS_SUCCESS);
        return t;
    }
    cudnnBackendDescriptor_t convolution(std::vector<int64_t> post = {1, 1})
    {
        cudnnBackendDescriptor_t c = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
        set<cudnnDataType_t>(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
        set<cudnnConvolutionMode_t>(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
                                    {CUDNN_CROSS_CORRELATION});
        set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {2});
        set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, {1, 1});
        set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, post);
        set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, {1, 1});
        set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, {1, 1});
        EXPECT_EQ(cudnnBackendFinalize(c), CUDNN_STATUS_SUCCESS);
        return c;
    }
    cudnnBackendDescriptor_t operation(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w,
                                       cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t conv, float beta = 0)
    {
        cudnnBackendDescriptor_t op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, {x});
        set<cudnnBackendDescriptor_t>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, {w});
        set<cudnnBackendDescriptor_t>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, {y});
        set<cudnnBackendDescriptor_t>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, {conv});
        set<float>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, {1.0f});
        set<float>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, {beta});
        return op;
    }
    cudnnBackendDescriptor_t graph(std::vector<cudnnBackendDescriptor_t> ops)
    {
        cudnnBackendDescriptor_t g = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops);
        set<cudnnHandle_t>(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, {session.cudnn});
        return g;
    }
    // the default convolution's finalized graph
    cudnnBackendDescriptor_t good_graph()
    {
        cudnnBackendDescriptor_t op = operation(tensor('x', {1, 8, 6, 6}), tensor('w', {16, 8, 3, 3}),
                                                tensor('y', {1, 16, 6, 6}), convolution());
        EXPECT_EQ(cudnnBackendFinalize(op), CUDNN_STATUS_SUCCESS);
        cudnnBackendDescriptor_t g = graph({op});
        EXPECT_EQ(cudnnBackendFinalize(g), CUDNN_STATUS_SUCCESS);
        return g;
    }
    cudnnBackendDescriptor_t heuristics(cudnnBackendDescriptor_t g)
    {
        cudnnBackendDescriptor_t h = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(h, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, {g});
        set<cudnnBackendHeurMode_t>(h, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, {CUDNN_HEUR_MODE_A});
        return h;
    }
    // mode A's five configurations of the default graph, in fresh descriptors
    std::vector<cudnnBackendDescriptor_t> mode_a_configs(cudnnBackendDescriptor_t *heuristics_out = nullptr)
    {
        cudnnBackendDescriptor_t h = heuristics(good_graph());
        EXPECT_EQ(cudnnBackendFinalize(h), CUDNN_STATUS_SUCCESS);
        std::vector<cudnnBackendDescriptor_t> configs;
        for (int i = 0; i < 5; i++) configs.push_back(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
        int64_t returned = 0;
        EXPECT_EQ(cudnnBackendGetAttribute(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 5, &returned,
                                           configs.data()),
                  CUDNN_STATUS_SUCCESS);
        EXPECT_EQ(returned, 5);
        if (heuristics_out) *heuristics_out = h;
        return configs;
    }
    // the plan of mode A's configuration `which` (the script's 3: engine 3, 1 MiB of workspace), not finalized
    cudnnBackendDescriptor_t plan(int which = 3)
    {
        std::vector<cudnnBackendDescriptor_t> configs = mode_a_configs();
        cudnnBackendDescriptor_t p = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      {configs[which]});
        set<cudnnHandle_t>(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, {session.cudnn});
        return p;
    }
    cudnnBackendDescriptor_t pack(std::vector<int64_t> uids, std::vector<void *> pointers, void *workspace)
    {
        cudnnBackendDescriptor_t v = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        set<int64_t>(v, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids);
        set<void *>(v, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers);
        set<void *>(v, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, {workspace});
        return v;
    }
    void *buffer(int i) { return (char *)memory + (size_t)i * (1 << 20); } // 1 MiB slices
    void *memory = nullptr;
    std::vector<cudnnBackendDescriptor_t> made;
};

TEST_F(StandinGraphRules, DescriptorsAreLiveSetBeforeFinalizeAndReadAfter)
{
    cudnnBackendDescriptor_t t = tensor('x', {1, 8, 6, 6});
    expect_rule(set<int64_t>(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, {9}), CUDNN_STATUS_NOT_INITIALIZED,
                "backendSetAfterFinalize");
    cudnnBackendDescriptor_t p = plan();
    int64_t workspace = 0, count = 0;
    expect_rule(cudnnBackendGetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
                                         &workspace),
                CUDNN_STATUS_NOT_INITIALIZED, "backendGetBeforeFinalize");
    ASSERT_EQ(cudnnBackendFinalize(p), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnBackendGetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
                                       &workspace),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(workspace, 1 << 20);
    // a destroyed descriptor as an operand
    cudnnBackendDescriptor_t op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    cudnnBackendDescriptor_t gone = tensor('w', {16, 8, 3, 3});
    cudnnBackendDestroyDescriptor(gone);
    made.erase(std::find(made.begin(), made.end(), gone));
    expect_rule(set<cudnnBackendDescriptor_t>(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, {gone}),
                CUDNN_STATUS_BAD_PARAM, "backendDescriptorLive");
}

TEST_F(StandinGraphRules, APlansSourcesAndHandleOutliveItAndOutputsAreFresh)
{
    cudnnBackendDescriptor_t h = nullptr;
    std::vector<cudnnBackendDescriptor_t> configs = mode_a_configs(&h);
    int64_t returned = 0;
    // the same configuration descriptors written again
    expect_rule(cudnnBackendGetAttribute(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &returned,
                                         configs.data()),
                CUDNN_STATUS_BAD_PARAM, "backendOutputFresh");
    // a derived attribute is not set
    cudnnBackendDescriptor_t p = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    int64_t bytes = 0;
    expect_rule(cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &bytes),
                CUDNN_STATUS_BAD_PARAM, "backendAttributeOfDescriptor");
    // the configuration of a live plan destroyed before it
    set<cudnnBackendDescriptor_t>(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, {configs[3]});
    set<cudnnHandle_t>(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, {session.cudnn});
    ASSERT_EQ(cudnnBackendFinalize(p), CUDNN_STATUS_SUCCESS);
    made.erase(std::find(made.begin(), made.end(), configs[3]));
    expect_rule(cudnnBackendDestroyDescriptor(configs[3]), CUDNN_STATUS_SUCCESS, "backendPlanSources");
    // a handle destroyed while an operation graph finalized with it lives
    cudnnHandle_t other = nullptr;
    ASSERT_EQ(cudnnCreate(&other), CUDNN_STATUS_SUCCESS);
    cudnnSetStream(other, session.stream);
    cudnnBackendDescriptor_t op = operation(tensor('x', {1, 8, 6, 6}), tensor('w', {16, 8, 3, 3}),
                                            tensor('y', {1, 16, 6, 6}), convolution());
    ASSERT_EQ(cudnnBackendFinalize(op), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t g = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set<cudnnBackendDescriptor_t>(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, {op});
    set<cudnnHandle_t>(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, {other});
    ASSERT_EQ(cudnnBackendFinalize(g), CUDNN_STATUS_SUCCESS);
    EXPECT_TRUE(standin_backend_uses_handle(other));
    expect_rule(cudnnDestroy(other), CUDNN_STATUS_SUCCESS, "handleOutlivesPlans");
}

TEST_F(StandinGraphRules, AttributesHaveTheirDescriptorTheirTypeAndTheirCount)
{
    cudnnBackendDescriptor_t t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    expect_rule(set<int32_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, {1, 8, 6, 6}), CUDNN_STATUS_BAD_PARAM,
                "backendAttributeType"); // dimensions are int64
    expect_rule(set<int64_t>(t, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {2}), CUDNN_STATUS_BAD_PARAM,
                "backendAttributeOfDescriptor");
    expect_rule(set<int64_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, std::vector<int64_t>(9, 1)),
                CUDNN_STATUS_BAD_PARAM, "backendElementCount");
}

TEST_F(StandinGraphRules, TensorsAreCompleteDenseAndAligned)
{
    cudnnBackendDescriptor_t t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set<int64_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, {1, 8, 6, 6});
    expect_rule(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM, "tensorRequired");
    // dimensions given in N, H, W, C order with NCHW's dense strides: neither layout
    cudnnBackendDescriptor_t nhwc_order = tensor('x', {1, 6, 6, 8}, {288, 1, 48, 8}, false);
    expect_rule(cudnnBackendFinalize(nhwc_order), CUDNN_STATUS_BAD_PARAM, "tensorDenseLayout");
    cudnnBackendDescriptor_t odd = tensor('x', {1, 8, 6, 6}, {}, false);
    set<int64_t>(odd, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, {12});
    expect_rule(cudnnBackendFinalize(odd), CUDNN_STATUS_BAD_PARAM, "tensorAlignment");
    // NHWC by strides, the dimensions in N, C, H, W order: dense
    EXPECT_EQ(cudnnBackendFinalize(tensor('x', {1, 8, 6, 6}, {288, 1, 48, 8}, false)), CUDNN_STATUS_SUCCESS);
}

TEST_F(StandinGraphRules, AConvolutionsShapesGroupsAndScalarsAgree)
{
    cudnnBackendDescriptor_t c = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    set<cudnnDataType_t>(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {2});
    set<int64_t>(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, {1});
    expect_rule(cudnnBackendFinalize(c), CUDNN_STATUS_BAD_PARAM, "convDescriptorRequired");
    cudnnBackendDescriptor_t x = tensor('x', {1, 8, 6, 6}), y = tensor('y', {1, 16, 6, 6});
    // groups are X.C / W.C: 8 / 3 is none
    expect_rule(cudnnBackendFinalize(operation(x, tensor('w', {16, 3, 3, 3}), y, convolution())),
                CUDNN_STATUS_BAD_PARAM, "convGroups");
    // no post padding: 4x4, not 6x6 (the graph API pads each side on its own)
    expect_rule(cudnnBackendFinalize(operation(x, tensor('w', {16, 8, 3, 3}), y, convolution({0, 0}))),
                CUDNN_STATUS_BAD_PARAM, "convOutputDims");
    expect_rule(cudnnBackendFinalize(operation(x, tensor('w', {16, 8, 3, 3}), y, convolution(), 1.0f)),
                CUDNN_STATUS_BAD_PARAM, "convAlphaBeta");
    // post padding 0 and a 5x5 output: one side more, right
    EXPECT_EQ(cudnnBackendFinalize(operation(x, tensor('w', {16, 8, 3, 3}), tensor('y', {1, 16, 5, 5}),
                                             convolution({0, 0}))),
              CUDNN_STATUS_SUCCESS);
}

TEST_F(StandinGraphRules, AGraphsTensorsHaveOneIdEachAndNoOperationWritesItsInput)
{
    cudnnBackendDescriptor_t x = tensor('x', {1, 8, 6, 6});
    // W under X's id
    cudnnBackendDescriptor_t op = operation(x, tensor('x', {16, 8, 3, 3}), tensor('y', {1, 16, 6, 6}), convolution());
    ASSERT_EQ(cudnnBackendFinalize(op), CUDNN_STATUS_SUCCESS);
    expect_rule(cudnnBackendFinalize(graph({op})), CUDNN_STATUS_BAD_PARAM, "graphUniqueIds");
    // a 1x1 convolution 8 -> 8 writing its own input
    cudnnBackendDescriptor_t one = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    set<cudnnDataType_t>(one, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    set<cudnnConvolutionMode_t>(one, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, {CUDNN_CROSS_CORRELATION});
    set<int64_t>(one, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {2});
    for (cudnnBackendAttributeName_t name : {CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS})
        set<int64_t>(one, name, CUDNN_TYPE_INT64, {0, 0});
    for (cudnnBackendAttributeName_t name : {CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES})
        set<int64_t>(one, name, CUDNN_TYPE_INT64, {1, 1});
    ASSERT_EQ(cudnnBackendFinalize(one), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t in_place = operation(x, tensor('w', {8, 8, 1, 1}), x, one);
    ASSERT_EQ(cudnnBackendFinalize(in_place), CUDNN_STATUS_SUCCESS);
    expect_rule(cudnnBackendFinalize(graph({in_place})), CUDNN_STATUS_BAD_PARAM, "graphInPlace");
    // a virtual input: nothing produces it
    cudnnBackendDescriptor_t v = tensor('v', {1, 8, 6, 6}, {}, false);
    bool yes = true;
    cudnnBackendSetAttribute(v, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
    ASSERT_EQ(cudnnBackendFinalize(v), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t reads_virtual = operation(v, tensor('w', {16, 8, 3, 3}), tensor('y', {1, 16, 6, 6}), convolution());
    ASSERT_EQ(cudnnBackendFinalize(reads_virtual), CUDNN_STATUS_SUCCESS);
    expect_rule(cudnnBackendFinalize(graph({reads_virtual})), CUDNN_STATUS_BAD_PARAM, "graphVirtualTensors");
}

TEST_F(StandinGraphRules, APointwiseEpilogueFollowsItsConvolutionInFloatWithUnitAlphas)
{
    auto virtual_tensor = [&](int64_t uid, cudnnDataType_t type) {
        cudnnBackendDescriptor_t v = tensor(uid, {1, 16, 6, 6}, {}, false);
        bool yes = true;
        cudnnBackendSetAttribute(v, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
        set<cudnnDataType_t>(v, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, {type});
        EXPECT_EQ(cudnnBackendFinalize(v), CUDNN_STATUS_SUCCESS);
        return v;
    };
    auto pw = [&](cudnnPointwiseMode_t mode) {
        cudnnBackendDescriptor_t d = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
        set<cudnnPointwiseMode_t>(d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, {mode});
        set<cudnnDataType_t>(d, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
        EXPECT_EQ(cudnnBackendFinalize(d), CUDNN_STATUS_SUCCESS);
        return d;
    };
    auto op = [&](cudnnBackendDescriptor_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                  cudnnBackendDescriptor_t y, float alpha) {
        cudnnBackendDescriptor_t o = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, {mode});
        set<cudnnBackendDescriptor_t>(o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, {x});
        if (b) set<cudnnBackendDescriptor_t>(o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, {b});
        set<cudnnBackendDescriptor_t>(o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, {y});
        set<float>(o, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, {alpha});
        set<float>(o, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, {1.0f});
        return o;
    };
    cudnnBackendDescriptor_t pw_mode = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set<cudnnPointwiseMode_t>(pw_mode, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, {CUDNN_POINTWISE_ADD});
    expect_rule(cudnnBackendFinalize(pw_mode), CUDNN_STATUS_BAD_PARAM, "pointwiseRequired");
    cudnnBackendDescriptor_t add = pw(CUDNN_POINTWISE_ADD), relu = pw(CUDNN_POINTWISE_RELU_FWD);
    cudnnBackendDescriptor_t v = virtual_tensor(1000, CUDNN_DATA_FLOAT), y = tensor('y', {1, 16, 6, 6});
    cudnnBackendDescriptor_t bias = tensor('b', {1, 16, 1, 1});
    // a relu with a second input; an add without one
    expect_rule(cudnnBackendFinalize(op(relu, v, bias, y, 1.0f)), CUDNN_STATUS_BAD_PARAM, "pointwiseOperationRequired");
    expect_rule(cudnnBackendFinalize(op(add, v, nullptr, y, 1.0f)), CUDNN_STATUS_BAD_PARAM, "pointwiseOperationRequired");
    // fusion engines take alpha 1 only
    expect_rule(cudnnBackendFinalize(op(add, v, bias, y, 0.5f)), CUDNN_STATUS_NOT_SUPPORTED, "pointwiseAlpha");
    // a bias that does not broadcast (8 channels against 16)
    expect_rule(cudnnBackendFinalize(op(add, v, tensor('b', {1, 8, 1, 1}), y, 1.0f)), CUDNN_STATUS_BAD_PARAM,
                "pointwiseShapes");
    // the convolution first, its output the first pointwise operation's X, and in float
    cudnnBackendDescriptor_t conv = operation(tensor('x', {1, 8, 6, 6}), tensor('w', {16, 8, 3, 3}), v, convolution());
    ASSERT_EQ(cudnnBackendFinalize(conv), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t add_bias = op(add, v, bias, y, 1.0f);
    ASSERT_EQ(cudnnBackendFinalize(add_bias), CUDNN_STATUS_SUCCESS);
    expect_rule(cudnnBackendFinalize(graph({add_bias, conv})), CUDNN_STATUS_NOT_SUPPORTED, "graphPattern");
    EXPECT_EQ(cudnnBackendFinalize(graph({conv, add_bias})), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t v_half = virtual_tensor(1001, CUDNN_DATA_HALF);
    cudnnBackendDescriptor_t conv_half = operation(tensor('x', {1, 8, 6, 6}), tensor('w', {16, 8, 3, 3}), v_half,
                                                   convolution());
    // (a float convolution into a half virtual tensor: the io types disagree first)
    expect_rule(cudnnBackendFinalize(conv_half), CUDNN_STATUS_BAD_PARAM, "convTypes");
}

// A configuration made from an engine's global index and knobs (a kept
// selection): the engine must exist for the graph, and the knobs be its own.
TEST_F(StandinGraphRules, AnEngineIsMadeFromItsGlobalIndexAndItsOwnKnobs)
{
    cudnnBackendDescriptor_t g = good_graph();
    auto engine = [&](int64_t index) {
        cudnnBackendDescriptor_t e = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, {g});
        set<int64_t>(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, {index});
        return e;
    };
    EXPECT_EQ(cudnnBackendFinalize(engine(99)), CUDNN_STATUS_NOT_SUPPORTED) << "no engine 99 in the script";
    cudnnBackendDescriptor_t three = engine(3);
    ASSERT_EQ(cudnnBackendFinalize(three), CUDNN_STATUS_SUCCESS);
    auto knob = [&](cudnnBackendKnobType_t type, int64_t value) {
        cudnnBackendDescriptor_t k = create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        set<cudnnBackendKnobType_t>(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, {type});
        set<int64_t>(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, {value});
        EXPECT_EQ(cudnnBackendFinalize(k), CUDNN_STATUS_SUCCESS);
        return k;
    };
    auto config = [&](cudnnBackendDescriptor_t k) {
        cudnnBackendDescriptor_t c = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        set<cudnnBackendDescriptor_t>(c, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, {three});
        set<cudnnBackendDescriptor_t>(c, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, {k});
        return c;
    };
    EXPECT_EQ(cudnnBackendFinalize(config(knob(CUDNN_KNOB_TYPE_STAGES, 2))), CUDNN_STATUS_NOT_SUPPORTED)
        << "engine 3 has no STAGES knob";
    cudnnBackendDescriptor_t ok = config(knob(CUDNN_KNOB_TYPE_SPLIT_K, 1));
    ASSERT_EQ(cudnnBackendFinalize(ok), CUDNN_STATUS_SUCCESS);
    cudnnBackendDescriptor_t p = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set<cudnnBackendDescriptor_t>(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, {ok});
    set<cudnnHandle_t>(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, {session.cudnn});
    EXPECT_EQ(cudnnBackendFinalize(p), CUDNN_STATUS_SUCCESS);
}

TEST_F(StandinGraphRules, HeuristicsWriteIntoTheCallersConfigurationsAndNeverRunInACapture)
{
    cudnnBackendDescriptor_t h = heuristics(good_graph());
    ASSERT_EQ(cudnnBackendFinalize(h), CUDNN_STATUS_SUCCESS);
    int64_t available = 0;
    ASSERT_EQ(cudnnBackendGetAttribute(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available,
                                       nullptr),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(available, 5) << "mode A's engines of the default script";
    // results into descriptors of another kind (cudnn-frontend makes ENGINECFG ones first)
    std::vector<cudnnBackendDescriptor_t> wrong = {create(CUDNN_BACKEND_TENSOR_DESCRIPTOR)};
    int64_t returned = 0;
    expect_rule(cudnnBackendGetAttribute(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &returned,
                                         wrong.data()),
                CUDNN_STATUS_BAD_PARAM, "backendOutputDescriptors");
    // heuristics and a plan's finalize inside a capture: refused, and the capture ends invalid
    cudnnBackendDescriptor_t later = heuristics(good_graph()), p = plan();
    ASSERT_EQ(cudaStreamBeginCapture(session.stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    expect_rule(cudnnBackendFinalize(later), CUDNN_STATUS_NOT_SUPPORTED, "heurNotCaptured");
    expect_rule(cudnnBackendFinalize(p), CUDNN_STATUS_NOT_SUPPORTED, "planNotCaptured");
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaStreamEndCapture(session.stream, &graph), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
}

TEST_F(StandinGraphRules, AVariantPackNamesTheGraphsTensorsInDeviceMemoryWithTheWorkspace)
{
    cudnnBackendDescriptor_t p = plan();
    ASSERT_EQ(cudnnBackendFinalize(p), CUDNN_STATUS_SUCCESS);
    const std::vector<int64_t> uids = {'x', 'w', 'y'};
    const std::vector<void *> pointers = {buffer(0), buffer(1), buffer(2)};
    cudnnBackendDescriptor_t good = pack(uids, pointers, buffer(3));
    ASSERT_EQ(cudnnBackendFinalize(good), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnBackendExecute(session.cudnn, p, good), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudaStreamSynchronize(session.stream), cudaSuccess);
    expect_rule(cudnnBackendFinalize(pack(uids, {buffer(0), buffer(1)}, buffer(3))), CUDNN_STATUS_BAD_PARAM,
                "packRequired");
    cudnnBackendDescriptor_t unfinalized = pack(uids, pointers, buffer(3));
    expect_rule(cudnnBackendExecute(session.cudnn, p, unfinalized), CUDNN_STATUS_BAD_PARAM, "executeFinalized");
    auto execute = [&](std::vector<int64_t> u, std::vector<void *> ptr, void *workspace) {
        cudnnBackendDescriptor_t v = pack(u, ptr, workspace);
        EXPECT_EQ(cudnnBackendFinalize(v), CUDNN_STATUS_SUCCESS);
        return cudnnBackendExecute(session.cudnn, p, v);
    };
    expect_rule(execute({'x', 'y', 'z'}, pointers, buffer(3)), CUDNN_STATUS_BAD_PARAM, "packMatchesGraph");
    expect_rule(execute({'x', 'y'}, {buffer(0), buffer(2)}, buffer(3)), CUDNN_STATUS_BAD_PARAM, "packMatchesGraph");
    expect_rule(execute(uids, {(char *)buffer(0) + 4, buffer(1), buffer(2)}, buffer(3)), CUDNN_STATUS_BAD_PARAM,
                "packPointers"); // 4 bytes past a 16-byte boundary
    float host[8];
    expect_rule(execute(uids, {host, buffer(1), buffer(2)}, buffer(3)), CUDNN_STATUS_BAD_PARAM, "packPointers");
    expect_rule(execute(uids, pointers, nullptr), CUDNN_STATUS_BAD_PARAM, "packWorkspace"); // engine 3 needs 1 MiB
}

} // namespace
