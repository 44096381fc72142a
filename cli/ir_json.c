/* The expanded IR of a space as JSON (sslat show --ir): every layer, candidate
 * and primitive node with its parameters, learnable parameter count and output
 * shape, for other tools
 * (bench/torch_ops.py builds the same ops in PyTorch from it). */
#include <jansson.h>

#include "base/hash.h"
#include "cli/cli.h"
#include "ir/graph.h"
#include "ir/ir_json.h"
#include "ir/space.h"

void cli_print_ir_json(const sslat_space *space)
{
    json_t *layers = json_array();
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        json_t *candidates = json_array();
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            json_t *candidate = sslat_graph_json(&layer->candidates[c].graph);
            json_object_set_new(candidate, "label", json_string(layer->candidates[c].label));
            json_array_append_new(candidates, candidate);
        }
        json_t *sources = json_array(); /* what the layer reads ("from"): layer indices, -1 the network input */
        for (int k = 0; k < layer->n_sources; k++) json_array_append_new(sources, json_integer(layer->source[k]));
        json_array_append_new(layers, json_pack("{s:s, s:i, s:o, s:o}", "name", layer->name, "block", layer->block,
                                                "sources", sources, "candidates", candidates));
    }
    cli_print_json(json_pack("{s:s, s:o, s:o}", "name", space->name, "input", json_pack("[i, i, i, i]", space->input.n, space->input.c, space->input.h, space->input.w), "layers", layers));
}
