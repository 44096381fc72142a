#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "measure.h"
#include "program.h"
#include "rng.h"

/* The constant part and the chosen candidates, in order, as one network. */
static sslat_status measure_architecture(const host_session *session, const sslat_space *space,
                                         const int32_t *arch, const sslat_calc_options *o,
                                         double *ms, sslat_error *err)
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

typedef struct host_validate_context {
    const host_session *session;
    const sslat_calc_options *options;
} host_validate_context;

static sslat_status measure_with_session(void *context, const sslat_space *space, const int32_t *arch,
                                         double *ms, sslat_error *err)
{
    const host_validate_context *c = context;
    return measure_architecture(c->session, space, arch, c->options, ms, err);
}

sslat_status host_validate(const sslat_space *space, const sslat_container *table,
                           const sslat_calc_options *options, int k, uint64_t seed,
                           sslat_validation *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    const char *why = host_dnnl_load();
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "validate: %s", why);
    host_session session;
    int threads = host_dnnl_set_threads(options->threads);
    sslat_status status = host_session_open(&session, threads, err);
    if (status != SSLAT_OK) return status;
    host_validate_context context = {&session, options};
    status = sslat_validate_architectures(space, table, k, seed, options->progress && isatty(2),
                                          measure_with_session, &context, out, err);
    host_session_close(&session);
    return status;
}
