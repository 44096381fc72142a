/* The cpu calculator: each subgraph lowered to oneDNN and timed on this CPU
 * with CLOCK_MONOTONIC after warmup; the median per sample goes in the table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "container.h"
#include "error.h"
#include "measure.h"
#include "program.h"

static const char *cpu_unavailable(void) { return host_dnnl_load(); }

static sslat_status cpu_begin(const sslat_calculator *self, const sslat_calc_options *options,
                              void **session, sslat_error *err)
{
    (void)self;
    const char *why = host_dnnl_load();
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "calculator 'cpu' cannot run: %s", why);
    host_session *s = calloc(1, sizeof *s);
    if (!s) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    int threads = host_dnnl_set_threads(options->threads);
    sslat_status status = host_session_open(s, threads, err);
    if (status != SSLAT_OK) {
        free(s);
        return status;
    }
    *session = s;
    return SSLAT_OK;
}

static void cpu_end(void *session)
{
    if (!session) return;
    host_session_close(session);
    free(session);
}

static sslat_status cpu_measure(const sslat_calculator *self, void *session, const sslat_graph *graph,
                                const sslat_calc_options *options, sslat_entry *entry, sslat_error *err)
{
    (void)self;
    host_program program;
    sslat_status status = host_program_init(&program, session, graph->input, options->mode,
                                            options->seed, err);
    if (status != SSLAT_OK) return status;
    status = host_program_append(&program, graph, err);
    if (status == SSLAT_OK) status = host_measure_program(&program, graph->input.n, options, entry, err);
    host_program_release(&program);
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

static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    default: return "other";
    }
}

static sslat_status cpu_describe(const sslat_calculator *self, void *session,
                                 const sslat_calc_options *o, sslat_container *c, sslat_error *err)
{
    (void)self;
    const host_session *s = session;
    const dnnl_version_t *v = DNNL(dnnl_version)();
    char cpu[256], text[128];
    cpu_model(cpu, sizeof cpu);
    struct { const char *key; char value[128]; } pairs[12];
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
    PAIR("calculator.seed", "%llu", (unsigned long long)o->seed);
#undef PAIR
    (void)text;
    for (int i = 0; i < n; i++) {
        sslat_status status = sslat_container_set_metadata(c, pairs[i].key, pairs[i].value, err);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

const sslat_calculator sslat_cpu_calculator = {
    "cpu", "timed", "ms", "oneDNN primitives timed on this CPU (fused conv+BN+act by default)",
    cpu_unavailable, NULL, cpu_begin, cpu_measure, cpu_describe, cpu_end, -1};
