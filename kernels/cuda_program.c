/* A cuda program built: one subgraph's plan turned into cuDNN descriptors,
 * seeded parameters and device buffers (in `copies` copies), and described.
 * Choosing its algorithms and launching it: kernels/cuda_launch.c. */
#include "kernels/cuda_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"
#include "kernels/cuda_graph.h"
#include "kernels/cuda_layout.h"
#include "kernels/cuda_linear.h"
#include "kernels/cuda_values.h"
#include "kernels/ops.h"
#include "measure/fill.h"
#include "measure/half.h"
#include "measure/parameters.h"

/* Host float values → the element type, in place into a new buffer. */
static void *convert(const float *values, size_t count, int elem, size_t *bytes)
{
    size_t size = elem == SSLAT_ELEM_F32 ? 4 : 2;
    uint8_t *out = malloc(count * size + 1);
    if (!out) return NULL;
    for (size_t i = 0; i < count; i++) {
        if (elem == SSLAT_ELEM_F32) memcpy(out + 4 * i, &values[i], 4);
        else {
            uint16_t h = elem == SSLAT_ELEM_F16 ? sslat_float_to_fp16(values[i]) : sslat_float_to_bf16(values[i]);
            memcpy(out + 2 * i, &h, 2);
        }
    }
    *bytes = count * size;
    return out;
}

/* Keep a prepared host parameter; returns its index or -1 (out of memory). */
static int32_t add_param(cuda_program *p, void *host, size_t bytes)
{
    if (!host) return -1;
    if (p->n_params == p->params_capacity) {
        int32_t next = p->params_capacity ? 2 * p->params_capacity : 8;
        cuda_param *grown = realloc(p->params, (size_t)next * sizeof *grown);
        if (!grown) {
            free(host);
            return -1;
        }
        p->params = grown;
        p->params_capacity = next;
    }
    p->params[p->n_params] = (cuda_param){host, bytes};
    return p->n_params++;
}

/* Host float values converted to elem and kept as a parameter (the size is
 * known only after the conversion: one call, so it is never read before). */
static int32_t add_converted(cuda_program *p, const float *values, size_t count, int elem)
{
    size_t bytes = 0;
    void *host = convert(values, count, elem, &bytes);
    return add_param(p, host, bytes);
}

static sslat_status tensor_desc(cudnnTensorDescriptor_t *d, const cuda_program *p, sslat_shape s, sslat_error *err)
{
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateTensorDescriptor)(d));
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetTensor4dDescriptor)(*d, p->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                              cudnn_type(p->dtype), s.n, s.c, s.h, s.w));
    return SSLAT_OK;
}

/* The descriptors of a step's input and output. */
static sslat_status io_descs(cuda_step_state *st, const cuda_program *p, sslat_shape in, sslat_shape out, sslat_error *err)
{
    sslat_status status = tensor_desc(&st->x, p, in, err);
    return status == SSLAT_OK ? tensor_desc(&st->y, p, out, err) : status;
}

/* ---- parameters (the same seeded values as the cpu backend) ------------------------ */

/* Conv weights (BN folded when the step has one) in the layout cuDNN reads:
 * KCRS for NCHW, KRSC for NHWC; the bias in float (params[2], the own
 * epilogue) and, for cuDNN's fused call, in the element type (params[1]). */
