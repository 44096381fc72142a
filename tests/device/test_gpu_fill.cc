// The device random fill against its host twin. Skips without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cuda_layout.h"
#include "kernels/ops.h"
#include "measure/fill.h"
extern "C" {
#include "measure/parameters.h"
}

namespace {

bool have_device()
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(GpuFill, MatchesHostValuesAndIsNeverAllZero)
{
    if (!have_device()) GTEST_SKIP() << "no CUDA device";
    const size_t count = 1 << 20;
    float *device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, count * sizeof(float)), cudaSuccess);
    ASSERT_EQ(sslat_cuda_fill(SSLAT_ELEM_F32, device, count, 42, -1.0f, 1.0f, nullptr), 0);
    std::vector<float> host(count);
    ASSERT_EQ(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    cudaFree(device);
    size_t zeros = 0;
    for (size_t i = 0; i < count; i += 997) {
        EXPECT_EQ(host[i], sslat_fill_at(42, i, -1.0f, 1.0f)) << "index " << i;
    }
    for (float v : host) zeros += v == 0.0f;
    EXPECT_LT(zeros, count / 1000);
}

// The NHWC fill: read back to NCHW it is the seeded input every other path uses.
TEST(GpuFill, AnNhwcTensorHoldsTheLogicalNchwValues)
{
    if (!have_device()) GTEST_SKIP() << "no CUDA device";
    const size_t n = 3, c = 5, hw = 7 * 9, count = n * c * hw;
    const uint64_t seed = 99;
    float *device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, count * sizeof(float)), cudaSuccess);
    ASSERT_EQ(sslat_cuda_fill_tensor(SSLAT_ELEM_F32, 1, device, count, c, hw, sslat_fill_stream(seed, -1, 0), -1.0f,
                                     1.0f, nullptr), 0);
    std::vector<float> buffer(count), nchw(count), expected(count);
    ASSERT_EQ(cudaMemcpy(buffer.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(device);
    for (size_t i = 0; i < count; i++) nchw[sslat_nhwc_to_nchw(i, c, hw)] = buffer[i];
    sslat_fill_parameter(expected.data(), count, seed, -1, 0, 0);
    EXPECT_EQ(nchw, expected);
}

}  // namespace

