#include "host/architecture.h"

#include "host/lower.h"
#include "host/measure.h"
#include "ir/space.h"

sslat_status host_measure_architecture(const host_session *session, const sslat_space *space,
                                       const int32_t *arch, const sslat_calc_options *o, double *ms,
                                       sslat_error *err)
{
    host_program program;
    sslat_status status = host_program_init(&program, session, space->input, o->mode, o->seed, err);
    if (status != SSLAT_OK) return status;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        int32_t pick = layer->block < 0 ? 0 : arch[layer->block];
        status = host_program_append(&program, &layer->candidates[pick].graph, err);
    }
    sslat_entry entry;
    if (status == SSLAT_OK) status = host_measure_program(&program, space->input.n, o, &entry, err);
    if (status == SSLAT_OK) *ms = entry.value;
    host_program_release(&program);
    return status;
}
