/* The run of a calculator over a space: the distinct subgraphs (work units,
 * deduplicated by canonical hash), this shard's share of them, the units a
 * journal already holds, progress, and the table they fill. */
#include "calc/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/key_index.h"
#include "base/memory.h"
#include "base/progress.h"
#include "calc/journal.h"
#include "table/container.h"

/* Units measured between journal syncs: a killed run loses at most this many. */
enum { JOURNAL_CHUNK = 16 };
/* Units a step of progress without a journal. */
enum { PROGRESS_CHUNK = 48 };

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

/* The run's work units: the distinct subgraphs by hash, so identical ones are
 * measured once, and which unit each (layer, candidate) is. */
typedef struct measured {
    sslat_unit *units;
    sslat_entry *entries;
    unsigned char *wanted; /* this shard measures it */
    char **failures;       /* --keep-going: why the unit failed (NULL: it did not) */
    size_t count;
    size_t *unit_of;       /* per candidate of the space, layer by layer: its unit */
    sslat_key_index index; /* hash → unit */
} measured;

uint64_t sslat_run_fingerprint(const sslat_calculator *calculator, const sslat_space *space,
                               const sslat_calc_options *o, const sslat_run_plan *plan)
{
    sslat_run_plan whole = {0};
    if (!plan) plan = &whole;
    sslat_hasher h;
    sslat_hash_begin(&h);
    sslat_hash_u64(&h, space->hash);
    sslat_hash_bytes(&h, calculator->name, strlen(calculator->name));
    const int32_t ints[] = {(int32_t)o->mode, o->threads, o->warmup_iterations, o->run_iterations,
                            o->cpu.replicas, plan->shard_index, plan->shard_count, (int32_t)o->ignore.ops,
                            (int32_t)o->ignore.acts, (int32_t)o->dtype,
                            (int32_t)sslat_layout_resolve(o->layout, o->dtype), (int32_t)o->cold};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) sslat_hash_i32(&h, ints[i]);
    if (o->fuse_bn) sslat_hash_i32(&h, 1); /* (journals of runs without it keep their fingerprint) */
    if (sslat_cudnn_api_resolve(o->cuda.api) == SSLAT_CUDNN_API_GRAPH) sslat_hash_i32(&h, 0x100 + 2); /* (the same) */
    sslat_hash_u64(&h, o->seed);
    sslat_hash_bytes(&h, &o->target_noise, sizeof o->target_noise);
    sslat_hash_bytes(&h, &o->max_seconds, sizeof o->max_seconds);
    if (calculator->machine) {
        char machine[256] = "";
        calculator->machine(o, machine, sizeof machine);
        sslat_hash_bytes(&h, machine, strlen(machine));
    }
    return h.state;
}

void sslat_shard_assign(const double *costs, size_t n, int32_t count, int32_t *shard_of)
{
    if (count < 1) count = 1;
    size_t *order = malloc((n + 1) * sizeof *order);
    double *load = calloc((size_t)count, sizeof *load);
    for (size_t k = 0; order && k < n; k++) order[k] = k;
    /* insertion sort by cost, descending, stable: n is at most 65536 and sorted once */
    for (size_t a = 1; order && a < n; a++) {
        size_t item = order[a], b = a;
        while (b > 0 && costs[order[b - 1]] < costs[item]) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = item;
    }
    for (size_t k = 0; k < n; k++) {
        size_t unit = order ? order[k] : k;
        int32_t best = 0;
        for (int32_t s = 1; load && s < count; s++)
            if (load[s] < load[best]) best = s;
        shard_of[unit] = best;
        if (load) load[best] += costs[unit];
    }
    free(order);
    free(load);
}

/* Names the unit's first (layer, candidate) in err's message. */
static void name_unit(const sslat_calculator *calculator, const sslat_unit *unit, sslat_error *err)
{
    sslat_error_prefix(err, "%s: layer '%s' candidate %d '%s': ", calculator->name, unit->layer_name, unit->candidate,
                       unit->label);
}

/* --keep-going: a unit's failure (err's message) said with progress and kept
 * in *slot, err cleared for the next unit. */
