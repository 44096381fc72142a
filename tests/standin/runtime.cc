// The stand-in CUDA runtime: the functions the cuda backend calls, on host
// memory, with queued streams, recorded captures and replayed graphs
// (standin.h says how work runs). Each function has the signature of
// cuda_runtime_api.h, which declares it extern "C": the backend's objects link
// these where the real build links the static CUDA runtime.
#include "standin.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>
#include <string>

#include <sys/mman.h>

#include <cuda_profiler_api.h>

#include "kernels/emulate_hook.h"
#include "kernels/ops.h"

struct Work {
    std::string what;
    std::function<void()> run;
    std::vector<StandinRange> ranges; // the device memory it reads or writes
    uint64_t position = 0;            // its place in its stream's queue
    double cost_ms = 0;               // the stand-in clock's time for it (scripted: graph-API engines)
};

struct CUstream_st {
    unsigned flags = 0;
    std::deque<Work> queue;
    uint64_t submitted = 0;
    struct CUgraph_st *capture = nullptr; // recording instead of queueing
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    bool invalidated = false;
};
struct CUgraph_st {
    std::vector<Work> record;
};
// What a graph launch replays: shared with the launches still queued, so an
// executable graph may be destroyed while its launches are pending, as CUDA allows.
struct Replay {
    std::vector<Work> record;
    long launches = 0;
};
struct CUgraphExec_st {
    std::shared_ptr<Replay> replay;
};
// An event's state, shared the same way with the record still queued.
struct EventState {
    bool recorded = false, complete = false;
    cudaStream_t stream = nullptr;
    uint64_t position = 0;
    double clock_ms = 0; // the stand-in clock when it completed
};
struct CUevent_st {
    std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

namespace {

constexpr size_t TOTAL_MEMORY = (size_t)143771 << 20; // an H200's, as cudaGetDeviceProperties reports it
constexpr size_t RESERVED = (size_t)512 << 20;        // what a context holds
constexpr size_t POISONED_UP_TO = (size_t)64 << 20;   // larger buffers (workspaces, the L2 flush) stay zero pages

struct Allocation {
    size_t bytes;
    bool mapped; // mmap'ed (large) rather than malloc'ed
};

std::map<uintptr_t, Allocation> allocations; // by start address
size_t allocated_bytes = 0;                   // their sum, for cudaMemGetInfo
std::vector<cudaStream_t> streams;
StandinScript script;
StandinCounters counters;
std::string last_error;
cudaError_t sticky = cudaSuccess; // what cudaGetLastError reports and clears
// The stand-in's clock: the scripted costs of the work run so far. Events
// read it, so a timed replay of a scripted engine lasts its cost (plus the
// script's constant): the autotune's choice among engines is testable.
double device_clock_ms = 0;

cudaError_t fail(cudaError_t code)
{
    sticky = code;
    return code;
}

// A call that must not happen while a stream captures in global or
// thread-local mode (the CUDA Programming Guide, "CUDA Graphs: Prohibited and
// Unhandled Operations"): the capture is invalidated, as the runtime does.
bool unsafe_during_capture(const char *call)
{
    for (cudaStream_t s : streams)
        if (s->capture && s->mode != cudaStreamCaptureModeRelaxed) {
            s->invalidated = true;
            std::fprintf(stderr, "sslat stand-in: %s during a stream capture (not relaxed): capture invalidated\n", call);
            return true;
        }
    return false;
}

// The memory a piece of work uses must still be allocated when it runs (or is
// replayed): on a GPU that would be an illegal address.
void check_ranges(const Work &work)
{
    for (const StandinRange &r : work.ranges)
        if (r.bytes && !standin_is_device(r.pointer, r.bytes)) {
            std::fprintf(stderr, "sslat stand-in: %s uses %zu B at %p, not (or no longer) device memory\n",
                         work.what.c_str(), r.bytes, r.pointer);
            std::abort();
        }
}

void run_work(const Work &work)
{
    check_ranges(work);
    device_clock_ms += work.cost_ms;
    work.run();
}

// The queued work of a stream, in order, up to a position (an event's).
void run_until(cudaStream_t s, uint64_t position)
{
    while (!s->queue.empty() && s->queue.front().position <= position) {
        Work work = std::move(s->queue.front());
        s->queue.pop_front();
        run_work(work);
    }
}

bool is_legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

// What the legacy stream waits for: the blocking streams (the session's is
// non-blocking, so it is not waited for).
void wait_for_blocking_streams()
{
    for (cudaStream_t other : streams)
        if (!(other->flags & cudaStreamNonBlocking)) run_until(other, UINT64_MAX);
}

} // namespace

// ---- shared with cudnn.cc / cublas.cc --------------------------------------------------------

StandinScript &standin_script() { return script; }
StandinCounters &standin_counters() { return counters; }

void standin_reset()
{
    script = StandinScript();
    // fastest first, as Find sorts: one that failed, one that reports tensor-op
    // math (not FMA), one with a large workspace, a plain one
    script.find = {
        {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, CUDNN_STATUS_NOT_SUPPORTED, -1, 0, 0},
        {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_STATUS_SUCCESS, CUDNN_TENSOR_OP_MATH, 1 << 20, 4 << 20},
        {CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, CUDNN_STATUS_SUCCESS, -1, (size_t)96 << 20, (size_t)96 << 20},
        {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_STATUS_SUCCESS, -1, 0, 0},
    };
    // the fused call refuses the tensor-op entry: the trial goes on to the next
    script.refuse_fused = {{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_TENSOR_OP_MATH}};
    script.engines = standin_default_engines();
    script.fused_engines = standin_default_fused_engines();
    StandinCounters kept = counters;
    counters = StandinCounters();
    counters.violations = kept.violations, counters.expected_violations = kept.expected_violations;
    last_error.clear();
}

void standin_rule(const char *rule, const char *doc, const char *format, ...)
{
    char detail[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    counters.violations++;
    counters.last_rule = rule;
    last_error = std::string("stand-in rule ") + rule + ": " + detail;
    std::fprintf(stderr, "sslat stand-in: RULE %s broken: %s (%s)\n", rule, detail, doc);
}

void standin_set_last_error(const std::string &message) { last_error = message; }
const std::string &standin_last_error() { return last_error; }

bool standin_is_device(const void *p, size_t bytes)
{
    if (!p) return false;
    uintptr_t at = (uintptr_t)p;
    auto it = allocations.upper_bound(at);
    if (it == allocations.begin()) return false;
    --it;
    return at >= it->first && at - it->first + bytes <= it->second.bytes;
}

bool standin_capturing(cudaStream_t s) { return !is_legacy(s) && s->capture; }

void standin_invalidate(cudaStream_t s)
{
    if (!is_legacy(s) && s->capture) s->invalidated = true;
}

cudaError_t standin_submit(cudaStream_t s, const char *what, std::function<void()> run, std::vector<StandinRange> ranges,
                          double cost_ms)
{
    Work work{what, std::move(run), std::move(ranges), 0, cost_ms};
    if (is_legacy(s)) {
        counters.legacy_stream_ops++;
        wait_for_blocking_streams();
        run_work(work);
        return cudaSuccess;
    }
    if (s->capture) {
        // work on a stream whose capture was invalidated fails, as the runtime's does
        if (s->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
        s->capture->record.push_back(std::move(work));
        return cudaSuccess;
    }
    work.position = ++s->submitted;
    s->queue.push_back(std::move(work));
    return cudaSuccess;
}

cudaError_t standin_drain(cudaStream_t s)
{
    if (is_legacy(s)) {
        wait_for_blocking_streams();
        return cudaSuccess;
    }
    if (s->capture) {
        s->invalidated = true; // waiting on a capturing stream is prohibited
        return fail(cudaErrorStreamCaptureUnsupported);
    }
    run_until(s, UINT64_MAX);
    return cudaSuccess;
}

// The own kernels (kernels/*.cu built under SSLAT_CUDA_EMULATE) go through the
// same queues.
// A program on the stand-in never reads or writes the user's selection cache
// (kernels/cuda_selection.h): the tests that test it name their own folder
// (--selection-cache, or this variable set again after start-up).
static const bool selection_cache_off = [] { return setenv("SSLAT_SELECTION_CACHE", "off", 1) == 0; }();

static void submit_kernel(void *stream, std::function<void()> run)
{
    standin_submit((cudaStream_t)stream, "kernel", std::move(run), {}, script.kernel_ms);
}

// ---- device, versions, errors -----------------------------------------------------------------

extern "C" {

// The stand-in presents SSLAT_STANDIN_DEVICES devices when it is set (a
// whole number 1..64; else the script's count), named by
// SSLAT_STANDIN_DEVICE_NAMES (comma-separated: device i takes name i mod n):
// how a test shows ranks several GPUs, of mixed kinds too. (A rule of this
// stand-in's own: a real node's count and names come from its driver.)
int device_count()
{
    const char *text = std::getenv("SSLAT_STANDIN_DEVICES");
    if (!text) return script.device_count;
    char *end = nullptr;
    long count = std::strtol(text, &end, 10);
    if (end == text || *end || text[0] < '0' || text[0] > '9' || count < 1 || count > 64) {
        // a test's mistake, said once: the stand-in then shows no device at all
        static bool said;
        if (!said) std::fprintf(stderr, "stand-in: SSLAT_STANDIN_DEVICES='%s' is not a count 1..64\n", text);
        said = true;
        return 0;
    }
    return (int)count;
}

std::string device_model(int device)
{
    const char *text = std::getenv("SSLAT_STANDIN_DEVICE_NAMES");
    std::vector<std::string> names;
    for (const char *p = text ? text : ""; *p;) {
        const char *end = std::strchr(p, ',');
        names.emplace_back(p, end ? (size_t)(end - p) : std::strlen(p));
        if (!end) break;
        p = end + 1;
    }
    return names.empty() || names[(size_t)device % names.size()].empty() ? "H200"
                                                                          : names[(size_t)device % names.size()];
}

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = device_count();
    return *count > 0 ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    return device >= 0 && device < device_count() ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device < 0 || device >= device_count()) return fail(cudaErrorInvalidDevice);
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "sslat stand-in (host emulation of an %s; not a GPU)",
                  device_model(device).c_str());
    prop->major = 9, prop->minor = 0;
    prop->multiProcessorCount = 132;
    prop->l2CacheSize = 50 << 20;
    prop->totalGlobalMem = TOTAL_MEMORY;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    size_t used = RESERVED + allocated_bytes;
    *free_bytes = used < TOTAL_MEMORY ? TOTAL_MEMORY - used : 0;
    *total = TOTAL_MEMORY;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *bus, int length, int)
{
    std::snprintf(bus, (size_t)length, "0000:00:00.0");
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
    *version = 13000;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    *version = 13000;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t code = sticky;
    sticky = cudaSuccess;
    return code;
}

static const struct {
    cudaError_t code;
    const char *name, *text;
} ERRORS[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
};

const char *cudaGetErrorName(cudaError_t code)
{
    for (const auto &e : ERRORS)
        if (e.code == code) return e.name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t code)
{
    for (const auto &e : ERRORS)
        if (e.code == code) return e.text;
    return "unknown error (stand-in)";
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// ---- memory ------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void **out, size_t bytes)
{
    *out = nullptr;
    if (unsafe_during_capture("cudaMalloc")) return fail(cudaErrorStreamCaptureUnsupported);
    size_t free_bytes, total;
    cudaMemGetInfo(&free_bytes, &total);
    if (bytes > free_bytes) return fail(cudaErrorMemoryAllocation);
    size_t size = bytes ? bytes : 1;
    void *p = nullptr;
    bool mapped = size > POISONED_UP_TO;
    if (mapped) {
        p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
    } else {
        if (posix_memalign(&p, 256, size) != 0) return fail(cudaErrorMemoryAllocation);
        std::memset(p, 0xff, size); // NaN in every element type: unwritten values show
    }
    allocations[(uintptr_t)p] = Allocation{size, mapped};
    allocated_bytes += size;
    counters.mallocs++;
    *out = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    if (unsafe_during_capture("cudaFree")) return fail(cudaErrorStreamCaptureUnsupported);
    auto it = allocations.find((uintptr_t)p);
    if (it == allocations.end()) {
        std::fprintf(stderr, "sslat stand-in: cudaFree(%p): not a device allocation\n", p);
        return fail(cudaErrorInvalidValue);
    }
    // the GPU finishes queued work before memory is freed (cudaFree synchronises)
    for (cudaStream_t s : streams) run_until(s, UINT64_MAX);
    if (it->second.mapped) munmap(p, it->second.bytes);
    else std::free(p);
    allocated_bytes -= it->second.bytes;
    allocations.erase(it);
    counters.frees++;
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **out, size_t bytes, unsigned int)
{
    *out = std::calloc(1, bytes ? bytes : 1);
    return *out ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int)
{
    *device = host; // mapped: the same address on both sides
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
    std::free(p);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind == cudaMemcpyDefault || kind == cudaMemcpyHostToHost || (dst_device && !standin_is_device(dst, bytes)) ||
        (src_device && !standin_is_device(src, bytes)) || (!dst_device && standin_is_device(dst, 1)) ||
        (!src_device && standin_is_device(src, 1))) {
        std::fprintf(stderr, "sslat stand-in: cudaMemcpyAsync(%p <- %p, %zu B, kind %d): a pointer is not where the "
                             "kind says, or the range leaves its allocation\n",
                     dst, src, bytes, (int)kind);
        return fail(cudaErrorInvalidValue);
    }
    std::vector<StandinRange> ranges;
    if (dst_device) ranges.push_back({dst, bytes});
    if (src_device) ranges.push_back({src, bytes});
    return standin_submit(stream, "cudaMemcpyAsync", [=]() { std::memmove(dst, src, bytes); }, ranges);
}

// Synchronous, on the legacy stream: it does not wait for a non-blocking stream.
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    if (unsafe_during_capture("cudaMemcpy")) return fail(cudaErrorStreamCaptureUnsupported);
    return cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    if (!standin_is_device(p, bytes)) {
        std::fprintf(stderr, "sslat stand-in: cudaMemsetAsync(%p, %zu B): not inside one device allocation\n", p, bytes);
        return fail(cudaErrorInvalidValue);
    }
    // a buffer past POISONED_UP_TO (the cold run's L2 flush) is never read: checked, not written
    bool write = bytes <= POISONED_UP_TO;
    return standin_submit(
        stream, "cudaMemsetAsync", [=]() {
            if (write) std::memset(p, value, bytes);
        },
        {{p, bytes}});
}

