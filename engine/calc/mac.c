/* Each rule is what the library's code counts per module / aten op; sources and
 * the reasoning per op are in docs/calculators.md. Symbols: M = conv MACs
 * N·Cout·Ho·Wo·(Cin/g)·k², B = N·Cout·Ho·Wo, Nin / Nout element counts. */
#include "calc/mac.h"
#include "table/latency_type.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static const char *const RULE_NAMES[] = {"mac", "mac_thop", "mac_fvcore", "mac_pthflops"};
_Static_assert(sizeof(RULE_NAMES) / sizeof(RULE_NAMES[0]) == SSLAT_MAC_RULE_COUNT,
               "RULE_NAMES must name every sslat_mac_rule");

const char *sslat_mac_rule_name(sslat_mac_rule rule)
{
    SSLAT_ASSERT(rule >= 0 && rule < SSLAT_MAC_RULE_COUNT);
    return RULE_NAMES[rule];
}

int sslat_mac_rule_from_name(const char *name)
{
    name = sslat_latency_type_calculator(name); /* ENOT's names too: "mmac.fvcore" */
    for (int i = 0; i < SSLAT_MAC_RULE_COUNT; i++)
        if (name && strcmp(RULE_NAMES[i], name) == 0) return i;
    return -1;
}

sslat_status sslat_ignore_parse(const char *list, sslat_ignore_set *out, sslat_error *err)
{
    out->ops = out->acts = 0;
    if (!list) return SSLAT_OK;
    char copy[512];
    if (strlen(list) >= sizeof copy)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "ignore list is too long");
    strcpy(copy, list);
    /* strict, as every list: "batchnorm,,act" and a trailing comma are refused */
    for (const char *item = list;; item++) {
        const char *end = strchr(item, ',');
        size_t length = end ? (size_t)(end - item) : strlen(item);
        if (strspn(item, " ") >= length)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "ignore: '%s' has an empty item (names separated by commas)",
                              list);
        if (!end) break;
        item = end;
    }
    char *save = NULL;
    for (char *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
        int op = sslat_op_from_name(name);
        int act = sslat_act_from_name(name);
        if (op >= 0) out->ops |= 1u << op;
        else if (act >= 0) out->acts |= 1u << act;
        else
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                              "ignore: '%s' is neither an op kind (conv2d, batchnorm, act, add, "
                              "mul_channel, global_avgpool, maxpool, avgpool, linear, flatten, "
                              "identity, channel_shuffle, concat, channel_slice, upsample, space_to_depth, input, tokens, "
                              "layernorm, attention, class_token, position_embed, token_pool, leaky_relu, image, layer_scale) nor an "
                              "activation (relu, relu6, …)",
                              name);
    }
    return SSLAT_OK;
}

static double conv_macs(sslat_shape in, const sslat_node *node)
{
    const sslat_conv_params *c = sslat_node_conv(node);
    return (double)sslat_shape_elements(node->shape) * (in.c / c->groups) * c->kernel * c->kernel;
}

/* A BN folds into the conv it reads when that conv feeds nothing else. */
static bool bn_folds(const sslat_graph *graph, const sslat_node *bn)
{
    int32_t conv = bn->input[0];
    if (bn->op != SSLAT_OP_BATCHNORM || conv < 0 || graph->nodes[conv].op != SSLAT_OP_CONV2D) return false;
    for (int32_t i = 0; i < graph->count; i++)
        for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++)
            if (&graph->nodes[i] != bn && graph->nodes[i].input[k] == conv) return false;
    return true;
}

/* Whether a conv has a bias as the network runs: its own, or its folded BN's. */
static bool conv_has_bias(const sslat_graph *graph, const sslat_node *conv, bool fuse_bn)
{
    if (sslat_node_conv(conv)->bias) return true;
    if (!fuse_bn) return false;
    int32_t index = (int32_t)(conv - graph->nodes);
    for (int32_t i = index + 1; i < graph->count; i++)
        if (graph->nodes[i].input[0] == index && bn_folds(graph, &graph->nodes[i])) return true;
    return false;
}

/* rows × in × out (rows: N, or N·L of tokens): every library counts the product the same way */
static double linear_macs(sslat_shape in, const sslat_node *node)
{
    return (double)sslat_shape_elements(in) * sslat_node_linear(node)->out_features;
}

