#include "host/architecture.h"

#include <stdlib.h>

#include "base/error.h"
#include "host/lower.h"
#include "host/measure.h"
#include "host/wiring.h"
#include "ir/space.h"

/* One architecture as one program: its subgraphs appended in layer order,
 * each reading what the space wires it to. */
static sslat_status build_architecture(host_session *session, host_choices *choices, const sslat_space *space,
                                       const int32_t *arch, const sslat_calc_options *o, host_program *program,
                                       sslat_error *err)
{
    sslat_status status = host_program_init(program, session, space->input, o->mode, o->seed, err);
    if (status != SSLAT_OK) return status;
    host_wiring wiring;
    status = host_wiring_begin(&wiring, space, program, err);
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        int32_t pick = layer->block < 0 ? 0 : arch[layer->block];
        const sslat_graph *graph = &layer->candidates[pick].graph;
        uint64_t hash = sslat_graph_hash(graph);
        const host_choice *choice = host_choices_find(choices, hash);
        if (!choice) { /* decided on one copy of it alone */
            host_program alone;
            status = host_build_avoiding_reference(session, choices, graph, hash, o->mode, o->seed, 1, &alone, &choice,
                                                   err);
            if (status == SSLAT_OK) host_program_release(&alone);
        }
        if (status == SSLAT_OK) program->lowering = choice->lowering;
        if (status == SSLAT_OK) status = host_wiring_append(&wiring, program, i, graph, err);
    }
    host_wiring_end(&wiring);
    if (status != SSLAT_OK) host_program_release(program);
    return status;
}

sslat_status host_measure_architectures(host_session *session, host_choices *choices, const sslat_space *space,
                                        const int32_t *const *archs, size_t n, const sslat_calc_options *o,
                                        volatile int *stop, host_interference *interference, double *ms,
                                        sslat_error *err)
{
    host_program *programs = calloc(n + 1, sizeof *programs);
    host_program **pointers = calloc(n + 1, sizeof *pointers);
    int32_t *units = calloc(n + 1, sizeof *units);
    sslat_entry *entries = calloc(n + 1, sizeof *entries);
    sslat_status status = programs && pointers && units && entries ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    size_t built = 0;
    for (; status == SSLAT_OK && built < n; built++) {
        status = build_architecture(session, choices, space, archs[built], o, &programs[built], err);
        if (status != SSLAT_OK) break; /* a failed one released itself */
        pointers[built] = &programs[built];
        units[built] = space->input.n;
    }
    if (status == SSLAT_OK) status = host_measure_programs(pointers, units, n, o, stop, interference, entries, err);
    for (size_t k = 0; status == SSLAT_OK && k < n; k++) ms[k] = entries[k].value;
    for (size_t k = 0; k < built; k++) host_program_release(&programs[k]);
    free(programs), free(pointers), free(units), free(entries);
    return status;
}
