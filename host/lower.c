/* One IR op (or, in fused mode, a conv → BN → act → add → act run) at a time
 * into oneDNN primitives. Layouts are oneDNN's choice (format_tag_any); a
 * tensor in another layout than a primitive wants is reordered, once for the
 * program input and weights (the prologue), inside the timing otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "host/lower.h"


typedef struct lowering {
    host_program *p;
    const sslat_graph *g;
    int *tensor_of;  /* program tensor of each node */
    int *consumers;  /* readers of each node (+1 for the graph output) */
    int input;       /* program tensor of the graph input */
    const int *sources; /* program tensors of the input nodes (sources[k] for the k-th), or NULL */
    int n_sources;
    int inputs_seen;
    sslat_error *err;
} lowering;

static int tensor_at(const lowering *L, int32_t node)
{
    return node == SSLAT_GRAPH_INPUT ? L->input : L->tensor_of[node];
}

static int32_t global_node(const lowering *L, int32_t node) { return L->p->nodes_seen + node; }

static const dnnl_memory_desc_t *md_of(const lowering *L, int tensor)
{
    return &L->p->tensors[tensor].md;
}

/* ---- parameters ------------------------------------------------------------------ */

/* A plain (user-layout) memory filled with a node's parameter values. */
static sslat_status parameter(lowering *L, const dnnl_dims_t dims, int ndims, dnnl_format_tag_t tag,
                              int32_t node, int role, int64_t fan_in, dnnl_memory_t *out, float **data)
{
    sslat_error *err = L->err;
    dnnl_memory_desc_t md;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&md, ndims, dims, dnnl_f32, tag));
    sslat_status status = host_program_memory(L->p, &md, out, err);
    if (status != SSLAT_OK) return status;
    void *handle = NULL;
    DNNL(dnnl_memory_get_data_handle)(*out, &handle);
    size_t count = DNNL(dnnl_memory_desc_get_size)(&md) / sizeof(float);
    sslat_fill_parameter(handle, count, L->p->seed, global_node(L, node), role, fan_in);
    if (data) *data = handle;
    return SSLAT_OK;
}

/* Weights in the layout the primitive wants: reordered once, in the prologue. */
static sslat_status weights_for(lowering *L, dnnl_memory_t user, const dnnl_memory_desc_t *wanted,
                                dnnl_memory_t *out)
{
    const dnnl_memory_desc_t *have = NULL;
    DNNL(dnnl_memory_get_memory_desc)(user, &have);
    if (DNNL(dnnl_memory_desc_equal)(have, wanted)) {
        *out = user;
        return SSLAT_OK;
    }
    sslat_status status = host_program_memory(L->p, wanted, out, L->err);
    if (status == SSLAT_OK) status = host_program_reorder(L->p, user, have, *out, wanted, false, L->err);
    return status;
}

/* ---- activations ------------------------------------------------------------------ */

/* An activation as oneDNN eltwise algorithms: hsigmoid has no single one in
 * oneDNN 2.6, so it is linear(x/6 + 1/2) then clip(0, 1). */
typedef struct eltwise_step {
    dnnl_alg_kind_t alg;
    float alpha, beta;
} eltwise_step;

static int act_steps(sslat_act_kind act, eltwise_step steps[2])
{
    switch (act) {
    case SSLAT_ACT_RELU: steps[0] = (eltwise_step){dnnl_eltwise_relu, 0, 0}; return 1;
    case SSLAT_ACT_RELU6: steps[0] = (eltwise_step){dnnl_eltwise_clip, 0, 6}; return 1;
    case SSLAT_ACT_HSWISH: steps[0] = (eltwise_step){dnnl_eltwise_hardswish, 0, 0}; return 1;
    case SSLAT_ACT_HSIGMOID:
        steps[0] = (eltwise_step){dnnl_eltwise_linear, 1.0f / 6.0f, 0.5f};
        steps[1] = (eltwise_step){dnnl_eltwise_clip, 0, 1};
        return 2;
    case SSLAT_ACT_SIGMOID: steps[0] = (eltwise_step){dnnl_eltwise_logistic, 0, 0}; return 1;
    case SSLAT_ACT_SILU: steps[0] = (eltwise_step){dnnl_eltwise_swish, 1, 0}; return 1;
    case SSLAT_ACT_GELU: steps[0] = (eltwise_step){dnnl_eltwise_gelu_erf, 0, 0}; return 1;
    case SSLAT_ACT_TANH: steps[0] = (eltwise_step){dnnl_eltwise_tanh, 0, 0}; return 1;
    case SSLAT_ACT_GELU_TANH: steps[0] = (eltwise_step){dnnl_eltwise_gelu_tanh, 0, 0}; return 1;
    case SSLAT_ACT_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown activation");
}

/* Create a primitive for op_desc on src, with dst in the layout the primitive
 * picks; returns the new tensor. */
static sslat_status simple_primitive(lowering *L, const_dnnl_op_desc_t desc, const dnnl_exec_arg_t *extra,
                                     int n_extra, int src, int src_arg, sslat_shape shape, int *out)
{
    sslat_error *err = L->err;
    dnnl_primitive_desc_t pd = NULL;
    sslat_status status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_primitive_desc_create)(&pd, desc, NULL, L->p->session->engine, NULL));
    status = host_program_tensor(L->p, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0), NULL,
                                 shape, out, err);
    if (status == SSLAT_OK) {
        dnnl_exec_arg_t args[8];
        int n = 0;
        args[n++] = (dnnl_exec_arg_t){src_arg, L->p->tensors[src].memory};
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->p->tensors[*out].memory};
        for (int i = 0; i < n_extra; i++) args[n++] = extra[i];
        status = host_program_step(L->p, true, pd, args, n, err);
    }
    DNNL(dnnl_primitive_desc_destroy)(pd);
    return status;
}

static sslat_status lower_act(lowering *L, int src, sslat_act_kind act, sslat_shape shape, int *out)
{
    sslat_error *err = L->err;
    eltwise_step steps[2];
    int n = act_steps(act, steps);
    int at = src;
    for (int i = 0; i < n; i++) {
        dnnl_eltwise_desc_t d;
        DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_eltwise_forward_desc_init)(&d, dnnl_forward_inference, steps[i].alg,
                                                                  md_of(L, at), steps[i].alpha, steps[i].beta));
        sslat_status status = simple_primitive(L, &d, NULL, 0, at, DNNL_ARG_SRC, shape, &at);
        if (status != SSLAT_OK) return status;
    }
    *out = at;
    return SSLAT_OK;
}

/* ---- batch norm --------------------------------------------------------------------- */

static sslat_status lower_batchnorm(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    sslat_shape shape = L->g->nodes[node].shape;
    dnnl_batch_normalization_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_batch_normalization_forward_desc_init)(
                             &d, dnnl_forward_inference, md_of(L, src), SSLAT_BN_EPSILON,
                             dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift));
    dnnl_dims_t c = {shape.c};
    dnnl_memory_t scale, shift, mean, variance;
    sslat_status status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_GAMMA, 0, &scale, NULL);
    if (status == SSLAT_OK) status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_BETA, 0, &shift, NULL);
    if (status == SSLAT_OK) status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_MEAN, 0, &mean, NULL);
    if (status == SSLAT_OK) status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_VARIANCE, 0, &variance, NULL);
    if (status != SSLAT_OK) return status;
    dnnl_exec_arg_t extra[4] = {{DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift},
                                {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, variance}};
    return simple_primitive(L, &d, extra, 4, src, DNNL_ARG_SRC, shape, out);
}

