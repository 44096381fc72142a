// Shared helpers of the GoogleTest suite.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
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

// A whole text file ("" when it cannot be read).
inline std::string read_text(const std::string &path)
{
    std::string text;
    if (FILE *f = fopen(path.c_str(), "r")) {
        char buffer[1024];
        while (fgets(buffer, sizeof buffer, f)) text += buffer;
        fclose(f);
    }
    return text;
}