static sslat_status record_failure(const sslat_run_plan *plan, sslat_error *err, char **slot)
{
    if (plan->progress) fprintf(stderr, "sslat: FAILED %s (--keep-going: recorded, going on)\n", err->message);
    *slot = sslat_strdup(err->message);
    sslat_error_clear(err);
    return *slot ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
}

/* Entries of the given units: all at once through measure_many when the
 * backend has it (on failure, one by one to name the candidate at fault).
 * With keep_going a unit that fails gets an empty entry and its message in
 * failures[k] (said on stderr with progress), and the others go on; only an
 * interruption ends the chunk. */
static sslat_status measure_units(const sslat_calculator *calculator, void *session,
                                  const sslat_calc_options *options, const sslat_run_plan *plan,
                                  const sslat_unit *units, size_t n, sslat_entry *entries,
                                  char **failures, sslat_error *err)
{
    if (calculator->measure_many) {
        sslat_status status = calculator->measure_many(calculator, session, units, n, options, entries, err);
        if (status == SSLAT_OK || status == SSLAT_ERR_INTERRUPTED) return status;
    }
    for (size_t k = 0; k < n; k++) {
        if (plan->stop && *plan->stop) return sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted");
        sslat_status status = calculator->measure_graph(calculator, session, &units[k], options, &entries[k], err);
        if (status == SSLAT_OK) continue;
        name_unit(calculator, &units[k], err);
        /* a device out of memory is one unit's failure (a big candidate); an interruption ends the run */
        if (!plan->keep_going || status == SSLAT_ERR_INTERRUPTED) return status;
        memset(&entries[k], 0, sizeof entries[k]);
        status = record_failure(plan, err, &failures[k]);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

/* The distinct subgraphs of the space (the work units, in first-occurrence
 * order), which of them this shard measures, and their entries. */
static sslat_status measure_unique(const sslat_calculator *calculator, void *session,
                                   const sslat_space *space, const sslat_calc_options *options,
                                   const sslat_run_plan *plan, measured *m, sslat_error *err)
{
    size_t total = 0;
    for (int32_t i = 0; i < space->n_layers; i++) total += (size_t)space->layers[i].n_candidates;
    sslat_unit *subset = calloc(total + 1, sizeof *subset);
    sslat_entry *results = calloc(total + 1, sizeof *results);
    char **failures = calloc(total + 1, sizeof *failures);
    size_t *where = calloc(total + 1, sizeof *where);
    sslat_status status = subset && results && failures && where ? SSLAT_OK
                                                                 : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    size_t at = 0;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; status == SSLAT_OK && c < layer->n_candidates; c++) {
            const sslat_graph *graph = &layer->candidates[c].graph;
            uint64_t hash = sslat_graph_hash(graph);
            long known = sslat_key_index_get(&m->index, hash);
            if (known >= 0) {
                m->unit_of[at++] = (size_t)known;
                continue;
            }
            m->unit_of[at++] = m->count;
            m->units[m->count] = (sslat_unit){graph, hash, i, c, layer->name, layer->candidates[c].label,
                                              layer->block < 0};
            status = check_support(calculator, layer, c, err);
            if (status == SSLAT_ERR_UNSUPPORTED && plan->keep_going) /* recorded, never measured */
                status = record_failure(plan, err, &m->failures[m->count]);
            if (status == SSLAT_OK && !sslat_key_index_put(&m->index, hash, (long)m->count))
                status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
            m->wanted[m->count++] = 1;
        }
    }
    if (status == SSLAT_OK && plan->shard_count > 1) {
        /* work units balanced by their MACs (+1: free units still count) */
        double *costs = calloc(m->count + 1, sizeof *costs);
        int32_t *shard_of = calloc(m->count + 1, sizeof *shard_of);
        if (!costs || !shard_of) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        for (size_t k = 0; status == SSLAT_OK && k < m->count; k++)
            costs[k] = sslat_mac_graph(m->units[k].graph, SSLAT_MAC_PLAIN, NULL, false) + 1;
        if (status == SSLAT_OK) sslat_shard_assign(costs, m->count, plan->shard_count, shard_of);
        for (size_t k = 0; status == SSLAT_OK && k < m->count; k++) m->wanted[k] = shard_of[k] == plan->shard_index;
        free(costs);
        free(shard_of);
    }
    size_t n = 0;
    for (size_t k = 0; status == SSLAT_OK && k < m->count; k++) {
        if (!m->wanted[k] || m->failures[k]) continue;
        const sslat_entry *recorded = sslat_journal_find(plan->journal, m->units[k].hash);
        if (recorded) { /* finished by an earlier, interrupted run */
            m->entries[k] = *recorded;
            continue;
        }
        subset[n] = m->units[k];
        where[n++] = k;
    }
    /* units are measured a chunk at a time: with a journal, recorded after
     * each so a killed run loses at most one chunk; a stop request ends the
     * chunk in flight at once (its units are measured again on --resume), so a
     * preempted job leaves well within Slurm's grace time; progress is one
     * step a chunk */
    size_t chunk = plan->journal ? JOURNAL_CHUNK : PROGRESS_CHUNK;
    sslat_progress progress;
    char what[48];
    snprintf(what, sizeof what, "[%s]", calculator->name);
    sslat_progress_begin(&progress, plan->progress && calculator->kind == SSLAT_CALC_TIMED, what,
                         "distinct subgraphs", n);
    for (size_t first = 0; status == SSLAT_OK && first < n; first += chunk) {
        if (plan->stop && *plan->stop) {
            status = sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted with %zu of %zu units left to measure",
                                n - first, n);
            break;
        }
        size_t size = n - first < chunk ? n - first : chunk;
        status = measure_units(calculator, session, options, plan, subset + first, size, results + first,
                               failures + first, err);
        if (status == SSLAT_ERR_INTERRUPTED) {
            status = sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted with %zu of %zu units left to measure",
                                n - first, n);
            break;
        }
        sslat_quality_input watch; /* the machine as the chunk's records saw it */
        bool watched = plan->journal && calculator->watch && calculator->watch(session, &watch);
        for (size_t k = first; status == SSLAT_OK && k < first + size; k++) {
            m->entries[where[k]] = results[k];
            if (failures[k]) { /* not journaled: --resume measures it again */
                m->failures[where[k]] = failures[k];
                failures[k] = NULL;
                continue;
            }
            if (plan->journal) status = sslat_journal_append(plan->journal, m->units[where[k]].hash, &results[k],
                                                             watched ? &watch : NULL, err);
        }
        if (status == SSLAT_OK) status = sslat_journal_sync(plan->journal, err); /* a chunk at a time */
        if (status == SSLAT_OK) sslat_progress_step(&progress, first + size);
    }
    for (size_t k = 0; failures && k < total; k++) free(failures[k]);
    free(subset);
    free(results);
    free(failures);
    free(where);
    return status;
}

