"""Recording one run of a module: every torch function call and every mapped
module, as layers of the space-file format wired by their sources.

A module is recorded whole (a *leaf*) only when it is exactly one of the
mapped classes, or a subclass that runs the mapped class's own forward; any
other module, a subclass that overrides forward included (timm's
BatchNormAct2d, Conv2dSame), is recorded through the calls its forward makes
(_calls).
"""
import contextlib
import weakref

import torch.nn as nn
from torch.overrides import TorchFunctionMode

from ._calls import CallMapping
from ._layers import Layer, MappingError, Value, compact, same_padding

_ACTIVATION_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Hardswish: "hswish", nn.Hardsigmoid: "hsigmoid",
                       nn.SiLU: "silu", nn.Sigmoid: "sigmoid", nn.GELU: "gelu", nn.Tanh: "tanh"}
_IDENTITY_MODULES = (nn.Identity, nn.Dropout, nn.Dropout2d)
# The classes recorded whole. A subclass is recorded whole only if these
# methods (what the class's forward runs) are the base class's own.
_LEAF_CLASSES = (nn.Conv2d, nn.BatchNorm2d, nn.Linear, nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d,
                 nn.Flatten, nn.Upsample, nn.ChannelShuffle, nn.LayerNorm, nn.MultiheadAttention, nn.LeakyReLU) + \
    tuple(_ACTIVATION_MODULES) + _IDENTITY_MODULES
LN_EPSILON = 1e-6  # SSLAT_LN_DEFAULT_EPSILON: an "ln" without "eps" is timm's
_FORWARD_METHODS = {nn.Conv2d: ("forward", "_conv_forward")}


def mapped_class(module):
    """The mapped class module is recorded as, or None: record its calls."""
    for base in type(module).__mro__:
        if base in _LEAF_CLASSES:
            methods = _FORWARD_METHODS.get(base, ("forward",))
            if all(getattr(type(module), m) is getattr(base, m) for m in methods):
                return base
            return None
    return None


def is_choice(module):
    """Choice, or a container with ENOT's attributes (SearchVariantsContainer)."""
    return hasattr(module, "search_variants") and hasattr(module, "default_operation_index")


