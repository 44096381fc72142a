/* The Pareto front of (latency ↓, value ↑) over every architecture of a space.
 *
 * Block after block, the front of the prefixes so far is combined with each
 * candidate of the next block and pruned to the points no other beats on
 * both: a prefix off the front can never start an architecture on it. This is
 * exact. When a front would pass the memory limits it is thinned to a latency
 * grid of step s (each cell keeps its fastest and its best-valued point),
 * which costs at most s of latency per thinning: every architecture is then
 * matched by a returned one at least as good in value and at most `slack`
 * slower (reported; 0 = exact), and the fastest architecture is always on it. */
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

/* Whether a comes before b in the front's order: by latency, then the best
 * value first, then a fixed order for exact ties. */
static bool before(const front_point *a, const front_point *b) { return by_latency_then_best_value(a, b) < 0; }

/* Two pruned lists (each in the front's order, values rising) merged into
 * out and pruned: the points of their union nothing else beats (a point stays
 * when its value is above every point before it), in linear time. */
static int64_t merge_pruned(const front_point *a, int64_t na, const front_point *b, int64_t nb, front_point *out)
{
    int64_t i = 0, j = 0, kept = 0;
    while (i < na || j < nb) {
        const front_point *p = j == nb || (i < na && before(&a[i], &b[j])) ? &a[i++] : &b[j++];
        if (kept == 0 || p->value > out[kept - 1].value) out[kept++] = *p;
    }
    return kept;
}

/* The block's candidates no other one beats on both (or equals, with a
 * lower index): only these can add a point to the front. Returns their count. */
static int32_t block_front(const sslat_entry *lat, const sslat_entry *val, int32_t k, int32_t *useful)
{
    int32_t n = 0;
    for (int32_t c = 0; c < k; c++) {
        bool beaten = false;
        for (int32_t d = 0; d < k && !beaten; d++)
            beaten = d != c && lat[d].value <= lat[c].value && val[d].value >= val[c].value &&
                     (lat[d].value < lat[c].value || val[d].value > val[c].value || d < c);
        if (!beaten) useful[n++] = c;
    }
    return n;
}

/* The pruned front of the previous front (pruned: latency and value rising)
 * combined with each of the block's useful candidates (block_front). Each shifted
 * copy is already in order but for latencies the addition made equal, which
 * a pass prunes; the k lists are then merged pairwise, pruning as they go, so
 * the work is about linear in size × k instead of a sort of it. The result is
 * exactly the pruned front of every combination. lists and spare hold size × k. */
static int64_t combine(const front_point *front, int64_t size, const sslat_entry *lat, const sslat_entry *val,
                       const int32_t *useful, int32_t k, front_point *lists, front_point *spare, front_point **result)
{
    int64_t *length = malloc(((size_t)k + 1) * sizeof *length);
    if (!length) return -1;
    for (int32_t u = 0; u < k; u++) {
        int32_t c = useful[u];
        front_point *list = &lists[(int64_t)u * size];
        int64_t n = 0;
        for (int64_t p = 0; p < size; p++) {
            front_point point = {front[p].latency + lat[c].value, front[p].value + val[c].value, (int32_t)p, c};
            /* rounding may make two latencies equal: the one ordered first stays */
            if (n > 0 && list[n - 1].latency == point.latency) {
                if (before(&point, &list[n - 1])) list[n - 1] = point;
                continue;
            }
            if (n == 0 || point.value > list[n - 1].value) list[n++] = point;
        }
        length[u] = n;
    }
    /* pairwise rounds: list c and list c + width merged into c's place */
    front_point *from = lists, *to = spare;
    for (int64_t width = 1; width < k; width *= 2) {
        for (int64_t c = 0; c < k; c += 2 * width) {
            front_point *a = &from[c * size], *out = &to[c * size];
            if (c + width < k) {
                length[c] = merge_pruned(a, length[c], &from[(c + width) * size], length[c + width], out);
            } else {
                memcpy(out, a, (size_t)length[c] * sizeof *out);
            }
        }
        front_point *swap = from;
        from = to;
        to = swap;
    }
    int64_t n = length[0];
    free(length);
    *result = from;
    return n;
}

