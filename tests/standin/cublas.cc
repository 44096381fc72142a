// The stand-in cuBLAS: handles, streams, the workspace and cublasGemmEx in
// column-major order, honouring the operations and leading dimensions, with
// the documented rules checked first (cuBLAS Library User Guide, "cublasGemmEx()").
// And the stand-in's own cuda_api_load, which fills the call table.
#include "standin.h"

#include <cstdio>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cublas_v2.h>

extern "C" {
#include "kernels/cuda_api.h"
}

struct cublasContext {
    cudaStream_t stream = nullptr;
    void *workspace = nullptr;
    size_t workspace_size = 0;
};

namespace {

const char *const GEMM_EX = "cuBLAS Library User Guide, cublasGemmEx()";
const char *const GEMM_STRIDED = "cuBLAS Library User Guide, cublasGemmStridedBatchedEx()";

// The rows of cublasGemmEx's table of supported types that the stand-in
// computes: A and B of one type; CUBLAS_COMPUTE_32F with A/B 32F, 16F or
// 16BF and C of their type or 32F; the FAST_TF32 / FAST_16F / FAST_16BF
// compute types with A, B and C all 32F.
bool supported_types(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute)
{
    if (a != b) return false;
    if (compute == CUBLAS_COMPUTE_32F)
        return (a == CUDA_R_32F || a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F);
    if (compute == CUBLAS_COMPUTE_32F_FAST_TF32 || compute == CUBLAS_COMPUTE_32F_FAST_16F ||
        compute == CUBLAS_COMPUTE_32F_FAST_16BF)
        return a == CUDA_R_32F && c == CUDA_R_32F;
    return false;
}

int larger(int a, int b) { return a > b ? a : b; }

} // namespace

size_t standin_type_size(int type) { return type == CUDA_R_32F ? 4 : 2; }

float standin_load(const void *p, int type, size_t i)
{
    if (type == CUDA_R_32F) return ((const float *)p)[i];
    if (type == CUDA_R_16F) return __half2float(((const __half *)p)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
}

void standin_store(void *p, int type, size_t i, float v)
{
    if (type == CUDA_R_32F) ((float *)p)[i] = v;
    else if (type == CUDA_R_16F) ((__half *)p)[i] = __float2half(v);
    else ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
}

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = new cublasContext();
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t size)
{
    if (size > 0 && !standin_is_device(workspace, size)) {
        standin_rule("gemmWorkspace", "cuBLAS Library User Guide, cublasSetWorkspace()",
                     "workspace %p of %zu B is not device memory", workspace, size);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    handle->workspace = workspace, handle->workspace_size = size;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int *version)
{
    *version = 130000;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(stand-in: other)";
    }
}

