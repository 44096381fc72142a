/* Host-side decisions of the cuda backend about library calls, with no CUDA
 * type in them (so they are unit-tested on any machine): which of cuDNN's
 * algorithms a convolution keeps, the session's cache of those choices, and
 * whether a subgraph fits cuDNN's and the device's limits before anything is
 * created. */
#ifndef SSLAT_CUDA_SELECT_H
#define SSLAT_CUDA_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/key_index.h"
#include "ir/graph.h"

/* One result of cudnnFindConvolutionForwardAlgorithmEx, as the choice reads it. */
typedef struct cuda_algo_result {
    int algo;           /* cudnnConvolutionFwdAlgo_t */
    bool succeeded;     /* status == CUDNN_STATUS_SUCCESS */
    bool fma_math;      /* mathType == CUDNN_FMA_MATH (no TF32, no tensor-op conversion) */
    size_t workspace;
} cuda_algo_result;

/* Whether result k works for the step's real call: a trial run of
 * cudnnConvolutionBiasActivationForward, which supports fewer algorithms than
 * the plain convolution Find timed. */
typedef bool (*cuda_algo_trial)(void *context, int k);

/* The result to keep, in Find's order (fastest first): the first that
 * succeeded, that keeps fp32 exact (FMA math only) when fp32_exact, and that
 * passes trial (NULL: no trial). -1 when none does: a fused call then falls
 * back to the plain convolution + own epilogue. *tried counts the trials. */
int cuda_pick_algorithm(const cuda_algo_result *results, int n, bool fp32_exact, cuda_algo_trial trial,
                        void *context, int *tried);

/* Whether any result succeeded with FMA math. fp32 keeps only such results;
 * when Find reports none (other projects saw Find report a math other than
 * the descriptor's), the caller picks in Find's order with FMA set instead of
 * failing every fp32 convolution. */
bool cuda_any_fma_result(const cuda_algo_result *results, int n);

/* ---- the graph API: engine configurations and the autotune ------------------------- */

/* The notes cuDNN attaches to an engine, as bits: bit n is
 * cudnnBackendNumericalNote_t n (or cudnnBackendBehaviorNote_t n);
 * kernels/cuda_graph.c checks the numbering against cudnn_graph.h. */
enum {
    CUDA_NOTE_TENSOR_CORE = 1u << 0,
    CUDA_NOTE_DOWN_CONVERT_INPUTS = 1u << 1,
    CUDA_NOTE_REDUCED_PRECISION_REDUCTION = 1u << 2,
    CUDA_NOTE_FFT = 1u << 3,
    CUDA_NOTE_NONDETERMINISTIC = 1u << 4,
    CUDA_NOTE_WINOGRAD = 1u << 5,
    CUDA_NUMERICAL_NOTE_COUNT = 10, /* CUDNN_NUMERICAL_NOTE_TYPE_COUNT */
};
enum {
    CUDA_BEHAVIOR_RUNTIME_COMPILATION = 1u << 0,
    CUDA_BEHAVIOR_SUPPORTS_CUDA_GRAPH_NATIVE_API = 1u << 3,
    CUDA_BEHAVIOR_CUBLASLT_DEPENDENCY = 1u << 4,
    CUDA_BEHAVIOR_NOTE_COUNT = 5, /* CUDNN_BEHAVIOR_NOTE_TYPE_COUNT */
};

#define CUDA_MAX_KNOBS 44 /* CUDNN_KNOB_TYPE_COUNTS */

/* One engine configuration as cuDNN's heuristics return it: the engine's
 * global index, the knob choices, the notes, and which list it came from. */
typedef struct cuda_engine {
    int64_t global_index;
    int32_t knobs;
    int64_t knob_type[CUDA_MAX_KNOBS], knob_value[CUDA_MAX_KNOBS];
    unsigned numerical; /* CUDA_NOTE_* */
    unsigned behavior;  /* CUDA_BEHAVIOR_* */
    bool fallback;      /* from heuristics mode FALLBACK, not mode A */
} cuda_engine;

/* Why an engine may not compute this dtype (sslat_dtype), or NULL when it
 * may. As PyTorch filters cuDNN's engines (Conv_v8.cpp, filterEngineConfigs
 * with TF32 off for fp32): no dtype takes one that down-converts its inputs,
 * and fp32 takes no tensor-core engine (TF32: a 10-bit mantissa); tf32, fp16
 * and bf16 do. */
const char *cuda_engine_refusal(const cuda_engine *engine, int dtype);

/* Whether two configurations are the same engine with the same knobs (mode A
 * and the fallback list overlap). */
bool cuda_engine_same(const cuda_engine *a, const cuda_engine *b);

/* cudnn-frontend's name of a configuration: "eng12_k2=1_k5=0". */
void cuda_engine_tag(const cuda_engine *engine, char *out, size_t size);

/* Its notes as words: "tensor_core,runtime_compilation" ("" when none). */
void cuda_engine_notes(const cuda_engine *engine, char *out, size_t size);

/* Configurations timed per convolution: PyTorch's benchmark_limit_cudnn. */
#define CUDA_AUTOTUNE_LIMIT 10
/* Plans finalized per convolution at most, those that then fail to run
 * included: a fallback list of refusals cannot compile (NVRTC) without end. */
#define CUDA_AUTOTUNE_ATTEMPTS 24

/* The configuration to keep from the times of those that ran (ms < 0: it
 * failed to run), in heuristics order: the fastest, the earlier one on a tie.
 * -1 when none ran. */
int cuda_autotune_pick(const double *ms, int n);

