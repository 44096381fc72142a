"""PyTorch models as search spaces (needs torch; the rest of sslat does not).

    import sslat, sslat.torch
    block = sslat.torch.Choice([MBConv(k=3), MBConv(k=5), MBConv(k=7)])
    space = sslat.torch.to_space(model, torch.zeros(1, 3, 224, 224))
    table = sslat.initialize_latency("mac_fvcore", model, (torch.zeros(1, 3, 224, 224),))

A model's searchable places are choice containers: `Choice`, or any module
with ENOT's attributes (`search_variants`, `default_operation_index`), so ENOT
models work without ENOT. Everything else is the constant part.

How it reads a model: it runs it once on the given input with every function
call recorded (a TorchFunctionMode) and the known modules (Conv2d, BatchNorm2d,
activations, pools, Linear, Upsample, …) recorded whole through hooks; each
choice container is recorded as one block, and each of its candidates is run
and recorded alone on the block's input. So Python control flow, x.size() and
unpacking work as they do in eager mode (torch.fx cannot trace
torchvision's ShuffleNetV2), and the space is the model as it ran on that
input. Every recorded call maps to a layer of the space-file format (primitive
layers wired with "from"); a call that cannot be mapped is an error naming the
module path, the call and the candidate — never a silent skip.
"""
import math
import operator
from typing import Any, Dict, List, Optional, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from .space import SearchSpace


class Choice(nn.Module):
    """A NAS block: one of `modules` runs (the default one outside sslat)."""

    def __init__(self, modules: Sequence[nn.Module], default: int = 0):
        super().__init__()
        self.search_variants = nn.ModuleList(modules)
        if not 0 <= default < len(self.search_variants):
            raise ValueError("Choice: default %d is not one of the %d candidates" % (default, len(modules)))
        self.default_operation_index = default

    def forward(self, *args, **kwargs):
        return self.search_variants[self.default_operation_index](*args, **kwargs)


def is_choice(module: nn.Module) -> bool:
    """Choice, or a container with ENOT's attributes (SearchVariantsContainer)."""
    return hasattr(module, "search_variants") and hasattr(module, "default_operation_index")


class MappingError(ValueError):
    """A call of the model that sslat's IR cannot express."""


_ACTIVATION_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Hardswish: "hswish", nn.Hardsigmoid: "hsigmoid",
                       nn.SiLU: "silu", nn.Sigmoid: "sigmoid", nn.GELU: "gelu", nn.Tanh: "tanh"}
_ACTIVATION_FUNCTIONS = {F.relu: "relu", torch.relu: "relu", torch.relu_: "relu", F.relu_: "relu",
                         F.relu6: "relu6", F.hardswish: "hswish", F.hardsigmoid: "hsigmoid", F.silu: "silu",
                         torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", F.gelu: "gelu", torch.tanh: "tanh",
                         F.tanh: "tanh", torch.Tensor.relu: "relu", torch.Tensor.relu_: "relu",
                         torch.Tensor.sigmoid: "sigmoid", torch.Tensor.sigmoid_: "sigmoid",
                         torch.Tensor.tanh: "tanh"}
_IDENTITY_MODULES = (nn.Identity, nn.Dropout, nn.Dropout2d)
_LEAF_MODULES = (nn.Conv2d, nn.BatchNorm2d, nn.Linear, nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d,
                 nn.Flatten, nn.Upsample, nn.ChannelShuffle) + tuple(_ACTIVATION_MODULES) + _IDENTITY_MODULES
_ADD = {operator.add, operator.iadd, torch.add, torch.Tensor.add, torch.Tensor.add_, torch.Tensor.__add__,
        torch.Tensor.__iadd__, torch.Tensor.__radd__}
_MUL = {operator.mul, operator.imul, torch.mul, torch.Tensor.mul, torch.Tensor.mul_, torch.Tensor.__mul__,
        torch.Tensor.__imul__, torch.Tensor.__rmul__}
_ALIAS = {torch.Tensor.contiguous, torch.Tensor.clone, F.dropout, torch.Tensor.detach}  # the model runs in eval
_FOCUS_PHASES = [(0, 0), (1, 0), (0, 1), (1, 1)]  # YOLOv5's x[..., ::2, ::2], x[..., 1::2, ::2], …


