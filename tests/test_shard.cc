// Sharded runs (Slurm job arrays): work-unit balance, parts, merge and its checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
#include "api/latency.h"
#include "calc/calculator.h"
#include "calc/run.h"
#include "ir/space.h"
#include "table/container.h"
}

namespace {

sslat_container *measure(const sslat_space *space, const char *type, int32_t index, int32_t count)
{
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    sslat_run_plan plan = {};
    plan.shard_index = index;
    plan.shard_count = count;
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_measure_space(sslat_calculator_find(type), space, &o, &plan, nullptr, &c, &err), SSLAT_OK) << err.message;
    return c;
}

TEST(Shard, AssignmentBalancesCostAndCoversEveryUnit)
{
    const double costs[7] = {10, 1, 7, 3, 3, 9, 2};
    int32_t shard_of[7];
    sslat_shard_assign(costs, 7, 3, shard_of);
    double load[3] = {0, 0, 0};
    for (int k = 0; k < 7; k++) {
        ASSERT_GE(shard_of[k], 0);
        ASSERT_LT(shard_of[k], 3);
        load[shard_of[k]] += costs[k];
    }
    // longest first: 10 → 0, 9 → 1, 7 → 2, 3 → 2, 3 → 1 (12 < 13), 2 → 0, 1 → 2? loads end 12, 12, 11
    EXPECT_EQ(load[0] + load[1] + load[2], 35);
    EXPECT_LE(*std::max_element(load, load + 3) - *std::min_element(load, load + 3), 2);
    int32_t again[7];
    sslat_shard_assign(costs, 7, 3, again);
    EXPECT_EQ(0, memcmp(shard_of, again, sizeof again));  // deterministic
}

