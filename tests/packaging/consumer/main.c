/* A program of another project: the default space's MAC table through the
 * public header only. */
#include <stdio.h>

#include <sslat.h>

int main(void)
{
    if (sslat_version_number() != SSLAT_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header %s, library %s\n", SSLAT_VERSION_STRING, sslat_version());
        return 1;
    }
    sslat_space *space = NULL;
    sslat_container *table = NULL;
    sslat_error err;
    double min = 0;
    if (sslat_space_load_default(NULL, &space, &err) != SSLAT_OK ||
        sslat_initialize_latency("mac", space, NULL, NULL, &table, &err) != SSLAT_OK ||
        sslat_min_latency(table, &min, &err) != SSLAT_OK || !(min > 0)) {
        fprintf(stderr, "consumer: %s\n", err.message);
        sslat_space_free(space);
        return 1;
    }
    printf("consumer: ok (min %.1f MMAC over %d blocks)\n", min, sslat_space_block_count(space));
    sslat_space_free(space);
    return 0;
}
