/* What every kernel file shares: activations in float as PyTorch defines them,
 * typed loads and stores, the launch shape, the launch itself and the
 * element-type dispatch. Compiled as host C++ with SSLAT_CUDA_EMULATE, the
 * same kernels run on the CPU (kernels/emulate.h). */
#ifndef SSLAT_CUDA_COMMON_CUH
#define SSLAT_CUDA_COMMON_CUH

#ifdef SSLAT_CUDA_EMULATE
#include "kernels/emulate.h"
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

#include "kernels/ops.h"
#include "ir/op.h"

/* Threads per block of every grid-stride kernel, and the most blocks a launch
 * asks for (grid-stride loops cover the rest). */
#define SSLAT_CUDA_BLOCK 256
#define SSLAT_CUDA_MAX_GRID 65535

/* Every activation is named below (no default:): a new one fails this
 * assertion until it has its case here. -1 is "none". */
static_assert(SSLAT_ACT_COUNT == 9, "sslat_apply_act names every activation");

static __device__ __forceinline__ float sslat_apply_act(int act, float x)
{
    switch (act) {
    case SSLAT_ACT_RELU: return fmaxf(x, 0.f);                                   /* relu */
    case SSLAT_ACT_RELU6: return fminf(fmaxf(x, 0.f), 6.f);                       /* relu6 */
    case SSLAT_ACT_HSWISH: return x * fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;       /* hswish */
    case SSLAT_ACT_HSIGMOID: return fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;           /* hsigmoid */
    case SSLAT_ACT_SIGMOID: return 1.f / (1.f + __expf(-x));                        /* sigmoid */
    case SSLAT_ACT_SILU: return x / (1.f + __expf(-x));                          /* silu */
    case SSLAT_ACT_GELU: return 0.5f * x * (1.f + erff(x * 0.70710678f));        /* gelu (erf) */
    case SSLAT_ACT_TANH: return tanhf(x);                                        /* tanh */
    case SSLAT_ACT_GELU_TANH: return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    case -1: return x;                                                           /* none */
    default: return x; /* unreachable: the plan only holds the values above */
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
    return wanted > SSLAT_CUDA_MAX_GRID ? SSLAT_CUDA_MAX_GRID : (wanted < 1 ? 1 : (int)wanted);
}

/* Whether a tensor's indices fit 32-bit arithmetic (the fast path of the
 * kernels; 64-bit division is a library call per element). */
static inline bool sslat_fits_32(size_t count)
{
#ifdef SSLAT_CUDA_EMULATE
    if (sslat_emulated_wide_index) return false; /* the host test's switch: the 64-bit path on small tensors */
#endif
    return count <= 0x7fffffffu;
}

/* SSLAT_LAUNCH(grid, block, stream, kernel)(args…) is
 * kernel<<<grid, block, 0, stream>>>(args…); in the host build, a loop over
 * the emulated grid. The kernel comes last because a template's commas
 * (kernel<T, I>) would split a macro argument. */
#ifdef SSLAT_CUDA_EMULATE
#define SSLAT_LAUNCH(grid, block, stream, ...) sslat_emulate(dim3(grid), dim3(block), (void *)(stream), __VA_ARGS__)
#else
#define SSLAT_LAUNCH(grid, block, stream, ...) __VA_ARGS__<<<(grid), (block), 0, (stream)>>>
#endif

/* Run LAUNCH(T) with T the element type of elem. */
#define SSLAT_DISPATCH(elem, LAUNCH)                   \
    do {                                               \
        if ((elem) == SSLAT_ELEM_F16) { LAUNCH(__half); }           \
        else if ((elem) == SSLAT_ELEM_BF16) { LAUNCH(__nv_bfloat16); } \
        else { LAUNCH(float); }                        \
    } while (0)

/* Run LAUNCH(I, T): T the element type of elem, I 32-bit when fits32. */
#define SSLAT_DISPATCH_INDEX_AND_TYPE(elem, fits32, LAUNCH)                                       \
    do {                                                                                          \
        if (fits32) {                                                                             \
            if ((elem) == SSLAT_ELEM_F16) { LAUNCH(uint32_t, __half); }                           \
            else if ((elem) == SSLAT_ELEM_BF16) { LAUNCH(uint32_t, __nv_bfloat16); }              \
            else { LAUNCH(uint32_t, float); }                                                     \
        } else {                                                                                  \
            if ((elem) == SSLAT_ELEM_F16) { LAUNCH(size_t, __half); }                             \
            else if ((elem) == SSLAT_ELEM_BF16) { LAUNCH(size_t, __nv_bfloat16); }                \
            else { LAUNCH(size_t, float); }                                                       \
        }                                                                                         \
    } while (0)

#endif
