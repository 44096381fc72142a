/* A built cuda program (kernels/cuda_program.c) chosen and launched: each
 * convolution's algorithm (Find, tried in the fused call, cached per session:
 * kernels/cuda_select.c), the steps of one copy enqueued on the session's
 * stream, one step family per function, and the output read back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"
#include "kernels/cuda_graph.h"
#include "kernels/cuda_linear.h"
#include "kernels/cuda_layout.h"
#include "kernels/cuda_select.h"
#include "kernels/cuda_values.h"
#include "kernels/ops.h"
#include "measure/half.h"
#include "measure/parameters.h"

/* A trial of cuDNN's fused call with Find's result k (cuda_pick_algorithm). */
typedef struct fused_trial {
    cuda_program *p;
    int32_t step;
    const cudnnConvolutionFwdAlgoPerf_t *results;
} fused_trial;

static sslat_status launch_fused(cuda_program *p, int32_t k, int32_t copy, sslat_error *err);

static bool try_fused(void *context, int k)
{
    fused_trial *t = context;
    cuda_step_state *st = &t->p->states[t->step];
    cudnnConvolutionFwdAlgo_t algo = st->algo;
    size_t workspace = st->workspace;
    st->algo = t->results[k].algo;
    st->workspace = t->results[k].memory;
    /* the trial runs the (algorithm, math) pair that will run: the math Find
     * reported for it, FMA for fp32 */
    cudnnMathType_t math = t->p->dtype == SSLAT_DTYPE_FP32 ? CUDNN_FMA_MATH : t->results[k].mathType;
    sslat_error ignored;
    bool works = CUDNN(cudnnSetConvolutionMathType)(st->conv, math) == CUDNN_STATUS_SUCCESS &&
                 launch_fused(t->p, t->step, 0, &ignored) == SSLAT_OK &&
                 cudaStreamSynchronize(t->p->session->stream) == cudaSuccess;
    cudaGetLastError(); /* a refused trial leaves nothing behind */
    if (!works) { /* back to the math Find ran with (setting a valid math type cannot fail) */
        st->algo = algo, st->workspace = workspace;
        CUDNN(cudnnSetConvolutionMathType)(st->conv, st->math);
    }
    return works;
}

/* Find for step k on copy 0, the choice (cuda_pick_algorithm), and the workspace it needs. */
static sslat_status find_algorithm(cuda_program *p, int32_t k, cuda_conv_choice *choice, sslat_error *err)
{
    cuda_session *s = p->session;
    const cuda_step *step = &p->plan.steps[k];
    cuda_step_state *st = &p->states[k];
    size_t limit = cuda_session_workspace_limit(s);
    void *workspace = NULL;
    sslat_status status = cuda_session_workspace(s, limit, &workspace, err);
    if (status != SSLAT_OK) return status;
    cudnnConvolutionFwdAlgoPerf_t results[16];
    int returned = 0;
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnFindConvolutionForwardAlgorithmEx)(
                               s->cudnn, st->x, buffer_of(p, 0, value_of(p->graph->nodes[step->main_node].input[0])), st->w,
                               param_of(p, 0, st->params[0]), st->conv, st->y, buffer_of(p, 0, value_of(step->node)), 16,
                               &returned, results, workspace, limit));
    cuda_algo_result seen[16];
    choice->reported_maths = 0;
    for (int r = 0; r < returned; r++) {
        seen[r] = (cuda_algo_result){(int)results[r].algo, results[r].status == CUDNN_STATUS_SUCCESS,
                                     results[r].mathType == CUDNN_FMA_MATH, results[r].memory};
        if (seen[r].succeeded && (unsigned)results[r].mathType < 8) choice->reported_maths |= 1 << results[r].mathType;
    }
    bool fp32 = p->dtype == SSLAT_DTYPE_FP32, fused = step->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT;
    /* fp32 keeps FMA results only, unless Find reported none (then Find's order, FMA set) */
    bool fma_only = fp32 && cuda_any_fma_result(seen, returned);
    fused_trial trial = {p, k, results};
    int tried = 0, chosen = cuda_pick_algorithm(seen, returned, fma_only, fused ? try_fused : NULL, &trial, &tried);
    choice->fallback = false;
    if (chosen < 0 && fused) { /* no algorithm takes the fused call: the plain one, then the own epilogue */
        choice->fallback = true;
        chosen = cuda_pick_algorithm(seen, returned, fma_only, NULL, NULL, &tried);
    }
    choice->fma_forced = fp32 && chosen >= 0 && !seen[chosen].fma_math;
    if (chosen < 0)
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "cuDNN offers no algorithm%s for node %d (%s)",
                          fma_only ? " with FMA math (fp32 without TF32)" : "", step->main_node,
                          p->graph->nodes[step->main_node].name);
    choice->algo = (int)results[chosen].algo;
    choice->workspace = results[chosen].memory;
    /* fp32 stays FMA whatever Find reported; the others use the math Find timed */
    choice->math = fp32 ? (int)CUDNN_FMA_MATH : (int)results[chosen].mathType;
    if (choice->fma_forced) { /* Find measured the workspace under another math: ask again under FMA */
        size_t need = 0;
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetConvolutionMathType)(st->conv, CUDNN_FMA_MATH));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnGetConvolutionForwardWorkspaceSize)(s->cudnn, st->x, st->w, st->conv, st->y,
                                                                            results[chosen].algo, &need));
        if (need > choice->workspace) choice->workspace = need;
    }
    return SSLAT_OK;
}

