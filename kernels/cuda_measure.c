/* Timing a cuda program the way nvbench and trtexec do: the work captured in a
 * CUDA graph, warmup by count and by time, samples between CUDA events, copies
 * over rotating buffers (hot) or an L2 flush before each sample (cold). */
#include "kernels/cuda_backend.h"

#include <cuda_profiler_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "kernels/ops.h"
#include "measure/stop.h"

#define WARMUP_MIN_MS 5.0 /* per unit; the session warmed the GPU up for 200 ms at start */

typedef struct captured {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
} captured;

static void captured_release(captured *c)
{
    if (c->exec) cudaGraphExecDestroy(c->exec);
    if (c->graph) cudaGraphDestroy(c->graph);
    memset(c, 0, sizeof *c);
}

/* What a capture records: the work fn enqueues on the session's stream. */
typedef sslat_status (*enqueue_fn)(void *context, sslat_error *err);

/* What fn enqueues, captured in the given mode and instantiated. */
static sslat_status capture_in(cuda_session *s, enqueue_fn fn, void *context, enum cudaStreamCaptureMode mode,
                               captured *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    CUDA_RETURN_IF_FAILED(err, runtime, cudaStreamBeginCapture(s->stream, mode));
    sslat_status status = fn(context, err);
    cudaError_t ended = cudaStreamEndCapture(s->stream, &out->graph);
    if (status != SSLAT_OK) {
        captured_release(out);
        return status;
    }
    if (ended != cudaSuccess) {
        captured_release(out);
        return cuda_check_runtime(ended, "cudaStreamEndCapture", __FILE__, __LINE__, err);
    }
    CUDA_RETURN_IF_FAILED(err, runtime, cudaGraphInstantiate(&out->exec, out->graph, 0));
    return SSLAT_OK;
}

/* Copies 0..copies-1 of a program, one after the other. */
typedef struct program_copies {
    cuda_program *p;
    int32_t copies;
} program_copies;

static sslat_status enqueue_copies(void *context, sslat_error *err)
{
    program_copies *c = context;
    sslat_status status = SSLAT_OK;
    for (int32_t copy = 0; status == SSLAT_OK && copy < c->copies; copy++) status = cuda_program_enqueue(c->p, copy, err);
    return status;
}

/* What fn enqueues as one graph, in thread-local mode, and once more in
 * relaxed mode when a library call was refused inside it (counted: the
 * metadata says so). */
static sslat_status capture_either(cuda_session *s, enqueue_fn fn, void *context, captured *out, sslat_error *err)
{
    sslat_status status = capture_in(s, fn, context, cudaStreamCaptureModeThreadLocal, out, err);
    if (status == SSLAT_OK || status == SSLAT_ERR_NOMEM) return status;
    sslat_error first = *err;
    cudaGetLastError();
    status = capture_in(s, fn, context, cudaStreamCaptureModeRelaxed, out, err);
    if (status == SSLAT_OK) s->relaxed_captures++;
    else sslat_error_prefix(err, "(thread-local capture: %s) relaxed capture: ", first.message);
    return status;
}

static sslat_status capture(cuda_program *p, int32_t copies, captured *out, sslat_error *err)
{
    program_copies what = {p, copies};
    return capture_either(p->session, enqueue_copies, &what, out, err);
}

/* How long the blocking kernel waits for the host at most: far more than
 * queueing three calls takes, far less than a hang. */
#define BLOCK_TIMEOUT_NS 100000000ull /* 100 ms */

/* How a replay is timed: a sample behind nvbench's blocking kernel (hot; the
 * start event, the graph and the stop event are queued before the GPU reaches
 * them, so the host's launch latency stays out of the sample), a sample after
 * the L2 is flushed (cold, outside the events), or a timing that is no sample
 * (a plan's trial in the autotune: blocked, not counted in
 * cuda.blocking_kernel), or a plain replay (the profiler's: no blocking kernel
 * in its range). */
typedef enum replay_kind { REPLAY_HOT, REPLAY_COLD, REPLAY_TRIAL, REPLAY_PLAIN } replay_kind;

