/* The reference API: a latency table attached to its space, and the public
 * entry points that tie a space to a table (binding, MAC counts, freeing a
 * space with its table). They sit above the IR, the calculators and the
 * container, so none of those needs the others. */
#include "api/latency.h"
#include "api/context.h"

#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "base/error.h"
#include "calc/run.h"
#include "ir/space.h"
#include "stats/fits.h"
#include "table/container.h"

void sslat_space_free(sslat_space *space)
{
    if (!space) return;
    sslat_container_free(space->latency);
    sslat_space_release(space);
}

sslat_status sslat_measure_space(const sslat_calculator *calculator, const sslat_space *space,
                                 const sslat_calc_options *options, const sslat_run_plan *plan,
                                 const char *ignore_text, sslat_container **out, sslat_error *err)
{
    *out = NULL;
    /* an option the calculator does not read is refused, not ignored:
     * device='cuda:0' on the cpu calculator is a mistake the user must see */
    sslat_calc_options asked = *options;
    if (ignore_text && *ignore_text) asked.ignore.ops |= 1u; /* text that named no kind still asked for one */
    sslat_status checked = sslat_calculator_check_options(calculator, &asked, err);
    if (checked != SSLAT_OK) return checked;
    int32_t *counts = calloc((size_t)space->n_blocks + 1, sizeof *counts);
    if (!counts) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    for (int32_t b = 0; b < space->n_blocks; b++)
        counts[b] = sslat_space_block_layer(space, b)->n_candidates;
    sslat_container *c = NULL;
    sslat_status status = sslat_container_new(calculator->name, counts, space->n_blocks, &c, err);
    free(counts);
    if (status == SSLAT_OK) status = sslat_container_bind_space(c, space, err);
    if (status == SSLAT_OK) status = sslat_calculate_space(calculator, space, options, plan, c, err);
    if (status == SSLAT_OK && calculator->kind == SSLAT_CALC_ANALYTIC)
        status = sslat_container_set_metadata(c, "calculator.ignore", ignore_text ? ignore_text : "", err);
    if (status == SSLAT_OK && calculator->kind == SSLAT_CALC_ANALYTIC && options->fuse_bn)
        status = sslat_container_set_metadata(c, "calculator.fuse_bn", "true", err);
    if (status == SSLAT_OK)
        status = sslat_container_set_metadata(c, "calculator.summary", calculator->summary, err);
    if (status != SSLAT_OK) {
        sslat_container_free(c);
        return status;
    }
    *out = c;
    return SSLAT_OK;
}

static bool same_inputs(const sslat_space *space, const sslat_space_options *inputs)
{
    return (!inputs->batch || inputs->batch == space->input.n) &&
           (!inputs->height || inputs->height == space->input.h) &&
           (!inputs->width || inputs->width == space->input.w);
}

sslat_status sslat_initialize_latency(const char *latency_type, sslat_space *space,
                                      const sslat_space_options *inputs,
                                      const sslat_latency_options *options,
                                      sslat_container **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!space || !out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "space and out are required");
    *out = NULL;
    if (options) {
        sslat_status sized = sslat_check_struct_size(options->size, sizeof *options, "sslat_latency_options", error);
        if (sized != SSLAT_OK) return sized;
    }
    const sslat_calculator *calculator = sslat_calculator_find(latency_type);
    if (!calculator)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "unknown latency type '%s' (one of: mac, mac_thop, mac_fvcore, mac_pthflops, cpu, cuda; "
                          "ENOT's mmac, mmac.thop, mmac.fvcore, mmac.pthflops)",
                          latency_type ? latency_type : "(null)");
    if (inputs && !same_inputs(space, inputs))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "inputs differ from the space's %dx%dx%dx%d: load the space with these "
                          "sslat_space_options to measure them",
                          space->input.n, space->input.c, space->input.h, space->input.w);
    sslat_calc_options calc;
    sslat_calc_options_default(&calc);
    const char *ignore = options ? options->ignore : NULL;
    if (options) {
        if (options->warmup_iterations < SSLAT_NO_WARMUP || options->run_iterations < 0 || options->threads < 0 ||
            !(options->target_noise >= 0) || !(options->max_seconds >= 0))
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                              "latency options: warmup_iterations >= -1, run_iterations, threads, target_noise and "
                              "max_seconds >= 0 (not NaN)");
        if (options->warmup_iterations == SSLAT_NO_WARMUP) calc.warmup_iterations = 0;
        else if (options->warmup_iterations) calc.warmup_iterations = options->warmup_iterations;
        if (options->run_iterations) calc.run_iterations = options->run_iterations;
        if (options->max_seconds > 0) calc.max_seconds = options->max_seconds;
        if (options->seed) calc.seed = options->seed;
        calc.threads = options->threads;
        calc.mode = options->eager ? SSLAT_MODE_EAGER : SSLAT_MODE_FUSED;
        calc.target_noise = options->target_noise;
        calc.cold = options->cold != 0;
        calc.fuse_bn = options->fuse_bn != 0;
        if (options->dtype && !sslat_dtype_parse(options->dtype, &calc.dtype))
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "unknown dtype '%s' (fp32, tf32, fp16, bf16)",
                              options->dtype);
        if (options->layout && !sslat_layout_parse(options->layout, &calc.layout))
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "unknown layout '%s' (nchw, nhwc)", options->layout);
        if (options->device && !sslat_device_parse(options->device, &calc.cuda.device))
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                              "device '%s' is not a device index ('0', 'cuda:1')", options->device);
    }
    sslat_status status = sslat_ignore_parse(ignore, &calc.ignore, error);
    sslat_container *c = NULL;
    if (status == SSLAT_OK) status = sslat_measure_space(calculator, space, &calc, NULL, ignore, &c, error);
    if (status == SSLAT_OK && options && options->context_architectures) {
        sslat_context_result fit;
        status = sslat_context_refine(calculator, space, &calc, NULL, options->context_architectures, c, &fit, error);
        if (status != SSLAT_OK) sslat_container_free(c);
    }
    if (status != SSLAT_OK) return status;
    sslat_container_free(space->latency);
    space->latency = c;
    *out = c;
    return SSLAT_OK;
}