/* A decision for conv step k made now: the graph API's when asked for and
 * able, else the legacy API's (Find); a lopsided padding has no legacy lowering. */
static sslat_status decide_now(cuda_program *p, int32_t k, cuda_conv_choice *choice, sslat_error *err)
{
    if (p->api == SSLAT_CUDNN_API_GRAPH) {
        sslat_status status = cuda_graph_choose(p, k, choice, err);
        if (status != SSLAT_OK || choice->route != CUDA_ROUTE_LEGACY) return status;
        if (!p->states[k].conv)
            return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "node %d: cuDNN's graph API cannot compute this convolution "
                              "(%s), and its legacy API cannot pad one side more than the other; -c cpu measures it",
                              p->plan.steps[k].main_node, choice->legacy_reason);
    }
    p->session->find_runs++;
    return find_algorithm(p, k, choice, err);
}

/* A legacy decision from the selection cache, checked against this cuDNN:
 * the algorithm under its math must still give a workspace size. */
static bool restore_legacy(cuda_program *p, int32_t k, const cuda_selection_entry *kept, cuda_conv_choice *choice)
{
    cuda_step_state *st = &p->states[k];
    size_t need = 0;
    if (!st->conv || kept->algo < 0 || kept->algo > (int)CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) return false;
    if (p->dtype == SSLAT_DTYPE_FP32 && kept->math != (int)CUDNN_FMA_MATH) return false; /* fp32 stays FMA */
    bool works = CUDNN(cudnnSetConvolutionMathType)(st->conv, (cudnnMathType_t)kept->math) == CUDNN_STATUS_SUCCESS &&
                 CUDNN(cudnnGetConvolutionForwardWorkspaceSize)(p->session->cudnn, st->x, st->w, st->conv, st->y,
                                                                (cudnnConvolutionFwdAlgo_t)kept->algo,
                                                                &need) == CUDNN_STATUS_SUCCESS;
    size_t workspace = need > kept->workspace ? need : (size_t)kept->workspace;
    works = works && workspace <= cuda_session_workspace_limit(p->session); /* less memory free than then */
    if (!works) { /* decided again by Find, under the math the descriptor had */
        CUDNN(cudnnSetConvolutionMathType)(st->conv, st->math);
        return false;
    }
    choice->route = CUDA_ROUTE_LEGACY;
    choice->algo = kept->algo, choice->math = kept->math;
    choice->workspace = workspace;
    choice->fallback = kept->fallback, choice->fma_forced = kept->fma_forced;
    if (p->api == SSLAT_CUDNN_API_GRAPH)
        snprintf(choice->legacy_reason, sizeof choice->legacy_reason, "chosen by an earlier run (the selection cache)");
    return true;
}

/* The entry the selection cache keeps for a decision. */
static cuda_selection_entry entry_of(const cuda_conv_choice *choice)
{
    cuda_selection_entry e;
    memset(&e, 0, sizeof e);
    e.key = choice->key;
    e.route = choice->route;
    e.algo = choice->algo, e.math = choice->math, e.fallback = choice->fallback, e.fma_forced = choice->fma_forced;
    e.workspace = choice->workspace;
    e.engine = choice->engine;
    const cuda_graph_census *c = &choice->census;
    e.ms = choice->route == CUDA_ROUTE_GRAPH_FUSED     ? c->fused_ms
           : choice->route == CUDA_ROUTE_OWN_DEPTHWISE ? c->own_ms
           : choice->route == CUDA_ROUTE_GRAPH         ? c->plain_total_ms
                                                       : 0;
    return e;
}

/* A decision for conv step k: the selection cache's when it has one that
 * still works on this cuDNN, else one made now (and kept for the next run). */
