#include "ir/space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/limits.h"

void sslat_space_release(sslat_space *space)
{
    if (!space) return;
    for (int32_t i = 0; i < space->n_layers; i++) {
        sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; c < layer->n_candidates; c++)
            sslat_graph_release(&layer->candidates[c].graph);
        free(layer->candidates);
    }
    free(space->layers);
    free(space->block_layer);
    free(space->arch);
    free(space);
}

size_t sslat_space_total_candidates(const sslat_space *space)
{
    size_t total = 0;
    for (int32_t b = 0; b < space->n_blocks; b++)
        total += (size_t)sslat_space_block_layer(space, b)->n_candidates;
    return total;
}

const sslat_layer *sslat_space_block_layer(const sslat_space *space, int32_t block)
{
    SSLAT_ASSERT(block >= 0 && block < space->n_blocks);
    return &space->layers[space->block_layer[block]];
}

void sslat_space_compute_hash(sslat_space *space)
{
    sslat_hasher h;
    sslat_hash_begin(&h);
    sslat_hash_i32(&h, space->n_layers);
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        sslat_hash_i32(&h, layer->block >= 0);
        sslat_hash_i32(&h, layer->n_candidates);
        for (int32_t c = 0; c < layer->n_candidates; c++)
            sslat_hash_u64(&h, sslat_graph_hash(&layer->candidates[c].graph));
        if (layer->n_sources == 1 && layer->source[0] == i - 1) continue; /* a chain hashes as it always did */
        sslat_hash_i32(&h, layer->n_sources);
        for (int k = 0; k < layer->n_sources; k++) sslat_hash_i32(&h, layer->source[k]);
    }
    space->hash = h.state;
}

const char *sslat_space_name(const sslat_space *space) { return space->name; }
uint64_t sslat_space_hash(const sslat_space *space) { return space->hash; }
int32_t sslat_space_block_count(const sslat_space *space) { return space->n_blocks; }

void sslat_space_input_shape(const sslat_space *space, int32_t nchw[4])
{
    nchw[0] = space->input.n;
    nchw[1] = space->input.c;
    nchw[2] = space->input.h;
    nchw[3] = space->input.w;
}

int32_t sslat_space_candidate_count(const sslat_space *space, int32_t block)
{
    if (!space || block < 0 || block >= space->n_blocks) return -1;
    return sslat_space_block_layer(space, block)->n_candidates;
}

const char *sslat_space_block_name(const sslat_space *space, int32_t block)
{
    if (!space || block < 0 || block >= space->n_blocks) return NULL;
    return sslat_space_block_layer(space, block)->name;
}

const char *sslat_space_candidate_label(const sslat_space *space, int32_t block,
                                        int32_t candidate)
{
    if (!space || block < 0 || block >= space->n_blocks) return NULL;
    const sslat_layer *layer = sslat_space_block_layer(space, block);
    if (candidate < 0 || candidate >= layer->n_candidates) return NULL;
    return layer->candidates[candidate].label;
}

double sslat_space_architecture_count(const sslat_space *space)
{
    double count = 1.0;
    for (int32_t b = 0; b < space->n_blocks; b++)
        count *= sslat_space_block_layer(space, b)->n_candidates;
    return count;
}

size_t sslat_space_architecture_count_string(const sslat_space *space, char *buffer, size_t capacity)
{
    int32_t *counts = calloc((size_t)space->n_blocks + 1, sizeof *counts);
    if (!counts) {
        if (capacity) buffer[0] = '\0';
        return 0;
    }
    for (int32_t b = 0; b < space->n_blocks; b++) counts[b] = sslat_space_block_layer(space, b)->n_candidates;
    size_t length = sslat_product_string(counts, (size_t)space->n_blocks, buffer, capacity);
    free(counts);
    return length;
}

int32_t sslat_space_arch(const sslat_space *space, int32_t *arch, int32_t capacity)
{
    if (!space->arch) return 0;
    for (int32_t b = 0; b < space->n_blocks && b < capacity; b++) arch[b] = space->arch[b];
    return space->n_blocks;
}

sslat_status sslat_space_param_count(const sslat_space *space, const int32_t *arch, int32_t length, int64_t *count,
                                     sslat_error *err)
{
    if (!space || !count) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "sslat_space_param_count: space and count are required");
    sslat_graph whole;
    sslat_status status = sslat_space_architecture_graph(space, arch, length, &whole, err);
    *count = 0;
    for (int32_t i = 0; status == SSLAT_OK && i < whole.count; i++) *count += sslat_node_param_count(&whole, &whole.nodes[i]);
    sslat_graph_release(&whole);
    return status;
}

bool sslat_space_is_chain(const sslat_space *space)
{
    for (int32_t i = 0; i < space->n_layers; i++)
        if (space->layers[i].n_sources != 1 || space->layers[i].source[0] != i - 1) return false;
    return true;
}

sslat_status sslat_space_architecture_graph(const sslat_space *space, const int32_t *arch, int32_t length,
                                            sslat_graph *whole, sslat_error *err)
{
    sslat_graph_init(whole, space->input);
    if (length != space->n_blocks || (length > 0 && !arch))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "the architecture has %d indices but space '%s' has %d blocks",
                          length, space->name, space->n_blocks);
    for (int32_t b = 0; b < length; b++) {
        const sslat_layer *layer = sslat_space_block_layer(space, b);
        if (arch[b] < 0 || arch[b] >= layer->n_candidates)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                              "arch[%d] = %d is out of range: block %d '%s' has %d candidates (0..%d)", b, arch[b], b,
                              layer->name, layer->n_candidates, layer->n_candidates - 1);
    }
    int32_t *output = calloc((size_t)space->n_layers + 1, sizeof *output); /* each layer's output node */
    if (!output) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = SSLAT_OK;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        const sslat_graph *graph = &layer->candidates[layer->block < 0 ? 0 : arch[layer->block]].graph;
        int32_t sources[SSLAT_MAX_NODE_INPUTS];
        for (int k = 0; k < layer->n_sources; k++)
            sources[k] = layer->source[k] < 0 ? SSLAT_GRAPH_INPUT : output[layer->source[k]];
        status = sslat_graph_append_wired(whole, graph, sources, layer->n_sources, err);
        output[i] = graph->count > 0 ? whole->count - 1 : sources[0];
        if (status == SSLAT_ERR_LIMIT) /* not this layer's fault: the whole network is too long for one graph */
            status = sslat_fail(err, SSLAT_ERR_LIMIT, "the architecture has more than %d operations, the most one "
                                "network graph holds (reached at layer %d '%s'); per-layer tables (measure, stats) "
                                "still work", SSLAT_MAX_GRAPH_NODES, i, layer->name);
        else if (status != SSLAT_OK) sslat_error_prefix(err, "layer %d '%s': ", i, layer->name);
    }
    free(output);
    return status;
}
