/* The linear layers on the GPU: cuBLASLt's matmul with the bias (and ReLU or
 * tanh-GELU) in its epilogue, the path PyTorch's addmm takes for nn.Linear; without
 * cuBLASLt, or where its heuristic has no algorithm, cublasGemmEx and the own
 * epilogue kernel.
 *
 * Both read the same operands, column-major as cuBLAS sees them: Y (m×n) =
 * op(W) · X with W stored k×m (PyTorch's O×C weight, row-major) and read
 * transposed, X k×n (each row of the input, a vector or a token, is a column),
 * m the output features, n the rows (N, or N·L of tokens), k the input's. */
#include "kernels/cuda_linear.h"

#include "base/assert.h"
#include "kernels/cuda_values.h"
#include "kernels/ops.h"

static const float ONE = 1.0f, ZERO = 0.0f;

/* The product's sizes of a linear step's node. */
static void linear_sizes(const cuda_program *p, const cuda_step *s, int *m, int *n, int *k)
{
    const sslat_node *node = &p->graph->nodes[s->main_node];
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    *m = node->shape.c;
    *n = in.tokens ? in.n * in.h : in.n;
    *k = in.tokens ? in.c : in.c * in.h * in.w;
}

/* The epilogue: the bias and the activation cuBLASLt applies after it (its
 * GELU is the tanh form, what PyTorch fuses for GELU(approximate="tanh")). */
static cublasLtEpilogue_t epilogue_of(const cuda_step *s)
{
    int32_t act = cuda_cublaslt_fuses(s->act) ? s->act : -1; /* another runs as an own kernel after it */
    bool relu = act == SSLAT_ACT_RELU, gelu = act == SSLAT_ACT_GELU_TANH;
    SSLAT_ASSERT(act < 0 || relu || gelu); /* cuda_cublaslt_fuses and this list agree */
    if (s->bias) return relu ? CUBLASLT_EPILOGUE_RELU_BIAS : gelu ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    return relu ? CUBLASLT_EPILOGUE_RELU : gelu ? CUBLASLT_EPILOGUE_GELU : CUBLASLT_EPILOGUE_DEFAULT;
}

void cuda_linear_release(cuda_step_state *st)
{
    if (st->lt_desc) CUBLAS(cublasLtMatmulDescDestroy)(st->lt_desc);
    for (int i = 0; i < 3; i++)
        if (st->lt_layout[i]) CUBLAS(cublasLtMatrixLayoutDestroy)(st->lt_layout[i]);
    st->lt_desc = NULL;
    st->lt_layout[0] = st->lt_layout[1] = st->lt_layout[2] = NULL;
}

/* The step back on cublasGemmEx + the own epilogue (bias and activation). */
static void use_gemm_ex(cuda_step *s, cuda_step_state *st)
{
    cuda_linear_release(st);
    cuda_plan_linear_call(s, CUDA_CALL_CUBLAS_GEMM);
}

