// Host-side logic of the cuda backend, which needs no GPU: device choice from
// the environment, copies per replay, and the plan of library calls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" {
#include "kernels/cuda_env.h"
#include "kernels/cuda_layout.h"
#include "kernels/cuda_plan.h"
#include "kernels/cuda_select.h"
#include "ir/space.h"
#include "measure/parameters.h"
}

#include <cstring>
#include <set>
#include <vector>

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
    for (const char *loose : {" 1", "+1", "1 ", "0x1", "-1"}) {  // digits only
        setenv("SLURM_LOCALID", loose, 1);
        unsetenv("LOCAL_RANK");
        EXPECT_EQ(sslat_choose_device(-1, 2, &c, &err), SSLAT_ERR_INVALID_ARGUMENT) << "'" << loose << "'";
    }
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

TEST(CudaCopies, TheTestCapComesFromTheEnvironmentOnlyWhenItIsAWholeNumberInRange)
{
    unsetenv("SSLAT_CUDA_COPIES_CAP");
    EXPECT_EQ(sslat_cuda_copies_cap(1024), 1024);
    setenv("SSLAT_CUDA_COPIES_CAP", "8", 1);
    EXPECT_EQ(sslat_cuda_copies_cap(1024), 8);
    for (const char *bad : {"0", "-3", "2000", "8x", "", "eight"}) {
        setenv("SSLAT_CUDA_COPIES_CAP", bad, 1);
        EXPECT_EQ(sslat_cuda_copies_cap(1024), 1024) << "'" << bad << "'";
    }
    unsetenv("SSLAT_CUDA_COPIES_CAP");
}

// The plan of the first candidate of layer `layer` of a space built from tokens.
std::string plan_of(const std::string &layers, sslat_exec_mode mode, int *steps = nullptr, int *nodes = nullptr,
                    int layer = 0)
{
    std::string text = "{\"sslat\": 1, \"input\": {\"shape\": [32, 28, 28]}, \"layers\": [" + layers + "]}";
    sslat_space *space = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_space_load_string(text.c_str(), text.size(), "t", nullptr, &space, &err), SSLAT_OK) << err.message;
    if (!space) return "";
    const sslat_graph *g = &space->layers[layer].candidates[0].graph;
    cuda_plan plan;
    EXPECT_EQ(cuda_plan_build(g, mode, SSLAT_CUDNN_API_LEGACY, &plan, &err), SSLAT_OK) << err.message;
    char buffer[1024];
    cuda_plan_describe(&plan, nullptr, buffer, sizeof buffer);
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

TEST(CudaPlan, GraphOpsRunOwnKernels)
{
    EXPECT_EQ(plan_of("\"focus_k3_c16_nre\"", SSLAT_MODE_FUSED),
              "sslat_space_to_depth; cudnnConvolutionBiasActivationForward(relu)");
    EXPECT_EQ(plan_of("\"upsample\"", SSLAT_MODE_FUSED), "sslat_upsample_nearest");
    std::string unit = plan_of("\"sv2_s1_c32\"", SSLAT_MODE_FUSED);
    EXPECT_EQ(unit.rfind("sslat_copy_channels(slice); sslat_copy_channels(slice)", 0), 0u) << unit;
    EXPECT_NE(unit.find("sslat_copy_channels(concat); sslat_channel_shuffle"), std::string::npos) << unit;
    // a concat reading an earlier layer: its input node is written once, not per run
    int steps = 0, nodes = 0;
    EXPECT_EQ(plan_of("\"cn_c16\", \"cn_c16\", {\"op\": \"concat\", \"from\": [-1, 0]}", SSLAT_MODE_FUSED, &steps,
                      &nodes, 2),
              "input; sslat_copy_channels(concat)");
    EXPECT_EQ(steps, 2);
    std::string head = plan_of("\"cn_c16\", {\"op\": \"detect\", \"c\": 1, \"from\": [0, 0, 0]}", SSLAT_MODE_FUSED,
                               nullptr, nullptr, 1);
    EXPECT_EQ(head, "input; input; cudnnConvolutionForward + sslat_epilogue(bias); "
                    "cudnnConvolutionForward + sslat_epilogue(bias); cudnnConvolutionForward + sslat_epilogue(bias)");
    // every op of the IR has a cuda lowering now
    for (int op = 0; op < SSLAT_OP_COUNT; op++) {
        sslat_node node = {};
        node.op = (sslat_op_kind)op;
        EXPECT_TRUE(cuda_plan_supports(&node)) << sslat_op_name((sslat_op_kind)op);
    }
}

