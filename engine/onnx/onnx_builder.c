/* The generic ONNX protobuf builder (onnx_builder.h): the arena, attributes,
 * initializers, nodes and value infos of one model. */
#include "onnx/onnx_builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- an arena: every message, string and array of one model ------------------------ */



void *onnx_arena(onnx_builder *b, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b->chunks || b->chunks->size - b->chunks->used < size) {
        size_t capacity = size > (1 << 20) ? size : (1 << 20);
        onnx_chunk *c = malloc(sizeof *c + capacity);
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

void onnx_builder_release(onnx_builder *b)
{
    while (b->chunks) {
        onnx_chunk *next = b->chunks->next;
        free(b->chunks);
        b->chunks = next;
    }
    free(b->nodes);
    free(b->initializers);
}

char *onnx_text(onnx_builder *b, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *s = n >= 0 ? onnx_arena(b, (size_t)n + 1) : NULL;
    if (!s) return NULL;
    va_start(args, format);
    vsnprintf(s, (size_t)n + 1, format, args);
    va_end(args);
    return s;
}

static bool push(onnx_builder *b, void ***items, size_t *count, size_t *capacity, void *item)
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

static Onnx__AttributeProto *attribute(onnx_builder *b, const char *name, Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = onnx_arena(b, sizeof *a);
    if (!a) return NULL;
    onnx__attribute_proto__init(a);
    a->name = onnx_text(b, "%s", name);
    a->has_type = true;
    a->type = type;
    return a;
}

Onnx__AttributeProto *onnx_attr_int(onnx_builder *b, const char *name, int64_t value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    if (a) {
        a->has_i = true;
        a->i = value;
    }
    return a;
}

Onnx__AttributeProto *onnx_attr_float(onnx_builder *b, const char *name, float value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    if (a) {
        a->has_f = true;
        a->f = value;
    }
    return a;
}

Onnx__AttributeProto *onnx_attr_string(onnx_builder *b, const char *name, const char *value)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    char *copy = onnx_text(b, "%s", value);
    if (!a || !copy) return NULL;
    a->has_s = true;
    a->s.data = (uint8_t *)copy;
    a->s.len = strlen(copy);
    return a;
}

Onnx__AttributeProto *onnx_attr_ints(onnx_builder *b, const char *name, const int64_t *values, size_t n)
{
    Onnx__AttributeProto *a = attribute(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    int64_t *copy = onnx_arena(b, n * sizeof *copy);
    if (!a || !copy) return NULL;
    memcpy(copy, values, n * sizeof *copy);
    a->n_ints = n;
    a->ints = copy;
    return a;
}

/* A tensor initializer named `name` of dims (raw little-endian data). */
const char *onnx_initializer(onnx_builder *b, const char *name, int32_t data_type, const int64_t *dims,
                               size_t ndims, const void *data, size_t bytes)
{
    Onnx__TensorProto *t = onnx_arena(b, sizeof *t);
    int64_t *d = onnx_arena(b, (ndims ? ndims : 1) * sizeof *d);
    void *raw = onnx_arena(b, bytes ? bytes : 1);
    if (!t || !d || !raw) return NULL;
    onnx__tensor_proto__init(t);
    if (ndims) memcpy(d, dims, ndims * sizeof *d); /* a scalar has no dims (NULL) */
    if (bytes) memcpy(raw, data, bytes);
    t->name = onnx_text(b, "%s", name);
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

const char *onnx_scalar(onnx_builder *b, const char *name, float value)
{
    return onnx_initializer(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, NULL, 0, &value, sizeof value);
}

const char *onnx_shape_constant(onnx_builder *b, const char *name, const int64_t *dims, size_t n)
{
    return onnx_initializer(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, (int64_t[]){(int64_t)n}, 1, dims,
                       n * sizeof *dims);
}

/* Append node op_type(inputs) -> output named `output`; returns the output. */
const char *onnx_node(onnx_builder *b, const char *op_type, const char *output, const char *const *inputs,
                        size_t n_inputs, Onnx__AttributeProto *const *attributes, size_t n_attributes)
{
    Onnx__NodeProto *n = onnx_arena(b, sizeof *n);
    char **in = onnx_arena(b, (n_inputs ? n_inputs : 1) * sizeof *in), **out = onnx_arena(b, sizeof *out);
    Onnx__AttributeProto **attrs = onnx_arena(b, (n_attributes ? n_attributes : 1) * sizeof *attrs);
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
    n->op_type = onnx_text(b, "%s", op_type);
    n->n_input = n_inputs;
    n->input = in;
    n->n_output = 1;
    n->output = out;
    n->n_attribute = n_attributes;
    n->attribute = attrs;
    if (!push(b, (void ***)&b->nodes, &b->n_nodes, &b->nodes_capacity, n)) return NULL;
    return output;
}


Onnx__ValueInfoProto *onnx_tensor_info(onnx_builder *b, const char *name, const int64_t *dims, size_t ndims)
{
    Onnx__ValueInfoProto *info = onnx_arena(b, sizeof *info);
    Onnx__TypeProto *type = onnx_arena(b, sizeof *type);
    Onnx__TypeProto__Tensor *tensor = onnx_arena(b, sizeof *tensor);
    Onnx__TensorShapeProto *shape = onnx_arena(b, sizeof *shape);
    Onnx__TensorShapeProto__Dimension **dim = onnx_arena(b, ndims * sizeof *dim);
    if (!info || !type || !tensor || !shape || !dim) return NULL;
    onnx__value_info_proto__init(info);
    onnx__type_proto__init(type);
    onnx__type_proto__tensor__init(tensor);
    onnx__tensor_shape_proto__init(shape);
    for (size_t k = 0; k < ndims; k++) {
        dim[k] = onnx_arena(b, sizeof *dim[k]);
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
    info->name = onnx_text(b, "%s", name);
    info->type = type;
    return info;
}
