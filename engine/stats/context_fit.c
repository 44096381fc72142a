#include "stats/context_fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* Offsets of each block's candidates in x (x[0] is the constant). */
static size_t *block_offsets(const sslat_context_problem *p, size_t *size)
{
    size_t *offset = malloc(((size_t)p->blocks + 1) * sizeof *offset);
    if (!offset) return NULL;
    offset[0] = 1;
    for (int32_t b = 0; b < p->blocks; b++) offset[b + 1] = offset[b] + (size_t)p->candidate_counts[b];
    *size = offset[p->blocks];
    return offset;
}

/* Run k's predicted time: the constant and its candidate in every block. */
static double predict_run(const sslat_context_problem *p, const size_t *offset, const double *x, size_t k)
{
    double t = x[0];
    for (int32_t b = 0; b < p->blocks; b++) t += x[offset[b] + (size_t)p->archs[k * (size_t)p->blocks + b]];
    return t;
}

/* y = A x: each run's predicted time. */
static void predict(const sslat_context_problem *p, const size_t *offset, const double *x, double *y)
{
    for (size_t k = 0; k < p->runs; k++) y[k] = predict_run(p, offset, x, k);
}

/* out = (AᵀA + λI) x */
static void normal_apply(const sslat_context_problem *p, const size_t *offset, size_t size, const double *x,
                         double *run_scratch, double *out)
{
    predict(p, offset, x, run_scratch);
    for (size_t j = 0; j < size; j++) out[j] = p->lambda * x[j];
    for (size_t k = 0; k < p->runs; k++) {
        out[0] += run_scratch[k];
        for (int32_t b = 0; b < p->blocks; b++)
            out[offset[b] + (size_t)p->archs[k * (size_t)p->blocks + b]] += run_scratch[k];
    }
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static void residual_figures(const sslat_context_problem *p, const size_t *offset, const double *x, double *scratch,
                             double *rms, double *bias)
{
    predict(p, offset, x, scratch);
    double squares = 0, relative = 0;
    for (size_t k = 0; k < p->runs; k++) {
        double e = scratch[k] - p->ms[k];
        squares += e * e;
        relative += e / p->ms[k];
    }
    *rms = p->runs ? sqrt(squares / (double)p->runs) : 0;
    *bias = p->runs ? relative / (double)p->runs : 0;
}

/* What one fit allocates, freed in one place. */
typedef struct workspace {
    size_t *offset;
    size_t size;
    double *r, *d, *q, *scratch;
} workspace;

static void workspace_free(workspace *w)
{
    free(w->offset);
    free(w->r);
    free(w->d);
    free(w->q);
    free(w->scratch);
}

static bool workspace_alloc(const sslat_context_problem *p, workspace *w)
{
    memset(w, 0, sizeof *w);
    w->offset = block_offsets(p, &w->size);
    if (!w->offset) return false;
    w->r = calloc(w->size, sizeof *w->r);
    w->d = calloc(w->size, sizeof *w->d);
    w->q = calloc(w->size, sizeof *w->q);
    w->scratch = calloc(p->runs + 1, sizeof *w->scratch);
    return w->r && w->d && w->q && w->scratch;
}

static sslat_status check_problem(const sslat_context_problem *p, sslat_error *err)
{
    if (!p || p->blocks < 0 || !(p->lambda > 0) || (p->runs && (!p->archs || !p->ms)) || !p->prior)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "context fit: a problem with runs, times, a prior and lambda > 0 is required");
    for (size_t k = 0; k < p->runs; k++) {
        if (!(p->ms[k] > 0) || !isfinite(p->ms[k]))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "context fit: run %zu took %g ms", k, p->ms[k]);
        for (int32_t b = 0; b < p->blocks; b++) {
            int32_t a = p->archs[k * (size_t)p->blocks + b];
            if (a < 0 || a >= p->candidate_counts[b])
                return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                                  "context fit: run %zu picks candidate %d of block %d (it has %d)", k, a, b,
                                  p->candidate_counts[b]);
        }
    }
    return SSLAT_OK;
}

sslat_status sslat_context_fit(const sslat_context_problem *p, double *x, sslat_context_result *result,
                               sslat_error *err)
{
    memset(result, 0, sizeof *result);
    sslat_status status = x ? check_problem(p, err) : sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "context fit: no x");
    if (status != SSLAT_OK) return status;
    workspace w;
    if (!workspace_alloc(p, &w)) {
        workspace_free(&w);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    residual_figures(p, w.offset, p->prior, w.scratch, &result->rms_before, &result->bias_before);
    /* start at the prior; b = Aᵀt + λp, r = b − (AᵀA + λI) x */
    memcpy(x, p->prior, w.size * sizeof *x);
    normal_apply(p, w.offset, w.size, x, w.scratch, w.q);
    for (size_t j = 0; j < w.size; j++) w.r[j] = p->lambda * p->prior[j] - w.q[j];
    for (size_t k = 0; k < p->runs; k++) {
        w.r[0] += p->ms[k];
        for (int32_t b = 0; b < p->blocks; b++)
            w.r[w.offset[b] + (size_t)p->archs[k * (size_t)p->blocks + b]] += p->ms[k];
    }
    memcpy(w.d, w.r, w.size * sizeof *w.d);
    double rr = dot(w.r, w.r, w.size), start = rr;
    /* symmetric positive definite (λ > 0): CG converges within `size` steps in exact arithmetic */
    for (int32_t it = 0; it < (int32_t)w.size + 10 && rr > 1e-24 * (start > 1 ? start : 1); it++) {
        normal_apply(p, w.offset, w.size, w.d, w.scratch, w.q);
        double step = rr / dot(w.d, w.q, w.size);
        for (size_t j = 0; j < w.size; j++) {
            x[j] += step * w.d[j];
            w.r[j] -= step * w.q[j];
        }
        double next = dot(w.r, w.r, w.size);
        for (size_t j = 0; j < w.size; j++) w.d[j] = w.r[j] + (next / rr) * w.d[j];
        rr = next;
        result->iterations = it + 1;
    }
    residual_figures(p, w.offset, x, w.scratch, &result->rms_after, &result->bias_after);
    workspace_free(&w);
    return SSLAT_OK;
}

