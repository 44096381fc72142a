#include "host/quality.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "measure/quality.h"

/* "block 3 (ir_k7_e6)" for a flattened entry index. */
static void entry_name(const sslat_container *c, long index, char *out, size_t size)
{
    snprintf(out, size, "none");
    for (int32_t b = 0; index >= 0 && b < c->n_blocks; b++)
        if (index < c->offset[b + 1]) {
            const char *label = c->labels && c->labels[index] ? c->labels[index] : "";
            snprintf(out, size, "block %d candidate %ld%s%s%s", (int)b, index - c->offset[b], label[0] ? " (" : "",
                     label, label[0] ? ")" : "");
            return;
        }
}

void host_quality_watch(const host_interference *q, bool ended, sslat_quality_input *in)
{
    int usable = host_usable_cpus();
    *in = (sslat_quality_input){.cov_median = NAN, .cov_worst = NAN};
    in->batches = q->batches;
    in->remeasured = q->remeasured;
    in->kept_disturbed = q->kept_disturbed;
    in->mean_share = q->batches ? q->share_sum / (double)q->batches : 1.0;
    in->worst_share = q->batches ? q->worst_share : 1.0;
    in->mean_wait = q->batches ? q->wait_sum / (double)q->batches : 0.0;
    in->worst_wait = q->worst_wait;
    in->worst_steal = q->worst_steal;
    in->most_others = q->most_others;
    /* before the end's look, only the start's is known */
    in->busy_elsewhere = ended ? fmax(q->start_busy_cores, q->end_busy_cores) : q->start_busy_cores;
    in->free_cores = usable > q->threads ? usable - q->threads : 0;
    in->oversubscribed = q->threads > usable;
    in->calibration_share = ended ? fmin(q->start.share, q->end.share) : q->start.share;
    in->drift = ended ? host_interference_drift(q) : 1.0;
}

/* A resumed table: its records measured by earlier runs keep their verdict.
 * The worse of this run's and theirs is the table's, and the cause says
 * where it came from. */
static sslat_quality_verdict with_resumed(sslat_quality_verdict verdict, const sslat_quality_input *resumed,
                                          size_t resumed_at_worst, char *cause, size_t size)
{
    char earlier[1024];
    sslat_quality_verdict theirs = sslat_quality_judge(resumed, earlier, sizeof earlier);
    if (theirs == SSLAT_QUALITY_OK) return verdict;
    char mine[2048];
    snprintf(mine, sizeof mine, "%s", cause);
    snprintf(cause, size, "%zu unit(s) resumed from the journal of an earlier run were measured while it was %s "
                          "(%s)%s%s", resumed_at_worst, sslat_quality_name(theirs), earlier, mine[0] ? "; this run: " : "",
             mine);
    return theirs > verdict ? theirs : verdict;
}

sslat_status host_describe_quality(const host_interference *q, const sslat_quality_input *resumed,
                                   size_t resumed_at_worst, bool progress, sslat_container *c, sslat_error *err)
{
    double drift = host_interference_drift(q);
    sslat_quality_input in;
    host_quality_watch(q, true, &in);
    long worst_index = -1;
    sslat_quality_spread(c->entries, (size_t)c->offset[c->n_blocks], &in.cov_median, &in.cov_worst, &worst_index);
    char cause[2048], worst[256], text[512];
    sslat_quality_verdict verdict = sslat_quality_judge(&in, cause, sizeof cause);
    if (resumed) verdict = with_resumed(verdict, resumed, resumed_at_worst, cause, sizeof cause);
    entry_name(c, worst_index, worst, sizeof worst);
    struct { const char *key; char value[2048]; } pairs[6];
    int n = 0;
#define PAIR(KEY, ...) do { pairs[n].key = KEY; snprintf(pairs[n].value, sizeof pairs[n].value, __VA_ARGS__); n++; } while (0)
    PAIR("quality.verdict", "%s", sslat_quality_name(verdict));
    PAIR("quality.cause", "%s", cause[0] ? cause : "none");
    PAIR("quality.cov_median", "%.4f", isnan(in.cov_median) ? 0.0 : in.cov_median);
    PAIR("quality.cov_worst", "%.4f at %s", isnan(in.cov_worst) ? 0.0 : in.cov_worst, worst);
    PAIR("quality.batches", "%ld batches of samples, %ld disturbed, %ld run again, %ld kept disturbed; workers waited "
                            "for a CPU %.1f%% of the time on average, %.1f%% at worst; worker CPU %.0f%% of wall "
                            "time on average; steal up to %.1f%%; up to %d other runnable tasks",
         q->batches, q->disturbed, q->remeasured, q->kept_disturbed, 100 * in.mean_wait, 100 * in.worst_wait,
         100 * in.mean_share, 100 * in.worst_steal, in.most_others);
    PAIR("quality.machine", "other processes kept %.2f cores busy at the start, %.2f at the end; calibration on %d "
                            "threads: worst thread CPU %.0f%% / %.0f%% of its wall time, slowest / one thread alone "
                            "%.2f / %.2f (start / end); drift %+.1f%%",
         q->start_busy_cores, q->end_busy_cores, q->threads, 100 * q->start.share, 100 * q->end.share,
         q->start.spread, q->end.spread, 100 * (drift - 1));
#undef PAIR
    for (int i = 0; i < n; i++) {
        sslat_status status = sslat_container_set_metadata(c, pairs[i].key, pairs[i].value, err);
        if (status != SSLAT_OK) return status;
    }
    snprintf(text, sizeof text, "median entry spread %.1f%%, worst %.1f%% (%s); %ld of %ld batches disturbed, "
             "%ld run again", 100 * (isnan(in.cov_median) ? 0 : in.cov_median),
             100 * (isnan(in.cov_worst) ? 0 : in.cov_worst), worst, q->disturbed, q->batches, q->remeasured);
    if (verdict == SSLAT_QUALITY_DISTURBED)
        fprintf(stderr, "sslat: warning: quality DISTURBED: %s. This table is not a figure of this machine: rerun "
                        "when it is quiet, or with fewer --threads than free cores (metadata quality.*)\n", cause);
    else if (verdict == SSLAT_QUALITY_NOISY)
        fprintf(stderr, "sslat: quality noisy: %s (%s)\n", cause, text);
    else if (progress)
        fprintf(stderr, "sslat: quality ok: %s\n", text);
    return SSLAT_OK;
}
