/* Statistics of timed samples, shared by the timed backends. */
#ifndef SSLAT_SAMPLE_STATS_H
#define SSLAT_SAMPLE_STATS_H

#include <stddef.h>

#include "sslat.h"

/* Statistics of n samples (sorted in place); value = median. */
sslat_entry sslat_entry_of_samples(double *samples, size_t n);

/* Half-width of the 95% confidence interval of the median of n sorted samples
 * (order statistics n/2 ± 0.98·√n), relative to the median. */
double sslat_median_noise(const double *sorted, size_t n);

#endif
