// The stand-in cuBLASLt: the handle, the matmul descriptor and its attributes,
// matrix layouts, preferences, the heuristic and cublasLtMatmul in column-major
// order with its epilogues (bias, ReLU, GELU), the documented rules checked
// first (cuBLAS Library User Guide, "Using the cuBLASLt API").
//
// Rules of the guide: a descriptor attribute is set with exactly its size
// (cublasLtMatmulDescSetAttribute: CUBLAS_STATUS_INVALID_VALUE otherwise); a
// column-major layout's leading dimension is at least its rows
// (cublasLtMatrixLayoutCreate's ld); the scale type of CUBLAS_COMPUTE_32F* is
// CUDA_R_32F (cublasLtMatmulDescCreate); op(A) is m×k, op(B) k×n, C and D m×n
// and C's layout is D's when C is D (cublasLtMatmul); a bias epilogue needs
// the bias pointer, a vector of D's rows in D's type by default
// (CUBLASLT_MATMUL_DESC_BIAS_POINTER / _BIAS_DATA_TYPE); a workspace given is
// device memory.
// The stand-in's own: every operand and the bias inside one device allocation
// each; its heuristic has one algorithm for the epilogues DEFAULT, BIAS, RELU,
// RELU_BIAS, GELU and GELU_BIAS (CUBLAS_STATUS_NOT_SUPPORTED and no result
// otherwise), needing no workspace, whatever the types and layouts (so the
// tests reach the backend's fallback only with cuBLASLt missing); its GELU is
// the tanh form, our reading of
// what cuBLASLt computes (the guide names no formula; PyTorch fuses it for
// GELU(approximate="tanh") only).
#include "standin.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <cublasLt.h>
#include <cublas_v2.h>

extern "C" {
#include "kernels/cuda_api.h"
}

struct cublasLtContext {
    int matmuls = 0;
};

