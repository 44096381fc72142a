/* libFuzzer target for the ENOT pickle reader: any bytes give a table or a
 * clean error; a table exports and reads back to the same values, and its
 * statistics and other exports agree (fuzz_containers.h). */
#include <stdint.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sslat_container *c = NULL;
    sslat_error err;
    if (sslat_container_import_enot(data, size, &c, &err) != SSLAT_OK) {
        if (c != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    uint8_t *bytes = NULL;
    size_t n = 0;
    sslat_container *again = NULL;
    if (sslat_container_export_enot(c, &bytes, &n, &err) != SSLAT_OK ||
        sslat_container_import_enot(bytes, n, &again, &err) != SSLAT_OK)
        abort();
    if (sslat_container_constant_latency(again) != sslat_container_constant_latency(c)) abort();
    use_table(c);
    sslat_free(bytes);
    sslat_container_free(again);
    sslat_container_free(c);
    return 0;
}
