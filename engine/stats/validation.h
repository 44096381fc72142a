/* How well a latency table predicts whole architectures: the figures of
 * `sslat validate`, computed from predicted and measured latencies. */
#ifndef SSLAT_VALIDATION_H
#define SSLAT_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sslat.h"

typedef struct sslat_validation_summary {
    double mape;        /* mean |predicted − measured| / measured */
    double within_5;    /* share of architectures within ±5% */
    double within_10;   /* … within ±10% */
    double bias;        /* mean (predicted − measured) / measured: > 0 over-predicts */
    double kendall_tau; /* rank agreement (tau-b), 1 = same order */
} sslat_validation_summary;

/* n ≥ 1 pairs; measured values must be > 0. */
sslat_validation_summary sslat_validation_summarize(const double *predicted, const double *measured,
                                                    size_t n);

/* One architecture measured end to end against the table's prediction. */
typedef struct sslat_validation_row {
    char label[16];    /* "min", "max", "random 3" */
    int32_t *arch;     /* block_count indices (owned) */
    double predicted;  /* ms, from the table */
    double measured;   /* ms, whole network, per sample */
} sslat_validation_row;

typedef struct sslat_validation {
    int n;
    sslat_validation_row *rows;
    sslat_validation_summary summary;
} sslat_validation;

/* How a backend runs whole architectures (constant part + chosen candidates):
 * ms[k] per sample of archs[k]. */
typedef sslat_status (*sslat_measure_architectures_fn)(void *context, const sslat_space *space,
                                                       const int32_t *const *archs, size_t n, double *ms,
                                                       sslat_error *err);

/* The rows of a validation: the argmin, the argmax and k uniformly random
 * architectures (seeded), each with the table's prediction; measured = 0. The
 * table must belong to the space. */
sslat_status sslat_validation_plan(const sslat_space *space, const sslat_container *table, int k, uint64_t seed,
                                   sslat_validation *out, sslat_error *err);

/* The summary of rows whose measured times are all filled (> 0). */
sslat_status sslat_validation_finish(sslat_validation *validation, sslat_error *err);

/* The plan, the rows measured by `measure` a few at a time (interleaved by
 * backends that can; progress a chunk), the summary. */
sslat_status sslat_validate_architectures(const sslat_space *space, const sslat_container *table, int k,
                                          uint64_t seed, bool progress, sslat_measure_architectures_fn measure,
                                          void *context, sslat_validation *out, sslat_error *err);
void sslat_validation_release(sslat_validation *validation);

/* Spearman's rank correlation (ties get their average rank); NaN when n < 2
 * or either side is constant. */
double sslat_spearman_rho(const double *x, const double *y, size_t n);

#endif
