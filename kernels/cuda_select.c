#include "kernels/cuda_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "calc/options.h"

int cuda_pick_algorithm(const cuda_algo_result *results, int n, bool fp32_exact, cuda_algo_trial trial,
                        void *context, int *tried)
{
    *tried = 0;
    for (int k = 0; k < n; k++) {
        if (!results[k].succeeded) continue;
        if (fp32_exact && !results[k].fma_math) continue; /* fp32 stays fp32, whatever Find timed */
        if (!trial) return k;
        (*tried)++;
        if (trial(context, k)) return k;
    }
    return -1;
}

bool cuda_any_fma_result(const cuda_algo_result *results, int n)
{
    for (int k = 0; k < n; k++)
        if (results[k].succeeded && results[k].fma_math) return true;
    return false;
}

cuda_conv_key cuda_conv_key_of(sslat_shape in, sslat_shape out, const sslat_conv_params *c, int dtype, bool nhwc,
                               int math, int epilogue, int api)
{
    cuda_conv_key key;
    memset(&key, 0, sizeof key);
    sslat_pads pads = sslat_conv_pads(c, in);
    const int64_t fields[] = {in.n,      in.c,      in.h,        in.w,      out.n,        out.c,           out.h,
                              out.w,     c->kernel, c->stride,   pads.top,  pads.bottom,  pads.left,       pads.right,
                              c->dilation, c->groups, c->bias,   c->out_channels, dtype,  nhwc,            math,
                              epilogue, api,        0};
    _Static_assert(sizeof fields / sizeof fields[0] == CUDA_CONV_KEY_FIELDS, "every field of the key");
    memcpy(key.fields, fields, sizeof fields);
    return key;
}

int cuda_epilogue_code(bool fused_call, bool bias, bool residual, int act, bool may_fuse)
{
    return (fused_call ? 1 : 0) | (bias ? 2 : 0) | (residual ? 4 : 0) | ((act + 1) & 15) << 3 | (may_fuse ? 128 : 0);
}

const char *cuda_route_name(cuda_conv_route route)
{
    switch (route) {
    case CUDA_ROUTE_LEGACY: return "legacy";
    case CUDA_ROUTE_GRAPH: return "graph";
    case CUDA_ROUTE_GRAPH_FUSED: return "graph_fused";
    case CUDA_ROUTE_OWN_DEPTHWISE: return "own_depthwise";
    }
    return "?";
}

static uint64_t key_hash(const cuda_conv_key *key)
{
    sslat_hasher h;
    sslat_hash_begin(&h);
    for (int i = 0; i < CUDA_CONV_KEY_FIELDS; i++) sslat_hash_u64(&h, (uint64_t)key->fields[i]);
    return h.state;
}

const cuda_conv_choice *cuda_find_cache_get(cuda_find_cache *cache, const cuda_conv_key *key)
{
    long at = sslat_key_index_get(&cache->index, key_hash(key));
    /* the whole key is compared: a 64-bit hash collision must not mix two convolutions */
    if (at >= 0 && !memcmp(&cache->items[at].key, key, sizeof *key)) {
        cache->hits++;
        return &cache->items[at];
    }
    cache->misses++;
    return NULL;
}

sslat_status cuda_find_cache_put(cuda_find_cache *cache, const cuda_conv_choice *choice, sslat_error *err)
{
    if (cache->count == cache->capacity) {
        int next = cache->capacity ? 2 * cache->capacity : 64;
        cuda_conv_choice *grown = realloc(cache->items, (size_t)next * sizeof *grown);
        if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        cache->items = grown;
        cache->capacity = next;
    }
    if (!sslat_key_index_put(&cache->index, key_hash(&choice->key), cache->count))
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    cache->items[cache->count++] = *choice;
    return SSLAT_OK;
}

void cuda_find_cache_release(cuda_find_cache *cache)
{
    free(cache->items);
    sslat_key_index_release(&cache->index);
    memset(cache, 0, sizeof *cache);
}

static double parameter_count(const sslat_graph *g, const sslat_node *node)
{
    /* what a copy holds on the device for the node: weights, bias, BN statistics; attention's scores and
     * probabilities (N·heads·L² each, kernels/cuda_program.c) and its gathered position bias (heads·L²) */
    int64_t learnable = sslat_node_param_count(g, node);
    if (node->op == SSLAT_OP_ATTENTION) {
        const sslat_attention_params *a = sslat_node_attention(node);
        double per_image = (double)a->heads * node->shape.h * node->shape.h;
        return 2.0 * node->shape.n * per_image + (a->position_bias ? per_image : 0.0);
    }
    return (double)(node->op == SSLAT_OP_BATCHNORM ? 2 * learnable : learnable);
}

