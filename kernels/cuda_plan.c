#include "kernels/cuda_plan.h"
#include "kernels/cuda_select.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"

bool cuda_cudnn_has_act(int32_t act)
{
    return act == SSLAT_ACT_RELU || act == SSLAT_ACT_RELU6 || act == SSLAT_ACT_SIGMOID ||
           act == SSLAT_ACT_TANH;
}

/* How many nodes read value v (node index or SSLAT_GRAPH_INPUT). */
static int consumers(const sslat_graph *g, int32_t v)
{
    int n = 0;
    for (int32_t i = 0; i < g->count; i++)
        for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++) n += g->nodes[i].input[k] == v;
    return n;
}

/* Whether node `next` exists, reads only-used value `v`, and is of kind op. */
static bool next_reads(const sslat_graph *g, int32_t next, int32_t v, sslat_op_kind op)
{
    return next < g->count && g->nodes[next].op == op && consumers(g, v) == 1 &&
           (g->nodes[next].input[0] == v || g->nodes[next].input[1] == v) &&
           v != sslat_graph_output_index(g);
}

static cuda_step step_of(const sslat_node *node, int32_t index, cuda_step_kind kind, cuda_call call)
{
    /* a concat reads up to SSLAT_MAX_NODE_INPUTS inputs: the step keeps the first two, the node all */
    cuda_step s = {kind, call, index, index, {node->input[0], node->input[1]}, -1, SSLAT_NO_INPUT, -1, false, false};
    return s;
}

/* A fused conv: conv [→ bn] [→ add(other)] [→ act]. Returns the nodes it covers. */
static int32_t plan_conv(const sslat_graph *g, int32_t i, bool fused, bool graph_api, cuda_step *s)
{
    const sslat_node *conv = &g->nodes[i];
    *s = step_of(conv, i, CUDA_STEP_CONV, graph_api ? CUDA_CALL_CUDNN_GRAPH_CONV : CUDA_CALL_CUDNN_CONV);
    s->bias = sslat_node_conv(conv)->bias;
    int32_t last = i;
    if (fused) {
        if (next_reads(g, last + 1, last, SSLAT_OP_BATCHNORM)) {
            s->bn_node = ++last;
            s->bias = true;
        }
        if (next_reads(g, last + 1, last, SSLAT_OP_ADD)) {
            const sslat_node *add = &g->nodes[last + 1];
            s->residual = add->input[0] == last ? add->input[1] : add->input[0];
            last++;
        }
        if (next_reads(g, last + 1, last, SSLAT_OP_ACT)) s->act = (int32_t)sslat_node_act(&g->nodes[++last]);
        s->node = last;
        /* cuDNN's legacy fused call takes relu (any algorithm); the rest gets an own epilogue */
        if (s->act == SSLAT_ACT_RELU && s->bias && !graph_api) s->call = CUDA_CALL_CUDNN_CONV_BIAS_ACT;
        else s->epilogue = s->bias || s->residual != SSLAT_NO_INPUT || s->act >= 0;
    } else {
        s->epilogue = s->bias; /* cudnnAddTensor in eager mode would be one more call: own kernel */
    }
    return last - i + 1;
}

bool cuda_plan_supports(const sslat_node *node)
{
    /* cuDNN's pooling descriptor pads both sides alike and gives floor's output: no ceil mode */
    if (node->op == SSLAT_OP_MAXPOOL && sslat_node_pool(node)->ceil) return false;
    return node->op >= 0 && node->op < SSLAT_OP_COUNT; /* every other op has a lowering */
}

