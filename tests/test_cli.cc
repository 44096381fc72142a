// The sslat command, run as a user would: output, exit codes, files it writes.
#include <gtest/gtest.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_fixture.h"
#include "helpers.h"

extern "C" {
#include "calc/calculator.h"
#include "ir/space.h"
}

namespace {

// Exit code of a cpu run that asks for what the cpu cannot do: 3 (unavailable).
int cpu_or_unavailable() { return 3; }

using Cli = CliFixture;

TEST_F(Cli, HelpOnEveryVerb)
{
    // every verb the usage lists (so a new verb is covered the day it is added)
    Result r = run("--help");
    EXPECT_EQ(r.code, 0);
    std::istringstream lines(r.out.substr(r.out.find("verbs:\n") + 7));
    std::vector<std::string> verbs;
    for (std::string line; std::getline(lines, line) && line.rfind("  ", 0) == 0;)
        verbs.push_back(line.substr(2, line.find(' ', 2) - 2));
    EXPECT_EQ(verbs.size(), 16u) << r.out;  // plot is the 16th
    for (const std::string &verb : verbs) {
        Result help = run(verb + " --help");
        EXPECT_EQ(help.code, 0) << verb;
        EXPECT_EQ(help.out.rfind("usage: sslat " + verb, 0), 0u) << verb << ": " << help.out;
        EXPECT_EQ(run("help " + verb).out, help.out) << verb;
        EXPECT_EQ(run(verb + " --no-such-option").code, 2) << verb;
    }
    EXPECT_NE(r.out.find("4 interrupted"), std::string::npos) << r.out;
    EXPECT_EQ(run("").code, 2);
    EXPECT_EQ(run("frobnicate").code, 2);
    EXPECT_EQ(run("show --no-such-option").code, 2);
    EXPECT_NE(run("--version").out.find(sslat_version()), std::string::npos);
}

TEST_F(Cli, ShowPrintsTotalsAndArchitectureCount)
{
    Result r = run("show " + example_path("fbnet.json"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("architectures    984770902183611232881 = 9^22"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ir_k5_e1_g2"), std::string::npos);
    r = run("show " + example_path("resnet50.json"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("total            params 25,557,032   MMACs 4089.18"), std::string::npos)
        << r.out;
    r = run("show -c mac_fvcore " + example_path("resnet50.json"));
    EXPECT_NE(r.out.find("MMACs 4111.51"), std::string::npos) << r.out;
    r = run("show --batch 2 --resolution 112 " + example_path("resnet50.json"));
    EXPECT_NE(r.out.find("input   2x3x112x112"), std::string::npos) << r.out;
    r = run("show --ops");  // the built-in default space, with primitives
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("mobilenet_v2_space (built-in default)"), std::string::npos);
    EXPECT_NE(r.out.find("dw_bn"), std::string::npos);
    EXPECT_NE(r.out.find("arch (* above)"), std::string::npos);
}

TEST_F(Cli, BadFileGivesOneLineAndExitCodeTwo)
{
    std::string path = write("bad.json", "{\"sslat\": 1,\n \"input\": {\"shape\": [3, 8, 8]},\n"
                                         " \"layers\": [\"cn_c16\", \"ir_k3_zz\"]}");
    Result r = run("show " + path);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "sslat: " + path + ": layers[1]: unknown option 'zz' in 'ir_k3_zz'\n");
    r = run("show " + write("syntax.json", "{\"sslat\": 1,\n  \"layers\": ]\n}"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("syntax.json:2:"), std::string::npos) << r.err;
    r = run("show " + dir + "/missing.json");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
    EXPECT_EQ(run("show --batch 0").code, 2);
    EXPECT_EQ(run("show --resolution 12y").code, 2);
}

TEST_F(Cli, MeasureWritesJsonEqualToTheLibrary)
{
    std::string out = dir + "/out.json";
    Result r = run("measure -c mac_fvcore " + example_path("proxylessnas.json") + " --json " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    json_error_t jerr;
    json_t *root = json_load_file(out.c_str(), 0, &jerr);
    ASSERT_NE(root, nullptr) << jerr.text;
    EXPECT_STREQ(json_string_value(json_object_get(root, "latency_type")), "mac_fvcore");
    EXPECT_STREQ(json_string_value(json_object_get(root, "unit")), "MMAC");
    json_t *ops = json_object_get(root, "operations_latencies");
    ASSERT_EQ(json_array_size(ops), 21u);

    sslat_space *space = load_example("proxylessnas.json");
    ASSERT_NE(space, nullptr);
    std::vector<double> per_op(21 * 7);
    double constant = 0;
    sslat_error err;
    ASSERT_EQ(sslat_mac_count(space, "mac_fvcore", nullptr, &constant, per_op.data(), per_op.size(), &err), SSLAT_OK);
    EXPECT_EQ(json_real_value(json_object_get(root, "constant_latency")), constant);  // 17 digits
    size_t at = 0;
    for (size_t b = 0; b < 21; b++) {
        json_t *row = json_array_get(ops, b);
        ASSERT_EQ((int32_t)json_array_size(row), sslat_space_candidate_count(space, (int32_t)b));
        for (size_t c = 0; c < json_array_size(row); c++)
            EXPECT_EQ(json_number_value(json_array_get(row, c)), per_op[at++]);
    }
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)sslat_space_hash(space));
    EXPECT_STREQ(json_string_value(json_object_get(json_object_get(root, "space"), "hash")), hash);
    sslat_space_free(space);
    json_decref(root);
}

TEST_F(Cli, MeasureDefaultsAndUnavailableCalculators)
{
    // built-in space, best calculator here (cpu when oneDNN loads: no leak
    // check, see tests/CMakeLists.txt)
    Result r = run("measure --runs 2 --warmup 1", "LSAN_OPTIONS=detect_leaks=0");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"operations_latencies\""), std::string::npos);
    const char *const *names = nullptr;
    int32_t count = sslat_available_calculators(&names);
    std::string best = std::string("calculator ") + names[count - 1] + " (the best available here";
    EXPECT_NE(r.err.find(best), std::string::npos) << r.err;

    // a calculator that cannot run here (on a machine with every backend, none)
    std::string out = dir + "/never.json";
    for (int i = 0; i < sslat_calculator_count(); i++) {
        const sslat_calculator *c = sslat_calculator_at(i);
        if (!sslat_calculator_unavailable(c)) continue;
        r = run(std::string("measure -c ") + c->name + " -o " + out);
        EXPECT_EQ(r.code, 3) << c->name;
        EXPECT_NE(r.err.find(std::string("calculator '") + c->name + "' cannot run"), std::string::npos) << r.err;
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "no file for a failed run";
    }
    EXPECT_EQ(run("measure -c nope").code, 2);
    EXPECT_EQ(run("measure --ignore softmax").code, 2);

    // an unwritable target: exit 1, and no temp file left behind
    r = run("measure -c mac -o " + dir + "/no/such/dir/out.json");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("no/such/dir/out.json"), std::string::npos) << r.err;  // fails before measuring
}

