#include "api/validate.h"

#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/latency.h"
#include "base/error.h"

typedef struct runner {
    const sslat_calculator *calculator;
    void *session;
    const sslat_calc_options *options;
} runner;

static sslat_status run_architectures(void *context, const sslat_space *space, const int32_t *const *archs, size_t n,
                                      double *ms, sslat_error *err)
{
    const runner *r = context;
    return r->calculator->measure_architectures(r->calculator, r->session, space, archs, n, r->options, ms, err);
}

sslat_status sslat_validation_inputs_make(const sslat_space *space, const sslat_container *table,
                                          sslat_validation_inputs *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    sslat_calc_options options;
    sslat_calc_options_default(&options);
    sslat_status status = sslat_measure_space(sslat_calculator_find("mac"), space, &options, NULL, NULL, &out->macs,
                                              err);
    if (status == SSLAT_OK) status = sslat_context_fitted_architectures(table, &out->fitted, &out->exclude.n, err);
    out->exclude.archs = out->fitted;
    if (status != SSLAT_OK) sslat_validation_inputs_release(out);
    return status;
}

void sslat_validation_inputs_release(sslat_validation_inputs *inputs)
{
    sslat_container_free(inputs->macs);
    free(inputs->fitted);
    memset(inputs, 0, sizeof *inputs);
}

sslat_status sslat_validate_table(const sslat_calculator *calculator, const sslat_space *space,
                                  const sslat_container *table, const sslat_calc_options *options,
                                  const sslat_run_plan *plan, int k, uint64_t seed, sslat_validation *out,
                                  sslat_error *err)
{
    const sslat_run_plan quiet = {0};
    if (!plan) plan = &quiet;
    memset(out, 0, sizeof *out);
    const char *why = sslat_calculator_unavailable(calculator);
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator '%s' cannot run: %s", calculator->name, why);
    if (!calculator->measure_architectures)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "calculator '%s' cannot run whole architectures (validation needs a timed calculator)",
                          calculator->name);
    sslat_validation_inputs inputs;
    sslat_status status = sslat_validation_inputs_make(space, table, &inputs, err);
    if (status != SSLAT_OK) return status;
    void *session = NULL;
    status = calculator->begin ? calculator->begin(calculator, options, plan, &session, err) : SSLAT_OK;
    bool begun = status == SSLAT_OK;
    runner r = {calculator, session, options};
    if (begun)
        status = sslat_validate_architectures(space, table, k, seed, &inputs.exclude, inputs.macs, plan->progress,
                                              run_architectures, &r, out, err);
    if (begun && calculator->end) calculator->end(session);
    sslat_validation_inputs_release(&inputs);
    return status;
}