/* One replay between events, in ms. */
static sslat_status replay(cuda_session *s, const captured *c, replay_kind kind, double *ms, sslat_error *err)
{
    bool cold = kind == REPLAY_COLD, block = (kind == REPLAY_HOT || kind == REPLAY_TRIAL) && s->block_flags;
    if (cold) CUDA_RETURN_IF_FAILED(err, runtime, cudaMemsetAsync(s->flush, 0, (size_t)s->props.l2CacheSize * 2, s->stream));
    if (block) {
        volatile int32_t *flags = s->block_flags;
        flags[0] = 0, flags[1] = 0;
        CUDA_RETURN_IF_FAILED(err, runtime, sslat_cuda_block_stream(s->block_flags_device, s->block_flags_device + 1,
                                                                       BLOCK_TIMEOUT_NS, s->stream));
    }
    cudaError_t queued = cudaEventRecord(s->start, s->stream);
    if (queued == cudaSuccess) queued = cudaGraphLaunch(c->exec, s->stream);
    if (queued == cudaSuccess) queued = cudaEventRecord(s->stop, s->stream);
    if (block) {
        __atomic_store_n(&s->block_flags[0], 1, __ATOMIC_SEQ_CST); /* release the stream, whatever happened */
    }
    CUDA_RETURN_IF_FAILED(err, runtime, queued);
    CUDA_RETURN_IF_FAILED(err, runtime, cudaEventSynchronize(s->stop));
    if (block && kind == REPLAY_HOT) {
        if (__atomic_load_n(&s->block_flags[1], __ATOMIC_SEQ_CST)) s->unblocked_samples++;
        else s->blocked_samples++;
    }
    float elapsed = 0;
    CUDA_RETURN_IF_FAILED(err, runtime, cudaEventElapsedTime(&elapsed, s->start, s->stop));
    *ms = elapsed;
    return SSLAT_OK;
}

/* What fn enqueues, captured and replayed four times as trials: the median
 * of the last three, in ms (the first replay uploads the graph). */
static sslat_status trial_ms(cuda_session *s, enqueue_fn fn, void *context, double *ms, sslat_error *err)
{
    captured graph;
    sslat_status status = capture_either(s, fn, context, &graph, err);
    double t[4] = {0};
    for (int i = 0; status == SSLAT_OK && i < 4; i++) status = replay(s, &graph, REPLAY_TRIAL, &t[i], err);
    captured_release(&graph);
    if (status == SSLAT_OK) *ms = fmax(fmin(t[1], t[2]), fmin(fmax(t[1], t[2]), t[3]));
    return status;
}

/* One copy's time: the base for the number of copies. */
static sslat_status single_copy_ms(cuda_program *p, double *ms, sslat_error *err)
{
    program_copies one = {p, 1};
    return trial_ms(p->session, enqueue_copies, &one, ms, err);
}

sslat_status cuda_time_calls(cuda_session *s, sslat_status (*fn)(void *, sslat_error *), void *context, double *ms,
                             sslat_error *err)
{
    /* once outside capture first: lazy initialisation inside a capture breaks it */
    sslat_status status = fn(context, err);
    if (status == SSLAT_OK)
        status = cuda_check_runtime(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize(eager run)", __FILE__,
                                    __LINE__, err);
    return status == SSLAT_OK ? trial_ms(s, fn, context, ms, err) : status;
}

