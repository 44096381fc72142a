/* The cpu calculator: each subgraph lowered to oneDNN and timed on this CPU
 * with CLOCK_MONOTONIC after warmup; the median per sample goes in the table. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/key_index.h"
#include "base/limits.h"
#include "calc/journal.h"
#include "host/architecture.h"
#include "host/choose.h"
#include "host/cpu_calculator.h"
#include "host/lower.h"
#include "host/measure.h"
#include "host/quality.h"
#include "table/container.h"

static const char *cpu_unavailable(void) { return host_dnnl_load(); }

/* oneDNN's ISA enum has more values than sslat names (and grows), so this is
 * a lookup table rather than a switch over it. */
static const char *isa_name(dnnl_cpu_isa_t isa)
{
    static const struct {
        dnnl_cpu_isa_t isa;
        const char *name;
    } NAMES[] = {
        {dnnl_cpu_isa_sse41, "sse41"},
        {dnnl_cpu_isa_avx, "avx"},
        {dnnl_cpu_isa_avx2, "avx2"},
        {dnnl_cpu_isa_avx512_mic, "avx512_mic"},
        {dnnl_cpu_isa_avx512_mic_4ops, "avx512_mic_4ops"},
        {dnnl_cpu_isa_avx512_core, "avx512_core"},
        {dnnl_cpu_isa_avx512_core_vnni, "avx512_core_vnni"},
        {dnnl_cpu_isa_avx512_core_bf16, "avx512_core_bf16"},
        {dnnl_cpu_isa_avx512_core_amx, "avx512_core_amx"},
        {dnnl_cpu_isa_avx2_vnni, "avx2_vnni"},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].isa == isa) return NAMES[i].name;
    return "other";
}

typedef struct cpu_session {
    host_session host;
    host_choices choices; /* the lowering of each distinct subgraph */
    host_interference interference; /* also the calibration at the start and the end (drift) */
    volatile int *stop;   /* the run's stop request (may be NULL) */
    bool progress;        /* the run speaks on stderr */
    bool resumed;         /* records resumed from a journal carry an earlier run's watch */
    sslat_quality_input resumed_watch;
    size_t resumed_at_worst;
} cpu_session;

static sslat_status cpu_begin(const sslat_calculator *self, const sslat_calc_options *options,
                              const sslat_run_plan *plan, void **session, sslat_error *err)
{
    (void)self;
    const char *why = host_dnnl_load();
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator 'cpu' cannot run: %s", why);
    cpu_session *s = calloc(1, sizeof *s);
    if (!s) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    int threads = host_dnnl_set_threads(options->threads);
    sslat_status status = host_session_open(&s->host, threads, err);
    if (status != SSLAT_OK) {
        free(s);
        return status;
    }
    host_interference_begin(&s->interference, threads);
    s->stop = plan->stop;
    s->progress = plan->progress;
    s->resumed = sslat_journal_resumed_watch(plan->journal, &s->resumed_watch, &s->resumed_at_worst);
    if (s->progress)
        fprintf(stderr, "[cpu] %d worker thread%s (%s), oneDNN on %s\n", threads, threads == 1 ? "" : "s",
                options->threads > 0 ? "--threads" : "the default: every core, or OMP_NUM_THREADS",
                isa_name(DNNL(dnnl_get_effective_cpu_isa)()));
    *session = s;
    return SSLAT_OK;
}

static void cpu_end(void *session)
{
    if (!session) return;
    host_session_close(&((cpu_session *)session)->host);
    host_choices_release(&((cpu_session *)session)->choices);
    free(session);
}

/* Bytes one copy of the subgraph touches: its weights and every tensor. */
static double footprint_bytes(const sslat_graph *graph)
{
    double bytes = 4.0 * (double)sslat_shape_elements(graph->input);
    for (int32_t i = 0; i < graph->count; i++)
        bytes += 4.0 * ((double)sslat_shape_elements(graph->nodes[i].shape) +
                        (double)sslat_node_param_count(graph, &graph->nodes[i]));
    return bytes;
}

/* In a network, a layer's weights were last touched a whole network ago: not
 * in L2. One subgraph timed alone keeps them there and runs faster than it
 * will in place. So a program holds R independent copies (own input, own
 * weights) whose footprint exceeds twice the L2 of the cores in use, and the
 * time per copy is the run time / R. */
