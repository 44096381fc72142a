// The figures of `sslat validate` and the report's rank correlation, on hand-made data;
// the stratified architectures a validation runs; the bootstrap intervals; the
// MAC count's ranking beside the table's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "api/context.h"
#include "api/validate.h"
#include "ir/space.h"
#include "stats/validation.h"
#include "table/container.h"
}

#include "cli_fixture.h"
#include "helpers.h"

TEST(Validation, SummaryFiguresOnKnownErrors)
{
    const double measured[] = {1.0, 2.0, 4.0, 8.0};
    const double predicted[] = {1.04, 1.81, 4.0, 8.78}; // +4%, -9.5%, 0%, +9.75%
    sslat_validation_summary s = sslat_validation_summarize(predicted, measured, 4);
    EXPECT_NEAR(s.mape, (0.04 + 0.095 + 0.0 + 0.0975) / 4, 1e-12);
    EXPECT_NEAR(s.bias, (0.04 - 0.095 + 0.0 + 0.0975) / 4, 1e-12);
    EXPECT_DOUBLE_EQ(s.within_5, 0.5);
    EXPECT_DOUBLE_EQ(s.within_10, 1.0);
    EXPECT_DOUBLE_EQ(s.kendall_tau, 1.0); // the same order
    const double reversed[] = {8.0, 4.0, 2.0, 1.0};
    EXPECT_DOUBLE_EQ(sslat_validation_summarize(reversed, measured, 4).kendall_tau, -1.0);
}

TEST(Validation, SpearmanMatchesTheTextbookFormulaAndHandlesTies)
{
    // no ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)); ranks of y: 2 1 4 3 5 -> sum d^2 = 4
    const double x[] = {1, 2, 3, 4, 5}, y[] = {20, 10, 40, 30, 50};
    EXPECT_NEAR(sslat_spearman_rho(x, y, 5), 1.0 - 6.0 * 4 / (5 * 24), 1e-12);
    // monotone but non-linear: exactly 1
    const double cubes[] = {1, 8, 27, 64, 125};
    EXPECT_DOUBLE_EQ(sslat_spearman_rho(x, cubes, 5), 1.0);
    // ties: y ranks 1.5 1.5 3 4 -> Pearson of (1,2,3,4) and (1.5,1.5,3,4)
    const double a[] = {1, 2, 3, 4}, b[] = {5, 5, 6, 7};
    double mean_b = (1.5 + 1.5 + 3 + 4) / 4, sxy = 0, sxx = 0, syy = 0;
    const double rb[] = {1.5, 1.5, 3, 4};
    for (int i = 0; i < 4; i++) {
        sxy += (i + 1 - 2.5) * (rb[i] - mean_b);
        sxx += (i + 1 - 2.5) * (i + 1 - 2.5);
        syy += (rb[i] - mean_b) * (rb[i] - mean_b);
    }
    EXPECT_NEAR(sslat_spearman_rho(a, b, 4), sxy / std::sqrt(sxx * syy), 1e-12);
    const double flat[] = {3, 3, 3, 3};
    EXPECT_TRUE(std::isnan(sslat_spearman_rho(a, flat, 4)));
    EXPECT_TRUE(std::isnan(sslat_spearman_rho(a, b, 1)));
}

namespace {

// A space's MAC table as a stand-in for a latency table: every candidate a
// distinct figure, sums spread over a wide range.
sslat_container *mac_table(sslat_space *space)
{
    sslat_container *attached = nullptr, *table = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, nullptr, &attached, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(sslat_container_clone(attached, &table, &err), SSLAT_OK);
    return table;
}

std::vector<int32_t> arch_of(const sslat_validation_row &row, int32_t blocks)
{
    return std::vector<int32_t>(row.arch, row.arch + blocks);
}

}  // namespace

