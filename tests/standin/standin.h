// The stand-in device: a host implementation of the CUDA runtime functions,
// cuDNN and cuBLAS calls the cuda backend makes, so its own source files
// (session, program, measure, calculator) run in CI without a GPU.
//
// It is a test double, never a calculator: its "device" is host memory, its
// timings are scripted constants (no test reads them as a latency), and the
// tables it makes carry the metadata key "standin", which every statistic
// refuses. What it checks: the plumbing (descriptors, layouts, parameters,
// buffers, copies, capture order, read-back, the stream every call is on) and
// the documented rules of the cuDNN and cuBLAS calls (cudnn.cc, cublas.cc).
// What only a real GPU can: speed, cuDNN's real algorithm choice, the
// numerics of its kernels, races between threads.
//
// How it runs work: every stream holds a queue; work runs when the host waits
// for it (cudaStreamSynchronize, cudaEventSynchronize) and, on the legacy NULL
// stream, at once, without waiting for a non-blocking stream (so a read-back
// on the wrong stream reads what was there before). A capturing stream records
// instead; a graph launch replays the record. New device memory up to 64 MiB
// holds NaN bytes (0xff), so a value read before it was written shows; every
// library call, copy and memset names the device ranges it uses, checked when
// it runs and on every replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

// A cuDNN handle of the stand-in: the stream its work goes on.
struct cudnnContext {
    cudaStream_t stream = nullptr;
};

// Element i of a cuDNN tensor of type t, as float, and back (rounded to t).
inline float standin_load(const void *p, cudnnDataType_t t, size_t i)
{
    if (t == CUDNN_DATA_FLOAT) return ((const float *)p)[i];
    if (t == CUDNN_DATA_HALF) return __half2float(((const __half *)p)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
}

inline void standin_store(void *p, cudnnDataType_t t, size_t i, float v)
{
    if (t == CUDNN_DATA_FLOAT) ((float *)p)[i] = v;
    else if (t == CUDNN_DATA_HALF) ((__half *)p)[i] = __float2half(v);
    else ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
}

// One entry of cudnnFindConvolutionForwardAlgorithmEx's scripted answer.
struct StandinFindEntry {
    cudnnConvolutionFwdAlgo_t algo;
    cudnnStatus_t status;
    int math;                 // the math type reported; -1: the descriptor's (as real Find mostly does)
    size_t memory;            // workspace under the math reported
    size_t memory_other_math; // workspace under any other math type
};

// One engine of the graph API's scripted answer (cudnn_backend.cc): what
// heuristics return, what its plan does when finalized and executed.
struct StandinEngine {
    int64_t global_index;
    std::vector<std::pair<int64_t, int64_t>> knobs; // (cudnnBackendKnobType_t, value)
    unsigned numerical = 0;     // bit n: cudnnBackendNumericalNote_t n
    unsigned behavior = 0;      // bit n: cudnnBackendBehaviorNote_t n
    size_t workspace = 0;
    bool fallback_list = false; // returned by heuristics mode FALLBACK (else by modes INSTANT, A and B)
    bool finalizes = true;      // false: its plan's finalize is NOT_SUPPORTED (a shape it lacks, no NVRTC)
    bool executes = true;       // false: cudnnBackendExecute is EXECUTION_FAILED
    double ms = 0.01;           // what one execution adds to the stand-in clock
};

// What the stand-in answers; tests change it, standin_reset() restores it.
struct StandinScript {
    // Find's answer, fastest first: by default a failing entry, a non-FMA
    // (tensor-op) entry, a large-workspace entry and a plain one
    std::vector<StandinFindEntry> find;
    // (algorithm, math) pairs the fused conv + bias + act call refuses (math -1: any)
    std::vector<std::pair<int, int>> refuse_fused;
    // the graph API's engines for a convolution, in heuristics order (standin_reset says the default)
    std::vector<StandinEngine> engines;
    // the same for a convolution with its epilogue fused as pointwise operations
    std::vector<StandinEngine> fused_engines;
    double kernel_ms = 0; // what each own (emulated) kernel launch adds to the stand-in clock
    float elapsed_ms = 1.0f;  // every cudaEventElapsedTime: a constant, not a latency
    int computed_replays = 2; // launches of a graph that compute; later ones check their buffers only
    int device_count = 1;
};

StandinScript &standin_script();
// The default script; the counters cleared but for the rules broken.
void standin_reset();

// What happened, for tests to read.
struct StandinCounters {
    int violations = 0;           // rules broken (each printed, with its name); standin_reset keeps it
    int expected_violations = 0;  // those a test broke on purpose (the suite's check: the two agree)
    std::string last_rule;        // the name of the last one
    long find_calls = 0;
    std::vector<std::pair<int, int>> fused_calls; // (algorithm, math) of every fused call made
    std::vector<std::pair<int, int>> plain_calls; // the same for cudnnConvolutionForward
    long computed_launches = 0;   // graph launches that computed
    long legacy_stream_ops = 0;   // work put on the NULL stream
    long mallocs = 0, frees = 0;  // cudaMalloc and cudaFree calls that succeeded
    // the graph API
    long heuristics_queries = 0;  // engine heuristics finalized
    long configs_returned = 0;    // engine configurations written into the caller's descriptors
    long plans_finalized = 0, plans_refused = 0;
    long compile_events = 0;      // runtime-compiled plans finalized (NVRTC on a GPU)
    std::vector<int64_t> executions; // the global index of every engine executed, in order
};
StandinCounters &standin_counters();

// ---- shared by the stand-in's files ------------------------------------------------

// A documented rule broken: recorded, printed to stderr with its name and the
// documentation it comes from, and the caller returns the documented status.
void standin_rule(const char *rule, const char *doc, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
// The message cudnnGetLastErrorString gives (the last rule or refusal).
void standin_set_last_error(const std::string &message);
const std::string &standin_last_error();

// Whether [p, p + bytes) lies inside one live device allocation.
bool standin_is_device(const void *p, size_t bytes);
// Device memory a piece of work uses.
struct StandinRange {
    const void *pointer;
    size_t bytes;
};
// Work of a stream: queued, recorded when it captures, or run at once on the
// NULL stream. Its ranges must be allocated whenever it runs; replays that do
// not compute check them only.
cudaError_t standin_submit(cudaStream_t stream, const char *what, std::function<void()> run,
                           std::vector<StandinRange> ranges = {}, double cost_ms = 0);
// A capture that cannot go on (Find inside it): its end reports it invalid.
void standin_invalidate(cudaStream_t stream);
// Run everything queued on a stream (cuDNN's Find waits for its stream).
cudaError_t standin_drain(cudaStream_t stream);
bool standin_capturing(cudaStream_t stream);

// The functions of the call table (cudnn.cc, cudnn_backend.cc, cublas.cc) and the blocking kernel.
void standin_fill_cudnn_table();
void standin_fill_cudnn_backend_table();
// Whether a live graph-API plan or operation graph was finalized with handle.
bool standin_backend_uses_handle(cudnnHandle_t handle);
// The default engine script (standin_reset installs it).
std::vector<StandinEngine> standin_default_engines();
std::vector<StandinEngine> standin_default_fused_engines();
void standin_fill_cublas_table();
void standin_fill_cublaslt_table();
// An element of a cuBLAS data type (CUDA_R_32F, 16F or 16BF) as float, and back (cublas.cc).
size_t standin_type_size(int type);
float standin_load(const void *p, int type, size_t i);
void standin_store(void *p, int type, size_t i, float v);
