// The cpu calculator end to end: tables it writes, dedupe, fusion, the
// adaptive stop, and a missing library. Skips when libdnnl cannot be loaded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "helpers.h"

extern "C" {
#include "measure.h"
#include "program.h"
#include "space.h"
}

namespace {

bool have_dnnl(std::string *why)
{
    const char *reason = host_dnnl_load();
    if (reason) *why = reason;
    return reason == nullptr;
}

#define SKIP_WITHOUT_DNNL()                               \
    do {                                                  \
        std::string why;                                  \
        if (!have_dnnl(&why)) GTEST_SKIP() << why;        \
    } while (0)

TEST(CpuCalculator, WritesATableWithStatisticsAndMetadata)
{
    SKIP_WITHOUT_DNNL();
    // blocks 1 and 2 are the same choice on the same shape: measured once
    const char *choice = "{\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\", \"skip\"], \"c\": 16}";
    sslat_space *space = load_text(space_json(std::string("\"cn_c16\", ") + choice + ", " + choice + ", \"gap\", \"fc10\"",
                                              "", "{\"shape\": [3, 16, 16], \"batch\": 2}"));
    ASSERT_NE(space, nullptr);
    sslat_latency_options options = {};
    options.warmup_iterations = 2;
    options.run_iterations = 7;
    options.threads = 1;
    sslat_container *c = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("cpu", space, nullptr, &options, &c, &err), SSLAT_OK) << err.message;
    EXPECT_STREQ(sslat_container_unit(c), "ms");
    EXPECT_STREQ(sslat_container_metadata(c, "calculator.mode"), "fused");
    EXPECT_STREQ(sslat_container_metadata(c, "calculator.run_iterations"), "7");
    EXPECT_STREQ(sslat_container_metadata(c, "host.threads"), "1");
    EXPECT_STREQ(sslat_container_dtype(c), "fp32");
    ASSERT_NE(sslat_container_metadata(c, "software.onednn"), nullptr);
    EXPECT_EQ(std::string(sslat_container_metadata(c, "software.onednn")).rfind("2.", 0), 0u);
    ASSERT_NE(sslat_container_metadata(c, "host.cpu"), nullptr);
    ASSERT_NE(sslat_container_metadata(c, "host.calibration_ms"), nullptr);
    EXPECT_NE(std::string(sslat_container_metadata(c, "calculator.schedule")).find("interleaved"), std::string::npos);
    EXPECT_EQ(sslat_container_batch(c), 2);
    for (int32_t b = 0; b < 2; b++) {
        for (int32_t i = 0; i < 2; i++) {
            sslat_entry e;
            ASSERT_EQ(sslat_container_entry(c, b, i, &e, nullptr), SSLAT_OK);
            EXPECT_GT(e.value, 0.0);
            EXPECT_EQ(e.samples, 7u);
            EXPECT_LE(e.min, e.median);
            EXPECT_LE(e.median, e.max);
            EXPECT_EQ(e.value, e.median);
        }
        sslat_entry skip;
        ASSERT_EQ(sslat_container_entry(c, b, 2, &skip, nullptr), SSLAT_OK);
        EXPECT_EQ(skip.value, 0.0);  // identity: nothing runs
        EXPECT_EQ(skip.samples, 0u);
    }
    sslat_entry first, second;
    sslat_container_entry(c, 0, 1, &first, nullptr);
    sslat_container_entry(c, 1, 1, &second, nullptr);
    EXPECT_EQ(first.value, second.value);  // measured once: identical to the bit
    EXPECT_EQ(first.stddev, second.stddev);
    EXPECT_GT(sslat_container_latency(c, 0, 1), sslat_container_latency(c, 0, 0) * 0.5);
    EXPECT_GT(sslat_container_constant_latency(c), 0.0);
    sslat_space_free(space);
}

