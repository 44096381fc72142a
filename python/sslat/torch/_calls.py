"""Torch function calls as layers: what the recorder does with each call the
model makes outside a module recorded whole (a mixin of Recorder, which
gives it value_of, emit, refuse and the spec builders)."""
import operator

import torch
import torch.nn.functional as F

from ._layers import Value

_ACTIVATION_FUNCTIONS = {F.relu: "relu", torch.relu: "relu", torch.relu_: "relu", F.relu_: "relu",
                         F.relu6: "relu6", F.hardswish: "hswish", F.hardsigmoid: "hsigmoid", F.silu: "silu",
                         torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", F.gelu: "gelu", torch.tanh: "tanh",
                         F.tanh: "tanh", torch.Tensor.relu: "relu", torch.Tensor.relu_: "relu",
                         torch.Tensor.sigmoid: "sigmoid", torch.Tensor.sigmoid_: "sigmoid",
                         torch.Tensor.tanh: "tanh"}
_ADD = {operator.add, operator.iadd, torch.add, torch.Tensor.add, torch.Tensor.add_, torch.Tensor.__add__,
        torch.Tensor.__iadd__, torch.Tensor.__radd__}
_MUL = {operator.mul, operator.imul, torch.mul, torch.Tensor.mul, torch.Tensor.mul_, torch.Tensor.__mul__,
        torch.Tensor.__imul__, torch.Tensor.__rmul__}
_ALIAS = {torch.Tensor.contiguous, torch.Tensor.clone, F.dropout, torch.Tensor.detach}  # the model runs in eval
_FOCUS_PHASES = [(0, 0), (1, 0), (0, 1), (1, 1)]  # YOLOv5's x[..., ::2, ::2], x[..., 1::2, ::2], …
_CAT = (torch.cat, torch.concat, torch.concatenate)
_MATMUL = {operator.matmul, torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__, torch.bmm}
_SOFTMAX = {torch.softmax, torch.Tensor.softmax, F.softmax}
_PERMUTE = {torch.permute, torch.Tensor.permute}
_RESHAPE = {torch.Tensor.view, torch.Tensor.reshape, torch.reshape, torch.Tensor.unsqueeze, torch.unsqueeze}
_MUL_METHODS = {torch.Tensor.mul, torch.Tensor.mul_}  # x.mul(γ): no function call to pthflops' tracer

def arg(args, kwargs, index, key, default=None):
    """A call's argument, given by position or by keyword."""
    return kwargs.get(key, args[index] if len(args) > index else default)


