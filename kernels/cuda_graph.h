/* One convolution through cuDNN's graph (backend) API, in plain C: its
 * operation graph (tensors with NCHW-ordered dimensions and the layout in the
 * strides, a convolution descriptor with separate pre and post paddings),
 * the engine configurations cuDNN's heuristics offer for it (mode A, then
 * the fallback list), execution plans, variant packs and execution. The
 * choice among the plans (timed by sslat's own replays) is
 * kernels/cuda_graph_choice.c. The call sequence follows cudnn-frontend's
 * builders (include/cudnn_frontend_*.h) and PyTorch's Conv_v8.cpp. */
#ifndef SSLAT_CUDA_GRAPH_H
#define SSLAT_CUDA_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "calc/options.h"
#include "ir/graph.h"
#include "kernels/cuda_api.h"
#include "kernels/cuda_select.h"

/* What one convolution is, as its graph describes it. */
typedef struct cuda_graph_problem {
    sslat_shape in, out;
    int32_t kernel, stride, dilation, groups;
    sslat_pads pads; /* each side its own: the graph API takes pre and post paddings */
    sslat_dtype dtype;
    bool nhwc;
    /* fused: the step's epilogue in the graph too, as pointwise operations
     * after the convolution (+ bias, + the residual, the activation) */
    bool fused, bias, residual;
    int32_t act; /* sslat_act_kind, or -1 */
} cuda_graph_problem;

/* The tensors' unique ids in every convolution graph (PyTorch's 'x', 'w',
 * 'y'; its fused graph's bias 'b' and residual 'z'), the fused graph's
 * virtual intermediates and by-value scalars. */
enum {
    CUDA_GRAPH_UID_X = 'x', CUDA_GRAPH_UID_W = 'w', CUDA_GRAPH_UID_Y = 'y', CUDA_GRAPH_UID_B = 'b',
    CUDA_GRAPH_UID_Z = 'z', CUDA_GRAPH_UID_VIRTUAL = 1001, CUDA_GRAPH_UID_SCALAR = 2001
};

#define CUDA_GRAPH_MAX_PARTS 96
#define CUDA_GRAPH_MAX_OPS 8
#define CUDA_GRAPH_MAX_SCALARS 2

/* A convolution's operation graph, finalized, with the descriptors it is
 * made of, and what its variant pack must name besides x, w and y. */
typedef struct cuda_graph_conv {
    cudnnBackendDescriptor_t parts[CUDA_GRAPH_MAX_PARTS]; /* tensors, descriptors, operations */
    int32_t n_parts;
    cudnnBackendDescriptor_t ops[CUDA_GRAPH_MAX_OPS];
    int32_t n_ops;
    cudnnBackendDescriptor_t graph;
    bool fused, bias, residual;  /* the graph computes the epilogue; it reads a bias, a residual */
    float scalars[CUDA_GRAPH_MAX_SCALARS]; /* by-value constants, packed by their address */
    int64_t scalar_uids[CUDA_GRAPH_MAX_SCALARS];
    int32_t n_scalars;
} cuda_graph_conv;

/* Whether an activation has a pointwise form in a fused graph (-1: none needed). */
bool cuda_graph_fuses_act(int32_t act);

/* An engine configuration the heuristics returned, and what it is. */
typedef struct cuda_graph_config {
    cudnnBackendDescriptor_t config;
    cuda_engine engine;
} cuda_graph_config;

/* A finalized execution plan, kept with the graph and configuration it was
 * made from (cudnn-frontend keeps them alive together too); what it is, its
 * engine and workspace, is in the session's cuda_conv_choice. */
typedef struct cuda_graph_plan {
    cuda_graph_conv conv;
    cudnnBackendDescriptor_t config, plan;
} cuda_graph_plan;

/* NULL when the graph API is there, else why not. */
const char *cuda_graph_unavailable(void);

/* The finalized operation graph of one convolution. On failure *out holds
 * what was made (cuda_graph_conv_release frees it). */
sslat_status cuda_graph_conv_build(cudnnHandle_t handle, const cuda_graph_problem *problem, cuda_graph_conv *out,
                                   sslat_error *err);
void cuda_graph_conv_release(cuda_graph_conv *conv);

/* The graph's engine configurations: heuristics mode A, then the fallback
 * list, each configuration once, in that order, with their notes and knobs.
 * A mode that cuDNN refuses adds none; *count may be 0. */
sslat_status cuda_graph_configs(const cuda_graph_conv *conv, cuda_graph_config **out, int32_t *count,
                                sslat_error *err);
void cuda_graph_configs_release(cuda_graph_config *configs, int32_t count);

/* The configuration of an engine known by its global index and knobs (a
 * kept selection), for the graph, and *actual: that engine with the notes
 * cuDNN gives it now; the engine and knob descriptors are kept with the
 * graph. cuDNN refuses an engine it does not have for the graph. */
sslat_status cuda_graph_config_of(cuda_graph_conv *conv, const cuda_engine *engine, cudnnBackendDescriptor_t *config,
                                  cuda_engine *actual, sslat_error *err);

/* An execution plan of one configuration, finalized (outside any capture:
 * it may compile), and its workspace. cuDNN may refuse: its status and
 * message come back in err, and *plan is NULL. */
sslat_status cuda_graph_plan_finalize(cudnnHandle_t handle, cudnnBackendDescriptor_t config,
                                      cudnnBackendDescriptor_t *plan, size_t *workspace, sslat_error *err);

/* One copy's buffers as a graph reads them (bias: the element type, for a fused graph). */
typedef struct cuda_graph_buffers {
    void *x, *y;
    const void *w, *bias, *residual;
} cuda_graph_buffers;

/* The variant pack of one copy's buffers (made before any capture); the
 * graph's by-value scalars by their address in *conv, which must not move
 * while the pack lives. */
sslat_status cuda_graph_pack(const cuda_graph_conv *conv, const cuda_graph_buffers *buffers, void *workspace,
                             cudnnBackendDescriptor_t *pack, sslat_error *err);

/* The plan on the handle's stream with one copy's pack (capturable). */
sslat_status cuda_graph_execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack,
                                sslat_error *err);

void cuda_graph_destroy(cudnnBackendDescriptor_t descriptor);
void cuda_graph_plan_release(cuda_graph_plan *plan);

#endif
