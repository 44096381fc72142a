#include "host/measure.h"

#include <math.h>
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

sslat_status host_measure_interleaved(host_program *const *programs, const int32_t *units, size_t n,
                                      const sslat_calc_options *o, sslat_entry *entries,
                                      sslat_error *err)
{
    sslat_stop *stops = calloc(n, sizeof *stops);
    sslat_status status = stops ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_stop_rule rule = stop_rule(o, n);
    size_t ready = 0;
    for (; status == SSLAT_OK && ready < n; ready++) {
        status = sslat_stop_init(&stops[ready], &rule, err);
        if (status != SSLAT_OK) break;
        stops[ready].finished = programs[ready]->body.count == 0; /* nothing runs: 0 */
        for (int i = 0; status == SSLAT_OK && i < (o->warmup_iterations > 0 ? o->warmup_iterations : 1); i++)
            status = host_program_run(programs[ready], err);
    }
    /* rounds of one sample per unfinished program; a stop request (SIGTERM of
     * a preempted job) ends the group within one round: its entries are lost,
     * the journal keeps the groups before */
    for (size_t active = n; status == SSLAT_OK && active > 0;) {
        if (o->stop && *o->stop) {
            status = sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted");
            break;
        }
        active = 0;
        for (size_t k = 0; status == SSLAT_OK && k < n; k++) {
            if (stops[k].finished) continue;
            active++;
            double t0 = sslat_now_ms();
            status = host_program_run(programs[k], err);
            double elapsed = sslat_now_ms() - t0;
            if (status == SSLAT_OK) sslat_stop_add(&stops[k], elapsed, elapsed / units[k]);
        }
    }
    for (size_t k = 0; status == SSLAT_OK && k < n; k++) entries[k] = sslat_stop_entry(&stops[k]);
    for (size_t k = 0; k < ready && stops; k++) sslat_stop_release(&stops[k]);
    free(stops);
    return status;
}

sslat_status host_measure_program(host_program *p, int32_t units, const sslat_calc_options *o,
                                  sslat_entry *entry, sslat_error *err)
{
    host_program *const one[1] = {p};
    return host_measure_interleaved(one, &units, 1, o, entry, err);
}