static sslat_status decide(cuda_program *p, int32_t k, cuda_conv_choice *choice, sslat_error *err)
{
    cuda_selection_cache *cache = &p->session->selection;
    const cuda_selection_entry *kept = cuda_selection_get(cache, &choice->key);
    if (kept) {
        bool works = false;
        sslat_status status = SSLAT_OK;
        if (kept->route == CUDA_ROUTE_LEGACY) works = restore_legacy(p, k, kept, choice);
        else if (p->api == SSLAT_CUDNN_API_GRAPH) status = cuda_graph_restore(p, k, kept, choice, &works, err);
        /* (a graph route kept for the legacy API is not this run's: stale) */
        if (status != SSLAT_OK) return status;
        if (works) {
            choice->from_disk = true;
            return SSLAT_OK;
        }
        cuda_selection_mark_stale(cache); /* no longer works here: decided again, and replaced */
        cuda_conv_key key = choice->key;
        memset(choice, 0, sizeof *choice);
        choice->key = key;
    }
    sslat_status status = decide_now(p, k, choice, err);
    if (status == SSLAT_OK) {
        cuda_selection_entry e = entry_of(choice);
        cuda_selection_put(cache, &e);
    }
    return status;
}

/* A new decision counted in the session's metadata. */
static void count_decision(cuda_session *s, const cuda_conv_choice *choice)
{
    if (choice->route != CUDA_ROUTE_LEGACY) s->graph_convs++;
    if (choice->route == CUDA_ROUTE_GRAPH_FUSED) s->fused_graphs++;
    if (choice->route == CUDA_ROUTE_OWN_DEPTHWISE) s->own_depthwise++;
    else if (choice->legacy_reason[0]) s->legacy_convs++;
    if (choice->fallback) s->fused_fallbacks++;
    if (choice->fma_forced) s->fma_forced++;
}

sslat_status cuda_program_choose_algorithms(cuda_program *p, sslat_error *err)
{
    if (p->algorithms_chosen) return SSLAT_OK;
    cuda_session *s = p->session;
    sslat_status status = cuda_program_allocate(p, 1, err); /* copy 0: what Find and the plans run on */
    if (status != SSLAT_OK) return status;
    cuda_phase before = cuda_phase_enter(s, CUDA_PHASE_SELECT);
    size_t needed = 0;
    for (int32_t k = 0; status == SSLAT_OK && k < p->plan.count; k++) {
        const cuda_step *step = &p->plan.steps[k];
        cuda_step_state *st = &p->states[k];
        if (step->kind != CUDA_STEP_CONV) continue;
        const sslat_node *node = &p->graph->nodes[step->main_node];
        int epilogue = cuda_epilogue_code(step->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT, step->bias,
                                          step->residual != SSLAT_NO_INPUT, step->act,
                                          p->mode == SSLAT_MODE_FUSED && step->epilogue);
        cuda_conv_key key = cuda_conv_key_of(sslat_graph_shape_of(p->graph, node->input[0]), node->shape,
                                             sslat_node_conv(node), (int)p->dtype, p->nhwc, (int)math_of(p->dtype),
                                             epilogue, (int)p->api);
        const cuda_conv_choice *known = cuda_find_cache_get(&s->find_cache, &key);
        if (known) st->choice = (int32_t)(known - s->find_cache.items);
        else {
            cuda_conv_choice choice;
            memset(&choice, 0, sizeof choice);
            choice.key = key;
            status = decide(p, k, &choice, err);
            if (status == SSLAT_OK) status = cuda_find_cache_put(&s->find_cache, &choice, err);
            if (status == SSLAT_OK) {
                st->choice = s->find_cache.count - 1;
                count_decision(s, &choice);
            } else if (choice.graph_plan) { /* not kept: nobody else owns it */
                cuda_graph_plan_release(choice.graph_plan);
                free(choice.graph_plan);
            }
        }
        if (status != SSLAT_OK) break;
        const cuda_conv_choice *chosen = &s->find_cache.items[st->choice];
        st->route = chosen->route;
        st->graph = chosen->graph_plan;
        st->workspace = chosen->workspace;
        if (chosen->route == CUDA_ROUTE_LEGACY) {
            st->algo = (cudnnConvolutionFwdAlgo_t)chosen->algo;
            st->math = (cudnnMathType_t)chosen->math;
            st->fallback = chosen->fallback;
            st->fma_forced = chosen->fma_forced;
            st->reported_maths = chosen->reported_maths;
            status = cuda_check_cudnn(CUDNN(cudnnSetConvolutionMathType)(st->conv, st->math),
                                      "cudnnSetConvolutionMathType", __FILE__, __LINE__, err);
        }
        if (st->workspace > needed) needed = st->workspace;
    }
    /* the shared workspace holds what every chosen algorithm needs (choosing
     * may have left it smaller: an engine it tried could not have its own) */
    void *workspace = NULL;
    if (status == SSLAT_OK) status = cuda_session_workspace(s, needed, &workspace, err);
    cuda_phase_enter(s, before);
    if (status != SSLAT_OK) return status;
    p->algorithms_chosen = true;
    return cuda_program_pack(p, err); /* copy 0's variant packs, the workspace now final */
}

