/* The cuda backend's libraries. The CUDA runtime is linked statically; cuDNN,
 * cuBLAS, cuBLASLt and NVML are loaded with dlopen, so sslat runs on machines without
 * them and says which one is missing. Call them as CUDNN(cudnnCreate)(…),
 * CUBLAS(cublasCreate_v2)(…) after cuda_api_load() succeeded. Every call goes
 * through CUDA_RETURN_IF_FAILED, which names the call, file:line and the library's own
 * error string. */
#ifndef SSLAT_CUDA_API_H
#define SSLAT_CUDA_API_H

#include <stdbool.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "sslat.h"

#define CUDA_CUDNN_FUNCTIONS(X)                     \
    X(cudnnGetVersion)                              \
    X(cudnnGetErrorString)                          \
    X(cudnnCreate)                                  \
    X(cudnnDestroy)                                 \
    X(cudnnSetStream)                               \
    X(cudnnCreateTensorDescriptor)                  \
    X(cudnnDestroyTensorDescriptor)                 \
    X(cudnnSetTensor4dDescriptor)                   \
    X(cudnnCreateFilterDescriptor)                  \
    X(cudnnDestroyFilterDescriptor)                 \
    X(cudnnSetFilter4dDescriptor)                   \
    X(cudnnCreateConvolutionDescriptor)             \
    X(cudnnDestroyConvolutionDescriptor)            \
    X(cudnnSetConvolution2dDescriptor)              \
    X(cudnnSetConvolutionGroupCount)                \
    X(cudnnSetConvolutionMathType)                  \
    X(cudnnGetConvolutionForwardAlgorithmMaxCount)  \
    X(cudnnFindConvolutionForwardAlgorithmEx)       \
    X(cudnnGetConvolutionForwardWorkspaceSize)      \
    X(cudnnConvolutionForward)                      \
    X(cudnnConvolutionBiasActivationForward)        \
    X(cudnnCreateActivationDescriptor)              \
    X(cudnnDestroyActivationDescriptor)             \
    X(cudnnSetActivationDescriptor)                 \
    X(cudnnActivationForward)                       \
    X(cudnnCreatePoolingDescriptor)                 \
    X(cudnnDestroyPoolingDescriptor)                \
    X(cudnnSetPooling2dDescriptor)                  \
    X(cudnnPoolingForward)                          \
    X(cudnnBatchNormalizationForwardInference)

/* The graph (backend) API: exported by libcudnn.so.9 itself. Optional: when
 * one is missing, --cuda-api graph falls back to the legacy calls and says so. */
#define CUDA_CUDNN_GRAPH_FUNCTIONS(X) \
    X(cudnnBackendCreateDescriptor)   \
    X(cudnnBackendDestroyDescriptor)  \
    X(cudnnBackendFinalize)           \
    X(cudnnBackendSetAttribute)       \
    X(cudnnBackendGetAttribute)       \
    X(cudnnBackendExecute)

#define CUDA_CUBLAS_FUNCTIONS(X) \
    X(cublasCreate_v2)           \
    X(cublasDestroy_v2)          \
    X(cublasSetStream_v2)        \
    X(cublasSetWorkspace_v2)     \
    X(cublasGetVersion_v2)       \
    X(cublasGetStatusString)

/* cuBLASLt (libcublasLt.so, which cuBLAS itself loads): the linear layers'
 * matrix products with their bias (and ReLU or tanh-GELU) epilogue, the
 * path PyTorch's addmm takes for them. Optional, all or nothing: without it a linear
 * layer is cublasGemmEx and the own epilogue kernel, and the metadata says why. */
#define CUDA_CUBLASLT_FUNCTIONS(X)          \
    X(cublasLtCreate)                       \
    X(cublasLtDestroy)                      \
    X(cublasLtMatmulDescCreate)             \
    X(cublasLtMatmulDescDestroy)            \
    X(cublasLtMatmulDescSetAttribute)       \
    X(cublasLtMatrixLayoutCreate)           \
    X(cublasLtMatrixLayoutDestroy)          \
    X(cublasLtMatmulPreferenceCreate)       \
    X(cublasLtMatmulPreferenceDestroy)      \
    X(cublasLtMatmulPreferenceSetAttribute) \
    X(cublasLtMatmulAlgoGetHeuristic)       \
    X(cublasLtMatmul)

/* NVML: declared here (no nvml.h in the toolkit), loaded from the driver. */
typedef struct nvml_device_opaque *nvml_device;
typedef struct cuda_nvml_table {
    int (*init)(void);
    int (*shutdown)(void);
    int (*device_by_pci_bus_id)(const char *bus_id, nvml_device *device);
    int (*temperature)(nvml_device device, int sensor, unsigned *celsius);
    int (*clock)(nvml_device device, int clock, unsigned *mhz);
    int (*throttle_reasons)(nvml_device device, unsigned long long *reasons);
} cuda_nvml_table;

