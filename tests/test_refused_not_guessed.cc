// No silent wrong answer: exact
// counts and named overflows, imports that validate what readers validate,
// UTF-8, ENOT pickles read as pickle.load reads them, tables of a sweep
// checked against their space, and arguments that are refused, not guessed.
#include <gtest/gtest.h>
#include <jansson.h>
#include <sys/stat.h>

#include <cmath>
#include <functional>
#include <vector>
#include <cstring>
#include <string>

#include "cli_fixture.h"
#include "helpers.h"

extern "C" {
#include "base/count.h"
#include "base/text.h"
#include "table/container.h"
}

namespace {

using RefusedNotGuessed = CliFixture;

bool exists(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

// 3 x 768 blocks of 3 candidates: 3^768 architectures (a double says inf)
std::string huge_space()
{
    std::string block = "{\"choice\": [\"ir_k3_e1\", \"ir_k3_e2\", \"skip\"], \"c\": 8, \"s\": 1, \"repeat\": 256}";
    return space_json("\"cn_k3_s1_c8\", " + block + ", " + block + ", " + block + ", \"gap\", \"fc10\"", "",
                      "{\"shape\": [3, 8, 8]}");
}

TEST_F(RefusedNotGuessed, CountsAreExactAndAnOverflowIsNamed)
{
    std::string space = write("huge.json", huge_space()), table = path("huge.sslat");
    ASSERT_EQ(run("measure -c mac " + space + " -o " + table).code, 0);
    std::vector<int32_t> threes(768, 3);
    char expected[512];
    sslat_product_string(threes.data(), threes.size(), expected, sizeof expected);
    EXPECT_EQ(strlen(expected), 367u);
    Result r = run("stats " + table + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    json_error_t jerr;
    json_t *root = json_loads(r.out.c_str(), 0, &jerr);
    ASSERT_NE(root, nullptr) << "stats --json printed nothing parsable: " << r.out;
    EXPECT_STREQ(json_string_value(json_object_get(root, "architectures")), expected);
    EXPECT_TRUE(json_is_number(json_object_get(root, "mean")));
    json_decref(root);
    r = run("stats " + table);
    EXPECT_NE(r.out.find(expected), std::string::npos);
    EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
    // the count under a budget overflows a double: null, and named
    r = run("budget " + table + " --limit 100 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    root = json_loads(r.out.c_str(), 0, &jerr);
    ASSERT_NE(root, nullptr) << r.out;
    EXPECT_TRUE(json_is_null(json_object_get(root, "count_low")));
    EXPECT_EQ(json_array_size(json_object_get(root, "overflow")), 2u);
    json_decref(root);
    EXPECT_EQ(run("budget " + table + " --limit 100").out.find("inf"), std::string::npos);
}

TEST_F(RefusedNotGuessed, AnImportAcceptsExactlyWhatTheReaderAccepts)
{
    std::string table = path("t.sslat");
    ASSERT_EQ(run("measure -c mac " + example_path("proxylessnas.json") + " -o " + table).code, 0);
    Result exported = run("export " + table + " --json");
    ASSERT_EQ(exported.code, 0);
    json_error_t jerr;
    auto broken = [&](const std::function<void(json_t *)> &edit) {
        json_t *root = json_loads(exported.out.c_str(), 0, &jerr);
        edit(root);
        char *text = json_dumps(root, 0);
        std::string s = text;
        free(text);
        json_decref(root);
        return s;
    };
    const std::string big(70000, 'x');
    const std::string cases[] = {
        broken([](json_t *r) { json_object_set_new(json_object_get(r, "metadata"), "", json_string("x")); }),
        broken([&](json_t *r) { json_object_set_new(json_object_get(r, "metadata"), "k", json_string(big.c_str())); }),
        broken([](json_t *r) {
            for (int i = 0; i < 1100; i++)
                json_object_set_new(json_object_get(r, "metadata"), ("key" + std::to_string(i)).c_str(), json_string("v"));
        }),
        broken([](json_t *r) { json_object_set_new(json_object_get(r, "space"), "hash", json_string("-168c3378afcb51f")); }),
        broken([](json_t *r) { json_object_set_new(json_object_get(r, "space"), "hash", json_string("0x68c3378afcb51f")); }),
        broken([](json_t *r) { json_object_set_new(json_object_get(r, "space"), "hash", json_string(" 168c3378afcb51f")); }),
        broken([](json_t *r) { json_array_set_new(json_object_get(json_object_get(r, "space"), "input"), 0, json_integer(100000)); }),
    };
    int k = 0;
    for (const std::string &text : cases) {
        std::string name = "bad" + std::to_string(k++);
        Result r = run("import " + write((name + ".json").c_str(), text) + " -o " + path(name + ".sslat"));
        EXPECT_EQ(r.code, 2) << name << ": " << r.err;
        EXPECT_FALSE(exists(path(name + ".sslat"))) << name << ": a file no reader accepts was written";
    }
    // the unedited export still round-trips
    EXPECT_EQ(run("import " + write("good.json", exported.out) + " -o " + path("good.sslat")).code, 0);
    EXPECT_EQ(read_file(path("good.sslat")), read_file(table));
}

TEST(Utf8Input, TextThatIsNotUtf8IsRefusedWhereverItEnters)
{
    EXPECT_TRUE(sslat_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
    EXPECT_FALSE(sslat_utf8_valid("\xc3", 1));             // cut short
    EXPECT_FALSE(sslat_utf8_valid("\xc0\xaf", 2));         // overlong '/'
    EXPECT_FALSE(sslat_utf8_valid("\xed\xa0\x80", 3));     // a surrogate
    EXPECT_FALSE(sslat_utf8_valid("\xf4\x90\x80\x80", 4)); // past U+10FFFF
    EXPECT_FALSE(sslat_utf8_valid("\xff", 1));
    sslat_container *c = nullptr;
    sslat_error err;
    const int32_t counts[1] = {1};
    const double values[1] = {1.0};
    ASSERT_EQ(sslat_container_create("mac", 0.0, values, counts, 1, &c, &err), SSLAT_OK);
    EXPECT_EQ(sslat_container_set_metadata(c, "note", "\xff\xfe", &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(sslat_container_set_metadata(c, "caf\xc3", "v", &err), SSLAT_ERR_INVALID_ARGUMENT);
    const int32_t nchw[4] = {1, 3, 8, 8};
    EXPECT_EQ(sslat_container_set_space_info(c, "\x80space", 1, nchw, &err), SSLAT_ERR_INVALID_ARGUMENT);
    char escaped[64];
    sslat_escape_controls("a\x1b[31mred\nline", escaped, sizeof escaped);
    EXPECT_STREQ(escaped, "a\\x1b[31mred\\x0aline");
    sslat_container_free(c);
}

TEST(EntryFigures, InconsistentFiguresAreRefused)
{
    sslat_container *c = nullptr;
    sslat_error err;
    const int32_t counts[1] = {2};
    const double values[2] = {1.0, 2.0};
    ASSERT_EQ(sslat_container_create("cpu", 0.0, values, counts, 1, &c, &err), SSLAT_OK);
    sslat_entry min_above_max = {1.0, 1.0, 1.0, 0.1, 1.5, 1.2, 10};
    EXPECT_EQ(sslat_container_set_entry(c, 0, 0, &min_above_max, &err), SSLAT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("inconsistent"), std::string::npos) << err.message;
    sslat_entry no_samples = {2.0, 2.0, 2.0, 0, 2.0, 2.0, 0};
    EXPECT_EQ(sslat_container_set_entry(c, 0, 0, &no_samples, &err), SSLAT_ERR_INVALID_ARGUMENT);
    sslat_entry fine = {1.0, 1.0, 1.01, 0.1, 0.9, 1.3, 10};
    EXPECT_EQ(sslat_container_set_entry(c, 0, 0, &fine, &err), SSLAT_OK) << err.message;
    sslat_entry skip = {0, 0, 0, 0, 0, 0, 0}; // an op that never ran
    EXPECT_EQ(sslat_container_set_entry(c, 0, 1, &skip, &err), SSLAT_OK) << err.message;
    sslat_container_free(c);
}

TEST_F(RefusedNotGuessed, AnEnotPickleIsReadAsPickleLoadReadsIt)
{
    // (literals are split where a hex escape would swallow the next letter)
    // a key given twice: pickle.load keeps the last ('cpu'), so must sslat
    const std::string dup("\x80\x02}(X\x0c\x00\x00\x00latency_typeX\x03\x00\x00\x00macX\x0c\x00\x00\x00latency_type"
                          "X\x03\x00\x00\x00" "cpuX\x10\x00\x00\x00" "constant_latencyG?\xf8\x00\x00\x00\x00\x00\x00"
                          "X\x14\x00\x00\x00operations_latencies]]G?\xf0\x00\x00\x00\x00\x00\x00" "aau.",
                          124);
    ASSERT_EQ(run("import-enot " + write("dup.pkl", dup) + " -o " + path("dup.sslat")).code, 0);
    EXPECT_EQ(run("stats " + path("dup.sslat")).out.rfind("table         cpu", 0), 0u);
    // a key with an embedded NUL is not the key it starts with: refused, as any other key
    std::string nul = dup;
    const std::string first = std::string("X\x0c\x00\x00\x00latency_type", 17);
    nul.replace(nul.find(first), first.size(), std::string("X\x0e\x00\x00\x00latency_type\x00x", 19));
    Result r = run("import-enot " + write("nul.pkl", nul) + " -o " + path("nul.sslat"));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("unexpected key"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(path("nul.sslat")));
}

TEST_F(RefusedNotGuessed, ATableOfASweepIsCheckedAgainstItsSpaceAtItsInput)
{
    std::string space = example_path("proxylessnas.json"), table = path("b8.sslat");
    ASSERT_EQ(run("measure -c mac " + space + " --batch 8 --resolution 160 -o " + table).code, 0);
    Result r = run("stats " + table + " --space " + space);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--batch 8 --resolution 160x160"), std::string::npos) << r.err;
    EXPECT_EQ(run("stats " + table + " --space " + space + " --batch 8 --resolution 160").code, 0);
    EXPECT_EQ(run("report " + table + " --space " + space + " --batch 8 --resolution 160 -o " + path("r.html")).code, 0);
    ASSERT_EQ(run("export " + table + " --enot -o " + path("b8.pkl")).code, 0);
    EXPECT_EQ(run("import-enot " + path("b8.pkl") + " --space " + space + " --batch 8 --resolution 160 -o " +
                  path("back.sslat")).code, 0);
}

TEST_F(RefusedNotGuessed, ArgumentsAreRefusedNotGuessed)
{
    std::string space = example_path("fbnet.json"), table = path("t.sslat");
    ASSERT_EQ(run("measure -c mac " + space + " -o " + table).code, 0);
    Result r = run("sweep " + space + " -c mac --batch ,, -o " + path("sw"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("comma-separated"), std::string::npos) << r.err;
    std::string many;
    for (int i = 1; i <= 33; i++) many += (i > 1 ? "," : "") + std::to_string(i);
    r = run("sweep " + space + " -c mac --batch " + many + " -o " + path("sw"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("at most 32"), std::string::npos) << r.err;
    r = run("sweep " + space + " -c mac --dtype fp32,fp32 -o " + path("sw"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("given twice"), std::string::npos) << r.err;
    // Slurm variables: not a number is an error; a stepped array maps to its shard
    r = run("measure -c mac " + space + " -o " + path("s.sslat"), "SLURM_ARRAY_TASK_ID=abc SLURM_ARRAY_TASK_COUNT=3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("SLURM_ARRAY_TASK_ID='abc'"), std::string::npos) << r.err;
    r = run("measure -c mac " + space + " -o " + path("half.sslat"), "SLURM_ARRAY_TASK_ID=1");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("SLURM_ARRAY_TASK_COUNT is not"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(path("half.sslat")));
    r = run("measure -c mac " + space + " -o " + path("s.sslat"),
            "SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_STEP=3 SLURM_ARRAY_TASK_COUNT=3");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("a shard's part"), std::string::npos) << r.err;
    std::string zeros = "0";
    for (int b = 1; b < 22; b++) zeros += ",0";
    r = run("arch " + table + " '" + zeros + "]junk'");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unexpected 'junk'"), std::string::npos) << r.err;
    EXPECT_EQ(run("arch " + table + " '[" + zeros + "]'").code, 0);
    r = run("export " + table + " --json --csv");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("one of --json, --csv, --enot"), std::string::npos) << r.err;
}

} // namespace

TEST_F(RefusedNotGuessed, AnEnotMmacFileKeepsItsTypeUntilToldWhatItIs)
{
    // {'latency_type': 'mmac', 'constant_latency': 1.5, 'operations_latencies': [[1.0, 2.0]]}, protocol 2
    const std::string pickle("\x80\x02}(X\x0c\x00\x00\x00latency_typeX\x04\x00\x00\x00mmacX\x10\x00\x00\x00"
                             "constant_latencyG?\xf8\x00\x00\x00\x00\x00\x00X\x14\x00\x00\x00operations_latencies"
                             "]](G?\xf0\x00\x00\x00\x00\x00\x00G@\x00\x00\x00\x00\x00\x00\x00" "eau.",
                             110);
    std::string pkl = write("yolo.pkl", pickle);
    ASSERT_EQ(run("import-enot " + pkl + " -o " + path("m.sslat")).code, 0);
    Result stats = run("stats " + path("m.sslat"));
    EXPECT_EQ(stats.out.rfind("table         mmac (MMAC), space unknown", 0), 0u) << stats.out;
    EXPECT_NE(stats.out.find("batch unknown"), std::string::npos) << stats.out;
    // stats reads the pickle itself too (no "bad magic")
    EXPECT_EQ(run("stats " + pkl).out, stats.out);
    ASSERT_EQ(run("import-enot " + pkl + " --as mac_fvcore -o " + path("f.sslat")).code, 0);
    EXPECT_EQ(run("stats " + path("f.sslat")).out.rfind("table         mac_fvcore (MMAC)", 0), 0u);
    Result r = run("import-enot " + pkl + " --as cpu -o " + path("c.sslat"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("other unit"), std::string::npos) << r.err;
    // exported back, the file is ENOT's own again
    ASSERT_EQ(run("export " + path("f.sslat") + " --enot -o " + path("back.pkl")).code, 0);
    EXPECT_NE(read_file(path("back.pkl")).find("mmac"), std::string::npos);
    Result csv = run("export " + path("m.sslat") + " --csv");
    EXPECT_NE(csv.out.find("\n0,block 0,1,candidate 1,"), std::string::npos) << csv.out;
    EXPECT_EQ(run("show -c mmac.fvcore " + example_path("fbnet.json")).code, 0);
}

TEST_F(RefusedNotGuessed, EveryMessageNamesTheCommand)
{
    Result r = run("stats --sapce x");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("sslat stats: unrecognized option", 0), 0u) << r.err;
    r = run("help budget");
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind("usage: sslat budget", 0), 0u) << r.out;
}

// The cpu trust options: each misuse is exit 2 or 3 with its reason, before
// anything is measured, and leaves no table and no journal.
TEST_F(RefusedNotGuessed, CacheStrictAndReferenceMisuseIsRefusedBeforeMeasuring)
{
    std::string space = example_path("fbnet.json"), out = path("t.sslat");
    struct Case {
        std::string args, env;
        int code;
        const char *says;
    } cases[] = {
        {"measure -c cpu --cache warm " + space + " -o " + out, "", 2, "--cache is hot or cold, got 'warm'"},
        {"validate -c cpu --cache lukewarm " + space + " " + out, "", 2, "--cache is hot or cold"},
        {"measure -c mac --strict " + space + " -o " + out, "", 2, "--strict reads the cpu calculator's quality verdict"},
        {"measure -c cpu --reference onnxruntime " + space + " -o " + out, "", 2, "give --context N too"},
        {"measure -c cpu --context 20 --reference tvm " + space + " -o " + out, "", 2,
         "--reference is onnxruntime, torch, torch-default, torch-compile, got 'tvm'"},
        {"measure -c cpu --context 20 --reference onnxruntime " + space + " -o " + out,
         "SSLAT_PYTHON=" + path("no-python"), 3, "no Python at"},
    };
    for (const Case &c : cases) {
        Result r = run(c.args, c.env);
        EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_FALSE(exists(out)) << c.args;
        EXPECT_FALSE(exists(out + ".journal")) << c.args;
    }
}

TEST_F(RefusedNotGuessed, AnOptionTheCalculatorDoesNotReadIsRefusedAndLeavesNothing)
{
    std::string space = example_path("fbnet.json");
    for (const char *option : {"--layout nhwc", "--device 0", "--cold", "--cache cold"}) {
        Result r = run("measure -c mac " + space + " " + option + " -o " + path("t.sslat"));
        EXPECT_EQ(r.code, 2) << option;
        bool cache = strstr(option, "cold") != nullptr;
        EXPECT_NE(r.err.find(cache ? "applies to timed calculators (cpu, cuda), not mac"
                                   : "applies to the cuda calculator only, not mac"), std::string::npos) << r.err;
        EXPECT_FALSE(exists(path("t.sslat"))) << option;
        EXPECT_FALSE(exists(path("t.sslat.journal"))) << option << ": a refused run leaves no journal";
    }
    Result r = run("measure -c cpu " + space + " --fuse-bn -o " + path("t.sslat"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("fuse_bn"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(path("t.sslat.journal")));
}