/* ---- convolution (with the fused run) ------------------------------------------------- */

typedef struct conv_run {
    int32_t conv, bn;          /* node indices; bn -1 when not folded */
    int32_t last;              /* the last node the primitive computes */
    sslat_act_kind acts[4];    /* activations before the add */
    int n_acts;
    int32_t add_other;         /* the residual's other input (node index), or SSLAT_NO_INPUT */
    sslat_act_kind post_acts[4];
    int n_post_acts;
} conv_run;

static bool single_reader(const lowering *L, int32_t node) { return L->consumers[node] == 1; }

/* In fused mode, how far the run starting at conv i goes. */
static conv_run find_run(const lowering *L, int32_t i)
{
    conv_run r = {i, -1, i, {0}, 0, SSLAT_NO_INPUT, {0}, 0};
    if (L->p->lowering.mode != SSLAT_MODE_FUSED) return r;
    const sslat_graph *g = L->g;
    int32_t j = i + 1;
    if (j < g->count && g->nodes[j].op == SSLAT_OP_BATCHNORM && g->nodes[j].input[0] == r.last &&
        single_reader(L, r.last)) {
        r.bn = j;
        r.last = j++;
    }
    while (j < g->count && r.n_acts < 4 && g->nodes[j].op == SSLAT_OP_ACT &&
           g->nodes[j].input[0] == r.last && single_reader(L, r.last)) {
        r.acts[r.n_acts++] = g->nodes[j].params.act;
        r.last = j++;
    }
    if (L->p->lowering.residual != HOST_RESIDUAL_SEPARATE && j < g->count && g->nodes[j].op == SSLAT_OP_ADD &&
        single_reader(L, r.last)) {
        const sslat_node *add = &g->nodes[j];
        int32_t other = add->input[0] == r.last ? add->input[1] : add->input[1] == r.last ? add->input[0] : SSLAT_NO_INPUT;
        if (other != SSLAT_NO_INPUT && other < i) { /* computed before the conv */
            r.add_other = other;
            r.last = j++;
            while (j < g->count && r.n_post_acts < 4 && g->nodes[j].op == SSLAT_OP_ACT &&
                   g->nodes[j].input[0] == r.last && single_reader(L, r.last)) {
                r.post_acts[r.n_post_acts++] = g->nodes[j].params.act;
                r.last = j++;
            }
        }
    }
    return r;
}

static sslat_status append_acts(const lowering *L, dnnl_post_ops_t po, const sslat_act_kind *acts, int n)
{
    sslat_error *err = L->err;
    for (int a = 0; a < n; a++) {
        eltwise_step steps[2];
        int k = act_steps(acts[a], steps);
        for (int s = 0; s < k; s++)
            DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_post_ops_append_eltwise)(po, 1.0f, steps[s].alg, steps[s].alpha, steps[s].beta));
    }
    return SSLAT_OK;
}

/* The conv primitive desc for the run: dst_md NULL lets oneDNN pick the layout;
 * add_md is the residual's layout, read by the binary post-op (or, with the
 * sum post-op, already copied into dst). */
static sslat_status conv_pd(lowering *L, const conv_run *r, const dnnl_memory_desc_t *dst_md,
                            const dnnl_memory_desc_t *add_md, dnnl_primitive_desc_t *pd)
{
    sslat_error *err = L->err;
    const sslat_node *node = &L->g->nodes[r->conv];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(L->g, node->input[0]), out = node->shape;
    bool bias = c->bias || r->bn >= 0;
    dnnl_memory_desc_t src, weights, bias_md, dst;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_convolution_desc_t d;
    sslat_status status = SSLAT_OK;
    dnnl_dims_t src_dims = {in.n, in.c, in.h, in.w}, dst_dims = {out.n, out.c, out.h, out.w};
    dnnl_dims_t w_dims = {c->groups, c->out_channels / c->groups, in.c / c->groups, c->kernel, c->kernel};
    dnnl_dims_t w_plain = {c->out_channels, in.c, c->kernel, c->kernel}, b_dims = {c->out_channels};
    dnnl_dims_t strides = {c->stride, c->stride}, dilates = {c->dilation - 1, c->dilation - 1};
    sslat_pads pads = sslat_conv_pads(c, in);
    dnnl_dims_t padding = {pads.top, pads.left}, padding_end = {pads.bottom, pads.right};
    status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&src, 4, src_dims, dnnl_f32, dnnl_format_tag_any));
    if (status == SSLAT_OK && c->groups > 1)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&weights, 5, w_dims, dnnl_f32, dnnl_format_tag_any));
    else if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&weights, 4, w_plain, dnnl_f32, dnnl_format_tag_any));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&bias_md, 1, b_dims, dnnl_f32, dnnl_x));
    if (dst_md) dst = *dst_md;
    else if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&dst, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_dilated_convolution_forward_desc_init)(
                                    &d, dnnl_forward_inference, dnnl_convolution_direct, &src, &weights,
                                    bias ? &bias_md : NULL, &dst, strides, dilates, padding, padding_end));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_primitive_attr_create)(&attr));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_post_ops_create)(&po));
    if (status == SSLAT_OK) status = append_acts(L, po, r->acts, r->n_acts);
    if (status == SSLAT_OK && add_md && L->p->lowering.residual == HOST_RESIDUAL_SUM_POST_OP)
        status = HOST_DNNL(err, DNNL(dnnl_post_ops_append_sum)(po, 1.0f));
    else if (status == SSLAT_OK && add_md)
        status = HOST_DNNL(err, DNNL(dnnl_post_ops_append_binary)(po, dnnl_binary_add, add_md));
    if (status == SSLAT_OK && add_md) status = append_acts(L, po, r->post_acts, r->n_post_acts);
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_primitive_attr_set_post_ops)(attr, po));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_primitive_desc_create)(pd, &d, attr, L->p->session->engine, NULL));
    /* what this function made, whether or not it went well */
    if (po) DNNL(dnnl_post_ops_destroy)(po);
    if (attr) DNNL(dnnl_primitive_attr_destroy)(attr);
    return status;
}