TEST(ValidationPlan, StrataCoverTheWholeLatencyRangeWithNoArchitectureTwice)
{
    sslat_space *space = load_example("mobilenet_v2_space.json");
    sslat_container *table = mac_table(space);
    int32_t blocks = sslat_container_block_count(table);
    double low = 0, high = 0;
    sslat_error err;
    ASSERT_EQ(sslat_min_latency(table, &low, &err), SSLAT_OK);
    ASSERT_EQ(sslat_max_latency(table, &high, &err), SSLAT_OK);
    sslat_validation v;
    const int k = 100;
    ASSERT_EQ(sslat_validation_plan(space, table, k, 5, nullptr, &v, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(v.n, k + 2);  // a large space: every stratum found an architecture
    EXPECT_STREQ(v.rows[0].label, "min");
    EXPECT_STREQ(v.rows[1].label, "max");
    EXPECT_NEAR(v.rows[0].predicted, low, 1e-9 * high);
    EXPECT_NEAR(v.rows[1].predicted, high, 1e-9 * high);
    std::set<std::vector<int32_t>> seen;
    int in_band = 0, lowest_tenth = 0, highest_tenth = 0;
    double width = (high - low) / k;
    for (int r = 0; r < v.n; r++) {
        EXPECT_TRUE(seen.insert(arch_of(v.rows[r], blocks)).second) << "row " << r << " drawn twice";
        if (r < 2) continue;
        EXPECT_EQ(std::string(v.rows[r].label), "stratum " + std::to_string(r - 2));
        double band_low = low + (r - 2) * width;
        in_band += v.rows[r].predicted >= band_low - 1e-9 && v.rows[r].predicted <= band_low + width + 1e-9;
        EXPECT_NEAR(v.rows[r].predicted, band_low + width / 2, 1.5 * width) << v.rows[r].label;  // never far off
        lowest_tenth += v.rows[r].predicted < low + 0.1 * (high - low);
        highest_tenth += v.rows[r].predicted > high - 0.1 * (high - low);
    }
    EXPECT_GE(in_band, 95);
    // the ends as present as the middle; uniform draws put ~0 there (a sum of 17 blocks crowds the middle)
    EXPECT_GE(lowest_tenth, 9);
    EXPECT_GE(highest_tenth, 9);
    int uniform_low_tenth = 0;
    uint64_t state = 99;
    std::vector<int32_t> arch(blocks);
    for (int r = 0; r < k; r++) {
        for (int32_t b = 0; b < blocks; b++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            arch[b] = (int32_t)((state >> 33) % (uint64_t)sslat_container_candidate_count(table, b));
        }
        double sum = 0;
        ASSERT_EQ(sslat_current_latency(table, arch.data(), blocks, &sum, &err), SSLAT_OK);
        uniform_low_tenth += sum < low + 0.1 * (high - low);
    }
    EXPECT_LT(uniform_low_tenth, lowest_tenth);  // what stratifying is for
    // the same seed: the same rows
    sslat_validation again;
    ASSERT_EQ(sslat_validation_plan(space, table, k, 5, nullptr, &again, &err), SSLAT_OK);
    ASSERT_EQ(again.n, v.n);
    for (int r = 0; r < v.n; r++) EXPECT_EQ(arch_of(again.rows[r], blocks), arch_of(v.rows[r], blocks));
    sslat_validation_release(&again);
    sslat_validation_release(&v);
    sslat_container_free(table);
    sslat_space_free(space);
}

TEST(ValidationPlan, ASmallSpaceGivesEachArchitectureOnceAndSaysHowManyStrataWereLeft)
{
    // 3 × 2 = 6 architectures: 50 strata cannot all be new ones
    const char *tiny = R"({"sslat": 1, "name": "tiny", "input": {"shape": [3, 32, 32], "batch": 1},
        "layers": ["cn_k3_s2_c16_nr6", {"choice": ["ir_k3_e3", "ir_k5_e6", "skip"], "c": 16, "s": 1},
                   {"choice": ["ir_k3_e3", "ir_k3_e6"], "c": 24, "s": 2}, "gap", "fc10"]})";
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_string(tiny, strlen(tiny), "tiny.json", nullptr, &space, &err), SSLAT_OK) << err.message;
    sslat_container *table = mac_table(space);
    sslat_validation v;
    ASSERT_EQ(sslat_validation_plan(space, table, 50, 1, nullptr, &v, &err), SSLAT_OK);
    EXPECT_EQ(v.asked, 50);
    EXPECT_LE(v.n, 6);
    EXPECT_GE(v.n, 4);  // the two ends and most of the rest
    std::set<std::vector<int32_t>> seen;
    for (int r = 0; r < v.n; r++) EXPECT_TRUE(seen.insert(arch_of(v.rows[r], 2)).second);
    sslat_validation_release(&v);
    sslat_container_free(table);
    sslat_space_free(space);
}

