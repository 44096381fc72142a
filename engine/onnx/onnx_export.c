/* One architecture as an ONNX model, built with protobuf-c on the message
 * classes generated from ONNX's own onnx.proto (Debian's libonnx-dev): the
 * found network as a file ONNX Runtime, trtexec or OpenVINO can run, and the
 * vehicle of `sslat validate --reference onnxruntime`.
 *
 * Every IR primitive becomes the ONNX operators PyTorch's exporter writes for
 * the same module at opset 17 (docs/onnx.md has the table), with the seeded
 * parameters the timed calculators use, so a model and a table describe the
 * same numbers. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/file_io.h"
#include "ir/space.h"
#include "measure/parameters.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_export.h"

/* protobuf's limit on one serialized message */
#define ONNX_MAX_MODEL_BYTES ((int64_t)INT32_MAX)

#define OPSET 17


/* ---- the IR, node by node ---------------------------------------------------------------- */

/* Each IR value as ONNX sees it: its name and rank (4: N,C,H,W; 2: N,C after
 * Flatten / Gemm). The IR writes every shape as N,C,H,W. */
typedef struct value {
    const char *name;
    int rank;
} value;

typedef struct lowering {
    onnx_builder *b;
    const sslat_graph *g;
    value *values; /* of each node */
    value input;
    uint64_t seed; /* of the parameters' values */
} lowering;

/* The seeded values of one parameter (measure/parameters.h): node is the
 * node's index in the chained architecture graph, as the backends number it. */
static const char *parameter(lowering *L, const char *name, const int64_t *dims, size_t ndims, int32_t node,
                             int role, int64_t fan_in)
{
    size_t count = 1;
    for (size_t i = 0; i < ndims; i++) count *= (size_t)dims[i];
    float *values = malloc(count * sizeof *values);
    if (!values) {
        L->b->out_of_memory = true;
        return NULL;
    }
    sslat_fill_parameter(values, count, L->seed, node, role, fan_in);
    const char *result = onnx_initializer(L->b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims, ndims, values,
                                          count * sizeof *values);
    free(values);
    return result;
}

static value value_of(const lowering *L, int32_t index)
{
    return index == SSLAT_GRAPH_INPUT ? L->input : L->values[index];
}

static const char *out_name(const lowering *L, int32_t i, const char *suffix)
{
    return onnx_text(L->b, "n%d_%s%s", (int)i, L->g->nodes[i].name[0] ? L->g->nodes[i].name : sslat_op_name(L->g->nodes[i].op),
                suffix);
}

/* A rank-2 value where a 4-D one is read (an op after Gemm): N,C -> N,C,1,1.
 * Its names carry the input slot, so a node reading two rank-2 values (a
 * concat of two fc heads) gets two distinct Reshapes. */
static const char *as_rank4(lowering *L, value v, sslat_shape shape, int32_t i, int slot)
{
    if (v.rank == 4) return v.name;
    const int64_t dims[4] = {shape.n, shape.c, 1, 1};
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".in%d.shape4", slot);
    const char *inputs[] = {v.name, onnx_shape_constant(L->b, out_name(L, i, suffix), dims, 4)};
    snprintf(suffix, sizeof suffix, ".in%d.as4d", slot);
    return ONNX_NODE_NO_ATTRS(L->b, "Reshape", out_name(L, i, suffix), inputs);
}

