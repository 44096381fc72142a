/* A graph as JSON: every primitive node with its parameters, learnable
 * parameter count and output shape (sslat show --ir, the PyTorch runner of
 * validate --reference torch, and sslat.torch.to_module read it). */
#include "ir/ir_json.h"

#include <stdio.h>

#include "base/error.h"
#include "ir/space.h"

/* A token tensor N×L×C is written [N, L, C], as PyTorch holds it; an image or vector [N, C, H, W]. */
static json_t *shape_json(sslat_shape s)
{
    return s.tokens ? json_pack("[i, i, i]", s.n, s.h, s.c) : json_pack("[i, i, i, i]", s.n, s.c, s.h, s.w);
}

static json_t *node_json(const sslat_graph *graph, const sslat_node *node)
{
    json_t *j = json_pack("{s:s, s:[i, i], s:o, s:s, s:I}", "op", sslat_op_name(node->op), "input", node->input[0],
                          node->input[1], "shape", shape_json(node->shape), "name", node->name, "params",
                          (json_int_t)sslat_node_param_count(graph, node));
    /* a concat's further inputs follow the first two (−2 marks an unused slot) */
    for (int k = 2; j && k < sslat_node_input_count(node); k++)
        json_array_append_new(json_object_get(j, "input"), json_integer(node->input[k]));
    switch (node->op) {
    case SSLAT_OP_CONV2D: {
        const sslat_conv_params *c = sslat_node_conv(node);
        sslat_pads p = sslat_conv_pads(c, sslat_graph_shape_of(graph, node->input[0]));
        json_t *conv = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:[i, i, i, i]}", "out_channels", c->out_channels,
                                 "kernel", c->kernel, "stride", c->stride, "padding", c->padding, "dilation",
                                 c->dilation, "groups", c->groups, "bias", c->bias, "pads", p.top, p.left, p.bottom,
                                 p.right);
        if (conv && c->same) json_object_set_new(conv, "same", json_true());
        json_object_set_new(j, "conv", conv);
        break;
    }
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: {
        const sslat_pool_params *p = sslat_node_pool(node);
        json_t *pool = json_pack("{s:i, s:i, s:i}", "kernel", p->kernel, "stride", p->stride, "padding", p->padding);
        if (pool && p->ceil) json_object_set_new(pool, "ceil", json_true());
        if (pool && p->adaptive) json_object_set_new(pool, "adaptive", json_true());
        json_object_set_new(j, "pool", pool);
        break;
    }
    case SSLAT_OP_ACT: json_object_set_new(j, "act", json_string(sslat_act_name(sslat_node_act(node)))); break;
    case SSLAT_OP_LINEAR: {
        const sslat_linear_params *l = sslat_node_linear(node);
        json_t *linear = json_pack("{s:i, s:b}", "out_features", l->out_features, "bias", l->bias);
        if (linear && l->functional) json_object_set_new(linear, "functional", json_true());
        json_object_set_new(j, "linear", linear);
        break;
    }
    case SSLAT_OP_CHANNEL_SHUFFLE: json_object_set_new(j, "groups", json_integer(sslat_node_shuffle_groups(node))); break;
    case SSLAT_OP_UPSAMPLE: json_object_set_new(j, "scale", json_integer(sslat_node_upsample_scale(node))); break;
    case SSLAT_OP_CHANNEL_SLICE:
        json_object_set_new(j, "slice", json_pack("{s:i, s:i}", "start", sslat_node_slice(node)->start, "length",
                                                  sslat_node_slice(node)->length));
        break;
    case SSLAT_OP_GLOBAL_AVGPOOL: { /* how the model wrote it: the MAC rules count the forms apart */
        static const char *const FORMS[] = {"module", "functional", "mean"};
        json_object_set_new(j, "form", json_string(FORMS[sslat_node_gap_form(node)]));
        break;
    }
    case SSLAT_OP_ATTENTION: {
        const sslat_attention_params *a = sslat_node_attention(node);
        json_object_set_new(j, "attention", json_pack("{s:i, s:i, s:s, s:b}", "heads", a->heads, "head_dim", a->head_dim,
                                                       "form", sslat_attention_form_name(a->form), "position_bias",
                                                       a->position_bias));
        break;
    }
    case SSLAT_OP_LEAKY_RELU: json_object_set_new(j, "slope", json_real(sslat_node_slope(node))); break;
    case SSLAT_OP_TOKEN_POOL:
        json_object_set_new(j, "form", json_string(sslat_token_pool_form_name(sslat_node_token_pool(node))));
        break;
    case SSLAT_OP_IMAGE: /* its size is the node's shape */ break;
    case SSLAT_OP_LAYER_SCALE:
        json_object_set_new(j, "form", json_string(sslat_scale_form_name(sslat_node_scale_form(node))));
        break;
    case SSLAT_OP_LAYERNORM: json_object_set_new(j, "eps", json_real(sslat_node_layernorm_eps(node))); break;
    case SSLAT_OP_BATCHNORM: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL: case SSLAT_OP_FLATTEN:
    case SSLAT_OP_IDENTITY: case SSLAT_OP_CONCAT: case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT:
    case SSLAT_OP_TOKENS: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_POSITION_EMBED: break;
    case SSLAT_OP_COUNT: SSLAT_ASSERT(!"unknown op");
    }
    return j;
}

json_t *sslat_graph_json(const sslat_graph *g)
{
    json_t *nodes = json_array();
    for (int32_t k = 0; k < g->count; k++) json_array_append_new(nodes, node_json(g, &g->nodes[k]));
    char hash[20];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)sslat_graph_hash(g));
    return json_pack("{s:s, s:o, s:o}", "hash", hash, "input", shape_json(g->input), "nodes", nodes);
}


sslat_status sslat_space_architecture_json(const sslat_space *space, const int32_t *arch, int32_t length, char **json,
                                           sslat_error *err)
{
    if (!space || !json) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "sslat_space_architecture_json: space and json are required");
    *json = NULL;
    sslat_graph whole;
    sslat_status status = sslat_space_architecture_graph(space, arch, length, &whole, err);
    json_t *graph = status == SSLAT_OK ? sslat_graph_json(&whole) : NULL;
    sslat_graph_release(&whole);
    if (status != SSLAT_OK) return status;
    *json = graph ? json_dumps(graph, JSON_COMPACT) : NULL;
    json_decref(graph);
    return *json ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory writing the architecture as JSON");
}
