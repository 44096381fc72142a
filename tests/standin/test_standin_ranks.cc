// Load held: a cluster's ways of running one space in pieces, on the stand-in
// device (deterministic values, so every merge can equal the unsharded table).
//  - a Slurm array of 16 shards into one folder of a shared file system,
//    killed (SIGKILL or SIGTERM) and requeued at random points, then merged;
//  - GPU ranks on a node the stand-in shows as four GPUs (three H200s and an
//    H100): `mpirun -np 4` and a Slurm step with one task per GPU, each rank
//    taking its own device by its local rank; the merge warns of the mixed
//    devices.
// Each test prints its figures (kills, rounds, wall time) on stdout.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli_fixture.h"
#include "helpers.h"
#include "sslat.h"

namespace {

// Every entry of two tables equal, the constant part's too.
void expect_same_entries(const std::string &a_path, const std::string &b_path)
{
    sslat_container *a = nullptr, *b = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_load_from_file(a_path.c_str(), &a, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_container_load_from_file(b_path.c_str(), &b, &err), SSLAT_OK) << err.message;
    ASSERT_EQ(sslat_container_block_count(a), sslat_container_block_count(b));
    EXPECT_EQ(sslat_container_constant_latency(a), sslat_container_constant_latency(b));
    for (int32_t block = 0; block < sslat_container_block_count(a); block++)
        for (int32_t c = 0; c < sslat_container_candidate_count(a, block); c++) {
            sslat_entry x, y;
            sslat_container_entry(a, block, c, &x, nullptr);
            sslat_container_entry(b, block, c, &y, nullptr);
            EXPECT_EQ(x.value, y.value) << "block " << block << " candidate " << c;
            EXPECT_EQ(x.samples, y.samples) << "block " << block << " candidate " << c;
        }
    sslat_container_free(a);
    sslat_container_free(b);
}

std::vector<std::string> folder_names(const std::string &dir)
{
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
        closedir(d);
    }
    return names;
}

bool exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

// The stand-in command started in the background, as a task of an array
// (the process itself, so a kill reaches it); its pid.
pid_t start(const std::string &args)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
        setenv("SSLAT_CUDA_COPIES_CAP", "2", 1);
        execl("/bin/sh", "sh", "-c", ("exec " + std::string(SSLAT_STANDIN_CLI_PATH) + " " + args).c_str(),
              (char *)nullptr);
        _exit(127);
    }
    return pid;
}

// Wait for pid at most seconds (no task may wait forever), then kill it; its status.
int wait_bounded(pid_t pid, double seconds)
{
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "a task ran past " << seconds << " s: killed";
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        usleep(10000);
    }
    return status;
}

class StandinRanks : public CliFixture {
  protected:
    std::string standin(const std::string &args, const std::string &env = "") const
    {
        return env + " SSLAT_CUDA_COPIES_CAP=2 " + std::string(SSLAT_STANDIN_CLI_PATH) + " " + args;
    }
    std::string space = example_path("fbnet.json");
};

}  // namespace

TEST_F(StandinRanks, SixteenShardsKilledAndRequeuedMergeToTheUnshardedTable)
{
    auto begun = std::chrono::steady_clock::now();
    std::string whole = path("whole.sslat"), parts = path("parts");
    ASSERT_EQ(exit_code(std::system((standin("measure -c cuda " + space + " --resolution 96 -o " + whole) +
                                     " 2>/dev/null").c_str())),
              0);
    ASSERT_EQ(mkdir(parts.c_str(), 0755), 0);
    const int shards = 16;
    std::mt19937 random(2026);
    int kills = 0, stopped = 0, rounds = 0, requeued = 0, resumed = 0;
    for (; rounds < 8; rounds++) {
        std::vector<int> left;
        for (int s = 0; s < shards; s++)
            if (!exists(parts + "/part-" + std::to_string(s) + ".sslat")) left.push_back(s);
        if (left.empty()) break;
        std::vector<pid_t> pids;
        for (int s : left) {
            std::string out = parts + "/part-" + std::to_string(s) + ".sslat";
            bool resume = exists(out + ".journal");  // a requeued task goes on from its journal
            requeued += rounds > 0;
            resumed += resume;
            pids.push_back(start("measure -c cuda " + space + " --resolution 96 --shard " + std::to_string(s) + "/16 -o " +
                                 out + (resume ? " --resume" : "") + " 2>/dev/null"));
        }
        // the first rounds are preempted: about half their tasks killed at a random point
        if (rounds < 3) {
            std::uniform_int_distribution<int> delay_ms(50, 2500), coin(0, 1);
            std::vector<std::pair<int, size_t>> plan;
            for (size_t k = 0; k < pids.size(); k++)
                if (coin(random)) plan.push_back({delay_ms(random), k});
            std::sort(plan.begin(), plan.end());
            auto started = std::chrono::steady_clock::now();
            for (auto &[at, k] : plan) {
                std::this_thread::sleep_until(started + std::chrono::milliseconds(at));
                if (kill(pids[k], coin(random) ? SIGKILL : SIGTERM) == 0) kills++;
            }
        }
        for (pid_t pid : pids) {
            int status = wait_bounded(pid, 600);
            // ok, interrupted (4), or killed; never anything else
            if (WIFEXITED(status)) EXPECT_TRUE(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4)
                << "exit " << WEXITSTATUS(status);
            stopped += WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 4);
        }
    }
    for (int s = 0; s < shards; s++)
        ASSERT_TRUE(exists(parts + "/part-" + std::to_string(s) + ".sslat")) << "shard " << s << " never finished";
    // nothing but the parts: no journal, lock or temporary left
    for (const std::string &name : folder_names(parts))
        EXPECT_TRUE(name.rfind("part-", 0) == 0 && name.size() > 6 && name.substr(name.size() - 6) == ".sslat")
            << "left in the folder: " << name;
    std::string list;
    for (int s = 0; s < shards; s++) list += " " + parts + "/part-" + std::to_string(s) + ".sslat";
    Result merged = run("merge" + list + " -o " + path("merged.sslat"));
    ASSERT_EQ(merged.code, 0) << merged.err;
    expect_same_entries(path("merged.sslat"), whole);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
    EXPECT_GT(resumed, 0) << "no task was stopped with work in its journal: the kills came too late";
    std::printf("[load] 16 shards: %d signals sent, %d tasks stopped before they finished, over %d rounds; %d "
                "requeued, %d of them resumed from a journal; merged = unsharded; %.1f s\n",
                kills, stopped, rounds, requeued, resumed, seconds);
}

