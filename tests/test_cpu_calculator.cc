// The cpu calculator end to end: tables it writes, dedupe, fusion, the
// adaptive stop, and a missing library. Skips when libdnnl cannot be loaded.
#include <gtest/gtest.h>
#include <sched.h>
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
#include "api/latency.h"
#include "calc/journal.h"
#include "calc/run.h"
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
    sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
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
    // hot by default: each unit back to back, as a benchmark loop runs a model
    EXPECT_EQ(std::string(sslat_container_metadata(c, "calculator.cache")).rfind("hot:", 0), 0u);
    EXPECT_NE(std::string(sslat_container_metadata(c, "calculator.schedule")).find("back to back"), std::string::npos);
    // the verdict is recorded whatever the machine's load (its value is the machine's)
    std::set<std::string> verdicts{"ok", "noisy", "disturbed"};
    ASSERT_NE(sslat_container_metadata(c, "quality.verdict"), nullptr);
    EXPECT_TRUE(verdicts.count(sslat_container_metadata(c, "quality.verdict")));
    for (const char *key : {"quality.cause", "quality.cov_median", "quality.cov_worst", "quality.batches",
                            "quality.machine"})
        EXPECT_NE(sslat_container_metadata(c, key), nullptr) << key;
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
    ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, nullptr, &e, &err), SSLAT_OK);  // not adaptive: the runs asked for
    EXPECT_EQ(e.samples, 5u);
    o.target_noise = 1e-12;  // unreachable, but the time cap is passed by the first sample
    o.max_seconds = 1e-9;
    ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, nullptr, &e, &err), SSLAT_OK);
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
        ASSERT_EQ(host_measure_programs(both, units, 2, &o, nullptr, nullptr, entries, &err), SSLAT_OK);
        EXPECT_EQ(entries[0].samples, 12000u) << "cold " << cold;
        EXPECT_EQ(entries[1].samples, 12000u) << "cold " << cold;
    }
    host_program_release(&a);
    host_program_release(&b);
    sslat_space_free(tiny);
    sslat_space_free(space);
    host_session_close(&session);
}

TEST(CpuCalculator, ColdInterleavesCopiesPastTheCacheAndSaysSo)
{
    SKIP_WITHOUT_DNNL();
    sslat_space *space = load_text(space_json("{\"choice\": [\"ir_k3_e3\", \"skip\"], \"c\": 16}", "",
                                              "{\"shape\": [16, 16, 16]}"));
    sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
    options.warmup_iterations = 1;
    options.run_iterations = 3;
    options.threads = 1;
    options.cold = 1;
    sslat_container *c = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_initialize_latency("cpu", space, nullptr, &options, &c, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(std::string(sslat_container_metadata(c, "calculator.cache")).rfind("cold:", 0), 0u);
    EXPECT_NE(std::string(sslat_container_metadata(c, "calculator.schedule")).find("interleaved"), std::string::npos);
    sslat_entry e;
    ASSERT_EQ(sslat_container_entry(c, 0, 0, &e, nullptr), SSLAT_OK);
    EXPECT_GT(e.value, 0.0);
    EXPECT_EQ(e.samples, 3u);
    // a small layer needs many copies to pass 2x L2: the cold program is not one copy
    const sslat_graph *graph = &space->layers[0].candidates[0].graph;
    EXPECT_GT(host_replicas_for(graph, 1), 1);
    sslat_space_free(space);
}

// The stall a busy machine causes, injected: the measuring thread sleeps
// inside every sample, so it was not running for part of the batch. Nothing
// here depends on the machine's speed or load.
void stall_2ms()
{
    struct timespec pause = {0, 2 * 1000 * 1000};
    nanosleep(&pause, nullptr);
}

struct StallHook {
    StallHook() { host_sample_hook = stall_2ms; }
    ~StallHook() { host_sample_hook = nullptr; }
};

TEST(CpuInterference, AStalledBatchIsRunAgainWithinItsBudgetAndCounted)
{
    SKIP_WITHOUT_DNNL();
    // one worker thread, as the calculator sets it (an idle OpenMP worker
    // spinning through the stall would add CPU time the measuring thread lacks)
    ASSERT_EQ(host_dnnl_set_threads(1), 1);
    host_session session;
    sslat_error err;
    ASSERT_EQ(host_session_open(&session, 1, &err), SSLAT_OK);
    sslat_space *space = load_text(space_json("\"relu\"", "", "{\"shape\": [4, 8, 8]}"));
    host_program p;
    ASSERT_EQ(host_program_init(&p, &session, space->input, SSLAT_MODE_EAGER, 1, &err), SSLAT_OK);
    ASSERT_EQ(host_program_append(&p, &space->layers[0].candidates[0].graph, &err), SSLAT_OK);
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    o.run_iterations = 4;
    o.warmup_iterations = 1;
    for (bool cold : {false, true}) {
        o.cold = cold;
        host_interference q = {};
        q.threads = 1;
        q.worst_share = 1;
        q.remeasure_budget = 64;
        sslat_entry e;
        {
            StallHook stall;
            ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, &q, &e, &err), SSLAT_OK);
        }
        EXPECT_EQ(e.samples, 4u) << "cold " << cold;  // the samples asked for, from the last attempt
        EXPECT_EQ(q.disturbed, q.batches) << "cold " << cold;  // every batch saw the stall
        EXPECT_GT(q.remeasured, 0) << "cold " << cold;
        EXPECT_GT(q.kept_disturbed, 0) << "cold " << cold;
        // cold: 4 rounds kept (one sample each); hot: batches of back-to-back samples up to 5 ms
        if (cold) EXPECT_EQ(q.batches, q.remeasured + 4);
        else EXPECT_GE(q.batches, q.remeasured + 1);
        EXPECT_LT(q.worst_share, HOST_MIN_WORKER_SHARE) << "cold " << cold;
        // quiet again: no batch disturbed by the hook
        host_interference after = {};
        after.threads = 1;
        after.remeasure_budget = 64;
        ASSERT_EQ(host_measure_program(&p, 1, &o, nullptr, &after, &e, &err), SSLAT_OK);
        EXPECT_GE(after.batches, 1);
    }
    host_program_release(&p);
    sslat_space_free(space);
    host_session_close(&session);
    host_dnnl_set_threads(sslat_max_threads());  // OpenMP's count is the process's: the next test's default
}

