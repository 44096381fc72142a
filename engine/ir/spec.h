/* Layer specs: one parsed layer of a search-space file (a timm-style token
 * like "ir_k5_e6_c40_nhs" or its object form), before expansion. */
#ifndef SSLAT_SPEC_H
#define SSLAT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/op.h"

typedef enum sslat_layer_type {
    SSLAT_LAYER_CN,         /* conv-bn-act */
    SSLAT_LAYER_DS,         /* depthwise-separable */
    SSLAT_LAYER_IR,         /* MBConv / inverted residual */
    SSLAT_LAYER_ER,         /* fused MBConv (edge residual) */
    SSLAT_LAYER_BASIC,      /* ResNet basic block */
    SSLAT_LAYER_BOTTLENECK, /* ResNet bottleneck block */
    SSLAT_LAYER_CONV,       /* a bare convolution, no BN, no activation */
    SSLAT_LAYER_SKIP,       /* identity */
    SSLAT_LAYER_GAP,        /* global average pooling */
    SSLAT_LAYER_MAXPOOL,
    SSLAT_LAYER_AVGPOOL,
    SSLAT_LAYER_FLATTEN,
    SSLAT_LAYER_FC,         /* fcN: flatten if needed, linear with bias */
    SSLAT_LAYER_BN,
    SSLAT_LAYER_ACT,        /* relu, relu6, hswish, … as a layer */
    SSLAT_LAYER_SHUFFLE,    /* channel shuffle */
    SSLAT_LAYER_SV2,        /* ShuffleNetV2 unit: split or two branches, concat, shuffle */
    SSLAT_LAYER_UPSAMPLE,   /* nearest, scale s (2 by default) */
    SSLAT_LAYER_FOCUS,      /* YOLOv5's Focus: space-to-depth, then conv-bn-act */
    SSLAT_LAYER_C3,         /* YOLOv5's C3: CSP bottlenecks, concat, 1x1 */
    SSLAT_LAYER_CONVBLOCK,  /* ENOT's ConvBlock: k×k convs with a skip */
    SSLAT_LAYER_SPP,        /* YOLOv5's SPP: max pools 5, 9, 13 side by side, concat */
    SSLAT_LAYER_SPPF,       /* YOLOv5's SPPF: three chained max pools, concat */
    SSLAT_LAYER_CONCAT,     /* its `from` sources joined along channels */
    SSLAT_LAYER_DETECT,     /* YOLOv5's Detect: a 1x1 conv with bias per source (scale) */
    SSLAT_LAYER_ADD,        /* a + b of two sources */
    SSLAT_LAYER_MUL,        /* x · s of two sources, s N×C×1×1 (squeeze-excite's scaling) */
    SSLAT_LAYER_SLICE,      /* channels [o, o + c) of its input */
    SSLAT_LAYER_S2D,        /* space-to-depth alone (Focus's slicing) */
    SSLAT_LAYER_PATCH,      /* ViT's patch embedding: a k×k conv with bias at stride k, then to tokens */
    SSLAT_LAYER_TOKENS,     /* an image to tokens alone: x.flatten(2).transpose(1, 2) */
    SSLAT_LAYER_CLS,        /* a class token before the others */
    SSLAT_LAYER_POS,        /* + a learned position embedding */
    SSLAT_LAYER_LN,         /* LayerNorm over each token's channels */
    SSLAT_LAYER_ATTN,       /* multi-head self-attention: qkv linear, attention, output projection */
    SSLAT_LAYER_VIT,        /* a pre-norm transformer block: x + attn(ln(x)), x + mlp(ln(x)) (timm's Block) */
    SSLAT_LAYER_TOKPOOL,    /* the class token (or the tokens' mean) as a vector for the head */
    SSLAT_LAYER_SDPA,       /* the attention between attn's linears alone, on packed q|k|v tokens */
    SSLAT_LAYER_ADAPOOL,    /* nn.AdaptiveAvgPool2d(k) on a multiple of k: equal windows */
    SSLAT_LAYER_LEAKY,      /* nn.LeakyReLU(slope) */
    SSLAT_LAYER_IMAGE,      /* tokens back to an image: x.permute(0, 3, 1, 2) of N×H×W×C */
    SSLAT_LAYER_SCALE,      /* x · γ, a learned scale per channel (layer scale) */
    SSLAT_LAYER_CNX,        /* ConvNeXt's block (timm's ConvNeXtBlock): dw k×k, LayerNorm, MLP, layer scale, + x */
    SSLAT_LAYER_TYPE_COUNT
} sslat_layer_type;

