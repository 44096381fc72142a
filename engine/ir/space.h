/* The search-space model: layers in order; a fixed layer has one candidate and
 * belongs to the constant part, a NAS block has several. */
#ifndef SSLAT_SPACE_H
#define SSLAT_SPACE_H

#include "ir/graph.h"
#include "sslat.h"

typedef struct sslat_candidate {
    char label[96];    /* the candidate as a token, e.g. "ir_k5_e6" */
    sslat_graph graph; /* its primitives, input = the layer's input shape */
} sslat_candidate;

typedef struct sslat_layer {
    char name[64];    /* a block's name ("blk03", "stage1.2") or a fixed layer's token */
    int32_t block;    /* index among NAS blocks, or -1 for a fixed layer */
    int32_t n_candidates;
    sslat_candidate *candidates;
    /* What the layer reads (`from`): source[0] feeds its graph input, source[k]
     * its k-th input node; a layer index, or -1 for the network input. A chain
     * layer reads one source, the layer before it. */
    int32_t n_sources;
    int32_t source[SSLAT_MAX_NODE_INPUTS];
} sslat_layer;

struct sslat_space {
    char name[128];
    sslat_shape input;
    int32_t n_layers;
    sslat_layer *layers;
    int32_t n_blocks;
    int32_t *block_layer; /* layer index of each NAS block */
    int32_t *arch;        /* the file's "arch" (n_blocks entries) or NULL */
    sslat_act_kind se_gate;
    uint64_t hash;
    sslat_container *latency; /* attached by sslat_initialize_latency (api/), owned; or NULL */
};

/* The layer of NAS block `block` (asserts the index is valid). */
const sslat_layer *sslat_space_block_layer(const sslat_space *space, int32_t block);

/* Whether every layer reads the one before it (no `from` elsewhere). */
bool sslat_space_is_chain(const sslat_space *space);

/* The architecture as one graph: the constant part and arch's candidates
 * wired in layer order (each reads its sources' outputs), nodes numbered as the backends number chained
 * subgraphs (sslat_graph_append). arch has one index per NAS block; a wrong
 * length or an index out of range fails naming the block. The caller
 * releases *whole (sslat_graph_release), also on failure. */
sslat_status sslat_space_architecture_graph(const sslat_space *space, const int32_t *arch, int32_t length,
                                            sslat_graph *whole, sslat_error *err);

/* Free the space's own memory. The public sslat_space_free (api/) also frees
 * the attached table, which the IR knows only as a pointer. */
void sslat_space_release(sslat_space *space);

/* Total candidates over all NAS blocks. */
size_t sslat_space_total_candidates(const sslat_space *space);

/* Compute space->hash from every candidate graph, in order. */
void sslat_space_compute_hash(sslat_space *space);

#endif
