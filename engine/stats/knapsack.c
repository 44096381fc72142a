/* The architectures that maximise a second table's total under a latency
 * budget: a multiple-choice knapsack, exact on a grid, that keeps the k best
 * partial architectures of every cell (k = 1: the single best). Latencies
 * (above each block's minimum) are rounded up to the grid, so whatever fits
 * the grid fits the budget; the i-th answer is at least as good as the i-th
 * best architecture within budget − blocks × step. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "stats/stats.h"
#include "table/container.h"

sslat_status sslat_check_table_pair(const sslat_container *latency, const sslat_container *value,
                                    sslat_error *error)
{
    sslat_status status = sslat_container_require_complete(latency, error);
    if (status == SSLAT_OK) status = sslat_container_require_complete(value, error);
    if (status != SSLAT_OK) return status;
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

/* Grid steps a candidate costs above its block's fastest: rounded up, so the
 * grid never under-counts; above the whole room it never fits. */
static int64_t grid_weight(double extra, double step, double room)
{
    if (extra == 0) return 0;
    if (step == 0 || extra > room) return INT64_MAX;
    return (int64_t)ceil(extra / step);
}

/* The columns of a grid of the given width for k answers over n blocks:
 * fewer when blocks × columns × k would pass the knapsack's memory limit. */
static int64_t grid_width(int32_t n, int64_t width, int32_t k)
{
    /* a column holds k choices per block and, twice, k values and a count */
    double per_choice = sizeof(uint8_t) + (k > 1 ? sizeof(uint16_t) : 0);
    double per_column = (double)(n > 0 ? n : 1) * k * per_choice + 2.0 * k * sizeof(double) + 2 * sizeof(int32_t);
    if ((double)(width + 1) * per_column > SSLAT_MAX_KNAPSACK_BYTES)
        width = (int64_t)(SSLAT_MAX_KNAPSACK_BYTES / per_column) - 1;
    return width < 1 ? 1 : width;
}

/* k > 1 answers over this many blocks must leave the grid at least
 * SSLAT_MIN_BUDGET_COLUMNS columns and 4 per block (or the bins asked for,
 * when fewer), so the grid slack — blocks steps — stays within a quarter of
 * the room above the fastest architecture: on a coarser grid the answers
 * collapse toward the fastest one, so it is refused, naming the largest k
 * that keeps it. (k = 1 is answered on whatever grid fits, its slack said.) */
static sslat_status budget_grid_check(const sslat_container *latency, int32_t bins, int32_t k, sslat_error *error)
{
    int32_t n = latency->n_blocks;
    int64_t wanted = bins > 0 ? bins : SSLAT_BUDGET_DEFAULT_BINS;
    int64_t needed = (int64_t)SSLAT_MIN_BUDGET_COLUMNS > 4 * (int64_t)n ? SSLAT_MIN_BUDGET_COLUMNS : 4 * (int64_t)n;
    if (needed > wanted) needed = wanted;
    int64_t width = grid_width(n, wanted, k);
    if (k == 1 || width >= needed) return SSLAT_OK;
    int32_t most = k;
    while (most > 1 && grid_width(n, wanted, most) < needed) most--;
    return sslat_fail(error, SSLAT_ERR_LIMIT,
                      "%d answers over %d blocks leave a grid of %lld columns (the search keeps every answer in "
                      "every cell within %.0f MiB): the answers would collapse toward the fastest architecture. "
                      "Ask for at most %d (a grid of %lld columns or more: 4 a block, at least 256)",
                      k, n, (long long)width, SSLAT_MAX_KNAPSACK_BYTES / (1024 * 1024), most, (long long)needed);
}

typedef struct knapsack {
    int32_t blocks, k;
    size_t columns;
    double fastest, room, step;
    double *lows;            /* per block: its fastest candidate */
    double *best, *next;     /* columns × k values, best first */
    int32_t *count, *next_count; /* columns: how many of the k are kept */
    /* each kept partial architecture of a cell (blocks × columns × k): the
     * candidate of this block and the rank of its prefix in the cell it came
     * from (NULL for k = 1: always 0) */
    uint8_t *candidate;
    uint16_t *parent_rank;
    int64_t *weight;         /* one block's candidates */
} knapsack;

static void knapsack_free(knapsack *s)
{
    free(s->lows);
    free(s->best);
    free(s->next);
    free(s->count);
    free(s->next_count);
    free(s->candidate);
    free(s->parent_rank);
    free(s->weight);
}

/* The grid: as many columns as asked, fewer when blocks × columns × k would
 * pass the knapsack's memory limit. */