static value activation(lowering *L, int32_t i, const char *x, sslat_act_kind act, const char *output)
{
    onnx_builder *b = L->b;
    switch (act) {
    case SSLAT_ACT_RELU: return (value){ONNX_NODE_NO_ATTRS(b, "Relu", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_RELU6: {
        const char *inputs[] = {x, onnx_scalar(b, out_name(L, i, ".min"), 0.0f), onnx_scalar(b, out_name(L, i, ".max"), 6.0f)};
        return (value){ONNX_NODE_NO_ATTRS(b, "Clip", output, inputs), 0};
    }
    case SSLAT_ACT_HSWISH: return (value){ONNX_NODE_NO_ATTRS(b, "HardSwish", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_HSIGMOID: {
        Onnx__AttributeProto *attrs[] = {onnx_attr_float(b, "alpha", 1.0f / 6.0f), onnx_attr_float(b, "beta", 0.5f)};
        return (value){ONNX_NODE(b, "HardSigmoid", output, ((const char *[]){x}), attrs), 0};
    }
    case SSLAT_ACT_SIGMOID: return (value){ONNX_NODE_NO_ATTRS(b, "Sigmoid", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_SILU: { /* x * sigmoid(x), as PyTorch exports SiLU before opset 22 */
        const char *gate = ONNX_NODE_NO_ATTRS(b, "Sigmoid", out_name(L, i, ".sigmoid"), ((const char *[]){x}));
        return (value){ONNX_NODE_NO_ATTRS(b, "Mul", output, ((const char *[]){x, gate})), 0};
    }
    case SSLAT_ACT_GELU: { /* 0.5 x (1 + erf(x / sqrt 2)), as PyTorch exports GELU before opset 20 */
        const char *scaled = ONNX_NODE_NO_ATTRS(b, "Div", out_name(L, i, ".div"),
                                           ((const char *[]){x, onnx_scalar(b, out_name(L, i, ".sqrt2"), 1.41421356237f)}));
        const char *erf = ONNX_NODE_NO_ATTRS(b, "Erf", out_name(L, i, ".erf"), ((const char *[]){scaled}));
        const char *plus = ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ".add"),
                                         ((const char *[]){erf, onnx_scalar(b, out_name(L, i, ".one"), 1.0f)}));
        const char *times = ONNX_NODE_NO_ATTRS(b, "Mul", out_name(L, i, ".mul"), ((const char *[]){x, plus}));
        return (value){ONNX_NODE_NO_ATTRS(b, "Mul", output, ((const char *[]){times, onnx_scalar(b, out_name(L, i, ".half"), 0.5f)})),
                       0};
    }
    case SSLAT_ACT_TANH: return (value){ONNX_NODE_NO_ATTRS(b, "Tanh", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_GELU_TANH: { /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), PyTorch's export before opset 20 */
        const char *cube = ONNX_NODE_NO_ATTRS(b, "Pow", out_name(L, i, ".cube"),
                                              ((const char *[]){x, onnx_scalar(b, out_name(L, i, ".three"), 3.0f)}));
        const char *term = ONNX_NODE_NO_ATTRS(b, "Mul", out_name(L, i, ".term"),
                                              ((const char *[]){cube, onnx_scalar(b, out_name(L, i, ".k"), 0.044715f)}));
        const char *inner = ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ".inner"), ((const char *[]){x, term}));
        const char *scaled = ONNX_NODE_NO_ATTRS(
            b, "Mul", out_name(L, i, ".scaled"),
            ((const char *[]){inner, onnx_scalar(b, out_name(L, i, ".sqrt2pi"), 0.7978845608f)}));
        const char *tanh = ONNX_NODE_NO_ATTRS(b, "Tanh", out_name(L, i, ".tanh"), ((const char *[]){scaled}));
        const char *plus = ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ".add"),
                                              ((const char *[]){tanh, onnx_scalar(b, out_name(L, i, ".one"), 1.0f)}));
        const char *times = ONNX_NODE_NO_ATTRS(b, "Mul", out_name(L, i, ".mul"), ((const char *[]){x, plus}));
        return (value){ONNX_NODE_NO_ATTRS(b, "Mul", output,
                                          ((const char *[]){times, onnx_scalar(b, out_name(L, i, ".half"), 0.5f)})),
                       0};
    }
    case SSLAT_ACT_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown activation");
}

static value lower_conv(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_conv_params *c = sslat_node_conv(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    int64_t per_out = (int64_t)(in.c / c->groups) * c->kernel * c->kernel;
    const int64_t w_dims[4] = {c->out_channels, in.c / c->groups, c->kernel, c->kernel};
    const int64_t kernel[2] = {c->kernel, c->kernel}, strides[2] = {c->stride, c->stride};
    sslat_pads p = sslat_conv_pads(c, in); /* ONNX: begins of H and W, then their ends */
    const int64_t pads[4] = {p.top, p.left, p.bottom, p.right}, dilations[2] = {c->dilation, c->dilation};
    const char *inputs[3] = {x, parameter(L, out_name(L, i, ".weight"), w_dims, 4, i, SSLAT_ROLE_WEIGHTS, per_out), NULL};
    if (c->bias)
        inputs[2] = parameter(L, out_name(L, i, ".bias"), (int64_t[]){c->out_channels}, 1, i, SSLAT_ROLE_BIAS, 0);
    Onnx__AttributeProto *attrs[] = {onnx_attr_ints(b, "kernel_shape", kernel, 2), onnx_attr_ints(b, "strides", strides, 2),
                                     onnx_attr_ints(b, "pads", pads, 4), onnx_attr_ints(b, "dilations", dilations, 2),
                                     onnx_attr_int(b, "group", c->groups)};
    return (value){onnx_node(b, "Conv", out_name(L, i, ""), inputs, c->bias ? 3 : 2, attrs, 5), 4};
}

static value lower_batchnorm(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const int64_t c[1] = {L->g->nodes[i].shape.c};
    const char *inputs[] = {x, parameter(L, out_name(L, i, ".weight"), c, 1, i, SSLAT_ROLE_GAMMA, 0),
                            parameter(L, out_name(L, i, ".bias"), c, 1, i, SSLAT_ROLE_BETA, 0),
                            parameter(L, out_name(L, i, ".running_mean"), c, 1, i, SSLAT_ROLE_MEAN, 0),
                            parameter(L, out_name(L, i, ".running_var"), c, 1, i, SSLAT_ROLE_VARIANCE, 0)};
    Onnx__AttributeProto *attrs[] = {onnx_attr_float(b, "epsilon", SSLAT_BN_EPSILON)};
    return (value){ONNX_NODE(b, "BatchNormalization", out_name(L, i, ""), inputs, attrs), 4};
}

static value lower_pool(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    if (n->op == SSLAT_OP_GLOBAL_AVGPOOL)
        return (value){ONNX_NODE_NO_ATTRS(b, "GlobalAveragePool", out_name(L, i, ""), ((const char *[]){x})), 4};
    const sslat_pool_params *p = sslat_node_pool(n);
    const int64_t kernel[2] = {p->kernel, p->kernel}, strides[2] = {p->stride, p->stride};
    const int64_t pads[4] = {p->padding, p->padding, p->padding, p->padding};
    if (n->op == SSLAT_OP_MAXPOOL) {
        Onnx__AttributeProto *attrs[] = {onnx_attr_ints(b, "kernel_shape", kernel, 2), onnx_attr_ints(b, "strides", strides, 2),
                                         onnx_attr_ints(b, "pads", pads, 4), onnx_attr_int(b, "ceil_mode", p->ceil)};
        return (value){ONNX_NODE(b, "MaxPool", out_name(L, i, ""), ((const char *[]){x}), attrs), 4};
    }
    /* the IR's average counts the padding, as PyTorch's default */
    Onnx__AttributeProto *attrs[] = {onnx_attr_ints(b, "kernel_shape", kernel, 2), onnx_attr_ints(b, "strides", strides, 2),
                                     onnx_attr_ints(b, "pads", pads, 4), onnx_attr_int(b, "count_include_pad", 1)};
    return (value){ONNX_NODE(b, "AveragePool", out_name(L, i, ""), ((const char *[]){x}), attrs), 4};
}

/* Linear on tokens N,L,C: MatMul by the transposed weight, then + bias, as
 * PyTorch exports nn.Linear on a 3-D input. */
static value lower_token_linear(lowering *L, int32_t i, value x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_linear_params *l = sslat_node_linear(n);
    int64_t features = sslat_graph_shape_of(L->g, n->input[0]).c;
    const int64_t w_dims[2] = {l->out_features, features};
    const char *weight = parameter(L, out_name(L, i, ".weight"), w_dims, 2, i, SSLAT_ROLE_WEIGHTS, features);
    const char *weight_t = ONNX_NODE_NO_ATTRS(b, "Transpose", out_name(L, i, ".weight_t"), ((const char *[]){weight}));
    const char *product = ONNX_NODE_NO_ATTRS(b, "MatMul", out_name(L, i, l->bias ? ".matmul" : ""),
                                             ((const char *[]){x.name, weight_t}));
    if (!l->bias) return (value){product, 3};
    const char *bias = parameter(L, out_name(L, i, ".bias"), (int64_t[]){l->out_features}, 1, i, SSLAT_ROLE_BIAS, 0);
    return (value){ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ""), ((const char *[]){product, bias})), 3};
}

/* Linear on N,C,H,W reads it flattened (C·H·W features), as the IR defines it. */
static value lower_linear(lowering *L, int32_t i, value x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_linear_params *l = sslat_node_linear(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    if (in.tokens) return lower_token_linear(L, i, x);
    int64_t features = (int64_t)in.c * in.h * in.w;
    const char *flat = x.name;
    if (x.rank == 4) {
        Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "axis", 1)};
        flat = ONNX_NODE(b, "Flatten", out_name(L, i, ".flatten"), ((const char *[]){x.name}), attrs);
    }
    const int64_t w_dims[2] = {l->out_features, features};
    const char *inputs[3] = {flat, parameter(L, out_name(L, i, ".weight"), w_dims, 2, i, SSLAT_ROLE_WEIGHTS, features),
                             NULL};
    if (l->bias) inputs[2] = parameter(L, out_name(L, i, ".bias"), (int64_t[]){l->out_features}, 1, i, SSLAT_ROLE_BIAS, 0);
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "transB", 1)};
    return (value){onnx_node(b, "Gemm", out_name(L, i, ""), inputs, l->bias ? 3 : 2, attrs, 1), 2};
}