def _pair(value, what, where):
    if isinstance(value, (tuple, list)):
        if len(set(value)) != 1:
            raise MappingError("%s: %s %s is not square (the IR's windows are square)" % (where, what, tuple(value)))
        return int(value[0])
    return int(value)


def _compact(layer):
    """Leave out the options at the format's defaults (shorter files and labels):
    stride 1 (a pool: its kernel), groups 1, dilation 1, padding d·(k − 1) / 2, no bias."""
    pool = layer["op"] in ("maxpool", "avgpool")
    defaults = {"s": layer["k"] if pool else 1, "g": 1, "d": 1, "p": layer.get("d", 1) * (layer["k"] - 1) // 2,
                "bias": False}
    return {key: value for key, value in layer.items() if key not in defaults or defaults[key] != value}


class _Value:
    """A recorded tensor: the layer that made it, or something still pending
    (a view that is half of a channel shuffle, a strided pixel phase of Focus)."""

    def __init__(self, source, pending=None):
        self.source, self.pending = source, pending


class _Recorder(TorchFunctionMode):
    """Records one run: layers (dicts of the space-file format) with their sources."""

    def __init__(self, where):
        super().__init__()
        self.where = where    # "model" or "candidate 3 of block 'layer2.0'"
        self.layers = []      # [(layer dict, [source ids])]
        self.values = {}      # id(tensor) → _Value
        self.keep = []        # the recorded tensors, alive so their ids stay unique
        self.depth = 0        # > 0 inside a module recorded whole
        self.path = ""        # the module running now, for messages

    # ---- values ---------------------------------------------------------------------------------
    def mark_input(self, tensor):
        self.keep.append(tensor)
        self.values[id(tensor)] = _Value("input")

    def value_of(self, tensor, what):
        value = self.values.get(id(tensor))
        if value is None:
            raise MappingError("%s: %s reads a tensor the model did not compute from its input (a constant or a "
                               "buffer), in %s" % (self.path or "model", what, self.where))
        return value

    def source_of(self, tensor, what):
        value = self.value_of(tensor, what)
        if value.pending is not None:
            raise MappingError("%s: %s reads %s, which sslat's IR cannot express, in %s"
                               % (self.path or "model", what, value.pending[0], self.where))
        return value.source

    def emit(self, layer, sources, result):
        self.layers.append((layer, list(sources)))
        self.set(result, _Value(len(self.layers) - 1))

    def set(self, tensor, value):
        self.keep.append(tensor)
        self.values[id(tensor)] = value

    def fail(self, what):
        raise MappingError("%s: %s has no sslat mapping, in %s" % (self.path or "model", what, self.where))

    # ---- modules recorded whole ------------------------------------------------------------------
    def module(self, module, name, inputs, output):
        where = "%s (%s)" % (name or "model", type(module).__name__)
        self.path = name
        x = inputs[0]
        if isinstance(module, _IDENTITY_MODULES) or (isinstance(module, nn.Flatten) and tuple(x.shape[2:]) in ((), (1, 1))):
            self.set(output, self.value_of(x, where))  # nothing, or a vector that stays one (N×C×1×1 in the IR)
            return
        source = self.source_of(x, where)
        if isinstance(module, nn.Conv2d):
            if module.padding_mode != "zeros":
                raise MappingError("%s: padding_mode %r (the IR pads with zeros), in %s"
                                   % (where, module.padding_mode, self.where))
            k = _pair(module.kernel_size, "kernel", where)
            padding = module.padding
            if isinstance(padding, str):  # 'same' / 'valid'
                padding = module.dilation[0] * (k - 1) // 2 if padding == "same" else 0
            layer = _compact({"op": "conv", "k": k, "s": _pair(module.stride, "stride", where), "c": module.out_channels,
                              "g": module.groups, "p": _pair(padding, "padding", where),
                              "d": _pair(module.dilation, "dilation", where), "bias": module.bias is not None})
        elif isinstance(module, nn.BatchNorm2d):
            if not module.affine or not module.track_running_stats:
                raise MappingError("%s: a BatchNorm2d without affine parameters or running statistics, in %s"
                                   % (where, self.where))
            layer = "bn"
        elif type(module) in _ACTIVATION_MODULES:
            layer = _ACTIVATION_MODULES[type(module)]
        elif isinstance(module, (nn.MaxPool2d, nn.AvgPool2d)):
            if module.ceil_mode or (isinstance(module, nn.AvgPool2d) and not module.count_include_pad):
                raise MappingError("%s: ceil_mode or count_include_pad=False, in %s" % (where, self.where))
            if isinstance(module, nn.MaxPool2d) and _pair(module.dilation, "dilation", where) != 1:
                raise MappingError("%s: a dilated max pool, in %s" % (where, self.where))
            layer = _compact({"op": "maxpool" if isinstance(module, nn.MaxPool2d) else "avgpool",
                              "k": _pair(module.kernel_size, "kernel", where),
                              "s": _pair(module.stride, "stride", where), "p": _pair(module.padding, "padding", where)})
        elif isinstance(module, nn.AdaptiveAvgPool2d):
            if _pair(module.output_size, "output size", where) != 1:
                raise MappingError("%s: AdaptiveAvgPool2d to %s (only to 1), in %s"
                                   % (where, module.output_size, self.where))
            layer = "gap"
        elif isinstance(module, nn.Linear):
            if module.bias is None:
                raise MappingError("%s: a Linear without bias, in %s" % (where, self.where))
            layer = {"op": "fc", "c": module.out_features}
        elif isinstance(module, nn.Flatten):
            layer = "flatten"
        elif isinstance(module, nn.Upsample):
            layer = self.upsample(module.mode, module.scale_factor, where)
        elif isinstance(module, nn.ChannelShuffle):
            layer = {"op": "shuffle", "g": module.groups}
        else:
            self.fail(where)
        self.emit(layer, [source], output)

    def upsample(self, mode, scale, where):
        if mode != "nearest" or scale is None or _pair(scale, "scale", where) != float(_pair(scale, "scale", where)):
            raise MappingError("%s: upsampling other than nearest by an integer scale, in %s" % (where, self.where))
        return {"op": "upsample", "s": _pair(scale, "scale", where)}

    # ---- functions --------------------------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if self.depth == 0:
            self.record(func, args, kwargs, result)
        return result

    def record(self, func, args, kwargs, result):
        name = getattr(func, "__name__", str(func))
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        produced = [result] if isinstance(result, torch.Tensor) else list(result) if isinstance(result, (tuple, list)) else []
        if isinstance(result, torch.Size) or not any(isinstance(r, torch.Tensor) for r in produced):
            return  # sizes, shapes, dims, numbers: no layer
        if not tensors and func is not torch.cat:
            return
        if isinstance(result, torch.Tensor) and result.dim() == 0:
            return
        what = "%s()" % name
        if func in _ALIAS:
            self.set(result, self.value_of(args[0], what))
        elif func in _ACTIVATION_FUNCTIONS:
            self.emit(_ACTIVATION_FUNCTIONS[func], [self.source_of(args[0], what)], result)
        elif func in (F.hardtanh, torch.Tensor.clamp, torch.clamp) and self.is_relu6(func, args, kwargs):
            self.emit("relu6", [self.source_of(args[0], what)], result)
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
            self.emit({"op": "gap", "mean": True}, [self.source_of(args[0], what)], result)
        elif func is F.adaptive_avg_pool2d:
            size = args[1] if len(args) > 1 else kwargs.get("output_size")
            if _pair(size, "output size", what) != 1:
                self.fail("%s to %s (only to 1)" % (what, size))
            self.emit({"op": "gap", "fn": True}, [self.source_of(args[0], what)], result)
        elif func is F.interpolate:
            mode = kwargs.get("mode", args[3] if len(args) > 3 else "nearest")
            scale = kwargs.get("scale_factor", args[2] if len(args) > 2 else None)
            self.emit(self.upsample(mode, scale, what), [self.source_of(args[0], what)], result)
        elif func is F.channel_shuffle or func is torch.channel_shuffle:
            self.emit({"op": "shuffle", "g": int(args[1])}, [self.source_of(args[0], what)], result)
        elif func in (F.max_pool2d, F.avg_pool2d, F.conv2d, F.linear, F.batch_norm):
            self.fail("%s as a function (use its module: its parameters and window must be known)" % what)
        else:
            self.fail(what)

    @staticmethod
    def is_relu6(func, args, kwargs):
        low = kwargs.get("min", kwargs.get("min_val", args[1] if len(args) > 1 else None))
        high = kwargs.get("max", kwargs.get("max_val", args[2] if len(args) > 2 else None))
        return low == 0 and high == 6

    def binary(self, add, args, what, result):
        a, b = args[0], args[1]
        if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            self.fail("%s with a number (scaling and shifting by constants are not IR ops)" % what)
        if add and a.shape == b.shape:
            self.emit("add", [self.source_of(a, what), self.source_of(b, what)], result)
            return
        if not add:  # x · s with s of N×C×1×1 (either order): squeeze-excite's scaling
            for x, s in ((a, b), (b, a)):
                if x.dim() == 4 and s.dim() == 4 and s.shape[2:] == (1, 1) and s.shape[:2] == x.shape[:2]:
                    self.emit("mul", [self.source_of(x, what), self.source_of(s, what)], result)
                    return
        self.fail("%s of shapes %s and %s (the IR adds equal shapes and scales channels by N×C×1×1)"
                  % (what, tuple(a.shape), tuple(b.shape)))

    def cat(self, args, kwargs, what, result):
        parts = list(args[0])
        dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
        values = [self.value_of(p, what) for p in parts]
        phases = [v.pending[1] if v.pending and v.pending[0] == "a strided pixel phase" else None for v in values]
        if dim % 4 == 1 and phases == _FOCUS_PHASES and len({v.pending[2] for v in values}) == 1:
            self.emit("s2d", [values[0].pending[2]], result)  # YOLOv5's Focus slicing
            return
        if dim % max(result.dim(), 1) != 1:
            self.fail("%s along dim %s (the IR joins channels)" % (what, dim))
        if not 2 <= len(parts) <= 4:
            self.fail("%s of %d tensors (the IR joins 2 to 4)" % (what, len(parts)))
        self.emit("concat", [self.source_of(p, what) for p in parts], result)

    def split(self, args, kwargs, what, result):
        x = args[0]
        dim = kwargs.get("dim", args[2] if len(args) > 2 else 0)
        if dim % x.dim() != 1:
            self.fail("%s along dim %s (the IR splits channels)" % (what, dim))
        source, offset = self.source_of(x, what), 0
        for part in result:
            self.emit({"op": "slice", "o": offset, "c": part.shape[1]}, [source], part)
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
            self.emit({"op": "slice", "o": start, "c": stop - start}, [self.source_of(x, what)], result)
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
            self.emit("flatten", [self.source_of(x, what)], result)

    def view(self, args, what, result):
        x = args[0]
        value = self.value_of(x, what)
        if value.pending and value.pending[0] == "a transposed channel-group view" and result.dim() == 4:
            self.emit({"op": "shuffle", "g": value.pending[1]}, [value.pending[2]], result)
        elif x.dim() == 4 and result.dim() == 5 and result.shape[0] == x.shape[0] and result.shape[3:] == x.shape[2:]:
            self.set(result, _Value(None, ("a channel-group view", int(result.shape[1]), self.source_of(x, what))))
        elif result.dim() == 2 and result.shape[0] == x.shape[0] and (x.dim() == 2 or tuple(x.shape[2:]) == (1, 1)):
            self.set(result, value)  # N×C×1×1 → N×C: the same vector in the IR
        elif result.dim() == 2 and result.shape[0] == x.shape[0]:
            self.emit("flatten", [self.source_of(x, what)], result)
        elif result.dim() == 4 and result.shape[2:] == (1, 1) and result.shape[0] == x.shape[0]:
            # N×C vectors are N×C×1×1 in the IR: a view between the two is the same value
            if x.dim() == 2 or tuple(x.shape[2:]) == (1, 1):
                self.set(result, value)
            else:
                self.emit("flatten", [self.source_of(x, what)], result)
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


