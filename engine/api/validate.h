/* Validation of a table through its calculator's whole-architecture runner
 * (the table's measure_architectures slot), and what every validation needs
 * besides the runs. */
#ifndef SSLAT_API_VALIDATE_H
#define SSLAT_API_VALIDATE_H

#include "calc/calculator.h"
#include "stats/validation.h"

/* What a validation of a table needs besides its runs: a MAC table of the
 * space (the MAC count's rank figures beside the table's), and for a context
 * table the architectures it was fitted to, left out so every figure is of
 * held-out architectures. */
typedef struct sslat_validation_inputs {
    sslat_container *macs;            /* "mac" (torchvision's rule) over the space */
    int32_t *fitted;                  /* context.architectures × blocks; NULL for a table not fitted */
    sslat_validation_exclude exclude; /* over fitted */
} sslat_validation_inputs;

sslat_status sslat_validation_inputs_make(const sslat_space *space, const sslat_container *table,
                                          sslat_validation_inputs *out, sslat_error *err);
void sslat_validation_inputs_release(sslat_validation_inputs *inputs);

/* The argmin, the argmax and k architectures stratified over the table's
 * latency range (stats/validation.h), each run end to end by the calculator
 * and compared with the table's prediction and with the MAC count.
 * UNSUPPORTED when the calculator cannot run here; INVALID_ARGUMENT when it
 * has no whole-architecture runner (the analytic counters). */
sslat_status sslat_validate_table(const sslat_calculator *calculator, const sslat_space *space,
                                  const sslat_container *table, const sslat_calc_options *options,
                                  const sslat_run_plan *plan, int k, uint64_t seed, sslat_validation *out,
                                  sslat_error *err);

#endif