TEST(CpuInterference, ATableMeasuredThroughStallsIsDisturbedAndSaysWhy)
{
    SKIP_WITHOUT_DNNL();
    sslat_space *space = load_text(space_json("{\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\"], \"c\": 16}", "",
                                              "{\"shape\": [16, 16, 16]}"));
    sslat_latency_options options = SSLAT_LATENCY_OPTIONS_INIT;
    options.warmup_iterations = 1;
    options.run_iterations = 5;
    options.threads = 1;
    sslat_container *c = nullptr;
    sslat_error err;
    {
        StallHook stall;
        ASSERT_EQ(sslat_initialize_latency("cpu", space, nullptr, &options, &c, &err), SSLAT_OK) << err.message;
    }
    EXPECT_STREQ(sslat_container_metadata(c, "quality.verdict"), "disturbed");
    std::string cause = sslat_container_metadata(c, "quality.cause");
    EXPECT_NE(cause.find("worker threads were not running for part of"), std::string::npos) << cause;
    std::string batches = sslat_container_metadata(c, "quality.batches");
    EXPECT_EQ(batches.find(" 0 run again"), std::string::npos) << batches;  // they were run again first
    sslat_space_free(space);
}

// A run measured through stalls keeps its records in a journal; resumed on a
// quiet machine (nothing left to measure), the table is still disturbed, and
// its cause says the records came from the earlier run.
TEST(CpuInterference, AResumedTableKeepsTheDisturbedVerdictOfItsRecords)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-resumed-verdict");
    ASSERT_TRUE(temp.made());
    std::string path = temp.path("t.sslat.journal");
    sslat_space *space = load_text(space_json("{\"choice\": [\"ir_k3_e3\", \"ir_k5_e6\"], \"c\": 16}", "",
                                              "{\"shape\": [16, 16, 16]}"));
    sslat_calc_options options;
    sslat_calc_options_default(&options);
    options.warmup_iterations = 1;
    options.run_iterations = 5;
    options.threads = 1;
    sslat_run_plan plan = {};
    uint64_t fingerprint = sslat_run_fingerprint(&sslat_cpu_calculator, space, &options, &plan);
    sslat_journal *journal = nullptr;
    sslat_journal_info info;
    sslat_error err;
    ASSERT_EQ(sslat_journal_open(path.c_str(), SSLAT_JOURNAL_NEW, fingerprint, &journal, &info, &err), SSLAT_OK);
    plan.journal = journal;
    sslat_container *first = nullptr;
    {
        StallHook stall;
        ASSERT_EQ(sslat_measure_space(&sslat_cpu_calculator, space, &options, &plan, nullptr, &first, &err), SSLAT_OK)
            << err.message;
    }
    ASSERT_STREQ(sslat_container_metadata(first, "quality.verdict"), "disturbed");
    size_t units = sslat_journal_count(journal);
    sslat_journal_close(journal, false);  // as an interrupted run leaves it

    ASSERT_EQ(sslat_journal_open(path.c_str(), SSLAT_JOURNAL_RESUME, fingerprint, &journal, &info, &err), SSLAT_OK)
        << err.message;
    EXPECT_EQ(info.recovered, units);
    plan.journal = journal;
    sslat_container *resumed = nullptr;
    ASSERT_EQ(sslat_measure_space(&sslat_cpu_calculator, space, &options, &plan, nullptr, &resumed, &err), SSLAT_OK)
        << err.message;
    sslat_journal_close(journal, true);
    EXPECT_STREQ(sslat_container_metadata(resumed, "quality.verdict"), "disturbed");
    std::string cause = sslat_container_metadata(resumed, "quality.cause");
    EXPECT_NE(cause.find("resumed from the journal of an earlier run"), std::string::npos) << cause;
    EXPECT_NE(cause.find("worker threads were not running"), std::string::npos) << cause;
    for (int32_t b = 0; b < sslat_container_block_count(resumed); b++)
        for (int32_t i = 0; i < 2; i++)
            EXPECT_EQ(sslat_container_latency(resumed, b, i), sslat_container_latency(first, b, i));
    sslat_container_free(first);
    sslat_container_free(resumed);
    sslat_space_free(space);
}

