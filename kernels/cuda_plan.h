/* The cuda backend's lowering plan: which library call computes which IR
 * nodes of a subgraph. Pure host code (no GPU needed), so the fusion rules are
 * unit-tested anywhere; kernels/cuda_program.c turns a plan into descriptors
 * and buffers, kernels/cuda_launch.c launches it. */
#ifndef SSLAT_CUDA_PLAN_H
#define SSLAT_CUDA_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "calc/calculator.h"
#include "ir/graph.h"

typedef enum cuda_step_kind {
    CUDA_STEP_CONV,        /* cuDNN convolution; fused: + folded BN bias, residual, activation */
    CUDA_STEP_BATCHNORM,   /* cudnnBatchNormalizationForwardInference (eager) */
    CUDA_STEP_ACT,         /* cudnnActivationForward, or an own kernel for the others */
    CUDA_STEP_ADD,         /* own kernel: a + b, with an activation when fused */
    CUDA_STEP_MUL_CHANNEL, /* own kernel: SE scaling x · s[n, c] */
    CUDA_STEP_GLOBAL_AVGPOOL, /* own kernel */
    CUDA_STEP_POOL,        /* cudnnPoolingForward, max or average */
    CUDA_STEP_LINEAR,      /* cublasGemmEx; + bias and activation epilogue */
    CUDA_STEP_SHUFFLE,     /* own kernel */
    CUDA_STEP_ALIAS,       /* flatten / identity: no work, the output is the input's buffer */
    CUDA_STEP_CONCAT,      /* own kernel: one channel copy per input */
    CUDA_STEP_SLICE,       /* own kernel: one channel copy */
    CUDA_STEP_UPSAMPLE,    /* own kernel: nearest, integer scale */
    CUDA_STEP_SPACE_TO_DEPTH, /* own kernel: YOLOv5's Focus slicing */
    CUDA_STEP_INPUT,       /* a layer's other source timed alone: seeded values written once, no work */
    /* token tensors N×L×C, stored token after token in either image layout */
    CUDA_STEP_TOKENS,      /* own kernel from NCHW; from NHWC an alias (the same bytes) */
    CUDA_STEP_LAYERNORM,   /* own kernel: a warp per token */
    CUDA_STEP_ATTENTION,   /* cublasGemmStridedBatchedEx (q·kᵀ), own softmax, cublasGemmStridedBatchedEx (p·v) */
    CUDA_STEP_CLASS_TOKEN, /* own kernel */
    CUDA_STEP_POSITION_EMBED, /* own kernel: x + the embedding, every image */
    CUDA_STEP_TOKEN_POOL,  /* own kernels: a channel copy (the class token) or the global pool (the mean) */
    CUDA_STEP_LEAKY_RELU,  /* own kernel */
    CUDA_STEP_IMAGE,       /* tokens to an image: own kernel to NCHW; to NHWC an alias (the same bytes) */
    CUDA_STEP_LAYER_SCALE, /* own kernel: x · γ per channel */
} cuda_step_kind;

/* How the step's main work and its epilogue (bias, residual, activation) run. */
typedef enum cuda_call {
    CUDA_CALL_CUDNN_CONV,          /* cudnnConvolutionForward */
    CUDA_CALL_CUDNN_CONV_BIAS_ACT, /* cudnnConvolutionBiasActivationForward: conv + bias (+ z) + relu */
    CUDA_CALL_CUDNN_GRAPH_CONV,    /* cudnnBackendExecute: a graph-API plan of the convolution */
    CUDA_CALL_CUDNN_BATCHNORM,
    CUDA_CALL_CUDNN_ACT,           /* relu, relu6 (clipped relu), sigmoid, tanh */
    CUDA_CALL_CUDNN_POOL,
    CUDA_CALL_CUBLAS_GEMM,         /* cublasGemmEx, then the own epilogue (bias, activation) */
    CUDA_CALL_CUBLASLT_MATMUL,     /* cublasLtMatmul with the bias (and ReLU / tanh-GELU) as its epilogue */
    CUDA_CALL_CUBLAS_ATTENTION,    /* two cublasGemmStridedBatchedEx and the own softmax */
    CUDA_CALL_CUBLAS_ATTENTION_BIAS, /* the same with the position bias added to the scores (own kernel) */
    CUDA_CALL_KERNEL,              /* one of kernels/ */
    CUDA_CALL_NONE,
} cuda_call;