// ---- layouts: one mapping for the fill kernel, the read-back and the weights ----

TEST(CudaLayout, AnNhwcBufferHoldsEachLogicalIndexOnce)
{
    const size_t n = 2, c = 3, hw = 5, count = n * c * hw;
    std::set<size_t> seen;
    for (size_t i = 0; i < count; i++) seen.insert(sslat_nhwc_to_nchw(i, c, hw));
    EXPECT_EQ(seen.size(), count);                      // a bijection
    EXPECT_EQ(sslat_nhwc_to_nchw(1, c, hw), 1 * hw);    // the next channel of pixel 0
    EXPECT_EQ(sslat_nhwc_to_nchw(c, c, hw), 1u);        // channel 0 of pixel 1
    EXPECT_EQ(sslat_nhwc_to_nchw(c * hw, c, hw), c * hw); // the next image
}

// The fill kernel's formula: an NHWC input, read back to NCHW as the program
// reads its output, is the seeded input every other path uses (it was filled
// in buffer order, so every NHWC variant computed on shuffled input).
TEST(CudaLayout, AnNhwcFillReadBackIsTheSeededNchwInput)
{
    const size_t n = 2, c = 4, hw = 6, count = n * c * hw;
    const uint64_t seed = 1234;
    std::vector<float> expected(count), device(count), read_back(count);
    sslat_fill_parameter(expected.data(), count, seed, -1, 0, 0);  // the reference's input (node -1, copy 0)
    const uint64_t stream = sslat_fill_stream(seed, -1, 0);
    for (size_t i = 0; i < count; i++) device[i] = sslat_fill_tensor_at(stream, i, 1, c, hw, -1.0f, 1.0f);
    for (size_t i = 0; i < count; i++) read_back[sslat_nhwc_to_nchw(i, c, hw)] = device[i];
    EXPECT_EQ(read_back, expected);
    for (size_t i = 0; i < count; i++)  // NCHW: buffer order is the logical order
        EXPECT_EQ(sslat_fill_tensor_at(stream, i, 0, c, hw, -1.0f, 1.0f), expected[i]);
}

TEST(CudaLayout, PermutedLinearColumnsComputeTheSameProductOnNhwcInput)
{
    const size_t rows = 3, c = 4, hw = 5, columns = c * hw;
    std::vector<float> w(rows * columns), permuted(rows * columns), x_nchw(columns), x_nhwc(columns);
    for (size_t i = 0; i < w.size(); i++) w[i] = (float)((i * 7919) % 13) - 6.0f;
    for (size_t i = 0; i < columns; i++) x_nchw[i] = (float)((i * 31) % 11) - 5.0f;
    for (size_t i = 0; i < columns; i++) x_nhwc[i] = x_nchw[sslat_nhwc_to_nchw(i, c, hw)];
    sslat_permute_linear_columns(w.data(), permuted.data(), rows, c, hw);
    for (size_t o = 0; o < rows; o++) {
        double a = 0, b = 0;
        for (size_t k = 0; k < columns; k++) {
            a += w[o * columns + k] * x_nchw[k];
            b += permuted[o * columns + k] * x_nhwc[k];
        }
        EXPECT_EQ(a, b) << "row " << o;
    }
}