/* Weights and bias of the run; with a folded BN, w·γ/√(σ²+ε) and (b−μ)·γ/√(σ²+ε)+β. */
static sslat_status conv_parameters(lowering *L, const conv_run *r, const_dnnl_primitive_desc_t pd,
                                    dnnl_memory_t *weights, dnnl_memory_t *bias)
{
    const sslat_node *node = &L->g->nodes[r->conv];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(L->g, node->input[0]);
    int64_t per_out = (int64_t)(in.c / c->groups) * c->kernel * c->kernel;
    dnnl_dims_t w_dims = {c->groups, c->out_channels / c->groups, in.c / c->groups, c->kernel, c->kernel};
    dnnl_dims_t w_plain = {c->out_channels, in.c, c->kernel, c->kernel}, b_dims = {c->out_channels};
    dnnl_memory_t user = NULL;
    float *w = NULL, *b = NULL;
    sslat_status status = c->groups > 1
        ? parameter(L, w_dims, 5, dnnl_goihw, r->conv, SSLAT_ROLE_WEIGHTS, per_out, &user, &w)
        : parameter(L, w_plain, 4, dnnl_oihw, r->conv, SSLAT_ROLE_WEIGHTS, per_out, &user, &w);
    *bias = NULL;
    if (status == SSLAT_OK && (c->bias || r->bn >= 0)) {
        status = parameter(L, b_dims, 1, dnnl_x, r->conv, SSLAT_ROLE_BIAS, 0, bias, &b);
        if (status == SSLAT_OK && !c->bias) memset(b, 0, (size_t)c->out_channels * sizeof *b);
    }
    if (status == SSLAT_OK && r->bn >= 0) {
        size_t n = (size_t)c->out_channels;
        float *stats = malloc(4 * n * sizeof *stats);
        if (!stats) return sslat_fail(L->err, SSLAT_ERR_NOMEM, "out of memory");
        int32_t bn = global_node(L, r->bn);
        sslat_fill_parameter(stats, n, L->p->seed, bn, SSLAT_ROLE_GAMMA, 0);
        sslat_fill_parameter(stats + n, n, L->p->seed, bn, SSLAT_ROLE_BETA, 0);
        sslat_fill_parameter(stats + 2 * n, n, L->p->seed, bn, SSLAT_ROLE_MEAN, 0);
        sslat_fill_parameter(stats + 3 * n, n, L->p->seed, bn, SSLAT_ROLE_VARIANCE, 0);
        for (size_t o = 0; o < n; o++) {
            float scale = stats[o] / sqrtf(stats[3 * n + o] + SSLAT_BN_EPSILON);
            for (int64_t k = 0; k < per_out; k++) w[o * (size_t)per_out + (size_t)k] *= scale;
            b[o] = (b[o] - stats[2 * n + o]) * scale + stats[n + o];
        }
        free(stats);
    }
    if (status == SSLAT_OK)
        status = weights_for(L, user, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0), weights);
    return status;
}

static sslat_status lower_conv(lowering *L, int32_t i, int32_t *last)
{
    conv_run r = find_run(L, i);
    sslat_error *err = L->err;
    dnnl_primitive_desc_t pd = NULL;
    int src = tensor_at(L, L->g->nodes[i].input[0]), other = -1, out = -1;
    sslat_status status = conv_pd(L, &r, NULL, NULL, &pd);
    if (status == SSLAT_OK && r.add_other != SSLAT_NO_INPUT) {
        /* the residual must be in the conv's output layout: pick that first */
        dnnl_memory_desc_t dst = *DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0);
        DNNL(dnnl_primitive_desc_destroy)(pd);
        pd = NULL;
        if (L->p->lowering.residual == HOST_RESIDUAL_SUM_POST_OP)
            other = tensor_at(L, r.add_other); /* converted on its copy into dst, below */
        else
            status = host_program_layout(L->p, tensor_at(L, r.add_other), &dst, &other, err);
        if (status == SSLAT_OK) status = conv_pd(L, &r, &dst, &dst, &pd);
    }
    if (status != SSLAT_OK) {
        if (pd) DNNL(dnnl_primitive_desc_destroy)(pd);
        return status;
    }
    dnnl_memory_t weights = NULL, bias = NULL;
    status = host_program_layout(L->p, src, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_src_md, 0), &src, err);
    if (status == SSLAT_OK) status = conv_parameters(L, &r, pd, &weights, &bias);
    if (status == SSLAT_OK)
        status = host_program_tensor(L->p, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0), NULL,
                                     L->g->nodes[r.last].shape, &out, err);
    bool sum = other >= 0 && L->p->lowering.residual == HOST_RESIDUAL_SUM_POST_OP;
    if (status == SSLAT_OK && sum) /* the sum post-op accumulates onto dst: start it as the residual */
        status = host_program_reorder(L->p, L->p->tensors[other].memory, md_of(L, other), L->p->tensors[out].memory,
                                      md_of(L, out), true, err);
    if (status == SSLAT_OK) {
        dnnl_exec_arg_t args[5];
        int n = 0;
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, L->p->tensors[src].memory};
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, weights};
        if (bias) args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bias};
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->p->tensors[out].memory};
        if (other >= 0 && !sum) {
            int binary_index = 0; /* position of the binary post-op in the chain */
            for (int a = 0; a < r.n_acts; a++) binary_index += r.acts[a] == SSLAT_ACT_HSIGMOID ? 2 : 1;
            args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(binary_index) | DNNL_ARG_SRC_1,
                                          L->p->tensors[other].memory};
        }
        status = host_program_step(L->p, true, pd, args, n, err);
    }
    DNNL(dnnl_primitive_desc_destroy)(pd);
    for (int32_t k = i; k <= r.last; k++) L->tensor_of[k] = out;
    *last = r.last;
    return status;
}

/* ---- the other ops ---------------------------------------------------------------------- */

static sslat_status lower_binary(lowering *L, int32_t node, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    int a = tensor_at(L, n->input[0]), b = tensor_at(L, n->input[1]);
    sslat_status status = SSLAT_OK;
    if (n->op == SSLAT_OP_ADD) status = host_program_layout(L->p, b, md_of(L, a), &b, err);
    if (status != SSLAT_OK) return status;
    dnnl_binary_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_binary_desc_init)(&d, n->op == SSLAT_OP_ADD ? dnnl_binary_add : dnnl_binary_mul,
                                                     md_of(L, a), md_of(L, b), md_of(L, a)));
    dnnl_exec_arg_t extra[1] = {{DNNL_ARG_SRC_1, L->p->tensors[b].memory}};
    return simple_primitive(L, &d, extra, 1, a, DNNL_ARG_SRC_0, n->shape, out);
}

static sslat_status lower_pool(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]), o = n->shape;
    int64_t k = in.h, kw = in.w, s = 1, pad = 0, pad_h = 0, pad_w = 0;
    dnnl_alg_kind_t alg = dnnl_pooling_avg_include_padding;
    if (n->op != SSLAT_OP_GLOBAL_AVGPOOL) {
        const sslat_pool_params *p = sslat_node_pool(n);
        k = kw = p->kernel;
        s = p->stride;
        pad = pad_h = pad_w = p->padding;
        if (p->ceil) { /* the bottom and right padding that the ceil mode's last window covers (max: -inf) */
            pad_h = (int64_t)(o.h - 1) * s + k - in.h - pad;
            pad_w = (int64_t)(o.w - 1) * s + k - in.w - pad;
        }
        /* PyTorch: max ignores padding; avg counts it (count_include_pad=True) */
        alg = n->op == SSLAT_OP_MAXPOOL ? dnnl_pooling_max : dnnl_pooling_avg_include_padding;
    }
    dnnl_dims_t dst_dims = {o.n, o.c, o.h, o.w}, kernel = {k, kw}, strides = {s, s};
    dnnl_dims_t dilation = {0, 0}, padding = {pad, pad}, padding_end = {pad_h > pad ? pad_h : pad, pad_w > pad ? pad_w : pad};
    dnnl_memory_desc_t dst;
    dnnl_pooling_v2_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&dst, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_pooling_v2_forward_desc_init)(&d, dnnl_forward_inference, alg, md_of(L, src),
                                                                 &dst, strides, kernel, dilation, padding, padding_end));
    return simple_primitive(L, &d, NULL, 0, src, DNNL_ARG_SRC, o, out);
}

/* Run pd, a primitive of src × weights (+ bias) into dst (inner product or
 * matmul), as a timed step; the descriptor is destroyed either way. */
static sslat_status weighted_step(lowering *L, dnnl_primitive_desc_t pd, dnnl_memory_t src, dnnl_memory_t weights,
                                  dnnl_memory_t bias, dnnl_memory_t dst)
{
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}, {DNNL_ARG_BIAS, bias}};
    sslat_status status = host_program_step(L->p, true, pd, args, bias ? 4 : 3, L->err);
    DNNL(dnnl_primitive_desc_destroy)(pd);
    return status;
}

