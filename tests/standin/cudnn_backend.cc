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
    bool is_virtual = false;
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
               is_virtual == o.is_virtual;
    }
};

struct OpInfo {
    TensorInfo x, w, y;
    int64_t pre[2] = {0, 0}, post[2] = {0, 0}, dilation[2] = {1, 1}, stride[2] = {1, 1};
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
    if (op.x.type != op.w.type || op.x.type != op.y.type) {
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

cudnnStatus_t finalize_graph(Descriptor *d)
{
    const Value *ops = attribute(d, CUDNN_ATTR_OPERATIONGRAPH_OPS), *handle = attribute(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
    if (!ops || !handle) {
        standin_rule("graphRequired", GRAPH_API, "an operation graph without its operations or handle");
        return CUDNN_STATUS_BAD_PARAM;
    }
    d->handle = handle->at<cudnnHandle_t>(0);
    d->ops.clear();
    for (int64_t i = 0; i < ops->count; i++) {
        Descriptor *op = operand(d, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, i);
        if (!op) {
            standin_rule("graphRequired", GRAPH_API, "operation %lld is not a finalized operation (the stand-in: "
                         "convolution forward only)", (long long)i);
            return CUDNN_STATUS_BAD_PARAM;
        }
        d->ops.push_back(op->op);
    }
    // one unique id per tensor: two tensors that differ may not share one
    std::map<int64_t, TensorInfo> by_uid;
    std::map<int64_t, int> produced, consumed;
    for (const OpInfo &op : d->ops)
        for (const TensorInfo *t : {&op.x, &op.w, &op.y}) {
            auto seen = by_uid.find(t->uid);
            if (seen != by_uid.end() && !seen->second.same(*t)) {
                standin_rule("graphUniqueIds", GRAPH_API, "two different tensors have the unique id %lld",
                             (long long)t->uid);
                return CUDNN_STATUS_BAD_PARAM;
            }
            by_uid[t->uid] = *t;
            (t == &op.y ? produced : consumed)[t->uid]++;
        }
    // "Graphs with more than one operation node do not support in-place
    // operations" (developer guide, Graph API); a convolution never writes its
    // own input (stand-in rule for one node)
    for (const OpInfo &op : d->ops)
        if (op.y.uid == op.x.uid || op.y.uid == op.w.uid) {
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
    if (d->ops.size() == 1) // the scripted engines compute one convolution
        for (const StandinEngine &e : standin_script().engines)
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
    if (d->engine.behavior & (1u << CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION)) standin_counters().compile_events++;
    standin_counters().plans_finalized++;
    d->workspace = d->engine.workspace;
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

// y = conv(x, w) with pre and post paddings, in float, written through y's strides.
void convolve(const OpInfo &op, unsigned numerical, const void *xp, const void *wp, void *yp)
{
    const TensorInfo &X = op.x, &W = op.w, &Y = op.y;
    std::vector<float> x = read_nchw(X, xp, numerical), w = read_nchw(W, wp, numerical);
    int64_t cg = W.dims[1], kg = W.dims[0] / (X.dims[1] / cg), xh = X.dims[2], xw = X.dims[3];
    std::vector<float> plane((size_t)(Y.dims[2] * Y.dims[3]));
    for (int64_t n = 0; n < Y.dims[0]; n++)
        for (int64_t k = 0; k < Y.dims[1]; k++) {
            std::fill(plane.begin(), plane.end(), 0.0f);
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
            for (int64_t oh = 0; oh < Y.dims[2]; oh++)
                for (int64_t ow = 0; ow < Y.dims[3]; ow++)
                    standin_store(yp, Y.type, (size_t)offset(Y, n, k, oh, ow), plane[(size_t)(oh * Y.dims[3] + ow)]);
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
    default:
        standin_set_last_error("stand-in: this descriptor type is not modelled (engine configurations come from "
                               "heuristics)");
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
    const OpInfo &op = plan->ops[0];
    const Value *uids = attribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS),
                *pointers = attribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    void *workspace = attribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE)->at<void *>(0);
    // the variant pack: every non-virtual tensor of the plan's graph once, nothing else
    const TensorInfo *tensors[3] = {&op.x, &op.w, &op.y};
    void *at[3] = {nullptr, nullptr, nullptr};
    for (int64_t i = 0; i < uids->count; i++) {
        int64_t uid = uids->at<int64_t>(i);
        int which = uid == op.x.uid ? 0 : uid == op.w.uid ? 1 : uid == op.y.uid ? 2 : -1;
        if (which < 0 || at[which]) {
            standin_rule("packMatchesGraph", GRAPH_API, "unique id %lld is %s", (long long)uid,
                         which < 0 ? "not a tensor of the plan's graph" : "in the variant pack twice");
            return CUDNN_STATUS_BAD_PARAM;
        }
        at[which] = pointers->at<void *>(i);
    }
    for (int t = 0; t < 3; t++) {
        if (!at[t]) {
            standin_rule("packMatchesGraph", GRAPH_API, "tensor %lld of the plan's graph has no pointer",
                         (long long)tensors[t]->uid);
            return CUDNN_STATUS_BAD_PARAM;
        }
        // each pointer: device memory holding the whole tensor, at its byte alignment
        if (!standin_is_device(at[t], tensors[t]->span()) || (uintptr_t)at[t] % (uintptr_t)tensors[t]->alignment) {
            standin_rule("packPointers", GRAPH_API, "tensor %lld at %p: not %zu B of device memory aligned to %lld",
                         (long long)tensors[t]->uid, at[t], tensors[t]->span(), (long long)tensors[t]->alignment);
            return CUDNN_STATUS_BAD_PARAM;
        }
    }
    // the workspace holds what the plan asks (CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)
    if (plan->workspace > 0 && !standin_is_device(workspace, plan->workspace)) {
        standin_rule("packWorkspace", GRAPH_API, "the plan needs %zu B of workspace; %p is not that much device memory",
                     plan->workspace, workspace);
        return CUDNN_STATUS_BAD_PARAM;
    }
    StandinEngine engine = plan->engine;
    standin_counters().executions.push_back(engine.global_index);
    if (!engine.executes) {
        standin_set_last_error("stand-in: engine " + std::to_string(engine.global_index) + " fails to run (scripted)");
        return CUDNN_STATUS_EXECUTION_FAILED;
    }
    OpInfo copy = op;
    void *x = at[0], *w = at[1], *y = at[2];
    standin_submit(handle->stream, "cudnnBackendExecute", [=]() { convolve(copy, engine.numerical, x, w, y); },
                   {{x, op.x.span()}, {w, op.w.span()}, {y, op.y.span()}, {workspace, plan->workspace}}, engine.ms);
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

void standin_fill_cudnn_backend_table()
{
#define STANDIN_BACKEND(name) sslat_cuda_api.name = &name;
    CUDA_CUDNN_GRAPH_FUNCTIONS(STANDIN_BACKEND)
#undef STANDIN_BACKEND
    sslat_cuda_api.graph_missing[0] = '\0';
}