static sslat_status conv_params(cuda_program *p, cuda_step_state *st, const cuda_step *s, sslat_error *err)
{
    const sslat_node *node = &p->graph->nodes[s->main_node];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    size_t in_per_group = (size_t)(in.c / c->groups), k2 = (size_t)c->kernel * (size_t)c->kernel;
    size_t per_out = in_per_group * k2, count = (size_t)c->out_channels * per_out;
    float *w = malloc(count * sizeof *w + 1), *b = calloc((size_t)c->out_channels + 1, sizeof *b);
    if (!w || !b) {
        free(w), free(b);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for %zu weights", count);
    }
    sslat_fill_parameter(w, count, p->seed, s->main_node, SSLAT_ROLE_WEIGHTS, (int64_t)per_out);
    if (c->bias) sslat_fill_parameter(b, (size_t)c->out_channels, p->seed, s->main_node, SSLAT_ROLE_BIAS, 0);
    if (s->bn_node >= 0) {
        size_t n = (size_t)c->out_channels;
        float *stats = malloc(4 * n * sizeof *stats);
        if (!stats) {
            free(w), free(b);
            return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        }
        for (int role = 0; role < 4; role++)
            sslat_fill_parameter(stats + (size_t)role * n, n, p->seed, s->bn_node, SSLAT_ROLE_GAMMA + role, 0);
        for (size_t o = 0; o < n; o++) {
            float scale = stats[o] / sqrtf(stats[3 * n + o] + SSLAT_BN_EPSILON);
            for (size_t k = 0; k < per_out; k++) w[o * per_out + k] *= scale;
            b[o] = (b[o] - stats[2 * n + o]) * scale + stats[n + o];
        }
        free(stats);
    }
    if (p->nhwc) { /* KCRS → KRSC */
        float *t = malloc(count * sizeof *t + 1);
        if (!t) {
            free(w), free(b);
            return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        }
        for (size_t o = 0; o < (size_t)c->out_channels; o++)
            for (size_t ci = 0; ci < in_per_group; ci++)
                for (size_t r = 0; r < k2; r++) t[o * per_out + r * in_per_group + ci] = w[o * per_out + ci * k2 + r];
        free(w);
        w = t;
    }
    /* the bias in the element type for cuDNN's fused call or a fused graph,
     * in float for the own epilogue and kernel: both kept, as the choice
     * decides later which runs */
    bool fused_call = s->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT || s->call == CUDA_CALL_CUDNN_GRAPH_CONV;
    st->params[0] = add_converted(p, w, count, p->elem);
    if (s->bias && fused_call)
        st->params[1] = add_converted(p, b, (size_t)c->out_channels, p->elem);
    if (s->bias)
        st->params[2] = add_converted(p, b, (size_t)c->out_channels, SSLAT_ELEM_F32);
    free(w), free(b);
    if (st->params[0] < 0 || (s->bias && st->params[2] < 0) || (s->bias && fused_call && st->params[1] < 0))
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    return SSLAT_OK;
}

