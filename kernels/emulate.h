/* The own kernels on the CPU: what common.cuh includes instead of the CUDA
 * runtime when the .cu files are compiled as host C++ with SSLAT_CUDA_EMULATE
 * (the CudaKernelsOnHost test). A launch runs every thread of its grid, one
 * after another, with blockIdx / threadIdx / blockDim / gridDim set as the
 * GPU would; the kernels' index maths, grid-stride loops and launch shapes are
 * then checked without a GPU. Only the kernels that make no thread wait for
 * another can run this way: the warp reduction of the NCHW global pool has a
 * host twin (channel.cu), the blocking kernel is not emulated. */
#ifndef SSLAT_KERNELS_EMULATE_H
#define SSLAT_KERNELS_EMULATE_H

#ifndef __cplusplus
#error "kernels/emulate.h is for host C++ builds of the .cu files"
#endif

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/emulate_hook.h"

/* dim3, uint3, cudaStream_t, cudaError_t; __half and __nv_bfloat16 with their
 * host conversions */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <driver_types.h>
#include <vector_types.h>

/* The CUDA headers define these as attributes a host compiler ignores (with a
 * warning): here they mean plain host functions. */
#undef __global__
#undef __device__
#undef __forceinline__
#define __global__
#define __device__
#define __forceinline__ inline
#define __expf expf

inline thread_local uint3 blockIdx, threadIdx;
inline thread_local dim3 blockDim, gridDim;

/* The error of the last launch, as cudaGetLastError reports and clears it
 * (the runtime's own function is declared by the headers above, so the
 * kernels' calls are sent here by name). */
inline thread_local cudaError_t sslat_emulated_error = cudaSuccess;
static inline cudaError_t sslat_emulated_last_error(void)
{
    cudaError_t error = sslat_emulated_error;
    sslat_emulated_error = cudaSuccess;
    return error;
}
#define cudaGetLastError sslat_emulated_last_error

/* What a test may set: the launches made so far; only these threads of the
 * next launches (flat ids in launch order, for sparse checks of tensors past
 * 2^31 elements whose memory is mapped but never touched elsewhere); the
 * 64-bit index path on any tensor (common.cuh's sslat_fits_32). */
inline thread_local uint64_t sslat_emulated_launches = 0;
inline thread_local const std::vector<uint64_t> *sslat_emulated_threads = nullptr;
inline thread_local bool sslat_emulated_wide_index = false;

/* A launch configuration the GPU accepts (CUDA C++ Programming Guide,
 * "Features and Technical Specifications": grid x up to 2^31 - 1, y and z up
 * to 65535; at most 1024 threads per block, z at most 64). */
static inline bool sslat_emulated_shape_ok(dim3 grid, dim3 block)
{
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) return false;
    if (grid.x > 0x7fffffffu || grid.y > 65535u || grid.z > 65535u) return false;
    if (block.x > 1024u || block.y > 1024u || block.z > 64u) return false;
    return (uint64_t)block.x * block.y * block.z <= 1024u;
}

/* Runs thread number `flat` of the grid (blocks in x, y, z order, then the
 * threads of a block in x, y, z order). */
template <typename Body>
static inline void sslat_emulated_thread(dim3 grid, dim3 block, uint64_t flat, Body body)
{
    uint64_t per_block = (uint64_t)block.x * block.y * block.z, b = flat / per_block, t = flat % per_block;
    blockIdx = {(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y), (unsigned)(b / grid.x / grid.y)};
    threadIdx = {(unsigned)(t % block.x), (unsigned)(t / block.x % block.y), (unsigned)(t / block.x / block.y)};
    body();
}

/* Every thread of a grid (or the sparse list of sslat_emulated_threads). */
template <typename Body>
static inline void sslat_emulated_grid(dim3 grid, dim3 block, Body body)
{
    gridDim = grid, blockDim = block;
    uint64_t threads = (uint64_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    if (sslat_emulated_threads) {
        for (uint64_t flat : *sslat_emulated_threads)
            if (flat < threads) sslat_emulated_thread(grid, block, flat, body);
        return;
    }
    for (uint64_t flat = 0; flat < threads; flat++) sslat_emulated_thread(grid, block, flat, body);
}

/* kernel<<<grid, block, 0, stream>>>(args…) on the host: SSLAT_LAUNCH
 * (common.cuh) returns this, the arguments follow. A bad launch shape fails
 * at the launch, as on the GPU; the grid runs when its stream reaches it. */
template <typename... Params>
struct sslat_emulated_launch {
    dim3 grid, block;
    void *stream;
    void (*kernel)(Params...);
    template <typename... Args>
    void operator()(Args &&...args) const
    {
        sslat_emulated_launches++;
        if (!sslat_emulated_shape_ok(grid, block)) {
            sslat_emulated_error = cudaErrorInvalidConfiguration;
            return;
        }
        dim3 g = grid, b = block;
        void (*k)(Params...) = kernel;
        std::function<void()> run = [=]() { sslat_emulated_grid(g, b, [&]() { k(static_cast<Params>(args)...); }); };
        if (sslat_emulated_submit) sslat_emulated_submit(stream, std::move(run));
        else run();
    }
};

template <typename... Params>
static inline sslat_emulated_launch<Params...> sslat_emulate(dim3 grid, dim3 block, void *stream,
                                                             void (*kernel)(Params...))
{
    return {grid, block, stream, kernel};
}

#endif
