/* Context mode of a timed table: its per-candidate values refitted to whole
 * architectures timed end to end (stats/context_fit.h), so a candidate's
 * value is what it costs inside networks rather than alone. */
#ifndef SSLAT_API_CONTEXT_H
#define SSLAT_API_CONTEXT_H

#include "calc/calculator.h"
#include "stats/context_fit.h"
#include "stats/validation.h"

/* Times `runs` seeded architectures (each candidate in at least one; a seed
 * stream apart from validation's) with the calculator, fits the table to them
 * and writes the fitted values back with metadata (`context.*`). The table must
 * be whole and of this space. */
sslat_status sslat_context_refine(const sslat_calculator *calculator, const sslat_space *space,
                                  const sslat_calc_options *options, const sslat_run_plan *plan, int32_t runs,
                                  sslat_container *table,
                                  sslat_context_result *result, sslat_error *err);

/* Whole architectures timed by anything (a runtime the table did not come
 * from, e.g. ONNX Runtime through the CLI's reference runner): ms[k] per
 * sample of archs[k], all n in one call. */
typedef struct sslat_context_target {
    sslat_measure_architectures_fn measure;
    void *context;
    const char *name;  /* recorded as context.reference (the runtime in words); NULL: the table's own calculator */
    const char *runtime; /* recorded as context.runtime, the short name ("torch-compile"); NULL: "sslat" */
    bool scale_prior;  /* ridge toward the isolated table scaled by its overall ratio to the runs */
} sslat_context_target;

/* As above with the runs timed by target; seed draws the architectures. */
sslat_status sslat_context_refine_to(const sslat_space *space, uint64_t seed, int32_t runs,
                                     const sslat_context_target *target, sslat_container *table,
                                     sslat_context_result *result, sslat_error *err);

/* The architectures a context table was fitted to (context.architectures
 * drawn from context.seed, as the fit drew them), so a validation can leave
 * them out: *archs gets n × blocks indices (malloc'd; NULL with n = 0 for a
 * table not fitted, or fitted before context.seed was recorded). */
sslat_status sslat_context_fitted_architectures(const sslat_container *table, int32_t **archs, size_t *n,
                                                sslat_error *err);

#endif
