#include "base/hash.h"

void sslat_hash_begin(sslat_hasher *h) { h->state = 14695981039346656037ULL; }

void sslat_hash_bytes(sslat_hasher *h, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; i++) {
        h->state ^= bytes[i];
        h->state *= 1099511628211ULL;
    }
}

void sslat_hash_i32(sslat_hasher *h, int32_t value)
{
    uint32_t v = (uint32_t)value;
    unsigned char le[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24)};
    sslat_hash_bytes(h, le, sizeof le);
}

void sslat_hash_u64(sslat_hasher *h, uint64_t value)
{
    sslat_hash_i32(h, (int32_t)(uint32_t)value);
    sslat_hash_i32(h, (int32_t)(uint32_t)(value >> 32));
}