static sslat_status lower_linear(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    const sslat_linear_params *l = sslat_node_linear(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    int ndims = md_of(L, src)->ndims;
    dnnl_dims_t w_dims = {l->out_features, in.c, 1, 1}, b_dims = {l->out_features};
    dnnl_dims_t dst_dims = {in.n, l->out_features};
    dnnl_memory_desc_t weights, bias, dst;
    dnnl_inner_product_desc_t d;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_t user = NULL, w = NULL, b = NULL;
    sslat_status status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&weights, ndims, w_dims, dnnl_f32, dnnl_format_tag_any));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&bias, 1, b_dims, dnnl_f32, dnnl_x));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&dst, 2, dst_dims, dnnl_f32, dnnl_format_tag_any));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_inner_product_forward_desc_init)(&d, dnnl_forward_inference, md_of(L, src),
                                                                    &weights, l->bias ? &bias : NULL, &dst));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_primitive_desc_create)(&pd, &d, NULL, L->p->session->engine, NULL));
    status = parameter(L, w_dims, ndims, ndims == 4 ? dnnl_oihw : dnnl_oi, node, SSLAT_ROLE_WEIGHTS, in.c, &user, NULL);
    if (status == SSLAT_OK) status = weights_for(L, user, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0), &w);
    if (status == SSLAT_OK && l->bias) status = parameter(L, b_dims, 1, dnnl_x, node, SSLAT_ROLE_BIAS, 0, &b, NULL);
    if (status == SSLAT_OK)
        status = host_program_tensor(L->p, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0), NULL,
                                     n->shape, out, err);
    if (status != SSLAT_OK) {
        DNNL(dnnl_primitive_desc_destroy)(pd);
        return status;
    }
    return weighted_step(L, pd, L->p->tensors[src].memory, w, b, L->p->tensors[*out].memory);
}

/* Flatten of a 1x1 map is free (same memory); of an HxW map it is a reorder to
 * plain NCHW, then the same bytes read as N x (C·H·W). */
static sslat_status lower_flatten(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    dnnl_memory_desc_t plain, flat;
    sslat_status status;
    if (in.h == 1 && in.w == 1)
        return host_program_tensor(L->p, md_of(L, src), L->p->tensors[src].memory, n->shape, out, err);
    status = host_dims_md(&plain, in, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_layout(L->p, src, &plain, &src, err);
    if (status == SSLAT_OK) status = host_dims_md(&flat, n->shape, 4, dnnl_nchw, err);
    if (status != SSLAT_OK) return status;
    void *data = NULL;
    dnnl_memory_t view = NULL;
    DNNL(dnnl_memory_get_data_handle)(L->p->tensors[src].memory, &data);
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&view, &flat, L->p->session->engine, data));
    status = host_program_own(L->p, view, err);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &flat, view, n->shape, out, err);
    return status;
}

/* A timed reorder between two views of plain buffers: the bytes of tensor src
 * read as `from`, written into the bytes of tensor out as `to` (a transpose
 * spelled as strides: the shuffle's and Focus's lowerings). */
static sslat_status reorder_views(lowering *L, int src, int out, const dnnl_memory_desc_t *from,
                                  const dnnl_memory_desc_t *to)
{
    sslat_error *err = L->err;
    dnnl_memory_t from_memory = NULL, to_memory = NULL;
    void *data = NULL;
    DNNL(dnnl_memory_get_data_handle)(L->p->tensors[src].memory, &data);
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&from_memory, from, L->p->session->engine, data));
    sslat_status status = host_program_own(L->p, from_memory, err);
    DNNL(dnnl_memory_get_data_handle)(L->p->tensors[out].memory, &data);
    if (status == SSLAT_OK)
        DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&to_memory, to, L->p->session->engine, data));
    if (status == SSLAT_OK) status = host_program_own(L->p, to_memory, err);
    if (status == SSLAT_OK) status = host_program_reorder(L->p, from_memory, from, to_memory, to, true, err);
    return status;
}

/* PyTorch's channel_shuffle as its definition: view C as g x C/g, transpose,
 * view back. On plain NCHW that is a reorder from the 5-D view (N, g, C/g, H, W)
 * to the same dims laid out as (N, C/g, g, H, W) in the output's bytes. */
static sslat_status lower_shuffle_reorder(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape s = n->shape;
    int64_t groups = sslat_node_shuffle_groups(n);
    dnnl_memory_desc_t plain, from, to;
    dnnl_dims_t view = {s.n, groups, s.c / groups, s.h, s.w};
    sslat_status status = host_dims_md(&plain, s, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_layout(L->p, src, &plain, &src, err);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &plain, NULL, s, out, err);
    if (status != SSLAT_OK) return status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&from, 5, view, dnnl_f32, dnnl_abcde));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&to, 5, view, dnnl_f32, dnnl_acbde));
    return reorder_views(L, src, *out, &from, &to);
}

static sslat_status lower_shuffle(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    if (L->p->lowering.shuffle == HOST_SHUFFLE_REORDER) return lower_shuffle_reorder(L, node, src, out);
    /* PyTorch's ChannelShuffle(g) views C as g x C/g and transposes; oneDNN's
     * group_size is the inner extent of that view */
    dnnl_shuffle_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_shuffle_forward_desc_init)(&d, dnnl_forward_inference, md_of(L, src), 1,
                                                              n->shape.c / sslat_node_shuffle_groups(n)));
    return simple_primitive(L, &d, NULL, 0, src, DNNL_ARG_SRC, n->shape, out);
}

/* Concat along channels: oneDNN's concat primitive on plain NCHW (with blocked
 * layouts and channel counts off the block, as ShuffleNetV2's 58, oneDNN falls
 * back to its reference concat; on plain tensors it copies each input whole). */
static sslat_status lower_concat(lowering *L, int32_t node, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    int count = sslat_node_input_count(n), src[SSLAT_MAX_NODE_INPUTS];
    dnnl_memory_desc_t mds[SSLAT_MAX_NODE_INPUTS], dst;
    sslat_status status = SSLAT_OK;
    for (int k = 0; status == SSLAT_OK && k < count; k++) {
        status = host_dims_md(&mds[k], sslat_graph_shape_of(L->g, n->input[k]), 4, dnnl_nchw, err);
        if (status == SSLAT_OK) status = host_program_layout(L->p, tensor_at(L, n->input[k]), &mds[k], &src[k], err);
    }
    if (status == SSLAT_OK) status = host_dims_md(&dst, n->shape, 4, dnnl_nchw, err);
    if (status != SSLAT_OK) return status;
    dnnl_primitive_desc_t pd = NULL;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_concat_primitive_desc_create)(&pd, &dst, count, 1, mds, NULL, L->p->session->engine));
    status = host_program_tensor(L->p, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0), NULL, n->shape,
                                 out, err);
    if (status == SSLAT_OK) {
        dnnl_exec_arg_t args[SSLAT_MAX_NODE_INPUTS + 1];
        for (int k = 0; k < count; k++) args[k] = (dnnl_exec_arg_t){DNNL_ARG_MULTIPLE_SRC + k, L->p->tensors[src[k]].memory};
        args[count] = (dnnl_exec_arg_t){DNNL_ARG_DST, L->p->tensors[*out].memory};
        status = host_program_step(L->p, true, pd, args, count + 1, err);
    }
    DNNL(dnnl_primitive_desc_destroy)(pd);
    return status;
}

/* Channels [start, start + length): a reorder from a sub-memory of the plain
 * NCHW source into a plain tensor of its own (as torch.chunk's halves become
 * tensors the next ops read). */
