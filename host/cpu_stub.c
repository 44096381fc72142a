/* The cpu calculator of a build without oneDNN's headers: it says why it
 * cannot run. */
#include "host/cpu_calculator.h"

static const char *cpu_not_built(void)
{
    return "this build has no oneDNN 2.x (no 2.x headers when it was built): libdnnl-dev on Debian 12, or pip "
           "install onednn-devel-cpu-gomp==2022.2.1 onednn-cpu-gomp==2022.2.1 and -DDNNL_INCLUDE_DIR=<venv>/include "
           "(docs/cluster.md)";
}

const sslat_calculator sslat_cpu_calculator = {
    SSLAT_CPU_CALCULATOR_IDENTITY,
    .unavailable_reason = cpu_not_built,
};