sslat_status cuda_plan_build(const sslat_graph *g, sslat_exec_mode mode, sslat_cudnn_api api, cuda_plan *plan,
                             sslat_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->output = sslat_graph_output_index(g);
    plan->steps = calloc((size_t)g->count + 1, sizeof *plan->steps);
    if (!plan->steps) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    bool fused = mode == SSLAT_MODE_FUSED;
    for (int32_t i = 0; i < g->count;) {
        const sslat_node *node = &g->nodes[i];
        cuda_step *s = &plan->steps[plan->count++];
        int32_t covered = 1;
        switch (node->op) {
        case SSLAT_OP_CONV2D:
            if (api != SSLAT_CUDNN_API_GRAPH &&
                !sslat_pads_symmetric(sslat_conv_pads(sslat_node_conv(node), sslat_graph_shape_of(g, node->input[0])))) {
                /* the legacy 2-D descriptor pads both sides alike; the graph API takes pre and post paddings */
                cuda_plan_release(plan);
                return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "node %d: a convolution padded one side more than the "
                                  "other ('same' padding on this input) has no lowering on cuDNN's legacy API; "
                                  "--cuda-api graph (or -c cpu) measures it", i);
            }
            covered = plan_conv(g, i, fused, api == SSLAT_CUDNN_API_GRAPH, s);
            break;
        case SSLAT_OP_BATCHNORM: *s = step_of(node, i, CUDA_STEP_BATCHNORM, CUDA_CALL_CUDNN_BATCHNORM); break;
        case SSLAT_OP_ACT:
            *s = step_of(node, i, CUDA_STEP_ACT, CUDA_CALL_KERNEL);
            s->act = (int32_t)sslat_node_act(node);
            if (cuda_cudnn_has_act(s->act)) s->call = CUDA_CALL_CUDNN_ACT;
            break;
        case SSLAT_OP_ADD:
            *s = step_of(node, i, CUDA_STEP_ADD, CUDA_CALL_KERNEL);
            if (fused && next_reads(g, i + 1, i, SSLAT_OP_ACT)) {
                s->act = (int32_t)sslat_node_act(&g->nodes[i + 1]);
                s->node = i + 1;
                covered = 2;
            }
            break;
        case SSLAT_OP_MUL_CHANNEL: *s = step_of(node, i, CUDA_STEP_MUL_CHANNEL, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_GLOBAL_AVGPOOL: *s = step_of(node, i, CUDA_STEP_GLOBAL_AVGPOOL, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_MAXPOOL:
        case SSLAT_OP_AVGPOOL:
            if (!cuda_plan_supports(node)) { /* a ceil-mode pool: its output is not the descriptor's floor */
                cuda_plan_release(plan);
                return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "node %d: a ceil-mode max pool has no cuda lowering "
                                  "(cuDNN's pooling descriptor gives floor's output size)", i);
            }
            *s = step_of(node, i, CUDA_STEP_POOL, CUDA_CALL_CUDNN_POOL);
            break;
        case SSLAT_OP_LINEAR:
            *s = step_of(node, i, CUDA_STEP_LINEAR, CUDA_CALL_CUBLAS_GEMM);
            s->bias = sslat_node_linear(node)->bias;
            if (fused && next_reads(g, i + 1, i, SSLAT_OP_ACT)) {
                s->act = (int32_t)sslat_node_act(&g->nodes[i + 1]);
                s->node = i + 1;
                covered = 2;
            }
            cuda_plan_linear_call(s, CUDA_CALL_CUBLAS_GEMM);
            break;
        case SSLAT_OP_CHANNEL_SHUFFLE: *s = step_of(node, i, CUDA_STEP_SHUFFLE, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_FLATTEN:
        case SSLAT_OP_IDENTITY: *s = step_of(node, i, CUDA_STEP_ALIAS, CUDA_CALL_NONE); break;
        case SSLAT_OP_CONCAT: *s = step_of(node, i, CUDA_STEP_CONCAT, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_CHANNEL_SLICE: *s = step_of(node, i, CUDA_STEP_SLICE, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_UPSAMPLE: *s = step_of(node, i, CUDA_STEP_UPSAMPLE, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_SPACE_TO_DEPTH: *s = step_of(node, i, CUDA_STEP_SPACE_TO_DEPTH, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_INPUT: *s = step_of(node, i, CUDA_STEP_INPUT, CUDA_CALL_NONE); break;
        case SSLAT_OP_TOKENS: *s = step_of(node, i, CUDA_STEP_TOKENS, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_LAYERNORM: *s = step_of(node, i, CUDA_STEP_LAYERNORM, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_ATTENTION:
            *s = step_of(node, i, CUDA_STEP_ATTENTION, sslat_node_attention(node)->position_bias
                                                           ? CUDA_CALL_CUBLAS_ATTENTION_BIAS : CUDA_CALL_CUBLAS_ATTENTION);
            break;
        case SSLAT_OP_CLASS_TOKEN: *s = step_of(node, i, CUDA_STEP_CLASS_TOKEN, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_POSITION_EMBED: *s = step_of(node, i, CUDA_STEP_POSITION_EMBED, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_TOKEN_POOL: *s = step_of(node, i, CUDA_STEP_TOKEN_POOL, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_LEAKY_RELU: *s = step_of(node, i, CUDA_STEP_LEAKY_RELU, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_IMAGE: *s = step_of(node, i, CUDA_STEP_IMAGE, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_LAYER_SCALE: *s = step_of(node, i, CUDA_STEP_LAYER_SCALE, CUDA_CALL_KERNEL); break;
        case SSLAT_OP_COUNT:
            cuda_plan_release(plan);
            return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "node %d: op %s has no cuda lowering", i, sslat_op_name(node->op));
        }
        i += covered;
    }
    return SSLAT_OK;
}

bool cuda_cublaslt_fuses(int32_t act) { return act == SSLAT_ACT_RELU || act == SSLAT_ACT_GELU_TANH; }

void cuda_plan_linear_call(cuda_step *s, cuda_call call)
{
    SSLAT_ASSERT(s->kind == CUDA_STEP_LINEAR && (call == CUDA_CALL_CUBLAS_GEMM || call == CUDA_CALL_CUBLASLT_MATMUL));
    s->call = call;
    s->epilogue = call == CUDA_CALL_CUBLAS_GEMM ? s->bias || s->act >= 0 : s->act >= 0 && !cuda_cublaslt_fuses(s->act);
}

void cuda_plan_use_cublaslt(cuda_plan *plan)
{
    for (int32_t k = 0; k < plan->count; k++)
        if (plan->steps[k].kind == CUDA_STEP_LINEAR) cuda_plan_linear_call(&plan->steps[k], CUDA_CALL_CUBLASLT_MATMUL);
}

void cuda_plan_release(cuda_plan *plan)
{
    free(plan->steps);
    memset(plan, 0, sizeof *plan);
}

static const char *kernel_name(cuda_step_kind kind)
{
    switch (kind) {
    case CUDA_STEP_ACT: return "sslat_act";
    case CUDA_STEP_ADD: return "sslat_add";
    case CUDA_STEP_MUL_CHANNEL: return "sslat_mul_channel";
    case CUDA_STEP_GLOBAL_AVGPOOL: return "sslat_global_avgpool";
    case CUDA_STEP_SHUFFLE: return "sslat_channel_shuffle";
    case CUDA_STEP_CONCAT: return "sslat_copy_channels(concat)";
    case CUDA_STEP_SLICE: return "sslat_copy_channels(slice)";
    case CUDA_STEP_UPSAMPLE: return "sslat_upsample_nearest";
    case CUDA_STEP_SPACE_TO_DEPTH: return "sslat_space_to_depth";
    case CUDA_STEP_TOKENS: return "sslat_to_tokens";
    case CUDA_STEP_LAYERNORM: return "sslat_layernorm";
    case CUDA_STEP_CLASS_TOKEN: return "sslat_class_token";
    case CUDA_STEP_POSITION_EMBED: return "sslat_add_periodic(pos_embed)";
    case CUDA_STEP_TOKEN_POOL: return "sslat_token_pool";
    case CUDA_STEP_LEAKY_RELU: return "sslat_leaky_relu";
    case CUDA_STEP_IMAGE: return "sslat_from_tokens";
    case CUDA_STEP_LAYER_SCALE: return "sslat_scale_channels";
    case CUDA_STEP_CONV: case CUDA_STEP_BATCHNORM: case CUDA_STEP_POOL: case CUDA_STEP_LINEAR: case CUDA_STEP_ALIAS:
    case CUDA_STEP_INPUT: case CUDA_STEP_ATTENTION: break; /* library calls or no work: call_name names them */
    }
    return "sslat_kernel";
}

static const char *call_name(const cuda_step *s)
{
    switch (s->call) {
    case CUDA_CALL_CUDNN_CONV: return "cudnnConvolutionForward";
    case CUDA_CALL_CUDNN_CONV_BIAS_ACT: return "cudnnConvolutionBiasActivationForward";
    case CUDA_CALL_CUDNN_GRAPH_CONV: return "cudnnBackendExecute(conv)";
    case CUDA_CALL_CUDNN_BATCHNORM: return "cudnnBatchNormalizationForwardInference";
    case CUDA_CALL_CUDNN_ACT: return "cudnnActivationForward";
    case CUDA_CALL_CUDNN_POOL: return "cudnnPoolingForward";
    case CUDA_CALL_CUBLAS_GEMM: return "cublasGemmEx";
    case CUDA_CALL_CUBLASLT_MATMUL: return "cublasLtMatmul";
    case CUDA_CALL_CUBLAS_ATTENTION: return "cublasGemmStridedBatchedEx(q.kT) + sslat_softmax + cublasGemmStridedBatchedEx(p.v)";
    case CUDA_CALL_CUBLAS_ATTENTION_BIAS:
        return "cublasGemmStridedBatchedEx(q.kT) + sslat_add_periodic(bias) + sslat_softmax + cublasGemmStridedBatchedEx(p.v)";
    case CUDA_CALL_KERNEL: return kernel_name(s->kind);
    case CUDA_CALL_NONE: return s->kind == CUDA_STEP_INPUT ? "input" : "alias";
    }
    return "?";
}

static void append(char *buffer, size_t capacity, size_t *used, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(*used < capacity ? buffer + *used : NULL, *used < capacity ? capacity - *used : 0, format, args);
    va_end(args);
    if (n > 0) *used += (size_t)n;
}

bool cuda_plan_launches_nothing(const cuda_plan *plan)
{
    for (int32_t k = 0; k < plan->count; k++)
        if (plan->steps[k].kind != CUDA_STEP_ALIAS && plan->steps[k].kind != CUDA_STEP_INPUT) return false;
    return true;
}

size_t cuda_plan_describe(const cuda_plan *plan, const int *routes, char *buffer, size_t capacity)
{
    size_t used = 0;
    if (capacity) buffer[0] = '\0';
    for (int32_t k = 0; k < plan->count; k++) {
        const cuda_step *s = &plan->steps[k];
        int route = routes && s->kind == CUDA_STEP_CONV ? routes[k] : CUDA_ROUTE_LEGACY;
        /* a fused graph or the own depthwise kernel computes the epilogue itself */
        const char *epilogue = route == CUDA_ROUTE_GRAPH_FUSED ? " fusing (" : " + sslat_epilogue(";
        append(buffer, capacity, &used, "%s%s", k ? "; " : "",
               route == CUDA_ROUTE_OWN_DEPTHWISE ? "sslat_depthwise" : call_name(s));
        if (s->call == CUDA_CALL_CUBLASLT_MATMUL) { /* its epilogue, then an activation it has none for */
            bool fused_act = s->act >= 0 && !s->epilogue;
            if (s->bias || fused_act)
                append(buffer, capacity, &used, "(epilogue %s%s%s)", s->bias ? "bias" : "",
                       s->bias && fused_act ? "," : "", fused_act ? sslat_act_name((sslat_act_kind)s->act) : "");
            if (s->epilogue) append(buffer, capacity, &used, " + sslat_act(%s)", sslat_act_name((sslat_act_kind)s->act));
            continue;
        }
        if (s->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT || (s->call != CUDA_CALL_KERNEL && !s->epilogue && s->act >= 0))
            append(buffer, capacity, &used, "(%s)", sslat_act_name((sslat_act_kind)s->act));
        if (s->call == CUDA_CALL_KERNEL && s->act >= 0)
            append(buffer, capacity, &used, "(%s)", sslat_act_name((sslat_act_kind)s->act));
        if (s->epilogue) {
            append(buffer, capacity, &used, "%s", route == CUDA_ROUTE_OWN_DEPTHWISE ? " with (" : epilogue);
            const char *sep = "";
            if (s->bias) append(buffer, capacity, &used, "%sbias", sep), sep = ",";
            if (s->residual != SSLAT_NO_INPUT) append(buffer, capacity, &used, "%sresidual", sep), sep = ",";
            if (s->act >= 0) append(buffer, capacity, &used, "%s%s", sep, sslat_act_name((sslat_act_kind)s->act));
            append(buffer, capacity, &used, ")");
        }
    }
    return used;
}