typedef struct cuda_api_table {
#define CUDA_API_POINTER(name) __typeof__(&name) name;
    CUDA_CUDNN_FUNCTIONS(CUDA_API_POINTER)
    CUDA_CUDNN_GRAPH_FUNCTIONS(CUDA_API_POINTER)
    CUDA_CUBLAS_FUNCTIONS(CUDA_API_POINTER)
    CUDA_CUBLASLT_FUNCTIONS(CUDA_API_POINTER)
#undef CUDA_API_POINTER
    /* spelled out: C++ sees overloads of cublasGemmEx, so no __typeof__ */
    cublasStatus_t (*cublasGemmEx)(cublasHandle_t handle, cublasOperation_t a_op, cublasOperation_t b_op, int m,
                                   int n, int k, const void *alpha, const void *a, cudaDataType a_type, int lda,
                                   const void *b, cudaDataType b_type, int ldb, const void *beta, void *c,
                                   cudaDataType c_type, int ldc, cublasComputeType_t compute, cublasGemmAlgo_t algo);
    /* attention's products, one per head: batch i reads A + i·stride_a, B + i·stride_b, writes C + i·stride_c */
    cublasStatus_t (*cublasGemmStridedBatchedEx)(cublasHandle_t handle, cublasOperation_t a_op, cublasOperation_t b_op,
                                                 int m, int n, int k, const void *alpha, const void *a,
                                                 cudaDataType a_type, int lda, long long stride_a, const void *b,
                                                 cudaDataType b_type, int ldb, long long stride_b, const void *beta,
                                                 void *c, cudaDataType c_type, int ldc, long long stride_c, int batches,
                                                 cublasComputeType_t compute, cublasGemmAlgo_t algo);
    /* optional (cuDNN >= 9.0): why the last call failed, in cuDNN's words */
    void (*cudnnGetLastErrorString)(char *message, size_t max_size);
    /* "" when every CUDA_CUDNN_GRAPH_FUNCTIONS symbol loaded, else why not
     * ("…/libcudnn.so.9 has no cudnnBackendExecute") */
    char graph_missing[320];
    /* "" when every CUDA_CUBLASLT_FUNCTIONS symbol loaded, else why not */
    char cublaslt_missing[320];
    cuda_nvml_table nvml; /* all NULL when NVML is not there; throttle_reasons may be NULL alone */
    char cudnn_path[512], cublas_path[512], cublaslt_path[512]; /* the files really loaded (dladdr) */
    /* NULL, but in the stand-in device of the tests (tests/standin/), which
     * fills this table itself: what it is. Its tables are marked with it
     * (metadata "standin") and no statistic takes them as latencies. */
    const char *standin;
} cuda_api_table;

extern cuda_api_table sslat_cuda_api;
#define CUDNN(name) (sslat_cuda_api.name)
#define CUBLAS(name) (sslat_cuda_api.name)

/* Whether every cuBLASLt function loaded (after cuda_api_load). */
static inline bool cuda_cublaslt_loaded(void)
{
    return !sslat_cuda_api.cublaslt_missing[0] && sslat_cuda_api.cublasLtMatmul != NULL;
}

/* The cuBLAS workspace of a session (cublasSetWorkspace), which cuBLASLt's matmuls share. */
#define CUDA_CUBLAS_WORKSPACE_BYTES ((size_t)32 << 20)

/* Load cuDNN and cuBLAS (and NVML when present) once; NULL on success, else
 * a one-line reason ("libcudnn.so.9 (cuDNN 9) cannot be loaded: …").
 * kernels/cuda_api.c; the stand-in device defines its own. */
const char *cuda_api_load(void);

/* The rest: kernels/cuda_check.c. Whether a CUDA device is there (runtime
 * and driver work, count > 0). */
int cuda_device_count(void);

/* The checks behind CUDA_RETURN_IF_FAILED: SSLAT_OK, or a status with "CALL failed at
 * FILE:LINE: the library's message". Out of memory gives SSLAT_ERR_NOMEM. */
sslat_status cuda_check_runtime(cudaError_t code, const char *call, const char *file, int line, sslat_error *err);
sslat_status cuda_check_cudnn(cudnnStatus_t code, const char *call, const char *file, int line, sslat_error *err);
sslat_status cuda_check_cublas(cublasStatus_t code, const char *call, const char *file, int line, sslat_error *err);

/* CUDA_RETURN_IF_FAILED(err, runtime | cudnn | cublas, call): returns the
 * call's failure from the calling function (zstd's FORWARD_IF_ERROR), for
 * code written so that an early return leaks nothing (what it made is owned
 * by the program or session, which its release frees). */
#define CUDA_RETURN_IF_FAILED(err, library, call)                                                  \
    do {                                                                                           \
        sslat_status check_status_ = cuda_check_##library((call), #call, __FILE__, __LINE__, err); \
        if (check_status_ != SSLAT_OK) return check_status_;                                       \
    } while (0)

#endif