static sslat_status bn_params(cuda_program *p, cuda_step_state *st, const cuda_step *s, sslat_error *err)
{
    size_t n = (size_t)p->graph->nodes[s->main_node].shape.c;
    for (int role = 0; role < 4; role++) {
        float *v = malloc(n * sizeof *v + 1);
        if (!v) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        sslat_fill_parameter(v, n, p->seed, s->main_node, SSLAT_ROLE_GAMMA + role, 0);
        st->params[role] = add_param(p, v, n * sizeof *v); /* BN parameters stay float */
        if (st->params[role] < 0) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    return SSLAT_OK;
}

static sslat_status linear_params(cuda_program *p, cuda_step_state *st, const cuda_step *s, sslat_error *err)
{
    const sslat_node *node = &p->graph->nodes[s->main_node];
    const sslat_linear_params *l = sslat_node_linear(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    /* tokens: each token's channels; else the flattened input */
    size_t fan_in = in.tokens ? (size_t)in.c : (size_t)in.c * (size_t)in.h * (size_t)in.w;
    size_t count = (size_t)l->out_features * fan_in;
    float *w = malloc(count * sizeof *w + 1);
    if (!w) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for %zu weights", count);
    sslat_fill_parameter(w, count, p->seed, s->main_node, SSLAT_ROLE_WEIGHTS, (int64_t)fan_in);
    /* the 4-D tensor the columns come from, before any flatten (which is free: an alias) */
    sslat_shape source = cuda_linear_source_shape(p->graph, s->main_node);
    size_t hw = (size_t)source.h * (size_t)source.w;
    if (p->nhwc && hw > 1 && !source.tokens) { /* flattened in NHWC order: permute the columns to (h, w, c) */
        float *t = malloc(count * sizeof *t + 1);
        if (!t) {
            free(w);
            return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        }
        sslat_permute_linear_columns(w, t, (size_t)l->out_features, (size_t)source.c, hw);
        free(w);
        w = t;
    }
    st->params[0] = add_converted(p, w, count, p->elem);
    free(w);
    if (l->bias) {
        float *b = malloc((size_t)l->out_features * sizeof *b);
        if (b) sslat_fill_parameter(b, (size_t)l->out_features, p->seed, s->main_node, SSLAT_ROLE_BIAS, 0);
        /* as a convolution's: params[1] in the element type for cuBLASLt's epilogue (its default bias type:
         * D's), params[2] in float for the own epilogue (cublasGemmEx, cuBLASLt's fallback) */
        bool lt = s->call == CUDA_CALL_CUBLASLT_MATMUL;
        if (b && lt) st->params[1] = add_converted(p, b, (size_t)l->out_features, p->elem);
        st->params[2] = add_param(p, b, (size_t)l->out_features * sizeof(float));
        if (st->params[2] < 0 || (lt && st->params[1] < 0)) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    if (st->params[0] < 0) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    return SSLAT_OK;
}

/* Seeded float values of a node's parameter, kept in the element type (as_elem) or in float. */
static int32_t seeded(cuda_program *p, int32_t node, int role, int64_t fan_in, size_t count, bool as_elem)
{
    float *v = malloc(count * sizeof *v + 1);
    if (!v) return -1;
    sslat_fill_parameter(v, count, p->seed, node, role, fan_in);
    if (!as_elem) return add_param(p, v, count * sizeof *v);
    int32_t index = add_converted(p, v, count, p->elem);
    free(v);
    return index;
}

/* An attention's position bias as PyTorch's eval mode caches it: the table
 * (heads × L) gathered to heads × L × L in the element type, added to every
 * image's scores. */
static int32_t attention_bias(cuda_program *p, int32_t node_index)
{
    const sslat_node *node = &p->graph->nodes[node_index];
    int32_t H = sslat_node_attention(node)->heads, T = node->shape.h, index = -1;
    size_t count = (size_t)H * (size_t)T * (size_t)T;
    float *gathered = malloc(count * sizeof *gathered + 1);
    if (gathered && sslat_fill_attention_bias(gathered, H, T, p->seed, node_index))
        index = add_converted(p, gathered, count, p->elem);
    free(gathered);
    return index;
}

/* The parameters of the token steps: LayerNorm's and the layer scale's γ
 * and LayerNorm's β (float, as the kernels read them), the class token and position embedding (element type),
 * attention's scores and probabilities (N·heads·L² each, zeros: scratch) and its position bias (element type). */
static sslat_status token_params(cuda_program *p, cuda_step_state *st, const cuda_step *s, sslat_error *err)
{
    const sslat_node *node = &p->graph->nodes[s->main_node];
    sslat_shape out = node->shape;
    bool ok;
    if (s->kind == CUDA_STEP_LAYER_SCALE) {
        st->params[0] = seeded(p, s->main_node, SSLAT_ROLE_GAMMA, 0, (size_t)out.c, false);
        ok = st->params[0] >= 0;
    } else if (s->kind == CUDA_STEP_LAYERNORM) {
        st->params[0] = seeded(p, s->main_node, SSLAT_ROLE_GAMMA, 0, (size_t)out.c, false);
        st->params[1] = seeded(p, s->main_node, SSLAT_ROLE_BETA, 0, (size_t)out.c, false);
        ok = st->params[0] >= 0 && st->params[1] >= 0;
    } else if (s->kind == CUDA_STEP_CLASS_TOKEN) {
        st->params[0] = seeded(p, s->main_node, SSLAT_ROLE_WEIGHTS, 3, (size_t)out.c, true);
        ok = st->params[0] >= 0;
    } else if (s->kind == CUDA_STEP_POSITION_EMBED) {
        st->params[0] = seeded(p, s->main_node, SSLAT_ROLE_WEIGHTS, 3, (size_t)out.h * (size_t)out.c, true);
        ok = st->params[0] >= 0;
    } else {
        SSLAT_ASSERT(s->kind == CUDA_STEP_ATTENTION);
        size_t bytes = (size_t)out.n * (size_t)sslat_node_attention(node)->heads * (size_t)out.h * (size_t)out.h *
                       p->elem_size;
        st->params[0] = add_param(p, calloc(bytes + 1, 1), bytes);
        st->params[1] = add_param(p, calloc(bytes + 1, 1), bytes);
        ok = st->params[0] >= 0 && st->params[1] >= 0;
        if (ok && sslat_node_attention(node)->position_bias) {
            st->params[2] = attention_bias(p, s->main_node);
            ok = st->params[2] >= 0;
        }
    }
    return ok ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for the parameters of %s '%s'",
                                      sslat_op_name(node->op), node->name);
}

/* ---- descriptors ------------------------------------------------------------------------ */

static sslat_status act_desc(cudnnActivationDescriptor_t *d, int32_t act, sslat_error *err)
{
    cudnnActivationMode_t mode = act == SSLAT_ACT_RELU6 ? CUDNN_ACTIVATION_CLIPPED_RELU
                                 : act == SSLAT_ACT_SIGMOID ? CUDNN_ACTIVATION_SIGMOID
                                 : act == SSLAT_ACT_TANH    ? CUDNN_ACTIVATION_TANH
                                                            : CUDNN_ACTIVATION_RELU;
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateActivationDescriptor)(d));
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetActivationDescriptor)(*d, mode, CUDNN_NOT_PROPAGATE_NAN, 6.0));
    return SSLAT_OK;
}

