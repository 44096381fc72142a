// Statistics against brute-force enumeration of every architecture.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <random>
#include <set>
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

// ---- Pareto front and the k best under a budget, against enumeration ----------------

namespace {

struct Point {
    double latency, value;
};

// Every architecture's (latency, value), summed as sslat sums: constant, then block by block.
std::vector<Point> all_points(const Table &lat, const Table &val, std::vector<std::vector<int32_t>> *archs = nullptr)
{
    Enumerated e = enumerate(lat);
    std::vector<Point> points;
    for (size_t k = 0; k < e.archs.size(); k++) {
        double v = val.constant;
        for (size_t b = 0; b < e.archs[k].size(); b++) v += val.blocks[b][e.archs[k][b]];
        points.push_back({e.latencies[k], v});
    }
    if (archs) *archs = e.archs;
    return points;
}

// The front by definition: sorted by latency, a point stays when it beats every faster one's value.
std::vector<Point> brute_front(std::vector<Point> points)
{
    std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) {
        return a.latency != b.latency ? a.latency < b.latency : a.value > b.value;
    });
    std::vector<Point> front;
    for (const Point &p : points)
        if (front.empty() || p.value > front.back().value) front.push_back(p);
    return front;
}

Table values_for(std::mt19937 &gen, const Table &lat, bool integers)
{
    Table val = lat;
    val.constant = 2;
    for (auto &b : val.blocks)
        for (auto &x : b) x = integers ? (double)std::uniform_int_distribution<int>(0, 6)(gen)
                                       : std::uniform_real_distribution<double>(0, 10)(gen);
    return val;
}

}  // namespace

TEST(Pareto, TheFrontIsTheEnumeratedOne)
{
    std::mt19937 gen(11);
    for (int trial = 0; trial < 80; trial++) {
        // integers give ties in latency and in value; reals give none; the
        // last trials have many candidates a block (the pairwise merges nest deeper)
        bool integers = trial % 2 == 0;
        Table lat = trial < 60 ? random_table(gen, 1 + trial % 6, 5, integers) : random_table(gen, 2, 45, integers);
        Table val = values_for(gen, lat, integers);
        sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
        sslat_pareto_front *front = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_pareto_compute(cl, cv, 0, &front, &err), SSLAT_OK) << err.message;
        std::vector<Point> expected = brute_front(all_points(lat, val));
        ASSERT_EQ(sslat_pareto_size(front), (int32_t)expected.size()) << "trial " << trial;
        EXPECT_EQ(sslat_pareto_front_size(front), (int64_t)expected.size());
        EXPECT_EQ(sslat_pareto_slack(front), 0.0);
        std::vector<int32_t> arch(lat.blocks.size() + 1);
        for (int32_t i = 0; i < sslat_pareto_size(front); i++) {
            double l, v, check_l, check_v;
            ASSERT_EQ(sslat_pareto_point(front, i, arch.data(), (int32_t)arch.size(), &l, &v, &err), SSLAT_OK);
            EXPECT_EQ(l, expected[i].latency) << "trial " << trial << " point " << i;
            EXPECT_EQ(v, expected[i].value) << "trial " << trial << " point " << i;
            // the architecture is one that has these totals
            sslat_current_latency(cl, arch.data(), (int32_t)lat.blocks.size(), &check_l, nullptr);
            sslat_current_latency(cv, arch.data(), (int32_t)lat.blocks.size(), &check_v, nullptr);
            EXPECT_EQ(check_l, l);
            EXPECT_EQ(check_v, v);
        }
        sslat_pareto_free(front);
        sslat_container_free(cl);
        sslat_container_free(cv);
    }
}

TEST(Pareto, NPointsAreTheBestUnderNEvenlySpacedBudgets)
{
    std::mt19937 gen(12);
    int tested = 0;
    for (int trial = 0; trial < 20; trial++) {
        Table lat = random_table(gen, 6 + trial % 3, 5, false);
        Table val = values_for(gen, lat, false);
        sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
        std::vector<Point> expected = brute_front(all_points(lat, val));
        const int32_t wanted = 6;
        sslat_pareto_front *front = nullptr;
        ASSERT_EQ(sslat_pareto_compute(cl, cv, wanted, &front, nullptr), SSLAT_OK);
        if (expected.size() <= (size_t)wanted) { /* a front this small is returned whole */
            EXPECT_EQ(sslat_pareto_size(front), (int32_t)expected.size());
            sslat_pareto_free(front);
            sslat_container_free(cl);
            sslat_container_free(cv);
            continue;
        }
        tested++;
        EXPECT_EQ(sslat_pareto_front_size(front), (int64_t)expected.size());
        // budget j: the best value among all architectures within it is the point returned for it
        double low = expected.front().latency, high = expected.back().latency;
        std::vector<Point> want;
        for (int32_t j = 0; j < wanted; j++) {
            double budget = j == wanted - 1 ? high : low + (high - low) * j / (wanted - 1);
            Point best = expected.front();
            for (const Point &p : expected)
                if (p.latency <= budget) best = p;
            if (want.empty() || want.back().latency != best.latency) want.push_back(best);
        }
        ASSERT_EQ(sslat_pareto_size(front), (int32_t)want.size());
        for (int32_t i = 0; i < sslat_pareto_size(front); i++) {
            double l, v;
            sslat_pareto_point(front, i, nullptr, 0, &l, &v, nullptr);
            EXPECT_EQ(l, want[i].latency);
            EXPECT_EQ(v, want[i].value);
        }
        sslat_pareto_free(front);
        sslat_container_free(cl);
        sslat_container_free(cv);
    }
    EXPECT_GE(tested, 10) << "too few fronts larger than the points asked for";
}

