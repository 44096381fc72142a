/* nvbench's blocking kernel (nvbench/blocking_kernel.cu): the stream waits on
 * a host-mapped flag while the host queues the timed work behind it, so a
 * sample measures the GPU's work and not the host's launch latency. */
#include <cuda_runtime.h>

#include "kernels/ops.h"

static __device__ __forceinline__ uint64_t global_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void block_kernel(const volatile int32_t *release, int32_t *timed_out, uint64_t timeout_ns)
{
    uint64_t start = global_ns();
    while (!*release) {
        if (global_ns() - start > timeout_ns) { /* the host never released it: do not hang the GPU */
            *(volatile int32_t *)timed_out = 1;
            return;
        }
    }
}

extern "C" cudaError_t sslat_cuda_block_stream(const volatile int32_t *release, int32_t *timed_out, uint64_t timeout_ns,
                                       void *stream)
{
    block_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(release, timed_out, timeout_ns);
    return cudaGetLastError();
}