// C (m×n) = alpha · op(A) · op(B) + beta · C, column-major: element (i, j) of
// a matrix with leading dimension ld is at i + j·ld. batches products, batch
// b at A + b·stride_a, B + b·stride_b, C + b·stride_c (elements): the strided
// batched call; cublasGemmEx is one batch. `guide` names the call's section.
static cublasStatus_t gemm(const char *call, const char *guide, cublasHandle_t handle, cublasOperation_t a_op,
                           cublasOperation_t b_op, int m, int n, int k, const void *alpha, const void *a,
                           cudaDataType a_type, int lda, long long stride_a, const void *b, cudaDataType b_type, int ldb,
                           long long stride_b, const void *beta, void *c, cudaDataType c_type, int ldc,
                           long long stride_c, int batches, cublasComputeType_t compute)
{
    if (m < 0 || n < 0 || k < 0 || batches < 0) {
        standin_rule("gemmSizes", guide, "m %d, n %d, k %d, batches %d", m, n, k, batches);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    // lda >= max(1, m) for OP_N (A is m×k), max(1, k) otherwise (A is k×m);
    // ldb >= max(1, k) for OP_N, max(1, n) otherwise; ldc >= max(1, m)
    bool a_n = a_op == CUBLAS_OP_N, b_n = b_op == CUBLAS_OP_N;
    if (lda < larger(1, a_n ? m : k) || ldb < larger(1, b_n ? k : n) || ldc < larger(1, m)) {
        standin_rule("gemmLeadingDimensions", guide, "%s%s m %d n %d k %d: lda %d, ldb %d, ldc %d",
                     a_n ? "N" : "T", b_n ? "N" : "T", m, n, k, lda, ldb, ldc);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (!supported_types(a_type, b_type, c_type, compute)) {
        standin_rule("gemmTypes", guide, "A %d, B %d, C %d with compute type %d", (int)a_type, (int)b_type,
                     (int)c_type, (int)compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    // The stand-in's own rule (the guide asks for valid device memory, not
    // for this form): each batch's matrices inside one device allocation,
    // checked from the first batch's start to the last batch's end.
    size_t a_span = (size_t)lda * (size_t)((a_n ? k : m) - 1) + (size_t)(a_n ? m : k);
    size_t b_span = (size_t)ldb * (size_t)((b_n ? n : k) - 1) + (size_t)(b_n ? k : n);
    size_t c_span = (size_t)ldc * (size_t)(n - 1) + (size_t)m;
    size_t last = batches > 0 ? (size_t)(batches - 1) : 0;
    size_t a_bytes = (a_span + last * (size_t)stride_a) * standin_type_size(a_type);
    size_t b_bytes = (b_span + last * (size_t)stride_b) * standin_type_size(b_type);
    size_t c_bytes = (c_span + last * (size_t)stride_c) * standin_type_size(c_type);
    bool work = m > 0 && n > 0 && k > 0 && batches > 0;
    if (work && (stride_a < 0 || stride_b < 0 || stride_c < 0)) {
        standin_rule("gemmStrides", guide, "strides %lld, %lld, %lld", stride_a, stride_b, stride_c);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (work && (!standin_is_device(a, a_bytes) || !standin_is_device(b, b_bytes) || !standin_is_device(c, c_bytes))) {
        standin_rule("deviceMemory", guide, "A, B or C is not inside one device allocation");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    float al = *(const float *)alpha, be = *(const float *)beta; // compute 32F: float scalars
    std::vector<StandinRange> ranges;
    if (work) ranges = {{a, a_bytes}, {b, b_bytes}, {c, c_bytes}};
    standin_submit(handle->stream, call, [=]() {
        for (int batch = 0; batch < batches; batch++) {
            size_t at_a = (size_t)batch * (size_t)stride_a, at_b = (size_t)batch * (size_t)stride_b,
                   at_c = (size_t)batch * (size_t)stride_c;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    float sum = 0;
                    for (int l = 0; l < k; l++) {
                        float av = standin_load(a, a_type, at_a + (a_n ? (size_t)i + (size_t)l * lda : (size_t)l + (size_t)i * lda));
                        float bv = standin_load(b, b_type, at_b + (b_n ? (size_t)l + (size_t)j * ldb : (size_t)j + (size_t)l * ldb));
                        sum += av * bv;
                    }
                    size_t at = at_c + (size_t)i + (size_t)j * ldc;
                    standin_store(c, c_type, at, al * sum + (be != 0 ? be * standin_load(c, c_type, at) : 0.0f));
                }
        }
    }, ranges);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t a_op, cublasOperation_t b_op, int m, int n,
                            int k, const void *alpha, const void *a, cudaDataType a_type, int lda, const void *b,
                            cudaDataType b_type, int ldb, const void *beta, void *c, cudaDataType c_type, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t)
{
    return gemm("cublasGemmEx", GEMM_EX, handle, a_op, b_op, m, n, k, alpha, a, a_type, lda, 0, b, b_type, ldb, 0,
                beta, c, c_type, ldc, 0, 1, compute);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t a_op, cublasOperation_t b_op,
                                          int m, int n, int k, const void *alpha, const void *a, cudaDataType a_type,
                                          int lda, long long stride_a, const void *b, cudaDataType b_type, int ldb,
                                          long long stride_b, const void *beta, void *c, cudaDataType c_type, int ldc,
                                          long long stride_c, int batches, cublasComputeType_t compute,
                                          cublasGemmAlgo_t)
{
    return gemm("cublasGemmStridedBatchedEx", GEMM_STRIDED, handle, a_op, b_op, m, n, k, alpha, a, a_type, lda,
                stride_a, b, b_type, ldb, stride_b, beta, c, c_type, ldc, stride_c, batches, compute);
}

} // extern "C"

void standin_fill_cublas_table()
{
#define STANDIN_CUBLAS(name) sslat_cuda_api.name = &name;
    CUDA_CUBLAS_FUNCTIONS(STANDIN_CUBLAS)
#undef STANDIN_CUBLAS
    sslat_cuda_api.cublasGemmEx = &cublasGemmEx;
    sslat_cuda_api.cublasGemmStridedBatchedEx = &cublasGemmStridedBatchedEx;
}

// ---- the call table ---------------------------------------------------------------------------

cuda_api_table sslat_cuda_api;

extern "C" const char *cuda_api_load(void)
{
    static bool loaded;
    if (loaded) return nullptr;
    standin_reset();
    standin_fill_cudnn_table();
    standin_fill_cudnn_backend_table();
    standin_fill_cublas_table();
    standin_fill_cublaslt_table();
    std::snprintf(sslat_cuda_api.cudnn_path, sizeof sslat_cuda_api.cudnn_path, "stand-in: tests/standin/cudnn.cc");
    std::snprintf(sslat_cuda_api.cublas_path, sizeof sslat_cuda_api.cublas_path, "stand-in: tests/standin/cublas.cc");
    sslat_cuda_api.standin = "sslat's CUDA stand-in (tests/standin): host emulation, scripted timings, not a GPU";
    loaded = true;
    return nullptr;
}