/* PyTorch's channel_shuffle: view C as g x C/g, transpose the two, view back. */
static value lower_shuffle(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    sslat_shape s = L->g->nodes[i].shape;
    int64_t groups = sslat_node_shuffle_groups(&L->g->nodes[i]);
    const int64_t split[5] = {s.n, groups, s.c / groups, s.h, s.w}, back[4] = {s.n, s.c, s.h, s.w};
    const int64_t perm[5] = {0, 2, 1, 3, 4};
    const char *viewed = ONNX_NODE_NO_ATTRS(b, "Reshape", out_name(L, i, ".view"),
                                       ((const char *[]){x, onnx_shape_constant(b, out_name(L, i, ".split"), split, 5)}));
    Onnx__AttributeProto *attrs[] = {onnx_attr_ints(b, "perm", perm, 5)};
    const char *swapped = ONNX_NODE(b, "Transpose", out_name(L, i, ".transpose"), ((const char *[]){viewed}), attrs);
    return (value){ONNX_NODE_NO_ATTRS(b, "Reshape", out_name(L, i, ""),
                                 ((const char *[]){swapped, onnx_shape_constant(b, out_name(L, i, ".back"), back, 4)})),
                   4};
}

/* Concat along channels: every input as rank 4. */
static value lower_concat(lowering *L, int32_t i)
{
    const sslat_node *n = &L->g->nodes[i];
    int count = sslat_node_input_count(n);
    const char *inputs[SSLAT_MAX_NODE_INPUTS];
    for (int k = 0; k < count; k++)
        inputs[k] = as_rank4(L, value_of(L, n->input[k]), sslat_graph_shape_of(L->g, n->input[k]), i, k);
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(L->b, "axis", 1)};
    return (value){onnx_node(L->b, "Concat", out_name(L, i, ""), inputs, (size_t)count, attrs, 1), 4};
}

