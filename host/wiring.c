#include "host/wiring.h"

#include <stdlib.h>

#include "base/error.h"

sslat_status host_wiring_begin(host_wiring *w, const sslat_space *space, const host_program *program,
                               sslat_error *err)
{
    w->space = space;
    w->network_input = program->output;
    w->output = calloc((size_t)space->n_layers + 1, sizeof *w->output);
    w->last_reader = calloc((size_t)space->n_layers + 1, sizeof *w->last_reader);
    if (!w->output || !w->last_reader) {
        host_wiring_end(w);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < space->n_layers; i++) w->last_reader[i] = -1;
    for (int32_t i = 0; i < space->n_layers; i++)
        for (int k = 0; k < space->layers[i].n_sources; k++)
            if (space->layers[i].source[k] >= 0) w->last_reader[space->layers[i].source[k]] = i;
    return SSLAT_OK;
}

/* Whether a layer still to come reads a tensor living in this buffer. */
static bool buffer_still_read(const host_wiring *w, const host_program *p, int buffer, int32_t after)
{
    for (int32_t j = 0; j <= after; j++)
        if (w->last_reader[j] > after && p->tensors[w->output[j]].buffer == buffer) return true;
    return false;
}

sslat_status host_wiring_append(host_wiring *w, host_program *p, int32_t layer, const sslat_graph *graph,
                                sslat_error *err)
{
    const sslat_layer *l = &w->space->layers[layer];
    int sources[SSLAT_MAX_NODE_INPUTS];
    for (int k = 0; k < l->n_sources; k++) sources[k] = l->source[k] < 0 ? w->network_input : w->output[l->source[k]];
    sslat_status status = host_program_append_wired(p, graph, sources, l->n_sources, err);
    if (status != SSLAT_OK) return status;
    w->output[layer] = p->output;
    for (int k = 0; k < l->n_sources; k++) { /* read for the last time: its buffer may be reused */
        int buffer = p->tensors[sources[k]].buffer;
        if (l->source[k] >= 0 && w->last_reader[l->source[k]] == layer && !buffer_still_read(w, p, buffer, layer))
            host_program_release_tensor(p, sources[k]);
    }
    return SSLAT_OK;
}

void host_wiring_end(host_wiring *w)
{
    free(w->output);
    free(w->last_reader);
    w->output = NULL;
    w->last_reader = NULL;
}
