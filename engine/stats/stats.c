/* Statistics over a container: the reference's min / max / mean / sample /
 * median / current / best, plus argmin / argmax. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/order.h"
#include "base/rng.h"
#include "ir/space.h"
#include "stats/fits.h"
#include "table/container.h"

static sslat_status check(const sslat_container *c, const void *out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    return sslat_container_require_complete(c, error);
}

typedef enum { PICK_MIN, PICK_MAX } pick;

/* Index of the smallest / largest candidate of a block (the first on ties). */
static int32_t extreme(const sslat_container *c, int32_t b, pick which)
{
    const sslat_entry *e = &c->entries[c->offset[b]];
    int32_t best = 0;
    for (int32_t i = 1; i < c->n_candidates[b]; i++)
        if (which == PICK_MIN ? e[i].value < e[best].value : e[i].value > e[best].value) best = i;
    return best;
}

static sslat_status extreme_latency(const sslat_container *c, pick which, double *latency,
                                    sslat_error *error)
{
    sslat_status status = check(c, latency, error);
    if (status != SSLAT_OK) return status;
    double total = c->constant.value;
    for (int32_t b = 0; b < c->n_blocks; b++)
        total += c->entries[c->offset[b] + extreme(c, b, which)].value;
    *latency = total;
    return SSLAT_OK;
}

sslat_status sslat_min_latency(const sslat_container *c, double *latency, sslat_error *error)
{
    return extreme_latency(c, PICK_MIN, latency, error);
}

sslat_status sslat_max_latency(const sslat_container *c, double *latency, sslat_error *error)
{
    return extreme_latency(c, PICK_MAX, latency, error);
}

sslat_status sslat_mean_latency(const sslat_container *c, double *latency, sslat_error *error)
{
    sslat_status status = check(c, latency, error);
    if (status != SSLAT_OK) return status;
    double total = c->constant.value;
    for (int32_t b = 0; b < c->n_blocks; b++) {
        double sum = 0;
        for (int32_t i = 0; i < c->n_candidates[b]; i++) sum += c->entries[c->offset[b] + i].value;
        total += sum / c->n_candidates[b];
    }
    *latency = total;
    return SSLAT_OK;
}

static sslat_status extreme_arch(const sslat_container *c, pick which, int32_t *arch,
                                 int32_t capacity, sslat_error *error)
{
    sslat_status status = check(c, arch, error);
    if (status != SSLAT_OK) return status;
    if (capacity < c->n_blocks)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "arch holds %d indices, the table has %d blocks",
                          capacity, c->n_blocks);
    for (int32_t b = 0; b < c->n_blocks; b++) arch[b] = extreme(c, b, which);
    return SSLAT_OK;
}

sslat_status sslat_argmin_arch(const sslat_container *c, int32_t *arch, int32_t capacity,
                               sslat_error *error)
{
    return extreme_arch(c, PICK_MIN, arch, capacity, error);
}

sslat_status sslat_argmax_arch(const sslat_container *c, int32_t *arch, int32_t capacity,
                               sslat_error *error)
{
    return extreme_arch(c, PICK_MAX, arch, capacity, error);
}

sslat_status sslat_sample_latencies(const sslat_container *c, size_t n, uint64_t seed,
                                    double *latencies, sslat_error *error)
{
    sslat_status status = check(c, n ? (const void *)latencies : (const void *)c, error);
    if (status != SSLAT_OK) return status;
    sslat_rng rng;
    sslat_rng_seed(&rng, seed);
    for (size_t s = 0; s < n; s++) {
        double total = c->constant.value;
        for (int32_t b = 0; b < c->n_blocks; b++)
            total += c->entries[c->offset[b] + (int32_t)sslat_rng_below(&rng, (uint32_t)c->n_candidates[b])].value;
        latencies[s] = total;
    }
    return SSLAT_OK;
}

sslat_status sslat_median_latency(const sslat_container *c, size_t n, uint64_t seed,
                                  double *latency, sslat_error *error)
{
    sslat_status status = check(c, latency, error);
    if (status != SSLAT_OK) return status;
    if (n == 0) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "median of 0 samples");
    double *samples = malloc(n * sizeof *samples);
    if (!samples) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for %zu samples", n);
    status = sslat_sample_latencies(c, n, seed, samples, error);
    if (status == SSLAT_OK) {
        qsort(samples, n, sizeof *samples, sslat_compare_doubles);
        *latency = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    }
    free(samples);
    return status;
}

sslat_status sslat_current_latency(const sslat_container *c, const int32_t *arch, int32_t length,
                                   double *latency, sslat_error *error)
{
    sslat_status status = check(c, latency, error);
    if (status != SSLAT_OK) return status;
    if (length != c->n_blocks || (length > 0 && !arch))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "the architecture has %d indices but the table has %d blocks", length,
                          c->n_blocks);
    double total = c->constant.value;
    for (int32_t b = 0; b < length; b++) {
        if (arch[b] < 0 || arch[b] >= c->n_candidates[b])
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                              "arch[%d] = %d is out of range: block %d has %d candidates", b,
                              arch[b], b, c->n_candidates[b]);
        total += c->entries[c->offset[b] + arch[b]].value;
    }
    *latency = total;
    return SSLAT_OK;
}

sslat_status sslat_best_arch_latency(const sslat_container *c, const sslat_space *space,
                                     double *latency, sslat_error *error)
{
    sslat_status status = check(c, latency, error);
    if (status != SSLAT_OK) return status;
    if (!space) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "space is NULL");
    status = sslat_table_fits_space(c, space, error);
    if (status != SSLAT_OK) return status;
    if (!space->arch)
        return sslat_fail(error, SSLAT_ERR_SPACE, "space '%s' has no \"arch\"", space->name);
    return sslat_current_latency(c, space->arch, space->n_blocks, latency, error);
}
