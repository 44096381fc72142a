#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "measure.h"
#include "program.h"
#include "rng.h"

void host_validation_release(host_validation *v)
{
    for (int i = 0; v->rows && i < v->n; i++) free(v->rows[i].arch);
    free(v->rows);
    memset(v, 0, sizeof *v);
}

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

sslat_status host_validate(const sslat_space *space, const sslat_container *table,
                           const sslat_calc_options *options, int k, uint64_t seed,
                           host_validation *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    if (sslat_container_space_hash(table) != space->hash)
        return sslat_fail(err, SSLAT_ERR_SPACE, "the table was made for space '%s', not '%s'",
                          sslat_container_space_name(table), space->name);
    const char *why = host_dnnl_load();
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "validate: %s", why);
    if (k < 0 || k > 10000) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "k = %d is outside 0..10000", k);
    int32_t blocks = space->n_blocks;
    out->rows = calloc((size_t)k + 2, sizeof *out->rows);
    if (!out->rows) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    host_session session;
    int threads = host_dnnl_set_threads(options->threads);
    sslat_status status = host_session_open(&session, threads, err);
    if (status != SSLAT_OK) return status;
    sslat_rng rng;
    sslat_rng_seed(&rng, seed);
    bool progress = options->progress && isatty(2);
    for (int r = 0; status == SSLAT_OK && r < k + 2; r++) {
        host_validation_row *row = &out->rows[r];
        row->arch = calloc((size_t)blocks + 1, sizeof *row->arch);
        if (!row->arch) {
            status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
            break;
        }
        out->n = r + 1;
        if (r == 0) {
            snprintf(row->label, sizeof row->label, "min");
            status = sslat_argmin_arch(table, row->arch, blocks, err);
        } else if (r == 1) {
            snprintf(row->label, sizeof row->label, "max");
            status = sslat_argmax_arch(table, row->arch, blocks, err);
        } else {
            snprintf(row->label, sizeof row->label, "random %d", r - 2);
            for (int32_t b = 0; b < blocks; b++)
                row->arch[b] = (int32_t)sslat_rng_below(&rng, (uint32_t)sslat_container_candidate_count(table, b));
        }
        if (status == SSLAT_OK) status = sslat_current_latency(table, row->arch, blocks, &row->predicted, err);
        if (status == SSLAT_OK) status = measure_architecture(&session, space, row->arch, options, &row->measured, err);
        if (progress) fprintf(stderr, "\r[validate] %d/%d architectures ", r + 1, k + 2);
    }
    if (progress) fprintf(stderr, "\n");
    host_session_close(&session);
    if (status != SSLAT_OK) {
        host_validation_release(out);
        return status;
    }
    double *predicted = malloc((size_t)out->n * sizeof *predicted), *measured = malloc((size_t)out->n * sizeof *measured);
    if (!predicted || !measured) {
        free(predicted);
        free(measured);
        host_validation_release(out);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < out->n; r++) {
        predicted[r] = out->rows[r].predicted;
        measured[r] = out->rows[r].measured;
    }
    out->summary = sslat_validation_summarize(predicted, measured, (size_t)out->n);
    free(predicted);
    free(measured);
    return SSLAT_OK;
}
