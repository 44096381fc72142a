// Corrupted, truncated and hostile container files: each is rejected with a
// clear error, never a crash or a huge allocation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "helpers.h"

extern "C" {
#include "base/crc32.h"
}

namespace {

// Builds container bytes by hand, section by section.
struct Builder {
    std::vector<uint8_t> payload;

    void u32(uint32_t v, std::vector<uint8_t> &out)
    {
        for (int i = 0; i < 4; i++) out.push_back((uint8_t)(v >> (8 * i)));
    }
    void u64(uint64_t v, std::vector<uint8_t> &out)
    {
        u32((uint32_t)v, out);
        u32((uint32_t)(v >> 32), out);
    }
    void f64(double v, std::vector<uint8_t> &out)
    {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        u64(bits, out);
    }
    void str(const std::string &s, std::vector<uint8_t> &out)
    {
        u32((uint32_t)s.size(), out);
        out.insert(out.end(), s.begin(), s.end());
    }
    void entry(double v, std::vector<uint8_t> &out)
    {
        for (int i = 0; i < 6; i++) f64(i == 3 ? 0.0 : v, out);
        u32(1, out);
    }
    void section(const char *tag, uint32_t flags, const std::vector<uint8_t> &body)
    {
        payload.insert(payload.end(), tag, tag + 4);
        u32(flags, payload);
        u64(body.size(), payload);
        payload.insert(payload.end(), body.begin(), body.end());
    }
    std::vector<uint8_t> meta(const std::vector<std::pair<std::string, std::string>> &pairs)
    {
        std::vector<uint8_t> b;
        u32((uint32_t)pairs.size(), b);
        for (auto &p : pairs) {
            str(p.first, b);
            str(p.second, b);
        }
        return b;
    }
    std::vector<uint8_t> space()
    {
        std::vector<uint8_t> b;
        u64(0x1234, b);
        for (uint32_t v : {1u, 3u, 224u, 224u}) u32(v, b);
        str("tiny", b);
        return b;
    }
    std::vector<uint8_t> table(const std::vector<uint32_t> &counts, double value = 1.0)
    {
        std::vector<uint8_t> b;
        entry(0.5, b);
        u32((uint32_t)counts.size(), b);
        uint32_t total = 0;
        for (uint32_t n : counts) {
            u32(n, b);
            total += n;
        }
        for (uint32_t i = 0; i < total; i++) entry(value, b);
        return b;
    }
    void standard(const std::vector<uint32_t> &counts = {2, 3})
    {
        section("META", 1, meta({{"latency_type", "mac"}, {"unit", "MMAC"}}));
        section("SPAC", 1, space());
        section("TABL", 1, table(counts));
    }
    std::vector<uint8_t> file(uint32_t version = 1, uint32_t flags = 0, int64_t size_delta = 0,
                              uint32_t crc_xor = 0, uint32_t reserved = 0)
    {
        std::vector<uint8_t> out = {0x89, 'S', 'S', 'L', 'A', 'T', 0x0D, 0x0A};
        u32(version, out);
        u32(flags, out);
        u64((uint64_t)((int64_t)payload.size() + size_delta), out);
        u32(sslat_crc32(payload.data(), payload.size()) ^ crc_xor, out);
        u32(reserved, out);
        out.insert(out.end(), payload.begin(), payload.end());
        return out;
    }
};

sslat_status load(const std::vector<uint8_t> &bytes, std::string *message)
{
    sslat_container *c = nullptr;
    sslat_error err;
    sslat_status status = sslat_container_load_from_bytes(bytes.data(), bytes.size(), &c, &err);
    if (status == SSLAT_OK) sslat_container_free(c);
    else EXPECT_EQ(c, nullptr);
    *message = err.message;
    return status;
}

TEST(ContainerCorrupt, TheHandBuiltReferenceLoads)
{
    Builder b;
    b.standard();
    std::string message;
    EXPECT_EQ(load(b.file(), &message), SSLAT_OK) << message;
    // an unknown optional section is skipped
    b.section("XTRA", 0, std::vector<uint8_t>(40, 0xAB));
    EXPECT_EQ(load(b.file(), &message), SSLAT_OK) << message;
}

struct Hostile {
    const char *what;
    std::function<std::vector<uint8_t>()> make;
    const char *message;
};

std::vector<Hostile> hostile_files()
{
    auto with = [](std::function<void(Builder &)> f) {
        return [f]() {
            Builder b;
            f(b);
            return b.file();
        };
    };
    auto standard_then = [](std::function<std::vector<uint8_t>(Builder &)> f) {
        return [f]() {
            Builder b;
            b.standard();
            return f(b);
        };
    };
    return {
        {"empty", [] { return std::vector<uint8_t>(); }, "shorter than the 32-byte header"},
        {"text file", [] { std::string t = "{\"sslat_container\": 1, \"latency_type\": \"mac\"}"; return std::vector<uint8_t>(t.begin(), t.end()); }, "bad magic"},
        {"wrong version", standard_then([](Builder &b) { return b.file(2); }), "format version 2"},
        {"reserved flags", standard_then([](Builder &b) { return b.file(1, 4); }), "reserved bits"},
        {"reserved field", standard_then([](Builder &b) { return b.file(1, 0, 0, 0, 7); }), "reserved bits"},
        {"payload size too large", standard_then([](Builder &b) { return b.file(1, 0, 100); }), "(truncated)"},
        {"trailing bytes", standard_then([](Builder &b) { return b.file(1, 0, -4); }), "(trailing bytes)"},
        {"checksum mismatch", standard_then([](Builder &b) { return b.file(1, 0, 0, 1); }), "checksum mismatch"},
        {"flipped payload byte", standard_then([](Builder &b) { auto f = b.file(); f[f.size() - 9] ^= 0x40; return f; }), "checksum mismatch"},
        {"missing TABL", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("SPAC", 1, b.space()); }), "missing required section TABL"},
        {"missing META", with([](Builder &b) { b.section("SPAC", 1, b.space()); }), "missing required section META"},
        {"unknown required section", standard_then([](Builder &b) { b.section("NEWS", 1, {1, 2, 3}); return b.file(); }), "unknown required section 'NEWS'"},
        {"reserved section flag", standard_then([](Builder &b) { b.section("XTRA", 2, {}); return b.file(); }), "reserved section flag"},
        {"section longer than the file", standard_then([](Builder &b) { b.payload.insert(b.payload.end(), {'X', 'T', 'R', 'A', 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}); return b.file(); }), "runs past the end"},
        {"section header cut", standard_then([](Builder &b) { b.payload.insert(b.payload.end(), {'X', 'T'}); return b.file(); }), "truncated"},
        {"duplicated section", standard_then([](Builder &b) { b.section("SPAC", 1, b.space()); return b.file(); }), "appears twice"},
        {"huge metadata count", with([](Builder &b) { std::vector<uint8_t> m; b.u32(0xFFFFFFFF, m); b.section("META", 1, m); }), "metadata pairs"},
        {"huge string length", with([](Builder &b) { std::vector<uint8_t> m; b.u32(1, m); b.u32(0x7FFFFFFF, m); m.resize(m.size() + 16, 'k'); b.section("META", 1, m); }), "string of 2147483647 bytes"},
        {"string past the section", with([](Builder &b) { std::vector<uint8_t> m; b.u32(1, m); b.u32(100, m); m.resize(m.size() + 16, 'k'); b.section("META", 1, m); }), "truncated"},
        {"NUL in a string", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", std::string("ma\0c", 4)}, {"unit", "MMAC"}})); }), "NUL byte"},
        {"duplicate metadata key", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}, {"unit", "ms"}})); }), "appears twice"},
        {"unknown latency type", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "tpu"}, {"unit", "ms"}})); b.section("SPAC", 1, b.space()); b.section("TABL", 1, b.table({1})); }), "unknown latency type 'tpu'"},
        {"unit of another type", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "ms"}})); b.section("SPAC", 1, b.space()); b.section("TABL", 1, b.table({1})); }), "does not match"},
        {"TABL before META", with([](Builder &b) { b.section("TABL", 1, b.table({1})); }), "TABL before META"},
        {"huge block count", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); std::vector<uint8_t> t; b.entry(1, t); b.u32(0x7FFFFFFF, t); b.section("TABL", 1, t); }), "blocks (limit"},
        {"empty block", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("TABL", 1, b.table({2, 0})); }), "block 1 has 0 candidates"},
        {"too many candidates", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("TABL", 1, b.table({300})); }), "block 0 has 300 candidates"},
        {"entries missing", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); auto t = b.table({4}); t.resize(t.size() - 52); b.section("TABL", 1, t); }), "entries do not fit"},
        {"NaN entry", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("TABL", 1, b.table({2}, NAN)); }), "operations_latencies[0][0]: value is nan"},
        {"negative entry", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("TABL", 1, b.table({2}, -1.0)); }), "must be finite and >= 0"},
        {"infinite entry", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("TABL", 1, b.table({2}, INFINITY)); }), "value is inf"},
        {"bytes left in a section", with([](Builder &b) { auto m = b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}}); m.push_back(0); b.section("META", 1, m); }), "unread bytes"},
        {"labels before the table", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); b.section("LABL", 0, {0, 0, 0, 0}); }), "LABL before TABL"},
        {"labels for other blocks", standard_then([](Builder &b) { std::vector<uint8_t> l; b.u32(5, l); b.section("LABL", 0, l); return b.file(); }), "5 block names for 2 blocks"},
        {"huge input dimension", with([](Builder &b) { b.section("META", 1, b.meta({{"latency_type", "mac"}, {"unit", "MMAC"}})); std::vector<uint8_t> s; b.u64(1, s); for (uint32_t v : {1u, 3u, 0x7FFFFFFFu, 8u}) b.u32(v, s); b.str("x", s); b.section("SPAC", 1, s); }), "input dimension"},
    };
}