TEST(Pareto, AFrontPastTheMemoryLimitIsThinnedWithinItsStatedSlack)
{
    // 4000 blocks of two real-valued candidates: more front points per block than
    // the limit keeps (8 Mi points over 4000 blocks), so the front is thinned
    std::mt19937 gen(13);
    Table lat{0.5, {}};
    std::uniform_real_distribution<double> real(0.01, 1.0);
    for (int b = 0; b < 4000; b++) lat.blocks.push_back({real(gen), real(gen)});
    Table val = values_for(gen, lat, false);
    sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
    sslat_pareto_front *front = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_pareto_compute(cl, cv, 0, &front, &err), SSLAT_OK) << err.message;
    double slack = sslat_pareto_slack(front);
    ASSERT_GT(slack, 0.0) << "the front was not thinned: this test needs a larger one";
    int32_t n = sslat_pareto_size(front);
    std::vector<Point> points(n);
    for (int32_t i = 0; i < n; i++) sslat_pareto_point(front, i, nullptr, 0, &points[i].latency, &points[i].value, nullptr);
    // the fast end is never thinned away: the front starts at the fastest architecture
    double fastest;
    ASSERT_EQ(sslat_min_latency(cl, &fastest, &err), SSLAT_OK);
    EXPECT_EQ(points[0].latency, fastest);
    // any architecture: some point at least as good in value, at most slack slower
    std::vector<int32_t> arch(lat.blocks.size());
    for (int sample = 0; sample < 300; sample++) {
        for (size_t b = 0; b < arch.size(); b++) arch[b] = (int32_t)(gen() % 2);
        double l, v;
        sslat_current_latency(cl, arch.data(), (int32_t)arch.size(), &l, nullptr);
        sslat_current_latency(cv, arch.data(), (int32_t)arch.size(), &v, nullptr);
        bool matched = false;
        for (const Point &p : points) matched = matched || (p.value >= v - 1e-9 && p.latency <= l + slack + 1e-9);
        EXPECT_TRUE(matched) << "sample " << sample;
    }
    sslat_pareto_free(front);
    sslat_container_free(cl);
    sslat_container_free(cv);
}

TEST(Budget, TheKBestEqualEnumerationOnAGrid)
{
    std::mt19937 gen(14);
    for (int trial = 0; trial < 30; trial++) {
        Table lat = random_table(gen, 2 + trial % 4, 4, true);
        Table val = values_for(gen, lat, trial % 2 == 0);
        sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
        std::vector<std::vector<int32_t>> archs;
        std::vector<Point> points = all_points(lat, val, &archs);
        double lo = points[0].latency;
        for (const Point &p : points) lo = std::min(lo, p.latency);
        double budget = lo + (double)(trial % 9) * 4;
        std::vector<double> fitting;
        for (const Point &p : points)
            if (p.latency <= budget) fitting.push_back(p.value);
        std::sort(fitting.rbegin(), fitting.rend());
        const int32_t k = 1 + trial % 7;
        int32_t blocks = (int32_t)lat.blocks.size(), found = -1;
        std::vector<int32_t> top((size_t)k * blocks);
        std::vector<sslat_budget_result> results(k);
        sslat_error err;
        // a grid step of exactly 1 on integer latencies: exact
        int32_t bins = std::max(1, (int32_t)(budget - lo));
        ASSERT_EQ(sslat_budget_top(cl, cv, budget, bins, k, top.data(), blocks, results.data(), &found, &err), SSLAT_OK)
            << err.message;
        ASSERT_EQ(found, std::min<int32_t>(k, (int32_t)fitting.size())) << "trial " << trial;
        std::set<std::vector<int32_t>> distinct;
        for (int32_t r = 0; r < found; r++) {
            std::vector<int32_t> a(top.begin() + (size_t)r * blocks, top.begin() + (size_t)(r + 1) * blocks);
            distinct.insert(a);
            EXPECT_NEAR(results[r].value, fitting[r], 1e-9) << "trial " << trial << " rank " << r;
            EXPECT_LE(results[r].latency, budget);
            double check;
            sslat_current_latency(cl, a.data(), blocks, &check, nullptr);
            EXPECT_EQ(check, results[r].latency);
        }
        EXPECT_EQ(distinct.size(), (size_t)found) << "the k best are k different architectures";
        // k = 1 is sslat_budget_maximize
        sslat_budget_result one;
        ASSERT_EQ(sslat_budget_maximize(cl, cv, budget, bins, top.data(), blocks, &one, nullptr), SSLAT_OK);
        EXPECT_EQ(one.value, results[0].value);
        sslat_container_free(cl);
        sslat_container_free(cv);
    }
}

