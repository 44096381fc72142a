#include "calculator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "container.h"
#include "error.h"

void sslat_calc_options_default(sslat_calc_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = SSLAT_MODE_FUSED;
    o->warmup_iterations = 10;
    o->run_iterations = 10;
    o->max_seconds = 2.0;
    o->seed = 0x5eed;
}

static sslat_status measure_mac(const sslat_calculator *self, void *session,
                                const sslat_graph *graph, const sslat_calc_options *options,
                                sslat_entry *entry, sslat_error *err)
{
    (void)session;
    (void)err;
    *entry = sslat_entry_of_value(sslat_mac_graph(graph, (sslat_mac_rule)self->rule, &options->ignore) / 1e6);
    return SSLAT_OK;
}

static const char *not_built_cuda(void)
{
    return "the cuda calculator (cuDNN / cuBLAS) is not implemented in this build yet";
}

#define MAC_CALCULATOR(NAME, SUMMARY, RULE) \
    {NAME, "analytic", "MMAC", SUMMARY, NULL, NULL, NULL, measure_mac, NULL, NULL, NULL, RULE}

static const sslat_calculator CUDA = {
    "cuda", "timed", "ms", "cuDNN / cuBLAS / own kernels timed with CUDA graphs and events",
    not_built_cuda, NULL, NULL, NULL, NULL, NULL, NULL, -1};

static const sslat_calculator *const CALCULATORS[] = {
    &(const sslat_calculator)MAC_CALCULATOR("mac", "conv2d + linear multiply-accumulates (torchvision's GFLOPS column)", SSLAT_MAC_PLAIN),
    &(const sslat_calculator)MAC_CALCULATOR("mac_thop", "what thop 0.1.1 (pytorch-OpCounter) counts", SSLAT_MAC_THOP),
    &(const sslat_calculator)MAC_CALCULATOR("mac_fvcore", "what fvcore's FlopCountAnalysis counts (eval mode)", SSLAT_MAC_FVCORE),
    &(const sslat_calculator)MAC_CALCULATOR("mac_pthflops", "what pthflops 0.4.2 counts in FX mode", SSLAT_MAC_PTHFLOPS),
    &sslat_cpu_calculator,
    &CUDA,
};

int sslat_calculator_count(void) { return (int)(sizeof CALCULATORS / sizeof CALCULATORS[0]); }

const sslat_calculator *sslat_calculator_at(int index)
{
    SSLAT_ASSERT(index >= 0 && index < sslat_calculator_count());
    return CALCULATORS[index];
}

const sslat_calculator *sslat_calculator_find(const char *name)
{
    for (int i = 0; name && i < sslat_calculator_count(); i++)
        if (strcmp(CALCULATORS[i]->name, name) == 0) return CALCULATORS[i];
    return NULL;
}

int32_t sslat_available_calculators(const char *const **names)
{
    static const char *available[sizeof CALCULATORS / sizeof CALCULATORS[0]];
    int32_t count = 0;
    for (int i = 0; i < sslat_calculator_count(); i++)
        if (!CALCULATORS[i]->unavailable_reason || !CALCULATORS[i]->unavailable_reason())
            available[count++] = CALCULATORS[i]->name;
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
            return sslat_fail(err, SSLAT_ERR_UNSUPPORTED,
                              "%s: layer '%s' candidate '%s': op %s '%s' is not supported",
                              calculator->name, layer->name, layer->candidates[candidate].label,
                              sslat_op_name(graph->nodes[i].op), graph->nodes[i].name);
    return SSLAT_OK;
}

/* Measured subgraphs by hash, so identical ones are measured once. */
typedef struct measured {
    uint64_t *hashes;
    sslat_entry *entries;
    size_t count;
} measured;

static const sslat_entry *find_measured(const measured *m, uint64_t hash)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->hashes[i] == hash) return &m->entries[i];
    return NULL;
}

