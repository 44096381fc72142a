// Shared helpers of the GoogleTest suite.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "ir/op.h"
#include "sslat.h"
}

// Load a space from JSON text; fails the test (with the message) on error.
inline sslat_space *load_text(const std::string &text, const sslat_space_options *options = nullptr)
{
    sslat_space *space = nullptr;
    sslat_error err;
    sslat_status status =
        sslat_space_load_string(text.data(), text.size(), "test", options, &space, &err);
    EXPECT_EQ(status, SSLAT_OK) << err.message;
    return space;
}

// A space file around a list of layers (JSON array items), input 3x32x32.
inline std::string space_json(const std::string &layers, const std::string &extra = "",
                              const std::string &input = "{\"shape\": [3, 32, 32], \"batch\": 1}")
{
    return "{\"sslat\": 1, \"input\": " + input + ", \"layers\": [" + layers + "]" + extra + "}";
}

// The params of a conv2d node (no bias).
inline sslat_op_params conv_params(int out, int k, int s, int p, int d = 1, int g = 1)
{
    sslat_op_params params;
    memset(&params, 0, sizeof params);
    params.conv = {out, k, s, p, d, g, false};
    return params;
}

// SSLAT_EXAMPLES_DIR in the environment wins: test binaries carried to another
// machine (the GPU one) find the examples of the tree there.
inline std::string example_path(const char *name)
{
    const char *moved = std::getenv("SSLAT_EXAMPLES_DIR");
    return std::string(moved ? moved : SSLAT_EXAMPLES_DIR) + "/" + name;
}

inline sslat_space *load_example(const char *name)
{
    sslat_space *space = nullptr;
    sslat_error err;
    EXPECT_EQ(sslat_space_load_file(example_path(name).c_str(), nullptr, &space, &err), SSLAT_OK)
        << err.message;
    return space;
}

// The whole file, bytes as they are ("" when it cannot be read).
inline std::string read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A private temporary folder under /tmp, removed with all it holds when it
// goes out of scope, also when an ASSERT ends the test early.
class TempDir {
  public:
    explicit TempDir(const std::string &prefix = "sslat-test")
    {
        std::string pattern = "/tmp/" + prefix + "-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (mkdtemp(name.data())) path_ = name.data();
    }
    ~TempDir()
    {
        if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    bool made() const { return !path_.empty(); }
    const std::string &path() const { return path_; }
    std::string path(const std::string &name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

// std::system's status as an exit code (-1 when a signal ended the command).
inline int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// What arrives through the FIFO at fifo while write() runs (a reader thread).
template <class Writer> std::string through_fifo(const std::string &fifo, Writer write)
{
    std::string received;
    std::thread reader([&] {
        int fd = open(fifo.c_str(), O_RDONLY);
        char buffer[4096];
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buffer, sizeof buffer)) > 0) received.append(buffer, (size_t)n);
        if (fd >= 0) close(fd);
    });
    write();
    // a writer that never opened the FIFO leaves the reader in open(): one
    // empty open and close releases it (and fails harmlessly when it is done)
    int release = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (release >= 0) close(release);
    reader.join();
    return received;
}
