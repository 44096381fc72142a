#include <cuda_runtime.h>

#include "act.h"
#include "fill.h"
#include "ops.h"
#include "../engine/fill.h"

static __global__ void fill_uniform_kernel(float *data, size_t count, uint64_t seed, float lo,
                                           float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        data[i] = sslat_fill_at(seed, i, lo, hi);
}

extern "C" int sslat_cuda_fill_uniform(float *data, size_t count, uint64_t seed, float lo,
                                       float hi, void *stream)
{
    if (count == 0) return 0;
    const int threads = 256;
    size_t wanted = (count + threads - 1) / threads;
    int blocks = wanted > 65535 ? 65535 : (int)wanted;
    fill_uniform_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(data, count, seed, lo, hi);
    return (int)cudaGetLastError();
}

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
#define LAUNCH(T) fill_kernel<T><<<sslat_grid_for(count, 256), 256, 0, (cudaStream_t)stream>>>((T *)data, count, seed, lo, hi)
    SSLAT_DISPATCH(elem, LAUNCH);
#undef LAUNCH
    return (int)cudaGetLastError();
}