static sslat_status lower_channel_slice(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    const sslat_slice_params *s = sslat_node_slice(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    dnnl_memory_desc_t plain, part, dst;
    dnnl_dims_t dims = {n->shape.n, n->shape.c, n->shape.h, n->shape.w}, offsets = {0, s->start, 0, 0};
    dnnl_memory_t view = NULL;
    void *data = NULL;
    sslat_status status = host_dims_md(&plain, in, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_layout(L->p, src, &plain, &src, err);
    if (status == SSLAT_OK) status = host_dims_md(&dst, n->shape, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &dst, NULL, n->shape, out, err);
    if (status != SSLAT_OK) return status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_submemory)(&part, &plain, dims, offsets));
    DNNL(dnnl_memory_get_data_handle)(L->p->tensors[src].memory, &data);
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&view, &part, L->p->session->engine, data));
    status = host_program_own(L->p, view, err);
    if (status == SSLAT_OK)
        status = host_program_reorder(L->p, view, &part, L->p->tensors[*out].memory, &dst, true, err);
    return status;
}

/* YOLOv5's Focus slicing as one reorder between two 6-D views of plain NCHW
 * buffers: the input as (N, C, H/2, dh, W/2, dw) in its own strides, the
 * output as the same dims laid out so channel group g = dw·2 + dh holds the
 * pixel phase (dh, dw) — cat(x[::2, ::2], x[1::2, ::2], x[::2, 1::2], x[1::2, 1::2]). */
static sslat_status lower_space_to_depth(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]), o = n->shape;
    int64_t hw = (int64_t)o.h * o.w;
    dnnl_dims_t view = {in.n, in.c, o.h, 2, o.w, 2};
    dnnl_dims_t from_strides = {(int64_t)in.c * in.h * in.w, (int64_t)in.h * in.w, 2 * (int64_t)in.w, in.w, 2, 1};
    dnnl_dims_t to_strides = {(int64_t)o.c * hw, hw, o.w, (int64_t)in.c * hw, 1, 2 * (int64_t)in.c * hw};
    dnnl_memory_desc_t plain, dst, from, to;
    sslat_status status = host_dims_md(&plain, in, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_layout(L->p, src, &plain, &src, err);
    if (status == SSLAT_OK) status = host_dims_md(&dst, o, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &dst, NULL, o, out, err);
    if (status != SSLAT_OK) return status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_strides)(&from, 6, view, dnnl_f32, from_strides));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_strides)(&to, 6, view, dnnl_f32, to_strides));
    return reorder_views(L, src, *out, &from, &to);
}

/* Nearest upsampling: oneDNN's resampling with the integer factor on H and W
 * (its nearest rounds the source coordinate down, as PyTorch's does). */
static sslat_status lower_upsample(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    float scale = (float)sslat_node_upsample_scale(n);
    const float factors[2] = {scale, scale};
    dnnl_dims_t dims = {n->shape.n, n->shape.c, n->shape.h, n->shape.w};
    dnnl_memory_desc_t dst;
    dnnl_resampling_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(&dst, 4, dims, dnnl_f32, dnnl_format_tag_any));
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_resampling_forward_desc_init)(&d, dnnl_forward_inference, dnnl_resampling_nearest,
                                                                 factors, md_of(L, src), &dst));
    return simple_primitive(L, &d, NULL, 0, src, DNNL_ARG_SRC, n->shape, out);
}

/* ---- tokens: plain N×L×C tensors (host_dims_md) ---------------------------------------------- */

/* The bytes of a tensor from `offset` floats on, seen as md (a strided view). */
static sslat_status view_of(lowering *L, int tensor, size_t offset, const dnnl_memory_desc_t *md, dnnl_memory_t *out)
{
    void *data = NULL;
    DNNL(dnnl_memory_get_data_handle)(L->p->tensors[tensor].memory, &data);
    DNNL_RETURN_IF_FAILED(L->err, DNNL(dnnl_memory_create)(out, md, L->p->session->engine, (float *)data + offset));
    return host_program_own(L->p, *out, L->err);
}

/* A new plain tensor of shape (tokens: N×L×C; else plain NCHW). */
static sslat_status plain_tensor(lowering *L, sslat_shape shape, int *out)
{
    dnnl_memory_desc_t md;
    sslat_status status = host_dims_md(&md, shape, 4, dnnl_nchw, L->err);
    return status == SSLAT_OK ? host_program_tensor(L->p, &md, NULL, shape, out, L->err) : status;
}

/* x.flatten(2).transpose(1, 2): N×L×C bytes are the image's NHWC bytes, so one
 * reorder from the image's layout into an NHWC view of the token tensor. */
static sslat_status lower_tokens(lowering *L, int32_t node, int src, int *out)
{
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    dnnl_memory_desc_t nhwc;
    dnnl_memory_t view = NULL;
    sslat_status status = host_dims_md(&nhwc, in, 4, dnnl_nhwc, L->err);
    if (status == SSLAT_OK) status = plain_tensor(L, n->shape, out);
    if (status == SSLAT_OK) status = view_of(L, *out, 0, &nhwc, &view);
    if (status == SSLAT_OK)
        status = host_program_reorder(L->p, L->p->tensors[src].memory, md_of(L, src), view, &nhwc, true, L->err);
    return status;
}

/* oneDNN's layer normalization over the last axis, with scale (γ) and shift (β). */
static sslat_status lower_layernorm(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    dnnl_layer_normalization_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_layer_normalization_forward_desc_init)(
                                   &d, dnnl_forward_inference, md_of(L, src), NULL, sslat_node_layernorm_eps(n),
                                   dnnl_use_scale | dnnl_use_shift));
    dnnl_dims_t c = {n->shape.c};
    dnnl_memory_t scale, shift;
    sslat_status status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_GAMMA, 0, &scale, NULL);
    if (status == SSLAT_OK) status = parameter(L, c, 1, dnnl_x, node, SSLAT_ROLE_BETA, 0, &shift, NULL);
    if (status != SSLAT_OK) return status;
    dnnl_exec_arg_t extra[2] = {{DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift}};
    return simple_primitive(L, &d, extra, 2, src, DNNL_ARG_SRC, n->shape, out);
}

/* A matmul's descriptor: src × weights (+ bias) into dst, each its own
 * descriptor (the views of attention are strided); scale ≠ 1 multiplies the
 * product, then a tensor of add_md (when given) is added: a binary post-op
 * (its argument: matmul_add_arg). */
static sslat_status matmul_pd(lowering *L, const dnnl_memory_desc_t *src_md, const dnnl_memory_desc_t *weights_md,
                              const dnnl_memory_desc_t *bias_md, const dnnl_memory_desc_t *dst_md, float scale,
                              const dnnl_memory_desc_t *add_md, dnnl_primitive_desc_t *pd)
{
    sslat_error *err = L->err;
    dnnl_matmul_desc_t d;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    sslat_status status = HOST_DNNL(err, DNNL(dnnl_matmul_desc_init)(&d, src_md, weights_md, bias_md, dst_md));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_primitive_attr_create)(&attr));
    if (status == SSLAT_OK && (scale != 1.0f || add_md)) {
        status = HOST_DNNL(err, DNNL(dnnl_post_ops_create)(&po));
        if (status == SSLAT_OK && scale != 1.0f)
            status = HOST_DNNL(err, DNNL(dnnl_post_ops_append_eltwise)(po, 1.0f, dnnl_eltwise_linear, scale, 0.0f));
        if (status == SSLAT_OK && add_md)
            status = HOST_DNNL(err, DNNL(dnnl_post_ops_append_binary)(po, dnnl_binary_add, add_md));
        if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_primitive_attr_set_post_ops)(attr, po));
    }
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_primitive_desc_create)(pd, &d, attr, L->p->session->engine, NULL));
    if (po) DNNL(dnnl_post_ops_destroy)(po);
    if (attr) DNNL(dnnl_primitive_attr_destroy)(attr);
    return status;
}