sslat_status cuda_check_sizes(const sslat_graph *g, size_t elem_size, size_t free_bytes, sslat_error *err)
{
    double bytes = (double)sslat_shape_elements(g->input) * (double)elem_size;
    if (sslat_shape_elements(g->input) > SSLAT_CUDNN_MAX_ELEMENTS)
        return sslat_fail(err, SSLAT_ERR_LIMIT,
                          "the input %dx%dx%dx%d has %lld elements, more than cuDNN's tensors hold (2^31 - 1)",
                          g->input.n, g->input.c, g->input.h, g->input.w, (long long)sslat_shape_elements(g->input));
    for (int32_t i = 0; i < g->count; i++) {
        const sslat_node *node = &g->nodes[i];
        int64_t elements = sslat_shape_elements(node->shape);
        if (elements > SSLAT_CUDNN_MAX_ELEMENTS)
            return sslat_fail(err, SSLAT_ERR_LIMIT,
                              "%s '%s' outputs %dx%dx%dx%d = %lld elements, more than cuDNN's tensors hold (2^31 - 1)",
                              sslat_op_name(node->op), node->name, node->shape.n, node->shape.c, node->shape.h,
                              node->shape.w, (long long)elements);
        bytes += ((double)elements + parameter_count(g, node)) * (double)elem_size;
    }
    if (bytes > (double)free_bytes)
        return sslat_fail(err, SSLAT_ERR_NOMEM, "one copy needs %.0f MB of device memory, %.0f MB are free",
                          bytes / 1048576.0, (double)free_bytes / 1048576.0);
    return SSLAT_OK;
}

sslat_shape cuda_linear_source_shape(const sslat_graph *g, int32_t linear_node)
{
    int32_t source = g->nodes[linear_node].input[0];
    while (source >= 0 && (g->nodes[source].op == SSLAT_OP_FLATTEN || g->nodes[source].op == SSLAT_OP_IDENTITY))
        source = g->nodes[source].input[0];
    return sslat_graph_shape_of(g, source);
}

/* ---- the graph API ----------------------------------------------------------------------- */

const char *cuda_engine_refusal(const cuda_engine *e, int dtype)
{
    if (e->numerical & CUDA_NOTE_DOWN_CONVERT_INPUTS) return "DOWN_CONVERT_INPUTS (computes on converted inputs)";
    if (dtype == SSLAT_DTYPE_FP32 && (e->numerical & CUDA_NOTE_TENSOR_CORE))
        return "TENSOR_CORE (TF32 inputs: fp32 stays fp32; --dtype tf32 allows it)";
    return NULL;
}

bool cuda_engine_same(const cuda_engine *a, const cuda_engine *b)
{
    if (a->global_index != b->global_index || a->knobs != b->knobs) return false;
    for (int32_t k = 0; k < a->knobs; k++)
        if (a->knob_type[k] != b->knob_type[k] || a->knob_value[k] != b->knob_value[k]) return false;
    return true;
}

void cuda_engine_tag(const cuda_engine *e, char *out, size_t size)
{
    size_t used = 0;
    int n = snprintf(out, size, "eng%lld", (long long)e->global_index);
    for (int32_t k = 0; n > 0 && (used += (size_t)n) < size && k < e->knobs; k++)
        n = snprintf(out + used, size - used, "_k%lld=%lld", (long long)e->knob_type[k], (long long)e->knob_value[k]);
}

void cuda_engine_notes(const cuda_engine *e, char *out, size_t size)
{
    static const struct {
        bool behavior;
        unsigned bit;
        const char *name;
    } NOTES[] = {
        {false, CUDA_NOTE_TENSOR_CORE, "tensor_core"},
        {false, CUDA_NOTE_DOWN_CONVERT_INPUTS, "down_convert_inputs"},
        {false, CUDA_NOTE_REDUCED_PRECISION_REDUCTION, "reduced_precision_reduction"},
        {false, CUDA_NOTE_FFT, "fft"},
        {false, CUDA_NOTE_NONDETERMINISTIC, "nondeterministic"},
        {false, CUDA_NOTE_WINOGRAD, "winograd"},
        {true, CUDA_BEHAVIOR_RUNTIME_COMPILATION, "runtime_compilation"},
        {true, CUDA_BEHAVIOR_SUPPORTS_CUDA_GRAPH_NATIVE_API, "cuda_graph_native"},
        {true, CUDA_BEHAVIOR_CUBLASLT_DEPENDENCY, "cublaslt"},
    };
    size_t used = 0;
    if (size) out[0] = '\0';
    for (size_t i = 0; i < sizeof NOTES / sizeof NOTES[0]; i++) {
        if (!((NOTES[i].behavior ? e->behavior : e->numerical) & NOTES[i].bit) || used >= size) continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? "," : "", NOTES[i].name);
        if (n > 0) used += (size_t)n;
    }
}

int cuda_autotune_pick(const double *ms, int n)
{
    int best = -1;
    for (int k = 0; k < n; k++)
        if (ms[k] >= 0 && (best < 0 || ms[k] < ms[best])) best = k;
    return best;
}
