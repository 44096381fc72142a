/* Shared by the container fuzz targets: mutations that get past the checksum.
 *
 * A random mutation of a container almost always breaks its CRC-32, so a
 * fuzzer left alone only ever exercises the header checks (270 edges). These
 * custom mutators mutate as libFuzzer does, then rewrite payload_size and the
 * CRC, so the section parser behind them sees the mutation; one input in
 * eight is left unfixed, for the header checks. */
#ifndef SSLAT_FUZZ_CONTAINERS_H
#define SSLAT_FUZZ_CONTAINERS_H

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32.h"
#include "stats/validation.h"
#include "sslat.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

enum { CONTAINER_HEADER = 32 };

static inline void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* payload_size and the checksum made true for the bytes that are there (docs/format.md). */
static inline void fix_container(uint8_t *data, size_t size)
{
    if (size < CONTAINER_HEADER) return;
    put_le(data + 16, size - CONTAINER_HEADER, 8);
    put_le(data + 24, sslat_crc32(data + CONTAINER_HEADER, size - CONTAINER_HEADER), 4);
}

/* A pair of containers in one input: u32 length of the first, the first, the
 * second (a short or inconsistent prefix splits the rest in half). */
typedef struct container_pair {
    const uint8_t *first, *second;
    size_t first_size, second_size;
} container_pair;

static inline container_pair split_pair(const uint8_t *data, size_t size)
{
    container_pair p = {data, data, 0, 0};
    if (size < 4) return p;
    size_t rest = size - 4, first = (size_t)get_le(data, 4);
    if (first > rest) first = rest / 2;
    p.first = data + 4;
    p.first_size = first;
    p.second = data + 4 + first;
    p.second_size = rest - first;
    return p;
}

/* Mutate one of the pair's two containers (seed picks which), fix both. */
static inline size_t mutate_pair(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    if (size < 4 || max_size < 8) return LLVMFuzzerMutate(data, size, max_size);
    container_pair p = split_pair(data, size);
    size_t first = p.first_size, second = p.second_size;
    uint8_t *part = data + 4 + ((seed & 1) ? first : 0);
    size_t part_size = (seed & 1) ? second : first, other = (seed & 1) ? first : second;
    /* the part mutated in place, the other one moved after it when it is the first */
    if (!(seed & 1)) memmove(data + max_size - second, data + 4 + first, second);
    size_t room = max_size - 4 - other;
    size_t mutated = LLVMFuzzerMutate(part, part_size, room);
    if (!(seed & 1)) {
        memmove(data + 4 + mutated, data + max_size - second, second);
        first = mutated;
    } else {
        second = mutated;
    }
    put_le(data, first, 4);
    if ((seed >> 1) % 8) {
        fix_container(data + 4, first);
        fix_container(data + 4 + first, second);
    }
    return 4 + first + second;
}

/* Everything a loaded table offers a user, each result checked against the
 * others where they must agree: statistics, exports and their imports back. */
static inline void exercise_table(const sslat_container *c)
{
    sslat_error err;
    double low = 0, high = 0, mean, v, bound, lo, hi;
    int32_t n = sslat_container_block_count(c);
    int32_t *arch = calloc((size_t)(n > 0 ? n : 1), sizeof *arch);
    if (!arch) return;
    sslat_distribution_options grid = {64};
    if (sslat_min_latency(c, &low, &err) == SSLAT_OK && sslat_max_latency(c, &high, &err) == SSLAT_OK) {
        if (low > high) abort();
        if (sslat_mean_latency(c, &mean, &err) == SSLAT_OK && (mean < low * (1 - 1e-9) || mean > high * (1 + 1e-9)))
            abort();
        if (sslat_argmin_arch(c, arch, n, &err) == SSLAT_OK && sslat_current_latency(c, arch, n, &v, &err) == SSLAT_OK &&
            v != low)
            abort();
        sslat_argmax_arch(c, arch, n, &err);
        sslat_latency_quantile(c, 0.5, &grid, &v, &bound, &err);
        if (sslat_latency_cdf(c, (low + high) / 2, &grid, &lo, &hi, &err) == SSLAT_OK && !(lo <= hi)) abort();
        sslat_count_under_budget(c, (low + high) / 2, &grid, &lo, &hi, &err);
        sslat_median_latency(c, 16, 1, &v, &err);
    }
    char *text = NULL;
    if (sslat_container_export_csv(c, &text, &err) == SSLAT_OK) sslat_free(text);
    /* JSON out and back in: the same table, byte for byte once saved */
    sslat_container *again = NULL;
    uint8_t *one = NULL, *two = NULL;
    size_t one_size = 0, two_size = 0;
    if (sslat_container_export_json(c, &text, &err) == SSLAT_OK) {
        if (sslat_container_import_json(text, strlen(text), &again, &err) == SSLAT_OK &&
            sslat_container_save_to_bytes(c, &one, &one_size, &err) == SSLAT_OK &&
            sslat_container_save_to_bytes(again, &two, &two_size, &err) == SSLAT_OK &&
            (one_size != two_size || memcmp(one, two, one_size) != 0))
            abort();
        sslat_free(text);
    }
    sslat_free(one);
    sslat_free(two);
    sslat_container_free(again);
    /* ENOT out and back in: the same constant */
    uint8_t *pickle = NULL;
    size_t pickle_size = 0;
    again = NULL;
    if (sslat_container_export_enot(c, &pickle, &pickle_size, &err) == SSLAT_OK) {
        if (sslat_container_import_enot(pickle, pickle_size, &again, &err) != SSLAT_OK ||
            sslat_container_constant_latency(again) != sslat_container_constant_latency(c))
            abort();
        sslat_free(pickle);
    }
    sslat_container_free(again);
    const char *key, *value;
    for (int32_t i = 0; i < sslat_container_metadata_count(c); i++) sslat_container_metadata_at(c, i, &key, &value);
    free(arch);
}