static sslat_status step_init(cuda_program *p, int32_t k, sslat_error *err)
{
    const cuda_step *s = &p->plan.steps[k];
    cuda_step_state *st = &p->states[k];
    for (int i = 0; i < 4; i++) st->params[i] = -1;
    const sslat_node *node = &p->graph->nodes[s->main_node];
    sslat_shape out = node->shape, in = node->input[0] == SSLAT_NO_INPUT ? out : sslat_graph_shape_of(p->graph, node->input[0]);
    sslat_status status = SSLAT_OK;
    switch (s->kind) {
    case CUDA_STEP_CONV: {
        const sslat_conv_params *c = sslat_node_conv(node);
        st->choice = -1;
        /* the legacy descriptors, for the legacy API or its fallback; a
         * lopsided padding has none (the plan took it for the graph API only) */
        if (!sslat_pads_symmetric(sslat_conv_pads(c, in))) return conv_params(p, st, s, err);
        status = io_descs(st, p, in, out, err);
        if (status != SSLAT_OK) return status;
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateFilterDescriptor)(&st->w));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetFilter4dDescriptor)(st->w, cudnn_type(p->dtype),
                                                                  p->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                                  c->out_channels, in.c / c->groups, c->kernel, c->kernel));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateConvolutionDescriptor)(&st->conv));
        int32_t pad = sslat_conv_pads(c, in).top; /* symmetric: the plan refuses the rest */
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetConvolution2dDescriptor)(st->conv, pad, pad, c->stride, c->stride,
                                                                       c->dilation, c->dilation, CUDNN_CROSS_CORRELATION,
                                                                       CUDNN_DATA_FLOAT));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetConvolutionGroupCount)(st->conv, c->groups));
        st->math = math_of(p->dtype);
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetConvolutionMathType)(st->conv, st->math));
        st->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        if (s->call == CUDA_CALL_CUDNN_CONV_BIAS_ACT) {
            sslat_shape bias = {1, out.c, 1, 1, false};
            CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateTensorDescriptor)(&st->bias));
            CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetTensor4dDescriptor)(st->bias, CUDNN_TENSOR_NCHW, cudnn_type(p->dtype),
                                                                      bias.n, bias.c, bias.h, bias.w));
            status = act_desc(&st->act, s->act, err);
        }
        if (status == SSLAT_OK) status = conv_params(p, st, s, err);
        return status;
    }
    case CUDA_STEP_BATCHNORM:
        status = io_descs(st, p, in, out, err);
        if (status != SSLAT_OK) return status;
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreateTensorDescriptor)(&st->bn));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetTensor4dDescriptor)(st->bn, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, out.c, 1, 1));
        return bn_params(p, st, s, err);
    case CUDA_STEP_ACT:
        if (s->call != CUDA_CALL_CUDNN_ACT) return SSLAT_OK;
        status = io_descs(st, p, in, out, err);
        if (status == SSLAT_OK) status = act_desc(&st->act, s->act, err);
        return status;
    case CUDA_STEP_POOL: {
        const sslat_pool_params *pool = sslat_node_pool(node);
        status = io_descs(st, p, in, out, err);
        if (status != SSLAT_OK) return status;
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreatePoolingDescriptor)(&st->pool));
        CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetPooling2dDescriptor)(
                                   st->pool, node->op == SSLAT_OP_MAXPOOL ? CUDNN_POOLING_MAX
                                                                          : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                   CUDNN_NOT_PROPAGATE_NAN, pool->kernel, pool->kernel, pool->padding, pool->padding,
                                   pool->stride, pool->stride));
        return SSLAT_OK;
    }
    case CUDA_STEP_LINEAR:
        status = linear_params(p, st, s, err);
        return status == SSLAT_OK ? cuda_linear_prepare(p, k, err) : status;
    case CUDA_STEP_LAYERNORM: case CUDA_STEP_CLASS_TOKEN: case CUDA_STEP_POSITION_EMBED: case CUDA_STEP_ATTENTION:
    case CUDA_STEP_LAYER_SCALE:
        return token_params(p, st, s, err);
    case CUDA_STEP_TOKENS: case CUDA_STEP_TOKEN_POOL: case CUDA_STEP_LEAKY_RELU: case CUDA_STEP_IMAGE: return SSLAT_OK;
    /* own kernels and no-work steps: no descriptors */
    case CUDA_STEP_ADD: case CUDA_STEP_MUL_CHANNEL: case CUDA_STEP_GLOBAL_AVGPOOL: case CUDA_STEP_SHUFFLE:
    case CUDA_STEP_ALIAS: case CUDA_STEP_CONCAT: case CUDA_STEP_SLICE: case CUDA_STEP_UPSAMPLE:
    case CUDA_STEP_SPACE_TO_DEPTH: case CUDA_STEP_INPUT: return SSLAT_OK;
    }
    return SSLAT_OK;
}