def _run_recorded(module: nn.Module, x: torch.Tensor, where: str, choices: Optional[list]):
    """Run module on x with a recorder; choice containers (when choices is a
    list) are recorded as blocks: ("choice", module, its path)."""
    recorder = _Recorder(where)
    hooks, names = [], {m: n for n, m in module.named_modules()}

    def pre(m, inputs):
        recorder.depth += 1

    def post(m, inputs, output):
        recorder.depth -= 1
        if recorder.depth > 0:
            return
        if is_choice(m) and choices is not None:
            source = recorder.source_of(inputs[0], "choice '%s'" % names[m])
            choices.append((m, names[m], tuple(inputs[0].shape)))
            recorder.emit(("choice", len(choices) - 1), [source], output)
        else:
            recorder.module(m, names[m], inputs, output)

    for m in module.modules():
        if (is_choice(m) and choices is not None) or isinstance(m, _LEAF_MODULES):
            hooks.append(m.register_forward_pre_hook(pre))
            hooks.append(m.register_forward_hook(post))
    try:
        recorder.mark_input(x)
        with torch.no_grad(), recorder:
            output = module(x)
    finally:
        for h in hooks:
            h.remove()
    outputs = [output] if isinstance(output, torch.Tensor) else list(output) if isinstance(output, (tuple, list)) else []
    if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
        raise MappingError("%s returns %s: sslat maps tensors and lists of tensors" % (where, type(output).__name__))
    # the last output last: it is the network's (a detector's other scales stay as side outputs)
    return recorder, [recorder.source_of(o, "the output") for o in outputs]


