// A run that keeps going past failing units (sslat measure --keep-going): the
// failures are recorded in the table and never journaled, every consumer of
// the table refuses it as incomplete, the exports show the failed entries as
// not measured, and --resume measures only what failed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <string>

#include "cli_fixture.h"
#include "helpers.h"

extern "C" {
#include "api/latency.h"
#include "base/error.h"
#include "calc/calculator.h"
#include "calc/journal.h"
#include "calc/run.h"
#include "ir/space.h"
#include "stats/stats.h"
#include "stats/validation.h"
#include "table/container.h"
}

namespace {

// The mac calculator, except that any subgraph holding a 5x5 convolution fails
// (as a device refusing one candidate would).
sslat_status fail_on_k5(const sslat_calculator *self, void *session, const sslat_unit *unit,
                        const sslat_calc_options *options, sslat_entry *entry, sslat_error *err)
{
    const sslat_graph *graph = unit->graph;
    for (int32_t i = 0; i < graph->count; i++)
        if (graph->nodes[i].op == SSLAT_OP_CONV2D && sslat_node_conv(&graph->nodes[i])->kernel == 5)
            return sslat_fail(err, SSLAT_ERR_DEVICE, "refused a 5x5 convolution");
    return sslat_mac_calculator.measure_graph(self, session, unit, options, entry, err);
}

sslat_calculator failing_mac()
{
    sslat_calculator c = sslat_mac_calculator;
    c.measure_graph = fail_on_k5;
    c.measure_many = nullptr;
    return c;
}

// Two blocks; the k5 candidates of both fail, and the first block's k5 is the
// same subgraph as one the second block has (measured, and failed, once).
const std::string kSpace = space_json(
    "{\"name\": \"stem\", \"op\": \"conv\", \"c\": 8, \"k\": 3, \"s\": 2},"
    "{\"name\": \"b0\", \"choice\": [\"conv_k3_c8\", \"conv_k5_c8\", \"skip\"], \"c\": 8},"
    "{\"name\": \"b1\", \"choice\": [\"conv_k5_c8\", \"conv_k3_c8\"], \"c\": 8}");

class KeepGoing : public testing::Test {
  protected:
    void SetUp() override
    {
        space = load_text(kSpace);
        ASSERT_NE(space, nullptr);
        calculator = failing_mac();
        sslat_calc_options_default(&options);
    }
    void TearDown() override { sslat_space_free(space); }
    sslat_container *measure(sslat_status expected)
    {
        sslat_container *c = nullptr;
        sslat_error err;
        EXPECT_EQ(sslat_measure_space(&calculator, space, &options, &plan, nullptr, &c, &err), expected) << err.message;
        if (expected != SSLAT_OK) EXPECT_NE(std::string(err.message).find("refused a 5x5"), std::string::npos) << err.message;
        return c;
    }
    sslat_space *space = nullptr;
    sslat_calculator calculator;
    sslat_calc_options options;
    sslat_run_plan plan = {};
};

TEST_F(KeepGoing, WithoutItTheFirstFailureEndsTheRunNamingTheCandidate)
{
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_measure_space(&calculator, space, &options, &plan, nullptr, &c, &err), SSLAT_ERR_DEVICE);
    EXPECT_NE(std::string(err.message).find("layer 'b0' candidate 1 'conv_k5_c8'"), std::string::npos) << err.message;
    EXPECT_EQ(c, nullptr);
}

TEST_F(KeepGoing, FailedUnitsAreMarkedAndTheOthersMeasured)
{
    plan.keep_going = true;
    sslat_container *c = measure(SSLAT_OK);
    ASSERT_NE(c, nullptr);
    // one distinct failing subgraph (conv_k5_c8 on 8 channels in both blocks)
    EXPECT_STREQ(sslat_container_metadata(c, "quality.failed_units"), "1");
    EXPECT_STREQ(sslat_container_metadata(c, "quality.failed_entries"), "0:1,1:0");
    const char *why = sslat_container_metadata(c, "failed.b0:conv_k5_c8");
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("refused a 5x5 convolution"), std::string::npos) << why;
    EXPECT_TRUE(sslat_container_entry_failed(c, 0, 1));
    EXPECT_TRUE(sslat_container_entry_failed(c, 1, 0));
    EXPECT_FALSE(sslat_container_entry_failed(c, 0, 0));
    EXPECT_FALSE(sslat_container_entry_failed(c, -1, 0)) << "the stem was measured";
    EXPECT_EQ(sslat_container_latency(c, 0, 1), 0.0);
    EXPECT_GT(sslat_container_latency(c, 0, 0), 0.0) << "conv_k3_c8 was measured";
    sslat_container_free(c);
}

