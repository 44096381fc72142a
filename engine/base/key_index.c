#include "base/key_index.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 33; /* the keys are FNV hashes already; this spreads their high bits down */
    key *= 0xFF51AFD7ED558CCDULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

long sslat_key_index_get(const sslat_key_index *index, uint64_t key)
{
    if (index->capacity == 0) return -1;
    for (size_t s = slot_of(key, index->capacity);; s = (s + 1) & (index->capacity - 1)) {
        if (index->positions[s] < 0) return -1;
        if (index->keys[s] == key) return index->positions[s];
    }
}

static bool insert(uint64_t *keys, long *positions, size_t capacity, uint64_t key, long position)
{
    size_t s = slot_of(key, capacity);
    while (positions[s] >= 0) {
        if (keys[s] == key) return false;
        s = (s + 1) & (capacity - 1);
    }
    keys[s] = key;
    positions[s] = position;
    return true;
}

bool sslat_key_index_put(sslat_key_index *index, uint64_t key, long position)
{
    if (2 * (index->count + 1) > index->capacity) { /* keep the load under one half */
        size_t capacity = index->capacity ? 2 * index->capacity : 64;
        uint64_t *keys = malloc(capacity * sizeof *keys);
        long *positions = malloc(capacity * sizeof *positions);
        if (!keys || !positions) {
            free(keys);
            free(positions);
            return false;
        }
        for (size_t s = 0; s < capacity; s++) positions[s] = -1;
        for (size_t s = 0; s < index->capacity; s++)
            if (index->positions[s] >= 0) insert(keys, positions, capacity, index->keys[s], index->positions[s]);
        free(index->keys);
        free(index->positions);
        index->keys = keys;
        index->positions = positions;
        index->capacity = capacity;
    }
    if (insert(index->keys, index->positions, index->capacity, key, position)) index->count++;
    return true;
}

void sslat_key_index_release(sslat_key_index *index)
{
    free(index->keys);
    free(index->positions);
    index->keys = NULL;
    index->positions = NULL;
    index->capacity = index->count = 0;
}