/* ---- the program ---------------------------------------------------------------------------- */

sslat_status cuda_program_init(cuda_program *p, cuda_session *session, const sslat_graph *graph,
                               const sslat_calc_options *o, sslat_error *err)
{
    memset(p, 0, sizeof *p);
    p->session = session;
    p->graph = graph;
    p->dtype = o->dtype;
    p->elem = o->dtype == SSLAT_DTYPE_FP16 ? SSLAT_ELEM_F16 : o->dtype == SSLAT_DTYPE_BF16 ? SSLAT_ELEM_BF16 : SSLAT_ELEM_F32;
    p->elem_size = p->elem == SSLAT_ELEM_F32 ? 4 : 2;
    p->nhwc = sslat_layout_resolve(o->layout, o->dtype) == SSLAT_LAYOUT_NHWC;
    p->seed = o->seed;
    p->api = sslat_cudnn_api_resolve(o->cuda.api);
    p->mode = o->mode;
    p->n_values = graph->count + 1;
    /* cuDNN's and the device's limits before any descriptor or allocation */
    size_t free_bytes = 0, total = 0;
    sslat_status status = cuda_check_runtime(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo", __FILE__, __LINE__, err);
    if (status == SSLAT_OK) status = cuda_check_sizes(graph, p->elem_size, free_bytes, err);
    if (status != SSLAT_OK) {
        p->session = NULL; /* nothing to synchronise or free */
        return status;
    }
    const char *tf32 = sslat_cuda_tf32_refusal(o->dtype);
    if (tf32) {
        p->session = NULL;
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "%s", tf32);
    }
    status = cuda_plan_build(graph, o->mode, p->api, &p->plan, err);
    if (status != SSLAT_OK) return status;
    if (p->session->cublaslt) cuda_plan_use_cublaslt(&p->plan);
    p->states = calloc((size_t)p->plan.count + 1, sizeof *p->states);
    p->value_bytes = calloc((size_t)p->n_values, sizeof *p->value_bytes);
    p->value_alias = calloc((size_t)p->n_values, sizeof *p->value_alias);
    if (!p->states || !p->value_bytes || !p->value_alias) {
        cuda_program_release(p);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t v = 0; v < p->n_values; v++) p->value_alias[v] = v;
    p->value_bytes[0] = (size_t)sslat_shape_elements(graph->input) * p->elem_size;
    for (int32_t k = 0; status == SSLAT_OK && k < p->plan.count; k++) {
        const cuda_step *s = &p->plan.steps[k];
        int32_t v = value_of(s->node);
        /* NHWC bytes of an image are its tokens' bytes: x.flatten(2).transpose(1, 2) and its way back are free, as
         * in PyTorch's channels_last */
        if (s->kind == CUDA_STEP_ALIAS || ((s->kind == CUDA_STEP_TOKENS || s->kind == CUDA_STEP_IMAGE) && p->nhwc))
            p->value_alias[v] = p->value_alias[value_of(s->input[0])];
        else p->value_bytes[v] = (size_t)sslat_shape_elements(shape_of(p, v)) * p->elem_size;
        status = step_init(p, k, err);
    }
    if (status != SSLAT_OK) {
        cuda_program_release(p);
        return status;
    }
    return SSLAT_OK;
}

