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

/* Kendall's tau-b of two series (NaN when n < 2 or either side is constant). */
double sslat_kendall_tau(const double *x, const double *y, size_t n);

/* A rank figure with its bootstrap 95 % interval (percentile method: the
 * 2.5th and 97.5th percentiles of the figure over resamples of the rows). */
typedef struct sslat_interval {
    double value, low, high;
} sslat_interval;

/* How well the table ranks, and how well the MAC count ranks the same
 * architectures against the same measurements. */
typedef struct sslat_rank_figures {
    sslat_interval tau, rho;         /* the table's Kendall tau-b and Spearman rho */
    sslat_interval mac_tau, mac_rho; /* the MAC count's (NaN when not computed) */
    sslat_interval tau_minus_mac;    /* table tau − MAC tau, paired over the same resamples */
    int32_t resamples;               /* bootstrap resamples behind the intervals */
} sslat_rank_figures;

/* The table's ranking against the MAC count's, judged by the paired interval
 * of their difference (never by the two point figures: at 20 architectures
 * a difference of 0.01 is noise): WORSE when the interval lies below 0,
 * BETTER above it, ALIKE when it holds 0, UNKNOWN without an interval. */
typedef enum sslat_versus_macs {
    SSLAT_VS_MACS_UNKNOWN,
    SSLAT_VS_MACS_WORSE,
    SSLAT_VS_MACS_BETTER,
    SSLAT_VS_MACS_ALIKE
} sslat_versus_macs;

sslat_versus_macs sslat_rank_versus_macs(const sslat_rank_figures *figures);
/* "unknown", "worse", "better", "indistinguishable" (validate's JSON). */
const char *sslat_versus_macs_name(sslat_versus_macs verdict);

/* The resamples a bootstrap of n rows takes: 1000, fewer past n = 1000 so a
 * resample's O(n²) tau stays within about a second in all (never below 100). */
int32_t sslat_bootstrap_resamples(size_t n);

/* Rank figures of predicted against measured (and of macs, when not NULL,
 * against measured), bootstrap intervals from `resamples` resamples drawn from
 * seed. n ≥ 2; below SSLAT_INTERVAL_MIN_ROWS rows the intervals are NaN (a
 * resample of a handful of rows mostly repeats the sample: no interval). */
enum { SSLAT_INTERVAL_MIN_ROWS = 10 };
sslat_status sslat_rank_figures_compute(const double *predicted, const double *macs, const double *measured,
                                        size_t n, int32_t resamples, uint64_t seed, sslat_rank_figures *out,
                                        sslat_error *err);

/* One architecture measured end to end against the table's prediction. */
typedef struct sslat_validation_row {
    char label[16];    /* "min", "max", "stratum 3" */
    int32_t *arch;     /* block_count indices (owned) */
    double predicted;  /* ms, from the table */
    double measured;   /* ms, whole network, per sample */
    double macs;       /* its MAC count (torchvision's rule, millions); NaN until counted */
} sslat_validation_row;

typedef struct sslat_validation {
    int n;
    sslat_validation_row *rows;
    sslat_validation_summary summary;
    sslat_rank_figures ranks;
    int32_t asked;     /* strata asked for (k); n − 2 may be fewer: no distinct architecture left */
    int32_t held_out;  /* draws skipped because the table was fitted to that architecture */
    int32_t left_out;  /* distinct architectures the plan was told to leave out (a context table's fitted ones) */
    uint64_t seed;
} sslat_validation;

/* Architectures a validation must not run: those a context table was fitted
 * to (held-out figures), n rows of blocks indices. */
typedef struct sslat_validation_exclude {
    const int32_t *archs;
    size_t n;
} sslat_validation_exclude;

/* How a backend runs whole architectures (constant part + chosen candidates):
 * ms[k] per sample of archs[k]. */
typedef sslat_status (*sslat_measure_architectures_fn)(void *context, const sslat_space *space,
                                                       const int32_t *const *archs, size_t n, double *ms,
                                                       sslat_error *err);

/* The rows of a validation: the argmin, the argmax and k architectures
 * stratified over the table's latency range — the range between them cut into
 * k equal bands, one architecture drawn into each (a random start, then
 * blocks moved toward a target in the band), so the fast and slow ends are as
 * present as the crowded middle. Seeded; no architecture twice, none of
 * exclude (may be NULL); a band that yields no new architecture is left out.
 * Each row has the table's prediction; measured = 0. The table must belong to
 * the space. */
sslat_status sslat_validation_plan(const sslat_space *space, const sslat_container *table, int k, uint64_t seed,
                                   const sslat_validation_exclude *exclude, sslat_validation *out, sslat_error *err);

/* Each row's MAC count from a MAC table of the same space (its sum over the
 * row's architecture), so the summary can rank by MACs beside the table. */
sslat_status sslat_validation_count_macs(sslat_validation *validation, const sslat_container *macs,
                                         sslat_error *err);

/* The summary and rank figures of rows whose measured times are all filled
 * (> 0); the MAC figures when every row's macs is counted. */
sslat_status sslat_validation_finish(sslat_validation *validation, sslat_error *err);

/* The plan, each row's MACs from macs (may be NULL), the rows measured by
 * `measure` a few at a time (interleaved by backends that can; progress a
 * chunk), the summary. */
sslat_status sslat_validate_architectures(const sslat_space *space, const sslat_container *table, int k,
                                          uint64_t seed, const sslat_validation_exclude *exclude,
                                          const sslat_container *macs, bool progress, sslat_measure_architectures_fn measure,
                                          void *context, sslat_validation *out, sslat_error *err);
void sslat_validation_release(sslat_validation *validation);

/* Spearman's rank correlation (ties get their average rank); NaN when n < 2
 * or either side is constant. */
double sslat_spearman_rho(const double *x, const double *y, size_t n);

#endif