TEST_F(Cli, ContainerVerbsWorkTogether)
{
    std::string space = example_path("proxylessnas.json");
    std::string lat = dir + "/lat.sslat", json = dir + "/lat.json", csv = dir + "/lat.csv";
    Result r = run("measure -c mac " + space + " -o " + lat + " --json " + json + " --csv " + csv);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_file(csv).rfind("block,block_name,candidate,label,value", 0), 0u);

    r = run("stats " + lat + " --space " + space + " -n 500 --seed 3");
    EXPECT_EQ(r.code, 0) << r.err;
    for (const char *line : {"min ", "max ", "mean ", "median ", "p50 ", "argmin ", "architectures 221502229807900608"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << " in " << r.out;
    r = run("stats --json " + lat);
    json_error_t jerr;
    json_t *stats = json_loads(r.out.c_str(), 0, &jerr);
    ASSERT_NE(stats, nullptr) << r.out;
    EXPECT_EQ(json_array_size(json_object_get(stats, "argmin")), 21u);
    EXPECT_LT(json_real_value(json_object_get(stats, "min")), json_real_value(json_object_get(stats, "max")));
    json_decref(stats);
    r = run("stats " + lat + " --space " + example_path("fbnet.json"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("refusing statistics"), std::string::npos) << r.err;

    std::string arch = "0,1,2,3,4,5,6,0,1,2,3,4,5,6,0,1,2,3,4,5,0";
    r = run("arch " + lat + " " + arch);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("ir_k7_e3"), std::string::npos);
    EXPECT_NE(r.out.find("total"), std::string::npos);
    EXPECT_EQ(run("arch " + lat + " 0,1,2").code, 2);
    EXPECT_EQ(run("arch " + lat + " 0,x").code, 2);

    // export → import rebuilds the same bytes
    std::string exported = dir + "/again.json", rebuilt = dir + "/again.sslat";
    EXPECT_EQ(run("export " + lat + " --json -o " + exported).code, 0);
    EXPECT_EQ(read_file(exported), read_file(json));
    EXPECT_EQ(run("import " + exported + " -o " + rebuilt).code, 0);
    EXPECT_EQ(read_file(rebuilt), read_file(lat));
    EXPECT_EQ(run("export " + lat + " --csv").out, read_file(csv));

    r = run("budget " + lat + " --limit 250 --maximize " + lat);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("best by mac"), std::string::npos) << r.out;
    r = run("budget " + lat + " --limit 1");
    EXPECT_EQ(r.code, 0) << r.err;  // counting: none fit
    EXPECT_NE(r.out.find("0 to 0 fit"), std::string::npos) << r.out;
    r = run("budget " + lat + " --limit 1 --maximize " + lat);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("no architecture fits"), std::string::npos) << r.err;

    // a corrupted file: exit 2, one line naming the file
    std::string bytes = read_file(lat);
    bytes[bytes.size() / 2] ^= 0x10;
    std::string broken = write("broken.sslat", bytes);
    r = run("stats " + broken);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(broken + ": container: checksum mismatch"), std::string::npos) << r.err;
}

TEST_F(Cli, ShardedMeasureAndMerge)
{
    std::string space = example_path("ofa_mobilenet_v3.json"), whole = dir + "/whole.sslat";
    ASSERT_EQ(run("measure -c mac_fvcore " + space + " -o " + whole).code, 0);
    std::string parts;
    for (int i = 0; i < 3; i++) {
        std::string part = dir + "/part" + std::to_string(i) + ".sslat";
        // the shard comes from Slurm's job-array variables (an array 5-7)
        std::string env = "SLURM_ARRAY_TASK_ID=" + std::to_string(5 + i) + " SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3";
        Result r = run("measure -c mac_fvcore " + space + " -o " + part, env);
        ASSERT_EQ(r.code, 0) << r.err;
        parts += " " + part;
    }
    Result r = run("stats " + dir + "/part0.sslat");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("shard 0/3"), std::string::npos) << r.err;
    std::string merged = dir + "/merged.sslat";
    r = run("merge" + parts + " -o " + merged);
    ASSERT_EQ(r.code, 0) << r.err;
    // the same statistics as the unsharded run
    EXPECT_EQ(run("stats --json " + merged).out.substr(0, 400), run("stats --json " + whole).out.substr(0, 400));
    r = run("merge " + dir + "/part0.sslat " + dir + "/part2.sslat -o " + dir + "/bad.sslat");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("missing 1/3"), std::string::npos) << r.err;
    struct stat st;
    EXPECT_NE(stat((dir + "/bad.sslat").c_str(), &st), 0);
    EXPECT_EQ(run("measure -c mac --shard 3/3 -o x.sslat").code, 2);
    EXPECT_EQ(run("measure -c mac --shard 0/2").code, 2);  // a part needs -o
}