/* cuDNN's fused call for conv step k: y = act(conv(x) + bias (+ z)). */
static sslat_status launch_fused(cuda_program *p, int32_t k, int32_t copy, sslat_error *err)
{
    cuda_session *s = p->session;
    const cuda_step *step = &p->plan.steps[k];
    const cuda_step_state *st = &p->states[k];
    const float one = 1.0f;
    void *x = buffer_of(p, copy, value_of(step->input[0])), *y = buffer_of(p, copy, value_of(step->node));
    void *z = step->residual != SSLAT_NO_INPUT ? buffer_of(p, copy, value_of(step->residual)) : y;
    float alpha2 = step->residual != SSLAT_NO_INPUT ? 1.0f : 0.0f;
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnConvolutionBiasActivationForward)(
                               s->cudnn, &one, st->x, x, st->w, param_of(p, copy, st->params[0]), st->conv, st->algo,
                               s->workspace, st->workspace, &alpha2, st->y, z, st->bias, param_of(p, copy, st->params[1]),
                               st->act, st->y, y));
    return SSLAT_OK;
}

/* One step of one copy, as each family of steps reads it. */
typedef struct step_launch {
    cuda_program *p;
    cuda_session *s;
    int32_t k, copy;
    const cuda_step *step;
    const cuda_step_state *st;
    const sslat_node *node; /* the step's main node */
    void *x, *y;            /* its first input and its output */
    sslat_shape in, out;    /* the main node's first input and the step's output */
} step_launch;

static const float ONE = 1.0f, ZERO = 0.0f;

cudaError_t cuda_launch_own_epilogue(const cuda_program *p, int32_t k, int32_t copy)
{
    const cuda_step *step = &p->plan.steps[k];
    sslat_shape out = p->graph->nodes[step->node].shape;
    const void *residual = step->residual != SSLAT_NO_INPUT ? buffer_of(p, copy, value_of(step->residual)) : NULL;
    return sslat_cuda_epilogue(p->elem, p->nhwc, buffer_of(p, copy, value_of(step->node)),
                               param_of(p, copy, p->states[k].params[2]), residual, step->act, out.n, out.c,
                               out.h * out.w, p->session->stream);
}

cudaError_t cuda_launch_own_depthwise(const cuda_program *p, int32_t k, int32_t copy)
{
    const cuda_step *step = &p->plan.steps[k];
    const sslat_node *node = &p->graph->nodes[step->main_node];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]), out = node->shape;
    sslat_pads pads = sslat_conv_pads(c, in);
    sslat_depthwise_shape shape = {in.n,  in.c,      in.h,        in.w,     out.h,    out.w,
                                   c->kernel, c->stride, c->dilation, pads.top, pads.left};
    const void *residual = step->residual != SSLAT_NO_INPUT ? buffer_of(p, copy, value_of(step->residual)) : NULL;
    /* the epilogue the step carries, whole: its bias, residual and activation */
    return sslat_cuda_depthwise(p->elem, p->nhwc, &shape, buffer_of(p, copy, value_of(step->input[0])),
                                param_of(p, copy, p->states[k].params[0]), param_of(p, copy, p->states[k].params[2]),
                                residual, step->act, buffer_of(p, copy, value_of(step->node)), p->session->stream);
}

/* A convolution step as chosen: the own depthwise kernel; cuDNN's legacy
 * fused call; a graph plan (fused: with its epilogue); or a plain
 * convolution with the own epilogue (bias, residual, activation) after it. */
static sslat_status enqueue_conv(const step_launch *l, sslat_error *err)
{
    const cuda_step *step = l->step;
    const cuda_step_state *st = l->st;
    if (st->route == CUDA_ROUTE_OWN_DEPTHWISE) {
        CUDA_RETURN_IF_FAILED(err, runtime, cuda_launch_own_depthwise(l->p, l->k, l->copy));
        return SSLAT_OK;
    }
    if (step->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT && !st->fallback) return launch_fused(l->p, l->k, l->copy, err);
    /* a graph route always has its plan (the choice never keeps one whose plan it released) */
    SSLAT_ASSERT((st->route == CUDA_ROUTE_GRAPH || st->route == CUDA_ROUTE_GRAPH_FUSED) == (st->graph != NULL));
    if (st->graph) {
        sslat_status status = cuda_graph_execute(l->s->cudnn, st->graph->plan,
                                                 l->p->packs[(size_t)l->copy * (size_t)l->p->plan.count + (size_t)l->k],
                                                 err);
        if (status != SSLAT_OK || st->route == CUDA_ROUTE_GRAPH_FUSED) return status;
    } else {
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnConvolutionForward)(
                                              l->s->cudnn, &ONE, st->x, l->x, st->w,
                                              param_of(l->p, l->copy, st->params[0]), st->conv, st->algo,
                                              l->s->workspace, st->workspace, &ZERO, st->y, l->y));
    }
    if (!step->epilogue && !st->fallback) return SSLAT_OK;
    CUDA_RETURN_IF_FAILED(err, runtime, cuda_launch_own_epilogue(l->p, l->k, l->copy));
    return SSLAT_OK;
}

