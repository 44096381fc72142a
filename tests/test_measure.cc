// What both timed backends share: fp16 / bf16 conversion on the host, the
// counter-based fill, and the stopping rule (on a fake clock).
#include <gtest/gtest.h>

extern "C" {
#include "base/progress.h"
#include "measure/fill.h"
#include "measure/half.h"
#include "measure/sample_stats.h"
#include "measure/stop.h"
#include "table/container.h"
}

#include <cmath>
#include <vector>

namespace {

TEST(HalfConversion, KnownValuesAndRoundTrips)
{
    EXPECT_EQ(sslat_float_to_fp16(1.0f), 0x3c00);
    EXPECT_EQ(sslat_float_to_fp16(-2.0f), 0xc000);
    EXPECT_EQ(sslat_float_to_fp16(65504.0f), 0x7bff);
    EXPECT_EQ(sslat_float_to_fp16(1e6f), 0x7c00); // overflow: inf
    EXPECT_EQ(sslat_float_to_fp16(5.9604645e-8f), 0x0001); // smallest subnormal
    EXPECT_EQ(sslat_float_to_fp16(1.0f + 1.0f / 2048), 0x3c00); // tie to even: down
    EXPECT_EQ(sslat_float_to_fp16(1.0f + 3.0f / 2048), 0x3c02); // tie to even: up
    EXPECT_EQ(sslat_float_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(sslat_float_to_bf16(3.14159265f), 0x4049);
    for (float v : {0.0f, 0.5f, -0.75f, 3.0f, 1024.0f, 6.1035156e-5f}) {
        EXPECT_EQ(sslat_fp16_to_float(sslat_float_to_fp16(v)), v) << v;
        EXPECT_EQ(sslat_bf16_to_float(sslat_float_to_bf16(v)), v) << v;
    }
    // every fp16 pattern that is finite converts back to itself
    int mismatches = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if (((h >> 10) & 0x1f) == 0x1f) continue;
        mismatches += sslat_float_to_fp16(sslat_fp16_to_float((uint16_t)h)) != (uint16_t)h;
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(Fill, HostValuesAreInRangeAndSeedDependent)
{
    // Runs without a device: the host twin is plain code.
    int differ = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        float a = sslat_fill_at(1, i, 0.5f, 2.0f);
        EXPECT_GE(a, 0.5f);
        EXPECT_LT(a, 2.0f);
        differ += a != sslat_fill_at(2, i, 0.5f, 2.0f);
    }
    EXPECT_GT(differ, 990);
}

TEST(SampleStats, MedianNoiseIsTheRelativeHalfWidthOfItsConfidenceInterval)
{
    double flat[101], spread[101];
    for (int i = 0; i < 101; i++) {
        flat[i] = 1.0;
        spread[i] = 1.0 + i * 0.01;
    }
    EXPECT_EQ(sslat_median_noise(flat, 101), 0.0);
    // order statistics n/2 ± 0.98·√n: 40 and 61 of 101
    EXPECT_NEAR(sslat_median_noise(spread, 101), (spread[61] - spread[40]) / (2 * spread[50]), 1e-12);
    EXPECT_TRUE(std::isinf(sslat_median_noise(spread, 2)));  // too few to say
}

// The fake clock: each sample's run takes run_ms; values cycle through pattern.
struct FakeRun {
    double run_ms;
    std::vector<double> pattern;
};

// Samples until the rule says stop (or 100000, a bound the rule must never need).
size_t samples_until_stop(const sslat_stop_rule &rule, const FakeRun &run, sslat_entry *entry = nullptr)
{
    sslat_stop stop;
    sslat_error err;
    EXPECT_EQ(sslat_stop_init(&stop, &rule, &err), SSLAT_OK);
    size_t n = 0;
    while (n < 100000 && !sslat_stop_add(&stop, run.run_ms, run.pattern[n % run.pattern.size()])) n++;
    if (entry) *entry = sslat_stop_entry(&stop);
    sslat_stop_release(&stop);
    return n + 1;
}

TEST(StopRule, WithoutATargetItTakesExactlyTheMinimum)
{
    sslat_stop_rule rule = {.min_samples = 7, .max_samples = 1000, .target_noise = 0, .max_seconds = 1000};
    sslat_entry e;
    EXPECT_EQ(samples_until_stop(rule, {1.0, {3, 1, 2}}, &e), 7u);
    EXPECT_EQ(e.samples, 7u);
    EXPECT_EQ(e.median, 2.0);  // 3 1 2 3 1 2 3
    EXPECT_EQ(e.min, 1.0);
    EXPECT_EQ(e.max, 3.0);
    rule.min_samples = 0;  // at least one sample
    EXPECT_EQ(samples_until_stop(rule, {1.0, {5}}), 1u);
}

TEST(StopRule, StopsAsSoonAsTheMedianIsTightEnough)
{
    sslat_stop_rule rule = {.min_samples = 10, .max_samples = 1000, .target_noise = 0.01, .max_seconds = 1000};
    EXPECT_EQ(samples_until_stop(rule, {1.0, {2.0}}), 10u);  // no noise: done at the minimum
    // 1.00 .. 1.09 repeating: wide at first, the CI narrows as samples pile up;
    // the check runs at the minimum and every SSLAT_STOP_CHECK_EVERY samples after
    std::vector<double> ramp;
    for (int i = 0; i < 10; i++) ramp.push_back(1.0 + 0.01 * i);
    size_t n = samples_until_stop(rule, {1.0, ramp});
    EXPECT_GT(n, 10u);
    EXPECT_LT(n, 1000u);
    EXPECT_EQ((n - 10) % SSLAT_STOP_CHECK_EVERY, 0u);
    // and the noise there is within the target, one check earlier it was not
    sslat_stop stop;
    sslat_error err;
    ASSERT_EQ(sslat_stop_init(&stop, &rule, &err), SSLAT_OK);
    for (size_t k = 0; k < n - SSLAT_STOP_CHECK_EVERY; k++) sslat_stop_add(&stop, 1.0, ramp[k % ramp.size()]);
    EXPECT_GT(stop.noise, 0.01);
    for (size_t k = n - SSLAT_STOP_CHECK_EVERY; k < n; k++) sslat_stop_add(&stop, 1.0, ramp[k % ramp.size()]);
    EXPECT_LE(stop.noise, 0.01);
    EXPECT_TRUE(stop.finished);
    sslat_stop_release(&stop);
}

TEST(StopRule, TheTimeCapCountsTheUnitsOwnSampledTime)
{
    // unreachable noise (alternating 1 and 3); 10 ms a run, a 0.1 s cap:
    // past the cap after the 11th sample
    sslat_stop_rule rule = {.min_samples = 3, .max_samples = 1000, .target_noise = 1e-9, .max_seconds = 0.1};
    EXPECT_EQ(samples_until_stop(rule, {10.0, {1, 3}}), 11u);
    // twice as slow a run: half the samples
    EXPECT_EQ(samples_until_stop(rule, {20.0, {1, 3}}), 6u);
    // the minimum is kept even past the cap
    rule.min_samples = 50;
    EXPECT_EQ(samples_until_stop(rule, {10.0, {1, 3}}), 50u);
}

TEST(StopRule, TheSampleCapBoundsEverything)
{
    sslat_stop_rule rule = {.min_samples = 3, .max_samples = 40, .target_noise = 1e-9, .max_seconds = 1e9};
    EXPECT_EQ(samples_until_stop(rule, {1.0, {1, 3}}), 40u);
    // a minimum above the cap wins: the runs asked for are always taken
    rule.min_samples = 64;
    EXPECT_EQ(samples_until_stop(rule, {1.0, {1, 3}}), 64u);
}

TEST(StopRule, AUnitWithoutSamplesIsZero)
{
    sslat_stop_rule rule = {.min_samples = 3, .max_samples = 10, .target_noise = 0, .max_seconds = 1};
    sslat_stop stop;
    sslat_error err;
    ASSERT_EQ(sslat_stop_init(&stop, &rule, &err), SSLAT_OK);
    sslat_entry e = sslat_stop_entry(&stop);
    EXPECT_EQ(e.samples, 0u);
    EXPECT_EQ(e.value, 0.0);
    sslat_stop_release(&stop);
}

TEST(Progress, SaysCountsElapsedTimeAndTheEta)
{
    sslat_progress p;
    sslat_progress_begin(&p, false, "[cpu]", "distinct subgraphs", 100);
    char line[256];
    sslat_progress_format(&p, 25, 10.0, line, sizeof line);
    EXPECT_STREQ(line, "[cpu] 25/100 distinct subgraphs  10 s elapsed, ETA 30 s");
    sslat_progress_format(&p, 100, 40.4, line, sizeof line);
    EXPECT_STREQ(line, "[cpu] 100/100 distinct subgraphs  40 s elapsed");  // no ETA at the end
    sslat_progress_format(&p, 0, 0.0, line, sizeof line);
    EXPECT_STREQ(line, "[cpu] 0/100 distinct subgraphs  0 s elapsed");  // nor before any step
}

TEST(NoisyEntries, FollowTrtexecsCoefficientOfVariationRule)
{
    sslat_entry e = {1.0, 1.0, 1.0, 0.02, 0.9, 1.1, 10};
    EXPECT_FALSE(sslat_entry_noisy(&e));  // 2% <= 2.5%
    e.stddev = 0.03;
    EXPECT_TRUE(sslat_entry_noisy(&e));
    e.samples = 1;  // one sample (an analytic entry, a single run): no spread to judge
    EXPECT_FALSE(sslat_entry_noisy(&e));
    sslat_entry zero = {0, 0, 0, 0, 0, 0, 0};  // skip: nothing ran
    EXPECT_FALSE(sslat_entry_noisy(&zero));
}

}  // namespace