TEST_F(Cli, JournalResumeDropsATornRecordAndRefusesAnotherRun)
{
    std::string out = dir + "/lat.sslat", journal = out + ".journal";
    Result r = run("measure -c mac_thop " + example_path("fbnet.json") + " -o " + out + " --keep-journal");
    ASSERT_EQ(r.code, 0) << r.err;
    std::string complete = read_file(journal);
    EXPECT_EQ((complete.size() - 24) % 168, 0u);
    // a torn record at the end (a kill in the middle of a write)
    write("lat.sslat.journal", complete + std::string("SJRN\x3c\x00\x00\x00partial", 15));
    r = run("measure -c mac_thop " + example_path("fbnet.json") + " -o " + out + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming: " + std::to_string((complete.size() - 24) / 168) + " units"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("torn last record was dropped"), std::string::npos) << r.err;
    struct stat st;
    EXPECT_NE(stat(journal.c_str(), &st), 0) << "removed once the table is written";
    // a journal of another run is refused, not mixed in
    write("lat.sslat.journal", complete);
    r = run("measure -c mac " + example_path("fbnet.json") + " -o " + out + " --resume");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("journal of another run"), std::string::npos) << r.err;
    EXPECT_EQ(run("measure -c mac --resume").code, 2);  // needs -o
}

TEST_F(Cli, SweepWritesOnePointPerTableAndASummary)
{
    std::string out = dir + "/sweep";
    Result r = run("sweep " + example_path("mobilenet_v2_space.json") +
                   " -c mac --batch 1,2,4 --resolution 160,224 -o " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    std::string summary = read_file(out + "/summary.csv");
    EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 1 + 6) << summary;
    EXPECT_NE(summary.find("b4_r160_fp32,4,160,fp32,MMAC,"), std::string::npos) << summary;
    EXPECT_NE(read_file(out + "/summary.jsonl").find("\"space_arch\":"), std::string::npos);
    sslat_container *c = nullptr;
    ASSERT_EQ(sslat_container_load_from_file((out + "/b2_r224_fp32.sslat").c_str(), &c, nullptr), SSLAT_OK);
    EXPECT_EQ(sslat_container_batch(c), 2);
    // MACs scale with the batch: batch 2 at 224 is twice batch 1 at 224
    sslat_container *one = nullptr;
    ASSERT_EQ(sslat_container_load_from_file((out + "/b1_r224_fp32.sslat").c_str(), &one, nullptr), SSLAT_OK);
    EXPECT_DOUBLE_EQ(sslat_container_constant_latency(c), 2 * sslat_container_constant_latency(one));
    sslat_container_free(c);
    sslat_container_free(one);
    // run again: every point is kept, not measured again
    r = run("sweep " + example_path("mobilenet_v2_space.json") + " -c mac --batch 1,2,4 --resolution 160,224 -o " + out);
    size_t kept = 0;
    for (size_t at = r.out.find("(kept)"); at != std::string::npos; at = r.out.find("(kept)", at + 1)) kept++;
    EXPECT_EQ(kept, 6u) << r.out;
    // other options are another table: refused before anything runs, the earlier tables kept
    std::string earlier = read_file(out + "/b2_r224_fp32.sslat");
    r = run("sweep " + example_path("mobilenet_v2_space.json") +
            " -c mac --runs 3 --batch 1,2,4 --resolution 160,224 -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("6 earlier tables in " + out + " would be replaced: nothing was measured"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--restart"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(out + "/b2_r224_fp32.sslat: it was made by another run"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(out + "/b2_r224_fp32.sslat"), earlier);
    // --restart replaces them
    r = run("sweep " + example_path("mobilenet_v2_space.json") +
            " -c mac --runs 3 --batch 1,2,4 --resolution 160,224 --restart -o " + out);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("(kept)"), std::string::npos) << r.out;
    EXPECT_EQ(run("sweep -c cpu --dtype fp16 -o " + out).code, cpu_or_unavailable());
    r = run("sweep -c mac --batch 1,0 -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--batch must be a whole number in 1..65536, got '0'"), std::string::npos) << r.err;
    r = run("sweep -c mac --dtype int8 -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("'int8' is unknown"), std::string::npos) << r.err;
    r = run("sweep -c mac --batch 1");
    EXPECT_EQ(r.code, 2);  // no -o DIR
}

// sslat show: every row's params and MMACs end under their headers, however
// long a shape (resnet50's 1x1024x14x14) or a label (yolov5s_ss's sequences).
TEST_F(Cli, ShowColumnsAreSizedToTheirContent)
{
    for (const char *space : {"resnet50.json", "yolov5s_ss.json", "fbnet.json"}) {
        Result r = run("show " + example_path(space));
        ASSERT_EQ(r.code, 0) << r.err;
        size_t header = r.out.find("   #   layer / block");
        ASSERT_NE(header, std::string::npos) << r.out;
        std::string head = r.out.substr(header, r.out.find('\n', header) - header);
        size_t params_end = head.find("params") + 6, macs_end = head.size();
        size_t rows = 0;
        for (size_t at = header + head.size() + 1; at < r.out.size() && r.out[at] != '\n';
             at = r.out.find('\n', at) + 1) {
            std::string row = r.out.substr(at, r.out.find('\n', at) - at);
            ASSERT_EQ(row.size(), macs_end) << space << ": " << row;
            EXPECT_TRUE(isdigit((unsigned char)row[params_end - 1]) && row[params_end] == ' ') << space << ": " << row;
            rows++;
        }
        EXPECT_GT(rows, 10u) << space;
    }
}