sslat_status cuda_linear_prepare(cuda_program *p, int32_t k, sslat_error *err)
{
    cuda_step *s = &p->plan.steps[k];
    cuda_step_state *st = &p->states[k];
    if (s->call != CUDA_CALL_CUBLASLT_MATMUL) return SSLAT_OK;
    int m, n, kdim;
    linear_sizes(p, s, &m, &n, &kdim);
    cudaDataType_t type = cublas_type(p->dtype);
    cublasComputeType_t compute = cublas_compute(p->dtype);
    const int32_t transpose = CUBLAS_OP_T, plain = CUBLAS_OP_N;
    const uint32_t epilogue = epilogue_of(s);
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulDescCreate)(&st->lt_desc, compute, CUDA_R_32F));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulDescSetAttribute)(st->lt_desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                                                              &transpose, sizeof transpose));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulDescSetAttribute)(st->lt_desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                                                              &plain, sizeof plain));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulDescSetAttribute)(st->lt_desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                                              &epilogue, sizeof epilogue));
    /* W read transposed (k×m stored), X (k×n), Y (m×n); the bias is in Y's type, cuBLASLt's default */
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatrixLayoutCreate)(&st->lt_layout[0], type, (uint64_t)kdim,
                                                                          (uint64_t)m, kdim));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatrixLayoutCreate)(&st->lt_layout[1], type, (uint64_t)kdim,
                                                                          (uint64_t)n, kdim));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatrixLayoutCreate)(&st->lt_layout[2], type, (uint64_t)m,
                                                                          (uint64_t)n, m));
    /* the heuristic's first algorithm within the session's cuBLAS workspace (PyTorch takes its first too) */
    cublasLtMatmulPreference_t preference = NULL;
    const uint64_t workspace = CUDA_CUBLAS_WORKSPACE_BYTES;
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulPreferenceCreate)(&preference));
    cublasStatus_t code = CUBLAS(cublasLtMatmulPreferenceSetAttribute)(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    if (code == CUBLAS_STATUS_SUCCESS)
        code = CUBLAS(cublasLtMatmulAlgoGetHeuristic)(p->session->cublaslt, st->lt_desc, st->lt_layout[0],
                                                      st->lt_layout[1], st->lt_layout[2], st->lt_layout[2], preference,
                                                      1, &result, &found);
    CUBLAS(cublasLtMatmulPreferenceDestroy)(preference);
    if (code == CUBLAS_STATUS_NOT_SUPPORTED ||
        (code == CUBLAS_STATUS_SUCCESS && (found < 1 || result.state != CUBLAS_STATUS_SUCCESS))) {
        use_gemm_ex(s, st); /* no algorithm for this product and epilogue: said in the metadata */
        p->session->cublaslt_fallbacks++;
        return SSLAT_OK;
    }
    CUDA_RETURN_IF_FAILED(err, cublas, code);
    st->lt_algo = result.algo;
    st->lt_workspace = result.workspaceSize;
    return SSLAT_OK;
}

sslat_status cuda_linear_enqueue(const cuda_program *p, int32_t k, int32_t copy, const void *x, void *y,
                                 sslat_error *err)
{
    const cuda_step *s = &p->plan.steps[k];
    const cuda_step_state *st = &p->states[k];
    cudaStream_t stream = p->session->stream;
    int m, n, kdim;
    linear_sizes(p, s, &m, &n, &kdim);
    const void *w = param_of(p, copy, st->params[0]);
    if (s->call == CUDA_CALL_CUBLASLT_MATMUL) {
        /* each copy has its own bias buffer: the pointer is set per launch (read when the call is made) */
        const void *bias = param_of(p, copy, st->params[1]);
        if (s->bias)
            CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmulDescSetAttribute)(
                                                   st->lt_desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
        CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtMatmul)(p->session->cublaslt, st->lt_desc, &ONE, w,
                                                                  st->lt_layout[0], x, st->lt_layout[1], &ZERO, y,
                                                                  st->lt_layout[2], y, st->lt_layout[2], &st->lt_algo,
                                                                  p->session->cublas_workspace, st->lt_workspace,
                                                                  stream));
        if (s->epilogue) /* an activation cuBLASLt has no epilogue for */
            CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_act(p->elem, s->act, y, y, (size_t)m * (size_t)n, stream));
        return SSLAT_OK;
    }
    cublasComputeType_t compute = cublas_compute(p->dtype);
    cudaDataType_t type = cublas_type(p->dtype);
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasGemmEx)(p->session->cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, kdim,
                                                            &ONE, w, type, kdim, x, type, kdim, &ZERO, y, type, m,
                                                            compute, CUBLAS_GEMM_DEFAULT));
    if (s->epilogue)
        CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_epilogue(p->elem, 1, y, param_of(p, copy, st->params[2]), NULL,
                                                                s->act, n, m, 1, stream));
    return SSLAT_OK;
}
