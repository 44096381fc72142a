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