// Split one CSV line without quoted fields (a MAC sweep's summary has none).
std::vector<std::string> csv_fields(const std::string &line)
{
    std::vector<std::string> fields(1);
    for (char c : line) {
        if (c == ',') fields.emplace_back();
        else fields.back() += c;
    }
    return fields;
}

std::string joined(const std::vector<int32_t> &arch)
{
    std::string text;
    for (size_t b = 0; b < arch.size(); b++) text += (b ? ";" : "") + std::to_string(arch[b]);
    return text;
}

// Per point: the real fastest architecture, and the best under each --budget,
// as the library answers them from the point's own table; a cross-point page.
TEST_F(Cli, SweepAnswersThePointsFastestAndBestUnderEachBudget)
{
    std::string out = dir + "/answers";
    Result r = run("sweep " + example_path("mobilenet_v2_space.json") +
                   " -c mac --batch 1,4 --resolution 128,224 --budget 300,900 -o " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    std::string summary = read_file(out + "/summary.csv");
    std::vector<std::string> head = csv_fields(summary.substr(0, summary.find('\n')));
    auto column = [&](const std::string &name) {
        return (size_t)(std::find(head.begin(), head.end(), name) - head.begin());
    };
    ASSERT_LT(column("budget_900_arch"), head.size()) << summary;
    size_t lines = 0;
    bool some_change = false;
    std::string first_best;
    for (size_t at = summary.find('\n') + 1; at < summary.size(); at = summary.find('\n', at) + 1) {
        std::vector<std::string> row = csv_fields(summary.substr(at, summary.find('\n', at) - at));
        ASSERT_EQ(row.size(), head.size());
        lines++;
        sslat_container *table = nullptr;
        ASSERT_EQ(sslat_container_load_from_file((out + "/" + row[0] + ".sslat").c_str(), &table, nullptr), SSLAT_OK);
        int32_t blocks = sslat_container_block_count(table);
        std::vector<int32_t> arch(blocks);
        ASSERT_EQ(sslat_argmin_arch(table, arch.data(), blocks, nullptr), SSLAT_OK);
        EXPECT_EQ(row[column("argmin_arch")], joined(arch)) << row[0];
        EXPECT_EQ(row[column("figures")], "MMAC for the whole batch of " + row[1]);
        // with -c mac the value table is the point's own table
        sslat_budget_result best;
        if (sslat_budget_maximize(table, table, 900, 0, arch.data(), blocks, &best, nullptr) == SSLAT_OK) {
            EXPECT_EQ(row[column("budget_900_arch")], joined(arch)) << row[0];
            if (first_best.empty()) first_best = joined(arch);
            some_change = some_change || joined(arch) != first_best;
        } else {
            EXPECT_EQ(row[column("budget_900_arch")], "") << "nothing fits: no architecture named";
        }
        sslat_container_free(table);
    }
    EXPECT_EQ(lines, 4u);
    // the page marks each distinct best by a letter and counts where it changes
    std::string page = read_file(out + "/summary.html");
    EXPECT_NE(page.find("<th>most mac within 900 MMAC</th>"), std::string::npos) << page;
    EXPECT_NE(page.find("id=\"changes-2\">"), std::string::npos);
    EXPECT_EQ(page.find("id=\"changes-2\">0<") == std::string::npos, some_change);
    EXPECT_NE(r.out.find("figures are MMAC for each point's whole batch"), std::string::npos) << r.out;
    r = run("sweep -c mac --budget 0 -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--budget takes comma-separated positive numbers"), std::string::npos) << r.err;
    r = run("sweep -c mac --budget 1 --value cpu -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("analytic"), std::string::npos) << r.err;
    r = run("sweep -c mac --budget 300,300.0000001 -o " + out);  // two columns of one name
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--budget: 300 is given twice"), std::string::npos) << r.err;
    r = run("sweep -c mac --value mac_thop -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("give --budget too"), std::string::npos) << r.err;
    // nothing fits anywhere: said, not "the same architecture at every point"
    r = run("sweep " + example_path("mobilenet_v2_space.json") + " -c mac --batch 1 --resolution 128 --budget 1 -o " +
            dir + "/none");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("nothing fits at any point"), std::string::npos) << r.out;
}

TEST_F(Cli, MpirunGathersOneTableEqualToASingleProcessRun)
{
#ifndef SSLAT_MPIEXEC
    GTEST_SKIP() << "built without MPI";
#else
    // CI runs as root: Open MPI wants that said explicitly
    std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LSAN_OPTIONS=detect_leaks=0 " +
                         std::string(SSLAT_MPIEXEC) + " -np 2 --oversubscribe";
    std::string space = example_path("fbnet.json"), gathered = dir + "/mpi.sslat", single = dir + "/single.sslat";
    auto sh = [](const std::string &command) { return exit_code(std::system(command.c_str())); };
    ASSERT_EQ(sh(mpirun + " " + SSLAT_CLI_PATH + " measure -c mac " + space + " -o " + gathered + " 2>/dev/null"), 0);
    ASSERT_EQ(run("measure -c mac " + space + " -o " + single).code, 0);
    sslat_container *a = nullptr, *b = nullptr;
    ASSERT_EQ(sslat_container_load_from_file(gathered.c_str(), &a, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_container_load_from_file(single.c_str(), &b, nullptr), SSLAT_OK);
    EXPECT_STREQ(sslat_container_metadata(a, "mpi.ranks"), "2");
    EXPECT_EQ(sslat_container_constant_latency(a), sslat_container_constant_latency(b));
    for (int32_t blk = 0; blk < sslat_container_block_count(b); blk++)
        for (int32_t c = 0; c < sslat_container_candidate_count(b, blk); c++)
            EXPECT_EQ(sslat_container_latency(a, blk, c), sslat_container_latency(b, blk, c));
    sslat_container_free(a);
    sslat_container_free(b);
    // the cpu calculator: every entry gathered
    const bool cpu_here = sslat_available_calculators(nullptr) > 4;
    if (cpu_here) {
        std::string timed = dir + "/cpu.sslat";
        ASSERT_EQ(sh(mpirun + " " + SSLAT_CLI_PATH + " measure -c cpu --threads 1 --runs 3 --warmup 1 " +
                     example_path("mobilenet_v2_space.json") + " -o " + timed + " 2>/dev/null"), 0);
        ASSERT_EQ(sslat_container_load_from_file(timed.c_str(), &a, nullptr), SSLAT_OK);
        for (int32_t blk = 0; blk < sslat_container_block_count(a); blk++)
            for (int32_t c = 0; c < sslat_container_candidate_count(a, blk); c++)
                if (std::string(sslat_container_candidate_label(a, blk, c)) != "skip") {
                    EXPECT_GT(sslat_container_latency(a, blk, c), 0.0) << blk << "/" << c;
                }
        sslat_container_free(a);
    }
    // every rank needs -o on rank 0's side, and no --shard
    EXPECT_NE(sh(mpirun + " " + SSLAT_CLI_PATH + " measure -c mac --shard 0/2 -o " + dir + "/x.sslat 2>/dev/null"), 0);
#endif
}

TEST_F(Cli, EnotImportAndExport)
{
    std::string pkl = std::string(SSLAT_TEST_DATA_DIR) + "/enot/numpy_p3.pkl", out = dir + "/enot.sslat";
    Result r = run("import-enot " + pkl + " -o " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(run("stats " + out).out.find("min           13.001 MMAC"), std::string::npos);
    r = run("import-enot " + std::string(SSLAT_TEST_DATA_DIR) + "/enot/evil_p4.pkl -o " + dir + "/evil.sslat");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("refusing global posix.system"), std::string::npos) << r.err;
    // binding to a space whose blocks differ is refused
    r = run("import-enot " + pkl + " -o " + dir + "/bound.sslat --space " + example_path("fbnet.json"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("22 NAS blocks, the table 3"), std::string::npos) << r.err;
    std::string again = dir + "/again.pkl";
    ASSERT_EQ(run("export " + out + " --enot -o " + again).code, 0);
    EXPECT_EQ(run("import-enot " + again + " -o " + dir + "/again.sslat").code, 0);
    EXPECT_EQ(run("export " + out + " --enot").code, 2);  // a pickle needs -o
}

TEST_F(Cli, ValidateRefusesAnotherKindOfTable)
{
    if (sslat_available_calculators(nullptr) <= 4) GTEST_SKIP() << "no cpu calculator in this build";
    std::string lat = dir + "/mac.sslat";
    ASSERT_EQ(run("measure -c mac " + example_path("proxylessnas.json") + " -o " + lat).code, 0);
    Result r = run("validate -c cpu " + example_path("proxylessnas.json") + " " + lat);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("is a 'mac' table, not 'cpu'"), std::string::npos) << r.err;
    Result cuda = run("validate -c cuda " + example_path("proxylessnas.json") + " " + lat);
    EXPECT_EQ(cuda.code, 2);
    EXPECT_NE(cuda.err.find("is a 'mac' table, not 'cuda'"), std::string::npos) << cuda.err;
    EXPECT_EQ(run("validate -c gpu " + example_path("proxylessnas.json") + " " + lat).code, 2);
    EXPECT_EQ(run("validate -c cpu " + example_path("proxylessnas.json")).code, 2);  // no table
}

TEST_F(Cli, CalculatorsListsAllSix)
{
    Result r = run("calculators");
    EXPECT_EQ(r.code, 0);
    for (const char *name : {"mac ", "mac_thop", "mac_fvcore", "mac_pthflops", "cpu ", "cuda "})
        EXPECT_NE(r.out.find(name), std::string::npos) << name;
    // the cuda line says why it cannot run here: no device, or no CUDA in the build
    size_t cuda = r.out.find("\ncuda ");
    ASSERT_NE(cuda, std::string::npos);
    std::string line = r.out.substr(cuda + 1, r.out.find('\n', cuda + 1) - cuda - 1);
    if (line.find("available") == std::string::npos || line.find(" no ") != std::string::npos) {
        EXPECT_TRUE(line.find("no CUDA device") != std::string::npos || line.find("has no CUDA") != std::string::npos ||
                    line.find("cannot be loaded") != std::string::npos)
            << line;
    }
}

TEST_F(Cli, CudaWithoutADeviceIsAClearErrorAndWritesNothing)
{
    Result calculators = run("calculators");
    if (calculators.out.find("\ncuda          timed     ms    available") != std::string::npos)
        GTEST_SKIP() << "a CUDA device is present";
    std::string out = dir + "/cuda.sslat";
    Result r = run("measure -c cuda " + std::string(SSLAT_EXAMPLES_DIR) + "/proxylessnas.json -o " + out);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("calculator 'cuda' cannot run"), std::string::npos) << r.err;
    EXPECT_NE(std::system(("test -e " + out).c_str()), 0) << "no table from a failed run";
    // validate -c cuda on a cuda-typed table of the space: the same reason, exit 3
    std::string space = std::string(SSLAT_EXAMPLES_DIR) + "/proxylessnas.json";
    ASSERT_EQ(run("measure -c mac " + space + " --json " + dir + "/mac.json").code, 0);
    std::string text = read_file(dir + "/mac.json");
    for (auto [from, to] : {std::pair<std::string, std::string>{"\"mac\"", "\"cuda\""}, {"\"MMAC\"", "\"ms\""}})
        for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    write("cuda.json", text);
    ASSERT_EQ(run("import " + dir + "/cuda.json -o " + dir + "/typed.sslat").code, 0);
    Result v = run("validate -c cuda " + space + " " + dir + "/typed.sslat -k 1");
    EXPECT_EQ(v.code, 3) << v.err;
    EXPECT_TRUE(v.err.find("no CUDA device") != std::string::npos || v.err.find("has no CUDA") != std::string::npos ||
                v.err.find("cannot be loaded") != std::string::npos)
        << v.err;
    Result bad = run("measure -c cuda --dtype fp8 " + std::string(SSLAT_EXAMPLES_DIR) + "/proxylessnas.json");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("--dtype is fp32, tf32, fp16 or bf16"), std::string::npos) << bad.err;
    Result layout = run("measure -c cuda --layout chwn " + std::string(SSLAT_EXAMPLES_DIR) + "/proxylessnas.json");
    EXPECT_EQ(layout.code, 2);
    EXPECT_NE(layout.err.find("--layout is nchw or nhwc"), std::string::npos) << layout.err;
    Result device = run("measure -c cuda --device gpu0 " + std::string(SSLAT_EXAMPLES_DIR) + "/proxylessnas.json");
    EXPECT_EQ(device.code, 2);
    EXPECT_NE(device.err.find("--device is a GPU index"), std::string::npos) << device.err;
}

}  // namespace