TEST(ContainerCorrupt, EachHostileFileIsRejectedClearly)
{
    std::vector<Hostile> cases = hostile_files();
    EXPECT_GE(cases.size(), 20u);
    for (const Hostile &h : cases) {
        std::string message;
        sslat_status status = load(h.make(), &message);
        EXPECT_NE(status, SSLAT_OK) << h.what;
        EXPECT_NE(message.find(h.message), std::string::npos)
            << h.what << ": expected '" << h.message << "' in: " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << h.what;
    }
}

TEST(ContainerCorrupt, EveryTruncationAndEveryByteFlipIsRejected)
{
    Builder b;
    b.standard({3, 2, 4});
    std::vector<uint8_t> good = b.file();
    std::string message;
    for (size_t length = 0; length < good.size(); length++) {
        std::vector<uint8_t> cut(good.begin(), good.begin() + (long)length);
        EXPECT_NE(load(cut, &message), SSLAT_OK) << "truncated to " << length;
    }
    for (size_t at = 0; at < good.size(); at++) {
        std::vector<uint8_t> flipped = good;
        flipped[at] ^= 0x01;
        EXPECT_NE(load(flipped, &message), SSLAT_OK) << "flipped byte " << at;
    }
}

TEST(ContainerCorrupt, OversizedClaimIsRefusedBeforeReading)
{
    std::vector<uint8_t> small(32, 0);
    sslat_container *c = nullptr;
    sslat_error err;
    // the size argument claims more than the limit: refused from the size alone
    EXPECT_EQ(sslat_container_load_from_bytes(small.data(), (size_t)300 << 20, &c, &err), SSLAT_ERR_LIMIT);
    EXPECT_NE(std::string(err.message).find("limit"), std::string::npos);
    EXPECT_EQ(sslat_container_load_from_file("/nonexistent.sslat", &c, &err), SSLAT_ERR_IO);
}

}  // namespace
