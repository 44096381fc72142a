/* How a timed table was made and its quality verdict, in words, from its
 * metadata: shared by sslat stats and the report. */
#include "table/describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sslat_table_method_text(const sslat_container *t, char *out, size_t size)
{
    const char *threads = sslat_container_metadata(t, "host.threads");
    const char *cache = sslat_container_metadata(t, "calculator.cache");
    const char *mode = sslat_container_metadata(t, "calculator.mode");
    size_t used = 0;
    out[0] = '\0';
    if (threads) used += (size_t)snprintf(out, size, "%s thread%s", threads, strcmp(threads, "1") ? "s" : "");
    if (cache && used < size) /* the mode's first word: "hot: each unit ..." */
        used += (size_t)snprintf(out + used, size - used, "%scache %.*s", used ? ", " : "", (int)strcspn(cache, ":"), cache);
    if (mode && used < size) snprintf(out + used, size - used, "%s%s", used ? ", " : "", mode);
}

void sslat_table_quality_text(const sslat_container *t, char *out, size_t size)
{
    const char *verdict = sslat_container_metadata(t, "quality.verdict");
    const char *cause = sslat_container_metadata(t, "quality.cause");
    const char *cov = sslat_container_metadata(t, "quality.cov_median");
    out[0] = '\0';
    if (!verdict) return;
    snprintf(out, size, "%s (median entry spread %.1f%%)%s%s", verdict, cov ? 100 * strtod(cov, NULL) : 0.0,
             cause && strcmp(cause, "none") ? ": " : "", cause && strcmp(cause, "none") ? cause : "");
}

const char *sslat_table_calibrated_to(const sslat_container *t)
{
    if (!sslat_container_metadata(t, "context.architectures")) return NULL;
    const char *runtime = sslat_container_metadata(t, "context.runtime");
    const char *reference = sslat_container_metadata(t, "context.reference");
    if (runtime) return runtime;
    /* fitted before the short name was recorded: the description, or the own calculator */
    return reference && strcmp(reference, "the table's own calculator") ? reference : "sslat";
}

void sslat_table_predicts_text(const sslat_container *t, char *out, size_t size, const char **short_name)
{
    const char *runtime = sslat_table_calibrated_to(t);
    const char *reference = sslat_container_metadata(t, "context.reference");
    const char *runs = sslat_container_metadata(t, "context.architectures");
    const char *calculator = sslat_container_latency_type(t);
    bool timed = !strcmp(sslat_container_unit(t), "ms") && sslat_container_metadata(t, "calculator.summary");
    out[0] = '\0';
    if (short_name) *short_name = "";
    if (runtime) {
        /* the runner's description begins with the runtime's name: said once */
        bool described = reference && strcmp(reference, runtime);
        bool named = described && !strncmp(reference, runtime, strlen(runtime));
        const char *verdict = sslat_container_metadata(t, "context.quality.verdict");
        size_t used = (size_t)snprintf(out, size, "%s%s%s, calibrated by --context on %s whole architectures",
                                       named ? "" : runtime, described && !named ? " — " : "",
                                       described ? reference : "", runs);
        if (verdict && used < size) snprintf(out + used, size - used, " (reference runs %s)", verdict);
        if (short_name) *short_name = runtime;
    } else if (timed) {
        snprintf(out, size, "sslat %s: each unit timed alone, the architecture its sum", calculator);
        if (short_name) *short_name = "sslat";
    }
}

bool sslat_table_per_sample(const sslat_container *t)
{
    /* Python's initialize_latency (÷ get_base_samples), a timed table, or an ENOT file's mmac (ENOT's convention) */
    return sslat_container_metadata(t, "base_samples") || !strcmp(sslat_container_unit(t), "ms") ||
           !strcmp(sslat_container_latency_type(t), "mmac");
}

void sslat_table_unit_meaning(const sslat_container *t, char *out, size_t size)
{
    int32_t shape[4];
    sslat_container_input_shape(t, shape);
    const char *unit = sslat_container_unit(t), *samples = sslat_container_metadata(t, "base_samples");
    if (!strcmp(sslat_container_latency_type(t), "value")) { /* the user's own figures: no batch to speak of */
        snprintf(out, size, "%s%sper architecture (your values: the constant plus one per block)", unit,
                 *unit ? " " : "");
        return;
    }
    if (samples)
        snprintf(out, size, "%s per sample (the whole batch's figure divided by %s)", unit, samples);
    else if (!strcmp(unit, "ms") && shape[0] > 0)
        snprintf(out, size, "%s per sample (the time of a batch of %d divided by %d)", unit, shape[0], shape[0]);
    else if (sslat_table_per_sample(t))
        snprintf(out, size, "%s per sample", unit);
    else if (shape[0] > 0)
        snprintf(out, size, "%s for the whole batch of %d", unit, shape[0]);
    else
        snprintf(out, size, "%s for the whole input batch", unit);
    const char *calibrated = sslat_table_calibrated_to(t);
    size_t used = strlen(out);
    if (calibrated && used < size) /* a calibrated table's figures are the reference runtime's */
        snprintf(out + used, size - used, ", as %s runs it", calibrated);
}

void sslat_table_fit_text(const sslat_container *t, const char *separator, char *out, size_t size)
{
    out[0] = '\0';
    if (!sslat_table_calibrated_to(t)) return;
    const char *verdict = sslat_container_metadata(t, "context.quality.verdict");
    const char *cause = sslat_container_metadata(t, "context.quality.cause");
    const char *cv = sslat_container_metadata(t, "context.cv_relative_rms");
    const char *enough = sslat_container_metadata(t, "context.enough");
    const char *swaps = sslat_container_metadata(t, "context.swaps");
    size_t used = 0;
#define APPEND(...) \
    do { if (used < size) used += (size_t)snprintf(out + used, size - used, __VA_ARGS__); } while (0)
    APPEND("reference runs %s", verdict ? verdict : "not judged (fitted before sslat judged them)");
    if (cause && strcmp(cause, "none")) APPEND(" (%s)", cause);
    if (cv) APPEND("%sheld-out error %.1f%% (5-fold cross-validation)", separator, 100 * strtod(cv, NULL));
    if (enough) APPEND("%sruns enough: %s", separator, enough);
    if (swaps) APPEND("%sorder changes: %s", separator, swaps);
#undef APPEND
}
