// ENOT latency pickles: files written by Python's pickle (protocols 2-4, plain
// floats and numpy float64) read by the strict reader; exports read by Python.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <unistd.h>
#include <iterator>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

const double CONSTANT = 12.5;
const std::vector<std::vector<double>> OPS = {{0.5, 1.25, 2.0}, {3.0, 0.0}, {1e-3, 7.75, 2.5, 0.125}};

std::vector<uint8_t> fixture(const std::string &name)
{
    std::ifstream in(std::string(SSLAT_TEST_DATA_DIR) + "/enot/" + name, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

sslat_container *read_enot(const std::vector<uint8_t> &bytes, sslat_error *err)
{
    sslat_container *c = nullptr;
    sslat_container_import_enot(bytes.data(), bytes.size(), &c, err);
    return c;
}

TEST(Enot, PicklesOfEveryProtocolAndNumpyScalarsLoad)
{
    for (const char *name : {"plain_p2.pkl", "plain_p3.pkl", "plain_p4.pkl", "numpy_p2.pkl", "numpy_p3.pkl", "numpy_p4.pkl"}) {
        std::vector<uint8_t> bytes = fixture(name);
        ASSERT_FALSE(bytes.empty()) << name;
        sslat_error err;
        sslat_container *c = read_enot(bytes, &err);
        ASSERT_NE(c, nullptr) << name << ": " << err.message;
        EXPECT_STREQ(sslat_container_latency_type(c), "mac");
        EXPECT_EQ(sslat_container_constant_latency(c), CONSTANT) << name;
        ASSERT_EQ(sslat_container_block_count(c), 3);
        for (int32_t b = 0; b < 3; b++) {
            ASSERT_EQ(sslat_container_candidate_count(c, b), (int32_t)OPS[b].size());
            for (int32_t i = 0; i < (int32_t)OPS[b].size(); i++) EXPECT_EQ(sslat_container_latency(c, b, i), OPS[b][i]);
        }
        // the statistics Python computes from the same dict
        double lo = CONSTANT, hi = CONSTANT, mean = CONSTANT, v;
        for (auto &row : OPS) {
            lo += *std::min_element(row.begin(), row.end());
            hi += *std::max_element(row.begin(), row.end());
            double sum = 0;
            for (double x : row) sum += x;
            mean += sum / (double)row.size();
        }
        ASSERT_EQ(sslat_min_latency(c, &v, nullptr), SSLAT_OK);
        EXPECT_DOUBLE_EQ(v, lo);
        ASSERT_EQ(sslat_max_latency(c, &v, nullptr), SSLAT_OK);
        EXPECT_DOUBLE_EQ(v, hi);
        ASSERT_EQ(sslat_mean_latency(c, &v, nullptr), SSLAT_OK);
        EXPECT_DOUBLE_EQ(v, mean);
        sslat_container_free(c);
    }
    sslat_error err;
    sslat_container *mixed = read_enot(fixture("mixed_p4.pkl"), &err);  // ints and a numpy scalar in the table
    ASSERT_NE(mixed, nullptr) << err.message;
    EXPECT_STREQ(sslat_container_unit(mixed), "ms");
    EXPECT_EQ(sslat_container_constant_latency(mixed), 3.0);
    EXPECT_EQ(sslat_container_latency(mixed, 0, 1), 2.5);
    sslat_container_free(mixed);
}

TEST(Enot, AnythingElseIsRefusedAndNothingRuns)
{
    sslat_error err;
    EXPECT_EQ(read_enot(fixture("evil_p4.pkl"), &err), nullptr);
    EXPECT_NE(std::string(err.message).find("refusing global"), std::string::npos) << err.message;
    EXPECT_EQ(read_enot(fixture("tuple_p4.pkl"), &err), nullptr);
    EXPECT_NE(std::string(err.message).find("list of lists"), std::string::npos) << err.message;
    std::vector<uint8_t> good = fixture("numpy_p4.pkl");
    for (size_t n = 0; n < good.size(); n++) {  // every truncation
        std::vector<uint8_t> cut(good.begin(), good.begin() + (long)n);
        EXPECT_EQ(read_enot(cut, &err), nullptr) << n;
    }
    for (size_t at = 0; at < good.size(); at++) {  // every byte flipped: an error or a valid table, never a crash
        std::vector<uint8_t> flipped = good;
        flipped[at] ^= 0xFF;
        sslat_container_free(read_enot(flipped, &err));
    }
    // a well-formed pickle with an unknown latency type ('Mac'): an error, not an empty success
    std::vector<uint8_t> renamed = fixture("plain_p4.pkl");
    for (size_t i = 1; i + 3 <= renamed.size(); i++)
        if (renamed[i] == 'm' && renamed[i + 1] == 'a' && renamed[i + 2] == 'c' && renamed[i - 1] == 3) renamed[i] = 'M';
    sslat_container *none = reinterpret_cast<sslat_container *>(0x1);
    EXPECT_EQ(sslat_container_import_enot(renamed.data(), renamed.size(), &none, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(none, nullptr);
    EXPECT_NE(std::string(err.message).find("unknown latency type 'Mac'"), std::string::npos) << err.message;
    const std::string json = "{\"latency_type\": \"mac\"}";
    EXPECT_EQ(read_enot(std::vector<uint8_t>(json.begin(), json.end()), &err), nullptr);
}

TEST(Enot, ExportRoundTripsAndPythonReadsIt)
{
    sslat_error err;
    sslat_container *c = read_enot(fixture("numpy_p2.pkl"), &err);
    ASSERT_NE(c, nullptr);
    uint8_t *bytes = nullptr;
    size_t size = 0;
    ASSERT_EQ(sslat_container_export_enot(c, &bytes, &size, &err), SSLAT_OK);
    std::vector<uint8_t> exported(bytes, bytes + size);
    sslat_free(bytes);
    sslat_container *again = read_enot(exported, &err);
    ASSERT_NE(again, nullptr) << err.message;
    for (int32_t b = 0; b < 3; b++)
        for (int32_t i = 0; i < (int32_t)OPS[b].size(); i++) EXPECT_EQ(sslat_container_latency(again, b, i), OPS[b][i]);
    sslat_container_free(again);
    sslat_container_free(c);
    if (std::system("python3 -c 'import pickle' 2>/dev/null") != 0) GTEST_SKIP() << "no python3 here";
    TempDir folder("sslat-enot"); // a private folder, not a shared fixed path
    ASSERT_TRUE(folder.made());
    std::string path = folder.path("export.pkl");
    std::ofstream(path, std::ios::binary).write((const char *)exported.data(), (long)exported.size());
    std::string check = "python3 -c \"import pickle; d = pickle.load(open('" + path + "', 'rb')); "
                        "assert d == {'latency_type': 'mmac', 'constant_latency': 12.5, 'operations_latencies': "
                        "[[0.5, 1.25, 2.0], [3.0, 0.0], [0.001, 7.75, 2.5, 0.125]]}, d; "
                        "assert all(type(x) is float for r in d['operations_latencies'] for x in r)\"";
    EXPECT_EQ(std::system(check.c_str()), 0); // a mac table is ENOT's 'mmac'
}

}  // namespace