namespace {

class CliReport : public Cli {};

TEST_F(CliReport, WritesEverySectionAndRefusesBadInputs)
{
    std::string space = example_path("ofa_mobilenet_v3.json"), lat = dir + "/fv.sslat", mac = dir + "/mac.sslat";
    ASSERT_EQ(run("measure -c mac_fvcore " + space + " -o " + lat).code, 0);
    ASSERT_EQ(run("measure -c mac " + space + " -o " + mac).code, 0);
    std::string validation = write("v.json", "{\"architectures\": [{\"label\": \"min\", \"predicted_ms\": 1.0, "
                                             "\"measured_ms\": 1.1}, {\"label\": \"max\", \"predicted_ms\": 2.0, "
                                             "\"measured_ms\": 1.9}, {\"predicted_ms\": 1.5, \"measured_ms\": 1.5}]}");
    std::string page = dir + "/r.html";
    Result r = run("report " + lat + " --space " + space + " --mac " + mac + " --validation " + validation +
                   " --samples 2000 -o " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    std::string html = read_file(page);
    for (const char *id : {"id=\"heatmap\"", "id=\"histogram\"", "id=\"mac-scatter\"", "id=\"validation-scatter\"",
                           "34867844010000000000", "3 architectures. MAPE"})
        EXPECT_NE(html.find(id), std::string::npos) << id;
    size_t cells = 0;
    for (size_t at = html.find("<g class=\"cell\">"); at != std::string::npos; at = html.find("<g class=\"cell\">", at + 1))
        cells++;
    EXPECT_EQ(cells, 190u);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    std::string bad = write("bad.json", "{\"architectures\": [{\"predicted_ms\": 1, \"measured_ms\": 0}]}");
    std::string other = dir + "/other.html";
    Result b = run("report " + lat + " --validation " + bad + " -o " + other);
    EXPECT_EQ(b.code, 2);
    EXPECT_NE(b.err.find("architectures[0].measured_ms"), std::string::npos) << b.err;
    EXPECT_EQ(run("report " + lat + " --arch 99 -o " + other).code, 2);
    EXPECT_EQ(run("report " + lat).code, 2); // no -o
    EXPECT_NE(std::system(("test -e " + other).c_str()), 0) << "nothing written on bad input";
}

} // namespace

namespace {

TEST(ShowIr, EveryCandidateWithItsNodesAndShapes)
{
    std::string out = "/tmp/sslat-ir-" + std::to_string(getpid()) + ".json";
    ASSERT_EQ(std::system((std::string(SSLAT_CLI_PATH) + " show --ir " + example_path("ofa_mobilenet_v3.json") +
                           " --batch 8 > " + out).c_str()),
              0);
    json_error_t jerr;
    json_t *root = json_load_file(out.c_str(), 0, &jerr);
    ASSERT_NE(root, nullptr) << jerr.text;
    sslat_space_options options = {8, 0, 0};
    sslat_space *space = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_space_load_file(example_path("ofa_mobilenet_v3.json").c_str(), &options, &space, &err), SSLAT_OK);
    json_t *layers = json_object_get(root, "layers");
    ASSERT_EQ((int32_t)json_array_size(layers), space->n_layers);
    for (int32_t i = 0; i < space->n_layers; i++) {
        json_t *candidates = json_object_get(json_array_get(layers, i), "candidates");
        ASSERT_EQ((int32_t)json_array_size(candidates), space->layers[i].n_candidates);
        for (int32_t c = 0; c < space->layers[i].n_candidates; c++) {
            const sslat_graph *g = &space->layers[i].candidates[c].graph;
            json_t *nodes = json_object_get(json_array_get(candidates, c), "nodes");
            ASSERT_EQ((int32_t)json_array_size(nodes), g->count);
            if (g->count == 0) continue;
            json_t *shape = json_object_get(json_array_get(nodes, g->count - 1), "shape");
            sslat_shape s = sslat_graph_output(g);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 0)), 8);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 1)), s.c);
            EXPECT_EQ(json_integer_value(json_array_get(shape, 2)), s.h);
        }
    }
    json_decref(root);
    sslat_space_free(space);
    std::remove(out.c_str());
}

} // namespace

