"""A space's architecture as an nn.Module: the inverse of to_space (to_module),
and the interpreter the check after tracing runs the traced space with."""
import math
from typing import Any, Dict, Optional, Sequence

import torch
import torch.nn as nn

from .._ir_torch import UnsupportedNode, interpreter
from ..space import SearchSpace
from ._layers import MappingError

_ROLE = {"weight": 0, "bias": 1, "gamma": 2, "beta": 3, "mean": 4, "variance": 5}  # sslat_parameter_role


def _seeded_values(seed):
    """The values the calculators give each parameter (sslat_parameter_values)."""
    import ctypes
    from .._native import lib

    def values(node, role, fan_in, shape):
        count = math.prod(shape)
        buffer = (ctypes.c_float * max(count, 1))()
        lib.sslat_parameter_values(seed, node, _ROLE[role], fan_in, buffer, count)
        return torch.frombuffer(bytearray(buffer), dtype=torch.float32)[:count].reshape(shape).clone()

    return values


class Architecture(interpreter(torch)):
    """One architecture of a space, node by node as the IR has it (what
    to_module returns; the interpreter is sslat._ir_torch, shared with
    `validate --reference torch`); parameters are ordinary nn.Parameters, the
    calculators' seeded values (seed None: PyTorch's initial values, for a
    caller that loads its own, as the check after tracing does)."""

    def __init__(self, graph: Dict[str, Any], seed: Optional[int]):
        try:
            super().__init__(graph, _seeded_values(seed) if seed is not None else None)
        except UnsupportedNode as error:
            raise MappingError(str(error)) from None


def to_module(space: SearchSpace, arch: Optional[Sequence[int]] = None, seed: int = 0) -> nn.Module:
    """Architecture arch of space as an nn.Module with the space's seeded
    weights (seed 0: the calculators' default), in eval mode: the found
    architecture, to train or export. Its output is the network's last one."""
    from .._native import seed64
    graph = space.architecture_graph(list(arch) if arch is not None else None)
    return Architecture(graph, seed64(seed)).eval()