// ---- streams, events, capture, graphs ----------------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned int flags)
{
    cudaStream_t s = new CUstream_st();
    s->flags = flags;
    streams.push_back(s);
    if (!sslat_emulated_submit) sslat_emulated_submit = submit_kernel;
    *out = s;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (is_legacy(s)) return fail(cudaErrorInvalidResourceHandle);
    run_until(s, UINT64_MAX); // the GPU finishes a destroyed stream's work
    for (size_t i = 0; i < streams.size(); i++)
        if (streams[i] == s) streams.erase(streams.begin() + (long)i);
    delete s->capture;
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) { return standin_drain(s); }

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
    if (is_legacy(s) || s->capture) return fail(cudaErrorStreamCaptureUnsupported);
    s->capture = new CUgraph_st();
    s->mode = mode;
    s->invalidated = false;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph)
{
    *graph = nullptr;
    if (is_legacy(s) || !s->capture) return fail(cudaErrorIllegalState);
    cudaGraph_t g = s->capture;
    s->capture = nullptr;
    if (s->invalidated) {
        delete g;
        return fail(cudaErrorStreamCaptureInvalidated);
    }
    *graph = g;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long)
{
    if (!graph) return fail(cudaErrorInvalidValue);
    *exec = new CUgraphExec_st();
    (*exec)->replay = std::make_shared<Replay>();
    (*exec)->replay->record = graph->record;
    return cudaSuccess;
}

