// No reference kernel is timed silently (host/choose.h): the decision rule on
// made-up trials, the lowerings it chooses between, and every example space
// measured with the implementation names read back from the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_helpers.h"
#include "helpers.h"

extern "C" {
#include "host/choose.h"
#include "host/lower.h"
#include "ir/space.h"
}

namespace {

TEST(ChooseLowering, ReferenceImplementationsAreRecognisedByName)
{
    EXPECT_TRUE(host_impl_is_reference("ref:any"));
    EXPECT_TRUE(host_impl_is_reference("ref_fused:any"));
    EXPECT_FALSE(host_impl_is_reference("jit_1x1:avx2"));
    EXPECT_FALSE(host_impl_is_reference("x64:gemm:jit"));
    EXPECT_FALSE(host_impl_is_reference("simple_nchw:any"));
    EXPECT_FALSE(host_impl_is_reference(""));
}

TEST(ChooseLowering, KeepsTheFastestLoweringWithoutAReferenceKernel)
{
    bool reference = true;
    // the default runs a reference kernel; of the others, the third is fastest
    const host_trial trials[] = {{true, true, 10.0}, {true, false, 2.0}, {true, false, 1.0}, {true, false, 3.0}};
    EXPECT_EQ(host_pick_trial(trials, 4, &reference), 2);
    EXPECT_FALSE(reference);
    // a faster lowering that still has a reference kernel never wins
    const host_trial faster_ref[] = {{true, true, 10.0}, {true, true, 0.5}, {true, false, 4.0}};
    EXPECT_EQ(host_pick_trial(faster_ref, 3, &reference), 2);
    EXPECT_FALSE(reference);
    // lowerings oneDNN refused are no candidates
    const host_trial unbuilt[] = {{true, true, 10.0}, {false, false, 0.0}, {true, false, 6.0}};
    EXPECT_EQ(host_pick_trial(unbuilt, 3, &reference), 2);
}

TEST(ChooseLowering, NearTiesKeepTheLoweringCloserToTheDefault)
{
    bool reference = true;
    // 5% apart is within the noise of a brief timing: the earlier one stays
    const host_trial close[] = {{true, true, 10.0}, {true, false, 2.0}, {true, false, 1.9}};
    EXPECT_EQ(host_pick_trial(close, 3, &reference), 1);
    // beyond the margin the later one wins
    const host_trial apart[] = {{true, true, 10.0}, {true, false, 2.0}, {true, false, 2.0 * (1 - HOST_PICK_MARGIN) - 0.01}};
    EXPECT_EQ(host_pick_trial(apart, 3, &reference), 2);
}

TEST(ChooseLowering, WhenEveryLoweringIsAReferenceTheFastestIsKeptAndFlagged)
{
    bool reference = false;
    const host_trial all[] = {{true, true, 10.0}, {true, true, 4.0}, {false, false, 0.0}, {true, true, 7.0}};
    EXPECT_EQ(host_pick_trial(all, 4, &reference), 1);
    EXPECT_TRUE(reference);
    const host_trial none[] = {{false, false, 0.0}};
    EXPECT_EQ(host_pick_trial(none, 1, &reference), -1);
    EXPECT_FALSE(reference);
}

TEST(ChooseLowering, EachModeTriesItsDefaultFirstAndEndsEager)
{
    host_lowering ladder[HOST_MAX_LOWERINGS];
    int n = host_lowering_ladder(SSLAT_MODE_FUSED, ladder);
    ASSERT_GE(n, 2);
    ASSERT_LE(n, HOST_MAX_LOWERINGS);
    host_lowering fused = host_lowering_default(SSLAT_MODE_FUSED);
    EXPECT_EQ(memcmp(&ladder[0], &fused, sizeof fused), 0);
    EXPECT_EQ(ladder[n - 1].mode, SSLAT_MODE_EAGER);
    n = host_lowering_ladder(SSLAT_MODE_EAGER, ladder);
    host_lowering eager = host_lowering_default(SSLAT_MODE_EAGER);
    EXPECT_EQ(ladder[0].mode, eager.mode);
    EXPECT_EQ(ladder[0].shuffle, eager.shuffle);
    for (int i = 0; i < n; i++) EXPECT_EQ(ladder[i].mode, SSLAT_MODE_EAGER);  // eager never becomes fused
    char name[128];
    host_lowering_describe(ladder[n - 1], name, sizeof name);
    EXPECT_STREQ(name, "eager, shuffle as reorder");
}

std::vector<std::string> body_kinds(host_session *session, const char *layer, const char *input,
                                    host_lowering lowering)
{
    sslat_space *space = load_text(space_json(layer, "", std::string("{\"shape\": ") + input + "}"));
    host_program p;
    sslat_error err;
    std::vector<std::string> kinds;
    EXPECT_EQ(host_program_init(&p, session, space->input, lowering.mode, 1, &err), SSLAT_OK);
    p.lowering = lowering;
    EXPECT_EQ(host_program_append(&p, &space->layers[0].candidates[0].graph, &err), SSLAT_OK) << err.message;
    for (int i = 0; i < p.body.count; i++) {
        EXPECT_NE(p.body.items[i].impl[0], '\0') << "every step names its implementation";
        kinds.push_back(p.body.items[i].kind);
    }
    host_program_release(&p);
    sslat_space_free(space);
    return kinds;
}

TEST(CpuLowering, EachLoweringRunsTheResidualItsOwnWay)
{
    SKIP_WITHOUT_DNNL();
    host_session session;
    sslat_error err;
    ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK);
    const host_lowering binary = {SSLAT_MODE_FUSED, HOST_RESIDUAL_BINARY_POST_OP, HOST_SHUFFLE_PRIMITIVE};
    const host_lowering sum = {SSLAT_MODE_FUSED, HOST_RESIDUAL_SUM_POST_OP, HOST_SHUFFLE_PRIMITIVE};
    const host_lowering separate = {SSLAT_MODE_FUSED, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_PRIMITIVE};
    // MBConv with residual: expand, dw, project (+ the add, three ways)
    using K = std::vector<std::string>;
    EXPECT_EQ(body_kinds(&session, "\"ir_k3_e4\"", "[16, 8, 8]", binary), (K{"convolution", "convolution", "convolution"}));
    // the residual copied into dst, which the projection's sum post-op adds onto
    EXPECT_EQ(body_kinds(&session, "\"ir_k3_e4\"", "[16, 8, 8]", sum),
              (K{"convolution", "convolution", "reorder", "convolution"}));
    EXPECT_EQ(body_kinds(&session, "\"ir_k3_e4\"", "[16, 8, 8]", separate),
              (K{"convolution", "convolution", "convolution", "binary"}));
    // channel shuffle as its own primitive, or as a reorder over a 5-D view
    K primitive = body_kinds(&session, "\"shuffle_g4\"", "[8, 4, 4]", {SSLAT_MODE_EAGER, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_PRIMITIVE});
    K reorder = body_kinds(&session, "\"shuffle_g4\"", "[8, 4, 4]", {SSLAT_MODE_EAGER, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_REORDER});
    EXPECT_EQ(primitive, K{"shuffle"});
    EXPECT_EQ(std::count(reorder.begin(), reorder.end(), "shuffle"), 0);
    EXPECT_EQ(reorder.back(), "reorder");
    host_session_close(&session);
}