static sslat_status measure_all(const sslat_calculator *calculator, void *session,
                                const sslat_space *space, const sslat_calc_options *options,
                                const sslat_run_plan *plan, sslat_container *container, sslat_error *err)
{
    size_t total = 0;
    int32_t n_fixed = 0;
    for (int32_t i = 0; i < space->n_layers; i++) {
        total += (size_t)space->layers[i].n_candidates;
        n_fixed += space->layers[i].block < 0;
    }
    measured m = {calloc(total + 1, sizeof(sslat_unit)), calloc(total + 1, sizeof(sslat_entry)),
                  calloc(total + 1, 1), calloc(total + 1, sizeof(char *)), 0, calloc(total + 1, sizeof(size_t)),
                  {NULL, NULL, 0, 0}};
    sslat_status status = m.units && m.entries && m.wanted && m.failures && m.unit_of
                              ? SSLAT_OK
                              : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    bool sharded = plan->shard_count > 1;
    if (status == SSLAT_OK && sharded)
        status = sslat_container_make_partial(container, plan->shard_index, plan->shard_count, n_fixed, err);
    if (status == SSLAT_OK) status = measure_unique(calculator, session, space, options, plan, &m, err);
    size_t at = 0;
    sslat_entry constant = sslat_entry_of_value(0.0);
    bool first_fixed = true;
    int32_t fixed = 0;
    for (int32_t i = 0; status == SSLAT_OK && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t c = 0; status == SSLAT_OK && c < layer->n_candidates; c++) {
            size_t k = m.unit_of[at++];
            if (!m.wanted[k]) { /* another shard's */
                fixed += layer->block < 0;
                continue;
            }
            const sslat_entry *entry = &m.entries[k];
            if (m.failures[k])
                status = sslat_container_mark_failed(container, layer->block, c, layer->name,
                                                     layer->candidates[c].label, m.failures[k], err);
            if (status != SSLAT_OK) break;
            if (layer->block < 0) {
                if (!m.failures[k]) { /* a failed one is marked (the constant is incomplete), not summed */
                    sslat_entry_accumulate(&constant, entry, first_fixed);
                    first_fixed = false;
                }
                if (sharded) status = sslat_container_set_fixed_entry(container, fixed, entry, err);
                fixed++;
            } else {
                status = sslat_container_set_entry(container, layer->block, c, entry, err);
            }
        }
    }
    if (status == SSLAT_OK) status = sslat_container_set_constant_entry(container, &constant, err);
    size_t failed = 0;
    for (size_t k = 0; k < m.count; k++) {
        failed += m.failures[k] && m.wanted[k];
        free(m.failures[k]);
    }
    if (status == SSLAT_OK && failed) status = sslat_container_set_failed_units(container, failed, err);
    free(m.failures);
    free(m.units);
    free(m.unit_of);
    free(m.entries);
    free(m.wanted);
    sslat_key_index_release(&m.index);
    return status;
}