/* Nearest upsampling as PyTorch does it: Resize, scales (1, 1, s, s), the
 * source pixel floor(dst / s) (asymmetric coordinates, floor rounding). */
static value lower_upsample(lowering *L, int32_t i, const char *x)
{
    float scale = (float)sslat_node_upsample_scale(&L->g->nodes[i]);
    const float scales[4] = {1.0f, 1.0f, scale, scale};
    const char *scales_name = onnx_initializer(L->b, out_name(L, i, ".scales"), ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
                                          (int64_t[]){4}, 1, scales, sizeof scales);
    const char *inputs[] = {x, "", scales_name}; /* no roi */
    Onnx__AttributeProto *attrs[] = {onnx_attr_string(L->b, "mode", "nearest"),
                                     onnx_attr_string(L->b, "coordinate_transformation_mode", "asymmetric"),
                                     onnx_attr_string(L->b, "nearest_mode", "floor")};
    return (value){ONNX_NODE(L->b, "Resize", out_name(L, i, ""), inputs, attrs), 4};
}

/* YOLOv5's Focus as it writes it: four strided Slices (pixel phases (0,0),
 * (1,0), (0,1), (1,1) of H and W) concatenated along channels. */
static value lower_space_to_depth(lowering *L, int32_t i, const char *x)
{
    sslat_shape in = sslat_graph_shape_of(L->g, L->g->nodes[i].input[0]);
    const int64_t ends[2] = {in.h, in.w}, axes[2] = {2, 3}, steps[2] = {2, 2};
    const char *ends_name = onnx_shape_constant(L->b, out_name(L, i, ".ends"), ends, 2);
    const char *axes_name = onnx_shape_constant(L->b, out_name(L, i, ".axes"), axes, 2);
    const char *steps_name = onnx_shape_constant(L->b, out_name(L, i, ".steps"), steps, 2);
    const char *phases[4];
    for (int g = 0; g < 4; g++) {
        const int64_t starts[2] = {g % 2, g / 2};
        char suffix[24];
        snprintf(suffix, sizeof suffix, ".phase%d.starts", g);
        const char *starts_name = onnx_shape_constant(L->b, out_name(L, i, suffix), starts, 2);
        snprintf(suffix, sizeof suffix, ".phase%d", g);
        const char *inputs[] = {x, starts_name, ends_name, axes_name, steps_name};
        phases[g] = ONNX_NODE_NO_ATTRS(L->b, "Slice", out_name(L, i, suffix), inputs);
    }
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(L->b, "axis", 1)};
    return (value){ONNX_NODE(L->b, "Concat", out_name(L, i, ""), phases, attrs), 4};
}

/* Channels [start, start + length): Slice with starts / ends / axes constants. */
static value lower_channel_slice(lowering *L, int32_t i, const char *x)
{
    const sslat_slice_params *s = sslat_node_slice(&L->g->nodes[i]);
    const int64_t starts[1] = {s->start}, ends[1] = {(int64_t)s->start + s->length}, axes[1] = {1};
    const char *inputs[] = {x, onnx_shape_constant(L->b, out_name(L, i, ".starts"), starts, 1),
                            onnx_shape_constant(L->b, out_name(L, i, ".ends"), ends, 1),
                            onnx_shape_constant(L->b, out_name(L, i, ".axes"), axes, 1)};
    return (value){ONNX_NODE_NO_ATTRS(L->b, "Slice", out_name(L, i, ""), inputs), 4};
}

/* ---- tokens (rank 3: N, L, C) ------------------------------------------------------------ */

static const char *reshape(lowering *L, int32_t i, const char *x, const int64_t *dims, size_t n, const char *suffix)
{
    char shape[40];
    snprintf(shape, sizeof shape, "%s.shape", suffix);
    const char *inputs[] = {x, onnx_shape_constant(L->b, out_name(L, i, shape), dims, n)};
    return ONNX_NODE_NO_ATTRS(L->b, "Reshape", out_name(L, i, suffix), inputs);
}

static const char *transpose(lowering *L, int32_t i, const char *x, const int64_t *perm, size_t n, const char *suffix)
{
    Onnx__AttributeProto *attrs[] = {onnx_attr_ints(L->b, "perm", perm, n)};
    return ONNX_NODE(L->b, "Transpose", out_name(L, i, suffix), ((const char *[]){x}), attrs);
}

/* x[index] along axis, the axis kept (length 1) */
static const char *gather(lowering *L, int32_t i, const char *x, int64_t index, int64_t axis, const char *suffix)
{
    char name[40];
    snprintf(name, sizeof name, "%s.index", suffix);
    const char *inputs[] = {x, onnx_shape_constant(L->b, out_name(L, i, name), &index, 1)};
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(L->b, "axis", axis)};
    return ONNX_NODE(L->b, "Gather", out_name(L, i, suffix), inputs, attrs);
}

