/* The seeded fill of device tensors (measure/fill.h's values, in either layout). */
#include "kernels/common.cuh"
#include "kernels/cuda_layout.h"
#include "kernels/ops.h"

/* Element i of the buffer gets the value of its logical NCHW index
 * (kernels/cuda_layout.h): in NHWC too, so every layout computes on the same input. */
template <typename T>
static __global__ void fill_kernel(T *data, size_t count, uint64_t seed, int nhwc, size_t c, size_t hw, float lo, float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(data, i, sslat_fill_tensor_at(seed, i, nhwc, c, hw, lo, hi));
}

extern "C" cudaError_t sslat_cuda_fill_tensor(int elem, int nhwc, void *data, size_t count, size_t c, size_t hw, uint64_t seed,
                                      float lo, float hi, void *stream)
{
    if (count == 0) return cudaSuccess;
    if (nhwc && (c == 0 || hw == 0 || count % (c * hw))) return cudaErrorInvalidValue;
#define LAUNCH(T) SSLAT_LAUNCH(sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, (cudaStream_t)stream, fill_kernel<T>)((T *)data, count, seed, nhwc, c, hw, lo, hi)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return cudaGetLastError();
}

extern "C" cudaError_t sslat_cuda_fill(int elem, void *data, size_t count, uint64_t seed, float lo, float hi, void *stream)
{
    return sslat_cuda_fill_tensor(elem, 0, data, count, 1, 1, seed, lo, hi, stream);
}
