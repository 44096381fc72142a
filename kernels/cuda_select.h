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

/* What decides a convolution's algorithm: shapes, parameters, element type,
 * layout, math, and whether it runs as the fused call. */
#define CUDA_CONV_KEY_FIELDS 20
typedef struct cuda_conv_key {
    int64_t fields[CUDA_CONV_KEY_FIELDS];
} cuda_conv_key;

cuda_conv_key cuda_conv_key_of(sslat_shape in, sslat_shape out, const sslat_conv_params *conv, int dtype, bool nhwc,
                               int math, bool fused_call);

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
