#include "ir/expand.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"

int32_t sslat_make_divisible(double value, int32_t divisor)
{
    double rounded = floor((value + divisor / 2.0) / divisor) * divisor;
    if (rounded < divisor) rounded = divisor;
    if (rounded < 0.9 * value) rounded += divisor;
    return rounded > SSLAT_MAX_CHANNELS ? SSLAT_MAX_CHANNELS + 1 : (int32_t)rounded;
}

/* Options resolved with their defaults. */
typedef struct resolved {
    int32_t in_channels, out_channels, kernel, stride, padding, dilation, groups;
    double expansion, se_ratio;
    sslat_act_kind act;
    bool residual_allowed;
} resolved;

static resolved resolve(const sslat_layer_spec *spec, int32_t in_channels)
{
    resolved r;
    bool pool = spec->type == SSLAT_LAYER_MAXPOOL || spec->type == SSLAT_LAYER_AVGPOOL;
    r.in_channels = in_channels;
    r.out_channels = (spec->set & SSLAT_OPT_C) ? spec->channels : in_channels;
    r.kernel = (spec->set & SSLAT_OPT_K) ? spec->kernel : (pool ? 2 : 3);
    r.stride = (spec->set & SSLAT_OPT_S) ? spec->stride : (pool ? r.kernel : 1);
    r.dilation = (spec->set & SSLAT_OPT_D) ? spec->dilation : 1;
    /* "same" padding; for even kernels the smaller half, as PyTorch pads symmetrically */
    r.padding = (spec->set & SSLAT_OPT_P) ? spec->padding : r.dilation * (r.kernel - 1) / 2;
    r.groups = (spec->set & SSLAT_OPT_G) ? spec->groups : 1;
    r.expansion = (spec->set & SSLAT_OPT_E) ? spec->expansion
                  : spec->type == SSLAT_LAYER_BOTTLENECK ? 0.25
                                                          : 1.0;
    r.se_ratio = (spec->set & SSLAT_OPT_SE) ? spec->se_ratio : 0.0;
    r.act = (spec->set & SSLAT_OPT_N) ? spec->act : SSLAT_ACT_RELU;
    r.residual_allowed = !(spec->set & SSLAT_OPT_NOSKIP);
    return r;
}

/* Small helpers that append one op to the current chain. `at` is the node
 * the op reads and becomes the op's own index. */
typedef struct builder {
    sslat_graph *graph;
    sslat_error *err;
    sslat_status status;
    const int32_t *sources; /* what the layer reads: sources[0] first (`from`) */
    int n_sources;
} builder;

static void add_op(builder *b, int32_t *at, sslat_op_kind op, const sslat_op_params *params,
                   int32_t second, const char *name)
{
    if (b->status != SSLAT_OK) return;
    b->status = sslat_graph_add(b->graph, op, params, *at, second, name, at, b->err);
}

static void conv(builder *b, int32_t *at, int32_t out, int32_t kernel, int32_t stride,
                 int32_t padding, int32_t dilation, int32_t groups, bool bias, const char *name)
{
    bool same = padding == SSLAT_PADDING_SAME;
    sslat_op_params p = {.conv = {out, kernel, stride, same ? 0 : padding, dilation, groups, bias, same}};
    add_op(b, at, SSLAT_OP_CONV2D, &p, SSLAT_NO_INPUT, name);
}

/* conv with "same" padding, no dilation, no bias: the 1x1 and kxk of blocks */
static void conv_plain(builder *b, int32_t *at, int32_t out, int32_t kernel, int32_t stride,
                       int32_t groups, const char *name)
{
    conv(b, at, out, kernel, stride, (kernel - 1) / 2, 1, groups, false, name);
}

static void unary(builder *b, int32_t *at, sslat_op_kind op, const char *name)
{
    add_op(b, at, op, NULL, SSLAT_NO_INPUT, name);
}

static void act(builder *b, int32_t *at, sslat_act_kind kind, const char *name)
{
    sslat_op_params p = {.act = kind};
    add_op(b, at, SSLAT_OP_ACT, &p, SSLAT_NO_INPUT, name);
}

static void binary(builder *b, int32_t *at, sslat_op_kind op, int32_t other, const char *name)
{
    add_op(b, at, op, NULL, other, name);
}

static int32_t channels_at(const builder *b, int32_t at)
{
    return sslat_graph_shape_of(b->graph, at).c;
}

/* Squeeze-excite on `at`: gap, 1x1 reduce + act, 1x1 expand + gate, x * s.
 * Reduced channels: make_divisible(C * ratio, 8) of the expanded width C (OFA /
 * MobileNetV3), or as the context says: of the block's input width, another
 * divisor, max(1, floor(·)) for divisor 1 (torchvision's EfficientNet:
 * max(1, in // 4)), another inner activation (EfficientNet: SiLU). */
static void squeeze_excite(builder *b, int32_t *at, const resolved *r, const sslat_expand_context *ctx)
{
    int32_t channels = channels_at(b, *at);
    double base = (ctx->se_from_input ? r->in_channels : channels) * r->se_ratio;
    int32_t divisor = ctx->se_divisor > 0 ? ctx->se_divisor : 8;
    int32_t reduced = divisor > 1 ? sslat_make_divisible(base, divisor) : (base < 1.0 ? 1 : (int32_t)floor(base));
    int32_t x = *at;
    unary(b, at, SSLAT_OP_GLOBAL_AVGPOOL, "se_pool");
    conv(b, at, reduced, 1, 1, 0, 1, 1, true, "se_reduce");
    act(b, at, ctx->se_act, "se_act");
    conv(b, at, channels, 1, 1, 0, 1, 1, true, "se_expand");
    act(b, at, ctx->se_gate, "se_gate");
    int32_t scale = *at;
    *at = x;
    binary(b, at, SSLAT_OP_MUL_CHANNEL, scale, "se_mul");
}

