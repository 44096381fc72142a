// The cuda backend on the stand-in device (standin.h), beyond the GPU suite
// of tests/device/ that runs on it unchanged: the stand-in's own semantics,
// every documented rule it enforces, the measure path with 1, 2 and 8 copies
// hot and cold, cuDNN's Find answers a real GPU may give (no FMA reported, the
// fused call refused everywhere, a cache hit), and `sslat measure -c cuda` on
// every example space, end to end. No test reads a stand-in timing as a latency.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "cli_fixture.h"
#include "helpers.h"
#include "op_cases.h"
#include "standin.h"
#include "standin_fixture.h"

extern "C" {
#include "calc/calculator.h"
#include "ir/space.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_layout.h"
#include "kernels/ops.h"
#include "measure/half.h"
#include "reference_ops.h"
}

namespace {

// Every rule broken in a test must be one the test broke on purpose: checked
// after each test of this binary (the GPU suite's included), whether the tests
// run one per process (ctest) or all in one; the tests that broke one are
// named at the end and fail the run.
std::vector<std::string> &rule_breakers()
{
    static std::vector<std::string> names;
    return names;
}

class NoRuleBroken : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo &) override
    {
        standin_counters().violations = standin_counters().expected_violations = 0;
    }
    void OnTestEnd(const ::testing::TestInfo &test) override
    {
        if (standin_counters().violations != standin_counters().expected_violations)
            rule_breakers().push_back(std::string(test.test_suite_name()) + "." + test.name() + " (" +
                                      standin_counters().last_rule + ")");
    }
};

class RulesEnvironment : public ::testing::Environment {
  public:
    void TearDown() override
    {
        std::string names;
        for (const std::string &name : rule_breakers()) names += "\n  " + name;
        EXPECT_TRUE(rule_breakers().empty())
            << "the backend broke a documented cuDNN / cuBLAS rule (stderr names it) in:" << names;
    }
};

[[maybe_unused]] const bool registered = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new NoRuleBroken);
    ::testing::AddGlobalTestEnvironment(new RulesEnvironment);
    return true;
}();

// ---- the stand-in itself ---------------------------------------------------------------------

TEST_F(Standin, WorkOnAStreamRunsWhenWaitedForAndTheLegacyStreamDoesNotWait)
{
    void *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 64 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(sslat_cuda_fill(SSLAT_ELEM_F32, d, 64, 5, -1.0f, 1.0f, session.stream), 0);
    float early[64], late[64];
    // what the historical read-back bug did: a synchronous copy on the legacy stream
    ASSERT_EQ(cudaMemcpy(early, d, sizeof early, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::isnan(early[0])) << "the fill has not run: new device memory reads as NaN";
    ASSERT_EQ(cudaStreamSynchronize(session.stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(late, d, sizeof late, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_FALSE(std::isnan(late[0]));
    EXPECT_GE(late[0], -1.0f);
    // an event waits for the work before it only
    cudaEvent_t event;
    ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(event, session.stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 64 * sizeof(float), session.stream), cudaSuccess);
    ASSERT_EQ(cudaEventSynchronize(event), cudaSuccess);
    EXPECT_EQ(std::memcmp(d, late, sizeof late), 0) << "the memset after the event has not run";
    ASSERT_EQ(cudaStreamSynchronize(session.stream), cudaSuccess);
    EXPECT_EQ(((float *)d)[0], 0.0f);
    cudaEventDestroy(event);
    cudaFree(d);
}

// A replayed graph whose memory was freed is an illegal address on a GPU: here
// the process stops, naming the call.
TEST_F(Standin, AReplayOfFreedMemoryStopsTheProcess)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            void *d = nullptr;
            cudaMalloc(&d, 256);
            cudaStreamBeginCapture(session.stream, cudaStreamCaptureModeThreadLocal);
            cudaMemsetAsync(d, 0, 256, session.stream);
            cudaGraph_t graph;
            cudaStreamEndCapture(session.stream, &graph);
            cudaGraphExec_t exec;
            cudaGraphInstantiate(&exec, graph, 0);
            cudaFree(d);
            cudaGraphLaunch(exec, session.stream);
            cudaStreamSynchronize(session.stream);
        },
        "cudaMemsetAsync uses 256 B at .*no longer\\) device memory");
}

