/* The cuda backend: a session (device, stream, cuDNN and cuBLAS handles,
 * workspace), programs (a subgraph's plan with its descriptors, parameters and
 * buffers, in one or many copies) and their measurement with CUDA graphs and
 * events. Compiled only when CUDA is found (engine/cuda_stub.c otherwise). */
#ifndef SSLAT_CUDA_BACKEND_H
#define SSLAT_CUDA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <nvtx3/nvToolsExt.h>

#include "calc/calculator.h"
#include "kernels/cuda_api.h"
#include "kernels/cuda_env.h"
#include "kernels/cuda_plan.h"
#include "kernels/cuda_select.h"
#include "kernels/cuda_selection.h"
#include "table/container.h"

struct cuda_graph_plan;
struct cuda_graph_conv;

/* Where a cuda run's wall time goes (cuda.time.* in the metadata): every
 * moment from opening the session to describing the table counts to exactly
 * one phase, so the phases add up to the wall time. */
typedef enum cuda_phase {
    CUDA_PHASE_OPEN,    /* context, libraries, handles, clocks warmed up */
    CUDA_PHASE_SELECT,  /* each convolution's algorithm or engine: Find, heuristics, plans, their timing */
    CUDA_PHASE_PREPARE, /* descriptors, parameters, buffers, variant packs, the eager run, the copies decided */
    CUDA_PHASE_CAPTURE, /* stream capture and graph instantiation */
    CUDA_PHASE_MEASURE, /* warmup and timed replays (and --profile's) */
    CUDA_PHASE_OUTSIDE, /* between the backend's calls: the engine's own work (journal, progress, tables) */
    CUDA_PHASE_COUNT
} cuda_phase;

/* One unit's line of the metadata: its plan with the chosen algorithms. */
typedef struct cuda_unit_note {
    char key[160];
    char value[2048]; /* the plan and every convolution's choice (OFA's SE units: five) */
} cuda_unit_note;

typedef struct cuda_session {
    sslat_device_choice choice;
    struct cudaDeviceProp props;
    cudaStream_t stream;
    cudnnHandle_t cudnn;
    cublasHandle_t cublas;
    cublasLtHandle_t cublaslt; /* NULL without cuBLASLt: the linears run cublasGemmEx */
    int cublaslt_fallbacks;    /* linear steps (of every program built) with no cuBLASLt algorithm: cublasGemmEx */
    cudaEvent_t start, stop;
    void *workspace; /* shared by every step: the largest any algorithm asked for */
    size_t workspace_size;
    void *cublas_workspace;
    void *flush;     /* cold mode: an L2-sized buffer written before each sample */
    size_t free_at_start, total_memory;
    unsigned sm_clock_start, memory_clock_start, temperature_start;
    nvml_device nvml;
    nvtxDomainHandle_t nvtx;
    cuda_unit_note *notes;
    int n_notes, notes_capacity;
    int noisy_units, units;
    double worst_noise;
    cuda_find_cache find_cache;   /* each distinct convolution's algorithm or graph plan, decided once */
    cuda_selection_cache selection; /* the decisions of earlier runs on this device, kept on disk */
    int graph_convs, legacy_convs; /* distinct convolutions asked for the graph API: on graph plans, on the legacy API */
    double phase_s[CUDA_PHASE_COUNT]; /* seconds per phase so far */
    cuda_phase phase;             /* the phase the time counts to now */
    double phase_mark, opened_at; /* sslat_now_s() of the last switch, of the session's start */
    int fused_fallbacks;          /* fused calls that no algorithm took: conv + own epilogue */
    int fused_graphs, own_depthwise; /* graph-API decisions that kept a fused graph, the own depthwise kernel */
    int find_runs;                /* convolutions cuDNN's Find timed (the legacy API, not from the selection cache) */
    int fma_forced;               /* fp32 convolutions where Find reported no FMA result: FMA set on Find's first */
    int relaxed_captures;         /* captures that needed cudaStreamCaptureModeRelaxed */
    int blocked_samples, unblocked_samples; /* hot samples behind the blocking kernel, and those it timed out on */
    int32_t *block_flags;         /* host-mapped: [0] release, [1] timed out */
    int32_t *block_flags_device;
} cuda_session;

