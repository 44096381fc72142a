/* Timing a host program: warmup, samples with CLOCK_MONOTONIC, an adaptive
 * stop on the median's relative confidence interval, statistics. */
#ifndef SSLAT_HOST_MEASURE_H
#define SSLAT_HOST_MEASURE_H

#include "program.h"

/* Time the program's body; entry is per sample (batch time / batch), in ms. */
sslat_status host_measure_program(host_program *program, int32_t batch,
                                  const sslat_calc_options *options, sslat_entry *entry,
                                  sslat_error *err);

/* Statistics of n samples (sorted in place); value = median. */
sslat_entry host_entry_of_samples(double *samples, size_t n);

/* Half-width of the 95% confidence interval of the median of n sorted samples
 * (order statistics n/2 ± 0.98·√n), relative to the median. */
double host_median_noise(const double *sorted, size_t n);

#endif
