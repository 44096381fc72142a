/* libFuzzer target for what takes two valid tables (or a table and a space):
 * merge, the budget search of one table's latency against another's values,
 * attaching to a space, a validation of the argmin / argmax / random
 * architectures. Inputs are two containers (fuzz_containers.h), mutated with
 * their checksums fixed; the spaces are the example files whose tables seed
 * the corpus (SSLAT_FUZZ_SPACES: a folder of .json, set by scripts/test.sh).
 * Anything may be refused; nothing may crash, leak or disagree with itself. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_containers.h"
#include "sslat.h"
#include "stats/validation.h"

enum { MAX_SPACES = 16 };
static sslat_space *spaces[MAX_SPACES];
static int n_spaces;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
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
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return mutate_pair(data, size, max_size, seed);
}

/* The "runtime" of the validation: the prediction times a fixed factor, so the
 * summary has something to compute. */
static sslat_status predicted_times(void *context, const sslat_space *space, const int32_t *const *archs, size_t n,
                                    double *ms, sslat_error *err)
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

static void check_merge(const sslat_container *a, const sslat_container *b)
{
    const sslat_container *parts[] = {a, b};
    sslat_container *whole = NULL;
    sslat_error err;
    if (sslat_container_merge(parts, 2, &whole, &err) != SSLAT_OK) {
        if (whole || !err.message[0]) abort(); /* a refusal leaves nothing and says why */
        return;
    }
    if (sslat_container_shard(whole, NULL, NULL)) abort(); /* a merge is a whole table */
    exercise_table(whole);
    uint8_t *bytes = NULL;
    size_t size = 0;
    sslat_container *again = NULL;
    if (sslat_container_save_to_bytes(whole, &bytes, &size, &err) != SSLAT_OK ||
        sslat_container_load_from_bytes(bytes, size, &again, &err) != SSLAT_OK)
        abort(); /* what merge made must save and read back */
    sslat_free(bytes);
    sslat_container_free(again);
    sslat_container_free(whole);
}

static void check_budget(const sslat_container *latency, const sslat_container *value)
{
    int32_t n = sslat_container_block_count(latency);
    int32_t *arch = calloc((size_t)(n > 0 ? n : 1), sizeof *arch);
    double low, high;
    sslat_error err;
    if (!arch || sslat_min_latency(latency, &low, &err) != SSLAT_OK || sslat_max_latency(latency, &high, &err) != SSLAT_OK) {
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

static void check_with_spaces(sslat_container *table)
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
        if (sslat_validate_architectures(spaces[s], table, 3, 1, false, predicted_times, table, &v, &err) == SSLAT_OK)
            sslat_validation_release(&v);
        sslat_reset_latency(spaces[s]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    container_pair p = split_pair(data, size);
    sslat_container *a = NULL, *b = NULL;
    sslat_error err;
    if (sslat_container_load_from_bytes(p.first, p.first_size, &a, &err) != SSLAT_OK ||
        sslat_container_load_from_bytes(p.second, p.second_size, &b, &err) != SSLAT_OK) {
        sslat_container_free(a);
        return 0;
    }
    check_merge(a, b);
    exercise_table(a);
    check_budget(a, b);
    check_with_spaces(a);
    sslat_container_free(a);
    sslat_container_free(b);
    return 0;
}
