/* The cuda session: device, stream, handles, workspace, metadata, NVTX. */
#include "kernels/cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "kernels/cuda_graph.h"
#include "kernels/ops.h"
#include "sslat.h"
#include "table/container.h"

enum { NVML_TEMPERATURE_GPU = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

static void read_clocks(cuda_session *s, unsigned *sm, unsigned *memory, unsigned *temperature)
{
    *sm = *memory = *temperature = 0;
    if (!s->nvml) return;
    sslat_cuda_api.nvml.clock(s->nvml, NVML_CLOCK_SM, sm);
    sslat_cuda_api.nvml.clock(s->nvml, NVML_CLOCK_MEM, memory);
    sslat_cuda_api.nvml.temperature(s->nvml, NVML_TEMPERATURE_GPU, temperature);
}

cuda_phase cuda_phase_enter(cuda_session *s, cuda_phase phase)
{
    double now = sslat_now_s();
    cuda_phase before = s->phase;
    s->phase_s[before] += now - s->phase_mark;
    s->phase_mark = now;
    s->phase = phase;
    return before;
}

/* The selection cache of this device (GPU and software): what it holds is
 * said on stderr when some of it cannot be used. */
static void open_selection_cache(cuda_session *s, const sslat_calc_options *o)
{
    char folder[4096];
    const char *why = NULL, *where = cuda_selection_folder(o->cuda.selection_cache, folder, sizeof folder, &why);
    int driver = 0;
    cudaDriverGetVersion(&driver);
    uint64_t hardware = cuda_selection_hardware(s->props.name, s->props.multiProcessorCount, s->props.major,
                                                s->props.minor);
    uint64_t software = cuda_selection_software(driver, (int)CUDNN(cudnnGetVersion)(), SSLAT_VERSION_STRING);
    cuda_selection_open(&s->selection, where, hardware, software);
    if (why) snprintf(s->selection.problem, sizeof s->selection.problem, "%s", why);
    const cuda_selection_cache *c = &s->selection;
    if (!c->on && c->problem[0] && strncmp(c->problem, "off (", 5) != 0) /* not asked to be off: say why */
        fprintf(stderr, "sslat: selection cache %s\n", c->problem);
    if (c->on && (c->problem[0] || c->stale || c->unreadable))
        fprintf(stderr, "sslat: selection cache %s: %s%s%d entries of this GPU from another driver, cuDNN or sslat "
                "ignored, %d unreadable lines skipped; every choice they held is made again\n", c->path, c->problem,
                c->problem[0] ? "; " : "", c->stale, c->unreadable);
}

/* This run's new decisions into the selection cache (once; a failure is said, the run goes on). */
static void save_selection_cache(cuda_session *s)
{
    cuda_selection_cache *c = &s->selection;
    if (!c->on || c->save_failed || c->written == c->n_fresh) return;
    if (!cuda_selection_save(c)) { /* said once: not tried again at close */
        c->save_failed = true;
        fprintf(stderr, "sslat: selection cache not written (%s); the table is complete, the next run chooses "
                "again\n", c->problem);
    }
}

sslat_status cuda_session_open(cuda_session *s, const sslat_calc_options *o, sslat_error *err)
{
    memset(s, 0, sizeof *s);
    s->opened_at = s->phase_mark = sslat_now_s();
    s->phase = CUDA_PHASE_OPEN;
    const char *why = cuda_api_load();
    if (why) return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "%s", why);
    sslat_status status = sslat_choose_device(o->cuda.device, cuda_device_count(), &s->choice, err);
    if (status != SSLAT_OK) return status;
    CUDA_RETURN_IF_FAILED(err, runtime, cudaSetDevice(s->choice.device));
    /* spin while waiting for the GPU, as trtexec does: no wake-up latency in samples */
    cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleSpin);
    if (flags != cudaSuccess && flags != cudaErrorSetOnActiveProcess) CUDA_RETURN_IF_FAILED(err, runtime, flags);
    cudaGetLastError();
    CUDA_RETURN_IF_FAILED(err, runtime, cudaGetDeviceProperties(&s->props, s->choice.device));
    CUDA_RETURN_IF_FAILED(err, runtime, cudaMemGetInfo(&s->free_at_start, &s->total_memory));
    CUDA_RETURN_IF_FAILED(err, runtime, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    CUDA_RETURN_IF_FAILED(err, runtime, cudaEventCreate(&s->start));
    CUDA_RETURN_IF_FAILED(err, runtime, cudaEventCreate(&s->stop));
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnCreate)(&s->cudnn));
    CUDA_RETURN_IF_FAILED(err, cudnn, CUDNN(cudnnSetStream)(s->cudnn, s->stream));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasCreate_v2)(&s->cublas));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasSetStream_v2)(s->cublas, s->stream));
    /* a fixed cuBLAS workspace: no allocation inside graph capture; cuBLASLt's matmuls share it */
    CUDA_RETURN_IF_FAILED(err, runtime, cudaMalloc(&s->cublas_workspace, CUDA_CUBLAS_WORKSPACE_BYTES));
    CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasSetWorkspace_v2)(s->cublas, s->cublas_workspace,
                                                                     CUDA_CUBLAS_WORKSPACE_BYTES));
    if (cuda_cublaslt_loaded()) CUDA_RETURN_IF_FAILED(err, cublas, CUBLAS(cublasLtCreate)(&s->cublaslt));
    if (o->cold) CUDA_RETURN_IF_FAILED(err, runtime, cudaMalloc(&s->flush, (size_t)s->props.l2CacheSize * 2));
    /* the blocking kernel's flags (hot replays): host-mapped, read by the GPU while the host writes */
    CUDA_RETURN_IF_FAILED(err, runtime, cudaHostAlloc((void **)&s->block_flags, 2 * sizeof(int32_t), cudaHostAllocMapped));
    CUDA_RETURN_IF_FAILED(err, runtime, cudaHostGetDevicePointer((void **)&s->block_flags_device, s->block_flags, 0));
    if (sslat_cuda_api.nvml.init) {
        char bus[32];
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, s->choice.device) == cudaSuccess &&
            sslat_cuda_api.nvml.device_by_pci_bus_id(bus, &s->nvml) != 0)
            s->nvml = NULL;
    }
    /* bring the clocks up before the first unit: 200 ms of fills (nvbench and
     * trtexec warm up too; a cold GPU idles at a few hundred MHz) */
    void *warm = NULL;
    const size_t warm_count = 16u << 20;
    CUDA_RETURN_IF_FAILED(err, runtime, cudaMalloc(&warm, warm_count * sizeof(float)));
    double until = sslat_now_s() + 0.2;
    cudaError_t code = cudaSuccess;
    for (int i = 0; code == cudaSuccess && sslat_now_s() < until; i++) {
        code = sslat_cuda_fill(SSLAT_ELEM_F32, warm, warm_count, (uint64_t)i, -1.0f, 1.0f, s->stream);
        if (code == cudaSuccess) code = cudaStreamSynchronize(s->stream);
    }
    cudaFree(warm);
    CUDA_RETURN_IF_FAILED(err, runtime, code);
    read_clocks(s, &s->sm_clock_start, &s->memory_clock_start, &s->temperature_start);
    open_selection_cache(s, o);
    s->nvtx = nvtxDomainCreateA("sslat");
    nvtxDomainNameCategoryA(s->nvtx, CUDA_NVTX_CONSTANT, "constant part");
    nvtxDomainNameCategoryA(s->nvtx, CUDA_NVTX_BLOCK, "NAS block");
    nvtxDomainNameCategoryA(s->nvtx, CUDA_NVTX_PHASE, "phase");
    cuda_phase_enter(s, CUDA_PHASE_OUTSIDE);
    return SSLAT_OK;
}

