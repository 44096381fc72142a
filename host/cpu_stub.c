/* The cpu calculator of a build without oneDNN's headers: it says why it
 * cannot run. */
#include "host/cpu_calculator.h"

static const char *cpu_not_built(void)
{
    return "this build has no oneDNN (install libdnnl-dev and rebuild)";
}

const sslat_calculator sslat_cpu_calculator = {
    SSLAT_CPU_CALCULATOR_IDENTITY,
    .unavailable_reason = cpu_not_built,
};