/* Fixed layers run one after another: their figures add up (variances too). */
static void accumulate(sslat_entry *total, const sslat_entry *e, bool first)
{
    if (first) {
        *total = *e;
        return;
    }
    total->value += e->value;
    total->median += e->median;
    total->mean += e->mean;
    total->stddev = sqrt(total->stddev * total->stddev + e->stddev * e->stddev);
    total->min += e->min;
    total->max += e->max;
    if (e->samples < total->samples) total->samples = e->samples;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void show_progress(const sslat_calculator *c, size_t done, size_t total, double started)
{
    double elapsed = seconds_now() - started;
    double eta = done > 0 ? elapsed / (double)done * (double)(total - done) : 0;
    fprintf(stderr, "\r[%s] %zu/%zu distinct subgraphs  ETA %4.0f s ", c->name, done, total, eta);
    if (done == total) fprintf(stderr, "\n");
}

/* Measure every distinct subgraph of the space: one by one, or all at once
 * through measure_many when the backend has it. */
static sslat_status measure_unique(const sslat_calculator *calculator, void *session,
                                   const sslat_space *space, const sslat_calc_options *options,
                                   measured *m, sslat_error *err)
{
    size_t total = 0;
    for (int32_t i = 0; i < space->n_layers; i++) total += (size_t)space->layers[i].n_candidates;
    const sslat_graph **graphs = calloc(total + 1, sizeof *graphs);
    if (!graphs) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = SSLAT_OK;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; status == SSLAT_OK && c < layer->n_candidates; c++) {
            uint64_t hash = sslat_graph_hash(&layer->candidates[c].graph);
            if (find_measured(m, hash)) continue;
            status = check_support(calculator, layer, c, err);
            graphs[m->count] = &layer->candidates[c].graph;
            m->hashes[m->count++] = hash;
        }
    }
    bool progress = options->progress && isatty(2) && strcmp(calculator->kind, "timed") == 0;
    double started = seconds_now();
    bool one_by_one = !calculator->measure_many;
    if (status == SSLAT_OK && calculator->measure_many) {
        status = calculator->measure_many(calculator, session, graphs, m->count, options, m->entries, err);
        /* on failure, go one by one to find and name the candidate at fault */
        if (status != SSLAT_OK) one_by_one = true, status = SSLAT_OK;
    }
    if (one_by_one) {
        for (size_t k = 0; status == SSLAT_OK && k < m->count; k++) {
            status = calculator->measure_graph(calculator, session, graphs[k], options, &m->entries[k], err);
            if (status != SSLAT_OK) {
                /* name the first layer and candidate that hold this subgraph */
                for (int32_t i = 0; i < space->n_layers; i++)
                    for (int32_t c = 0; c < space->layers[i].n_candidates; c++)
                        if (&space->layers[i].candidates[c].graph == graphs[k]) {
                            sslat_error_prefix(err, "%s: layer '%s' candidate %d '%s': ", calculator->name,
                                               space->layers[i].name, c, space->layers[i].candidates[c].label);
                            i = space->n_layers;
                            break;
                        }
            }
            if (progress) show_progress(calculator, k + 1, m->count, started);
        }
    }
    free(graphs);
    return status;
}

static sslat_status measure_all(const sslat_calculator *calculator, void *session,
                                const sslat_space *space, const sslat_calc_options *options,
                                sslat_container *container, sslat_error *err)
{
    size_t total = 0;
    for (int32_t i = 0; i < space->n_layers; i++) total += (size_t)space->layers[i].n_candidates;
    measured m = {calloc(total + 1, sizeof(uint64_t)), calloc(total + 1, sizeof(sslat_entry)), 0};
    sslat_status status = m.hashes && m.entries ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    if (status == SSLAT_OK) status = measure_unique(calculator, session, space, options, &m, err);
    sslat_entry constant = sslat_entry_of_value(0.0);
    bool first_fixed = true;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; status == SSLAT_OK && c < layer->n_candidates; c++) {
            const sslat_entry *entry = find_measured(&m, sslat_graph_hash(&layer->candidates[c].graph));
            SSLAT_ASSERT(entry != NULL);
            if (layer->block < 0) {
                accumulate(&constant, entry, first_fixed);
                first_fixed = false;
            } else {
                status = sslat_container_set_entry(container, layer->block, c, entry, err);
            }
        }
    }
    if (status == SSLAT_OK) status = sslat_container_set_constant_entry(container, &constant, err);
    free(m.hashes);
    free(m.entries);
    return status;
}

sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, sslat_container *container,
                                   sslat_error *err)
{
    if (!calculator || !space || !options || !container)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "calculator, space, options and container are required");
    const char *why = calculator->unavailable_reason ? calculator->unavailable_reason() : NULL;
    if (why)
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator '%s' cannot run: %s",
                          calculator->name, why);
    if (sslat_container_block_count(container) != space->n_blocks)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "the container does not have the space's blocks");
    void *session = NULL;
    sslat_status status = calculator->begin ? calculator->begin(calculator, options, &session, err) : SSLAT_OK;
    if (status != SSLAT_OK) return status;
    status = measure_all(calculator, session, space, options, container, err);
    if (status == SSLAT_OK && calculator->describe)
        status = calculator->describe(calculator, session, options, container, err);
    if (calculator->end) calculator->end(session);
    return status;
}
