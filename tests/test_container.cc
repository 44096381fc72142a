// Containers: construction, validation, accessors, and exact round trips
// through bytes, files and JSON.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

// A small timed-style table with real statistics and labels.
sslat_container *make_table()
{
    const int32_t counts[3] = {2, 3, 1};
    const double values[6] = {1.5, 2.25, 0.125, 3.0, 1e-9, 7.0};
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_container_create("cuda", 0.75, values, counts, 3, &c, &err), SSLAT_OK) << err.message;
    sslat_entry e = {0.1 + 0.2, 0.3, 0.30000000000000004, 0.01, 0.29, 0.31, 25};
    EXPECT_EQ(sslat_container_set_entry(c, 1, 2, &e, &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_set_metadata(c, "device.name", "NVIDIA H200", &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_set_metadata(c, "dtype", "fp16", &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_set_metadata(c, "layout", "NHWC", &err), SSLAT_OK);
    return c;
}

// Every figure bit for bit (a struct memcmp would compare padding too).
bool same_bits(const sslat_entry &a, const sslat_entry &b)
{
    const double x[6] = {a.value, a.median, a.mean, a.stddev, a.min, a.max};
    const double y[6] = {b.value, b.median, b.mean, b.stddev, b.min, b.max};
    return memcmp(x, y, sizeof x) == 0 && a.samples == b.samples;
}

void expect_same(const sslat_container *a, const sslat_container *b)
{
    ASSERT_EQ(sslat_container_block_count(a), sslat_container_block_count(b));
    sslat_entry ca = sslat_container_constant_entry(a), cb = sslat_container_constant_entry(b);
    EXPECT_TRUE(same_bits(ca, cb));
    for (int32_t blk = 0; blk < sslat_container_block_count(a); blk++) {
        ASSERT_EQ(sslat_container_candidate_count(a, blk), sslat_container_candidate_count(b, blk));
        EXPECT_STREQ(sslat_container_block_name(a, blk), sslat_container_block_name(b, blk));
        for (int32_t i = 0; i < sslat_container_candidate_count(a, blk); i++) {
            sslat_entry ea, eb;
            ASSERT_EQ(sslat_container_entry(a, blk, i, &ea, nullptr), SSLAT_OK);
            ASSERT_EQ(sslat_container_entry(b, blk, i, &eb, nullptr), SSLAT_OK);
            EXPECT_TRUE(same_bits(ea, eb)) << blk << "/" << i;
            EXPECT_STREQ(sslat_container_candidate_label(a, blk, i), sslat_container_candidate_label(b, blk, i));
        }
    }
    ASSERT_EQ(sslat_container_metadata_count(a), sslat_container_metadata_count(b));
    for (int32_t i = 0; i < sslat_container_metadata_count(a); i++) {
        const char *ka, *va, *kb, *vb;
        sslat_container_metadata_at(a, i, &ka, &va);
        sslat_container_metadata_at(b, i, &kb, &vb);
        EXPECT_STREQ(ka, kb);
        EXPECT_STREQ(va, vb);
    }
    EXPECT_STREQ(sslat_container_space_name(a), sslat_container_space_name(b));
    EXPECT_EQ(sslat_container_space_hash(a), sslat_container_space_hash(b));
    int32_t ia[4], ib[4];
    sslat_container_input_shape(a, ia);
    sslat_container_input_shape(b, ib);
    EXPECT_EQ(memcmp(ia, ib, sizeof ia), 0);
}

std::vector<uint8_t> bytes_of(const sslat_container *c)
{
    uint8_t *bytes = nullptr;
    size_t size = 0;
    EXPECT_EQ(sslat_container_save_to_bytes(c, &bytes, &size, nullptr), SSLAT_OK);
    std::vector<uint8_t> out(bytes, bytes + size);
    sslat_free(bytes);
    return out;
}

TEST(Container, SeedConstructorAndAccessors)
{
    sslat_container *c = make_table();
    ASSERT_NE(c, nullptr);
    EXPECT_STREQ(sslat_container_latency_type(c), "cuda");
    EXPECT_STREQ(sslat_container_unit(c), "ms");
    EXPECT_EQ(sslat_container_constant_latency(c), 0.75);
    EXPECT_EQ(sslat_container_block_count(c), 3);
    EXPECT_EQ(sslat_container_candidate_count(c, 1), 3);
    EXPECT_EQ(sslat_container_candidate_count(c, 3), -1);
    EXPECT_EQ(sslat_container_latency(c, 0, 1), 2.25);
    EXPECT_TRUE(std::isnan(sslat_container_latency(c, 0, 2)));
    sslat_entry e;
    ASSERT_EQ(sslat_container_entry(c, 2, 0, &e, nullptr), SSLAT_OK);
    EXPECT_EQ(e.median, 7.0);  // a value-only entry: every figure is the value
    EXPECT_EQ(e.stddev, 0.0);
    EXPECT_EQ(e.samples, 1u);
    EXPECT_STREQ(sslat_container_dtype(c), "fp16");
    EXPECT_STREQ(sslat_container_layout(c), "NHWC");
    EXPECT_STREQ(sslat_container_tool_version(c), sslat_version());
    EXPECT_EQ(strlen(sslat_container_created(c)), 20u);  // 2026-12-02T15:00:00Z
    EXPECT_STREQ(sslat_container_metadata(c, "device.name"), "NVIDIA H200");
    EXPECT_EQ(sslat_container_metadata(c, "nope"), nullptr);
    EXPECT_STREQ(sslat_container_block_name(c, 0), "");  // no labels yet
    sslat_error err;
    EXPECT_EQ(sslat_container_set_metadata(c, "unit", "s", &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_container_free(c);
    sslat_container_free(nullptr);
}

TEST(Container, RejectsBadValuesAndShapes)
{
    sslat_container *c = nullptr;
    sslat_error err;
    const int32_t counts[2] = {2, 0};
    const double values[2] = {1, 2};
    EXPECT_EQ(sslat_container_create("mac", 0, values, counts, 2, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("no empty blocks"), std::string::npos) << err.message;
    EXPECT_EQ(c, nullptr);
    const int32_t one[1] = {2};
    const double bad[2] = {1, NAN};
    EXPECT_EQ(sslat_container_create("mac", 0, bad, one, 1, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("operations_latencies[0][1]: value is nan"), std::string::npos) << err.message;
    const double negative[2] = {1, -0.5};
    EXPECT_EQ(sslat_container_create("mac", 0, negative, one, 1, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_container_create("mac", INFINITY, values, one, 1, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("constant_latency"), std::string::npos);
    EXPECT_EQ(sslat_container_create("furlongs", 0, values, one, 1, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(c, nullptr);
}

TEST(Container, BytesFileAndJsonRoundTripsAreBitExact)
{
    sslat_container *c = make_table();
    sslat_space *space = load_text(space_json(
        "\"cn_c8\", {\"choice\": [\"ir_k3\", \"skip\"], \"c\": 8, \"name\": \"first\"}, "
        "{\"choice\": [\"ir_k3\", \"ir_k5\", \"ir_k7_e6\"], \"c\": 8}, {\"choice\": [\"ds_k3\"]}"));
    ASSERT_NE(space, nullptr);
    ASSERT_EQ(sslat_container_bind_space(c, space, nullptr), SSLAT_OK);
    EXPECT_STREQ(sslat_container_block_name(c, 0), "first");
    EXPECT_STREQ(sslat_container_candidate_label(c, 1, 2), "ir_k7_e6");

    std::vector<uint8_t> bytes = bytes_of(c);
    sslat_container *from_bytes = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_bytes(bytes.data(), bytes.size(), &from_bytes, &err), SSLAT_OK) << err.message;
    expect_same(c, from_bytes);
    EXPECT_EQ(bytes_of(from_bytes), bytes);

    char path[] = "/tmp/sslat-container-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    ASSERT_EQ(sslat_container_save_to_file(c, path, &err), SSLAT_OK) << err.message;
    sslat_container *from_file = nullptr;
    ASSERT_EQ(sslat_container_load_from_file(path, &from_file, &err), SSLAT_OK) << err.message;
    expect_same(c, from_file);
    unlink(path);

    char *json = nullptr;
    ASSERT_EQ(sslat_container_export_json(c, &json, &err), SSLAT_OK);
    sslat_container *from_json = nullptr;
    ASSERT_EQ(sslat_container_import_json(json, strlen(json), &from_json, &err), SSLAT_OK) << err.message;
    expect_same(c, from_json);
    EXPECT_EQ(bytes_of(from_json), bytes);  // the whole file, byte for byte
    sslat_free(json);

    sslat_container *clone = nullptr;
    ASSERT_EQ(sslat_container_clone(c, &clone, &err), SSLAT_OK);
    expect_same(c, clone);
    for (sslat_container *x : {c, from_bytes, from_file, from_json, clone}) sslat_container_free(x);
    sslat_space_free(space);
}

TEST(Container, CsvHasOneRowPerCandidate)
{
    sslat_container *c = make_table();
    ASSERT_NE(c, nullptr);
    char *csv = nullptr;
    ASSERT_EQ(sslat_container_export_csv(c, &csv, nullptr), SSLAT_OK);
    std::string text = csv;
    sslat_free(csv);
    EXPECT_EQ(text.rfind("block,block_name,candidate,label,value,median,mean,stddev,min,max,samples,noisy\n", 0), 0u);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 6);
    EXPECT_NE(text.find("\n1,block 1,2,candidate 2,0.30000000000000004,0.29999999999999999,0.30000000000000004,0.01,0.28999999999999998,0.31,25,1\n"),
              std::string::npos) << text;
    sslat_container_free(c);
}

TEST(Container, JsonImportErrorsAreClear)
{
    struct { const char *json; const char *message; } cases[] = {
        {"[1]", "not an sslat container export"},
        {"{\"sslat_container\": 1}", "needs latency_type"},
        {"{\"sslat_container\": 1, \"latency_type\": \"mac\", \"constant_latency\": 1, \"operations_latencies\": [[1, \"x\"]]}", "operations_latencies[0][1] must be a number"},
        {"{\"sslat_container\": 1, \"latency_type\": \"mac\", \"constant_latency\": -1, \"operations_latencies\": []}", "constant_latency"},
        {"{\"sslat_container\": 1, \"latency_type\": \"mac\", \"constant_latency\": 1, \"operations_latencies\": [[]]}", "no empty blocks"},
        {"{\"sslat_container\": 1, \"latency_type\": \"mac\", \"constant_latency\": 1, \"operations_latencies\": [[1]], \"space\": {\"name\": \"x\", \"hash\": \"zz\", \"input\": [1,3,8,8]}}", "16-digit hex hash"},
        {"{\"sslat_container\": 1,", "JSON syntax error"},
    };
    for (auto &c : cases) {
        sslat_container *out = nullptr;
        sslat_error err;
        EXPECT_NE(sslat_container_import_json(c.json, strlen(c.json), &out, &err), SSLAT_OK) << c.json;
        EXPECT_EQ(out, nullptr);
        EXPECT_NE(std::string(err.message).find(c.message), std::string::npos) << err.message;
    }
}

TEST(Container, BindSpaceChecksTheShape)
{
    sslat_container *c = make_table();
    sslat_space *space = load_text(space_json("\"cn_c8\", {\"choice\": [\"ir_k3\", \"skip\"], \"c\": 8}"));
    ASSERT_NE(space, nullptr);
    sslat_error err;
    EXPECT_EQ(sslat_container_bind_space(c, space, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("1 NAS blocks, the table 3"), std::string::npos) << err.message;
    sslat_space_free(space);
    sslat_container_free(c);
}

}  // namespace
