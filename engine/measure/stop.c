#include "measure/stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"
#include "base/order.h"
#include "measure/sample_stats.h"

sslat_status sslat_stop_init(sslat_stop *s, const sslat_stop_rule *rule, sslat_error *err)
{
    memset(s, 0, sizeof *s);
    s->rule = *rule;
    if (s->rule.min_samples < 1) s->rule.min_samples = 1;
    if (s->rule.max_samples < s->rule.min_samples) s->rule.max_samples = s->rule.min_samples;
    s->capacity = s->rule.target_noise > 0 ? s->rule.max_samples : s->rule.min_samples;
    s->values = malloc(s->capacity * sizeof *s->values);
    s->sorted = malloc(s->capacity * sizeof *s->sorted);
    s->noise = INFINITY;
    if (!s->values || !s->sorted) {
        sslat_stop_release(s);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for %zu samples", rule->max_samples);
    }
    return SSLAT_OK;
}

void sslat_stop_release(sslat_stop *s)
{
    free(s->values);
    free(s->sorted);
    s->values = s->sorted = NULL;
}

bool sslat_stop_add(sslat_stop *s, double run_ms, double value)
{
    SSLAT_ASSERT(!s->finished && s->count < s->capacity);
    s->values[s->count++] = value;
    s->spent_ms += run_ms;
    const sslat_stop_rule *r = &s->rule;
    if (s->count < r->min_samples) return false;
    if (r->target_noise <= 0 || s->count == s->capacity || s->spent_ms > r->max_seconds * 1e3) {
        s->finished = true;
    } else if (s->count == r->min_samples || (s->count - r->min_samples) % SSLAT_STOP_CHECK_EVERY == 0) {
        memcpy(s->sorted, s->values, s->count * sizeof *s->sorted);
        qsort(s->sorted, s->count, sizeof *s->sorted, sslat_compare_doubles);
        s->noise = sslat_median_noise(s->sorted, s->count);
        s->finished = s->noise <= r->target_noise;
    }
    return s->finished;
}

sslat_entry sslat_stop_entry(sslat_stop *s)
{
    if (s->count == 0) return (sslat_entry){0, 0, 0, 0, 0, 0, 0};
    memcpy(s->sorted, s->values, s->count * sizeof *s->sorted);
    return sslat_entry_of_samples(s->sorted, s->count);
}
