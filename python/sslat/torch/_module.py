"""A space's architecture as an nn.Module: the inverse of to_space (to_module),
and the interpreter the check after tracing runs the traced space with."""
import math
from typing import Any, Dict, Optional, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..space import SearchSpace
from ._layers import MappingError

_ACTIVATIONS = {"relu": nn.ReLU, "relu6": nn.ReLU6, "hswish": nn.Hardswish, "hsigmoid": nn.Hardsigmoid,
                "sigmoid": nn.Sigmoid, "silu": nn.SiLU, "gelu": nn.GELU, "tanh": nn.Tanh}
_ROLE = {"weight": 0, "bias": 1, "gamma": 2, "beta": 3, "mean": 4, "variance": 5}
_BN_EPSILON = 1e-5  # SSLAT_BN_EPSILON


def _seeded(seed, node, role, fan_in, shape):
    """The values the calculators give this parameter (sslat_parameter_values)."""
    import ctypes
    from .._native import lib
    count = math.prod(shape)
    buffer = (ctypes.c_float * max(count, 1))()
    lib.sslat_parameter_values(seed, node, _ROLE[role], fan_in, buffer, count)
    return torch.frombuffer(bytearray(buffer), dtype=torch.float32)[:count].reshape(shape).clone()


class Architecture(nn.Module):
    """One architecture of a space, node by node as the IR has it (what
    to_module returns); parameters are ordinary nn.Parameters, the
    calculators' seeded values (seed None: PyTorch's initial values, for a
    caller that loads its own, as the check after tracing does)."""

    def __init__(self, graph: Dict[str, Any], seed: Optional[int]):
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
            top, left, bottom, right = c["pads"]
            symmetric = top == left == bottom == right
            layer = nn.Conv2d(shape[1], c["out_channels"], c["kernel"], c["stride"], top if symmetric else 0,
                              c["dilation"], c["groups"], bias=c["bias"])
            fan_in = shape[1] // c["groups"] * c["kernel"] ** 2
            if seed is not None:
                layer.weight.copy_(_seeded(seed, i, "weight", fan_in, tuple(layer.weight.shape)))
                if c["bias"]:
                    layer.bias.copy_(_seeded(seed, i, "bias", 0, (c["out_channels"],)))
        elif op == "batchnorm":
            layer = nn.BatchNorm2d(shape[1], eps=_BN_EPSILON)
            for name, role in (("weight", "gamma"), ("bias", "beta"), ("running_mean", "mean"),
                               ("running_var", "variance")):
                if seed is not None:
                    getattr(layer, name).copy_(_seeded(seed, i, role, 0, (shape[1],)))
        elif op == "act":
            layer = _ACTIVATIONS[node["act"]]()
        elif op in ("maxpool", "avgpool"):
            p = node["pool"]
            layer = (nn.MaxPool2d if op == "maxpool" else nn.AvgPool2d)(p["kernel"], p["stride"], p["padding"])
        elif op == "linear":
            features = shape[1] * shape[2] * shape[3]
            layer = nn.Linear(features, node["linear"]["out_features"], bias=node["linear"]["bias"])
            if seed is not None:
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
        values = self.run(x)
        y = values[-1] if values else x
        # vectors are N×C×1×1 in the IR; a network ending in a linear layer gives N×C, as PyTorch's do
        return y.flatten(1) if self.nodes and self.nodes[-1]["op"] in ("linear", "flatten") else y

    def run(self, x):
        """Every node's value, in node order."""
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
            elif op == "conv2d" and len(set(node["conv"]["pads"])) > 1:  # 'same', one side more: pad first
                top, left, bottom, right = node["conv"]["pads"]
                y = layer(F.pad(a, (left, right, top, bottom)))
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
        return values


def to_module(space: SearchSpace, arch: Optional[Sequence[int]] = None, seed: int = 0) -> nn.Module:
    """Architecture arch of space as an nn.Module with the space's seeded
    weights (seed 0: the calculators' default), in eval mode: the found
    architecture, to train or export. Its output is the network's last one."""
    from .._native import seed64
    graph = space.architecture_graph(list(arch) if arch is not None else None)
    return Architecture(graph, seed64(seed)).eval()