static void residual(builder *b, int32_t *at, int32_t block_input, const resolved *r)
{
    if (r->residual_allowed && r->stride == 1 && r->in_channels == r->out_channels)
        binary(b, at, SSLAT_OP_ADD, block_input, "residual");
}

static int32_t expanded_channels(const resolved *r)
{
    return sslat_make_divisible(r->in_channels * r->expansion, 8);
}

/* depthwise k×k (stride) → BN → act → optional squeeze-excite: the middle of ir and ds */
static void depthwise_stage(builder *b, int32_t *at, int32_t channels, const resolved *r,
                            const sslat_expand_context *ctx)
{
    conv(b, at, channels, r->kernel, r->stride, r->padding, r->dilation, channels, false, "dw");
    unary(b, at, SSLAT_OP_BATCHNORM, "dw_bn");
    act(b, at, r->act, "dw_act");
    if (r->se_ratio > 0) squeeze_excite(b, at, r, ctx);
}

/* linear 1×1 projection → BN → residual: the end of ir, ds and er */
static void project_stage(builder *b, int32_t *at, int32_t block_input, int32_t groups,
                          const resolved *r)
{
    conv_plain(b, at, r->out_channels, 1, 1, groups, "project");
    unary(b, at, SSLAT_OP_BATCHNORM, "project_bn");
    residual(b, at, block_input, r);
}

static void expand_ir(builder *b, int32_t *at, const resolved *r, const sslat_expand_context *ctx)
{
    int32_t input = *at;
    /* with grouped pointwise convs (FBNet's g2) the 1x1 expansion stays even at e1 */
    bool expand = r->expansion != 1.0 || r->groups > 1;
    int32_t mid = expand ? expanded_channels(r) : r->in_channels;
    if (expand) {
        conv_plain(b, at, mid, 1, 1, r->groups, "expand");
        unary(b, at, SSLAT_OP_BATCHNORM, "expand_bn");
        act(b, at, r->act, "expand_act");
        if (r->groups > 1) {
            sslat_op_params p = {.shuffle_groups = r->groups};
            add_op(b, at, SSLAT_OP_CHANNEL_SHUFFLE, &p, SSLAT_NO_INPUT, "shuffle");
        }
    }
    depthwise_stage(b, at, mid, r, ctx);
    project_stage(b, at, input, r->groups, r);
}

static void expand_ds(builder *b, int32_t *at, const resolved *r, const sslat_expand_context *ctx)
{
    int32_t input = *at;
    depthwise_stage(b, at, r->in_channels, r, ctx);
    project_stage(b, at, input, 1, r);
}

static void expand_er(builder *b, int32_t *at, const resolved *r, const sslat_expand_context *ctx)
{
    int32_t input = *at;
    int32_t mid = expanded_channels(r);
    conv(b, at, mid, r->kernel, r->stride, r->padding, r->dilation, 1, false, "conv_exp");
    unary(b, at, SSLAT_OP_BATCHNORM, "exp_bn");
    act(b, at, r->act, "exp_act");
    if (r->se_ratio > 0) squeeze_excite(b, at, r, ctx);
    project_stage(b, at, input, 1, r);
}

/* torchvision's shortcut: identity, or 1x1 conv (stride) + bn when the shape changes */
static void shortcut_and_join(builder *b, int32_t *at, int32_t input, const resolved *r)
{
    int32_t main_path = *at;
    int32_t shortcut = input;
    if (r->stride != 1 || r->in_channels != r->out_channels) {
        conv_plain(b, &shortcut, r->out_channels, 1, r->stride, 1, "downsample");
        unary(b, &shortcut, SSLAT_OP_BATCHNORM, "downsample_bn");
    }
    *at = main_path;
    binary(b, at, SSLAT_OP_ADD, shortcut, "residual");
    act(b, at, r->act, "out_act");
}

static void expand_basic(builder *b, int32_t *at, const resolved *r)
{
    int32_t input = *at;
    conv_plain(b, at, r->out_channels, r->kernel, r->stride, 1, "conv1");
    unary(b, at, SSLAT_OP_BATCHNORM, "bn1");
    act(b, at, r->act, "act1");
    conv_plain(b, at, r->out_channels, r->kernel, 1, 1, "conv2");
    unary(b, at, SSLAT_OP_BATCHNORM, "bn2");
    shortcut_and_join(b, at, input, r);
}

static void expand_bottleneck(builder *b, int32_t *at, const resolved *r)
{
    int32_t input = *at;
    /* torchvision: out = planes * 4 and width = planes for ResNet; e = width / out
     * (default 0.25), so ResNeXt-50 32x4d's first stage is bottleneck_c256_e0.5_g32 */
    int32_t width = (int32_t)lround(r->out_channels * r->expansion);
    if (width < 1) width = 1;
    conv_plain(b, at, width, 1, 1, 1, "conv1");
    unary(b, at, SSLAT_OP_BATCHNORM, "bn1");
    act(b, at, r->act, "act1");
    conv_plain(b, at, width, r->kernel, r->stride, r->groups, "conv2"); /* stride on 3x3 (v1.5) */
    unary(b, at, SSLAT_OP_BATCHNORM, "bn2");
    act(b, at, r->act, "act2");
    conv_plain(b, at, r->out_channels, 1, 1, 1, "conv3");
    unary(b, at, SSLAT_OP_BATCHNORM, "bn3");
    shortcut_and_join(b, at, input, r);
}

