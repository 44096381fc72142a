#include "host/architecture.h"

#include "host/lower.h"
#include "host/measure.h"
#include "ir/space.h"

sslat_status host_measure_architecture(const host_session *session, host_choices *choices, const sslat_space *space,
                                       const int32_t *arch, const sslat_calc_options *o, double *ms,
                                       sslat_error *err)
{
    host_program program;
    sslat_status status = host_program_init(&program, session, space->input, o->mode, o->seed, err);
    if (status != SSLAT_OK) return status;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        int32_t pick = layer->block < 0 ? 0 : arch[layer->block];
        const sslat_graph *graph = &layer->candidates[pick].graph;
        const host_choice *choice = host_choices_find(choices, sslat_graph_hash(graph));
        if (!choice) { /* decided on one copy of it alone */
            host_program alone;
            status = host_build_avoiding_reference(session, choices, graph, o->mode, o->seed, 1, &alone, &choice, err);
            if (status == SSLAT_OK) host_program_release(&alone);
        }
        if (status == SSLAT_OK) program.lowering = choice->lowering;
        if (status == SSLAT_OK) status = host_program_append(&program, graph, err);
    }
    sslat_entry entry;
    if (status == SSLAT_OK) status = host_measure_program(&program, space->input.n, o, &entry, err);
    if (status == SSLAT_OK) *ms = entry.value;
    host_program_release(&program);
    return status;
}
