// The stand-in cuDNN graph (backend) API: every cudnnBackendDescriptor_t a
// typed attribute store, checked when it is set (the attribute belongs to the
// descriptor type, its type and element count are right, the descriptor is
// live and not finalized) and validated when it is finalized; engine
// heuristics that answer from a scripted engine list (StandinScript::engines);
// execution plans that finalize or refuse as scripted; variant packs checked
// against the plan's graph at execution; execution by a naive convolution over
// the tensors' own strides, costing the engine's scripted time on the
// stand-in clock. A TENSOR_CORE-noted engine rounds fp32 inputs to TF32 and a
// DOWN_CONVERT_INPUTS one to fp16, as the notes say such engines compute: an
// fp32 table that took one fails its accuracy bound.
//
// What it models is what sslat builds: graphs of convolution-forward
// operations, tensors of 4 dimensions. Heuristics offer engines for a graph
// of one convolution only.
//
// Sources, named in each rule:
// - the cuDNN 9 API reference, cudnn_graph library: the descriptor types'
//   attributes and their types (cudnn_graph.h of cuDNN 9.19, read), and the
//   "Returns" lists of cudnnBackendSetAttribute, cudnnBackendGetAttribute,
//   cudnnBackendFinalize and cudnnBackendExecute as recalled (their cuDNN 9
//   wording was not re-read here: GRAPH_API below says so);
// - the cuDNN 9 developer guide, Graph API: "Graphs with more than one
//   operation node do not support in-place operations" (backend v9.7.0);
// - NVIDIA's forum answer on fusion engines ("we only support alpha1 ==
//   alpha2 == 1 … for fusion use cases, we require beta to always be 0");
// - marked "stand-in rule": what sslat's lowering relies on and no page
//   states (dense NCHW / NHWC strides, a filter in its input's layout, no
//   heuristics or plan finalize inside a stream capture, as for Find).
#include "standin.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include <cublas_v2.h>

extern "C" {
#include "kernels/cuda_api.h"
}

namespace {

const char *const GRAPH_API = "cuDNN 9 cudnn_graph library (wording recalled, not re-read)";
const char *const STANDIN_RULE = "stand-in rule";

struct Value {
    cudnnBackendAttributeType_t type;
    int64_t count;
    std::vector<uint8_t> bytes;
    template <typename T>
    T at(int64_t i) const
    {
        T v;
        std::memcpy(&v, bytes.data() + (size_t)i * sizeof(T), sizeof v);
        return v;
    }
};

struct TensorInfo {
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    int64_t dims[4] = {0, 0, 0, 0}, strides[4] = {0, 0, 0, 0};
    int64_t uid = 0, alignment = 0;
    bool is_virtual = false, by_value = false;
    size_t element() const { return type == CUDNN_DATA_FLOAT ? 4 : 2; }
    // the bytes from the first element to the last, whatever the strides
    size_t span() const
    {
        int64_t last = 0;
        for (int i = 0; i < 4; i++) last += (dims[i] - 1) * strides[i];
        return (size_t)(last + 1) * element();
    }
    // the layout, where the strides tell it: channels and pixels both more than one
    bool layout_known() const { return dims[1] > 1 && dims[2] * dims[3] > 1; }
    bool channels_last() const { return strides[1] == 1; }
    bool same(const TensorInfo &o) const
    {
        return type == o.type && !std::memcmp(dims, o.dims, sizeof dims) && !std::memcmp(strides, o.strides, sizeof strides) &&
               is_virtual == o.is_virtual && by_value == o.by_value;
    }
};

// A convolution (x, w → y) or a pointwise operation (x[, b] → y; w holds b).
struct OpInfo {
    bool pointwise = false;
    TensorInfo x, w, y;
    int64_t pre[2] = {0, 0}, post[2] = {0, 0}, dilation[2] = {1, 1}, stride[2] = {1, 1};
    cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
    bool binary = false;
    double lower = 0, upper = 0, swish_beta = 1;
    std::vector<const TensorInfo *> inputs() const
    {
        if (pointwise) return binary ? std::vector<const TensorInfo *>{&x, &w} : std::vector<const TensorInfo *>{&x};
        return {&x, &w};
    }
};

struct Descriptor {
    cudnnBackendDescriptorType_t type;
    bool finalized = false;
    std::map<int, Value> attributes;
    // what finalize (or cuDNN's writing into it) derived
    TensorInfo tensor;              // a tensor
    OpInfo op;                      // a convolution's parameters, then its operation
    std::vector<OpInfo> ops;        // an operation graph, a heuristics query, a configuration, a plan
    cudnnHandle_t handle = nullptr; // an operation graph's or a plan's
    std::vector<StandinEngine> results; // a heuristics query's answer
    StandinEngine engine{};         // an engine configuration's, an engine's, a plan's
    int64_t knob_type = 0, knob_value = 0; // a knob choice
    size_t workspace = 0;           // a plan's
    // what a plan was made from (its configuration, and the graph the
    // heuristics answered for), kept alive while it lives (stand-in rule)
    Descriptor *config_of = nullptr, *graph_of = nullptr;
};

std::set<Descriptor *> &live()
{
    static std::set<Descriptor *> descriptors;
    return descriptors;
}

Descriptor *live_descriptor(cudnnBackendDescriptor_t d)
{
    return live().count((Descriptor *)d) ? (Descriptor *)d : nullptr;
}

// The attributes the stand-in models: whose they are, their type, how many elements.
struct AttributeRule {
    cudnnBackendDescriptorType_t owner;
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t min, max;
    bool read_only = false; // derived by cuDNN: got, never set
};

const AttributeRule ATTRIBUTES[] = {
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, 1},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 1, 8},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 1, 8},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, 1},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, 1},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, 1},
    {CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, 1},
    {CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, 1},
    {CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, 1},
    {CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
     1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
     1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
     1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, 1},
    {CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, 1},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, 1},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, 1},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 1, 6},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 1, 6},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 1, 6},
    {CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 1, 6},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
     CUDNN_TYPE_FLOAT, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
     CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
     CUDNN_TYPE_FLOAT, 1, 1},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
     CUDNN_TYPE_DOUBLE, 1, 1},
    {CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 64},
    {CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, 1},
    {CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, 1},
    {CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 1 << 20, true},
    {CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
     CUDNN_KNOB_TYPE_COUNTS},
    {CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, 1},
    {CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1},
    {CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 0,
     CUDNN_NUMERICAL_NOTE_TYPE_COUNT, true},
    {CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 0,
     CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, true},
    {CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, 1},
    {CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, 1},
    {CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
     1},
    {CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, 1},
    {CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, 1, true},
    {CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 1, 64},
    {CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 1, 64},
    {CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, 1},
};

size_t type_size(cudnnBackendAttributeType_t type)
{
    switch (type) {
    case CUDNN_TYPE_INT64:
    case CUDNN_TYPE_DOUBLE:
    case CUDNN_TYPE_VOID_PTR:
    case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return 8;
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    default: return 4; // FLOAT and the enums
    }
}

