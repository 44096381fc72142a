// A timed table's quality verdict (measure/quality.h) on constructed inputs,
// and context mode fitted to a runtime that is not the table's (api/context.h)
// on a synthetic runtime: no clock, no machine, nothing that can flake.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

extern "C" {
#include "api/context.h"
#include "ir/space.h"
#include "measure/quality.h"
#include "table/container.h"
}

#include "helpers.h"

namespace {

sslat_quality_input quiet()
{
    sslat_quality_input in = {};
    in.cov_median = 0.02;
    in.cov_worst = 0.09;
    in.batches = 100;
    in.mean_share = 0.99;
    in.worst_share = 0.95;
    in.free_cores = 1;
    in.calibration_share = 0.99;
    in.drift = 1.01;
    return in;
}

sslat_quality_verdict judge(const sslat_quality_input &in, std::string *cause)
{
    char text[1024];
    sslat_quality_verdict v = sslat_quality_judge(&in, text, sizeof text);
    *cause = text;
    return v;
}

TEST(QualityVerdict, AQuietRunIsOkWithNoCause)
{
    std::string cause;
    EXPECT_EQ(judge(quiet(), &cause), SSLAT_QUALITY_OK);
    EXPECT_EQ(cause, "");
    EXPECT_STREQ(sslat_quality_name(SSLAT_QUALITY_OK), "ok");
}

TEST(QualityVerdict, DisturbedBatchesKeptPastTheThresholdMakeItDisturbedAndSayWhy)
{
    sslat_quality_input in = quiet();
    in.batches = 130;
    in.remeasured = 30;  // 100 kept
    in.kept_disturbed = 6;  // 6% > 5%
    in.mean_wait = 0.21;
    in.worst_wait = 0.9;
    in.most_others = 2;
    in.busy_elsewhere = 1.0;
    std::string cause;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("6 of 100 batches"), std::string::npos) << cause;
    EXPECT_NE(cause.find("after 30 reruns"), std::string::npos) << cause;
    EXPECT_NE(cause.find("waited for a CPU 21%"), std::string::npos) << cause;
    EXPECT_NE(cause.find("other processes kept 1.0 cores busy"), std::string::npos) << cause;
    EXPECT_NE(cause.find("up to 2 other runnable tasks"), std::string::npos) << cause;
    in.kept_disturbed = 5;  // exactly 5%: below the threshold, but a kept disturbed batch is noise
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_NOISY);
    EXPECT_NE(cause.find("5 of 100 batches of samples kept though disturbed"), std::string::npos) << cause;
    // a tiny run: one disturbed batch of ten is 10%, but one is not a pattern
    in.batches = 12;
    in.remeasured = 2;
    in.kept_disturbed = 1;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_NOISY) << cause;
    in.kept_disturbed = 2;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED) << cause;
}

TEST(QualityVerdict, MoreWorkersThanCpusIsDisturbedAndSaysSo)
{
    sslat_quality_input in = quiet();
    in.oversubscribed = true;
    in.free_cores = 0;
    std::string cause;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("more worker threads than CPUs"), std::string::npos) << cause;
    EXPECT_EQ(cause.find("-"), std::string::npos) << cause;  // no negative count of free cores
}

TEST(QualityVerdict, AStarvedCalibrationThreadOrAHugeSpreadIsDisturbed)
{
    sslat_quality_input in = quiet();
    in.calibration_share = 0.51;
    std::string cause;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("got only 51% of its wall time"), std::string::npos) << cause;
    in = quiet();
    in.cov_median = 0.4;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("median entry spread (stddev / mean) 40%"), std::string::npos) << cause;
}

TEST(QualityVerdict, NoisyNamesEachReason)
{
    sslat_quality_input in = quiet();
    in.cov_median = 0.12;
    in.drift = 0.9;
    in.worst_steal = 0.08;
    in.busy_elsewhere = 1.8;  // one core was free for others: 0.8 more than that
    std::string cause;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_NOISY);
    EXPECT_NE(cause.find("median entry spread (stddev / mean) 12.0%"), std::string::npos) << cause;
    EXPECT_NE(cause.find("10% faster at the end"), std::string::npos) << cause;
    EXPECT_NE(cause.find("stole up to 8%"), std::string::npos) << cause;
    EXPECT_NE(cause.find("1.8 cores busy where 1 were free"), std::string::npos) << cause;
    // the same machine with one free core left for the others is fine
    in = quiet();
    in.busy_elsewhere = 1.2;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_OK) << cause;
}

