/* How well a latency table predicts whole architectures: the figures of
 * `sslat validate`, computed from predicted and measured latencies. */
#ifndef SSLAT_VALIDATION_H
#define SSLAT_VALIDATION_H

#include <stddef.h>

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

/* Spearman's rank correlation (ties get their average rank); NaN when n < 2
 * or either side is constant. */
double sslat_spearman_rho(const double *x, const double *y, size_t n);

#endif
