/* Textbook loops, NCHW, no cleverness: the reference the oneDNN path is checked against. */
#include "reference_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/parameters.h"

typedef struct tensor {
    float *data;
    sslat_shape s;
} tensor;

static size_t at(sslat_shape s, int n, int c, int h, int w)
{
    return (((size_t)n * s.c + c) * s.h + h) * s.w + w;
}

static float *param(size_t count, uint64_t seed, int32_t node, int role, int64_t fan_in)
{
    float *p = malloc(count * sizeof *p);
    if (p) sslat_fill_parameter(p, count, seed, node, role, fan_in);
    return p;
}

static void conv(const tensor *x, tensor *y, const sslat_conv_params *c, uint64_t seed, int32_t node)
{
    int cin_g = x->s.c / c->groups, cout_g = c->out_channels / c->groups;
    sslat_pads pads = sslat_conv_pads(c, x->s); /* the bottom and right only lengthen the output */
    size_t per_out = (size_t)cin_g * c->kernel * c->kernel;
    float *w = param((size_t)c->out_channels * per_out, seed, node, SSLAT_ROLE_WEIGHTS, (int64_t)per_out);
    float *b = c->bias ? param((size_t)c->out_channels, seed, node, SSLAT_ROLE_BIAS, 0) : NULL;
    for (int n = 0; n < y->s.n; n++)
        for (int o = 0; o < y->s.c; o++)
            for (int oh = 0; oh < y->s.h; oh++)
                for (int ow = 0; ow < y->s.w; ow++) {
                    double sum = b ? b[o] : 0;
                    int g = o / cout_g;
                    for (int i = 0; i < cin_g; i++)
                        for (int kh = 0; kh < c->kernel; kh++)
                            for (int kw = 0; kw < c->kernel; kw++) {
                                int ih = oh * c->stride - pads.top + kh * c->dilation;
                                int iw = ow * c->stride - pads.left + kw * c->dilation;
                                if (ih < 0 || iw < 0 || ih >= x->s.h || iw >= x->s.w) continue;
                                sum += (double)w[(size_t)o * per_out + ((size_t)i * c->kernel + kh) * c->kernel + kw] *
                                       x->data[at(x->s, n, g * cin_g + i, ih, iw)];
                            }
                    y->data[at(y->s, n, o, oh, ow)] = (float)sum;
                }
    free(w);
    free(b);
}

static void batchnorm(const tensor *x, tensor *y, uint64_t seed, int32_t node)
{
    size_t C = (size_t)x->s.c;
    float *g = param(C, seed, node, SSLAT_ROLE_GAMMA, 0), *b = param(C, seed, node, SSLAT_ROLE_BETA, 0);
    float *m = param(C, seed, node, SSLAT_ROLE_MEAN, 0), *v = param(C, seed, node, SSLAT_ROLE_VARIANCE, 0);
    size_t plane = (size_t)x->s.h * x->s.w;
    for (int n = 0; n < x->s.n; n++)
        for (size_t c = 0; c < C; c++)
            for (size_t k = 0; k < plane; k++) {
                size_t i = ((size_t)n * C + c) * plane + k;
                y->data[i] = (x->data[i] - m[c]) / sqrtf(v[c] + SSLAT_BN_EPSILON) * g[c] + b[c];
            }
    free(g);
    free(b);
    free(m);
    free(v);
}