/* Thin a pruned front to at most about `target` + 1 points on a latency grid:
 * the first (fastest) and the last (best-valued) point of each cell stay, so
 * the front's fast end is never lost. Returns the grid step: a dropped point
 * is matched by its cell's last one, at least as good in value and at most
 * one step slower. */
static double thin_to_grid(front_point *points, int64_t *n, int64_t target)
{
    int64_t cells = target / 2 > 0 ? target / 2 : 1;
    double low = points[0].latency, step = (points[*n - 1].latency - low) / (double)cells;
    if (!(step > 0)) return 0;
    int64_t kept = 0;
    for (int64_t i = 0; i < *n; i++) {
        double cell = floor((points[i].latency - low) / step);
        bool first_of_cell = i == 0 || floor((points[i - 1].latency - low) / step) != cell;
        bool last_of_cell = i + 1 == *n || floor((points[i + 1].latency - low) / step) != cell;
        if (first_of_cell || last_of_cell) points[kept++] = points[i];
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
    /* each block's useful candidates, found first: the work's limits count them */
    int32_t *useful = malloc(((size_t)latency->offset[blocks] + 1) * sizeof *useful);
    int32_t *useful_count = malloc(((size_t)blocks + 1) * sizeof *useful_count);
    if (!trails || !front || !useful || !useful_count) {
        free(trails);
        free(front);
        free(useful);
        free(useful_count);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t b = 0; b < blocks; b++)
        useful_count[b] = block_front(&latency->entries[latency->offset[b]], &value->entries[value->offset[b]],
                                      latency->n_candidates[b], &useful[latency->offset[b]]);
    front[0] = (front_point){latency->constant.value, value->constant.value, -1, 0};
    int64_t size = 1;
    double slack = 0;
    for (int32_t b = 0; b < blocks && status == SSLAT_OK; b++) {
        int32_t k = useful_count[b];
        next = malloc((size_t)(size * k) * sizeof *next);
        front_point *spare = malloc((size_t)(size * k) * sizeof *spare), *merged = NULL;
        const sslat_entry *lat = &latency->entries[latency->offset[b]], *val = &value->entries[value->offset[b]];
        int64_t n = next && spare ? combine(front, size, lat, val, &useful[latency->offset[b]], k, next, spare, &merged) : -1;
        if (n >= 0 && merged == spare) { /* the result is next from here on */
            spare = next;
            next = merged;
        }
        free(spare);
        if (n < 0) {
            status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory for a front of %lld points", (long long)(size * k));
            break;
        }
        /* keep the trail within its share, and the next block's combining
         * within its limit and its share of the whole front's work */
        int64_t limit = kept_per_block;
        if (b + 1 < blocks) {
            int64_t next_k = useful_count[b + 1];
            if (SSLAT_MAX_PARETO_WORK / next_k < limit) limit = SSLAT_MAX_PARETO_WORK / next_k;
            int64_t share = SSLAT_MAX_PARETO_TOTAL / ((int64_t)blocks * next_k);
            if (share < SSLAT_MIN_PARETO_KEPT) share = SSLAT_MIN_PARETO_KEPT;
            if (share < limit) limit = share;
        }
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
    free(useful);
    free(useful_count);
    trails_free(trails, blocks);
    return status;
}

int32_t sslat_pareto_size(const sslat_pareto_front *front) { return front ? front->size : 0; }

int64_t sslat_pareto_front_size(const sslat_pareto_front *front) { return front ? front->front_size : 0; }

double sslat_pareto_slack(const sslat_pareto_front *front) { return front ? front->slack : NAN; }

bool sslat_pareto_slack_exceeds_span(const sslat_pareto_front *front)
{
    return front && front->size > 0 && front->slack > front->latency[front->size - 1] - front->latency[0];
}

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
