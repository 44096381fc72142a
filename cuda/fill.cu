#include <cuda_runtime.h>

#include "cuda/common.cuh"
#include "cuda/ops.h"
#include "measure/fill.h"

template <typename T>
static __global__ void fill_kernel(T *data, size_t count, uint64_t seed, float lo, float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        sslat_store(data, i, sslat_fill_at(seed, i, lo, hi));
}

extern "C" int sslat_cuda_fill(int elem, void *data, size_t count, uint64_t seed, float lo, float hi, void *stream)
{
    if (count == 0) return 0;
#define LAUNCH(T) fill_kernel<T><<<sslat_grid_for(count, SSLAT_CUDA_BLOCK), SSLAT_CUDA_BLOCK, 0, (cudaStream_t)stream>>>((T *)data, count, seed, lo, hi)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}