// The IR writes flatten before a linear on a spatial input: the permutation
// must see the 4-D shape behind it (it saw 1x1 and never ran).
TEST(CudaSelect, ALinearsColumnsComeFromTheTensorBeforeFlatten)
{
    for (const char *layers : {"\"fc10\"", "\"flatten\", \"fc10\""}) {
        std::string text = std::string("{\"sslat\": 1, \"input\": {\"shape\": [8, 3, 3], \"batch\": 2}, \"layers\": [") +
                           layers + "]}";
        sslat_space *space = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_space_load_string(text.c_str(), text.size(), "t", nullptr, &space, &err), SSLAT_OK) << err.message;
        sslat_graph whole;
        ASSERT_EQ(sslat_space_architecture_graph(space, nullptr, 0, &whole, &err), SSLAT_OK) << err.message;
        int32_t linear = -1;
        for (int32_t i = 0; i < whole.count; i++)
            if (whole.nodes[i].op == SSLAT_OP_LINEAR) linear = i;
        ASSERT_GE(linear, 0);
        sslat_shape source = cuda_linear_source_shape(&whole, linear);
        EXPECT_EQ(source.c, 8) << layers;
        EXPECT_EQ(source.h, 3) << layers;
        EXPECT_EQ(source.w, 3) << layers;
        sslat_graph_release(&whole);
        sslat_space_free(space);
    }
}

// ---- which of cuDNN's algorithms a convolution keeps ----

struct Trials {
    std::vector<bool> works;
    std::vector<int> asked;
};

bool trial(void *context, int k)
{
    Trials *t = static_cast<Trials *>(context);
    t->asked.push_back(k);
    return t->works[(size_t)k];
}

TEST(CudaSelect, TheFastestAlgorithmThatSucceededKeepsFp32OnFmaAndWorksForTheCall)
{
    // Find's order: fastest first
    const cuda_algo_result results[] = {{1, false, true, 0},  // failed in Find
                                        {6, true, false, 0},  // tensor-op math: TF32 for fp32
                                        {0, true, true, 64},
                                        {2, true, true, 128}};
    int tried = 0;
    EXPECT_EQ(cuda_pick_algorithm(results, 4, false, nullptr, nullptr, &tried), 1);  // fp16 / tf32: any math
    EXPECT_EQ(cuda_pick_algorithm(results, 4, true, nullptr, nullptr, &tried), 2);   // fp32: FMA only
    EXPECT_EQ(tried, 0);
    // the fused call: each candidate trial-run in Find's order until one works
    Trials t{{false, false, false, true}, {}};
    EXPECT_EQ(cuda_pick_algorithm(results, 4, true, trial, &t, &tried), 3);
    EXPECT_EQ(t.asked, (std::vector<int>{2, 3}));
    EXPECT_EQ(tried, 2);
    // none works: -1, the caller falls back to conv + own epilogue
    Trials none{{true, true, false, false}, {}};
    EXPECT_EQ(cuda_pick_algorithm(results, 4, true, trial, &none, &tried), -1);
    EXPECT_EQ(none.asked, (std::vector<int>{2, 3}));  // a non-FMA one is never tried for fp32
    EXPECT_EQ(cuda_pick_algorithm(results, 0, false, nullptr, nullptr, &tried), -1);
    // whether fp32 can keep FMA only: some succeeded FMA result, not a failed one
    EXPECT_TRUE(cuda_any_fma_result(results, 4));
    const cuda_algo_result no_fma[] = {{1, false, true, 0}, {6, true, false, 0}};
    EXPECT_FALSE(cuda_any_fma_result(no_fma, 2));
    EXPECT_FALSE(cuda_any_fma_result(results, 0));
}