def _rows(recorder, outputs):
    """The recorded layers in the file format, each with "from" where it does
    not read the one before it; layers no output needs are dropped."""
    needed, stack = set(), list(outputs)
    while stack:
        i = stack.pop()
        if i == "input" or i in needed:
            continue
        needed.add(i)
        stack.extend(recorder.layers[i][1])
    keep = sorted(needed)
    index = {old: new for new, old in enumerate(keep)}
    rows = []
    for new, old in enumerate(keep):
        layer, sources = recorder.layers[old]
        mapped = ["input" if s == "input" else index[s] for s in sources]
        default = [new - 1] if new > 0 else ["input"]
        rows.append((layer, None if mapped == default else mapped))
    return rows


def _with_from(layer, sources):
    """A layer (a type word or an object) with its "from", when it has one."""
    if sources is None:
        return layer
    layer = dict(layer) if isinstance(layer, dict) else {"op": layer}
    layer["from"] = sources if len(sources) > 1 else sources[0]
    return layer


def _candidate(module: nn.Module, shape, block: str, number: int):
    where = "candidate %d of block '%s'" % (number, block)
    x = torch.zeros(shape)
    recorder, output = _run_recorded(module, x, where, None)
    if output == ["input"]:  # an identity candidate
        return ["skip"]
    return [_with_from(layer, sources) for layer, sources in _rows(recorder, output)]


