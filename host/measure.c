#include "host/measure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/limits.h"
#include "measure/stop.h"

/* The stopping rule of the options; a group's programs share the sample cap. */
static sslat_stop_rule stop_rule(const sslat_calc_options *o, size_t group)
{
    sslat_stop_rule rule = {.min_samples = o->run_iterations > 0 ? (size_t)o->run_iterations : 1,
                            .max_samples = group == 1 ? SSLAT_MAX_SAMPLES : SSLAT_MAX_SAMPLES / 10,
                            .target_noise = o->target_noise,
                            .max_seconds = o->max_seconds};
    return rule;
}

/* A hot batch: back-to-back samples of one program until this much time or
 * this many samples, so the look at /proc around it costs little. */
#define HOT_BATCH_MS 5.0
enum { HOT_BATCH_SAMPLES = 64 };
/* Hot samples are taken in passes over the group: each program warmed up
 * again (HOT_REWARM runs) and sampled back to back for a share of its runs, so
 * its samples stay hot while a slow or fast phase of the machine lands on
 * every program alike (ONNX Runtime back to back on the project's VM: two runs
 * over the same 32 models ranked them with Kendall tau 0.79 in one pass of 100
 * runs each, 0.89 in 5 passes of 10). */
enum { HOT_PASSES = 5, HOT_REWARM = 2 };

typedef struct sample {
    size_t program;
    double run_ms, value;
} sample;

typedef struct schedule {
    host_program *const *programs;
    const int32_t *units;
    size_t n;
    sslat_stop *stops;
    sample *batch; /* max(n, HOT_BATCH_SAMPLES) */
    host_interference *interference;
} schedule;

static sslat_status timed_run(const schedule *s, size_t k, sample *out, sslat_error *err)
{
    double t0 = sslat_now_ms();
    sslat_status status = host_program_run(s->programs[k], err);
    if (host_sample_hook) host_sample_hook();
    double elapsed = sslat_now_ms() - t0;
    *out = (sample){k, elapsed, elapsed / s->units[k]};
    return status;
}

/* Samples wanted from program k in this batch: up to `until` samples in all
 * (SIZE_MAX: until its stop finishes; all it may take when it is adaptive). */
static size_t still_needed(const sslat_stop *stop, size_t until)
{
    size_t goal = until < stop->rule.min_samples ? until : stop->rule.min_samples;
    if ((stop->rule.target_noise > 0 && until == SIZE_MAX) || stop->count >= goal) return HOT_BATCH_SAMPLES;
    size_t need = goal - stop->count;
    return need < HOT_BATCH_SAMPLES ? need : HOT_BATCH_SAMPLES;
}

/* One batch: `only` < n takes back-to-back samples of that program (hot), up
 * to `until` in all; otherwise one sample of every unfinished program (a cold
 * round). */
static sslat_status run_batch(const schedule *s, size_t only, size_t until, size_t *count, sslat_error *err)
{
    sslat_status status = SSLAT_OK;
    *count = 0;
    if (only < s->n) {
        size_t need = still_needed(&s->stops[only], until);
        double spent = 0;
        while (status == SSLAT_OK && *count < need && spent < HOT_BATCH_MS) {
            status = timed_run(s, only, &s->batch[*count], err);
            spent += s->batch[(*count)++].run_ms;
        }
        return status;
    }
    for (size_t k = 0; status == SSLAT_OK && k < s->n; k++)
        if (!s->stops[k].finished) status = timed_run(s, k, &s->batch[(*count)++], err);
    return status;
}

/* A batch whose samples count only when the machine let it run
 * (host/interference.h): a disturbed one is run again, within the budget. */
