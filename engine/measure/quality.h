/* A timed table's quality verdict, from its entries' spread and what the run
 * saw of the machine (host/interference.h for the cpu calculator):
 *  - disturbed: the machine did not let the run measure (worker threads kept
 *    from their cores in more than 5% of the batches kept and at least 2, more
 *    worker threads than CPUs this process may use, a calibration
 *    thread on the workers' count that got less than 85% of its wall time, or
 *    a median entry spread past 25%):
 *    the table is not a figure of this machine;
 *  - noisy: measured, but with more spread than a quiet machine gives (most
 *    entries noisy by trtexec's rule: a median coefficient of variation past
 *    2.5%, the threshold of one noisy entry; a disturbed batch kept, other
 *    processes on the cores the workers need, steal, or a drift past 5%);
 *  - ok: none of these.
 * The cause names every reason found. */
#ifndef SSLAT_MEASURE_QUALITY_H
#define SSLAT_MEASURE_QUALITY_H

#include <stdbool.h>
#include <stddef.h>

#include "sslat.h"

typedef enum sslat_quality_verdict { SSLAT_QUALITY_OK, SSLAT_QUALITY_NOISY, SSLAT_QUALITY_DISTURBED } sslat_quality_verdict;

/* "ok", "noisy", "disturbed". */
const char *sslat_quality_name(sslat_quality_verdict verdict);

#define SSLAT_QUALITY_DISTURBED_BATCHES 0.05
#define SSLAT_QUALITY_DISTURBED_CALIBRATION_SHARE 0.85
#define SSLAT_QUALITY_DISTURBED_COV 0.25
#define SSLAT_QUALITY_NOISY_COV 0.025 /* = SSLAT_NOISY_COV (table/container.h): most entries noisy */
#define SSLAT_QUALITY_NOISY_DRIFT 0.05
#define SSLAT_QUALITY_NOISY_STEAL 0.05

typedef struct sslat_quality_input {
    double cov_median, cov_worst; /* stddev / mean over the timed entries (NAN: none had 2 samples) */
    long batches, remeasured, kept_disturbed; /* batches of samples run, run again, kept though disturbed */
    double mean_share, worst_share; /* worker CPU time / (wall x threads) */
    double mean_wait, worst_wait;   /* workers' run delay / (wall x threads) */
    double worst_steal;       /* of the machine's time, in a batch */
    int most_others;          /* runnable tasks beyond the workers, at a batch's end */
    double busy_elsewhere;    /* cores other processes kept busy, at the start or the end (the larger) */
    int free_cores;           /* CPUs this process may use - worker threads, at least 0 */
    bool oversubscribed;      /* more worker threads than those CPUs */
    double calibration_share; /* worst calibration thread's CPU / wall time, start or end (1: all ran) */
    double drift;             /* calibration at the end / at the start (1: none) */
} sslat_quality_input;

/* The verdict; cause gets the reasons ("" when ok). */
sslat_quality_verdict sslat_quality_judge(const sslat_quality_input *input, char *cause, size_t size);

/* Median and worst stddev / mean of the entries with 2 samples or more;
 * *worst_index = the worst one's index (-1: none). NAN when there is none. */
void sslat_quality_spread(const sslat_entry *entries, size_t n, double *median, double *worst, long *worst_index);

#endif