TEST_F(Standin, ACaptureRecordsAndAnAllocationInsideItInvalidatesIt)
{
    void *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 16 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(session.stream), cudaSuccess);
    ASSERT_EQ(cudaStreamBeginCapture(session.stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 16 * sizeof(float), session.stream), cudaSuccess);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(session.stream, &graph), cudaSuccess);
    float host[16];
    std::memcpy(host, d, sizeof host);
    EXPECT_TRUE(std::isnan(host[0])) << "recorded, not run";
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, session.stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(session.stream), cudaSuccess);
    std::memcpy(host, d, sizeof host);
    EXPECT_EQ(host[0], 0.0f) << "the replay ran it";
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    // an allocation inside a capture is refused and ends it invalid, as the runtime does
    ASSERT_EQ(cudaStreamBeginCapture(session.stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    void *more = nullptr;
    EXPECT_EQ(cudaMalloc(&more, 64), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(cudaMemsetAsync(d, 0, 16 * sizeof(float), session.stream), cudaErrorStreamCaptureInvalidated)
        << "work on an invalidated capture fails";
    EXPECT_EQ(cudaStreamEndCapture(session.stream, &graph), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaFree(d);
}

// ---- the documented rules, each broken once on purpose -------------------------------------------

struct Descriptors {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr, bn = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnActivationDescriptor_t act = nullptr;
    cudnnPoolingDescriptor_t pool = nullptr;
    Descriptors()
    {
        cudnnCreateTensorDescriptor(&x), cudnnCreateTensorDescriptor(&y), cudnnCreateTensorDescriptor(&bias);
        cudnnCreateTensorDescriptor(&bn), cudnnCreateFilterDescriptor(&w), cudnnCreateConvolutionDescriptor(&conv);
        cudnnCreateActivationDescriptor(&act), cudnnCreatePoolingDescriptor(&pool);
        // a 3x3 convolution 8 -> 16 channels on 1x8x6x6, padding 1
        cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 6, 6);
        cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 16, 6, 6);
        cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 16, 1, 1);
        cudnnSetTensor4dDescriptor(bn, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 1, 1);
        cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 16, 8, 3, 3);
        cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH);
        cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
        cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
    }
    ~Descriptors()
    {
        cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(y), cudnnDestroyTensorDescriptor(bias);
        cudnnDestroyTensorDescriptor(bn), cudnnDestroyFilterDescriptor(w), cudnnDestroyConvolutionDescriptor(conv);
        cudnnDestroyActivationDescriptor(act), cudnnDestroyPoolingDescriptor(pool);
    }
};

class StandinRules : public Standin {
  protected:
    void SetUp() override
    {
        Standin::SetUp();
        ASSERT_EQ(cudaMalloc(&memory, 1 << 20), cudaSuccess);
    }
    void TearDown() override
    {
        cudaFree(memory);
        Standin::TearDown();
    }
    cudnnStatus_t conv(Descriptors &d, size_t workspace = 0)
    {
        const float one = 1, zero = 0;
        return cudnnConvolutionForward(session.cudnn, &one, d.x, buffer(0), d.w, buffer(1), d.conv,
                                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, workspace ? buffer(3) : nullptr,
                                       workspace, &zero, d.y, buffer(2));
    }
    cudnnStatus_t fused(Descriptors &d, cudnnConvolutionFwdAlgo_t algo, cudnnTensorDescriptor_t z)
    {
        const float one = 1, zero = 0;
        return cudnnConvolutionBiasActivationForward(session.cudnn, &one, d.x, buffer(0), d.w, buffer(1), d.conv, algo,
                                                     buffer(3), 64 << 10, &zero, z, buffer(2), d.bias, buffer(4),
                                                     d.act, d.y, buffer(2));
    }
    void *buffer(int i) { return (char *)memory + (size_t)i * (128 << 10); } // 128 KB slices
    void *memory = nullptr;
};

TEST_F(StandinRules, TensorsPast2GigaElementsAreNotSupported)
{
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    expect_rule(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 1024, 1024, 1024),
                CUDNN_STATUS_NOT_SUPPORTED, "tensorElements");
    EXPECT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 1024, 1024, 1024), CUDNN_STATUS_SUCCESS);
    cudnnDestroyTensorDescriptor(t);
}

TEST_F(StandinRules, ConvolutionDescriptorsMustAgree)
{
    Descriptors d;
    EXPECT_EQ(conv(d), CUDNN_STATUS_SUCCESS);
    cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 16, 8, 3, 3); // KRSC with NCHW x, y
    expect_rule(conv(d), CUDNN_STATUS_NOT_SUPPORTED, "convFormatsMatch");
    cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 16, 8, 3, 3);
    cudnnSetConvolutionGroupCount(d.conv, 3); // 8 channels in 3 groups
    expect_rule(conv(d), CUDNN_STATUS_BAD_PARAM, "groupsDivideChannels");
    cudnnSetConvolutionGroupCount(d.conv, 1);
    cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 16, 5, 5); // padding 1 keeps 6x6
    expect_rule(conv(d), CUDNN_STATUS_NOT_SUPPORTED, "convOutputDims");
}

TEST_F(StandinRules, TheWorkspaceCoversWhatTheAlgorithmNeedsUnderTheMathSet)
{
    Descriptors d;
    const float one = 1, zero = 0;
    // the script's IMPLICIT_GEMM reports tensor-op math with 1 MiB; under FMA it needs 4 MiB
    size_t need = 0;
    cudnnGetConvolutionForwardWorkspaceSize(session.cudnn, d.x, d.w, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                            &need);
    EXPECT_EQ(need, (size_t)4 << 20);
    expect_rule(cudnnConvolutionForward(session.cudnn, &one, d.x, buffer(0), d.w, buffer(1), d.conv,
                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, buffer(3), (size_t)1 << 20, &zero,
                                        d.y, buffer(2)),
                CUDNN_STATUS_BAD_PARAM, "convWorkspace");
}