void cuda_session_close(cuda_session *s)
{
    if (s->stream) cudaStreamSynchronize(s->stream);
    save_selection_cache(s);
    cuda_selection_release(&s->selection);
    /* the graph plans the session chose, before the handle they were finalized with */
    for (int i = 0; i < s->find_cache.count; i++) {
        cuda_graph_plan *plan = s->find_cache.items[i].graph_plan;
        if (plan) cuda_graph_plan_release(plan);
        free(plan);
        s->find_cache.items[i].graph_plan = NULL;
    }
    if (s->cublaslt) CUBLAS(cublasLtDestroy)(s->cublaslt);
    if (s->cublas) CUBLAS(cublasDestroy_v2)(s->cublas);
    if (s->cudnn) CUDNN(cudnnDestroy)(s->cudnn);
    cudaFree(s->workspace);
    cudaFree(s->cublas_workspace);
    cudaFree(s->flush);
    if (s->start) cudaEventDestroy(s->start);
    if (s->stop) cudaEventDestroy(s->stop);
    if (s->stream) cudaStreamDestroy(s->stream);
    if (s->nvtx) nvtxDomainDestroy(s->nvtx);
    if (s->block_flags) cudaFreeHost(s->block_flags);
    cuda_find_cache_release(&s->find_cache);
    free(s->notes);
    memset(s, 0, sizeof *s);
}

