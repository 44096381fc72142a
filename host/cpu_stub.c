/* The cpu calculator of a build without oneDNN's headers. */
#include <string.h>

#include "calculator.h"
#include "error.h"
#include "validation.h"

static const char *cpu_not_built(void)
{
    return "this build has no oneDNN (install libdnnl-dev and rebuild)";
}

const sslat_calculator sslat_cpu_calculator = {
    "cpu", "timed", "ms", "oneDNN primitives timed on this CPU", cpu_not_built,
    NULL, NULL, NULL, NULL, NULL, NULL, -1, SSLAT_DTYPE_BIT(SSLAT_DTYPE_FP32)};

sslat_status host_validate(const sslat_space *space, const sslat_container *table, const sslat_calc_options *options,
                           int k, uint64_t seed, sslat_validation *out, sslat_error *err)
{
    (void)space, (void)table, (void)options, (void)k, (void)seed;
    memset(out, 0, sizeof *out);
    return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "validate -c cpu: %s", cpu_not_built());
}