static sslat_status knapsack_init(knapsack *s, const sslat_container *latency, double budget, double tolerance,
                                  int32_t bins, int32_t k, sslat_error *error)
{
    memset(s, 0, sizeof *s);
    int32_t n = latency->n_blocks;
    s->blocks = n;
    s->k = k;
    s->lows = calloc((size_t)n + 1, sizeof *s->lows);
    if (!s->lows) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    s->fastest = latency->constant.value;
    for (int32_t b = 0; b < n; b++) {
        s->lows[b] = INFINITY;
        for (int32_t i = 0; i < latency->n_candidates[b]; i++)
            s->lows[b] = fmin(s->lows[b], latency->entries[latency->offset[b] + i].value);
        s->fastest += s->lows[b];
    }
    if (s->fastest > budget)
        return sslat_fail(error, SSLAT_ERR_SPACE, "no architecture fits %.6g %s: the fastest takes %.6g %s",
                          budget, sslat_container_unit(latency), s->fastest, sslat_container_unit(latency));
    /* tolerance > 0: candidates up to that much over the room are let in
     * (their float totals may still fit: the caller checks each answer);
     * < 0: the room is shrunk by it, so every answer's float total fits */
    s->room = fmax(budget - s->fastest + tolerance, 0);
    int64_t width = bins > 0 ? bins : SSLAT_BUDGET_DEFAULT_BINS;
    width = grid_width(n, width, k);
    s->step = s->room > 0 ? s->room / (double)width : 0;
    if (s->room <= 0) width = 0;
    s->columns = (size_t)width + 1;
    size_t cells = s->columns * (size_t)k;
    s->best = malloc(cells * sizeof *s->best);
    s->next = malloc(cells * sizeof *s->next);
    s->count = malloc(s->columns * sizeof *s->count);
    s->next_count = malloc(s->columns * sizeof *s->next_count);
    size_t choices = (size_t)(n > 0 ? n : 1) * cells;
    s->candidate = malloc(choices * sizeof *s->candidate);
    s->parent_rank = k > 1 ? malloc(choices * sizeof *s->parent_rank) : NULL;
    s->weight = malloc(SSLAT_MAX_CANDIDATES * sizeof *s->weight);
    if (!s->best || !s->next || !s->count || !s->next_count || !s->candidate || (k > 1 && !s->parent_rank) ||
        !s->weight)
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for a %zu-column knapsack", s->columns);
    for (size_t w = 0; w < s->columns; w++) { /* before block 0: the empty prefix, worth 0 */
        s->best[w * (size_t)k] = 0;
        s->count[w] = 1;
    }
    return SSLAT_OK;
}

/* The k best of one cell: merge each candidate's list from the cell it came
 * from (each list is sorted best first); ties go to the lower candidate. */
static void knapsack_cell(knapsack *s, int32_t b, size_t w, const sslat_entry *val, int32_t candidates)
{
    int32_t k = s->k, taken = 0;
    int32_t cursor[SSLAT_MAX_CANDIDATES];
    memset(cursor, 0, (size_t)candidates * sizeof cursor[0]);
    double *out = &s->next[w * (size_t)k];
    size_t first = ((size_t)b * s->columns + w) * (size_t)k;
    while (taken < k) {
        double top = -INFINITY;
        int32_t pick = -1;
        for (int32_t i = 0; i < candidates; i++) {
            if (s->weight[i] > (int64_t)w) continue;
            size_t from = w - (size_t)s->weight[i];
            if (cursor[i] >= s->count[from]) continue;
            double v = s->best[from * (size_t)k + (size_t)cursor[i]] + val[i].value;
            if (pick < 0 || v > top) {
                top = v;
                pick = i;
            }
        }
        if (pick < 0) break; /* fewer than k partial architectures reach this cell */
        out[taken] = top;
        s->candidate[first + (size_t)taken] = (uint8_t)pick;
        if (s->parent_rank) s->parent_rank[first + (size_t)taken] = (uint16_t)cursor[pick];
        cursor[pick]++;
        taken++;
    }
    s->next_count[w] = taken;
}

/* The k best on the grid of a room widened (tolerance > 0) or shrunk
 * (< 0) by the float resolution, each answer's float total checked against
 * the budget: *found answers in archs / results, best first. */
