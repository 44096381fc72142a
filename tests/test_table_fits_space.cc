// A matching hash is never taken to mean a matching layout, and no option
// value can crash a run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "helpers.h"

extern "C" {
#include "calc/calculator.h"
#include "calc/options.h"
#include "ir/space.h"
#include "stats/fits.h"
#include "stats/validation.h"
#include "table/container.h"
}

namespace {

// A table of the space's name and hash whose block 0 has one candidate more:
// what an edited file with a valid checksum looks like.
sslat_container *edited_table(const sslat_space *space, int32_t extra_in_block0, bool partial)
{
    std::vector<int32_t> counts;
    for (int32_t b = 0; b < space->n_blocks; b++)
        counts.push_back(sslat_space_candidate_count(space, b) + (b == 0 ? extra_in_block0 : 0));
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_container_new("mac", counts.data(), (int32_t)counts.size(), &c, &err), SSLAT_OK) << err.message;
    int32_t nchw[4];
    sslat_space_input_shape(space, nchw);
    EXPECT_EQ(sslat_container_set_space_info(c, space->name, space->hash, nchw, &err), SSLAT_OK);
    int32_t fixed = 0;
    for (int32_t i = 0; i < space->n_layers; i++) fixed += space->layers[i].block < 0;
    if (partial) EXPECT_EQ(sslat_container_make_partial(c, 0, 2, fixed, &err), SSLAT_OK) << err.message;
    return c;
}

TEST(TableFitsSpace, ATableWithTheSpacesHashButOtherCountsIsRefused)
{
    sslat_space *space = load_example("mobilenet_v2_space.json");
    sslat_container *table = edited_table(space, 1, false);
    sslat_error err;
    EXPECT_EQ(sslat_table_fits_space(table, space, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("block 0 has"), std::string::npos) << err.message;
    // validation drew architectures from the table's counts and indexed the space with them (S5)
    sslat_validation v;
    EXPECT_EQ(sslat_validation_plan(space, table, 3, 1, NULL, &v, &err), SSLAT_ERR_SPACE);
    double latency;
    EXPECT_EQ(sslat_best_arch_latency(table, space, &latency, &err), SSLAT_ERR_SPACE);
    EXPECT_EQ(sslat_attach_latency(space, table, &err), SSLAT_ERR_SPACE);
    sslat_container_free(table);
    // the right counts fit
    table = edited_table(space, 0, false);
    EXPECT_EQ(sslat_table_fits_space(table, space, &err), SSLAT_OK) << err.message;
    sslat_container_free(table);
    sslat_space_free(space);
}

TEST(TableFitsSpace, ATableOfAnotherInputSaysWhichBatchAndResolution)
{
    sslat_space_options b8 = {8, 160, 160};
    sslat_space *measured = nullptr, *plain = load_example("proxylessnas.json");
    sslat_error err;
    ASSERT_EQ(sslat_space_load_file(example_path("proxylessnas.json").c_str(), &b8, &measured, &err), SSLAT_OK);
    sslat_container *table = edited_table(measured, 0, false);
    EXPECT_EQ(sslat_table_fits_space(table, plain, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("--batch 8 --resolution 160x160"), std::string::npos) << err.message;
    sslat_container_free(table);
    sslat_space_free(measured);
    sslat_space_free(plain);
}

TEST(TableFitsSpace, MergeComparesEveryBlocksCandidateCount)
{
    // parts that agree on hash, type, shard count and block count but not on
    // candidates read past a buffer (S4)
    sslat_space *space = load_example("fbnet.json");
    sslat_container *longer = edited_table(space, 0, true), *shorter = edited_table(space, -1, true);
    sslat_error err;
    const sslat_container *parts[2] = {shorter, longer};
    sslat_container *merged = nullptr;
    EXPECT_EQ(sslat_container_merge(parts, 2, &merged, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("candidates in block 0"), std::string::npos) << err.message;
    EXPECT_EQ(merged, nullptr);
    sslat_container_free(longer);
    sslat_container_free(shorter);
    sslat_space_free(space);
}

TEST(OptionChecks, ThreadsBeyondTheMachinesCoresAndNaNAreRefused)
{
    sslat_space *space = load_example("mobilenet_v2.json");
    sslat_latency_options o = SSLAT_LATENCY_OPTIONS_INIT;
    o.threads = 100000; // crashed inside libgomp (S2)
    o.run_iterations = 1;
    sslat_container *table = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &o, &table, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("cores"), std::string::npos) << err.message;
    o.threads = sslat_max_threads();
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &o, &table, &err), SSLAT_OK) << err.message;
    o.target_noise = NAN;
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &o, &table, &err), SSLAT_ERR_INVALID_ARGUMENT);
    o.target_noise = 0;
    o.warmup_iterations = -2;
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &o, &table, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_calc_options c;
    sslat_calc_options_default(&c);
    EXPECT_EQ(sslat_calc_options_check(&c, &err), SSLAT_OK);
    c.max_seconds = INFINITY;
    EXPECT_EQ(sslat_calc_options_check(&c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("max_seconds"), std::string::npos);
    c.max_seconds = 1, c.run_iterations = 0;
    EXPECT_EQ(sslat_calc_options_check(&c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_space_free(space);
}

} // namespace
