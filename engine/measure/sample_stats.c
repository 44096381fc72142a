#include "measure/sample_stats.h"

#include <math.h>
#include <stdlib.h>

#include "base/order.h"

sslat_entry sslat_entry_of_samples(double *s, size_t n)
{
    qsort(s, n, sizeof *s, sslat_compare_doubles);
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++) sum += s[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) squares += (s[i] - mean) * (s[i] - mean);
    double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    sslat_entry e = {median, median, mean, n > 1 ? sqrt(squares / (double)(n - 1)) : 0.0, s[0],
                     s[n - 1], (uint32_t)n};
    return e;
}

double sslat_median_noise(const double *s, size_t n)
{
    if (n < 3) return INFINITY;
    double half = 0.98 * sqrt((double)n);
    long lo = (long)floor((double)n / 2 - half), hi = (long)ceil((double)n / 2 + half);
    if (lo < 0) lo = 0;
    if (hi > (long)n - 1) hi = (long)n - 1;
    double median = s[n / 2];
    return median > 0 ? (s[hi] - s[lo]) / (2 * median) : 0;
}