/* x.flatten(2).transpose(1, 2) */
static value lower_tokens(lowering *L, int32_t i, const char *x)
{
    sslat_shape in = sslat_graph_shape_of(L->g, L->g->nodes[i].input[0]);
    const char *flat = reshape(L, i, x, (int64_t[]){in.n, in.c, (int64_t)in.h * in.w}, 3, ".flatten");
    return (value){transpose(L, i, flat, (int64_t[]){0, 2, 1}, 3, ""), 3};
}

static value lower_layernorm(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const int64_t c[1] = {L->g->nodes[i].shape.c};
    const char *inputs[] = {x, parameter(L, out_name(L, i, ".weight"), c, 1, i, SSLAT_ROLE_GAMMA, 0),
                            parameter(L, out_name(L, i, ".bias"), c, 1, i, SSLAT_ROLE_BETA, 0)};
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "axis", -1), onnx_attr_float(b, "epsilon", sslat_node_layernorm_eps(&L->g->nodes[i]))};
    return (value){ONNX_NODE(b, "LayerNormalization", out_name(L, i, ""), inputs, attrs), 3};
}

/* LeViT's attention_biases[:, attention_bias_idxs]: Gather of the table (H × L)
 * at the L² grid offsets along axis 1, shaped H × L × L (broadcast over N). */
static const char *attention_bias(lowering *L, int32_t i)
{
    const sslat_node *n = &L->g->nodes[i];
    int64_t H = sslat_node_attention(n)->heads, T = n->shape.h;
    int32_t side = sslat_square_grid_side(n->shape.h);
    int64_t *offsets = malloc((size_t)(T * T) * sizeof *offsets);
    if (!offsets) {
        L->b->out_of_memory = true;
        return NULL;
    }
    for (int64_t a = 0; a < T; a++)
        for (int64_t c = 0; c < T; c++) offsets[a * T + c] = sslat_attention_bias_index(side, (int32_t)a, (int32_t)c);
    const char *inputs[] = {parameter(L, out_name(L, i, ".attention_biases"), (int64_t[]){H, T}, 2, i, SSLAT_ROLE_BIAS, 0),
                            onnx_shape_constant(L->b, out_name(L, i, ".attention_bias_idxs"), offsets, (size_t)(T * T))};
    free(offsets);
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(L->b, "axis", 1)};
    const char *flat = ONNX_NODE(L->b, "Gather", out_name(L, i, ".bias_flat"), inputs, attrs);
    return reshape(L, i, flat, (int64_t[]){H, T, T}, 3, ".bias_gathered");
}

/* timm's Attention between its linears: qkv.reshape(N, L, 3, H, D).permute(2, 0, 3, 1, 4),
 * softmax(q @ kᵀ · D^-½ (+ the position bias)) @ v, back to N, L, H·D (what
 * PyTorch exports for the explicit form). */
static value lower_attention(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_attention_params *a = sslat_node_attention(n);
    int64_t N = n->shape.n, T = n->shape.h, H = a->heads, D = a->head_dim;
    const char *split = reshape(L, i, x, (int64_t[]){N, T, 3, H, D}, 5, ".split");
    const char *heads = transpose(L, i, split, (int64_t[]){2, 0, 3, 1, 4}, 5, ".heads");
    const char *part[3];
    static const char *const NAMES[3][2] = {{".q3", ".q"}, {".k3", ".k"}, {".v3", ".v"}};
    for (int k = 0; k < 3; k++)
        part[k] = reshape(L, i, gather(L, i, heads, k, 0, NAMES[k][0]), (int64_t[]){N, H, T, D}, 4, NAMES[k][1]);
    const char *key_t = transpose(L, i, part[1], (int64_t[]){0, 1, 3, 2}, 4, ".kt");
    const char *dots = ONNX_NODE_NO_ATTRS(b, "MatMul", out_name(L, i, ".dots"), ((const char *[]){part[0], key_t}));
    const char *scaled = ONNX_NODE_NO_ATTRS(
        b, "Mul", out_name(L, i, ".scaled"),
        ((const char *[]){dots, onnx_scalar(b, out_name(L, i, ".scale"), (float)(1.0 / sqrt((double)D)))}));
    if (a->position_bias)
        scaled = ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ".biased"), ((const char *[]){scaled, attention_bias(L, i)}));
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "axis", -1)};
    const char *probs = ONNX_NODE(b, "Softmax", out_name(L, i, ".softmax"), ((const char *[]){scaled}), attrs);
    const char *mixed = ONNX_NODE_NO_ATTRS(b, "MatMul", out_name(L, i, ".mix"), ((const char *[]){probs, part[2]}));
    const char *back = transpose(L, i, mixed, (int64_t[]){0, 2, 1, 3}, 4, ".back");
    return (value){reshape(L, i, back, (int64_t[]){N, T, H * D}, 3, ""), 3};
}