class Recorder(CallMapping, TorchFunctionMode):
    """Records one run. Tensors are looked up by identity through weak
    references, so the run's intermediate values are freed as in eager mode
    (keep_outputs keeps each layer's output, to find where a check fails)."""

    def __init__(self, where, keep_outputs=False):
        super().__init__()
        self.where = where    # "the model" or "candidate 3 of block 'layer2.0'"
        self.layers = []      # [Layer]
        self.values = {}      # id(tensor) → (weak reference, Value, the tensor's version then)
        self.inputs = []      # the run's input, alive for the run
        self.depth = 0        # > 0 inside a module recorded whole or a choice
        self.stack = []       # the module paths running now, for messages
        self.modules = []     # the modules running now (innermost last)
        self.keep_outputs = keep_outputs
        self.writing = None   # the tensor the call being recorded wrote into in place (relu_(), inplace=True)

    @property
    def path(self):
        return self.stack[-1] if self.stack else "model"

    # ---- values ---------------------------------------------------------------------------------
    def mark_input(self, tensor):
        self.inputs.append(tensor)
        self.set(tensor, Value("input"))

    def known(self, tensor):
        entry = self.values.get(id(tensor))
        return entry is not None and entry[0]() is tensor

    def value_of(self, tensor, what):
        if not self.known(tensor):
            raise MappingError("%s: %s reads a tensor the model did not compute from its input (a constant, a "
                               "buffer or a parameter), in %s" % (self.path, what, self.where))
        _, value, version = self.values[id(tensor)]
        if tensor._version != version and tensor is not self.writing:  # written since, through another view
            raise MappingError("%s: %s reads a tensor that was written into in place after it was computed, "
                               "through a view or alias of it (y[:, :4].relu_()), which sslat's records do not "
                               "follow, in %s: use the out-of-place form" % (self.path, what, self.where))
        return value

    def source_of(self, tensor, what):
        value = self.value_of(tensor, what)
        if value.pending is not None and value.pending[0] == "a zero padding":
            raise MappingError("%s: %s reads a zero padding (F.pad / ZeroPad2d) that no convolution takes: sslat "
                               "folds a padding into the convolution that reads it, in %s" % (self.path, what, self.where))
        if value.pending is not None:
            raise MappingError("%s: %s reads %s, which sslat's IR cannot express, in %s"
                               % (self.path, what, value.pending[0], self.where))
        return value.source

    def channels_last(self, tensor):
        """Whether tensor is an image permuted to N×H×W×C (tokens N×(H·W)×C in the IR)."""
        if not self.known(tensor):
            return False
        source = self.values[id(tensor)][1].source
        return isinstance(source, int) and self.layers[source].channels_last

    def emit(self, spec, sources, result, call, params=None, channels_last=None):
        """A layer of spec reading sources. channels_last: whether its output is an N×H×W×C image
        (by default: a 4-D output of a layer that reads one, but for the permute back)."""
        op = spec.get("op") if isinstance(spec, dict) else spec
        if channels_last is None:
            channels_last = result.dim() == 4 and op != "image" and any(
                isinstance(s, int) and self.layers[s].channels_last for s in sources)
        shape = tuple(result.shape)
        if channels_last:
            shape = (shape[0], shape[1] * shape[2], shape[3])
        layer = Layer(spec, list(sources), self.path, call, shape, params, channels_last)
        if self.keep_outputs:
            layer.output = result  # no torch call here: the recorder would record it
        self.layers.append(layer)
        self.set(result, Value(len(self.layers) - 1))

    def set(self, tensor, value):
        self.values[id(tensor)] = (weakref.ref(tensor), value, tensor._version)

    @contextlib.contextmanager
    def writing_into(self, tensor):
        """While a call that wrote into tensor in place is recorded (relu_(), inplace=True), tensor's
        new version is expected. Nested: a module's hook reading x.shape records a call of its own."""
        saved, self.writing = self.writing, tensor
        try:
            yield
        finally:
            self.writing = saved

    def square(self, value, what, call):
        """A window's kernel / stride / padding / dilation as one number (the IR's windows are square)."""
        if isinstance(value, (tuple, list)):
            if len(set(value)) != 1:
                self.refuse(call, "%s %s is not square (the IR's windows are square)" % (what, tuple(value)))
            value = value[0]
        return int(value)

    def fail(self, what):
        raise MappingError("%s: %s has no sslat mapping, in %s" % (self.path, what, self.where))

    def refuse(self, what, why):
        raise MappingError("%s: %s: %s, in %s" % (self.path, what, why, self.where))

    # ---- modules recorded whole ------------------------------------------------------------------
    def module(self, module, base, inputs, output):
        """A module recorded whole; in place (ReLU(inplace=True)), its output is its input."""
        with self.writing_into(inputs[0] if output is inputs[0] else None):
            self.whole_module(module, base, inputs, output)

    def whole_module(self, module, base, inputs, output):
        call = type(module).__name__
        x = inputs[0]
        if base is nn.MultiheadAttention:
            self.multihead_attention(module, x, output, call)
            return
        if base in _IDENTITY_MODULES or (base is nn.Flatten and tuple(x.shape[2:]) in ((), (1, 1))):
            self.set(output, self.value_of(x, call))  # nothing, or a vector that stays one (N×C×1×1 in the IR)
            return
        if base is nn.Conv2d:
            if module.padding_mode != "zeros":
                self.refuse(call, "padding_mode %r (the IR pads with zeros)" % module.padding_mode)
            spec, source = self.conv(x, module.weight, module.bias, module.stride, module.padding,
                                     module.dilation, module.groups, call)
            self.emit(spec, [source], output, call, {"weight": module.weight, "bias": module.bias})
            return
        if base is nn.BatchNorm2d:
            self.batch_norm(x, module.running_mean, module.running_var, module.weight, module.bias, False,
                            module.eps, output, call)
            return
        if base is nn.Linear:
            self.linear(x, module.weight, module.bias, output, call)
            return
        if base is nn.LayerNorm:
            self.layer_norm(x, module.normalized_shape, module.weight, module.bias, module.eps, output, call)
            return
        if base in (nn.MaxPool2d, nn.AvgPool2d):
            maximum = base is nn.MaxPool2d
            if maximum and module.return_indices:
                self.refuse(call, "max pooling that returns indices")
            if not maximum and module.divisor_override is not None:
                self.refuse(call, "average pooling with divisor_override")
            spec = self.pool(maximum, module.kernel_size, module.stride, module.padding,
                             module.dilation if maximum else 1, module.ceil_mode,
                             True if maximum else module.count_include_pad, call)
            self.emit(spec, [self.source_of(x, call)], output, call)
            return
        source = self.source_of(x, call)
        if base is nn.GELU and module.approximate not in ("none", "tanh"):
            self.refuse(call, "GELU(approximate=%r) (the IR has gelu and gelu_tanh)" % module.approximate)
        if base is nn.GELU and module.approximate == "tanh":
            spec = {"op": "act", "act": "gelu_tanh"}
        elif base in _ACTIVATION_MODULES:
            spec = _ACTIVATION_MODULES[base]
        elif base is nn.AdaptiveAvgPool2d:
            size = self.square(module.output_size, "output size", call)
            if size != 1 and (x.shape[2] != x.shape[3] or x.shape[2] % size):
                self.refuse(call, "AdaptiveAvgPool2d to %s of a %dx%d map (the IR pools over equal windows: a "
                                  "square input whose side the output size divides)" % (module.output_size, x.shape[2],
                                                                                        x.shape[3]))
            spec = "gap" if size == 1 else {"op": "adapool", "k": size}
        elif base is nn.Flatten:
            spec = "flatten"
        elif base is nn.LeakyReLU:
            spec = {"op": "leaky", "slope": float(module.negative_slope)}
        elif base is nn.Upsample:
            spec = self.upsample(module.mode, module.scale_factor, module.size, x, call)
        else:  # nn.ChannelShuffle
            spec = {"op": "shuffle", "g": module.groups}
        self.emit(spec, [source], output, call)

    # ---- nn.MultiheadAttention (torchvision's ViT) -----------------------------------------------------
    def check_self_attention(self, module, inputs, keywords, path):
        """Before it runs: self-attention on N×L×C tokens, no masks, the IR's projections."""
        call = "%s (MultiheadAttention)" % path
        if len(inputs) != 3 or not (inputs[0] is inputs[1] is inputs[2]):
            raise MappingError("%s: attention of other queries, keys and values (the IR's is self-attention, "
                               "mha(x, x, x)), in %s" % (call, self.where))
        for key in ("key_padding_mask", "attn_mask"):
            if keywords.get(key) is not None:
                raise MappingError("%s: attention with %s (the IR attends every token to every token), in %s"
                                   % (call, key, self.where))
        if keywords.get("is_causal"):
            raise MappingError("%s: causal attention, in %s" % (call, self.where))
        if keywords.get("need_weights", True):
            raise MappingError("%s: need_weights=True (PyTorch then runs bmm, softmax, bmm, which the counters see "
                               "otherwise than its fused attention): call it with need_weights=False, as "
                               "torchvision's ViT does, in %s" % (call, self.where))
        if not module.batch_first:
            raise MappingError("%s: batch_first=False (L×N×C; the IR's tokens are N×L×C), in %s" % (call, self.where))
        if (not module._qkv_same_embed_dim or module.in_proj_bias is None or module.out_proj.bias is None
                or module.bias_k is not None or module.add_zero_attn):
            raise MappingError("%s: separate q/k/v widths, no bias, bias_k/bias_v or add_zero_attn (the IR's "
                               "attention has one packed projection with bias), in %s" % (call, self.where))

    def multihead_attention(self, module, x, output, call):
        """in_proj, the attention, out_proj as three layers: the projections are F.linear calls
        inside the module (thop and pthflops count neither), the attention its fused form."""
        result = output[0] if isinstance(output, (tuple, list)) else output
        heads, width = module.num_heads, module.head_dim
        self.depth += 1  # the values of the layers inside, computed without recording them
        try:
            qkv = nn.functional.linear(x, module.in_proj_weight, module.in_proj_bias)
            n, tokens, _ = x.shape
            q, k, v = qkv.reshape(n, tokens, 3, heads, width).permute(2, 0, 3, 1, 4).unbind(0)
            mixed = nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(n, tokens, -1)
        finally:
            self.depth -= 1
        self.emit({"op": "fc", "c": int(qkv.shape[-1]), "fn": True}, [self.source_of(x, call)], qkv, call,
                  {"weight": module.in_proj_weight, "bias": module.in_proj_bias})
        self.emit({"op": "sdpa", "h": heads, "hd": width}, [len(self.layers) - 1], mixed, call)
        self.emit({"op": "fc", "c": int(result.shape[-1]), "fn": True}, [len(self.layers) - 1], result, call,
                  {"weight": module.out_proj.weight, "bias": module.out_proj.bias})

    def conv(self, x, weight, bias, stride, padding, dilation, groups, call):
        """A convolution's spec and source; a zero padding before it is folded in."""
        if self.known(weight):
            self.refuse(call, "a convolution whose weights are computed from the input")
        if weight.dim() != 4:
            self.refuse(call, "a weight of %d dimensions (the IR's convolutions are 2-D)" % weight.dim())
        k = self.square(tuple(weight.shape[2:]), "kernel", call)
        d = self.square(dilation, "dilation", call)
        s = self.square(stride, "stride", call)
        if isinstance(padding, str):  # 'same' (stride 1: d·(k − 1) in all, the odd pixel last) / 'valid'
            total = d * (k - 1) if padding == "same" else 0
            p = "same" if total % 2 else total // 2
        else:
            p = self.square(padding, "padding", call)
        value = self.value_of(x, call)
        if value.pending is not None and value.pending[0] == "a zero padding" and p != "same":
            (left, right, top, bottom), source, size = value.pending[1:]
            pads = (left + p, right + p, top + p, bottom + p)
            if len(set(pads)) == 1:
                p = pads[0]
            elif pads == same_padding(size, k, s, d):
                p = "same"  # TensorFlow's 'same' written as F.pad + conv (timm's Conv2dSame)
            else:
                self.refuse(call, "a zero padding of (left %d, right %d, top %d, bottom %d) in all: neither the "
                                  "same on every side nor 'same' padding (TensorFlow's, timm's Conv2dSame) for "
                                  "this input" % pads)
        else:
            source = self.source_of(x, call)
        spec = compact({"op": "conv", "k": k, "s": s, "c": int(weight.shape[0]), "g": int(groups), "p": p, "d": d,
                         "bias": bias is not None})
        return spec, source

    def batch_norm(self, x, mean, variance, weight, bias, training, eps, result, call):
        if training:
            self.refuse(call, "batch normalisation in training mode (the model is read in eval mode)")
        if mean is None or variance is None or weight is None or bias is None:
            self.refuse(call, "a batch normalisation without affine parameters or running statistics")
        if x.dim() != 4:
            self.refuse(call, "a batch normalisation of a %d-D tensor (the IR's reads N×C×H×W)" % x.dim())
        params = {"weight": weight, "bias": bias, "running_mean": mean, "running_var": variance, "eps": float(eps)}
        self.emit("bn", [self.source_of(x, call)], result, call, params)

    def linear(self, x, weight, bias, result, call, functional=False):
        if self.known(weight):
            self.refuse(call, "a linear layer whose weights are computed from the input")
        if x.dim() not in (2, 3) and not self.channels_last(x):
            self.refuse(call, "a linear layer on a %d-D tensor (the IR's fc reads N×C vectors, N×L×C tokens or "
                              "an image permuted to N×H×W×C)" % x.dim())
        spec = {"op": "fc", "c": int(weight.shape[0])}
        if bias is None:  # nn.Linear(bias=False): LeViT's, a ViT's qkv without bias
            spec["nobias"] = True
        if functional:  # F.linear inside a module that is no nn.Linear: thop and pthflops count nothing
            spec["fn"] = True
        self.emit(spec, [self.source_of(x, call)], result, call, {"weight": weight, "bias": bias})

    def layer_norm(self, x, shape, weight, bias, eps, result, call):
        """LayerNorm over each token's channels (nn.LayerNorm, a subclass's F.layer_norm): of N×L×C
        tokens or of an image permuted to N×H×W×C (ConvNeXt's LayerNorm2d and blocks)."""
        if (x.dim() != 3 and not self.channels_last(x)) or tuple(shape) != (x.shape[-1],):
            self.refuse(call, "a LayerNorm over %s of a %d-D tensor (the IR normalises the channels of N×L×C "
                              "tokens or of an image permuted to N×H×W×C)" % (tuple(shape), x.dim()))
        if weight is None or bias is None:
            self.refuse(call, "a LayerNorm without its weight and bias")
        if not 0 < float(eps) < 1:
            self.refuse(call, "a LayerNorm with eps %g (the IR's is in (0, 1))" % eps)
        spec = "ln" if abs(float(eps) - LN_EPSILON) <= 1e-12 else {"op": "ln", "eps": float(eps)}
        self.emit(spec, [self.source_of(x, call)], result, call, {"weight": weight, "bias": bias})

    def pool(self, maximum, kernel, stride, padding, dilation, ceil_mode, count_include_pad, call):
        if (ceil_mode and not maximum) or not count_include_pad:
            self.refuse(call, "an average pool with ceil_mode or count_include_pad=False (the IR's average pools "
                              "with floor and count the padding)")
        if maximum and self.square(dilation, "dilation", call) != 1:
            self.refuse(call, "a dilated max pool")
        k = self.square(kernel, "kernel", call)
        if stride is None or (isinstance(stride, (tuple, list)) and not stride):
            s = k  # PyTorch's default stride: the kernel
        else:
            s = self.square(stride, "stride", call)
        spec = compact({"op": "maxpool" if maximum else "avgpool", "k": k, "s": s,
                        "p": self.square(padding, "padding", call)})
        if ceil_mode:
            spec["ceil"] = True
        return spec

    def upsample(self, mode, scale, size, x, call):
        if mode != "nearest":
            self.refuse(call, "upsampling by %r (the IR upsamples by nearest neighbour)" % mode)
        if scale is None and size is not None:  # a size that is an integer multiple of the input
            size = (size, size) if isinstance(size, int) else tuple(size)
            ratios = {size[i] / x.shape[2 + i] for i in range(2)}
            scale = ratios.pop() if len(ratios) == 1 else None
        if scale is None:
            self.refuse(call, "upsampling to a size that is not one integer multiple of the input")
        scale = float(scale[0]) if isinstance(scale, (tuple, list)) and len(set(scale)) == 1 else scale
        if isinstance(scale, (tuple, list)) or not float(scale).is_integer() or scale < 1:
            self.refuse(call, "upsampling by %s (the IR upsamples by one integer on H and W)" % (scale,))
        return {"op": "upsample", "s": int(scale)}

    # ---- functions --------------------------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if self.depth == 0:
            self.record(func, args, kwargs, result)
        return result
