// Running the sslat command as a user would, in a private temporary folder:
// its exit code, standard output and standard error.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "helpers.h"

struct Result {
    int code;
    std::string out, err;
};

class CliFixture : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(temp.made()); }

    // env: variables for this run only, e.g. "LSAN_OPTIONS=detect_leaks=0"
    Result run(const std::string &args, const std::string &env = "")
    {
        std::string out = dir + "/stdout", err = dir + "/stderr";
        std::string command = env + " " + std::string(SSLAT_CLI_PATH) + " " + args + " >" + out + " 2>" + err;
        return {exit_code(std::system(command.c_str())), read_file(out), read_file(err)};
    }

    std::string write(const char *name, const std::string &text)
    {
        std::string path = dir + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::string path(const std::string &name) const { return dir + "/" + name; }

    TempDir temp{"sslat-cli"};
    const std::string dir = temp.path(); /* the private folder every run writes into */
};