sslat_status cuda_session_open(cuda_session *session, const sslat_calc_options *options, sslat_error *err);
void cuda_session_close(cuda_session *session);
/* The shared workspace, grown to at least bytes. */
sslat_status cuda_session_workspace(cuda_session *session, size_t bytes, void **out, sslat_error *err);
/* The most workspace a convolution may have: a quarter of what was free at
 * the start, at most 1 GiB (what Find may try; engines needing more are not timed). */
size_t cuda_session_workspace_limit(const cuda_session *session);
/* Device, software and option metadata into the container. */
sslat_status cuda_session_describe(cuda_session *session, const sslat_calc_options *options,
                                   sslat_container *container, sslat_error *err);

/* From now on the session's time counts to phase; returns the phase it
 * counted to before (to go back to it). */
cuda_phase cuda_phase_enter(cuda_session *session, cuda_phase phase);

/* NVTX: categories of the ranges, and a range with a message and a payload. */
enum { CUDA_NVTX_CONSTANT = 1, CUDA_NVTX_BLOCK = 2, CUDA_NVTX_PHASE = 3 };
void cuda_nvtx_push(const cuda_session *session, const char *message, uint32_t category, int64_t payload);
void cuda_nvtx_pop(const cuda_session *session);

/* Per step: descriptors and the algorithm chosen. */
typedef struct cuda_step_state {
    cudnnTensorDescriptor_t x, y, bias, bn;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act;
    cudnnPoolingDescriptor_t pool;
    cudnnConvolutionFwdAlgo_t algo;
    cudnnMathType_t math;
    size_t workspace;
    bool fallback;     /* a fused call no algorithm took: runs as the plain convolution + own epilogue */
    cuda_conv_route route; /* how the convolution runs (its decision's) */
    const struct cuda_graph_plan *graph; /* the graph API's plan (the session's), or NULL: the legacy calls */
    int32_t choice;    /* its decision in the session's find_cache (-1: none) */
    bool fma_forced;   /* fp32: Find reported no FMA result; FMA is set on the one chosen */
    int reported_maths; /* bit m: Find reported a successful result with math type m */
    int32_t params[4]; /* indices into the program's parameters, -1 when unused */
    cublasLtMatmulDesc_t lt_desc;       /* a linear on cuBLASLt (kernels/cuda_linear.c), else NULL */
    cublasLtMatrixLayout_t lt_layout[3]; /* W, X, Y */
    cublasLtMatmulAlgo_t lt_algo;        /* the heuristic's first */
    size_t lt_workspace;                 /* what it needs of the session's cuBLAS workspace */
} cuda_step_state;

/* A parameter tensor: prepared on the host (seeded, BN folded, laid out,
 * converted), uploaded into every copy. */
typedef struct cuda_param {
    void *host;
    size_t bytes;
} cuda_param;

typedef struct cuda_program {
    cuda_session *session;
    const sslat_graph *graph;
    cuda_plan plan;
    cuda_step_state *states;
    sslat_dtype dtype;
    int elem;       /* SSLAT_ELEM_* of kernels/ops.h */
    size_t elem_size;
    bool nhwc;
    uint64_t seed;
    int32_t n_values;     /* node outputs + the input (value v = node + 1) */
    size_t *value_bytes;  /* 0: no buffer (merged into a step, or an alias) */
    int32_t *value_alias; /* value whose buffer it shares, or itself */
    cuda_param *params;
    int32_t n_params, params_capacity;
    int32_t copies;
    void **values; /* [copies][n_values] device pointers */
    void **param_buffers; /* [copies][n_params] */
    void **slabs;         /* [n_slabs]: the allocations holding the copies' values and parameters */
    int32_t n_slabs;      /* one per cuda_program_allocate that added copies */
    size_t copy_bytes;    /* device bytes of one copy */
    bool algorithms_chosen;
    sslat_cudnn_api api;   /* the cuDNN API convolutions are asked of */
    sslat_exec_mode mode;  /* fused: the graph API may fuse a convolution's epilogue */
    cudnnBackendDescriptor_t *packs; /* [copies][steps]: graph steps' variant packs, NULL elsewhere */
    int32_t packed_copies;           /* copies whose packs are made */
    void *packs_workspace;           /* the session workspace they name */
} cuda_program;

