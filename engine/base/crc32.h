/* CRC-32 (IEEE 802.3, reflected 0xEDB88320): the same value as zlib.crc32. */
#ifndef SSLAT_CRC32_H
#define SSLAT_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t sslat_crc32(const void *data, size_t size);

#endif
