/* One convolution through cuDNN's graph (backend) API (kernels/cuda_graph.h
 * says what each step is). Every descriptor this file makes is destroyed by
 * the release function of the struct that holds it, also after a failure
 * part of the way. */
#include "kernels/cuda_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* the note bits of kernels/cuda_select.h are cuDNN's enum values */
_Static_assert(CUDA_NOTE_TENSOR_CORE == 1u << CUDNN_NUMERICAL_NOTE_TENSOR_CORE, "note numbering");
_Static_assert(CUDA_NOTE_DOWN_CONVERT_INPUTS == 1u << CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, "note numbering");
_Static_assert(CUDA_NOTE_WINOGRAD == 1u << CUDNN_NUMERICAL_NOTE_WINOGRAD, "note numbering");
_Static_assert((int)CUDA_NUMERICAL_NOTE_COUNT == (int)CUDNN_NUMERICAL_NOTE_TYPE_COUNT, "note numbering");
_Static_assert(CUDA_BEHAVIOR_RUNTIME_COMPILATION == 1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION, "note numbering");
_Static_assert(CUDA_BEHAVIOR_CUBLASLT_DEPENDENCY == 1u << CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY, "note numbering");
_Static_assert((int)CUDA_BEHAVIOR_NOTE_COUNT == (int)CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, "note numbering");
_Static_assert(CUDA_MAX_KNOBS == (int)CUDNN_KNOB_TYPE_COUNTS, "knob count");

const char *cuda_graph_unavailable(void)
{
    return sslat_cuda_api.graph_missing[0] ? sslat_cuda_api.graph_missing : NULL;
}

/* A library call named by what it did ("cudnnBackendSetAttribute(CUDNN_ATTR_TENSOR_STRIDES)"). */
static sslat_status checked_at(cudnnStatus_t code, const char *call, const char *what, int line, sslat_error *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s(%s)", call, what);
    return cuda_check_cudnn(code, name, __FILE__, line, err);
}
#define checked(code, call, what, err) checked_at((code), (call), (what), __LINE__, (err))

#define RETURN_IF(status)                        \
    do {                                         \
        sslat_status returned_ = (status);       \
        if (returned_ != SSLAT_OK) return returned_; \
    } while (0)