TEST(CudaSelect, TheFindCacheTellsEveryFieldApart)
{
    sslat_conv_params conv = {32, 3, 1, 1, 1, 1, false};
    sslat_shape in = {1, 16, 28, 28}, out = {1, 32, 28, 28};
    cuda_find_cache cache = {};
    cuda_conv_choice choice = {};
    choice.key = cuda_conv_key_of(in, out, &conv, 0, false, 2, true, 0);
    choice.algo = 6;
    sslat_error err;
    ASSERT_EQ(cuda_find_cache_put(&cache, &choice, &err), SSLAT_OK);
    cuda_conv_key same = cuda_conv_key_of(in, out, &conv, 0, false, 2, true, 0);
    const cuda_conv_choice *hit = cuda_find_cache_get(&cache, &same);
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(hit->algo, 6);
    sslat_conv_params stride = conv, groups = conv, bias = conv;
    stride.stride = 2, groups.groups = 16, bias.bias = true;
    sslat_shape batch = in;
    batch.n = 8;
    const cuda_conv_key others[] = {
        cuda_conv_key_of(in, out, &conv, 2, false, 2, true, 0),    // dtype
        cuda_conv_key_of(in, out, &conv, 0, true, 2, true, 0),     // layout
        cuda_conv_key_of(in, out, &conv, 0, false, 1, true, 0),    // math
        cuda_conv_key_of(in, out, &conv, 0, false, 2, false, 0),   // plain instead of fused call
        cuda_conv_key_of(in, out, &stride, 0, false, 2, true, 0),  // parameters
        cuda_conv_key_of(in, out, &groups, 0, false, 2, true, 0),
        cuda_conv_key_of(in, out, &bias, 0, false, 2, true, 0),
        cuda_conv_key_of(batch, out, &conv, 0, false, 2, true, 0),   // shape
        cuda_conv_key_of(in, out, &conv, 0, false, 2, true, 1)};      // the graph API
    for (const cuda_conv_key &key : others) EXPECT_EQ(cuda_find_cache_get(&cache, &key), nullptr);
    EXPECT_EQ(cache.hits, 1);
    EXPECT_EQ(cache.misses, (int)(sizeof others / sizeof others[0]));
    cuda_find_cache_release(&cache);
    // each side's padding: stride 2 padded 1 all round, and 'same' on 28 (0 before, 1 after)
    sslat_conv_params tf_same = stride;
    tf_same.padding = 0, tf_same.same = true;
    cuda_conv_key around = cuda_conv_key_of(in, out, &stride, 0, false, 2, false, 1),
                  lopsided = cuda_conv_key_of(in, out, &tf_same, 0, false, 2, false, 1);
    EXPECT_NE(std::memcmp(around.fields, lopsided.fields, sizeof around.fields), 0);
}

TEST(CudaSelect, SizesAreCheckedBeforeAnyDescriptorOrAllocation)
{
    // 4096 x 256 x 1024 x 1024 activations: past cuDNN's 2^31 elements per tensor
    std::string text = "{\"sslat\": 1, \"input\": {\"shape\": [256, 8, 8]}, \"layers\": [\"conv_k3_c256\"]}";
    sslat_space_options big = {4096, 1024, 1024};
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_string(text.c_str(), text.size(), "t", &big, &space, &err), SSLAT_OK) << err.message;
    const sslat_graph *g = &space->layers[0].candidates[0].graph;
    EXPECT_EQ(cuda_check_sizes(g, 4, (size_t)1 << 40, &err), SSLAT_ERR_LIMIT);
    EXPECT_NE(std::string(err.message).find("2^31"), std::string::npos) << err.message;
    sslat_space_free(space);
    // within the limit but more than the memory that is free
    sslat_space_options fits = {8, 256, 256};
    ASSERT_EQ(sslat_space_load_string(text.c_str(), text.size(), "t", &fits, &space, &err), SSLAT_OK);
    g = &space->layers[0].candidates[0].graph;
    // input and output 8 x 256 x 256 x 256 fp32 = 512 MiB each, weights 2.25 MiB
    EXPECT_EQ(cuda_check_sizes(g, 4, (size_t)1100 << 20, &err), SSLAT_OK);
    EXPECT_EQ(cuda_check_sizes(g, 4, (size_t)1000 << 20, &err), SSLAT_ERR_NOMEM);
    EXPECT_NE(std::string(err.message).find("MB are free"), std::string::npos) << err.message;
    sslat_space_free(space);
}

} // namespace


