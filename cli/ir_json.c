/* The expanded IR of a space as JSON (sslat show --ir): every layer, candidate
 * and primitive node with its parameters, learnable parameter count and output
 * shape, for other tools
 * (bench/torch_ops.py builds the same ops in PyTorch from it). */
#include <jansson.h>

#include "base/hash.h"
#include "cli/cli.h"
#include "ir/graph.h"
#include "ir/space.h"

static json_t *shape_json(sslat_shape s) { return json_pack("[i, i, i, i]", s.n, s.c, s.h, s.w); }

static json_t *node_json(const sslat_graph *graph, const sslat_node *node)
{
    json_t *j = json_pack("{s:s, s:[i, i], s:o, s:s, s:I}", "op", sslat_op_name(node->op), "input", node->input[0],
                          node->input[1], "shape", shape_json(node->shape), "name", node->name, "params",
                          (json_int_t)sslat_node_param_count(graph, node));
    /* a concat's further inputs follow the first two (−2 marks an unused slot) */
    for (int k = 2; j && k < sslat_node_input_count(node); k++)
        json_array_append_new(json_object_get(j, "input"), json_integer(node->input[k]));
    switch (node->op) {
    case SSLAT_OP_CONV2D: {
        const sslat_conv_params *c = sslat_node_conv(node);
        json_object_set_new(j, "conv", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "out_channels", c->out_channels,
                                                  "kernel", c->kernel, "stride", c->stride, "padding", c->padding,
                                                  "dilation", c->dilation, "groups", c->groups, "bias", c->bias));
        break;
    }
    case SSLAT_OP_MAXPOOL:
    case SSLAT_OP_AVGPOOL: {
        const sslat_pool_params *p = sslat_node_pool(node);
        json_object_set_new(j, "pool", json_pack("{s:i, s:i, s:i}", "kernel", p->kernel, "stride", p->stride, "padding",
                                                  p->padding));
        break;
    }
    case SSLAT_OP_ACT: json_object_set_new(j, "act", json_string(sslat_act_name(sslat_node_act(node)))); break;
    case SSLAT_OP_LINEAR: {
        const sslat_linear_params *l = sslat_node_linear(node);
        json_object_set_new(j, "linear", json_pack("{s:i, s:b}", "out_features", l->out_features, "bias", l->bias));
        break;
    }
    case SSLAT_OP_CHANNEL_SHUFFLE: json_object_set_new(j, "groups", json_integer(sslat_node_shuffle_groups(node))); break;
    case SSLAT_OP_UPSAMPLE: json_object_set_new(j, "scale", json_integer(sslat_node_upsample_scale(node))); break;
    case SSLAT_OP_CHANNEL_SLICE:
        json_object_set_new(j, "slice", json_pack("{s:i, s:i}", "start", sslat_node_slice(node)->start, "length",
                                                  sslat_node_slice(node)->length));
        break;
    case SSLAT_OP_GLOBAL_AVGPOOL: { /* how the model wrote it: the MAC rules count the forms apart */
        static const char *const FORMS[] = {"module", "functional", "mean"};
        json_object_set_new(j, "form", json_string(FORMS[sslat_node_gap_form(node)]));
        break;
    }
    default: break;
    }
    return j;
}

json_t *cli_graph_json(const sslat_graph *g)
{
    json_t *nodes = json_array();
    for (int32_t k = 0; k < g->count; k++) json_array_append_new(nodes, node_json(g, &g->nodes[k]));
    char hash[20];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)sslat_graph_hash(g));
    return json_pack("{s:s, s:o, s:o}", "hash", hash, "input", shape_json(g->input), "nodes", nodes);
}

void cli_print_ir_json(const sslat_space *space)
{
    json_t *layers = json_array();
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        json_t *candidates = json_array();
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            json_t *candidate = cli_graph_json(&layer->candidates[c].graph);
            json_object_set_new(candidate, "label", json_string(layer->candidates[c].label));
            json_array_append_new(candidates, candidate);
        }
        json_array_append_new(layers, json_pack("{s:s, s:i, s:o}", "name", layer->name, "block", layer->block,
                                                "candidates", candidates));
    }
    cli_print_json(json_pack("{s:s, s:o, s:o}", "name", space->name, "input", shape_json(space->input), "layers", layers));
}