static void expand_fc(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, *at);
    if (!in.tokens && (in.h != 1 || in.w != 1)) unary(b, at, SSLAT_OP_FLATTEN, "flatten"); /* tokens: per token */
    sslat_op_params p = {.linear = {spec->channels, !(spec->set & SSLAT_OPT_NOBIAS), (spec->set & SSLAT_OPT_FN) != 0}};
    add_op(b, at, SSLAT_OP_LINEAR, &p, SSLAT_NO_INPUT, "fc");
}

/* ---- transformers (timm's VisionTransformer) ------------------------------------------ */

static void linear(builder *b, int32_t *at, int32_t out, const char *name)
{
    sslat_op_params p = {.linear = {out, true, false}};
    add_op(b, at, SSLAT_OP_LINEAR, &p, SSLAT_NO_INPUT, name);
}

/* How an attention layer writes its attention (fused or explicit) and whether
 * it has a position bias: attn, vit and sdpa alike. */
static void attention_form(const sslat_layer_spec *spec, sslat_attention_params *a)
{
    a->form = (spec->set & SSLAT_OPT_EXPLICIT) ? SSLAT_ATTENTION_EXPLICIT : SSLAT_ATTENTION_FUSED;
    a->position_bias = (spec->set & SSLAT_OPT_POSBIAS) != 0;
}

/* Heads and head width of an attn or vit layer on `width` channels: the head
 * width defaults to width / heads, which must then divide evenly. */
static sslat_status attention_shape(builder *b, const sslat_layer_spec *spec, int32_t width,
                                    sslat_attention_params *a)
{
    if (!(spec->set & SSLAT_OPT_H))
        return b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "'%s' needs its number of heads (h)",
                                      sslat_layer_type_name(spec->type));
    a->heads = spec->heads;
    a->head_dim = (spec->set & SSLAT_OPT_HD) ? spec->head_dim : width / spec->heads;
    attention_form(spec, a);
    if (!(spec->set & SSLAT_OPT_HD) && width % spec->heads != 0)
        return b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "%d heads do not divide the width %d (give hd, the "
                                      "channels per head, or heads that divide it)", spec->heads, width);
    if ((int64_t)a->heads * a->head_dim * 3 > SSLAT_MAX_CHANNELS)
        return b->status = sslat_fail(b->err, SSLAT_ERR_LIMIT, "q|k|v of %d heads × %d channels exceed %d channels",
                                      a->heads, a->head_dim, SSLAT_MAX_CHANNELS);
    return SSLAT_OK;
}

/* tokens back to an image of h × w pixels */
static void to_image(builder *b, int32_t *at, int32_t h, int32_t w, const char *name)
{
    sslat_op_params p;
    memset(&p, 0, sizeof p);
    p.image = (sslat_image_params){h, w};
    add_op(b, at, SSLAT_OP_IMAGE, &p, SSLAT_NO_INPUT, name);
}

/* LayerNorm over each token's channels, with the layer's eps (0: the default) */
static void token_layernorm(builder *b, int32_t *at, const sslat_layer_spec *spec, const char *name)
{
    sslat_op_params p;
    memset(&p, 0, sizeof p);
    p.layernorm_eps = (spec->set & SSLAT_OPT_EPS) ? (float)spec->eps : 0.0f;
    add_op(b, at, SSLAT_OP_LAYERNORM, &p, SSLAT_NO_INPUT, name);
}

/* LayerNorm over the channels: of each token, or of each pixel of an image
 * (ConvNeXt's LayerNorm2d: permute(0, 2, 3, 1), F.layer_norm, permute(0, 3, 1, 2)). */
static void layernorm(builder *b, int32_t *at, const sslat_layer_spec *spec, const char *name)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, *at);
    if (in.tokens) {
        token_layernorm(b, at, spec, name);
        return;
    }
    unary(b, at, SSLAT_OP_TOKENS, "permute");
    token_layernorm(b, at, spec, name);
    to_image(b, at, in.h, in.w, "permute_back");
}

static void layer_scale(builder *b, int32_t *at, sslat_scale_form form, const char *name)
{
    sslat_op_params p;
    memset(&p, 0, sizeof p);
    p.scale_form = form;
    add_op(b, at, SSLAT_OP_LAYER_SCALE, &p, SSLAT_NO_INPUT, name);
}

/* An `image` layer: L tokens as an image w pixels wide (default: a square). */
static void expand_image(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, *at);
    bool given = (spec->set & SSLAT_OPT_W) != 0;
    int32_t w = given ? spec->width : (int32_t)lround(sqrt((double)in.h));
    if (!in.tokens)
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "image needs tokens N×L×C, got an image %dx%dx%dx%d", in.n,
                               in.c, in.h, in.w);
    else if (given && in.h % w != 0)
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "%d tokens are no image %d pixels wide (w must divide the "
                               "count)", in.h, w);
    else if (!given && w * w != in.h)
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "%d tokens are no square image (give its width w)", in.h);
    else
        to_image(b, at, in.h / w, w, "image");
}

/* timm's ConvNeXtBlock: a k×k depthwise conv with bias; LayerNorm and an MLP
 * of int(C · e) hidden channels, either on NHWC tokens (permute, nn.Linear,
 * permute back) or with LayerNorm2d and 1x1 convs (conv_mlp); x.mul(gamma); + x. */
