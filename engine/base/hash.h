/* FNV-1a 64-bit over little-endian fixed-width fields: stable across hosts. */
#ifndef SSLAT_HASH_H
#define SSLAT_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct sslat_hasher {
    uint64_t state;
} sslat_hasher;

void sslat_hash_begin(sslat_hasher *h);
void sslat_hash_bytes(sslat_hasher *h, const void *data, size_t size);
void sslat_hash_i32(sslat_hasher *h, int32_t value);
void sslat_hash_u64(sslat_hasher *h, uint64_t value);

#endif
