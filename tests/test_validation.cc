// The figures of `sslat validate` and the report's rank correlation, on hand-made data.
#include <gtest/gtest.h>

#include <cmath>

extern "C" {
#include "stats/validation.h"
}

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