TEST(ValidationPlan, AContextTablesFittedArchitecturesAreLeftOut)
{
    // 3 × 3 × 3 = 27 architectures: 20 fitted ones cover most of them, so the
    // strata would draw them again if they were not left out
    const char *small = R"({"sslat": 1, "name": "small", "input": {"shape": [3, 32, 32], "batch": 1},
        "layers": ["cn_k3_s2_c16_nr6",
                   {"choice": ["ir_k3_e3", "ir_k5_e6", "skip"], "c": 16, "s": 1},
                   {"choice": ["ir_k3_e1", "ir_k3_e3", "skip"], "c": 16, "s": 1},
                   {"choice": ["ir_k3_e3", "ir_k3_e6", "ir_k5_e3"], "c": 24, "s": 2}, "gap", "fc10"]})";
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_string(small, strlen(small), "small.json", nullptr, &space, &err), SSLAT_OK)
        << err.message;
    sslat_container *table = mac_table(space);
    int32_t blocks = sslat_container_block_count(table);
    struct Asked {
        std::vector<std::vector<int32_t>> archs;
        int32_t blocks;
    } asked{{}, blocks};
    auto record = [](void *context, const sslat_space *, const int32_t *const *archs, size_t n, double *ms,
                     sslat_error *) {
        Asked *a = static_cast<Asked *>(context);
        for (size_t k = 0; k < n; k++) {
            a->archs.emplace_back(archs[k], archs[k] + a->blocks);
            ms[k] = 1.0 + 0.01 * (double)(k % 7);
        }
        return SSLAT_OK;
    };
    sslat_context_target target = {record, &asked, "recorder 1.0", "recorder", true};
    sslat_context_result fit;
    ASSERT_EQ(sslat_context_refine_to(space, 3, 20, &target, table, &fit, &err), SSLAT_OK) << err.message;
    EXPECT_STREQ(sslat_container_metadata(table, "context.runtime"), "recorder");
    // the table names them again from its metadata, exactly as the fit drew them
    sslat_validation_inputs inputs;
    ASSERT_EQ(sslat_validation_inputs_make(space, table, &inputs, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(inputs.exclude.n, 20u);
    for (size_t k = 0; k < 20; k++)
        EXPECT_EQ(std::vector<int32_t>(inputs.fitted + k * blocks, inputs.fitted + (k + 1) * blocks), asked.archs[k]);
    std::set<std::vector<int32_t>> fitted(asked.archs.begin(), asked.archs.end());
    sslat_validation v;
    ASSERT_EQ(sslat_validation_plan(space, table, 40, 3, &inputs.exclude, &v, &err), SSLAT_OK);
    EXPECT_EQ((size_t)v.left_out, fitted.size());  // distinct ones: a fit may draw one twice
    EXPECT_GT(v.held_out, 0);  // the strata did draw fitted ones, and skipped them
    EXPECT_LE((size_t)v.n, 27 - fitted.size());
    EXPECT_GE(v.n, 2);
    for (int r = 0; r < v.n; r++) EXPECT_EQ(fitted.count(arch_of(v.rows[r], blocks)), 0u) << v.rows[r].label;
    // without the exclusion the same plan runs fitted architectures
    sslat_validation unguarded;
    ASSERT_EQ(sslat_validation_plan(space, table, 40, 3, nullptr, &unguarded, &err), SSLAT_OK);
    int in_sample = 0;
    for (int r = 0; r < unguarded.n; r++) in_sample += (int)fitted.count(arch_of(unguarded.rows[r], blocks));
    EXPECT_GT(in_sample, 0);
    sslat_validation_release(&unguarded);
    // and the MAC count of every row, from the space's MAC table
    ASSERT_EQ(sslat_validation_count_macs(&v, inputs.macs, &err), SSLAT_OK);
    for (int r = 0; r < v.n; r++) EXPECT_GT(v.rows[r].macs, 0) << v.rows[r].label;
    sslat_validation_release(&v);
    sslat_validation_inputs_release(&inputs);
    // a malformed seed or count is an error naming it, never another seed or count
    for (const char *seed : {"12x", "-1", "+5", " 5", "99999999999999999999999", ""}) {
        ASSERT_EQ(sslat_container_set_metadata(table, "context.seed", seed, &err), SSLAT_OK);
        EXPECT_EQ(sslat_validation_inputs_make(space, table, &inputs, &err), SSLAT_ERR_PARSE) << seed;
        EXPECT_NE(std::string(err.message).find("context.seed"), std::string::npos) << err.message;
    }
    ASSERT_EQ(sslat_container_set_metadata(table, "context.seed", "3", &err), SSLAT_OK);
    for (const char *runs : {"2", " 20", "100001", "20.0"}) {  // 2: fewer than the largest block's 3 candidates
        ASSERT_EQ(sslat_container_set_metadata(table, "context.architectures", runs, &err), SSLAT_OK);
        EXPECT_EQ(sslat_validation_inputs_make(space, table, &inputs, &err), SSLAT_ERR_PARSE) << runs;
    }
    sslat_container_free(table);
    sslat_space_free(space);
}

TEST(ValidationPlan, ATableWhoseSumsOverflowIsRefused)
{
    sslat_space *space = load_example("fbnet.json");
    sslat_container *table = mac_table(space);
    sslat_error err;
    sslat_entry huge = sslat_entry_of_value(1e308);
    for (int32_t b = 0; b < 3; b++) ASSERT_EQ(sslat_container_set_entry(table, b, 1, &huge, &err), SSLAT_OK);
    sslat_validation v;
    EXPECT_EQ(sslat_validation_plan(space, table, 10, 1, nullptr, &v, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("overflow"), std::string::npos) << err.message;
    sslat_container_free(table);
    sslat_space_free(space);
}

TEST(RankIntervals, BootstrapMatchesTheUStatisticVarianceOfKendallsTau)
{
    // a constructed ranking: y follows x with a deterministic wobble (tau ≈ 0.6)
    const size_t n = 300;
    std::vector<double> x(n), y(n);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i;
        y[i] = (double)i + 60.0 * std::sin(1.7 * (double)i) + 25.0 * std::sin(0.37 * (double)i * (double)i);
    }
    // closed form: tau is a U-statistic; Var ≈ (4/n) Var_i(h1(i)) with
    // h1(i) = the mean over j ≠ i of sign((x_i − x_j)(y_i − y_j)) (Hoeffding)
    std::vector<double> h1(n, 0.0);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++)
            if (j != i) h1[i] += ((x[i] - x[j]) * (y[i] - y[j]) > 0) - ((x[i] - x[j]) * (y[i] - y[j]) < 0);
        h1[i] /= (double)(n - 1);
    }
    double mean = 0, var = 0;
    for (double h : h1) mean += h / (double)n;
    for (double h : h1) var += (h - mean) * (h - mean) / (double)(n - 1);
    double se = std::sqrt(4.0 * var / (double)n);
    sslat_rank_figures f;
    sslat_error err;
    ASSERT_EQ(sslat_rank_figures_compute(x.data(), nullptr, y.data(), n, 2000, 11, &f, &err), SSLAT_OK);
    EXPECT_NEAR(f.tau.value, mean, 1e-9);  // tau (no ties) is the mean of h1
    double width = f.tau.high - f.tau.low;
    EXPECT_NEAR(width, 2 * 1.96 * se, 0.15 * 2 * 1.96 * se) << "bootstrap [" << f.tau.low << ", " << f.tau.high
                                                           << "], closed-form se " << se;
    EXPECT_LT(f.tau.low, f.tau.value);
    EXPECT_GT(f.tau.high, f.tau.value);
    EXPECT_LT(f.rho.low, f.rho.value);
    EXPECT_GT(f.rho.high, f.rho.value);
    EXPECT_TRUE(std::isnan(f.mac_tau.value));  // no MACs given
    EXPECT_EQ(f.resamples, 2000);
    // a perfect ranking has no spread to resample: [1, 1]
    ASSERT_EQ(sslat_rank_figures_compute(x.data(), nullptr, x.data(), n, 200, 11, &f, &err), SSLAT_OK);
    EXPECT_DOUBLE_EQ(f.tau.low, 1.0);
    EXPECT_DOUBLE_EQ(f.tau.high, 1.0);
    EXPECT_EQ(sslat_rank_figures_compute(x.data(), nullptr, y.data(), 1, 200, 11, &f, &err),
              SSLAT_ERR_INVALID_ARGUMENT);
    // a handful of rows: the figure, but no interval (a resample of 5 rows mostly repeats them)
    ASSERT_EQ(sslat_rank_figures_compute(x.data(), nullptr, y.data(), 5, 200, 11, &f, &err), SSLAT_OK);
    EXPECT_FALSE(std::isnan(f.tau.value));
    EXPECT_TRUE(std::isnan(f.tau.low));
    EXPECT_EQ(f.resamples, 0);
    EXPECT_EQ(sslat_bootstrap_resamples(100), 1000);
    EXPECT_GE(sslat_bootstrap_resamples(10000), 100);
    EXPECT_LT(sslat_bootstrap_resamples(3000), 1000);
}