TEST_F(KeepGoing, AFailedFixedLayerLeavesTheConstantPartMarkedNotSummed)
{
    // two fixed layers (a stem and a 5x5 head) around a block
    sslat_space *with_head = load_text(space_json(
        "{\"name\": \"stem\", \"op\": \"conv\", \"c\": 8, \"k\": 3, \"s\": 2},"
        "{\"name\": \"b0\", \"choice\": [\"conv_k3_c8\", \"skip\"], \"c\": 8},"
        "{\"name\": \"head\", \"op\": \"conv\", \"c\": 8, \"k\": 5}"));
    ASSERT_NE(with_head, nullptr);
    plan.keep_going = true;
    sslat_container *c = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_measure_space(&calculator, with_head, &options, &plan, nullptr, &c, &err), SSLAT_OK) << err.message;
    EXPECT_STREQ(sslat_container_metadata(c, "quality.failed_entries"), "constant");
    EXPECT_TRUE(sslat_container_entry_failed(c, -1, 0));
    std::string key = std::string("failed.head:") + with_head->layers[2].candidates[0].label;
    EXPECT_NE(sslat_container_metadata(c, key.c_str()), nullptr) << key;
    // the constant holds the stem alone: what the mac calculator gives the stem
    sslat_container *stem_only = nullptr;
    sslat_space *stem = load_text(space_json("{\"name\": \"stem\", \"op\": \"conv\", \"c\": 8, \"k\": 3, \"s\": 2},"
                                             "{\"name\": \"b0\", \"choice\": [\"conv_k3_c8\", \"skip\"], \"c\": 8}"));
    ASSERT_NE(stem, nullptr);
    ASSERT_EQ(sslat_measure_space(&sslat_mac_calculator, stem, &options, &plan, nullptr, &stem_only, &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_constant_entry(c).value, sslat_container_constant_entry(stem_only).value);
    double latency;
    EXPECT_EQ(sslat_min_latency(c, &latency, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_container_free(stem_only);
    sslat_container_free(c);
    sslat_space_free(stem);
    sslat_space_free(with_head);
}

bool no_k5(const sslat_node *node)
{
    return node->op != SSLAT_OP_CONV2D || sslat_node_conv(node)->kernel != 5;
}

TEST_F(KeepGoing, AnUnsupportedCandidateIsRecordedInsteadOfEndingTheRun)
{
    calculator = sslat_mac_calculator;
    calculator.supports_op = no_k5;
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_measure_space(&calculator, space, &options, &plan, nullptr, &c, &err), SSLAT_ERR_UNSUPPORTED);
    plan.keep_going = true;
    ASSERT_EQ(sslat_measure_space(&calculator, space, &options, &plan, nullptr, &c, &err), SSLAT_OK) << err.message;
    EXPECT_STREQ(sslat_container_metadata(c, "quality.failed_entries"), "0:1,1:0");
    const char *why = sslat_container_metadata(c, "failed.b1:conv_k5_c8");
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("is not supported"), std::string::npos) << why;
    EXPECT_GT(sslat_container_latency(c, 1, 1), 0.0);
    sslat_container_free(c);
}

