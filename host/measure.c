#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "container.h"
#include "error.h"
#include "order.h"
#include "sample_stats.h"

enum { MAX_SAMPLES = 100000 };

sslat_status host_measure_interleaved(host_program *const *programs, const int32_t *units, size_t n,
                                      const sslat_calc_options *o, sslat_entry *entries,
                                      sslat_error *err)
{
    size_t wanted = o->run_iterations > 0 ? (size_t)o->run_iterations : 1;
    /* the adaptive stop may sample past run_iterations, up to a cap that the
     * programs of a group share; run_iterations themselves are always kept */
    size_t limit = n == 1 ? MAX_SAMPLES : MAX_SAMPLES / 10;
    size_t capacity = o->target_noise > 0 && limit > wanted ? limit : wanted;
    double *samples = malloc(n * capacity * sizeof *samples), *sorted = malloc(capacity * sizeof *sorted);
    size_t *count = calloc(n, sizeof *count);
    double *spent = calloc(n, sizeof *spent);
    bool *done = calloc(n, sizeof *done);
    sslat_status status = samples && sorted && count && spent && done
                              ? SSLAT_OK
                              : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for %zu x %zu samples", n, capacity);
    for (size_t k = 0; status == SSLAT_OK && k < n; k++) {
        done[k] = programs[k]->body.count == 0; /* nothing runs: 0 */
        for (int i = 0; status == SSLAT_OK && i < (o->warmup_iterations > 0 ? o->warmup_iterations : 1); i++)
            status = host_program_run(programs[k], err);
    }
    for (size_t active = n; status == SSLAT_OK && active > 0;) {
        active = 0;
        for (size_t k = 0; status == SSLAT_OK && k < n; k++) {
            if (done[k]) continue;
            active++;
            double t0 = sslat_now_ms();
            status = host_program_run(programs[k], err);
            double elapsed = sslat_now_ms() - t0;
            spent[k] += elapsed;
            double *mine = samples + k * capacity;
            mine[count[k]++] = elapsed / units[k];
            if (count[k] < wanted) continue;
            if (o->target_noise <= 0 || count[k] == capacity || spent[k] > o->max_seconds * 1e3) {
                done[k] = true;
            } else if (count[k] % 8 == 0 || count[k] == wanted) {
                memcpy(sorted, mine, count[k] * sizeof *sorted);
                qsort(sorted, count[k], sizeof *sorted, sslat_compare_doubles);
                done[k] = sslat_median_noise(sorted, count[k]) <= o->target_noise;
            }
        }
    }
    for (size_t k = 0; status == SSLAT_OK && k < n; k++) {
        if (count[k] == 0) {
            entries[k] = sslat_entry_of_value(0.0);
            entries[k].samples = 0;
        } else {
            entries[k] = sslat_entry_of_samples(samples + k * capacity, count[k]);
        }
    }
    free(samples);
    free(sorted);
    free(count);
    free(spent);
    free(done);
    return status;
}

sslat_status host_measure_program(host_program *p, int32_t units, const sslat_calc_options *o,
                                  sslat_entry *entry, sslat_error *err)
{
    host_program *const one[1] = {p};
    return host_measure_interleaved(one, &units, 1, o, entry, err);
}