TEST_F(StandinRules, TheFusedCallTakesReluOrIdentityABiasOf1xKx1x1AndZAsY)
{
    Descriptors d;
    EXPECT_EQ(fused(d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, d.y), CUDNN_STATUS_SUCCESS);
    cudnnSetActivationDescriptor(d.act, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    expect_rule(fused(d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, d.y), CUDNN_STATUS_NOT_SUPPORTED,
                "fusedActivation");
    cudnnSetActivationDescriptor(d.act, CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    expect_rule(fused(d, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, d.y), CUDNN_STATUS_NOT_SUPPORTED,
                "fusedIdentityAlgorithm");
    cudnnSetActivationDescriptor(d.act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    cudnnSetTensor4dDescriptor(d.bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 1, 1); // K is 16
    expect_rule(fused(d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, d.y), CUDNN_STATUS_BAD_PARAM,
                "fusedBiasDescriptor");
    cudnnSetTensor4dDescriptor(d.bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 16, 1, 1);
    cudnnTensorDescriptor_t z;
    cudnnCreateTensorDescriptor(&z);
    cudnnSetTensor4dDescriptor(z, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, 16, 6, 6);
    expect_rule(fused(d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, z), CUDNN_STATUS_BAD_PARAM, "fusedZDescriptor");
    cudnnDestroyTensorDescriptor(z);
}

TEST_F(StandinRules, BatchNormTakesTheDerivedDescriptorAndPoolingItsOwnOutput)
{
    Descriptors d;
    const float one = 1, zero = 0;
    cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 6, 6);
    auto bn = [&](double epsilon) {
        return cudnnBatchNormalizationForwardInference(session.cudnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x,
                                                       buffer(0), d.y, buffer(2), d.bn, buffer(4), buffer(5),
                                                       buffer(6), buffer(7), epsilon);
    };
    EXPECT_EQ(bn(1e-5), CUDNN_STATUS_SUCCESS);
    expect_rule(bn(-1.0), CUDNN_STATUS_BAD_PARAM, "bnEpsilon");
    cudnnSetTensor4dDescriptor(d.bn, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 8, 1, 1); // derived: FLOAT
    expect_rule(bn(1e-5), CUDNN_STATUS_BAD_PARAM, "bnDescriptor");
    // pooling 2x2 stride 2 of 6x6 is 3x3
    cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 3, 3);
    EXPECT_EQ(cudnnPoolingForward(session.cudnn, d.pool, &one, d.x, buffer(0), &zero, d.y, buffer(2)), CUDNN_STATUS_SUCCESS);
    cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 4, 4);
    expect_rule(cudnnPoolingForward(session.cudnn, d.pool, &one, d.x, buffer(0), &zero, d.y, buffer(2)),
                CUDNN_STATUS_BAD_PARAM, "poolOutputDims");
    cudnnSetPooling2dDescriptor(d.pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 2, 2, 2, 2);
    expect_rule(cudnnPoolingForward(session.cudnn, d.pool, &one, d.x, buffer(0), &zero, d.y, buffer(2)),
                CUDNN_STATUS_NOT_SUPPORTED, "poolPadding");
}

TEST_F(StandinRules, GemmLeadingDimensionsTypesAndDeviceMemory)
{
    const float one = 1, zero = 0;
    auto gemm = [&](int lda, cudaDataType c_type, cublasComputeType_t compute, void *c) {
        // C (4x3) = A^T (A stored 5x4) · B (5x3)
        return cublasGemmEx(session.cublas, CUBLAS_OP_T, CUBLAS_OP_N, 4, 3, 5, &one, buffer(0), CUDA_R_16F, lda,
                            buffer(1), CUDA_R_16F, 5, &zero, c, c_type, 4, compute, CUBLAS_GEMM_DEFAULT);
    };
    EXPECT_EQ(gemm(5, CUDA_R_16F, CUBLAS_COMPUTE_32F, buffer(2)), CUBLAS_STATUS_SUCCESS);
    expect_rule(gemm(4, CUDA_R_16F, CUBLAS_COMPUTE_32F, buffer(2)), CUBLAS_STATUS_INVALID_VALUE, "gemmLeadingDimensions");
    expect_rule(gemm(5, CUDA_R_16F, CUBLAS_COMPUTE_32F_FAST_TF32, buffer(2)), CUBLAS_STATUS_NOT_SUPPORTED, "gemmTypes");
    float host[12];
    expect_rule(gemm(5, CUDA_R_16F, CUBLAS_COMPUTE_32F, host), CUBLAS_STATUS_INVALID_VALUE, "deviceMemory");
}

