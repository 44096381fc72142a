// The calculator registry and its table: every backend is a latency type,
// filled the same way, honest about whether it can run here; and the op cases
// the timed backends are checked on cover every op of the IR.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "helpers.h"
#include "op_cases.h"

extern "C" {
#include "calc/calculator.h"
#include "calc/run.h"
#include "ir/space.h"
#include "table/latency_type.h"
}

namespace {

TEST(Calculators, EveryOneIsALatencyTypeWithAUnitAndAFilledTable)
{
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *c = sslat_calculator_at(i);
        SCOPED_TRACE(c->name);
        EXPECT_EQ(c->api_version, SSLAT_CALCULATOR_API_VERSION);
        ASSERT_NE(sslat_latency_type_find(c->name), nullptr);
        EXPECT_STREQ(sslat_calculator_unit(c), c->kind == SSLAT_CALC_ANALYTIC ? "MMAC" : "ms");
        EXPECT_EQ(sslat_calculator_find(c->name), c);
        EXPECT_NE(c->summary, nullptr);
        EXPECT_NE(c->dtypes & SSLAT_DTYPE_BIT(SSLAT_DTYPE_FP32), 0u);
        if (!sslat_calculator_unavailable(c)) EXPECT_NE(c->measure_graph, nullptr);
        if (c->kind == SSLAT_CALC_ANALYTIC) {
            EXPECT_NE(c->context, nullptr);  // the MAC rule
            EXPECT_EQ(c->measure_architectures, nullptr);
        }
    }
    // ENOT's names find their calculator; unknown names find none
    EXPECT_EQ(sslat_calculator_find("mmac.thop"), sslat_calculator_find("mac_thop"));
    EXPECT_STREQ(sslat_latency_type_canonical("mmac.fvcore"), "mac_fvcore");
    EXPECT_EQ(sslat_calculator_find("nope"), nullptr);
    EXPECT_EQ(sslat_latency_type_unit("nope"), nullptr);
}

TEST(Calculators, AvailableOnesAreListedBestLastAndOthersSayWhy)
{
    // Whatever this machine has (the H200 included): the list is the
    // calculators that say they can run, in registry order.
    const char *const *names = nullptr;
    int32_t count = sslat_available_calculators(&names);
    std::vector<std::string> expected;
    for (int i = 0; i < sslat_calculator_count(); i++)
        if (!sslat_calculator_unavailable(sslat_calculator_at(i))) expected.push_back(sslat_calculator_at(i)->name);
    ASSERT_EQ(count, (int32_t)expected.size());
    for (int32_t i = 0; i < count; i++) EXPECT_EQ(names[i], expected[i]);
    EXPECT_GE(count, 4);  // the MAC counters run anywhere
    EXPECT_STREQ(names[0], "mac");
    EXPECT_STREQ(names[3], "mac_pthflops");
    // a calculator that cannot run here fails with its reason, and fills nothing
    sslat_space *space = load_text(space_json("\"cn_c16\""));
    ASSERT_NE(space, nullptr);
    for (const char *type : {"cpu", "cuda"}) {
        const sslat_calculator *c = sslat_calculator_find(type);
        ASSERT_NE(c, nullptr);
        const char *why = sslat_calculator_unavailable(c);
        if (!why) continue;
        EXPECT_GT(strlen(why), 10u) << type;
        sslat_calc_options options;
        sslat_calc_options_default(&options);
        sslat_container *table = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_container_create(type, 0, nullptr, nullptr, 0, &table, &err), SSLAT_OK);
        EXPECT_EQ(sslat_calculate_space(c, space, &options, nullptr, table, &err), SSLAT_ERR_UNSUPPORTED);
        EXPECT_NE(std::string(err.message).find(std::string("calculator '") + type + "' cannot run"),
                  std::string::npos)
            << err.message;
        sslat_container_free(table);
    }
    sslat_space_free(space);
}

TEST(OpCases, CoverEveryOpAndActivation)
{
    std::set<int> ops, acts;
    for (const OpCase &c : CASES) {
        std::string input = std::string("{\"shape\": ") + c.input + ", \"batch\": 2}";
        sslat_space *space = load_text(space_json(c.layers, "", input));
        ASSERT_NE(space, nullptr) << c.layers;
        for (int32_t i = 0; i < space->n_layers; i++) {
            const sslat_graph *g = &space->layers[i].candidates[0].graph;
            for (int32_t k = 0; k < g->count; k++) {
                ops.insert(g->nodes[k].op);
                if (g->nodes[k].op == SSLAT_OP_ACT) acts.insert(sslat_node_act(&g->nodes[k]));
            }
        }
        sslat_space_free(space);
    }
    for (int op = 0; op < SSLAT_OP_COUNT; op++)
        EXPECT_TRUE(ops.count(op)) << "no op case has a " << sslat_op_name((sslat_op_kind)op) << " node";
    for (int act = 0; act < SSLAT_ACT_COUNT; act++)
        EXPECT_TRUE(acts.count(act)) << "no op case has the activation " << sslat_act_name((sslat_act_kind)act);
}

}  // namespace