#define SET(d, name, type, count, value) \
    RETURN_IF(checked(CUDNN(cudnnBackendSetAttribute)((d), (name), (type), (count), (value)), \
                      "cudnnBackendSetAttribute", #name, err))
#define CREATE(type, out) \
    RETURN_IF(checked(CUDNN(cudnnBackendCreateDescriptor)((type), (out)), "cudnnBackendCreateDescriptor", #type, err))
#define FINALIZE(d, what) RETURN_IF(checked(CUDNN(cudnnBackendFinalize)(d), "cudnnBackendFinalize", what, err))

void cuda_graph_destroy(cudnnBackendDescriptor_t d)
{
    if (d) CUDNN(cudnnBackendDestroyDescriptor)(d);
}

static cudnnDataType_t data_type(sslat_dtype dtype)
{
    /* tf32 is fp32 storage: the engines' notes decide whether TF32 math runs */
    return dtype == SSLAT_DTYPE_FP16 ? CUDNN_DATA_HALF : dtype == SSLAT_DTYPE_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* A 4-D tensor: dimensions in N, C, H, W order whatever the layout; the
 * layout is in the strides (channels last: C has stride 1). */
static sslat_status tensor(int64_t uid, const int64_t dims[4], bool channels_last, cudnnDataType_t type,
                           cudnnBackendDescriptor_t *out, sslat_error *err)
{
    int64_t c = dims[1], h = dims[2], w = dims[3];
    int64_t strides[4] = {c * h * w, h * w, w, 1};
    if (channels_last) strides[0] = h * w * c, strides[1] = 1, strides[2] = w * c, strides[3] = c;
    int64_t alignment = 16; /* every buffer starts 256-byte aligned in its copy's slab */
    CREATE(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out);
    SET(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    SET(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    SET(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    SET(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    FINALIZE(*out, "CUDNN_BACKEND_TENSOR_DESCRIPTOR");
    return SSLAT_OK;
}

void cuda_graph_conv_release(cuda_graph_conv *c)
{
    cudnnBackendDescriptor_t all[] = {c->graph, c->op, c->conv, c->x, c->w, c->y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cuda_graph_destroy(all[i]);
    memset(c, 0, sizeof *c);
}

sslat_status cuda_graph_conv_build(cudnnHandle_t handle, const cuda_graph_problem *p, cuda_graph_conv *c,
                                   sslat_error *err)
{
    memset(c, 0, sizeof *c);
    cudnnDataType_t type = data_type(p->dtype);
    const int64_t x_dims[4] = {p->in.n, p->in.c, p->in.h, p->in.w};
    const int64_t y_dims[4] = {p->out.n, p->out.c, p->out.h, p->out.w};
    /* filters K × C/groups × R × S: KRSC beside NHWC (the layout of the weights sslat uploads), KCRS beside NCHW */
    const int64_t w_dims[4] = {p->out.c, p->in.c / p->groups, p->kernel, p->kernel};
    RETURN_IF(tensor(CUDA_GRAPH_UID_X, x_dims, p->nhwc, type, &c->x, err));
    RETURN_IF(tensor(CUDA_GRAPH_UID_W, w_dims, p->nhwc, type, &c->w, err));
    RETURN_IF(tensor(CUDA_GRAPH_UID_Y, y_dims, p->nhwc, type, &c->y, err));

    /* compute in float for every dtype (PyTorch does so for half and bfloat16) */
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    int64_t spatial = 2, pre[2] = {p->pads.top, p->pads.left}, post[2] = {p->pads.bottom, p->pads.right};
    int64_t dilations[2] = {p->dilation, p->dilation}, strides[2] = {p->stride, p->stride};
    CREATE(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c->conv);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pre);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilations);
    SET(c->conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides);
    FINALIZE(c->conv, "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR");

    /* y = 1 · conv(x, w) + 0 · y; groups are X's channels over W's, no attribute of their own */
    float alpha = 1.0f, beta = 0.0f;
    CREATE(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &c->op);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->x);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->w);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->y);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->conv);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    SET(c->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    FINALIZE(c->op, "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR");

    /* the handle attribute is deprecated in cuDNN 9 in favour of a device
     * property descriptor (9.8+), and still what cudnn-frontend sets */
    CREATE(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &c->graph);
    SET(c->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->op);
    SET(c->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    FINALIZE(c->graph, "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR");
    return SSLAT_OK;
}

/* ---- engine configurations ----------------------------------------------------------- */

/* Note bits from an engine's list of notes. */
static sslat_status read_notes(cudnnBackendDescriptor_t engine, cudnnBackendAttributeName_t name,
                               cudnnBackendAttributeType_t type, int64_t capacity, unsigned *bits, sslat_error *err)
{
    int32_t notes[32]; /* cuDNN's note enums are ints; fewer than 32 of each kind */
    int64_t count = 0;
    RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(engine, name, type, capacity, &count, notes),
                      "cudnnBackendGetAttribute", type == CUDNN_TYPE_NUMERICAL_NOTE ? "CUDNN_ATTR_ENGINE_NUMERICAL_NOTE"
                                                                                     : "CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE",
                      err));
    *bits = 0;
    for (int64_t i = 0; i < count && i < capacity; i++)
        if (notes[i] >= 0 && notes[i] < 32) *bits |= 1u << notes[i];
    return SSLAT_OK;
}

/* What a configuration is: its engine's index and notes, its knob choices,
 * read into descriptors made for it (cuDNN writes into the caller's; as
 * cudnn-frontend, a fresh engine and fresh knob choices for each). */
static sslat_status read_config(cudnnBackendDescriptor_t config, cudnnBackendDescriptor_t engine,
                                cudnnBackendDescriptor_t *knobs, cuda_engine *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t count = 0;
    RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &engine),
                      "cudnnBackendGetAttribute", "CUDNN_ATTR_ENGINECFG_ENGINE", err));
    RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                                      &count, &out->global_index),
                      "cudnnBackendGetAttribute", "CUDNN_ATTR_ENGINE_GLOBAL_INDEX", err));
    RETURN_IF(read_notes(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                         CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &out->numerical, err));
    RETURN_IF(read_notes(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                         CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &out->behavior, err));
    int64_t n_knobs = 0;
    RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDA_MAX_KNOBS, &n_knobs, knobs),
                      "cudnnBackendGetAttribute", "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES", err));
    for (int64_t k = 0; k < n_knobs && k < CUDA_MAX_KNOBS; k++) {
        cudnnBackendKnobType_t type;
        int64_t value = 0;
        RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(knobs[k], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                                          CUDNN_TYPE_KNOB_TYPE, 1, &count, &type),
                          "cudnnBackendGetAttribute", "CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE", err));
        RETURN_IF(checked(CUDNN(cudnnBackendGetAttribute)(knobs[k], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                                                          CUDNN_TYPE_INT64, 1, &count, &value),
                          "cudnnBackendGetAttribute", "CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE", err));
        out->knob_type[out->knobs] = (int64_t)type;
        out->knob_value[out->knobs++] = value;
    }
    return SSLAT_OK;
}