// The first launches compute; later ones check that the memory each recorded
// piece of work uses is still allocated (the own kernels declare none).
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (!exec) return fail(cudaErrorInvalidValue);
    std::shared_ptr<Replay> replay = exec->replay;
    return standin_submit(stream, "cudaGraphLaunch", [replay]() {
        bool compute = replay->launches++ < script.computed_replays;
        if (compute) counters.computed_launches++;
        for (const Work &w : replay->record) {
            if (compute) run_work(w);
            else check_ranges(w), device_clock_ms += w.cost_ms;
        }
    });
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    delete exec; // a launch still queued keeps its replay
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = new CUevent_st();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete event; // a record still queued keeps its state
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (standin_capturing(stream)) {
        std::fprintf(stderr, "sslat stand-in: cudaEventRecord inside a capture is not emulated\n");
        return fail(cudaErrorNotSupported);
    }
    std::shared_ptr<EventState> state = event->state;
    state->recorded = true, state->complete = false, state->stream = stream;
    cudaError_t code = standin_submit(stream, "cudaEventRecord", [state]() {
        state->complete = true;
        state->clock_ms = device_clock_ms;
    });
    state->position = is_legacy(stream) ? 0 : stream->submitted;
    return code;
}

// Waits for the stream up to the event only: the work queued after it stays queued.
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    std::shared_ptr<EventState> state = event->state;
    if (!state->recorded || state->complete) return cudaSuccess;
    if (standin_capturing(state->stream)) return fail(cudaErrorStreamCaptureUnsupported);
    run_until(state->stream, state->position);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!start->state->recorded || !end->state->recorded) return fail(cudaErrorInvalidResourceHandle);
    if (!start->state->complete || !end->state->complete) return fail(cudaErrorNotReady);
    // scripted: a constant, plus the scripted costs of what ran between the two (graph-API engines)
    *ms = script.elapsed_ms + (float)(end->state->clock_ms - start->state->clock_ms);
    return cudaSuccess;
}

// ---- the blocking kernel (kernels/blocking.cu) ------------------------------------------------------

// The stream waits for the host's release; on the host the wait cannot
// happen, so the flag is read when the stream gets there: not set means the
// host waited for the stream before releasing it (the GPU would time out).
cudaError_t sslat_cuda_block_stream(const volatile int32_t *release, int32_t *timed_out, uint64_t, void *stream)
{
    return standin_submit((cudaStream_t)stream, "block_stream", [=]() {
        if (!*release) *timed_out = 1;
    });
}

} // extern "C"
