// The context fit (stats/context_fit.c): per-candidate values refitted to
// whole-architecture times, staying near the isolated table.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

extern "C" {
#include "stats/context_fit.h"
}

namespace {

struct Space {
    std::vector<int32_t> counts{2, 3, 2};
    std::vector<double> truth{5.0, 1.0, 2.0, 0.5, 1.5, 3.0, 0.25, 0.75};  // constant, then block after block
    std::vector<int32_t> archs;
    std::vector<double> ms;

    Space()
    {
        for (int32_t a = 0; a < 2; a++)
            for (int32_t b = 0; b < 3; b++)
                for (int32_t c = 0; c < 2; c++) {
                    archs.insert(archs.end(), {a, b, c});
                    ms.push_back(truth[0] + truth[1 + a] + truth[3 + b] + truth[6 + c]);
                }
    }

    sslat_context_problem problem(const std::vector<double> &prior, double lambda) const
    {
        return {3, counts.data(), ms.size(), archs.data(), ms.data(), prior.data(), lambda};
    }
};

TEST(ContextFit, AGoodPriorIsKeptAndABadOneCorrected)
{
    Space s;
    std::vector<double> x(s.truth.size());
    sslat_context_result r;
    sslat_error err;
    sslat_context_problem exact = s.problem(s.truth, 1.0);
    ASSERT_EQ(sslat_context_fit(&exact, x.data(), &r, &err), SSLAT_OK) << err.message;
    for (size_t j = 0; j < x.size(); j++) EXPECT_NEAR(x[j], s.truth[j], 1e-9);
    EXPECT_NEAR(r.rms_before, 0.0, 1e-12);

    // every candidate measured alone 20 % low, the constant 1 ms low (no context): the runs pull them up
    std::vector<double> low(s.truth);
    for (double &v : low) v *= 0.8;
    low[0] -= 1.0;
    sslat_context_problem biased = s.problem(low, 1e-3);
    ASSERT_EQ(sslat_context_fit(&biased, x.data(), &r, &err), SSLAT_OK) << err.message;
    EXPECT_GT(r.rms_before, 1.0);
    EXPECT_LT(r.rms_after, 1e-3 * r.rms_before);
    EXPECT_LT(r.bias_before, -0.2);
    EXPECT_NEAR(r.bias_after, 0.0, 1e-3);
    // differences inside a block are what the runs identify
    EXPECT_NEAR(x[2] - x[1], s.truth[2] - s.truth[1], 1e-3);
    EXPECT_NEAR(x[5] - x[3], s.truth[5] - s.truth[3], 1e-3);
    EXPECT_GT(r.iterations, 0);
}

TEST(ContextFit, AStrongPriorBarelyMoves)
{
    Space s;
    std::vector<double> low(s.truth);
    for (double &v : low) v *= 0.8;
    std::vector<double> x(s.truth.size());
    sslat_context_result r;
    sslat_context_problem stiff = s.problem(low, 1e9);
    ASSERT_EQ(sslat_context_fit(&stiff, x.data(), &r, nullptr), SSLAT_OK);
    for (size_t j = 0; j < x.size(); j++) EXPECT_NEAR(x[j], low[j], 1e-6);
}

// The ridge weight by cross-validation: runs that follow a shape the prior
// lacks ask for a weak prior; runs that are the prior plus noise ask for a
// strong one. Deterministic (a fixed pseudo-random noise).
TEST(ContextFit, CrossValidationChoosesTheWeightTheRunsSupport)
{
    const int32_t blocks = 6, per_block = 4;
    std::vector<int32_t> counts(blocks, per_block), archs;
    std::vector<double> truth(1 + blocks * per_block), prior(truth.size()), exact, noisy;
    truth[0] = 2.0;
    for (size_t j = 1; j < truth.size(); j++) truth[j] = 0.5 + 0.1 * (double)(j % 7);
    uint64_t state = 42;
    auto next = [&state]() {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (double)(state >> 11) / 9007199254740992.0;  // [0, 1)
    };
    for (int k = 0; k < 200; k++) {
        double t = truth[0];
        for (int32_t b = 0; b < blocks; b++) {
            int32_t c = (int32_t)(next() * per_block);
            archs.push_back(c);
            t += truth[1 + (size_t)(b * per_block + c)];
        }
        exact.push_back(t);
        noisy.push_back(t * (1.0 + 0.06 * (next() - 0.5)));
    }
    sslat_error err;
    double lambda = 0, cv = 0;
    // 1. the prior has the right level but not the shape; the runs are exact: follow them
    for (size_t j = 0; j < prior.size(); j++) prior[j] = j == 0 ? truth[0] : 0.8;
    sslat_context_problem shape = {blocks, counts.data(), exact.size(), archs.data(), exact.data(), prior.data(), 1.0};
    ASSERT_EQ(sslat_context_choose_lambda(&shape, &lambda, &cv, &err), SSLAT_OK) << err.message;
    EXPECT_DOUBLE_EQ(lambda, 0.3);
    EXPECT_LT(cv, 0.01);
    // 2. the prior is the truth; the runs only add noise: keep the prior
    sslat_context_problem noise = {blocks, counts.data(), noisy.size(), archs.data(), noisy.data(), truth.data(), 1.0};
    ASSERT_EQ(sslat_context_choose_lambda(&noise, &lambda, &cv, &err), SSLAT_OK) << err.message;
    EXPECT_DOUBLE_EQ(lambda, 100.0);
    // 3. too few runs to hold five folds: the problem's own weight, no error figure
    sslat_context_problem few = {blocks, counts.data(), 9, archs.data(), exact.data(), prior.data(), 1.0};
    ASSERT_EQ(sslat_context_choose_lambda(&few, &lambda, &cv, &err), SSLAT_OK);
    EXPECT_DOUBLE_EQ(lambda, 1.0);
    EXPECT_TRUE(std::isnan(cv));
}

TEST(ContextFit, BadRunsAreRefused)
{
    Space s;
    std::vector<double> x(s.truth.size());
    sslat_context_result r;
    sslat_error err;
    s.archs[4] = 3;  // block 1 has 3 candidates: index 3 is out of range
    sslat_context_problem bad = s.problem(s.truth, 1.0);
    EXPECT_EQ(sslat_context_fit(&bad, x.data(), &r, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("picks candidate 3 of block 1"), std::string::npos) << err.message;
    Space t;
    t.ms[2] = -1.0;
    sslat_context_problem negative = t.problem(t.truth, 1.0);
    EXPECT_EQ(sslat_context_fit(&negative, x.data(), &r, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_context_problem no_lambda = t.problem(t.truth, 0.0);
    EXPECT_EQ(sslat_context_fit(&no_lambda, x.data(), &r, &err), SSLAT_ERR_INVALID_ARGUMENT);
}

}  // namespace
