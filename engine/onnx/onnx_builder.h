/* A generic ONNX protobuf builder on protobuf-c's classes generated from
 * ONNX's onnx.proto: an arena that owns every message, string and array of one
 * model, and the pieces a graph is made of (attributes, initializers, nodes,
 * value infos). It knows nothing of sslat's IR: engine/onnx/onnx_export.c
 * lowers an architecture with it. A piece that cannot be built returns NULL
 * (out_of_memory says why); a NULL given to the next piece fails it too, so a
 * lowering checks once at the end. */
#ifndef SSLAT_ONNX_BUILDER_H
#define SSLAT_ONNX_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <onnx.pb-c.h> /* generated at build time from ONNX's onnx.proto (CMakeLists.txt) */

typedef struct onnx_chunk {
    struct onnx_chunk *next;
    size_t used, size;
    max_align_t data[];
} onnx_chunk;

typedef struct onnx_builder {
    onnx_chunk *chunks;
    bool out_of_memory;
    /* growable lists (malloc'ed; their items live in the arena) */
    Onnx__NodeProto **nodes;
    size_t n_nodes, nodes_capacity;
    Onnx__TensorProto **initializers;
    size_t n_initializers, initializers_capacity;
} onnx_builder;

/* size zeroed bytes that live as long as the builder (NULL, and out_of_memory set, when memory runs out). */
void *onnx_arena(onnx_builder *b, size_t size);
/* Every message, string and list of the builder. */
void onnx_builder_release(onnx_builder *b);

/* A printf-formatted string in the arena. */
char *onnx_text(onnx_builder *b, const char *format, ...);

/* Attributes of a node, in the arena. */
Onnx__AttributeProto *onnx_attr_int(onnx_builder *b, const char *name, int64_t value);
Onnx__AttributeProto *onnx_attr_float(onnx_builder *b, const char *name, float value);
Onnx__AttributeProto *onnx_attr_string(onnx_builder *b, const char *name, const char *value);
Onnx__AttributeProto *onnx_attr_ints(onnx_builder *b, const char *name, const int64_t *values, size_t n);

/* A tensor initializer named name of dims (raw little-endian data); returns the name. */
const char *onnx_initializer(onnx_builder *b, const char *name, int32_t data_type, const int64_t *dims,
                               size_t ndims, const void *data, size_t bytes);

/* A float scalar initializer, and an int64 vector one (a Reshape's shape). */
const char *onnx_scalar(onnx_builder *b, const char *name, float value);
const char *onnx_shape_constant(onnx_builder *b, const char *name, const int64_t *dims, size_t n);

/* Append node op_type(inputs) -> output named output; returns the output (NULL on failure). */
const char *onnx_node(onnx_builder *b, const char *op_type, const char *output, const char *const *inputs,
                        size_t n_inputs, Onnx__AttributeProto *const *attributes, size_t n_attributes);

/* A float tensor's name and dims, as a graph input or output declares it. */
Onnx__ValueInfoProto *onnx_tensor_info(onnx_builder *b, const char *name, const int64_t *dims, size_t ndims);

/* node() with the counts of array arguments taken from the arrays. */
#define ONNX_NODE(b, op, out, ins, attrs) onnx_node(b, op, out, ins, sizeof ins / sizeof ins[0], attrs, sizeof attrs / sizeof attrs[0])
#define ONNX_NODE_NO_ATTRS(b, op, out, ins) onnx_node(b, op, out, ins, sizeof ins / sizeof ins[0], NULL, 0)

#endif