static void expand_cnx(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, *at);
    int32_t input = *at, kernel = (spec->set & SSLAT_OPT_K) ? spec->kernel : 7;
    double ratio = (spec->set & SSLAT_OPT_E) ? spec->expansion : 4.0;
    int64_t hidden = (int64_t)(in.c * ratio);
    sslat_act_kind kind = (spec->set & SSLAT_OPT_N) ? spec->act : SSLAT_ACT_GELU;
    if (in.tokens) {
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "cnx needs an image N×C×H×W, got tokens %dx%dx%d", in.n,
                               in.h, in.c);
        return;
    }
    if (hidden < 1 || hidden > SSLAT_MAX_CHANNELS) {
        b->status = sslat_fail(b->err, SSLAT_ERR_LIMIT, "mlp ratio %g of %d channels gives %lld hidden channels "
                               "(1..%d)", ratio, in.c, (long long)hidden, SSLAT_MAX_CHANNELS);
        return;
    }
    conv(b, at, in.c, kernel, 1, (kernel - 1) / 2, 1, in.c, true, "conv_dw");
    if (spec->set & SSLAT_OPT_CONVMLP) {
        layernorm(b, at, spec, "norm");
        conv(b, at, (int32_t)hidden, 1, 1, 0, 1, 1, true, "fc1");
        act(b, at, kind, "act");
        conv(b, at, in.c, 1, 1, 0, 1, 1, true, "fc2");
    } else {
        unary(b, at, SSLAT_OP_TOKENS, "permute");
        token_layernorm(b, at, spec, "norm");
        linear(b, at, (int32_t)hidden, "fc1");
        act(b, at, kind, "act");
        linear(b, at, in.c, "fc2");
        to_image(b, at, in.h, in.w, "permute_back");
    }
    layer_scale(b, at, SSLAT_SCALE_METHOD, "gamma");
    binary(b, at, SSLAT_OP_ADD, input, "add");
}

/* attn and vit read tokens: on an image their LayerNorm would be ConvNeXt's
 * LayerNorm2d and their linears a flatten, so the mistake is named here. */
static bool reads_tokens(builder *b, int32_t at, const sslat_layer_spec *spec)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, at);
    if (b->status != SSLAT_OK || in.tokens) return b->status == SSLAT_OK;
    b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "'%s' needs tokens N×L×C, got an image %dx%dx%dx%d (a 'patch' "
                           "or 'tokens' layer turns an image into tokens)", sslat_layer_type_name(spec->type), in.n,
                           in.c, in.h, in.w);
    return false;
}

/* timm's Attention: qkv linear (with bias), attention per head, output projection. */
static void self_attention(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    if (!reads_tokens(b, *at, spec)) return;
    int32_t width = channels_at(b, *at);
    sslat_op_params p;
    memset(&p, 0, sizeof p);
    if (b->status != SSLAT_OK || attention_shape(b, spec, width, &p.attention) != SSLAT_OK) return;
    linear(b, at, 3 * p.attention.heads * p.attention.head_dim, "qkv");
    add_op(b, at, SSLAT_OP_ATTENTION, &p, SSLAT_NO_INPUT, "attn");
    linear(b, at, width, "proj");
}

/* timm's Block: x + attn(norm1(x)), then x + fc2(act(fc1(norm2(x)))) with
 * int(width · mlp_ratio) hidden channels (mlp_ratio 4 and GELU by default). */
static void expand_vit(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    if (!reads_tokens(b, *at, spec)) return;
    int32_t input = *at, width = channels_at(b, *at);
    double ratio = (spec->set & SSLAT_OPT_E) ? spec->expansion : 4.0;
    int64_t hidden = (int64_t)(width * ratio);
    if (hidden < 1 || hidden > SSLAT_MAX_CHANNELS) {
        b->status = sslat_fail(b->err, SSLAT_ERR_LIMIT, "mlp ratio %g of %d channels gives %lld hidden channels "
                               "(1..%d)", ratio, width, (long long)hidden, SSLAT_MAX_CHANNELS);
        return;
    }
    layernorm(b, at, spec, "norm1");
    self_attention(b, at, spec);
    binary(b, at, SSLAT_OP_ADD, input, "add1");
    int32_t middle = *at;
    layernorm(b, at, spec, "norm2");
    linear(b, at, (int32_t)hidden, "fc1");
    act(b, at, (spec->set & SSLAT_OPT_N) ? spec->act : SSLAT_ACT_GELU, "act");
    linear(b, at, width, "fc2");
    binary(b, at, SSLAT_OP_ADD, middle, "add2");
}

/* ---- ShuffleNetV2 (torchvision's InvertedResidual) ----------------------------------- */

static void slice(builder *b, int32_t *at, int32_t start, int32_t length, const char *name)
{
    sslat_op_params p = {.slice = {start, length}};
    add_op(b, at, SSLAT_OP_CHANNEL_SLICE, &p, SSLAT_NO_INPUT, name);
}

/* 1x1 → BN → act, depthwise k×k (stride) → BN, 1x1 → BN → act: the unit's main branch */
static void sv2_main_branch(builder *b, int32_t *at, int32_t half, const resolved *r)
{
    conv_plain(b, at, half, 1, 1, 1, "b2_pw1");
    unary(b, at, SSLAT_OP_BATCHNORM, "b2_bn1");
    act(b, at, r->act, "b2_act1");
    conv(b, at, half, r->kernel, r->stride, r->padding, 1, half, false, "b2_dw");
    unary(b, at, SSLAT_OP_BATCHNORM, "b2_bn2");
    conv_plain(b, at, half, 1, 1, 1, "b2_pw2");
    unary(b, at, SSLAT_OP_BATCHNORM, "b2_bn3");
    act(b, at, r->act, "b2_act2");
}

