/* The distribution of a uniformly random architecture's latency, exact on a
 * grid: per-block distributions convolved bin by bin. Rounding every value
 * down (up) to the grid gives a latency that is never above (below) the true
 * one for the same architecture, so the two distributions bracket the true one
 * and every quantile / CDF figure comes with a guaranteed bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "stats/stats.h"
#include "table/container.h"

/* convolution work cap (bins × candidates), so hostile tables stay fast */

typedef struct grid {
    double origin;   /* the minimum latency: bin 0 */
    double step;     /* latency per bin (0 when every architecture is equally fast) */
    double *pmf[2];  /* [0] rounded down, [1] rounded up */
    size_t length;   /* bins of each pmf */
    int32_t blocks;
} grid;

static void grid_free(grid *g)
{
    free(g->pmf[0]);
    free(g->pmf[1]);
}

static int32_t bins_of(const sslat_container *c, const sslat_distribution_options *options)
{
    int32_t bins = options && options->bins > 0 ? options->bins : SSLAT_DISTRIBUTION_DEFAULT_BINS;
    if (bins > SSLAT_MAX_BINS) bins = SSLAT_MAX_BINS;
    double candidates = c->offset[c->n_blocks] > 0 ? c->offset[c->n_blocks] : 1;
    if ((double)bins * candidates > SSLAT_MAX_DISTRIBUTION_WORK) bins = (int32_t)(SSLAT_MAX_DISTRIBUTION_WORK / candidates);
    return bins < 1 ? 1 : bins;
}

static double block_min(const sslat_container *c, int32_t b)
{
    double m = INFINITY;
    for (int32_t i = 0; i < c->n_candidates[b]; i++) m = fmin(m, c->entries[c->offset[b] + i].value);
    return m;
}

static double block_max(const sslat_container *c, int32_t b)
{
    double m = -INFINITY;
    for (int32_t i = 0; i < c->n_candidates[b]; i++) m = fmax(m, c->entries[c->offset[b] + i].value);
    return m;
}

/* Convolve one block into pmf (length used → used + max_bin). */
static void convolve(double *pmf, double *scratch, size_t used, const size_t *bin, int32_t count,
                     size_t max_bin)
{
    memset(scratch, 0, (used + max_bin) * sizeof *scratch);
    double p = 1.0 / count;
    for (int32_t i = 0; i < count; i++)
        for (size_t k = 0; k < used; k++) scratch[k + bin[i]] += pmf[k] * p;
    memcpy(pmf, scratch, (used + max_bin) * sizeof *pmf);
}

static sslat_status build_grid(const sslat_container *c, const sslat_distribution_options *options,
                               grid *g, sslat_error *error)
{
    memset(g, 0, sizeof *g);
    g->blocks = c->n_blocks;
    double range = 0;
    g->origin = c->constant.value;
    for (int32_t b = 0; b < c->n_blocks; b++) {
        g->origin += block_min(c, b);
        range += block_max(c, b) - block_min(c, b);
    }
    int32_t bins = bins_of(c, options);
    g->step = range > 0 ? range / bins : 0;
    g->length = (range > 0 ? (size_t)bins : 0) + (size_t)c->n_blocks + 2;
    double *scratch = calloc(g->length, sizeof *scratch);
    size_t *bin = calloc(257, sizeof *bin);
    g->pmf[0] = calloc(g->length, sizeof *g->pmf[0]);
    g->pmf[1] = calloc(g->length, sizeof *g->pmf[1]);
    if (!scratch || !bin || !g->pmf[0] || !g->pmf[1]) {
        free(scratch);
        free(bin);
        grid_free(g);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for a %zu-bin distribution", g->length);
    }
    for (int up = 0; up < 2; up++) {
        double *pmf = g->pmf[up];
        pmf[0] = 1.0;
        size_t used = 1;
        for (int32_t b = 0; b < c->n_blocks; b++) {
            double lo = block_min(c, b);
            size_t max_bin = 0;
            for (int32_t i = 0; i < c->n_candidates[b]; i++) {
                double offset = g->step > 0 ? (c->entries[c->offset[b] + i].value - lo) / g->step : 0;
                double k = up ? ceil(offset) : floor(offset);
                bin[i] = (size_t)k;
                if (bin[i] > max_bin) max_bin = bin[i];
            }
            if (used + max_bin > g->length) max_bin = g->length - used; /* never: bins bound the sum */
            convolve(pmf, scratch, used, bin, c->n_candidates[b], max_bin);
            used += max_bin;
        }
    }
    free(scratch);
    free(bin);
    return SSLAT_OK;
}

