/* The cuda calculator of a build without CUDA: it says why it cannot run. */
#include <string.h>

#include "calculator.h"
#include "error.h"
#include "validation.h"

static const char *cuda_not_built(void)
{
    return "this build has no CUDA (nvcc was not found, or -DSSLAT_CUDA=OFF)";
}

const sslat_calculator sslat_cuda_calculator = {
    "cuda", "timed", "ms", "cuDNN / cuBLAS / own kernels timed with CUDA graphs and events",
    cuda_not_built, NULL, NULL, NULL, NULL, NULL, NULL, -1, SSLAT_DTYPES_ALL};

sslat_status cuda_validate(const sslat_space *space, const sslat_container *table, const sslat_calc_options *options,
                           int k, uint64_t seed, sslat_validation *out, sslat_error *err)
{
    (void)space, (void)table, (void)options, (void)k, (void)seed;
    memset(out, 0, sizeof *out);
    return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "validate -c cuda: %s", cuda_not_built());
}
