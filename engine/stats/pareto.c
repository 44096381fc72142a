/* The Pareto front of (latency ↓, value ↑) over every architecture of a space.
 *
 * Block after block, the front of the prefixes so far is combined with each
 * candidate of the next block and pruned to the points no other beats on
 * both: a prefix off the front can never start an architecture on it. This is
 * exact. When a front would pass the memory limits it is thinned to a latency
 * grid of step s (each cell keeps its best value), which costs at most s of
 * latency per thinning: every architecture is then matched by a returned one
 * at least as good in value and at most `slack` slower (reported; 0 = exact). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "stats/stats.h"
#include "table/container.h"

struct sslat_pareto_front {
    int32_t blocks;
    int32_t size;        /* points returned */
    int64_t front_size;  /* points on the computed front, before choosing `size` of them */
    double slack;
    double *latency, *value;
    int32_t *arch;       /* size × blocks */
};

/* One point of a block's front: its totals and how it was reached. */
typedef struct front_point {
    double latency, value;
    int32_t parent;      /* index in the previous block's front */
    int32_t candidate;
} front_point;

/* What backtracking needs of each block's front. */
typedef struct front_trail {
    int32_t *parent;
    uint8_t *candidate;
    int64_t size;
} front_trail;

static int by_latency_then_best_value(const void *a, const void *b)
{
    const front_point *x = a, *y = b;
    if (x->latency != y->latency) return x->latency < y->latency ? -1 : 1;
    if (x->value != y->value) return x->value > y->value ? -1 : 1;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1; /* ties: a fixed order */
    return (x->candidate > y->candidate) - (x->candidate < y->candidate);
}

/* Keep the points nothing else beats: sorted by latency, a point stays when
 * its value is above every faster (or equally fast) point's. */
static int64_t prune(front_point *points, int64_t n)
{
    qsort(points, (size_t)n, sizeof *points, by_latency_then_best_value);
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++)
        if (kept == 0 || points[i].value > points[kept - 1].value) points[kept++] = points[i];
    return kept;
}

/* Thin a pruned front to at most `target` + 1 points on a latency grid: the
 * last (best-valued) point of each cell stays. Returns the grid step. */
static double thin_to_grid(front_point *points, int64_t *n, int64_t target)
{
    double low = points[0].latency, step = (points[*n - 1].latency - low) / (double)target;
    if (!(step > 0)) return 0;
    int64_t kept = 0;
    for (int64_t i = 0; i < *n; i++) {
        bool last_of_cell = i + 1 == *n || floor((points[i + 1].latency - low) / step) != floor((points[i].latency - low) / step);
        if (last_of_cell) points[kept++] = points[i];
    }
    *n = kept;
    return step;
}

int64_t sslat_pareto_spread(const double *latency, int64_t n, int32_t wanted, int64_t *chosen)
{
    if (wanted <= 0 || n <= wanted) {
        for (int64_t i = 0; i < n; i++) chosen[i] = i;
        return n;
    }
    double low = latency[0], high = latency[n - 1];
    int32_t count = 0;
    int64_t i = 0;
    for (int32_t j = 0; j < wanted; j++) {
        double budget = j == wanted - 1 ? high : low + (high - low) * j / (wanted - 1);
        while (i + 1 < n && latency[i + 1] <= budget) i++;
        if (count == 0 || chosen[count - 1] != i) chosen[count++] = i;
    }
    return count;
}

void sslat_pareto_free(sslat_pareto_front *front)
{
    if (!front) return;
    free(front->latency);
    free(front->value);
    free(front->arch);
    free(front);
}

static void trails_free(front_trail *trails, int32_t n)
{
    for (int32_t b = 0; trails && b < n; b++) {
        free(trails[b].parent);
        free(trails[b].candidate);
    }
    free(trails);
}

/* Fill the returned front from the last block's points, walking each back. */
static sslat_status build_result(const sslat_container *latency, const sslat_container *value, const front_point *last,
                                 int64_t n, const front_trail *trails, int32_t wanted, double slack,
                                 sslat_pareto_front **out, sslat_error *error)
{
    int32_t blocks = latency->n_blocks;
    int64_t *chosen = malloc((size_t)n * sizeof *chosen);
    double *latencies = malloc((size_t)n * sizeof *latencies);
    sslat_pareto_front *f = calloc(1, sizeof *f);
    if (!chosen || !latencies || !f) {
        free(chosen);
        free(latencies);
        free(f);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) latencies[i] = last[i].latency;
    f->blocks = blocks;
    f->front_size = n;
    f->slack = slack;
    f->size = (int32_t)sslat_pareto_spread(latencies, n, wanted, chosen);
    free(latencies);
    f->latency = malloc((size_t)f->size * sizeof *f->latency);
    f->value = malloc((size_t)f->size * sizeof *f->value);
    f->arch = malloc(((size_t)f->size * (size_t)blocks + 1) * sizeof *f->arch);
    if (!f->latency || !f->value || !f->arch) {
        free(chosen);
        sslat_pareto_free(f);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t p = 0; p < f->size; p++) {
        int32_t *arch = &f->arch[(size_t)p * (size_t)blocks];
        int64_t at = chosen[p];
        for (int32_t b = blocks - 1; b >= 0; b--) {
            arch[b] = trails[b].candidate[at];
            at = trails[b].parent[at];
        }
        /* the totals as sslat_current_latency sums them: constant, then block by block */
        sslat_current_latency(latency, arch, blocks, &f->latency[p], NULL);
        sslat_current_latency(value, arch, blocks, &f->value[p], NULL);
    }
    free(chosen);
    *out = f;
    return SSLAT_OK;
}

