#include "calculator.h"

#include <string.h>

#include "error.h"

static sslat_status measure_mac(const sslat_calculator *self, const sslat_graph *graph,
                                const sslat_calc_options *options, double *value,
                                sslat_error *err)
{
    (void)err;
    *value = sslat_mac_graph(graph, (sslat_mac_rule)self->rule, &options->ignore) / 1e6;
    return SSLAT_OK;
}

static const char *not_built_cpu(void)
{
    return "the cpu calculator (oneDNN) is not implemented in this build yet";
}

static const char *not_built_cuda(void)
{
    return "the cuda calculator (cuDNN / cuBLAS) is not implemented in this build yet";
}

static const sslat_calculator CALCULATORS[] = {
    {"mac", "analytic", "MMAC", "conv2d + linear multiply-accumulates (torchvision's GFLOPS column)",
     NULL, NULL, measure_mac, SSLAT_MAC_PLAIN},
    {"mac_thop", "analytic", "MMAC", "what thop 0.1.1 (pytorch-OpCounter) counts", NULL, NULL,
     measure_mac, SSLAT_MAC_THOP},
    {"mac_fvcore", "analytic", "MMAC", "what fvcore's FlopCountAnalysis counts (eval mode)", NULL,
     NULL, measure_mac, SSLAT_MAC_FVCORE},
    {"mac_pthflops", "analytic", "MMAC", "what pthflops 0.4.2 counts in FX mode", NULL, NULL,
     measure_mac, SSLAT_MAC_PTHFLOPS},
    {"cpu", "timed", "ms", "oneDNN primitives timed on this CPU", not_built_cpu, NULL, NULL, -1},
    {"cuda", "timed", "ms", "cuDNN / cuBLAS / own kernels timed with CUDA graphs and events",
     not_built_cuda, NULL, NULL, -1},
};

int sslat_calculator_count(void) { return (int)(sizeof CALCULATORS / sizeof CALCULATORS[0]); }

const sslat_calculator *sslat_calculator_at(int index)
{
    SSLAT_ASSERT(index >= 0 && index < sslat_calculator_count());
    return &CALCULATORS[index];
}

const sslat_calculator *sslat_calculator_find(const char *name)
{
    for (int i = 0; name && i < sslat_calculator_count(); i++)
        if (strcmp(CALCULATORS[i].name, name) == 0) return &CALCULATORS[i];
    return NULL;
}

int32_t sslat_available_calculators(const char *const **names)
{
    static const char *available[sizeof CALCULATORS / sizeof CALCULATORS[0]];
    int32_t count = 0;
    for (int i = 0; i < sslat_calculator_count(); i++)
        if (!CALCULATORS[i].unavailable_reason || !CALCULATORS[i].unavailable_reason())
            available[count++] = CALCULATORS[i].name;
    if (names) *names = available;
    return count;
}

size_t sslat_space_total_candidates(const sslat_space *space)
{
    size_t total = 0;
    for (int32_t b = 0; b < space->n_blocks; b++)
        total += (size_t)sslat_space_block_layer(space, b)->n_candidates;
    return total;
}

static sslat_status check_support(const sslat_calculator *calculator, const sslat_layer *layer,
                                  int32_t candidate, sslat_error *err)
{
    if (!calculator->supports_op) return SSLAT_OK;
    const sslat_graph *graph = &layer->candidates[candidate].graph;
    for (int32_t i = 0; i < graph->count; i++)
        if (!calculator->supports_op(&graph->nodes[i]))
            return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "%s: layer '%s' candidate '%s': op %s '%s' is not supported",
                              calculator->name, layer->name, layer->candidates[candidate].label,
                              sslat_op_name(graph->nodes[i].op), graph->nodes[i].name);
    return SSLAT_OK;
}

sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, double *constant,
                                   double *per_op, size_t per_op_capacity, sslat_error *err)
{
    if (!calculator || !space || !options || !constant)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "calculator, space, options and constant are required");
    const char *why = calculator->unavailable_reason ? calculator->unavailable_reason() : NULL;
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator '%s' cannot run: %s", calculator->name, why);
    size_t needed = sslat_space_total_candidates(space);
    if (needed > per_op_capacity || (needed > 0 && !per_op))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "per_op holds %zu values but the space has %zu candidates",
                          per_op_capacity, needed);
    *constant = 0.0;
    size_t at = 0;
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            double value = 0.0;
            sslat_status status = check_support(calculator, layer, c, err);
            if (status == SSLAT_OK)
                status = calculator->measure_graph(calculator, &layer->candidates[c].graph, options,
                                                   &value, err);
            if (status != SSLAT_OK) return status;
            if (layer->block < 0) *constant += value;
            else per_op[at++] = value;
        }
    }
    return SSLAT_OK;
}