/* nn.Linear on each token: a matmul N×L×C by C×O (PyTorch's O×C weight read
 * transposed, reordered once to the primitive's layout) + bias. */
static sslat_status lower_token_linear(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    const sslat_linear_params *l = sslat_node_linear(n);
    int64_t C = sslat_graph_shape_of(L->g, n->input[0]).c, O = l->out_features;
    dnnl_dims_t w_dims = {1, C, O}, b_dims = {1, 1, O};
    dnnl_memory_desc_t weights_any, bias_md;
    dnnl_memory_t user = NULL, weights = NULL, bias = NULL;
    dnnl_primitive_desc_t pd = NULL;
    sslat_status status = plain_tensor(L, n->shape, out);
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&weights_any, 3, w_dims, dnnl_f32, dnnl_format_tag_any));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&bias_md, 3, b_dims, dnnl_f32, dnnl_abc));
    if (status == SSLAT_OK)
        status = matmul_pd(L, md_of(L, src), &weights_any, l->bias ? &bias_md : NULL, md_of(L, *out), 1.0f, NULL, &pd);
    if (status != SSLAT_OK) return status;
    /* w[o][c] (PyTorch's layout) is element (0, c, o) at o·C + c: tag acb */
    status = parameter(L, w_dims, 3, dnnl_acb, node, SSLAT_ROLE_WEIGHTS, C, &user, NULL);
    if (status == SSLAT_OK) status = weights_for(L, user, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0), &weights);
    if (status == SSLAT_OK && l->bias) status = parameter(L, b_dims, 3, dnnl_abc, node, SSLAT_ROLE_BIAS, 0, &bias, NULL);
    if (status != SSLAT_OK) {
        DNNL(dnnl_primitive_desc_destroy)(pd);
        return status;
    }
    return weighted_step(L, pd, L->p->tensors[src].memory, weights, bias, L->p->tensors[*out].memory);
}

/* The argument of matmul_pd's added tensor: the binary post-op after the scale, if any. */
static dnnl_exec_arg_t matmul_add_arg(float scale, dnnl_memory_t added)
{
    return (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(scale != 1.0f ? 1 : 0) | DNNL_ARG_SRC_1, added};
}

/* LeViT's attention bias as its eval mode caches it: the table (heads × L)
 * gathered once to heads×L×L, written once per image (N×heads×L×L: oneDNN's
 * optimised matmul takes a post-op tensor of dst's own shape, and one
 * broadcast over the images only on its reference kernel). */
static sslat_status attention_bias(lowering *L, int32_t node, const dnnl_memory_desc_t *md, dnnl_memory_t *out)
{
    const sslat_node *n = &L->g->nodes[node];
    int32_t N = n->shape.n, H = sslat_node_attention(n)->heads, T = n->shape.h;
    sslat_status status = host_program_memory(L->p, md, out, L->err);
    if (status != SSLAT_OK) return status;
    float *gathered = NULL;
    DNNL(dnnl_memory_get_data_handle)(*out, (void **)&gathered);
    if (!sslat_fill_attention_bias(gathered, H, T, L->p->seed, global_node(L, node)))
        return sslat_fail(L->err, SSLAT_ERR_NOMEM, "out of memory for an attention bias of %d × %d", H, T);
    size_t per_image = (size_t)H * T * T;
    for (int32_t image = 1; image < N; image++) memcpy(gathered + image * per_image, gathered, per_image * sizeof *gathered);
    return SSLAT_OK;
}

/* Attention on packed q|k|v as timm computes it: the heads are strided views
 * of the qkv tensor (no copies), q·kᵀ·D^-½ one matmul (+ the position bias as
 * its post-op), softmax over the keys, the probabilities × v written straight
 * into the heads' places in N×L×H·D. */
static sslat_status lower_attention(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    const sslat_attention_params *a = sslat_node_attention(n);
    int64_t N = n->shape.n, T = n->shape.h, H = a->heads, D = a->head_dim, row = 3 * H * D;
    dnnl_dims_t heads = {N, H, T, D}, scores_dims = {N, H, T, T}, keys_t = {N, H, D, T};
    dnnl_dims_t qkv_strides = {T * row, D, row, 1}, keys_t_strides = {T * row, D, 1, row};
    dnnl_dims_t out_strides = {T * H * D, D, H * D, 1};
    dnnl_memory_desc_t q_md, k_md, v_md, scores_md, out_md;
    dnnl_memory_t q, k, v, mixed;
    dnnl_primitive_desc_t pd = NULL;
    int scores = -1, probs = -1;
    sslat_status status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_strides)(&q_md, 4, heads, dnnl_f32, qkv_strides));
    if (status == SSLAT_OK) v_md = q_md;
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_strides)(&k_md, 4, keys_t, dnnl_f32, keys_t_strides));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&scores_md, 4, scores_dims, dnnl_f32, dnnl_abcd));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_strides)(&out_md, 4, heads, dnnl_f32, out_strides));
    if (status == SSLAT_OK) status = view_of(L, src, 0, &q_md, &q);
    if (status == SSLAT_OK) status = view_of(L, src, (size_t)(H * D), &k_md, &k);
    if (status == SSLAT_OK) status = view_of(L, src, (size_t)(2 * H * D), &v_md, &v);
    sslat_shape scores_shape = {(int32_t)N, (int32_t)H, (int32_t)T, (int32_t)T, false};
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &scores_md, NULL, scores_shape, &scores, err);
    float scale = (float)(1.0 / sqrt((double)D));
    dnnl_dims_t bias_dims = {N, H, T, T};
    dnnl_memory_desc_t bias_md;
    dnnl_memory_t bias = NULL;
    if (status == SSLAT_OK && a->position_bias) {
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&bias_md, 4, bias_dims, dnnl_f32, dnnl_abcd));
        if (status == SSLAT_OK) status = attention_bias(L, node, &bias_md, &bias);
    }
    if (status == SSLAT_OK) status = matmul_pd(L, &q_md, &k_md, NULL, &scores_md, scale, bias ? &bias_md : NULL, &pd);
    if (status == SSLAT_OK && bias) {
        dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, q}, {DNNL_ARG_WEIGHTS, k},
                                   {DNNL_ARG_DST, L->p->tensors[scores].memory}, matmul_add_arg(scale, bias)};
        status = host_program_step(L->p, true, pd, args, 4, err);
        DNNL(dnnl_primitive_desc_destroy)(pd);
    } else if (status == SSLAT_OK) {
        status = weighted_step(L, pd, q, k, NULL, L->p->tensors[scores].memory);
    }
    if (status == SSLAT_OK) {
        dnnl_softmax_desc_t d;
        status = HOST_DNNL(err, DNNL(dnnl_softmax_forward_desc_init)(&d, dnnl_forward_inference, &scores_md, 3));
        if (status == SSLAT_OK) status = simple_primitive(L, &d, NULL, 0, scores, DNNL_ARG_SRC, scores_shape, &probs);
    }
    if (status == SSLAT_OK) status = plain_tensor(L, n->shape, out);
    if (status == SSLAT_OK) status = view_of(L, *out, 0, &out_md, &mixed);
    if (status == SSLAT_OK)
        status = matmul_pd(L, md_of(L, probs), &v_md, NULL, &out_md, 1.0f, NULL, &pd);
    if (status == SSLAT_OK) status = weighted_step(L, pd, L->p->tensors[probs].memory, v, NULL, mixed);
    return status;
}