sslat_status cuda_measure_program(cuda_program *p, int32_t batch, const sslat_calc_options *o, const char *label,
                                  uint32_t category, int64_t payload, sslat_entry *entry, sslat_error *err)
{
    cuda_session *s = p->session;
    if (cuda_plan_launches_nothing(&p->plan)) { /* a skip: nothing to time (an empty graph's replay is no latency) */
        memset(entry, 0, sizeof *entry);
        return SSLAT_OK;
    }
    cuda_nvtx_push(s, label, category, payload);
    cuda_nvtx_push(s, "select", CUDA_NVTX_PHASE, payload);
    sslat_status status = cuda_program_choose_algorithms(p, err);
    cuda_nvtx_pop(s);
    cuda_phase_enter(s, CUDA_PHASE_PREPARE);
    int32_t copies = 1;
    double one_ms = 0;
    /* every library call and kernel runs once outside capture first (copy 0
     * exists: Find ran on it): lazy initialisation (module loads, plans,
     * allocations) inside a capture breaks it */
    if (status == SSLAT_OK) status = cuda_program_enqueue(p, 0, err);
    if (status == SSLAT_OK) status = cuda_check_runtime(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize(eager run)",
                                                        __FILE__, __LINE__, err);
    if (status == SSLAT_OK && !o->cold) {
        status = single_copy_ms(p, &one_ms, err);
        size_t free_bytes = 0, total = 0;
        if (status == SSLAT_OK) status = cuda_check_runtime(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo", __FILE__, __LINE__, err);
        if (status == SSLAT_OK)
            copies = sslat_cuda_copies(one_ms, p->copy_bytes, (size_t)s->props.l2CacheSize, free_bytes / 2,
                                       SSLAT_CUDA_MIN_REPLAY_MS, sslat_cuda_copies_cap(SSLAT_CUDA_MAX_COPIES));
    }
    if (status == SSLAT_OK) status = cuda_program_allocate(p, copies, err);
    captured graph = {0};
    cuda_phase_enter(s, CUDA_PHASE_CAPTURE);
    cuda_nvtx_push(s, "capture", CUDA_NVTX_PHASE, payload);
    if (status == SSLAT_OK) status = capture(p, copies, &graph, err);
    cuda_nvtx_pop(s);
    cuda_phase_enter(s, CUDA_PHASE_MEASURE);
    /* warmup: the count asked for, and at least WARMUP_MIN_MS of GPU time */
    cuda_nvtx_push(s, "warmup", CUDA_NVTX_PHASE, payload);
    double warm_ms = 0, ms = 0;
    for (int32_t i = 0; status == SSLAT_OK && (i < o->warmup_iterations || warm_ms < WARMUP_MIN_MS); i++) {
        status = replay(s, &graph, o->cold ? REPLAY_COLD : REPLAY_HOT, &ms, err);
        warm_ms += ms;
        if (i > 100000) break;
    }
    cuda_nvtx_pop(s);
    sslat_stop_rule rule = {.min_samples = o->run_iterations > 0 ? (size_t)o->run_iterations : 1,
                            .max_samples = SSLAT_MAX_SAMPLES,
                            .target_noise = o->target_noise,
                            .max_seconds = o->max_seconds};
    sslat_stop stop = {0};
    if (status == SSLAT_OK) status = sslat_stop_init(&stop, &rule, err);
    cuda_nvtx_push(s, "measure", CUDA_NVTX_PHASE, payload);
    while (status == SSLAT_OK) {
        status = replay(s, &graph, o->cold ? REPLAY_COLD : REPLAY_HOT, &ms, err);
        if (status == SSLAT_OK && sslat_stop_add(&stop, ms, ms / copies / (batch > 0 ? batch : 1))) break;
    }
    cuda_nvtx_pop(s);
    if (status == SSLAT_OK) {
        *entry = sslat_stop_entry(&stop);
        double cv = entry->mean > 0 ? entry->stddev / entry->mean : 0;
        s->units++;
        if (cv > 0.025) s->noisy_units++; /* trtexec's threshold */
        if (cv > s->worst_noise) s->worst_noise = cv;
    }
    if (status == SSLAT_OK && o->cuda.profile) {
        /* one more replay of a single copy, alone in the profiler's capture range */
        captured one;
        status = capture(p, 1, &one, err);
        if (status == SSLAT_OK) {
            cudaProfilerStart();
            cuda_nvtx_push(s, "profile", CUDA_NVTX_PHASE, payload);
            status = replay(s, &one, REPLAY_PLAIN, &ms, err);
            cuda_nvtx_pop(s);
            cudaProfilerStop();
        }
        captured_release(&one);
    }
    sslat_stop_release(&stop);
    captured_release(&graph);
    cuda_nvtx_pop(s);
    return status;
}