enum { MAX_SPACES = 16 };
static sslat_space *spaces[MAX_SPACES];
static int n_spaces;

/* The example spaces tables are bound to (SSLAT_FUZZ_SPACES: a folder of .json). */
static inline void load_fuzz_spaces(void)
{
    const char *folder = getenv("SSLAT_FUZZ_SPACES");
    DIR *dir = folder ? opendir(folder) : NULL;
    struct dirent *entry;
    while (dir && n_spaces < MAX_SPACES && (entry = readdir(dir))) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 5, ".json") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        sslat_error err;
        if (sslat_space_load_file(path, NULL, &spaces[n_spaces], &err) == SSLAT_OK) n_spaces++;
    }
    if (dir) closedir(dir);
}

/* The "runtime" of the validation: the prediction times a fixed factor, so the
 * summary has something to compute. */
static inline sslat_status predicted_times(void *context, const sslat_space *space, const int32_t *const *archs,
                                           size_t n, double *ms, sslat_error *err)
{
    (void)space;
    const sslat_container *table = context;
    for (size_t i = 0; i < n; i++)
        if (sslat_current_latency(table, archs[i], sslat_container_block_count(table), &ms[i], err) != SSLAT_OK)
            return err->status;
        else
            ms[i] = ms[i] * 1.1 + 1e-3;
    return SSLAT_OK;
}

static inline void check_budget(const sslat_container *latency, const sslat_container *value)
{
    int32_t n = sslat_container_block_count(latency);
    int32_t *arch = calloc((size_t)(n > 0 ? n : 1), sizeof *arch);
    double low, high;
    sslat_error err;
    if (!arch || sslat_min_latency(latency, &low, &err) != SSLAT_OK ||
        sslat_max_latency(latency, &high, &err) != SSLAT_OK) {
        free(arch);
        return;
    }
    sslat_budget_result result;
    if (sslat_budget_maximize(latency, value, (low + high) / 2, 0, arch, n, &result, &err) == SSLAT_OK) {
        double again;
        /* the answer is an architecture of the table, within the budget up to the grid's slack */
        if (sslat_current_latency(latency, arch, n, &again, &err) != SSLAT_OK) abort();
        if (again > (low + high) / 2 + result.grid_slack + 1e-9 * (1 + high)) abort();
    }
    free(arch);
}

static inline void check_with_spaces(const sslat_container *table)
{
    for (int s = 0; s < n_spaces; s++) {
        sslat_error err;
        sslat_container *bound = NULL;
        if (sslat_container_clone(table, &bound, &err) != SSLAT_OK) return;
        sslat_container_bind_space(bound, spaces[s], &err);
        sslat_container_free(bound);
        if (sslat_attach_latency(spaces[s], table, &err) != SSLAT_OK) continue;
        double best;
        sslat_best_arch_latency(table, spaces[s], &best, &err);
        sslat_validation v;
        void *context = (void *)table; /* read only, by predicted_times */
        if (sslat_validate_architectures(spaces[s], table, 3, 1, NULL, NULL, false, predicted_times, context, &v, &err) == SSLAT_OK)
            sslat_validation_release(&v);
        sslat_reset_latency(spaces[s]);
    }
}

/* A table read by a target: everything exercise_table does, its budget search
 * against itself, and binding and validating it against the example spaces. */
static inline void use_table(const sslat_container *c)
{
    exercise_table(c);
    check_budget(c, c);
    check_with_spaces(c);
}

#endif