// The rule an attribute name and type break for a descriptor type, or nullptr.
const AttributeRule *attribute_rule(cudnnBackendDescriptorType_t owner, cudnnBackendAttributeName_t name,
                                    cudnnBackendAttributeType_t type, const char **broken)
{
    bool named = false;
    for (const AttributeRule &rule : ATTRIBUTES) {
        if (rule.owner != owner || rule.name != name) continue;
        named = true;
        if (rule.type == type) return &rule;
    }
    *broken = named ? "backendAttributeType" : "backendAttributeOfDescriptor";
    return nullptr;
}

cudnnStatus_t broken(const char *rule, const char *doc, const char *what, int name)
{
    standin_rule(rule, doc, "%s (attribute %d)", what, name);
    return CUDNN_STATUS_BAD_PARAM;
}

const Value *attribute(const Descriptor *d, cudnnBackendAttributeName_t name)
{
    auto it = d->attributes.find((int)name);
    return it == d->attributes.end() ? nullptr : &it->second;
}

// A referenced descriptor (an operand, the graph, …): live, of its type, finalized.
Descriptor *operand(const Descriptor *d, cudnnBackendAttributeName_t name, cudnnBackendDescriptorType_t type,
                    int64_t i = 0)
{
    const Value *v = attribute(d, name);
    if (!v || i >= v->count) return nullptr;
    Descriptor *o = live_descriptor(v->at<cudnnBackendDescriptor_t>(i));
    return o && o->type == type && o->finalized ? o : nullptr;
}

// Stand-in rule, as for Find: heuristics and a plan's finalize may compile
// (NVRTC) and allocate, which a stream capture cannot hold: refused, and the
// capture invalidated. True when it was refused.
bool refused_in_capture(cudnnHandle_t handle, const char *rule, const char *what)
{
    if (!handle || !standin_capturing(handle->stream)) return false;
    standin_invalidate(handle->stream);
    standin_rule(rule, STANDIN_RULE, "%s inside a stream capture", what);
    return true;
}

// ---- finalize, per descriptor type ------------------------------------------------------------

