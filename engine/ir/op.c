#include "ir/op.h"

#include "base/limits.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const OP_NAMES[] = {
    "conv2d",  "batchnorm", "act",    "add",     "mul_channel", "global_avgpool",
    "maxpool", "avgpool",   "linear", "flatten", "identity",    "channel_shuffle",
    "concat",  "channel_slice", "upsample", "space_to_depth", "input",
    "tokens",  "layernorm", "attention", "class_token", "position_embed", "token_pool", "leaky_relu",
    "image",   "layer_scale",
};
static_assert(sizeof(OP_NAMES) / sizeof(OP_NAMES[0]) == SSLAT_OP_COUNT,
              "OP_NAMES must name every sslat_op_kind");

static const char *const ACT_NAMES[] = {
    "relu", "relu6", "hswish", "hsigmoid", "sigmoid", "silu", "gelu", "tanh", "gelu_tanh",
};
static_assert(sizeof(ACT_NAMES) / sizeof(ACT_NAMES[0]) == SSLAT_ACT_COUNT,
              "ACT_NAMES must name every sslat_act_kind");

const char *sslat_op_name(sslat_op_kind op)
{
    SSLAT_ASSERT(op >= 0 && op < SSLAT_OP_COUNT);
    return OP_NAMES[op];
}

const char *sslat_act_name(sslat_act_kind act)
{
    SSLAT_ASSERT(act >= 0 && act < SSLAT_ACT_COUNT);
    return ACT_NAMES[act];
}

static int index_of(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int sslat_op_from_name(const char *name) { return index_of(OP_NAMES, SSLAT_OP_COUNT, name); }
int sslat_act_from_name(const char *name) { return index_of(ACT_NAMES, SSLAT_ACT_COUNT, name); }

int sslat_op_arity(sslat_op_kind op)
{
    if (op == SSLAT_OP_CONCAT) return 0;
    if (op == SSLAT_OP_INPUT) return -1;
    return (op == SSLAT_OP_ADD || op == SSLAT_OP_MUL_CHANNEL) ? 2 : 1;
}

int sslat_node_input_count(const sslat_node *node)
{
    int n = 0;
    while (n < SSLAT_MAX_NODE_INPUTS && node->input[n] != SSLAT_NO_INPUT) n++;
    return n;
}

const sslat_conv_params *sslat_node_conv(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_CONV2D);
    return &node->params.conv;
}

const sslat_pool_params *sslat_node_pool(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_MAXPOOL || node->op == SSLAT_OP_AVGPOOL);
    return &node->params.pool;
}

sslat_act_kind sslat_node_act(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_ACT);
    return node->params.act;
}

const sslat_linear_params *sslat_node_linear(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_LINEAR);
    return &node->params.linear;
}

int32_t sslat_node_shuffle_groups(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_CHANNEL_SHUFFLE);
    return node->params.shuffle_groups;
}

sslat_gap_form sslat_node_gap_form(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_GLOBAL_AVGPOOL);
    return node->params.gap_form;
}

const sslat_slice_params *sslat_node_slice(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_CHANNEL_SLICE);
    return &node->params.slice;
}

int32_t sslat_node_upsample_scale(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_UPSAMPLE);
    return node->params.upsample_scale;
}

const sslat_attention_params *sslat_node_attention(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_ATTENTION);
    return &node->params.attention;
}

sslat_token_pool_form sslat_node_token_pool(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_TOKEN_POOL);
    return node->params.token_pool;
}

float sslat_node_slope(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_LEAKY_RELU);
    return node->params.slope;
}

const sslat_image_params *sslat_node_image(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_IMAGE);
    return &node->params.image;
}

float sslat_node_layernorm_eps(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_LAYERNORM);
    return node->params.layernorm_eps > 0 ? node->params.layernorm_eps : SSLAT_LN_DEFAULT_EPSILON;
}

sslat_scale_form sslat_node_scale_form(const sslat_node *node)
{
    SSLAT_ASSERT(node->op == SSLAT_OP_LAYER_SCALE);
    return node->params.scale_form;
}

