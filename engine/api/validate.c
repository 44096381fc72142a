#include "api/validate.h"

#include <string.h>

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
    void *session = NULL;
    sslat_status status = calculator->begin ? calculator->begin(calculator, options, plan, &session, err) : SSLAT_OK;
    if (status != SSLAT_OK) return status;
    runner r = {calculator, session, options};
    status = sslat_validate_architectures(space, table, k, seed, plan->progress, run_architectures, &r,
                                          out, err);
    if (calculator->end) calculator->end(session);
    return status;
}
