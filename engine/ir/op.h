/* The operation IR: primitive ops, their typed parameters, and graph nodes. */
#ifndef SSLAT_OP_H
#define SSLAT_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/assert.h"

/* Primitive ops. Serialized in containers and hashes: append only. */
typedef enum sslat_op_kind {
    SSLAT_OP_CONV2D,
    SSLAT_OP_BATCHNORM,
    SSLAT_OP_ACT,
    SSLAT_OP_ADD,
    SSLAT_OP_MUL_CHANNEL,
    SSLAT_OP_GLOBAL_AVGPOOL,
    SSLAT_OP_MAXPOOL,
    SSLAT_OP_AVGPOOL,
    SSLAT_OP_LINEAR,
    SSLAT_OP_FLATTEN,
    SSLAT_OP_IDENTITY,
    SSLAT_OP_CHANNEL_SHUFFLE,
    SSLAT_OP_CONCAT,        /* 2..SSLAT_MAX_NODE_INPUTS inputs joined along channels, in order */
    SSLAT_OP_CHANNEL_SLICE, /* channels [start, start + length) of its input (a split's half) */
    SSLAT_OP_UPSAMPLE,      /* nearest neighbour, an integer scale on H and W (nn.Upsample(mode="nearest")) */
    SSLAT_OP_SPACE_TO_DEPTH, /* YOLOv5's Focus slicing: 2x2 pixel blocks into 4 channel groups */
    SSLAT_OP_INPUT,          /* another input of a layer that reads several (`from`): no inputs, its shape given */
    /* Token ops: they read and write token tensors N×L×C (sslat_shape.tokens). */
    SSLAT_OP_TOKENS,         /* image N×C×H×W to tokens N×(H·W)×C: x.flatten(2).transpose(1, 2) */
    SSLAT_OP_LAYERNORM,      /* nn.LayerNorm over each token's C channels, with weight and bias (its eps: params) */
    SSLAT_OP_ATTENTION,      /* scaled dot-product attention of packed q|k|v tokens N×L×3·H·D to N×L×H·D */
    SSLAT_OP_CLASS_TOKEN,    /* a learned token before the others: cat((cls.expand(N, -1, -1), x), 1) */
    SSLAT_OP_POSITION_EMBED, /* x + a learned 1×L×C position embedding */
    SSLAT_OP_TOKEN_POOL,     /* tokens to a vector N×C×1×1: the class token x[:, 0] or the mean x.mean(1) */
    SSLAT_OP_LEAKY_RELU,     /* x if x > 0 else slope · x (nn.LeakyReLU(slope)), any tensor */
    SSLAT_OP_IMAGE,          /* tokens N×(H·W)×C back to an image N×C×H×W: x.permute(0, 3, 1, 2) of N×H×W×C */
    SSLAT_OP_LAYER_SCALE,    /* x · γ, a learned scale per channel (ConvNeXt's gamma, timm's LayerScale), any tensor */
    SSLAT_OP_COUNT
} sslat_op_kind;

/* Activation functions of SSLAT_OP_ACT. Append only. */
typedef enum sslat_act_kind {
    SSLAT_ACT_RELU,
    SSLAT_ACT_RELU6,
    SSLAT_ACT_HSWISH,
    SSLAT_ACT_HSIGMOID,
    SSLAT_ACT_SIGMOID,
    SSLAT_ACT_SILU,
    SSLAT_ACT_GELU,
    SSLAT_ACT_TANH,
    SSLAT_ACT_GELU_TANH, /* nn.GELU(approximate="tanh"); SSLAT_ACT_GELU is the exact (erf) form */
    SSLAT_ACT_COUNT
} sslat_act_kind;

/* Tensor shape N, C, H, W. Vectors (after flatten / linear) are N×C×1×1.
 * Token tensors N×L×C (a transformer's) have tokens set, L in h and w = 1;
 * their values are stored token after token (PyTorch's contiguous N×L×C). */
typedef struct sslat_shape {
    int32_t n, c, h, w;
    bool tokens;
} sslat_shape;

typedef struct sslat_conv_params {
    int32_t out_channels;
    int32_t kernel;   /* square kernel */
    int32_t stride;
    int32_t padding;  /* on every side (0 with same) */
    int32_t dilation;
    int32_t groups;
    bool bias;
    bool same;        /* TensorFlow's and PyTorch's 'same': the padding follows the input (sslat_conv_pads) */
} sslat_conv_params;

/* A convolution's zero padding on each side of H and W. */
typedef struct sslat_pads {
    int32_t top, left, bottom, right;
} sslat_pads;