// "ok" means precise too: when most entries are noisy by trtexec's rule (the
// median spread past 2.5%, one entry's threshold), the table is noisy whatever
// the machine did; a reference run (never rerun) does not claim reruns.
TEST(QualityVerdict, MostEntriesNoisyIsNeverOkAndNoRerunsAreClaimed)
{
    sslat_quality_input in = quiet();
    in.cov_median = 0.024;
    std::string cause;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_OK) << cause;
    in.cov_median = 0.076;  // 60 of 60 entries past 2.5%, median 7.6%: a trial's "ok" table
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_NOISY);
    EXPECT_NE(cause.find("median entry spread (stddev / mean) 7.6%: most entries are noisy (over 2.5%)"),
              std::string::npos) << cause;
    in = quiet();
    in.batches = 20;
    in.kept_disturbed = 20;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("part of 20 of 20 batches of samples (they waited"), std::string::npos) << cause;
    in.batches = 30;
    in.remeasured = 10;
    EXPECT_EQ(judge(in, &cause), SSLAT_QUALITY_DISTURBED);
    EXPECT_NE(cause.find("batches of samples even after 10 reruns"), std::string::npos) << cause;
}

TEST(QualityVerdict, SpreadIsTheMedianAndWorstOverEntriesWithSamples)
{
    std::vector<sslat_entry> e(5);
    double cov[] = {0.01, 0.04, 0.02, 0.5, 0.03};
    for (size_t i = 0; i < e.size(); i++) {
        e[i] = sslat_entry_of_value(2.0);
        e[i].samples = 10;
        e[i].stddev = cov[i] * e[i].mean;
    }
    e[3].samples = 1;  // one sample: no spread to speak of
    double median = 0, worst = 0;
    long at = -2;
    sslat_quality_spread(e.data(), e.size(), &median, &worst, &at);
    EXPECT_DOUBLE_EQ(median, 0.025);  // of 0.01, 0.02, 0.03, 0.04
    EXPECT_DOUBLE_EQ(worst, 0.04);
    EXPECT_EQ(at, 1);
    sslat_quality_spread(e.data(), 0, &median, &worst, &at);
    EXPECT_TRUE(std::isnan(median));
    EXPECT_EQ(at, -1);
}

// A runtime the table did not come from: every network costs 1.3x the sum of
// its true per-candidate values, which are the table's values plus a per-block
// skew. The fit must predict that runtime on architectures it never saw.
struct FakeRuntime {
    const sslat_container *truth;
    int calls = 0;
    size_t asked = 0;
};

double total(const sslat_container *t, const int32_t *arch)
{
    double sum = sslat_container_constant_latency(t);
    for (int32_t b = 0; b < sslat_container_block_count(t); b++) sum += sslat_container_latency(t, b, arch[b]);
    return sum;
}

sslat_status fake_measure(void *context, const sslat_space *, const int32_t *const *archs, size_t n, double *ms,
                          sslat_error *)
{
    FakeRuntime *r = static_cast<FakeRuntime *>(context);
    r->calls++;
    r->asked += n;
    for (size_t k = 0; k < n; k++) ms[k] = 1.3 * total(r->truth, archs[k]);
    return SSLAT_OK;
}

