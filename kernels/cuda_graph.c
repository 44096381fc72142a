/* One convolution through cuDNN's graph (backend) API (kernels/cuda_graph.h
 * says what each step is). Every descriptor this file makes is destroyed by
 * the release function of the struct that holds it, also after a failure
 * part of the way. */
#include "kernels/cuda_graph.h"

#include <float.h>
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
 * layout is in the strides (channels last: C has stride 1). A virtual one
 * (an intermediate of a fused graph) has no memory; a by-value one is a
 * host scalar the variant pack points at. */
typedef enum tensor_kind { TENSOR_REAL, TENSOR_VIRTUAL, TENSOR_BY_VALUE } tensor_kind;

static sslat_status tensor(cuda_graph_conv *c, int64_t uid, const int64_t dims[4], bool channels_last,
                           cudnnDataType_t type, tensor_kind kind, cudnnBackendDescriptor_t *out, sslat_error *err)
{
    if (c->n_parts == CUDA_GRAPH_MAX_PARTS) return sslat_fail(err, SSLAT_ERR_LIMIT, "a convolution graph of more "
                                                              "than %d descriptors", CUDA_GRAPH_MAX_PARTS);
    int64_t ch = dims[1], h = dims[2], w = dims[3];
    int64_t strides[4] = {ch * h * w, h * w, w, 1};
    if (channels_last) strides[0] = h * w * ch, strides[1] = 1, strides[2] = w * ch, strides[3] = ch;
    int64_t alignment = 16; /* every buffer starts 256-byte aligned in its copy's slab */
    bool is_virtual = kind == TENSOR_VIRTUAL, by_value = kind == TENSOR_BY_VALUE;
    CREATE(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out);
    c->parts[c->n_parts++] = *out; /* released with the graph, whatever happens next */
    SET(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    SET(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    SET(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    SET(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    if (is_virtual) SET(*out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value) SET(*out, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    FINALIZE(*out, "CUDNN_BACKEND_TENSOR_DESCRIPTOR");
    return SSLAT_OK;
}

/* A descriptor kept with the graph (released with it). */
static sslat_status part(cuda_graph_conv *c, cudnnBackendDescriptorType_t type, const char *name,
                         cudnnBackendDescriptor_t *out, sslat_error *err)
{
    if (c->n_parts == CUDA_GRAPH_MAX_PARTS) return sslat_fail(err, SSLAT_ERR_LIMIT, "a convolution graph of more "
                                                              "than %d descriptors", CUDA_GRAPH_MAX_PARTS);
    RETURN_IF(checked(CUDNN(cudnnBackendCreateDescriptor)(type, out), "cudnnBackendCreateDescriptor", name, err));
    c->parts[c->n_parts++] = *out;
    return SSLAT_OK;
}

void cuda_graph_conv_release(cuda_graph_conv *c)
{
    cuda_graph_destroy(c->graph);
    for (int32_t i = c->n_parts - 1; i >= 0; i--) cuda_graph_destroy(c->parts[i]);
    memset(c, 0, sizeof *c);
}

bool cuda_graph_fuses_act(int32_t act)
{
    switch ((sslat_act_kind)act) {
    case SSLAT_ACT_RELU: case SSLAT_ACT_RELU6: case SSLAT_ACT_HSWISH: case SSLAT_ACT_HSIGMOID: case SSLAT_ACT_SIGMOID:
    case SSLAT_ACT_SILU: case SSLAT_ACT_GELU: case SSLAT_ACT_TANH: return true;
    case SSLAT_ACT_GELU_TANH: return false; /* its own kernel, after the graph */
    case SSLAT_ACT_COUNT: break;
    }
    return act == -1;
}

/* The convolution operation: y = 1 · conv(x, w) + 0 · y (fusion engines
 * take alpha 1 and beta 0 only); groups are X's channels over W's. */
static sslat_status conv_operation(cuda_graph_conv *c, const cuda_graph_problem *p, cudnnBackendDescriptor_t x,
                                   cudnnBackendDescriptor_t w, cudnnBackendDescriptor_t y, sslat_error *err)
{
    /* compute in float for every dtype (PyTorch does so for half and bfloat16) */
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    int64_t spatial = 2, pre[2] = {p->pads.top, p->pads.left}, post[2] = {p->pads.bottom, p->pads.right};
    int64_t dilations[2] = {p->dilation, p->dilation}, strides[2] = {p->stride, p->stride};
    cudnnBackendDescriptor_t conv, op;
    RETURN_IF(part(c, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR", &conv, err));
    SET(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    SET(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
    SET(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pre);
    SET(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post);
    SET(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilations);
    SET(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides);
    FINALIZE(conv, "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR");
    float alpha = 1.0f, beta = 0.0f;
    RETURN_IF(part(c, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                   "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR", &op, err));
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    FINALIZE(op, "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR");
    c->ops[c->n_ops++] = op;
    return SSLAT_OK;
}

/* One pointwise operation y = mode(x[, b]) in float, as cudnn-frontend's
 * builders set it (clips as doubles; alpha1 = alpha2 = 1, which fusion
 * engines require). A relu's clips bound it below and above (relu6). */
static sslat_status pointwise(cuda_graph_conv *c, cudnnPointwiseMode_t mode, double lower, double upper,
                              cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y,
                              sslat_error *err)
{
    if (c->n_ops == CUDA_GRAPH_MAX_OPS) return sslat_fail(err, SSLAT_ERR_LIMIT, "more than %d operations",
                                                          CUDA_GRAPH_MAX_OPS);
    cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t pw, op;
    RETURN_IF(part(c, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "CUDNN_BACKEND_POINTWISE_DESCRIPTOR", &pw, err));
    SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision);
    if (mode == CUDNN_POINTWISE_RELU_FWD) {
        SET(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &lower);
        SET(pw, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper);
    }
    if (mode == CUDNN_POINTWISE_SWISH_FWD) {
        double beta = 1.0; /* silu: x · sigmoid(1 · x) */
        SET(pw, CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, 1, &beta);
    }
    FINALIZE(pw, "CUDNN_BACKEND_POINTWISE_DESCRIPTOR");
    float one = 1.0f;
    RETURN_IF(part(c, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR", &op,
                   err));
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one);
    SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one);
    FINALIZE(op, "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR");
    c->ops[c->n_ops++] = op;
    return SSLAT_OK;
}

/* A by-value float scalar (hswish's 3 and 1/6), in the variant pack by its host address. */
static sslat_status scalar(cuda_graph_conv *c, float value, cudnnBackendDescriptor_t *out, sslat_error *err)
{
    static const int64_t one[4] = {1, 1, 1, 1};
    int32_t i = c->n_scalars;
    if (i == CUDA_GRAPH_MAX_SCALARS) return sslat_fail(err, SSLAT_ERR_LIMIT, "more than %d scalars", i);
    c->scalars[i] = value;
    c->scalar_uids[i] = CUDA_GRAPH_UID_SCALAR + i;
    c->n_scalars++;
    return tensor(c, c->scalar_uids[i], one, false, CUDNN_DATA_FLOAT, TENSOR_BY_VALUE, out, err);
}

/* The epilogue as pointwise operations on the convolution's float result v:
 * + bias (a 1×K×1×1 tensor), + the residual, then the activation; the last
 * operation writes y. hswish and hsigmoid have no mode of their own: v·relu6(v+3)/6
 * and relu6(v+3)/6, from ADD, RELU_FWD clipped to [0, 6] and MUL. */
static sslat_status epilogue_ops(cuda_graph_conv *c, const cuda_graph_problem *p, cudnnBackendDescriptor_t v,
                                 cudnnBackendDescriptor_t y, cudnnDataType_t type, sslat_error *err)
{
    const int64_t dims[4] = {p->out.n, p->out.c, p->out.h, p->out.w}, bias_dims[4] = {1, p->out.c, 1, 1};
    int64_t next_uid = CUDA_GRAPH_UID_VIRTUAL;
    /* the steps still to come after each one decide whether it writes y or a new virtual tensor */
    int32_t act_ops = p->act == SSLAT_ACT_HSWISH ? 4 : p->act == SSLAT_ACT_HSIGMOID ? 3 : p->act >= 0 ? 1 : 0;
    int32_t left = (p->bias ? 1 : 0) + (p->residual ? 1 : 0) + act_ops;
#define NEXT(out)                                                                                            \
    do {                                                                                                     \
        if (--left == 0) (out) = y;                                                                          \
        else RETURN_IF(tensor(c, next_uid++, dims, p->nhwc, CUDNN_DATA_FLOAT, TENSOR_VIRTUAL, &(out), err)); \
    } while (0)
    cudnnBackendDescriptor_t out = NULL, operand = NULL;
    if (p->bias) {
        RETURN_IF(tensor(c, CUDA_GRAPH_UID_B, bias_dims, p->nhwc, type, TENSOR_REAL, &operand, err));
        NEXT(out);
        RETURN_IF(pointwise(c, CUDNN_POINTWISE_ADD, 0, 0, v, operand, out, err));
        v = out;
    }
    if (p->residual) {
        RETURN_IF(tensor(c, CUDA_GRAPH_UID_Z, dims, p->nhwc, type, TENSOR_REAL, &operand, err));
        NEXT(out);
        RETURN_IF(pointwise(c, CUDNN_POINTWISE_ADD, 0, 0, v, operand, out, err));
        v = out;
    }
    cudnnBackendDescriptor_t three = NULL, sixth = NULL, clipped = NULL, scaled = NULL;
    switch ((sslat_act_kind)p->act) {
    case SSLAT_ACT_RELU: NEXT(out); return pointwise(c, CUDNN_POINTWISE_RELU_FWD, 0.0, FLT_MAX, v, NULL, out, err);
    case SSLAT_ACT_RELU6: NEXT(out); return pointwise(c, CUDNN_POINTWISE_RELU_FWD, 0.0, 6.0, v, NULL, out, err);
    case SSLAT_ACT_SIGMOID: NEXT(out); return pointwise(c, CUDNN_POINTWISE_SIGMOID_FWD, 0, 0, v, NULL, out, err);
    case SSLAT_ACT_TANH: NEXT(out); return pointwise(c, CUDNN_POINTWISE_TANH_FWD, 0, 0, v, NULL, out, err);
    case SSLAT_ACT_SILU: NEXT(out); return pointwise(c, CUDNN_POINTWISE_SWISH_FWD, 0, 0, v, NULL, out, err);
    case SSLAT_ACT_GELU: NEXT(out); return pointwise(c, CUDNN_POINTWISE_GELU_FWD, 0, 0, v, NULL, out, err);
    case SSLAT_ACT_HSWISH:
    case SSLAT_ACT_HSIGMOID:
        RETURN_IF(scalar(c, 3.0f, &three, err));
        RETURN_IF(scalar(c, 1.0f / 6.0f, &sixth, err));
        NEXT(out);
        RETURN_IF(pointwise(c, CUDNN_POINTWISE_ADD, 0, 0, v, three, out, err));
        NEXT(clipped);
        RETURN_IF(pointwise(c, CUDNN_POINTWISE_RELU_FWD, 0.0, 6.0, out, NULL, clipped, err));
        NEXT(scaled);
        RETURN_IF(pointwise(c, CUDNN_POINTWISE_MUL, 0, 0, clipped, sixth, scaled, err));
        if (p->act == SSLAT_ACT_HSIGMOID) return SSLAT_OK;
        NEXT(out);
        return pointwise(c, CUDNN_POINTWISE_MUL, 0, 0, scaled, v, out, err);
    case SSLAT_ACT_GELU_TANH: /* not fused (cuda_graph_fuses_act) */
    case SSLAT_ACT_COUNT: break;
    }
#undef NEXT
    return SSLAT_OK; /* no activation: the last add wrote y */
}

sslat_status cuda_graph_conv_build(cudnnHandle_t handle, const cuda_graph_problem *p, cuda_graph_conv *c,
                                   sslat_error *err)
{
    memset(c, 0, sizeof *c);
    if (p->fused && !cuda_graph_fuses_act(p->act))
        return sslat_fail(err, SSLAT_ERR_UNSUPPORTED, "activation %d has no pointwise form", (int)p->act);
    bool epilogue = p->fused && (p->bias || p->residual || p->act >= 0);
    cudnnDataType_t type = data_type(p->dtype);
    const int64_t x_dims[4] = {p->in.n, p->in.c, p->in.h, p->in.w};
    const int64_t y_dims[4] = {p->out.n, p->out.c, p->out.h, p->out.w};
    /* filters K × C/groups × R × S: KRSC beside NHWC (the layout of the weights sslat uploads), KCRS beside NCHW */
    const int64_t w_dims[4] = {p->out.c, p->in.c / p->groups, p->kernel, p->kernel};
    cudnnBackendDescriptor_t x, w, y, v;
    RETURN_IF(tensor(c, CUDA_GRAPH_UID_X, x_dims, p->nhwc, type, TENSOR_REAL, &x, err));
    RETURN_IF(tensor(c, CUDA_GRAPH_UID_W, w_dims, p->nhwc, type, TENSOR_REAL, &w, err));
    RETURN_IF(tensor(c, CUDA_GRAPH_UID_Y, y_dims, p->nhwc, type, TENSOR_REAL, &y, err));
    /* fused: the convolution's result stays in float, inside the engine */
    if (epilogue) RETURN_IF(tensor(c, CUDA_GRAPH_UID_VIRTUAL - 1, y_dims, p->nhwc, CUDNN_DATA_FLOAT, TENSOR_VIRTUAL, &v,
                                   err));
    RETURN_IF(conv_operation(c, p, x, w, epilogue ? v : y, err));
    if (epilogue) RETURN_IF(epilogue_ops(c, p, v, y, type, err));
    c->fused = epilogue;
    c->bias = epilogue && p->bias;
    c->residual = epilogue && p->residual;

    /* the handle attribute is deprecated in cuDNN 9 in favour of a device
     * property descriptor (9.8+), and still what cudnn-frontend sets */
    CREATE(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &c->graph);
    SET(c->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->n_ops, c->ops);
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

sslat_status cuda_graph_config_of(cuda_graph_conv *c, const cuda_engine *engine, cudnnBackendDescriptor_t *config,
                                  cuda_engine *actual, sslat_error *err)
{
    *config = NULL;
    cudnnBackendDescriptor_t made, knobs[CUDA_MAX_KNOBS];
    /* the engine and its knob choices live with the graph: the configuration refers to them */
    RETURN_IF(part(c, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "CUDNN_BACKEND_ENGINE_DESCRIPTOR", &made, err));
    SET(made, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c->graph);
    SET(made, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &engine->global_index);
    FINALIZE(made, "CUDNN_BACKEND_ENGINE_DESCRIPTOR");
    /* its notes as this cuDNN says them, not as a file kept them */
    *actual = *engine;
    RETURN_IF(read_notes(made, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                         CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &actual->numerical, err));
    RETURN_IF(read_notes(made, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT,
                         &actual->behavior, err));
    for (int32_t k = 0; k < engine->knobs; k++) {
        cudnnBackendKnobType_t type = (cudnnBackendKnobType_t)engine->knob_type[k];
        RETURN_IF(part(c, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR", &knobs[k], err));
        SET(knobs[k], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type);
        SET(knobs[k], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &engine->knob_value[k]);
        FINALIZE(knobs[k], "CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR");
    }
    cudnnBackendDescriptor_t cfg = NULL;
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                                         1, &made),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_ENGINECFG_ENGINE", err);
    if (status == SSLAT_OK && engine->knobs > 0)
        status = checked(CUDNN(cudnnBackendSetAttribute)(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, engine->knobs, knobs),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendFinalize)(cfg), "cudnnBackendFinalize", "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR",
                         err);
    if (status != SSLAT_OK) {
        cuda_graph_destroy(cfg);
        return status;
    }
    *config = cfg;
    return SSLAT_OK;
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

sslat_status cuda_graph_pack(const cuda_graph_conv *c, const cuda_graph_buffers *b, void *workspace,
                             cudnnBackendDescriptor_t *pack, sslat_error *err)
{
    int64_t uids[5 + CUDA_GRAPH_MAX_SCALARS] = {CUDA_GRAPH_UID_X, CUDA_GRAPH_UID_W, CUDA_GRAPH_UID_Y};
    void *pointers[5 + CUDA_GRAPH_MAX_SCALARS] = {b->x, (void *)b->w, b->y};
    int64_t n = 3;
    if (c->bias) uids[n] = CUDA_GRAPH_UID_B, pointers[n++] = (void *)b->bias;
    if (c->residual) uids[n] = CUDA_GRAPH_UID_Z, pointers[n++] = (void *)b->residual;
    /* by-value scalars: the host address of each value */
    for (int32_t i = 0; i < c->n_scalars; i++) uids[n] = c->scalar_uids[i], pointers[n++] = (void *)&c->scalars[i];
    *pack = NULL;
    cudnnBackendDescriptor_t made = NULL;
    sslat_status status = checked(CUDNN(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &made),
                                  "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n,
                                                         uids),
                         "cudnnBackendSetAttribute", "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS", err);
    if (status == SSLAT_OK)
        status = checked(CUDNN(cudnnBackendSetAttribute)(made, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                                         CUDNN_TYPE_VOID_PTR, n, pointers),
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
