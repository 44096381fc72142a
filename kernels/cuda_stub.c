/* The cuda calculator of a build without CUDA: it says why it cannot run. */
#include "kernels/cuda_calculator.h"

static const char *cuda_not_built(void)
{
    return "this build has no CUDA (no nvcc when it was built, or -DSSLAT_CUDA=OFF): rebuild with the CUDA toolkit "
           "on PATH (module load cuda) and cuDNN 9's headers (docs/cluster.md)";
}

const sslat_calculator sslat_cuda_calculator = {
    SSLAT_CUDA_CALCULATOR_IDENTITY,
    .unavailable_reason = cuda_not_built,
};
