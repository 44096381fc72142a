/* One architecture as an ONNX model, built with protobuf-c on the message
 * classes generated from ONNX's own onnx.proto (Debian's libonnx-dev): the
 * found network as a file ONNX Runtime, trtexec or OpenVINO can run, and the
 * vehicle of `sslat validate --reference onnxruntime`.
 *
 * Every IR primitive becomes the ONNX operators PyTorch's exporter writes for
 * the same module at opset 17 (docs/onnx.md has the table), with the seeded
 * parameters the timed calculators use, so a model and a table describe the
 * same numbers. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/file_io.h"
#include "ir/space.h"
#include "measure/parameters.h"
#include "onnx/onnx_export.h"
#include <onnx.pb-c.h> /* generated at build time from ONNX's onnx.proto (CMakeLists.txt) */

/* protobuf's limit on one serialized message */
#define ONNX_MAX_MODEL_BYTES ((int64_t)INT32_MAX)

#define OPSET 17

/* ---- an arena: every message, string and array of one model ------------------------ */

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    max_align_t data[];
} chunk;

typedef struct model_builder {
    chunk *chunks;
    bool out_of_memory;
    /* growable lists (malloc'ed; their items live in the arena) */
    Onnx__NodeProto **nodes;
    size_t n_nodes, nodes_capacity;
    Onnx__TensorProto **initializers;
    size_t n_initializers, initializers_capacity;
    uint64_t seed;
} model_builder;

static void *arena(model_builder *b, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b->chunks || b->chunks->size - b->chunks->used < size) {
        size_t capacity = size > (1 << 20) ? size : (1 << 20);
        chunk *c = malloc(sizeof *c + capacity);
        if (!c) {
            b->out_of_memory = true;
            return NULL;
        }
        c->next = b->chunks;
        c->used = 0;
        c->size = capacity;
        b->chunks = c;
    }
    void *p = (char *)b->chunks->data + b->chunks->used;
    b->chunks->used += size;
    memset(p, 0, size);
    return p;
}

static void builder_release(model_builder *b)
{
    while (b->chunks) {
        chunk *next = b->chunks->next;
        free(b->chunks);
        b->chunks = next;
    }
    free(b->nodes);
    free(b->initializers);
}

static char *text(model_builder *b, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *s = n >= 0 ? arena(b, (size_t)n + 1) : NULL;
    if (!s) return NULL;
    va_start(args, format);
    vsnprintf(s, (size_t)n + 1, format, args);
    va_end(args);
    return s;
}

static bool push(model_builder *b, void ***items, size_t *count, size_t *capacity, void *item)
{
    if (!item) return false;
    if (*count == *capacity) {
        size_t next = *capacity ? 2 * *capacity : 64;
        void **grown = realloc(*items, next * sizeof *grown);
        if (!grown) {
            b->out_of_memory = true;
            return false;
        }
        *items = grown;
        *capacity = next;
    }
    (*items)[(*count)++] = item;
    return true;
}

/* ---- attributes, initializers, nodes ------------------------------------------------ */

static Onnx__AttributeProto *attribute(model_builder *b, const char *name, Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = arena(b, sizeof *a);
    if (!a) return NULL;
    onnx__attribute_proto__init(a);
    a->name = text(b, "%s", name);
    a->has_type = true;
    a->type = type;
    return a;
}

static Onnx__AttributeProto *attr_int(model_builder *b, const char *name, int64_t value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    if (a) {
        a->has_i = true;
        a->i = value;
    }
    return a;
}

static Onnx__AttributeProto *attr_float(model_builder *b, const char *name, float value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    if (a) {
        a->has_f = true;
        a->f = value;
    }
    return a;
}

static Onnx__AttributeProto *attr_string(model_builder *b, const char *name, const char *value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    char *copy = text(b, "%s", value);
    if (!a || !copy) return NULL;
    a->has_s = true;
    a->s.data = (uint8_t *)copy;
    a->s.len = strlen(copy);
    return a;
}

static Onnx__AttributeProto *attr_ints(model_builder *b, const char *name, const int64_t *values, size_t n)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    int64_t *copy = arena(b, n * sizeof *copy);
    if (!a || !copy) return NULL;
    memcpy(copy, values, n * sizeof *copy);
    a->n_ints = n;
    a->ints = copy;
    return a;
}