/* stride 1: x1, x2 = x.chunk(2, 1); cat(x1, main(x2)). stride 2: cat(side(x),
 * main(x)) with side = depthwise k×k (stride) → BN → 1x1 → BN → act. Then
 * channel_shuffle(·, 2). */
static sslat_status expand_sv2(builder *b, int32_t *at, const resolved *r)
{
    int32_t input = *at, half = r->out_channels / 2;
    if (r->out_channels % 2 || (r->stride == 1 && r->in_channels != r->out_channels))
        return b->status = sslat_fail(b->err, SSLAT_ERR_SPACE,
                          "a ShuffleNetV2 unit needs an even output width%s: %d channels in, %d out, stride %d",
                          r->stride == 1 ? " equal to its input at stride 1" : "", r->in_channels,
                          r->out_channels, r->stride);
    int32_t left = input, right = input;
    if (r->stride == 1) {
        slice(b, &left, 0, half, "split_x1");
        slice(b, &right, half, half, "split_x2");
    } else {
        conv(b, &left, r->in_channels, r->kernel, r->stride, r->padding, 1, r->in_channels, false, "b1_dw");
        unary(b, &left, SSLAT_OP_BATCHNORM, "b1_bn1");
        conv_plain(b, &left, half, 1, 1, 1, "b1_pw");
        unary(b, &left, SSLAT_OP_BATCHNORM, "b1_bn2");
        act(b, &left, r->act, "b1_act");
    }
    sv2_main_branch(b, &right, half, r);
    if (b->status != SSLAT_OK) return b->status;
    const int32_t both[2] = {left, right};
    b->status = sslat_graph_add_concat(b->graph, both, 2, "cat", at, b->err);
    sslat_op_params p = {.shuffle_groups = 2};
    add_op(b, at, SSLAT_OP_CHANNEL_SHUFFLE, &p, SSLAT_NO_INPUT, "shuffle");
    return b->status;
}

/* ---- YOLOv5 (ultralytics / ENOT-AutoDL models/common.py) ----------------------------- */

/* YOLOv5's Conv: k×k conv (stride, padding k // 2, no bias) → BN → act */
static void yolo_conv(builder *b, int32_t *at, int32_t out, int32_t kernel, int32_t stride, sslat_act_kind a,
                      const char *name)
{
    char bn[24], act_name[24];
    snprintf(bn, sizeof bn, "%s_bn", name);
    snprintf(act_name, sizeof act_name, "%s_act", name);
    conv_plain(b, at, out, kernel, stride, 1, name);
    unary(b, at, SSLAT_OP_BATCHNORM, bn);
    act(b, at, a, act_name);
}

/* The hidden width of C3 / ConvBlock: int(c2 * e), as Python truncates */
static int32_t hidden_width(const resolved *r, const sslat_layer_spec *spec)
{
    double e = (spec->set & SSLAT_OPT_E) ? spec->expansion : 0.5;
    int32_t hidden = (int32_t)floor(r->out_channels * e);
    return hidden > 0 ? hidden : 1;
}

/* C3: cv3(cat(m(cv1(x)), cv2(x))), m = b bottlenecks (1x1 conv, k×k conv, + x unless noskip) */
static void expand_c3(builder *b, int32_t *at, const resolved *r, const sslat_layer_spec *spec)
{
    int32_t input = *at, hidden = hidden_width(r, spec), blocks = (spec->set & SSLAT_OPT_B) ? spec->blocks : 1;
    int32_t main_path = input, side = input;
    yolo_conv(b, &main_path, hidden, 1, 1, r->act, "cv1");
    for (int32_t i = 0; i < blocks; i++) {
        int32_t x = main_path;
        yolo_conv(b, &main_path, hidden, 1, 1, r->act, "m_cv1");
        yolo_conv(b, &main_path, hidden, r->kernel, 1, r->act, "m_cv2");
        if (r->residual_allowed) binary(b, &main_path, SSLAT_OP_ADD, x, "m_add");
    }
    yolo_conv(b, &side, hidden, 1, 1, r->act, "cv2");
    if (b->status != SSLAT_OK) return;
    const int32_t both[2] = {main_path, side};
    b->status = sslat_graph_add_concat(b->graph, both, 2, "cat", at, b->err);
    yolo_conv(b, at, r->out_channels, 1, 1, r->act, "cv3");
}

/* ENOT's ConvBlock: cv2(m(cv1(x))) + skip(x): cv1 k×k to hidden (to c2 when b = 1),
 * b − 2 k×k convs, cv2 k×k to c2 when b > 1; skip = x, or a 1x1 conv + BN (no
 * activation) when the width changes; none with noskip */
static void expand_convblock(builder *b, int32_t *at, const resolved *r, const sslat_layer_spec *spec)
{
    int32_t input = *at, hidden = hidden_width(r, spec), blocks = (spec->set & SSLAT_OPT_B) ? spec->blocks : 2;
    yolo_conv(b, at, blocks > 1 ? hidden : r->out_channels, r->kernel, 1, r->act, "cv1");
    for (int32_t i = 0; i < blocks - 2; i++) yolo_conv(b, at, hidden, r->kernel, 1, r->act, "m");
    if (blocks > 1) yolo_conv(b, at, r->out_channels, r->kernel, 1, r->act, "cv2");
    if (!r->residual_allowed) return;
    int32_t skip = input;
    if (r->in_channels != r->out_channels) {
        conv_plain(b, &skip, r->out_channels, 1, 1, 1, "skip");
        unary(b, &skip, SSLAT_OP_BATCHNORM, "skip_bn");
    }
    binary(b, at, SSLAT_OP_ADD, skip, "add");
}

