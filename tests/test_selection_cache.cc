// The cuda backend's persistent selection cache (kernels/cuda_selection.c):
// its file handling, on any machine. A decision is found again only on the
// device (GPU and software) that made it; a stale, corrupt or foreign file is
// said and never trusted; a folder it cannot write costs the next run its
// time, never this run's table; two processes writing at once lose nothing.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <fstream>
#include <string>

#include "helpers.h"

extern "C" {
#include "kernels/cuda_selection.h"
}

namespace {

const uint64_t H200 = 0x1111, A100 = 0x2222, DRIVER_A = 0xaaaa, DRIVER_B = 0xbbbb;

// A distinct convolution's key (i apart) and a graph-API decision for it.
cuda_selection_entry entry(int i, cuda_conv_route route = CUDA_ROUTE_GRAPH)
{
    cuda_selection_entry e = {};
    sslat_conv_params conv = {32, 3, 1, 1, 1, 1, false};
    e.key = cuda_conv_key_of({1, 16, 28 + i, 28}, {1, 32, 28 + i, 28}, &conv, 1, true, 2, 130, 1);
    e.route = route;
    e.algo = 1, e.math = 2, e.workspace = 4096u * (uint64_t)i;
    e.engine.global_index = 40 + i;
    e.engine.knobs = 2;
    e.engine.knob_type[0] = 3, e.engine.knob_value[0] = i;
    e.engine.knob_type[1] = 7, e.engine.knob_value[1] = -1;
    e.engine.numerical = 1, e.engine.behavior = 1;
    e.ms = 0.0125;
    return e;
}

std::string read_text(const std::string &path)
{
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

// A run: opens the cache, decides entries [from, to) and writes them.
void run_deciding(const std::string &folder, uint64_t hardware, uint64_t software, int from, int to)
{
    cuda_selection_cache c;
    cuda_selection_open(&c, folder.c_str(), hardware, software);
    for (int i = from; i < to; i++) {
        cuda_selection_entry e = entry(i);
        cuda_selection_put(&c, &e);
    }
    EXPECT_TRUE(cuda_selection_save(&c)) << c.problem;
    cuda_selection_release(&c);
}

TEST(SelectionCache, ADecisionIsFoundAgainExactlyOnTheSameDevice)
{
    TempDir dir;
    std::string folder = dir.path("cache/sslat"); // made on the first write, parents too
    run_deciding(folder, H200, DRIVER_A, 0, 3);
    EXPECT_EQ(read_text(folder + "/" CUDA_SELECTION_FILE).rfind(CUDA_SELECTION_HEADER "\n", 0), 0u);
    cuda_selection_cache c;
    cuda_selection_open(&c, folder.c_str(), H200, DRIVER_A);
    EXPECT_EQ(c.count, 3);
    EXPECT_EQ(c.problem[0], '\0') << c.problem;
    cuda_selection_entry want = entry(1);
    const cuda_selection_entry *got = cuda_selection_get(&c, &want.key);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->route, CUDA_ROUTE_GRAPH);
    EXPECT_EQ(got->engine.global_index, 41);
    EXPECT_EQ(got->engine.knobs, 2);
    EXPECT_EQ(got->engine.knob_value[0], 1);
    EXPECT_EQ(got->engine.knob_value[1], -1);
    EXPECT_EQ(got->workspace, 4096u);
    EXPECT_EQ(got->engine.numerical, 1u);
    EXPECT_DOUBLE_EQ(got->ms, 0.0125);
    cuda_selection_entry other = entry(9);
    EXPECT_EQ(cuda_selection_get(&c, &other.key), nullptr) << "a convolution never decided";
    EXPECT_EQ(c.hits, 1);
    EXPECT_EQ(c.misses, 1);
    cuda_selection_release(&c);
    // every route reads back as it was written
    for (cuda_conv_route route : {CUDA_ROUTE_LEGACY, CUDA_ROUTE_GRAPH_FUSED, CUDA_ROUTE_OWN_DEPTHWISE}) {
        cuda_selection_open(&c, folder.c_str(), H200, DRIVER_A);
        cuda_selection_entry e = entry(1, route);
        cuda_selection_put(&c, &e);
        ASSERT_TRUE(cuda_selection_save(&c)) << c.problem;
        cuda_selection_release(&c);
        cuda_selection_open(&c, folder.c_str(), H200, DRIVER_A);
        EXPECT_EQ(c.count, 3) << "the entry for the same key replaced, not added";
        got = cuda_selection_get(&c, &e.key);
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(got->route, route);
        cuda_selection_release(&c);
    }
}

TEST(SelectionCache, AnotherDriverMakesEveryEntryStaleAndAnotherGpuLeavesThemAlone)
{
    TempDir dir;
    run_deciding(dir.path(), H200, DRIVER_A, 0, 4);
    cuda_selection_cache c;
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_B); // the driver was updated
    EXPECT_EQ(c.count, 0);
    EXPECT_EQ(c.stale, 4);
    cuda_selection_entry e = entry(0);
    EXPECT_EQ(cuda_selection_get(&c, &e.key), nullptr) << "never trusted across software versions";
    char text[1200];
    cuda_selection_describe(&c, text, sizeof text);
    EXPECT_NE(std::string(text).find("4 entries of this GPU from other software or no longer working ignored"),
              std::string::npos) << text;
    cuda_selection_release(&c);
    // an A100 node sharing the home folder: the H200's entries are kept for it, not used here
    run_deciding(dir.path(), A100, DRIVER_A, 0, 2);
    cuda_selection_open(&c, dir.path().c_str(), A100, DRIVER_A);
    EXPECT_EQ(c.count, 2);
    EXPECT_EQ(c.other_devices, 4);
    cuda_selection_release(&c);
    // the updated H200 writes: its stale entries go, the A100's stay
    run_deciding(dir.path(), H200, DRIVER_B, 0, 1);
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_B);
    EXPECT_EQ(c.count, 1);
    EXPECT_EQ(c.stale, 0);
    EXPECT_EQ(c.other_devices, 2);
    cuda_selection_release(&c);
}

