/* The `cuda` latency type: cuDNN / cuBLAS / own kernels, timed with CUDA graphs
 * and events on one GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_calculator.h"
#include "ir/space.h"
#include "table/container.h"

/* Why the cuda calculator cannot run here, and what to do: the driver and a
 * visible GPU first (on a login node that is what is missing, whatever else
 * is), then cuDNN and cuBLAS. */
static const char *cuda_unavailable(void)
{
    static char why[640];
    int driver = 0, runtime = 0, count = 0;
    cudaDriverGetVersion(&driver);   /* 0: no driver library at all */
    cudaRuntimeGetVersion(&runtime); /* the CUDA this build was linked with */
    if (driver == 0)
        return "no CUDA device: no NVIDIA driver here (libcuda.so.1 not found): run on a GPU node (Slurm: "
               "--gpus=1), or give the container the GPU (apptainer --nv, docker --gpus all)";
    if (driver / 1000 < runtime / 1000) { /* minor versions are compatible, major ones are not */
        snprintf(why, sizeof why, "no CUDA device: the NVIDIA driver here supports CUDA %d.%d, this sslat was built "
                 "with CUDA %d.%d: run where the driver is newer, or rebuild with a CUDA %d toolkit (docs/cluster.md)",
                 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, driver / 1000);
        return why;
    }
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver || (code == cudaSuccess && count == 0)) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(why, sizeof why, "no CUDA device visible (%s; CUDA_VISIBLE_DEVICES %s%.40s%s): ask Slurm for one "
                 "(--gpus=1 or --gres=gpu:1), or give the container the GPU (apptainer --nv, docker --gpus all)",
                 code == cudaSuccess ? "no device" : cudaGetErrorName(code), visible ? "'" : "unset",
                 visible ? visible : "", visible ? "'" : "");
        return why;
    }
    if (code != cudaSuccess) {
        snprintf(why, sizeof why, "the CUDA runtime cannot start: %s (%s)%s", cudaGetErrorString(code),
                 cudaGetErrorName(code), code == cudaErrorDevicesUnavailable
                     ? ": the GPU is in exclusive-process mode and another process holds it" : "");
        return why;
    }
    return cuda_api_load(); /* cuDNN and cuBLAS, after the device */
}

static sslat_status cuda_begin(const sslat_calculator *self, const sslat_calc_options *o, const sslat_run_plan *plan,
                               void **session, sslat_error *err)
{
    (void)self;
    (void)plan; /* a unit is one graph replay: nothing to stop between, nothing said on stderr */
    const char *tf32 = sslat_cuda_tf32_refusal(o->dtype); /* the whole run, before any unit */
    if (tf32) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "%s", tf32);
    cuda_session *s = calloc(1, sizeof *s);
    if (!s) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = cuda_session_open(s, o, err);
    if (status != SSLAT_OK) {
        cuda_session_close(s);
        free(s);
        return status;
    }
    *session = s;
    return SSLAT_OK;
}

/* Where a unit comes from, as its NVTX range names it: "blk07:ir_k5_e6" with
 * the candidate index as payload. Not '/': ncu's --nvtx-include reads '/' as
 * the step between nested push/pop ranges. */
static void unit_label(const sslat_unit *unit, char *label, size_t capacity)
{
    snprintf(label, capacity, "%s:%s", unit->layer_name, unit->label);
}

static sslat_status remember(cuda_session *s, const char *label, const cuda_program *p, sslat_error *err)
{
    if (s->n_notes == s->notes_capacity) {
        int next = s->notes_capacity ? 2 * s->notes_capacity : 64;
        cuda_unit_note *grown = realloc(s->notes, (size_t)next * sizeof *grown);
        if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        s->notes = grown;
        s->notes_capacity = next;
    }
    cuda_unit_note *note = &s->notes[s->n_notes++];
    snprintf(note->key, sizeof note->key, "cuda.plan.%s", label);
    cuda_program_describe(p, note->value, sizeof note->value);
    return SSLAT_OK;
}

