/* Timing a host program: warmup, samples with CLOCK_MONOTONIC, an adaptive
 * stop on the median's relative confidence interval, statistics. */
#ifndef SSLAT_HOST_MEASURE_H
#define SSLAT_HOST_MEASURE_H

#include "base/limits.h"
#include "host/interference.h"
#include "host/program.h"
#include "measure/sample_stats.h"

/* Copies of the subgraph a cpu measurement chains (see cpu_calculator.c). */
int host_replicas_for(const sslat_graph *graph, int threads);

/* Time n programs; entries[k] is per unit of units[k] (the batch, times the
 * copies when a program repeats a subgraph), in ms. The cache mode of the
 * options decides the schedule:
 *  - hot (the default): each program is warmed up and then sampled back to
 *    back, as a benchmark loop over one model runs it (its weights stay in
 *    cache), in 5 passes over the programs (warmed up again each pass) so a
 *    slow phase of the machine lands on all of them;
 *  - cold: every program warmed up, then rounds of one sample per program, so
 *    a program's data were evicted by the others since its last sample, and
 *    slow and fast moments of the machine spread over all of them.
 * The adaptive stop applies per program; a set *stop (may be NULL) ends the
 * run between batches. With `interference` (may be NULL),
 * every batch of samples is checked and a disturbed one run again
 * (host/interference.h). */
sslat_status host_measure_programs(host_program *const *programs, const int32_t *units, size_t n,
                                   const sslat_calc_options *options, volatile int *stop,
                                   host_interference *interference, sslat_entry *entries, sslat_error *err);

/* One program (n = 1 above). */
sslat_status host_measure_program(host_program *program, int32_t units, const sslat_calc_options *options,
                                  volatile int *stop, host_interference *interference, sslat_entry *entry,
                                  sslat_error *err);

#endif
