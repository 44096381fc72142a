/* Statistics speed on the big example spaces, against the naive way in the same run:
 *  - sample_latencies of 10^6 architectures on FBNet (22 blocks x 9), vs drawing each
 *    architecture with rand() % n into an array and summing it through current_latency;
 *  - the exact median of the OFA space (3.5e19 architectures: no enumeration), vs the
 *    naive estimate: sort 10^6 random samples and take the middle one.
 * Prints times and their ratios; nothing is asserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/order.h"
#include "sslat.h"

static sslat_container *mac_table(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SSLAT_EXAMPLES_DIR, file);
    sslat_space *space = NULL;
    sslat_container *attached = NULL, *copy = NULL;
    sslat_error err;
    if (sslat_space_load_file(path, NULL, &space, &err) != SSLAT_OK ||
        sslat_initialize_latency("mac", space, NULL, NULL, &attached, &err) != SSLAT_OK ||
        sslat_container_clone(attached, &copy, &err) != SSLAT_OK) {
        fprintf(stderr, "bench_stats: %s\n", err.message);
        exit(1);
    }
    sslat_space_free(space);
    return copy;
}

int main(void)
{
    const size_t n = 1000000;
    double *samples = malloc(n * sizeof *samples);
    int32_t arch[64];
    sslat_error err;
    if (!samples) return 1;

    sslat_container *fbnet = mac_table("fbnet.json");
    int32_t blocks = sslat_container_block_count(fbnet);
    double t0 = sslat_now_s();
    sslat_sample_latencies(fbnet, n, 1, samples, &err);
    double fast = sslat_now_s() - t0;
    double checksum = 0;
    for (size_t i = 0; i < n; i++) checksum += samples[i];
    srand(1);
    t0 = sslat_now_s();
    for (size_t i = 0; i < n; i++) {
        for (int32_t b = 0; b < blocks; b++) arch[b] = rand() % sslat_container_candidate_count(fbnet, b);
        sslat_current_latency(fbnet, arch, blocks, &samples[i], &err);
    }
    double naive = sslat_now_s() - t0;
    printf("%-44s %10s %10s %8s\n", "", "sslat s", "naive s", "speedup");
    printf("%-44s %10.4f %10.4f %8.1fx\n", "sample_latencies 10^6, FBNet (22 x 9)", fast, naive, naive / fast);

    sslat_container *ofa = mac_table("ofa_mobilenet_v3.json");
    double median, bound;
    t0 = sslat_now_s();
    sslat_latency_quantile(ofa, 0.5, NULL, &median, &bound, &err);
    double exact = sslat_now_s() - t0;
    t0 = sslat_now_s();
    sslat_sample_latencies(ofa, n, 2, samples, &err);
    qsort(samples, n, sizeof *samples, sslat_compare_doubles);
    double sampled_median = samples[n / 2];
    double sorted = sslat_now_s() - t0;
    printf("%-44s %10.4f %10.4f %8.1fx\n", "exact median, OFA (3.5e19 archs) vs 10^6 sort", exact, sorted, sorted / exact);
    printf("  exact median %.4f +- %.4f MMAC; sampled median %.4f MMAC (off by %.4f)\n", median, bound,
           sampled_median, fabs(sampled_median - median));
    printf("(checksum %.1f)\n", checksum);
    sslat_container_free(fbnet);
    sslat_container_free(ofa);
    free(samples);
    return 0;
}
