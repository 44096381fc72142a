/* Seeded random values, counter-based (splitmix64 of seed + index): the host
 * and the device compute the same value at the same index without sharing any
 * state, so a kernel's fill can be checked against this header and a test's
 * reference can regenerate the weights a backend used. */
#ifndef SSLAT_FILL_H
#define SSLAT_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SSLAT_HOST_DEVICE __host__ __device__
#else
#define SSLAT_HOST_DEVICE
#endif

/* The value at index: uniform in [lo, hi) with 24 random bits. */
static inline SSLAT_HOST_DEVICE float sslat_fill_at(uint64_t seed, uint64_t index, float lo, float hi)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    float unit = (float)(z >> 40) * (1.0f / 16777216.0f);
#ifdef __CUDA_ARCH__
    /* no FMA contraction on the device: the host computes multiply, then add */
    return __fadd_rn(lo, __fmul_rn(hi - lo, unit));
#else
    return lo + (hi - lo) * unit;
#endif
}

/* A stream seed for (seed, node, role): weights of node 3's bias and of node 4's
 * weights never share values. */
static inline SSLAT_HOST_DEVICE uint64_t sslat_fill_stream(uint64_t seed, int32_t node, int32_t role)
{
    return seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(uint32_t)(node + 1)) ^
           (0x8CB92BA72F3D8DD7ULL * (uint64_t)(uint32_t)(role + 1));
}

#ifndef __CUDACC__
static inline void sslat_fill_uniform(float *out, size_t count, uint64_t seed, float lo, float hi)
{
    for (size_t i = 0; i < count; i++) out[i] = sslat_fill_at(seed, i, lo, hi);
}
#endif

#endif