TEST_F(StandinRules, StridedBatchedGemmKeepsEveryBatchInsideItsAllocation)
{
    const float one = 1, zero = 0;
    // 3 batches of C (2x2) = A^T (A stored 4x2, ld 4) · B (4x2), batch strides 2 elements apart
    auto gemm = [&](long long stride_a, int batches) {
        return cublasGemmStridedBatchedEx(session.cublas, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, 4, &one, buffer(0),
                                          CUDA_R_32F, 4, stride_a, buffer(1), CUDA_R_32F, 4, 2, &zero, buffer(2),
                                          CUDA_R_32F, 2, 4, batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    EXPECT_EQ(gemm(2, 3), CUBLAS_STATUS_SUCCESS);
    expect_rule(gemm(-2, 3), CUBLAS_STATUS_INVALID_VALUE, "gemmStrides");
    expect_rule(gemm(1 << 24, 3), CUBLAS_STATUS_INVALID_VALUE, "deviceMemory");
    expect_rule(gemm(2, -1), CUBLAS_STATUS_INVALID_VALUE, "gemmSizes");
}

// cuBLASLt: its epilogues computed (bias, ReLU, GELU's tanh form) and its rules.
TEST_F(StandinRules, LtMatmulComputesItsEpiloguesAndKeepsItsRules)
{
    // Y (4x3) = W^T (W stored 5x4) · X (5x3) + bias (4), fp32, column-major
    std::vector<float> w(20), x(15), bias(4), y(12);
    for (int i = 0; i < 20; i++) w[i] = 0.1f * (float)(i % 7) - 0.3f;
    for (int i = 0; i < 15; i++) x[i] = 0.2f * (float)(i % 5) - 0.4f;
    for (int i = 0; i < 4; i++) bias[i] = 0.5f - 0.25f * (float)i;
    ASSERT_EQ(cudaMemcpy(buffer(0), w.data(), 80, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(buffer(1), x.data(), 60, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(buffer(3), bias.data(), 16, cudaMemcpyHostToDevice), cudaSuccess);
    cublasLtHandle_t lt = nullptr;
    ASSERT_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    ASSERT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    const int32_t transpose = CUBLAS_OP_T;
    const void *bias_at = buffer(3);
    ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose),
              CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, 5, 4, 5), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, 5, 3, 5), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, 4, 3, 4), CUBLAS_STATUS_SUCCESS);
    const float one = 1, zero = 0;
    auto matmul = [&](void *d) {
        return cublasLtMatmul(lt, desc, &one, buffer(0), a, buffer(1), b, &zero, d, c, d, c, nullptr, nullptr, 0,
                              nullptr);
    };
    auto set_epilogue = [&](uint32_t epilogue) {
        return cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    };
    for (uint32_t epilogue : {CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS}) {
        ASSERT_EQ(set_epilogue(epilogue), CUBLAS_STATUS_SUCCESS);
        if (epilogue == CUBLASLT_EPILOGUE_BIAS) // a bias epilogue without its pointer
            expect_rule(matmul(buffer(2)), CUBLAS_STATUS_INVALID_VALUE, "ltBiasPointer");
        ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_at, sizeof bias_at),
                  CUBLAS_STATUS_SUCCESS);
        ASSERT_EQ(matmul(buffer(2)), CUBLAS_STATUS_SUCCESS);
        ASSERT_EQ(cudaMemcpy(y.data(), buffer(2), 48, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 4; i++) {
                double v = bias[i];
                for (int l = 0; l < 5; l++) v += (double)w[l + 5 * i] * x[l + 5 * j];
                if (epilogue == CUBLASLT_EPILOGUE_RELU_BIAS) v = v > 0 ? v : 0;
                if (epilogue == CUBLASLT_EPILOGUE_GELU_BIAS)
                    v = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                EXPECT_NEAR(y[i + 4 * j], v, 1e-5) << "epilogue " << epilogue << " at " << i << "," << j;
            }
    }
    // the rules: an attribute of the wrong size, ld below the rows, sizes that do not chain, a host D
    const int64_t wide = 0;
    expect_rule(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &wide, sizeof wide),
                CUBLAS_STATUS_INVALID_VALUE, "ltAttributeSize");
    cublasLtMatrixLayout_t bad = nullptr;
    expect_rule(cublasLtMatrixLayoutCreate(&bad, CUDA_R_32F, 5, 4, 4), CUBLAS_STATUS_INVALID_VALUE,
                "ltLeadingDimension");
    cublasLtMatrixLayout_t short_b = nullptr;
    ASSERT_EQ(cublasLtMatrixLayoutCreate(&short_b, CUDA_R_32F, 6, 3, 6), CUBLAS_STATUS_SUCCESS);
    expect_rule(cublasLtMatmul(lt, desc, &one, buffer(0), a, buffer(1), short_b, &zero, buffer(2), c, buffer(2), c,
                               nullptr, nullptr, 0, nullptr),
                CUBLAS_STATUS_INVALID_VALUE, "ltSizes");
    expect_rule(matmul(y.data()), CUBLAS_STATUS_INVALID_VALUE, "deviceMemory");
    EXPECT_EQ(set_epilogue(CUBLASLT_EPILOGUE_DRELU), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t result;
    int found = -1;
    EXPECT_EQ(cublasLtMatmulAlgoGetHeuristic(lt, desc, a, b, c, c, nullptr, 1, &result, &found),
              CUBLAS_STATUS_NOT_SUPPORTED) << "no algorithm for an epilogue the stand-in does not compute";
    EXPECT_EQ(found, 0);
    for (cublasLtMatrixLayout_t layout : {a, b, c, short_b}) cublasLtMatrixLayoutDestroy(layout);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(lt);
}

// ---- the measure path: copies, hot and cold ---------------------------------------------------------

struct CopiesCase {
    const char *name, *layers, *input;
};

class StandinMeasure : public Standin, public ::testing::WithParamInterface<CopiesCase> {};

