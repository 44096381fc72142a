/* The reference workflow in C, with nothing but the public header:
 *   cc api_example.c -lsslat -ljansson -lm && ./a.out examples/ofa_mobilenet_v3.json
 * Loads a space, attaches a MAC table (as enot.latency's initialize_latency),
 * prints the statistics, saves the table, loads it back and checks it. */
#include <stdio.h>
#include <stdlib.h>

#include "sslat.h"

static int fail(const char *what, const sslat_error *err)
{
    fprintf(stderr, "api_example: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    sslat_error err;
    sslat_space *space = NULL;
    sslat_status status = argc > 1 ? sslat_space_load_file(argv[1], NULL, &space, &err)
                                   : sslat_space_load_default(NULL, &space, &err);
    if (status != SSLAT_OK) return fail("load", &err);

    const char *const *names = NULL;
    int32_t count = sslat_available_calculators(&names);
    printf("calculators:");
    for (int32_t i = 0; i < count; i++) printf(" %s", names[i]);
    printf("\n");

    sslat_container *latency = NULL; /* owned by the space */
    if (sslat_initialize_latency("mac_fvcore", space, NULL, NULL, &latency, &err) != SSLAT_OK)
        return fail("initialize_latency", &err);

    double min, max, mean, median, p50, bound;
    if (sslat_min_latency(latency, &min, &err) || sslat_max_latency(latency, &max, &err) ||
        sslat_mean_latency(latency, &mean, &err) ||
        sslat_median_latency(latency, 100, 0, &median, &err) ||
        sslat_latency_quantile(latency, 0.5, NULL, &p50, &bound, &err))
        return fail("statistics", &err);
    printf("%s: %d blocks, %.0f architectures\n", sslat_space_name(space),
           sslat_container_block_count(latency), sslat_space_architecture_count(space));
    printf("min %.3f  max %.3f  mean %.3f  median(100) %.3f  exact median %.3f +- %.3f %s\n", min,
           max, mean, median, p50, bound, sslat_container_unit(latency));

    const char *path = "api_example.sslat";
    sslat_container *loaded = NULL;
    if (sslat_container_save_to_file(latency, path, &err) != SSLAT_OK ||
        sslat_container_load_from_file(path, &loaded, &err) != SSLAT_OK)
        return fail("save / load", &err);
    double again;
    sslat_min_latency(loaded, &again, &err);
    remove(path);
    sslat_container_free(loaded);
    sslat_reset_latency(space);
    sslat_space_free(space);
    if (again != min) {
        fprintf(stderr, "api_example: the loaded table differs\n");
        return 1;
    }
    printf("saved, loaded and checked %s\n", path);
    return 0;
}
