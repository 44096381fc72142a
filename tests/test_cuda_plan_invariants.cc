// The cuda backend's lowering plan over every example space and every op
// case, fused and eager (no GPU needed): what each step reads exists before
// it, a node merged into a step has one reader and no buffer, the output has
// a buffer. And the device check's time model: each table step's limit covers
// its space's units and distinct convolutions (bench/gpu_check.sh).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "helpers.h"
#include "op_cases.h"

extern "C" {
#include "ir/space.h"
#include "kernels/cuda_plan.h"
#include "kernels/cuda_select.h"
}

namespace {

const char *const kSpaces[] = {"mobilenet_v2.json",     "resnet18.json",       "resnet50.json",
                               "mobilenet_v2_space.json", "proxylessnas.json", "ofa_mobilenet_v3.json",
                               "fbnet.json",            "yolov5s_ss.json",     "yolov5s.json",
                               "efficientnet_b0.json",  "mnasnet1_0.json",     "mobilenet_v3_large.json",
                               "shufflenet_v2_x1_0.json", "autoformer_tiny.json", "hybrid_vit.json", "convnext_atto.json"};

// Checks one plan of graph; what is wrong, or "".
std::string plan_problems(const sslat_graph *g, const cuda_plan &plan)
{
    std::vector<int> readers(g->count, 0);
    for (int32_t i = 0; i < g->count; i++)
        for (int k = 0; k < sslat_node_input_count(&g->nodes[i]); k++)
            if (g->nodes[i].input[k] >= 0) readers[g->nodes[i].input[k]]++;
    std::set<int32_t> produced; // values with a buffer (or an alias of one)
    std::string problems;
    auto exists = [&](int32_t value) {
        return value == SSLAT_GRAPH_INPUT || value == SSLAT_NO_INPUT || produced.count(value) > 0;
    };
    for (int32_t s = 0; s < plan.count; s++) {
        const cuda_step &step = plan.steps[s];
        for (int32_t value : {step.input[0], step.input[1], step.residual})
            if (!exists(value))
                problems += "step " + std::to_string(s) + " reads value " + std::to_string(value) +
                            " before any step writes it; ";
        if (step.node < 0 || step.node >= g->count) {
            problems += "step " + std::to_string(s) + " writes no node; ";
            continue;
        }
        if (produced.count(step.node)) problems += "node " + std::to_string(step.node) + " written twice; ";
        produced.insert(step.node);
        // nodes merged into this step: its main op and a folded BN, when not the value it writes
        for (int32_t merged : {step.main_node, step.bn_node})
            if (merged >= 0 && merged != step.node && readers[merged] != 1)
                problems += "node " + std::to_string(merged) + " merged into step " + std::to_string(s) + " has " +
                            std::to_string(readers[merged]) + " readers; ";
    }
    // every node no step writes is merged into the one step that reads it
    for (int32_t i = 0; i < g->count; i++)
        if (!produced.count(i) && readers[i] != 1)
            problems += "node " + std::to_string(i) + " has no buffer and " + std::to_string(readers[i]) + " readers; ";
    // a value no step writes (merged) is read by nobody outside the step it is merged into
    for (int32_t s = 0; s < plan.count; s++)
        for (int32_t value : {plan.steps[s].input[0], plan.steps[s].input[1], plan.steps[s].residual})
            if (value >= 0 && !produced.count(value)) problems += "a merged value is read; ";
    if (plan.output != SSLAT_GRAPH_INPUT && !produced.count(plan.output))
        problems += "the output value " + std::to_string(plan.output) + " has no buffer; ";
    if (plan.output != sslat_graph_output_index(g)) problems += "the plan's output is not the graph's; ";
    return problems;
}

// Every candidate of a space, both modes; the number of plans checked.
int check_space(const sslat_space *space, const std::string &what)
{
    int checked = 0;
    for (int32_t i = 0; i < space->n_layers; i++)
        for (int32_t c = 0; c < space->layers[i].n_candidates; c++)
            for (sslat_exec_mode mode : {SSLAT_MODE_FUSED, SSLAT_MODE_EAGER})
              for (sslat_cudnn_api api : {SSLAT_CUDNN_API_LEGACY, SSLAT_CUDNN_API_GRAPH}) {
                const sslat_graph *g = &space->layers[i].candidates[c].graph;
                cuda_plan plan;
                sslat_error err;
                bool supported = true; /* a ceil-mode pool: refused by name, never half-planned */
                for (int32_t k = 0; k < g->count; k++) supported = supported && cuda_plan_supports(&g->nodes[k]);
                if (!supported) {
                    EXPECT_EQ(cuda_plan_build(g, mode, api, &plan, &err), SSLAT_ERR_UNSUPPORTED) << what;
                    EXPECT_NE(std::string(err.message).find("ceil-mode max pool"), std::string::npos) << err.message;
                    continue;
                }
                EXPECT_EQ(cuda_plan_build(g, mode, api, &plan, &err), SSLAT_OK) << what << ": " << err.message;
                if (plan.count == 0 && g->count > 0) ADD_FAILURE() << what << ": an empty plan";
                std::string problems = plan_problems(g, plan);
                EXPECT_EQ(problems, "") << what << " layer '" << space->layers[i].name << "' candidate '"
                                        << space->layers[i].candidates[c].label << "' "
                                        << (mode == SSLAT_MODE_FUSED ? "fused" : "eager") << " "
                                        << sslat_cudnn_api_name(api);
                cuda_plan_release(&plan);
                checked++;
            }
    return checked;
}

TEST(CudaPlanInvariants, EveryExampleSpaceBothModes)
{
    int plans = 0;
    for (const char *name : kSpaces) {
        sslat_space *space = load_example(name);
        ASSERT_NE(space, nullptr) << name;
        plans += check_space(space, name);
        sslat_space_free(space);
    }
    EXPECT_GT(plans, 1000);
}

TEST(CudaPlanInvariants, EveryOpCaseBothModes)
{
    for (const OpCase &c : CASES) {
        sslat_space *space = load_text(space_json(c.layers, "", std::string("{\"shape\": ") + c.input + "}"));
        ASSERT_NE(space, nullptr) << c.layers;
        check_space(space, c.layers);
        sslat_space_free(space);
    }
}

TEST(CudaPlanInvariants, LopsidedPaddingIsRefusedByNameOnTheLegacyApiAndPlannedOnTheGraphApi)
{
    for (const OpCase &c : LOPSIDED_CASES) {
        sslat_space *space = load_text(space_json(c.layers, "", std::string("{\"shape\": ") + c.input + "}"));
        ASSERT_NE(space, nullptr) << c.layers;
        const sslat_graph *g = &space->layers[0].candidates[0].graph;
        cuda_plan plan;
        sslat_error err;
        EXPECT_EQ(cuda_plan_build(g, SSLAT_MODE_FUSED, SSLAT_CUDNN_API_LEGACY, &plan, &err), SSLAT_ERR_UNSUPPORTED)
            << c.layers;
        EXPECT_NE(std::string(err.message).find("padded one side more than the other"), std::string::npos)
            << err.message;
        EXPECT_NE(std::string(err.message).find("--cuda-api graph"), std::string::npos) << err.message;
        // the graph API takes each side's padding: planned, through a graph plan
        ASSERT_EQ(cuda_plan_build(g, SSLAT_MODE_FUSED, SSLAT_CUDNN_API_GRAPH, &plan, &err), SSLAT_OK) << err.message;
        EXPECT_EQ(plan.steps[0].call, CUDA_CALL_CUDNN_GRAPH_CONV) << c.layers;
        EXPECT_EQ(plan_problems(g, plan), "") << c.layers;
        cuda_plan_release(&plan);
        sslat_space_free(space);
    }
}

TEST(CudaPlanInvariants, TheCheckerFindsABrokenPlan)
{
    sslat_space *space = load_text(space_json("\"cn_k3_c16_nre\""));
    ASSERT_NE(space, nullptr);
    const sslat_graph *g = &space->layers[0].candidates[0].graph;
    cuda_plan plan;
    sslat_error err;
    ASSERT_EQ(cuda_plan_build(g, SSLAT_MODE_FUSED, SSLAT_CUDNN_API_LEGACY, &plan, &err), SSLAT_OK);
    ASSERT_EQ(plan.count, 1); // conv + BN + relu: one call
    EXPECT_EQ(plan_problems(g, plan), "");
    plan.steps[0].input[0] = plan.steps[0].node; // reads what it writes
    EXPECT_NE(plan_problems(g, plan).find("before any step writes it"), std::string::npos);
    plan.steps[0].input[0] = SSLAT_GRAPH_INPUT;
    plan.output = plan.steps[0].main_node; // the output on the merged conv
    EXPECT_NE(plan_problems(g, plan).find("has no buffer"), std::string::npos);
    cuda_plan_release(&plan);
    sslat_space_free(space);
}

// ---- the device check's time model ------------------------------------------

struct TableWork {
    int units = 0;          // distinct subgraphs (measured once each)
    int convolutions = 0;   // distinct convolutions (one cuDNN Find each)
};

TableWork work_of(const char *space_name, int dtype, bool nhwc)
{
    TableWork work;
    sslat_space *space = load_example(space_name);
    EXPECT_NE(space, nullptr);
    if (!space) return work;
    std::set<uint64_t> units;
    std::set<std::vector<int64_t>> keys;
    for (int32_t i = 0; i < space->n_layers; i++)
        for (int32_t c = 0; c < space->layers[i].n_candidates; c++) {
            const sslat_graph *g = &space->layers[i].candidates[c].graph;
            if (!units.insert(sslat_graph_hash(g)).second) continue;
            cuda_plan plan;
            sslat_error err;
            EXPECT_EQ(cuda_plan_build(g, SSLAT_MODE_FUSED, SSLAT_CUDNN_API_LEGACY, &plan, &err), SSLAT_OK) << err.message;
            for (int32_t s = 0; s < plan.count; s++) {
                if (plan.steps[s].kind != CUDA_STEP_CONV) continue;
                const sslat_node *node = &g->nodes[plan.steps[s].main_node];
                cuda_conv_key key =
                    cuda_conv_key_of(sslat_graph_shape_of(g, node->input[0]), node->shape, sslat_node_conv(node), dtype,
                                     nhwc, 0, plan.steps[s].call == CUDA_CALL_CUDNN_CONV_BIAS_ACT, 0);
                keys.insert(std::vector<int64_t>(key.fields, key.fields + CUDA_CONV_KEY_FIELDS));
            }
            cuda_plan_release(&plan);
        }
    sslat_space_free(space);
    work.units = (int)units.size();
    work.convolutions = (int)keys.size();
    return work;
}

// The limit bench/gpu_check.sh gives a step ("table_px:75" in its LIMITS).
int limit_of(const std::string &script, const std::string &step)
{
    std::smatch m;
    std::regex pattern("\\b" + step + ":([0-9]+)\\b");
    return std::regex_search(script, m, pattern) ? std::stoi(m[1]) : -1;
}

// The review's model of a table's time on the device (turn 3, §4.6): 0.05 s a
// unit (capture, replays, samples), 0.3 s a distinct convolution (cuDNN's
// Find), 4 s to start. The H200 took 24.8 s (ProxylessNAS fp16) and 24-26 s
// (OFA fp32) for what this model puts at about 35 s and 57 s: a margin, not a
// prediction.
double model_seconds(const TableWork &w) { return w.units * 0.05 + w.convolutions * 0.3 + 4.0; }
// On the graph API a distinct convolution costs heuristics (two modes), up to
// ten plans finalized (runtime-compiled ones compile) and each timed by a
// capture and four replays: 0.6 s, a guess until a GPU run measures it.
double graph_model_seconds(const TableWork &w) { return w.units * 0.05 + w.convolutions * 0.6 + 4.0; }

TEST(DeviceCheckTimeModel, EachTableStepHasTheTimeItsSpaceNeeds)
{
    std::string script = read_file(example_path("../bench/gpu_check.sh"));
    ASSERT_FALSE(script.empty());
    // ProxylessNAS batch 1 fp16 (NHWC), OFA batch 1 fp32 (NCHW), as the check runs them
    TableWork px = work_of("proxylessnas.json", 2 /* SSLAT_DTYPE_FP16 */, true);
    TableWork ofa = work_of("ofa_mobilenet_v3.json", 0 /* SSLAT_DTYPE_FP32 */, false);
    // the counts the H200 run reported (bench/results/h200-2026-12-04.md): 76 units, 90 Finds; 102 units, 160 Finds
    EXPECT_EQ(px.units, 76);
    EXPECT_EQ(px.convolutions, 90);
    EXPECT_EQ(ofa.units, 102);
    EXPECT_EQ(ofa.convolutions, 160);
    TableWork px_fp32 = work_of("proxylessnas.json", 0 /* SSLAT_DTYPE_FP32 */, false);
    const struct {
        const char *step;
        TableWork work;
        double seconds;
    } steps[] = {{"table_px", px, model_seconds(px)},
                 {"table_ofa", ofa, model_seconds(ofa)},
                 {"table_px_graph", px, graph_model_seconds(px)},
                 {"table_px_fp32_graph", px_fp32, graph_model_seconds(px_fp32)},
                 {"table_ofa_graph", ofa, graph_model_seconds(ofa)}};
    for (const auto &s : steps) {
        int limit = limit_of(script, s.step);
        ASSERT_GT(limit, 0) << s.step << " has no limit in bench/gpu_check.sh";
        EXPECT_GE(limit, s.seconds) << s.step << ": " << s.work.units << " units, " << s.work.convolutions
                                    << " distinct convolutions";
    }
}

} // namespace
