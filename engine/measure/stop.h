/* When to stop sampling one unit: the one stopping rule of both timed
 * backends, after nvbench's stdrel criterion. A unit always gets min_samples;
 * with a target noise it then samples on until the 95% confidence interval of
 * its median, relative to the median, is at most the target, or until its own
 * sampled time (the sum of the run times it was given, so interleaved units
 * each count only their own) passes max_seconds, or max_samples is reached.
 * The rule never reads a clock: the caller passes each run's duration, which
 * makes it testable on a fake clock. */
#ifndef SSLAT_STOP_H
#define SSLAT_STOP_H

#include <stdbool.h>
#include <stddef.h>

#include "sslat.h"

typedef struct sslat_stop_rule {
    size_t min_samples;  /* always taken (run_iterations; at least 1) */
    size_t max_samples;  /* never more (raised to min_samples if lower) */
    double target_noise; /* relative half-width of the median's 95% CI; 0 = stop at min_samples */
    double max_seconds;  /* of sampled time, once min_samples are in */
} sslat_stop_rule;

/* The noise is checked at min_samples and then every this many samples (a
 * sort of the samples each time). */
#define SSLAT_STOP_CHECK_EVERY 8

typedef struct sslat_stop {
    sslat_stop_rule rule;
    size_t capacity;  /* samples the buffers hold */
    double *values;   /* per-unit values, in arrival order */
    double *sorted;   /* scratch for the noise check */
    size_t count;
    double spent_ms;  /* sum of the run times added */
    double noise;     /* at the last check (INFINITY before any) */
    bool finished;
} sslat_stop;

sslat_status sslat_stop_init(sslat_stop *stop, const sslat_stop_rule *rule, sslat_error *err);
void sslat_stop_release(sslat_stop *stop);

/* One sample: the run took run_ms and its value (per unit: run time / units)
 * is value. Returns whether the unit is finished; adding to a finished one is
 * a programmer error. */
bool sslat_stop_add(sslat_stop *stop, double run_ms, double value);

/* The entry of the samples so far (value = median; samples = count). A unit
 * without samples gets an entry of 0 with samples = 0. */
sslat_entry sslat_stop_entry(sslat_stop *stop);

#endif
