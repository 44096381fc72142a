// examples/yolov5s_ss.json against the libraries, candidate by candidate.
//
// tests/data/yolov5s_ss_counts.json is written by tests/reference/yolo_reference.py
// (torch 2.15.0, thop 0.1.1, fvcore 0.1.5, pthflops 0.4.2): ENOT's YOLOv5s search
// space rebuilt in PyTorch from its yaml, search.py and common.py, each candidate
// counted alone on its own input, the constant by ENOT's method (the whole network at
// arch 0 minus its candidates), at 224, 320, 480 and 640 px, with and without BN folded.
#include <gtest/gtest.h>
#include <jansson.h>

#include <string>

#include "helpers.h"

extern "C" {
#include "calc/mac.h"
#include "ir/graph.h"
#include "ir/space.h"
}

namespace {

json_t *load_counts()
{
    std::string path = std::string(SSLAT_TEST_DATA_DIR) + "/yolov5s_ss_counts.json";
    json_error_t error;
    json_t *root = json_load_file(path.c_str(), 0, &error);
    EXPECT_NE(root, nullptr) << path << ": " << error.text;
    return root;
}

sslat_space *load_at(int resolution)
{
    std::string path = std::string(SSLAT_EXAMPLES_DIR) + "/yolov5s_ss.json";
    sslat_space_options options = {1, resolution, resolution};
    sslat_space *space = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_space_load_file(path.c_str(), &options, &space, &err), SSLAT_OK) << err.message;
    return space;
}

double constant_of(const sslat_space *space, sslat_mac_rule rule, bool fuse_bn)
{
    double total = 0;
    for (int32_t i = 0; i < space->n_layers; i++)
        if (space->layers[i].block < 0) total += sslat_mac_graph(&space->layers[i].candidates[0].graph, rule, nullptr, fuse_bn);
    return total;
}

TEST(YoloCounts, EveryCandidateAndTheConstantEqualTheLibrariesByEnotsMethod)
{
    json_t *root = load_counts();
    ASSERT_NE(root, nullptr);
    const struct {
        const char *name;
        sslat_mac_rule rule;
    } rules[] = {{"mac_thop", SSLAT_MAC_THOP}, {"mac_fvcore", SSLAT_MAC_FVCORE}, {"mac_pthflops", SSLAT_MAC_PTHFLOPS}};
    int compared = 0;
    for (int resolution : {224, 320, 480, 640}) {
        sslat_space *space = load_at(resolution);
        ASSERT_NE(space, nullptr);
        ASSERT_EQ(space->n_blocks, 8);
        for (bool fuse : {false, true}) {
            std::string key = std::to_string(resolution) + (fuse ? " fused" : "");
            json_t *entry = json_object_get(json_object_get(root, "counts"), key.c_str());
            ASSERT_NE(entry, nullptr) << key;
            for (const auto &r : rules) {
                SCOPED_TRACE(key + " " + r.name);
                json_t *rule = json_object_get(entry, r.name);
                json_t *blocks = json_object_get(rule, "blocks");
                ASSERT_EQ(json_array_size(blocks), 8u);
                for (int32_t b = 0; b < 8; b++) {
                    const sslat_layer *layer = sslat_space_block_layer(space, b);
                    json_t *row = json_array_get(blocks, (size_t)b);
                    ASSERT_EQ(json_array_size(row), (size_t)layer->n_candidates) << "block " << b;
                    for (int32_t c = 0; c < layer->n_candidates; c++) {
                        double expected = json_number_value(json_array_get(row, (size_t)c));
                        double got = sslat_mac_graph(&layer->candidates[c].graph, r.rule, nullptr, fuse);
                        EXPECT_DOUBLE_EQ(got, expected) << "block " << b << " candidate " << c << " '"
                                                        << layer->candidates[c].label << "'";
                        compared++;
                    }
                }
                EXPECT_DOUBLE_EQ(constant_of(space, r.rule, fuse), json_number_value(json_object_get(rule, "constant")))
                    << "constant";
            }
        }
        sslat_space_free(space);
    }
    EXPECT_EQ(compared, 4 * 2 * 3 * 8 * 12);
    json_decref(root);
}

TEST(YoloCounts, ParametersOfEveryCandidateEqualPyTorchs)
{
    json_t *root = load_counts();
    ASSERT_NE(root, nullptr);
    sslat_space *space = load_at(640);
    ASSERT_NE(space, nullptr);
    json_t *blocks = json_object_get(json_object_get(root, "params"), "blocks");
    double arch0 = 0;
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_graph &g = space->layers[i].candidates[0].graph;
        for (int32_t n = 0; n < g.count; n++) arch0 += (double)sslat_node_param_count(&g, &g.nodes[n]);
    }
    EXPECT_EQ(arch0, json_number_value(json_object_get(json_object_get(root, "params"), "arch0")));
    for (int32_t b = 0; b < 8; b++) {
        const sslat_layer *layer = sslat_space_block_layer(space, b);
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            const sslat_graph &g = layer->candidates[c].graph;
            double params = 0;
            for (int32_t n = 0; n < g.count; n++) params += (double)sslat_node_param_count(&g, &g.nodes[n]);
            EXPECT_EQ(params, json_number_value(json_array_get(json_array_get(blocks, (size_t)b), (size_t)c)))
                << "block " << b << " candidate " << c;
        }
    }
    sslat_space_free(space);
    json_decref(root);
}

TEST(YoloCounts, UltralyticsYolov5sEqualsTheLibraries)
{
    // examples/yolov5s.json against the PyTorch twin of ultralytics' yolov5s.yaml v6.0
    // (7,235,389 parameters, as ultralytics prints for it)
    json_t *root = load_counts();
    ASSERT_NE(root, nullptr);
    json_t *reference = json_object_get(root, "yolov5s");
    const struct {
        const char *name;
        sslat_mac_rule rule;
    } rules[] = {{"mac_thop", SSLAT_MAC_THOP}, {"mac_fvcore", SSLAT_MAC_FVCORE}, {"mac_pthflops", SSLAT_MAC_PTHFLOPS}};
    for (int resolution : {320, 640}) {
        std::string path = std::string(SSLAT_EXAMPLES_DIR) + "/yolov5s.json";
        sslat_space_options options = {1, resolution, resolution};
        sslat_space *space = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_space_load_file(path.c_str(), &options, &space, &err), SSLAT_OK) << err.message;
        double params = 0;
        for (int32_t i = 0; i < space->n_layers; i++) {
            const sslat_graph &g = space->layers[i].candidates[0].graph;
            for (int32_t n = 0; n < g.count; n++) params += (double)sslat_node_param_count(&g, &g.nodes[n]);
        }
        EXPECT_EQ(params, 7235389);
        EXPECT_EQ(params, json_number_value(json_object_get(reference, "params")));
        for (bool fuse : {false, true}) {
            std::string key = std::to_string(resolution) + (fuse ? " fused" : "");
            for (const auto &r : rules)
                EXPECT_DOUBLE_EQ(constant_of(space, r.rule, fuse),
                                 json_number_value(json_object_get(json_object_get(reference, key.c_str()), r.name)))
                    << key << " " << r.name;
        }
        sslat_space_free(space);
    }
    json_decref(root);
}

}  // namespace
