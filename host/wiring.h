/* Layers appended to one host program as the space wires them: each layer
 * reads its sources' output tensors (`from`), and a tensor's buffer is freed
 * for reuse only after its last reader, so a YOLO head's skip connections stay
 * live while a chain frees each output as soon as the next layer has read it. */
#ifndef SSLAT_HOST_WIRING_H
#define SSLAT_HOST_WIRING_H

#include "host/lower.h"
#include "ir/space.h"

typedef struct host_wiring {
    const sslat_space *space;
    int *output;          /* program tensor of each layer's output, once appended */
    int32_t *last_reader; /* the last layer reading each layer's output (-1: none) */
    int network_input;    /* program tensor of the network input */
} host_wiring;

/* Start wiring space's layers onto program (just initialised). */
sslat_status host_wiring_begin(host_wiring *wiring, const sslat_space *space, const host_program *program,
                               sslat_error *err);

/* Append layer `layer` (the next one, in order) as graph, one of its candidates. */
sslat_status host_wiring_append(host_wiring *wiring, host_program *program, int32_t layer, const sslat_graph *graph,
                                sslat_error *err);

void host_wiring_end(host_wiring *wiring);

#endif