// The test pinned to at most 2 of its CPUs, one busy loop of its own per
// pinned CPU for at most 60 s (killed by pid at the end), and the cli run on
// as many threads (all inherit the pinning): each worker shares its core, so
// the verdict must be disturbed, and --strict exits 6 after writing the table.
TEST(CpuInterference, BusyCoresMakeTheDefaultRunSayDisturbedAndStrictFail)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-busy");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    cpu_set_t before, pinned;
    ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
    CPU_ZERO(&pinned);
    long cores = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && cores < 2; cpu++)
        if (CPU_ISSET(cpu, &before)) {
            CPU_SET(cpu, &pinned);
            cores++;
        }
    ASSERT_EQ(sched_setaffinity(0, sizeof pinned, &pinned), 0);
    std::vector<pid_t> busy;
    for (long i = 0; i < cores; i++) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            alarm(60);  // bounded even if the test dies before it kills them
            volatile unsigned long spin = 0;
            for (;;) spin = spin + 1;
        }
        busy.push_back(pid);
    }
    std::string out = std::string(dir) + "/t.sslat", err = std::string(dir) + "/err";
    std::string command = std::string(SSLAT_CLI_PATH) + " measure -c cpu --threads " + std::to_string(cores) +
                          " --runs 5 --warmup 2 --strict " + example_path("fbnet.json") + " -o " + out + " 2>" + err;
    int status = std::system(command.c_str());
    for (pid_t pid : busy) kill(pid, SIGKILL);
    for (pid_t pid : busy) waitpid(pid, nullptr, 0);
    sched_setaffinity(0, sizeof before, &before);
    std::string text = read_file(err);
    EXPECT_EQ(exit_code(status), 6) << text;
    EXPECT_NE(text.find("quality DISTURBED"), std::string::npos) << text;
    struct stat st;
    EXPECT_EQ(stat(out.c_str(), &st), 0) << "the table is written all the same";
    // a finished run keeps no journal: a --resume could only re-use its disturbed records
    EXPECT_NE(stat((out + ".journal").c_str(), &st), 0) << "the finished run left its journal";
}

TEST(CpuCalculator, MissingLibraryIsAClearErrorAndWritesNothing)
{
    TempDir temp("sslat-nodnnl");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string out = std::string(dir) + "/out.sslat", err = std::string(dir) + "/err";
    std::string command = "SSLAT_DNNL_LIBRARY=/nonexistent/libdnnl.so.2 " + std::string(SSLAT_CLI_PATH) +
                          " measure -c cpu -o " + out + " 2>" + err;
    int status = std::system(command.c_str());
    EXPECT_EQ(exit_code(status), 3);
    std::string text = read_file(err);
    EXPECT_NE(text.find("libdnnl.so.2 (oneDNN 2.x) cannot be loaded"), std::string::npos) << text;
    struct stat st;
    EXPECT_NE(stat(out.c_str(), &st), 0);
}

}  // namespace

