/* Activation functions in float, on the device, as PyTorch defines them. */
#ifndef SSLAT_KERNELS_ACT_H
#define SSLAT_KERNELS_ACT_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>

static __device__ __forceinline__ float sslat_apply_act(int act, float x)
{
    switch (act) {
    case 0: return fmaxf(x, 0.f);                                   /* relu */
    case 1: return fminf(fmaxf(x, 0.f), 6.f);                       /* relu6 */
    case 2: return x * fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;       /* hswish */
    case 3: return fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;           /* hsigmoid */
    case 4: return 1.f / (1.f + __expf(-x));                        /* sigmoid */
    case 5: return x / (1.f + __expf(-x));                          /* silu */
    case 6: return 0.5f * x * (1.f + erff(x * 0.70710678f));        /* gelu (erf) */
    case 7: return tanhf(x);                                        /* tanh */
    default: return x;
    }
}

/* Loads and stores of the three element types through float. */
static __device__ __forceinline__ float sslat_load(const float *p, size_t i) { return p[i]; }
static __device__ __forceinline__ float sslat_load(const __half *p, size_t i) { return __half2float(p[i]); }
static __device__ __forceinline__ float sslat_load(const __nv_bfloat16 *p, size_t i) { return __bfloat162float(p[i]); }
static __device__ __forceinline__ void sslat_store(float *p, size_t i, float v) { p[i] = v; }
static __device__ __forceinline__ void sslat_store(__half *p, size_t i, float v) { p[i] = __float2half(v); }
static __device__ __forceinline__ void sslat_store(__nv_bfloat16 *p, size_t i, float v) { p[i] = __float2bfloat16(v); }

/* Grid of a grid-stride loop over count elements. */
static inline int sslat_grid_for(size_t count, int threads)
{
    size_t wanted = (count + (size_t)threads - 1) / (size_t)threads;
    return wanted > 65535 ? 65535 : (wanted < 1 ? 1 : (int)wanted);
}

/* Run LAUNCH(T) with T the element type of elem. */
#define SSLAT_DISPATCH(elem, LAUNCH)                   \
    do {                                               \
        if ((elem) == 1) { LAUNCH(__half); }           \
        else if ((elem) == 2) { LAUNCH(__nv_bfloat16); } \
        else { LAUNCH(float); }                        \
    } while (0)

#endif