/* Smallest bin whose cumulative mass reaches p (a relative 1e-12 absorbs rounding). */
static size_t quantile_bin(const double *pmf, size_t length, double p)
{
    double cumulative = 0;
    for (size_t k = 0; k < length; k++) {
        cumulative += pmf[k];
        if (cumulative >= p * (1 - 1e-12)) return k;
    }
    return length - 1;
}

static sslat_status check(const sslat_container *c, const void *a, const void *b,
                          sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !a || !b) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    return sslat_container_require_complete(c, error);
}

sslat_status sslat_latency_quantile(const sslat_container *c, double p,
                                    const sslat_distribution_options *options, double *estimate,
                                    double *bound, sslat_error *error)
{
    sslat_status status = check(c, estimate, bound, error);
    if (status != SSLAT_OK) return status;
    if (!(p >= 0.0 && p <= 1.0))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "quantile %g is outside [0, 1]", p);
    grid g;
    status = build_grid(c, options, &g, error);
    if (status != SSLAT_OK) return status;
    double low = g.origin + g.step * (double)quantile_bin(g.pmf[0], g.length, p);
    double high = g.origin + g.step * (double)quantile_bin(g.pmf[1], g.length, p);
    *estimate = 0.5 * (low + high);
    *bound = 0.5 * (high - low);
    grid_free(&g);
    return SSLAT_OK;
}

/* P(latency <= budget) of one rounded distribution. */
static double cdf_at(const grid *g, int up, double budget)
{
    /* the upper bound counts float totals: an architecture whose sum rounds
     * to the budget fits, even when it is slower than the fastest by less
     * than the sum's rounding (a budget equal to the fastest included) */
    if (!up) budget += (g->blocks + 2) * (nextafter(fabs(budget), INFINITY) - fabs(budget));
    if (budget < g->origin) return 0.0;
    double position = g->step > 0 ? (budget - g->origin) / g->step : 0;
    /* rounded-down latencies may sit a hair above the budget in floating point */
    if (!up) position += 1e-9;
    size_t last = position >= (double)g->length ? g->length - 1 : (size_t)floor(position);
    double cumulative = 0;
    for (size_t k = 0; k <= last; k++) cumulative += g->pmf[up][k];
    return fmin(cumulative, 1.0);
}

sslat_status sslat_latency_cdf(const sslat_container *c, double budget,
                               const sslat_distribution_options *options, double *low, double *high,
                               sslat_error *error)
{
    sslat_status status = check(c, low, high, error);
    if (status != SSLAT_OK) return status;
    if (isnan(budget)) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "budget is NaN");
    grid g;
    status = build_grid(c, options, &g, error);
    if (status != SSLAT_OK) return status;
    *low = cdf_at(&g, 1, budget);
    *high = cdf_at(&g, 0, budget);
    /* the two sums of probabilities round apart by an ulp where the bracket
     * closes (found by fuzz_enot): the bracket stays ordered */
    if (*low > *high) *low = *high;
    grid_free(&g);
    return SSLAT_OK;
}

sslat_status sslat_count_under_budget(const sslat_container *c, double budget,
                                      const sslat_distribution_options *options, double *low,
                                      double *high, sslat_error *error)
{
    sslat_status status = sslat_latency_cdf(c, budget, options, low, high, error);
    if (status != SSLAT_OK) return status;
    double architectures = 1;
    for (int32_t b = 0; b < c->n_blocks; b++) architectures *= c->n_candidates[b];
    *low = round(*low * architectures);
    *high = round(*high * architectures);
    return SSLAT_OK;
}