int host_replicas_for(const sslat_graph *graph, int threads)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 <= 0) l2 = 1 << 20;
    double target = 2.0 * (double)l2 * (threads > 0 ? threads : 1);
    double one = footprint_bytes(graph);
    int replicas = one > 0 ? (int)ceil(target / one) : 1;
    return replicas < 1 ? 1 : replicas > SSLAT_MAX_CPU_REPLICAS ? SSLAT_MAX_CPU_REPLICAS : replicas;
}

/* The timing program of one subgraph: R chained copies, in the lowering that
 * avoids oneDNN's reference kernels (host/choose.h). */
static sslat_status build_program(cpu_session *s, const sslat_unit *unit, const sslat_calc_options *options,
                                  host_program *program, int32_t *units, sslat_error *err)
{
    const sslat_graph *graph = unit->graph;
    /* cold: copies past the L2, so a copy's weights were evicted since its last run */
    int replicas = options->cpu.replicas > 0 ? options->cpu.replicas
                   : options->cold       ? host_replicas_for(graph, s->host.threads)
                                         : 1;
    const host_choice *choice = NULL;
    /* per sample and per copy: the run time divided by batch × replicas */
    *units = graph->input.n * replicas;
    return host_build_avoiding_reference(&s->host, &s->choices, graph, unit->hash, options->mode, options->seed,
                                         replicas, program, &choice, err);
}

static sslat_status cpu_measure(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                const sslat_calc_options *options, sslat_entry *entry, sslat_error *err)
{
    (void)self;
    cpu_session *s = session;
    host_program program;
    int32_t units = 1;
    sslat_status status = build_program(s, unit, options, &program, &units, err);
    if (status != SSLAT_OK) return status;
    status = host_measure_program(&program, units, options, s->stop, &s->interference, entry, err);
    host_program_release(&program);
    return status;
}

/* One copy of the unit in the lowering the table would time it in, run once. */
static sslat_status cpu_compute(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                const sslat_calc_options *options, float *out, sslat_error *err)
{
    (void)self;
    cpu_session *s = session;
    host_program program;
    const host_choice *choice = NULL;
    sslat_status status = host_build_avoiding_reference(&s->host, &s->choices, unit->graph, unit->hash, options->mode,
                                                        options->seed, 1, &program, &choice, err);
    if (status != SSLAT_OK) return status;
    status = host_program_run(&program, err);
    if (status == SSLAT_OK) status = host_program_read_output(&program, out, err);
    host_program_release(&program);
    return status;
}

/* Distinct subgraphs in groups: a group's programs are alive together (memory
 * bounds the group) and their samples interleave in time. */
enum { GROUP = 48 };

static sslat_status cpu_measure_many(const sslat_calculator *self, void *session, const sslat_unit *units_of_run,
                                     size_t n, const sslat_calc_options *options, sslat_entry *entries,
                                     sslat_error *err)
{
    (void)self;
    cpu_session *s = session;
    host_program *programs = calloc(GROUP, sizeof *programs);
    host_program *pointers[GROUP];
    int32_t units[GROUP];
    if (!programs) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = SSLAT_OK;
    for (size_t start = 0; status == SSLAT_OK && start < n; start += GROUP) {
        size_t size = n - start < GROUP ? n - start : GROUP, built = 0;
        while (status == SSLAT_OK && built < size) {
            status = build_program(s, &units_of_run[start + built], options, &programs[built], &units[built], err);
            pointers[built] = &programs[built];
            if (status == SSLAT_OK) built++; /* a failed one released itself */
        }
        if (status == SSLAT_OK)
            status = host_measure_programs(pointers, units, size, options, s->stop, &s->interference, entries + start,
                                           err);
        for (size_t k = 0; k < built; k++) host_program_release(&programs[k]);
    }
    free(programs);
    return status;
}

static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (colon) {
            snprintf(out, size, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
        }
        break;
    }
    fclose(f);
}

/* Appends to a bounded text; the end says when something was left out. */
typedef struct text {
    char buffer[4096];
    size_t used;
    int items;
} text;