/* ---- the session's decisions ------------------------------------------------------------ */

/* What decides a convolution's algorithm: shapes, parameters (each side's
 * padding), element type, layout, math, the epilogue it carries
 * (cuda_epilogue_code), and the cuDNN API (sslat_cudnn_api) it goes through. */
#define CUDA_CONV_KEY_FIELDS 24
typedef struct cuda_conv_key {
    int64_t fields[CUDA_CONV_KEY_FIELDS];
} cuda_conv_key;

cuda_conv_key cuda_conv_key_of(sslat_shape in, sslat_shape out, const sslat_conv_params *conv, int dtype, bool nhwc,
                               int math, int epilogue, int api);

/* The epilogue of a conv step as one number of the key: the legacy fused
 * call (bit 0), a bias (1), a residual (2), the activation + 1 (bits 3-6),
 * and whether the graph API may fuse it (bit 7: fused mode). 0: none. */
int cuda_epilogue_code(bool fused_call, bool bias, bool residual, int act, bool may_fuse);

/* How a convolution step runs, once chosen. */
typedef enum cuda_conv_route {
    CUDA_ROUTE_LEGACY,        /* the legacy API: Find's algorithm (the fused call, or conv + own epilogue) */
    CUDA_ROUTE_GRAPH,         /* a graph-API plan of the convolution, then the own epilogue if the step has one */
    CUDA_ROUTE_GRAPH_FUSED,   /* a graph-API plan of the convolution with its epilogue as pointwise operations */
    CUDA_ROUTE_OWN_DEPTHWISE, /* kernels/depthwise.cu: the convolution and its epilogue in one own kernel */
} cuda_conv_route;

/* "legacy", "graph", "graph_fused", "own_depthwise" */
const char *cuda_route_name(cuda_conv_route route);

/* How the graph API chose a convolution's engine (for cuda.plan.* and the census). */
typedef struct cuda_graph_census {
    int32_t configs;      /* configurations the heuristics returned (mode A, then the fallback list, once each) */
    int32_t refused;      /* of those, refused for the dtype (cuda_engine_refusal) */
    int32_t unfinalized;  /* plans cuDNN would not finalize (shape not supported, no NVRTC, …) */
    int32_t timed;        /* plans timed by sslat's replays (at most CUDA_AUTOTUNE_LIMIT) */
    int32_t rank;         /* the winner's place among the timed, in heuristics order (0 = the first) */
    double winner_ms, first_ms; /* its median replay time, and the first timed one's */
    double finalize_ms;   /* host time finalizing plans, all of them */
    double compile_ms;    /* of which runtime-compiled (NVRTC) plans */
    /* the candidates beside each other, median replay ms (-1: not a candidate or none ran) */
    double plain_total_ms; /* the plain plan + the own epilogue (the plain plan alone when no epilogue) */
    double fused_ms;       /* the fastest fused graph plan */
    double own_ms;         /* the own depthwise kernel */
    int32_t fused_configs, fused_timed; /* the fused graph's configurations, and those that ran */
    int32_t fused_refused, fused_unfinalized; /* of its configurations: refused for the dtype, not finalized or run */
} cuda_graph_census;

/* A session's decisions, so each distinct convolution is timed by Find once
 * (OFA: 383 conv steps, 157 distinct). */
typedef struct cuda_conv_choice {
    cuda_conv_key key;
    int algo;
    size_t workspace;
    int math;
    bool fallback; /* the fused call took no algorithm: conv + own epilogue */
    bool fma_forced; /* fp32: Find reported no result with FMA math; Find's first runs with FMA set */
    int reported_maths; /* bit m: Find reported a successful result with cudnnMathType_t m (for cuda.plan.*) */
    /* the graph API (key's api): its engine, or why the legacy call runs instead */
    cuda_conv_route route;
    void *graph_plan;          /* struct cuda_graph_plan, owned by the session (routes GRAPH, GRAPH_FUSED) */
    bool from_disk;            /* taken from the persistent selection cache, not timed in this run */
    cuda_engine engine;
    cuda_graph_census census;
    char legacy_reason[320];   /* api graph and not graph: why the legacy call runs */
} cuda_conv_choice;

typedef struct cuda_find_cache {
    cuda_conv_choice *items;
    int count, capacity;
    sslat_key_index index;
    int hits, misses;
} cuda_find_cache;

/* The choice for key, or NULL (counts a hit or a miss). */
const cuda_conv_choice *cuda_find_cache_get(cuda_find_cache *cache, const cuda_conv_key *key);
sslat_status cuda_find_cache_put(cuda_find_cache *cache, const cuda_conv_choice *choice, sslat_error *err);
void cuda_find_cache_release(cuda_find_cache *cache);

/* cuDNN's legacy tensor descriptors hold at most 2^31 - 1 elements. */
#define SSLAT_CUDNN_MAX_ELEMENTS 2147483647LL

/* Before any descriptor or device allocation: every tensor of the graph
 * within cuDNN's element limit (SSLAT_ERR_LIMIT) and one copy's activations
 * and parameters within free_bytes (SSLAT_ERR_NOMEM); the message names the
 * tensor or the bytes. */
sslat_status cuda_check_sizes(const sslat_graph *graph, size_t elem_size, size_t free_bytes, sslat_error *err);

/* The shape a linear layer's columns come from: its input, or, through
 * flatten and identity, the 4-D tensor before them (in NHWC the flattened
 * vector is in (h, w, c) order, so the weights' columns are permuted to it). */
sslat_shape cuda_linear_source_shape(const sslat_graph *graph, int32_t linear_node);

#endif
