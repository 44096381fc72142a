// The stand-in cuDNN: the legacy calls of the cuda backend's table
// (kernels/cuda_api.h), as naive host loops in float over the logical NCHW
// index, with the documented rules of each call checked first (standin_rule:
// printed with its name, counted, and the documented status returned).
//
// Sources of the rules, named in each check by function and section:
// - the cuDNN Developer Guide 7.5.0 (docs.nvidia.com/deeplearning/sdk/
//   cudnn-developer-guide), whose wording was read: the "Returns" lists of
//   cudnnConvolutionForward (§4.14), cudnnConvolutionBiasActivationForward
//   (§4.13), cudnnBatchNormalizationForwardInference (§4.6),
//   cudnnDeriveBNTensorDescriptor (§4.35), cudnnSetTensor4dDescriptor
//   (§4.192), cudnnFindConvolutionForwardAlgorithmEx (§4.67) and
//   cudnnConvolutionFwdAlgoPerf_t (§3.16);
// - the same functions in the cuDNN 9 API Reference (backend/latest/api/,
//   the cudnn_ops and cudnn_cnn library pages), where they live now (their
//   cuDNN 9 wording was not read), and cudnn_ops.h / cudnn_cnn.h of cuDNN 9.19;
// - marked "stand-in rule": what no documentation states but sslat's
//   lowering relies on (the pooling output size, the workspace under a
//   changed math type).
#include "standin.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cublas_v2.h>

extern "C" {
#include "kernels/cuda_api.h"
}