TEST(ContextToAReference, FitsAnotherRuntimeAndRecordsWhichOne)
{
    sslat_space *space = load_example("mobilenet_v2_space.json");
    sslat_container *attached = nullptr, *isolated = nullptr, *truth = nullptr;  // attached: the space's
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("mac", space, nullptr, nullptr, &attached, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_container_clone(attached, &isolated, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_clone(attached, &truth, &err), SSLAT_OK);
    for (int32_t b = 0; b < sslat_container_block_count(truth); b++)  // the runtime's own skew per block
        for (int32_t c = 0; c < sslat_container_candidate_count(truth, b); c++) {
            sslat_entry e = sslat_entry_of_value(sslat_container_latency(truth, b, c) * (1.0 + 0.02 * (b % 5)));
            ASSERT_EQ(sslat_container_set_entry(truth, b, c, &e, &err), SSLAT_OK);
        }
    FakeRuntime runtime{truth};
    sslat_context_target target = {fake_measure, &runtime, "fakeruntime 1.0, back to back", "fakeruntime", true};
    sslat_context_result fit;
    ASSERT_EQ(sslat_context_refine_to(space, 7, 200, &target, isolated, &fit, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(runtime.calls, 1);  // one call: a runtime started once, not per group
    EXPECT_EQ(runtime.asked, 200u);
    EXPECT_STREQ(sslat_container_metadata(isolated, "context.reference"), "fakeruntime 1.0, back to back");
    EXPECT_NE(std::string(sslat_container_metadata(isolated, "context.method")).find("in fakeruntime"), std::string::npos);
    double scale = std::stod(sslat_container_metadata(isolated, "context.prior_scale"));
    EXPECT_GT(scale, 1.3);  // 1.3 and the skew
    EXPECT_LT(scale, 1.4);
    EXPECT_LT(fit.bias_before, -0.2);  // the isolated table was ~25% under that runtime
    EXPECT_LT(std::fabs(fit.bias_after), 0.01);
    // held-out architectures: a seeded walk the fit never saw
    int within = 0, n = 200;
    uint64_t state = 12345;
    std::vector<int32_t> arch(sslat_container_block_count(isolated));
    for (int k = 0; k < n; k++) {
        for (size_t b = 0; b < arch.size(); b++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            arch[b] = (int32_t)((state >> 33) % (uint64_t)sslat_container_candidate_count(isolated, (int32_t)b));
        }
        double predicted = total(isolated, arch.data()), measured = 1.3 * total(truth, arch.data());
        within += std::fabs(predicted - measured) / measured <= 0.02;
    }
    EXPECT_GE(within, n * 95 / 100);
    // the runtime keeps every block's order: nothing reordered, and 200 noiseless runs are enough
    EXPECT_EQ(std::string(sslat_container_metadata(isolated, "context.swaps")).rfind("none: ", 0), 0u);
    EXPECT_EQ(std::string(sslat_container_metadata(isolated, "context.enough")).rfind("yes: ", 0), 0u)
        << sslat_container_metadata(isolated, "context.enough");
    sslat_container_free(truth);
    sslat_container_free(isolated);
    sslat_space_free(space);
}

// A runtime in which two near-tied candidates of a block cost the other way
// round: the fit follows the runs, and says so by name (never a silent re-rank);
// too few runs to cross-validate say that the fit cannot tell whether they are enough.
TEST(ContextToAReference, CandidatesTheFitReordersAreNamedAndTooFewRunsSaySo)
{
    sslat_space *space = load_example("mobilenet_v2_space.json");
    sslat_container *attached = nullptr, *isolated = nullptr, *truth = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("mac", space, nullptr, nullptr, &attached, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_container_clone(attached, &isolated, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_clone(attached, &truth, &err), SSLAT_OK);
    // block 3's candidates 0 and 1 5% apart in the table, the other way round in the runtime
    double low = sslat_container_latency(isolated, 3, 0);
    sslat_entry fast = sslat_entry_of_value(low), slow = sslat_entry_of_value(low * 1.05);
    ASSERT_EQ(sslat_container_set_entry(isolated, 3, 1, &slow, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_set_entry(truth, 3, 0, &slow, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_set_entry(truth, 3, 1, &fast, &err), SSLAT_OK);
    FakeRuntime runtime{truth};
    sslat_context_target target = {fake_measure, &runtime, "fakeruntime 1.0", "fakeruntime", true};
    sslat_context_result fit;
    ASSERT_EQ(sslat_context_refine_to(space, 3, 300, &target, isolated, &fit, &err), SSLAT_OK) << err.message;
    std::string swaps = sslat_container_metadata(isolated, "context.swaps");
    EXPECT_NE(swaps.find("1 pair(s) of candidates in 1 block(s) changed order (1 of them near-ties, within 10%"),
              std::string::npos) << swaps;
    char block[96], first[96], second[96];
    std::string named = std::string(sslat_container_block_title(isolated, 3, block, sizeof block)) + ": " +
                        sslat_container_candidate_title(isolated, 3, 0, first, sizeof first) + " < " +
                        sslat_container_candidate_title(isolated, 3, 1, second, sizeof second) + " (isolated ";
    EXPECT_NE(swaps.find(named), std::string::npos) << swaps;
    EXPECT_GT(sslat_container_latency(isolated, 3, 0), sslat_container_latency(isolated, 3, 1));
    // 9 runs (fewer than 2 x 5 folds; block 3 has 6 candidates): no cross-validation, said
    sslat_container *again = nullptr;
    ASSERT_EQ(sslat_container_clone(attached, &again, &err), SSLAT_OK);
    ASSERT_EQ(sslat_context_refine_to(space, 3, 9, &target, again, &fit, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(std::string(sslat_container_metadata(again, "context.enough")).rfind("unknown: 9 runs are too few", 0), 0u)
        << sslat_container_metadata(again, "context.enough");
    sslat_container_free(again);
    sslat_container_free(truth);
    sslat_container_free(isolated);
    sslat_space_free(space);
}

TEST(ContextToAReference, ARuntimeThatGivesNoTimeIsAnErrorNamingIt)
{
    sslat_space *space = load_example("fbnet.json");
    sslat_container *attached = nullptr, *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("mac", space, nullptr, nullptr, &attached, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_clone(attached, &table, &err), SSLAT_OK);
    auto zero = [](void *, const sslat_space *, const int32_t *const *, size_t n, double *ms, sslat_error *) {
        for (size_t k = 0; k < n; k++) ms[k] = k == 3 ? 0.0 : 1.0;
        return SSLAT_OK;
    };
    sslat_context_target target = {zero, nullptr, "brokenruntime", "brokenruntime", true};
    sslat_context_result fit;
    EXPECT_EQ(sslat_context_refine_to(space, 1, 50, &target, table, &fit, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("context architecture 3 got no positive time from brokenruntime"),
              std::string::npos) << err.message;
    sslat_container_free(table);
    sslat_space_free(space);
}

}  // namespace