static sslat_status describe_config(cudnnBackendDescriptor_t config, cuda_engine *out, sslat_error *err)
{
    cudnnBackendDescriptor_t engine = NULL, knobs[CUDA_MAX_KNOBS] = {NULL};
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_ENGINE_DESCRIPTOR", err);
    for (int k = 0; status == SSLAT_OK && k < CUDA_MAX_KNOBS; k++)
        status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knobs[k]),
                         "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR", err);
    if (status == SSLAT_OK) status = read_config(config, engine, knobs, out, err);
    for (int k = 0; k < CUDA_MAX_KNOBS; k++) cuda_graph_destroy(knobs[k]);
    cuda_graph_destroy(engine);
    return status;
}

/* A growing list of configurations (the caller releases it, whatever happens). */
typedef struct config_list {
    cuda_graph_config *items;
    int32_t count, capacity;
} config_list;

/* The configurations of one heuristics mode appended, each unless already
 * there. A mode cuDNN refuses for this graph adds none (not an error: the
 * other mode or the legacy API may still compute it). */
static sslat_status add_mode(const cuda_graph_conv *c, cudnnBackendHeurMode_t mode, bool fallback, config_list *list,
                             sslat_error *err)
{
    cudnnBackendDescriptor_t heuristics = NULL;
    cudnnBackendDescriptor_t *results = NULL;
    int64_t available = 0, returned = 0;
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heuristics),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->graph),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE,
                                                         1, &mode),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_ENGINEHEUR_MODE", err);
    /* a mode with nothing for this graph: no configurations from it */
    if (status == SSLAT_OK && CUDNN(cudnnBackendFinalize)(heuristics) != CUDNN_STATUS_SUCCESS) goto done;
    /* how many there are (a request for 0), then that many configuration
     * descriptors made first: cuDNN writes into the caller's descriptors */
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendGetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available, NULL),
                         "cudnnBackendGetAttribute", "CUDNN_ATTR_ENGINEHEUR_RESULTS", err);
    if (status == SSLAT_OK && available > 0) {
        results = calloc((size_t)available, sizeof *results);
        if (!results) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; status == SSLAT_OK && i < available; i++)
            status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &results[i]),
                             "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR", err);
        if (status == SSLAT_OK)
            status = checked(CUDNN(cudnnBackendGetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, available, &returned,
                                                             results),
                             "cudnnBackendGetAttribute", "CUDNN_ATTR_ENGINEHEUR_RESULTS", err);
    }
    for (int64_t i = 0; status == SSLAT_OK && i < returned && i < available; i++) {
        cuda_engine info;
        status = describe_config(results[i], &info, err);
        info.fallback = fallback;
        bool seen = false;
        for (int32_t j = 0; status == SSLAT_OK && j < list->count; j++) seen = seen || cuda_engine_same(&list->items[j].engine, &info);
        if (status != SSLAT_OK || seen) continue;
        if (list->count == list->capacity) {
            int32_t next = list->capacity ? 2 * list->capacity : 16;
            cuda_graph_config *grown = realloc(list->items, (size_t)next * sizeof *grown);
            if (!grown) {
                status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
                break;
            }
            list->items = grown;
            list->capacity = next;
        }
        list->items[list->count++] = (cuda_graph_config){results[i], info};
        results[i] = NULL; /* the list owns it now */
    }
