// Writing outputs never destroys what is not a regular file (a FIFO, a
// device node, the file behind a symbolic link) and a batch of outputs is all
// or nothing. Every special file here is a private one in a temporary folder:
// never the system's /dev/null.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"

extern "C" {
#include "base/file_io.h"
}

namespace {

class FileIo : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(temp.made()); }
    std::string path(const std::string &name) const { return dir + "/" + name; }
    // the names in the folder (no temporary may be left behind)
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        DIR *d = opendir(dir.c_str());
        while (struct dirent *e = d ? readdir(d) : nullptr)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) out.push_back(e->d_name);
        if (d) closedir(d);
        std::sort(out.begin(), out.end());
        return out;
    }
    TempDir temp{"sslat-fileio"};
    const std::string dir = temp.path();
};

sslat_status write(const std::string &path, const std::string &text, sslat_error *err)
{
    return sslat_write_file_atomic(path.c_str(), text.data(), text.size(), err);
}

TEST_F(FileIo, ARegularFileIsReplacedWholeAndNoTemporaryStays)
{
    sslat_error err;
    ASSERT_EQ(write(path("a"), "first", &err), SSLAT_OK) << err.message;
    ASSERT_EQ(write(path("a"), "second", &err), SSLAT_OK) << err.message;
    EXPECT_EQ(read_file(path("a")), "second");
    EXPECT_EQ(names(), std::vector<std::string>{"a"});
    // a name of NAME_MAX characters still gets its temporary (named apart from it)
    std::string longest(255, 'n');
    ASSERT_EQ(write(path(longest), "x", &err), SSLAT_OK) << err.message;
    EXPECT_EQ(read_file(path(longest)), "x");
}

TEST_F(FileIo, ASymbolicLinkIsWrittenThroughAndStaysALink)
{
    sslat_error err;
    ASSERT_EQ(write(path("target"), "old", &err), SSLAT_OK);
    ASSERT_EQ(symlink("target", path("link").c_str()), 0);
    ASSERT_EQ(write(path("link"), "new", &err), SSLAT_OK) << err.message;
    struct stat st;
    ASSERT_EQ(lstat(path("link").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
    EXPECT_EQ(read_file(path("target")), "new");
    // a link to nothing is refused: where to write is a guess
    ASSERT_EQ(symlink("missing/file", path("dangling").c_str()), 0);
    EXPECT_EQ(write(path("dangling"), "x", &err), SSLAT_ERR_IO);
    EXPECT_NE(std::string(err.message).find("symbolic link to nothing"), std::string::npos) << err.message;
}

TEST_F(FileIo, AFifoIsWrittenDirectlyAndStaysAFifo)
{
    ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
    sslat_error err;
    std::string received = through_fifo(path("fifo"), [&] {
        EXPECT_EQ(write(path("fifo"), "through the pipe", &err), SSLAT_OK) << err.message;
    });
    EXPECT_EQ(received, "through the pipe");
    struct stat st;
    ASSERT_EQ(lstat(path("fifo").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
}

TEST_F(FileIo, ADeviceNodeStaysADeviceNode)
{
    // a private null device (char 1:3) in the temporary folder: needs root
    if (mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
        GTEST_SKIP() << "cannot make a private device node here (" << strerror(errno) << ")";
    sslat_error err;
    EXPECT_EQ(write(path("null"), "discarded", &err), SSLAT_OK) << err.message;
    struct stat st;
    ASSERT_EQ(lstat(path("null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced by a regular file";
    EXPECT_EQ(names(), std::vector<std::string>{"null"});
}

TEST_F(FileIo, ADirectoryIsRefused)
{
    ASSERT_EQ(mkdir(path("d").c_str(), 0755), 0);
    sslat_error err;
    EXPECT_EQ(write(path("d"), "x", &err), SSLAT_ERR_IO);
    EXPECT_NE(std::string(err.message).find("is a directory"), std::string::npos) << err.message;
    EXPECT_EQ(write("", "x", &err), SSLAT_ERR_IO);
}

TEST_F(FileIo, ABatchIsAllOrNothing)
{
    sslat_error err;
    ASSERT_EQ(write(path("table"), "the old table", &err), SSLAT_OK);
    ASSERT_EQ(mkdir(path("d").c_str(), 0755), 0);
    const std::string table = path("table"), json = path("d"), fresh = path("fresh");
    sslat_output outputs[] = {{table.c_str(), "new", 3}, {fresh.c_str(), "new", 3}, {json.c_str(), "{}", 2}};
    EXPECT_EQ(sslat_write_files_atomic(outputs, 3, &err), SSLAT_ERR_IO);
    EXPECT_EQ(read_file(table), "the old table") << "a later failure changed an earlier target";
    EXPECT_EQ(names(), (std::vector<std::string>{"d", "table"})) << "no new file, no temporary";
    sslat_output good[] = {{table.c_str(), "new", 3}, {fresh.c_str(), "also", 4}};
    EXPECT_EQ(sslat_write_files_atomic(good, 2, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(read_file(table), "new");
    EXPECT_EQ(read_file(fresh), "also");
}

} // namespace
