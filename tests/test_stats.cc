// Statistics against brute-force enumeration of every architecture.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

struct Table {
    double constant;
    std::vector<std::vector<double>> blocks;
};

sslat_container *container_of(const Table &t, const char *type = "cuda")
{
    std::vector<int32_t> counts;
    std::vector<double> values;
    for (auto &b : t.blocks) {
        counts.push_back((int32_t)b.size());
        values.insert(values.end(), b.begin(), b.end());
    }
    sslat_container *c = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_container_create(type, t.constant, values.data(), counts.data(),
                                     (int32_t)counts.size(), &c, &err), SSLAT_OK) << err.message;
    return c;
}

// Every architecture: its indices and latency.
struct Enumerated {
    std::vector<std::vector<int32_t>> archs;
    std::vector<double> latencies;
};

Enumerated enumerate(const Table &t)
{
    Enumerated e;
    std::vector<int32_t> arch(t.blocks.size(), 0);
    for (;;) {
        double total = t.constant;
        for (size_t b = 0; b < arch.size(); b++) total += t.blocks[b][arch[b]];
        e.archs.push_back(arch);
        e.latencies.push_back(total);
        size_t b = 0;
        while (b < arch.size() && ++arch[b] == (int32_t)t.blocks[b].size()) arch[b++] = 0;
        if (b == arch.size()) break;
    }
    return e;
}

Table random_table(std::mt19937 &gen, int blocks, int max_candidates, bool integers)
{
    std::uniform_int_distribution<int> count(1, max_candidates);
    std::uniform_real_distribution<double> real(0.01, 5.0);
    std::uniform_int_distribution<int> whole(0, 40);
    Table t{integers ? (double)whole(gen) : real(gen), {}};
    for (int b = 0; b < blocks; b++) {
        std::vector<double> v;
        int n = count(gen);
        for (int i = 0; i < n; i++) v.push_back(integers ? whole(gen) : real(gen));
        t.blocks.push_back(v);
    }
    return t;
}

// The exact quantile of a finite uniform distribution: smallest L with P(X ≤ L) ≥ p.
double exact_quantile(std::vector<double> sorted, double p)
{
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    size_t k = (size_t)std::ceil(p * (double)n);
    if (k == 0) k = 1;
    return sorted[std::min(k, n) - 1];
}

TEST(Stats, MinMaxMeanArgminArgmaxMatchEnumeration)
{
    std::mt19937 gen(7);
    for (int trial = 0; trial < 20; trial++) {
        Table t = random_table(gen, 1 + trial % 5, 4, false);
        sslat_container *c = container_of(t);
        ASSERT_NE(c, nullptr);
        Enumerated e = enumerate(t);
        double lo, hi, mean;
        ASSERT_EQ(sslat_min_latency(c, &lo, nullptr), SSLAT_OK);
        ASSERT_EQ(sslat_max_latency(c, &hi, nullptr), SSLAT_OK);
        ASSERT_EQ(sslat_mean_latency(c, &mean, nullptr), SSLAT_OK);
        double brute_mean = 0;
        for (double l : e.latencies) brute_mean += l;
        brute_mean /= (double)e.latencies.size();
        EXPECT_NEAR(lo, *std::min_element(e.latencies.begin(), e.latencies.end()), 1e-12);
        EXPECT_NEAR(hi, *std::max_element(e.latencies.begin(), e.latencies.end()), 1e-12);
        EXPECT_NEAR(mean, brute_mean, 1e-9);
        std::vector<int32_t> arch(t.blocks.size());
        double at;
        ASSERT_EQ(sslat_argmin_arch(c, arch.data(), (int32_t)arch.size(), nullptr), SSLAT_OK);
        ASSERT_EQ(sslat_current_latency(c, arch.data(), (int32_t)arch.size(), &at, nullptr), SSLAT_OK);
        EXPECT_EQ(at, lo);
        ASSERT_EQ(sslat_argmax_arch(c, arch.data(), (int32_t)arch.size(), nullptr), SSLAT_OK);
        ASSERT_EQ(sslat_current_latency(c, arch.data(), (int32_t)arch.size(), &at, nullptr), SSLAT_OK);
        EXPECT_EQ(at, hi);
        sslat_container_free(c);
    }
}

