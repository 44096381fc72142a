/* The cpu calculator of a build without oneDNN's headers. */
#include "calculator.h"

static const char *cpu_not_built(void)
{
    return "this build has no oneDNN (install libdnnl-dev and rebuild)";
}

const sslat_calculator sslat_cpu_calculator = {
    "cpu", "timed", "ms", "oneDNN primitives timed on this CPU", cpu_not_built,
    NULL, NULL, NULL, NULL, NULL, NULL, -1, SSLAT_DTYPE_BIT(SSLAT_DTYPE_FP32)};