namespace {

const char *const LT = "cuBLAS Library User Guide, Using the cuBLASLt API";

struct MatmulDesc {
    cublasComputeType_t compute;
    int32_t trans_a = CUBLAS_OP_N, trans_b = CUBLAS_OP_N;
    uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    const void *bias = nullptr;
    int32_t bias_type = -1; // -1: D's type
};

struct Layout {
    cudaDataType type;
    uint64_t rows, cols;
    int64_t ld;
};

struct Preference {
    uint64_t max_workspace = 0;
};

MatmulDesc *desc_of(cublasLtMatmulDesc_t d) { return reinterpret_cast<MatmulDesc *>(d); }
Layout *layout_of(cublasLtMatrixLayout_t l) { return reinterpret_cast<Layout *>(l); }
Preference *preference_of(cublasLtMatmulPreference_t p) { return reinterpret_cast<Preference *>(p); }

bool known_epilogue(uint32_t e)
{
    return e == CUBLASLT_EPILOGUE_DEFAULT || e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU ||
           e == CUBLASLT_EPILOGUE_RELU_BIAS || e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

bool has_bias(uint32_t e) { return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS || e == CUBLASLT_EPILOGUE_GELU_BIAS; }

float apply(uint32_t e, float v)
{
    if (e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS) return v > 0 ? v : 0;
    if (e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS)
        return 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
    return v;
}

// The size of each attribute the stand-in knows, as the guide types it.
size_t attribute_size(cublasLtMatmulDescAttributes_t a)
{
    switch (a) {
    case CUBLASLT_MATMUL_DESC_TRANSA:
    case CUBLASLT_MATMUL_DESC_TRANSB:
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return sizeof(int32_t);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return sizeof(uint32_t);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return sizeof(void *);
    default: return 0;
    }
}

} // namespace

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    *handle = new cublasLtContext();
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute, cudaDataType_t scale)
{
    bool compute_32f = compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_FAST_TF32 ||
                       compute == CUBLAS_COMPUTE_32F_FAST_16F || compute == CUBLAS_COMPUTE_32F_FAST_16BF;
    if (!compute_32f || scale != CUDA_R_32F) {
        standin_rule("ltScaleType", LT, "compute type %d with scale type %d (the stand-in computes 32F with 32F "
                     "scalars)", (int)compute, (int)scale);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    MatmulDesc *d = new MatmulDesc();
    d->compute = compute;
    *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
    delete desc_of(desc);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                                              const void *buffer, size_t size)
{
    size_t wanted = attribute_size(attribute);
    if (!buffer || wanted == 0 || size != wanted) {
        standin_rule("ltAttributeSize", LT, "attribute %d set with %zu bytes (its size is %zu)", (int)attribute, size,
                     wanted);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    MatmulDesc *d = desc_of(desc);
    switch (attribute) {
    case CUBLASLT_MATMUL_DESC_TRANSA: std::memcpy(&d->trans_a, buffer, size); break;
    case CUBLASLT_MATMUL_DESC_TRANSB: std::memcpy(&d->trans_b, buffer, size); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: std::memcpy(&d->epilogue, buffer, size); break;
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: std::memcpy(&d->bias, buffer, size); break;
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: std::memcpy(&d->bias_type, buffer, size); break;
    default: break;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld)
{
    if (ld < (int64_t)(rows > 1 ? rows : 1)) {
        standin_rule("ltLeadingDimension", LT, "a column-major layout of %llu rows with ld %lld",
                     (unsigned long long)rows, (long long)ld);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    *layout = reinterpret_cast<cublasLtMatrixLayout_t>(new Layout{type, rows, cols, ld});
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout)
{
    delete layout_of(layout);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference)
{
    *preference = reinterpret_cast<cublasLtMatmulPreference_t>(new Preference());
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference)
{
    delete preference_of(preference);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t preference,
                                                    cublasLtMatmulPreferenceAttributes_t attribute, const void *buffer,
                                                    size_t size)
{
    if (attribute != CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES || !buffer || size != sizeof(uint64_t)) {
        standin_rule("ltAttributeSize", LT, "preference %d set with %zu bytes", (int)attribute, size);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    std::memcpy(&preference_of(preference)->max_workspace, buffer, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatmulPreference_t, int requested,
                                              cublasLtMatmulHeuristicResult_t *results, int *returned)
{
    if (requested < 1 || !results || !returned) {
        standin_rule("ltHeuristicCount", LT, "%d algorithms requested", requested);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    *returned = 0;
    if (!known_epilogue(desc_of(desc)->epilogue)) return CUBLAS_STATUS_NOT_SUPPORTED;
    std::memset(&results[0], 0, sizeof results[0]);
    results[0].algo.data[0] = 1; // the stand-in's one algorithm
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *a,
                              cublasLtMatrixLayout_t a_layout, const void *b, cublasLtMatrixLayout_t b_layout,
                              const void *beta, const void *c, cublasLtMatrixLayout_t c_layout, void *d,
                              cublasLtMatrixLayout_t d_layout, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspace_size, cudaStream_t stream)
{
    const MatmulDesc desc_now = *desc_of(desc); // the attributes as they are at the call
    const Layout la = *layout_of(a_layout), lb = *layout_of(b_layout), lc = *layout_of(c_layout),
                 ld = *layout_of(d_layout);
    bool a_n = desc_now.trans_a == CUBLAS_OP_N, b_n = desc_now.trans_b == CUBLAS_OP_N;
    uint64_t m = a_n ? la.rows : la.cols, k = a_n ? la.cols : la.rows;
    uint64_t k_b = b_n ? lb.rows : lb.cols, n = b_n ? lb.cols : lb.rows;
    if (k != k_b || ld.rows != m || ld.cols != n || lc.rows != m || lc.cols != n) {
        standin_rule("ltSizes", LT, "op(A) %llux%llu, op(B) %llux%llu, C %llux%llu, D %llux%llu",
                     (unsigned long long)m, (unsigned long long)k, (unsigned long long)k_b, (unsigned long long)n,
                     (unsigned long long)lc.rows, (unsigned long long)lc.cols, (unsigned long long)ld.rows,
                     (unsigned long long)ld.cols);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (c == d && (lc.ld != ld.ld || lc.type != ld.type)) {
        standin_rule("ltInPlace", LT, "C is D but their layouts differ (ld %lld and %lld)", (long long)lc.ld,
                     (long long)ld.ld);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (la.type != lb.type || (la.type != CUDA_R_32F && la.type != CUDA_R_16F && la.type != CUDA_R_16BF) ||
        (ld.type != la.type && ld.type != CUDA_R_32F)) {
        standin_rule("ltTypes", LT, "A %d, B %d, D %d", (int)la.type, (int)lb.type, (int)ld.type);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (!known_epilogue(desc_now.epilogue)) return CUBLAS_STATUS_NOT_SUPPORTED;
    int bias_type = desc_now.bias_type < 0 ? (int)ld.type : desc_now.bias_type;
    bool bias = has_bias(desc_now.epilogue);
    if (bias && !desc_now.bias) {
        standin_rule("ltBiasPointer", LT, "a bias epilogue without CUBLASLT_MATMUL_DESC_BIAS_POINTER");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (workspace_size > 0 && !standin_is_device(workspace, workspace_size)) {
        standin_rule("deviceMemory", LT, "workspace %p of %zu B is not device memory", workspace, workspace_size);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    (void)algo; // the stand-in's one algorithm needs no workspace, whichever is given
    size_t a_bytes = (size_t)la.ld * (la.cols - 1) + la.rows, b_bytes = (size_t)lb.ld * (lb.cols - 1) + lb.rows;
    size_t c_bytes = (size_t)lc.ld * (lc.cols - 1) + lc.rows, d_bytes = (size_t)ld.ld * (ld.cols - 1) + ld.rows;
    bool work = m > 0 && n > 0 && k > 0;
    if (work && (!standin_is_device(a, a_bytes * standin_type_size(la.type)) || !standin_is_device(b, b_bytes * standin_type_size(lb.type)) ||
                 !standin_is_device(d, d_bytes * standin_type_size(ld.type)) ||
                 (bias && !standin_is_device(desc_now.bias, m * standin_type_size(bias_type))))) {
        standin_rule("deviceMemory", LT, "A, B, D or the bias is not inside one device allocation");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    float al = *(const float *)alpha, be = *(const float *)beta;
    if (be != 0 && work && !standin_is_device(c, c_bytes * standin_type_size(lc.type))) {
        standin_rule("deviceMemory", LT, "C is read (beta %g) but is not device memory", be);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    handle->matmuls++;
    std::vector<StandinRange> ranges;
    if (work) ranges = {{a, a_bytes * standin_type_size(la.type)}, {b, b_bytes * standin_type_size(lb.type)}, {d, d_bytes * standin_type_size(ld.type)}};
    if (work && bias) ranges.push_back({desc_now.bias, m * standin_type_size(bias_type)});
    if (work && be != 0) ranges.push_back({c, c_bytes * standin_type_size(lc.type)});
    const void *bias_at = desc_now.bias;
    uint32_t epilogue = desc_now.epilogue;
    standin_submit(stream, "cublasLtMatmul", [=]() {
        for (uint64_t j = 0; j < n; j++)
            for (uint64_t i = 0; i < m; i++) {
                float sum = 0;
                for (uint64_t l = 0; l < k; l++) {
                    float av = standin_load(a, la.type, a_n ? i + l * la.ld : l + i * la.ld);
                    float bv = standin_load(b, lb.type, b_n ? l + j * lb.ld : j + l * lb.ld);
                    sum += av * bv;
                }
                float v = al * sum + (be != 0 ? be * standin_load(c, lc.type, i + j * lc.ld) : 0.0f);
                if (bias) v += standin_load(bias_at, bias_type, i);
                standin_store(d, ld.type, i + j * ld.ld, apply(epilogue, v));
            }
    }, ranges);
    return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"

void standin_fill_cublaslt_table()
{
#define STANDIN_CUBLASLT(name) sslat_cuda_api.name = &name;
    CUDA_CUBLASLT_FUNCTIONS(STANDIN_CUBLASLT)
#undef STANDIN_CUBLASLT
    sslat_cuda_api.cublaslt_missing[0] = '\0';
    std::snprintf(sslat_cuda_api.cublaslt_path, sizeof sslat_cuda_api.cublaslt_path,
                  "stand-in: tests/standin/cublaslt.cc");
}
