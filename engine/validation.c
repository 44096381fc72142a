#include "validation.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static int sign(double x) { return (x > 0) - (x < 0); }

sslat_validation_summary sslat_validation_summarize(const double *predicted, const double *measured,
                                                    size_t n)
{
    sslat_validation_summary s = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double error = (predicted[i] - measured[i]) / measured[i];
        s.mape += fabs(error);
        s.bias += error;
        s.within_5 += fabs(error) <= 0.05;
        s.within_10 += fabs(error) <= 0.10;
    }
    if (n > 0) {
        s.mape /= (double)n;
        s.bias /= (double)n;
        s.within_5 /= (double)n;
        s.within_10 /= (double)n;
    }
    /* tau-b: (concordant − discordant) / sqrt((pairs − ties in x)(pairs − ties in y)) */
    double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0, pairs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int a = sign(predicted[i] - predicted[j]), b = sign(measured[i] - measured[j]);
            pairs++;
            if (a == 0) ties_x++;
            if (b == 0) ties_y++;
            if (a * b > 0) concordant++;
            else if (a * b < 0) discordant++;
        }
    double denominator = sqrt((pairs - ties_x) * (pairs - ties_y));
    s.kendall_tau = denominator > 0 ? (concordant - discordant) / denominator : 0;
    return s;
}

/* Ranks 1..n with ties given their average rank. */
static bool average_ranks(const double *x, size_t n, double *rank)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < n; i++) order[i] = i;
    /* insertion sort by value: n is a report's few thousand points */
    for (size_t a = 1; a < n; a++) {
        size_t item = order[a], b = a;
        while (b > 0 && x[order[b - 1]] > x[item]) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = item;
    }
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && x[order[end]] == x[order[start]]) end++;
        double average = (double)(start + end + 1) / 2.0; /* mean of ranks start+1 … end */
        for (size_t k = start; k < end; k++) rank[order[k]] = average;
        start = end;
    }
    free(order);
    return true;
}

double sslat_spearman_rho(const double *x, const double *y, size_t n)
{
    if (n < 2) return NAN;
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    double rho = NAN;
    if (rx && ry && average_ranks(x, n, rx) && average_ranks(y, n, ry)) {
        /* Pearson correlation of the ranks (exact with ties) */
        double mean = (double)(n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
        for (size_t i = 0; i < n; i++) {
            sxy += (rx[i] - mean) * (ry[i] - mean);
            sxx += (rx[i] - mean) * (rx[i] - mean);
            syy += (ry[i] - mean) * (ry[i] - mean);
        }
        rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    }
    free(rx);
    free(ry);
    return rho;
}
