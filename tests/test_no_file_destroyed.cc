// No file is destroyed: an output that is an
// input, a journal behind a symbolic link, device nodes and FIFOs, names too
// long, two runs on one output, a damaged or foreign journal. Special files
// are private ones in the test's own folder, never the system's.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <string>
#include <thread>

#include "cli_fixture.h"
#include "helpers.h"

namespace {

using NoFileDestroyed = CliFixture;

bool exists(const std::string &p)
{
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
}

TEST_F(NoFileDestroyed, AnOutputThatIsAnInputIsRefusedAndTheInputKept)
{
    std::string space = write("space.json", read_file(example_path("proxylessnas.json")));
    std::string table = path("t.sslat");
    ASSERT_EQ(run("measure -c mac " + space + " -o " + table).code, 0);
    const std::string space_bytes = read_file(space), table_bytes = read_file(table);
    ASSERT_EQ(run("export " + table + " --json -o " + path("t.json")).code, 0);
    ASSERT_EQ(run("export " + table + " --enot -o " + path("t.pkl")).code, 0);
    std::string zeros = "0";
    for (int b = 1; b < 21; b++) zeros += ",0";
    const struct {
        std::string args;
        std::string says;
    } cases[] = {
        {"measure -c mac " + space + " -o " + space, "is the input"},
        {"measure -c mac " + space + " --json " + space, "is the input"},
        {"measure -c mac " + space + " -o " + path("x.sslat") + " --json " + path("x.sslat"), "are the same file"},
        {"measure -c mac " + space + " -o " + path("x.sslat") + " --csv " + path("x.sslat.journal"), "are the same file"},
        {"export " + table + " --json -o " + table, "is the input"},
        {"report " + table + " -o " + table, "is the input"},
        {"report " + table + " --space " + space + " -o " + space, "is the input"},
        {"import " + path("t.json") + " -o " + path("t.json"), "is the input"},
        {"import-enot " + path("t.pkl") + " -o " + path("t.pkl"), "is the input"},
        {"merge " + table + " -o " + table, "is the input"},
        {"export-onnx " + space + " --arch " + zeros + " -o " + space, "is the input"},
        // the same file by another name
        {"export " + table + " --json -o " + dir + "/./t.sslat", "is the input"},
    };
    for (const auto &c : cases) {
        Result r = run(c.args);
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(read_file(space), space_bytes) << c.args;
        EXPECT_EQ(read_file(table), table_bytes) << c.args;
    }
    EXPECT_FALSE(exists(path("x.sslat")));
    EXPECT_FALSE(exists(path("x.sslat.journal")));
}

TEST_F(NoFileDestroyed, AJournalIsNeverWrittenThroughASymbolicLink)
{
    std::string victim = write("victim.sslat", "precious");
    ASSERT_EQ(symlink("victim.sslat", path("j.sslat.journal").c_str()), 0);
    Result r = run("measure -c mac " + example_path("proxylessnas.json") + " -o " + path("j.sslat"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(victim), "precious");
    EXPECT_FALSE(exists(path("j.sslat")));
}

TEST_F(NoFileDestroyed, ADeviceNodeOrAFifoStaysWhatItIs)
{
    // a private null device in the test's folder (root only), never /dev/null
    if (mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        ASSERT_EQ(run("measure -c mac " + example_path("proxylessnas.json") + " --json " + path("null")).code, 0);
        struct stat st;
        ASSERT_EQ(lstat(path("null").c_str(), &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << "measure --json replaced the device node with a file";
        ASSERT_EQ(run("measure -c mac " + example_path("proxylessnas.json") + " -o " + path("t.sslat")).code, 0);
        ASSERT_EQ(run("export " + path("t.sslat") + " --json -o " + path("null")).code, 0);
        ASSERT_EQ(lstat(path("null").c_str(), &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << "export -o replaced the device node with a file";
    }
    // a FIFO: the CSV arrives through it and it stays a FIFO
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    Result r;
    std::string received = through_fifo(path("fifo"), [&] {
        r = run("measure -c mac " + example_path("proxylessnas.json") + " --csv " + path("fifo"));
    });
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(received.rfind("block,block_name", 0), 0u);
    struct stat st;
    ASSERT_EQ(lstat(path("fifo").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(NoFileDestroyed, ANameTooLongDestroysNothing)
{
    std::string keep = write("keep.sslat", "the previous table");
    // a 4,095-byte path to keep.sslat: "./" repeated, then the name
    std::string name = "keep.sslat", relative;
    while (dir.size() + 1 + relative.size() + name.size() < 4095) relative += "./";
    std::string long_path = dir + "/" + relative.substr(0, 4095 - dir.size() - 1 - name.size()) + name;
    if (long_path.size() != 4095) long_path = dir + "/" + relative + name;
    Result r = run("measure -c mac " + example_path("proxylessnas.json") + " -o " + long_path);
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(read_file(keep), "the previous table");
    // a name whose journal would be longer than a file name may be
    std::string longest(250, 'n');
    r = run("measure -c mac " + example_path("proxylessnas.json") + " -o " + path(longest));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("longer than a file name may be"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(path(longest)));
}

TEST_F(NoFileDestroyed, ASecondRunOnTheSameOutputIsRefusedWhileTheFirstWrites)
{
    // the first run's lock, held here: the second must not share the journal
    std::string journal = path("o.sslat.journal");
    int fd = open(journal.c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(flock(fd, LOCK_EX), 0);
    Result r = run("measure -c mac " + example_path("fbnet.json") + " -o " + path("o.sslat"));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("in use"), std::string::npos) << r.err;
    EXPECT_TRUE(exists(journal)) << "the other run's journal was removed";
    EXPECT_FALSE(exists(path("o.sslat")));
    close(fd);
}

TEST_F(NoFileDestroyed, AnEarlierRunsJournalIsNeitherLostNorMixed)
{
    // a table's content: everything but its creation time (two runs a second apart differ there)
    auto content = [this](const std::string &file) {
        std::string json = run("export " + file + " --json").out;
        EXPECT_NE(json.find("\"created\""), std::string::npos) << file;
        return std::regex_replace(json, std::regex("\"created\": *\"[^\"]*\""), "");
    };
    std::string out = path("o.sslat"), journal = out + ".journal";
    std::string fbnet = example_path("fbnet.json");
    ASSERT_EQ(run("measure -c mac " + fbnet + " -o " + path("clean.sslat")).code, 0);
    ASSERT_EQ(run("measure -c mac " + fbnet + " -o " + out + " --keep-journal").code, 0);
    const std::string mac = read_file(journal);
    ASSERT_EQ(run("measure -c mac_thop " + fbnet + " -o " + path("thop.sslat") + " --keep-journal").code, 0);
    const std::string thop = read_file(path("thop.sslat.journal"));
    ASSERT_EQ(mac.size(), thop.size());
    const size_t header = 24, record = 168, units = (mac.size() - header) / record;
    // a rerun without --resume does not silently discard it
    write("o.sslat.journal", mac);
    Result r = run("measure -c mac " + fbnet + " -o " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--resume continues it"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(journal), mac);
    // one flipped byte in unit record 2: that record alone is measured again
    std::string damaged = mac;
    damaged[header + 2 * record + 20] ^= 0x40;
    write("o.sslat.journal", damaged);
    r = run("measure -c mac " + fbnet + " -o " + out + " --resume");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming: " + std::to_string(units - 1) + " units"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 damaged record skipped (the first is unit record 2)"), std::string::npos) << r.err;
    EXPECT_EQ(content(out), content(path("clean.sslat"))) << "the resumed table is the clean one";
    // another run's records in this run's journal (S6): skipped, never mixed in
    write("o.sslat.journal", mac.substr(0, header + 40 * record) + thop.substr(header + 40 * record));
    r = run("measure -c mac " + fbnet + " -o " + out + " --resume");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find(std::to_string(units - 40) + " records of another run skipped"), std::string::npos) << r.err;
    EXPECT_EQ(content(out), content(path("clean.sslat")));
    // a damaged header: nothing in the journal can be trusted, so no resume
    damaged = mac;
    damaged[10] ^= 0x01;
    write("o.sslat.journal", damaged);
    r = run("measure -c mac " + fbnet + " -o " + out + " --resume");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("header is damaged"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(journal), damaged) << "kept as it was";
    EXPECT_EQ(run("measure -c mac " + fbnet + " -o " + out + " --restart").code, 0);
    EXPECT_FALSE(exists(journal));
}

TEST_F(NoFileDestroyed, RefusedOrFailedRunsLeaveNothingBehind)
{
    std::string space = example_path("proxylessnas.json");
    // refused before anything runs: no journal
    Result r = run("measure -c cpu --dtype fp16 " + space + " -o " + path("a.sslat"));
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_FALSE(exists(path("a.sslat.journal")));
    r = run("measure -c mac " + space + " -o ''");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_FALSE(exists(".journal"));
    ASSERT_EQ(mkdir(path("d").c_str(), 0755), 0);
    r = run("measure -c mac " + space + " -o " + path("d"));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_FALSE(exists(path("d.journal")));
    // an export that cannot be written: the binary is not left alone either
    r = run("measure -c mac " + space + " -o " + path("ok.sslat") + " --json " + path("missing/dir/x.json"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_FALSE(exists(path("ok.sslat")));
}

TEST_F(NoFileDestroyed, EveryOutputPathIsCheckedBeforeTheFirstUnit)
{
    // probe D10: these once failed only after the whole measurement, leaving a
    // journal that blocked the next run
    std::string space = example_path("fbnet.json");
    ASSERT_EQ(symlink("nowhere/x.sslat", path("dangling.sslat").c_str()), 0);
    ASSERT_EQ(symlink("loop.b", path("loop.a").c_str()), 0);
    ASSERT_EQ(symlink("loop.a", path("loop.b").c_str()), 0);
    write("file", "a file, not a folder");
    const struct {
        std::string args, says;
    } cases[] = {
        {"-o " + path("ok.sslat") + " --json " + path("missing/dir/x.json"), "its folder"},
        {"-o " + path("ok.sslat") + " --csv " + path("file/x.csv"), "Not a directory"},
        {"-o " + path("dangling.sslat"), "symbolic link to nothing"},
        {"-o " + path("loop.a"), "levels of symbolic links"},
    };
    for (const auto &c : cases) {
        Result r = run("measure -c mac " + space + " " + c.args);
        EXPECT_EQ(r.code, 1) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(r.err.find("[measure]"), std::string::npos) << "nothing is measured: " << r.err;
        EXPECT_FALSE(exists(path("ok.sslat.journal")));
        EXPECT_FALSE(exists(path("dangling.sslat.journal")));
        EXPECT_FALSE(exists(path("loop.a.journal")));
    }
    // the same run with a good path goes ahead at once: no --resume / --restart asked for
    Result r = run("measure -c mac " + space + " -o " + path("ok.sslat") + " --json " + path("x.json"));
    EXPECT_EQ(r.code, 0) << r.err;
    // other verbs check their outputs the same way, before reading anything big
    r = run("export " + path("ok.sslat") + " --json -o " + path("missing/x.json"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("its folder"), std::string::npos) << r.err;
    r = run("export-onnx " + example_path("resnet18.json") + " -o " + path("dangling.sslat"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("symbolic link to nothing"), std::string::npos) << r.err;
}

TEST_F(NoFileDestroyed, AFifoOrDeviceOutputKeepsNoJournalBesideIt)
{
    // probe D9: -o /dev/stdout once made /dev/stdout.journal; shown here on
    // a private FIFO (and a private null device when run as root)
    std::string space = example_path("proxylessnas.json");
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    Result r;
    std::string received = through_fifo(path("fifo"), [&] { r = run("measure -c mac " + space + " -o " + path("fifo")); });
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(received.rfind("\x89SSLAT", 0), 0u) << "the table came through the FIFO";
    EXPECT_FALSE(exists(path("fifo.journal")));
    for (const char *flag : {"--keep-journal", "--resume", "--restart"}) {
        r = run("measure -c mac " + space + " -o " + path("fifo") + " " + flag);
        EXPECT_EQ(r.code, 2) << flag;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
        EXPECT_FALSE(exists(path("fifo.journal")));
    }
    if (mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        EXPECT_EQ(run("measure -c mac " + space + " -o " + path("null")).code, 0);
        EXPECT_EQ(run("measure -c mac " + space + " -o " + path("null") + " --keep-journal").code, 2);
        EXPECT_FALSE(exists(path("null.journal")));
    }
}

TEST_F(NoFileDestroyed, ASweepNeverOverwritesItsOwnSpace)
{
    // probe D5: a space file named like a point table or the summary, inside -o DIR
    ASSERT_EQ(mkdir(path("sw").c_str(), 0755), 0);
    const std::string space_text = read_file(example_path("proxylessnas.json"));
    for (const char *name : {"b1_r224_fp32.sslat", "summary.csv", "summary.jsonl", ".sslat-sweep.lock"}) {
        std::string space = write((std::string("sw/") + name).c_str(), space_text);
        Result r = run("sweep " + space + " -c mac --batch 1 --resolution 224 -o " + path("sw"));
        EXPECT_EQ(r.code, 2) << name << "\n" << r.err;
        EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
        EXPECT_EQ(read_file(space), space_text) << name;
        unlink(space.c_str());
    }
    // refused before it made the folder: a new -o DIR is not left behind
    std::string space = write("b1_r224_fp32.sslat", space_text);
    Result r = run("sweep " + space + " -c mac --batch 1 --resolution 224 -o " + dir);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(read_file(space), space_text);
}

TEST_F(NoFileDestroyed, TwoSweepsIntoOneFolderAreNotMixed)
{
    // probe D12: the folder is locked for the run, as a journal is; the lock is held here
    ASSERT_EQ(mkdir(path("sw").c_str(), 0755), 0);
    int fd = open(path("sw/.sslat-sweep.lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(flock(fd, LOCK_EX), 0);
    Result r = run("sweep " + example_path("fbnet.json") + " -c mac_thop --batch 1,2 -o " + path("sw"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("another sweep is writing into"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(path("sw/summary.csv")));
    EXPECT_FALSE(exists(path("sw/b1_r224_fp32.sslat")));
    // nor does a shard of another sweep
    r = run("sweep " + example_path("fbnet.json") + " -c mac_thop --batch 1,2 --shard 0/2 -o " + path("sw"));
    EXPECT_EQ(r.code, 1) << r.err;
    close(fd);
    // the shards of one sweep (a Slurm array) are not each other's competitors: shard 1/2 is held here
    fd = open(path("sw/.sslat-sweep.lock").c_str(), O_RDWR | O_CREAT, 0644);
    int shard = open(path("sw/.sslat-sweep-1-of-2.lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_EQ(flock(fd, LOCK_SH), 0);
    ASSERT_EQ(flock(shard, LOCK_EX), 0);
    r = run("sweep " + example_path("fbnet.json") + " -c mac_thop --batch 1,2 --shard 0/2 -o " + path("sw"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(exists(path("sw/summary-0-of-2.csv")));
    EXPECT_FALSE(exists(path("sw/.sslat-sweep-0-of-2.lock"))) << "a finished shard leaves no lock file of its own";
    r = run("sweep " + example_path("fbnet.json") + " -c mac_thop --batch 1,2 --shard 1/2 -o " + path("sw"));
    EXPECT_EQ(r.code, 1) << "the same shard twice: " << r.err;
    close(shard);
    close(fd);
    r = run("sweep " + example_path("fbnet.json") + " -c mac_thop --batch 1,2 -o " + path("sw"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(exists(path("sw/summary.csv")));
    EXPECT_FALSE(exists(path("sw/.sslat-sweep.lock"))) << "a finished whole sweep leaves no lock file";
}

TEST_F(NoFileDestroyed, SweepListsAreStrict)
{
    std::string space = example_path("fbnet.json");
    for (const char *args : {"--batch 1,1", "--resolution 160,160", "--dtype ''", "--dtype fp32,", "--dtype ,fp32",
                             "--dtype fp32,,fp16", "--batch 1,"}) {
        Result r = run("sweep " + space + " -c mac " + args + " -o " + path("sw"));
        EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
        EXPECT_FALSE(exists(path("sw"))) << args;
    }
}

} // namespace
