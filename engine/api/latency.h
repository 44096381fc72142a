/* Building a container from a calculator run over a space. */
#ifndef SSLAT_LATENCY_H
#define SSLAT_LATENCY_H

#include "calc/calculator.h"
#include "table/container.h"

/* Run the calculator over the space and return a container bound to it, with
 * the calculator's options in the metadata (ignore_text as given, may be NULL).
 * An option the calculator does not read is refused by name. plan may be NULL
 * (one shard, no journal, quiet). */
sslat_status sslat_measure_space(const sslat_calculator *calculator, const sslat_space *space,
                                 const sslat_calc_options *options, const sslat_run_plan *plan,
                                 const char *ignore_text, sslat_container **out, sslat_error *err);

#endif
