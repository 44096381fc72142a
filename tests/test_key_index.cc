// The key → position map behind measured units and journal records.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "base/key_index.h"
}

namespace {

TEST(KeyIndex, FindsEveryKeyThroughGrowthAndCollisions)
{
    sslat_key_index index = {nullptr, nullptr, 0, 0};
    EXPECT_EQ(sslat_key_index_get(&index, 42), -1);
    const int n = 70000;  // past the largest space (65,536 candidates)
    for (int i = 0; i < n; i++) {
        // keys that differ only in high bits collide in a naive low-bit table
        uint64_t key = (uint64_t)i << 40 | 7;
        ASSERT_TRUE(sslat_key_index_put(&index, key, i));
    }
    EXPECT_EQ(index.count, (size_t)n);
    for (int i = 0; i < n; i += 97) EXPECT_EQ(sslat_key_index_get(&index, (uint64_t)i << 40 | 7), i);
    EXPECT_EQ(sslat_key_index_get(&index, 8), -1);
    EXPECT_EQ(sslat_key_index_get(&index, 0), -1);
    ASSERT_TRUE(sslat_key_index_put(&index, (uint64_t)5 << 40 | 7, 123456));  // the first position stays
    EXPECT_EQ(sslat_key_index_get(&index, (uint64_t)5 << 40 | 7), 5);
    EXPECT_EQ(index.count, (size_t)n);
    ASSERT_TRUE(sslat_key_index_put(&index, 0, 9));  // zero is a key like any other
    EXPECT_EQ(sslat_key_index_get(&index, 0), 9);
    sslat_key_index_release(&index);
    EXPECT_EQ(sslat_key_index_get(&index, 0), -1);
}

}  // namespace