static void max_pool(builder *b, int32_t *at, int32_t kernel, const char *name)
{
    sslat_op_params p = {.pool = {kernel, 1, kernel / 2, false, false}};
    add_op(b, at, SSLAT_OP_MAXPOOL, &p, SSLAT_NO_INPUT, name);
}

/* SPP: cv2(cat(x, pool5(x), pool9(x), pool13(x))) of x = cv1(input) at half the input width;
 * SPPF: the same with pool k chained three times */
static void expand_spp(builder *b, int32_t *at, const resolved *r, bool fast)
{
    int32_t x = *at;
    yolo_conv(b, &x, r->in_channels / 2 > 0 ? r->in_channels / 2 : 1, 1, 1, r->act, "cv1");
    int32_t parts[4] = {x, x, x, x};
    static const int32_t SPP_KERNELS[3] = {5, 9, 13};
    for (int k = 1; k < 4; k++) {
        if (fast) {
            parts[k] = parts[k - 1];
            max_pool(b, &parts[k], r->kernel, "m");
        } else {
            max_pool(b, &parts[k], SPP_KERNELS[k - 1], "m");
        }
    }
    if (b->status != SSLAT_OK) return;
    b->status = sslat_graph_add_concat(b->graph, parts, 4, "cat", at, b->err);
    yolo_conv(b, at, r->out_channels, 1, 1, r->act, "cv2");
}

/* The values a multi-source layer reads, in `from` order. */
static int sources_of(const builder *b, int32_t *values)
{
    for (int k = 0; k < b->n_sources; k++) values[k] = b->sources[k];
    return b->n_sources;
}

/* add (a + b, same shapes) and mul (x · s, s of N×C×1×1: squeeze-excite's scaling) of two sources */
static void expand_binary(builder *b, int32_t *at, sslat_op_kind op)
{
    if (b->n_sources != 2) {
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "%s reads two sources, \"from\" gives %d",
                               op == SSLAT_OP_ADD ? "add" : "mul", b->n_sources);
        return;
    }
    *at = b->sources[0];
    binary(b, at, op, b->sources[1], op == SSLAT_OP_ADD ? "add" : "mul");
}

/* concat: the sources along channels, in `from` order (YOLOv5's Concat) */
static void expand_concat(builder *b, int32_t *at)
{
    int32_t values[SSLAT_MAX_NODE_INPUTS];
    int n = sources_of(b, values);
    if (n < 2) {
        b->status = sslat_fail(b->err, SSLAT_ERR_SPACE, "concat joins 2..%d sources: give it \"from\" with "
                               "at least two layers", SSLAT_MAX_NODE_INPUTS);
        return;
    }
    b->status = sslat_graph_add_concat(b->graph, values, n, "cat", at, b->err);
}

/* YOLOv5's Detect: per source (scale) a 1x1 conv with bias to a·(classes + 5)
 * channels. The box decoding after it (sigmoid, grid, anchors) is not part of
 * the layer: the raw head, as an exported detector ends before its decoding. */
static void expand_detect(builder *b, int32_t *at, const sslat_layer_spec *spec)
{
    int32_t values[SSLAT_MAX_NODE_INPUTS];
    int n = sources_of(b, values);
    int32_t classes = (spec->set & SSLAT_OPT_C) ? spec->channels : 80;
    int32_t anchors = (spec->set & SSLAT_OPT_A) ? spec->anchors : 3;
    int64_t outputs = (int64_t)anchors * (classes + 5);
    if (outputs > SSLAT_MAX_CHANNELS) {
        b->status = sslat_fail(b->err, SSLAT_ERR_LIMIT, "detect: %d anchors × (%d classes + 5) = %lld channels "
                               "(limit %d)", anchors, classes, (long long)outputs, SSLAT_MAX_CHANNELS);
        return;
    }
    for (int k = 0; k < n; k++) {
        char name[24];
        snprintf(name, sizeof name, "m%d", k);
        *at = values[k];
        conv(b, at, (int32_t)outputs, 1, 1, 0, 1, 1, true, name);
    }
}

static sslat_status check_skip(builder *b, int32_t at, const resolved *r)
{
    sslat_shape in = sslat_graph_shape_of(b->graph, at);
    if (r->stride != 1 || r->out_channels != in.c)
        return sslat_fail(b->err, SSLAT_ERR_SPACE,
                          "skip where shapes differ: input %dx%dx%dx%d, block output needs "
                          "%d channels at stride %d",
                          in.n, in.c, in.h, in.w, r->out_channels, r->stride);
    return SSLAT_OK;
}

sslat_status sslat_spec_expand(const sslat_layer_spec *spec, const sslat_expand_context *context,
                               sslat_graph *graph, sslat_error *err)
{
    int32_t sources[SSLAT_MAX_NODE_INPUTS] = {sslat_graph_chain_index(graph)};
    int n = 1;
    if (sources[0] == SSLAT_GRAPH_INPUT) /* the first element of a layer: its input nodes follow */
        for (int32_t i = 0; i < graph->count && graph->nodes[i].op == SSLAT_OP_INPUT; i++) sources[n++] = i;
    return sslat_spec_expand_from(spec, context, graph, sources, n, err);
}

