/* The cuda calculator of a build without CUDA: it says why it cannot run. */
#include "kernels/cuda_calculator.h"

static const char *cuda_not_built(void)
{
    return "this build has no CUDA (nvcc was not found, or -DSSLAT_CUDA=OFF)";
}

const sslat_calculator sslat_cuda_calculator = {
    SSLAT_CUDA_CALCULATOR_IDENTITY,
    .unavailable_reason = cuda_not_built,
};
