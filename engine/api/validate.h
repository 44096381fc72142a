/* Validation of a table through its calculator's whole-architecture runner
 * (the table's measure_architectures slot). */
#ifndef SSLAT_API_VALIDATE_H
#define SSLAT_API_VALIDATE_H

#include "calc/calculator.h"
#include "stats/validation.h"

/* The argmin, the argmax and k seeded random architectures of the table, each
 * run end to end by the calculator and compared with the table's prediction.
 * UNSUPPORTED when the calculator cannot run here; INVALID_ARGUMENT when it
 * has no whole-architecture runner (the analytic counters). */
sslat_status sslat_validate_table(const sslat_calculator *calculator, const sslat_space *space,
                                  const sslat_container *table, const sslat_calc_options *options,
                                  const sslat_run_plan *plan, int k, uint64_t seed, sslat_validation *out,
                                  sslat_error *err);

#endif