/* cat((cls.expand(N, -1, -1), x), 1) */
static value lower_class_token(lowering *L, int32_t i, const char *x)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const int64_t one[3] = {1, 1, n->shape.c}, many[3] = {n->shape.n, 1, n->shape.c};
    const char *token = parameter(L, out_name(L, i, ".cls_token"), one, 3, i, SSLAT_ROLE_WEIGHTS, 3);
    const char *expand_in[] = {token, onnx_shape_constant(b, out_name(L, i, ".expand.shape"), many, 3)};
    const char *tokens = ONNX_NODE_NO_ATTRS(b, "Expand", out_name(L, i, ".expand"), expand_in);
    Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "axis", 1)};
    return (value){ONNX_NODE(b, "Concat", out_name(L, i, ""), ((const char *[]){tokens, x}), attrs), 3};
}

static value lower_position_embed(lowering *L, int32_t i, const char *x)
{
    const sslat_node *n = &L->g->nodes[i];
    const int64_t dims[3] = {1, n->shape.h, n->shape.c};
    const char *pos = parameter(L, out_name(L, i, ".pos_embed"), dims, 3, i, SSLAT_ROLE_WEIGHTS, 3);
    return (value){ONNX_NODE_NO_ATTRS(L->b, "Add", out_name(L, i, ""), ((const char *[]){x, pos})), 3};
}

/* x.permute(0, 3, 1, 2) of the tokens read as N×H×W×C: Transpose to N, C, L, then Reshape */
static value lower_image(lowering *L, int32_t i, const char *x)
{
    sslat_shape o = L->g->nodes[i].shape;
    const char *channels_first = transpose(L, i, x, (int64_t[]){0, 2, 1}, 3, ".transpose");
    return (value){reshape(L, i, channels_first, (int64_t[]){o.n, o.c, o.h, o.w}, 4, ""), 4};
}

/* x · γ: Mul by γ shaped to broadcast over the channels (C of tokens, C×1×1 of an image) */
static value lower_layer_scale(lowering *L, int32_t i, value x, sslat_shape x_shape)
{
    const sslat_node *n = &L->g->nodes[i];
    const int64_t dims[3] = {n->shape.c, 1, 1};
    const char *gamma = parameter(L, out_name(L, i, ".gamma"), dims, x_shape.tokens ? 1 : 3, i, SSLAT_ROLE_GAMMA, 0);
    const char *input = x_shape.tokens ? x.name : as_rank4(L, x, x_shape, i, 0);
    return (value){ONNX_NODE_NO_ATTRS(L->b, "Mul", out_name(L, i, ""), ((const char *[]){input, gamma})),
                   x_shape.tokens ? 3 : 4};
}

/* x[:, 0] or x.mean(1): N, C */
static value lower_token_pool(lowering *L, int32_t i, const char *x)
{
    const sslat_node *n = &L->g->nodes[i];
    if (sslat_node_token_pool(n) == SSLAT_TOKEN_POOL_MEAN) {
        Onnx__AttributeProto *attrs[] = {onnx_attr_ints(L->b, "axes", (int64_t[]){1}, 1), onnx_attr_int(L->b, "keepdims", 0)};
        return (value){ONNX_NODE(L->b, "ReduceMean", out_name(L, i, ""), ((const char *[]){x}), attrs), 2};
    }
    const char *first = gather(L, i, x, 0, 1, ".first");
    return (value){reshape(L, i, first, (int64_t[]){n->shape.n, n->shape.c}, 2, ""), 2};
}