/* The other library calls: cuDNN's batch norm, pooling and activation. */
static sslat_status enqueue_cudnn(const step_launch *l, sslat_error *err)
{
    const cuda_step_state *st = l->st;
    cudnnHandle_t cudnn = l->s->cudnn;
    switch (l->step->kind) {
    case CUDA_STEP_BATCHNORM:
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnBatchNormalizationForwardInference)(
                                              cudnn, CUDNN_BATCHNORM_SPATIAL, &ONE, &ZERO, st->x, l->x, st->y, l->y,
                                              st->bn, param_of(l->p, l->copy, st->params[0]),
                                              param_of(l->p, l->copy, st->params[1]),
                                              param_of(l->p, l->copy, st->params[2]),
                                              param_of(l->p, l->copy, st->params[3]), (double)SSLAT_BN_EPSILON));
        return SSLAT_OK;
    case CUDA_STEP_POOL:
        CUDA_RETURN_IF_FAILED(err, cudnn,
                              CUDNN(cudnnPoolingForward)(cudnn, st->pool, &ONE, st->x, l->x, &ZERO, st->y, l->y));
        return SSLAT_OK;
    case CUDA_STEP_ACT:
        CUDA_RETURN_IF_FAILED(err, cudnn,
                              CUDNN(cudnnActivationForward)(cudnn, st->act, &ONE, st->x, l->x, &ZERO, st->y, l->y));
        return SSLAT_OK;
    case CUDA_STEP_CONV: case CUDA_STEP_ADD: case CUDA_STEP_MUL_CHANNEL: case CUDA_STEP_GLOBAL_AVGPOOL:
    case CUDA_STEP_LINEAR: case CUDA_STEP_SHUFFLE: case CUDA_STEP_ALIAS: case CUDA_STEP_CONCAT: case CUDA_STEP_SLICE:
    case CUDA_STEP_UPSAMPLE: case CUDA_STEP_SPACE_TO_DEPTH: case CUDA_STEP_INPUT: case CUDA_STEP_TOKENS:
    case CUDA_STEP_LAYERNORM: case CUDA_STEP_ATTENTION: case CUDA_STEP_CLASS_TOKEN: case CUDA_STEP_POSITION_EMBED:
    case CUDA_STEP_TOKEN_POOL: case CUDA_STEP_LEAKY_RELU: case CUDA_STEP_IMAGE: case CUDA_STEP_LAYER_SCALE: break;
    }
    SSLAT_ASSERT(!"not a cuDNN step");
}

/* Attention on packed q|k|v tokens (row = 3·H·D values a token), per image:
 * one strided-batched product over the heads for the scores (+ the position
 * bias, heads × L × L, added as PyTorch adds its cached table), the own softmax
 * over every row, one for probabilities × v written into the heads' places
 * of the N×L×H·D output. cuBLAS is column-major: a row-major T×D head (leading
 * dimension `row`) is its transpose there, so the scores' transpose Sᵀ = K·Qᵀ
 * is op(A) = Kᵀᵀ (OP_T) times Qᵀ (OP_N), and Oᵀ = Vᵀ·Pᵀ is two OP_N. */
static sslat_status enqueue_attention(const step_launch *l, sslat_error *err)
{
    const cuda_program *p = l->p;
    const sslat_attention_params *a = sslat_node_attention(l->node);
    int T = l->in.h, H = a->heads, D = a->head_dim, row = 3 * H * D;
    size_t size = p->elem_size, per_image = (size_t)H * T * T;
    cublasComputeType_t compute = cublas_compute(p->dtype);
    cudaDataType_t type = cublas_type(p->dtype);
    uint8_t *scores = param_of(p, l->copy, l->st->params[0]), *probs = param_of(p, l->copy, l->st->params[1]);
    const float scale = (float)(1.0 / sqrt((double)D));
    for (int n = 0; n < l->in.n; n++) {
        const uint8_t *q = (const uint8_t *)l->x + (size_t)n * T * row * size;
        CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasGemmStridedBatchedEx)(
                                               l->s->cublas, CUBLAS_OP_T, CUBLAS_OP_N, T, T, D, &scale,
                                               q + (size_t)H * D * size, type, row, D, q, type, row, D, &ZERO,
                                               scores + (size_t)n * per_image * size, type, T, (long long)T * T, H,
                                               compute, CUBLAS_GEMM_DEFAULT));
    }
    if (a->position_bias)
        CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_add_periodic(p->elem, scores, param_of(p, l->copy, l->st->params[2]),
                                                                    scores, (size_t)l->in.n * per_image, per_image,
                                                                    l->s->stream));
    CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_softmax(p->elem, scores, probs, l->in.n * H * T, T, l->s->stream));
    for (int n = 0; n < l->in.n; n++) {
        const uint8_t *v = (const uint8_t *)l->x + ((size_t)n * T * row + (size_t)2 * H * D) * size;
        uint8_t *out = (uint8_t *)l->y + (size_t)n * T * H * D * size;
        CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasGemmStridedBatchedEx)(
                                               l->s->cublas, CUBLAS_OP_N, CUBLAS_OP_N, D, T, T, &ONE, v, type, row,
                                               D, probs + (size_t)n * per_image * size, type, T, (long long)T * T,
                                               &ZERO, out, type, H * D, D, H, compute, CUBLAS_GEMM_DEFAULT));
    }
    return SSLAT_OK;
}