static sslat_status knapsack_answers(const sslat_container *latency, const sslat_container *value, double budget,
                                     double tolerance, int32_t bins, int32_t k, int32_t *archs, int32_t capacity,
                                     sslat_budget_result *results, int32_t *found, int32_t *dropped,
                                     sslat_error *error)
{
    int32_t n = latency->n_blocks;
    knapsack s;
    sslat_status status = knapsack_init(&s, latency, budget, tolerance, bins, k, error);
    if (status != SSLAT_OK) {
        knapsack_free(&s);
        return status;
    }
    for (int32_t b = 0; b < n; b++) {
        const sslat_entry *lat = &latency->entries[latency->offset[b]];
        for (int32_t i = 0; i < latency->n_candidates[b]; i++)
            s.weight[i] = grid_weight(lat[i].value - s.lows[b], s.step, s.room);
        for (size_t w = 0; w < s.columns; w++)
            knapsack_cell(&s, b, w, &value->entries[value->offset[b]], latency->n_candidates[b]);
        double *swap = s.best;
        s.best = s.next;
        s.next = swap;
        int32_t *swap_count = s.count;
        s.count = s.next_count;
        s.next_count = swap_count;
    }
    /* walk each kept answer of the last column back to its candidates */
    size_t last = s.columns - 1;
    int32_t kept = 0;
    for (int32_t r = 0; r < s.count[last]; r++) {
        int32_t *arch = &archs[(size_t)kept * (size_t)capacity];
        size_t w = last;
        int32_t rank = r;
        for (int32_t b = n - 1; b >= 0; b--) {
            size_t at = ((size_t)b * s.columns + w) * (size_t)k + (size_t)rank;
            arch[b] = s.candidate[at];
            w -= (size_t)grid_weight(latency->entries[latency->offset[b] + arch[b]].value - s.lows[b], s.step, s.room);
            rank = s.parent_rank ? s.parent_rank[at] : 0;
        }
        sslat_current_latency(latency, arch, n, &results[kept].latency, NULL);
        sslat_current_latency(value, arch, n, &results[kept].value, NULL);
        results[kept].grid_slack = n * s.step;
        if (results[kept].latency <= budget) kept++; /* an answer a rounding put over the budget is dropped */
    }
    *found = kept;
    *dropped = s.count[last] - kept;
    knapsack_free(&s);
    return SSLAT_OK;
}

/* Whether two answers are one architecture. */
static bool same_arch(const int32_t *a, const int32_t *b, int32_t n) { return !memcmp(a, b, (size_t)n * sizeof *a); }

sslat_status sslat_budget_top(const sslat_container *latency, const sslat_container *value, double budget,
                              int32_t bins, int32_t k, int32_t *archs, int32_t capacity,
                              sslat_budget_result *results, int32_t *found, sslat_error *error)
{
    sslat_error_clear(error);
    if (!latency || !value || !archs || !results || !found)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *found = 0;
    if (isnan(budget)) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "budget is NaN");
    if (k < 1 || k > SSLAT_MAX_BUDGET_TOP)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "k is %d: ask for 1 to %d architectures", k,
                          SSLAT_MAX_BUDGET_TOP);
    sslat_status status = sslat_check_table_pair(latency, value, error);
    if (status != SSLAT_OK) return status;
    int32_t n = latency->n_blocks;
    if (capacity < n)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "arch holds %d indices, the table has %d blocks", capacity, n);
    status = budget_grid_check(latency, bins, k, error);
    if (status != SSLAT_OK) return status;
    /* float totals: an architecture whose sum equals the budget fits even when
     * a candidate is slower than its block's fastest by less than the sum's
     * rounding (a limit equal to the fastest architecture included) */
    double tolerance = (n + 2) * (nextafter(fabs(budget), INFINITY) - fabs(budget));
    int32_t dropped = 0, none = 0;
    status = knapsack_answers(latency, value, budget, tolerance, bins, k, archs, capacity, results, found, &dropped,
                              error);
    if (status != SSLAT_OK || !dropped) return status;
    /* fewer than k kept: an answer the widened room let in may have been
     * dropped, so the room shrunk by as much (every answer fits) tops them up */
    int32_t *more = malloc(((size_t)k * (size_t)capacity + 1) * sizeof *more);
    sslat_budget_result *more_results = malloc((size_t)k * sizeof *more_results);
    int32_t more_found = 0;
    if (!more || !more_results) status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    if (status == SSLAT_OK)
        status = knapsack_answers(latency, value, budget, -tolerance, bins, k, more, capacity, more_results,
                                  &more_found, &none, error);
    for (int32_t m = 0; status == SSLAT_OK && m < more_found && *found < k; m++) {
        const int32_t *arch = &more[(size_t)m * (size_t)capacity];
        bool known = false;
        for (int32_t r = 0; r < *found && !known; r++) known = same_arch(&archs[(size_t)r * (size_t)capacity], arch, n);
        if (known) continue;
        /* inserted by value, best first */
        int32_t at = *found;
        while (at > 0 && results[at - 1].value < more_results[m].value) at--;
        for (int32_t r = *found; r > at; r--) {
            memcpy(&archs[(size_t)r * (size_t)capacity], &archs[(size_t)(r - 1) * (size_t)capacity], (size_t)n * sizeof *arch);
            results[r] = results[r - 1];
        }
        memcpy(&archs[(size_t)at * (size_t)capacity], arch, (size_t)n * sizeof *arch);
        results[at] = more_results[m];
        (*found)++;
    }
    free(more);
    free(more_results);
    return status;
}

sslat_status sslat_budget_maximize(const sslat_container *latency, const sslat_container *value,
                                   double budget, int32_t bins, int32_t *arch, int32_t capacity,
                                   sslat_budget_result *result, sslat_error *error)
{
    int32_t found = 0; /* a NULL result is refused there, as every NULL argument */
    return sslat_budget_top(latency, value, budget, bins, 1, arch, capacity, result, &found, error);
}