namespace {

// Journal records after the 24-byte header record: 168 bytes each, the run's
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
    for (size_t at = 24; at + 168 <= data.size(); at += 168) {
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
    TempDir temp("sslat-resume");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
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
    ASSERT_EQ(exit_code(status), 0);
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
}

TEST(CpuCalculator, SigtermFinishesTheCurrentUnitsAndSaysHowToResume)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-term");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
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
    EXPECT_EQ(exit_code(status), 4);
    std::string text = read_file(log);
    EXPECT_NE(text.find("--resume"), std::string::npos) << text;
    EXPECT_EQ(file_size(out), 0u);
    EXPECT_GE(journal_units(out + ".journal").size(), 5u);
}


// A sweep stopped by SIGTERM, or by SIGINT although it was started with SIGINT
// ignored (a script's `&`), ends its point in flight within a round: exit 4,
// the point's units kept in its journal, no lock left; the same sweep run
// again resumes the point and finishes.
TEST(CpuCalculator, ASweepStoppedBySignalKeepsItsPointAndResumesIt)
{
    SKIP_WITHOUT_DNNL();
    for (int signal_number : {SIGTERM, SIGINT}) {
        TempDir temp("sslat-sweep-stop");
        ASSERT_TRUE(temp.made());
        std::string dir = temp.path("points"), log = temp.path("log");
        std::string args = "sweep " + example_path("proxylessnas.json") +
                           " -c cpu --threads 1 --runs 60 --batch 1 --resolution 96,112 -o " + dir;
        std::string journal = dir + "/b1_r96_fp32.sslat.journal";
        pid_t pid = fork();
        if (pid == 0) {
            setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
            signal(SIGINT, SIG_IGN);  // as a shell's `&` leaves it, and exec keeps it ignored
            std::string command = "exec " + std::string(SSLAT_CLI_PATH) + " " + args + " >/dev/null 2>" + log;
            execl("/bin/sh", "sh", "-c", command.c_str(), (char *)nullptr);
            _exit(127);
        }
        for (int i = 0; i < 12000 && journal_units(journal).size() < 5; i++) usleep(10000);
        kill(pid, signal_number);
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFEXITED(status)) << "signal " << signal_number;
        EXPECT_EQ(exit_code(status), 4) << read_file(log);
        size_t kept = journal_units(journal).size();
        EXPECT_GE(kept, 5u) << read_file(log);
        struct stat st;
        EXPECT_NE(stat((dir + "/.sslat-sweep.lock").c_str(), &st), 0) << "the lock was left";
        EXPECT_NE(stat((dir + "/b1_r96_fp32.sslat").c_str(), &st), 0) << "no table from a stopped point";

        std::string again = std::string(SSLAT_CLI_PATH) + " " + args + " >/dev/null 2>" + log;
        EXPECT_EQ(exit_code(std::system(again.c_str())), 0) << read_file(log);
        std::string text = read_file(log);
        EXPECT_NE(text.find("resuming " + std::to_string(kept) + " units"), std::string::npos) << text;
        EXPECT_NE(stat(journal.c_str(), &st), 0) << "the finished point's journal is removed";
        EXPECT_EQ(stat((dir + "/b1_r112_fp32.sslat").c_str(), &st), 0);
    }
}

}  // namespace