/* Own kernels of token tensors, and the layer scale (of tokens or an image). */
static cudaError_t enqueue_tokens(const step_launch *l)
{
    const cuda_program *p = l->p;
    cudaStream_t stream = l->s->stream;
    sslat_shape in = l->in, out = l->out;
    switch (l->step->kind) {
    case CUDA_STEP_TOKENS: /* from NHWC an alias (cuda_program_init): nothing to do */
        return p->nhwc ? cudaSuccess : sslat_cuda_to_tokens(p->elem, l->x, l->y, in.n, in.c, in.h * in.w, stream);
    case CUDA_STEP_LAYERNORM:
        return sslat_cuda_layernorm(p->elem, l->x, param_of(p, l->copy, l->st->params[0]),
                                    param_of(p, l->copy, l->st->params[1]), sslat_node_layernorm_eps(l->node), l->y, in.n * in.h, in.c,
                                    stream);
    case CUDA_STEP_CLASS_TOKEN:
        return sslat_cuda_class_token(p->elem, l->x, param_of(p, l->copy, l->st->params[0]), l->y, in.n, in.h, in.c,
                                      stream);
    case CUDA_STEP_POSITION_EMBED:
        return sslat_cuda_add_periodic(p->elem, l->x, param_of(p, l->copy, l->st->params[0]), l->y,
                                       (size_t)sslat_shape_elements(out), (size_t)in.h * (size_t)in.c, stream);
    case CUDA_STEP_TOKEN_POOL: /* the class token: the first C of each image's L·C values; the mean: NHWC's pool */
        if (sslat_node_token_pool(l->node) == SSLAT_TOKEN_POOL_CLASS)
            return sslat_cuda_copy_channels(p->elem, 0, l->x, l->y, in.n, in.h * in.c, in.c, 1, 1, 0, 0, in.c, stream);
        return sslat_cuda_global_avgpool(p->elem, 1, l->x, l->y, in.n, in.c, in.h, stream);
    case CUDA_STEP_IMAGE: /* to NHWC an alias (cuda_program_init): nothing to do */
        return p->nhwc ? cudaSuccess : sslat_cuda_from_tokens(p->elem, l->x, l->y, out.n, out.c, out.h * out.w, stream);
    case CUDA_STEP_LAYER_SCALE: /* the channel is the fastest index of tokens and NHWC images */
        return sslat_cuda_scale_channels(p->elem, p->nhwc || in.tokens, l->x, param_of(p, l->copy, l->st->params[0]),
                                         l->y, (size_t)sslat_shape_elements(out), out.c, out.h * out.w, stream);
    case CUDA_STEP_CONV: case CUDA_STEP_BATCHNORM: case CUDA_STEP_ACT: case CUDA_STEP_ADD: case CUDA_STEP_MUL_CHANNEL:
    case CUDA_STEP_GLOBAL_AVGPOOL: case CUDA_STEP_POOL: case CUDA_STEP_LINEAR: case CUDA_STEP_SHUFFLE:
    case CUDA_STEP_ALIAS: case CUDA_STEP_CONCAT: case CUDA_STEP_SLICE: case CUDA_STEP_UPSAMPLE:
    case CUDA_STEP_SPACE_TO_DEPTH: case CUDA_STEP_INPUT: case CUDA_STEP_ATTENTION: case CUDA_STEP_LEAKY_RELU: break;
    }
    SSLAT_ASSERT(!"not a token step");
}