static void text_add(text *t, const char *item)
{
    t->items++;
    if (t->used + strlen(item) + 8 >= sizeof t->buffer) {
        if (t->used + 5 < sizeof t->buffer && !strstr(t->buffer, ", ...")) t->used += (size_t)sprintf(t->buffer + t->used, ", ...");
        return;
    }
    t->used += (size_t)snprintf(t->buffer + t->used, sizeof t->buffer - t->used, "%s%s", t->items > 1 ? ", " : "", item);
}

/* Per-unit implementation keys stop here, so a huge space leaves room for the
 * rest of the metadata. */
enum { MAX_IMPL_KEYS = 512 };

/* Which kernels the table timed: each distinct subgraph's primitives (named
 * by its first layer / candidate), the ones that needed another lowering to
 * avoid a reference kernel, and the ones still on one (flagged, and warned
 * about: their entries are not what a deployed runtime would take). */
static sslat_status describe_implementations(const cpu_session *s, const sslat_space *space, sslat_container *c,
                                             sslat_error *err)
{
    sslat_key_index seen = {0};
    text *reference = calloc(1, sizeof *reference), *fallback = calloc(1, sizeof *fallback);
    sslat_status status = reference && fallback ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    int units = 0;
    char key[256], item[512], lowering[128];
    for (int32_t i = 0; status == SSLAT_OK && space && i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        for (int32_t k = 0; status == SSLAT_OK && k < layer->n_candidates; k++) {
            const host_choice *choice = host_choices_find(&s->choices, sslat_graph_hash(&layer->candidates[k].graph));
            if (!choice || sslat_key_index_get(&seen, choice->hash) >= 0) continue; /* another shard's, or known */
            if (!sslat_key_index_put(&seen, choice->hash, units)) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
            /* the layer's index keeps keys apart: fixed layers are named by their token */
            snprintf(key, sizeof key, "cpu.impl.L%d/%s/%s", (int)i, layer->name, layer->candidates[k].label);
            if (status == SSLAT_OK && units < MAX_IMPL_KEYS)
                status = sslat_container_set_metadata(c, key, choice->implementations, err);
            units++;
            host_lowering_describe(choice->lowering, lowering, sizeof lowering);
            if (choice->reference) {
                snprintf(item, sizeof item, "%s/%s (%s)", layer->name, layer->candidates[k].label, choice->avoided);
                text_add(reference, item);
            } else if (choice->avoided[0]) {
                snprintf(item, sizeof item, "%s/%s: %s (default had %s)", layer->name, layer->candidates[k].label,
                         lowering, choice->avoided);
                text_add(fallback, item);
            }
        }
    }
    if (status == SSLAT_OK) {
        snprintf(item, sizeof item, "%d distinct subgraphs (%d listed as cpu.impl.L<index>/<layer>/<candidate>), %d in a fallback "
                 "lowering, %d on a reference kernel", units, units < MAX_IMPL_KEYS ? units : MAX_IMPL_KEYS,
                 fallback->items, reference->items);
        status = sslat_container_set_metadata(c, "cpu.impl.units", item, err);
    }
    if (status == SSLAT_OK)
        status = sslat_container_set_metadata(c, "cpu.fallback", fallback->items ? fallback->buffer : "none", err);
    if (status == SSLAT_OK)
        status = sslat_container_set_metadata(c, "cpu.reference", reference->items ? reference->buffer : "none", err);
    if (status == SSLAT_OK && reference->items)
        fprintf(stderr, "sslat: warning: %d subgraph%s ran on oneDNN reference kernels in every lowering tried; "
                        "their entries are far slower than a deployed runtime (metadata cpu.reference): %s\n",
                reference->items, reference->items == 1 ? "" : "s", reference->buffer);
    if (status == SSLAT_OK && fallback->items)
        fprintf(stderr, "sslat: note: %d subgraph%s avoided a oneDNN reference kernel with another lowering "
                        "(metadata cpu.fallback)\n", fallback->items, fallback->items == 1 ? "" : "s");
    free(reference);
    free(fallback);
    sslat_key_index_release(&seen);
    return status;
}

/* What a journal's records were measured on and how: a journal of another
 * machine, or of the interleaved schedule that was the only one before
 * `--cache` (when cold = 0 meant it), is not resumed into this run. */
