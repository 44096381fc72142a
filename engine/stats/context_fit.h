/* Context mode: per-candidate latencies fitted to whole-architecture runs.
 *
 * A table measured candidate by candidate misses what a candidate costs inside
 * a network (caches warmed or evicted by its neighbours, launch overlap). Given
 * n architectures timed end to end, the fit finds the constant c and the
 * candidate values v that predict them best, staying near the isolated table
 * p where the runs say nothing (ridge toward the prior):
 *
 *   minimise  Σ_k (c + Σ_b v[b][a_kb] − t_k)²  +  λ Σ_j (x_j − p_j)²,  x = (c, v)
 *
 * The prior also fixes what the runs cannot tell apart: adding δ to every
 * candidate of a block and taking δ from c predicts the same times. Solved by
 * conjugate gradients on the normal equations (sparse: each run touches one
 * candidate per block), so no dense matrix of the candidates is formed. */
#ifndef SSLAT_CONTEXT_FIT_H
#define SSLAT_CONTEXT_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "sslat.h"

typedef struct sslat_context_problem {
    int32_t blocks;
    const int32_t *candidate_counts; /* per block */
    size_t runs;
    const int32_t *archs; /* runs × blocks candidate indices, run after run */
    const double *ms;     /* the measured time of each run */
    const double *prior;  /* 1 + Σ counts: the isolated constant, then every candidate block after block */
    double lambda;        /* weight of the prior (> 0) */
} sslat_context_problem;

typedef struct sslat_context_result {
    double rms_before; /* RMS of (prediction − measured) over the runs, with the prior */
    double rms_after;  /* … with the fitted values */
    double bias_before, bias_after; /* mean of (prediction − measured) / measured */
    int32_t iterations;
} sslat_context_result;

/* x (1 + Σ counts values, same order as prior) and the fit's figures. */
sslat_status sslat_context_fit(const sslat_context_problem *problem, double *x, sslat_context_result *result,
                               sslat_error *err);

/* How well x predicts the runs, without fitting: the sum of its predictions,
 * the RMS of (prediction − measured) and the mean relative error (the
 * figures "before" of sslat_context_fit when x is the prior). */
sslat_status sslat_context_figures(const sslat_context_problem *problem, const double *x, double *predicted_sum,
                                   double *rms, double *bias, sslat_error *err);

/* The ridge weight that predicts runs it did not see best: 5-fold cross-
 * validation over the runs (run k in fold k mod 5) for each weight of the
 * grid, by the RMS of (prediction − measured) / measured; *lambda = the best
 * (the problem's own lambda when there are fewer than 10 runs, *cv_error
 * NaN then). A weak prior lets each candidate follow the runs it appears in;
 * a strong one keeps the isolated table's shape and moves it as a whole. The
 * better of the two depends on how noisy the runs are, which the data say. */
#define SSLAT_CONTEXT_LAMBDAS {0.3, 1.0, 3.0, 10.0, 30.0, 100.0}
#define SSLAT_CONTEXT_FOLDS 5
sslat_status sslat_context_choose_lambda(const sslat_context_problem *problem, double *lambda, double *cv_error,
                                         sslat_error *err);

/* The cross-validated relative RMS error of the same fit (its lambda) made on
 * half the runs: next to choose_lambda's (all the runs), the slope of the
 * error against the number of runs. NAN (SSLAT_OK) when there are too few
 * runs to cross-validate. A fit whose error still falls clearly from half the
 * runs to all of them would gain from more: by more than a tenth of it and
 * by half a percentage point (an error already near zero is enough). */
sslat_status sslat_context_half_runs_error(const sslat_context_problem *problem, double *error, sslat_error *err);
#define SSLAT_CONTEXT_MORE_RUNS_HELP 1.10
#define SSLAT_CONTEXT_MORE_RUNS_MIN_GAIN 0.005

#endif