def _runs(rows):
    """Group the constant part's chain runs: a row joins the one before when it
    reads only that row and is its only reader, so a conv and its BN share one
    subgraph (--fuse-bn folds within a subgraph). Returns the groups (lists of
    row indices) and each row's group."""
    readers = [0] * len(rows)
    for i, (_, sources) in enumerate(rows):
        for source in (sources if sources is not None else [i - 1] if i > 0 else []):
            if source != "input":
                readers[source] += 1
    groups, group_of = [], []
    for i, (layer, sources) in enumerate(rows):
        block = isinstance(layer, tuple)
        joins = (groups and not block and sources is None and readers[i - 1] == 1
                 and not isinstance(rows[i - 1][0], tuple))
        if joins:
            groups[-1].append(i)
        else:
            groups.append([i])
        group_of.append(len(groups) - 1)
    return groups, group_of


def to_space_dict(model: nn.Module, inputs: Any, name: Optional[str] = None) -> Dict[str, Any]:
    """The space of model (a dict of the space-file format): every choice
    container a block (in the order the model runs them, candidates in
    container order), everything else the constant part (its chain runs as
    {"sequence": [...]} layers)."""
    x = _input_tensor(inputs)
    was_training = model.training
    model.eval()
    try:
        choices = []
        try:  # the layers do not depend on the resolution: record a smaller run when it can be had
            recorder, output = _run_recorded(model, _recording_input(x), "the model", choices)
        except MappingError:
            raise
        except Exception:  # e.g. a stride the smaller input does not divide: the input as given
            choices = []
            recorder, output = _run_recorded(model, x, "the model", choices)
        rows = _rows(recorder, output)
        groups, group_of = _runs(rows)
        layers, arch = [], []
        for number, group in enumerate(groups):
            layer, sources = rows[group[0]]
            if sources is not None:  # renumbered: a source is always the last row of its group
                sources = ["input" if s == "input" else group_of[s] for s in sources]
                if sources == ([number - 1] if number > 0 else ["input"]):
                    sources = None
            if isinstance(layer, tuple):
                module, path, shape = choices[layer[1]]
                candidates = [_candidate(c, shape, path, k) for k, c in enumerate(module.search_variants)]
                row = {"choice": [c[0] if len(c) == 1 else c for c in candidates], "name": path}
                arch.append(int(module.default_operation_index))
            elif len(group) == 1:
                row = layer if sources is None else {"op": layer} if not isinstance(layer, dict) else dict(layer)
            else:
                row = {"sequence": [rows[i][0] for i in group]}
            if sources is not None:
                row["from"] = sources if len(sources) > 1 else sources[0]
            layers.append(row)
    finally:
        model.train(was_training)
    space = {"sslat": 1, "name": name or type(model).__name__,
             "input": {"shape": list(x.shape[1:]), "batch": int(x.shape[0])}, "layers": layers}
    if arch:
        space["arch"] = arch
    return space