/* cat((cls.expand(N, -1, -1), x), 1): a concat of N copies of the token (written
 * once, as the expand is a view) and the tokens. */
static sslat_status lower_class_token(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    dnnl_dims_t one = {1, 1, in.c}, copies = {in.n, 1, in.c};
    dnnl_memory_desc_t copies_md, mds[2], dst;
    dnnl_memory_t token = NULL, expanded = NULL;
    float *values = NULL;
    sslat_status status = parameter(L, one, 3, dnnl_abc, node, SSLAT_ROLE_WEIGHTS, 3, &token, &values);
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&copies_md, 3, copies, dnnl_f32, dnnl_abc));
    if (status == SSLAT_OK) status = host_program_memory(L->p, &copies_md, &expanded, err);
    if (status != SSLAT_OK) return status;
    void *data = NULL;
    DNNL(dnnl_memory_get_data_handle)(expanded, &data);
    for (int32_t k = 0; k < in.n; k++) memcpy((float *)data + (size_t)k * in.c, values, (size_t)in.c * sizeof(float));
    mds[0] = copies_md;
    mds[1] = *md_of(L, src);
    status = host_dims_md(&dst, n->shape, 3, dnnl_abc, err);
    if (status != SSLAT_OK) return status;
    dnnl_primitive_desc_t pd = NULL;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_concat_primitive_desc_create)(&pd, &dst, 2, 1, mds, NULL, L->p->session->engine));
    status = host_program_tensor(L->p, &dst, NULL, n->shape, out, err);
    if (status == SSLAT_OK) {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_MULTIPLE_SRC, expanded}, {DNNL_ARG_MULTIPLE_SRC + 1, L->p->tensors[src].memory},
                                   {DNNL_ARG_DST, L->p->tensors[*out].memory}};
        status = host_program_step(L->p, true, pd, args, 3, err);
    }
    DNNL(dnnl_primitive_desc_destroy)(pd);
    return status;
}

/* x + pos_embed: a binary add broadcasting the 1×L×C embedding over N. */
static sslat_status lower_position_embed(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    dnnl_dims_t dims = {1, n->shape.h, n->shape.c};
    dnnl_memory_t pos = NULL;
    sslat_status status = parameter(L, dims, 3, dnnl_abc, node, SSLAT_ROLE_WEIGHTS, 3, &pos, NULL);
    if (status != SSLAT_OK) return status;
    const dnnl_memory_desc_t *pos_md = NULL;
    DNNL(dnnl_memory_get_memory_desc)(pos, &pos_md);
    dnnl_binary_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_binary_desc_init)(&d, dnnl_binary_add, md_of(L, src), pos_md, md_of(L, src)));
    dnnl_exec_arg_t extra[1] = {{DNNL_ARG_SRC_1, pos}};
    return simple_primitive(L, &d, extra, 1, src, DNNL_ARG_SRC_0, n->shape, out);
}

/* x[:, 0]: a reorder of the first token into a plain N×C×1×1 vector; x.mean(1):
 * an average pool over L of the tokens seen as NHWC N×C×L×1. */
static sslat_status lower_token_pool(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    if (sslat_node_token_pool(n) == SSLAT_TOKEN_POOL_MEAN) {
        sslat_shape image = {in.n, in.c, in.h, 1, false};
        dnnl_memory_desc_t nhwc, dst;
        dnnl_memory_t view = NULL;
        dnnl_dims_t dst_dims = {in.n, in.c, 1, 1}, kernel = {in.h, 1}, ones = {1, 1}, zeros = {0, 0};
        sslat_status status = host_dims_md(&nhwc, image, 4, dnnl_nhwc, err);
        if (status == SSLAT_OK) status = view_of(L, src, 0, &nhwc, &view);
        if (status == SSLAT_OK)
            status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&dst, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
        if (status != SSLAT_OK) return status;
        int viewed = -1;
        status = host_program_tensor(L->p, &nhwc, view, image, &viewed, err);
        dnnl_pooling_v2_desc_t d;
        if (status == SSLAT_OK)
            status = HOST_DNNL(err, DNNL(dnnl_pooling_v2_forward_desc_init)(&d, dnnl_forward_inference,
                                                                           dnnl_pooling_avg_exclude_padding, &nhwc, &dst,
                                                                           ones, kernel, zeros, zeros, zeros));
        return status == SSLAT_OK ? simple_primitive(L, &d, NULL, 0, viewed, DNNL_ARG_SRC, n->shape, out) : status;
    }
    dnnl_memory_desc_t first, as_tokens;
    dnnl_dims_t dims = {in.n, 1, in.c}, offsets = {0, 0, 0};
    dnnl_memory_t from = NULL, to = NULL;
    sslat_status status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_submemory)(&first, md_of(L, src), dims, offsets));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_memory_desc_init_by_tag)(&as_tokens, 3, dims, dnnl_f32, dnnl_abc));
    if (status == SSLAT_OK) status = plain_tensor(L, n->shape, out);
    if (status == SSLAT_OK) status = view_of(L, src, 0, &first, &from);
    if (status == SSLAT_OK) status = view_of(L, *out, 0, &as_tokens, &to);
    if (status == SSLAT_OK) status = host_program_reorder(L->p, from, &first, to, &as_tokens, true, err);
    return status;
}

/* x.permute(0, 3, 1, 2) of the tokens read as N×H×W×C: their bytes are the
 * image's NHWC bytes, so the image is a view (no work, as PyTorch's permute);
 * the layer that reads it converts the layout if it wants another. */
static sslat_status lower_image(lowering *L, int32_t node, int src, int *out)
{
    const sslat_node *n = &L->g->nodes[node];
    dnnl_memory_desc_t nhwc;
    dnnl_memory_t view = NULL;
    sslat_status status = host_dims_md(&nhwc, n->shape, 4, dnnl_nhwc, L->err);
    if (status == SSLAT_OK) status = view_of(L, src, 0, &nhwc, &view);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &nhwc, view, n->shape, out, L->err);
    return status;
}

/* x · γ: a binary multiply broadcasting γ over the channels (1×1×C of tokens,
 * 1×C×1×1 of an image, whatever the image's layout). */
static sslat_status lower_layer_scale(lowering *L, int32_t node, int src, int *out)
{
    sslat_error *err = L->err;
    const sslat_node *n = &L->g->nodes[node];
    dnnl_dims_t token_dims = {1, 1, n->shape.c}, image_dims = {1, n->shape.c, 1, 1};
    dnnl_memory_t gamma = NULL;
    sslat_status status = n->shape.tokens
                              ? parameter(L, token_dims, 3, dnnl_abc, node, SSLAT_ROLE_GAMMA, 0, &gamma, NULL)
                              : parameter(L, image_dims, 4, dnnl_nchw, node, SSLAT_ROLE_GAMMA, 0, &gamma, NULL);
    if (status != SSLAT_OK) return status;
    const dnnl_memory_desc_t *gamma_md = NULL;
    DNNL(dnnl_memory_get_memory_desc)(gamma, &gamma_md);
    dnnl_binary_desc_t d;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_binary_desc_init)(&d, dnnl_binary_mul, md_of(L, src), gamma_md, md_of(L, src)));
    dnnl_exec_arg_t extra[1] = {{DNNL_ARG_SRC_1, gamma}};
    return simple_primitive(L, &d, extra, 1, src, DNNL_ARG_SRC_0, n->shape, out);
}

