/* libFuzzer target for sslat_container_load_from_bytes: any bytes give a
 * container or a clean error. What loads must save, load and save again to
 * the same bytes (unknown optional sections are dropped by the first save).
 * Its mutator fixes the checksum (fuzz_containers.h), so mutations reach the
 * sections behind it. Inputs starting with '{' are the JSON form instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_containers.h"
#include "sslat.h"

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 8 && size && data[0] != '{') fix_container(data, size); /* JSON has no checksum */
    return size;
}

/* A table's other format, JSON (sslat import): any text gives a table or a
 * clean error; what loads saves and loads back. */
static int json_table(const uint8_t *data, size_t size)
{
    sslat_container *c = NULL;
    sslat_error err;
    if (sslat_container_import_json((const char *)data, size, &c, &err) != SSLAT_OK) {
        if (c != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    uint8_t *bytes = NULL;
    size_t n = 0;
    sslat_container *again = NULL;
    if (sslat_container_save_to_bytes(c, &bytes, &n, &err) != SSLAT_OK ||
        sslat_container_load_from_bytes(bytes, n, &again, &err) != SSLAT_OK)
        abort(); /* import refuses what the binary reader would */
    use_table(c);
    sslat_free(bytes);
    sslat_container_free(again);
    sslat_container_free(c);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    load_fuzz_spaces();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size && data[0] == '{') return json_table(data, size);
    sslat_container *c = NULL;
    sslat_error err;
    if (sslat_container_load_from_bytes(data, size, &c, &err) != SSLAT_OK) {
        if (c != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    uint8_t *first = NULL, *second = NULL;
    size_t first_size = 0, second_size = 0;
    sslat_container *reloaded = NULL;
    if (sslat_container_save_to_bytes(c, &first, &first_size, &err) != SSLAT_OK ||
        sslat_container_load_from_bytes(first, first_size, &reloaded, &err) != SSLAT_OK ||
        sslat_container_save_to_bytes(reloaded, &second, &second_size, &err) != SSLAT_OK)
        abort();
    if (first_size != second_size || memcmp(first, second, first_size) != 0) abort();
    use_table(c);
    sslat_free(first);
    sslat_free(second);
    sslat_container_free(reloaded);
    sslat_container_free(c);
    return 0;
}