static void cpu_machine(const sslat_calc_options *options, char *out, size_t size)
{
    char model[200];
    cpu_model(model, sizeof model);
    snprintf(out, size, "%s, %ld cores, schedule %s", model, sysconf(_SC_NPROCESSORS_ONLN),
             options->cold ? "cold-interleaved" : "hot-passes");
}

static sslat_status cpu_describe(const sslat_calculator *self, void *session, const sslat_space *space,
                                 const sslat_calc_options *o, sslat_container *c, sslat_error *err)
{
    (void)self;
    cpu_session *cs = session;
    const host_session *s = &cs->host;
    const dnnl_version_t *v = DNNL(dnnl_version)();
    host_interference_end(&cs->interference);
    const host_calibration *start = &cs->interference.start, *end = &cs->interference.end;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    struct { const char *key; char value[128]; } pairs[20];
    int n = 0;
#define PAIR(KEY, ...) do { pairs[n].key = KEY; snprintf(pairs[n].value, sizeof pairs[n].value, __VA_ARGS__); n++; } while (0)
    PAIR("host.cpu", "%s", cpu);
    PAIR("host.cores", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    PAIR("host.threads", "%d", s->threads);
    PAIR("host.isa", "%s", isa_name(DNNL(dnnl_get_effective_cpu_isa)()));
    PAIR("software.onednn", "%d.%d.%d (%s)", v->major, v->minor, v->patch, v->hash);
    PAIR("dtype", "fp32");
    PAIR("layout", "oneDNN's choice (format_tag_any)");
    PAIR("calculator.mode", "%s", o->mode == SSLAT_MODE_FUSED ? "fused" : "eager");
    PAIR("calculator.warmup_iterations", "%d", o->warmup_iterations);
    PAIR("calculator.run_iterations", "%d", o->run_iterations);
    PAIR("calculator.adaptive", o->target_noise > 0 ? "noise %g, cap %g s" : "off", o->target_noise, o->max_seconds);
    PAIR("host.calibration_ms", "%.3f at start, %.3f at end (ratio %.3f)", start->alone_ms, end->alone_ms,
         host_interference_drift(&cs->interference));
    if (o->cold) {
        PAIR("calculator.cache", "cold: weights and input evicted since a unit's last run (copies past 2x L2)");
        PAIR("calculator.schedule", "interleaved: rounds of one sample per subgraph, groups of %d", GROUP);
    } else {
        PAIR("calculator.cache", "hot: each unit back to back after its warmup (one copy, data stay in cache)");
        PAIR("calculator.schedule", "back to back: each subgraph's samples in a row, in passes over groups of %d "
                                    "(warmed up again each pass)", GROUP);
    }
    PAIR("calculator.seed", "%llu", (unsigned long long)o->seed);
    PAIR("cpu.reference_runs", "%ld", s->reference_runs);
#undef PAIR
    for (int i = 0; i < n; i++) {
        sslat_status status = sslat_container_set_metadata(c, pairs[i].key, pairs[i].value, err);
        if (status != SSLAT_OK) return status;
    }
    sslat_status status = host_describe_quality(&cs->interference, cs->resumed ? &cs->resumed_watch : NULL,
                                                cs->resumed_at_worst, cs->progress, c, err);
    return status == SSLAT_OK ? describe_implementations(cs, space, c, err) : status;
}

static bool cpu_watch(void *session, sslat_quality_input *so_far)
{
    host_quality_watch(&((cpu_session *)session)->interference, false, so_far);
    return true;
}

static sslat_status cpu_measure_architectures(const sslat_calculator *self, void *session, const sslat_space *space,
                                              const int32_t *const *archs, size_t n, const sslat_calc_options *options,
                                              double *ms, sslat_error *err)
{
    (void)self;
    cpu_session *s = session;
    return host_measure_architectures(&s->host, &s->choices, space, archs, n, options, s->stop, &s->interference, ms,
                                      err);
}

const sslat_calculator sslat_cpu_calculator = {
    SSLAT_CPU_CALCULATOR_IDENTITY,
    .unavailable_reason = cpu_unavailable,
    .begin = cpu_begin,
    .measure_graph = cpu_measure,
    .measure_many = cpu_measure_many,
    .compute = cpu_compute,
    .measure_architectures = cpu_measure_architectures,
    .machine = cpu_machine,
    .watch = cpu_watch,
    .describe = cpu_describe,
    .end = cpu_end,
};
