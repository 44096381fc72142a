// The cpu calculator end to end: tables it writes, dedupe, fusion, the
// adaptive stop, and a missing library. Skips when libdnnl cannot be loaded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <set>
#include <vector>
#include <cstdlib>
#include <string>

#include "cpu_helpers.h"
#include "helpers.h"

extern "C" {
#include "host/lower.h"
#include "host/measure.h"
#include "ir/space.h"
#include "table/container.h"
}

namespace {

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

int body_steps(host_session *session, const char *layer, sslat_exec_mode mode)
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

TEST(CpuCalculator, FollowsTheStoppingRule)
{
    // The rule itself is tested on a fake clock (test_measure.cc); here, that
    // the cpu backend applies it, with outcomes that no machine speed changes.
    SKIP_WITHOUT_DNNL();
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
    sslat_entry e;
    ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, &e, &err), SSLAT_OK);  // not adaptive: the runs asked for
    EXPECT_EQ(e.samples, 5u);
    o.target_noise = 1e-12;  // unreachable, but the time cap is passed by the first sample
    o.max_seconds = 1e-9;
    ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, &e, &err), SSLAT_OK);
    EXPECT_EQ(e.samples, 5u);  // run_iterations are always kept
    EXPECT_GT(e.median, 0.0);
    host_program_release(&p);

    // programs of a group, hot (back to back) and cold (interleaved), keep
    // every one of run_iterations even past the adaptive cap of a group
    // (10000 samples each)
    sslat_space *tiny = load_text(space_json("\"relu\"", "", "{\"shape\": [4, 2, 2]}"));
    host_program a, b;
    ASSERT_EQ(host_program_init(&a, &session, tiny->input, SSLAT_MODE_EAGER, 1, &err), SSLAT_OK);
    ASSERT_EQ(host_program_init(&b, &session, tiny->input, SSLAT_MODE_EAGER, 2, &err), SSLAT_OK);
    ASSERT_EQ(host_program_append(&a, &tiny->layers[0].candidates[0].graph, &err), SSLAT_OK);
    ASSERT_EQ(host_program_append(&b, &tiny->layers[0].candidates[0].graph, &err), SSLAT_OK);
    host_program *const both[2] = {&a, &b};
    const int32_t units[2] = {1, 1};
    sslat_entry entries[2];
    o.run_iterations = 12000;
    o.target_noise = 0.5;
    o.warmup_iterations = 1;
    for (bool cold : {false, true}) {
        o.cold = cold;
        ASSERT_EQ(host_measure_programs(both, units, 2, &o, nullptr, entries, &err), SSLAT_OK);
        EXPECT_EQ(entries[0].samples, 12000u) << "cold " << cold;
        EXPECT_EQ(entries[1].samples, 12000u) << "cold " << cold;
    }
    host_program_release(&a);
    host_program_release(&b);
    sslat_space_free(tiny);
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
    std::string text = read_text(err);
    EXPECT_NE(text.find("libdnnl.so.2 (oneDNN 2.x) cannot be loaded"), std::string::npos) << text;
    struct stat st;
    EXPECT_NE(stat(out.c_str(), &st), 0);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace

namespace {

// Journal records after the 24-byte header record: 80 bytes each, the run's
// fingerprint then the unit key (engine/calc/journal.h).
std::vector<uint64_t> journal_units(const std::string &path)
{
    std::vector<uint64_t> units;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return units;
    std::vector<unsigned char> data;
    unsigned char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0) data.insert(data.end(), buffer, buffer + n);
    fclose(f);
    for (size_t at = 24; at + 80 <= data.size(); at += 80) {
        uint64_t key = 0;
        for (int i = 7; i >= 0; i--) key = key << 8 | data[at + 16 + i];
        units.push_back(key);
    }
    return units;
}

size_t file_size(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? (size_t)st.st_size : 0;
}

// Start `sslat measure` in the background; returns its pid.
pid_t start_measure(const std::string &args)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
        std::string command = std::string(SSLAT_CLI_PATH) + " " + args + " 2>/dev/null";
        execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), (char *)nullptr);
        _exit(127);
    }
    return pid;
}