// At a limit equal to the fastest architecture, a candidate slower than its
// block's fastest by less than the float sum's rounding still fits when the
// architecture's total equals the limit: the best answer, and the count.
TEST(Budget, ALimitEqualToTheFastestTotalIsExactInFloat)
{
    Table lat{0.5, {{0.3, 0.30000000000000004}}};
    Table val{0.0, {{1.0, 2.0}}};
    sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
    int32_t arch[2] = {-1, -1}, found = 0;
    double total;
    int32_t slower = 1;
    sslat_current_latency(cl, &slower, 1, &total, nullptr);
    ASSERT_EQ(total, 0.8) << "the float sums this test needs";
    sslat_budget_result results[2];
    sslat_error err;
    ASSERT_EQ(sslat_budget_top(cl, cv, 0.8, 0, 2, arch, 1, results, &found, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(found, 2);
    EXPECT_EQ(arch[0], 1);
    EXPECT_EQ(results[0].value, 2.0);
    EXPECT_LE(results[0].latency, 0.8);
    double low, high;
    ASSERT_EQ(sslat_count_under_budget(cl, 0.8, nullptr, &low, &high, &err), SSLAT_OK);
    EXPECT_LE(low, 2.0);
    EXPECT_GE(high, 2.0) << "the bracket excludes the true count";
    sslat_container_free(cl);
    sslat_container_free(cv);
}

// K answers that would leave the grid a handful of columns are refused with
// the largest K that keeps it, not answered near the fastest architecture.
TEST(Budget, TooManyAnswersForTheGridAreRefusedNotCollapsed)
{
    std::mt19937 gen(15);
    std::uniform_real_distribution<double> real(0.0, 1.0);
    Table lat{0.0, {}};
    for (int b = 0; b < 4096; b++) {
        std::vector<double> v;
        for (int i = 0; i < 16; i++) v.push_back(real(gen));
        lat.blocks.push_back(v);
    }
    Table val = values_for(gen, lat, false);
    sslat_container *cl = container_of(lat), *cv = container_of(val, "mac");
    double fastest;
    ASSERT_EQ(sslat_min_latency(cl, &fastest, nullptr), SSLAT_OK);
    std::vector<int32_t> archs(4096 * 1000);
    std::vector<sslat_budget_result> results(1000);
    int32_t found = 0;
    sslat_error err;
    EXPECT_EQ(sslat_budget_top(cl, cv, fastest + 500, 0, 1000, archs.data(), 4096, results.data(), &found, &err),
              SSLAT_ERR_LIMIT);
    std::string message = err.message;
    EXPECT_NE(message.find("Ask for at most"), std::string::npos) << message;
    EXPECT_EQ(sslat_budget_top(cl, cv, fastest + 500, 0, 1, archs.data(), 4096, results.data(), &found, &err), SSLAT_OK)
        << err.message;
    EXPECT_EQ(found, 1);
    sslat_container_free(cl);
    sslat_container_free(cv);
}

TEST(Pareto, ErrorsAreClear)
{
    Table t{1, {{1, 2}, {3, 4}}};
    Table other{0, {{1, 2, 3}}};
    sslat_container *c = container_of(t), *o = container_of(other, "mac");
    sslat_pareto_front *front = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_pareto_compute(c, c, 1, &front, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("at least 2"), std::string::npos) << err.message;
    EXPECT_EQ(sslat_pareto_compute(c, o, 0, &front, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("blocks"), std::string::npos) << err.message;
    EXPECT_EQ(front, nullptr);
    ASSERT_EQ(sslat_pareto_compute(c, c, 0, &front, &err), SSLAT_OK);
    int32_t arch[2];
    EXPECT_EQ(sslat_pareto_point(front, sslat_pareto_size(front), arch, 2, nullptr, nullptr, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_pareto_point(front, 0, arch, 1, nullptr, nullptr, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_pareto_free(front);
    sslat_budget_result r[2];
    int32_t found;
    int32_t archs[4];
    EXPECT_EQ(sslat_budget_top(c, c, 10, 0, 0, archs, 2, r, &found, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_budget_top(c, c, 10, 0, 1001, archs, 2, r, &found, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("1 to 1000"), std::string::npos) << err.message;
    sslat_container_free(c);
    sslat_container_free(o);
}