/* Own kernels that compute: an activation cuDNN lacks, add, SE scaling, global average pooling. */
static cudaError_t enqueue_arithmetic(const step_launch *l)
{
    const cuda_program *p = l->p;
    size_t count = (size_t)sslat_shape_elements(l->out);
    switch (l->step->kind) {
    case CUDA_STEP_ACT: return sslat_cuda_act(p->elem, l->step->act, l->x, l->y, count, l->s->stream);
    case CUDA_STEP_ADD:
        return sslat_cuda_add(p->elem, l->step->act, l->x, buffer_of(p, l->copy, value_of(l->step->input[1])), l->y,
                              count, l->s->stream);
    case CUDA_STEP_MUL_CHANNEL:
        return sslat_cuda_mul_channel(p->elem, p->nhwc, l->x, buffer_of(p, l->copy, value_of(l->step->input[1])), l->y, l->out.n, l->out.c, l->out.h * l->out.w,
                                      l->s->stream);
    case CUDA_STEP_GLOBAL_AVGPOOL:
        return sslat_cuda_global_avgpool(p->elem, p->nhwc, l->x, l->y, l->in.n, l->in.c, l->in.h * l->in.w,
                                         l->s->stream);
    case CUDA_STEP_CONV: case CUDA_STEP_BATCHNORM: case CUDA_STEP_POOL: case CUDA_STEP_LINEAR: case CUDA_STEP_SHUFFLE:
    case CUDA_STEP_ALIAS: case CUDA_STEP_CONCAT: case CUDA_STEP_SLICE: case CUDA_STEP_UPSAMPLE:
    case CUDA_STEP_SPACE_TO_DEPTH: case CUDA_STEP_INPUT: case CUDA_STEP_TOKENS: case CUDA_STEP_LAYERNORM:
    case CUDA_STEP_ATTENTION: case CUDA_STEP_CLASS_TOKEN: case CUDA_STEP_POSITION_EMBED: case CUDA_STEP_TOKEN_POOL:
    case CUDA_STEP_LEAKY_RELU: case CUDA_STEP_IMAGE: case CUDA_STEP_LAYER_SCALE: break;
    }
    SSLAT_ASSERT(!"not an arithmetic step");
}

/* Own kernels that move elements: shuffle, concat, slice, upsample, space to depth. */
static cudaError_t enqueue_movement(const step_launch *l)
{
    const cuda_program *p = l->p;
    const sslat_node *node = l->node;
    sslat_shape in = l->in, out = l->out;
    cudaStream_t stream = l->s->stream;
    switch (l->step->kind) {
    case CUDA_STEP_SHUFFLE:
        return sslat_cuda_channel_shuffle(p->elem, p->nhwc, l->x, l->y, out.n, out.c, out.h * out.w,
                                          sslat_node_shuffle_groups(node), stream);
    case CUDA_STEP_CONCAT: {
        int to = 0; /* each input's channels after the ones before it */
        cudaError_t code = cudaSuccess;
        for (int i = 0; code == cudaSuccess && i < sslat_node_input_count(node); i++) {
            sslat_shape part = sslat_graph_shape_of(p->graph, node->input[i]);
            code = sslat_cuda_copy_channels(p->elem, p->nhwc, buffer_of(p, l->copy, value_of(node->input[i])), l->y,
                                            out.n, part.c, out.c, out.h, out.w, 0, to, part.c, stream);
            to += part.c;
        }
        return code;
    }
    case CUDA_STEP_SLICE: {
        const sslat_slice_params *slice = sslat_node_slice(node);
        return sslat_cuda_copy_channels(p->elem, p->nhwc, l->x, l->y, out.n, in.c, out.c, out.h, out.w, slice->start,
                                        0, slice->length, stream);
    }
    case CUDA_STEP_UPSAMPLE:
        return sslat_cuda_upsample_nearest(p->elem, p->nhwc, l->x, l->y, in.n, in.c, in.h, in.w,
                                           sslat_node_upsample_scale(node), stream);
    case CUDA_STEP_SPACE_TO_DEPTH:
        return sslat_cuda_space_to_depth(p->elem, p->nhwc, l->x, l->y, in.n, in.c, in.h, in.w, stream);
    case CUDA_STEP_CONV: case CUDA_STEP_BATCHNORM: case CUDA_STEP_ACT: case CUDA_STEP_ADD: case CUDA_STEP_MUL_CHANNEL:
    case CUDA_STEP_GLOBAL_AVGPOOL: case CUDA_STEP_POOL: case CUDA_STEP_LINEAR: case CUDA_STEP_ALIAS:
    case CUDA_STEP_INPUT: case CUDA_STEP_TOKENS: case CUDA_STEP_LAYERNORM: case CUDA_STEP_ATTENTION:
    case CUDA_STEP_CLASS_TOKEN: case CUDA_STEP_POSITION_EMBED: case CUDA_STEP_TOKEN_POOL: case CUDA_STEP_LEAKY_RELU: case CUDA_STEP_IMAGE: case CUDA_STEP_LAYER_SCALE: break;
    }
    SSLAT_ASSERT(!"not a movement step");
}

