/* libFuzzer target for what takes two valid tables (or a table and a space):
 * merge, the budget search of one table's latency against another's values,
 * attaching to a space, a validation of the argmin / argmax / random
 * architectures. Inputs are two containers (fuzz_containers.h), mutated with
 * their checksums fixed; the spaces are the example files whose tables seed
 * the corpus (SSLAT_FUZZ_SPACES: a folder of .json, set by scripts/test.sh).
 * Anything may be refused; nothing may crash, leak or disagree with itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_containers.h"
#include "sslat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    load_fuzz_spaces();
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return mutate_pair(data, size, max_size, seed);
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