namespace {

// While a shard of one sweep runs, a shard of another sweep into the same
// folder (another calculator and array size) is refused before it measures;
// a shard of the same sweep runs beside it.
TEST(CpuCalculator, AShardOfAnotherSweepIsRefusedFromAFolderInUse)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-sweep-arrays");
    ASSERT_TRUE(temp.made());
    std::string dir = temp.path("points"), log = temp.path("log");
    std::string sweep = "sweep " + example_path("proxylessnas.json") + " --batch 1 --resolution 96,112 -o " + dir;
    std::string cpu = sweep + " -c cpu --threads 1 --runs 200";
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
        std::string command = "exec " + std::string(SSLAT_CLI_PATH) + " " + cpu + " --shard 0/2 >/dev/null 2>" + log;
        execl("/bin/sh", "sh", "-c", command.c_str(), (char *)nullptr);
        _exit(127);
    }
    std::string journal = dir + "/b1_r96_fp32.sslat.journal";
    for (int i = 0; i < 12000 && journal_units(journal).size() < 2 && waitpid(pid, nullptr, WNOHANG) == 0; i++)
        usleep(10000);
    std::string other = temp.path("other");
    std::string command = std::string(SSLAT_CLI_PATH) + " " + sweep + " -c mac --shard 0/3 >/dev/null 2>" + other;
    int refused = exit_code(std::system(command.c_str()));
    command = std::string(SSLAT_CLI_PATH) + " " + cpu + " --shard 1/2 >/dev/null 2>" + other + ".same";
    int same = exit_code(std::system(command.c_str()));
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_EQ(refused, 1);
    std::string text = read_file(other);
    EXPECT_NE(text.find("the shards of another sweep are writing into"), std::string::npos) << text;
    EXPECT_NE(text.find("calculator cpu, 2 points"), std::string::npos) << text;
    struct stat st;
    sslat_container *point = nullptr;  // (the running shard may have finished it)
    sslat_error err;
    if (sslat_container_load_from_file((dir + "/b1_r96_fp32.sslat").c_str(), &point, &err) == SSLAT_OK)
        EXPECT_STREQ(sslat_container_latency_type(point), "cpu") << "the refused shard wrote its point";
    sslat_container_free(point);
    EXPECT_EQ(same, 0) << read_file(other + ".same");
    EXPECT_EQ(stat((dir + "/b1_r112_fp32.sslat").c_str(), &st), 0);
}

// A sweep measures its points in the cache mode asked for; a point of the
// other mode is never kept as if it were this one's (the mode is in
// sweep.options): the rerun is refused, and --restart measures it again.
TEST(CpuCalculator, SweepMeasuresEveryPointInTheCacheModeAskedFor)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-sweep-cache");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string out = std::string(dir) + "/sweep";
    for (const char *mode : {"cold", "hot"}) {
        std::string command = std::string(SSLAT_CLI_PATH) + " sweep " + example_path("fbnet.json") +
                              " -c cpu --threads 1 --runs 2 --warmup 1 --batch 1 --resolution 64 --cache " + mode +
                              " -o " + out + " >/dev/null 2>&1";
        if (std::string(mode) == "hot") {
            ASSERT_EQ(exit_code(std::system(command.c_str())), 2) << "the cold table is not replaced silently";
            command = std::string(SSLAT_CLI_PATH) + " sweep " + example_path("fbnet.json") +
                      " -c cpu --threads 1 --runs 2 --warmup 1 --batch 1 --resolution 64 --cache hot --restart -o " +
                      out + " >/dev/null 2>&1";
        }
        ASSERT_EQ(exit_code(std::system(command.c_str())), 0) << mode;
        sslat_container *table = nullptr;
        sslat_error err;
        ASSERT_EQ(sslat_container_load_from_file((out + "/b1_r64_fp32.sslat").c_str(), &table, &err), SSLAT_OK);
        EXPECT_EQ(std::string(sslat_container_metadata(table, "calculator.cache")).rfind(mode, 0), 0u) << mode;
        sslat_container_free(table);
    }
    std::string bad = std::string(SSLAT_CLI_PATH) + " sweep " + example_path("fbnet.json") +
                      " -c cpu --cache warm -o " + out + " >/dev/null 2>&1";
    EXPECT_EQ(exit_code(std::system(bad.c_str())), 2);
}

TEST(CpuCalculator, SweepOverThreeBatchesAndTwoResolutions)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-sweep");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string out = std::string(dir) + "/sweep", log = std::string(dir) + "/stdout";
    std::string command = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " sweep " +
                          example_path("mobilenet_v2_space.json") +
                          " -c cpu --threads 1 --runs 3 --warmup 1 --batch 1,2,4 --resolution 128,160 -o " + out +
                          " >" + log + " 2>/dev/null";
    ASSERT_EQ(exit_code(std::system(command.c_str())), 0);
    std::string printed = read_file(log), summary = read_file(out + "/summary.csv");
    EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 7) << summary;
    for (const char *point : {"b1_r128_fp32", "b2_r160_fp32", "b4_r128_fp32"}) {
        EXPECT_NE(printed.find(point), std::string::npos) << printed;
        EXPECT_NE(summary.find(std::string(point) + ","), std::string::npos);
    }
}

}  // namespace