// ---- the graph API's host decisions ---------------------------------------------------------------

TEST(CudaGraphSelect, NotesDecideWhichEnginesADtypeMayTime)
{
    cuda_engine plain = {}, tensor_core = {}, down_convert = {};
    tensor_core.numerical = CUDA_NOTE_TENSOR_CORE;
    down_convert.numerical = CUDA_NOTE_DOWN_CONVERT_INPUTS | CUDA_NOTE_TENSOR_CORE;
    for (int dtype = 0; dtype < SSLAT_DTYPE_COUNT; dtype++) {
        EXPECT_EQ(cuda_engine_refusal(&plain, dtype), nullptr) << dtype;
        EXPECT_NE(cuda_engine_refusal(&down_convert, dtype), nullptr) << "no dtype takes converted inputs";
    }
    // TF32 tensor cores: fp32 stays fp32; tf32, fp16 and bf16 take them
    EXPECT_NE(cuda_engine_refusal(&tensor_core, SSLAT_DTYPE_FP32), nullptr);
    EXPECT_NE(std::string(cuda_engine_refusal(&tensor_core, SSLAT_DTYPE_FP32)).find("TENSOR_CORE"), std::string::npos);
    for (sslat_dtype d : {SSLAT_DTYPE_TF32, SSLAT_DTYPE_FP16, SSLAT_DTYPE_BF16})
        EXPECT_EQ(cuda_engine_refusal(&tensor_core, d), nullptr) << sslat_dtype_name(d);
}

TEST(CudaGraphSelect, AnEngineIsNamedAsCudnnFrontendNamesItWithItsNotes)
{
    cuda_engine e = {};
    e.global_index = 12, e.knobs = 2;
    e.knob_type[0] = 2, e.knob_value[0] = 3, e.knob_type[1] = 14, e.knob_value[1] = -1;
    e.numerical = CUDA_NOTE_TENSOR_CORE | CUDA_NOTE_WINOGRAD, e.behavior = CUDA_BEHAVIOR_RUNTIME_COMPILATION;
    char tag[64], notes[128];
    cuda_engine_tag(&e, tag, sizeof tag);
    EXPECT_STREQ(tag, "eng12_k2=3_k14=-1");
    cuda_engine_notes(&e, notes, sizeof notes);
    EXPECT_STREQ(notes, "tensor_core,winograd,runtime_compilation");
    char small[8];
    cuda_engine_tag(&e, small, sizeof small); // cut, never past the buffer
    EXPECT_STREQ(small, "eng12_k");
    // the same engine with other knobs is another configuration
    cuda_engine other = e;
    EXPECT_TRUE(cuda_engine_same(&e, &other));
    other.knob_value[1] = 0;
    EXPECT_FALSE(cuda_engine_same(&e, &other));
    other = e, other.knobs = 1;
    EXPECT_FALSE(cuda_engine_same(&e, &other));
}

TEST(CudaGraphSelect, TheAutotuneKeepsTheFastestThatRanAndTheEarlierOnATie)
{
    const double ms[] = {-1, 0.5, 0.3, 0.3, 0.9};
    EXPECT_EQ(cuda_autotune_pick(ms, 5), 2);
    EXPECT_EQ(cuda_autotune_pick(ms, 2), 1);
    EXPECT_EQ(cuda_autotune_pick(ms, 1), -1) << "none ran";
    EXPECT_EQ(cuda_autotune_pick(ms, 0), -1);
}