TEST(CpuLowering, AReferenceKernelOfTheDefaultIsAvoidedAndTheChoiceRemembered)
{
    SKIP_WITHOUT_DNNL();
    host_session session;
    sslat_error err;
    ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK);
    // Two cases oneDNN 2.6 has no JIT kernel for on some CPU: FBNet's grouped
    // e1 block on 24 channels (AVX2: the 1x1 grouped convolution as a
    // plain-layout GEMM, the shuffle after it on its reference kernel) and
    // MobileNetV2's residual block (avx512_core: the 1x1 projection with a
    // binary_add post-op). Which one needs a fallback depends on the ISA, so
    // the test takes the first this CPU runs on a reference kernel.
    sslat_space *space = nullptr;
    const sslat_graph *graph = nullptr;
    int reference = -1;
    for (const char *block : {"{\"op\": \"ir\", \"k\": 3, \"e\": 1, \"g\": 2, \"c\": 24}",
                              "{\"op\": \"ir\", \"k\": 3, \"e\": 6, \"c\": 24}"}) {
        if (space) sslat_space_free(space);
        space = load_text(space_json(block, "", "{\"shape\": [24, 16, 16]}"));
        graph = &space->layers[0].candidates[0].graph;
        host_program plain;
        int copy_steps = 0;
        ASSERT_EQ(host_build_copies(&session, graph, host_lowering_default(SSLAT_MODE_FUSED), 1, 1, &plain, &copy_steps,
                                    &err), SSLAT_OK) << err.message;
        reference = host_program_reference_step(&plain, 0);
        host_program_release(&plain);
        if (reference >= 0) break;
    }
    host_choices choices = {};
    host_program chosen;
    const host_choice *choice = nullptr;
    ASSERT_EQ(host_build_avoiding_reference(&session, &choices, graph, sslat_graph_hash(graph), SSLAT_MODE_FUSED, 1, 2, &chosen, &choice, &err),
              SSLAT_OK) << err.message;
    EXPECT_EQ(host_program_reference_step(&chosen, 0), -1) << choice->implementations;
    EXPECT_FALSE(choice->reference);
    EXPECT_EQ(strstr(choice->implementations, "ref:"), nullptr) << choice->implementations;
    // decided from implementation names: no reference kernel ran to find out it is one
    EXPECT_EQ(session.reference_runs, 0);
    if (reference >= 0) {
        EXPECT_GT(choice->tried, 1);
        EXPECT_NE(choice->avoided[0], '\0');
    } else {
        EXPECT_EQ(choice->tried, 1);  // nothing to avoid: the default, decided without timing
        EXPECT_EQ(choice->avoided[0], '\0');
    }
    host_program_release(&chosen);
    // decided once: the same graph again builds the remembered lowering
    host_lowering first = choice->lowering;
    ASSERT_EQ(host_build_avoiding_reference(&session, &choices, graph, sslat_graph_hash(graph), SSLAT_MODE_FUSED, 1, 1, &chosen, &choice, &err),
              SSLAT_OK);
    EXPECT_EQ(choices.count, 1);
    EXPECT_EQ(memcmp(&choice->lowering, &first, sizeof first), 0);
    EXPECT_EQ(chosen.lowering.residual, first.residual);
    host_program_release(&chosen);
    host_choices_release(&choices);
    sslat_space_free(space);
    host_session_close(&session);
    if (reference < 0) GTEST_SKIP() << "this CPU has a JIT kernel for the case: no fallback was needed";
}