namespace {

// What a Slurm log of a cpu run shows: plain progress lines (no carriage
// returns), the thread count, the quality verdict in one line; the noise
// figures are in the metadata and in the CSV's noisy column, by the CoV rule.
TEST(CpuCalculator, ALogShowsProgressAndTheTableItsNoise)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-log");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string out = std::string(dir) + "/lat.sslat", csv = std::string(dir) + "/lat.csv", log = std::string(dir) + "/log";
    std::string command = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " measure -c cpu " +
                          example_path("proxylessnas.json") + " --threads 1 --runs 4 --warmup 1 -o " + out +
                          " --csv " + csv + " 2>" + log;
    ASSERT_EQ(exit_code(std::system(command.c_str())), 0) << read_file(log);
    std::string text = read_file(log);
    EXPECT_EQ(text.find('\r'), std::string::npos) << "no carriage return in a log";
    EXPECT_NE(text.find("[cpu] 1 worker thread (--threads)"), std::string::npos) << text;
    EXPECT_NE(text.find("[cpu] 76/76 distinct subgraphs"), std::string::npos) << text;
    EXPECT_NE(text.find("[cpu] 16/76 distinct subgraphs"), std::string::npos) << text;  // a line per journal chunk
    // the verdict's line: ok / noisy, or (on a machine busy with other tests) the warning
    EXPECT_TRUE(text.find("sslat: quality ok: median entry spread") != std::string::npos ||
                text.find("sslat: quality noisy: ") != std::string::npos ||
                text.find("sslat: warning: quality DISTURBED: ") != std::string::npos)
        << text;
    sslat_container *table = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(out.c_str(), &table, &err), SSLAT_OK) << err.message;
    const char *noisy = sslat_container_metadata(table, "quality.noisy_entries");
    ASSERT_NE(noisy, nullptr);
    // the CSV's column follows the rule row by row, and the metadata counts them
    std::string rows = read_file(csv);
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
    TempDir temp("sslat-merge-impl");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string base = std::string(SSLAT_CLI_PATH) + " measure -c cpu " + example_path("proxylessnas.json") +
                       " --threads 1 --runs 2 --warmup 1 ";
    std::string whole = std::string(dir) + "/whole.sslat", merged = std::string(dir) + "/merged.sslat";
    for (int s = 0; s < 2; s++)
        ASSERT_EQ(exit_code(std::system((base + "--shard " + std::to_string(s) + "/2 -o " + dir + "/part" +
                                           std::to_string(s) + ".sslat 2>/dev/null").c_str())), 0);
    ASSERT_EQ(exit_code(std::system((base + "-o " + whole + " 2>/dev/null").c_str())), 0);
    ASSERT_EQ(exit_code(std::system((std::string(SSLAT_CLI_PATH) + " merge " + dir + "/part0.sslat " + dir +
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
}

}  // namespace

TEST(CpuCalculator, ContextModeFitsTheTableToWholeArchitectures)
{
    SKIP_WITHOUT_DNNL();
    TempDir temp("sslat-context");
    ASSERT_TRUE(temp.made());
    const char *dir = temp.path().c_str();
    std::string out = std::string(dir) + "/ctx.sslat", log = std::string(dir) + "/log";
    std::string base = "LSAN_OPTIONS=detect_leaks=0 " + std::string(SSLAT_CLI_PATH) + " measure -c cpu " +
                       example_path("mobilenet_v2_space.json") + " --resolution 64 --threads 1 --runs 3 --warmup 1";
    std::string command = base + " --context 24 -o " + out + " 2>" + log;
    ASSERT_EQ(exit_code(std::system(command.c_str())), 0) << read_file(log);
    EXPECT_NE(read_file(log).find("[context] 24 architectures end to end"), std::string::npos) << read_file(log);
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
    EXPECT_EQ(exit_code(std::system(refused.c_str())), 2);
    EXPECT_NE(read_file(log).find("context mode needs"), std::string::npos) << read_file(log);
    refused = base + " --context 24 --shard 0/2 -o " + out + ".3 2>" + log;
    EXPECT_EQ(exit_code(std::system(refused.c_str())), 2);
    refused = std::string(SSLAT_CLI_PATH) + " measure -c mac " + example_path("fbnet.json") + " --context 24 -o " +
              out + ".4 2>" + log;
    EXPECT_EQ(exit_code(std::system(refused.c_str())), 2);
    EXPECT_NE(read_file(log).find("cannot"), std::string::npos) << read_file(log);
    struct stat st;
    EXPECT_NE(stat((out + ".2").c_str(), &st), 0);
    EXPECT_NE(stat((out + ".4.journal").c_str(), &st), 0);
}