TEST_F(KeepGoing, AnIncompleteTableIsRefusedByStatisticsValidationAndMerge)
{
    plan.keep_going = true;
    sslat_container *c = measure(SSLAT_OK);
    ASSERT_NE(c, nullptr);
    sslat_error err;
    double latency;
    EXPECT_EQ(sslat_min_latency(c, &latency, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("incomplete: 1 unit failed"), std::string::npos) << err.message;
    EXPECT_NE(std::string(err.message).find("--resume"), std::string::npos) << err.message;
    EXPECT_EQ(sslat_attach_latency(space, c, &err), SSLAT_ERR_INVALID_ARGUMENT) << "the reference API's attach";
    EXPECT_NE(std::string(err.message).find("incomplete"), std::string::npos) << err.message;
    sslat_validation validation;
    EXPECT_EQ(sslat_validation_plan(space, c, 4, 1, NULL, &validation, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("incomplete"), std::string::npos) << err.message;
    sslat_validation_release(&validation);

    // a shard's part that failed cannot be merged into a table that looks whole
    plan.shard_count = 2;
    sslat_container *parts[2] = {nullptr, nullptr};
    for (int32_t i = 0; i < 2; i++) {
        plan.shard_index = i;
        parts[i] = measure(SSLAT_OK);
        ASSERT_NE(parts[i], nullptr);
    }
    ASSERT_TRUE(sslat_container_has_failed_entries(parts[0]) || sslat_container_has_failed_entries(parts[1]));
    sslat_container *merged = nullptr;
    EXPECT_EQ(sslat_container_merge(parts, 2, &merged, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("is incomplete"), std::string::npos) << err.message;
    EXPECT_EQ(merged, nullptr);
    sslat_container_free(parts[0]);
    sslat_container_free(parts[1]);
    sslat_container_free(c);
}

TEST_F(KeepGoing, ExportsShowFailedEntriesAsNotMeasuredAndTheMarkSurvivesSaving)
{
    plan.keep_going = true;
    sslat_container *c = measure(SSLAT_OK);
    ASSERT_NE(c, nullptr);
    char *csv = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_export_csv(c, &csv, &err), SSLAT_OK) << err.message;
    std::string text(csv);
    sslat_free(csv);
    EXPECT_NE(text.find("\n0,b0,1,conv_k5_c8,nan,"), std::string::npos) << text;
    EXPECT_NE(text.find("\n1,b1,0,conv_k5_c8,nan,"), std::string::npos) << text;
    EXPECT_EQ(text.find("\n0,b0,0,conv_k3_c8,nan,"), std::string::npos) << text;

    uint8_t *bytes = nullptr;
    size_t size = 0;
    ASSERT_EQ(sslat_container_save_to_bytes(c, &bytes, &size, &err), SSLAT_OK) << err.message;
    sslat_container *loaded = nullptr;
    ASSERT_EQ(sslat_container_load_from_bytes(bytes, size, &loaded, &err), SSLAT_OK) << err.message;
    sslat_free(bytes);
    double latency;
    EXPECT_EQ(sslat_max_latency(loaded, &latency, &err), SSLAT_ERR_INVALID_ARGUMENT) << "a reloaded table is still incomplete";
    sslat_container_free(loaded);
    sslat_container_free(c);
}

TEST_F(KeepGoing, FailuresAreNotJournaledSoResumeMeasuresOnlyThem)
{
    TempDir dir("sslat-keep-going");
    ASSERT_TRUE(dir.made());
    std::string path = dir.path("t.sslat.journal");
    uint64_t fingerprint = sslat_run_fingerprint(&calculator, space, &options, &plan);
    sslat_journal *journal = nullptr;
    sslat_journal_info info;
    sslat_error err;
    ASSERT_EQ(sslat_journal_open(path.c_str(), SSLAT_JOURNAL_NEW, fingerprint, &journal, &info, &err), SSLAT_OK)
        << err.message;
    plan.keep_going = true;
    plan.journal = journal;
    sslat_container *incomplete = measure(SSLAT_OK);
    ASSERT_NE(incomplete, nullptr);
    // units: the stem, conv_k3_c8, skip, conv_k5_c8 (failed)
    EXPECT_EQ(sslat_journal_count(journal), 3u);
    sslat_journal_close(journal, false);

    // the cause fixed (the plain mac calculator, same name and fingerprint):
    // --resume re-uses the 3 and measures the 1
    const sslat_calculator fixed = sslat_mac_calculator;
    ASSERT_EQ(sslat_run_fingerprint(&fixed, space, &options, &plan), fingerprint);
    ASSERT_EQ(sslat_journal_open(path.c_str(), SSLAT_JOURNAL_RESUME, fingerprint, &journal, &info, &err), SSLAT_OK)
        << err.message;
    EXPECT_EQ(info.recovered, 3u);
    plan.journal = journal;
    sslat_container *complete = nullptr;
    ASSERT_EQ(sslat_measure_space(&fixed, space, &options, &plan, nullptr, &complete, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(sslat_journal_count(journal), 4u);
    sslat_journal_close(journal, true);
    EXPECT_FALSE(sslat_container_has_failed_entries(complete));
    double latency;
    EXPECT_EQ(sslat_min_latency(complete, &latency, &err), SSLAT_OK) << err.message;
    EXPECT_GT(sslat_container_latency(complete, 1, 0), 0.0);
    sslat_container_free(incomplete);
    sslat_container_free(complete);
}

} // namespace

namespace {

class KeepGoingCli : public CliFixture {};

TEST_F(KeepGoingCli, TheCommandRefusesAnIncompleteTableAndMarksItsCsv)
{
    sslat_space *space = load_text(kSpace);
    ASSERT_NE(space, nullptr);
    sslat_calculator calculator = failing_mac();
    sslat_calc_options options;
    sslat_calc_options_default(&options);
    sslat_run_plan plan = {};
    plan.keep_going = true;
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_measure_space(&calculator, space, &options, &plan, nullptr, &table, &err), SSLAT_OK) << err.message;
    std::string file = path("incomplete.sslat"), space_file = write("space.json", kSpace);
    ASSERT_EQ(sslat_container_save_to_file(table, file.c_str(), &err), SSLAT_OK) << err.message;
    sslat_container_free(table);
    sslat_space_free(space);

    Result r = run("stats " + file);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("incomplete: 1 unit failed"), std::string::npos) << r.err;
    r = run("stats " + file + " --space " + space_file);
    EXPECT_EQ(r.code, 2) << r.err;
    r = run("export " + file + " --csv");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(",conv_k5_c8,nan,"), std::string::npos) << r.out;
    r = run("export " + file + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"quality.failed_entries\": \"0:1,1:0\""), std::string::npos) << r.out;

    // a run where nothing fails is complete with or without --keep-going
    r = run("measure -c mac " + space_file + " --keep-going -o " + path("whole.sslat"));
    EXPECT_EQ(r.code, 0) << r.err;
    r = run("stats " + path("whole.sslat"));
    EXPECT_EQ(r.code, 0) << r.err;
    r = run("measure --help");
    EXPECT_NE(r.out.find("--keep-going"), std::string::npos);
    // context mode needs a complete table: refused before anything runs
    r = run("measure -c mac " + space_file + " --keep-going --context 8 -o " + path("context.sslat"));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("not with --context"), std::string::npos) << r.err;
}

} // namespace
