// The ONNX exporter's models read back with protobuf-c and checked for what
// every runtime requires: unique node and initializer names, and each input
// defined before it is read. Built only with ONNX export on; under the
// sanitizer build this is what runs the exporter under ASan/UBSan (the
// onnx.checker / ONNX Runtime checks are python/tests/test_onnx.py).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "helpers.h"

extern "C" {
#include <onnx.pb-c.h>
}

namespace {

// Why model is not loadable ("" when it is).
std::string structural_problem(const Onnx__ModelProto *model)
{
    if (!model || !model->graph) return "no graph";
    const Onnx__GraphProto *g = model->graph;
    std::set<std::string> defined, node_names;
    for (size_t i = 0; i < g->n_input; i++) defined.insert(g->input[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!defined.insert(g->initializer[i]->name).second)
            return std::string("initializer name twice: ") + g->initializer[i]->name;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        if (!node_names.insert(n->name).second) return std::string("node name twice: ") + n->name;
        for (size_t k = 0; k < n->n_input; k++)
            if (n->input[k][0] && !defined.count(n->input[k]))
                return std::string("node ") + n->name + " reads " + n->input[k] + " before it is made";
        for (size_t k = 0; k < n->n_output; k++)
            if (!defined.insert(n->output[k]).second) return std::string("value made twice: ") + n->output[k];
    }
    for (size_t i = 0; i < g->n_output; i++)
        if (!defined.count(g->output[i]->name)) return std::string("output never made: ") + g->output[i]->name;
    return "";
}

class OnnxExport : public CliFixture {
  protected:
    // Export arch of space and check what comes back.
    void export_and_check(const sslat_space *space, const int32_t *arch, int32_t length, const std::string &what)
    {
        std::string file = path("model.onnx");
        sslat_error err;
        ASSERT_EQ(sslat_space_export_onnx(space, arch, length, nullptr, file.c_str(), &err), SSLAT_OK)
            << what << ": " << err.message;
        std::string bytes = read_file(file);
        Onnx__ModelProto *model =
            onnx__model_proto__unpack(nullptr, bytes.size(), reinterpret_cast<const uint8_t *>(bytes.data()));
        ASSERT_NE(model, nullptr) << what << ": the file does not parse as an ONNX ModelProto";
        EXPECT_EQ(structural_problem(model), "") << what;
        onnx__model_proto__free_unpacked(model, nullptr);
    }

    // For each k, candidate k of every block (or its last).
    void export_every_candidate(const sslat_space *space, const std::string &what)
    {
        int32_t blocks = sslat_space_block_count(space), most = 1;
        for (int32_t b = 0; b < blocks; b++) most = std::max(most, sslat_space_candidate_count(space, b));
        std::vector<int32_t> arch(blocks > 0 ? blocks : 1);
        for (int32_t k = 0; k < most; k++) {
            for (int32_t b = 0; b < blocks; b++) arch[b] = std::min(k, sslat_space_candidate_count(space, b) - 1);
            export_and_check(space, blocks ? arch.data() : nullptr, blocks, what + " candidate " + std::to_string(k));
        }
    }
};

TEST_F(OnnxExport, EveryExampleSpaceGivesALoadableModelForEveryCandidate)
{
    // relu6 (Clip with scalar bounds) is in most of these: the scalar
    // initializer that once passed NULL to memcpy
    for (const char *name : {"mobilenet_v2_space.json", "proxylessnas.json", "fbnet.json", "ofa_mobilenet_v3.json",
                             "efficientnet_b0.json", "mnasnet1_0.json", "mobilenet_v3_large.json",
                             "shufflenet_v2_x1_0.json", "resnet18.json", "yolov5s_ss.json"}) {
        sslat_space *space = load_example(name);
        ASSERT_NE(space, nullptr) << name;
        export_every_candidate(space, name);
        sslat_space_free(space);
    }
}

TEST_F(OnnxExport, AConcatOfTwoFullyConnectedHeadsHasDistinctReshapes)
{
    // two rank-2 values read as 4-D by one node: each gets its own Reshape
    sslat_space *space = load_text(space_json(
        R"("cn_c8", "gap", "fc10", {"op": "fc", "c": 12, "from": 1}, {"op": "concat", "from": [2, 3]},)"
        R"({"op": "add", "from": [4, 4]})"));
    ASSERT_NE(space, nullptr);
    export_and_check(space, nullptr, 0, "two heads");
    sslat_space_free(space);
}

TEST_F(OnnxExport, ADetectHeadOnAFullyConnectedOutputIsLoadable)
{
    sslat_space *space = load_text(space_json(R"("cn_c8", "gap", "fc10", {"op": "detect", "c": 2, "a": 1, "from": [2]})"));
    ASSERT_NE(space, nullptr);
    export_and_check(space, nullptr, 0, "detect on fc");
    sslat_space_free(space);
}

TEST_F(OnnxExport, WeightsPastTwoGibibytesAreRefusedBeforeAnythingIsBuilt)
{
    // 3 x 2048x2048x7x7 float weights: 2.47 GB, past one protobuf's 2 GiB
    sslat_space *space = load_text(
        space_json(R"("cn_c2048", "cn_k7_c2048", "cn_k7_c2048", "cn_k7_c2048")", "", R"({"shape": [3, 8, 8]})"));
    ASSERT_NE(space, nullptr);
    std::string file = path("big.onnx");
    sslat_error err;
    EXPECT_EQ(sslat_space_export_onnx(space, nullptr, 0, nullptr, file.c_str(), &err), SSLAT_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(err.message).find("2 GiB"), std::string::npos) << err.message;
    EXPECT_EQ(access(file.c_str(), F_OK), -1) << "nothing is written";
    sslat_space_free(space);
}

}  // namespace
