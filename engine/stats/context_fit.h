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

#endif