TEST(RankIntervals, ATableThatRanksBackwardsLosesToTheMacCountPairedOverTheSameResamples)
{
    const size_t n = 120;
    std::vector<double> measured(n), macs(n), backwards(n);
    for (size_t i = 0; i < n; i++) {
        measured[i] = 1.0 + (double)i + 3.0 * std::sin((double)i);  // MACs nearly follow the runtime
        macs[i] = 10.0 * (double)i;
        backwards[i] = 1000.0 - (double)i;
    }
    sslat_rank_figures f;
    sslat_error err;
    ASSERT_EQ(sslat_rank_figures_compute(backwards.data(), macs.data(), measured.data(), n, 500, 2, &f, &err),
              SSLAT_OK);
    EXPECT_LT(f.tau.value, -0.8);
    EXPECT_GT(f.mac_tau.value, 0.8);
    EXPECT_NEAR(f.tau_minus_mac.value, f.tau.value - f.mac_tau.value, 1e-12);
    EXPECT_LT(f.tau_minus_mac.high, 0);  // worse beyond doubt
}

class ValidateCommand : public CliFixture {};

TEST_F(ValidateCommand, WarnsWhenTheTableRanksWorseThanTheMacCount)
{
    // 3^4 = 81 architectures: 14 rows, enough for intervals
    std::string block = R"({"choice": ["ir_k3_e1", "ir_k3_e6", "skip"], "c": 16, "s": 1})";
    std::string space = write("wide.json", R"({"sslat": 1, "name": "wide", "input": {"shape": [3, 32, 32], "batch": 1},
        "layers": ["cn_k3_s2_c16_nr6", )" + block + ", " + block + ", " + block + ", " + block +
                                               R"(, "gap", "fc10"]})");
    std::string table = path("t.sslat");
    Result made = run("measure -c cpu " + space + " --threads 1 --runs 3 --warmup 1 -o " + table);
    if (made.code == 3) GTEST_SKIP() << "the cpu calculator cannot run here: " << made.err;
    ASSERT_EQ(made.code, 0) << made.err;
    // the same table with every candidate's figure turned upside down: it ranks backwards
    sslat_container *c = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(table.c_str(), &c, &err), SSLAT_OK) << err.message;
    for (int32_t b = 0; b < sslat_container_block_count(c); b++)
        for (int32_t k = 0; k < sslat_container_candidate_count(c, b); k++) {
            sslat_entry e = sslat_entry_of_value(1.0 / (1.0 + sslat_container_latency(c, b, k)));
            ASSERT_EQ(sslat_container_set_entry(c, b, k, &e, &err), SSLAT_OK);
        }
    std::string backwards = path("backwards.sslat");
    ASSERT_EQ(sslat_container_save_to_file(c, backwards.c_str(), &err), SSLAT_OK) << err.message;
    sslat_container_free(c);
    Result checked = run("validate -c cpu " + space + " " + backwards + " -k 12 --runs 3 --warmup 1 --json");
    ASSERT_EQ(checked.code, 0) << checked.err;
    EXPECT_NE(checked.err.find("warning: the table ranks these architectures worse than their MAC count"),
              std::string::npos) << checked.err;
    EXPECT_NE(checked.out.find("\"table_ranks_worse_than_macs\": true"), std::string::npos) << checked.out;
    EXPECT_NE(checked.out.find("\"table_against_macs\": \"worse\""), std::string::npos) << checked.out;
    // the honest table does not warn
    Result honest = run("validate -c cpu " + space + " " + table + " -k 12 --runs 3 --warmup 1");
    ASSERT_EQ(honest.code, 0) << honest.err;
    EXPECT_EQ(honest.err.find("warning: the table ranks"), std::string::npos) << honest.err;
    EXPECT_EQ(honest.out.rfind("reference sslat cpu (the table's own calculator)", 0), 0u) << honest.out;  // the first line says who ran
}