typedef struct cuda_step {
    cuda_step_kind kind;
    cuda_call call;
    int32_t node;        /* the IR node whose value the step produces (the last one it covers) */
    int32_t main_node;   /* the node of the main op (conv / linear / …) */
    int32_t input[2];    /* values read: node indices, SSLAT_GRAPH_INPUT or SSLAT_NO_INPUT */
    int32_t bn_node;     /* folded BN (fused conv), else -1 */
    int32_t residual;    /* value added before the activation (fused), else SSLAT_NO_INPUT */
    int32_t act;         /* fused / own activation (sslat_act_kind), or -1 */
    bool bias;           /* conv / linear: a bias (its own or the folded BN's) */
    bool epilogue;       /* a separate own-kernel epilogue after the main call */
} cuda_step;

typedef struct cuda_plan {
    cuda_step *steps;
    int32_t count;
    int32_t output; /* the value that is the subgraph's output */
} cuda_plan;

/* Whether cuBLASLt's epilogue computes an activation (sslat_act_kind) itself:
 * ReLU and GELU's tanh form (its GELU is the tanh approximation, which PyTorch
 * fuses for GELU(approximate="tanh") only). */
bool cuda_cublaslt_fuses(int32_t act);

/* A linear step on call (cublasGemmEx or cuBLASLt), with the own epilogue
 * kernel for what that call leaves: all of bias and activation after
 * cublasGemmEx, an activation cuBLASLt does not fuse after cuBLASLt. */
void cuda_plan_linear_call(cuda_step *s, cuda_call call);

/* The plan's linear steps on cuBLASLt: the bias, and an activation it fuses,
 * in its epilogue; another activation an own kernel after it. */
void cuda_plan_use_cublaslt(cuda_plan *plan);

/* Plan a subgraph. fused: BN folded into the conv before it, a residual add and
 * an activation that only that conv feeds merged into its epilogue (on the
 * legacy API one cuDNN call for relu, the convolution plus one own kernel
 * otherwise; on the graph API the convolution's plan plus the own kernel), an
 * activation after an add or a linear merged into them. eager: one step per
 * node. api: sslat_cuda_api. A convolution padded one side more than the other
 * is refused on the legacy API (its descriptor pads both sides alike). */
/* Whether an op has a cuda lowering (the calculator's supports_op). */
bool cuda_plan_supports(const sslat_node *node);

sslat_status cuda_plan_build(const sslat_graph *graph, sslat_exec_mode mode, sslat_cudnn_api api, cuda_plan *plan,
                             sslat_error *err);
void cuda_plan_release(cuda_plan *plan);

/* Whether cuDNN's activation descriptor has this function (else: own kernel). */
bool cuda_cudnn_has_act(int32_t act);

/* Whether no step of the plan launches work (a skip: only aliases and
 * inputs): such a unit is 0, as on the cpu backend, not an empty graph's replay. */
bool cuda_plan_launches_nothing(const cuda_plan *plan);

/* The library calls of a plan, one per step, "; "-separated (for metadata and
 * tests): e.g. "cudnnConvolutionBiasActivationForward(relu); sslat_add".
 * routes (a cuda_conv_route per step, or NULL before the choice): a
 * convolution on a fused graph reads "cudnnBackendExecute(conv) fusing
 * (bias,relu)", one on the own kernel "sslat_depthwise with (bias,relu)". */
size_t cuda_plan_describe(const cuda_plan *plan, const int *routes, char *buffer, size_t capacity);

#endif