TEST_F(StandinRanks, FourGpuRanksTakeTheirOwnDevicesAndTheMergeWarnsOfMixedOnes)
{
    const std::string devices = "SSLAT_STANDIN_DEVICES=4 SSLAT_STANDIN_DEVICE_NAMES=H200,H200,H200,H100";
    std::string whole = path("whole.sslat");
    ASSERT_EQ(exit_code(std::system((standin("measure -c cuda " + space + " --resolution 64 -o " + whole, devices) +
                                     " 2>/dev/null").c_str())),
              0);
    struct Launch {
        const char *name, *rank_variable;
        std::string command;
    };
    std::vector<Launch> launches;
    // a Slurm step with one task per GPU (srun -n 4 --gpus-per-task=1 of an
    // array of 4): each task its array index and its local id
    std::string slurm;
    for (int r = 0; r < 4; r++)
        slurm += "(" + standin("measure -c cuda " + space + " --resolution 64 -o " + path("slurm-" + std::to_string(r) +
                                                                                   ".sslat"),
                               devices + " SLURM_ARRAY_TASK_ID=" + std::to_string(r) +
                                   " SLURM_ARRAY_TASK_COUNT=4 SLURM_LOCALID=" + std::to_string(r)) +
                 " 2>/dev/null) & ";
    launches.push_back({"slurm", "SLURM_LOCALID", slurm + "wait"});
#ifdef SSLAT_MPIEXEC
    // mpirun -np 4 of the stand-in command, each rank its shard by its rank
    launches.push_back({"mpi", "OMPI_COMM_WORLD_LOCAL_RANK",
                        devices + " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                            std::string(SSLAT_MPIEXEC) + " -np 4 --oversubscribe sh -c '" +
                            standin("measure -c cuda " + space + " --resolution 64 --shard $OMPI_COMM_WORLD_RANK/4 -o " +
                                    path("mpi-") + "$OMPI_COMM_WORLD_RANK.sslat") +
                            " 2>/dev/null'"});
#else
    std::printf("[load] mpirun: not found at configure time; the Slurm step alone\n");
#endif
    for (const Launch &launch : launches) {
        auto begun = std::chrono::steady_clock::now();
        ASSERT_EQ(exit_code(std::system(("unset LOCAL_RANK SLURM_LOCALID OMPI_COMM_WORLD_LOCAL_RANK; " + launch.command)
                                            .c_str())),
                  0)
            << launch.name;
        std::string list;
        for (int r = 0; r < 4; r++) {
            std::string part = path(std::string(launch.name) + "-" + std::to_string(r) + ".sslat");
            list += " " + part;
            sslat_container *c = nullptr;
            sslat_error err;
            ASSERT_EQ(sslat_container_load_from_file(part.c_str(), &c, &err), SSLAT_OK) << launch.name << " " << r;
            std::string index = sslat_container_metadata(c, "device.index");
            EXPECT_EQ(index.rfind(std::to_string(r) + " (" + launch.rank_variable + "=" + std::to_string(r), 0), 0u)
                << launch.name << " rank " << r << ": " << index;
            std::string name = sslat_container_metadata(c, "device.name");
            EXPECT_NE(name.find(r == 3 ? "H100" : "H200"), std::string::npos) << name;
            sslat_container_free(c);
        }
        std::string merged = path(std::string(launch.name) + "-merged.sslat");
        Result r = run("merge" + list + " -o " + merged);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("parts were measured on different GPUs"), std::string::npos) << r.err;
        expect_same_entries(merged, whole);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
        std::printf("[load] %s: 4 ranks on 4 stand-in GPUs (one an H100), each its own by %s; merge warned and "
                    "equals the unsharded table; %.1f s\n", launch.name, launch.rank_variable, seconds);
    }
}
