/* libFuzzer target for the search-space loader: any bytes must give a space or a
 * clean error, never a crash, leak or sanitizer report. Build with
 * -DSSLAT_FUZZ=ON (clang); run: build-fuzz/fuzz_loader -max_total_time=60 corpus/ */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sslat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sslat_space *space = NULL;
    sslat_error err;
    sslat_status status = sslat_space_load_string((const char *)data, size, "fuzz", NULL, &space, &err);
    if (status == SSLAT_OK) {
        /* touch what a loaded space offers */
        double constant = 0;
        int32_t blocks = sslat_space_block_count(space);
        size_t total = 0;
        for (int32_t b = 0; b < blocks; b++) total += (size_t)sslat_space_candidate_count(space, b);
        double *per_op = calloc(total + 1, sizeof *per_op);
        if (per_op) sslat_mac_count(space, "mac_pthflops", NULL, &constant, per_op, total, &err);
        free(per_op);
        char count[64];
        sslat_space_architecture_count_string(space, count, sizeof count);
        sslat_space_free(space);
    } else if (space != NULL || strlen(err.message) == 0) {
        abort(); /* a failure must leave nothing loaded and say why */
    }
    return 0;
}