/* One bit per option; spec.set records which were given explicitly. */
enum {
    SSLAT_OPT_R = 1u << 0,  /* repeat */
    SSLAT_OPT_K = 1u << 1,  /* kernel */
    SSLAT_OPT_S = 1u << 2,  /* stride */
    SSLAT_OPT_C = 1u << 3,  /* output channels (fcN: features) */
    SSLAT_OPT_E = 1u << 4,  /* expansion ratio */
    SSLAT_OPT_SE = 1u << 5, /* squeeze-excite ratio */
    SSLAT_OPT_G = 1u << 6,  /* groups */
    SSLAT_OPT_P = 1u << 7,  /* padding */
    SSLAT_OPT_D = 1u << 8,  /* dilation */
    SSLAT_OPT_N = 1u << 9,  /* activation */
    SSLAT_OPT_NOSKIP = 1u << 10,
    SSLAT_OPT_BIAS = 1u << 11, /* conv: with a bias */
    SSLAT_OPT_FN = 1u << 12,   /* gap: written F.adaptive_avg_pool2d(x, 1) */
    SSLAT_OPT_MEAN = 1u << 13, /* gap: written x.mean((2, 3)) */
    SSLAT_OPT_B = 1u << 14,    /* c3, convblock: inner blocks (YOLOv5's n) */
    SSLAT_OPT_A = 1u << 15,    /* detect: anchors per scale */
    SSLAT_OPT_O = 1u << 16,    /* slice: the first channel */
    SSLAT_OPT_H = 1u << 17,    /* attn, vit: heads */
    SSLAT_OPT_HD = 1u << 18,   /* attn, vit: channels per head (default: the width / heads) */
    SSLAT_OPT_EXPLICIT = 1u << 19, /* attn, vit: written q @ k.transpose, softmax, @ v (not F.scaled_dot_product_attention) */
    SSLAT_OPT_CEIL = 1u << 20, /* maxpool: ceil_mode=True */
    SSLAT_OPT_SLOPE = 1u << 21, /* leaky: the negative slope (default 0.01, PyTorch's) */
    SSLAT_OPT_W = 1u << 22,     /* image: the image's width (default: a square) */
    SSLAT_OPT_METHOD = 1u << 23, /* scale: written x.mul(γ), a tensor method (default: the operator x * γ) */
    SSLAT_OPT_CONVMLP = 1u << 24, /* cnx: LayerNorm2d and 1x1 convolutions (timm's conv_mlp) instead of permute + Linear */
    SSLAT_OPT_NOBIAS = 1u << 25,  /* fc: no bias (nn.Linear(bias=False)) */
    SSLAT_OPT_EPS = 1u << 26,     /* ln, vit, cnx: LayerNorm's epsilon (default 1e-6, timm's) */
    SSLAT_OPT_POSBIAS = 1u << 27, /* attn, vit, sdpa: a learned bias per head and token offset (LeViT's) */
};

/* The options that are flags (true or false: a token's bare word, an object's
 * boolean) and those that take a real number; the others take a whole number
 * (act a name, p also "same"). */
enum {
    SSLAT_FLAG_OPTIONS = SSLAT_OPT_NOSKIP | SSLAT_OPT_BIAS | SSLAT_OPT_FN | SSLAT_OPT_MEAN | SSLAT_OPT_EXPLICIT |
                         SSLAT_OPT_CEIL | SSLAT_OPT_METHOD | SSLAT_OPT_CONVMLP | SSLAT_OPT_NOBIAS |
                         SSLAT_OPT_POSBIAS,
    SSLAT_REAL_OPTIONS = SSLAT_OPT_E | SSLAT_OPT_SE | SSLAT_OPT_SLOPE | SSLAT_OPT_EPS,
};

/* The option bit of a key ("k", "se", "act", "noskip", …); false when unknown. */
bool sslat_spec_option_bit(const char *key, uint32_t *bit);

/* spec.padding of "p": "same" (token option psame): the padding follows the input. */
#define SSLAT_PADDING_SAME (-1)

typedef struct sslat_layer_spec {
    sslat_layer_type type;
    uint32_t set;
    int32_t repeat, kernel, stride, channels, groups, padding, dilation, blocks, anchors, offset, heads, head_dim,
        width;
    double expansion, se_ratio, slope, eps;
    sslat_act_kind act;
} sslat_layer_spec;

const char *sslat_layer_type_name(sslat_layer_type type);
/* The most `from` sources a layer type reads (1 for all but concat and detect). */
int sslat_layer_type_max_sources(sslat_layer_type type);
/* Options a layer type accepts (SSLAT_OPT_* bits). */
uint32_t sslat_layer_type_options(sslat_layer_type type);

/* A spec of the given type with nothing set. */
sslat_layer_spec sslat_spec_new(sslat_layer_type type);

/* Parse a layer type word ("ir", "fc1000", "relu6"); false when unknown. */
bool sslat_spec_parse_type(const char *word, sslat_layer_spec *spec);

/* Parse a whole token such as "ir_r2_k5_s2_e6_c40_se0.25_nhs".
 * On failure writes a one-line reason to why and returns false. */
bool sslat_spec_parse_token(const char *token, sslat_layer_spec *spec, char *why,
                            size_t why_size);

/* Set one option by its key ("k", "se", "act", "noskip", …) to an integer or
 * real value, checking that the type accepts it and the value is in range. */
bool sslat_spec_set_int(sslat_layer_spec *spec, const char *key, int64_t value, char *why,
                        size_t why_size);
bool sslat_spec_set_real(sslat_layer_spec *spec, const char *key, double value, char *why,
                         size_t why_size);
bool sslat_spec_set_act(sslat_layer_spec *spec, sslat_act_kind act, char *why, size_t why_size);
/* "p": "same": TensorFlow's / PyTorch's 'same' padding (convolutions only). */
bool sslat_spec_set_same_padding(sslat_layer_spec *spec, char *why, size_t why_size);

/* Fill options not set in spec from defaults (a choice's c, s, act, se) where
 * the type accepts them. */
void sslat_spec_apply_defaults(sslat_layer_spec *spec, const sslat_layer_spec *defaults);

/* Write the spec back as a canonical token (only the options that are set). */
void sslat_spec_format(const sslat_layer_spec *spec, char *buffer, size_t size);

/* Activation by its token code ("re", "r6", "hs", "sw", "sg"); -1 if unknown. */
int sslat_act_from_code(const char *code);

#endif