namespace {

// The third probe's Low list: options that do not apply, repeated or mixed
// outputs, lists with empty items, long values: each refused with a message
// that names it, exit 2, nothing written.
TEST_F(Cli, OptionsThatDoNotApplyRepeatOrMixAreRefusedByName)
{
    std::string fbnet = example_path("fbnet.json");
    const struct {
        std::string args, says;
    } cases[] = {
        {"measure -c cpu " + fbnet + " --ignore batchnorm -o " + dir + "/x.sslat", "ignore leaves op kinds out"},
        {"measure -c cpu " + fbnet + " --profile -o " + dir + "/x.sslat", "cuda calculator only"},
        {"measure -c mac -c cpu " + fbnet + " -o " + dir + "/x.sslat", "-c is given twice"},
        {"measure -c mac " + fbnet + " -o " + dir + "/x.sslat -o " + dir + "/y.sslat", "-o is given twice"},
        {"measure -c mac " + fbnet + " --json - --csv -", "two formats on standard output"},
        {"sweep " + fbnet + " -c mac -o " + dir + "/a -o " + dir + "/b", "-o is given twice"},
        {"measure -c mac " + fbnet + " --ignore batchnorm,,act -o " + dir + "/x.sslat", "empty item"},
        {"measure -c mac " + fbnet + " --ignore batchnorm, -o " + dir + "/x.sslat", "empty item"},
        {"export-onnx " + fbnet + " --arch 0,0, -o " + dir + "/x.onnx", "a comma with no index"},
        {"show " + fbnet + " --resolution 1234567890123456789012345678901234567890", "--resolution takes H or HxW"},
    };
    for (const auto &c : cases) {
        Result r = run(c.args);
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    }
    struct stat st;
    for (const char *name : {"x.sslat", "y.sslat", "x.sslat.journal", "x.onnx", "a", "b"})
        EXPECT_NE(stat((dir + "/" + name).c_str(), &st), 0) << name << " was written";
}

TEST_F(Cli, GraphRowNamesAreUniqueAndNeverInput)
{
    const struct {
        std::string layers, says;
    } cases[] = {
        {R"({"op": "conv", "c": 8, "name": "a"}, {"op": "conv", "c": 8, "name": "a"})", "is layers[0]'s too"},
        {R"({"op": "conv", "c": 8, "name": "input"})", "network's input"},
    };
    for (const auto &c : cases) {
        Result r = run("show " + write("g.json", space_json(c.layers)));
        EXPECT_EQ(r.code, 2) << c.layers << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
    // one network graph holds 4,096 operations: a longer architecture is
    // refused where a whole graph is built, saying so (not blaming a layer)
    std::string rows = "\"cn_c8\"";
    for (int i = 1; i < 1400; i++) rows += ", \"cn_c8\"";
    std::string long_space = write("long.json", space_json(rows));
    EXPECT_EQ(run("show " + long_space).code, 0);
    Result r = run("export-onnx " + long_space + " -o " + dir + "/long.onnx");
    EXPECT_NE(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("the architecture has more than 4096 operations"), std::string::npos) << r.err;
}

TEST_F(Cli, TablesWithAZeroInputOrUnknownJsonKeysAreRefused)
{
    std::string table = dir + "/t.sslat", json = dir + "/t.json";
    ASSERT_EQ(run("measure -c mac " + example_path("fbnet.json") + " -o " + table + " --json " + json).code, 0);
    std::string text = read_file(json);
    const struct {
        std::string from, to, says;
    } edits[] = {
        {"\"sslat_container\": 1,", "\"sslat_container\": 1, \"units\": \"ms\",", "unknown key"},
        {"\"unit\": \"MMAC\"", "\"unit\": \"ms\"", "unit does not match"},
        {"\"input\": [\n   1,", "\"input\": [\n   0,", "zero dimension"},
    };
    for (const auto &e : edits) {
        size_t at = text.find(e.from);
        ASSERT_NE(at, std::string::npos) << e.from;
        std::string edited = text;
        edited.replace(at, e.from.size(), e.to);
        Result r = run("import " + write("e.json", edited) + " -o " + dir + "/e.sslat");
        EXPECT_EQ(r.code, 2) << e.to << "\n" << r.err;
        EXPECT_NE(r.err.find(e.says), std::string::npos) << r.err;
    }
}

TEST_F(Cli, AWritePastTheFileSizeLimitSaysSoAndLeavesNoTemporary)
{
    // SIGXFSZ once killed every writer silently (exit 153) and left .sslat-tmp-*
    std::string keep = write("keep.sslat", "the previous table");
    Result r = run("measure -c mac " + example_path("mobilenet_v2_space.json") + " -o " + keep + " --json " + dir +
                   "/t.json", "ulimit -f 1;");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(keep), "the previous table");
    EXPECT_EQ(std::system(("ls -a " + dir + " | grep -q sslat-tmp").c_str()) == 0, false) << "a temporary was left";
}

} // namespace