/* An input node: the source it is wired to, or (a layer timed alone) a plain
 * tensor of seeded values, written once like the program input. */
static sslat_status lower_input(lowering *L, int32_t node, int *out)
{
    const sslat_node *n = &L->g->nodes[node];
    int k = ++L->inputs_seen;
    if (L->sources) {
        if (k >= L->n_sources) return sslat_fail(L->err, SSLAT_ERR_INVALID_ARGUMENT, "input node %d is not wired", k);
        *out = L->sources[k];
        return SSLAT_OK;
    }
    dnnl_memory_desc_t md;
    sslat_status status = host_dims_md(&md, n->shape, 4, dnnl_nchw, L->err);
    if (status == SSLAT_OK) status = host_program_tensor(L->p, &md, NULL, n->shape, out, L->err);
    if (status != SSLAT_OK) return status;
    host_tensor *t = &L->p->tensors[*out];
    t->given = true;
    L->p->buffers[t->buffer].pinned = true;
    void *data = NULL;
    DNNL(dnnl_memory_get_data_handle)(t->memory, &data);
    sslat_fill_parameter(data, (size_t)sslat_shape_elements(n->shape), L->p->seed, global_node(L, node),
                         SSLAT_ROLE_WEIGHTS, 3 /* uniform in [-1, 1], as the program input */);
    return SSLAT_OK;
}

static sslat_status lower_node(lowering *L, int32_t i, int32_t *last)
{
    const sslat_node *n = &L->g->nodes[i];
    int src = n->op == SSLAT_OP_INPUT ? -1 : tensor_at(L, n->input[0]), out = -1;
    sslat_status status = SSLAT_OK;
    *last = i;
    switch (n->op) {
    case SSLAT_OP_CONV2D: return lower_conv(L, i, last);
    case SSLAT_OP_BATCHNORM: status = lower_batchnorm(L, i, src, &out); break;
    case SSLAT_OP_ACT: status = lower_act(L, src, sslat_node_act(n), n->shape, &out); break;
    case SSLAT_OP_ADD:
    case SSLAT_OP_MUL_CHANNEL: status = lower_binary(L, i, &out); break;
    case SSLAT_OP_GLOBAL_AVGPOOL:
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: status = lower_pool(L, i, src, &out); break;
    case SSLAT_OP_LINEAR:
        status = n->shape.tokens ? lower_token_linear(L, i, src, &out) : lower_linear(L, i, src, &out);
        break;
    case SSLAT_OP_FLATTEN: status = lower_flatten(L, i, src, &out); break;
    case SSLAT_OP_IDENTITY: out = src; break; /* no work: the same tensor */
    case SSLAT_OP_CHANNEL_SHUFFLE: status = lower_shuffle(L, i, src, &out); break;
    case SSLAT_OP_CONCAT: status = lower_concat(L, i, &out); break;
    case SSLAT_OP_CHANNEL_SLICE: status = lower_channel_slice(L, i, src, &out); break;
    case SSLAT_OP_UPSAMPLE: status = lower_upsample(L, i, src, &out); break;
    case SSLAT_OP_SPACE_TO_DEPTH: status = lower_space_to_depth(L, i, src, &out); break;
    case SSLAT_OP_INPUT: status = lower_input(L, i, &out); break;
    case SSLAT_OP_TOKENS: status = lower_tokens(L, i, src, &out); break;
    case SSLAT_OP_LAYERNORM: status = lower_layernorm(L, i, src, &out); break;
    case SSLAT_OP_ATTENTION: status = lower_attention(L, i, src, &out); break;
    case SSLAT_OP_CLASS_TOKEN: status = lower_class_token(L, i, src, &out); break;
    case SSLAT_OP_POSITION_EMBED: status = lower_position_embed(L, i, src, &out); break;
    case SSLAT_OP_TOKEN_POOL: status = lower_token_pool(L, i, src, &out); break;
    case SSLAT_OP_LEAKY_RELU: { /* eltwise relu with alpha: the negative slope */
        dnnl_eltwise_desc_t d;
        status = HOST_DNNL(L->err, DNNL(dnnl_eltwise_forward_desc_init)(&d, dnnl_forward_inference, dnnl_eltwise_relu,
                                                                        md_of(L, src), sslat_node_slope(n), 0.0f));
        if (status == SSLAT_OK) status = simple_primitive(L, &d, NULL, 0, src, DNNL_ARG_SRC, n->shape, &out);
        break;
    }
    case SSLAT_OP_IMAGE: status = lower_image(L, i, src, &out); break;
    case SSLAT_OP_LAYER_SCALE: status = lower_layer_scale(L, i, src, &out); break;
    case SSLAT_OP_COUNT: SSLAT_ASSERT(!"unknown op");
    }
    L->tensor_of[i] = out;
    return status;
}

sslat_status host_lower_graph(host_program *p, const sslat_graph *g, const int *sources, int n_sources,
                              sslat_error *err)
{
    lowering L = {.p = p,
                  .g = g,
                  .tensor_of = calloc((size_t)g->count + 1, sizeof(int)),
                  .consumers = calloc((size_t)g->count + 1, sizeof(int)),
                  .input = n_sources > 0 ? sources[0] : p->output,
                  .sources = n_sources > 0 ? sources : NULL,
                  .n_sources = n_sources,
                  .err = err};
    if (!L.tensor_of || !L.consumers) {
        free(L.tensor_of);
        free(L.consumers);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < g->count; i++)
        for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++)
            if (g->nodes[i].input[k] >= 0) L.consumers[g->nodes[i].input[k]]++;
    if (g->count > 0) L.consumers[g->count - 1]++;
    sslat_status status = SSLAT_OK;
    for (int32_t i = 0; status == SSLAT_OK && i < g->count;) {
        int32_t last = i;
        status = lower_node(&L, i, &last);
        if (status != SSLAT_OK)
            sslat_error_prefix(err, "%s '%s': ", sslat_op_name(g->nodes[i].op), g->nodes[i].name);
        i = last + 1;
    }
    if (status == SSLAT_OK && g->count > 0) p->output = L.tensor_of[g->count - 1];
    free(L.tensor_of);
    free(L.consumers);
    return status;
}

sslat_status host_program_append(host_program *p, const sslat_graph *graph, sslat_error *err)
{
    SSLAT_ASSERT(!p->prologue_done);
    int first = p->n_tensors, input = p->output;
    sslat_status status = host_lower_graph(p, graph, NULL, 0, err);
    p->nodes_seen += graph->count;
    if (status != SSLAT_OK) return status;
    /* everything but the new output is dead for the subgraphs that follow */
    for (int t = first; t < p->n_tensors; t++) host_program_release_tensor(p, t);
    host_program_release_tensor(p, input);
    return SSLAT_OK;
}

sslat_status host_program_append_wired(host_program *p, const sslat_graph *graph, const int *sources, int n_sources,
                                       sslat_error *err)
{
    SSLAT_ASSERT(!p->prologue_done && n_sources >= 1);
    int first = p->n_tensors;
    sslat_status status = host_lower_graph(p, graph, sources, n_sources, err);
    p->nodes_seen += graph->count;
    if (status != SSLAT_OK) return status;
    for (int t = first; t < p->n_tensors; t++) host_program_release_tensor(p, t);
    return SSLAT_OK;
}