sslat_status sslat_pareto_compute(const sslat_container *latency, const sslat_container *value, int32_t points,
                                  sslat_pareto_front **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!latency || !value || !out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    if (points < 0 || points == 1)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "points is %d: ask for 0 (the whole front) or at least 2",
                          points);
    sslat_status status = sslat_check_table_pair(latency, value, error);
    if (status != SSLAT_OK) return status;
    int32_t blocks = latency->n_blocks;
    /* per block at most this many points are kept for backtracking */
    int64_t kept_per_block = SSLAT_MAX_PARETO_KEPT / (blocks > 0 ? blocks : 1);
    if (kept_per_block < 1024) kept_per_block = 1024;

    front_trail *trails = calloc((size_t)blocks + 1, sizeof *trails);
    front_point *front = malloc(sizeof *front), *next = NULL;
    if (!trails || !front) {
        free(trails);
        free(front);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    }
    front[0] = (front_point){latency->constant.value, value->constant.value, -1, 0};
    int64_t size = 1;
    double slack = 0;
    for (int32_t b = 0; b < blocks && status == SSLAT_OK; b++) {
        int32_t k = latency->n_candidates[b];
        next = malloc((size_t)(size * k) * sizeof *next);
        if (!next) {
            status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for a front of %lld points", (long long)(size * k));
            break;
        }
        const sslat_entry *lat = &latency->entries[latency->offset[b]], *val = &value->entries[value->offset[b]];
        int64_t n = 0;
        for (int64_t p = 0; p < size; p++)
            for (int32_t i = 0; i < k; i++)
                next[n++] = (front_point){front[p].latency + lat[i].value, front[p].value + val[i].value, (int32_t)p, i};
        n = prune(next, n);
        /* keep the trail within its share and the next block's combining within its limit */
        int64_t limit = kept_per_block;
        if (b + 1 < blocks && SSLAT_MAX_PARETO_WORK / latency->n_candidates[b + 1] < limit)
            limit = SSLAT_MAX_PARETO_WORK / latency->n_candidates[b + 1];
        if (n > limit) slack += thin_to_grid(next, &n, limit - 1);
        trails[b].parent = malloc((size_t)n * sizeof *trails[b].parent);
        trails[b].candidate = malloc((size_t)n * sizeof *trails[b].candidate);
        if (!trails[b].parent || !trails[b].candidate) {
            status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            trails[b].parent[i] = next[i].parent;
            trails[b].candidate[i] = (uint8_t)next[i].candidate;
        }
        trails[b].size = n;
        free(front);
        front = next;
        next = NULL;
        size = n;
    }
    if (status == SSLAT_OK) status = build_result(latency, value, front, size, trails, points, slack, out, error);
    free(next);
    free(front);
    trails_free(trails, blocks);
    return status;
}

int32_t sslat_pareto_size(const sslat_pareto_front *front) { return front ? front->size : 0; }

int64_t sslat_pareto_front_size(const sslat_pareto_front *front) { return front ? front->front_size : 0; }

double sslat_pareto_slack(const sslat_pareto_front *front) { return front ? front->slack : NAN; }

sslat_status sslat_pareto_point(const sslat_pareto_front *front, int32_t index, int32_t *arch, int32_t capacity,
                                double *latency, double *value, sslat_error *error)
{
    sslat_error_clear(error);
    if (!front) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL front");
    if (index < 0 || index >= front->size)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "point %d of a front of %d points", index, front->size);
    if (arch && capacity < front->blocks)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "arch holds %d indices, the front's architectures %d",
                          capacity, front->blocks);
    if (arch) memcpy(arch, &front->arch[(size_t)index * (size_t)front->blocks], (size_t)front->blocks * sizeof *arch);
    if (latency) *latency = front->latency[index];
    if (value) *value = front->value[index];
    return SSLAT_OK;
}
