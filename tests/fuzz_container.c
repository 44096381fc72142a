/* libFuzzer target for sslat_container_load_from_bytes: any bytes give a
 * container or a clean error. What loads must save, load and save again to
 * the same bytes (unknown optional sections are dropped by the first save). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sslat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
    double v, bound;
    sslat_distribution_options grid = {256};
    sslat_min_latency(c, &v, &err);
    sslat_latency_quantile(c, 0.5, &grid, &v, &bound, &err);
    char *text = NULL;
    if (sslat_container_export_json(c, &text, &err) == SSLAT_OK) sslat_free(text);
    sslat_free(first);
    sslat_free(second);
    sslat_container_free(reloaded);
    sslat_container_free(c);
    return 0;
}