TEST(SelectionCache, AnUnreadableLineIsSkippedAndAFileOfAnotherFormatIsNeitherReadNorReplaced)
{
    TempDir dir;
    run_deciding(dir.path(), H200, DRIVER_A, 0, 3);
    std::string file = dir.path(CUDA_SELECTION_FILE), text = read_text(file);
    // one digit of the second entry changed: its checksum no longer matches
    size_t second = text.find('\n', text.find("\nE ") + 1) + 1, digit = text.find(' ', second + 40) + 1;
    text[digit] = text[digit] == '1' ? '2' : '1';
    text += "E not an entry at all\n\n";
    write_text(file, text);
    cuda_selection_cache c;
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
    EXPECT_EQ(c.count, 2);
    EXPECT_EQ(c.unreadable, 2);
    cuda_selection_release(&c);
    // a NUL byte inside the first entry: that line is unreadable, the file goes on after it
    run_deciding(dir.path("nul"), H200, DRIVER_A, 0, 3);
    std::string with_nul = read_text(dir.path("nul/" CUDA_SELECTION_FILE));
    with_nul[with_nul.find("\nE ") + 5] = '\0';
    write_text(file, with_nul);
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
    EXPECT_EQ(c.count, 2);
    EXPECT_EQ(c.unreadable, 1);
    cuda_selection_release(&c);
    // every byte of the file changed in turn, truncated at every length: an entry reads back whole or not at all
    run_deciding(dir.path("whole"), H200, DRIVER_A, 0, 2);
    std::string good = read_text(dir.path("whole/" CUDA_SELECTION_FILE));
    for (size_t i = 0; i < good.size(); i++)
        for (int variant = 0; variant < 2; variant++) {
            std::string bad = variant ? good.substr(0, i) : good;
            if (!variant) bad[i] = (char)(bad[i] ^ 0x5a);
            write_text(file, bad);
            cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
            EXPECT_LE(c.count + c.unreadable, 2) << i;
            for (int32_t k = 0; k < c.count; k++) { // what was read is one of the two entries, unchanged
                int64_t which = c.items[k].engine.global_index - 40;
                ASSERT_TRUE(which == 0 || which == 1) << "byte " << i;
                cuda_selection_entry want = entry((int)which);
                EXPECT_EQ(std::memcmp(&c.items[k].key, &want.key, sizeof want.key), 0) << "byte " << i;
                EXPECT_EQ(c.items[k].workspace, want.workspace) << "byte " << i;
                EXPECT_EQ(c.items[k].engine.knob_value[0], want.engine.knob_value[0]) << "byte " << i;
            }
            cuda_selection_release(&c);
        }
    // a file that is not this format (another version, or anything else)
    for (const char *foreign : {"sslat-selection-cache 2\nE 1 2 3\n", "\x7f" "ELF binary", ""}) {
        write_text(file, foreign);
        cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
        EXPECT_EQ(c.count, 0);
        if (foreign[0]) EXPECT_NE(std::string(c.problem).find("is not a selection cache of this version"),
                                  std::string::npos) << c.problem;
        cuda_selection_entry e = entry(0);
        cuda_selection_put(&c, &e);
        bool saved = cuda_selection_save(&c);
        if (foreign[0]) {
            EXPECT_FALSE(saved);
            EXPECT_EQ(read_text(file), foreign) << "a file sslat cannot read is not replaced";
        } else {
            EXPECT_TRUE(saved) << "an empty file holds nothing to lose: " << c.problem;
        }
        cuda_selection_release(&c);
    }
}