TEST(CpuCalculator, KilledRunResumesWithoutLosingOrRepeatingWork)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-resume-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/lat.sslat", journal = out + ".journal";
    std::string args = "measure -c cpu " + example_path("proxylessnas.json") + " --threads 1 --warmup 2 --runs 60 -o " + out +
                       " --keep-journal";
    for (int kill_at : {10, 40}) { // two points of the run
        pid_t pid = start_measure(args + (kill_at == 40 ? " --resume" : ""));
        // wait until that many units are recorded, then SIGKILL
        for (int i = 0; i < 12000 && journal_units(journal).size() < (size_t)kill_at; i++) usleep(10000); // 2 min: CI machines are slow
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
        EXPECT_EQ(file_size(out), 0u) << "no table from a killed run";
    }
    size_t before = journal_units(journal).size();
    EXPECT_GE(before, 40u);
    // resume to the end
    int status = std::system(("LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " " + args + " --resume 2>/dev/null").c_str());
    ASSERT_EQ(WEXITSTATUS(status), 0);
    std::vector<uint64_t> units = journal_units(journal);
    std::vector<uint64_t> sorted = units;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a unit was measured twice";
    sslat_space *space = load_example("proxylessnas.json");
    std::set<uint64_t> expected;
    for (int32_t i = 0; i < space->n_layers; i++)
        for (int32_t c = 0; c < space->layers[i].n_candidates; c++)
            expected.insert(sslat_graph_hash(&space->layers[i].candidates[c].graph));
    EXPECT_EQ(std::set<uint64_t>(units.begin(), units.end()), expected) << "every unit, none missing";
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(out.c_str(), &table, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(sslat_container_block_count(table), 21);
    for (int32_t b = 0; b < 21; b++)
        for (int32_t c = 0; c < sslat_container_candidate_count(table, b); c++)
            if (strcmp(sslat_container_candidate_label(table, b, c), "skip") != 0) {
                EXPECT_GT(sslat_container_latency(table, b, c), 0.0) << b << "/" << c;
            }
    sslat_container_free(table);
    sslat_space_free(space);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

TEST(CpuCalculator, SigtermFinishesTheCurrentUnitsAndSaysHowToResume)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-term-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/lat.sslat", log = std::string(dir) + "/log";
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
        std::string command = "exec " + std::string(SSLAT_CLI_PATH) + " measure -c cpu " + example_path("proxylessnas.json") +
                              " --threads 1 --runs 60 -o " + out + " 2>" + log;
        execl("/bin/sh", "sh", "-c", command.c_str(), (char *)nullptr);
        _exit(127);
    }
    for (int i = 0; i < 3000 && journal_units(out + ".journal").size() < 5; i++) usleep(10000);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 4);
    std::string text = read_text(log);
    EXPECT_NE(text.find("--resume"), std::string::npos) << text;
    EXPECT_EQ(file_size(out), 0u);
    EXPECT_GE(journal_units(out + ".journal").size(), 5u);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace

namespace {

TEST(CpuCalculator, SweepOverThreeBatchesAndTwoResolutions)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-sweep-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/sweep", log = std::string(dir) + "/stdout";
    std::string command = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " sweep " +
                          example_path("mobilenet_v2_space.json") +
                          " -c cpu --threads 1 --runs 3 --warmup 1 --batch 1,2,4 --resolution 128,160 -o " + out +
                          " >" + log + " 2>/dev/null";
    ASSERT_EQ(WEXITSTATUS(std::system(command.c_str())), 0);
    std::string printed = read_text(log), summary = read_text(out + "/summary.csv");
    EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 7) << summary;
    for (const char *point : {"b1_r128_fp32", "b2_r160_fp32", "b4_r128_fp32"}) {
        EXPECT_NE(printed.find(point), std::string::npos) << printed;
        EXPECT_NE(summary.find(std::string(point) + ","), std::string::npos);
    }
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace

namespace {

// What a Slurm log of a cpu run shows: plain progress lines (no carriage
// returns), the thread count, the calibration drift; the noise figures are in
// the metadata and in the CSV's noisy column, by the CoV rule.
TEST(CpuCalculator, ALogShowsProgressAndTheTableItsNoise)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-log-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/lat.sslat", csv = std::string(dir) + "/lat.csv", log = std::string(dir) + "/log";
    std::string command = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " measure -c cpu " +
                          example_path("proxylessnas.json") + " --threads 1 --runs 4 --warmup 1 -o " + out +
                          " --csv " + csv + " 2>" + log;
    ASSERT_EQ(WEXITSTATUS(std::system(command.c_str())), 0) << read_text(log);
    std::string text = read_text(log);
    EXPECT_EQ(text.find('\r'), std::string::npos) << "no carriage return in a log";
    EXPECT_NE(text.find("[cpu] 1 worker thread (--threads)"), std::string::npos) << text;
    EXPECT_NE(text.find("[cpu] 76/76 distinct subgraphs"), std::string::npos) << text;
    EXPECT_NE(text.find("[cpu] 16/76 distinct subgraphs"), std::string::npos) << text;  // a line per journal chunk
    // the drift line, or (on a machine busy with other tests) the warning that replaces it
    EXPECT_TRUE(text.find("calibration drift") != std::string::npos ||
                text.find("the table mixes two speeds") != std::string::npos)
        << text;
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(out.c_str(), &table, &err), SSLAT_OK) << err.message;
    const char *noisy = sslat_container_metadata(table, "quality.noisy_entries");
    ASSERT_NE(noisy, nullptr);
    // the CSV's column follows the rule row by row, and the metadata counts them
    std::string rows = read_text(csv);
    int flagged = 0, timed = 0;
    size_t at = rows.find('\n') + 1;
    while (at < rows.size()) {
        size_t end = rows.find('\n', at);
        std::string row = rows.substr(at, end - at);
        std::vector<std::string> f;
        for (size_t p = 0, q; p <= row.size(); p = q + 1) {
            q = row.find(',', p);
            if (q == std::string::npos) q = row.size();
            f.push_back(row.substr(p, q - p));
        }
        ASSERT_EQ(f.size(), 12u) << row;
        double mean = std::stod(f[6]), stddev = std::stod(f[7]);
        unsigned samples = (unsigned)std::stoul(f[10]);
        bool expected = samples > 1 && mean > 0 && stddev / mean > 0.025;
        EXPECT_EQ(f[11], expected ? "1" : "0") << row;
        flagged += expected;
        timed += samples > 1;
        at = end + 1;
    }
    EXPECT_EQ(std::string(noisy).rfind(std::to_string(flagged) + " of " + std::to_string(timed) + " ", 0), 0u) << noisy;
    sslat_container_free(table);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace

namespace {

int impl_keys(const sslat_container *table)
{
    int n = 0;
    for (int32_t i = 0; i < sslat_container_metadata_count(table); i++) {
        const char *key = nullptr, *value = nullptr;
        sslat_container_metadata_at(table, i, &key, &value);
        n += strncmp(key, "cpu.impl.L", 10) == 0;
    }
    return n;
}

// A sharded cpu run merged: every unit's implementation from the part that
// measured it, the per-part summaries side by side, the noise recounted.
TEST(CpuCalculator, MergedShardsKeepEveryPartsImplementations)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-merge-impl-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string base = std::string(SSLAT_CLI_PATH) + " measure -c cpu " + example_path("proxylessnas.json") +
                       " --threads 1 --runs 2 --warmup 1 ";
    std::string whole = std::string(dir) + "/whole.sslat", merged = std::string(dir) + "/merged.sslat";
    for (int s = 0; s < 2; s++)
        ASSERT_EQ(WEXITSTATUS(std::system((base + "--shard " + std::to_string(s) + "/2 -o " + dir + "/part" +
                                           std::to_string(s) + ".sslat 2>/dev/null").c_str())), 0);
    ASSERT_EQ(WEXITSTATUS(std::system((base + "-o " + whole + " 2>/dev/null").c_str())), 0);
    ASSERT_EQ(WEXITSTATUS(std::system((std::string(SSLAT_CLI_PATH) + " merge " + dir + "/part0.sslat " + dir +
                                       "/part1.sslat -o " + merged + " 2>/dev/null").c_str())), 0);
    sslat_container *a = nullptr, *b = nullptr, *p0 = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(whole.c_str(), &a, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_load_from_file(merged.c_str(), &b, &err), SSLAT_OK);
    ASSERT_EQ(sslat_container_load_from_file((std::string(dir) + "/part0.sslat").c_str(), &p0, &err), SSLAT_OK);
    EXPECT_EQ(impl_keys(b), impl_keys(a)) << "every distinct subgraph named, from whichever part measured it";
    EXPECT_LT(impl_keys(p0), impl_keys(a));
    std::string units = sslat_container_metadata(b, "cpu.impl.units");
    EXPECT_EQ(units.rfind("part 0: ", 0), 0u) << units;  // the parts' own counts, side by side
    EXPECT_NE(units.find("; part 1: "), std::string::npos) << units;
    char noise[160];
    sslat_container_noise_summary(b, noise, sizeof noise);
    EXPECT_STREQ(sslat_container_metadata(b, "quality.noisy_entries"), noise);
    sslat_container_free(a);
    sslat_container_free(b);
    sslat_container_free(p0);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace

TEST(CpuCalculator, ContextModeFitsTheTableToWholeArchitectures)
{
    SKIP_WITHOUT_DNNL();
    char dir[] = "/tmp/sslat-context-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string out = std::string(dir) + "/ctx.sslat", log = std::string(dir) + "/log";
    std::string base = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " measure -c cpu " +
                       example_path("mobilenet_v2_space.json") + " --resolution 64 --threads 1 --runs 3 --warmup 1";
    std::string command = base + " --context 24 -o " + out + " 2>" + log;
    ASSERT_EQ(WEXITSTATUS(std::system(command.c_str())), 0) << read_text(log);
    EXPECT_NE(read_text(log).find("[context] 24 architectures end to end"), std::string::npos) << read_text(log);
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(out.c_str(), &table, &err), SSLAT_OK) << err.message;
    ASSERT_NE(sslat_container_metadata(table, "context.architectures"), nullptr);
    EXPECT_STREQ(sslat_container_metadata(table, "context.architectures"), "24");
    // the fit can only bring the table closer to the runs it was fitted to
    double before = atof(sslat_container_metadata(table, "context.rms_isolated_ms"));
    double after = atof(sslat_container_metadata(table, "context.rms_fitted_ms"));
    EXPECT_LE(after, before * (1 + 1e-9));
    for (int32_t b = 0; b < sslat_container_block_count(table); b++)
        for (int32_t c = 0; c < sslat_container_candidate_count(table, b); c++) {
            sslat_entry e;
            ASSERT_EQ(sslat_container_entry(table, b, c, &e, &err), SSLAT_OK);
            EXPECT_GE(e.samples, 1u) << "every candidate ran inside at least one architecture";
            EXPECT_GE(e.value, 0.0);
        }
    sslat_container_free(table);
    // too few architectures to hold every candidate, a shard, an analytic calculator: refused
    std::string refused = base + " --context 2 -o " + out + ".2 2>" + log;
    EXPECT_EQ(WEXITSTATUS(std::system(refused.c_str())), 2);
    EXPECT_NE(read_text(log).find("context mode needs"), std::string::npos) << read_text(log);
    refused = base + " --context 24 --shard 0/2 -o " + out + ".3 2>" + log;
    EXPECT_EQ(WEXITSTATUS(std::system(refused.c_str())), 2);
    refused = std::string(SSLAT_CLI_PATH) + " measure -c mac " + example_path("fbnet.json") + " --context 24 -o " +
              out + ".4 2>" + log;
    EXPECT_EQ(WEXITSTATUS(std::system(refused.c_str())), 2);
    EXPECT_NE(read_text(log).find("cannot"), std::string::npos) << read_text(log);
    struct stat st;
    EXPECT_NE(stat((out + ".2").c_str(), &st), 0);
    EXPECT_NE(stat((out + ".4.journal").c_str(), &st), 0);
    std::system(("rm -rf " + std::string(dir)).c_str());
}