TEST(Stats, SamplesAreReproducibleUniformArchitectures)
{
    Table t{1.0, {{1, 2, 4}, {0, 10}, {100, 200, 300, 400}}};
    sslat_container *c = container_of(t);
    ASSERT_NE(c, nullptr);
    Enumerated e = enumerate(t);
    const size_t n = 240000;
    std::vector<double> a(n), b(n), other(n);
    ASSERT_EQ(sslat_sample_latencies(c, n, 42, a.data(), nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_sample_latencies(c, n, 42, b.data(), nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_sample_latencies(c, n, 43, other.data(), nullptr), SSLAT_OK);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
    // each of the 24 architectures has a distinct latency here: count how often each comes
    std::map<double, size_t> seen;
    for (double l : a) seen[l]++;
    EXPECT_EQ(seen.size(), e.latencies.size());
    for (double l : e.latencies) {
        ASSERT_EQ(seen.count(l), 1u) << l;
        // 10000 expected per architecture; 5 sigma ≈ 490
        EXPECT_NEAR((double)seen[l], n / 24.0, 500.0) << l;
    }
    double median;
    ASSERT_EQ(sslat_median_latency(c, 1001, 5, &median, nullptr), SSLAT_OK);
    std::vector<double> s(1001);
    sslat_sample_latencies(c, 1001, 5, s.data(), nullptr);
    std::nth_element(s.begin(), s.begin() + 500, s.end());
    EXPECT_EQ(median, s[500]);
    EXPECT_EQ(sslat_median_latency(c, 0, 5, &median, nullptr), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_container_free(c);
}

TEST(Stats, CurrentLatencyChecksTheArchitecture)
{
    Table t{0.5, {{1, 2}, {3, 4, 5}}};
    sslat_container *c = container_of(t);
    ASSERT_NE(c, nullptr);
    int32_t arch[2] = {1, 2};
    double l;
    ASSERT_EQ(sslat_current_latency(c, arch, 2, &l, nullptr), SSLAT_OK);
    EXPECT_EQ(l, 0.5 + 2 + 5);
    sslat_error err;
    EXPECT_EQ(sslat_current_latency(c, arch, 1, &l, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("1 indices but the table has 2 blocks"), std::string::npos);
    arch[1] = 3;
    EXPECT_EQ(sslat_current_latency(c, arch, 2, &l, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("arch[1] = 3 is out of range"), std::string::npos);
    arch[1] = -1;
    EXPECT_EQ(sslat_current_latency(c, arch, 2, &l, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_container_free(c);
}

TEST(Stats, QuantilesCdfAndCountsBracketTheEnumeration)
{
    std::mt19937 gen(11);
    const double ps[] = {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0};
    for (int trial = 0; trial < 25; trial++) {
        Table t = random_table(gen, 2 + trial % 5, 5, trial % 3 == 0);
        sslat_container *c = container_of(t);
        ASSERT_NE(c, nullptr);
        Enumerated e = enumerate(t);
        sslat_distribution_options grid = {trial % 2 ? 64 : 0};  // coarse and default grids
        for (double p : ps) {
            double estimate, bound;
            ASSERT_EQ(sslat_latency_quantile(c, p, &grid, &estimate, &bound, nullptr), SSLAT_OK);
            double exact = exact_quantile(e.latencies, p);
            EXPECT_LE(std::fabs(estimate - exact), bound + 1e-9)
                << "trial " << trial << " p " << p << " estimate " << estimate << " exact " << exact;
            double lo, hi;
            sslat_min_latency(c, &lo, nullptr);
            sslat_max_latency(c, &hi, nullptr);
            EXPECT_LE(bound, (double)t.blocks.size() * (hi - lo) / (grid.bins ? grid.bins : 65536) / 2 + 1e-12);
        }
        for (double budget : {e.latencies[0], exact_quantile(e.latencies, 0.3), exact_quantile(e.latencies, 0.8) + 0.01}) {
            double low, high, count_low, count_high;
            ASSERT_EQ(sslat_latency_cdf(c, budget, &grid, &low, &high, nullptr), SSLAT_OK);
            ASSERT_EQ(sslat_count_under_budget(c, budget, &grid, &count_low, &count_high, nullptr), SSLAT_OK);
            double exact = 0;
            for (double l : e.latencies) exact += l <= budget;
            EXPECT_LE(low, exact / (double)e.latencies.size() + 1e-12) << trial;
            EXPECT_GE(high, exact / (double)e.latencies.size() - 1e-12) << trial;
            EXPECT_LE(count_low, exact) << trial;
            EXPECT_GE(count_high, exact) << trial;
        }
        sslat_container_free(c);
    }
}

TEST(Stats, OnAGridTheDistributionIsExact)
{
    // integer latencies, a grid of step 1: the bracket closes
    Table t{2, {{0, 1, 3}, {0, 2}, {0, 5}}};  // range 3 + 2 + 5 = 10
    sslat_container *c = container_of(t);
    ASSERT_NE(c, nullptr);
    Enumerated e = enumerate(t);
    sslat_distribution_options grid = {10};
    for (double p : {0.2, 0.5, 0.9}) {
        double estimate, bound;
        ASSERT_EQ(sslat_latency_quantile(c, p, &grid, &estimate, &bound, nullptr), SSLAT_OK);
        EXPECT_EQ(bound, 0.0);
        EXPECT_EQ(estimate, exact_quantile(e.latencies, p));
    }
    double low, high;
    ASSERT_EQ(sslat_count_under_budget(c, 5, &grid, &low, &high, nullptr), SSLAT_OK);
    double exact = 0;
    for (double l : e.latencies) exact += l <= 5;
    EXPECT_EQ(low, exact);
    EXPECT_EQ(high, exact);
    EXPECT_EQ(sslat_latency_quantile(c, 1.5, &grid, &low, &high, nullptr), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_container_free(c);
}

// Brute-force knapsack: the largest value total among architectures within budget.
double brute_best(const Table &lat, const Table &val, double budget, bool *any)
{
    Enumerated e = enumerate(lat);
    double best = -INFINITY;
    *any = false;
    for (size_t k = 0; k < e.archs.size(); k++) {
        if (e.latencies[k] > budget) continue;
        double v = val.constant;
        for (size_t b = 0; b < e.archs[k].size(); b++) v += val.blocks[b][e.archs[k][b]];
        best = std::max(best, v);
        *any = true;
    }
    return best;
}

TEST(Budget, KnapsackEqualsBruteForceOnAGrid)
{
    std::mt19937 gen(3);
    for (int trial = 0; trial < 40; trial++) {
        Table lat = random_table(gen, 2 + trial % 4, 4, true);
        Table val = lat;
        std::uniform_real_distribution<double> v(0, 100);
        for (auto &b : val.blocks)
            for (auto &x : b) x = v(gen);
        val.constant = 3;
        sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
        Enumerated e = enumerate(lat);
        double lo = *std::min_element(e.latencies.begin(), e.latencies.end());
        double budget = lo + (double)(trial % 7) * 5;  // an integer above the minimum
        std::vector<int32_t> arch(lat.blocks.size());
        sslat_budget_result r;
        sslat_error err;
        // bins = budget − min: a grid step of exactly 1 on integer latencies
        int32_t bins = std::max(1, (int32_t)(budget - lo));
        ASSERT_EQ(sslat_budget_maximize(cl, cv, budget, bins, arch.data(), (int32_t)arch.size(), &r, &err), SSLAT_OK) << err.message;
        bool any;
        double best = brute_best(lat, val, budget, &any);
        ASSERT_TRUE(any);
        EXPECT_NEAR(r.value, best, 1e-9) << "trial " << trial;
        double check;
        sslat_current_latency(cl, arch.data(), (int32_t)arch.size(), &check, nullptr);
        EXPECT_EQ(check, r.latency);
        EXPECT_LE(r.latency, budget);
        sslat_container_free(cl);
        sslat_container_free(cv);
    }
}

TEST(Budget, OffTheGridTheAnswerFitsAndIsWithinTheSlack)
{
    std::mt19937 gen(5);
    for (int trial = 0; trial < 30; trial++) {
        Table lat = random_table(gen, 3 + trial % 3, 5, false);
        Table val = random_table(gen, 0, 1, false);
        val.blocks = lat.blocks;
        for (auto &b : val.blocks)
            for (auto &x : b) x = std::uniform_real_distribution<double>(0, 10)(gen);
        sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
        Enumerated e = enumerate(lat);
        double budget = exact_quantile(e.latencies, 0.4);
        std::vector<int32_t> arch(lat.blocks.size());
        sslat_budget_result r;
        ASSERT_EQ(sslat_budget_maximize(cl, cv, budget, 256, arch.data(), (int32_t)arch.size(), &r, nullptr), SSLAT_OK);
        EXPECT_LE(r.latency, budget + 1e-12);
        bool any;
        EXPECT_LE(r.value, brute_best(lat, val, budget, &any) + 1e-9);
        double within_slack = brute_best(lat, val, budget - r.grid_slack, &any);
        if (any) {
            EXPECT_GE(r.value, within_slack - 1e-9) << trial;
        }
        sslat_container_free(cl);
        sslat_container_free(cv);
    }
}

TEST(Budget, ErrorsAreClear)
{
    Table t{1, {{1, 2}, {3, 4}}};
    sslat_container *c = container_of(t);
    Table other{0, {{1, 2, 3}}};
    sslat_container *o = container_of(other, "mac");
    int32_t arch[4];
    sslat_budget_result r;
    sslat_error err;
    EXPECT_EQ(sslat_budget_maximize(c, c, 4.5, 0, arch, 4, &r, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("the fastest takes 5"), std::string::npos) << err.message;
    EXPECT_EQ(sslat_budget_maximize(c, o, 10, 0, arch, 4, &r, &err), SSLAT_ERR_SPACE);
    EXPECT_EQ(sslat_budget_maximize(c, c, NAN, 0, arch, 4, &r, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_budget_maximize(c, c, 10, 0, arch, 1, &r, &err), SSLAT_ERR_INVALID_ARGUMENT);
    // exactly the fastest: the only fit is the argmin
    ASSERT_EQ(sslat_budget_maximize(c, c, 5, 0, arch, 4, &r, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(arch[0], 0);
    EXPECT_EQ(arch[1], 0);
    sslat_container_free(c);
    sslat_container_free(o);
}

}  // namespace
