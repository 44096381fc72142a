#include <cuda_runtime.h>

#include "fill.h"

__host__ __device__ static inline float fill_value(uint64_t seed, uint64_t index, float lo,
                                                   float hi)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    float unit = (float)(z >> 40) * (1.0f / 16777216.0f); /* 24 random bits in [0, 1) */
    return lo + (hi - lo) * unit;
}

static __global__ void fill_uniform_kernel(float *data, size_t count, uint64_t seed, float lo,
                                           float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        data[i] = fill_value(seed, i, lo, hi);
}

extern "C" float sslat_fill_value(uint64_t seed, uint64_t index, float lo, float hi)
{
    return fill_value(seed, index, lo, hi);
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