/* Plan a subgraph, build its descriptors and prepare its parameters. */
sslat_status cuda_program_init(cuda_program *program, cuda_session *session, const sslat_graph *graph,
                               const sslat_calc_options *options, sslat_error *err);
void cuda_program_release(cuda_program *program);
/* Device buffers for `copies` copies (inputs seeded per copy, parameters uploaded). */
sslat_status cuda_program_allocate(cuda_program *program, int32_t copies, sslat_error *err);
/* Every convolution's algorithm: from the session's cache, or (legacy API)
 * cuDNN's Find on copy 0 (fastest first; fp32 kept on FMA math; a fused call
 * trial-run with each until one works, else the plain convolution + own
 * epilogue), or (graph API) the fastest of the first engine configurations
 * timed by sslat (kernels/cuda_graph_choice.c), the legacy API where the graph
 * API cannot compute it. */
sslat_status cuda_program_choose_algorithms(cuda_program *program, sslat_error *err);
/* Launch every step of one copy on the session's stream (capturable). */
sslat_status cuda_program_enqueue(cuda_program *program, int32_t copy, sslat_error *err);
/* Copy 0's output as float in NCHW order (N·C·H·W values). */
sslat_status cuda_program_read_output(cuda_program *program, float *out, sslat_error *err);
/* "cudnnConvolutionForward[IMPLICIT_PRECOMP_GEMM, ws 0 B, default math] + …" */
void cuda_program_describe(const cuda_program *program, char *buffer, size_t capacity);

/* The graph steps' variant packs of every copy allocated that has none
 * (after the algorithms are chosen; before any capture). */
sslat_status cuda_program_pack(cuda_program *program, sslat_error *err);
/* The variant pack of conv step k's buffers in one copy for a plan of
 * graph (plain or fused), with the session's workspace (also for the plans
 * the choice tries on copy 0). */
sslat_status cuda_program_step_pack(const cuda_program *program, int32_t k, int32_t copy,
                                    const struct cuda_graph_conv *graph, cudnnBackendDescriptor_t *pack,
                                    sslat_error *err);

/* Conv step k of one copy through the own depthwise kernel with its whole
 * epilogue, and the own epilogue alone after a plain convolution
 * (kernels/cuda_launch.c; on the session's stream, capturable). */
cudaError_t cuda_launch_own_depthwise(const cuda_program *program, int32_t k, int32_t copy);
cudaError_t cuda_launch_own_epilogue(const cuda_program *program, int32_t k, int32_t copy);
/* Whether conv step k is depthwise (one filter per channel, as many out as in). */
bool cuda_step_is_depthwise(const cuda_program *program, int32_t k);

/* Conv step k's engine through the graph API (kernels/cuda_graph_choice.c):
 * choice->graph and its plan, or choice->legacy_reason when the graph API
 * cannot compute it (the caller runs the legacy choice then). */
sslat_status cuda_graph_choose(cuda_program *program, int32_t k, cuda_conv_choice *choice, sslat_error *err);

/* Conv step k's decision from a kept entry of the selection cache (routes
 * graph, graph_fused, own_depthwise): its plan built from the engine's index
 * and knobs and finalized; *works false when that no longer works (the
 * engine is gone, the step is not the same kind): stale, decided again. */
sslat_status cuda_graph_restore(cuda_program *program, int32_t k, const cuda_selection_entry *kept,
                                cuda_conv_choice *choice, bool *works, sslat_error *err);

/* What fn enqueues on the session's stream, run once, captured, replayed:
 * the median of three replays after the first, in ms (kernels/cuda_measure.c). */
sslat_status cuda_time_calls(cuda_session *session, sslat_status (*fn)(void *context, sslat_error *err), void *context,
                             double *ms, sslat_error *err);

/* Measure a program: choose algorithms, copies per replay (hot) or an L2 flush
 * per sample (cold), warmup, samples with events. entry per sample (÷ batch). */
sslat_status cuda_measure_program(cuda_program *program, int32_t batch, const sslat_calc_options *options,
                                  const char *label, uint32_t category, int64_t payload, sslat_entry *entry,
                                  sslat_error *err);

#endif