// Copies 1, 2 and 8, hot: the copies rotate their own buffers, copy 0's
// output is right and the last copy's (written only by the graph's replays) is there,
// the blocking kernel held every hot sample, nothing ran on the legacy stream.
TEST_P(StandinMeasure, EveryCopyHoldsTheRightOutputHotAndCold)
{
    load(GetParam().layers, GetParam().input);
    for (sslat_dtype dtype : {SSLAT_DTYPE_FP32, SSLAT_DTYPE_FP16})
        for (int copies : {1, 2, 8}) {
            SCOPED_TRACE(std::string(sslat_dtype_name(dtype)) + ", copies " + std::to_string(copies));
            setenv("SSLAT_CUDA_COPIES_CAP", std::to_string(copies).c_str(), 1);
            sslat_calc_options o = options(dtype, SSLAT_MODE_FUSED);
            cuda_program p;
            sslat_error err;
            ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
            long launches = standin_counters().computed_launches, mallocs = standin_counters().mallocs;
            size_t workspace = session.workspace_size;
            sslat_entry e;
            ASSERT_EQ(cuda_measure_program(&p, whole.input.n, &o, "test", CUDA_NVTX_PHASE, 0, &e, &err), SSLAT_OK)
                << err.message;
            EXPECT_EQ(p.copies, copies) << "the cache rule asks for more than the cap: the cap holds";
            // copy 0 for the choice, the other copies in one allocation (and the workspace when it grew)
            long unit_mallocs = (copies > 1 ? 2 : 1) + (session.workspace_size != workspace ? 1 : 0);
            EXPECT_EQ(standin_counters().mallocs - mallocs, unit_mallocs) << "one allocation per growth, not per copy";
            EXPECT_EQ(p.n_slabs, copies > 1 ? 2 : 1);
            EXPECT_GT(standin_counters().computed_launches, launches);
            EXPECT_EQ(e.samples, 3u);
            double bound = dtype == SSLAT_DTYPE_FP32 ? 1e-4 : 1e-2;
            EXPECT_LT(error(output_of(p, 0)), bound);
            // the last copy has its own input (seeded by copy): its output is written by the replays only,
            // so it is finite (new memory is NaN) and not copy 0's
            std::vector<float> last = output_of(p, copies - 1), first = output_of(p, 0);
            bool finite = true;
            for (float v : last) finite = finite && std::isfinite(v);
            EXPECT_TRUE(finite) << "the replays wrote the last copy's output";
            if (copies > 1) EXPECT_NE(last, first);
            long frees = standin_counters().frees;
            cuda_program_release(&p);
            EXPECT_EQ(standin_counters().frees - frees, copies > 1 ? 2 : 1);
        }
    EXPECT_GT(session.blocked_samples, 0);
    EXPECT_EQ(session.unblocked_samples, 0) << "the host released the blocking kernel before waiting";
    EXPECT_EQ(standin_counters().legacy_stream_ops, 0) << "every call on the session's stream";
    // cold: one copy, the L2 flushed (a memset) before each sample
    close();
    open(true);
    sslat_calc_options o = options(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER);
    o.cold = true;
    cuda_program p;
    sslat_error err;
    ASSERT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
    sslat_entry e;
    ASSERT_EQ(cuda_measure_program(&p, whole.input.n, &o, "test", CUDA_NVTX_PHASE, 0, &e, &err), SSLAT_OK) << err.message;
    EXPECT_EQ(p.copies, 1);
    EXPECT_EQ(e.samples, 3u);
    EXPECT_LT(error(output_of(p, 0)), 1e-4);
    EXPECT_EQ(session.blocked_samples, 0) << "cold samples do not use the blocking kernel";
    cuda_program_release(&p);
    unload();
}

const CopiesCase COPIES_CASES[] = {
    {"FusedConv", "\"cn_k3_c16\"", "[8, 8, 8]"},           // conv + bias + relu
    {"SqueezeExcite", "\"ir_k3_e2_se0.25\"", "[16, 6, 6]"}, // pools, mul_channel, residual
    {"ShuffleNetV2", "\"sv2_s1_c16\"", "[16, 6, 6]"},       // slice, concat, shuffle
    {"Linear", "\"fc10\"", "[8, 3, 3]"},                    // flatten into cuBLAS (NHWC columns permuted)
    // tokens: from NCHW a kernel, from NHWC (fp16) an alias; attention's batched products and softmax
    {"VisionTransformer", "\"patch_k4_c16\", \"cls\", \"pos\", \"vit_h2\", \"ln\", \"tokpool\", \"fc10\"", "[3, 8, 8]"},
    {"TokensMeanPooled", "\"tokens\", \"vit_h4_hd3_explicit_ngt\", \"tokpool_mean\"", "[16, 3, 3]"},
    {"AttentionBias", "\"patch_k2_c16\", \"vit_h2_posbias\", \"tokpool_mean\"", "[3, 8, 8]"},  // each copy its own table
};
INSTANTIATE_TEST_SUITE_P(Cases, StandinMeasure, ::testing::ValuesIn(COPIES_CASES),
                         [](const ::testing::TestParamInfo<CopiesCase> &info) { return std::string(info.param.name); });

// ---- cuDNN's Find, as a real GPU may answer ------------------------------------------------------