namespace {

TEST_F(Cli, AReportOfATableWhoseSumsOverflowSaysSo)
{
    // probe turn 4: the summary row read "1e+308 / -nan (± -nan) / inf / inf MMAC"
    const double blocks[] = {1e308, 1.0, 1e308, 2.0}; // two blocks of two, flattened
    const int32_t counts[] = {2, 2};
    sslat_container *c = nullptr;
    sslat_error err;
    ASSERT_EQ(sslat_container_create("mac", 1e308, blocks, counts, 2, &c, &err), SSLAT_OK) << err.message;
    std::string table = dir + "/big.sslat", page = dir + "/r.html";
    ASSERT_EQ(sslat_container_save_to_file(c, table.c_str(), &err), SSLAT_OK) << err.message;
    sslat_container_free(c);
    Result r = run("report " + table + " -o " + page);
    ASSERT_EQ(r.code, 0) << r.err;
    std::string html = read_file(page);
    EXPECT_NE(html.find("overflow: the table"), std::string::npos);
    EXPECT_EQ(html.find("nan"), std::string::npos) << "no NaN shown anywhere";
}

} // namespace

// Control bytes in a space's name, a block's name or a label reach neither the
// terminal nor a CSV raw: every verb that prints them writes \xNN.
TEST_F(Cli, ControlBytesFromAFileAreEscapedInEveryTextAndCsvOutput)
{
    std::string space = write("esc.json", "{\"sslat\": 1, \"name\": \"x\\u001b[31m\\u007f\\u009b\", \"input\": {\"shape\": [3, 32, 32]},"
                                          " \"layers\": [\"cn_k3_s2_c8\", {\"name\": \"b\\u0007\", \"choice\":"
                                          " [\"cn_k3_c8\", \"skip\"], \"c\": 8}, \"gap\", \"fc10\"]}");
    std::string table = path("esc.sslat");
    Result measured = run("measure -c mac " + space + " -o " + table);
    ASSERT_EQ(measured.code, 0) << measured.err;
    const std::vector<std::string> commands = {"show " + space, "stats " + table, "pareto " + table + " " + table,
                                               "arch " + table + " 1", "export " + table + " --csv",
                                               "pareto " + table + " " + table + " --csv",
                                               "budget " + table + " --limit 100 --maximize " + table + " --top 2 --csv",
                                               "export " + table + " --json", "arch " + table + " 1 --json",
                                               "show " + space + " --ir"};
    for (const std::string &args : commands) {
        Result r = run(args);
        EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
        for (const std::string *text : {&r.out, &r.err}) {
            EXPECT_EQ(text->find('\x1b'), std::string::npos) << args << ":\n" << *text;
            EXPECT_EQ(text->find('\x07'), std::string::npos) << args << ":\n" << *text;
            EXPECT_EQ(text->find('\x7f'), std::string::npos) << args << ":\n" << *text;  // DEL
            EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos) << args << ":\n" << *text;  // C1 CSI
        }
    }
    EXPECT_EQ(measured.err.find('\x1b'), std::string::npos) << measured.err;
    EXPECT_NE(run("show " + space).out.find("x\\x1b[31m"), std::string::npos);
    EXPECT_NE(run("arch " + table + " 1").out.find("b\\x07"), std::string::npos);
}