void cuda_program_release(cuda_program *p)
{
    if (p->session && p->session->stream) cudaStreamSynchronize(p->session->stream);
    for (size_t i = 0; p->packs && i < (size_t)p->packed_copies * (size_t)p->plan.count; i++) cuda_graph_destroy(p->packs[i]);
    free(p->packs);
    for (int32_t k = 0; p->states && k < p->plan.count; k++) {
        cuda_step_state *st = &p->states[k];
        if (st->x) CUDNN(cudnnDestroyTensorDescriptor)(st->x);
        if (st->y) CUDNN(cudnnDestroyTensorDescriptor)(st->y);
        if (st->bias) CUDNN(cudnnDestroyTensorDescriptor)(st->bias);
        if (st->bn) CUDNN(cudnnDestroyTensorDescriptor)(st->bn);
        if (st->w) CUDNN(cudnnDestroyFilterDescriptor)(st->w);
        if (st->conv) CUDNN(cudnnDestroyConvolutionDescriptor)(st->conv);
        if (st->act) CUDNN(cudnnDestroyActivationDescriptor)(st->act);
        if (st->pool) CUDNN(cudnnDestroyPoolingDescriptor)(st->pool);
        cuda_linear_release(st);
    }
    for (int32_t i = 0; p->slabs && i < p->n_slabs; i++) cudaFree(p->slabs[i]);
    free(p->slabs);
    for (int32_t i = 0; i < p->n_params; i++) free(p->params[i].host);
    free(p->params);
    free(p->values);
    free(p->param_buffers);
    free(p->states);
    free(p->value_bytes);
    free(p->value_alias);
    cuda_plan_release(&p->plan);
    memset(p, 0, sizeof *p);
}