const char *sslat_scale_form_name(sslat_scale_form form)
{
    static const char *const NAMES[] = {"operator", "method"};
    static_assert(sizeof NAMES / sizeof NAMES[0] == SSLAT_SCALE_FORM_COUNT, "NAMES must name every form");
    SSLAT_ASSERT(form >= 0 && form < SSLAT_SCALE_FORM_COUNT);
    return NAMES[form];
}

const char *sslat_attention_form_name(sslat_attention_form form)
{
    static const char *const NAMES[] = {"fused", "explicit"};
    static_assert(sizeof NAMES / sizeof NAMES[0] == SSLAT_ATTENTION_FORM_COUNT, "NAMES must name every form");
    SSLAT_ASSERT(form >= 0 && form < SSLAT_ATTENTION_FORM_COUNT);
    return NAMES[form];
}

const char *sslat_token_pool_form_name(sslat_token_pool_form form)
{
    static const char *const NAMES[] = {"class", "mean"};
    static_assert(sizeof NAMES / sizeof NAMES[0] == SSLAT_TOKEN_POOL_FORM_COUNT, "NAMES must name every form");
    SSLAT_ASSERT(form >= 0 && form < SSLAT_TOKEN_POOL_FORM_COUNT);
    return NAMES[form];
}

int32_t sslat_square_grid_side(int32_t tokens)
{
    if (tokens < 1) return 0;
    int32_t side = (int32_t)sqrt((double)tokens);
    while ((int64_t)side * side > tokens) side--;
    while ((int64_t)(side + 1) * (side + 1) <= tokens) side++;
    return (int64_t)side * side == tokens ? side : 0;
}

int32_t sslat_attention_bias_index(int32_t side, int32_t i, int32_t j)
{
    return abs(i / side - j / side) * side + abs(i % side - j % side);
}

bool sslat_op_reads_tokens(sslat_op_kind op)
{
    return op == SSLAT_OP_LAYERNORM || op == SSLAT_OP_ATTENTION || op == SSLAT_OP_CLASS_TOKEN ||
           op == SSLAT_OP_POSITION_EMBED || op == SSLAT_OP_TOKEN_POOL || op == SSLAT_OP_IMAGE;
}

bool sslat_op_reads_either(sslat_op_kind op)
{
    /* linear reads a vector or each token; the element-wise ops any tensor */
    return op == SSLAT_OP_ACT || op == SSLAT_OP_ADD || op == SSLAT_OP_IDENTITY || op == SSLAT_OP_LINEAR ||
           op == SSLAT_OP_INPUT || op == SSLAT_OP_LEAKY_RELU || op == SSLAT_OP_LAYER_SCALE;
}

bool sslat_shape_fits(sslat_shape s)
{
    /* each factor is below 2^21, so the product in double is exact enough to compare */
    return (double)s.n * s.c * s.h * s.w <= (double)SSLAT_MAX_ELEMENTS;
}

/* 'same' along one dimension: the total padding for ceil(in / stride) outputs, split with the odd pixel at the end. */
static void same_padding(int32_t in, const sslat_conv_params *c, int32_t *begin, int32_t *end)
{
    int64_t out = ((int64_t)in + c->stride - 1) / c->stride;
    int64_t total = (out - 1) * c->stride + (int64_t)c->dilation * (c->kernel - 1) + 1 - in;
    if (total < 0) total = 0;
    *begin = (int32_t)(total / 2);
    *end = (int32_t)(total - total / 2);
}

sslat_pads sslat_conv_pads(const sslat_conv_params *conv, sslat_shape in)
{
    sslat_pads pads = {conv->padding, conv->padding, conv->padding, conv->padding};
    if (conv->same) {
        same_padding(in.h, conv, &pads.top, &pads.bottom);
        same_padding(in.w, conv, &pads.left, &pads.right);
    }
    return pads;
}

bool sslat_pads_symmetric(sslat_pads pads)
{
    return pads.top == pads.left && pads.top == pads.bottom && pads.top == pads.right;
}

int64_t sslat_shape_elements(sslat_shape s)
{
    SSLAT_ASSERT(sslat_shape_fits(s));
    return (int64_t)s.n * s.c * s.h * s.w;
}