// Contradictory or misread options and messages of the fourth probe: the cache
// mode given twice is refused (never the last one winning); a second table
// refused by report for its own reason says that reason, not its space; the
// JSON of a front whose sums overflow names them.
TEST_F(Cli, TheCacheModeOnceAndSecondTablesRefusedForTheirOwnReason)
{
    std::string space = example_path("fbnet.json");
    for (const char *twice : {"--cache hot --cold", "--cold --cache hot", "--cache cold --cache hot"}) {
        Result r = run("measure -c cpu " + space + " " + twice + " -o " + path("t.sslat"));
        EXPECT_EQ(r.code, 2) << twice;
        EXPECT_NE(r.err.find("the cache mode is given twice"), std::string::npos) << r.err;
    }
    std::string mac = path("mac.sslat");
    ASSERT_EQ(run("measure -c mac " + space + " -o " + mac).code, 0);
    std::string exported = run("export " + mac + " --json").out;
    std::string marked = exported;
    size_t at = marked.find("\"metadata\": {");
    ASSERT_NE(at, std::string::npos);
    marked.insert(at + 13, "\"quality.failed_entries\": \"0:1\", ");
    write("inc.json", marked);
    ASSERT_EQ(run("import " + path("inc.json") + " -o " + path("inc.sslat")).code, 0);
    for (const char *option : {"--value", "--mac"}) {
        Result r = run("report " + mac + " " + option + " " + path("inc.sslat") + " -o " + path("r.html"));
        EXPECT_EQ(r.code, 2) << option;
        EXPECT_NE(r.err.find("the table is incomplete"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("is a table of space"), std::string::npos) << r.err;
    }
}

TEST_F(Cli, AFrontWhoseSumsOverflowNamesThemInJson)
{
    const int32_t counts[3] = {2, 2, 2};
    const double huge[6] = {1e308, 1.5e308, 1e308, 1.5e308, 1e308, 1.5e308};
    const double values[6] = {1, 2, 1, 2, 1, 2};
    sslat_container *latency = nullptr, *value = nullptr;
    ASSERT_EQ(sslat_container_create("cpu", 0, huge, counts, 3, &latency, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_container_create("mac", 0, values, counts, 3, &value, nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_container_save_to_file(latency, path("l.sslat").c_str(), nullptr), SSLAT_OK);
    ASSERT_EQ(sslat_container_save_to_file(value, path("v.sslat").c_str(), nullptr), SSLAT_OK);
    sslat_container_free(latency);
    sslat_container_free(value);
    Result r = run("pareto " + path("l.sslat") + " " + path("v.sslat") + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"overflow\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"latency\""), std::string::npos) << r.out;
}