static value lower_node(lowering *L, int32_t i)
{
    onnx_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    if (n->op == SSLAT_OP_INPUT) return (value){NULL, 0}; /* refused by pack_model before */
    value a = value_of(L, n->input[0]);
    sslat_shape a_shape = sslat_graph_shape_of(L->g, n->input[0]);
    switch (n->op) {
    case SSLAT_OP_CONV2D: return lower_conv(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_BATCHNORM: return lower_batchnorm(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_ACT: {
        value v = activation(L, i, a.name, sslat_node_act(n), out_name(L, i, ""));
        v.rank = a.rank; /* elementwise: the rank it was given */
        return v;
    }
    case SSLAT_OP_ADD:
        if (a_shape.tokens) { /* tokens: both rank 3 */
            const char *inputs[] = {a.name, value_of(L, n->input[1]).name};
            return (value){ONNX_NODE_NO_ATTRS(b, "Add", out_name(L, i, ""), inputs), 3};
        }
        /* fall through */
    case SSLAT_OP_MUL_CHANNEL: {
        /* both sides 4-D so the SE scale (N,C,1,1) broadcasts over H,W */
        value other = value_of(L, n->input[1]);
        sslat_shape other_shape = sslat_graph_shape_of(L->g, n->input[1]);
        const char *inputs[] = {as_rank4(L, a, a_shape, i, 0), as_rank4(L, other, other_shape, i, 1)};
        return (value){ONNX_NODE_NO_ATTRS(b, n->op == SSLAT_OP_ADD ? "Add" : "Mul", out_name(L, i, ""), inputs), 4};
    }
    case SSLAT_OP_GLOBAL_AVGPOOL:
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: return lower_pool(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_LINEAR: return lower_linear(L, i, a);
    case SSLAT_OP_FLATTEN: {
        Onnx__AttributeProto *attrs[] = {onnx_attr_int(b, "axis", 1)};
        return (value){ONNX_NODE(b, "Flatten", out_name(L, i, ""), ((const char *[]){a.name}), attrs), 2};
    }
    case SSLAT_OP_IDENTITY: return a; /* no operator: the same value */
    case SSLAT_OP_CHANNEL_SHUFFLE: return lower_shuffle(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_CONCAT: return lower_concat(L, i);
    case SSLAT_OP_CHANNEL_SLICE: return lower_channel_slice(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_UPSAMPLE: return lower_upsample(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_SPACE_TO_DEPTH: return lower_space_to_depth(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_TOKENS: return lower_tokens(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_LAYERNORM: return lower_layernorm(L, i, a.name);
    case SSLAT_OP_ATTENTION: return lower_attention(L, i, a.name);
    case SSLAT_OP_CLASS_TOKEN: return lower_class_token(L, i, a.name);
    case SSLAT_OP_POSITION_EMBED: return lower_position_embed(L, i, a.name);
    case SSLAT_OP_TOKEN_POOL: return lower_token_pool(L, i, a.name);
    case SSLAT_OP_LEAKY_RELU: {
        Onnx__AttributeProto *attrs[] = {onnx_attr_float(b, "alpha", sslat_node_slope(n))};
        value v = {ONNX_NODE(b, "LeakyRelu", out_name(L, i, ""), ((const char *[]){a.name}), attrs), a.rank};
        return v;
    }
    case SSLAT_OP_IMAGE: return lower_image(L, i, a.name);
    case SSLAT_OP_LAYER_SCALE: return lower_layer_scale(L, i, a, a_shape);
    case SSLAT_OP_INPUT:
    case SSLAT_OP_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown op");
}

/* ---- the model ----------------------------------------------------------------------- */

/* A value's dimensions as ONNX holds it: N,L,C for tokens, else N,C,H,W (whose
 * first two are a rank-2 value's). */
static void dims_of(sslat_shape s, int64_t dims[4])
{
    if (s.tokens) {
        dims[0] = s.n, dims[1] = s.h, dims[2] = s.c, dims[3] = 1;
        return;
    }
    dims[0] = s.n, dims[1] = s.c, dims[2] = s.h, dims[3] = s.w;
}

/* Nodes no other node reads, but the last: the network's other outputs
 * (Detect's smaller scales), which must be outputs or a runtime drops them. */
static int32_t count_side_outputs(const sslat_graph *g, bool *side)
{
    int32_t count = 0;
    for (int32_t i = 0; i + 1 < g->count; i++) side[i] = g->nodes[i].op != SSLAT_OP_IDENTITY; /* an alias: nothing of its own */
    for (int32_t i = 0; i < g->count; i++)
        for (int k = 0; k < SSLAT_MAX_NODE_INPUTS; k++)
            if (g->nodes[i].input[k] >= 0) side[g->nodes[i].input[k]] = false;
    for (int32_t i = 0; i + 1 < g->count; i++) count += side[i];
    return count;
}

/* The packed model of the whole graph g (caller frees *bytes). */
static sslat_status pack_model(const sslat_graph *g, const char *graph_name, uint64_t seed, uint8_t **bytes,
                               size_t *size, sslat_error *err)
{
    for (int32_t i = 0; i < g->count; i++)
        if (g->nodes[i].op == SSLAT_OP_INPUT)
            return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "node %d '%s' is a layer's own input: export whole "
                              "architectures, where it reads the earlier layer", i, g->nodes[i].name);
    /* One protobuf message holds at most 2 GiB (ONNX keeps larger weights as
     * external data, which this exporter does not write): refuse before
     * building gigabytes that no parser would read. */
    int64_t weight_bytes = 0;
    for (int32_t i = 0; i < g->count; i++) {
        const sslat_node *n = &g->nodes[i];
        weight_bytes += sslat_node_param_count(g, n) * (int64_t)sizeof(float);
        if (n->op == SSLAT_OP_ATTENTION && sslat_node_attention(n)->position_bias) /* the int64 offsets, L² */
            weight_bytes += (int64_t)n->shape.h * n->shape.h * (int64_t)sizeof(int64_t);
    }
    if (weight_bytes > ONNX_MAX_MODEL_BYTES)
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "its weights take %.2f GB, past the 2 GiB an ONNX file holds "
                          "without external data (not written by sslat): export a smaller architecture",
                          (double)weight_bytes / 1e9);
    bool *side = calloc((size_t)g->count + 1, sizeof *side);
    if (!side) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
    int32_t n_side = count_side_outputs(g, side);
    onnx_builder b = {0};
    lowering L = {&b, g, calloc((size_t)g->count + 1, sizeof(value)), {"input", 4}, seed};
    const char *result = L.input.name;
    int result_rank = 4;
    bool failed = L.values == NULL;
    for (int32_t i = 0; !failed && i < g->count; i++) {
        L.values[i] = lower_node(&L, i);
        failed = L.values[i].name == NULL;
    }
    if (!failed && g->count > 0) {
        result = L.values[g->count - 1].name;
        result_rank = L.values[g->count - 1].rank;
    }
    /* the graph output has its own name: an Identity when it would be the input */
    if (!failed) result = ONNX_NODE_NO_ATTRS(&b, "Identity", "output", ((const char *[]){result}));
    failed = failed || !result;
    sslat_shape in = g->input, out = sslat_graph_output(g);
    const int64_t in_dims[4] = {in.n, in.c, in.h, in.w};
    int64_t out_dims[4];
    dims_of(out, out_dims);
    Onnx__ValueInfoProto *input = failed ? NULL : onnx_tensor_info(&b, "input", in_dims, 4);
    Onnx__ValueInfoProto *output = failed ? NULL : onnx_tensor_info(&b, "output", out_dims, (size_t)result_rank);
    Onnx__GraphProto *graph = failed ? NULL : onnx_arena(&b, sizeof *graph);
    Onnx__ModelProto *model = failed ? NULL : onnx_arena(&b, sizeof *model);
    Onnx__OperatorSetIdProto *opset = failed ? NULL : onnx_arena(&b, sizeof *opset);
    Onnx__ValueInfoProto **inputs = failed ? NULL : onnx_arena(&b, sizeof *inputs),
                         **outputs = failed ? NULL : onnx_arena(&b, (size_t)(1 + n_side) * sizeof *outputs);
    Onnx__OperatorSetIdProto **opsets = failed ? NULL : onnx_arena(&b, sizeof *opsets);
    sslat_status status = SSLAT_OK;
    if (failed || !input || !output || !graph || !model || !opset || !inputs || !outputs || !opsets) {
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
    } else {
        onnx__graph_proto__init(graph);
        graph->name = onnx_text(&b, "%s", graph_name);
        graph->n_node = b.n_nodes;
        graph->node = b.nodes;
        graph->n_initializer = b.n_initializers;
        graph->initializer = b.initializers;
        inputs[0] = input;
        outputs[0] = output;
        size_t n_outputs = 1;
        for (int32_t i = 0; i + 1 < g->count && status == SSLAT_OK; i++) {
            if (!side[i]) continue;
            int64_t dims[4];
            dims_of(g->nodes[i].shape, dims);
            outputs[n_outputs] = onnx_tensor_info(&b, L.values[i].name, dims, (size_t)L.values[i].rank);
            if (!outputs[n_outputs++]) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
        }
        graph->n_input = 1;
        graph->input = inputs;
        graph->n_output = n_outputs;
        graph->output = outputs;
        onnx__operator_set_id_proto__init(opset);
        opset->domain = onnx_text(&b, "");
        opset->has_version = true;
        opset->version = OPSET;
        opsets[0] = opset;
        onnx__model_proto__init(model);
        model->has_ir_version = true;
        model->ir_version = ONNX__VERSION__IR_VERSION; /* 8 with ONNX 1.12's onnx.proto: opset 17 */
        model->n_opset_import = 1;
        model->opset_import = opsets;
        model->producer_name = onnx_text(&b, "sslat");
        model->producer_version = onnx_text(&b, "%s", SSLAT_VERSION_STRING);
        model->graph = graph;
    }
    if (status == SSLAT_OK && (uint64_t)onnx__model_proto__get_packed_size(model) > (uint64_t)ONNX_MAX_MODEL_BYTES)
        status = sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "the model takes %zu bytes, past the 2 GiB an ONNX file holds "
                            "without external data (not written by sslat)", onnx__model_proto__get_packed_size(model));
    if (status == SSLAT_OK) {
        *size = onnx__model_proto__get_packed_size(model);
        *bytes = malloc(*size ? *size : 1);
        if (!*bytes) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory packing the ONNX model (%zu bytes)", *size);
        else onnx__model_proto__pack(model, *bytes);
    }
    free(L.values);
    free(side);
    onnx_builder_release(&b);
    return status;
}

sslat_status sslat_space_onnx_bytes(const sslat_space *space, const int32_t *arch, int32_t arch_length,
                                    const sslat_onnx_options *options, uint8_t **bytes, size_t *size,
                                    sslat_error *error)
{
    if (!space || !bytes || !size)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "sslat_space_onnx_bytes: space, bytes and size are required");
    *bytes = NULL;
    *size = 0;
    uint64_t seed = options && options->seed ? options->seed : SSLAT_DEFAULT_SEED;
    sslat_graph whole;
    sslat_status status = sslat_space_architecture_graph(space, arch, arch_length, &whole, error);
    if (status == SSLAT_OK) status = pack_model(&whole, space->name, seed, bytes, size, error);
    sslat_graph_release(&whole);
    if (status != SSLAT_OK) sslat_error_prefix(error, "ONNX export of space '%s': ", space->name);
    return status;
}

sslat_status sslat_space_export_onnx(const sslat_space *space, const int32_t *arch, int32_t arch_length,
                                     const sslat_onnx_options *options, const char *path, sslat_error *error)
{
    if (!space || !path)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "sslat_space_export_onnx: space and path are required");
    uint8_t *bytes = NULL;
    size_t size = 0;
    sslat_status status = sslat_space_onnx_bytes(space, arch, arch_length, options, &bytes, &size, error);
    if (status == SSLAT_OK) {
        status = sslat_write_file_atomic(path, bytes, size, error);
        if (status != SSLAT_OK) sslat_error_prefix(error, "ONNX export of space '%s': ", space->name);
    }
    free(bytes);
    return status;
}