/* q·kᵀ and probabilities·v: N·heads·L²·head_dim each */
static double attention_macs(sslat_shape in, const sslat_node *node)
{
    const sslat_attention_params *a = sslat_node_attention(node);
    return 2.0 * in.n * a->heads * (double)in.h * in.h * a->head_dim;
}

static double pool_area(const sslat_node *node)
{
    const sslat_pool_params *p = sslat_node_pool(node);
    return (double)p->kernel * p->kernel;
}

/* Every switch below names every op (no default:), so a new op fails to
 * compile (-Werror=switch-enum) until each rule says what it counts. */
static double count_plain(sslat_shape in, const sslat_node *node)
{
    switch (node->op) {
    case SSLAT_OP_CONV2D: return conv_macs(in, node);
    case SSLAT_OP_LINEAR: return linear_macs(in, node);
    case SSLAT_OP_ATTENTION: return attention_macs(in, node);
    case SSLAT_OP_BATCHNORM: case SSLAT_OP_ACT: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL:
    case SSLAT_OP_GLOBAL_AVGPOOL: case SSLAT_OP_MAXPOOL: case SSLAT_OP_AVGPOOL: case SSLAT_OP_FLATTEN:
    case SSLAT_OP_IDENTITY: case SSLAT_OP_CHANNEL_SHUFFLE: case SSLAT_OP_CONCAT: case SSLAT_OP_CHANNEL_SLICE:
    case SSLAT_OP_UPSAMPLE: case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT: case SSLAT_OP_TOKENS:
    case SSLAT_OP_LAYERNORM: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_POSITION_EMBED: case SSLAT_OP_TOKEN_POOL:
    case SSLAT_OP_LEAKY_RELU: case SSLAT_OP_IMAGE: case SSLAT_OP_LAYER_SCALE: return 0.0;
    case SSLAT_OP_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown op");
}

/* thop 0.1.1 register_hooks: BN 2·Nin ×2 (affine); AvgPool Nout; AdaptiveAvgPool
 * (Hi·Wi/(Ho·Wo) + 1)·Nout; ReLU/ReLU6/MaxPool zero; no hook (Hardswish, SiLU,
 * Sigmoid, Hardsigmoid, ChannelShuffle, functional + and *) counts nothing.
 * LayerNorm is count_normalization as BN: 4·Nin; attention is no module (its
 * matmuls, softmax, bias and F.scaled_dot_product_attention count nothing), GELU has no hook. */
static double count_thop(sslat_shape in, const sslat_node *node)
{
    double n_in = (double)sslat_shape_elements(in), n_out = (double)sslat_shape_elements(node->shape);
    switch (node->op) {
    case SSLAT_OP_BATCHNORM: return 4.0 * n_in;
    case SSLAT_OP_LINEAR: /* count_linear is nn.Linear's hook: F.linear inside another module counts nothing */
        return sslat_node_linear(node)->functional ? 0.0 : count_plain(in, node);
    case SSLAT_OP_LAYERNORM: return 4.0 * n_in; /* count_normalization, as for nn.LayerNorm (and its subclasses) */
    case SSLAT_OP_AVGPOOL: /* count_adap_avgpool: (Hi/Ho · Wi/Wo + 1)·Nout; count_avgpool: Nout */
        return sslat_node_pool(node)->adaptive ? (pool_area(node) + 1.0) * n_out : n_out;
    case SSLAT_OP_ATTENTION: return 0.0;
    case SSLAT_OP_UPSAMPLE: return n_out; /* count_upsample, nearest: output elements */
    case SSLAT_OP_GLOBAL_AVGPOOL: /* only the module has a hook */
        return sslat_node_gap_form(node) == SSLAT_GAP_MODULE ? ((double)in.h * in.w + 1.0) * n_out : 0.0;
    case SSLAT_OP_CONV2D: case SSLAT_OP_ACT: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL:
    case SSLAT_OP_MAXPOOL: case SSLAT_OP_FLATTEN: case SSLAT_OP_IDENTITY: case SSLAT_OP_CHANNEL_SHUFFLE:
    case SSLAT_OP_CONCAT: case SSLAT_OP_CHANNEL_SLICE: case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT:
    case SSLAT_OP_TOKENS: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_POSITION_EMBED: case SSLAT_OP_TOKEN_POOL:
    case SSLAT_OP_LEAKY_RELU: /* count_relu: calculate_relu_flops is 0 */
    case SSLAT_OP_IMAGE: case SSLAT_OP_LAYER_SCALE: /* a permute, and x * γ of a parameter: no module */
    case SSLAT_OP_COUNT: return count_plain(in, node);
    }
    return count_plain(in, node);
}

/* fvcore default handles: aten::batch_norm in eval = Nin·2 with affine;
 * aten::adaptive_avg_pool2d = Nin; element-wise ops, pools, activations ignored.
 * aten::layer_norm = Nin·5 with affine (norm_flop_counter); explicit attention
 * is two aten::matmul (the plain count), aten::scaled_dot_product_attention has
 * no handle (nothing); x.mean(1) (aten::mean), GELU and a position bias's
 * aten::index, aten::mul (the scale on the scores) and aten::add are ignored. */
static double count_fvcore(sslat_shape in, const sslat_node *node)
{
    double n_in = (double)sslat_shape_elements(in);
    switch (node->op) {
    case SSLAT_OP_BATCHNORM: return 2.0 * n_in;
    case SSLAT_OP_LAYERNORM: return 5.0 * n_in;
    case SSLAT_OP_AVGPOOL: return sslat_node_pool(node)->adaptive ? n_in : 0.0; /* aten::adaptive_avg_pool2d: Nin */
    case SSLAT_OP_ATTENTION:
        return sslat_node_attention(node)->form == SSLAT_ATTENTION_EXPLICIT ? attention_macs(in, node) : 0.0;
    case SSLAT_OP_UPSAMPLE: return (double)sslat_shape_elements(node->shape); /* aten::upsample_nearest2d: Nout */
    case SSLAT_OP_GLOBAL_AVGPOOL: /* aten::adaptive_avg_pool2d; x.mean is aten::mean, not handled */
        return sslat_node_gap_form(node) == SSLAT_GAP_MEAN ? 0.0 : n_in;
    case SSLAT_OP_CONV2D: case SSLAT_OP_LINEAR: case SSLAT_OP_ACT: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL:
    case SSLAT_OP_MAXPOOL: case SSLAT_OP_FLATTEN: case SSLAT_OP_IDENTITY:
    case SSLAT_OP_CHANNEL_SHUFFLE: case SSLAT_OP_CONCAT: case SSLAT_OP_CHANNEL_SLICE: case SSLAT_OP_SPACE_TO_DEPTH:
    case SSLAT_OP_INPUT: case SSLAT_OP_TOKENS: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_POSITION_EMBED:
    case SSLAT_OP_TOKEN_POOL: case SSLAT_OP_LEAKY_RELU: case SSLAT_OP_IMAGE:
    case SSLAT_OP_LAYER_SCALE: /* aten::mul is not handled */
    case SSLAT_OP_COUNT: return count_plain(in, node);
    }
    return count_plain(in, node);
}

/* pthflops ops_fx: conv M + bias B; nn.ReLU 2·Nout (other activations 0);
 * BN 2·Nout; MaxPool (K−1)·Nout; AvgPool K·Nout; AdaptiveAvgPool Hi·Wi·Nout;
 * Linear rows·in·out + out; operator + and * : Nout · 2 arguments. LayerNorm
 * is not in its table (0); explicit attention: q * scale (2·N·heads·L·head_dim)
 * and two operator @ (the plain count), with a position bias (q @ kᵀ) * scale
 * + bias instead (2·N·heads·L² each; the table's gather is a getitem, 0),
 * F.scaled_dot_product_attention 0;
 * x + pos_embed and a layer scale x * γ are operators (2·Nout), x.mul(γ) a method; tensor methods (softmax, transpose,
 * mean, expand) and torch.cat count nothing. */
static double count_pthflops(sslat_shape in, const sslat_node *node, bool conv_bias)
{
    double n_out = (double)sslat_shape_elements(node->shape);
    switch (node->op) {
    case SSLAT_OP_CONV2D: return conv_macs(in, node) + (conv_bias ? n_out : 0.0);
    case SSLAT_OP_ACT: return sslat_node_act(node) == SSLAT_ACT_RELU ? 2.0 * n_out : 0.0;
    case SSLAT_OP_BATCHNORM: return 2.0 * n_out;
    case SSLAT_OP_MAXPOOL: return (pool_area(node) - 1.0) * n_out;
    case SSLAT_OP_AVGPOOL: /* _count_globalavgpool reads the whole input plane: Hi·Wi·Nout */
        return sslat_node_pool(node)->adaptive ? (double)in.h * in.w * n_out : pool_area(node) * n_out;
    case SSLAT_OP_GLOBAL_AVGPOOL: /* the module only: F.adaptive_avg_pool2d and x.mean are not in its table */
        return sslat_node_gap_form(node) == SSLAT_GAP_MODULE ? (double)in.h * in.w * n_out : 0.0;
    case SSLAT_OP_LINEAR: { /* _count_linear is for nn.Linear modules; F.linear's call counts 0 */
        const sslat_linear_params *l = sslat_node_linear(node);
        return l->functional ? 0.0 : linear_macs(in, node) + (l->bias ? l->out_features : 0);
    }
    case SSLAT_OP_ADD:
    case SSLAT_OP_MUL_CHANNEL:
    case SSLAT_OP_POSITION_EMBED: return 2.0 * n_out;
    case SSLAT_OP_LAYER_SCALE: /* an operator * counts; the method x.mul(γ) is no function call to its tracer */
        return sslat_node_scale_form(node) == SSLAT_SCALE_OPERATOR ? 2.0 * n_out : 0.0;
    case SSLAT_OP_ATTENTION: {
        if (sslat_node_attention(node)->form != SSLAT_ATTENTION_EXPLICIT) return 0.0;
        const sslat_attention_params *a = sslat_node_attention(node);
        double scores = (double)in.n * a->heads * in.h * in.h;
        if (a->position_bias) /* (q @ kᵀ) * scale + bias: two operators on the scores */
            return 2.0 * scores + 2.0 * scores + attention_macs(in, node);
        return 2.0 * in.n * a->heads * (double)in.h * a->head_dim + attention_macs(in, node);
    }
    case SSLAT_OP_FLATTEN: case SSLAT_OP_IDENTITY: case SSLAT_OP_CHANNEL_SHUFFLE: case SSLAT_OP_CONCAT:
    case SSLAT_OP_CHANNEL_SLICE: case SSLAT_OP_UPSAMPLE: case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT:
    case SSLAT_OP_TOKENS: case SSLAT_OP_LAYERNORM: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_TOKEN_POOL:
    case SSLAT_OP_LEAKY_RELU: /* nn.ReLU only */
    case SSLAT_OP_IMAGE:
        return 0.0;
    case SSLAT_OP_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown op");
}

double sslat_mac_node(const sslat_graph *graph, const sslat_node *node, sslat_mac_rule rule, bool fuse_bn)
{
    if (node->op == SSLAT_OP_INPUT) return 0.0; /* a value computed by an earlier layer */
    sslat_shape in = sslat_graph_shape_of(graph, node->input[0]);
    if (fuse_bn && bn_folds(graph, node)) return 0.0; /* gone into its conv */
    switch (rule) {
    case SSLAT_MAC_PLAIN: return count_plain(in, node);
    case SSLAT_MAC_THOP: return count_thop(in, node);
    case SSLAT_MAC_FVCORE: return count_fvcore(in, node);
    case SSLAT_MAC_PTHFLOPS:
        return count_pthflops(in, node, node->op == SSLAT_OP_CONV2D && conv_has_bias(graph, node, fuse_bn));
    case SSLAT_MAC_RULE_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown MAC rule");
}

bool sslat_ignore_contains(const sslat_ignore_set *ignore, const sslat_node *node)
{
    if (!ignore) return false;
    if (ignore->ops & (1u << node->op)) return true;
    return node->op == SSLAT_OP_ACT && (ignore->acts & (1u << sslat_node_act(node)));
}

double sslat_mac_graph(const sslat_graph *graph, sslat_mac_rule rule,
                       const sslat_ignore_set *ignore, bool fuse_bn)
{
    double total = 0.0;
    for (int32_t i = 0; i < graph->count; i++)
        if (!sslat_ignore_contains(ignore, &graph->nodes[i]))
            total += sslat_mac_node(graph, &graph->nodes[i], rule, fuse_bn);
    return total;
}