static sslat_status cuda_measure(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                 const sslat_calc_options *o, sslat_entry *entry, sslat_error *err)
{
    (void)self;
    cuda_session *s = session;
    const sslat_graph *graph = unit->graph;
    char label[128];
    unit_label(unit, label, sizeof label);
    uint32_t category = unit->fixed ? CUDA_NVTX_CONSTANT : CUDA_NVTX_BLOCK;
    int64_t payload = unit->candidate;
    if (graph->count == 0) { /* skip: nothing runs */
        *entry = sslat_entry_of_value(0.0);
        return SSLAT_OK;
    }
    cuda_phase_enter(s, CUDA_PHASE_PREPARE);
    cuda_program program;
    sslat_status status = cuda_program_init(&program, s, graph, o, err);
    if (status == SSLAT_OK)
        status = cuda_measure_program(&program, graph->input.n, o, label, category, payload, entry, err);
    if (status == SSLAT_OK) status = remember(s, label, &program, err);
    if (status == SSLAT_ERR_NOMEM)
        sslat_error_prefix(err, "%s (%zu MB of device memory free at the start): ", label, s->free_at_start >> 20);
    cuda_program_release(&program);
    cuda_phase_enter(s, CUDA_PHASE_OUTSIDE);
    return status;
}

/* The unit as one program of one copy: its algorithms chosen, enqueued once,
 * its output read back (cuda_program_read_output waits for the stream). */
static sslat_status cuda_compute(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                 const sslat_calc_options *o, float *out, sslat_error *err)
{
    (void)self;
    cuda_phase_enter(session, CUDA_PHASE_PREPARE);
    cuda_program program;
    sslat_status status = cuda_program_init(&program, session, unit->graph, o, err);
    if (status == SSLAT_OK) {
        status = cuda_program_choose_algorithms(&program, err);
        if (status == SSLAT_OK) status = cuda_program_enqueue(&program, 0, err);
        if (status == SSLAT_OK) status = cuda_program_read_output(&program, out, err);
        cuda_program_release(&program);
    }
    cuda_phase_enter(session, CUDA_PHASE_OUTSIDE);
    return status;
}

static sslat_status cuda_describe(const sslat_calculator *self, void *session, const sslat_space *space,
                                  const sslat_calc_options *o, sslat_container *c, sslat_error *err)
{
    (void)self;
    (void)space; /* each unit's plan was noted as it was measured */
    return cuda_session_describe(session, o, c, err);
}

static void cuda_end(void *session)
{
    cuda_session_close(session);
    free(session);
}

/* One whole architecture as one program (sslat validate -c cuda): the
 * candidates chained into one graph, captured and timed like a unit. */
static sslat_status cuda_measure_architecture(const sslat_calculator *self, void *session, const sslat_space *space,
                                              const int32_t *arch, const sslat_calc_options *o, double *ms,
                                              sslat_error *err)
{
    (void)self;
    cuda_phase_enter(session, CUDA_PHASE_PREPARE);
    sslat_graph whole;
    sslat_status status = sslat_space_architecture_graph(space, arch, space->n_blocks, &whole, err);
    cuda_program program;
    if (status == SSLAT_OK) status = cuda_program_init(&program, session, &whole, o, err);
    sslat_entry entry;
    if (status == SSLAT_OK) {
        status = cuda_measure_program(&program, space->input.n, o, "architecture", CUDA_NVTX_PHASE, 0, &entry, err);
        cuda_program_release(&program);
    }
    if (status == SSLAT_OK) *ms = entry.value;
    sslat_graph_release(&whole);
    cuda_phase_enter(session, CUDA_PHASE_OUTSIDE);
    return status;
}

/* One after another: each is its own CUDA graph, timed with events. */
static sslat_status cuda_measure_architectures(const sslat_calculator *self, void *session, const sslat_space *space,
                                               const int32_t *const *archs, size_t n, const sslat_calc_options *o,
                                               double *ms, sslat_error *err)
{
    sslat_status status = SSLAT_OK;
    for (size_t k = 0; status == SSLAT_OK && k < n; k++)
        status = cuda_measure_architecture(self, session, space, archs[k], o, &ms[k], err);
    return status;
}

static void cuda_machine(const sslat_calc_options *o, char *out, size_t size)
{
    sslat_device_choice choice;
    struct cudaDeviceProp props;
    snprintf(out, size, "unknown GPU");
    if (sslat_choose_device(o->cuda.device, cuda_device_count(), &choice, NULL) == SSLAT_OK &&
        cudaGetDeviceProperties(&props, choice.device) == cudaSuccess)
        snprintf(out, size, "%s, sm_%d%d", props.name, props.major, props.minor);
}

const sslat_calculator sslat_cuda_calculator = {
    SSLAT_CUDA_CALCULATOR_IDENTITY,
    .unavailable_reason = cuda_unavailable,
    .supports_op = cuda_plan_supports,
    .begin = cuda_begin,
    .measure_graph = cuda_measure,
    .compute = cuda_compute,
    .measure_architectures = cuda_measure_architectures,
    .machine = cuda_machine,
    .describe = cuda_describe,
    .end = cuda_end,
};