/* A tensor initializer named `name` of dims (raw little-endian data). */
static const char *initializer(model_builder *b, const char *name, int32_t data_type, const int64_t *dims,
                               size_t ndims, const void *data, size_t bytes)
{
    Onnx__TensorProto *t = arena(b, sizeof *t);
    int64_t *d = arena(b, (ndims ? ndims : 1) * sizeof *d);
    void *raw = arena(b, bytes ? bytes : 1);
    if (!t || !d || !raw) return NULL;
    onnx__tensor_proto__init(t);
    if (ndims) memcpy(d, dims, ndims * sizeof *d); /* a scalar has no dims (NULL) */
    if (bytes) memcpy(raw, data, bytes);
    t->name = text(b, "%s", name);
    t->n_dims = ndims;
    t->dims = d;
    t->has_data_type = true;
    t->data_type = data_type;
    t->has_raw_data = true;
    t->raw_data.len = bytes;
    t->raw_data.data = raw;
    if (!push(b, (void ***)&b->initializers, &b->n_initializers, &b->initializers_capacity, t)) return NULL;
    return t->name;
}

/* The seeded values of one parameter (measure/parameters.h): node is the
 * node's index in the chained architecture graph, as the backends number it. */
static const char *parameter(model_builder *b, const char *name, const int64_t *dims, size_t ndims, int32_t node,
                             int role, int64_t fan_in)
{
    size_t count = 1;
    for (size_t i = 0; i < ndims; i++) count *= (size_t)dims[i];
    float *values = malloc(count * sizeof *values);
    if (!values) {
        b->out_of_memory = true;
        return NULL;
    }
    sslat_fill_parameter(values, count, b->seed, node, role, fan_in);
    const char *result = initializer(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims, ndims, values,
                                     count * sizeof *values);
    free(values);
    return result;
}

static const char *scalar(model_builder *b, const char *name, float value)
{
    return initializer(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, NULL, 0, &value, sizeof value);
}

static const char *shape_constant(model_builder *b, const char *name, const int64_t *dims, size_t n)
{
    return initializer(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, (int64_t[]){(int64_t)n}, 1, dims,
                       n * sizeof *dims);
}

/* Append node op_type(inputs) -> output named `output`; returns the output. */
static const char *node(model_builder *b, const char *op_type, const char *output, const char *const *inputs,
                        size_t n_inputs, Onnx__AttributeProto *const *attributes, size_t n_attributes)
{
    Onnx__NodeProto *n = arena(b, sizeof *n);
    char **in = arena(b, (n_inputs ? n_inputs : 1) * sizeof *in), **out = arena(b, sizeof *out);
    Onnx__AttributeProto **attrs = arena(b, (n_attributes ? n_attributes : 1) * sizeof *attrs);
    if (!n || !in || !out || !attrs || !output) return NULL;
    onnx__node_proto__init(n);
    for (size_t i = 0; i < n_inputs; i++) {
        if (!inputs[i]) return NULL;
        in[i] = (char *)inputs[i];
    }
    for (size_t i = 0; i < n_attributes; i++) {
        if (!attributes[i]) return NULL;
        attrs[i] = attributes[i];
    }
    out[0] = (char *)output;
    n->name = (char *)output;
    n->op_type = text(b, "%s", op_type);
    n->n_input = n_inputs;
    n->input = in;
    n->n_output = 1;
    n->output = out;
    n->n_attribute = n_attributes;
    n->attribute = attrs;
    if (!push(b, (void ***)&b->nodes, &b->n_nodes, &b->nodes_capacity, n)) return NULL;
    return output;
}

#define NODE(b, op, out, ins, attrs) node(b, op, out, ins, sizeof ins / sizeof ins[0], attrs, sizeof attrs / sizeof attrs[0])
#define NODE_NO_ATTRS(b, op, out, ins) node(b, op, out, ins, sizeof ins / sizeof ins[0], NULL, 0)

/* ---- the IR, node by node ---------------------------------------------------------------- */

