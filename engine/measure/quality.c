#include "measure/quality.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sslat_quality_name(sslat_quality_verdict verdict)
{
    switch (verdict) {
    case SSLAT_QUALITY_OK: return "ok";
    case SSLAT_QUALITY_NOISY: return "noisy";
    case SSLAT_QUALITY_DISTURBED: return "disturbed";
    }
    return "unknown";
}

/* Appends "; reason" to the cause. */
static void reason(char *cause, size_t size, const char *format, ...)
{
    size_t used = strlen(cause);
    if (used + 3 >= size) return;
    if (used) used += (size_t)snprintf(cause + used, size - used, "; ");
    va_list args;
    va_start(args, format);
    vsnprintf(cause + used, size - used, format, args);
    va_end(args);
}

sslat_quality_verdict sslat_quality_judge(const sslat_quality_input *in, char *cause, size_t size)
{
    sslat_quality_verdict verdict = SSLAT_QUALITY_OK;
    char noisy[512] = "";
    cause[0] = '\0';
    long kept = in->batches - in->remeasured;
    if (in->oversubscribed)
        reason(cause, size, "more worker threads than CPUs this process may use (its affinity): they take turns");
    if (kept > 0 && in->kept_disturbed >= 2 &&
        (double)in->kept_disturbed / (double)kept > SSLAT_QUALITY_DISTURBED_BATCHES) {
        char reruns[64] = "";
        if (in->remeasured) snprintf(reruns, sizeof reruns, " even after %ld reruns", in->remeasured);
        reason(cause, size, "worker threads were not running for part of %ld of %ld batches of samples%s (they "
                            "waited for a CPU %.0f%% of the time on average, %.0f%% at worst; worker CPU %.0f%% of "
                            "wall time on average, %.0f%% at worst)",
               in->kept_disturbed, kept, reruns, 100 * in->mean_wait, 100 * in->worst_wait, 100 * in->mean_share,
               100 * in->worst_share);
    }
    if (in->calibration_share < SSLAT_QUALITY_DISTURBED_CALIBRATION_SHARE)
        reason(cause, size, "a calibration thread got only %.0f%% of its wall time on the workers' cores (a core "
                            "is shared)", 100 * in->calibration_share);
    if (in->cov_median > SSLAT_QUALITY_DISTURBED_COV)
        reason(cause, size, "median entry spread (stddev / mean) %.0f%%", 100 * in->cov_median);
    if (cause[0]) {
        verdict = SSLAT_QUALITY_DISTURBED;
        if (in->busy_elsewhere > 0.5)
            reason(cause, size, "other processes kept %.1f cores busy", in->busy_elsewhere);
        if (in->most_others > 0) reason(cause, size, "up to %d other runnable tasks", in->most_others);
        if (in->worst_steal > SSLAT_QUALITY_NOISY_STEAL)
            reason(cause, size, "the hypervisor stole up to %.0f%% of the CPU time", 100 * in->worst_steal);
        return verdict;
    }
    if (in->cov_median > SSLAT_QUALITY_NOISY_COV)
        reason(noisy, sizeof noisy, "median entry spread (stddev / mean) %.1f%%: most entries are noisy (over "
                                    "%.1f%%)", 100 * in->cov_median, 100 * SSLAT_QUALITY_NOISY_COV);
    if (in->kept_disturbed > 0)
        reason(noisy, sizeof noisy, "%ld of %ld batches of samples kept though disturbed", in->kept_disturbed, kept);
    if (in->busy_elsewhere > in->free_cores + 0.5)
        reason(noisy, sizeof noisy, "other processes kept %.1f cores busy where %d were free for them",
               in->busy_elsewhere, in->free_cores);
    if (in->worst_steal > SSLAT_QUALITY_NOISY_STEAL)
        reason(noisy, sizeof noisy, "the hypervisor stole up to %.0f%% of the CPU time", 100 * in->worst_steal);
    if (fabs(in->drift - 1) > SSLAT_QUALITY_NOISY_DRIFT)
        reason(noisy, sizeof noisy, "the CPU ran %.0f%% %s at the end than at the start", 100 * fabs(in->drift - 1),
               in->drift > 1 ? "slower" : "faster");
    if (noisy[0]) {
        snprintf(cause, size, "%s", noisy);
        verdict = SSLAT_QUALITY_NOISY;
    }
    return verdict;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sslat_quality_spread(const sslat_entry *entries, size_t n, double *median, double *worst, long *worst_index)
{
    *median = *worst = NAN;
    *worst_index = -1;
    double *cov = malloc((n ? n : 1) * sizeof *cov);
    size_t count = 0;
    for (size_t i = 0; cov && i < n; i++) {
        if (entries[i].samples < 2 || !(entries[i].mean > 0)) continue;
        cov[count++] = entries[i].stddev / entries[i].mean;
        if (*worst_index < 0 || cov[count - 1] > *worst) {
            *worst = cov[count - 1];
            *worst_index = (long)i;
        }
    }
    if (count) {
        qsort(cov, count, sizeof *cov, by_value);
        *median = count % 2 ? cov[count / 2] : 0.5 * (cov[count / 2 - 1] + cov[count / 2]);
    }
    free(cov);
}
