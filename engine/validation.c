#include "validation.h"

#include <math.h>

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