cudnnStatus_t finalize_tensor(Descriptor *d)
{
    const Value *type = attribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE), *dims = attribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS),
                *strides = attribute(d, CUDNN_ATTR_TENSOR_STRIDES), *uid = attribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID),
                *alignment = attribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
    // CUDNN_BACKEND_TENSOR_DESCRIPTOR: data type, dimensions, strides, unique
    // id and byte alignment are required; dimensions and strides of one count
    if (!type || !dims || !strides || !uid || !alignment || dims->count != strides->count) {
        standin_rule("tensorRequired", GRAPH_API, "a tensor without its data type, dimensions, strides (as many), "
                     "unique id or byte alignment");
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (dims->count != 4) {
        standin_set_last_error("stand-in: 4-D tensors only");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    TensorInfo &t = d->tensor;
    t.type = type->at<cudnnDataType_t>(0);
    t.uid = uid->at<int64_t>(0);
    t.alignment = alignment->at<int64_t>(0);
    const Value *is_virtual = attribute(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL);
    t.is_virtual = is_virtual && is_virtual->at<bool>(0);
    const Value *by_value = attribute(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE);
    t.by_value = by_value && by_value->at<bool>(0);
    if (t.by_value && t.is_virtual) {
        standin_rule("tensorByValue", GRAPH_API, "a tensor both virtual and by value");
        return CUDNN_STATUS_BAD_PARAM;
    }
    int64_t elements = 1;
    for (int i = 0; i < 4; i++) {
        t.dims[i] = dims->at<int64_t>(i), t.strides[i] = strides->at<int64_t>(i);
        if (t.dims[i] <= 0 || t.strides[i] <= 0) {
            standin_rule("tensorDims", GRAPH_API, "dimension %d is %lld with stride %lld (both > 0)", i,
                         (long long)t.dims[i], (long long)t.strides[i]);
            return CUDNN_STATUS_BAD_PARAM;
        }
        elements *= t.dims[i];
    }
    if (elements > 0x7fffffffLL) {
        standin_rule("tensorDims", GRAPH_API, "%lld elements, more than 2^31 - 1", (long long)elements);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (t.alignment <= 0 || (t.alignment & (t.alignment - 1))) {
        standin_rule("tensorAlignment", GRAPH_API, "byte alignment %lld is not a power of two", (long long)t.alignment);
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (t.type != CUDNN_DATA_FLOAT && t.type != CUDNN_DATA_HALF && t.type != CUDNN_DATA_BFLOAT16) {
        standin_rule("tensorType", STANDIN_RULE, "data type %d (float, half and bfloat16 only)", (int)t.type);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // stand-in rule: the dimensions are N, C, H, W in that order and the
    // strides a dense NCHW or NHWC tensor (the two layouts sslat uses)
    const int64_t *n = t.dims;
    const int64_t nchw[4] = {n[1] * n[2] * n[3], n[2] * n[3], n[3], 1}, nhwc[4] = {n[1] * n[2] * n[3], 1, n[3] * n[1], n[1]};
    if (std::memcmp(t.strides, nchw, sizeof nchw) && std::memcmp(t.strides, nhwc, sizeof nhwc)) {
        standin_rule("tensorDenseLayout", STANDIN_RULE, "strides %lld,%lld,%lld,%lld for %lldx%lldx%lldx%lld are "
                     "neither dense NCHW nor NHWC (dimensions go in N, C, H, W order)", (long long)t.strides[0],
                     (long long)t.strides[1], (long long)t.strides[2], (long long)t.strides[3], (long long)n[0],
                     (long long)n[1], (long long)n[2], (long long)n[3]);
        return CUDNN_STATUS_BAD_PARAM;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_convolution(Descriptor *d)
{
    const Value *comp = attribute(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE), *mode = attribute(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE),
                *spatial = attribute(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS);
    const Value *lists[4] = {attribute(d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS),
                             attribute(d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS),
                             attribute(d, CUDNN_ATTR_CONVOLUTION_DILATIONS),
                             attribute(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES)};
    // CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: every attribute required; the
    // paddings, dilations and strides have SPATIAL_DIMS elements each
    bool complete = comp && mode && spatial;
    for (const Value *list : lists) complete = complete && list && list->count == spatial->at<int64_t>(0);
    if (!complete) {
        standin_rule("convDescriptorRequired", GRAPH_API, "a convolution descriptor without its compute type, mode, "
                     "spatial dimensions, or paddings, dilations and strides of SPATIAL_DIMS elements each");
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (spatial->at<int64_t>(0) != 2 || mode->at<cudnnConvolutionMode_t>(0) != CUDNN_CROSS_CORRELATION ||
        comp->at<cudnnDataType_t>(0) != CUDNN_DATA_FLOAT) {
        standin_rule("convMode", STANDIN_RULE, "2-D cross-correlation computed in float only");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    for (int i = 0; i < 2; i++) {
        d->op.pre[i] = lists[0]->at<int64_t>(i), d->op.post[i] = lists[1]->at<int64_t>(i);
        d->op.dilation[i] = lists[2]->at<int64_t>(i), d->op.stride[i] = lists[3]->at<int64_t>(i);
        if (d->op.pre[i] < 0 || d->op.post[i] < 0 || d->op.dilation[i] <= 0 || d->op.stride[i] <= 0) {
            standin_rule("convDescriptorRequired", GRAPH_API, "paddings >= 0, dilations and strides > 0");
            return CUDNN_STATUS_BAD_PARAM;
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

float scalar_of(const Value *v) { return v->type == CUDNN_TYPE_FLOAT ? v->at<float>(0) : (float)v->at<double>(0); }

cudnnStatus_t finalize_conv_operation(Descriptor *d)
{
    Descriptor *x = operand(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_BACKEND_TENSOR_DESCRIPTOR),
               *w = operand(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_BACKEND_TENSOR_DESCRIPTOR),
               *y = operand(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_BACKEND_TENSOR_DESCRIPTOR),
               *conv = operand(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const Value *alpha = attribute(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA),
                *beta = attribute(d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA);
    // CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: X, W, Y and the
    // convolution descriptor required, each finalized
    if (!x || !w || !y || !conv) {
        standin_rule("convOperationRequired", GRAPH_API, "X, W, Y and CONV_DESC: set, and finalized descriptors of "
                     "their types");
        return CUDNN_STATUS_BAD_PARAM;
    }
    OpInfo &op = d->op;
    op = conv->op;
    op.x = x->tensor, op.w = w->tensor, op.y = y->tensor;
    // NVIDIA's fusion engines: "alpha1 == alpha2 == 1 … we require beta to
    // always be 0"; sslat writes y and never scales (stand-in rule for a
    // single convolution)
    if (!alpha || !beta || scalar_of(alpha) != 1.0f || scalar_of(beta) != 0.0f) {
        standin_rule("convAlphaBeta", "NVIDIA forum, fusion engines; stand-in rule for one convolution",
                     "alpha %g, beta %g (1 and 0)", alpha ? scalar_of(alpha) : NAN, beta ? scalar_of(beta) : NAN);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // one io type; a fused graph's virtual output stays in float
    bool y_ok = op.y.type == op.x.type || (op.y.is_virtual && op.y.type == CUDNN_DATA_FLOAT);
    if (op.x.type != op.w.type || !y_ok) {
        standin_rule("convTypes", STANDIN_RULE, "X, W and Y of types %d, %d, %d (one io type)", (int)op.x.type,
                     (int)op.w.type, (int)op.y.type);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // groups are X's channels over W's (there is no group attribute): K and
    // X's C divide by them
    int64_t c = op.x.dims[1], wc = op.w.dims[1], k = op.w.dims[0];
    if (wc <= 0 || c % wc != 0 || k % (c / wc) != 0 || op.y.dims[1] != k || op.y.dims[0] != op.x.dims[0]) {
        standin_rule("convGroups", GRAPH_API, "X has %lld channels, W %lldx%lld, Y %lld channels: groups = X.C / W.C must "
                     "divide X.C and K, and Y have K", (long long)c, (long long)k, (long long)wc, (long long)op.y.dims[1]);
        return CUDNN_STATUS_BAD_PARAM;
    }
    for (int i = 0; i < 2; i++) {
        int64_t in = op.x.dims[2 + i], filter = op.w.dims[2 + i];
        int64_t expected = 1 + (in + op.pre[i] + op.post[i] - ((filter - 1) * op.dilation[i] + 1)) / op.stride[i];
        if (op.y.dims[2 + i] != expected) {
            standin_rule("convOutputDims", GRAPH_API, "Y's %s is %lld; the convolution (pre %lld, post %lld) gives %lld",
                         i ? "width" : "height", (long long)op.y.dims[2 + i], (long long)op.pre[i],
                         (long long)op.post[i], (long long)expected);
            return CUDNN_STATUS_BAD_PARAM;
        }
    }
    // stand-in rule: the filter in its input's layout (KRSC with NHWC), as the legacy convFormatsMatch
    if (op.w.layout_known() && op.x.layout_known() && op.w.channels_last() != op.x.channels_last()) {
        standin_rule("convFilterLayout", STANDIN_RULE, "W's layout is not X's (KRSC with NHWC, KCRS with NCHW)");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    return CUDNN_STATUS_SUCCESS;
}

// The pointwise modes the stand-in computes (what sslat's fused graphs use).
bool pointwise_modelled(cudnnPointwiseMode_t mode, bool *binary)
{
    switch (mode) {
    case CUDNN_POINTWISE_ADD:
    case CUDNN_POINTWISE_MUL: *binary = true; return true;
    case CUDNN_POINTWISE_RELU_FWD:
    case CUDNN_POINTWISE_SIGMOID_FWD:
    case CUDNN_POINTWISE_TANH_FWD:
    case CUDNN_POINTWISE_SWISH_FWD:
    case CUDNN_POINTWISE_GELU_FWD: *binary = false; return true;
    default: return false;
    }
}

cudnnStatus_t finalize_pointwise(Descriptor *d)
{
    const Value *mode = attribute(d, CUDNN_ATTR_POINTWISE_MODE), *precision = attribute(d, CUDNN_ATTR_POINTWISE_MATH_PREC);
    // CUDNN_BACKEND_POINTWISE_DESCRIPTOR: the mode and the math precision required
    if (!mode || !precision) {
        standin_rule("pointwiseRequired", GRAPH_API, "a pointwise descriptor without its mode or math precision");
        return CUDNN_STATUS_BAD_PARAM;
    }
    OpInfo &op = d->op;
    op.pointwise = true;
    op.mode = mode->at<cudnnPointwiseMode_t>(0);
    if (!pointwise_modelled(op.mode, &op.binary)) {
        standin_set_last_error("stand-in: pointwise mode " + std::to_string((int)op.mode) + " is not modelled");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // stand-in rule, as PyTorch's and cudnn-frontend's fused graphs: the math in float
    if (precision->at<cudnnDataType_t>(0) != CUDNN_DATA_FLOAT) {
        standin_rule("pointwisePrecision", STANDIN_RULE, "pointwise math precision %d (float only)",
                     (int)precision->at<cudnnDataType_t>(0));
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    const Value *lower = attribute(d, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP),
                *upper = attribute(d, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP),
                *beta = attribute(d, CUDNN_ATTR_POINTWISE_SWISH_BETA);
    // a relu's clips default to 0 and +inf; cudnn-frontend clamps the upper one to float's range
    op.lower = lower ? lower->at<double>(0) : 0.0;
    op.upper = upper ? upper->at<double>(0) : HUGE_VAL;
    op.swish_beta = beta ? beta->at<double>(0) : 1.0;
    if (op.mode == CUDNN_POINTWISE_RELU_FWD && !(op.lower <= op.upper)) {
        standin_rule("pointwiseClips", GRAPH_API, "relu clipped below at %g and above at %g", op.lower, op.upper);
        return CUDNN_STATUS_BAD_PARAM;
    }
    return CUDNN_STATUS_SUCCESS;
}

// Whether b broadcasts to y: each dimension equal or 1.
bool broadcasts(const TensorInfo &b, const TensorInfo &y)
{
    for (int i = 0; i < 4; i++)
        if (b.dims[i] != y.dims[i] && b.dims[i] != 1) return false;
    return true;
}

cudnnStatus_t finalize_pointwise_operation(Descriptor *d)
{
    Descriptor *pw = operand(d, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_BACKEND_POINTWISE_DESCRIPTOR),
               *x = operand(d, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_BACKEND_TENSOR_DESCRIPTOR),
               *b = operand(d, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_BACKEND_TENSOR_DESCRIPTOR),
               *y = operand(d, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    // CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: the pointwise descriptor,
    // X and Y required; B for the two-input modes (ADD, MUL), none for the others
    if (!pw || !x || !y || (pw->op.binary != (b != nullptr))) {
        standin_rule("pointwiseOperationRequired", GRAPH_API, "PW_DESCRIPTOR, XDESC and YDESC: set and finalized; "
                     "BDESC for a two-input mode only");
        return CUDNN_STATUS_BAD_PARAM;
    }
    const Value *alpha1 = attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1),
                *alpha2 = attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2);
    // NVIDIA's fusion engines: "we only support alpha1 == alpha2 == 1"
    if ((alpha1 && scalar_of(alpha1) != 1.0f) || (alpha2 && scalar_of(alpha2) != 1.0f)) {
        standin_rule("pointwiseAlpha", "NVIDIA forum, fusion engines", "alpha1 %g, alpha2 %g (1 and 1)",
                     alpha1 ? scalar_of(alpha1) : 1.0, alpha2 ? scalar_of(alpha2) : 1.0);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    OpInfo &op = d->op;
    op = pw->op;
    op.x = x->tensor, op.y = y->tensor;
    if (b) op.w = b->tensor;
    // the output has X's dimensions; B broadcasts to them (dims equal or 1)
    bool same = !std::memcmp(op.x.dims, op.y.dims, sizeof op.x.dims);
    if (!same || (b && !broadcasts(op.w, op.y)) || op.y.by_value || op.x.by_value) {
        standin_rule("pointwiseShapes", GRAPH_API, "Y has X's dimensions, B broadcasts to them (each equal or 1), and "
                     "only B may be a by-value scalar");
        return CUDNN_STATUS_BAD_PARAM;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_graph(Descriptor *d)
{
    const Value *ops = attribute(d, CUDNN_ATTR_OPERATIONGRAPH_OPS), *handle = attribute(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
    if (!ops || !handle) {
        standin_rule("graphRequired", GRAPH_API, "an operation graph without its operations or handle");
        return CUDNN_STATUS_BAD_PARAM;
    }
    d->handle = handle->at<cudnnHandle_t>(0);
    d->ops.clear();
    int convolutions = 0;
    for (int64_t i = 0; i < ops->count; i++) {
        Descriptor *op = operand(d, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, i);
        if (!op) op = operand(d, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, i);
        if (!op) {
            standin_rule("graphRequired", GRAPH_API, "operation %lld is not a finalized operation (the stand-in: "
                         "convolution forward and pointwise)", (long long)i);
            return CUDNN_STATUS_BAD_PARAM;
        }
        convolutions += op->op.pointwise ? 0 : 1;
        d->ops.push_back(op->op);
    }
    // the patterns sslat builds and the stand-in computes: one convolution,
    // alone or first, its output read by the first pointwise operation
    // (cuDNN's runtime fusion pattern "ConvolutionFwd followed by pointwise
    // operations", as recalled), every intermediate virtual and in float
    // (stand-in rule, as PyTorch's fused graphs)
    if (convolutions != 1 || d->ops[0].pointwise || (d->ops.size() > 1 && d->ops[1].x.uid != d->ops[0].y.uid)) {
        standin_rule("graphPattern", STANDIN_RULE, "%d convolutions in %zu operations: one convolution first, its "
                     "output the first pointwise operation's X", convolutions, d->ops.size());
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    for (const OpInfo &op : d->ops)
        if (op.y.is_virtual && op.y.type != CUDNN_DATA_FLOAT) {
            standin_rule("graphVirtualFloat", STANDIN_RULE, "virtual tensor %lld of type %d (float)",
                         (long long)op.y.uid, (int)op.y.type);
            return CUDNN_STATUS_NOT_SUPPORTED;
        }
    // one unique id per tensor: two tensors that differ may not share one
    std::map<int64_t, TensorInfo> by_uid;
    std::map<int64_t, int> produced, consumed;
    for (const OpInfo &op : d->ops) {
        std::vector<const TensorInfo *> tensors = op.inputs();
        tensors.push_back(&op.y);
        for (const TensorInfo *t : tensors) {
            auto seen = by_uid.find(t->uid);
            if (seen != by_uid.end() && !seen->second.same(*t)) {
                standin_rule("graphUniqueIds", GRAPH_API, "two different tensors have the unique id %lld",
                             (long long)t->uid);
                return CUDNN_STATUS_BAD_PARAM;
            }
            by_uid[t->uid] = *t;
            (t == &op.y ? produced : consumed)[t->uid]++;
        }
    }
    // "Graphs with more than one operation node do not support in-place
    // operations" (developer guide, Graph API); a convolution never writes its
    // own input (stand-in rule for one node)
    for (const OpInfo &op : d->ops)
        if (op.y.uid == op.x.uid || (op.inputs().size() > 1 && op.y.uid == op.w.uid)) {
            standin_rule("graphInPlace", d->ops.size() > 1 ? GRAPH_API : STANDIN_RULE,
                         "an operation writes its own input (unique id %lld)", (long long)op.y.uid);
            return CUDNN_STATUS_BAD_PARAM;
        }
    // every virtual tensor is produced by one operation and read by another;
    // every output is written once
    for (const auto &entry : by_uid) {
        int made = produced[entry.first], read = consumed[entry.first];
        if (made > 1 || (entry.second.is_virtual && (made != 1 || read < 1))) {
            standin_rule("graphVirtualTensors", GRAPH_API, "tensor %lld (%s) is written by %d operations and read by %d",
                         (long long)entry.first, entry.second.is_virtual ? "virtual" : "not virtual", made, read);
            return CUDNN_STATUS_BAD_PARAM;
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

// The scripted engines of a graph: of one convolution, or of a convolution with its pointwise epilogue.
const std::vector<StandinEngine> &scripted_engines(const std::vector<OpInfo> &ops)
{
    return ops.size() == 1 ? standin_script().engines : standin_script().fused_engines;
}

cudnnStatus_t finalize_heuristics(Descriptor *d)
{
    Descriptor *graph = operand(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    const Value *mode = attribute(d, CUDNN_ATTR_ENGINEHEUR_MODE);
    if (!graph || !mode) {
        standin_rule("heurRequired", GRAPH_API, "heuristics without a finalized operation graph or a mode");
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (refused_in_capture(graph->handle, "heurNotCaptured", "engine heuristics")) return CUDNN_STATUS_NOT_SUPPORTED;
    standin_counters().heuristics_queries++;
    d->ops = graph->ops;
    d->graph_of = graph;
    bool fallback = mode->at<cudnnBackendHeurMode_t>(0) == CUDNN_HEUR_MODE_FALLBACK;
    d->results.clear();
    for (const StandinEngine &e : scripted_engines(d->ops))
        if (e.fallback_list == fallback) d->results.push_back(e);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_plan(Descriptor *d)
{
    Descriptor *config = operand(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    const Value *handle = attribute(d, CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
    if (!config || !handle) {
        standin_rule("planRequired", GRAPH_API, "a plan without a finalized engine configuration or a handle");
        return CUDNN_STATUS_BAD_PARAM;
    }
    d->handle = handle->at<cudnnHandle_t>(0);
    if (refused_in_capture(d->handle, "planNotCaptured", "an execution plan finalized")) return CUDNN_STATUS_NOT_SUPPORTED;
    d->engine = config->engine;
    d->ops = config->ops;
    d->config_of = config, d->graph_of = config->graph_of;
    if (!d->engine.finalizes) {
        standin_counters().plans_refused++;
        standin_set_last_error("stand-in: engine " + std::to_string(d->engine.global_index) +
                               " does not support this graph (scripted refusal)");
        return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
    }
    // runtime fusion engines: channels-last half or bfloat16 convolutions only
    // (cuDNN's documented limits of its generic runtime fusion engines, as
    // recalled; NCHW fused graphs get no working engine, cudnn-frontend #171)
    const TensorInfo &x = d->ops[0].x;
    bool runtime = d->engine.behavior & (1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
    if (d->ops.size() > 1 && runtime && (x.type == CUDNN_DATA_FLOAT || (x.layout_known() && !x.channels_last()))) {
        standin_counters().plans_refused++;
        standin_set_last_error("stand-in: runtime fusion engine " + std::to_string(d->engine.global_index) +
                               " takes channels-last half or bfloat16 only");
        return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
    }
    if (runtime) standin_counters().compile_events++;
    standin_counters().plans_finalized++;
    d->workspace = d->engine.workspace;
    return CUDNN_STATUS_SUCCESS;
}

// An engine asked for by its global index (a selection kept from an earlier
// run): the scripted engine of that index for the graph's kind, if any.
cudnnStatus_t finalize_engine(Descriptor *d)
{
    Descriptor *graph = operand(d, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    const Value *index = attribute(d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
    if (!graph || !index) {
        standin_rule("engineRequired", GRAPH_API, "an engine without a finalized operation graph or a global index");
        return CUDNN_STATUS_BAD_PARAM;
    }
    for (const StandinEngine &e : scripted_engines(graph->ops))
        if (e.global_index == index->at<int64_t>(0)) {
            d->engine = e;
            d->ops = graph->ops;
            d->graph_of = graph;
            return CUDNN_STATUS_SUCCESS;
        }
    standin_set_last_error("stand-in: no engine " + std::to_string(index->at<int64_t>(0)) + " for this graph");
    return CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t finalize_knob_choice(Descriptor *d)
{
    const Value *type = attribute(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE), *value = attribute(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE);
    if (!type || !value) {
        standin_rule("knobChoiceRequired", GRAPH_API, "a knob choice without its type or value");
        return CUDNN_STATUS_BAD_PARAM;
    }
    d->knob_type = (int64_t)type->at<cudnnBackendKnobType_t>(0);
    d->knob_value = value->at<int64_t>(0);
    return CUDNN_STATUS_SUCCESS;
}

// A configuration made by the caller: an engine and its knob choices. A knob
// the engine does not have is refused (stand-in rule: the scripted engines'
// knobs are all they take).
cudnnStatus_t finalize_engine_config(Descriptor *d)
{
    Descriptor *engine = operand(d, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    if (!engine) {
        standin_rule("engineConfigRequired", GRAPH_API, "an engine configuration without a finalized engine");
        return CUDNN_STATUS_BAD_PARAM;
    }
    d->engine = engine->engine;
    d->ops = engine->ops;
    d->graph_of = engine->graph_of;
    const Value *knobs = attribute(d, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES);
    std::vector<std::pair<int64_t, int64_t>> chosen;
    for (int64_t i = 0; knobs && i < knobs->count; i++) {
        Descriptor *k = operand(d, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, i);
        if (!k) {
            standin_rule("engineConfigRequired", GRAPH_API, "knob choice %lld is not a finalized knob choice",
                         (long long)i);
            return CUDNN_STATUS_BAD_PARAM;
        }
        bool known = false;
        for (const auto &knob : engine->engine.knobs) known = known || knob.first == k->knob_type;
        if (!known) {
            standin_set_last_error("stand-in: engine " + std::to_string(d->engine.global_index) + " has no knob " +
                                   std::to_string(k->knob_type));
            return CUDNN_STATUS_NOT_SUPPORTED;
        }
        chosen.push_back({k->knob_type, k->knob_value});
    }
    d->engine.knobs = chosen;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_pack(Descriptor *d)
{
    const Value *uids = attribute(d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS),
                *pointers = attribute(d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS),
                *workspace = attribute(d, CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
    if (!uids || !pointers || !workspace || uids->count != pointers->count) {
        standin_rule("packRequired", GRAPH_API, "a variant pack without unique ids and as many data pointers, or "
                     "without its workspace");
        return CUDNN_STATUS_BAD_PARAM;
    }
    return CUDNN_STATUS_SUCCESS;
}

// ---- execution --------------------------------------------------------------------------------

// fp32 inputs as a tensor-core engine reads them (TF32: 10 mantissa bits,
// rounded to nearest even) or a down-converting one (fp16)
float as_engine_reads(float v, cudnnDataType_t type, unsigned numerical)
{
    if (type != CUDNN_DATA_FLOAT) return v;
    if (numerical & (1u << CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) return __half2float(__float2half(v));
    if (!(numerical & (1u << CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) || !std::isfinite(v)) return v;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bits += 0xfffu + ((bits >> 13) & 1u);
    bits &= ~0x1fffu;
    std::memcpy(&v, &bits, 4);
    return v;
}

int64_t offset(const TensorInfo &t, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return n * t.strides[0] + c * t.strides[1] + h * t.strides[2] + w * t.strides[3];
}

// A tensor read through its own strides into logical NCHW floats, each as the engine reads it.
std::vector<float> read_nchw(const TensorInfo &t, const void *p, unsigned numerical)
{
    std::vector<float> v((size_t)(t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3]));
    size_t i = 0;
    for (int64_t n = 0; n < t.dims[0]; n++)
        for (int64_t c = 0; c < t.dims[1]; c++)
            for (int64_t h = 0; h < t.dims[2]; h++)
                for (int64_t w = 0; w < t.dims[3]; w++)
                    v[i++] = as_engine_reads(standin_load(p, t.type, (size_t)offset(t, n, c, h, w)), t.type, numerical);
    return v;
}

// conv(x, w) with pre and post paddings, in float, as logical NCHW values.
std::vector<float> convolve(const OpInfo &op, const std::vector<float> &x, const std::vector<float> &w)
{
    const TensorInfo &X = op.x, &W = op.w, &Y = op.y;
    int64_t cg = W.dims[1], kg = W.dims[0] / (X.dims[1] / cg), xh = X.dims[2], xw = X.dims[3];
    std::vector<float> y((size_t)(Y.dims[0] * Y.dims[1] * Y.dims[2] * Y.dims[3]), 0.0f);
    for (int64_t n = 0; n < Y.dims[0]; n++)
        for (int64_t k = 0; k < Y.dims[1]; k++) {
            float *plane = &y[(size_t)((n * Y.dims[1] + k) * Y.dims[2] * Y.dims[3])];
            for (int64_t c = 0; c < cg; c++) {
                const float *source = &x[(size_t)((n * X.dims[1] + k / kg * cg + c) * xh * xw)];
                for (int64_t r = 0; r < W.dims[2]; r++)
                    for (int64_t s = 0; s < W.dims[3]; s++) {
                        float weight = w[(size_t)(((k * cg + c) * W.dims[2] + r) * W.dims[3] + s)];
                        for (int64_t oh = 0; oh < Y.dims[2]; oh++) {
                            int64_t ih = oh * op.stride[0] - op.pre[0] + r * op.dilation[0];
                            if (ih < 0 || ih >= xh) continue;
                            for (int64_t ow = 0; ow < Y.dims[3]; ow++) {
                                int64_t iw = ow * op.stride[1] - op.pre[1] + s * op.dilation[1];
                                if (iw >= 0 && iw < xw) plane[(size_t)(oh * Y.dims[3] + ow)] += weight * source[ih * xw + iw];
                            }
                        }
                    }
            }
        }
    return y;
}

// One pointwise operation over logical NCHW values, b broadcast to x's shape.
std::vector<float> pointwise_values(const OpInfo &op, const std::vector<float> &x, const std::vector<float> &b)
{
    std::vector<float> y(x.size());
    const int64_t *d = op.y.dims, *bd = op.w.dims;
    size_t i = 0;
    for (int64_t n = 0; n < d[0]; n++)
        for (int64_t c = 0; c < d[1]; c++)
            for (int64_t h = 0; h < d[2]; h++)
                for (int64_t w = 0; w < d[3]; w++, i++) {
                    float v = x[i], other = 0;
                    if (op.binary) {
                        int64_t at = (((bd[0] > 1 ? n : 0) * bd[1] + (bd[1] > 1 ? c : 0)) * bd[2] + (bd[2] > 1 ? h : 0)) *
                                         bd[3] + (bd[3] > 1 ? w : 0);
                        other = b[(size_t)at];
                    }
                    switch (op.mode) {
                    case CUDNN_POINTWISE_ADD: v = v + other; break;
                    case CUDNN_POINTWISE_MUL: v = v * other; break;
                    case CUDNN_POINTWISE_RELU_FWD: v = std::fmin(std::fmax(v, (float)op.lower), (float)op.upper); break;
                    case CUDNN_POINTWISE_SIGMOID_FWD: v = 1.0f / (1.0f + std::exp(-v)); break;
                    case CUDNN_POINTWISE_TANH_FWD: v = std::tanh(v); break;
                    case CUDNN_POINTWISE_SWISH_FWD: v = v / (1.0f + std::exp(-(float)op.swish_beta * v)); break;
                    case CUDNN_POINTWISE_GELU_FWD: v = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)); break;
                    default: break; // finalize refused the rest
                    }
                    y[i] = v;
                }
    return y;
}

// A plan's graph run in operation order (the pattern rule puts the
// convolution first, each pointwise operation after what it reads): real
// tensors read from their pointers, by-value ones from the values taken at
// execution, virtual ones kept in float; the real outputs stored through
// their strides in their type.
void run_graph(const std::vector<OpInfo> &ops, unsigned numerical, const std::map<int64_t, void *> &at,
               const std::map<int64_t, float> &scalars)
{
    std::map<int64_t, std::vector<float>> virtuals;
    auto value = [&](const TensorInfo &t, unsigned notes) -> std::vector<float> {
        if (t.by_value) return {scalars.at(t.uid)};
        if (t.is_virtual) return virtuals.at(t.uid);
        return read_nchw(t, at.at(t.uid), notes);
    };
    for (const OpInfo &op : ops) {
        std::vector<float> y = op.pointwise ? pointwise_values(op, value(op.x, 0), op.binary ? value(op.w, 0)
                                                                                             : std::vector<float>{})
                                            : convolve(op, value(op.x, numerical), value(op.w, numerical));
        if (op.y.is_virtual) {
            virtuals[op.y.uid] = std::move(y);
            continue;
        }
        size_t i = 0;
        for (int64_t n = 0; n < op.y.dims[0]; n++)
            for (int64_t c = 0; c < op.y.dims[1]; c++)
                for (int64_t h = 0; h < op.y.dims[2]; h++)
                    for (int64_t w = 0; w < op.y.dims[3]; w++)
                        standin_store(at.at(op.y.uid), op.y.type, (size_t)offset(op.y, n, c, h, w), y[i++]);
    }
}

} // namespace

extern "C" {

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *descriptor)
{
    Descriptor *d = new Descriptor();
    d->type = type;
    live().insert(d);
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    Descriptor *d = live_descriptor(descriptor);
    if (!d) return broken("backendDescriptorLive", GRAPH_API, "cudnnBackendDestroyDescriptor of a descriptor that is "
                          "not live (destroyed twice, or never created)", -1);
    // stand-in rule: a plan's configuration and graph outlive it (cudnn-frontend
    // keeps them alive together; cuDNN does not say a plan holds its own)
    for (Descriptor *other : live()) {
        if (other != d && other->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && other->finalized &&
            (other->config_of == d || other->graph_of == d))
            standin_rule("backendPlanSources", STANDIN_RULE, "the %s of a live execution plan destroyed before it",
                         other->config_of == d ? "engine configuration" : "operation graph");
        if (other->config_of == d) other->config_of = nullptr; // its address may come back for another
        if (other->graph_of == d) other->graph_of = nullptr;
    }
    live().erase(d);
    delete d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t count, const void *elements)
{
    Descriptor *d = live_descriptor(descriptor);
    if (!d) return broken("backendDescriptorLive", GRAPH_API, "cudnnBackendSetAttribute on a destroyed descriptor", name);
    // cudnnBackendSetAttribute(), Returns: NOT_INITIALIZED when the
    // descriptor "is already in the finalized state"
    if (d->finalized) {
        standin_rule("backendSetAfterFinalize", GRAPH_API, "attribute %d set on a finalized descriptor", (int)name);
        return CUDNN_STATUS_NOT_INITIALIZED;
    }
    // BAD_PARAM: "attributeName is not a settable attribute of descriptor",
    // "attributeType is incorrect for this attributeName", "elemCount value is
    // unexpected"
    const char *rule_broken = nullptr;
    const AttributeRule *rule = attribute_rule(d->type, name, type, &rule_broken);
    if (!rule) return broken(rule_broken, GRAPH_API, "cudnnBackendSetAttribute: not this descriptor's, or not of this type", name);
    if (rule->read_only)
        return broken("backendAttributeOfDescriptor", GRAPH_API, "cudnnBackendSetAttribute: an attribute cuDNN derives "
                      "(not settable)", name);
    if (count < rule->min || count > rule->max || (count > 0 && !elements))
        return broken("backendElementCount", GRAPH_API, "cudnnBackendSetAttribute: an element count it does not take", name);
    Value v{type, count, std::vector<uint8_t>((size_t)count * type_size(type))};
    if (count) std::memcpy(v.bytes.data(), elements, v.bytes.size());
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
        for (int64_t i = 0; i < count; i++)
            if (!live_descriptor(v.at<cudnnBackendDescriptor_t>(i)))
                return broken("backendDescriptorLive", GRAPH_API, "cudnnBackendSetAttribute: a destroyed descriptor as a value", name);
    d->attributes[(int)name] = std::move(v);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    Descriptor *d = live_descriptor(descriptor);
    if (!d) return broken("backendDescriptorLive", GRAPH_API, "cudnnBackendFinalize of a destroyed descriptor", -1);
    cudnnStatus_t status;
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: status = finalize_tensor(d); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: status = finalize_convolution(d); break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: status = finalize_conv_operation(d); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: status = finalize_graph(d); break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: status = finalize_heuristics(d); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: status = finalize_plan(d); break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: status = finalize_pack(d); break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: status = finalize_pointwise(d); break;
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: status = finalize_pointwise_operation(d); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: status = finalize_engine(d); break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: status = finalize_engine_config(d); break;
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: status = finalize_knob_choice(d); break;
    default:
        standin_set_last_error("stand-in: this descriptor type is not modelled");
        status = CUDNN_STATUS_NOT_SUPPORTED;
    }
    d->finalized = status == CUDNN_STATUS_SUCCESS;
    return status;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                                       void *elements)
{
    Descriptor *d = live_descriptor(descriptor);
    if (!d) return broken("backendDescriptorLive", GRAPH_API, "cudnnBackendGetAttribute of a destroyed descriptor", name);
    const char *rule_broken = nullptr;
    if (!attribute_rule(d->type, name, type, &rule_broken))
        return broken(rule_broken, GRAPH_API, "cudnnBackendGetAttribute: not this descriptor's, or not of this type", name);
    // cudnnBackendGetAttribute(), Returns: NOT_INITIALIZED when "the
    // descriptor has not been successfully finalized"
    if (!d->finalized) {
        standin_rule("backendGetBeforeFinalize", GRAPH_API, "attribute %d read before finalize", (int)name);
        return CUDNN_STATUS_NOT_INITIALIZED;
    }
    if (requested < 0 || (requested > 0 && !elements))
        return broken("backendElementCount", GRAPH_API, "cudnnBackendGetAttribute: a negative count or no array", name);
    // values written out, and descriptors filled in place: the caller makes them
    // (heuristics results into pre-made engine configurations, cudnn-frontend's
    // getEngineConfig; an engine into a pre-made engine; knob choices likewise)
    auto descriptors_out = [&](size_t available, cudnnBackendDescriptorType_t kind,
                               const std::function<void(Descriptor *, size_t)> &fill) -> cudnnStatus_t {
        size_t n = std::min(available, (size_t)requested);
        for (size_t i = 0; i < n; i++) {
            Descriptor *out = live_descriptor(((cudnnBackendDescriptor_t *)elements)[i]);
            if (!out || out->type != kind)
                return broken("backendOutputDescriptors", GRAPH_API, "descriptors are written into ones the caller "
                              "created, of the attribute's kind", name);
            // stand-in rule: into a fresh one, as cudnn-frontend always does
            // (cuDNN does not say a finalized descriptor may be written again)
            if (out->finalized)
                return broken("backendOutputFresh", STANDIN_RULE, "a descriptor is written into one already "
                              "finalized (make a fresh one for each, as cudnn-frontend does)", name);
        }
        for (size_t i = 0; i < n; i++) {
            Descriptor *out = (Descriptor *)((cudnnBackendDescriptor_t *)elements)[i];
            fill(out, i);
            out->finalized = true;
        }
        if (count) *count = requested == 0 ? (int64_t)available : (int64_t)n;
        return CUDNN_STATUS_SUCCESS;
    };
    auto values_out = [&](const std::vector<int64_t> &values, size_t size) {
        size_t n = std::min(values.size(), (size_t)requested);
        for (size_t i = 0; i < n; i++) {
            if (size == 8) ((int64_t *)elements)[i] = values[i];
            else ((int32_t *)elements)[i] = (int32_t)values[i];
        }
        if (count) *count = requested == 0 ? (int64_t)values.size() : (int64_t)n;
        return CUDNN_STATUS_SUCCESS;
    };
    auto notes = [](unsigned bits, int kinds) {
        std::vector<int64_t> out;
        for (int n = 0; n < kinds; n++)
            if (bits & (1u << n)) out.push_back(n);
        return out;
    };
    switch (name) {
    case CUDNN_ATTR_ENGINEHEUR_RESULTS:
        return descriptors_out(d->results.size(), CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, [&](Descriptor *out, size_t i) {
            out->engine = d->results[i];
            out->ops = d->ops;
            out->graph_of = d->graph_of;
            standin_counters().configs_returned++;
        });
    case CUDNN_ATTR_ENGINECFG_ENGINE:
        return descriptors_out(1, CUDNN_BACKEND_ENGINE_DESCRIPTOR, [&](Descriptor *out, size_t) {
            out->engine = d->engine;
            out->ops = d->ops;
        });
    case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
        return descriptors_out(d->engine.knobs.size(), CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, [&](Descriptor *out, size_t i) {
            out->knob_type = d->engine.knobs[i].first;
            out->knob_value = d->engine.knobs[i].second;
        });
    case CUDNN_ATTR_ENGINE_GLOBAL_INDEX: return values_out({d->engine.global_index}, 8);
    case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
        return values_out(notes(d->engine.numerical, CUDNN_NUMERICAL_NOTE_TYPE_COUNT), sizeof(cudnnBackendNumericalNote_t));
    case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE:
        return values_out(notes(d->engine.behavior, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT), sizeof(cudnnBackendBehaviorNote_t));
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE: return values_out({d->knob_type}, sizeof(cudnnBackendKnobType_t));
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE: return values_out({d->knob_value}, 8);
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE: return values_out({(int64_t)d->workspace}, 8);
    default:
        standin_set_last_error("stand-in: reading this attribute is not modelled");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan_descriptor,
                                  cudnnBackendDescriptor_t pack_descriptor)
{
    Descriptor *plan = live_descriptor(plan_descriptor), *pack = live_descriptor(pack_descriptor);
    // cudnnBackendExecute(): a finalized plan and a finalized variant pack
    if (!plan || !pack || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
        pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR || !plan->finalized || !pack->finalized) {
        standin_rule("executeFinalized", GRAPH_API, "cudnnBackendExecute needs a finalized plan and variant pack");
        return CUDNN_STATUS_BAD_PARAM;
    }
    const Value *uids = attribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS),
                *pointers = attribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    void *workspace = attribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE)->at<void *>(0);
    // the variant pack: every non-virtual tensor of the plan's graph once (a
    // by-value one by its host address), nothing else
    std::map<int64_t, const TensorInfo *> tensors;
    for (const OpInfo &op : plan->ops) {
        for (const TensorInfo *t : op.inputs())
            if (!t->is_virtual) tensors[t->uid] = t;
        if (!op.y.is_virtual) tensors[op.y.uid] = &op.y;
    }
    std::map<int64_t, void *> at;
    for (int64_t i = 0; i < uids->count; i++) {
        int64_t uid = uids->at<int64_t>(i);
        if (!tensors.count(uid) || at.count(uid)) {
            standin_rule("packMatchesGraph", GRAPH_API, "unique id %lld is %s", (long long)uid,
                         !tensors.count(uid) ? "not a tensor of the plan's graph" : "in the variant pack twice");
            return CUDNN_STATUS_BAD_PARAM;
        }
        at[uid] = pointers->at<void *>(i);
    }
    std::map<int64_t, float> scalars; // a by-value tensor's value, as it is at this call (captured with it)
    std::vector<StandinRange> ranges;
    for (const auto &entry : tensors) {
        const TensorInfo *t = entry.second;
        if (!at.count(entry.first) || !at[entry.first]) {
            standin_rule("packMatchesGraph", GRAPH_API, "tensor %lld of the plan's graph has no pointer",
                         (long long)entry.first);
            return CUDNN_STATUS_BAD_PARAM;
        }
        if (t->by_value) {
            scalars[entry.first] = *(const float *)at[entry.first];
            continue;
        }
        // each pointer: device memory holding the whole tensor, at its byte alignment
        if (!standin_is_device(at[entry.first], t->span()) || (uintptr_t)at[entry.first] % (uintptr_t)t->alignment) {
            standin_rule("packPointers", GRAPH_API, "tensor %lld at %p: not %zu B of device memory aligned to %lld",
                         (long long)entry.first, at[entry.first], t->span(), (long long)t->alignment);
            return CUDNN_STATUS_BAD_PARAM;
        }
        ranges.push_back({at[entry.first], t->span()});
    }
    // the workspace holds what the plan asks (CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)
    if (plan->workspace > 0 && !standin_is_device(workspace, plan->workspace)) {
        standin_rule("packWorkspace", GRAPH_API, "the plan needs %zu B of workspace; %p is not that much device memory",
                     plan->workspace, workspace);
        return CUDNN_STATUS_BAD_PARAM;
    }
    ranges.push_back({workspace, plan->workspace});
    StandinEngine engine = plan->engine;
    standin_counters().executions.push_back(engine.global_index);
    if (!engine.executes) {
        standin_set_last_error("stand-in: engine " + std::to_string(engine.global_index) + " fails to run (scripted)");
        return CUDNN_STATUS_EXECUTION_FAILED;
    }
    std::vector<OpInfo> ops = plan->ops;
    standin_submit(handle->stream, "cudnnBackendExecute", [=]() { run_graph(ops, engine.numerical, at, scalars); },
                   ranges, engine.ms);
    return CUDNN_STATUS_SUCCESS;
}

} // extern "C"

// Heuristics order, as a GPU may answer: one whose plan will not finalize,
// a tensor-core engine (the fastest: fp32 must not take it), a runtime-compiled
// one, a plain one with a workspace (fp32's fastest), one that down-converts
// its inputs (no dtype takes it); the fallback list repeats the plain one
// (counted once) and adds a slow plain one.
bool standin_backend_uses_handle(cudnnHandle_t handle)
{
    for (Descriptor *d : live())
        if (d->finalized && d->handle == handle &&
            (d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || d->type == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR))
            return true;
    return false;
}

std::vector<StandinEngine> standin_default_engines()
{
    const unsigned TENSOR_CORE = 1u << CUDNN_NUMERICAL_NOTE_TENSOR_CORE,
                   DOWN_CONVERT = 1u << CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS,
                   RUNTIME = 1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
    StandinEngine refuses{7, {{CUDNN_KNOB_TYPE_SPLIT_K, 2}}, 0, 0, 0, false, false, true, 0.001};
    StandinEngine tensor_core{12, {{CUDNN_KNOB_TYPE_TILE_SIZE, 3}, {CUDNN_KNOB_TYPE_STAGES, 4}}, TENSOR_CORE, 0, 0,
                              false, true, true, 0.002};
    StandinEngine compiled{40, {}, 0, RUNTIME, 0, false, true, true, 0.006};
    StandinEngine plain{3, {{CUDNN_KNOB_TYPE_SPLIT_K, 1}}, 0, 0, (size_t)1 << 20, false, true, true, 0.004};
    StandinEngine down_convert{21, {}, DOWN_CONVERT, 0, 0, false, true, true, 0.001};
    StandinEngine plain_again = plain, slow{0, {}, 0, 0, 0, true, true, true, 0.02};
    plain_again.fallback_list = true;
    return {refuses, tensor_core, compiled, plain, down_convert, plain_again, slow};
}

// A fused graph's engines: a runtime-compiled one (channels-last half and
// bfloat16 only, faster than the plain convolution with a separate epilogue)
// and a slow one from the fallback list that any graph finalizes.
std::vector<StandinEngine> standin_default_fused_engines()
{
    const unsigned RUNTIME = 1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
    StandinEngine runtime_fusion{51, {{CUDNN_KNOB_TYPE_TILE_SIZE, 2}}, 0, RUNTIME, 0, false, true, true, 0.0015};
    StandinEngine slow_fused{52, {}, 0, 0, 0, true, true, true, 0.05};
    return {runtime_fusion, slow_fused};
}

void standin_fill_cudnn_backend_table()
{
#define STANDIN_BACKEND(name) sslat_cuda_api.name = &name;
    CUDA_CUDNN_GRAPH_FUNCTIONS(STANDIN_BACKEND)
#undef STANDIN_BACKEND
    sslat_cuda_api.graph_missing[0] = '\0';
}