class StandinFind : public Standin {
  protected:
    // one conv + BN + ReLU (fused: cuDNN's conv + bias + act) measured once; its plan text
    std::string run(sslat_dtype dtype, sslat_exec_mode mode, double *error_out = nullptr)
    {
        sslat_calc_options o = options(dtype, mode);
        cuda_program p;
        sslat_error err;
        EXPECT_EQ(cuda_program_init(&p, &session, &whole, &o, &err), SSLAT_OK) << err.message;
        EXPECT_EQ(cuda_program_choose_algorithms(&p, &err), SSLAT_OK) << err.message;
        EXPECT_EQ(cuda_program_enqueue(&p, 0, &err), SSLAT_OK) << err.message;
        std::vector<float> got(expected.size());
        EXPECT_EQ(cuda_program_read_output(&p, got.data(), &err), SSLAT_OK) << err.message;
        if (error_out) *error_out = error(got);
        char plan[2048];
        cuda_program_describe(&p, plan, sizeof plan);
        cuda_program_release(&p);
        return plan;
    }
};

// A linear layer runs cublasLtMatmul with its bias, and ReLU or tanh-GELU, as
// the epilogue (another activation an own kernel after it); without cuBLASLt
// the same plan runs cublasGemmEx and the own epilogue, to the same values.
TEST_F(StandinFind, ALinearRunsOnCublasLtWithItsEpilogueAndOnGemmExWithoutIt)
{
    load("\"tokens\", \"fc12\", \"relu\", \"fc10\", \"act_ngt\", \"fc8\", \"gelu\"", "[16, 3, 3]");
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2);
    EXPECT_NE(plan.find("cublasLtMatmul(epilogue bias,relu); cublasLtMatmul(epilogue bias,gelu_tanh); "
                        "cublasLtMatmul(epilogue bias) + sslat_act(gelu)"), std::string::npos) << plan;
    EXPECT_EQ(session.cublaslt_fallbacks, 0);
    struct Restore { // the library "missing" for this test only
        ~Restore() { sslat_cuda_api.cublaslt_missing[0] = '\0'; }
    } restore;
    close();
    std::snprintf(sslat_cuda_api.cublaslt_missing, sizeof sslat_cuda_api.cublaslt_missing,
                  "libcublasLt.so cannot be loaded: (a test)");
    open(false);
    EXPECT_EQ(session.cublaslt, nullptr);
    plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2);
    EXPECT_NE(plan.find("cublasGemmEx + sslat_epilogue(bias,relu); cublasGemmEx + sslat_epilogue(bias,gelu_tanh); "
                        "cublasGemmEx + sslat_epilogue(bias,gelu)"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("cublasLt"), std::string::npos) << plan;
    unload();
}

TEST_F(StandinFind, NoFmaResultForFp32SetsFmaOnTheFirstAndAsksItsWorkspaceAgain)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    // every successful entry reports tensor-op math (a reporting quirk)
    standin_script().find = {
        {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_STATUS_SUCCESS, CUDNN_TENSOR_OP_MATH, 1 << 20, 4 << 20},
        {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_STATUS_SUCCESS, CUDNN_TENSOR_OP_MATH, 0, 0},
    };
    standin_script().refuse_fused.clear();
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP32, SSLAT_MODE_EAGER, &e);
    EXPECT_LT(e, 1e-4);
    EXPECT_NE(plan.find("IMPLICIT_GEMM, ws 4194304 B, fma, FMA set (Find reported none)"), std::string::npos) << plan;
    EXPECT_EQ(session.fma_forced, 1);
    ASSERT_FALSE(standin_counters().plain_calls.empty());
    EXPECT_EQ(standin_counters().plain_calls.back().second, (int)CUDNN_FMA_MATH);
    unload();
}

TEST_F(StandinFind, AFusedCallNoAlgorithmTakesFallsBackToTheOwnEpilogue)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    standin_script().refuse_fused.clear();
    for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; algo++) standin_script().refuse_fused.push_back({algo, -1});
    double e = 1;
    std::string plan = run(SSLAT_DTYPE_FP16, SSLAT_MODE_FUSED, &e);
    EXPECT_LT(e, 1e-2);
    EXPECT_NE(plan.find("fused call refused: conv + sslat_epilogue"), std::string::npos) << plan;
    EXPECT_EQ(session.fused_fallbacks, 1);
    // each successful Find entry was tried once, with the math it reported
    std::vector<std::pair<int, int>> tried = {{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_TENSOR_OP_MATH},
                                              {CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, CUDNN_TENSOR_OP_MATH},
                                              {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_TENSOR_OP_MATH}};
    EXPECT_EQ(standin_counters().fused_calls, tried);
    unload();
}

TEST_F(StandinFind, TheFusedTrialRunsThePairThatWillRunAndACacheHitRestoresIt)
{
    load("\"cn_k3_c16\"", "[8, 8, 8]");
    // tf32: the descriptor asks DEFAULT math; the first entry reports tensor-op and the fused
    // call refuses it under DEFAULT only: a trial under the Find-time math would be refused
    standin_script().refuse_fused = {{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_DEFAULT_MATH}};
    std::string first = run(SSLAT_DTYPE_TF32, SSLAT_MODE_FUSED);
    EXPECT_NE(first.find("IMPLICIT_GEMM, ws 1048576 B, tensor_op"), std::string::npos) << first;
    EXPECT_EQ(session.fused_fallbacks, 0);
    long finds = standin_counters().find_calls;
    standin_counters().fused_calls.clear();
    std::string again = run(SSLAT_DTYPE_TF32, SSLAT_MODE_FUSED);
    EXPECT_EQ(standin_counters().find_calls, finds) << "the session's cache answered";
    EXPECT_EQ(session.find_cache.hits, 1);
    ASSERT_EQ(standin_counters().fused_calls.size(), 1u);
    EXPECT_EQ(standin_counters().fused_calls[0],
              std::make_pair((int)CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, (int)CUDNN_TENSOR_OP_MATH))
        << "the new descriptor got the cached math type, not the Find-time one";
    unload();
}