struct cudnnTensorStruct {
    bool set = false;
    cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    int n = 0, c = 0, h = 0, w = 0;
};
struct cudnnFilterStruct {
    bool set = false;
    cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
    int k = 0, c = 0, r = 0, s = 0;
};
struct cudnnConvolutionStruct {
    bool set = false;
    int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
    int groups = 1;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
struct cudnnActivationStruct {
    bool set = false;
    cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
    double coef = 0;
};
struct cudnnPoolingStruct {
    bool set = false;
    cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
    int window_h = 0, window_w = 0, pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;
};

namespace {

const char *const API = "cuDNN 9 API Reference";
const size_t MAX_ELEMENTS = 0x7fffffff;

size_t elements(cudnnTensorDescriptor_t d) { return (size_t)d->n * d->c * d->h * d->w; }
size_t element_size(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT ? 4 : 2; }
size_t bytes(cudnnTensorDescriptor_t d) { return elements(d) * element_size(d->type); }
size_t filter_elements(cudnnFilterDescriptor_t f) { return (size_t)f->k * f->c * f->r * f->s; }

float load(const void *p, cudnnDataType_t t, size_t i) { return standin_load(p, t, i); }
void store(void *p, cudnnDataType_t t, size_t i, float v) { standin_store(p, t, i, v); }

// Where element (n, c, h, w) of a tensor lies in its format.
size_t at(cudnnTensorDescriptor_t d, int n, int c, int h, int w)
{
    if (d->format == CUDNN_TENSOR_NHWC) return (((size_t)n * d->h + h) * d->w + w) * d->c + c;
    return (((size_t)n * d->c + c) * d->h + h) * d->w + w;
}

size_t filter_at(cudnnFilterDescriptor_t f, int k, int c, int r, int s)
{
    if (f->format == CUDNN_TENSOR_NHWC) return (((size_t)k * f->r + r) * f->s + s) * f->c + c; // KRSC
    return (((size_t)k * f->c + c) * f->r + r) * f->s + s;                                     // KCRS
}

// A tensor read into logical NCHW floats, and written back.
std::vector<float> read(cudnnTensorDescriptor_t d, const void *p)
{
    std::vector<float> v(elements(d));
    size_t i = 0;
    for (int n = 0; n < d->n; n++)
        for (int c = 0; c < d->c; c++)
            for (int h = 0; h < d->h; h++)
                for (int w = 0; w < d->w; w++) v[i++] = load(p, d->type, at(d, n, c, h, w));
    return v;
}

// y = alpha · value + beta · y (beta 0: y is not read, as cuDNN documents)
void write(cudnnTensorDescriptor_t d, void *p, const std::vector<float> &v, float alpha, float beta)
{
    size_t i = 0;
    for (int n = 0; n < d->n; n++)
        for (int c = 0; c < d->c; c++)
            for (int h = 0; h < d->h; h++)
                for (int w = 0; w < d->w; w++, i++) {
                    size_t j = at(d, n, c, h, w);
                    store(p, d->type, j, alpha * v[i] + (beta != 0 ? beta * load(p, d->type, j) : 0.0f));
                }
}

float activate(cudnnActivationMode_t mode, double coef, float x)
{
    switch (mode) {
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : 0;
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x < 0 ? 0 : x > (float)coef ? (float)coef : x;
    case CUDNN_ACTIVATION_SIGMOID: return 1.0f / (1.0f + std::exp(-x));
    case CUDNN_ACTIVATION_TANH: return std::tanh(x);
    default: return x; // IDENTITY
    }
}

float scalar(const void *p) { return *(const float *)p; } // float scaling factors for every type used here

bool same(cudnnTensorDescriptor_t a, cudnnTensorDescriptor_t b)
{
    return a->format == b->format && a->type == b->type && a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w;
}

cudnnStatus_t device_check(const char *call, const char *what, const void *p, size_t size)
{
    if (size == 0 || standin_is_device(p, size)) return CUDNN_STATUS_SUCCESS;
    standin_rule("deviceMemory", "cuDNN reads and writes device memory only",
                 "%s: %s (%p, %zu B) is not inside one device allocation", call, what, p, size);
    return CUDNN_STATUS_BAD_PARAM;
}

// The convolution's output size (cudnnGetConvolution2dForwardOutputDim:
// 1 + (in + 2·pad − ((filter − 1)·dilation + 1)) / stride).
int conv_out(int in, int pad, int filter, int dilation, int stride)
{
    return 1 + (in + 2 * pad - ((filter - 1) * dilation + 1)) / stride;
}

// Every rule of a convolution's descriptors (cudnnConvolutionForward,
// cudnnConvolutionBiasActivationForward, Find).
cudnnStatus_t check_conv(const char *call, cudnnTensorDescriptor_t x, const void *xp, cudnnFilterDescriptor_t w,
                         const void *wp, cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, const void *yp)
{
    if (!x->set || !y->set || !w->set || !conv->set) {
        standin_rule("descriptorsSet", API, "%s: a descriptor was never set", call);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // cudnnConvolutionForward(), Returns: BAD_PARAM when "xDesc, wDesc and yDesc
    // have a non-matching data type"
    if (x->type != y->type || x->type != w->type) {
        standin_rule("convTypesMatch", "cudnnConvolutionForward(), Returns", "%s: x type %d, w type %d, y type %d", call,
                     x->type, w->type, y->type);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // formats: NHWC x and y with an NHWC filter (KRSC, cudnnSetFilter4dDescriptor()),
    // NCHW with NCHW (KCRS); cuDNN lists the formats each algorithm supports
    // and returns NOT_SUPPORTED for others ("the chosen algo does not support
    // the parameters provided"): mixing them is the stand-in's refusal
    if (x->format != y->format || x->format != w->format) {
        standin_rule("convFormatsMatch", "cudnnConvolutionForward(), supported algorithms; cudnnSetFilter4dDescriptor()",
                     "%s: x format %d, w format %d, y format %d", call, x->format, w->format, y->format);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // cudnnConvolutionForward(), Returns: BAD_PARAM when x and w have "a
    // non-matching number of input feature maps per image (or group in case of
    // Grouped Convolutions)" or y and w "an output channel count that isn't a
    // multiple of group count"
    if (x->c % conv->groups != 0 || w->k % conv->groups != 0 || w->c * conv->groups != x->c) {
        standin_rule("groupsDivideChannels", "cudnnConvolutionForward(), Returns",
                     "%s: C %d, K %d, filter C %d, groups %d", call, x->c, w->k, w->c, conv->groups);
        return CUDNN_STATUS_BAD_PARAM;
    }
    int oh = conv_out(x->h, conv->pad_h, w->r, conv->dilation_h, conv->stride_h);
    int ow = conv_out(x->w, conv->pad_w, w->s, conv->dilation_w, conv->stride_w);
    // cudnnConvolutionForward(), Returns: NOT_SUPPORTED when "yDesc's spatial
    // sizes do not match with the expected size as determined by
    // cudnnGetConvolutionNdForwardOutputDim"
    if (y->n != x->n || y->c != w->k || y->h != oh || y->w != ow) {
        standin_rule("convOutputDims", "cudnnConvolutionForward(), Returns; cudnnGetConvolution2dForwardOutputDim()",
                     "%s: y is %dx%dx%dx%d, the convolution gives %dx%dx%dx%d", call, y->n, y->c, y->h, y->w, x->n,
                     w->k, oh, ow);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    cudnnStatus_t s = device_check(call, "x", xp, bytes(x));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "w", wp, filter_elements(w) * element_size(w->type));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "y", yp, bytes(y));
    return s;
}

// Direct convolution in float over logical NCHW values (the weights first
// read into KCRS order): the loops run over whole output rows.
std::vector<float> convolve(cudnnTensorDescriptor_t x, const void *xp, cudnnFilterDescriptor_t w, const void *wp,
                            cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y)
{
    std::vector<float> in = read(x, xp), out(elements(y), 0.0f), weights(filter_elements(w));
    int cg = w->c, kg = w->k / conv->groups;
    size_t wi = 0;
    for (int k = 0; k < w->k; k++)
        for (int c = 0; c < cg; c++)
            for (int r = 0; r < w->r; r++)
                for (int s = 0; s < w->s; s++) weights[wi++] = load(wp, w->type, filter_at(w, k, c, r, s));
    for (int n = 0; n < y->n; n++)
        for (int k = 0; k < y->c; k++) {
            int g = k / kg;
            float *plane = &out[((size_t)n * y->c + k) * y->h * y->w];
            for (int c = 0; c < cg; c++) {
                const float *source = &in[((size_t)n * x->c + g * cg + c) * x->h * x->w];
                for (int r = 0; r < w->r; r++)
                    for (int s = 0; s < w->s; s++) {
                        float weight = weights[(((size_t)k * cg + c) * w->r + r) * w->s + s];
                        for (int oh = 0; oh < y->h; oh++) {
                            int ih = oh * conv->stride_h - conv->pad_h + r * conv->dilation_h;
                            if (ih < 0 || ih >= x->h) continue;
                            const float *row = source + (size_t)ih * x->w;
                            float *target = plane + (size_t)oh * y->w;
                            for (int ow = 0; ow < y->w; ow++) {
                                int iw = ow * conv->stride_w - conv->pad_w + s * conv->dilation_w;
                                if (iw >= 0 && iw < x->w) target[ow] += weight * row[iw];
                            }
                        }
                    }
            }
        }
    return out;
}

// The workspace an algorithm needs under a math type: what the script's Find
// entry reports for it (its math), or its other size (another math).
size_t workspace_need(cudnnConvolutionFwdAlgo_t algo, cudnnMathType_t math)
{
    for (const StandinFindEntry &e : standin_script().find)
        if (e.algo == algo) return e.math < 0 || e.math == (int)math ? e.memory : e.memory_other_math;
    return 0;
}

cudnnStatus_t check_workspace(const char *call, cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
                              const void *workspace, size_t size)
{
    size_t need = workspace_need(algo, conv->math);
    // cudnnGetConvolutionForwardWorkspaceSize(): "the amount of GPU memory
    // workspace the user needs to allocate to be able to call
    // cudnnConvolutionForward with the specified algorithm"; the workspace "can
    // be nil" only when none is needed. That the size follows the descriptor's
    // math type, and the status, are the stand-in rule's (cuDNN documents
    // no status for a short workspace)
    if (size < need) {
        standin_rule("convWorkspace", "stand-in rule; cudnnGetConvolutionForwardWorkspaceSize()",
                     "%s: algorithm %d under math %d needs %zu B of workspace, given %zu B", call, (int)algo,
                     (int)conv->math, need, size);
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (size > 0 && !workspace) {
        standin_rule("convWorkspace", "cudnnConvolutionForward(), workSpace", "%s: NULL workspace of %zu B", call, size);
        return CUDNN_STATUS_BAD_PARAM;
    }
    return device_check(call, "workspace", workspace, size);
}

// The handles and descriptors: plain host objects.
template <typename T>
cudnnStatus_t create(T **object)
{
    *object = new T();
    return CUDNN_STATUS_SUCCESS;
}

template <typename T>
cudnnStatus_t destroy(T *object)
{
    delete object;
    return CUDNN_STATUS_SUCCESS;
}

} // namespace

extern "C" {

size_t cudnnGetVersion(void) { return 91900; }

const char *cudnnGetErrorString(cudnnStatus_t status)
{
    switch (status) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
    default: return "CUDNN_STATUS_(stand-in: other)";
    }
}

void cudnnGetLastErrorString(char *message, size_t max_size)
{
    if (max_size) std::snprintf(message, max_size, "%s", standin_last_error().c_str());
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
    *handle = new cudnnContext();
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
    // stand-in rule: the graph API's plans and graphs go before the handle
    // they were finalized with (a runtime-compiled plan's module lives in its context)
    if (standin_backend_uses_handle(handle))
        standin_rule("handleOutlivesPlans", "stand-in rule", "cudnnDestroy of a handle live execution plans or "
                     "operation graphs were finalized with");
    delete handle;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream)
{
    handle->stream = stream;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) { return create(d); }

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { return destroy(d); }

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format, cudnnDataType_t type,
                                         int n, int c, int h, int w)
{
    if (n <= 0 || c <= 0 || h <= 0 || w <= 0) {
        standin_rule("tensorDims", "cudnnSetTensor4dDescriptor(): n, c, h, w > 0", "%dx%dx%dx%d", n, c, h, w);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // cudnnSetTensor4dDescriptor(), Returns: NOT_SUPPORTED when "the total size
    // of the tensor descriptor exceeds the maximim limit of 2 Giga-elements"
    // (read here as more than 2^31 − 1 elements)
    if ((size_t)n * c * h * w > MAX_ELEMENTS) {
        standin_rule("tensorElements", "cudnnSetTensor4dDescriptor(), Returns",
                     "%dx%dx%dx%d has more than 2^31 - 1 elements", n, c, h, w);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (type != CUDNN_DATA_FLOAT && type != CUDNN_DATA_HALF && type != CUDNN_DATA_BFLOAT16) {
        standin_rule("tensorType", "stand-in: float, half and bfloat16 only", "type %d", (int)type);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    *d = cudnnTensorStruct{true, format, type, n, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *f) { return create(f); }

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t f) { return destroy(f); }

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t f, cudnnDataType_t type, cudnnTensorFormat_t format,
                                         int k, int c, int h, int w)
{
    if (k <= 0 || c <= 0 || h <= 0 || w <= 0) {
        standin_rule("filterDims", "cudnnSetFilter4dDescriptor(): k, c, h, w > 0", "%dx%dx%dx%d", k, c, h, w);
        return CUDNN_STATUS_BAD_PARAM;
    }
    *f = cudnnFilterStruct{true, format, type, k, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *conv) { return create(conv); }

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t conv) { return destroy(conv); }

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t conv, int pad_h, int pad_w, int u, int v,
                                              int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute)
{
    if (pad_h < 0 || pad_w < 0 || u <= 0 || v <= 0 || dilation_h <= 0 || dilation_w <= 0) {
        standin_rule("convDescriptor", "cudnnSetConvolution2dDescriptor(): padding >= 0, strides and dilations > 0",
                     "pad %d,%d stride %d,%d dilation %d,%d", pad_h, pad_w, u, v, dilation_h, dilation_w);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // the stand-in computes cross-correlation in float, as the backend asks
    if (mode != CUDNN_CROSS_CORRELATION || compute != CUDNN_DATA_FLOAT) {
        standin_rule("convMode", "stand-in: cross-correlation with float compute only", "mode %d compute %d",
                     (int)mode, (int)compute);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    int groups = conv->groups;
    cudnnMathType_t math = conv->math;
    *conv = cudnnConvolutionStruct{true, pad_h, pad_w, u, v, dilation_h, dilation_w, groups, math};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t conv, int groups)
{
    if (groups <= 0) {
        standin_rule("groupsDivideChannels", "cudnnSetConvolutionGroupCount()", "groupCount %d", groups);
        return CUDNN_STATUS_BAD_PARAM;
    }
    conv->groups = groups;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t conv, cudnnMathType_t math)
{
    if (math != CUDNN_DEFAULT_MATH && math != CUDNN_TENSOR_OP_MATH && math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
        math != CUDNN_FMA_MATH) {
        standin_rule("mathType", "cudnnSetConvolutionMathType(): a cudnnMathType_t value", "math type %d", (int)math);
        return CUDNN_STATUS_BAD_PARAM;
    }
    conv->math = math;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t, int *count)
{
    *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

// The script's answer. Find "is host blocking" (it waits for the handle's
// stream) and of y: "the content of this tensor will be overwritten with
// arbitrary values" (cudnnFindConvolutionForwardAlgorithmEx()): NaN here.
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t x_desc,
                                                     const void *x, const cudnnFilterDescriptor_t w_desc, const void *w,
                                                     const cudnnConvolutionDescriptor_t conv,
                                                     const cudnnTensorDescriptor_t y_desc, void *y, const int requested,
                                                     int *returned, cudnnConvolutionFwdAlgoPerf_t *results,
                                                     void *workspace, size_t workspace_size)
{
    standin_counters().find_calls++;
    *returned = 0;
    if (standin_capturing(handle->stream)) {
        standin_invalidate(handle->stream);
        standin_rule("findNotCaptured", "cudnnFindConvolutionForwardAlgorithmEx() synchronises: not capturable",
                     "Find inside a stream capture");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    cudnnStatus_t s = check_conv("cudnnFindConvolutionForwardAlgorithmEx", x_desc, x, w_desc, w, conv, y_desc, y);
    if (s == CUDNN_STATUS_SUCCESS) s = device_check("cudnnFindConvolutionForwardAlgorithmEx", "workspace", workspace,
                                                    workspace_size);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    standin_drain(handle->stream);
    std::memset(y, 0xff, bytes(y_desc));
    for (const StandinFindEntry &e : standin_script().find) {
        if (*returned == requested) break;
        cudnnConvolutionFwdAlgoPerf_t &r = results[(*returned)++];
        std::memset(&r, 0, sizeof r);
        r.algo = e.algo;
        r.mathType = e.math < 0 ? conv->math : (cudnnMathType_t)e.math;
        r.memory = e.memory;
        r.status = e.status;
        // an algorithm whose workspace does not fit what Find was given fails
        // (cudnnConvolutionFwdAlgoPerf_t: CUDNN_STATUS_ALLOC_FAILED "if the
        // provided workspace is insufficient")
        if (r.status == CUDNN_STATUS_SUCCESS && r.memory > workspace_size) r.status = CUDNN_STATUS_ALLOC_FAILED;
        r.time = r.status == CUDNN_STATUS_SUCCESS ? 0.01f * (float)*returned : -1.0f;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                      const cudnnFilterDescriptor_t,
                                                      const cudnnConvolutionDescriptor_t conv,
                                                      const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t algo,
                                                      size_t *size)
{
    *size = workspace_need(algo, conv->math);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t x_desc,
                                      const void *x, const cudnnFilterDescriptor_t w_desc, const void *w,
                                      const cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
                                      void *workspace, size_t workspace_size, const void *beta,
                                      const cudnnTensorDescriptor_t y_desc, void *y)
{
    const char *call = "cudnnConvolutionForward";
    standin_counters().plain_calls.push_back({(int)algo, (int)conv->math});
    cudnnStatus_t s = check_conv(call, x_desc, x, w_desc, w, conv, y_desc, y);
    if (s == CUDNN_STATUS_SUCCESS) s = check_workspace(call, conv, algo, workspace, workspace_size);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    float a = scalar(alpha), b = scalar(beta);
    cudnnTensorStruct xd = *x_desc, yd = *y_desc;
    cudnnFilterStruct wd = *w_desc;
    cudnnConvolutionStruct cd = *conv;
    std::vector<StandinRange> ranges = {{x, bytes(&xd)}, {w, filter_elements(&wd) * element_size(wd.type)},
                                        {y, bytes(&yd)}, {workspace, workspace_size}};
    standin_submit(
        handle->stream, call, [=]() mutable { write(&yd, y, convolve(&xd, x, &wd, w, &cd, &yd), a, b); }, ranges);
    return CUDNN_STATUS_SUCCESS;
}

// y = act(alpha1 · conv(x) + alpha2 · z + bias)
cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t x_desc, const void *x,
    const cudnnFilterDescriptor_t w_desc, const void *w, const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionFwdAlgo_t algo, void *workspace, size_t workspace_size, const void *alpha2,
    const cudnnTensorDescriptor_t z_desc, const void *z, const cudnnTensorDescriptor_t bias_desc, const void *bias,
    const cudnnActivationDescriptor_t act, const cudnnTensorDescriptor_t y_desc, void *y)
{
    const char *call = "cudnnConvolutionBiasActivationForward";
    standin_counters().fused_calls.push_back({(int)algo, (int)conv->math});
    cudnnStatus_t s = check_conv(call, x_desc, x, w_desc, w, conv, y_desc, y);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    // cudnnConvolutionBiasActivationForward(), Returns: NOT_SUPPORTED when "the
    // mode of activationDesc is neither CUDNN_ACTIVATION_RELU or
    // CUDNN_ACTIVATION_IDENTITY"; its Note: "only the
    // CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM algo is enabled with
    // CUDNN_ACTIVATION_IDENTITY" (7.5 wording: cuDNN 8.7+ may take more modes)
    if (!act || !act->set ||
        (act->mode != CUDNN_ACTIVATION_RELU && act->mode != CUDNN_ACTIVATION_IDENTITY)) {
        standin_rule("fusedActivation", "cudnnConvolutionBiasActivationForward(), Returns",
                     "activation mode %d (RELU or IDENTITY only)", act ? (int)act->mode : -1);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (act->mode == CUDNN_ACTIVATION_IDENTITY && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
        standin_rule("fusedIdentityAlgorithm", "cudnnConvolutionBiasActivationForward(), Note",
                     "IDENTITY with algorithm %d (IMPLICIT_PRECOMP_GEMM only)", (int)algo);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // the bias, Returns: BAD_PARAM when "the second dimension of biasDesc and
    // the first dimension of filterDesc are not equal" (sslat's bias is
    // 1×K×1×1, as PyTorch's); NOT_SUPPORTED when "the data type of biasDesc does
    // not correspond to the data type of yDesc" (HALF data: a HALF bias)
    if (!bias_desc->set || bias_desc->n != 1 || bias_desc->c != w_desc->k || bias_desc->h != 1 || bias_desc->w != 1) {
        standin_rule("fusedBiasDescriptor", "cudnnConvolutionBiasActivationForward(), Returns",
                     "bias %dx%dx%dx%d for K %d", bias_desc->n, bias_desc->c, bias_desc->h, bias_desc->w, w_desc->k);
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (bias_desc->type != y_desc->type) {
        standin_rule("fusedBiasType", "cudnnConvolutionBiasActivationForward(), Returns and data types table",
                     "bias type %d, y type %d", (int)bias_desc->type, (int)y_desc->type);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // z, Returns: BAD_PARAM when "zDesc and destDesc do not match"
    if (!same(z_desc, y_desc)) {
        standin_rule("fusedZDescriptor", "cudnnConvolutionBiasActivationForward(), Returns",
                     "zDesc differs from yDesc");
        return CUDNN_STATUS_BAD_PARAM;
    }
    s = check_workspace(call, conv, algo, workspace, workspace_size);
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "z", z, bytes(z_desc));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "bias", bias, (size_t)bias_desc->c * element_size(bias_desc->type));
    if (s != CUDNN_STATUS_SUCCESS) return s;
    for (const auto &pair : standin_script().refuse_fused)
        if (pair.first == (int)algo && (pair.second < 0 || pair.second == (int)conv->math)) {
            standin_set_last_error("stand-in: the script refuses the fused call for this algorithm and math");
            return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
        }
    float a1 = scalar(alpha1), a2 = scalar(alpha2);
    cudnnTensorStruct xd = *x_desc, yd = *y_desc, bd = *bias_desc;
    cudnnFilterStruct wd = *w_desc;
    cudnnConvolutionStruct cd = *conv;
    cudnnActivationStruct ad = *act;
    standin_submit(handle->stream, call, [=]() mutable {
        std::vector<float> v = convolve(&xd, x, &wd, w, &cd, &yd);
        std::vector<float> zv = a2 != 0 ? read(&yd, z) : std::vector<float>();
        size_t hw = (size_t)yd.h * yd.w;
        for (size_t i = 0; i < v.size(); i++) {
            float sum = a1 * v[i] + (a2 != 0 ? a2 * zv[i] : 0.0f) + load(bias, bd.type, i / hw % (size_t)yd.c);
            v[i] = activate(ad.mode, ad.coef, sum);
        }
        write(&yd, y, v, 1.0f, 0.0f);
    }, {{x, bytes(&xd)}, {w, filter_elements(&wd) * element_size(wd.type)}, {y, bytes(&yd)}, {z, bytes(&yd)},
        {bias, (size_t)bd.c * element_size(bd.type)}, {workspace, workspace_size}});
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *d) { return create(d); }

cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t d) { return destroy(d); }

cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t d, cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t, double coef)
{
    *d = cudnnActivationStruct{true, mode, coef};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t act, const void *alpha,
                                     const cudnnTensorDescriptor_t x_desc, const void *x, const void *beta,
                                     const cudnnTensorDescriptor_t y_desc, void *y)
{
    const char *call = "cudnnActivationForward";
    // CUDNN_ACTIVATION_IDENTITY "does not work with cudnnActivationForward()"
    if (!act->set || act->mode == CUDNN_ACTIVATION_IDENTITY) {
        standin_rule("activationMode", "cudnnActivationMode_t, CUDNN_ACTIVATION_IDENTITY",
                     "activation mode %d", (int)act->mode);
        return CUDNN_STATUS_BAD_PARAM;
    }
    // "the n, c, h, w dimensions of the input and output tensors must be the same"
    if (x_desc->n != y_desc->n || x_desc->c != y_desc->c || x_desc->h != y_desc->h || x_desc->w != y_desc->w ||
        x_desc->type != y_desc->type) {
        standin_rule("activationShapes", "cudnnActivationForward(), yDesc", "x and y differ");
        return CUDNN_STATUS_BAD_PARAM;
    }
    cudnnStatus_t s = device_check(call, "x", x, bytes(x_desc));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "y", y, bytes(y_desc));
    if (s != CUDNN_STATUS_SUCCESS) return s;
    float a = scalar(alpha), b = scalar(beta);
    cudnnTensorStruct xd = *x_desc, yd = *y_desc;
    cudnnActivationStruct ad = *act;
    standin_submit(handle->stream, call, [=]() mutable {
        std::vector<float> v = read(&xd, x);
        for (float &e : v) e = activate(ad.mode, ad.coef, e);
        write(&yd, y, v, a, b);
    }, {{x, bytes(&xd)}, {y, bytes(&yd)}});
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *d) { return create(d); }

cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t d) { return destroy(d); }

cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t d, cudnnPoolingMode_t mode, cudnnNanPropagation_t,
                                          int window_h, int window_w, int pad_h, int pad_w, int stride_h, int stride_w)
{
    // the two modes the stand-in computes (sslat lowers max and average with padding counted)
    if (mode != CUDNN_POOLING_MAX && mode != CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING) {
        standin_rule("poolMode", "stand-in: MAX and AVERAGE_COUNT_INCLUDE_PADDING only", "mode %d", (int)mode);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (window_h <= 0 || window_w <= 0 || stride_h <= 0 || stride_w <= 0 || pad_h < 0 || pad_w < 0) {
        standin_rule("poolDescriptor", "cudnnSetPooling2dDescriptor(): windows and strides > 0, padding >= 0",
                     "window %d,%d pad %d,%d stride %d,%d", window_h, window_w, pad_h, pad_w, stride_h, stride_w);
        return CUDNN_STATUS_BAD_PARAM;
    }
    *d = cudnnPoolingStruct{true, mode, window_h, window_w, pad_h, pad_w, stride_h, stride_w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t pool, const void *alpha,
                                  const cudnnTensorDescriptor_t x_desc, const void *x, const void *beta,
                                  const cudnnTensorDescriptor_t y_desc, void *y)
{
    const char *call = "cudnnPoolingForward";
    // stand-in rule: cuDNN documents no bound on the padding (only negative
    // windows and strides are BAD_PARAM), but a window that can see only
    // padding has no value to take, and the IR follows PyTorch (pad <= window / 2)
    if (pool->pad_h >= pool->window_h || pool->pad_w >= pool->window_w) {
        standin_rule("poolPadding", "stand-in rule; cudnnSetPooling2dDescriptor()",
                     "padding %d,%d with window %d,%d", pool->pad_h, pool->pad_w, pool->window_h, pool->window_w);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    // cudnnPoolingForward(), Returns: BAD_PARAM when "the dimensions n, c of the
    // input tensor and output tensors differ" or their data types differ. The
    // spatial size "can be smaller or bigger" than cudnnGetPooling2dForwardOutputDim()
    // advises (1 + (in + 2·pad − window) / stride); stand-in rule: sslat's y is
    // exactly that size, the one its reference computes
    int oh = 1 + (x_desc->h + 2 * pool->pad_h - pool->window_h) / pool->stride_h;
    int ow = 1 + (x_desc->w + 2 * pool->pad_w - pool->window_w) / pool->stride_w;
    if (y_desc->n != x_desc->n || y_desc->c != x_desc->c || y_desc->h != oh || y_desc->w != ow ||
        y_desc->type != x_desc->type || y_desc->format != x_desc->format) {
        standin_rule("poolOutputDims", "cudnnPoolingForward(), Returns; stand-in rule for H, W",
                     "y is %dx%dx%dx%d, pooling gives %dx%dx%dx%d", y_desc->n, y_desc->c, y_desc->h, y_desc->w,
                     x_desc->n, x_desc->c, oh, ow);
        return CUDNN_STATUS_BAD_PARAM;
    }
    cudnnStatus_t s = device_check(call, "x", x, bytes(x_desc));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "y", y, bytes(y_desc));
    if (s != CUDNN_STATUS_SUCCESS) return s;
    float a = scalar(alpha), b = scalar(beta);
    cudnnTensorStruct xd = *x_desc, yd = *y_desc;
    cudnnPoolingStruct pd = *pool;
    standin_submit(handle->stream, call, [=]() mutable {
        std::vector<float> in = read(&xd, x), out(elements(&yd));
        size_t i = 0;
        for (int n = 0; n < yd.n; n++)
            for (int c = 0; c < yd.c; c++)
                for (int oh2 = 0; oh2 < yd.h; oh2++)
                    for (int ow2 = 0; ow2 < yd.w; ow2++, i++) {
                        float best = -INFINITY, sum = 0;
                        for (int r = 0; r < pd.window_h; r++)
                            for (int q = 0; q < pd.window_w; q++) {
                                int ih = oh2 * pd.stride_h - pd.pad_h + r, iw = ow2 * pd.stride_w - pd.pad_w + q;
                                if (ih < 0 || ih >= xd.h || iw < 0 || iw >= xd.w) continue; // padding: 0 in the sum
                                float v = in[(((size_t)n * xd.c + c) * xd.h + ih) * xd.w + iw];
                                best = v > best ? v : best;
                                sum += v;
                            }
                        out[i] = pd.mode == CUDNN_POOLING_MAX ? best : sum / (float)(pd.window_h * pd.window_w);
                    }
        write(&yd, y, out, a, b);
    }, {{x, bytes(&xd)}, {y, bytes(&yd)}});
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                      const void *alpha, const void *beta,
                                                      const cudnnTensorDescriptor_t x_desc, const void *x,
                                                      const cudnnTensorDescriptor_t y_desc, void *y,
                                                      const cudnnTensorDescriptor_t bn_desc, const void *scale,
                                                      const void *bn_bias, const void *mean, const void *variance,
                                                      double epsilon)
{
    const char *call = "cudnnBatchNormalizationForwardInference";
    // cudnnBatchNormalizationForwardInference(), Returns: BAD_PARAM when
    // "bnScaleBiasMeanVarDesc dimensions are not 1xCx1x1 … for spatial" or
    // "epsilon value is less than CUDNN_BN_MIN_EPSILON" (0.0 in cuDNN 9,
    // cudnn_ops.h); its type as cudnnDeriveBNTensorDescriptor() derives it
    // (cudnn_ops.h: "(typeOf(x) == double) ? double : float")
    cudnnDataType_t derived = x_desc->type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (mode != CUDNN_BATCHNORM_SPATIAL || !bn_desc->set || bn_desc->n != 1 || bn_desc->c != x_desc->c ||
        bn_desc->h != 1 || bn_desc->w != 1 || bn_desc->type != derived) {
        standin_rule("bnDescriptor", "cudnnBatchNormalizationForwardInference(), Returns; cudnnDeriveBNTensorDescriptor()",
                     "mode %d, bn %dx%dx%dx%d type %d for C %d type %d", (int)mode, bn_desc->n, bn_desc->c,
                     bn_desc->h, bn_desc->w, (int)bn_desc->type, x_desc->c, (int)x_desc->type);
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (epsilon < CUDNN_BN_MIN_EPSILON) {
        standin_rule("bnEpsilon", "cudnnBatchNormalizationForwardInference(), Returns",
                     "epsilon %g", epsilon);
        return CUDNN_STATUS_BAD_PARAM;
    }
    if (x_desc->n != y_desc->n || x_desc->c != y_desc->c || x_desc->h != y_desc->h || x_desc->w != y_desc->w) {
        standin_rule("bnShapes", "cudnnBatchNormalizationForwardInference(), xDesc and yDesc", "x and y differ");
        return CUDNN_STATUS_BAD_PARAM;
    }
    size_t pb = (size_t)x_desc->c * sizeof(float);
    cudnnStatus_t s = device_check(call, "x", x, bytes(x_desc));
    if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "y", y, bytes(y_desc));
    for (const void *p : {scale, bn_bias, mean, variance})
        if (s == CUDNN_STATUS_SUCCESS) s = device_check(call, "a BN parameter", p, pb);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    float a = scalar(alpha), b = scalar(beta);
    cudnnTensorStruct xd = *x_desc, yd = *y_desc;
    standin_submit(handle->stream, call, [=]() mutable {
        std::vector<float> v = read(&xd, x);
        const float *g = (const float *)scale, *be = (const float *)bn_bias, *m = (const float *)mean,
                    *var = (const float *)variance;
        size_t hw = (size_t)xd.h * xd.w;
        for (size_t i = 0; i < v.size(); i++) {
            size_t c = i / hw % (size_t)xd.c;
            v[i] = g[c] * (v[i] - m[c]) / std::sqrt(var[c] + (float)epsilon) + be[c];
        }
        write(&yd, y, v, a, b);
    }, {{x, bytes(&xd)}, {y, bytes(&yd)}, {scale, pb}, {bn_bias, pb}, {mean, pb}, {variance, pb}});
    return CUDNN_STATUS_SUCCESS;
}

} // extern "C"

void standin_fill_cudnn_table()
{
#define STANDIN_CUDNN(name) sslat_cuda_api.name = &name;
    CUDA_CUDNN_FUNCTIONS(STANDIN_CUDNN)
#undef STANDIN_CUDNN
    sslat_cuda_api.cudnnGetLastErrorString = &cudnnGetLastErrorString;
}