int body_steps(const host_session *session, const char *layer, sslat_exec_mode mode)
{
    sslat_space *space = load_text(space_json(layer, "", "{\"shape\": [16, 8, 8]}"));
    host_program p;
    sslat_error err;
    EXPECT_EQ(host_program_init(&p, session, space->input, mode, 1, &err), SSLAT_OK);
    EXPECT_EQ(host_program_append(&p, &space->layers[0].candidates[0].graph, &err), SSLAT_OK) << err.message;
    int steps = p.body.count;
    host_program_release(&p);
    sslat_space_free(space);
    return steps;
}

TEST(CpuCalculator, FusedModeRunsFewerPrimitives)
{
    SKIP_WITHOUT_DNNL();
    host_session session;
    sslat_error err;
    ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK);
    EXPECT_EQ(body_steps(&session, "\"cn_k3_c16_nre\"", SSLAT_MODE_EAGER), 3);  // conv, bn, relu
    EXPECT_EQ(body_steps(&session, "\"cn_k3_c16_nre\"", SSLAT_MODE_FUSED), 1);
    // basic block with projection: 3 convs, 3 BNs, 2 relus, the add
    EXPECT_EQ(body_steps(&session, "\"basic_s2_c32\"", SSLAT_MODE_EAGER), 9);
    EXPECT_EQ(body_steps(&session, "\"basic_s2_c32\"", SSLAT_MODE_FUSED), 3);
    // MBConv with residual: expand, dw, project+add
    EXPECT_EQ(body_steps(&session, "\"ir_k3_e4\"", SSLAT_MODE_FUSED), 3);
    host_session_close(&session);
}

TEST(CpuCalculator, AdaptiveStopAndNoiseEstimate)
{
    SKIP_WITHOUT_DNNL();
    double flat[101], spread[101];
    for (int i = 0; i < 101; i++) {
        flat[i] = 1.0;
        spread[i] = 1.0 + i * 0.01;
    }
    EXPECT_EQ(host_median_noise(flat, 101), 0.0);
    EXPECT_NEAR(host_median_noise(spread, 101), (spread[61] - spread[40]) / (2 * spread[50]), 1e-12);

    host_session session;
    sslat_error err;
    ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK);
    sslat_space *space = load_text(space_json("\"cn_k3_c16_nre\"", "", "{\"shape\": [16, 16, 16]}"));
    host_program p;
    ASSERT_EQ(host_program_init(&p, &session, space->input, SSLAT_MODE_FUSED, 1, &err), SSLAT_OK);
    ASSERT_EQ(host_program_append(&p, &space->layers[0].candidates[0].graph, &err), SSLAT_OK);
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    o.run_iterations = 5;
    o.target_noise = 1e-12;  // unreachable: the time cap stops it
    o.max_seconds = 0.25;
    sslat_entry e;
    ASSERT_EQ(host_measure_program(&p, 1, &o, &e, &err), SSLAT_OK);
    EXPECT_GT(e.samples, 5u);
    o.target_noise = 0;
    ASSERT_EQ(host_measure_program(&p, 1, &o, &e, &err), SSLAT_OK);
    EXPECT_EQ(e.samples, 5u);
    host_program_release(&p);
    sslat_space_free(space);
    host_session_close(&session);
}

TEST(CpuCalculator, MissingLibraryIsAClearErrorAndWritesNothing)
{
    char dir[] = "/tmp/sslat-nodnnl-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/out.sslat", err = std::string(dir) + "/err";
    std::string command = "SSLAT_DNNL_LIBRARY=/nonexistent/libdnnl.so.2 " + std::string(SSLAT_CLI_PATH) +
                          " measure -c cpu -o " + out + " 2>" + err;
    int status = std::system(command.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 3);
    std::string text;
    if (FILE *f = fopen(err.c_str(), "r")) {
        char buffer[512];
        while (fgets(buffer, sizeof buffer, f)) text += buffer;
        fclose(f);
    }
    EXPECT_NE(text.find("libdnnl.so.2 (oneDNN 2.x) cannot be loaded"), std::string::npos) << text;
    struct stat st;
    EXPECT_NE(stat(out.c_str(), &st), 0);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace
