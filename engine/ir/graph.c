#include "ir/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "base/limits.h"

void sslat_graph_init(sslat_graph *graph, sslat_shape input)
{
    memset(graph, 0, sizeof *graph);
    graph->input = input;
}

void sslat_graph_release(sslat_graph *graph)
{
    free(graph->nodes);
    graph->nodes = NULL;
    graph->count = graph->capacity = 0;
}

int32_t sslat_graph_output_index(const sslat_graph *graph)
{
    return graph->count > 0 ? graph->count - 1 : SSLAT_GRAPH_INPUT;
}

sslat_shape sslat_graph_shape_of(const sslat_graph *graph, int32_t index)
{
    SSLAT_ASSERT(index == SSLAT_GRAPH_INPUT || (index >= 0 && index < graph->count));
    return index == SSLAT_GRAPH_INPUT ? graph->input : graph->nodes[index].shape;
}

sslat_shape sslat_graph_output(const sslat_graph *graph)
{
    return sslat_graph_shape_of(graph, sslat_graph_output_index(graph));
}

/* floor((in + begin + end - d(k-1) - 1) / s) + 1, as PyTorch computes it; < 1 is an error. */
static int32_t window_output(int32_t in, int32_t kernel, int32_t stride, int32_t begin, int32_t end,
                             int32_t dilation)
{
    int64_t span = (int64_t)dilation * (kernel - 1) + 1;
    int64_t room = (int64_t)in + begin + end - span;
    if (room < 0) return 0;
    return (int32_t)(room / stride + 1);
}

static bool check_window(int32_t kernel, int32_t stride, int32_t padding, int32_t dilation,
                         char *why, size_t why_size)
{
    if (kernel < 1 || kernel > SSLAT_MAX_KERNEL) {
        snprintf(why, why_size, "kernel %d is outside 1..%d", kernel, SSLAT_MAX_KERNEL);
        return false;
    }
    if (stride < 1 || stride > SSLAT_MAX_STRIDE) {
        snprintf(why, why_size, "stride %d is outside 1..%d", stride, SSLAT_MAX_STRIDE);
        return false;
    }
    if (dilation < 1 || dilation > SSLAT_MAX_KERNEL) {
        snprintf(why, why_size, "dilation %d is outside 1..%d", dilation, SSLAT_MAX_KERNEL);
        return false;
    }
    if (padding < 0 || padding > SSLAT_MAX_KERNEL * SSLAT_MAX_KERNEL) {
        snprintf(why, why_size, "padding %d is negative or too large", padding);
        return false;
    }
    return true;
}

static bool same_shape(sslat_shape a, sslat_shape b)
{
    return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.tokens == b.tokens;
}

/* Token ops read tokens, image ops images: the other kind is refused by name. */
static bool reads_its_kind(sslat_op_kind op, sslat_shape in, char *why, size_t why_size)
{
    if (in.tokens && !sslat_op_reads_tokens(op) && !sslat_op_reads_either(op)) {
        snprintf(why, why_size, "needs an image N×C×H×W, got tokens N×L×C %dx%dx%d", in.n, in.h, in.c);
        return false;
    }
    if (!in.tokens && sslat_op_reads_tokens(op)) {
        snprintf(why, why_size, "needs tokens N×L×C, got an image %dx%dx%dx%d (a 'patch' or 'tokens' layer "
                 "turns an image into tokens)", in.n, in.c, in.h, in.w);
        return false;
    }
    return true;
}

static bool infer_attention(const sslat_attention_params *a, sslat_shape in, sslat_shape *out, char *why,
                            size_t why_size)
{
    if (a->heads < 1 || a->head_dim < 1 || a->heads > SSLAT_MAX_CHANNELS || a->head_dim > SSLAT_MAX_CHANNELS ||
        (int64_t)a->heads * a->head_dim * 3 != in.c) {
        snprintf(why, why_size, "its input of %d channels is not q|k|v of %d heads × %d channels each", in.c,
                 a->heads, a->head_dim);
        return false;
    }
    if (a->form < 0 || a->form >= SSLAT_ATTENTION_FORM_COUNT) {
        snprintf(why, why_size, "unknown attention form %d", (int)a->form);
        return false;
    }
    if (a->position_bias && !sslat_square_grid_side(in.h)) {
        snprintf(why, why_size, "an attention bias needs the tokens of a square grid (L = R·R), got %d tokens "
                 "(a class token or an image that is not square?)", in.h);
        return false;
    }
    /* the scores N×heads×L×L are a tensor of their own */
    sslat_shape scores = {in.n, a->heads, in.h, in.h, false};
    if (!sslat_shape_fits(scores)) {
        snprintf(why, why_size, "%d tokens make attention scores of more than 2^40 elements", in.h);
        return false;
    }
    out->c = a->heads * a->head_dim;
    return true;
}

static bool infer_window(sslat_shape in, int32_t channels, int32_t kernel, int32_t stride,
                         sslat_pads pads, int32_t dilation, sslat_shape *out, char *why,
                         size_t why_size)
{
    int32_t widest = pads.top > pads.bottom ? pads.top : pads.bottom;
    if (pads.left > widest) widest = pads.left;
    if (pads.right > widest) widest = pads.right;
    if (!check_window(kernel, stride, widest, dilation, why, why_size)) return false;
    out->n = in.n;
    out->c = channels;
    out->h = window_output(in.h, kernel, stride, pads.top, pads.bottom, dilation);
    out->w = window_output(in.w, kernel, stride, pads.left, pads.right, dilation);
    if (out->h < 1 || out->w < 1) {
        snprintf(why, why_size, "kernel %d (dilation %d, padding %d) does not fit input %dx%d",
                 kernel, dilation, widest, in.h, in.w);
        return false;
    }
    return true;
}

bool sslat_infer_shape(sslat_op_kind op, const sslat_op_params *p, sslat_shape in0,
                       sslat_shape in1, sslat_shape *out, char *why, size_t why_size)
{
    *out = in0;
    if (!reads_its_kind(op, in0, why, why_size)) return false;
    switch (op) {
    case SSLAT_OP_CONV2D: {
        const sslat_conv_params *c = &p->conv;
        if (c->out_channels < 1 || c->out_channels > SSLAT_MAX_CHANNELS) {
            snprintf(why, why_size, "output channels %d are outside 1..%d", c->out_channels,
                     SSLAT_MAX_CHANNELS);
            return false;
        }
        if (c->groups < 1 || in0.c % c->groups != 0 || c->out_channels % c->groups != 0) {
            snprintf(why, why_size, "groups %d must divide input channels %d and output channels %d",
                     c->groups, in0.c, c->out_channels);
            return false;
        }
        if (c->same && c->padding != 0) {
            snprintf(why, why_size, "'same' padding with padding %d as well", c->padding);
            return false;
        }
        return infer_window(in0, c->out_channels, c->kernel, c->stride, sslat_conv_pads(c, in0), c->dilation,
                            out, why, why_size);
    }
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: {
        const sslat_pool_params *pool = &p->pool;
        if (pool->ceil && op != SSLAT_OP_MAXPOOL) {
            snprintf(why, why_size, "ceil mode is for max pooling only (an average's divisor at the edge differs)");
            return false;
        }
        if (pool->adaptive && (op != SSLAT_OP_AVGPOOL || pool->padding != 0 || pool->kernel != pool->stride)) {
            snprintf(why, why_size, "an adaptive pool is an average over equal windows (kernel = stride, no padding)");
            return false;
        }
        if (pool->padding * 2 > pool->kernel) {
            /* PyTorch's rule: padding at most half the kernel. */
            snprintf(why, why_size, "padding %d exceeds half of kernel %d", pool->padding,
                     pool->kernel);
            return false;
        }
        sslat_pads pads = {pool->padding, pool->padding, pool->padding, pool->padding};
        if (!infer_window(in0, in0.c, pool->kernel, pool->stride, pads, 1, out, why, why_size)) return false;
        if (pool->ceil) { /* PyTorch: ceil((in + 2p − k) / s) + 1, less one if the last window starts in the padding */
            int32_t *sides[2] = {&out->h, &out->w}, ins[2] = {in0.h, in0.w};
            for (int k = 0; k < 2; k++) {
                int64_t room = (int64_t)ins[k] + 2 * pool->padding - pool->kernel;
                int64_t n = (room + pool->stride - 1) / pool->stride + 1;
                if ((n - 1) * pool->stride >= (int64_t)ins[k] + pool->padding) n--;
                *sides[k] = (int32_t)n;
            }
        }
        return true;
    }
    case SSLAT_OP_GLOBAL_AVGPOOL:
        out->h = out->w = 1;
        return true;
    case SSLAT_OP_FLATTEN: {
        int64_t features = (int64_t)in0.c * in0.h * in0.w;
        if (features > SSLAT_MAX_CHANNELS) {
            snprintf(why, why_size, "flatten gives %lld features, over the limit of %d",
                     (long long)features, SSLAT_MAX_CHANNELS);
            return false;
        }
        out->c = (int32_t)features;
        out->h = out->w = 1;
        return true;
    }
    case SSLAT_OP_LINEAR:
        if (!in0.tokens && (in0.h != 1 || in0.w != 1)) {
            snprintf(why, why_size, "linear needs a flattened input, got %dx%dx%d", in0.c, in0.h,
                     in0.w);
            return false;
        }
        if (p->linear.out_features < 1 || p->linear.out_features > SSLAT_MAX_CHANNELS) {
            snprintf(why, why_size, "output features %d are outside 1..%d",
                     p->linear.out_features, SSLAT_MAX_CHANNELS);
            return false;
        }
        out->c = p->linear.out_features;
        return true;
    case SSLAT_OP_ADD:
        if (!same_shape(in0, in1)) {
            snprintf(why, why_size, "add of different shapes %dx%dx%dx%d and %dx%dx%dx%d", in0.n,
                     in0.c, in0.h, in0.w, in1.n, in1.c, in1.h, in1.w);
            return false;
        }
        return true;
    case SSLAT_OP_MUL_CHANNEL:
        if (in1.n != in0.n || in1.c != in0.c || in1.h != 1 || in1.w != 1) {
            snprintf(why, why_size, "channel scale must be %dx%dx1x1, got %dx%dx%dx%d", in0.n,
                     in0.c, in1.n, in1.c, in1.h, in1.w);
            return false;
        }
        return true;
    case SSLAT_OP_CHANNEL_SHUFFLE:
        if (p->shuffle_groups < 1 || in0.c % p->shuffle_groups != 0) {
            snprintf(why, why_size, "shuffle groups %d must divide channels %d", p->shuffle_groups,
                     in0.c);
            return false;
        }
        return true;
    case SSLAT_OP_ACT:
        if (p->act < 0 || p->act >= SSLAT_ACT_COUNT) {
            snprintf(why, why_size, "unknown activation %d", (int)p->act);
            return false;
        }
        return true;
    case SSLAT_OP_CHANNEL_SLICE:
        if (p->slice.start < 0 || p->slice.length < 1 || (int64_t)p->slice.start + p->slice.length > in0.c) {
            snprintf(why, why_size, "channels %d..%d are not inside the input's %d", p->slice.start,
                     p->slice.start + p->slice.length - 1, in0.c);
            return false;
        }
        out->c = p->slice.length;
        return true;
    case SSLAT_OP_UPSAMPLE:
        if (p->upsample_scale < 1 || p->upsample_scale > SSLAT_MAX_STRIDE ||
            (int64_t)in0.h * p->upsample_scale > SSLAT_MAX_SPATIAL || (int64_t)in0.w * p->upsample_scale > SSLAT_MAX_SPATIAL) {
            snprintf(why, why_size, "scale %d of %dx%d is outside 1..%d or over %d pixels a side", p->upsample_scale,
                     in0.h, in0.w, SSLAT_MAX_STRIDE, SSLAT_MAX_SPATIAL);
            return false;
        }
        out->h = in0.h * p->upsample_scale;
        out->w = in0.w * p->upsample_scale;
        return true;
    case SSLAT_OP_SPACE_TO_DEPTH: /* x[..., ::2, ::2], x[..., 1::2, ::2], … concatenated: H and W must be even */
        if (in0.h % 2 || in0.w % 2 || (int64_t)in0.c * 4 > SSLAT_MAX_CHANNELS) {
            snprintf(why, why_size, "needs an even height and width and at most %d channels, got %dx%dx%d",
                     SSLAT_MAX_CHANNELS / 4, in0.c, in0.h, in0.w);
            return false;
        }
        out->c = in0.c * 4;
        out->h = in0.h / 2;
        out->w = in0.w / 2;
        return true;
    case SSLAT_OP_INPUT: /* its shape is given: sslat_graph_add_input */
        snprintf(why, why_size, "an input node is added by sslat_graph_add_input");
        return false;
    case SSLAT_OP_CONCAT: /* its inputs' shapes are checked by sslat_graph_add_concat */
        snprintf(why, why_size, "a concat takes 2..%d inputs (sslat_graph_add_concat)", SSLAT_MAX_NODE_INPUTS);
        return false;
    case SSLAT_OP_TOKENS:
        if ((int64_t)in0.h * in0.w > SSLAT_MAX_CHANNELS) {
            snprintf(why, why_size, "%dx%d pixels make more than %d tokens", in0.h, in0.w, SSLAT_MAX_CHANNELS);
            return false;
        }
        *out = (sslat_shape){in0.n, in0.c, in0.h * in0.w, 1, true};
        return true;
    case SSLAT_OP_ATTENTION: return infer_attention(&p->attention, in0, out, why, why_size);
    case SSLAT_OP_CLASS_TOKEN:
        out->h = in0.h + 1;
        return true;
    case SSLAT_OP_LEAKY_RELU:
        if (!(p->slope >= -1e6f && p->slope <= 1e6f)) { /* NaN fails both */
            snprintf(why, why_size, "negative slope %g is outside -1e6..1e6 (or not a number)", (double)p->slope);
            return false;
        }
        return true;
    case SSLAT_OP_TOKEN_POOL:
        if (p->token_pool < 0 || p->token_pool >= SSLAT_TOKEN_POOL_FORM_COUNT) {
            snprintf(why, why_size, "unknown token pool form %d", (int)p->token_pool);
            return false;
        }
        *out = (sslat_shape){in0.n, in0.c, 1, 1, false};
        return true;
    case SSLAT_OP_IMAGE: {
        const sslat_image_params *image = &p->image;
        if (image->h < 1 || image->w < 1 || (int64_t)image->h * image->w != in0.h) {
            snprintf(why, why_size, "%d tokens are not an image of %dx%d pixels", in0.h, image->h, image->w);
            return false;
        }
        *out = (sslat_shape){in0.n, in0.c, image->h, image->w, false};
        return true;
    }
    case SSLAT_OP_LAYER_SCALE:
        if (p->scale_form < 0 || p->scale_form >= SSLAT_SCALE_FORM_COUNT) {
            snprintf(why, why_size, "unknown layer scale form %d", (int)p->scale_form);
            return false;
        }
        return true;
    case SSLAT_OP_LAYERNORM:
        if (!(p->layernorm_eps >= 0.0f && p->layernorm_eps < 1.0f)) { /* NaN fails both */
            snprintf(why, why_size, "LayerNorm epsilon %g is outside [0, 1) (or not a number)", (double)p->layernorm_eps);
            return false;
        }
        return true;
    case SSLAT_OP_BATCHNORM:
    case SSLAT_OP_IDENTITY:
    case SSLAT_OP_POSITION_EMBED:
        return true;
    case SSLAT_OP_COUNT:
        break;
    }
    snprintf(why, why_size, "unknown op %d", (int)op);
    return false;
}

static bool valid_input(const sslat_graph *graph, int32_t index)
{
    return index == SSLAT_GRAPH_INPUT || (index >= 0 && index < graph->count);
}

/* A checked node at the end of the graph. */
static sslat_status append_node(sslat_graph *graph, const sslat_node *node, int32_t *index, sslat_error *err)
{
    if (!sslat_shape_fits(node->shape))
        return sslat_fail(err, SSLAT_ERR_LIMIT, "%s '%s': output %dx%dx%dx%d has more than 2^40 elements",
                          sslat_op_name(node->op), node->name, node->shape.n, node->shape.c, node->shape.h,
                          node->shape.w);
    if (graph->count == graph->capacity) {
        int32_t capacity = graph->capacity ? graph->capacity * 2 : 8;
        sslat_node *grown = realloc(graph->nodes, (size_t)capacity * sizeof *grown);
        if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory growing a subgraph");
        graph->nodes = grown;
        graph->capacity = capacity;
    }
    graph->nodes[graph->count] = *node;
    if (index) *index = graph->count;
    graph->count++;
    return SSLAT_OK;
}

/* A zeroed node (zeroed params keep hashes canonical) with every input slot unused. */
static sslat_node new_node(sslat_op_kind op, const sslat_op_params *params, const char *name)
{
    sslat_node node;
    memset(&node, 0, sizeof node);
    node.op = op;
    for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++) node.input[k] = SSLAT_NO_INPUT;
    if (params) node.params = *params;
    snprintf(node.name, sizeof node.name, "%s", name ? name : sslat_op_name(op));
    return node;
}

sslat_status sslat_graph_add(sslat_graph *graph, sslat_op_kind op, const sslat_op_params *params,
                             int32_t in0, int32_t in1, const char *name, int32_t *index,
                             sslat_error *err)
{
    SSLAT_ASSERT(op >= 0 && op < SSLAT_OP_COUNT && op != SSLAT_OP_CONCAT && op != SSLAT_OP_INPUT);
    SSLAT_ASSERT(valid_input(graph, in0));
    SSLAT_ASSERT(sslat_op_arity(op) == 2 ? valid_input(graph, in1) : in1 == SSLAT_NO_INPUT);
    if (graph->count >= SSLAT_MAX_GRAPH_NODES)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "subgraph has more than %d operations",
                          SSLAT_MAX_GRAPH_NODES);
    sslat_node node = new_node(op, params, name);
    node.input[0] = in0;
    node.input[1] = in1;
    sslat_shape s1 = in1 == SSLAT_NO_INPUT ? (sslat_shape){0, 0, 0, 0, false}
                                           : sslat_graph_shape_of(graph, in1);
    char why[256];
    if (!sslat_infer_shape(op, &node.params, sslat_graph_shape_of(graph, in0), s1, &node.shape,
                           why, sizeof why))
        return sslat_fail(err, SSLAT_ERR_SPACE, "%s '%s': %s", sslat_op_name(op), node.name, why);
    return append_node(graph, &node, index, err);
}

sslat_status sslat_graph_add_concat(sslat_graph *graph, const int32_t *inputs, int n, const char *name,
                                    int32_t *index, sslat_error *err)
{
    SSLAT_ASSERT(n >= 2 && n <= SSLAT_MAX_NODE_INPUTS);
    if (graph->count >= SSLAT_MAX_GRAPH_NODES)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "subgraph has more than %d operations",
                          SSLAT_MAX_GRAPH_NODES);
    sslat_node node = new_node(SSLAT_OP_CONCAT, NULL, name);
    int64_t channels = 0;
    for (int k = 0; k < n; k++) {
        SSLAT_ASSERT(valid_input(graph, inputs[k]));
        sslat_shape in = sslat_graph_shape_of(graph, inputs[k]), first = sslat_graph_shape_of(graph, inputs[0]);
        if (in.tokens)
            return sslat_fail(err, SSLAT_ERR_SPACE, "concat '%s': input %d is tokens N×L×C; concat joins images along "
                              "channels", node.name, k);
        if (in.n != first.n || in.h != first.h || in.w != first.w)
            return sslat_fail(err, SSLAT_ERR_SPACE, "concat '%s': input %d is %dx%dx%dx%d, input 0 %dx%dx%dx%d: "
                              "only the channels may differ", node.name, k, in.n, in.c, in.h, in.w, first.n,
                              first.c, first.h, first.w);
        node.input[k] = inputs[k];
        channels += in.c;
    }
    if (channels > SSLAT_MAX_CHANNELS)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "concat '%s': %lld channels (limit %d)", node.name,
                          (long long)channels, SSLAT_MAX_CHANNELS);
    node.shape = sslat_graph_shape_of(graph, inputs[0]);
    node.shape.c = (int32_t)channels;
    return append_node(graph, &node, index, err);
}

sslat_status sslat_graph_add_input(sslat_graph *graph, sslat_shape shape, const char *name, int32_t *index,
                                   sslat_error *err)
{
    SSLAT_ASSERT(graph->count == 0 || graph->nodes[graph->count - 1].op == SSLAT_OP_INPUT);
    if (graph->count >= SSLAT_MAX_NODE_INPUTS - 1)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "a layer reads at most %d inputs", SSLAT_MAX_NODE_INPUTS);
    sslat_node node = new_node(SSLAT_OP_INPUT, NULL, name);
    node.shape = shape;
    return append_node(graph, &node, index, err);
}

int32_t sslat_graph_chain_index(const sslat_graph *graph)
{
    int32_t last = sslat_graph_output_index(graph);
    return last >= 0 && graph->nodes[last].op == SSLAT_OP_INPUT ? SSLAT_GRAPH_INPUT : last;
}

static void hash_shape(sslat_hasher *h, sslat_shape s)
{
    sslat_hash_i32(h, s.n);
    sslat_hash_i32(h, s.c);
    sslat_hash_i32(h, s.h);
    sslat_hash_i32(h, s.w);
    if (s.tokens) sslat_hash_i32(h, 0x544f4b4e); /* "TOKN"; image shapes hash as they always did */
}

/* A float by its bits */
static void hash_float(sslat_hasher *h, float value)
{
    int32_t bits;
    memcpy(&bits, &value, sizeof bits);
    sslat_hash_i32(h, bits);
}

/* Only the fields an op uses are hashed, field by field, so padding bytes and
 * unused union members never leak into the hash. */
static void hash_params(sslat_hasher *h, const sslat_node *node)
{
    switch (node->op) {
    case SSLAT_OP_CONV2D: {
        const sslat_conv_params *c = sslat_node_conv(node);
        sslat_hash_i32(h, c->out_channels);
        sslat_hash_i32(h, c->kernel);
        sslat_hash_i32(h, c->stride);
        sslat_hash_i32(h, c->padding);
        sslat_hash_i32(h, c->dilation);
        sslat_hash_i32(h, c->groups);
        sslat_hash_i32(h, c->bias);
        if (c->same) sslat_hash_i32(h, 0x53414d45); /* "SAME"; the others hash as they always did */
        break;
    }
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: {
        const sslat_pool_params *pool = sslat_node_pool(node);
        sslat_hash_i32(h, pool->kernel);
        sslat_hash_i32(h, pool->stride);
        sslat_hash_i32(h, pool->padding);
        if (pool->ceil) sslat_hash_i32(h, 0x4345494c);     /* "CEIL"; the others hash as they always did */
        if (pool->adaptive) sslat_hash_i32(h, 0x41444150); /* "ADAP" */
        break;
    }
    case SSLAT_OP_ACT: sslat_hash_i32(h, sslat_node_act(node)); break;
    case SSLAT_OP_LINEAR:
        sslat_hash_i32(h, sslat_node_linear(node)->out_features);
        sslat_hash_i32(h, sslat_node_linear(node)->bias);
        if (sslat_node_linear(node)->functional) sslat_hash_i32(h, 0x464e); /* "FN"; modules hash as they always did */
        break;
    case SSLAT_OP_CHANNEL_SHUFFLE: sslat_hash_i32(h, sslat_node_shuffle_groups(node)); break;
    case SSLAT_OP_UPSAMPLE: sslat_hash_i32(h, sslat_node_upsample_scale(node)); break;
    case SSLAT_OP_CHANNEL_SLICE:
        sslat_hash_i32(h, sslat_node_slice(node)->start);
        sslat_hash_i32(h, sslat_node_slice(node)->length);
        break;
    case SSLAT_OP_GLOBAL_AVGPOOL: /* the module form hashes as it always did */
        if (sslat_node_gap_form(node) != SSLAT_GAP_MODULE) sslat_hash_i32(h, sslat_node_gap_form(node));
        break;
    case SSLAT_OP_ATTENTION: {
        const sslat_attention_params *a = sslat_node_attention(node);
        sslat_hash_i32(h, a->heads);
        sslat_hash_i32(h, a->head_dim);
        sslat_hash_i32(h, a->form);
        if (a->position_bias) sslat_hash_i32(h, 0x504f5342); /* "POSB"; attention without one hashes as it always did */
        break;
    }
    case SSLAT_OP_TOKEN_POOL: sslat_hash_i32(h, sslat_node_token_pool(node)); break;
    case SSLAT_OP_LEAKY_RELU: hash_float(h, sslat_node_slope(node)); break;
    case SSLAT_OP_IMAGE:
        sslat_hash_i32(h, sslat_node_image(node)->h);
        sslat_hash_i32(h, sslat_node_image(node)->w);
        break;
    case SSLAT_OP_LAYER_SCALE: sslat_hash_i32(h, sslat_node_scale_form(node)); break;
    case SSLAT_OP_LAYERNORM: /* timm's 1e-6 hashes as it always did */
        if (sslat_node_layernorm_eps(node) != SSLAT_LN_DEFAULT_EPSILON) hash_float(h, sslat_node_layernorm_eps(node));
        break;
    /* No parameters. A new op must be named here (no default:): a forgotten
     * case would hash a parametrised op equal to its siblings and merge
     * different subgraphs into one table entry. */
    case SSLAT_OP_BATCHNORM: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL: case SSLAT_OP_FLATTEN:
    case SSLAT_OP_IDENTITY: case SSLAT_OP_CONCAT: case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT:
    case SSLAT_OP_TOKENS: case SSLAT_OP_CLASS_TOKEN: case SSLAT_OP_POSITION_EMBED: break;
    case SSLAT_OP_COUNT: SSLAT_ASSERT(!"unknown op");
    }
}

uint64_t sslat_graph_hash(const sslat_graph *graph)
{
    sslat_hasher h;
    sslat_hash_begin(&h);
    hash_shape(&h, graph->input);
    sslat_hash_i32(&h, graph->count);
    for (int32_t i = 0; i < graph->count; i++) {
        const sslat_node *node = &graph->nodes[i];
        sslat_hash_i32(&h, node->op);
        sslat_hash_i32(&h, node->input[0]);
        sslat_hash_i32(&h, node->input[1]);
        for (int k = 2; k < SSLAT_MAX_NODE_INPUTS; k++) /* only a concat uses them: older hashes stay */
            if (node->input[k] != SSLAT_NO_INPUT) sslat_hash_i32(&h, node->input[k]);
        hash_params(&h, node);
        hash_shape(&h, node->shape);
    }
    return h.state;
}

int64_t sslat_node_param_count(const sslat_graph *graph, const sslat_node *node)
{
    if (node->op == SSLAT_OP_INPUT) return 0;
    sslat_shape in = sslat_graph_shape_of(graph, node->input[0]);
    switch (node->op) {
    case SSLAT_OP_CONV2D: {
        const sslat_conv_params *c = sslat_node_conv(node);
        int64_t weights = (int64_t)c->out_channels * (in.c / c->groups) * c->kernel * c->kernel;
        return weights + (c->bias ? c->out_channels : 0);
    }
    case SSLAT_OP_BATCHNORM: return 2 * (int64_t)in.c; /* affine weight and bias */
    case SSLAT_OP_LAYERNORM: return 2 * (int64_t)in.c;
    case SSLAT_OP_CLASS_TOKEN: return in.c;
    case SSLAT_OP_POSITION_EMBED: return (int64_t)in.h * in.c;
    case SSLAT_OP_LAYER_SCALE: return in.c;
    case SSLAT_OP_ATTENTION: /* the bias table: heads × L token offsets */
        return sslat_node_attention(node)->position_bias ? (int64_t)sslat_node_attention(node)->heads * in.h : 0;
    case SSLAT_OP_LINEAR: {
        const sslat_linear_params *l = sslat_node_linear(node);
        return (int64_t)in.c * l->out_features + (l->bias ? l->out_features : 0);
    }
    case SSLAT_OP_ACT: case SSLAT_OP_ADD: case SSLAT_OP_MUL_CHANNEL: case SSLAT_OP_GLOBAL_AVGPOOL:
    case SSLAT_OP_MAXPOOL: case SSLAT_OP_AVGPOOL: case SSLAT_OP_FLATTEN: case SSLAT_OP_IDENTITY:
    case SSLAT_OP_CHANNEL_SHUFFLE: case SSLAT_OP_CONCAT: case SSLAT_OP_CHANNEL_SLICE: case SSLAT_OP_UPSAMPLE:
    case SSLAT_OP_SPACE_TO_DEPTH: case SSLAT_OP_INPUT: case SSLAT_OP_TOKENS:
    case SSLAT_OP_TOKEN_POOL: case SSLAT_OP_LEAKY_RELU: case SSLAT_OP_IMAGE: return 0;
    case SSLAT_OP_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown op");
}

sslat_status sslat_graph_append_wired(sslat_graph *graph, const sslat_graph *next, const int32_t *sources,
                                      int n_sources, sslat_error *err)
{
    SSLAT_ASSERT(n_sources >= 1 && n_sources <= SSLAT_MAX_NODE_INPUTS);
    sslat_shape from = sslat_graph_shape_of(graph, sources[0]);
    if (!same_shape(from, next->input))
        return sslat_fail(err, SSLAT_ERR_SPACE, "cannot chain: the source %dx%dx%dx%d is not the next input %dx%dx%dx%d",
                          from.n, from.c, from.h, from.w, next->input.n, next->input.c, next->input.h, next->input.w);
    int32_t base = graph->count, wired = 1;
    for (int32_t i = 0; i < next->count; i++) {
        const sslat_node *node = &next->nodes[i];
        int32_t in[SSLAT_MAX_NODE_INPUTS], index;
        for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++)
            in[k] = node->input[k] == SSLAT_GRAPH_INPUT ? sources[0] : node->input[k] == SSLAT_NO_INPUT ? SSLAT_NO_INPUT
                                                                                                    : node->input[k] + base;
        sslat_status status;
        if (node->op == SSLAT_OP_INPUT) { /* an identity on the value it stands for */
            if (wired >= n_sources)
                return sslat_fail(err, SSLAT_ERR_SPACE, "cannot wire input node '%s': %d sources given", node->name,
                                  n_sources);
            sslat_shape shape = sslat_graph_shape_of(graph, sources[wired]);
            if (!same_shape(shape, node->shape))
                return sslat_fail(err, SSLAT_ERR_SPACE, "cannot wire input node '%s': source %d is %dx%dx%dx%d, the "
                                  "node %dx%dx%dx%d", node->name, wired, shape.n, shape.c, shape.h, shape.w,
                                  node->shape.n, node->shape.c, node->shape.h, node->shape.w);
            status = sslat_graph_add(graph, SSLAT_OP_IDENTITY, NULL, sources[wired++], SSLAT_NO_INPUT, node->name,
                                     &index, err);
        } else if (node->op == SSLAT_OP_CONCAT) {
            status = sslat_graph_add_concat(graph, in, sslat_node_input_count(node), node->name, &index, err);
        } else {
            status = sslat_graph_add(graph, node->op, &node->params, in[0], in[1], node->name, &index, err);
        }
        if (status != SSLAT_OK) return status;
    }
    if (wired != n_sources)
        return sslat_fail(err, SSLAT_ERR_SPACE, "cannot wire: %d sources for a subgraph of %d inputs", n_sources, wired);
    return SSLAT_OK;
}

sslat_status sslat_graph_append(sslat_graph *graph, const sslat_graph *next, sslat_error *err)
{
    const int32_t previous = sslat_graph_output_index(graph);
    return sslat_graph_append_wired(graph, next, &previous, 1, err);
}
