"""Recording one run of a module: every torch function call and every mapped
module, as layers of the space-file format wired by their sources.

A module is recorded whole (a *leaf*) only when it is exactly one of the
mapped classes, or a subclass that runs the mapped class's own forward; any
other module, a subclass that overrides forward included (timm's
BatchNormAct2d, Conv2dSame), is recorded through the calls its forward makes.
"""
import operator
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode


class MappingError(ValueError):
    """A call of the model that sslat's IR cannot express, or a traced space
    that is not the model (the check after tracing)."""


_ACTIVATION_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Hardswish: "hswish", nn.Hardsigmoid: "hsigmoid",
                       nn.SiLU: "silu", nn.Sigmoid: "sigmoid", nn.GELU: "gelu", nn.Tanh: "tanh"}
_ACTIVATION_FUNCTIONS = {F.relu: "relu", torch.relu: "relu", torch.relu_: "relu", F.relu_: "relu",
                         F.relu6: "relu6", F.hardswish: "hswish", F.hardsigmoid: "hsigmoid", F.silu: "silu",
                         torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", F.gelu: "gelu", torch.tanh: "tanh",
                         F.tanh: "tanh", torch.Tensor.relu: "relu", torch.Tensor.relu_: "relu",
                         torch.Tensor.sigmoid: "sigmoid", torch.Tensor.sigmoid_: "sigmoid",
                         torch.Tensor.tanh: "tanh"}
_IDENTITY_MODULES = (nn.Identity, nn.Dropout, nn.Dropout2d)
# The classes recorded whole. A subclass is recorded whole only if these
# methods (what the class's forward runs) are the base class's own.
_LEAF_CLASSES = (nn.Conv2d, nn.BatchNorm2d, nn.Linear, nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d,
                 nn.Flatten, nn.Upsample, nn.ChannelShuffle) + tuple(_ACTIVATION_MODULES) + _IDENTITY_MODULES
_FORWARD_METHODS = {nn.Conv2d: ("forward", "_conv_forward")}
_ADD = {operator.add, operator.iadd, torch.add, torch.Tensor.add, torch.Tensor.add_, torch.Tensor.__add__,
        torch.Tensor.__iadd__, torch.Tensor.__radd__}
_MUL = {operator.mul, operator.imul, torch.mul, torch.Tensor.mul, torch.Tensor.mul_, torch.Tensor.__mul__,
        torch.Tensor.__imul__, torch.Tensor.__rmul__}
_ALIAS = {torch.Tensor.contiguous, torch.Tensor.clone, F.dropout, torch.Tensor.detach}  # the model runs in eval
_FOCUS_PHASES = [(0, 0), (1, 0), (0, 1), (1, 1)]  # YOLOv5's x[..., ::2, ::2], x[..., 1::2, ::2], …


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


def _pair(value, what, where):
    if isinstance(value, (tuple, list)):
        if len(set(value)) != 1:
            raise MappingError("%s: %s %s is not square (the IR's windows are square)" % (where, what, tuple(value)))
        value = value[0]
    return int(value)