typedef struct sslat_pool_params {
    int32_t kernel, stride, padding;
    bool ceil;     /* maxpool: ceil_mode=True, the last window may hang over the bottom and right (GoogLeNet) */
    bool adaptive; /* avgpool: written nn.AdaptiveAvgPool2d(out) on a multiple of out (equal windows, VGG's
                      7×7): the same numbers, counted apart by the MAC rules */
} sslat_pool_params;

typedef struct sslat_slice_params {
    int32_t start, length; /* channels */
} sslat_slice_params;

typedef struct sslat_linear_params {
    int32_t out_features;
    bool bias;
    bool functional; /* F.linear inside another module (nn.MultiheadAttention's projections): thop and
                        pthflops count only nn.Linear modules */
} sslat_linear_params;

/* How a model wrote its global average pool: the counters of the MAC rules
 * see the three differently (thop and pthflops see only the module). */
typedef enum sslat_gap_form {
    SSLAT_GAP_MODULE,     /* nn.AdaptiveAvgPool2d(1) */
    SSLAT_GAP_FUNCTIONAL, /* F.adaptive_avg_pool2d(x, 1) */
    SSLAT_GAP_MEAN,       /* x.mean((2, 3)) */
    SSLAT_GAP_FORM_COUNT
} sslat_gap_form;

/* How a model wrote its attention: the MAC rules see the forms differently
 * (a fused call is no module and no matmul to thop, fvcore or pthflops). */
typedef enum sslat_attention_form {
    SSLAT_ATTENTION_FUSED,    /* F.scaled_dot_product_attention(q, k, v) (timm's default) */
    SSLAT_ATTENTION_EXPLICIT, /* (q * scale) @ k.transpose(-2, -1), .softmax(-1), @ v */
    SSLAT_ATTENTION_FORM_COUNT
} sslat_attention_form;

typedef struct sslat_attention_params {
    int32_t heads, head_dim; /* the input is q|k|v, each heads × head_dim wide */
    sslat_attention_form form;
    /* A learned bias per head and token offset added to the scaled scores
     * before the softmax, as LeViT's and EfficientFormer's attention_biases:
     * the L tokens are an R×R grid (L = R²), the table heads × L values, and
     * tokens i, j read its entry |yi − yj|·R + |xi − xj|. The explicit form
     * with a bias is written as both models write it: (q @ kᵀ) * scale + bias;
     * the fused one passes the gathered bias as attn_mask. */
    bool position_bias;
} sslat_attention_params;

/* Which token a transformer's head reads. */
typedef enum sslat_token_pool_form {
    SSLAT_TOKEN_POOL_CLASS, /* x[:, 0] (ViT, DeiT) */
    SSLAT_TOKEN_POOL_MEAN,  /* x.mean(1) (EfficientFormer, global_pool="avg") */
    SSLAT_TOKEN_POOL_FORM_COUNT
} sslat_token_pool_form;

/* The image an N×L×C token tensor is read back as: H × W = L. */
typedef struct sslat_image_params {
    int32_t h, w;
} sslat_image_params;

/* How a model wrote its layer scale: pthflops counts the operator `x * γ`
 * (and torch.mul) but not the tensor method `x.mul(γ)`. */
typedef enum sslat_scale_form {
    SSLAT_SCALE_OPERATOR, /* x * gamma (torchvision's CNBlock, timm's LayerScale) */
    SSLAT_SCALE_METHOD,   /* x.mul(gamma.reshape(1, -1, 1, 1)) (timm's ConvNeXtBlock) */
    SSLAT_SCALE_FORM_COUNT
} sslat_scale_form;

typedef union sslat_op_params {
    sslat_conv_params conv;     /* CONV2D */
    sslat_pool_params pool;     /* MAXPOOL, AVGPOOL */
    sslat_act_kind act;         /* ACT */
    sslat_linear_params linear; /* LINEAR */
    int32_t shuffle_groups;     /* CHANNEL_SHUFFLE */
    sslat_gap_form gap_form;    /* GLOBAL_AVGPOOL (zeroed params: the module) */
    sslat_slice_params slice;   /* CHANNEL_SLICE */
    int32_t upsample_scale;     /* UPSAMPLE */
    sslat_attention_params attention; /* ATTENTION */
    sslat_token_pool_form token_pool; /* TOKEN_POOL */
    float slope;                      /* LEAKY_RELU: the negative slope */
    sslat_image_params image;         /* IMAGE */
    sslat_scale_form scale_form;      /* LAYER_SCALE */
    float layernorm_eps;              /* LAYERNORM: 0 stands for timm's 1e-6 (SSLAT_LN_DEFAULT_EPSILON) */
} sslat_op_params;

