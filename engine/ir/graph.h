/* A subgraph: one input, primitive nodes in execution order, output = last node. */
#ifndef SSLAT_GRAPH_H
#define SSLAT_GRAPH_H

#include "ir/op.h"
#include "sslat.h"

typedef struct sslat_graph {
    sslat_shape input;
    int32_t count, capacity;
    sslat_node *nodes;
} sslat_graph;

void sslat_graph_init(sslat_graph *graph, sslat_shape input);
void sslat_graph_release(sslat_graph *graph);

/* Index of the output node, or SSLAT_GRAPH_INPUT for an empty graph. */
int32_t sslat_graph_output_index(const sslat_graph *graph);
sslat_shape sslat_graph_output(const sslat_graph *graph);
/* Shape of a node index, SSLAT_GRAPH_INPUT included. */
sslat_shape sslat_graph_shape_of(const sslat_graph *graph, int32_t index);

/* Infer the output shape of op on its inputs; on failure writes why. */
bool sslat_infer_shape(sslat_op_kind op, const sslat_op_params *params, sslat_shape in0,
                       sslat_shape in1, sslat_shape *out, char *why, size_t why_size);

/* Append a node after validating its inputs and inferring its shape.
 * in1 is SSLAT_NO_INPUT for unary ops. Returns the new node's index via index. */
sslat_status sslat_graph_add(sslat_graph *graph, sslat_op_kind op, const sslat_op_params *params,
                             int32_t in0, int32_t in1, const char *name, int32_t *index,
                             sslat_error *err);

/* Append a concat of 2..SSLAT_MAX_NODE_INPUTS earlier values along channels
 * (their N, H, W must agree). */
sslat_status sslat_graph_add_concat(sslat_graph *graph, const int32_t *inputs, int n, const char *name,
                                    int32_t *index, sslat_error *err);

/* Append an input node: another input of the subgraph (a layer with several
 * `from` sources), of the given shape. Input nodes come before every other node. */
sslat_status sslat_graph_add_input(sslat_graph *graph, sslat_shape shape, const char *name, int32_t *index,
                                   sslat_error *err);

/* The node a layer's chain continues from: the last node that is not an input
 * node, or SSLAT_GRAPH_INPUT. */
int32_t sslat_graph_chain_index(const sslat_graph *graph);

/* Append next's nodes with its inputs wired to values of graph: next's graph
 * input reads sources[0], its k-th input node becomes an identity reading
 * sources[k] (shapes must match). Node i of next becomes node (graph's count
 * before) + i, as sslat_graph_append numbers them. */
sslat_status sslat_graph_append_wired(sslat_graph *graph, const sslat_graph *next, const int32_t *sources,
                                      int n_sources, sslat_error *err);

/* Append next's nodes reading graph's output (next's input must be that
 * shape): a chain of subgraphs as one graph (whole architectures). Node i of
 * next becomes node (graph's count before) + i, as the backends number the
 * nodes of chained subgraphs for their seeded parameters. */
sslat_status sslat_graph_append(sslat_graph *graph, const sslat_graph *next, sslat_error *err);

/* Canonical hash of the graph with its input shape: equal iff same ops,
 * params, wiring and shapes (node names are ignored). */
uint64_t sslat_graph_hash(const sslat_graph *graph);

/* Learnable parameters of a node (weights, biases, BN affine). */
int64_t sslat_node_param_count(const sslat_graph *graph, const sslat_node *node);

#endif