static sslat_status enqueue_step(const step_launch *l, sslat_error *err)
{
    switch (l->step->kind) {
    case CUDA_STEP_CONV: return enqueue_conv(l, err);
    case CUDA_STEP_ACT:
        if (l->step->call == CUDA_CALL_CUDNN_ACT) return enqueue_cudnn(l, err);
        CUDA_RETURN_IF_FAILED(err, runtime, enqueue_arithmetic(l));
        return SSLAT_OK;
    case CUDA_STEP_BATCHNORM:
    case CUDA_STEP_POOL: return enqueue_cudnn(l, err);
    case CUDA_STEP_LINEAR: return cuda_linear_enqueue(l->p, l->k, l->copy, l->x, l->y, err);
    case CUDA_STEP_ADD:
    case CUDA_STEP_MUL_CHANNEL:
    case CUDA_STEP_GLOBAL_AVGPOOL: CUDA_RETURN_IF_FAILED(err, runtime, enqueue_arithmetic(l)); return SSLAT_OK;
    case CUDA_STEP_SHUFFLE:
    case CUDA_STEP_CONCAT:
    case CUDA_STEP_SLICE:
    case CUDA_STEP_UPSAMPLE:
    case CUDA_STEP_SPACE_TO_DEPTH: CUDA_RETURN_IF_FAILED(err, runtime, enqueue_movement(l)); return SSLAT_OK;
    case CUDA_STEP_ATTENTION: return enqueue_attention(l, err);
    case CUDA_STEP_LEAKY_RELU:
        CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_leaky_relu(l->p->elem, sslat_node_slope(l->node), l->x, l->y,
                                                                  (size_t)sslat_shape_elements(l->out), l->s->stream));
        return SSLAT_OK;
    case CUDA_STEP_TOKENS:
    case CUDA_STEP_LAYERNORM:
    case CUDA_STEP_CLASS_TOKEN:
    case CUDA_STEP_POSITION_EMBED:
    case CUDA_STEP_TOKEN_POOL:
    case CUDA_STEP_IMAGE:
    case CUDA_STEP_LAYER_SCALE: CUDA_RETURN_IF_FAILED(err, runtime, enqueue_tokens(l)); return SSLAT_OK;
    case CUDA_STEP_INPUT: /* written once by cuda_program_allocate */
    case CUDA_STEP_ALIAS: return SSLAT_OK;
    }
    SSLAT_ASSERT(!"unknown cuda step");
}

sslat_status cuda_program_enqueue(cuda_program *p, int32_t copy, sslat_error *err)
{
    for (int32_t k = 0; k < p->plan.count; k++) {
        const cuda_step *step = &p->plan.steps[k];
        const sslat_node *node = &p->graph->nodes[step->main_node];
        step_launch l = {
            .p = p, .s = p->session, .k = k, .copy = copy, .step = step, .st = &p->states[k], .node = node,
            .x = step->input[0] == SSLAT_NO_INPUT ? NULL : buffer_of(p, copy, value_of(step->input[0])),
            .y = buffer_of(p, copy, value_of(step->node)),
            .in = node->input[0] == SSLAT_NO_INPUT ? node->shape : sslat_graph_shape_of(p->graph, node->input[0]),
            .out = p->graph->nodes[step->node].shape,
        };
        sslat_status status = enqueue_step(&l, err);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

sslat_status cuda_program_read_output(cuda_program *p, float *out, sslat_error *err)
{
    int32_t v = value_of(p->plan.output);
    sslat_shape shape = shape_of(p, v);
    size_t count = (size_t)sslat_shape_elements(shape), hw = (size_t)shape.h * (size_t)shape.w;
    uint8_t *raw = malloc(count * p->elem_size + 1);
    if (!raw) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    /* on the session's stream (non-blocking: the legacy stream would not wait for it), then wait */
    cudaError_t code = cudaMemcpyAsync(raw, buffer_of(p, 0, v), count * p->elem_size, cudaMemcpyDeviceToHost,
                                       p->session->stream);
    if (code == cudaSuccess) code = cudaStreamSynchronize(p->session->stream);
    if (code != cudaSuccess) {
        free(raw);
        return cuda_check_runtime(code, "cudaMemcpyAsync(output)", __FILE__, __LINE__, err);
    }
    for (size_t i = 0; i < count; i++) {
        float value;
        if (p->elem == SSLAT_ELEM_F32) memcpy(&value, raw + 4 * i, 4);
        else {
            uint16_t h;
            memcpy(&h, raw + 2 * i, 2);
            value = p->elem == SSLAT_ELEM_F16 ? sslat_fp16_to_float(h) : sslat_bf16_to_float(h);
        }
        out[p->nhwc && !shape.tokens ? sslat_nhwc_to_nchw(i, (size_t)shape.c, hw) : i] = value; /* tokens: one layout */
    }
    free(raw);
    return SSLAT_OK;
}

