/* Load + MAC-count time of the largest example spaces (target: well under 10 ms).
 * Prints the median of repeated runs per space, and the ratio to the target. */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/order.h"
#include "calc/calculator.h"
#include "sslat.h"

/* One load of the file and one count with every MAC rule. */
static int load_and_count(const char *path, double *checksum)
{
    sslat_space *space = NULL;
    sslat_error err;
    if (sslat_space_load_file(path, NULL, &space, &err) != SSLAT_OK) {
        fprintf(stderr, "bench_load: %s\n", err.message);
        return 1;
    }
    size_t total = sslat_space_total_candidates(space);
    double *per_op = calloc(total, sizeof *per_op), constant = 0;
    static const char *const RULES[] = {"mac", "mac_thop", "mac_fvcore", "mac_pthflops"};
    for (int r = 0; r < 4 && per_op; r++) {
        sslat_mac_count(space, RULES[r], NULL, &constant, per_op, total, &err);
        *checksum += constant + per_op[total - 1];
    }
    free(per_op);
    sslat_space_free(space);
    return per_op ? 0 : 1;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 50;
    if (runs < 1) runs = 1;
    const char *names[] = {"ofa_mobilenet_v3.json", "fbnet.json", "proxylessnas.json", "yolov5s_ss.json"};
    double checksum = 0, *times = calloc((size_t)runs, sizeof *times);
    if (!times) return 1;
    printf("%-24s %10s %10s %12s\n", "space", "median ms", "min ms", "ms / 10 ms");
    for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SSLAT_EXAMPLES_DIR, names[s]);
        for (int i = 0; i < runs; i++) {
            double start = sslat_now_ms();
            if (load_and_count(path, &checksum) != 0) return 1;
            times[i] = sslat_now_ms() - start;
        }
        qsort(times, (size_t)runs, sizeof *times, sslat_compare_doubles);
        double median = times[runs / 2];
        printf("%-24s %10.3f %10.3f %12.3f\n", names[s], median, times[0], median / 10.0);
    }
    printf("(load + 4 MAC rules per run, %d runs; checksum %.3f)\n", runs, checksum);
    free(times);
    return 0;
}