/* LayerNorm's epsilon where a layernorm node gives none: timm's transformers'
 * (nn.LayerNorm's own default is 1e-5). */
#define SSLAT_LN_DEFAULT_EPSILON 1e-6f

/* Index of a node's input that means "the subgraph's input". */
#define SSLAT_GRAPH_INPUT (-1)
/* An unused input slot. */
#define SSLAT_NO_INPUT (-2)
/* Inputs a node may read: a concat joins at most this many (DenseNet-121's
 * last dense layers join 25). */
#define SSLAT_MAX_NODE_INPUTS 32

typedef struct sslat_node {
    sslat_op_kind op;
    int32_t input[SSLAT_MAX_NODE_INPUTS]; /* earlier node indices or SSLAT_GRAPH_INPUT; unused: SSLAT_NO_INPUT */
    sslat_op_params params; /* read through the accessors below */
    sslat_shape shape;      /* output, from shape inference */
    char name[24];          /* role inside its composite layer, e.g. "dw", "se_reduce" */
} sslat_node;

const char *sslat_op_name(sslat_op_kind op);
const char *sslat_act_name(sslat_act_kind act);
/* Lookup by name; -1 when unknown. */
int sslat_op_from_name(const char *name);
int sslat_act_from_name(const char *name);
/* Number of inputs an op takes (1 or 2; a concat: 0, it takes 2..SSLAT_MAX_NODE_INPUTS;
 * an input: -1, it reads none). */
int sslat_op_arity(sslat_op_kind op);
/* Inputs a node reads (its used slots, which come first). */
int sslat_node_input_count(const sslat_node *node);

/* Typed, checked accessors: asking a node for the wrong params aborts. */
const sslat_conv_params *sslat_node_conv(const sslat_node *node);
const sslat_pool_params *sslat_node_pool(const sslat_node *node);
sslat_act_kind sslat_node_act(const sslat_node *node);
const sslat_linear_params *sslat_node_linear(const sslat_node *node);
int32_t sslat_node_shuffle_groups(const sslat_node *node);
sslat_gap_form sslat_node_gap_form(const sslat_node *node);
const sslat_slice_params *sslat_node_slice(const sslat_node *node);
int32_t sslat_node_upsample_scale(const sslat_node *node);
const sslat_attention_params *sslat_node_attention(const sslat_node *node);
sslat_token_pool_form sslat_node_token_pool(const sslat_node *node);
float sslat_node_slope(const sslat_node *node);
const sslat_image_params *sslat_node_image(const sslat_node *node);
sslat_scale_form sslat_node_scale_form(const sslat_node *node);
/* The epsilon a layernorm node normalises with (its own, or SSLAT_LN_DEFAULT_EPSILON). */
float sslat_node_layernorm_eps(const sslat_node *node);
const char *sslat_scale_form_name(sslat_scale_form form);
const char *sslat_attention_form_name(sslat_attention_form form);
const char *sslat_token_pool_form_name(sslat_token_pool_form form);
/* R when `tokens` is a square grid R×R (R ≥ 1), else 0. */
int32_t sslat_square_grid_side(int32_t tokens);
/* The entry of an attention bias table (heads × R² per head) that tokens i
 * and j of an R×R grid read: |yi − yj|·R + |xi − xj|, as LeViT's
 * attention_bias_idxs. */
int32_t sslat_attention_bias_index(int32_t side, int32_t i, int32_t j);
/* Whether an op reads token tensors (true) or images and vectors (false);
 * add, act and identity read either. */
bool sslat_op_reads_tokens(sslat_op_kind op);
bool sslat_op_reads_either(sslat_op_kind op);

/* The padding conv applies to an input of shape in: `padding` on every side,
 * or with `same` the total that gives ceil(in / stride) outputs, its odd
 * pixel at the bottom and right (TensorFlow's rule, timm's Conv2dSame,
 * PyTorch's padding='same'). */
sslat_pads sslat_conv_pads(const sslat_conv_params *conv, sslat_shape in);
/* Whether a padding is the same on every side. */
bool sslat_pads_symmetric(sslat_pads pads);

/* Element count of a shape; only for shapes that passed sslat_shape_fits. */
int64_t sslat_shape_elements(sslat_shape shape);
/* Whether the element count is within SSLAT_MAX_ELEMENTS (computed without overflow). */
bool sslat_shape_fits(sslat_shape shape);

#endif