// ---- sslat measure -c cuda, end to end -------------------------------------------------------------

TEST_F(StandinCommand, MeasuresEveryExampleSpaceWithItsPlanAndMetadata)
{
    const char *spaces[] = {"proxylessnas.json", "ofa_mobilenet_v3.json", "mobilenet_v2_space.json", "fbnet.json",
                            "mnasnet1_0.json", "mobilenet_v2.json", "mobilenet_v3_large.json", "efficientnet_b0.json",
                            "resnet18.json", "resnet50.json", "shufflenet_v2_x1_0.json", "yolov5s.json",
                            "yolov5s_ss.json", "autoformer_tiny.json", "hybrid_vit.json", "convnext_atto.json"};
    for (const char *name : spaces) {
        SCOPED_TRACE(name);
        std::string table = path(std::string(name) + ".sslat"), json = path(std::string(name) + ".json");
        std::string csv = path(std::string(name) + ".csv"), macs = path(std::string(name) + ".mac.csv");
        Result r = standin("measure " + example_path(name) + " -c cuda --resolution 64 --warmup 1 --runs 3 -o " +
                           table + " --json " + json + " --csv " + csv);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err.find("RULE"), std::string::npos) << r.err;
        struct stat st;
        EXPECT_NE(stat((table + ".journal").c_str(), &st), 0) << "the journal is gone once the table is written";
        // every unit: the same rows as the analytic table of the same space
        ASSERT_EQ(run("measure " + example_path(name) + " -c mac --resolution 64 --csv " + macs).code, 0);
        std::string rows = read_file(csv), mac_rows = read_file(macs);
        EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), std::count(mac_rows.begin(), mac_rows.end(), '\n'));
        EXPECT_EQ(rows.find("nan"), std::string::npos);
        std::string text = read_file(json);
        for (const char *key : {"\"standin\"", "\"device.name\"", "\"software.cudnn\"", "\"cuda.find\"",
                                "\"cuda.blocking_kernel\"", "\"cuda.fused_fallbacks\"", "\"calculator.cache\"",
                                "\"cuda.plan."})
            EXPECT_NE(text.find(key), std::string::npos) << key;
        EXPECT_NE(text.find("| copies 2"), std::string::npos) << "each unit's plan with its copies";
        EXPECT_NE(text.find("0 where it timed out"), std::string::npos);
    }
    // the journal: kept (--keep-journal), then a --resume run takes every unit
    // from it (no convolution timed by Find) and removes it
    std::string table = path("px.sslat"), json = path("px.json");
    std::string common = "measure " + example_path("proxylessnas.json") + " -c cuda --resolution 64 --warmup 1 --runs 3 -o " + table;
    Result first = standin(common + " --keep-journal");
    ASSERT_EQ(first.code, 0) << first.err;
    struct stat st;
    ASSERT_EQ(stat((table + ".journal").c_str(), &st), 0) << "kept";
    Result again = standin(common + " --resume --json " + json);
    EXPECT_EQ(again.code, 0) << again.err;
    EXPECT_NE(read_file(json).find("0 distinct convolutions timed by cudnnFind"), std::string::npos)
        << "every unit came from the journal";
    EXPECT_NE(stat((table + ".journal").c_str(), &st), 0);
}

TEST_F(StandinCommand, ItsTablesAreNoLatenciesAndTheRealCommandNeverListsIt)
{
    std::string table = path("t.sslat");
    Result r = standin("measure " + example_path("resnet18.json") + " -c cuda --resolution 32 --runs 3 -o " + table);
    ASSERT_EQ(r.code, 0) << r.err;
    Result stats = run("stats " + table);
    EXPECT_NE(stats.code, 0);
    EXPECT_NE(stats.err.find("stand-in"), std::string::npos) << stats.err;
    Result listed = run("calculators");
    EXPECT_EQ(listed.code, 0);
    EXPECT_EQ(listed.out.find("stand-in"), std::string::npos) << listed.out;
    EXPECT_EQ(listed.out.find("standin"), std::string::npos) << listed.out;
}

} // namespace

// ---- measure -c cuda --context N --reference R -----------------------------------------------------

