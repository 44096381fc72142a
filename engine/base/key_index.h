/* A map from 64-bit keys (subgraph hashes) to positions, open addressing: the
 * lookups of measured units and journal records stay O(1) in spaces with tens
 * of thousands of candidates. */
#ifndef SSLAT_KEY_INDEX_H
#define SSLAT_KEY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sslat_key_index {
    uint64_t *keys;
    long *positions; /* -1: empty slot */
    size_t capacity, count;
} sslat_key_index;

/* Record key → position unless key is already there (the first one stays).
 * false when memory runs out. */
bool sslat_key_index_put(sslat_key_index *index, uint64_t key, long position);
/* The position of key, or -1. */
long sslat_key_index_get(const sslat_key_index *index, uint64_t key);
void sslat_key_index_release(sslat_key_index *index);

#endif