TEST(SelectionCache, AFolderItCannotWriteIsSaidAndTheRunGoesOn)
{
    TempDir dir;
    std::vector<std::string> folders = {"/proc/sslat-selection-cache"}; // no one may make a folder there
    if (geteuid() != 0) { // (root writes into a read-only folder anyway)
        std::string locked = dir.path("locked");
        ASSERT_EQ(mkdir(locked.c_str(), 0500), 0);
        folders.push_back(locked);
    }
    std::string file = dir.path("a-file");
    write_text(file, "x");
    folders.push_back(file + "/sslat"); // a folder under a file
    for (const std::string &folder : folders) {
        cuda_selection_cache c;
        cuda_selection_open(&c, folder.c_str(), H200, DRIVER_A);
        cuda_selection_entry e = entry(0);
        cuda_selection_put(&c, &e);
        EXPECT_FALSE(cuda_selection_save(&c)) << folder;
        EXPECT_NE(std::string(c.problem), "") << folder;
        char text[1200];
        cuda_selection_describe(&c, text, sizeof text);
        EXPECT_NE(std::string(text).find("NOT written"), std::string::npos) << text;
        cuda_selection_release(&c);
    }
    EXPECT_EQ(read_text(file), "x");
    if (geteuid() != 0) { // a cache file its owner made read-only is not replaced (root replaces it anyway)
        run_deciding(dir.path("ro"), H200, DRIVER_A, 0, 1);
        std::string kept = dir.path("ro/" CUDA_SELECTION_FILE), before = read_text(kept);
        ASSERT_EQ(chmod(kept.c_str(), 0444), 0);
        cuda_selection_cache c;
        cuda_selection_open(&c, dir.path("ro").c_str(), H200, DRIVER_A);
        cuda_selection_entry e = entry(5);
        cuda_selection_put(&c, &e);
        EXPECT_FALSE(cuda_selection_save(&c));
        EXPECT_NE(std::string(c.problem).find("read-only"), std::string::npos) << c.problem;
        EXPECT_EQ(read_text(kept), before);
        cuda_selection_release(&c);
    }
}