/* How many of the entries are noisy (sslat_entry_noisy): recorded in the
 * metadata, and said at the end of an interactive run with what to do. */
static sslat_status describe_noise(sslat_container *c, const sslat_run_plan *plan, sslat_error *err)
{
    char text[160];
    sslat_container_noise_summary(c, text, sizeof text);
    /* a calculator that gives a quality verdict said it in one line already */
    if (plan->progress && text[0] != '0' && !sslat_container_metadata(c, "quality.verdict"))
        fprintf(stderr, "sslat: noise: %s; more --runs or --adaptive 0.01 tighten them\n", text);
    return sslat_container_set_metadata(c, "quality.noisy_entries", text, err);
}

sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, const sslat_run_plan *plan,
                                   sslat_container *container, sslat_error *err)
{
    const sslat_run_plan whole = {0};
    if (!plan) plan = &whole;
    if (!calculator || !space || !options || !container)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "calculator, space, options and container are required");
    const char *why = sslat_calculator_unavailable(calculator);
    if (why)
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator '%s' cannot run: %s",
                          calculator->name, why);
    if (sslat_container_block_count(container) != space->n_blocks)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "the container does not have the space's blocks");
    if (plan->shard_count > 1 && (plan->shard_index < 0 || plan->shard_index >= plan->shard_count))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "shard %d/%d: the index must be in 0..%d",
                          plan->shard_index, plan->shard_count, plan->shard_count - 1);
    sslat_status checked = sslat_calc_options_check(options, err);
    if (checked != SSLAT_OK) return checked;
    if (!(calculator->dtypes & SSLAT_DTYPE_BIT(options->dtype)))
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator '%s' does not measure %s",
                          calculator->name, sslat_dtype_name(options->dtype));
    void *session = NULL;
    sslat_status status = calculator->begin ? calculator->begin(calculator, options, plan, &session, err) : SSLAT_OK;
    if (status != SSLAT_OK) return status;
    status = measure_all(calculator, session, space, options, plan, container, err);
    if (status == SSLAT_OK && calculator->describe)
        status = calculator->describe(calculator, session, space, options, container, err);
    if (status == SSLAT_OK && calculator->kind == SSLAT_CALC_TIMED) status = describe_noise(container, plan, err);
    /* counts do not depend on the dtype; record it so sweeps label their points */
    if (status == SSLAT_OK && calculator->kind == SSLAT_CALC_ANALYTIC)
        status = sslat_container_set_metadata(container, "dtype", sslat_dtype_name(options->dtype), err);
    if (calculator->end) calculator->end(session);
    return status;
}