class CallMapping:
    """record(): one torch function call of the model as a layer (or a value
    pending until a later call completes it), else a MappingError."""

    def record(self, func, args, kwargs, result):
        name = getattr(func, "__name__", str(func))
        # x.relu_(), x += y, F.relu(x, inplace=True) return the tensor they wrote into
        in_place = bool(args) and isinstance(args[0], torch.Tensor) and result is args[0]
        with self.writing_into(args[0] if in_place else None):
            self.record_call(func, name, args, kwargs, result)

    def record_call(self, func, name, args, kwargs, result):
        what = "%s()" % name
        if name == "__get__" and hasattr(func, "__self__"):  # a property: x.data, x.T
            what = "tensor.%s" % getattr(func.__self__, "__name__", "?")
        if func is torch.Tensor.__setitem__ and args and self.known(args[0]):
            self.refuse("x[...] = …", "an in-place write into a computed tensor (sslat records values, not "
                                      "writes: build the tensor with torch.cat)")
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if not tensors and any(isinstance(v, torch.Tensor) and self.known(v) for v in kwargs.values()):
            self.refuse(what, "its tensor given by keyword (input=…): sslat reads calls with the tensor first, "
                              "by position")
        produced = [result] if isinstance(result, torch.Tensor) else list(result) if isinstance(result, (tuple, list)) else []
        if isinstance(result, torch.Size) or not any(isinstance(r, torch.Tensor) for r in produced):
            return  # sizes, shapes, dims, numbers: no layer
        if not tensors and func not in _CAT:
            return  # a call on no tensor (torch.zeros(…)): nothing the input flows through
        if isinstance(result, torch.Tensor) and result.dim() == 0:
            return
        if func in _RESHAPE and not self.known(args[0]):
            return  # a parameter reshaped (gamma.reshape(1, -1, 1, 1)): met as a parameter where it is used
        if func in _ALIAS:
            self.set(result, self.value_of(args[0], what))
        elif func is torch.Tensor.expand and not self.known(args[0]):
            self.set(result, Value(None, ("an expanded parameter", args[0])))  # cls_token.expand(N, -1, -1)
        elif func is F.gelu and arg(args, kwargs, 1, "approximate", "none") == "tanh":
            self.emit({"op": "act", "act": "gelu_tanh"}, [self.source_of(args[0], what)], result, what)
        elif func is F.gelu and arg(args, kwargs, 1, "approximate", "none") != "none":
            self.refuse(what, "gelu(approximate=%r) (the IR has gelu and gelu_tanh)"
                        % arg(args, kwargs, 1, "approximate"))
        elif func is F.leaky_relu:
            self.emit({"op": "leaky", "slope": float(arg(args, kwargs, 1, "negative_slope", 0.01))},
                      [self.source_of(args[0], what)], result, what)
        elif func is F.layer_norm:
            self.layer_norm(args[0], arg(args, kwargs, 1, "normalized_shape"), arg(args, kwargs, 2, "weight"),
                            arg(args, kwargs, 3, "bias"), arg(args, kwargs, 4, "eps", 1e-5), result, what)
        elif func is F.scaled_dot_product_attention:
            self.fused_attention(args, kwargs, what, result)
        elif func in _MATMUL:
            self.matmul(args, what, result)
        elif func in _SOFTMAX:
            self.softmax(args, kwargs, what, result)
        elif func in _PERMUTE:
            self.permute(args, what, result)
        elif func in (torch.unbind, torch.Tensor.unbind):
            self.unbind(args, kwargs, what, result)
        elif func in _ACTIVATION_FUNCTIONS:
            self.emit(_ACTIVATION_FUNCTIONS[func], [self.source_of(args[0], what)], result, what)
        elif func in (F.hardtanh, torch.Tensor.clamp, torch.clamp) and self.is_relu6(args, kwargs):
            self.emit("relu6", [self.source_of(args[0], what)], result, what)
        elif func in _ADD or func in _MUL:
            self.binary(func in _ADD, args, what, result, method=func in _MUL_METHODS)
        elif func in _CAT:
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
        elif func in (torch.mean, torch.Tensor.mean) and args[0].dim() == 3:  # tokens: x.mean(1)
            dims = args[1] if len(args) > 1 else kwargs.get("dim")
            dims_list = list(dims) if isinstance(dims, (tuple, list)) else [dims]
            if [d % 3 for d in dims_list if isinstance(d, int)] != [1] or kwargs.get("keepdim"):
                self.fail("%s over dims %s of tokens (only x.mean(1))" % (what, dims))
            self.emit({"op": "tokpool", "mean": True}, [self.source_of(args[0], what)], result, what)
        elif func in (torch.mean, torch.Tensor.mean):
            dims = args[1] if len(args) > 1 else kwargs.get("dim")
            if dims is None or sorted(d % 4 for d in (dims if isinstance(dims, (tuple, list)) else [dims])) != [2, 3]:
                self.fail("%s over dims %s (only (2, 3), a global pool)" % (what, dims))
            self.emit({"op": "gap", "mean": True}, [self.source_of(args[0], what)], result, what)
        elif func is F.adaptive_avg_pool2d:
            size = args[1] if len(args) > 1 else kwargs.get("output_size")
            if self.square(size, "output size", what) != 1:
                self.fail("%s to %s (only to 1)" % (what, size))
            self.emit({"op": "gap", "fn": True}, [self.source_of(args[0], what)], result, what)
        elif func is F.interpolate:
            spec = self.upsample(arg(args, kwargs, 3, "mode", "nearest"), arg(args, kwargs, 2, "scale_factor", None), arg(args, kwargs, 1, "size", None),
                                 args[0], what)
            self.emit(spec, [self.source_of(args[0], what)], result, what)
        elif func is F.channel_shuffle or func is torch.channel_shuffle:
            self.emit({"op": "shuffle", "g": int(args[1])}, [self.source_of(args[0], what)], result, what)
        elif func is F.conv2d:
            self.conv_function(args, kwargs, what, result)
        elif func is F.batch_norm:
            self.batch_norm(args[0], arg(args, kwargs, 1, "running_mean", None), arg(args, kwargs, 2, "running_var", None),
                            arg(args, kwargs, 3, "weight", None), arg(args, kwargs, 4, "bias", None), arg(args, kwargs, 5, "training", False),
                            arg(args, kwargs, 7, "eps", 1e-5), result, what)
        elif func is F.linear:  # a subclass of nn.Linear that runs it (timm's Linear) counts as the module
            inside_linear = bool(self.modules) and isinstance(self.modules[-1], torch.nn.Linear)
            self.linear(args[0], arg(args, kwargs, 1, "weight", None), arg(args, kwargs, 2, "bias", None), result, what,
                        functional=not inside_linear)
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
        weight, bias = arg(args, kwargs, 1, "weight", None), arg(args, kwargs, 2, "bias", None)
        spec, source = self.conv(args[0], weight, bias, arg(args, kwargs, 3, "stride", 1), arg(args, kwargs, 4, "padding", 0),
                                 arg(args, kwargs, 5, "dilation", 1), arg(args, kwargs, 6, "groups", 1), what)
        self.emit(spec, [source], result, what, {"weight": weight, "bias": bias})

    def pool_function(self, maximum, args, kwargs, what, result):
        if maximum:  # (input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
            if arg(args, kwargs, 6, "return_indices", False):
                self.refuse(what, "max pooling that returns indices")
            spec = self.pool(True, arg(args, kwargs, 1, "kernel_size", None), arg(args, kwargs, 2, "stride", None), arg(args, kwargs, 3, "padding", 0),
                             arg(args, kwargs, 4, "dilation", 1), arg(args, kwargs, 5, "ceil_mode", False), True, what)
        else:  # (input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
            if arg(args, kwargs, 6, "divisor_override", None) is not None:
                self.refuse(what, "average pooling with divisor_override")
            spec = self.pool(False, arg(args, kwargs, 1, "kernel_size", None), arg(args, kwargs, 2, "stride", None), arg(args, kwargs, 3, "padding", 0), 1,
                             arg(args, kwargs, 4, "ceil_mode", False), arg(args, kwargs, 5, "count_include_pad", True), what)
        self.emit(spec, [self.source_of(args[0], what)], result, what)

    def pad(self, args, kwargs, what, result):
        """A zero padding of H and W: pending until the convolution that reads it folds it in."""
        pads, mode, value = list(arg(args, kwargs, 1, "pad", ())), arg(args, kwargs, 2, "mode", "constant"), arg(args, kwargs, 3, "value", None)
        if mode != "constant" or value not in (None, 0, 0.0):
            self.refuse(what, "padding by %s with %s (the IR pads with zeros, inside a convolution)"
                        % (mode, value))
        if len(pads) == 2:
            pads += [0, 0]
        if len(pads) != 4 or min(pads) < 0:
            self.refuse(what, "a padding %s (the IR pads H and W by zeros)" % (tuple(pads),))
        self.set(result, Value(None, ("a zero padding", tuple(int(p) for p in pads), self.source_of(args[0], what),
                                       tuple(args[0].shape[2:]))))

    def channel_vector(self, x, p):
        """Whether parameter p scales x per channel: C values along x's channels (the last axis
        of tokens and of an image permuted to N×H×W×C, axis 1 of an image)."""
        if not isinstance(p, torch.Tensor) or p.dim() > x.dim():
            return False
        shape = (1,) * (x.dim() - p.dim()) + tuple(p.shape)
        channels_last = x.dim() == 3 or self.channels_last(x)
        axis = x.dim() - 1 if channels_last else 1
        return (x.dim() in (3, 4) and shape[axis] == x.shape[axis]
                and all(size == 1 for i, size in enumerate(shape) if i != axis))

    def binary(self, add, args, what, result, method=False):
        a, b = args[0], args[1]
        for x, p in ((a, b), (b, a)):  # x * gamma: a learned scale per channel (ConvNeXt, timm's LayerScale)
            if (not add and isinstance(x, torch.Tensor) and self.known(x) and isinstance(p, torch.Tensor)
                    and not self.known(p) and self.channel_vector(x, p)):
                spec = {"op": "scale", "method": True} if method else "scale"
                self.emit(spec, [self.source_of(x, what)], result, what, {"gamma": p})
                return
        for x, p in ((a, b), (b, a)):  # x + pos_embed: a learned 1×L×C parameter added to N×L×C tokens
            if (add and isinstance(x, torch.Tensor) and isinstance(p, torch.Tensor) and self.known(x)
                    and not self.known(p) and x.dim() == 3 and tuple(p.shape) == (1,) + tuple(x.shape[1:])):
                self.emit("pos", [self.source_of(x, what)], result, what, {"pos_embed": p})
                return
        pending = self.value_of(a, what).pending if isinstance(a, torch.Tensor) and self.known(a) else None
        if not add and pending and pending[0] == "q" and isinstance(b, (int, float)):  # q * self.scale
            if abs(float(b) - pending[3] ** -0.5) > 1e-6 * pending[3] ** -0.5:
                self.refuse(what, "attention scaled by %g, not head_dim ** -0.5 (the IR's scale)" % b)
            self.set(result, Value(None, ("scaled q",) + pending[1:]))
            return
        if not any(isinstance(t, torch.Tensor) and self.known(t) for t in (a, b)):
            self.refuse(what, "arithmetic on tensors the model did not compute from its input (its parameters or "
                              "constants): sslat maps layers, not computations on their weights")
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
        parts = list(arg(args, kwargs, 0, "tensors"))
        dim = arg(args, kwargs, 1, "dim", 0)
        values = [self.value_of(p, what) for p in parts]
        if (len(parts) == 2 and values[0].pending and values[0].pending[0] == "an expanded parameter"
                and parts[1].dim() == 3 and dim % 3 == 1 and tuple(values[0].pending[1].shape) == (1, 1, parts[1].shape[2])):
            # cat((cls_token.expand(N, -1, -1), x), 1): the class token before the tokens
            self.emit("cls", [self.source_of(parts[1], what)], result, what, {"cls_token": values[0].pending[1]})
            return
        phases = [v.pending[1] if v.pending and v.pending[0] == "a strided pixel phase" else None for v in values]
        if dim % 4 == 1 and phases == _FOCUS_PHASES and len({v.pending[2] for v in values}) == 1:
            self.emit("s2d", [values[0].pending[2]], result, what)  # YOLOv5's Focus slicing
            return
        if dim % max(result.dim(), 1) != 1:
            self.fail("%s along dim %s (the IR joins channels)" % (what, dim))
        if len(parts) == 1:  # a copy of its one input
            self.set(result, self.value_of(parts[0], what))
            return
        if not 2 <= len(parts) <= 32:  # SSLAT_MAX_NODE_INPUTS (DenseNet-121 joins up to 25)
            self.fail("%s of %d tensors (the IR joins 2 to 32)" % (what, len(parts)))
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
        pending = self.value_of(x, what).pending
        if pending and pending[0] == "q|k|v heads" and isinstance(index, int) and 0 <= index % 3 <= 2:  # qkv[0]
            self.set(result, Value(None, ("qkv"[index % 3],) + pending[1:]))
            return
        index = index if isinstance(index, tuple) else (index,)
        if x.dim() == 3 and len(index) == 2 and index[0] == slice(None):  # tokens
            if index[1] == 0:  # x[:, 0]: the class token
                self.emit("tokpool", [self.source_of(x, what)], result, what)
                return
            if isinstance(index[1], slice) and index[1].indices(x.shape[1]) == (0, x.shape[1], 1):
                self.set(result, self.value_of(x, what))  # x[:, 0:], every token
                return
            self.fail("%s with index %s of tokens (only x[:, 0], the class token)" % (what, index))
        if len(index) == 3 and index[0] is Ellipsis and x.dim() == 4:  # x[..., a::2, b::2]
            rows, cols = index[1], index[2]
            if all(isinstance(s, slice) and s.step == 2 and s.stop is None and (s.start or 0) in (0, 1)
                   for s in (rows, cols)):
                self.set(result, Value(None, ("a strided pixel phase", (rows.start or 0, cols.start or 0),
                                               self.source_of(x, what))))
                return
        if (len(index) >= 2 and index[0] == slice(None) and isinstance(index[1], slice) and index[1].step in (None, 1)
                and all(i == slice(None) for i in index[2:])):
            start, stop, _ = index[1].indices(x.shape[1])
            if stop <= start:
                self.fail("%s with index %s: an empty channel slice" % (what, index))
            self.emit({"op": "slice", "o": start, "c": stop - start}, [self.source_of(x, what)], result, what)
            return
        self.fail("%s with index %s" % (what, index))

    def flatten(self, args, kwargs, what, result):
        start = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
        if start == 2 and args[0].dim() == 4 and result.dim() == 3:  # x.flatten(2), before .transpose(1, 2)
            self.set(result, Value(None, ("a flattened image", self.source_of(args[0], what))))
            return
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
        if value.pending and value.pending[0] == "token-major heads" and result.dim() == 3:
            source, heads, width, form = value.pending[1:]  # (…).transpose(1, 2).reshape(N, L, heads · width)
            spec = {"op": "sdpa", "h": heads, "hd": width}
            if form == "explicit":
                spec["explicit"] = True
            self.emit(spec, [source], result, what)
        elif value.pending is None and x.dim() == 4 and result.dim() == 3 and \
                tuple(result.shape) == (x.shape[0], x.shape[1], x.shape[2] * x.shape[3]):
            self.set(result, Value(None, ("a flattened image", self.source_of(x, what))))  # torchvision's ViT
        elif x.dim() == 3 and result.dim() == 5 and tuple(result.shape[:3]) == (x.shape[0], x.shape[1], 3):
            # qkv.reshape(N, L, 3, heads, head_dim)
            self.set(result, Value(None, ("packed q|k|v", self.source_of(x, what), int(result.shape[3]),
                                          int(result.shape[4]))))
        elif value.pending and value.pending[0] == "a transposed channel-group view" and result.dim() == 4:
            self.emit({"op": "shuffle", "g": value.pending[1]}, [value.pending[2]], result, what)
        elif x.dim() == 4 and result.dim() == 5 and result.shape[0] == x.shape[0] and result.shape[3:] == x.shape[2:]:
            self.set(result, Value(None, ("a channel-group view", int(result.shape[1]), self.source_of(x, what))))
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
        pending = value.pending
        rank = args[0].dim()
        dims = sorted(int(d) % rank for d in args[1:3])
        if pending and pending[0] == "a flattened image" and dims == [1, 2]:
            self.emit("tokens", [pending[1]], result, what)  # x.flatten(2).transpose(1, 2)
            return
        if pending and pending[0] == "k" and dims == [2, 3]:
            self.set(result, Value(None, ("k transposed",) + pending[1:]))
            return
        if pending and pending[0] == "attention heads" and dims == [1, 2]:
            self.set(result, Value(None, ("token-major heads",) + pending[1:]))
            return
        dims = sorted(int(d) % 5 for d in args[1:3])
        if value.pending and value.pending[0] == "a channel-group view" and dims == [1, 2]:
            self.set(result, Value(None, ("a transposed channel-group view", value.pending[1], value.pending[2])))
        else:
            self.fail("%s of dims %s" % (what, args[1:3]))

    # ---- attention: timm's Attention, torchvision's tokens --------------------------------------
    def permute(self, args, what, result):
        dims = tuple(args[1]) if len(args) == 2 and isinstance(args[1], (tuple, list)) else tuple(args[1:])
        pending = self.value_of(args[0], what).pending
        rank = args[0].dim()
        if pending is None and rank == 4 and tuple(int(d) % 4 for d in dims) == (0, 2, 3, 1) \
                and not self.channels_last(args[0]):  # ConvNeXt: an image to N×H×W×C (tokens in the IR)
            self.emit("tokens", [self.source_of(args[0], what)], result, what, channels_last=True)
        elif pending is None and rank == 4 and tuple(int(d) % 4 for d in dims) == (0, 3, 1, 2) \
                and self.channels_last(args[0]):  # and back
            height, width = int(args[0].shape[1]), int(args[0].shape[2])
            spec = "image" if height == width else {"op": "image", "w": width}
            self.emit(spec, [self.source_of(args[0], what)], result, what, channels_last=False)
        elif pending and pending[0] == "a flattened image" and dims == (0, 2, 1):
            self.emit("tokens", [pending[1]], result, what)  # torchvision: x.reshape(N, C, HW).permute(0, 2, 1)
        elif pending and pending[0] == "packed q|k|v" and dims == (2, 0, 3, 1, 4):
            self.set(result, Value(None, ("q|k|v heads",) + pending[1:]))
        else:
            self.fail("%s of dims %s" % (what, dims))

    def unbind(self, args, kwargs, what, result):
        pending = self.value_of(args[0], what).pending
        if not (pending and pending[0] == "q|k|v heads" and arg(args, kwargs, 1, "dim", 0) == 0):
            self.fail(what)
        for role, part in zip("qkv", result):
            self.set(part, Value(None, (role,) + pending[1:]))

    def attention_parts(self, parts, roles, what):
        """The q|k|v source, heads and head width that parts (pending heads) share."""
        pendings = [self.value_of(p, what).pending for p in parts]
        if any(not p or p[0] != role for p, role in zip(pendings, roles)) or len({p[1:] for p in pendings}) != 1:
            self.fail("%s of tensors that are not %s of one packed q|k|v" % (what, ", ".join(roles)))
        return pendings[0][1:]

    def fused_attention(self, args, kwargs, what, result):
        q, k, v = (arg(args, kwargs, i, key) for i, key in enumerate(("query", "key", "value")))
        source, heads, width = self.attention_parts([q, k, v], ("q", "k", "v"), what)
        if arg(args, kwargs, 3, "attn_mask") is not None or arg(args, kwargs, 5, "is_causal", False):
            self.refuse(what, "attention with a mask (the IR's attends every token to every token)")
        scale = arg(args, kwargs, 6, "scale")
        if scale is not None and abs(scale - width ** -0.5) > 1e-6 * width ** -0.5:
            self.refuse(what, "attention scaled by %g, not head_dim ** -0.5 (the IR's scale)" % scale)
        self.set(result, Value(None, ("attention heads", source, heads, width, "fused")))

    def matmul(self, args, what, result):
        a, b = args[0], args[1]
        first = self.value_of(a, what).pending
        if first and first[0] == "scaled q":  # (q * scale) @ k.transpose(-2, -1)
            source = self.attention_parts([a, b], ("scaled q", "k transposed"), what)
            self.set(result, Value(None, ("scores",) + source))
        elif first and first[0] == "probabilities":  # attn @ v
            source = self.attention_parts([a, b], ("probabilities", "v"), what)
            self.set(result, Value(None, ("attention heads",) + source + ("explicit",)))
        else:
            self.fail("%s outside attention (the IR's products are linear layers and attention)" % what)

    def softmax(self, args, kwargs, what, result):
        pending = self.value_of(args[0], what).pending
        if pending and pending[0] == "scores" and arg(args, kwargs, 1, "dim") in (-1, 3):
            self.set(result, Value(None, ("probabilities",) + pending[1:]))
        else:
            self.fail("%s outside attention's scores" % what)