static sslat_status measured_batch(const schedule *s, size_t only, size_t until, sslat_error *err)
{
    size_t count = 0;
    for (int attempt = 0;; attempt++) {
        host_usage before, after;
        if (s->interference) host_usage_now(&before);
        sslat_status status = run_batch(s, only, until, &count, err);
        if (status != SSLAT_OK) return status;
        if (!s->interference) break;
        host_usage_now(&after);
        host_batch_check check = host_usage_compare(&before, &after, s->interference->threads);
        if (!host_interference_record(s->interference, &check, attempt)) break;
    }
    for (size_t i = 0; i < count; i++) {
        sslat_stop *stop = &s->stops[s->batch[i].program];
        if (!stop->finished) sslat_stop_add(stop, s->batch[i].run_ms, s->batch[i].value);
    }
    return SSLAT_OK;
}

static sslat_status warm_up(const schedule *s, size_t k, int runs, sslat_error *err)
{
    sslat_status status = SSLAT_OK;
    for (int i = 0; status == SSLAT_OK && i < (runs > 0 ? runs : 1); i++)
        status = host_program_run(s->programs[k], err);
    return status;
}

static sslat_status interrupted(volatile int *stop, sslat_error *err)
{
    return stop && *stop ? sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted") : SSLAT_OK;
}

sslat_status host_measure_programs(host_program *const *programs, const int32_t *units, size_t n,
                                   const sslat_calc_options *o, volatile int *stop,
                                   host_interference *interference, sslat_entry *entries, sslat_error *err)
{
    sslat_stop *stops = calloc(n, sizeof *stops);
    sample *batch = calloc(n > HOT_BATCH_SAMPLES ? n : HOT_BATCH_SAMPLES, sizeof *batch);
    sslat_status status = stops && batch ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    schedule s = {programs, units, n, stops, batch, interference};
    sslat_stop_rule rule = stop_rule(o, n);
    size_t ready = 0;
    for (; status == SSLAT_OK && ready < n; ready++) {
        status = sslat_stop_init(&stops[ready], &rule, err);
        if (status != SSLAT_OK) break;
        stops[ready].finished = programs[ready]->body.count == 0; /* nothing runs: 0 */
    }
    if (o->cold) {
        /* every program warmed up, then rounds of one sample per unfinished
         * program; a stop request (SIGTERM of a preempted job) ends the group
         * within one round: its entries are lost, the journal keeps the
         * groups before */
        for (size_t k = 0; status == SSLAT_OK && k < n; k++)
            if (!stops[k].finished) status = warm_up(&s, k, o->warmup_iterations, err);
        for (size_t active = n; status == SSLAT_OK && active > 0;) {
            status = interrupted(stop, err);
            if (status == SSLAT_OK) status = measured_batch(&s, n, SIZE_MAX, err);
            active = 0;
            for (size_t k = 0; k < n; k++) active += !stops[k].finished;
        }
    } else {
        /* passes over the programs: each warmed up (fully the first time),
         * then sampled back to back for its share; the last pass until its
         * stop finishes */
        size_t passes = rule.min_samples < HOT_PASSES ? rule.min_samples : HOT_PASSES;
        for (size_t pass = 0; status == SSLAT_OK && pass < passes; pass++) {
            bool last = pass + 1 == passes;
            size_t until = last ? SIZE_MAX : rule.min_samples * (pass + 1) / passes;
            for (size_t k = 0; status == SSLAT_OK && k < n; k++) {
                if (stops[k].finished) continue;
                status = warm_up(&s, k, pass == 0 ? o->warmup_iterations : HOT_REWARM, err);
                while (status == SSLAT_OK && !stops[k].finished && (last || stops[k].count < until)) {
                    status = interrupted(stop, err);
                    if (status == SSLAT_OK) status = measured_batch(&s, k, until, err);
                }
            }
        }
    }
    for (size_t k = 0; status == SSLAT_OK && k < n; k++) entries[k] = sslat_stop_entry(&stops[k]);
    for (size_t k = 0; k < ready && stops; k++) sslat_stop_release(&stops[k]);
    free(stops);
    free(batch);
    return status;
}

sslat_status host_measure_program(host_program *p, int32_t units, const sslat_calc_options *o, volatile int *stop,
                                  host_interference *interference, sslat_entry *entry, sslat_error *err)
{
    host_program *const one[1] = {p};
    return host_measure_programs(one, &units, 1, o, stop, interference, entry, err);
}
