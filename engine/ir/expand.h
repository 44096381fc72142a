/* Expansion of a layer spec into primitive ops, as timm / torchvision build
 * the same layer (see docs/space-format.md for each composite). */
#ifndef SSLAT_EXPAND_H
#define SSLAT_EXPAND_H

#include "ir/graph.h"
#include "ir/spec.h"

/* Space-wide settings of the composites (the file's top-level keys). */
typedef struct sslat_expand_context {
    sslat_act_kind se_gate; /* gate of squeeze-excite: hsigmoid in hswish nets, else sigmoid */
    sslat_act_kind se_act;  /* squeeze-excite's inner activation: relu (EfficientNet: silu) */
    bool se_from_input;     /* reduced width from the block's input, not the expanded width */
    int32_t se_divisor;     /* make_divisible's divisor of the reduced width (8); 1 = max(1, floor) */
} sslat_expand_context;

/* Append spec's primitives to graph, reading from its current output (or,
 * on a graph of input nodes only, the graph input and those input nodes). */
sslat_status sslat_spec_expand(const sslat_layer_spec *spec, const sslat_expand_context *context,
                               sslat_graph *graph, sslat_error *err);

/* The same reading the given values of graph (SSLAT_GRAPH_INPUT or node
 * indices): sources[0] for a one-input layer, all of them for concat, detect,
 * add and mul. */
sslat_status sslat_spec_expand_from(const sslat_layer_spec *spec, const sslat_expand_context *context,
                                    sslat_graph *graph, const int32_t *sources, int n_sources, sslat_error *err);

/* timm's / torchvision's make_divisible(v, 8): round to a multiple of 8, never
 * below 8 and never more than 10% under v. */
int32_t sslat_make_divisible(double value, int32_t divisor);

#endif