// Not a regular file (a FIFO would block the run), a lock file that is a
// link, a lock another process keeps: said, the cache left as it is, never a hang.
TEST(SelectionCache, OddFilesAndAHeldLockNeverBlockOrRedirectTheWrite)
{
    TempDir dir;
    std::string file = dir.path(CUDA_SELECTION_FILE);
    ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
    cuda_selection_cache c;
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A); // would block reading a FIFO
    EXPECT_NE(std::string(c.problem).find("is not a regular file"), std::string::npos) << c.problem;
    cuda_selection_entry e = entry(0);
    cuda_selection_put(&c, &e);
    EXPECT_FALSE(cuda_selection_save(&c));
    struct stat st;
    ASSERT_EQ(lstat(file.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "left as it was";
    cuda_selection_release(&c);
    // a lock file that is a link: never followed (nothing made where it points)
    TempDir other;
    std::string target = other.path("made-through-a-link");
    ASSERT_EQ(symlink(target.c_str(), other.path(CUDA_SELECTION_FILE ".lock").c_str()), 0);
    cuda_selection_open(&c, other.path().c_str(), H200, DRIVER_A);
    cuda_selection_put(&c, &e);
    EXPECT_FALSE(cuda_selection_save(&c));
    EXPECT_NE(access(target.c_str(), F_OK), 0) << "the link's target was created";
    cuda_selection_release(&c);
    // a lock held (another process, or here another open file): the write gives up after a while, said
    TempDir held;
    int fd = open(held.path(CUDA_SELECTION_FILE ".lock").c_str(), O_RDWR | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(flock(fd, LOCK_EX), 0);
    cuda_selection_open(&c, held.path().c_str(), H200, DRIVER_A);
    cuda_selection_put(&c, &e);
    auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(cuda_selection_save(&c));
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(waited, 30.0);
    EXPECT_NE(std::string(c.problem).find("another process has held it"), std::string::npos) << c.problem;
    cuda_selection_release(&c);
    close(fd);
    // an entry of every knob at the widest values reads back whole
    cuda_selection_entry wide = entry(3);
    wide.engine.knobs = CUDA_MAX_KNOBS;
    for (int k = 0; k < CUDA_MAX_KNOBS; k++) wide.engine.knob_type[k] = INT64_MIN, wide.engine.knob_value[k] = INT64_MIN + 1;
    cuda_selection_open(&c, held.path().c_str(), H200, DRIVER_A);
    cuda_selection_put(&c, &wide);
    ASSERT_TRUE(cuda_selection_save(&c)) << c.problem;
    cuda_selection_release(&c);
    cuda_selection_open(&c, held.path().c_str(), H200, DRIVER_A);
    const cuda_selection_entry *got = cuda_selection_get(&c, &wide.key);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->engine.knobs, CUDA_MAX_KNOBS);
    EXPECT_EQ(got->engine.knob_value[CUDA_MAX_KNOBS - 1], INT64_MIN + 1);
    cuda_selection_release(&c);
}

TEST(SelectionCache, TwoProcessesWritingAtOnceLoseNeithersEntries)
{
    TempDir dir;
    const int per_process = 40;
    pid_t children[2];
    for (int p = 0; p < 2; p++) {
        children[p] = fork();
        ASSERT_GE(children[p], 0);
        if (children[p] == 0) {
            // each decision written as it is made: many interleaved writes
            bool ok = true;
            for (int i = p * per_process; i < (p + 1) * per_process; i++) {
                cuda_selection_cache c;
                cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
                cuda_selection_entry e = entry(i);
                cuda_selection_put(&c, &e);
                ok = ok && cuda_selection_save(&c);
                cuda_selection_release(&c);
            }
            _exit(ok ? 0 : 1);
        }
    }
    for (pid_t child : children) {
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        EXPECT_EQ(exit_code(status), 0);
    }
    cuda_selection_cache c;
    cuda_selection_open(&c, dir.path().c_str(), H200, DRIVER_A);
    EXPECT_EQ(c.count, 2 * per_process);
    EXPECT_EQ(c.unreadable, 0);
    for (int i = 0; i < 2 * per_process; i++) {
        cuda_selection_entry e = entry(i);
        EXPECT_NE(cuda_selection_get(&c, &e.key), nullptr) << i;
    }
    cuda_selection_release(&c);
}

TEST(SelectionCache, TheFolderComesFromTheOptionTheEnvironmentOrTheUsersCacheFolder)
{
    char out[4096];
    const char *why = nullptr;
    EXPECT_EQ(cuda_selection_folder("off", out, sizeof out, &why), nullptr);
    EXPECT_NE(std::string(why).find("off"), std::string::npos);
    EXPECT_STREQ(cuda_selection_folder("/scratch/me", out, sizeof out, &why), "/scratch/me");
    std::string saved_env = getenv("SSLAT_SELECTION_CACHE") ? getenv("SSLAT_SELECTION_CACHE") : "";
    bool had_env = getenv("SSLAT_SELECTION_CACHE") != nullptr;
    setenv("SSLAT_SELECTION_CACHE", "/from/env", 1);
    EXPECT_STREQ(cuda_selection_folder(nullptr, out, sizeof out, &why), "/from/env");
    EXPECT_STREQ(cuda_selection_folder("/option/wins", out, sizeof out, &why), "/option/wins");
    setenv("SSLAT_SELECTION_CACHE", "off", 1);
    EXPECT_EQ(cuda_selection_folder(nullptr, out, sizeof out, &why), nullptr);
    unsetenv("SSLAT_SELECTION_CACHE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    EXPECT_STREQ(cuda_selection_folder(nullptr, out, sizeof out, &why), "/xdg/sslat");
    unsetenv("XDG_CACHE_HOME");
    std::string home = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", "/home/me", 1);
    EXPECT_STREQ(cuda_selection_folder(nullptr, out, sizeof out, &why), "/home/me/.cache/sslat");
    unsetenv("HOME");
    EXPECT_EQ(cuda_selection_folder(nullptr, out, sizeof out, &why), nullptr);
    if (!home.empty()) setenv("HOME", home.c_str(), 1);
    if (had_env) setenv("SSLAT_SELECTION_CACHE", saved_env.c_str(), 1);
    // the device's two halves tell GPUs and software versions apart
    EXPECT_NE(cuda_selection_hardware("NVIDIA H200", 132, 9, 0), cuda_selection_hardware("NVIDIA H200", 144, 9, 0));
    EXPECT_NE(cuda_selection_software(13000, 91900, "0.2.0"), cuda_selection_software(13000, 91900, "0.3.0"));
}

} // namespace