static float activation(sslat_act_kind act, float x)
{
    switch (act) {
    case SSLAT_ACT_RELU: return x > 0 ? x : 0;
    case SSLAT_ACT_RELU6: return fminf(fmaxf(x, 0), 6);
    case SSLAT_ACT_HSWISH: return x * fminf(fmaxf(x + 3, 0), 6) / 6;
    case SSLAT_ACT_HSIGMOID: return fminf(fmaxf(x + 3, 0), 6) / 6;
    case SSLAT_ACT_SIGMOID: return 1 / (1 + expf(-x));
    case SSLAT_ACT_SILU: return x / (1 + expf(-x));
    case SSLAT_ACT_GELU: return 0.5f * x * (1 + erff(x / sqrtf(2)));
    case SSLAT_ACT_TANH: return tanhf(x);
    case SSLAT_ACT_GELU_TANH: return 0.5f * x * (1 + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    case SSLAT_ACT_COUNT: break;
    }
    return NAN;
}

static void pool(const tensor *x, tensor *y, const sslat_node *node)
{
    bool global = node->op == SSLAT_OP_GLOBAL_AVGPOOL, max = node->op == SSLAT_OP_MAXPOOL;
    int k = global ? x->s.h : node->params.pool.kernel, kw = global ? x->s.w : k;
    int s = global ? 1 : node->params.pool.stride, p = global ? 0 : node->params.pool.padding;
    for (int n = 0; n < y->s.n; n++)
        for (int c = 0; c < y->s.c; c++)
            for (int oh = 0; oh < y->s.h; oh++)
                for (int ow = 0; ow < y->s.w; ow++) {
                    double acc = max ? -INFINITY : 0;
                    for (int a = 0; a < k; a++)
                        for (int b = 0; b < kw; b++) {
                            int ih = oh * s - p + a, iw = ow * s - p + b;
                            if (ih < 0 || iw < 0 || ih >= x->s.h || iw >= x->s.w) continue; /* pads count 0 */
                            float v = x->data[at(x->s, n, c, ih, iw)];
                            acc = max ? fmax(acc, v) : acc + v;
                        }
                    y->data[at(y->s, n, c, oh, ow)] = (float)(max ? acc : acc / (k * kw));
                }
}

/* y = x Wᵀ + b per row: a sample (vectors) or a token (tokens, stored [n][l][c]) */
static void linear(const tensor *x, tensor *y, const sslat_linear_params *l, uint64_t seed, int32_t node)
{
    int in = x->s.tokens ? x->s.c : x->s.c * x->s.h * x->s.w, rows = x->s.tokens ? x->s.n * x->s.h : x->s.n;
    float *w = param((size_t)l->out_features * in, seed, node, SSLAT_ROLE_WEIGHTS, in);
    float *b = l->bias ? param((size_t)l->out_features, seed, node, SSLAT_ROLE_BIAS, 0) : NULL;
    for (int n = 0; n < rows; n++)
        for (int o = 0; o < l->out_features; o++) {
            double sum = b ? b[o] : 0;
            for (int i = 0; i < in; i++) sum += (double)w[(size_t)o * in + i] * x->data[(size_t)n * in + i];
            y->data[(size_t)n * l->out_features + o] = (float)sum;
        }
    free(w);
    free(b);
}

/* PyTorch's channel_shuffle: view C as groups x C/groups, transpose. */
static void shuffle(const tensor *x, tensor *y, int groups)
{
    int per = x->s.c / groups;
    size_t plane = (size_t)x->s.h * x->s.w;
    for (int n = 0; n < x->s.n; n++)
        for (int c = 0; c < x->s.c; c++) {
            int g = c / per, i = c % per, o = i * groups + g;
            memcpy(y->data + ((size_t)n * x->s.c + o) * plane, x->data + ((size_t)n * x->s.c + c) * plane,
                   plane * sizeof(float));
        }
}

/* torch.cat(inputs, 1): each sample's channels of input 0, then input 1, … */
static void concat(const tensor *const *inputs, int n, tensor *y)
{
    size_t plane = (size_t)y->s.h * y->s.w;
    for (int s = 0; s < y->s.n; s++) {
        float *to = y->data + (size_t)s * y->s.c * plane;
        for (int k = 0; k < n; k++) {
            size_t part = (size_t)inputs[k]->s.c * plane;
            memcpy(to, inputs[k]->data + (size_t)s * part, part * sizeof(float));
            to += part;
        }
    }
}

/* nearest: y[h][w] = x[h / s][w / s] */
static void upsample(const tensor *x, tensor *y, int scale)
{
    for (int n = 0; n < y->s.n; n++)
        for (int c = 0; c < y->s.c; c++)
            for (int h = 0; h < y->s.h; h++)
                for (int w = 0; w < y->s.w; w++)
                    y->data[(((size_t)n * y->s.c + c) * y->s.h + h) * y->s.w + w] =
                        x->data[(((size_t)n * x->s.c + c) * x->s.h + h / scale) * x->s.w + w / scale];
}

/* YOLOv5's Focus: cat(x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]) */
static void space_to_depth(const tensor *x, tensor *y)
{
    for (int n = 0; n < y->s.n; n++)
        for (int g = 0; g < 4; g++) {
            int dh = g % 2, dw = g / 2;
            for (int c = 0; c < x->s.c; c++)
                for (int h = 0; h < y->s.h; h++)
                    for (int w = 0; w < y->s.w; w++)
                        y->data[(((size_t)n * y->s.c + g * x->s.c + c) * y->s.h + h) * y->s.w + w] =
                            x->data[(((size_t)n * x->s.c + c) * x->s.h + 2 * h + dh) * x->s.w + 2 * w + dw];
        }
}

/* x[:, start:start + length] */
static void channel_slice(const tensor *x, tensor *y, const sslat_slice_params *p)
{
    size_t plane = (size_t)x->s.h * x->s.w, part = (size_t)p->length * plane;
    for (int s = 0; s < x->s.n; s++)
        memcpy(y->data + (size_t)s * part, x->data + ((size_t)s * x->s.c + p->start) * plane, part * sizeof(float));
}

/* ---- tokens: stored [n][l][c] --------------------------------------------------------- */

/* x.flatten(2).transpose(1, 2) */
static void to_tokens(const tensor *x, tensor *y)
{
    size_t plane = (size_t)x->s.h * x->s.w;
    for (int n = 0; n < x->s.n; n++)
        for (int c = 0; c < x->s.c; c++)
            for (size_t l = 0; l < plane; l++)
                y->data[((size_t)n * plane + l) * x->s.c + c] = x->data[((size_t)n * x->s.c + c) * plane + l];
}

static void layernorm(const tensor *x, tensor *y, double eps, uint64_t seed, int32_t node)
{
    size_t C = (size_t)x->s.c, rows = (size_t)x->s.n * x->s.h;
    float *g = param(C, seed, node, SSLAT_ROLE_GAMMA, 0), *b = param(C, seed, node, SSLAT_ROLE_BETA, 0);
    for (size_t r = 0; r < rows; r++) {
        const float *in = x->data + r * C;
        double mean = 0, var = 0;
        for (size_t c = 0; c < C; c++) mean += in[c];
        mean /= (double)C;
        for (size_t c = 0; c < C; c++) var += (in[c] - mean) * (in[c] - mean);
        var /= (double)C; /* biased, as nn.LayerNorm */
        for (size_t c = 0; c < C; c++)
            y->data[r * C + c] = (float)((in[c] - mean) / sqrt(var + eps)) * g[c] + b[c];
    }
    free(g);
    free(b);
}

/* timm's Attention on qkv = x: q|k|v each [heads][head_dim] per token;
 * softmax(q·kᵀ / √head_dim + bias)·v, heads side by side in the output; the
 * bias (LeViT's) reads its table heads × L at the tokens' grid offset. */
static void attention(const tensor *x, tensor *y, const sslat_attention_params *a, uint64_t seed, int32_t node)
{
    int L = x->s.h, H = a->heads, D = a->head_dim, width = 3 * H * D, side = sslat_square_grid_side(L);
    double *p = malloc((size_t)L * sizeof *p);
    float *bias = a->position_bias ? param((size_t)H * L, seed, node, SSLAT_ROLE_BIAS, 0) : NULL;
    if (!p || (a->position_bias && !bias)) {
        free(p);
        free(bias);
        return;
    }
    double scale = 1.0 / sqrt((double)D);
    for (int n = 0; n < x->s.n; n++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < L; i++) {
                const float *q = x->data + ((size_t)n * L + i) * width + (size_t)h * D;
                double top = -INFINITY, sum = 0;
                for (int j = 0; j < L; j++) {
                    const float *k = x->data + ((size_t)n * L + j) * width + (size_t)(H + h) * D;
                    double dot = 0;
                    for (int d = 0; d < D; d++) dot += (double)q[d] * k[d];
                    p[j] = dot * scale + (bias ? bias[(size_t)h * L + sslat_attention_bias_index(side, i, j)] : 0.0);
                    top = fmax(top, p[j]);
                }
                for (int j = 0; j < L; j++) sum += p[j] = exp(p[j] - top);
                for (int d = 0; d < D; d++) {
                    double acc = 0;
                    for (int j = 0; j < L; j++)
                        acc += p[j] * x->data[((size_t)n * L + j) * width + (size_t)(2 * H + h) * D + d];
                    y->data[((size_t)n * L + i) * H * D + (size_t)h * D + d] = (float)(acc / sum);
                }
            }
    free(p);
    free(bias);
}

/* cat((cls.expand(N, -1, -1), x), 1) */
static void class_token(const tensor *x, tensor *y, uint64_t seed, int32_t node)
{
    size_t C = (size_t)x->s.c, part = (size_t)x->s.h * C;
    float *cls = param(C, seed, node, SSLAT_ROLE_WEIGHTS, 3);
    for (int n = 0; n < x->s.n; n++) {
        float *to = y->data + (size_t)n * (part + C);
        memcpy(to, cls, C * sizeof(float));
        memcpy(to + C, x->data + (size_t)n * part, part * sizeof(float));
    }
    free(cls);
}

/* x + pos_embed (1×L×C) */
static void position_embed(const tensor *x, tensor *y, uint64_t seed, int32_t node)
{
    size_t part = (size_t)x->s.h * x->s.c;
    float *pos = param(part, seed, node, SSLAT_ROLE_WEIGHTS, 3);
    for (int n = 0; n < x->s.n; n++)
        for (size_t i = 0; i < part; i++) y->data[(size_t)n * part + i] = x->data[(size_t)n * part + i] + pos[i];
    free(pos);
}

/* x.permute(0, 3, 1, 2) of the tokens read as N×H×W×C */
static void to_image(const tensor *x, tensor *y)
{
    size_t plane = (size_t)y->s.h * y->s.w;
    for (int n = 0; n < y->s.n; n++)
        for (int c = 0; c < y->s.c; c++)
            for (size_t l = 0; l < plane; l++)
                y->data[((size_t)n * y->s.c + c) * plane + l] = x->data[((size_t)n * plane + l) * y->s.c + c];
}

/* x · γ per channel: the last axis of tokens, axis 1 of an image */
static void layer_scale(const tensor *x, tensor *y, uint64_t seed, int32_t node)
{
    size_t C = (size_t)x->s.c, count = (size_t)sslat_shape_elements(x->s), plane = (size_t)x->s.h * x->s.w;
    float *g = param(C, seed, node, SSLAT_ROLE_GAMMA, 0);
    for (size_t i = 0; i < count; i++) y->data[i] = x->data[i] * g[x->s.tokens ? i % C : i / plane % C];
    free(g);
}

/* x[:, 0] or x.mean(1) */
static void token_pool(const tensor *x, tensor *y, sslat_token_pool_form form)
{
    size_t C = (size_t)x->s.c, L = (size_t)x->s.h;
    for (int n = 0; n < x->s.n; n++)
        for (size_t c = 0; c < C; c++) {
            double acc = 0;
            size_t count = form == SSLAT_TOKEN_POOL_MEAN ? L : 1;
            for (size_t l = 0; l < count; l++) acc += x->data[((size_t)n * L + l) * C + c];
            y->data[(size_t)n * C + c] = (float)(acc / (double)count);
        }
}

static bool run_node(const sslat_node *node, const tensor *const *inputs, tensor *y, uint64_t seed, int32_t global)
{
    const tensor *a = inputs[0], *b = inputs[1];
    size_t count = (size_t)sslat_shape_elements(y->s);
    switch (node->op) {
    case SSLAT_OP_CONV2D: conv(a, y, &node->params.conv, seed, global); break;
    case SSLAT_OP_BATCHNORM: batchnorm(a, y, seed, global); break;
    case SSLAT_OP_ACT:
        for (size_t i = 0; i < count; i++) y->data[i] = activation(node->params.act, a->data[i]);
        break;
    case SSLAT_OP_ADD:
        for (size_t i = 0; i < count; i++) y->data[i] = a->data[i] + b->data[i];
        break;
    case SSLAT_OP_MUL_CHANNEL: {
        size_t plane = (size_t)a->s.h * a->s.w;
        for (size_t i = 0; i < count; i++) y->data[i] = a->data[i] * b->data[i / plane];
        break;
    }
    case SSLAT_OP_GLOBAL_AVGPOOL:
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: pool(a, y, node); break;
    case SSLAT_OP_LINEAR: linear(a, y, &node->params.linear, seed, global); break;
    case SSLAT_OP_FLATTEN:
    case SSLAT_OP_IDENTITY: memcpy(y->data, a->data, count * sizeof(float)); break;
    case SSLAT_OP_CHANNEL_SHUFFLE: shuffle(a, y, node->params.shuffle_groups); break;
    case SSLAT_OP_CONCAT: concat(inputs, sslat_node_input_count(node), y); break;
    case SSLAT_OP_CHANNEL_SLICE: channel_slice(a, y, &node->params.slice); break;
    case SSLAT_OP_UPSAMPLE: upsample(a, y, node->params.upsample_scale); break;
    case SSLAT_OP_SPACE_TO_DEPTH: space_to_depth(a, y); break;
    case SSLAT_OP_INPUT: /* a layer timed alone: seeded values, as the cpu backend fills it */
        sslat_fill_parameter(y->data, count, seed, global, SSLAT_ROLE_WEIGHTS, 3);
        break;
    case SSLAT_OP_TOKENS: to_tokens(a, y); break;
    case SSLAT_OP_LAYERNORM: layernorm(a, y, sslat_node_layernorm_eps(node), seed, global); break;
    case SSLAT_OP_ATTENTION: attention(a, y, &node->params.attention, seed, global); break;
    case SSLAT_OP_CLASS_TOKEN: class_token(a, y, seed, global); break;
    case SSLAT_OP_POSITION_EMBED: position_embed(a, y, seed, global); break;
    case SSLAT_OP_TOKEN_POOL: token_pool(a, y, node->params.token_pool); break;
    case SSLAT_OP_LEAKY_RELU:
        for (size_t i = 0; i < count; i++) y->data[i] = a->data[i] > 0 ? a->data[i] : node->params.slope * a->data[i];
        break;
    case SSLAT_OP_IMAGE: to_image(a, y); break;
    case SSLAT_OP_LAYER_SCALE: layer_scale(a, y, seed, global); break;
    case SSLAT_OP_COUNT: return false;
    }
    return true;
}

float *reference_run(const sslat_graph *const *graphs, int count, uint64_t seed)
{
    if (count < 1) return NULL;
    sslat_shape in = graphs[0]->input;
    tensor current = {param((size_t)sslat_shape_elements(in), seed, -1, 0, 0), in};
    int32_t base = 0;
    for (int k = 0; k < count && current.data; k++) {
        const sslat_graph *g = graphs[k];
        tensor *values = calloc((size_t)g->count + 1, sizeof *values);
        bool ok = values != NULL;
        for (int32_t i = 0; ok && i < g->count; i++) {
            const sslat_node *node = &g->nodes[i];
            const tensor *inputs[SSLAT_MAX_NODE_INPUTS];
            for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++)
                inputs[k] = node->input[k] == SSLAT_GRAPH_INPUT ? &current
                            : node->input[k] >= 0               ? &values[node->input[k]]
                                                                : NULL;
            values[i].s = node->shape;
            values[i].data = malloc((size_t)sslat_shape_elements(node->shape) * sizeof(float));
            ok = values[i].data && run_node(node, inputs, &values[i], seed, base + i);
        }
        tensor next = current;
        if (ok && g->count > 0) {
            next = values[g->count - 1];
            values[g->count - 1].data = NULL;
            free(current.data);
        } else if (!ok) {
            free(current.data);
            next.data = NULL;
        }
        for (int32_t i = 0; values && i < g->count; i++) free(values[i].data);
        free(values);
        current = next;
        base += g->count;
    }
    return current.data;
}