// A Python that stands in for the reference runner: the availability check
// (`python -c ...`) passes, and a run answers each network's time from its
// graph (nodes × 0.01 ms) as a runtime that compiles would, keeping a copy of
// the manifest it was given. The real runner needs a GPU; this checks what
// sslat asks of it and what it does with the answer.
class StandinReference : public StandinCommand {
  protected:
    std::string fake_runner(const std::string &manifest_copy)
    {
    std::string script = write("runner.py", R"(import json, shutil, sys
manifest = json.load(open(sys.argv[1]))
shutil.copy(sys.argv[1], ')" + manifest_copy + R"(')
ms = [0.01 * len(json.load(open(m["graph"]))["nodes"]) for m in manifest["models"]]
watch = {"batches": 15, "disturbed": 0, "workers": 1, "usable": 2, "share_judged": False, "mean_share": 1.0,
         "worst_share": 1.0, "mean_wait": 0.0, "worst_wait": 0.01, "worst_steal": 0.0, "most_others": 0,
         "busy_start": 0.0, "busy_end": 0.1, "calibration_share": 0.99, "drift": 1.01, "cov_median": 0.01,
         "cov_worst": 0.02}
json.dump({"runtime": manifest["runtime"] + ": fake 1.0, CUDA graph replays, back to back", "ms": ms,
           "compile_s": [1.5 for m in manifest["models"]], "watch": watch}, sys.stdout)
)");
    std::string python = write("python", "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\nexec python3 " + script + " \"$2\"\n");
    chmod(python.c_str(), 0755);
    return python;
    }
};

TEST_F(StandinReference, ContextModeOnCudaFitsToTheReferenceAndNamesIt)
{
    std::string manifest = path("manifest.json"), python = fake_runner(manifest);
    std::string table = path("fitted.sslat"), json = path("fitted.json");
    Result r = standin("measure " + example_path("proxylessnas.json") + " -c cuda --dtype fp16 --resolution 64 "
                       "--warmup 1 --runs 3 --context 40 --reference torch-compile -o " + table + " --json " + json,
                       "SSLAT_PYTHON=" + python);
    ASSERT_EQ(r.code, 0) << r.err;
    // one runner call for all 40, in the table's regime: cuda, fp16, NHWC (fp16's layout), BN folded (fused)
    std::string asked = read_file(manifest);
    EXPECT_NE(asked.find("\"runtime\":\"torch-compile\""), std::string::npos) << asked;
    EXPECT_NE(asked.find("\"device\":\"cuda\""), std::string::npos);
    EXPECT_NE(asked.find("\"dtype\":\"fp16\""), std::string::npos);
    EXPECT_NE(asked.find("\"channels_last\":true"), std::string::npos);
    EXPECT_NE(asked.find("\"fold_bn\":true"), std::string::npos);
    EXPECT_NE(r.err.find("[context] torch.compile: 40 networks compiled in 60.0 s"), std::string::npos) << r.err;
    std::string text = read_file(json);
    EXPECT_NE(text.find("\"context.runtime\": \"torch-compile\""), std::string::npos);
    EXPECT_NE(text.find("\"context.reference\": \"torch-compile: fake 1.0"), std::string::npos);
    EXPECT_NE(text.find("\"context.compile_s\": \"60.000\""), std::string::npos);
    EXPECT_NE(text.find("\"context.architectures\": \"40\""), std::string::npos);
    // the reference runs' own verdict, kept with the fit (GPU-timed: the worker share is not judged)
    EXPECT_NE(text.find("\"context.quality.verdict\": \"ok\""), std::string::npos) << text;
    EXPECT_NE(text.find("worker CPU share not judged"), std::string::npos) << text;
    EXPECT_NE(r.err.find("[reference] quality ok: 15 batches of runs, 0 disturbed"), std::string::npos) << r.err;
}

TEST_F(StandinCommand, ContextModeOnCudaRefusesAReferenceThatCannotTimeItBeforeMeasuring)
{
    std::string space = example_path("proxylessnas.json"), table = path("never.sslat");
    std::string common = "measure " + space + " -c cuda --resolution 64 --runs 3 --context 40 -o " + table;
    // fp16: the ONNX export writes fp32 models
    Result fp16 = standin(common + " --dtype fp16 --reference onnxruntime");
    EXPECT_EQ(fp16.code, 2) << fp16.err;
    EXPECT_NE(fp16.err.find("writes fp32 models"), std::string::npos) << fp16.err;
    // a Python whose ONNX Runtime is the CPU build (exit 5 of the check) / whose torch sees no GPU (exit 6)
    std::string cpu_only = write("cpu_only", "#!/bin/sh\nexit 5\n"), no_gpu = write("no_gpu", "#!/bin/sh\nexit 6\n");
    chmod(cpu_only.c_str(), 0755);
    chmod(no_gpu.c_str(), 0755);
    Result ort = standin(common + " --reference onnxruntime", "SSLAT_PYTHON=" + cpu_only);
    EXPECT_EQ(ort.code, 3) << ort.err;
    EXPECT_NE(ort.err.find("only the CPU build of ONNX Runtime is installed"), std::string::npos) << ort.err;
    for (const char *reference : {"torch", "torch-default", "torch-compile"}) {
        Result torch = standin(common + " --reference " + reference, "SSLAT_PYTHON=" + no_gpu);
        EXPECT_EQ(torch.code, 3) << torch.err;
        EXPECT_NE(torch.err.find("sees no CUDA device"), std::string::npos) << torch.err;
    }
    Result unknown = standin(common + " --reference tensorrt");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("onnxruntime, torch, torch-default, torch-compile"), std::string::npos);
    struct stat st;
    EXPECT_NE(stat(table.c_str(), &st), 0) << "refused before a table was measured";
}
