/* The architecture that maximises a second table's total under a latency
 * budget: a multiple-choice knapsack, exact on a grid. Latencies (above each
 * block's minimum) are rounded up to the grid, so whatever fits the grid fits
 * the budget; an architecture within budget − blocks × step always fits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "stats/stats.h"
#include "table/container.h"


static sslat_status check_pair(const sslat_container *latency, const sslat_container *value,
                               sslat_error *error)
{
    if (latency->n_blocks != value->n_blocks)
        return sslat_fail(error, SSLAT_ERR_SPACE, "the value table has %d blocks, the latency table %d",
                          value->n_blocks, latency->n_blocks);
    for (int32_t b = 0; b < latency->n_blocks; b++)
        if (latency->n_candidates[b] != value->n_candidates[b])
            return sslat_fail(error, SSLAT_ERR_SPACE, "block %d: %d candidates in the value table, %d in the latency table",
                              b, value->n_candidates[b], latency->n_candidates[b]);
    if (latency->space_hash && value->space_hash && latency->space_hash != value->space_hash)
        return sslat_fail(error, SSLAT_ERR_SPACE, "the tables come from different spaces or inputs ('%s' on "
                          "%dx%dx%dx%d and '%s' on %dx%dx%dx%d)", latency->space_name, latency->input[0],
                          latency->input[1], latency->input[2], latency->input[3], value->space_name,
                          value->input[0], value->input[1], value->input[2], value->input[3]);
    return SSLAT_OK;
}

sslat_status sslat_budget_maximize(const sslat_container *latency, const sslat_container *value,
                                   double budget, int32_t bins, int32_t *arch, int32_t capacity,
                                   sslat_budget_result *result, sslat_error *error)
{
    sslat_error_clear(error);
    if (!latency || !value || !arch || !result)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    if (isnan(budget)) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "budget is NaN");
    sslat_status status = sslat_container_require_complete(latency, error);
    if (status == SSLAT_OK) status = sslat_container_require_complete(value, error);
    if (status == SSLAT_OK) status = check_pair(latency, value, error);
    if (status != SSLAT_OK) return status;
    int32_t n = latency->n_blocks;
    if (capacity < n)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "arch holds %d indices, the table has %d blocks", capacity, n);

    double fastest = latency->constant.value;
    double *lows = calloc((size_t)n + 1, sizeof *lows);
    if (!lows) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    for (int32_t b = 0; b < n; b++) {
        lows[b] = INFINITY;
        for (int32_t i = 0; i < latency->n_candidates[b]; i++)
            lows[b] = fmin(lows[b], latency->entries[latency->offset[b] + i].value);
        fastest += lows[b];
    }
    if (fastest > budget) {
        free(lows);
        return sslat_fail(error, SSLAT_ERR_SPACE, "no architecture fits %.6g %s: the fastest takes %.6g",
                          budget, sslat_container_unit(latency), fastest);
    }
    double room = budget - fastest;
    int64_t width = bins > 0 ? bins : SSLAT_BUDGET_DEFAULT_BINS;
    if ((double)(width + 1) * (n > 0 ? n : 1) > SSLAT_MAX_KNAPSACK_BYTES) width = (int64_t)(SSLAT_MAX_KNAPSACK_BYTES / (n > 0 ? n : 1)) - 1;
    double step = room > 0 ? room / (double)width : 0;
    if (room <= 0) width = 0;

    size_t columns = (size_t)width + 1;
    double *best = malloc(columns * sizeof *best), *next = malloc(columns * sizeof *next);
    unsigned char *choice = malloc((size_t)n * columns + 1);
    int64_t *weight = malloc(257 * sizeof *weight);
    if (!best || !next || !choice || !weight) {
        free(best);
        free(next);
        free(choice);
        free(weight);
        free(lows);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for a %zu-column knapsack", columns);
    }
    for (size_t w = 0; w < columns; w++) best[w] = 0;
    for (int32_t b = 0; b < n; b++) {
        const sslat_entry *lat = &latency->entries[latency->offset[b]];
        const sslat_entry *val = &value->entries[value->offset[b]];
        for (int32_t i = 0; i < latency->n_candidates[b]; i++) {
            double extra = lat[i].value - lows[b];
            /* above the room: never fits; else rounded up to the grid */
            weight[i] = extra == 0 ? 0 : step == 0 || extra > room ? INT64_MAX : (int64_t)ceil(extra / step);
        }
        for (size_t w = 0; w < columns; w++) {
            double top = -INFINITY;
            unsigned char pick = 0;
            for (int32_t i = 0; i < latency->n_candidates[b]; i++) {
                if (weight[i] > (int64_t)w) continue;
                double v = best[w - (size_t)weight[i]] + val[i].value;
                if (v > top) {
                    top = v;
                    pick = (unsigned char)i;
                }
            }
            next[w] = top; /* the block's fastest candidate has weight 0: always finite */
            choice[(size_t)b * columns + w] = pick;
        }
        double *swap = best;
        best = next;
        next = swap;
    }
    size_t w = (size_t)width;
    double total_latency = latency->constant.value;
    for (int32_t b = n - 1; b >= 0; b--) {
        arch[b] = choice[(size_t)b * columns + w];
        double extra = latency->entries[latency->offset[b] + arch[b]].value - lows[b];
        w -= extra == 0 ? 0 : (size_t)ceil(extra / step);
        total_latency += latency->entries[latency->offset[b] + arch[b]].value;
    }
    result->latency = total_latency;
    result->value = value->constant.value + best[width];
    result->grid_slack = n * step;
    free(best);
    free(next);
    free(choice);
    free(weight);
    free(lows);
    return SSLAT_OK;
}
