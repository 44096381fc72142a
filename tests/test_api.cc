// The reference API: initialize_latency attaches a table to its space.
#include <gtest/gtest.h>

#include <string>

#include "helpers.h"

extern "C" {
#include "calc/calculator.h"
}

namespace {

TEST(Api, InitializeAttachesAndResetDrops)
{
    sslat_space *space = load_example("mobilenet_v2_space.json");
    ASSERT_NE(space, nullptr);
    EXPECT_EQ(sslat_space_latency(space), nullptr);
    sslat_container *c = nullptr;
    sslat_error err;
    sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
    options.ignore = "batchnorm";
    ASSERT_EQ(sslat_initialize_latency("mac_thop", space, nullptr, &options, &c, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(sslat_space_latency(space), c);
    EXPECT_STREQ(sslat_container_latency_type(c), "mac_thop");
    EXPECT_STREQ(sslat_container_metadata(c, "calculator.ignore"), "batchnorm");
    EXPECT_EQ(sslat_container_space_hash(c), sslat_space_hash(space));
    EXPECT_EQ(sslat_container_block_count(c), 16);
    EXPECT_STREQ(sslat_container_candidate_label(c, 0, 5), "ir_k7_e6");
    double best = 0, min = 0;
    ASSERT_EQ(sslat_best_arch_latency(c, space, &best, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_min_latency(c, &min, &err), SSLAT_OK);
    EXPECT_GT(best, min);
    // the MAC table equals sslat_mac_count's figures
    double constant = 0;
    std::vector<double> per_op(16 * 7);
    ASSERT_EQ(sslat_mac_count(space, "mac_thop", "batchnorm", &constant, per_op.data(), per_op.size(), &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_constant_latency(c), constant);
    EXPECT_EQ(sslat_container_latency(c, 3, 2), per_op[6 + 7 + 6 + 2]);  // blocks of 6, 7, 6 candidates first
    sslat_reset_latency(space);
    EXPECT_EQ(sslat_space_latency(space), nullptr);
    sslat_reset_latency(space);  // twice is fine
    sslat_space_free(space);
}

TEST(Api, ErrorsNameTheProblem)
{
    sslat_space *space = load_example("fbnet.json");
    ASSERT_NE(space, nullptr);
    sslat_container *c = nullptr;
    sslat_error err;
    // every calculator that cannot run here (cuda without a GPU; none on a machine with all)
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *unavailable = sslat_calculator_at(i);
        if (!sslat_calculator_unavailable(unavailable)) continue;
        EXPECT_EQ(sslat_initialize_latency(unavailable->name, space, nullptr, nullptr, &c, &err),
                  SSLAT_ERR_UNSUPPORTED);
        EXPECT_EQ(c, nullptr);
        EXPECT_EQ(sslat_space_latency(space), nullptr);  // nothing attached on failure
    }
    EXPECT_EQ(sslat_initialize_latency("gpu", space, nullptr, nullptr, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_space_options other = {4, 0, 0};
    EXPECT_EQ(sslat_initialize_latency("mac", space, &other, nullptr, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("load the space with these"), std::string::npos);
    sslat_space_options same = {1, 224, 224};
    EXPECT_EQ(sslat_initialize_latency("mac", space, &same, nullptr, &c, &err), SSLAT_OK) << err.message;
    sslat_latency_options bad = SSLAT_LATENCY_OPTIONS_INIT;
    bad.ignore = "softmax";
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &bad, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(sslat_space_latency(space), nullptr);  // the earlier table stays
    // the options are versioned: this header's size, anything else refused by
    // name, 0 too (a caller of another header that did not set it)
    sslat_latency_options sized = SSLAT_LATENCY_OPTIONS_INIT;
    EXPECT_EQ(sized.size, sizeof sized);
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &sized, &c, &err), SSLAT_OK) << err.message;
    sized.size = 0;
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &sized, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("sslat_latency_options.size is 0"), std::string::npos) << err.message;
    sized.size = sizeof sized;
    sized.size = sizeof sized + 8;  // a caller built against a later, longer struct
    EXPECT_EQ(sslat_initialize_latency("mac", space, nullptr, &sized, &c, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("sslat_latency_options.size"), std::string::npos) << err.message;
    EXPECT_EQ(sslat_struct_size("sslat_latency_options"), sizeof(sslat_latency_options));
    EXPECT_EQ(sslat_struct_size("sslat_no_such_struct"), 0u);

    // a table of another space is refused
    sslat_space *other_space = load_example("proxylessnas.json");
    sslat_container *theirs = nullptr;
    ASSERT_EQ(sslat_initialize_latency("mac", other_space, nullptr, nullptr, &theirs, &err), SSLAT_OK);
    EXPECT_EQ(sslat_attach_latency(space, theirs, &err), SSLAT_ERR_SPACE);
    EXPECT_NE(std::string(err.message).find("space 'fbnet'"), std::string::npos) << err.message;
    double l;
    EXPECT_EQ(sslat_best_arch_latency(theirs, space, &l, &err), SSLAT_ERR_SPACE);
    // and a copy of its own is accepted
    sslat_container *copy = nullptr;
    ASSERT_EQ(sslat_container_clone(sslat_space_latency(space), &copy, &err), SSLAT_OK);
    sslat_reset_latency(space);
    EXPECT_EQ(sslat_attach_latency(space, copy, &err), SSLAT_OK) << err.message;
    EXPECT_NE(sslat_space_latency(space), copy);  // attached as a copy
    sslat_container_free(copy);
    sslat_space_free(other_space);
    sslat_space_free(space);
}

}  // namespace
