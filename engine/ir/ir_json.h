/* IR graphs as JSON (jansson values). */
#ifndef SSLAT_IR_JSON_H
#define SSLAT_IR_JSON_H

#include <jansson.h>

#include "ir/graph.h"

/* {"hash", "input": [N, C, H, W], "nodes": [{"op", "input", "shape", "name", "params", …}]} */
json_t *sslat_graph_json(const sslat_graph *graph);

#endif