/* Each IR value as ONNX sees it: its name and rank (4: N,C,H,W; 2: N,C after
 * Flatten / Gemm). The IR writes every shape as N,C,H,W. */
typedef struct value {
    const char *name;
    int rank;
} value;

typedef struct lowering {
    model_builder *b;
    const sslat_graph *g;
    value *values; /* of each node */
    value input;
} lowering;

static value value_of(const lowering *L, int32_t index)
{
    return index == SSLAT_GRAPH_INPUT ? L->input : L->values[index];
}

static const char *out_name(const lowering *L, int32_t i, const char *suffix)
{
    return text(L->b, "n%d_%s%s", (int)i, L->g->nodes[i].name[0] ? L->g->nodes[i].name : sslat_op_name(L->g->nodes[i].op),
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
    const char *inputs[] = {v.name, shape_constant(L->b, out_name(L, i, suffix), dims, 4)};
    snprintf(suffix, sizeof suffix, ".in%d.as4d", slot);
    return NODE_NO_ATTRS(L->b, "Reshape", out_name(L, i, suffix), inputs);
}

static value activation(lowering *L, int32_t i, const char *x, sslat_act_kind act, const char *output)
{
    model_builder *b = L->b;
    switch (act) {
    case SSLAT_ACT_RELU: return (value){NODE_NO_ATTRS(b, "Relu", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_RELU6: {
        const char *inputs[] = {x, scalar(b, out_name(L, i, ".min"), 0.0f), scalar(b, out_name(L, i, ".max"), 6.0f)};
        return (value){NODE_NO_ATTRS(b, "Clip", output, inputs), 0};
    }
    case SSLAT_ACT_HSWISH: return (value){NODE_NO_ATTRS(b, "HardSwish", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_HSIGMOID: {
        Onnx__AttributeProto *attrs[] = {attr_float(b, "alpha", 1.0f / 6.0f), attr_float(b, "beta", 0.5f)};
        return (value){NODE(b, "HardSigmoid", output, ((const char *[]){x}), attrs), 0};
    }
    case SSLAT_ACT_SIGMOID: return (value){NODE_NO_ATTRS(b, "Sigmoid", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_SILU: { /* x * sigmoid(x), as PyTorch exports SiLU before opset 22 */
        const char *gate = NODE_NO_ATTRS(b, "Sigmoid", out_name(L, i, ".sigmoid"), ((const char *[]){x}));
        return (value){NODE_NO_ATTRS(b, "Mul", output, ((const char *[]){x, gate})), 0};
    }
    case SSLAT_ACT_GELU: { /* 0.5 x (1 + erf(x / sqrt 2)), as PyTorch exports GELU before opset 20 */
        const char *scaled = NODE_NO_ATTRS(b, "Div", out_name(L, i, ".div"),
                                           ((const char *[]){x, scalar(b, out_name(L, i, ".sqrt2"), 1.41421356237f)}));
        const char *erf = NODE_NO_ATTRS(b, "Erf", out_name(L, i, ".erf"), ((const char *[]){scaled}));
        const char *plus = NODE_NO_ATTRS(b, "Add", out_name(L, i, ".add"),
                                         ((const char *[]){erf, scalar(b, out_name(L, i, ".one"), 1.0f)}));
        const char *times = NODE_NO_ATTRS(b, "Mul", out_name(L, i, ".mul"), ((const char *[]){x, plus}));
        return (value){NODE_NO_ATTRS(b, "Mul", output, ((const char *[]){times, scalar(b, out_name(L, i, ".half"), 0.5f)})),
                       0};
    }
    case SSLAT_ACT_TANH: return (value){NODE_NO_ATTRS(b, "Tanh", output, ((const char *[]){x})), 0};
    case SSLAT_ACT_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown activation");
}

static value lower_conv(lowering *L, int32_t i, const char *x)
{
    model_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_conv_params *c = sslat_node_conv(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    int64_t per_out = (int64_t)(in.c / c->groups) * c->kernel * c->kernel;
    const int64_t w_dims[4] = {c->out_channels, in.c / c->groups, c->kernel, c->kernel};
    const int64_t kernel[2] = {c->kernel, c->kernel}, strides[2] = {c->stride, c->stride};
    sslat_pads p = sslat_conv_pads(c, in); /* ONNX: begins of H and W, then their ends */
    const int64_t pads[4] = {p.top, p.left, p.bottom, p.right}, dilations[2] = {c->dilation, c->dilation};
    const char *inputs[3] = {x, parameter(b, out_name(L, i, ".weight"), w_dims, 4, i, SSLAT_ROLE_WEIGHTS, per_out), NULL};
    if (c->bias)
        inputs[2] = parameter(b, out_name(L, i, ".bias"), (int64_t[]){c->out_channels}, 1, i, SSLAT_ROLE_BIAS, 0);
    Onnx__AttributeProto *attrs[] = {attr_ints(b, "kernel_shape", kernel, 2), attr_ints(b, "strides", strides, 2),
                                     attr_ints(b, "pads", pads, 4), attr_ints(b, "dilations", dilations, 2),
                                     attr_int(b, "group", c->groups)};
    return (value){node(b, "Conv", out_name(L, i, ""), inputs, c->bias ? 3 : 2, attrs, 5), 4};
}

static value lower_batchnorm(lowering *L, int32_t i, const char *x)
{
    model_builder *b = L->b;
    const int64_t c[1] = {L->g->nodes[i].shape.c};
    const char *inputs[] = {x, parameter(b, out_name(L, i, ".weight"), c, 1, i, SSLAT_ROLE_GAMMA, 0),
                            parameter(b, out_name(L, i, ".bias"), c, 1, i, SSLAT_ROLE_BETA, 0),
                            parameter(b, out_name(L, i, ".running_mean"), c, 1, i, SSLAT_ROLE_MEAN, 0),
                            parameter(b, out_name(L, i, ".running_var"), c, 1, i, SSLAT_ROLE_VARIANCE, 0)};
    Onnx__AttributeProto *attrs[] = {attr_float(b, "epsilon", SSLAT_BN_EPSILON)};
    return (value){NODE(b, "BatchNormalization", out_name(L, i, ""), inputs, attrs), 4};
}

static value lower_pool(lowering *L, int32_t i, const char *x)
{
    model_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    if (n->op == SSLAT_OP_GLOBAL_AVGPOOL)
        return (value){NODE_NO_ATTRS(b, "GlobalAveragePool", out_name(L, i, ""), ((const char *[]){x})), 4};
    const sslat_pool_params *p = sslat_node_pool(n);
    const int64_t kernel[2] = {p->kernel, p->kernel}, strides[2] = {p->stride, p->stride};
    const int64_t pads[4] = {p->padding, p->padding, p->padding, p->padding};
    if (n->op == SSLAT_OP_MAXPOOL) {
        Onnx__AttributeProto *attrs[] = {attr_ints(b, "kernel_shape", kernel, 2), attr_ints(b, "strides", strides, 2),
                                         attr_ints(b, "pads", pads, 4)};
        return (value){NODE(b, "MaxPool", out_name(L, i, ""), ((const char *[]){x}), attrs), 4};
    }
    /* the IR's average counts the padding, as PyTorch's default */
    Onnx__AttributeProto *attrs[] = {attr_ints(b, "kernel_shape", kernel, 2), attr_ints(b, "strides", strides, 2),
                                     attr_ints(b, "pads", pads, 4), attr_int(b, "count_include_pad", 1)};
    return (value){NODE(b, "AveragePool", out_name(L, i, ""), ((const char *[]){x}), attrs), 4};
}

/* Linear on N,C,H,W reads it flattened (C·H·W features), as the IR defines it. */
static value lower_linear(lowering *L, int32_t i, value x)
{
    model_builder *b = L->b;
    const sslat_node *n = &L->g->nodes[i];
    const sslat_linear_params *l = sslat_node_linear(n);
    sslat_shape in = sslat_graph_shape_of(L->g, n->input[0]);
    int64_t features = (int64_t)in.c * in.h * in.w;
    const char *flat = x.name;
    if (x.rank == 4) {
        Onnx__AttributeProto *attrs[] = {attr_int(b, "axis", 1)};
        flat = NODE(b, "Flatten", out_name(L, i, ".flatten"), ((const char *[]){x.name}), attrs);
    }
    const int64_t w_dims[2] = {l->out_features, features};
    const char *inputs[3] = {flat, parameter(b, out_name(L, i, ".weight"), w_dims, 2, i, SSLAT_ROLE_WEIGHTS, features),
                             NULL};
    if (l->bias) inputs[2] = parameter(b, out_name(L, i, ".bias"), (int64_t[]){l->out_features}, 1, i, SSLAT_ROLE_BIAS, 0);
    Onnx__AttributeProto *attrs[] = {attr_int(b, "transB", 1)};
    return (value){node(b, "Gemm", out_name(L, i, ""), inputs, l->bias ? 3 : 2, attrs, 1), 2};
}

/* PyTorch's channel_shuffle: view C as g x C/g, transpose the two, view back. */
static value lower_shuffle(lowering *L, int32_t i, const char *x)
{
    model_builder *b = L->b;
    sslat_shape s = L->g->nodes[i].shape;
    int64_t groups = sslat_node_shuffle_groups(&L->g->nodes[i]);
    const int64_t split[5] = {s.n, groups, s.c / groups, s.h, s.w}, back[4] = {s.n, s.c, s.h, s.w};
    const int64_t perm[5] = {0, 2, 1, 3, 4};
    const char *viewed = NODE_NO_ATTRS(b, "Reshape", out_name(L, i, ".view"),
                                       ((const char *[]){x, shape_constant(b, out_name(L, i, ".split"), split, 5)}));
    Onnx__AttributeProto *attrs[] = {attr_ints(b, "perm", perm, 5)};
    const char *swapped = NODE(b, "Transpose", out_name(L, i, ".transpose"), ((const char *[]){viewed}), attrs);
    return (value){NODE_NO_ATTRS(b, "Reshape", out_name(L, i, ""),
                                 ((const char *[]){swapped, shape_constant(b, out_name(L, i, ".back"), back, 4)})),
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
    Onnx__AttributeProto *attrs[] = {attr_int(L->b, "axis", 1)};
    return (value){node(L->b, "Concat", out_name(L, i, ""), inputs, (size_t)count, attrs, 1), 4};
}

/* Nearest upsampling as PyTorch does it: Resize, scales (1, 1, s, s), the
 * source pixel floor(dst / s) (asymmetric coordinates, floor rounding). */
static value lower_upsample(lowering *L, int32_t i, const char *x)
{
    float scale = (float)sslat_node_upsample_scale(&L->g->nodes[i]);
    const float scales[4] = {1.0f, 1.0f, scale, scale};
    const char *scales_name = initializer(L->b, out_name(L, i, ".scales"), ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
                                          (int64_t[]){4}, 1, scales, sizeof scales);
    const char *inputs[] = {x, "", scales_name}; /* no roi */
    Onnx__AttributeProto *attrs[] = {attr_string(L->b, "mode", "nearest"),
                                     attr_string(L->b, "coordinate_transformation_mode", "asymmetric"),
                                     attr_string(L->b, "nearest_mode", "floor")};
    return (value){NODE(L->b, "Resize", out_name(L, i, ""), inputs, attrs), 4};
}

/* YOLOv5's Focus as it writes it: four strided Slices (pixel phases (0,0),
 * (1,0), (0,1), (1,1) of H and W) concatenated along channels. */
static value lower_space_to_depth(lowering *L, int32_t i, const char *x)
{
    sslat_shape in = sslat_graph_shape_of(L->g, L->g->nodes[i].input[0]);
    const int64_t ends[2] = {in.h, in.w}, axes[2] = {2, 3}, steps[2] = {2, 2};
    const char *ends_name = shape_constant(L->b, out_name(L, i, ".ends"), ends, 2);
    const char *axes_name = shape_constant(L->b, out_name(L, i, ".axes"), axes, 2);
    const char *steps_name = shape_constant(L->b, out_name(L, i, ".steps"), steps, 2);
    const char *phases[4];
    for (int g = 0; g < 4; g++) {
        const int64_t starts[2] = {g % 2, g / 2};
        char suffix[24];
        snprintf(suffix, sizeof suffix, ".phase%d.starts", g);
        const char *starts_name = shape_constant(L->b, out_name(L, i, suffix), starts, 2);
        snprintf(suffix, sizeof suffix, ".phase%d", g);
        const char *inputs[] = {x, starts_name, ends_name, axes_name, steps_name};
        phases[g] = NODE_NO_ATTRS(L->b, "Slice", out_name(L, i, suffix), inputs);
    }
    Onnx__AttributeProto *attrs[] = {attr_int(L->b, "axis", 1)};
    return (value){NODE(L->b, "Concat", out_name(L, i, ""), phases, attrs), 4};
}

/* Channels [start, start + length): Slice with starts / ends / axes constants. */
static value lower_channel_slice(lowering *L, int32_t i, const char *x)
{
    const sslat_slice_params *s = sslat_node_slice(&L->g->nodes[i]);
    const int64_t starts[1] = {s->start}, ends[1] = {(int64_t)s->start + s->length}, axes[1] = {1};
    const char *inputs[] = {x, shape_constant(L->b, out_name(L, i, ".starts"), starts, 1),
                            shape_constant(L->b, out_name(L, i, ".ends"), ends, 1),
                            shape_constant(L->b, out_name(L, i, ".axes"), axes, 1)};
    return (value){NODE_NO_ATTRS(L->b, "Slice", out_name(L, i, ""), inputs), 4};
}

static value lower_node(lowering *L, int32_t i)
{
    model_builder *b = L->b;
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
    case SSLAT_OP_MUL_CHANNEL: {
        /* both sides 4-D so the SE scale (N,C,1,1) broadcasts over H,W */
        value other = value_of(L, n->input[1]);
        sslat_shape other_shape = sslat_graph_shape_of(L->g, n->input[1]);
        const char *inputs[] = {as_rank4(L, a, a_shape, i, 0), as_rank4(L, other, other_shape, i, 1)};
        return (value){NODE_NO_ATTRS(b, n->op == SSLAT_OP_ADD ? "Add" : "Mul", out_name(L, i, ""), inputs), 4};
    }
    case SSLAT_OP_GLOBAL_AVGPOOL:
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: return lower_pool(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_LINEAR: return lower_linear(L, i, a);
    case SSLAT_OP_FLATTEN: {
        Onnx__AttributeProto *attrs[] = {attr_int(b, "axis", 1)};
        return (value){NODE(b, "Flatten", out_name(L, i, ""), ((const char *[]){a.name}), attrs), 2};
    }
    case SSLAT_OP_IDENTITY: return a; /* no operator: the same value */
    case SSLAT_OP_CHANNEL_SHUFFLE: return lower_shuffle(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_CONCAT: return lower_concat(L, i);
    case SSLAT_OP_CHANNEL_SLICE: return lower_channel_slice(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_UPSAMPLE: return lower_upsample(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_SPACE_TO_DEPTH: return lower_space_to_depth(L, i, as_rank4(L, a, a_shape, i, 0));
    case SSLAT_OP_INPUT:
    case SSLAT_OP_COUNT: break;
    }
    SSLAT_ASSERT(!"unknown op");
}

/* ---- the model ----------------------------------------------------------------------- */

static Onnx__ValueInfoProto *tensor_info(model_builder *b, const char *name, const int64_t *dims, size_t ndims)
{
    Onnx__ValueInfoProto *info = arena(b, sizeof *info);
    Onnx__TypeProto *type = arena(b, sizeof *type);
    Onnx__TypeProto__Tensor *tensor = arena(b, sizeof *tensor);
    Onnx__TensorShapeProto *shape = arena(b, sizeof *shape);
    Onnx__TensorShapeProto__Dimension **dim = arena(b, ndims * sizeof *dim);
    if (!info || !type || !tensor || !shape || !dim) return NULL;
    onnx__value_info_proto__init(info);
    onnx__type_proto__init(type);
    onnx__type_proto__tensor__init(tensor);
    onnx__tensor_shape_proto__init(shape);
    for (size_t k = 0; k < ndims; k++) {
        dim[k] = arena(b, sizeof *dim[k]);
        if (!dim[k]) return NULL;
        onnx__tensor_shape_proto__dimension__init(dim[k]);
        dim[k]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        dim[k]->dim_value = dims[k];
    }
    shape->n_dim = ndims;
    shape->dim = dim;
    tensor->has_elem_type = true;
    tensor->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tensor->shape = shape;
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = tensor;
    info->name = text(b, "%s", name);
    info->type = type;
    return info;
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
    for (int32_t i = 0; i < g->count; i++)
        weight_bytes += sslat_node_param_count(g, &g->nodes[i]) * (int64_t)sizeof(float);
    if (weight_bytes > ONNX_MAX_MODEL_BYTES)
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "its weights take %.2f GB, past the 2 GiB an ONNX file holds "
                          "without external data (not written by sslat): export a smaller architecture",
                          (double)weight_bytes / 1e9);
    bool *side = calloc((size_t)g->count + 1, sizeof *side);
    if (!side) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
    int32_t n_side = count_side_outputs(g, side);
    model_builder b = {.seed = seed};
    lowering L = {&b, g, calloc((size_t)g->count + 1, sizeof(value)), {"input", 4}};
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
    if (!failed) result = NODE_NO_ATTRS(&b, "Identity", "output", ((const char *[]){result}));
    failed = failed || !result;
    sslat_shape in = g->input, out = sslat_graph_output(g);
    const int64_t in_dims[4] = {in.n, in.c, in.h, in.w}, out_dims[4] = {out.n, out.c, out.h, out.w};
    Onnx__ValueInfoProto *input = failed ? NULL : tensor_info(&b, "input", in_dims, 4);
    Onnx__ValueInfoProto *output = failed ? NULL : tensor_info(&b, "output", out_dims, (size_t)result_rank);
    Onnx__GraphProto *graph = failed ? NULL : arena(&b, sizeof *graph);
    Onnx__ModelProto *model = failed ? NULL : arena(&b, sizeof *model);
    Onnx__OperatorSetIdProto *opset = failed ? NULL : arena(&b, sizeof *opset);
    Onnx__ValueInfoProto **inputs = failed ? NULL : arena(&b, sizeof *inputs),
                         **outputs = failed ? NULL : arena(&b, (size_t)(1 + n_side) * sizeof *outputs);
    Onnx__OperatorSetIdProto **opsets = failed ? NULL : arena(&b, sizeof *opsets);
    sslat_status status = SSLAT_OK;
    if (failed || !input || !output || !graph || !model || !opset || !inputs || !outputs || !opsets) {
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
    } else {
        onnx__graph_proto__init(graph);
        graph->name = text(&b, "%s", graph_name);
        graph->n_node = b.n_nodes;
        graph->node = b.nodes;
        graph->n_initializer = b.n_initializers;
        graph->initializer = b.initializers;
        inputs[0] = input;
        outputs[0] = output;
        size_t n_outputs = 1;
        for (int32_t i = 0; i + 1 < g->count && status == SSLAT_OK; i++) {
            if (!side[i]) continue;
            sslat_shape s = g->nodes[i].shape;
            const int64_t dims[4] = {s.n, s.c, s.h, s.w};
            outputs[n_outputs] = tensor_info(&b, L.values[i].name, dims, (size_t)L.values[i].rank);
            if (!outputs[n_outputs++]) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory building the ONNX model");
        }
        graph->n_input = 1;
        graph->input = inputs;
        graph->n_output = n_outputs;
        graph->output = outputs;
        onnx__operator_set_id_proto__init(opset);
        opset->domain = text(&b, "");
        opset->has_version = true;
        opset->version = OPSET;
        opsets[0] = opset;
        onnx__model_proto__init(model);
        model->has_ir_version = true;
        model->ir_version = ONNX__VERSION__IR_VERSION; /* 8 with ONNX 1.12's onnx.proto: opset 17 */
        model->n_opset_import = 1;
        model->opset_import = opsets;
        model->producer_name = text(&b, "sslat");
        model->producer_version = text(&b, "%s", SSLAT_VERSION_STRING);
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
    builder_release(&b);
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