static size_t aligned(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Each copy is one stretch of a slab: its values, then its parameters,
 * 256-byte aligned. The copies a call adds share one allocation (a unit
 * makes two: copy 0 for the choice, then the rest for the measurement), as
 * cudaMalloc and cudaFree cost host time and cudaFree synchronizes the device.
 * Copy 0's parameters come from the host; later copies are device copies of them. */
sslat_status cuda_program_allocate(cuda_program *p, int32_t copies, sslat_error *err)
{
    if (copies <= p->copies) return SSLAT_OK;
    void **values = realloc(p->values, (size_t)copies * (size_t)p->n_values * sizeof *values);
    if (!values) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    p->values = values;
    void **params = realloc(p->param_buffers, (size_t)copies * (size_t)p->n_params * sizeof *params + 1);
    if (!params) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    p->param_buffers = params;
    void **slabs = realloc(p->slabs, ((size_t)p->n_slabs + 1) * sizeof *slabs);
    if (!slabs) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    p->slabs = slabs;
    size_t value_part = 0, param_part = 0;
    for (int32_t v = 0; v < p->n_values; v++) value_part += aligned(p->value_bytes[v]);
    for (int32_t i = 0; i < p->n_params; i++) param_part += aligned(p->params[i].bytes);
    p->copy_bytes = value_part + param_part;
    cudaStream_t stream = p->session->stream;
    uint8_t *slab = NULL;
    CUDA_RETURN_IF_FAILED(err, runtime,
                          cudaMalloc((void **)&slab, (size_t)(copies - p->copies) * p->copy_bytes + 1));
    p->slabs[p->n_slabs++] = slab; /* release frees it */
    const int32_t first = p->copies;
    for (int32_t copy = first; copy < copies; copy++) {
        void **row = p->values + (size_t)copy * (size_t)p->n_values, **prow = p->param_buffers + (size_t)copy * (size_t)p->n_params;
        p->copies = copy + 1; /* its buffers are allocated (in the slab): release and the packs count it */
        uint8_t *at = slab + (size_t)(copy - first) * p->copy_bytes;
        for (int32_t v = 0; v < p->n_values; v++) {
            row[v] = p->value_bytes[v] ? at : NULL;
            at += aligned(p->value_bytes[v]);
        }
        for (int32_t v = 0; v < p->n_values; v++)
            if (p->value_alias[v] != v) row[v] = row[p->value_alias[v]];
        uint8_t *first_params = at;
        for (int32_t i = 0; i < p->n_params; i++) {
            prow[i] = at;
            if (copy == 0)
                CUDA_RETURN_IF_FAILED(err, runtime, cudaMemcpyAsync(at, p->params[i].host, p->params[i].bytes, cudaMemcpyHostToDevice, stream));
            at += aligned(p->params[i].bytes);
        }
        if (copy > 0 && param_part)
            CUDA_RETURN_IF_FAILED(err, runtime, cudaMemcpyAsync(first_params, p->param_buffers[0], param_part, cudaMemcpyDeviceToDevice,
                                                     stream));
        /* the input: node -1, role = the copy, in [-1, 1] (never zeros), each
         * element the value of its logical NCHW index in either layout */
        sslat_shape in = p->graph->input;
        cudaError_t code = sslat_cuda_fill_tensor(p->elem, p->nhwc && !in.tokens, row[0], (size_t)sslat_shape_elements(in), (size_t)in.c,
                                          (size_t)in.h * (size_t)in.w, sslat_fill_stream(p->seed, -1, copy), -1.0f,
                                          1.0f, stream);
        CUDA_RETURN_IF_FAILED(err, runtime, code);
        /* a layer's other sources (input nodes): the same, with their node's stream */
        for (int32_t k = 0; k < p->plan.count; k++) {
            const cuda_step *step = &p->plan.steps[k];
            if (step->kind != CUDA_STEP_INPUT) continue;
            sslat_shape s = p->graph->nodes[step->node].shape;
            code = sslat_cuda_fill_tensor(p->elem, p->nhwc && !s.tokens, row[value_of(step->node)], (size_t)sslat_shape_elements(s),
                                          (size_t)s.c, (size_t)s.h * (size_t)s.w,
                                          sslat_fill_stream(p->seed, step->node, copy), -1.0f, 1.0f, stream);
            CUDA_RETURN_IF_FAILED(err, runtime, code);
        }
    }
    CUDA_RETURN_IF_FAILED(err, runtime, cudaStreamSynchronize(stream));
    return p->algorithms_chosen ? cuda_program_pack(p, err) : SSLAT_OK;
}

sslat_status cuda_program_step_pack(const cuda_program *p, int32_t k, int32_t copy, const cuda_graph_conv *graph,
                                    cudnnBackendDescriptor_t *pack, sslat_error *err)
{
    const cuda_step *step = &p->plan.steps[k];
    const cuda_step_state *st = &p->states[k];
    cuda_graph_buffers buffers = {
        .x = buffer_of(p, copy, value_of(step->input[0])),
        .y = buffer_of(p, copy, value_of(step->node)),
        .w = param_of(p, copy, st->params[0]),
        .bias = graph->bias ? param_of(p, copy, st->params[1]) : NULL,
        .residual = graph->residual ? buffer_of(p, copy, value_of(step->residual)) : NULL,
    };
    return cuda_graph_pack(graph, &buffers, p->session->workspace, pack, err);
}

sslat_status cuda_program_pack(cuda_program *p, sslat_error *err)
{
    /* packs name the session's workspace: it must not move under a program (one program is chosen and measured
     * at a time; choosing grows the workspace before the packs are made) */
    SSLAT_ASSERT(!p->packs || p->packs_workspace == p->session->workspace);
    if (p->packed_copies >= p->copies) return SSLAT_OK;
    size_t steps = (size_t)p->plan.count;
    cudnnBackendDescriptor_t *packs = realloc(p->packs, (size_t)p->copies * steps * sizeof *packs + 1);
    if (!packs) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    p->packs = packs;
    memset(packs + (size_t)p->packed_copies * steps, 0, (size_t)(p->copies - p->packed_copies) * steps * sizeof *packs);
    p->packs_workspace = p->session->workspace;
    for (int32_t copy = p->packed_copies; copy < p->copies; copy++) {
        p->packed_copies = copy + 1; /* release destroys what is made so far */
        for (int32_t k = 0; k < p->plan.count; k++) {
            if (!p->states[k].graph) continue;
            sslat_status status = cuda_program_step_pack(p, k, copy, &p->states[k].graph->conv,
                                                         &packs[(size_t)copy * steps + (size_t)k], err);
            if (status != SSLAT_OK) return status;
        }
    }
    return SSLAT_OK;
}

static const char *const ALGO_NAMES[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                         "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};

static const char *math_name(int math)
{
    return math == CUDNN_TENSOR_OP_MATH                       ? "tensor_op"
           : math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ? "tensor_op+conversion"
           : math == CUDNN_FMA_MATH                        ? "fma"
                                                           : "default";
}

/* "-" for a candidate that was not one (or did not run), else its time. */
static void candidate_ms(double ms, char *out, size_t size)
{
    if (ms < 0) snprintf(out, size, "-");
    else snprintf(out, size, "%.4f ms", ms);
}

/* A graph-API decision: what runs (a plain or fused plan's engine, or the
 * own depthwise kernel), the candidates' times beside each other, how the
 * engine was chosen, and whether the decision came from the selection cache. */
static size_t describe_graph_choice(const cuda_program *p, int32_t k, const cuda_conv_choice *choice, char *buffer,
                                    size_t capacity, size_t used)
{
    const cuda_graph_census *c = &choice->census;
    bool fused = choice->route == CUDA_ROUTE_GRAPH_FUSED; /* the figures of the graph whose plan runs */
    char plain[32], fused_text[32], own[32];
    candidate_ms(c->plain_total_ms, plain, sizeof plain);
    candidate_ms(c->fused_ms, fused_text, sizeof fused_text);
    candidate_ms(c->own_ms, own, sizeof own);
    int n;
    if (choice->route == CUDA_ROUTE_OWN_DEPTHWISE) {
        n = snprintf(buffer + used, capacity - used, " | conv %d: own_depthwise (sslat_depthwise with its epilogue)",
                     p->plan.steps[k].main_node);
    } else {
        char tag[256], notes[128];
        cuda_engine_tag(&choice->engine, tag, sizeof tag);
        cuda_engine_notes(&choice->engine, notes, sizeof notes);
        n = snprintf(buffer + used, capacity - used, " | conv %d: %s %s%s, ws %zu B, notes %s",
                     p->plan.steps[k].main_node, cuda_route_name(choice->route), tag,
                     choice->engine.fallback && !choice->from_disk ? " (fallback list)" : "", choice->workspace,
                     notes[0] ? notes : "none");
        if (n > 0) used += (size_t)n;
        n = 0;
        if (!choice->from_disk && used < capacity) /* how the autotune of this run chose it */
            n = snprintf(buffer + used, capacity - used,
                         ", rank %d of %d timed (%.4f ms; the first %.4f ms), %d configs (%d refused for %s, %d not "
                         "finalized or run), finalize %.1f ms (runtime-compiled %.1f ms)",
                         c->rank + 1, fused ? c->fused_timed : c->timed, c->winner_ms, c->first_ms,
                         fused ? c->fused_configs : c->configs, fused ? c->fused_refused : c->refused,
                         sslat_dtype_name(p->dtype), fused ? c->fused_unfinalized : c->unfinalized, c->finalize_ms,
                         c->compile_ms);
    }
    if (n > 0) used += (size_t)n;
    if (used >= capacity) return used;
    if (choice->from_disk) n = snprintf(buffer + used, capacity - used, ", from the selection cache");
    else n = snprintf(buffer + used, capacity - used, "; candidates: plain%s %s, fused graph %s (%d configs), own "
                      "depthwise %s", p->plan.steps[k].epilogue ? "+epilogue" : "", plain, fused_text, c->fused_configs, own);
    if (n > 0) used += (size_t)n;
    return used;
}

void cuda_program_describe(const cuda_program *p, char *buffer, size_t capacity)
{
    int *routes = calloc((size_t)p->plan.count + 1, sizeof *routes); /* NULL: the plan alone */
    for (int32_t k = 0; routes && k < p->plan.count; k++) routes[k] = (int)p->states[k].route;
    size_t used = cuda_plan_describe(&p->plan, routes, buffer, capacity);
    free(routes);
    if (used < capacity) {
        int n = snprintf(buffer + used, capacity - used, " | copies %d", p->copies);
        if (n > 0) used += (size_t)n;
    }
    for (int32_t k = 0; k < p->plan.count && used < capacity; k++) {
        const cuda_step_state *st = &p->states[k];
        if (p->plan.steps[k].kind != CUDA_STEP_CONV) continue;
        const cuda_conv_choice *choice = st->choice >= 0 ? &p->session->find_cache.items[st->choice] : NULL;
        int n;
        if (st->route != CUDA_ROUTE_LEGACY) {
            used = describe_graph_choice(p, k, choice, buffer, capacity, used);
            continue;
        }
        n = snprintf(buffer + used, capacity - used, " | conv %d: %s, ws %zu B, %s%s%s", p->plan.steps[k].main_node,
                     (unsigned)st->algo < 8 ? ALGO_NAMES[st->algo] : "?", st->workspace, math_name(st->math),
                     st->fallback ? ", fused call refused: conv + sslat_epilogue" : "",
                     st->fma_forced ? ", FMA set (Find reported none)" : "");
        if (n > 0) used += (size_t)n;
        /* every math type Find reported for a successful algorithm (a reporting quirk shows here) */
        for (int math = 0; math < 8 && used < capacity; math++) {
            if (!(st->reported_maths & (1 << math))) continue;
            bool first = (st->reported_maths & ((1 << math) - 1)) == 0;
            n = snprintf(buffer + used, capacity - used, "%s%s", first ? ", Find reported " : "+", math_name(math));
            if (n > 0) used += (size_t)n;
        }
        if (choice && choice->legacy_reason[0] && used < capacity) {
            n = snprintf(buffer + used, capacity - used, ", legacy API: %s", choice->legacy_reason);
            if (n > 0) used += (size_t)n;
        }
        if (choice && choice->from_disk && used < capacity) {
            n = snprintf(buffer + used, capacity - used, ", from the selection cache");
            if (n > 0) used += (size_t)n;
        }
    }
}