def to_space(model: nn.Module, inputs: Any, name: Optional[str] = None) -> SearchSpace:
    """model as an sslat SearchSpace (see to_space_dict); space.to_json() shows it."""
    return SearchSpace(to_space_dict(model, inputs, name))


def _recording_input(x):
    """One sample at a fraction of the resolution, a power of two that keeps
    H and W multiples of 32 (every stride of a stride-32 network divides
    them) and at least 64: what is recorded is the same, the arithmetic is
    up to 16× less (the space's input is still x's shape)."""
    h, w = x.shape[2], x.shape[3]
    factor = 1
    while factor < 16 and h % (64 * factor) == 0 and w % (64 * factor) == 0 and h // (2 * factor) >= 64 \
            and w // (2 * factor) >= 64:
        factor *= 2
    return torch.zeros(1, x.shape[1], h // factor, w // factor)


def _input_tensor(inputs):
    if isinstance(inputs, (tuple, list)):
        if len(inputs) != 1:
            raise ValueError("sslat.torch: a model with %d inputs; sslat spaces have one" % len(inputs))
        inputs = inputs[0]
    if isinstance(inputs, torch.Tensor):
        if inputs.dim() != 4:
            raise ValueError("sslat.torch: the input is N×C×H×W, got %s" % (tuple(inputs.shape),))
        return torch.zeros(inputs.shape, dtype=torch.float32)
    if isinstance(inputs, (tuple, list, torch.Size)) and len(inputs) == 4:
        return torch.zeros(tuple(int(v) for v in inputs))
    raise TypeError("sslat.torch: inputs is a tensor, a 1-tuple of one, or an N×C×H×W shape")


# ---- the inverse: an architecture of a space as a module --------------------------------------------

_ACTIVATIONS = {"relu": nn.ReLU, "relu6": nn.ReLU6, "hswish": nn.Hardswish, "hsigmoid": nn.Hardsigmoid,
                "sigmoid": nn.Sigmoid, "silu": nn.SiLU, "gelu": nn.GELU, "tanh": nn.Tanh}
_ROLE = {"weight": 0, "bias": 1, "gamma": 2, "beta": 3, "mean": 4, "variance": 5}
_BN_EPSILON = 1e-5  # SSLAT_BN_EPSILON


def _seeded(seed, node, role, fan_in, shape):
    """The values the calculators give this parameter (sslat_parameter_values)."""
    import ctypes
    from ._native import lib
    count = math.prod(shape)
    buffer = (ctypes.c_float * max(count, 1))()
    lib.sslat_parameter_values(seed, node, _ROLE[role], fan_in, buffer, count)
    return torch.frombuffer(bytearray(buffer), dtype=torch.float32)[:count].reshape(shape).clone()


class Architecture(nn.Module):
    """One architecture of a space, node by node as the IR has it (what
    to_module returns); parameters are ordinary nn.Parameters."""

    def __init__(self, graph: Dict[str, Any], seed: int):
        super().__init__()
        self.nodes, self.input_shape = graph["nodes"], graph["input"]
        self.layers = nn.ModuleList()
        with torch.no_grad():
            for i, node in enumerate(self.nodes):
                self.layers.append(self._layer(i, node, seed))

    def _shape_in(self, node):
        return self.input_shape if node["input"][0] == -1 else self.nodes[node["input"][0]]["shape"]

    def _layer(self, i, node, seed):
        op, shape = node["op"], self._shape_in(node)
        if op == "conv2d":
            c = node["conv"]
            layer = nn.Conv2d(shape[1], c["out_channels"], c["kernel"], c["stride"], c["padding"], c["dilation"],
                              c["groups"], bias=c["bias"])
            fan_in = shape[1] // c["groups"] * c["kernel"] ** 2
            layer.weight.copy_(_seeded(seed, i, "weight", fan_in, tuple(layer.weight.shape)))
            if c["bias"]:
                layer.bias.copy_(_seeded(seed, i, "bias", 0, (c["out_channels"],)))
        elif op == "batchnorm":
            layer = nn.BatchNorm2d(shape[1], eps=_BN_EPSILON)
            for name, role in (("weight", "gamma"), ("bias", "beta"), ("running_mean", "mean"),
                               ("running_var", "variance")):
                getattr(layer, name).copy_(_seeded(seed, i, role, 0, (shape[1],)))
        elif op == "act":
            layer = _ACTIVATIONS[node["act"]]()
        elif op in ("maxpool", "avgpool"):
            p = node["pool"]
            layer = (nn.MaxPool2d if op == "maxpool" else nn.AvgPool2d)(p["kernel"], p["stride"], p["padding"])
        elif op == "linear":
            features = shape[1] * shape[2] * shape[3]
            layer = nn.Linear(features, node["linear"]["out_features"], bias=node["linear"]["bias"])
            layer.weight.copy_(_seeded(seed, i, "weight", features, tuple(layer.weight.shape)))
            if node["linear"]["bias"]:
                layer.bias.copy_(_seeded(seed, i, "bias", 0, (node["linear"]["out_features"],)))
        elif op == "global_avgpool" and node.get("form", "module") == "module":
            layer = nn.AdaptiveAvgPool2d(1)  # as the model wrote it: thop and pthflops count only the module
        elif op == "input":
            raise MappingError("node %d is a layer's own input: architectures have none" % i)
        else:
            layer = nn.Identity()  # the other ops are functions of their inputs (forward)
        return layer

    def forward(self, x):
        values = []
        for node, layer in zip(self.nodes, self.layers):
            inputs = [x if j == -1 else values[j] for j in node["input"] if j != -2]
            a, op = inputs[0], node["op"]
            if op == "add":
                y = a + inputs[1]
            elif op == "mul_channel":
                y = a * inputs[1]
            elif op == "global_avgpool" and node.get("form") == "functional":
                y = F.adaptive_avg_pool2d(a, 1)
            elif op == "global_avgpool" and node.get("form") == "mean":
                y = a.mean((2, 3), keepdim=True)
            elif op == "linear":
                y = layer(torch.flatten(a, 1)).view(a.shape[0], -1, 1, 1)
            elif op == "flatten":
                y = a.reshape(a.shape[0], -1, 1, 1)
            elif op == "channel_shuffle":
                n, c, h, w = a.shape
                g = node["groups"]
                y = a.view(n, g, c // g, h, w).transpose(1, 2).reshape(n, c, h, w)
            elif op == "concat":
                y = torch.cat(inputs, 1)
            elif op == "channel_slice":
                y = a[:, node["slice"]["start"]:node["slice"]["start"] + node["slice"]["length"]]
            elif op == "upsample":
                y = F.interpolate(a, scale_factor=node["scale"], mode="nearest")
            elif op == "space_to_depth":
                y = torch.cat([a[..., ::2, ::2], a[..., 1::2, ::2], a[..., ::2, 1::2], a[..., 1::2, 1::2]], 1)
            else:
                y = layer(a)
            values.append(y)
        y = values[-1] if values else x
        # vectors are N×C×1×1 in the IR; a network ending in a linear layer gives N×C, as PyTorch's do
        return y.flatten(1) if self.nodes and self.nodes[-1]["op"] in ("linear", "flatten") else y


def to_module(space: SearchSpace, arch: Optional[Sequence[int]] = None, seed: int = 0) -> nn.Module:
    """Architecture arch of space as an nn.Module with the space's seeded
    weights (seed 0: the calculators' default), in eval mode: the found
    architecture, to train or export. Its output is the network's last one."""
    graph = space.architecture_graph(list(arch) if arch is not None else None)
    return Architecture(graph, seed).eval()
