// Running the sslat command as a user would, in a private temporary folder:
// its exit code, standard output and standard error.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

struct Result {
    int code;
    std::string out, err;
};

// The whole file, bytes as they are ("" when it cannot be read).
inline std::string read_all(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class CliFixture : public ::testing::Test {
  protected:
    void SetUp() override
    {
        char pattern[] = "/tmp/sslat-cli-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir = pattern;
    }
    void TearDown() override { std::system(("rm -rf '" + dir + "'").c_str()); }

    // env: variables for this run only, e.g. "LSAN_OPTIONS=detect_leaks=0"
    Result run(const std::string &args, const std::string &env = "")
    {
        std::string out = dir + "/stdout", err = dir + "/stderr";
        std::string command = env + " " + std::string(SSLAT_CLI_PATH) + " " + args + " >" + out + " 2>" + err;
        int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(out), read_all(err)};
    }

    std::string write(const char *name, const std::string &text)
    {
        std::string path = dir + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::string path(const std::string &name) const { return dir + "/" + name; }

    std::string dir;
};