TEST(Shard, ThreePartsMergeToTheUnshardedTable)
{
    sslat_space *space = load_example("fbnet.json");
    ASSERT_NE(space, nullptr);
    sslat_container *whole = measure(space, "mac", 0, 1);
    std::vector<sslat_container *> parts;
    for (int32_t i = 0; i < 3; i++) parts.push_back(measure(space, "mac", i, 3));
    int32_t index = -1, count = -1;
    ASSERT_EQ(sslat_container_shard(parts[1], &index, &count), 1);
    EXPECT_EQ(index, 1);
    EXPECT_EQ(count, 3);
    EXPECT_EQ(sslat_container_shard(whole, nullptr, nullptr), 0);
    // a part refuses statistics and exports, and survives a save / load
    double v;
    sslat_error err;
    EXPECT_EQ(sslat_min_latency(parts[0], &v, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("merge the shards first"), std::string::npos);
    char *text = nullptr;
    EXPECT_NE(sslat_container_export_json(parts[0], &text, &err), SSLAT_OK);
    sslat_container *reloaded = nullptr;
    ASSERT_EQ(sslat_container_clone(parts[2], &reloaded, &err), SSLAT_OK) << err.message;
    sslat_container_free(parts[2]);
    parts[2] = reloaded;

    // every part measured something
    for (sslat_container *p : parts) {
        int measured = 0;
        for (int32_t i = 0; i < p->offset[p->n_blocks]; i++) measured += p->shard->present[i];
        EXPECT_GT(measured, 0);
    }
    std::vector<const sslat_container *> in = {parts[2], parts[0], parts[1]};  // any order
    sslat_container *merged = nullptr;
    ASSERT_EQ(sslat_container_merge(in.data(), in.size(), &merged, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(sslat_container_constant_latency(merged), sslat_container_constant_latency(whole));
    for (int32_t b = 0; b < sslat_container_block_count(whole); b++)
        for (int32_t c = 0; c < sslat_container_candidate_count(whole, b); c++)
            EXPECT_EQ(sslat_container_latency(merged, b, c), sslat_container_latency(whole, b, c)) << b << "/" << c;
    ASSERT_EQ(sslat_min_latency(merged, &v, &err), SSLAT_OK);
    EXPECT_STREQ(sslat_container_metadata(merged, "merged"), "3 shards");
    sslat_container_free(merged);
    merged = nullptr;

    // a missing part, a duplicate part, a part of another space
    std::vector<const sslat_container *> two = {parts[0], parts[1]};
    EXPECT_EQ(sslat_container_merge(two.data(), two.size(), &merged, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("missing 2/3"), std::string::npos) << err.message;
    std::vector<const sslat_container *> dup = {parts[0], parts[1], parts[1], parts[2]};
    EXPECT_EQ(sslat_container_merge(dup.data(), dup.size(), &merged, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("given twice 1/3"), std::string::npos) << err.message;
    sslat_space *other = load_example("proxylessnas.json");
    sslat_container *foreign = measure(other, "mac", 2, 3);
    std::vector<const sslat_container *> mixed = {parts[0], parts[1], foreign};
    EXPECT_EQ(sslat_container_merge(mixed.data(), mixed.size(), &merged, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("from space 'proxylessnas'"), std::string::npos) << err.message;
    sslat_container *thop = measure(space, "mac_thop", 2, 3);
    std::vector<const sslat_container *> types = {parts[0], parts[1], thop};
    EXPECT_EQ(sslat_container_merge(types.data(), types.size(), &merged, &err), SSLAT_ERR_SPACE);
    std::vector<const sslat_container *> wholes = {whole};
    EXPECT_EQ(sslat_container_merge(wholes.data(), 1, &merged, &err), SSLAT_ERR_INVALID_ARGUMENT);

    for (sslat_container *c : {whole, foreign, thop}) sslat_container_free(c);
    for (sslat_container *p : parts) sslat_container_free(p);
    sslat_space_free(other);
    sslat_space_free(space);
}

}  // namespace

// Found by fuzz_table_pair: two valid parts whose fixed layers add up past a
// double made a merged table that could not be read back. The pair file is
// the fuzzer's input (u32 length of the first part, the first, the second).
TEST(Shard, PartsWhoseConstantOverflowsAreRefusedNotMergedIntoAnUnreadableTable)
{
    std::ifstream in(std::string(SSLAT_TEST_DATA_DIR) + "/fuzz/merge-overflowing-constant.pair", std::ios::binary);
    std::string pair((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(pair.size(), 4u);
    const uint8_t *bytes = reinterpret_cast<const uint8_t *>(pair.data());
    size_t first = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | (size_t)bytes[3] << 24;
    ASSERT_LE(first, pair.size() - 4);
    sslat_container *a = nullptr, *b = nullptr, *whole = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_bytes(bytes + 4, first, &a, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_container_load_from_bytes(bytes + 4 + first, pair.size() - 4 - first, &b, &err), SSLAT_OK)
        << err.message;
    const sslat_container *parts[] = {a, b};
    EXPECT_EQ(sslat_container_merge(parts, 2, &whole, &err), SSLAT_ERR_LIMIT);
    EXPECT_EQ(whole, nullptr);
    EXPECT_NE(std::string(err.message).find("too large to add"), std::string::npos) << err.message;
    sslat_container_free(a);
    sslat_container_free(b);
}

// Found by the fourth probe: a fixed identity after a timed layer (["cn_c8",
// "skip"]) took the constant's sample count to 0 while its value stayed, and
// measure -c cpu refused its own table ("0 samples but a value").
TEST(Shard, APartThatNeverRunsDoesNotTakeTheSampleCountToZero)
{
    sslat_entry timed = {2.0, 2.0, 2.0, 0.1, 1.9, 2.2, 10};
    sslat_entry never_ran = {0, 0, 0, 0, 0, 0, 0};
    for (bool identity_first : {false, true}) {
        sslat_entry total;
        sslat_entry_accumulate(&total, identity_first ? &never_ran : &timed, true);
        sslat_entry_accumulate(&total, identity_first ? &timed : &never_ran, false);
        EXPECT_EQ(total.samples, 10u);
        EXPECT_EQ(total.value, 2.0);
        char why[96];
        EXPECT_TRUE(sslat_entry_valid(&total, why, sizeof why)) << why;
    }
}