sslat_status sslat_context_figures(const sslat_context_problem *p, const double *x, double *predicted_sum,
                                   double *rms, double *bias, sslat_error *err)
{
    sslat_status status = check_problem(p, err);
    if (status != SSLAT_OK) return status;
    size_t size = 0;
    size_t *offset = block_offsets(p, &size);
    double *scratch = calloc(p->runs + 1, sizeof *scratch);
    if (offset && scratch) {
        residual_figures(p, offset, x, scratch, rms, bias); /* leaves the predictions in scratch */
        *predicted_sum = 0;
        for (size_t k = 0; k < p->runs; k++) *predicted_sum += scratch[k];
    } else {
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    free(offset);
    free(scratch);
    return status;
}

/* The relative RMS error of a fit with weight lambda on runs it did not see:
 * run k is in fold k mod FOLDS; each fold is predicted by a fit on the first
 * `share` of the runs outside it (1: all of them; 0.5: half, for the curve of
 * the error against the number of runs). */
static sslat_status cross_validated(const sslat_context_problem *p, double lambda, double share, double *error,
                                    sslat_error *err)
{
    size_t size = 0, blocks = (size_t)p->blocks;
    size_t *offset = block_offsets(p, &size);
    int32_t *archs = malloc(p->runs * (blocks ? blocks : 1) * sizeof *archs);
    double *ms = malloc(p->runs * sizeof *ms), *x = malloc(size * sizeof *x);
    sslat_status status = SSLAT_OK;
    if (!offset || !archs || !ms || !x) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    double squares = 0;
    for (size_t fold = 0; status == SSLAT_OK && fold < SSLAT_CONTEXT_FOLDS; fold++) {
        size_t outside = p->runs - (p->runs - fold + SSLAT_CONTEXT_FOLDS - 1) / SSLAT_CONTEXT_FOLDS;
        size_t keep = (size_t)ceil(share * (double)outside), train = 0;
        for (size_t k = 0; k < p->runs && train < keep; k++) {
            if (k % SSLAT_CONTEXT_FOLDS == fold) continue;
            memcpy(archs + train * blocks, p->archs + k * blocks, blocks * sizeof *archs);
            ms[train++] = p->ms[k];
        }
        sslat_context_problem part = *p;
        part.runs = train;
        part.archs = archs;
        part.ms = ms;
        part.lambda = lambda;
        sslat_context_result ignored;
        status = sslat_context_fit(&part, x, &ignored, err);
        for (size_t k = fold; status == SSLAT_OK && k < p->runs; k += SSLAT_CONTEXT_FOLDS) {
            double e = (predict_run(p, offset, x, k) - p->ms[k]) / p->ms[k];
            squares += e * e;
        }
    }
    *error = sqrt(squares / (double)p->runs);
    free(offset);
    free(archs);
    free(ms);
    free(x);
    return status;
}

sslat_status sslat_context_choose_lambda(const sslat_context_problem *p, double *lambda, double *cv_error,
                                         sslat_error *err)
{
    static const double GRID[] = SSLAT_CONTEXT_LAMBDAS;
    const size_t n_grid = sizeof GRID / sizeof GRID[0];
    *lambda = p->lambda;
    *cv_error = NAN;
    sslat_status status = check_problem(p, err);
    if (status != SSLAT_OK || p->runs < 2 * SSLAT_CONTEXT_FOLDS) return status;
    double best = INFINITY;
    for (size_t g = 0; status == SSLAT_OK && g < n_grid; g++) {
        double error = INFINITY;
        status = cross_validated(p, GRID[g], 1.0, &error, err);
        if (status == SSLAT_OK && error < best) {
            best = error;
            *lambda = GRID[g];
        }
    }
    if (status == SSLAT_OK) *cv_error = best;
    return status;
}

sslat_status sslat_context_half_runs_error(const sslat_context_problem *p, double *error, sslat_error *err)
{
    *error = NAN;
    sslat_status status = check_problem(p, err);
    if (status != SSLAT_OK || p->runs < 2 * SSLAT_CONTEXT_FOLDS) return status;
    return cross_validated(p, p->lambda, 0.5, error, err);
}