done:
    for (int64_t i = 0; results && i < available; i++) cuda_graph_destroy(results[i]);
    free(results);
    cuda_graph_destroy(heuristics);
    return status;
}

sslat_status cuda_graph_configs(const cuda_graph_conv *c, cuda_graph_config **out, int32_t *count, sslat_error *err)
{
    *out = NULL;
    *count = 0;
    config_list list = {0};
    /* mode A (cudnn-frontend's "heuristics_instant" is A too), then the fallback list */
    sslat_status status = add_mode(c, CUDNN_HEUR_MODE_A, false, &list, err);
    if (status == SSLAT_OK) status = add_mode(c, CUDNN_HEUR_MODE_FALLBACK, true, &list, err);
    if (status != SSLAT_OK) {
        cuda_graph_configs_release(list.items, list.count);
        return status;
    }
    *out = list.items;
    *count = list.count;
    return SSLAT_OK;
}

void cuda_graph_configs_release(cuda_graph_config *configs, int32_t count)
{
    for (int32_t i = 0; configs && i < count; i++) cuda_graph_destroy(configs[i].config);
    free(configs);
}

/* ---- plans, variant packs, execution ------------------------------------------------------ */

sslat_status cuda_graph_plan_finalize(cudnnHandle_t handle, cudnnBackendDescriptor_t config,
                                      cudnnBackendDescriptor_t *plan, size_t *workspace, sslat_error *err)
{
    *plan = NULL;
    *workspace = 0;
    cudnnBackendDescriptor_t made = NULL;
    int64_t bytes = 0, count = 0;
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &made),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                                         &handle),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_EXECUTION_PLAN_HANDLE", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendFinalize)(made), "cudnnBackendFinalize", "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR",
                         err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendGetAttribute)(made, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                         CUDNN_TYPE_INT64, 1, &count, &bytes),
                         "cudnnBackendGetAttribute", "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE", err);
    if (status == SSLAT_OK && bytes < 0)
        status = sslat_fail(err, SSLAT_ERR_DEVICE, "cuDNN reported a workspace of %lld bytes", (long long)bytes);
    if (status != SSLAT_OK) {
        cuda_graph_destroy(made);
        return status;
    }
    *plan = made;
    *workspace = (size_t)bytes;
    return SSLAT_OK;
}

sslat_status cuda_graph_pack(void *x, const void *w, void *y, void *workspace, cudnnBackendDescriptor_t *pack,
                             sslat_error *err)
{
    const int64_t uids[3] = {CUDA_GRAPH_UID_X, CUDA_GRAPH_UID_W, CUDA_GRAPH_UID_Y};
    void *pointers[3] = {x, (void *)w, y};
    *pack = NULL;
    cudnnBackendDescriptor_t made = NULL;
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &made),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3,
                                                         uids),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                                         CUDNN_TYPE_VOID_PTR, 3, pointers),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
                                                         1, &workspace),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_VARIANT_PACK_WORKSPACE", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendFinalize)(made), "cudnnBackendFinalize", "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR",
                         err);
    if (status != SSLAT_OK) {
        cuda_graph_destroy(made);
        return status;
    }
    *pack = made;
    return SSLAT_OK;
}

sslat_status cuda_graph_execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack,
                                sslat_error *err)
{
    return checked(CUDNN(cudnnBackendExecute)(handle, plan, pack), "cudnnBackendExecute", "convolution", err);
}

void cuda_graph_plan_release(cuda_graph_plan *p)
{
    cuda_graph_destroy(p->plan);
    cuda_graph_destroy(p->config);
    cuda_graph_conv_release(&p->conv);
    memset(p, 0, sizeof *p);
}