// Every example space, batch 1 and 8, fused and eager: the table names the
// implementation of every distinct subgraph and none is a reference kernel.
TEST(CpuLowering, NoExampleSpaceIsTimedOnAReferenceKernel)
{
    SKIP_WITHOUT_DNNL();
    for (const char *name : {"mobilenet_v2_space.json", "proxylessnas.json", "ofa_mobilenet_v3.json", "fbnet.json",
                             "mobilenet_v2.json", "resnet18.json", "resnet50.json", "efficientnet_b0.json",
                             "mobilenet_v3_large.json", "mnasnet1_0.json", "shufflenet_v2_x1_0.json",
                             "autoformer_tiny.json", "hybrid_vit.json", "convnext_atto.json"}) {
        for (int32_t batch : {1, 8}) {
            for (int32_t eager : {0, 1}) {
                SCOPED_TRACE(std::string(name) + " batch " + std::to_string(batch) + (eager ? " eager" : " fused"));
                sslat_space_options inputs = {};
                inputs.batch = batch;
                sslat_space *space = nullptr;
                sslat_error err;
                ASSERT_EQ(sslat_space_load_file(example_path(name).c_str(), &inputs, &space, &err), SSLAT_OK) << err.message;
                sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
                options.warmup_iterations = 1;
                options.run_iterations = 1;
                options.threads = 1;
                options.eager = eager;
                sslat_container *table = nullptr;
                ASSERT_EQ(sslat_initialize_latency("cpu", space, nullptr, &options, &table, &err), SSLAT_OK) << err.message;
                const char *flagged = sslat_container_metadata(table, "cpu.reference");
                ASSERT_NE(flagged, nullptr);
                EXPECT_STREQ(flagged, "none");
                // and none ran while the lowerings were decided
                const char *runs = sslat_container_metadata(table, "cpu.reference_runs");
                ASSERT_NE(runs, nullptr);
                EXPECT_STREQ(runs, "0");
                int listed = 0;
                for (int32_t i = 0; i < sslat_container_metadata_count(table); i++) {
                    const char *key = nullptr, *value = nullptr;
                    ASSERT_EQ(sslat_container_metadata_at(table, i, &key, &value), SSLAT_OK);
                    if (strncmp(key, "cpu.impl.", 9) != 0 || strcmp(key, "cpu.impl.units") == 0) continue;
                    listed++;
                    EXPECT_EQ(strstr(value, " ref"), nullptr) << key << " = " << value;
                }
                EXPECT_GT(listed, 0);
                std::string units = sslat_container_metadata(table, "cpu.impl.units");
                EXPECT_EQ(units.rfind(std::to_string(listed) + " distinct subgraphs", 0), 0u) << units;
                sslat_space_free(space);
            }
        }
    }
}

}  // namespace