sslat_status sslat_attach_latency(sslat_space *space, const sslat_container *container,
                                  sslat_error *error)
{
    sslat_error_clear(error);
    if (!space || !container) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    sslat_status fits = sslat_table_fits_space(container, space, error);
    if (fits == SSLAT_OK) fits = sslat_container_require_complete(container, error); /* its 0s are no latency */
    if (fits != SSLAT_OK) return fits;
    sslat_container *copy = NULL;
    sslat_status status = sslat_container_clone(container, &copy, error);
    if (status != SSLAT_OK) return status;
    sslat_container_free(space->latency);
    space->latency = copy;
    return SSLAT_OK;
}

const sslat_container *sslat_space_latency(const sslat_space *space)
{
    return space ? space->latency : NULL;
}

void sslat_reset_latency(sslat_space *space)
{
    if (!space) return;
    sslat_container_free(space->latency);
    space->latency = NULL;
}

sslat_status sslat_container_bind_space(sslat_container *c, const sslat_space *space,
                                        sslat_error *error)
{
    if (!c || !space) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    int32_t blocks = sslat_container_block_count(c);
    if (space->n_blocks != blocks)
        return sslat_fail(error, SSLAT_ERR_SPACE, "space '%s' has %d NAS blocks, the table %d",
                          space->name, space->n_blocks, blocks);
    for (int32_t b = 0; b < blocks; b++)
        if (sslat_space_block_layer(space, b)->n_candidates != sslat_container_candidate_count(c, b))
            return sslat_fail(error, SSLAT_ERR_SPACE,
                              "block %d: space '%s' has %d candidates, the table %d", b,
                              space->name, sslat_space_block_layer(space, b)->n_candidates,
                              sslat_container_candidate_count(c, b));
    char **names = calloc((size_t)blocks + 1, sizeof *names);
    char **labels = calloc(sslat_space_total_candidates(space) + 1, sizeof *labels);
    sslat_status status = SSLAT_OK;
    if (!names || !labels) {
        status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    } else {
        size_t at = 0;
        for (int32_t b = 0; b < blocks; b++) {
            const sslat_layer *layer = sslat_space_block_layer(space, b);
            names[b] = (char *)layer->name;
            for (int32_t i = 0; i < layer->n_candidates; i++) labels[at++] = (char *)layer->candidates[i].label;
        }
        status = sslat_container_set_labels(c, names, labels, error);
    }
    int32_t nchw[4];
    sslat_space_input_shape(space, nchw);
    if (status == SSLAT_OK) status = sslat_container_set_space_info(c, space->name, space->hash, nchw, error);
    free(names);
    free(labels);
    return status;
}

sslat_status sslat_mac_count(const sslat_space *space, const char *latency_type,
                             const char *ignore, double *constant, double *per_op,
                             size_t per_op_capacity, sslat_error *error)
{
    sslat_error_clear(error);
    if (!space || !constant)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "space and constant must not be NULL");
    if (sslat_mac_rule_from_name(latency_type) < 0)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "'%s' is not a MAC latency type (mac, mac_thop, mac_fvcore, mac_pthflops)",
                          latency_type ? latency_type : "(null)");
    size_t needed = sslat_space_total_candidates(space);
    if (needed > per_op_capacity || (needed > 0 && !per_op))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                          "per_op holds %zu values but the space has %zu candidates",
                          per_op_capacity, needed);
    const sslat_calculator *calculator = sslat_calculator_find(latency_type);
    sslat_calc_options options;
    sslat_calc_options_default(&options);
    sslat_status status = sslat_ignore_parse(ignore, &options.ignore, error);
    sslat_container *table = NULL;
    if (status == SSLAT_OK) status = sslat_measure_space(calculator, space, &options, NULL, ignore, &table, error);
    if (status == SSLAT_OK) {
        *constant = sslat_container_constant_latency(table);
        size_t at = 0;
        for (int32_t b = 0; b < space->n_blocks; b++)
            for (int32_t c = 0; c < sslat_container_candidate_count(table, b); c++)
                per_op[at++] = sslat_container_latency(table, b, c);
    }
    sslat_container_free(table);
    return status;
}