sslat_status sslat_spec_expand_from(const sslat_layer_spec *spec, const sslat_expand_context *context,
                                    sslat_graph *graph, const int32_t *sources, int n_sources, sslat_error *err)
{
    SSLAT_ASSERT(n_sources >= 1 && n_sources <= SSLAT_MAX_NODE_INPUTS);
    if (n_sources > sslat_layer_type_max_sources(spec->type))
        return sslat_fail(err, SSLAT_ERR_SPACE, "'%s' reads one input but \"from\" gives %d (only concat, detect, "
                          "add and mul read several)", sslat_layer_type_name(spec->type), n_sources);
    builder b = {graph, err, SSLAT_OK, sources, n_sources};
    int32_t at = sources[0];
    resolved r = resolve(spec, channels_at(&b, at));
    if (spec->type == SSLAT_LAYER_IR || spec->type == SSLAT_LAYER_ER) {
        int32_t mid = expanded_channels(&r);
        if (mid > SSLAT_MAX_CHANNELS)
            return sslat_fail(err, SSLAT_ERR_LIMIT, "expanded channels exceed %d",
                              SSLAT_MAX_CHANNELS);
    }
    switch (spec->type) {
    case SSLAT_LAYER_CN:
        conv(&b, &at, r.out_channels, r.kernel, r.stride, r.padding, r.dilation, r.groups, false,
             "conv");
        unary(&b, &at, SSLAT_OP_BATCHNORM, "bn");
        act(&b, &at, r.act, "act");
        break;
    case SSLAT_LAYER_CONV:
        conv(&b, &at, r.out_channels, r.kernel, r.stride, r.padding, r.dilation, r.groups,
             (spec->set & SSLAT_OPT_BIAS) != 0, "conv");
        break;
    case SSLAT_LAYER_DS: expand_ds(&b, &at, &r, context); break;
    case SSLAT_LAYER_IR: expand_ir(&b, &at, &r, context); break;
    case SSLAT_LAYER_ER: expand_er(&b, &at, &r, context); break;
    case SSLAT_LAYER_BASIC: expand_basic(&b, &at, &r); break;
    case SSLAT_LAYER_BOTTLENECK: expand_bottleneck(&b, &at, &r); break;
    case SSLAT_LAYER_SKIP:
        if (check_skip(&b, at, &r) != SSLAT_OK) return err ? err->status : SSLAT_ERR_SPACE;
        unary(&b, &at, SSLAT_OP_IDENTITY, "skip");
        break;
    case SSLAT_LAYER_GAP: {
        sslat_op_params p = {.gap_form = (spec->set & SSLAT_OPT_FN)     ? SSLAT_GAP_FUNCTIONAL
                                         : (spec->set & SSLAT_OPT_MEAN) ? SSLAT_GAP_MEAN
                                                                        : SSLAT_GAP_MODULE};
        add_op(&b, &at, SSLAT_OP_GLOBAL_AVGPOOL, &p, SSLAT_NO_INPUT, "gap");
        break;
    }
    case SSLAT_LAYER_MAXPOOL:
    case SSLAT_LAYER_AVGPOOL: {
        sslat_op_params p = {.pool = {r.kernel, r.stride, r.padding, (spec->set & SSLAT_OPT_CEIL) != 0, false}};
        sslat_op_kind op = spec->type == SSLAT_LAYER_MAXPOOL ? SSLAT_OP_MAXPOOL : SSLAT_OP_AVGPOOL;
        add_op(&b, &at, op, &p, SSLAT_NO_INPUT, sslat_op_name(op));
        break;
    }
    case SSLAT_LAYER_FLATTEN: unary(&b, &at, SSLAT_OP_FLATTEN, "flatten"); break;
    case SSLAT_LAYER_FC:
        if (!(spec->set & SSLAT_OPT_C))
            return sslat_fail(err, SSLAT_ERR_SPACE, "fc needs an output size (fc1000 or \"c\")");
        expand_fc(&b, &at, spec);
        break;
    case SSLAT_LAYER_BN: unary(&b, &at, SSLAT_OP_BATCHNORM, "bn"); break;
    case SSLAT_LAYER_ACT: act(&b, &at, r.act, sslat_act_name(r.act)); break;
    case SSLAT_LAYER_UPSAMPLE: {
        sslat_op_params p = {.upsample_scale = (spec->set & SSLAT_OPT_S) ? spec->stride : 2};
        add_op(&b, &at, SSLAT_OP_UPSAMPLE, &p, SSLAT_NO_INPUT, "upsample");
        break;
    }
    case SSLAT_LAYER_FOCUS: /* torch.cat of the four pixel phases, then YOLOv5's Conv */
        unary(&b, &at, SSLAT_OP_SPACE_TO_DEPTH, "focus_slices");
        conv(&b, &at, r.out_channels, r.kernel, r.stride, r.padding, r.dilation, 1, false, "conv");
        unary(&b, &at, SSLAT_OP_BATCHNORM, "bn");
        act(&b, &at, r.act, "act");
        break;
    case SSLAT_LAYER_SV2:
        if (expand_sv2(&b, &at, &r) != SSLAT_OK) return b.status;
        break;
    case SSLAT_LAYER_C3: expand_c3(&b, &at, &r, spec); break;
    case SSLAT_LAYER_CONCAT: expand_concat(&b, &at); break;
    case SSLAT_LAYER_ADD: expand_binary(&b, &at, SSLAT_OP_ADD); break;
    case SSLAT_LAYER_MUL: expand_binary(&b, &at, SSLAT_OP_MUL_CHANNEL); break;
    case SSLAT_LAYER_SLICE: {
        if (!(spec->set & SSLAT_OPT_C)) {
            b.status = sslat_fail(err, SSLAT_ERR_SPACE, "slice needs its channel count (c) and offset (o)");
            break;
        }
        sslat_op_params p = {.slice = {(spec->set & SSLAT_OPT_O) ? spec->offset : 0, spec->channels}};
        add_op(&b, &at, SSLAT_OP_CHANNEL_SLICE, &p, SSLAT_NO_INPUT, "slice");
        break;
    }
    case SSLAT_LAYER_S2D: unary(&b, &at, SSLAT_OP_SPACE_TO_DEPTH, "s2d"); break;
    case SSLAT_LAYER_DETECT: expand_detect(&b, &at, spec); break;
    case SSLAT_LAYER_CONVBLOCK: expand_convblock(&b, &at, &r, spec); break;
    case SSLAT_LAYER_SPP: expand_spp(&b, &at, &r, false); break;
    case SSLAT_LAYER_SPPF:
        r.kernel = (spec->set & SSLAT_OPT_K) ? spec->kernel : 5;
        expand_spp(&b, &at, &r, true);
        break;
    case SSLAT_LAYER_SHUFFLE: {
        sslat_op_params p = {.shuffle_groups = r.groups};
        add_op(&b, &at, SSLAT_OP_CHANNEL_SHUFFLE, &p, SSLAT_NO_INPUT, "shuffle");
        break;
    }
    case SSLAT_LAYER_PATCH: /* timm's PatchEmbed: proj = Conv2d(k, stride k, bias), flatten(2).transpose(1, 2) */
        if (!(spec->set & SSLAT_OPT_K) || !(spec->set & SSLAT_OPT_C)) {
            b.status = sslat_fail(err, SSLAT_ERR_SPACE, "patch needs its patch size (k) and width (c)");
            break;
        }
        conv(&b, &at, spec->channels, spec->kernel, spec->kernel, 0, 1, 1, true, "proj");
        unary(&b, &at, SSLAT_OP_TOKENS, "tokens");
        break;
    case SSLAT_LAYER_TOKENS: unary(&b, &at, SSLAT_OP_TOKENS, "tokens"); break;
    case SSLAT_LAYER_CLS: unary(&b, &at, SSLAT_OP_CLASS_TOKEN, "cls_token"); break;
    case SSLAT_LAYER_POS: unary(&b, &at, SSLAT_OP_POSITION_EMBED, "pos_embed"); break;
    case SSLAT_LAYER_LN: layernorm(&b, &at, spec, "norm"); break;
    case SSLAT_LAYER_ATTN: self_attention(&b, &at, spec); break;
    case SSLAT_LAYER_SDPA: { /* on q|k|v of width 3·H·D: D defaults to width / (3·H) */
        sslat_op_params p;
        memset(&p, 0, sizeof p);
        int32_t width = channels_at(&b, at);
        if (!(spec->set & SSLAT_OPT_H)) {
            b.status = sslat_fail(err, SSLAT_ERR_SPACE, "'sdpa' needs its number of heads (h)");
            break;
        }
        p.attention.heads = spec->heads;
        p.attention.head_dim = (spec->set & SSLAT_OPT_HD) ? spec->head_dim : width / (3 * spec->heads);
        attention_form(spec, &p.attention);
        add_op(&b, &at, SSLAT_OP_ATTENTION, &p, SSLAT_NO_INPUT, "attn");
        break;
    }
    case SSLAT_LAYER_VIT: expand_vit(&b, &at, spec); break;
    case SSLAT_LAYER_LEAKY: {
        sslat_op_params p;
        memset(&p, 0, sizeof p);
        p.slope = (float)((spec->set & SSLAT_OPT_SLOPE) ? spec->slope : 0.01);
        add_op(&b, &at, SSLAT_OP_LEAKY_RELU, &p, SSLAT_NO_INPUT, "leaky_relu");
        break;
    }
    case SSLAT_LAYER_ADAPOOL: { /* equal windows: the output size divides the input's, which is square */
        sslat_shape in = sslat_graph_shape_of(graph, at);
        int32_t size = (spec->set & SSLAT_OPT_K) ? spec->kernel : 0;
        if (size < 1 || in.tokens || in.h != in.w || in.h % size != 0) {
            b.status = sslat_fail(err, SSLAT_ERR_SPACE, "adapool needs its output size k, a divisor of the square input's "
                                  "side (AdaptiveAvgPool2d over unequal windows is not expressed), got k %d of %dx%d",
                                  size, in.h, in.w);
            break;
        }
        sslat_op_params p = {.pool = {in.h / size, in.h / size, 0, false, true}};
        add_op(&b, &at, SSLAT_OP_AVGPOOL, &p, SSLAT_NO_INPUT, "adapool");
        break;
    }
    case SSLAT_LAYER_TOKPOOL: {
        sslat_op_params p = {.token_pool = (spec->set & SSLAT_OPT_MEAN) ? SSLAT_TOKEN_POOL_MEAN : SSLAT_TOKEN_POOL_CLASS};
        add_op(&b, &at, SSLAT_OP_TOKEN_POOL, &p, SSLAT_NO_INPUT, "pool");
        break;
    }
    case SSLAT_LAYER_IMAGE: expand_image(&b, &at, spec); break;
    case SSLAT_LAYER_SCALE:
        layer_scale(&b, &at, (spec->set & SSLAT_OPT_METHOD) ? SSLAT_SCALE_METHOD : SSLAT_SCALE_OPERATOR, "gamma");
        break;
    case SSLAT_LAYER_CNX: expand_cnx(&b, &at, spec); break;
    case SSLAT_LAYER_TYPE_COUNT: SSLAT_ASSERT(!"unreachable layer type");
    }
    return b.status;
}