sslat_status cuda_session_workspace(cuda_session *s, size_t bytes, void **out, sslat_error *err)
{
    if (bytes > s->workspace_size) {
        CUDA_RETURN_IF_FAILED(err, runtime, cudaStreamSynchronize(s->stream));
        cudaFree(s->workspace);
        s->workspace = NULL;
        s->workspace_size = 0;
        CUDA_RETURN_IF_FAILED(err, runtime, cudaMalloc(&s->workspace, bytes));
        s->workspace_size = bytes;
    }
    *out = s->workspace;
    return SSLAT_OK;
}

size_t cuda_session_workspace_limit(const cuda_session *s)
{
    size_t quarter = s->free_at_start / 4, gib = (size_t)1 << 30;
    return quarter < gib ? quarter : gib;
}

void cuda_nvtx_push(const cuda_session *s, const char *message, uint32_t category, int64_t payload)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = category;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = payload;
    nvtxDomainRangePushEx(s->nvtx, &a);
}

void cuda_nvtx_pop(const cuda_session *s) { nvtxDomainRangePop(s->nvtx); }

sslat_status cuda_session_describe(cuda_session *s, const sslat_calc_options *o, sslat_container *c,
                                   sslat_error *err)
{
    int driver = 0, runtime = 0, cublas_version = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    CUBLAS(cublasGetVersion_v2)(s->cublas, &cublas_version);
    size_t cudnn_version = CUDNN(cudnnGetVersion)();
    unsigned sm_end, memory_end, temperature_end;
    read_clocks(s, &sm_end, &memory_end, &temperature_end);
    unsigned long long reasons = 0;
    if (s->nvml && sslat_cuda_api.nvml.throttle_reasons) sslat_cuda_api.nvml.throttle_reasons(s->nvml, &reasons);
    sslat_layout layout = sslat_layout_resolve(o->layout, o->dtype);
    struct { const char *key; char value[1024]; } pairs[60];
    int n = 0;
#define PAIR(KEY, ...) do { pairs[n].key = KEY; snprintf(pairs[n].value, sizeof pairs[n].value, __VA_ARGS__); n++; } while (0)
    if (sslat_cuda_api.standin) PAIR("standin", "%s", sslat_cuda_api.standin);
    PAIR("device.name", "%s", s->props.name);
    PAIR("device.index", "%d (%s)", s->choice.device, s->choice.source);
    PAIR("device.compute_capability", "%d.%d", s->props.major, s->props.minor);
    PAIR("device.sms", "%d", s->props.multiProcessorCount);
    PAIR("device.l2_bytes", "%d", s->props.l2CacheSize);
    PAIR("device.memory_bytes", "%zu", s->total_memory);
    PAIR("software.cuda_driver", "%d.%d", driver / 1000, (driver % 1000) / 10);
    PAIR("software.cuda_runtime", "%d.%d", runtime / 1000, (runtime % 1000) / 10);
    PAIR("software.cudnn", "%zu.%zu.%zu (%s)", cudnn_version / 10000, (cudnn_version % 10000) / 100, cudnn_version % 100,
         sslat_cuda_api.cudnn_path);
    PAIR("software.cublas", "%d (%s)", cublas_version, sslat_cuda_api.cublas_path);
    if (s->cublaslt)
        PAIR("cuda.linear", "cublasLtMatmul with its bias epilogue (ReLU and tanh-GELU fused too; another activation "
                            "an own kernel after it), the heuristic's first algorithm (%s); where it found none, "
                            "cublasGemmEx + own epilogue: %d linear steps of the programs built",
             sslat_cuda_api.cublaslt_path, s->cublaslt_fallbacks);
    else
        PAIR("cuda.linear", "cublasGemmEx + own bias/activation epilogue (%s)", sslat_cuda_api.cublaslt_missing);
    if (s->nvml) {
        PAIR("device.sm_clock_mhz", "%u at start, %u at end", s->sm_clock_start, sm_end);
        PAIR("device.memory_clock_mhz", "%u at start, %u at end", s->memory_clock_start, memory_end);
        PAIR("device.temperature_c", "%u at start, %u at end", s->temperature_start, temperature_end);
        if (sslat_cuda_api.nvml.throttle_reasons)
            PAIR("device.throttle_reasons", "0x%llx at end (NVML clocks-event reasons; 0x1 = idle)", reasons);
    } else {
        PAIR("device.clocks", "unknown (NVML not loaded)");
    }
    PAIR("dtype", "%s", sslat_dtype_name(o->dtype));
    PAIR("layout", "%s", sslat_layout_name(layout));
    PAIR("calculator.mode", "%s", o->mode == SSLAT_MODE_FUSED ? "fused" : "eager");
    PAIR("calculator.cache", "%s", o->cold ? "cold: L2 flushed before each sample, one copy per replay"
                                           : "hot: copies over rotating buffers per graph replay (> 2x L2, >= 0.2 ms)");
    PAIR("calculator.warmup_iterations", "%d per unit (and >= 5 ms of it; 200 ms for the GPU at start)", o->warmup_iterations);
    PAIR("calculator.run_iterations", "%d", o->run_iterations);
    PAIR("calculator.adaptive", o->target_noise > 0 ? "noise %g, cap %g s" : "off", o->target_noise, o->max_seconds);
    PAIR("calculator.seed", "%llu", (unsigned long long)o->seed);
    PAIR("calculator.timing", "CUDA graph replays between CUDA events, median per sample, spin-wait; hot replays behind "
                              "nvbench's blocking kernel (host launch latency outside the events)");
    PAIR("cuda.blocking_kernel", "%d hot samples behind it, %d where it timed out (launch latency inside)",
         s->blocked_samples, s->unblocked_samples);
    PAIR("cuda.api", "%s", sslat_cudnn_api_name(o->cuda.api));
    save_selection_cache(s);
    char selection[1200];
    cuda_selection_describe(&s->selection, selection, sizeof selection);
    PAIR("cuda.selection_cache", "%s", selection);
    PAIR("cuda.find", "%d distinct convolutions timed by cudnnFind, %d convolutions reused a decision from the "
         "session's cache (Find's or the graph API's), %d distinct ones took theirs from the selection cache",
         s->find_runs, s->find_cache.hits, s->selection.hits);
    if (sslat_cudnn_api_resolve(o->cuda.api) == SSLAT_CUDNN_API_GRAPH) {
        /* the engine census: how the graph API's choices were made */
        int configs = 0, timed = 0, first = 0, later = 0;
        double finalize_ms = 0, compile_ms = 0;
        for (int i = 0; i < s->find_cache.count; i++) {
            const cuda_conv_choice *c = &s->find_cache.items[i];
            bool graph_plan = c->route == CUDA_ROUTE_GRAPH || c->route == CUDA_ROUTE_GRAPH_FUSED;
            if (c->route == CUDA_ROUTE_LEGACY && !c->legacy_reason[0]) continue; /* decided by Find alone */
            configs += c->census.configs + c->census.fused_configs, timed += c->census.timed + c->census.fused_timed;
            finalize_ms += c->census.finalize_ms, compile_ms += c->census.compile_ms;
            if (graph_plan && !c->from_disk) c->census.rank == 0 ? first++ : later++;
        }
        PAIR("cuda.graph", "%d distinct convolutions through the graph-API autotune (%d kept a fused graph, %d the own "
             "depthwise kernel, the rest a plain plan), %d on the legacy API (why: cuda.plan.*); "
             "%d engine configurations offered, %d timed; the first plan timed (in heuristics order) was the fastest "
             "for %d, a later one for %d; finalizing %.0f ms, of which runtime-compiled %.0f ms",
             s->graph_convs, s->fused_graphs, s->own_depthwise, s->legacy_convs, configs, timed, first, later,
             finalize_ms, compile_ms);
    }
    const char *tf32_override = getenv("NVIDIA_TF32_OVERRIDE");
    PAIR("cuda.tf32_override", "%s", tf32_override ? tf32_override : "unset");
    PAIR("cuda.fused_fallbacks", "%d fused conv+bias+act calls no algorithm took: plain convolution + own epilogue",
         s->fused_fallbacks);
    PAIR("cuda.fma_forced", "%d fp32 convolutions where cudnnFind reported no FMA result: FMA set on Find's first",
         s->fma_forced);
    PAIR("cuda.relaxed_captures", "%d captures needed cudaStreamCaptureModeRelaxed", s->relaxed_captures);
    PAIR("cuda.noisy_units", "%d of %d units had a coefficient of variation above 2.5%% (worst %.1f%%)",
         s->noisy_units, s->units, 100 * s->worst_noise);
    /* where the wall time went, from opening the session to now: the phases add up to it */
    cuda_phase_enter(s, CUDA_PHASE_OUTSIDE);
    static const char *const PHASE_KEYS[CUDA_PHASE_COUNT] = {"cuda.time.open", "cuda.time.select", "cuda.time.prepare",
                                                             "cuda.time.capture", "cuda.time.measure", "cuda.time.outside"};
    for (int phase = 0; phase < CUDA_PHASE_COUNT; phase++) PAIR(PHASE_KEYS[phase], "%.6f s", s->phase_s[phase]);
    PAIR("cuda.time.wall", "%.6f s (from opening the session to this description: the sum of cuda.time.*)",
         s->phase_mark - s->opened_at);
#undef PAIR
    if (s->noisy_units > 0)
        fprintf(stderr, "sslat: warning: %d of %d units varied by more than 2.5%% between samples (worst %.1f%%): "
                        "another process on the GPU, or clocks changing\n",
                s->noisy_units, s->units, 100 * s->worst_noise);
    if (s->nvml && s->sm_clock_start > 0 && sm_end < 0.95 * s->sm_clock_start)
        fprintf(stderr, "sslat: warning: the SM clock fell from %u to %u MHz during the run (throttling)\n",
                s->sm_clock_start, sm_end);
    for (int i = 0; i < n; i++) {
        sslat_status status = sslat_container_set_metadata(c, pairs[i].key, pairs[i].value, err);
        if (status != SSLAT_OK) return status;
    }
    for (int i = 0; i < s->n_notes; i++) {
        sslat_status status = sslat_container_set_metadata(c, s->notes[i].key, s->notes[i].value, err);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}
