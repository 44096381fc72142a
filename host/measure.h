/* Timing a host program: warmup, samples with CLOCK_MONOTONIC, an adaptive
 * stop on the median's relative confidence interval, statistics. */
#ifndef SSLAT_HOST_MEASURE_H
#define SSLAT_HOST_MEASURE_H

#include "base/limits.h"
#include "host/program.h"
#include "measure/sample_stats.h"

/* Copies of the subgraph a cpu measurement chains (see cpu_calculator.c). */
int host_replicas_for(const sslat_graph *graph, int threads);

/* Time the program's body; entry is per unit (run time / units), in ms: units
 * is the batch, times the copies when the program repeats a subgraph. */
sslat_status host_measure_program(host_program *program, int32_t units,
                                  const sslat_calc_options *options, sslat_entry *entry,
                                  sslat_error *err);

/* Time n programs together: warmup each, then rounds of one sample per
 * program, so slow and fast moments of the machine spread over all of them;
 * the adaptive stop applies per program. entries[k] per unit of units[k]. */
sslat_status host_measure_interleaved(host_program *const *programs, const int32_t *units, size_t n,
                                      const sslat_calc_options *options, sslat_entry *entries,
                                      sslat_error *err);

#endif
