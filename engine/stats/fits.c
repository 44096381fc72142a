#include "stats/fits.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "ir/space.h"

sslat_status sslat_table_fits_space(const sslat_container *table, const sslat_space *space, sslat_error *err)
{
    if (!table || !space) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "a table and a space are required");
    int32_t table_input[4], space_input[4];
    sslat_container_input_shape(table, table_input);
    sslat_space_input_shape(space, space_input);
    if (sslat_container_space_hash(table) != sslat_space_hash(space)) {
        /* same space at another input (a sweep's table): say which input it was made for */
        bool same_name = !strcmp(sslat_container_space_name(table), sslat_space_name(space));
        if (same_name && memcmp(table_input, space_input, sizeof table_input) != 0 && table_input[0] > 0)
            return sslat_fail(err, SSLAT_ERR_SPACE,
                              "the table of space '%s' was measured at input %dx%dx%dx%d and the space loads as "
                              "%dx%dx%dx%d: load it with the table's batch and resolution (--batch %d --resolution %dx%d)",
                              sslat_space_name(space), table_input[0], table_input[1], table_input[2], table_input[3],
                              space_input[0], space_input[1], space_input[2], space_input[3], table_input[0],
                              table_input[2], table_input[3]);
        return sslat_fail(err, SSLAT_ERR_SPACE,
                          "the table (of space '%s', hash %016" PRIx64 ") was not made for these layers: space '%s' "
                          "in this file has hash %016" PRIx64 " (other layers, candidates or parameters)",
                          sslat_container_space_name(table), sslat_container_space_hash(table),
                          sslat_space_name(space), sslat_space_hash(space));
    }
    int32_t blocks = sslat_space_block_count(space);
    if (sslat_container_block_count(table) != blocks)
        return sslat_fail(err, SSLAT_ERR_SPACE, "the table has %d NAS blocks, space '%s' %d (same hash: an edited table?)",
                          sslat_container_block_count(table), sslat_space_name(space), blocks);
    for (int32_t b = 0; b < blocks; b++)
        if (sslat_container_candidate_count(table, b) != sslat_space_candidate_count(space, b))
            return sslat_fail(err, SSLAT_ERR_SPACE,
                              "block %d has %d candidates in the table and %d in space '%s' (same hash: an edited "
                              "table?)", b, sslat_container_candidate_count(table, b),
                              sslat_space_candidate_count(space, b), sslat_space_name(space));
    return SSLAT_OK;
}