def _same_padding(size, k, s, d):
    """'same' padding of an H×W input as (left, right, top, bottom): the
    total for ceil(in / s) outputs, the odd pixel last (the space format's
    "p": "same", TensorFlow's rule)."""
    pads = []
    for length in (size[1], size[0]):
        total = max((-(-length // s) - 1) * s + d * (k - 1) + 1 - length, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _compact(layer):
    """Leave out the options at the format's defaults (shorter files and labels):
    stride 1 (a pool: its kernel), groups 1, dilation 1, padding d·(k − 1) / 2, no bias."""
    pool = layer["op"] in ("maxpool", "avgpool")
    defaults = {"s": layer["k"] if pool else 1, "g": 1, "d": 1, "p": layer.get("d", 1) * (layer["k"] - 1) // 2,
                "bias": False}
    return {key: value for key, value in layer.items() if key not in defaults or defaults[key] != value}


class Layer:
    """One recorded layer: its spec (a type word or a dict of the space-file
    format, or ("choice", k) for a NAS block), the layers it reads ("input"
    or indices), the module and call that made it, the real output's shape,
    the parameters it was computed with (to check the space numerically) and,
    when asked for, the real output itself."""

    def __init__(self, spec, sources, path, call, shape, params):
        self.spec, self.sources, self.path, self.call = spec, sources, path, call
        self.shape, self.params, self.output = shape, params, None

    def where(self):
        return "%s (%s)" % (self.path, self.call)


class _Value:
    """A recorded tensor: the layer that made it, or something still pending
    (a view that is half of a channel shuffle, a strided pixel phase of Focus,
    a zero padding a convolution will take)."""

    def __init__(self, source, pending=None):
        self.source, self.pending = source, pending


class Recorder(TorchFunctionMode):
    """Records one run. Tensors are looked up by identity through weak
    references, so the run's intermediate values are freed as in eager mode
    (keep_outputs keeps each layer's output, to find where a check fails)."""

    def __init__(self, where, keep_outputs=False):
        super().__init__()
        self.where = where    # "the model" or "candidate 3 of block 'layer2.0'"
        self.layers = []      # [Layer]
        self.values = {}      # id(tensor) → (weak reference, _Value)
        self.inputs = []      # the run's input, alive for the run
        self.depth = 0        # > 0 inside a module recorded whole or a choice
        self.stack = []       # the module paths running now, for messages
        self.keep_outputs = keep_outputs

    @property
    def path(self):
        return self.stack[-1] if self.stack else "model"

    # ---- values ---------------------------------------------------------------------------------
    def mark_input(self, tensor):
        self.inputs.append(tensor)
        self.set(tensor, _Value("input"))

    def known(self, tensor):
        entry = self.values.get(id(tensor))
        return entry is not None and entry[0]() is tensor

    def value_of(self, tensor, what):
        if not self.known(tensor):
            raise MappingError("%s: %s reads a tensor the model did not compute from its input (a constant, a "
                               "buffer or a parameter), in %s" % (self.path, what, self.where))
        return self.values[id(tensor)][1]

    def source_of(self, tensor, what):
        value = self.value_of(tensor, what)
        if value.pending is not None and value.pending[0] == "a zero padding":
            raise MappingError("%s: %s reads a zero padding (F.pad / ZeroPad2d) that no convolution takes: sslat "
                               "folds a padding into the convolution that reads it, in %s" % (self.path, what, self.where))
        if value.pending is not None:
            raise MappingError("%s: %s reads %s, which sslat's IR cannot express, in %s"
                               % (self.path, what, value.pending[0], self.where))
        return value.source

    def emit(self, spec, sources, result, call, params=None):
        layer = Layer(spec, list(sources), self.path, call, tuple(result.shape), params)
        if self.keep_outputs:
            layer.output = result  # no torch call here: the recorder would record it
        self.layers.append(layer)
        self.set(result, _Value(len(self.layers) - 1))

    def set(self, tensor, value):
        self.values[id(tensor)] = (weakref.ref(tensor), value)

    def fail(self, what):
        raise MappingError("%s: %s has no sslat mapping, in %s" % (self.path, what, self.where))

    def refuse(self, what, why):
        raise MappingError("%s: %s: %s, in %s" % (self.path, what, why, self.where))

    # ---- modules recorded whole ------------------------------------------------------------------
    def module(self, module, base, inputs, output):
        call = type(module).__name__
        x = inputs[0]
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
        if base in (nn.MaxPool2d, nn.AvgPool2d):
            maximum = base is nn.MaxPool2d
            spec = self.pool(maximum, module.kernel_size, module.stride, module.padding,
                             module.dilation if maximum else 1, module.ceil_mode,
                             True if maximum else module.count_include_pad, call)
            self.emit(spec, [self.source_of(x, call)], output, call)
            return
        source = self.source_of(x, call)
        if base in _ACTIVATION_MODULES:
            spec = _ACTIVATION_MODULES[base]
        elif base is nn.AdaptiveAvgPool2d:
            if _pair(module.output_size, "output size", call) != 1:
                self.refuse(call, "AdaptiveAvgPool2d to %s (the IR pools globally, to 1)" % (module.output_size,))
            spec = "gap"
        elif base is nn.Flatten:
            spec = "flatten"
        elif base is nn.Upsample:
            spec = self.upsample(module.mode, module.scale_factor, module.size, x, call)
        else:  # nn.ChannelShuffle
            spec = {"op": "shuffle", "g": module.groups}
        self.emit(spec, [source], output, call)

    def conv(self, x, weight, bias, stride, padding, dilation, groups, call):
        """A convolution's spec and source; a zero padding before it is folded in."""
        if self.known(weight):
            self.refuse(call, "a convolution whose weights are computed from the input")
        if weight.dim() != 4:
            self.refuse(call, "a weight of %d dimensions (the IR's convolutions are 2-D)" % weight.dim())
        k = _pair(tuple(weight.shape[2:]), "kernel", call)
        d = _pair(dilation, "dilation", call)
        s = _pair(stride, "stride", call)
        if isinstance(padding, str):  # 'same' (stride 1: d·(k − 1) in all, the odd pixel last) / 'valid'
            total = d * (k - 1) if padding == "same" else 0
            p = "same" if total % 2 else total // 2
        else:
            p = _pair(padding, "padding", call)
        value = self.value_of(x, call)
        if value.pending is not None and value.pending[0] == "a zero padding" and p != "same":
            (left, right, top, bottom), source, size = value.pending[1:]
            pads = (left + p, right + p, top + p, bottom + p)
            if len(set(pads)) == 1:
                p = pads[0]
            elif pads == _same_padding(size, k, s, d):
                p = "same"  # TensorFlow's 'same' written as F.pad + conv (timm's Conv2dSame)
            else:
                self.refuse(call, "a zero padding of (left %d, right %d, top %d, bottom %d) in all: neither the "
                                  "same on every side nor 'same' padding (TensorFlow's, timm's Conv2dSame) for "
                                  "this input" % pads)
        else:
            source = self.source_of(x, call)
        spec = _compact({"op": "conv", "k": k, "s": s, "c": int(weight.shape[0]), "g": int(groups), "p": p, "d": d,
                         "bias": bias is not None})
        return spec, source

    def batch_norm(self, x, mean, variance, weight, bias, training, eps, result, call):
        if training:
            self.refuse(call, "batch normalisation in training mode (the model is read in eval mode)")
        if mean is None or variance is None or weight is None or bias is None:
            self.refuse(call, "a batch normalisation without affine parameters or running statistics")
        if x.dim() != 4:
            self.refuse(call, "a batch normalisation of a %d-D tensor (the IR's is 2-D, N×C×H×W)" % x.dim())
        params = {"weight": weight, "bias": bias, "running_mean": mean, "running_var": variance, "eps": float(eps)}
        self.emit("bn", [self.source_of(x, call)], result, call, params)

    def linear(self, x, weight, bias, result, call):
        if self.known(weight):
            self.refuse(call, "a linear layer whose weights are computed from the input")
        if bias is None:
            self.refuse(call, "a linear layer without bias (the IR's fc has one)")
        if x.dim() != 2:
            self.refuse(call, "a linear layer on a %d-D tensor (the IR's fc reads N×C vectors)" % x.dim())
        self.emit({"op": "fc", "c": int(weight.shape[0])}, [self.source_of(x, call)], result, call,
                  {"weight": weight, "bias": bias})

    def pool(self, maximum, kernel, stride, padding, dilation, ceil_mode, count_include_pad, call):
        if ceil_mode or not count_include_pad:
            self.refuse(call, "ceil_mode or count_include_pad=False (the IR pools with floor and counts padding)")
        if maximum and _pair(dilation, "dilation", call) != 1:
            self.refuse(call, "a dilated max pool")
        k = _pair(kernel, "kernel", call)
        s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else _pair(stride, "stride",
                                                                                                   call)
        return _compact({"op": "maxpool" if maximum else "avgpool", "k": k, "s": s,
                         "p": _pair(padding, "padding", call)})

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

    def record(self, func, args, kwargs, result):
        name = getattr(func, "__name__", str(func))
        what = "%s()" % name
        if func is torch.Tensor.__setitem__ and args and self.known(args[0]):
            self.refuse("x[...] = …", "an in-place write into a computed tensor (sslat records values, not "
                                      "writes: build the tensor with torch.cat)")
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        produced = [result] if isinstance(result, torch.Tensor) else list(result) if isinstance(result, (tuple, list)) else []
        if isinstance(result, torch.Size) or not any(isinstance(r, torch.Tensor) for r in produced):
            return  # sizes, shapes, dims, numbers: no layer
        if not tensors and func is not torch.cat:
            return
        if isinstance(result, torch.Tensor) and result.dim() == 0:
            return
        if func in _ALIAS:
            self.set(result, self.value_of(args[0], what))
        elif func in _ACTIVATION_FUNCTIONS:
            self.emit(_ACTIVATION_FUNCTIONS[func], [self.source_of(args[0], what)], result, what)
        elif func in (F.hardtanh, torch.Tensor.clamp, torch.clamp) and self.is_relu6(args, kwargs):
            self.emit("relu6", [self.source_of(args[0], what)], result, what)
        elif func in _ADD or func in _MUL:
            self.binary(func in _ADD, args, what, result)
        elif func is torch.cat:
            self.cat(args, kwargs, what, result)
        elif func in (torch.chunk, torch.Tensor.chunk, torch.split, torch.Tensor.split):
            self.split(args, kwargs, what, result)
        elif func is torch.Tensor.__getitem__:
            self.getitem(args, what, result)
        elif func in (torch.flatten, torch.Tensor.flatten):
            self.flatten(args, kwargs, what, result)
        elif func in (torch.Tensor.view, torch.Tensor.reshape, torch.reshape):
            self.view(args, what, result)
        elif func in (torch.transpose, torch.Tensor.transpose):
            self.transpose(args, what, result)
        elif func in (torch.mean, torch.Tensor.mean):
            dims = args[1] if len(args) > 1 else kwargs.get("dim")
            if dims is None or sorted(d % 4 for d in (dims if isinstance(dims, (tuple, list)) else [dims])) != [2, 3]:
                self.fail("%s over dims %s (only (2, 3), a global pool)" % (what, dims))
            self.emit({"op": "gap", "mean": True}, [self.source_of(args[0], what)], result, what)
        elif func is F.adaptive_avg_pool2d:
            size = args[1] if len(args) > 1 else kwargs.get("output_size")
            if _pair(size, "output size", what) != 1:
                self.fail("%s to %s (only to 1)" % (what, size))
            self.emit({"op": "gap", "fn": True}, [self.source_of(args[0], what)], result, what)
        elif func is F.interpolate:
            arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
            spec = self.upsample(arg(3, "mode", "nearest"), arg(2, "scale_factor", None), arg(1, "size", None),
                                 args[0], what)
            self.emit(spec, [self.source_of(args[0], what)], result, what)
        elif func is F.channel_shuffle or func is torch.channel_shuffle:
            self.emit({"op": "shuffle", "g": int(args[1])}, [self.source_of(args[0], what)], result, what)
        elif func is F.conv2d:
            self.conv_function(args, kwargs, what, result)
        elif func is F.batch_norm:
            arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
            self.batch_norm(args[0], arg(1, "running_mean", None), arg(2, "running_var", None),
                            arg(3, "weight", None), arg(4, "bias", None), arg(5, "training", False),
                            arg(7, "eps", 1e-5), result, what)
        elif func is F.linear:
            arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
            self.linear(args[0], arg(1, "weight", None), arg(2, "bias", None), result, what)
        elif func in (F.max_pool2d, F.avg_pool2d):
            self.pool_function(func is F.max_pool2d, args, kwargs, what, result)
        elif func is F.pad:
            self.pad(args, kwargs, what, result)
        else:
            self.fail(what)

    @staticmethod
    def is_relu6(args, kwargs):
        low = kwargs.get("min", kwargs.get("min_val", args[1] if len(args) > 1 else None))
        high = kwargs.get("max", kwargs.get("max_val", args[2] if len(args) > 2 else None))
        return low == 0 and high == 6

    def conv_function(self, args, kwargs, what, result):
        arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
        weight, bias = arg(1, "weight", None), arg(2, "bias", None)
        spec, source = self.conv(args[0], weight, bias, arg(3, "stride", 1), arg(4, "padding", 0),
                                 arg(5, "dilation", 1), arg(6, "groups", 1), what)
        self.emit(spec, [source], result, what, {"weight": weight, "bias": bias})

    def pool_function(self, maximum, args, kwargs, what, result):
        arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
        if maximum:  # (input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
            if arg(6, "return_indices", False):
                self.refuse(what, "max pooling that returns indices")
            spec = self.pool(True, arg(1, "kernel_size", None), arg(2, "stride", None), arg(3, "padding", 0),
                             arg(4, "dilation", 1), arg(5, "ceil_mode", False), True, what)
        else:  # (input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
            if arg(6, "divisor_override", None) is not None:
                self.refuse(what, "average pooling with divisor_override")
            spec = self.pool(False, arg(1, "kernel_size", None), arg(2, "stride", None), arg(3, "padding", 0), 1,
                             arg(4, "ceil_mode", False), arg(5, "count_include_pad", True), what)
        self.emit(spec, [self.source_of(args[0], what)], result, what)

    def pad(self, args, kwargs, what, result):
        """A zero padding of H and W: pending until the convolution that reads it folds it in."""
        arg = lambda i, key, default: kwargs.get(key, args[i] if len(args) > i else default)
        pads, mode, value = list(arg(1, "pad", ())), arg(2, "mode", "constant"), arg(3, "value", None)
        if mode != "constant" or value not in (None, 0, 0.0):
            self.refuse(what, "padding by %s with %s (the IR pads with zeros, inside a convolution)"
                        % (mode, value))
        if len(pads) == 2:
            pads += [0, 0]
        if len(pads) != 4 or min(pads) < 0:
            self.refuse(what, "a padding %s (the IR pads H and W by zeros)" % (tuple(pads),))
        self.set(result, _Value(None, ("a zero padding", tuple(int(p) for p in pads), self.source_of(args[0], what),
                                       tuple(args[0].shape[2:]))))

    def binary(self, add, args, what, result):
        a, b = args[0], args[1]
        if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            self.fail("%s with a number (scaling and shifting by constants are not IR ops)" % what)
        if add and a.shape == b.shape:
            self.emit("add", [self.source_of(a, what), self.source_of(b, what)], result, what)
            return
        if not add:  # x · s with s of N×C×1×1 (either order): squeeze-excite's scaling
            for x, s in ((a, b), (b, a)):
                if x.dim() == 4 and s.dim() == 4 and s.shape[2:] == (1, 1) and s.shape[:2] == x.shape[:2]:
                    self.emit("mul", [self.source_of(x, what), self.source_of(s, what)], result, what)
                    return
        self.fail("%s of shapes %s and %s (the IR adds equal shapes and scales channels by N×C×1×1)"
                  % (what, tuple(a.shape), tuple(b.shape)))

    def cat(self, args, kwargs, what, result):
        parts = list(args[0])
        dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
        values = [self.value_of(p, what) for p in parts]
        phases = [v.pending[1] if v.pending and v.pending[0] == "a strided pixel phase" else None for v in values]
        if dim % 4 == 1 and phases == _FOCUS_PHASES and len({v.pending[2] for v in values}) == 1:
            self.emit("s2d", [values[0].pending[2]], result, what)  # YOLOv5's Focus slicing
            return
        if dim % max(result.dim(), 1) != 1:
            self.fail("%s along dim %s (the IR joins channels)" % (what, dim))
        if len(parts) == 1:  # a copy of its one input
            self.set(result, self.value_of(parts[0], what))
            return
        if not 2 <= len(parts) <= 8:
            self.fail("%s of %d tensors (the IR joins 2 to 8)" % (what, len(parts)))
        self.emit("concat", [self.source_of(p, what) for p in parts], result, what)

    def split(self, args, kwargs, what, result):
        x = args[0]
        dim = kwargs.get("dim", args[2] if len(args) > 2 else 0)
        if dim % x.dim() != 1:
            self.fail("%s along dim %s (the IR splits channels)" % (what, dim))
        source, offset = self.source_of(x, what), 0
        for part in result:
            self.emit({"op": "slice", "o": offset, "c": part.shape[1]}, [source], part, what)
            offset += part.shape[1]

    def getitem(self, args, what, result):
        x, index = args[0], args[1]
        index = index if isinstance(index, tuple) else (index,)
        if len(index) == 3 and index[0] is Ellipsis and x.dim() == 4:  # x[..., a::2, b::2]
            rows, cols = index[1], index[2]
            if all(isinstance(s, slice) and s.step == 2 and s.stop is None and (s.start or 0) in (0, 1)
                   for s in (rows, cols)):
                self.set(result, _Value(None, ("a strided pixel phase", (rows.start or 0, cols.start or 0),
                                               self.source_of(x, what))))
                return
        if (len(index) >= 2 and index[0] == slice(None) and isinstance(index[1], slice) and index[1].step in (None, 1)
                and all(i == slice(None) for i in index[2:])):
            start, stop, _ = index[1].indices(x.shape[1])
            self.emit({"op": "slice", "o": start, "c": stop - start}, [self.source_of(x, what)], result, what)
            return
        self.fail("%s with index %s" % (what, index))

    def flatten(self, args, kwargs, what, result):
        start = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
        if start != 1 or result.dim() != 2:
            self.fail("%s from dim %s (only torch.flatten(x, 1))" % (what, start))
        x = args[0]
        if x.dim() == 2 or tuple(x.shape[2:]) == (1, 1):  # N×C×1×1 is already a vector in the IR
            self.set(result, self.value_of(x, what))
        else:
            self.emit("flatten", [self.source_of(x, what)], result, what)

    def view(self, args, what, result):
        x = args[0]
        value = self.value_of(x, what)
        if value.pending and value.pending[0] == "a transposed channel-group view" and result.dim() == 4:
            self.emit({"op": "shuffle", "g": value.pending[1]}, [value.pending[2]], result, what)
        elif x.dim() == 4 and result.dim() == 5 and result.shape[0] == x.shape[0] and result.shape[3:] == x.shape[2:]:
            self.set(result, _Value(None, ("a channel-group view", int(result.shape[1]), self.source_of(x, what))))
        elif result.dim() == 2 and result.shape[0] == x.shape[0] and (x.dim() == 2 or tuple(x.shape[2:]) == (1, 1)):
            self.set(result, value)  # N×C×1×1 → N×C: the same vector in the IR
        elif result.dim() == 2 and result.shape[0] == x.shape[0]:
            self.emit("flatten", [self.source_of(x, what)], result, what)
        elif result.dim() == 4 and result.shape[2:] == (1, 1) and result.shape[0] == x.shape[0]:
            # N×C vectors are N×C×1×1 in the IR: a view between the two is the same value
            if x.dim() == 2 or tuple(x.shape[2:]) == (1, 1):
                self.set(result, value)
            else:
                self.emit("flatten", [self.source_of(x, what)], result, what)
        elif result.shape == x.shape:
            self.set(result, value)
        else:
            self.fail("%s from %s to %s" % (what, tuple(x.shape), tuple(result.shape)))

    def transpose(self, args, what, result):
        value = self.value_of(args[0], what)
        dims = sorted(int(d) % 5 for d in args[1:3])
        if value.pending and value.pending[0] == "a channel-group view" and dims == [1, 2]:
            self.set(result, _Value(None, ("a transposed channel-group view", value.pending[1], value.pending[2])))
        else:
            self.fail("%s of dims %s" % (what, args[1:3]))
